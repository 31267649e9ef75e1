//! The model's symbolic quantities (`∂L`, `∇V`, `g`, `G`, `M`, `M⁻¹`), derived once.
use crate::ir::Model;
use crate::sym::Id;

/// The model's symbolic quantities, in its `q` and `v` (on a group the derivatives
/// along `q` left-trivialised, [`Model::config_gradient`]): derived once per model, right
/// after lowering, and read by the checks, the model-level impls, the point kernels and
/// every scheme template.
#[derive(Clone)]
pub struct Quantities {
    /// `∂L/∂q`, `∂L/∂v`.
    pub dl_dq: Vec<Id>,
    pub dl_dv: Vec<Id>,
    /// `∇V`.
    pub grad_v: Vec<Id>,
    /// `g(q)` and `G(q)` (row-major, `m × d`).
    pub g: Vec<Id>,
    pub jac: Vec<Vec<Id>>,
    /// `M = ∂²L/∂v²` (row-major `d × d`).
    pub mass: Vec<Vec<Id>>,
    /// `M⁻¹` (row-major `d × d`), when the mass matrix is constant.
    pub minv: Option<Vec<Vec<Id>>>,
}

impl Quantities {
    pub fn new(model: &mut Model) -> Self {
        let (qv, vv) = (model.q.clone(), model.v.clone());
        let l = model.lagrangian;
        // Along the configuration: left-trivialised on a group (`ℓ_ζ`).
        let dl_dq = model.config_gradient(l);
        let dl_dv = model.graph.gradient(l, &vv);
        let grad_v = model.config_gradient(model.potential);
        let g = model.constraint_exprs();
        let jac = g.iter().map(|&gk| model.graph.gradient(gk, &qv)).collect();
        let mass: Vec<Vec<Id>> = dl_dv
            .iter()
            .map(|&pi| model.graph.gradient(pi, &vv))
            .collect();
        let minv = constant_inverse(model, &mass);
        Quantities {
            dl_dq,
            dl_dv,
            grad_v,
            g,
            jac,
            mass,
            minv,
        }
    }
}

/// Whether a mass matrix depends on no coordinate or velocity.
pub fn is_constant(model: &Model, mass: &[Vec<Id>]) -> bool {
    mass.iter().flatten().all(|&e| {
        !model
            .graph
            .depends_on_any(e, |v| model.is_q(v) || model.is_v(v))
    })
}

/// Symbolic inverse of a constant mass matrix by Gauss–Jordan elimination without
/// pivoting. That is safe because a mass matrix is symmetric positive definite: every
/// leading principal minor is positive, so no pivot vanishes. Structural zeros stay
/// zero, so a (block-)diagonal `M` gives a (block-)diagonal `M⁻¹` of plain quotients.
pub fn constant_inverse(model: &mut Model, mass: &[Vec<Id>]) -> Option<Vec<Vec<Id>>> {
    if !is_constant(model, mass) {
        return None;
    }
    let g = &mut model.graph;
    let n = mass.len();
    let (zero, one) = (g.zero(), g.one());
    let mut a: Vec<Vec<Id>> = mass.to_vec();
    let mut inv: Vec<Vec<Id>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { one } else { zero }).collect())
        .collect();
    for k in 0..n {
        let pivot = a[k][k];
        if g.is_zero(pivot) {
            // Structurally singular: some coordinate carries no kinetic energy.
            return None;
        }
        for j in 0..n {
            a[k][j] = g.div(a[k][j], pivot);
            inv[k][j] = g.div(inv[k][j], pivot);
        }
        for i in 0..n {
            if i == k || g.is_zero(a[i][k]) {
                continue;
            }
            let f = a[i][k];
            for j in 0..n {
                let (s, t) = (g.mul(f, a[k][j]), g.mul(f, inv[k][j]));
                a[i][j] = g.sub(a[i][j], s);
                inv[i][j] = g.sub(inv[i][j], t);
            }
        }
    }
    Some(inv)
}
