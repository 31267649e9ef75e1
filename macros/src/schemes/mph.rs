//! MPH, the midpoint rule on the Hamiltonian form of rigid bodies (Kinon, Betsch,
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
//! nearly singular and Newton fails). The equations are
//! [`body_hamiltonian::template`]'s; this file gives its derivatives.
use super::body_hamiltonian::{self, Derivatives};
use super::common::{at, Inputs, Template};
use crate::ir::Model;

/// The step equations: every derivative at the midpoint.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    body_hamiltonian::template(model, inputs, |model, setup, body, nodes| {
        let t = body.invariants(&mut model.graph, &nodes.qm, &nodes.pm);
        let c = body.co_energy_gradients(&mut model.graph, &t);
        let grad_v = at(model, &setup.qs.grad_v, &nodes.qm, None);
        let constraint_rows = setup
            .qs
            .jac
            .iter()
            .map(|row| at(model, row, &nodes.qm, None))
            .collect();
        Derivatives {
            c,
            grad_v,
            constraint_rows,
        }
    })
}
