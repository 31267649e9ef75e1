//! EMH, the energy–momentum scheme of Betsch and Siebert (2009) on the Hamiltonian form of
//! rigid bodies (Kinon, Betsch, "Conserving integration of multibody systems with
//! singular and non-constant mass matrix including quaternion-based rigid body dynamics",
//! App. D, Def. D.2, eq. (146); spec 001 §2.9). Unknowns `x = (q¹, p¹, λ)`:
//!
//! ```text
//! (146) 0 = q¹ − q⁰ − h Q_l(q^½) c
//!       0 = p¹ − p⁰ + h [p^½, −G(p^½)ᵀ] c + h ∇̄V(q⁰, q¹) + h ∇̄g(q⁰, q¹)ᵀ λ
//!       0 = g(q¹),          c = ¼ J₄⁻¹ t^½,   t^½ = ½ (Q_l(q¹)ᵀp¹ + Q_l(q⁰)ᵀp⁰)
//! ```
//!
//! `c` is the discrete gradient of `T* = ⅛ t·J₄⁻¹t` in the invariant `t` (quadratic: its
//! midpoint gradient at the mean of the nodal invariants), carried back by `t`'s
//! derivatives at the midpoint, exact for the bilinear `t` ([`super::body_hamiltonian`]);
//! `∇̄V` and `∇̄g` are EML's discrete gradients (the midpoint gradient for degree ≤ 2).
//! Directionality of each conserves `H = T* + V` exactly, `t`'s invariance the momentum
//! maps, and `g(q¹) = g(q⁰) = 0` gives `q·p = 0` at the nodes (Remark D.1). Newton starts
//! from `q¹ = q⁰ + h v⁰` (footnote 5). The equations are [`body_hamiltonian::template`]'s;
//! this file gives its discrete derivatives.
use super::body_hamiltonian::{self, Derivatives};
use super::common::{midpoint, Inputs, Template};
use super::constraint_gradient::constraint_gradients;
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;

/// The step equations: the discrete derivatives of (146).
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    body_hamiltonian::template(model, inputs, |model, setup, body, nodes| {
        let t0 = body.invariants(&mut model.graph, &nodes.q0, &nodes.p0);
        let t1 = body.invariants(&mut model.graph, &nodes.q1, &nodes.p1);
        let tm: Vec<Vec<_>> = t0
            .iter()
            .zip(&t1)
            .map(|(t0, t1)| midpoint(model, t0, t1))
            .collect();
        let c = body.co_energy_gradients(&mut model.graph, &tm);
        let grad_v = discrete_gradient_v(model, &setup.qs.grad_v, &nodes.q0, &nodes.q1, &nodes.qm);
        let constraint_rows = if setup.m == 0 {
            Vec::new()
        } else {
            constraint_gradients(model, &nodes.q0, &nodes.q1)
        };
        Derivatives {
            c,
            grad_v,
            constraint_rows,
        }
    })
}
