//! One-stage GGL variational θ-method with option A, "VI-A" at θ = ½: Kinon, Betsch,
//! Schneider (2023), Sect. 4.3.1, eq. (79) (spec 000 §2.4, with the reconstruction R4:
//! "D_1 L_d(q^{n+θ}, v^{n+1})" is `h ∂L/∂q(q^θ, v¹)`). Unknowns `x = (q¹, p¹, v¹, λ, γ)`:
//!
//! ```text
//! (79a) 0 = q¹ − q⁰ − h v¹ − h M⁻¹ G(q^θ)ᵀ γ
//! (79b) 0 = p¹ − p⁰ − h ∂L/∂q(q^θ, v¹) + h G(q^θ)ᵀ λ + h Σ_k γ_k H_k(q^θ) v¹
//! (79c) 0 = ∂L/∂v(q^θ, v¹) − θ p⁰ − (1 − θ) p¹
//! (79d) 0 = g(q^θ)
//! (79e) 0 = G(q^θ) v¹
//! ```
//!
//! `q^θ = (1 − θ) q⁰ + θ q¹`. Option A's `g_d = h g(q^θ)` (77) makes the λ term of (76c)
//! cancel, which is why (79c) has none.
use super::common::{
    at, hessian_contraction, lerp, mat_t_vec, mat_vec, scale, unknowns, zip_with, Known, NextState,
    Quantities, Template,
};
use crate::ir::Model;
use crate::sym::Id;

pub fn template(model: &mut Model, theta: f64) -> Template {
    let (d, m) = (model.dim(), model.n_constraints());
    let k = Known::new(model);
    let qs = Quantities::new(model);
    let minv = qs
        .minv
        .clone()
        .expect("checked: GglViA needs a constant mass matrix");
    let (vars, x) = unknowns(model, &[d, d, d, m, m]);
    let (q1, p1, v1, lambda, gamma) = (&x[0], &x[1], &x[2], &x[3], &x[4]);
    let h = k.h;

    let qt = lerp(model, &k.q, q1, theta);
    let jac_t: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, &qt, None)).collect();

    // (79a)
    let gt_gamma = mat_t_vec(model, &jac_t, gamma, d);
    let minv_gt_gamma = mat_vec(model, &minv, &gt_gamma);
    let flow = zip_with(model, v1, &minv_gt_gamma, |g, a, b| g.add(a, b));
    let h_flow = scale(model, h, &flow);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let r1 = zip_with(model, &dq, &h_flow, |g, a, b| g.sub(a, b));

    // (79b)
    let dl_dq = at(model, &qs.dl_dq, &qt, Some(v1));
    let gt_lambda = mat_t_vec(model, &jac_t, lambda, d);
    let t_gamma = hessian_contraction(model, &qs.jac, gamma, v1, &qt);
    let reaction = zip_with(model, &gt_lambda, &t_gamma, |g, a, b| g.add(a, b));
    let force = zip_with(model, &reaction, &dl_dq, |g, a, b| g.sub(a, b));
    let h_force = scale(model, h, &force);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &dp, &h_force, |g, a, b| g.add(a, b));

    // (79c): θ p⁰ + (1 − θ) p¹ is lerp(p⁰, p¹, 1 − θ).
    let dl_dv = at(model, &qs.dl_dv, &qt, Some(v1));
    let p_mix = lerp(model, &k.p, p1, 1.0 - theta);
    let r3 = zip_with(model, &dl_dv, &p_mix, |g, a, b| g.sub(a, b));

    // (79d), (79e)
    let r4 = at(model, &qs.g, &qt, None);
    let r5 = mat_vec(model, &jac_t, v1);

    let residual = [r1, r2, r3, r4, r5].concat();
    let guess = [
        k.q.clone(),
        k.p.clone(),
        k.v.clone(),
        k.lambda.clone(),
        k.gamma.clone(),
    ]
    .concat();
    let next = NextState {
        q: q1.clone(),
        v: v1.clone(),
        p: p1.clone(),
        lambda: lambda.clone(),
        gamma: gamma.clone(),
    };
    Template {
        unknowns: vars,
        residual,
        guess,
        next,
    }
}
