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
use super::algebra::Algebra;
use super::common::{hessian_contraction, Inputs, Setup, Template};
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (residual, v1) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1) = (a.vector(&x[0]), a.vector(&x[1]));
        let (lambda, gamma) = (a.vector(&x[2]), a.vector(&x[3]));
        let h = a.scalar(k.h);
        let minv = a.matrix(minv);

        let qm = a.midpoint(&q0, &q1);
        let pm = a.midpoint(&p0, &p1);
        let minv_pm = &minv * &pm;
        let g_m = a.matrix_at(&qs.jac, &qm);

        // (84a): q¹ − q⁰ − h (M⁻¹ p^½ + M⁻¹ G(q^½)ᵀ γ¹)
        let minv_gt_gamma = &minv * &(g_m.t() * &gamma);
        let r1 = &q1 - &q0 - h * (&minv_pm + &minv_gt_gamma);

        // (84b): p¹ − p⁰ + h (𝖣V(q⁰, q¹) + G(q^½)ᵀ λ¹ + T(q^½, γ¹) M⁻¹ p^½)
        let dv = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
        let gt_lambda = g_m.t() * &lambda;
        let t_gamma =
            a.call(|m| hessian_contraction(m, &qs.jac, &gamma.ids, &minv_pm.ids, &qm.ids));
        let r2 = &p1 - &p0 + h * (dv + gt_lambda + t_gamma);

        // (84d): g(q¹);  (84e): G(q¹) M⁻¹ p¹
        let r3 = a.vector_at(&qs.g, &q1);
        let v1 = &minv * &p1;
        let r4 = &a.matrix_at(&qs.jac, &q1) * &v1;

        ([r1.ids, r2.ids, r3.ids, r4.ids], v1.ids)
    };
    Template::momentum_form(model, &setup, &residual, v1)
}
