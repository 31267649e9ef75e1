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
use super::algebra::Algebra;
use super::common::{hessian_contraction, Coef, Inputs, Setup, Template};
use crate::ir::Model;

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
    let residual = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1, v1) = (a.vector(&x[0]), a.vector(&x[1]), a.vector(&x[2]));
        let (lambda, gamma) = (a.vector(&x[3]), a.vector(&x[4]));
        let h = a.scalar(k.h);
        let minv = a.matrix(minv);
        let theta = a.coef(theta);

        let qt = a.lerp(&q0, &q1, theta);
        let g_t = a.matrix_at(&qs.jac, &qt);

        // (76a)
        let r1 = &q1 - &q0 - h * (&v1 + &(&minv * &(g_t.t() * &gamma)));

        // The constraint forces of (76b) and (76c), per option, and (76d).
        let (force_b, force_c, r4) = match option {
            Constraints::Intermediate => {
                let force_b = h * (g_t.t() * &lambda);
                (force_b, a.zeros(setup.d), a.vector_at(&qs.g, &qt))
            }
            Constraints::Trapezoidal(vartheta) => {
                let vartheta = a.coef(vartheta);
                let g0_lambda = a.matrix_at(&qs.jac, &q0).t() * &lambda;
                let g1_lambda = a.matrix_at(&qs.jac, &q1).t() * &lambda;
                let one = a.constant(1.0);
                let (hw0, hw1) = (h * (one - vartheta), h * vartheta);
                // (D₁g_d + D₂g_d)ᵀ λ = h((1−ϑ) G(q⁰) + ϑ G(q¹))ᵀ λ
                let force_b = hw0 * &g0_lambda + hw1 * &g1_lambda;
                // (θ D₁g_dᵀ − (1−θ) D₂g_dᵀ) λ = h(θ(1−ϑ) G(q⁰)ᵀ − (1−θ)ϑ G(q¹)ᵀ) λ
                let force_c = (theta * hw0) * &g0_lambda - ((one - theta) * hw1) * &g1_lambda;
                (force_b, force_c, a.vector_at(&qs.g, &q1))
            }
        };

        // (76b)
        let t_gamma = a.call(|m| hessian_contraction(m, &qs.jac, &gamma.ids, &v1.ids, &qt.ids));
        let h_dl_dq = h * a.vector_at_qv(&qs.dl_dq, &qt, &v1);
        let r2 = &p1 - &p0 - &h_dl_dq + &force_b + &(h * &t_gamma);

        // (76c): θ p⁰ + (1 − θ) p¹ is lerp(p¹, p⁰, θ).
        let p_mix = a.lerp(&p1, &p0, theta);
        let r3 = a.vector_at_qv(&qs.dl_dv, &qt, &v1) - &p_mix + &force_c;

        // (76e)
        let r5 = &g_t * &v1;
        [r1.ids, r2.ids, r3.ids, r4.ids, r5.ids]
    };
    Template::velocity_form(model, &setup, &residual)
}
