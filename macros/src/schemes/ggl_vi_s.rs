//! The first-order GGL variational integrator "VI-S": Kinon, Betsch, Schneider (2023),
//! Sect. 4.1, eq. (55) (tags reconstructed, spec 000 §2.1), in the residual form of the
//! authors' code with `∂L` in place of `−∇V` and `M v`. Unknowns
//! `x = (q¹, p¹, v⁰, λ⁰, γ¹)`, with `q̄ = q⁰ + h v⁰` (53):
//!
//! ```text
//! (55a) 0 = q¹ − q⁰ − h v⁰ − h M⁻¹ G(q̄)ᵀ γ
//! (55b) 0 = p¹ − p⁰ − h ∂L/∂q(q⁰, v⁰) + h G(q⁰)ᵀ λ + h Σ_k γ_k H_k(q̄) M⁻¹ p¹
//! (55c) 0 = ∂L/∂v(q⁰, v⁰) − p¹ − h Σ_k γ_k H_k(q̄) M⁻¹ p¹
//! (55d) 0 = g(q¹)
//! (55e) 0 = G(q̄) M⁻¹ p¹
//! ```
//!
//! Index quirk: `v⁰`, the velocity of the interval `[tⁿ, tⁿ⁺¹]`, is solved in the step
//! n → n+1; the new state's `v` holds it. The secondary constraint holds at `q̄`, not at
//! `q¹` (exactly at the nodes only for linear constraints and the pendulum).
use super::algebra::Algebra;
use super::common::{hessian_contraction, Inputs, Setup, Template};
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let residual = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1, v0) = (a.vector(&x[0]), a.vector(&x[1]), a.vector(&x[2]));
        let (lambda, gamma) = (a.vector(&x[3]), a.vector(&x[4]));
        let h = a.scalar(k.h);
        let minv = a.matrix(minv);

        // q̄ = q⁰ + h v⁰ (53)
        let hv = h * &v0;
        let qbar = &q0 + &hv;
        let g_bar = a.matrix_at(&qs.jac, &qbar);
        let minv_p1 = &minv * &p1;
        let t_gamma =
            a.call(|m| hessian_contraction(m, &qs.jac, &gamma.ids, &minv_p1.ids, &qbar.ids));
        let h_t_gamma = h * &t_gamma;

        // (55a)
        let r1 = &q1 - &q0 - &hv - h * (&minv * &(g_bar.t() * &gamma));
        // (55b)
        let h_dl_dq = h * a.vector_at_qv(&qs.dl_dq, &q0, &v0);
        let h_g0_lambda = h * (a.matrix_at(&qs.jac, &q0).t() * &lambda);
        let r2 = &p1 - &p0 - &h_dl_dq + &h_g0_lambda + &h_t_gamma;
        // (55c)
        let r3 = a.vector_at_qv(&qs.dl_dv, &q0, &v0) - &p1 - &h_t_gamma;
        // (55d), (55e)
        let r4 = a.vector_at(&qs.g, &q1);
        let r5 = &g_bar * &minv_p1;
        [r1.ids, r2.ids, r3.ids, r4.ids, r5.ids]
    };
    Template::velocity_form(model, &setup, &residual)
}
