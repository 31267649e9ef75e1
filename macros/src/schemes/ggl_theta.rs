//! The one-stage GGL variational θ-methods: Kinon, Betsch, Schneider (2023), Sect. 4.3,
//! the family (76) with its two choices of the discrete constraint (spec 000 §2.3–2.5).
//! Unknowns `x = (q¹, p¹, v¹, λ, γ)`, `q^θ = (1 − θ) q⁰ + θ q¹`:
//!
//! ```text
//! (76a) 0 = q¹ − q⁰ − h v¹ − h M⁻¹ G(q^θ)ᵀ γ
//! (76b) 0 = p¹ − p⁰ − h ∂L/∂q(q^θ, v¹) + (D₁g_d + D₂g_d)ᵀ λ + h Σ_k γ_k H_k(q^θ) v¹
//! (76c) 0 = ∂L/∂v(q^θ, v¹) − θ p⁰ − (1 − θ) p¹ + (θ D₁g_dᵀ − (1 − θ) D₂g_dᵀ) λ
//! (76d) 0 = g_d
//! (76e) 0 = G(q^θ) v¹
//! ```
//!
//! * Option A (77)–(79), `g_d = h g(q^θ)`: `D₁g_d = h(1−θ) G(q^θ)`, `D₂g_d = hθ G(q^θ)`,
//!   so the λ term of (76c) cancels (78) and (76d) is `g(q^θ) = 0`. VI-A is θ = ½.
//! * Option B (80)–(83), `g_d = h((1−ϑ) g(q⁰) + ϑ g(q¹))`: `D₁g_d = h(1−ϑ) G(q⁰)`,
//!   `D₂g_d = hϑ G(q¹)`; (76d) is written `g(q¹) = 0` as in the authors' code (82d),
//!   equivalent for consistent `q⁰`. VI-B is θ = 1, ϑ = ½ (83).
//!
//! `h ∂L/∂q(q^θ, v¹)` is the spec's reconstruction R4 of "D₁L_d(q^{n+θ}, v^{n+1})".
use super::common::{
    at, coef, hessian_contraction, lerp, mat_t_vec, mat_vec, scale, zip_with, Coef, Inputs, Setup,
    Template,
};
use crate::ir::Model;
use crate::sym::Id;

/// How the constraints enter the θ-method.
#[derive(Clone, Copy)]
pub enum Constraints {
    /// Option A: at the intermediate point `q^θ`.
    Intermediate,
    /// Option B: trapezoidal, with weight `ϑ` on `q¹`.
    Trapezoidal(Coef),
}

pub fn template(model: &mut Model, inputs: &Inputs, theta: Coef, option: Constraints) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (d,) = (setup.d,);
    let (q1, p1, v1, lambda, gamma) = (&x[0], &x[1], &x[2], &x[3], &x[4]);
    let h = k.h;
    let theta = coef(model, theta);

    let qt = lerp(model, &k.q, q1, theta);
    let jac_t: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, &qt, None)).collect();

    // (76a)
    let gt_gamma = mat_t_vec(model, &jac_t, gamma, d);
    let minv_gt_gamma = mat_vec(model, minv, &gt_gamma);
    let flow = zip_with(model, v1, &minv_gt_gamma, |g, a, b| g.add(a, b));
    let h_flow = scale(model, h, &flow);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let r1 = zip_with(model, &dq, &h_flow, |g, a, b| g.sub(a, b));

    // The constraint forces of (76b) and (76c), per option, and (76d).
    let (force_b, force_c, r4) = match option {
        Constraints::Intermediate => {
            let f = mat_t_vec(model, &jac_t, lambda, d);
            let hf = scale(model, h, &f);
            let zero = model.graph.zero();
            (hf, vec![zero; d], at(model, &qs.g, &qt, None))
        }
        Constraints::Trapezoidal(vartheta) => {
            let vartheta = coef(model, vartheta);
            let jac_0: Vec<Vec<Id>> = qs
                .jac
                .iter()
                .map(|row| at(model, row, &k.q, None))
                .collect();
            let jac_1: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, q1, None)).collect();
            let g0l = mat_t_vec(model, &jac_0, lambda, d);
            let g1l = mat_t_vec(model, &jac_1, lambda, d);
            let g = &mut model.graph;
            let one = g.one();
            let (w0, w1) = (g.sub(one, vartheta), vartheta);
            let (hw0, hw1) = (g.mul(h, w0), g.mul(h, w1));
            // (D₁g_d + D₂g_d)ᵀ λ = h((1−ϑ) G(q⁰) + ϑ G(q¹))ᵀ λ
            let b: Vec<Id> = g0l
                .iter()
                .zip(&g1l)
                .map(|(&a, &c)| {
                    let (s, t) = (g.mul(hw0, a), g.mul(hw1, c));
                    g.add(s, t)
                })
                .collect();
            // (θ D₁g_dᵀ − (1−θ) D₂g_dᵀ) λ = h(θ(1−ϑ) G(q⁰)ᵀ − (1−θ)ϑ G(q¹)ᵀ) λ
            let omt = g.sub(one, theta);
            let (c0, c1) = (g.mul(theta, hw0), g.mul(omt, hw1));
            let c: Vec<Id> = g0l
                .iter()
                .zip(&g1l)
                .map(|(&a, &e)| {
                    let (s, t) = (g.mul(c0, a), g.mul(c1, e));
                    g.sub(s, t)
                })
                .collect();
            (b, c, at(model, &qs.g, q1, None))
        }
    };

    // (76b)
    let dl_dq = at(model, &qs.dl_dq, &qt, Some(v1));
    let t_gamma = hessian_contraction(model, &qs.jac, gamma, v1, &qt);
    let h_t_gamma = scale(model, h, &t_gamma);
    let h_dl_dq = scale(model, h, &dl_dq);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &dp, &h_dl_dq, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &r2, &force_b, |g, a, b| g.add(a, b));
    let r2 = zip_with(model, &r2, &h_t_gamma, |g, a, b| g.add(a, b));

    // (76c): θ p⁰ + (1 − θ) p¹ is lerp(p¹, p⁰, θ).
    let dl_dv = at(model, &qs.dl_dv, &qt, Some(v1));
    let p_mix = lerp(model, p1, &k.p, theta);
    let r3 = zip_with(model, &dl_dv, &p_mix, |g, a, b| g.sub(a, b));
    let r3 = zip_with(model, &r3, &force_c, |g, a, b| g.add(a, b));

    // (76e)
    let r5 = mat_vec(model, &jac_t, v1);

    Template::velocity_form(model, &setup, &[r1, r2, r3, r4, r5])
}
