//! GGL energy–momentum scheme "EM": Kinon, Betsch, Schneider (2023), Sect. 5, eq. (84);
//! spec 000 §2.6. The velocity is eliminated (`v = M⁻¹ p`, valid for constant `M`), as
//! in the authors' code, leaving the unknowns `x = (q¹, p¹, λ¹, γ¹)`:
//!
//! ```text
//! (84a) 0 = q¹ − q⁰ − h M⁻¹ p^½ − h M⁻¹ 𝖣g ᵀ γ¹
//! (84b) 0 = p¹ − p⁰ + h 𝖣V + h 𝖣g ᵀ λ¹ + h Σ_k γ¹_k H_k M⁻¹ p^½
//! (84d) 0 = g(q¹)
//! (84e) 0 = G(q¹) M⁻¹ p¹
//! ```
//!
//! with the discrete derivatives of spec 000 §2.6 for functions of degree ≤ 2:
//! `𝖣g = G(q^½)`, `𝖣_p g^v = G(q^½) M⁻¹`, row k of `𝖣_q g^v` = `(H_k M⁻¹ p^½)ᵀ`.
//! `𝖣V = ∇V(q^½)` if `V` has degree ≤ 2; otherwise the Gonzalez formula
//! `∇V(q^½) + (V(q¹) − V(q⁰) − ∇V(q^½)·Δq) / |Δq|² Δq`, with the midpoint gradient as
//! the branch for `|Δq|² < 1e-12` (spec 000 §2.6 warns that this formula does not
//! conserve momentum maps; invariant-based gradients come with issue #3).
use super::common::{
    at, hessian_contraction, mat_t_vec, mat_vec, midpoint, scale, zip_with, Inputs, NextState,
    Setup, Template,
};
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;
use crate::sym::Id;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (d,) = (setup.d,);
    let (q1, p1, lambda, gamma) = (&x[0], &x[1], &x[2], &x[3]);
    let h = k.h;

    let qm = midpoint(model, &k.q, q1);
    let pm = midpoint(model, &k.p, p1);
    let minv_pm = mat_vec(model, minv, &pm);
    let jac_m: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, &qm, None)).collect();

    // (84a): q¹ − q⁰ − h M⁻¹ p^½ − h M⁻¹ G(q^½)ᵀ γ¹
    let gt_gamma = mat_t_vec(model, &jac_m, gamma, d);
    let minv_gt_gamma = mat_vec(model, minv, &gt_gamma);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let flow = zip_with(model, &minv_pm, &minv_gt_gamma, |g, a, b| g.add(a, b));
    let h_flow = scale(model, h, &flow);
    let r1 = zip_with(model, &dq, &h_flow, |g, a, b| g.sub(a, b));

    // (84b): p¹ − p⁰ + h 𝖣V + h G(q^½)ᵀ λ¹ + h T(q^½, γ¹) M⁻¹ p^½
    let dv = discrete_gradient_v(model, &qs.grad_v, &k.q, q1, &qm);
    let gt_lambda = mat_t_vec(model, &jac_m, lambda, d);
    let t_gamma = hessian_contraction(model, &qs.jac, gamma, &minv_pm, &qm);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let force = zip_with(model, &dv, &gt_lambda, |g, a, b| g.add(a, b));
    let force = zip_with(model, &force, &t_gamma, |g, a, b| g.add(a, b));
    let h_force = scale(model, h, &force);
    let r2 = zip_with(model, &dp, &h_force, |g, a, b| g.add(a, b));

    // (84d): g(q¹);  (84e): G(q¹) M⁻¹ p¹
    let r3 = at(model, &qs.g, q1, None);
    let v1 = mat_vec(model, minv, p1);
    let jac_1: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, q1, None)).collect();
    let r4 = mat_vec(model, &jac_1, &v1);

    let residual = [r1, r2, r3, r4].concat();
    let guess = [k.q.clone(), k.p.clone(), k.lambda.clone(), k.gamma.clone()].concat();
    let next = NextState {
        q: q1.clone(),
        v: v1,
        p: p1.clone(),
        lambda: lambda.clone(),
        gamma: gamma.clone(),
    };
    Template::new(model, &setup, residual, guess, next)
}
