//! SHAKE (Ryckaert, Ciccotti, Berendsen 1977) in the form of Martín de Diego, Sato Martín
//! de Almagro, "High-order geometric methods for nonholonomic mechanical systems",
//! Sec. 4.3 (spec 002 S2): the discrete Euler–Lagrange equations of the trapezoidal
//! discrete Lagrangian `L_d(q⁰, q¹) = (h/2)[L(q⁰, v) + L(q¹, v)]`, `v = (q¹ − q⁰)/h`,
//! forced by `h⟨λ, DΦ(q)⟩` at the middle node,
//!
//! ```text
//! D₂L_d(q⁻¹, q⁰) + D₁L_d(q⁰, q¹) = −h G(q⁰)ᵀ λ,      0 = g(q¹),
//! ```
//!
//! written as a one-step map on `(q, p)` with the discrete momentum
//! `p⁰ = D₂L_d(q⁻¹, q⁰)`. For `L = ½ vᵀMv − V(q)` with constant `M`, unknowns
//! `x = (q¹, λ)`:
//!
//! ```text
//! 0 = q¹ − q⁰ − h M⁻¹ (p⁰ − (h/2) ∇V(q⁰) + h G(q⁰)ᵀ λ)
//! 0 = g(q¹)
//! p¹ = p⁰ − (h/2) (∇V(q⁰) + ∇V(q¹)) + h G(q⁰)ᵀ λ          (explicit)
//! ```
//!
//! The positions are RATTLE's: RATTLE's `p¹` is this `p¹` plus `(h/2) G(q¹)ᵀ λ¹`, a
//! multiple of the constraint normal that the next step's `λ` absorbs. So the momentum
//! is not tangent (`G M⁻¹ p = O(h)`), the state's `v = M⁻¹ p¹`, and `γ = 0`.
use super::algebra::Algebra;
use super::common::{Inputs, NextState, Setup, Template};
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, lambda) = (a.vector(&x[0]), a.vector(&x[1]));
        let h = a.scalar(k.h);
        let half_h = a.constant(0.5) * h;
        let minv = a.matrix(minv);
        let (grad_v0, grad_v1) = (a.vector_at(&qs.grad_v, &q0), a.vector_at(&qs.grad_v, &q1));

        // The impulse of the step at q⁰: the half kick and the whole constraint force.
        let kick = h * (a.matrix_at(&qs.jac, &q0).t() * &lambda) - half_h * &grad_v0;
        let r_q = &q1 - &q0 - h * (&minv * &(&p0 + &kick));
        let r_g = a.vector_at(&qs.g, &q1);
        let p1 = &p0 + &kick - half_h * &grad_v1;

        let zero = a.constant(0.0).id;
        let v1 = (&minv * &p1).ids;
        let next = NextState::without_gamma(q1.ids, v1, p1.ids, lambda.ids, zero);
        ([r_q.ids, r_g.ids].concat(), next)
    };
    let guess = [k.q.clone(), k.lambda.clone()].concat();
    Template::new(model, &setup, residual, guess, next)
}
