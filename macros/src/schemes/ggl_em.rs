//! GGL energy–momentum scheme "EM": Kinon, Betsch, Schneider (2023), Sect. 5, eq. (84);
//! spec 000 §2.6. The velocity is eliminated (`v = M⁻¹ p`, valid for constant `M`), as
//! in the authors' code, leaving the unknowns `x = (q¹, p¹, λ¹, γ¹)`:
//!
//! ```text
//! (84a) 0 = q¹ − q⁰ − h M⁻¹ p^½ − h (𝖣_p gᵛ)ᵀ γ¹
//! (84b) 0 = p¹ − p⁰ + h 𝖣V + h 𝖣g ᵀ λ¹ + h (𝖣_q gᵛ)ᵀ γ¹
//! (84d) 0 = g(q¹)
//! (84e) 0 = G(q¹) M⁻¹ p¹
//! ```
//!
//! For constraints of degree ≤ 2 written in the coordinates (the paper's case), the
//! discrete derivatives of spec 000 §2.6 are the midpoint ones: `𝖣g = G(q^½)`,
//! `𝖣_p gᵛ = G(q^½) M⁻¹`, row k of `𝖣_q gᵛ` = `(H_k M⁻¹ p^½)ᵀ`. Any other constraints
//! get the discrete derivatives of `constraint_gradient` (Gonzalez, or invariant-based
//! for constraints written in declared invariants), derived there from the energy proof.
//! `𝖣V = ∇V(q^½)` if `V` has degree ≤ 2; otherwise the Gonzalez formula
//! `∇V(q^½) + (V(q¹) − V(q⁰) − ∇V(q^½)·Δq) / |Δq|² Δq`, with the midpoint gradient as
//! the branch for `|Δq|² < 1e-12` (spec 000 §2.6 warns that this formula does not
//! conserve momentum maps), or invariant-based for terms in declared invariants.
use super::algebra::Algebra;
use super::common::{hessian_contraction, mat_vec, Inputs, Setup, Template};
use super::constraint_gradient::{
    constraint_gradients, midpoint_exact, velocity_constraint_gradients,
};
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    if midpoint_exact(model) {
        midpoint_template(model, inputs)
    } else {
        discrete_gradient_template(model, inputs)
    }
}

/// EM with the midpoint derivatives of the constraints (degree ≤ 2).
fn midpoint_template(model: &mut Model, inputs: &Inputs) -> Template {
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

/// EM with the discrete derivatives of `g` and `gᵛ` of `constraint_gradient`.
fn discrete_gradient_template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let dg = constraint_gradients(model, &k.q, &x[0]);
    let (w0, w1) = (mat_vec(model, minv, &k.p), mat_vec(model, minv, &x[1]));
    let (dgv_q, a_rows) = velocity_constraint_gradients(model, &k.q, &x[0], &w0, &w1);
    let (residual, v1) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1) = (a.vector(&x[0]), a.vector(&x[1]));
        let (lambda, gamma) = (a.vector(&x[2]), a.vector(&x[3]));
        let h = a.scalar(k.h);
        let minv = a.matrix(minv);
        let (dg, dgv_q, a_rows) = (a.matrix(&dg), a.matrix(&dgv_q), a.matrix(&a_rows));

        let qm = a.midpoint(&q0, &q1);
        let pm = a.midpoint(&p0, &p1);

        // (84a): q¹ − q⁰ − h (M⁻¹ p^½ + (𝖣_p gᵛ)ᵀ γ¹),  (𝖣_p gᵛ)ᵀ = M⁻¹ aᵀ
        let dp_gv_t_gamma = &minv * &(a_rows.t() * &gamma);
        let r1 = &q1 - &q0 - h * (&minv * &pm + dp_gv_t_gamma);

        // (84b): p¹ − p⁰ + h (𝖣V + 𝖣gᵀ λ¹ + (𝖣_q gᵛ)ᵀ γ¹)
        let dv = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
        let r2 = &p1 - &p0 + h * (dv + dg.t() * &lambda + dgv_q.t() * &gamma);

        // (84d): g(q¹);  (84e): G(q¹) M⁻¹ p¹
        let r3 = a.vector_at(&qs.g, &q1);
        let v1 = &minv * &p1;
        let r4 = &a.matrix_at(&qs.jac, &q1) * &v1;

        ([r1.ids, r2.ids, r3.ids, r4.ids], v1.ids)
    };
    Template::momentum_form(model, &setup, &residual, v1)
}
