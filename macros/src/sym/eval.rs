//! Numerical evaluation, for tests and compile-time checks.
use super::{Graph, Id, Node, VarId};

impl Graph {
    /// Evaluates `e` with variable values from `var`.
    pub fn eval(&self, e: Id, var: &dyn Fn(VarId) -> f64) -> f64 {
        self.eval_many(&[e], var)[0]
    }

    /// Evaluates every node of `outputs` in one pass over the graph.
    pub fn eval_many(&self, outputs: &[Id], var: &dyn Fn(VarId) -> f64) -> Vec<f64> {
        let Some(last) = outputs.iter().map(|e| e.index()).max() else {
            return Vec::new();
        };
        let mut vals = vec![0.0; last + 1];
        for i in 0..=last {
            vals[i] = match self.nodes[i] {
                Node::Const(bits) => f64::from_bits(bits),
                Node::Var(v) => var(v),
                Node::Add(a, b) => vals[a.index()] + vals[b.index()],
                Node::Mul(a, b) => vals[a.index()] * vals[b.index()],
                Node::Div(a, b) => vals[a.index()] / vals[b.index()],
                Node::Neg(a) => -vals[a.index()],
                Node::Powi(a, n) => vals[a.index()].powi(n),
                Node::Func(f, a) => f.apply(vals[a.index()]),
                Node::SelectLt(x, y, a, b) => {
                    if vals[x.index()] < vals[y.index()] {
                        vals[a.index()]
                    } else {
                        vals[b.index()]
                    }
                }
            };
        }
        outputs.iter().map(|e| vals[e.index()]).collect()
    }
}

impl Graph {
    /// Evaluates `outputs` together with their magnitudes: each value as if no sum in it
    /// cancelled (`|a| + |b|` for `a ± b`, `|a|·|b|` for a product). A value far below
    /// its magnitude is zero up to round-off: `(x + y)² − (x² + 2xy + y²)` evaluates to
    /// about 1e-16 of its magnitude. The checks decide "zero at this point" by that
    /// ratio, so that a model in small units (lengths of 1e-6) is not taken for zero.
    pub fn eval_with_magnitude(
        &self,
        outputs: &[Id],
        var: &dyn Fn(VarId) -> f64,
    ) -> Vec<(f64, f64)> {
        let Some(last) = outputs.iter().map(|e| e.index()).max() else {
            return Vec::new();
        };
        let mut vals = vec![(0.0f64, 0.0f64); last + 1];
        for i in 0..=last {
            let at = |id: Id| vals[id.index()];
            vals[i] = match self.nodes[i] {
                Node::Const(bits) => {
                    let x = f64::from_bits(bits);
                    (x, x.abs())
                }
                Node::Var(v) => {
                    let x = var(v);
                    (x, x.abs())
                }
                Node::Add(a, b) => {
                    let ((x, mx), (y, my)) = (at(a), at(b));
                    (x + y, mx + my)
                }
                Node::Mul(a, b) => {
                    let ((x, mx), (y, my)) = (at(a), at(b));
                    (x * y, mx * my)
                }
                Node::Div(a, b) => {
                    let ((x, mx), (y, _)) = (at(a), at(b));
                    (x / y, mx / y.abs())
                }
                Node::Neg(a) => {
                    let (x, mx) = at(a);
                    (-x, mx)
                }
                Node::Powi(a, n) => {
                    let (x, mx) = at(a);
                    let m = if n > 0 { mx.powi(n) } else { x.abs().powi(n) };
                    (x.powi(n), m)
                }
                Node::Func(f, a) => {
                    let y = f.apply(at(a).0);
                    (y, y.abs())
                }
                Node::SelectLt(x, y, a, b) => {
                    if at(x).0 < at(y).0 {
                        at(a)
                    } else {
                        at(b)
                    }
                }
            };
        }
        outputs.iter().map(|e| vals[e.index()]).collect()
    }
}
