//! MPL, the midpoint rule from the Livens principle (Kinon, Betsch, "Conserving
//! integration of multibody systems with singular and non-constant mass matrix including
//! quaternion-based rigid body dynamics", App. B, Def. B.1, eq. (132); spec 001 §2.7):
//! EML (72) with every discrete derivative replaced by the derivative at the midpoint.
//! Unknowns `x = (q¹, v¹, p¹, λ)`:
//!
//! ```text
//! (132) 0 = q¹ − q⁰ − h v^½
//!       0 = p¹ − p⁰ − h ∂_q L(q^½, v^½) + h G(q^½)ᵀ λ − h F(q^½, v^½, tⁿ + h/2)
//!       0 = p^½ − ∂_v L(q^½, v^½)
//!       0 = g(q¹)
//! ```
//!
//! The paper's reference scheme: it keeps the constraints and, the midpoint rule
//! preserving bilinear invariants, the momentum maps of linear symmetries, but not the
//! energy.
use super::algebra::Algebra;
use super::common::{forces_at, Inputs, Setup, Template};
use crate::ir::Model;

/// The step equations.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, x, m, .. } = &setup;
    let residual = {
        let a = Algebra::new(model);
        let (q0, v0, p0) = (a.vector(&k.q), a.vector(&k.v), a.vector(&k.p));
        let (q1, v1, p1, lambda) = (
            a.vector(&x[0]),
            a.vector(&x[1]),
            a.vector(&x[2]),
            a.vector(&x[3]),
        );
        let h = a.scalar(k.h);
        let (qm, vm, pm) = (
            a.midpoint(&q0, &q1),
            a.midpoint(&v0, &v1),
            a.midpoint(&p0, &p1),
        );
        let dl_dq = a.vector_at_qv(&qs.dl_dq, &qm, &vm);
        let dl_dv = a.vector_at_qv(&qs.dl_dv, &qm, &vm);

        let r1 = &q1 - &q0 - h * &vm;
        let gt_lambda = if *m == 0 {
            a.zeros(setup.d)
        } else {
            a.matrix_at(&qs.jac, &qm).t() * &lambda
        };
        let forces = a.call(|m| forces_at(m, k, &qm.ids, &vm.ids, 0.5).unwrap_or_default());
        let r2 = &p1 - &p0 - h * &dl_dq + h * gt_lambda;
        let r2 = if forces.ids.is_empty() {
            r2
        } else {
            r2 - h * forces
        };
        let r3 = &pm - &dl_dv;
        let r4 = a.vector_at(&qs.g, &q1);
        vec![r2.ids, r1.ids, r3.ids, r4.ids]
    };
    Template::livens(model, &setup, residual)
}
