//! Symbolic differentiation with memoisation.
use std::collections::HashSet;

use super::{Func, Graph, Id, Node, VarId};

impl Graph {
    /// `∂e/∂v`. Memoised per `(node, variable)`; nodes that do not depend on `v` are
    /// answered from the dependency sets without a walk.
    ///
    /// Without recursion, however deep `e` is (a sum of thousands of terms is a chain of
    /// as many `Add` nodes): the nodes below `e` still to differentiate are collected
    /// with an explicit stack, then differentiated in increasing id order, which puts
    /// every child before its parents (the graph's invariant), so each finds its
    /// children's derivatives in the memo.
    pub fn diff(&mut self, e: Id, v: VarId) -> Id {
        if !self.depends_on(e, v) {
            return self.zero();
        }
        if let Some(&d) = self.diff_memo.get(&(e, v)) {
            return d;
        }
        let mut order = vec![e];
        let mut seen = HashSet::from([e]);
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            for c in self.node(x).children() {
                if self.depends_on(c, v) && !self.diff_memo.contains_key(&(c, v)) && seen.insert(c)
                {
                    order.push(c);
                    stack.push(c);
                }
            }
        }
        order.sort_unstable();
        let mut d = e;
        for x in order {
            d = self.diff_node(x, v);
            self.diff_memo.insert((x, v), d);
        }
        // The last node in id order is `e` itself.
        d
    }

    /// `∂e/∂v` of one node whose children's derivatives are memoised (or zero).
    fn diff_node(&mut self, e: Id, v: VarId) -> Id {
        match self.node(e) {
            Node::Const(_) => self.zero(),
            Node::Var(w) => {
                if w == v {
                    self.one()
                } else {
                    self.zero()
                }
            }
            Node::Add(a, b) => {
                let (da, db) = (self.diff(a, v), self.diff(b, v));
                self.add(da, db)
            }
            Node::Neg(a) => {
                let da = self.diff(a, v);
                self.neg(da)
            }
            Node::Mul(a, b) => {
                let (da, db) = (self.diff(a, v), self.diff(b, v));
                let (l, r) = (self.mul(da, b), self.mul(a, db));
                self.add(l, r)
            }
            Node::Div(a, b) => {
                // d(a/b) = (da − (a/b) db) / b reuses the node a/b.
                let (da, db) = (self.diff(a, v), self.diff(b, v));
                let t = self.mul(e, db);
                let num = self.sub(da, t);
                self.div(num, b)
            }
            Node::Powi(a, n) => {
                let da = self.diff(a, v);
                // |n| ≤ MAX_EXPONENT plus earlier differentiations: no overflow.
                let p = self.powi(a, n - 1);
                let c = self.constant(f64::from(n));
                let cp = self.mul(c, p);
                self.mul(cp, da)
            }
            Node::Func(f, a) => {
                let da = self.diff(a, v);
                let outer = match f {
                    // d sqrt(a) = da / (2 sqrt(a))
                    Func::Sqrt => {
                        let two = self.constant(2.0);
                        let den = self.mul(two, e);
                        let one = self.one();
                        self.div(one, den)
                    }
                    Func::Sin => self.func(Func::Cos, a),
                    Func::Cos => {
                        let s = self.func(Func::Sin, a);
                        self.neg(s)
                    }
                    // d tan(a) = (1 + tan²(a)) da
                    Func::Tan => {
                        let t2 = self.powi(e, 2);
                        let one = self.one();
                        self.add(one, t2)
                    }
                    Func::Exp => e,
                    Func::Ln => {
                        let one = self.one();
                        self.div(one, a)
                    }
                };
                self.mul(outer, da)
            }
            Node::SelectLt(x, y, a, b) => {
                // Differentiate each branch; the condition is piecewise constant.
                let (da, db) = (self.diff(a, v), self.diff(b, v));
                self.select_lt(x, y, da, db)
            }
        }
    }

    /// Gradient of `e` with respect to `vars`.
    pub fn gradient(&mut self, e: Id, vars: &[VarId]) -> Vec<Id> {
        vars.iter().map(|&v| self.diff(e, v)).collect()
    }
}
