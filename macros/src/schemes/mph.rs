//! MPH, the midpoint rule on the Hamiltonian form of one rigid body (Kinon, Betsch,
//! "Conserving integration of multibody systems with singular and non-constant mass
//! matrix including quaternion-based rigid body dynamics", App. B, Def. B.2, eq. (133);
//! spec 001 §2.8), with the regular mass matrix `M₄` of App. D ([`super::body_hamiltonian`]).
//! Unknowns `x = (q¹, p¹, λ)`:
//!
//! ```text
//! (133) 0 = q¹ − q⁰ − h M₄(q^½)⁻¹ p^½                       = q¹ − q⁰ − h Q_l(q^½) c
//!       0 = p¹ − p⁰ + h ∂_q T*(q^½, p^½) + h ∇V(q^½) + h G(q^½)ᵀ λ
//!         = p¹ − p⁰ + h [p^½, −G(p^½)ᵀ] c + h ∇V(q^½) + h G(q^½)ᵀ λ
//!       0 = g(q¹),                       c = ¼ J₄⁻¹ t(q^½, p^½)   (138), (143), (145)
//! ```
//!
//! The paper's reference scheme on the Hamiltonian side: second order, `g = 0` at the
//! nodes and the momentum maps of linear symmetries exact, the Hamiltonian not.
//! Newton starts from `q¹ = q⁰ + h v⁰` (the paper's footnote 5: from `q⁰` its Jacobian is
//! nearly singular and Newton fails).
use super::algebra::Algebra;
use super::body_hamiltonian::BodyHamiltonian;
use super::common::{Inputs, NextState, Setup, Template};
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let body = BodyHamiltonian::new(model, &setup);
    let Setup { k, qs, x, m, .. } = &setup;
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&k.q), a.vector(&k.p));
        let (q1, p1, lambda) = (a.vector(&x[0]), a.vector(&x[1]), a.vector(&x[2]));
        let h = a.scalar(k.h);
        let (qm, pm) = (a.midpoint(&q0, &q1), a.midpoint(&p0, &p1));
        let c = a.call(|m| {
            let t = body.invariant(&mut m.graph, &qm.ids, &pm.ids);
            body.co_energy_gradient(&mut m.graph, &t)
        });
        let dp_h = a.call(|m| body.along_p(&mut m.graph, &qm.ids, &c.ids));
        let dq_t = a.call(|m| body.along_q(&mut m.graph, &pm.ids, &c.ids));
        let grad_v = a.vector_at(&qs.grad_v, &qm);
        let gt_lambda = if *m == 0 {
            a.zeros(setup.d)
        } else {
            a.matrix_at(&qs.jac, &qm).t() * &lambda
        };
        let r1 = &q1 - &q0 - h * &dp_h;
        let r2 = &p1 - &p0 + h * &dq_t + h * &grad_v + h * gt_lambda;
        let r3 = a.vector_at(&qs.g, &q1);
        let v1 = a.call(|m| body.velocity(&mut m.graph, &q1.ids, &p1.ids));
        let zero = a.constant(0.0).id;
        let next = NextState::without_gamma(q1.ids, v1.ids, p1.ids, lambda.ids, zero);
        ([r1.ids, r2.ids, r3.ids].concat(), next)
    };
    extrapolated_template(model, &setup, residual, next)
}

/// The template of a Hamiltonian rigid-body scheme: unknowns `(q¹, p¹, λ)`, Newton
/// starting from `(q⁰ + h v⁰, p⁰, λ⁰)` whichever guess is asked for (footnote 5).
pub(super) fn extrapolated_template(
    model: &mut Model,
    setup: &Setup,
    residual: Vec<crate::sym::Id>,
    next: NextState,
) -> Template {
    let k = &setup.k;
    let g = &mut model.graph;
    let mut guess: Vec<_> =
        k.q.iter()
            .zip(&k.v)
            .map(|(&q, &v)| {
                let hv = g.mul(k.h, v);
                g.add(q, hv)
            })
            .collect();
    guess.extend(&k.p);
    guess.extend(&k.lambda);
    Template::with_guesses(setup, residual, [guess.clone(), guess], next)
}
