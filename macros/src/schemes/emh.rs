//! EMH, the energy–momentum scheme of Betsch and Siebert (2009) on the Hamiltonian form of
//! one rigid body (Kinon, Betsch, "Conserving integration of multibody systems with
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
//! from `q¹ = q⁰ + h v⁰` (footnote 5).
use super::algebra::Algebra;
use super::body_hamiltonian::BodyHamiltonian;
use super::common::{Inputs, NextState, Setup, Template};
use super::constraint_gradient::constraint_gradients;
use super::discrete_gradient::discrete_gradient_v;
use super::mph::extrapolated_template;
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let body = BodyHamiltonian::new(model, &setup);
    let Setup { k, qs, x, .. } = &setup;
    let dg = if setup.m == 0 {
        Vec::new()
    } else {
        constraint_gradients(model, &k.q, &x[0])
    };
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1, lambda) = (a.vector(&x[0]), a.vector(&x[1]), a.vector(&x[2]));
        let h = a.scalar(k.h);
        let (qm, pm) = (a.midpoint(&q0, &q1), a.midpoint(&p0, &p1));
        let t0 = a.call(|m| body.invariant(&mut m.graph, &q0.ids, &p0.ids));
        let t1 = a.call(|m| body.invariant(&mut m.graph, &q1.ids, &p1.ids));
        let tm = a.midpoint(&t0, &t1);
        let c = a.call(|m| body.co_energy_gradient(&mut m.graph, &tm.ids));
        let dp_h = a.call(|m| body.along_p(&mut m.graph, &qm.ids, &c.ids));
        let dq_t = a.call(|m| body.along_q(&mut m.graph, &pm.ids, &c.ids));
        let grad_v = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
        let dg_lambda = if dg.is_empty() {
            a.zeros(setup.d)
        } else {
            a.matrix(&dg).t() * &lambda
        };
        let r1 = &q1 - &q0 - h * &dp_h;
        let r2 = &p1 - &p0 + h * &dq_t + h * &grad_v + h * dg_lambda;
        let r3 = a.vector_at(&qs.g, &q1);
        let v1 = a.call(|m| body.velocity(&mut m.graph, &q1.ids, &p1.ids));
        let zero = a.constant(0.0).id;
        let next = NextState::without_gamma(q1.ids, v1.ids, p1.ids, lambda.ids, zero);
        ([r1.ids, r2.ids, r3.ids].concat(), next)
    };
    extrapolated_template(model, &setup, residual, next)
}
