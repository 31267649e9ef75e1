//! Substitution of variables by expressions.
use std::collections::{HashMap, HashSet};

use super::{Graph, Id, Node, VarId};

impl Graph {
    /// Replaces the variables in `map` by the given expressions in every `roots`
    /// expression, rebuilding through the simplifying constructors. One memo is shared by
    /// all roots, so shared subexpressions are rewritten once.
    pub fn substitute(&mut self, roots: &[Id], map: &HashMap<VarId, Id>) -> Vec<Id> {
        let mut memo: HashMap<Id, Id> = HashMap::new();
        roots
            .iter()
            .map(|&r| self.subst_one(r, map, &mut memo))
            .collect()
    }

    /// Without recursion, however deep `e` is: the nodes to rewrite are collected with an
    /// explicit stack and rewritten in increasing id order, children before parents (the
    /// graph's invariant), so each finds its children's images in the memo.
    fn subst_one(&mut self, e: Id, map: &HashMap<VarId, Id>, memo: &mut HashMap<Id, Id>) -> Id {
        let affected = |g: &Graph, x: Id| g.depends_on_any(x, |v| map.contains_key(&v));
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        if !affected(self, e) {
            return e;
        }
        let mut order = vec![e];
        let mut seen = HashSet::from([e]);
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            for c in self.node(x).children() {
                if !memo.contains_key(&c) && affected(self, c) && seen.insert(c) {
                    order.push(c);
                    stack.push(c);
                }
            }
        }
        order.sort_unstable();
        let mut r = e;
        for x in order {
            r = self.subst_node(x, map, memo);
            memo.insert(x, r);
        }
        // The last node in id order is `e` itself.
        r
    }

    /// The image of one node whose affected children are in the memo.
    fn subst_node(&mut self, e: Id, map: &HashMap<VarId, Id>, memo: &HashMap<Id, Id>) -> Id {
        let s = |_: &mut Graph, x: Id| memo.get(&x).copied().unwrap_or(x);
        match self.node(e) {
            Node::Const(_) => e,
            Node::Var(v) => map.get(&v).copied().unwrap_or(e),
            Node::Add(a, b) => {
                let (a, b) = (s(self, a), s(self, b));
                self.add(a, b)
            }
            Node::Mul(a, b) => {
                let (a, b) = (s(self, a), s(self, b));
                self.mul(a, b)
            }
            Node::Div(a, b) => {
                let (a, b) = (s(self, a), s(self, b));
                self.div(a, b)
            }
            Node::Neg(a) => {
                let a = s(self, a);
                self.neg(a)
            }
            Node::Powi(a, n) => {
                let a = s(self, a);
                self.powi(a, n)
            }
            Node::Func(f, a) => {
                let a = s(self, a);
                self.func(f, a)
            }
            Node::SelectLt(x, y, a, b) => {
                let (x, y, a, b) = (s(self, x), s(self, y), s(self, a), s(self, b));
                self.select_lt(x, y, a, b)
            }
        }
    }
}
