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
use super::common::{at, mat_t_vec, mat_vec, scale, zip_with, NextState, Setup, Template};
use crate::ir::Model;
use crate::sym::Id;

/// The step equations; `blocks` are the unknowns' from the catalogue entry.
pub fn template(model: &mut Model, blocks: &[(String, usize)]) -> Template {
    let setup = Setup::new(model, blocks);
    let Setup { k, qs, minv, x, .. } = &setup;
    let d = setup.d;
    let (q1, p1, lambda0, lambda1) = (&x[0], &x[1], &x[2], &x[3]);
    let h = k.h;
    let half = model.graph.constant(0.5);
    let half_h = model.graph.mul(half, h);

    // Forces at both ends: −∇V(q) + G(q)ᵀ λ.
    let grad_v0 = at(model, &qs.grad_v, &k.q, None);
    let grad_v1 = at(model, &qs.grad_v, q1, None);
    let jac0: Vec<Vec<Id>> = qs
        .jac
        .iter()
        .map(|row| at(model, row, &k.q, None))
        .collect();
    let jac1: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, q1, None)).collect();
    let force0 = {
        let gt = mat_t_vec(model, &jac0, lambda0, d);
        zip_with(model, &gt, &grad_v0, |g, a, b| g.sub(a, b))
    };
    let force1 = {
        let gt = mat_t_vec(model, &jac1, lambda1, d);
        zip_with(model, &gt, &grad_v1, |g, a, b| g.sub(a, b))
    };

    // q¹ − q⁰ − h M⁻¹ (p⁰ + (h/2) F⁰)
    let kick0 = scale(model, half_h, &force0);
    let p_half = zip_with(model, &k.p, &kick0, |g, a, b| g.add(a, b));
    let minv_p_half = mat_vec(model, minv, &p_half);
    let drift = scale(model, h, &minv_p_half);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let r_q = zip_with(model, &dq, &drift, |g, a, b| g.sub(a, b));

    // p¹ − p⁰ − (h/2) (F⁰ + F¹)
    let forces = zip_with(model, &force0, &force1, |g, a, b| g.add(a, b));
    let kick = scale(model, half_h, &forces);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let r_p = zip_with(model, &dp, &kick, |g, a, b| g.sub(a, b));

    let r_g = at(model, &qs.g, q1, None);
    let v1 = mat_vec(model, minv, p1);
    let r_tangent = mat_vec(model, &jac1, &v1);

    let residual = [r_q, r_p, r_g, r_tangent].concat();
    let guess = [k.q.clone(), k.p.clone(), k.lambda.clone(), k.gamma.clone()].concat();
    let next = NextState {
        q: q1.clone(),
        v: v1,
        p: p1.clone(),
        lambda: lambda0.clone(),
        gamma: lambda1.clone(),
    };
    Template::new(model, &setup, residual, guess, next)
}
