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
use super::common::{
    at, hessian_contraction, mat_t_vec, mat_vec, scale, zip_with, Inputs, Setup, Template,
};
use crate::ir::Model;
use crate::sym::Id;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (d,) = (setup.d,);
    let (q1, p1, v0, lambda, gamma) = (&x[0], &x[1], &x[2], &x[3], &x[4]);
    let h = k.h;

    // q̄ = q⁰ + h v⁰ (53)
    let hv = scale(model, h, v0);
    let qbar = zip_with(model, &k.q, &hv, |g, a, b| g.add(a, b));
    let jac_bar: Vec<Vec<Id>> = qs
        .jac
        .iter()
        .map(|row| at(model, row, &qbar, None))
        .collect();
    let minv_p1 = mat_vec(model, minv, p1);
    let t_gamma = hessian_contraction(model, &qs.jac, gamma, &minv_p1, &qbar);
    let h_t_gamma = scale(model, h, &t_gamma);

    // (55a)
    let gt_gamma = mat_t_vec(model, &jac_bar, gamma, d);
    let minv_gt_gamma = mat_vec(model, minv, &gt_gamma);
    let h_minv_gt_gamma = scale(model, h, &minv_gt_gamma);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let r1 = zip_with(model, &dq, &hv, |g, a, b| g.sub(a, b));
    let r1 = zip_with(model, &r1, &h_minv_gt_gamma, |g, a, b| g.sub(a, b));

    // (55b)
    let dl_dq = at(model, &qs.dl_dq, &k.q, Some(v0));
    let h_dl_dq = scale(model, h, &dl_dq);
    let jac_0: Vec<Vec<Id>> = qs
        .jac
        .iter()
        .map(|row| at(model, row, &k.q, None))
        .collect();
    let g0_lambda = mat_t_vec(model, &jac_0, lambda, d);
    let h_g0_lambda = scale(model, h, &g0_lambda);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &dp, &h_dl_dq, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &r2, &h_g0_lambda, |g, a, b| g.add(a, b));
    let r2 = zip_with(model, &r2, &h_t_gamma, |g, a, b| g.add(a, b));

    // (55c)
    let dl_dv = at(model, &qs.dl_dv, &k.q, Some(v0));
    let r3 = zip_with(model, &dl_dv, p1, |g, a, b| g.sub(a, b));
    let r3 = zip_with(model, &r3, &h_t_gamma, |g, a, b| g.sub(a, b));

    // (55d), (55e)
    let r4 = at(model, &qs.g, q1, None);
    let r5 = mat_vec(model, &jac_bar, &minv_p1);

    Template::velocity_form(model, &setup, &[r1, r2, r3, r4, r5])
}
