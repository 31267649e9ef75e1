//! Gonzalez's (1999) energy–momentum scheme with primary constraints only, "EM-G", the
//! reference scheme of Kinon, Betsch, Schneider (2023), Sect. 6.3; written out in spec
//! 000 §2.7 from the authors' code. Unknowns `x = (q¹, p¹, λ¹)`:
//!
//! ```text
//! 0 = q¹ − q⁰ − h M⁻¹ p^½
//! 0 = p¹ − p⁰ + h 𝖣V(q⁰, q¹) + h 𝖣g(q⁰, q¹)ᵀ λ¹
//! 0 = g(q¹)
//! ```
//!
//! `𝖣g = G(q^½)` for constraints of degree ≤ 2 in the coordinates, otherwise the
//! discrete gradient of `constraint_gradient` (Gonzalez, or invariant-based for
//! constraints written in declared invariants); `𝖣V` as for EM. Energy and momentum maps
//! are conserved and `g` holds at the nodes; the secondary constraint `G M⁻¹ p = 0` is not
//! enforced. The new state has `v = M⁻¹ p¹` and `γ = 0`.
use super::algebra::Algebra;
use super::common::{Inputs, NextState, Setup, Template};
use super::constraint_gradient::{constraint_gradients, midpoint_exact};
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    // The paper's case keeps the midpoint Jacobian; any other constraints get theirs.
    let dg = (!midpoint_exact(model)).then(|| constraint_gradients(model, &k.q, &x[0]));
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1, lambda) = (a.vector(&x[0]), a.vector(&x[1]), a.vector(&x[2]));
        let h = a.scalar(k.h);
        let minv = a.matrix(minv);

        let qm = a.midpoint(&q0, &q1);
        let pm = a.midpoint(&p0, &p1);

        // q¹ − q⁰ − h M⁻¹ p^½
        let r1 = &q1 - &q0 - h * (&minv * &pm);
        // p¹ − p⁰ + h (𝖣V(q⁰, q¹) + G(q^½)ᵀ λ¹)
        let dv = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
        let gt_lambda = match &dg {
            None => a.matrix_at(&qs.jac, &qm).t() * &lambda,
            Some(dg) => a.matrix(dg).t() * &lambda,
        };
        let r2 = &p1 - &p0 + h * (dv + gt_lambda);
        // g(q¹)
        let r3 = a.vector_at(&qs.g, &q1);

        let residual = [r1.ids, r2.ids, r3.ids].concat();
        let zero = a.constant(0.0).id;
        let v1 = (&minv * &p1).ids;
        let next = NextState::without_gamma(q1.ids, v1, p1.ids, lambda.ids, zero);
        (residual, next)
    };
    let guess = [k.q.clone(), k.p.clone(), k.lambda.clone()].concat();
    Template::new(model, &setup, residual, guess, next)
}
