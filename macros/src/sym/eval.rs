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
