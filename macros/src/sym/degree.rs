//! Polynomial-degree analysis: detects functions of degree ≤ 2, whose discrete gradient
//! is exactly the midpoint gradient.
use super::{Graph, Id, Node, VarId};

impl Graph {
    /// Total polynomial degree of `e` in the variables selected by `in_vars`, treating
    /// every other variable as a constant coefficient; `None` if `e` is not a polynomial
    /// in them (a division by, or a transcendental function of, something that depends
    /// on them) or its degree overflows `u32`. Conservative: cancellations the
    /// simplifier missed count.
    ///
    /// Without recursion, however deep `e` is: the nodes below `e` are visited with an
    /// explicit stack, and their degrees computed in increasing id order, children
    /// before parents (the graph's invariant).
    pub fn degree(&self, e: Id, in_vars: &dyn Fn(VarId) -> bool) -> Option<u32> {
        let mut memo: Vec<Option<Option<u32>>> = vec![None; e.index() + 1];
        let mut seen = vec![false; e.index() + 1];
        seen[e.index()] = true;
        let mut order = vec![e];
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if !self.depends_on_any(x, in_vars) {
                continue;
            }
            for c in self.node(x).children() {
                if !seen[c.index()] {
                    seen[c.index()] = true;
                    order.push(c);
                    stack.push(c);
                }
            }
        }
        order.sort_unstable();
        for x in order {
            memo[x.index()] = Some(self.degree_node(x, in_vars, &memo));
        }
        memo[e.index()].flatten()
    }

    /// The degree of one node whose children's degrees are in `memo`.
    fn degree_node(
        &self,
        e: Id,
        in_vars: &dyn Fn(VarId) -> bool,
        memo: &[Option<Option<u32>>],
    ) -> Option<u32> {
        if !self.depends_on_any(e, in_vars) {
            Some(0)
        } else {
            let deg = |x: Id| memo[x.index()].flatten();
            match self.node(e) {
                Node::Const(_) => Some(0),
                Node::Var(_) => Some(1),
                Node::Add(a, b) => deg(a).zip(deg(b)).map(|(x, y)| x.max(y)),
                Node::Mul(a, b) => deg(a).zip(deg(b)).and_then(|(x, y)| x.checked_add(y)),
                Node::Neg(a) => deg(a),
                // b depends on the variables (else the early return above would not
                // apply to b alone, but a might): only a constant denominator keeps a
                // polynomial.
                Node::Div(a, b) => match deg(b) {
                    Some(0) => deg(a),
                    _ => None,
                },
                Node::Powi(a, n) => match (deg(a), u32::try_from(n)) {
                    (Some(x), Ok(n)) => x.checked_mul(n),
                    _ => None,
                },
                Node::Func(..) => None,
                Node::SelectLt(..) => None,
            }
        }
    }
}
