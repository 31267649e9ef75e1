//! Conserved quantities and constraint residuals of a state, as the authors'
//! postprocessing computes them.
use nalgebra::SVector;

use crate::model::{Model, Real};
use crate::solve::max_abs;
use crate::state::NodeValues;

/// Energy and constraint residuals of one state, of any layout ([`NodeValues`]).
///
/// Which residual is meaningful depends on the scheme (spec 000 §6):
/// - **EM** ([`GglEm`](crate::schemes::GglEm)) enforces `g(q) = 0` and
///   `G(q) M⁻¹ p = 0` at the nodes: `position_residual` and `velocity_residual` are at
///   Newton-tolerance level, and `energy`/`hamiltonian` are conserved to round-off.
/// - **VI-A** ([`GglViA`](crate::schemes::GglViA)) enforces both constraint levels at
///   the midpoints `q^½` only; at the nodes the residuals shrink with `h` but are not
///   zero (except for linear constraints), so do not compare them with the Newton
///   tolerance. Its `v` belongs to the interval that
///   ended at the node, so `energy` mixes time labels; `hamiltonian` uses only node
///   values and is the one to monitor for boundedness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diagnostics<T> {
    /// `E(q, v, p) = p · v − L(q, v)` with the state's own `p` and `v` (spec 000
    /// eq. (4)); equals the energy function when `p = ∂L/∂v(q, v)`. A state that
    /// carries no `v` uses `v = M⁻¹ p`, so this equals `hamiltonian`.
    pub energy: T,
    /// `E(q, M⁻¹ p, p)`: the Hamiltonian `H(q, p)` for a Lagrangian quadratic in `v`.
    pub hamiltonian: T,
    /// `max|g(q)|`.
    pub position_residual: T,
    /// `max|G(q) M⁻¹ p|`: the GGL secondary constraint in momentum form.
    pub velocity_residual: T,
    /// `max|G(q) v|`: the secondary constraint with the state's own `v` (with
    /// `M⁻¹ p` for a state that carries none).
    pub velocity_residual_v: T,
    /// `max|A(q) v|` over the nonholonomic constraints, with the state's own `v` (or
    /// `M⁻¹ p`); zero for a model without.
    pub nonholonomic_residual: T,
}

impl<T: Real> Diagnostics<T> {
    /// Evaluates all diagnostics of `state` for `model`. No allocation, no panics; NaN
    /// in the state propagates into the values.
    pub fn of<Mdl: Model<T, D, M, Q>, const D: usize, const M: usize, const Q: usize>(
        model: &Mdl,
        state: &impl NodeValues<T, D, Q>,
    ) -> Self {
        let (q, p) = (state.positions(), state.momenta());
        let energy_of = |v: &SVector<T, D>| p.dot(v) - model.lagrangian(q, v);
        let v_of_p = model.velocity(q, p);
        let v = state.velocities().unwrap_or(&v_of_p);
        let g_jac = model.constraint_jacobian(q);
        Self {
            energy: energy_of(v),
            hamiltonian: energy_of(&v_of_p),
            position_residual: max_abs(&model.constraints(q)),
            velocity_residual: max_abs(&(g_jac * v_of_p)),
            velocity_residual_v: max_abs(&(g_jac * v)),
            nonholonomic_residual: model.nonholonomic_residual(q, v),
        }
    }
}
