//! The states schemes carry, one type per layout, and the one trait through which
//! diagnostics and output read the values at a node.
mod consistent;
mod ggl;
mod phase;

pub use consistent::Consistency;
pub use ggl::GglState;
pub use phase::PhaseState;

use nalgebra::SVector;

use crate::model::Real;

/// The values of a state at its time node, whatever the scheme's layout: what
/// [`Diagnostics`](crate::Diagnostics), the command's CSV and its plots read.
pub trait NodeValues<T: Real, const D: usize> {
    /// Time `tⁿ` of the node.
    fn time(&self) -> T;
    /// Positions `qⁿ`.
    fn positions(&self) -> &SVector<T, D>;
    /// Conjugate momenta `pⁿ`.
    fn momenta(&self) -> &SVector<T, D>;
    /// The velocities the state carries, if it carries any. Their time label is the
    /// scheme's (VI-A's `v` belongs to the interval that ended at the node); `None`
    /// means "compute `v = M⁻¹ p` if you need it".
    fn velocities(&self) -> Option<&SVector<T, D>>;
}
