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
//! `𝖣g = G(q^½)` for constraints of degree ≤ 2; `𝖣V` as for EM. Energy and momentum maps
//! are conserved and `g` holds at the nodes; the secondary constraint `G M⁻¹ p = 0` is not
//! enforced. The new state has `v = M⁻¹ p¹` and `γ = 0`.
use super::common::{
    at, mat_t_vec, mat_vec, midpoint, scale, zip_with, Inputs, NextState, Setup, Template,
};
use super::discrete_gradient::discrete_gradient_v;
use crate::ir::Model;
use crate::sym::Id;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, minv, x, .. } = &setup;
    let (d, m) = (setup.d, setup.m);
    let (q1, p1, lambda) = (&x[0], &x[1], &x[2]);
    let h = k.h;

    let qm = midpoint(model, &k.q, q1);
    let pm = midpoint(model, &k.p, p1);

    let minv_pm = mat_vec(model, minv, &pm);
    let h_flow = scale(model, h, &minv_pm);
    let dq = zip_with(model, q1, &k.q, |g, a, b| g.sub(a, b));
    let r1 = zip_with(model, &dq, &h_flow, |g, a, b| g.sub(a, b));

    let dv = discrete_gradient_v(model, &qs.grad_v, &k.q, q1, &qm);
    let jac_m: Vec<Vec<Id>> = qs.jac.iter().map(|row| at(model, row, &qm, None)).collect();
    let gt_lambda = mat_t_vec(model, &jac_m, lambda, d);
    let force = zip_with(model, &dv, &gt_lambda, |g, a, b| g.add(a, b));
    let h_force = scale(model, h, &force);
    let dp = zip_with(model, p1, &k.p, |g, a, b| g.sub(a, b));
    let r2 = zip_with(model, &dp, &h_force, |g, a, b| g.add(a, b));

    let r3 = at(model, &qs.g, q1, None);

    let residual = [r1, r2, r3].concat();
    let guess = [k.q.clone(), k.p.clone(), k.lambda.clone()].concat();
    let zero = model.graph.zero();
    let next = NextState {
        q: q1.clone(),
        v: mat_vec(model, minv, p1),
        p: p1.clone(),
        lambda: lambda.clone(),
        gamma: vec![zero; m],
    };
    Template::new(model, &setup, residual, guess, next)
}
