//! Substitution of variables by expressions.
use std::collections::HashMap;

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

    fn subst_one(&mut self, e: Id, map: &HashMap<VarId, Id>, memo: &mut HashMap<Id, Id>) -> Id {
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        if !self.depends_on_any(e, |v| map.contains_key(&v)) {
            return e;
        }
        let mut s = |g: &mut Graph, x: Id| g.subst_one(x, map, memo);
        let r = match self.node(e) {
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
        };
        memo.insert(e, r);
        r
    }
}
