//! The skeleton every assembled stage family shares ([`super::prk`],
//! [`super::prk_holonomic`], [`super::prk_nonholonomic`]): the step's memory, the
//! Newton system with its elimination plan, and the drivers `step`, `equations` and
//! `stage_system`, written once over what differs between the families.
//!
//! A family is its kernel buffers (the memory its assembly evaluates the model's
//! kernels into, a type of its own) implementing two traits:
//!
//! - [`StageBuffers`]: the buffers' zero value and the number of unknowns for `S`
//!   stages (`N = S · PER_STAGE + AFTER_STAGES`, checked when a workspace is built);
//! - [`StageEquations`]: its state type and scheme marker, what it knows besides
//!   `(q⁰, p⁰)` ([`StageEquations::Extra`]), Newton's starting point from the state
//!   ([`StageEquations::guess`]), its residual ([`StageEquations::residual`]), its
//!   block Jacobian ([`StageEquations::assemble`]) and the next state from the
//!   solution ([`StageEquations::next_state`]).
//!
//! Everything else is here: [`StageWorkspace`] (Newton's workspace, the tableau, the
//! buffers, the plan), the [`NewtonSystem`](crate::solve::NewtonSystem) that zeroes
//! and assembles the Jacobian and factors it along the plan (`system.rs`), the values
//! of [`Known`] (the stage positions `Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ`), and the drivers
//! (`drive.rs`). The family's module exposes them under its own names: a type alias of
//! [`StageWorkspace`] over its buffers, and `pub use` of [`step`], [`equations`] (and
//! [`stage_system`] where the family knows nothing besides `(q⁰, p⁰)`).
use core::fmt::Debug;

use nalgebra::SVector;

use crate::error::SolveError;
use crate::model::Real;
use crate::state::NodeValues;

mod drive;
mod known;
mod system;
mod workspace;

pub use super::blocks::Write;
pub use drive::{equations, stage_system, step};
pub use known::{block, stage_velocities, Known};
pub use workspace::StageWorkspace;

/// The kernel buffers of a family, and the size of its unknowns.
pub trait StageBuffers: Clone + Debug + PartialEq {
    /// Unknowns of each stage (`D` for the stage velocities alone).
    const PER_STAGE: usize;
    /// Unknowns after the stages' (the new node's velocity of the holonomic family).
    const AFTER_STAGES: usize;
    /// Buffers of zeros.
    fn zeros() -> Self;
}

/// The equations of a family with `S` stages on a model `Mdl` of `D` coordinates, in
/// `N` unknowns, implemented by its kernel buffers: what a family writes, every other
/// part of a step being this module's.
///
/// Each method's floating-point operations are the family's own: the skeleton calls
/// them in a fixed order (per Newton iteration: `residual`; for a fresh Jacobian, with
/// a plan, `assemble` with [`Write::Zero`] then [`Write::Add`], without one the whole
/// matrix zeroed then `assemble` with [`Write::Add`]) and does no arithmetic of its own.
pub trait StageEquations<T: Real, Mdl, const S: usize, const D: usize, const N: usize>:
    StageBuffers
{
    /// The scheme marker the family steps (`LobattoIIIAIIIB<S>`, …).
    type Scheme;
    /// What the family carries from node to node.
    type State: NodeValues<T, D> + Copy;
    /// What a step knows besides `(q⁰, p⁰)`: `()`, or the nonholonomic family's `λₖ`.
    type Extra: Copy;

    /// The known values besides `(q⁰, p⁰)` at `state`, for a step.
    fn extra(model: &Mdl, state: &Self::State) -> Result<Self::Extra, SolveError<T>>;
    /// The same for [`equations`], which cannot fail on the state: a fallback where
    /// [`extra`](Self::extra) fails.
    fn extra_for_equations(model: &Mdl, state: &Self::State) -> Self::Extra;
    /// Newton's starting point: every entry of `x`, from the state.
    fn guess(
        known: &Known<'_, T, Mdl, Self::Extra, S, D>,
        state: &Self::State,
        x: &mut SVector<T, N>,
    );
    /// The residual `R(x)`, every entry of `r`.
    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, Self::Extra, S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    );
    /// Adds the exact Jacobian `∂R/∂x` at `x` into the column-stored `jac`; with
    /// [`Write::Zero`], zeroes the entries it would add to instead, without evaluating
    /// the kernels. The entries it visits must be the same in both passes (those of the
    /// elimination plan's pattern, `macros/src/emit/stage_patterns.rs`).
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, Self::Extra, S, D>,
        x: &SVector<T, N>,
        jac: &mut [[T; N]; N],
        write: Write,
    );
    /// The next state from Newton's solution `x`.
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, Self::Extra, S, D>,
        state: &Self::State,
        x: &SVector<T, N>,
    ) -> Self::State;
}
