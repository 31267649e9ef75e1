//! RATTLE (Andersen 1983) in the form of Martín de Diego, Sato Martín de Almagro, "High-order
//! geometric methods for nonholonomic mechanical systems", Sec. 4.3 (spec 002 S2): the
//! discrete Legendre transforms of the trapezoidal discrete Lagrangian
//! `L_d(q⁰, q¹) = (h/2)[L(q⁰, v) + L(q¹, v)]`, `v = (q¹ − q⁰)/h`, with the forcing
//! `(h/2)⟨λ, DΦ(q)⟩` at both ends. For `L = ½ vᵀMv − V(q)` with constant `M`:
//!
//! ```text
//! p⁰ = M v + (h/2) ∇V(q⁰) − (h/2) G(q⁰)ᵀ λ⁰
//! p¹ = M v − (h/2) ∇V(q¹) + (h/2) G(q¹)ᵀ λ¹
//! 0  = g(q¹),    0 = G(q¹) M⁻¹ p¹
//! ```
//!
//! Residual, unknowns `x = (q¹, p¹, λ⁰, λ¹)`: the first line times `h M⁻¹`, the second
//! minus the first (which eliminates `M v`), and the two constraint levels:
//!
//! ```text
//! 0 = q¹ − q⁰ − h M⁻¹ (p⁰ − (h/2) ∇V(q⁰) + (h/2) G(q⁰)ᵀ λ⁰)
//! 0 = p¹ − p⁰ + (h/2) (∇V(q⁰) + ∇V(q¹)) − (h/2) (G(q⁰)ᵀ λ⁰ + G(q¹)ᵀ λ¹)
//! 0 = g(q¹)
//! 0 = G(q¹) M⁻¹ p¹
//! ```
//!
//! The new state carries `λ⁰` (the position-level multiplier of the step) as `lambda`
//! and `λ¹` (the velocity-level one) as `gamma`, `v = M⁻¹ p¹`. Without constraints this
//! is the Störmer–Verlet method.
use super::algebra::Algebra;
use super::common::{Inputs, Setup, Template};
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (residual, v1) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1) = (a.vector(&x[0]), a.vector(&x[1]));
        let (lambda0, lambda1) = (a.vector(&x[2]), a.vector(&x[3]));
        let h = a.scalar(k.h);
        let half_h = a.constant(0.5) * h;
        let minv = a.matrix(minv);
        let (g0, g1) = (a.matrix_at(&qs.jac, &q0), a.matrix_at(&qs.jac, &q1));

        // The forces at both ends, F(q, λ) = G(q)ᵀ λ − ∇V(q).
        let f0 = g0.t() * &lambda0 - a.vector_at(&qs.grad_v, &q0);
        let f1 = g1.t() * &lambda1 - a.vector_at(&qs.grad_v, &q1);

        let p_half = &p0 + &(half_h * &f0);
        let r_q = &q1 - &q0 - h * (&minv * &p_half);
        let r_p = &p1 - &p0 - half_h * (&f0 + &f1);
        let r_g = a.vector_at(&qs.g, &q1);
        let v1 = &minv * &p1;
        let r_tangent = &g1 * &v1;

        ([r_q.ids, r_p.ids, r_g.ids, r_tangent.ids], v1.ids)
    };
    Template::momentum_form(model, &setup, &residual, v1)
}
