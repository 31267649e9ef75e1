//! EML, the energy–momentum scheme from the Livens principle (Kinon, Betsch, "Conserving
//! integration of multibody systems with singular and non-constant mass matrix including
//! quaternion-based rigid body dynamics", Sect. 4.2, eqs. (72a–d); spec 001 §2.2), for
//! any Lagrangian `L = T(q, v) − V(q)`: the mass matrix may depend on `q` and be singular,
//! and it is never inverted. Unknowns `x = (q¹, v¹, p¹, λ)`:
//!
//! ```text
//! (72a) 0 = q¹ − q⁰ − h v^½
//! (72b) 0 = p¹ − p⁰ − h ∂̄_q T + h ∇̄V + h ∇̄gᵀ λ
//! (72c) 0 = p^½ − ∂̄_v T
//! (72d) 0 = g(q¹)
//! ```
//!
//! with the partitioned discrete derivatives of App. A, eqs. (129)–(131),
//!
//! ```text
//! ∂̄_q T = ½ (∂̄_q T|v⁰ + ∂̄_q T|v¹),   ∂̄_q T|v = Gonzalez gradient of T(·, v) from q⁰ to q¹,
//! ∂̄_v T = ½ (∂̄_v T|q⁰ + ∂̄_v T|q¹),   ∂̄_v T|q = Gonzalez gradient of T(q, ·) from v⁰ to v¹,
//! ```
//!
//! each the midpoint gradient where `T` has degree ≤ 2 in that argument (so
//! `∂̄_v T = ½ (M(q⁰) + M(q¹)) v^½`, eq. (83), for a kinetic energy quadratic in `v`), the
//! invariant-based discrete gradient `∇̄V` of the GGL schemes, and Gonzalez gradients
//! `∇̄g` of the constraints (the midpoint gradient for degree ≤ 2; invariant-based for
//! constraints written in declared invariants). Directionality of
//! every one makes the generalized energy `E = p·v − T + V` (eq. (74)) exact.
//!
//! `λ` has no time index: the state carries it as Newton's next starting point, `γ = 0`.
use super::algebra::Algebra;
use super::common::{at, Inputs, NextState, Setup, Template};
use super::constraint_gradient::constraint_gradients;
use super::discrete_gradient::{discrete_gradient_v, gonzalez_in, half_sum};
use crate::ir::Model;
use crate::sym::Id;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, x, m, .. } = &setup;
    let (q1, v1, p1, lambda) = (&x[0], &x[1], &x[2], &x[3]);
    let (dq_t, dv_t) = partitioned_kinetic_gradients(model, &k.q, q1, &k.v, v1);
    let dg = constraint_gradients(model, &k.q, q1);
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, v0, p0) = (a.vector(&k.q), a.vector(&k.v), a.vector(&k.p));
        let (q1, v1, p1, lambda) = (a.vector(q1), a.vector(v1), a.vector(p1), a.vector(lambda));
        let h = a.scalar(k.h);
        let (qm, vm, pm) = (
            a.midpoint(&q0, &q1),
            a.midpoint(&v0, &v1),
            a.midpoint(&p0, &p1),
        );

        // (72a)
        let r1 = &q1 - &q0 - h * &vm;
        // (72b)
        let dv = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
        let dg_t_lambda = if *m == 0 {
            a.zeros(setup.d)
        } else {
            a.matrix(&dg).t() * &lambda
        };
        let r2 = &p1 - &p0 - h * &a.vector(&dq_t) + h * (dv + dg_t_lambda);
        // (72c)
        let r3 = &pm - &a.vector(&dv_t);
        // (72d)
        let r4 = a.vector_at(&qs.g, &q1);

        let zero = a.constant(0.0).id;
        let residual = [r1.ids, r2.ids, r3.ids, r4.ids].concat();
        let next = NextState::without_gamma(q1.ids, v1.ids, p1.ids, lambda.ids, zero);
        (residual, next)
    };
    let guess = [k.q.clone(), k.v.clone(), k.p.clone(), k.lambda.clone()].concat();
    Template::new(model, &setup, residual, guess, next)
}

/// `(∂̄_q T, ∂̄_v T)`, eqs. (129)–(131): each the mean of the Gonzalez gradients in one
/// argument with the other at its two ends. `T = L + V` (`V = −L(q, 0)`).
fn partitioned_kinetic_gradients(
    model: &mut Model,
    q0: &[Id],
    q1: &[Id],
    v0: &[Id],
    v1: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let t = model.graph.add(model.lagrangian, model.potential);
    let (qs, vs) = (model.q.clone(), model.v.clone());
    // ∂̄_q T|v for v = v⁰, v¹: T with its velocities fixed, a function of q.
    let mut in_q = Vec::new();
    for v in [v0, v1] {
        let map = vs.iter().copied().zip(v.iter().copied()).collect();
        let t_at_v = model.graph.substitute(&[t], &map)[0];
        in_q.push(gonzalez_in(model, t_at_v, &qs, q0, q1));
    }
    // ∂̄_v T|q for q = q⁰, q¹: T with its positions fixed, a function of v.
    let mut in_v = Vec::new();
    for q in [q0, q1] {
        let t_at_q = at(model, &[t], q, None)[0];
        in_v.push(gonzalez_in(model, t_at_q, &vs, v0, v1));
    }
    let dq_t = half_sum(&mut model.graph, &in_q[0], &in_q[1]);
    let dv_t = half_sum(&mut model.graph, &in_v[0], &in_v[1]);
    (dq_t, dv_t)
}
