//! The skeleton every assembled stage family shares ([`super::prk`],
//! [`super::prk_holonomic`], [`super::prk_nonholonomic`]): a step's memory, Newton's
//! system with its elimination plan, and the drivers, written once over what differs
//! between the families.
//!
//! Written here, once:
//!
//! - [`StageWorkspace`] (`workspace.rs`): Newton's workspace, the coefficients, the family's
//!   kernel buffers and the plan, with `lobatto()`, `with_plan` and `plan`. Each family
//!   names it by a type alias over its buffers (`PrkWorkspace`, …), the names `model!`
//!   emits.
//! - The [`NewtonSystem`](crate::solve::NewtonSystem) (`system.rs`): the family's
//!   residual; its Jacobian zeroed (the whole matrix, or with a plan only the entries the
//!   assembly writes) and assembled; the factorisation and solve along the plan, the
//!   dense LU's without one.
//! - [`Known`] (`known.rs`): what a step knows (the model, the coefficients, `h`, `t⁰`, `q⁰`,
//!   `p⁰` and what else the state gives), and the values every family computes alike:
//!   the stage velocities and positions `Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ`, the sums
//!   `x₀ + h Σⱼ wⱼ yʲ`, the blocks of the unknowns.
//! - The drivers [`step`], [`equations`] and [`stage_system`] (`drive.rs`), which the
//!   family modules re-export, and the default options a family module re-exports as
//!   `default_options` ([`predicted_options`], or the papers' [`super::papers_options`]).
//! - Newton's starting point from the last step (`predict.rs`): the workspace remembers
//!   the step it solved, and a family that implements [`StageEquations::predict`]
//!   continues its stage polynomial ([`extrapolation`], [`extrapolate_stages`]).
//!
//! A family writes its kernel buffers, a type of its own and its only memory, and on
//! them:
//!
//! - [`StageBuffers`]: the buffers' zero value and its unknowns per stage and after the
//!   stages (`N = S · PER_STAGE + AFTER_STAGES`, checked when a workspace is built);
//! - [`StageEquations`]: its scheme marker and state, Newton's starting point from the
//!   state ([`StageEquations::guess`]), its residual ([`StageEquations::residual`]), its
//!   block Jacobian ([`StageEquations::assemble`]) and the next state from the solution
//!   ([`StageEquations::next_state`]).
//!
//! Its state says what else a step knows besides `(q⁰, p⁰)` ([`StepStart`]: nothing
//! for a [`PhaseState`], implemented here; `λₖ` for the nonholonomic family's state).
//! Its assembly writes through an [`Assembly`] the blocks the families share
//! (`families/blocks.rs`: a kernel at a block, the terms through a stage position, a
//! Legendre transform's row, the rows a stage's force enters) and evaluates its kernels
//! into the point buffers of `families/point.rs` (the Lagrangian's second derivatives;
//! for a constrained family `K_qq` and the constraint matrix, both constrained
//! families reading their kernels through one trait, `ConstraintMatrix`).
//!
//! The skeleton does no arithmetic of its own: every floating-point operation of a step
//! is in the family's methods, called in a fixed order (the extrapolation's sums
//! included: a family's `predict` calls [`extrapolate_stages`]).
use core::fmt::Debug;

use nalgebra::SVector;

use crate::error::SolveError;
use crate::model::Real;
use crate::solve::{JacobianUpdate, NewtonOptions};
use crate::state::{NodeValues, PhaseState};
use crate::step::{Guess, StepOptions};

mod drive;
mod known;
mod predict;
mod system;
mod workspace;

pub use super::blocks::Assembly;
pub use drive::{equations, stage_system, step};
pub use known::{block, set_block, stage_velocities, Known};
pub use predict::{extrapolate_stages, extrapolation};
pub use workspace::StageWorkspace;

/// The default options of a family that predicts its stages
/// ([`StageEquations::predict`]: `LobattoIIIAIIIB(s)`, `HolonomicLobatto(s)`): Newton
/// from the last step's stage polynomial ([`Guess::Extrapolated`], `predict.rs`), and
/// simplified Newton within a step (`JacobianUpdate::Reuse`, refactored when the
/// residual shrinks by less than a tenth): from a predicted start the iterate that meets
/// the tolerance is a few `1e-6` from the first, so the old factors apply its last
/// update as the new ones would. Measured on the double pendulum
/// (`docs/performance.md`): 2.0–2.3 iterations a step instead of 3.0–3.4, 0.6 of the
/// instructions at `s ≥ 3`, the same errors.
pub fn predicted_options<T: Real>() -> StepOptions<T> {
    StepOptions {
        guess: Guess::Extrapolated,
        newton: NewtonOptions {
            jacobian: JacobianUpdate::Reuse {
                max_age: 4,
                contraction: 0.1,
            },
            ..NewtonOptions::default()
        },
    }
}

/// The kernel buffers of a family, and the size of its unknowns.
pub trait StageBuffers: Clone + Debug + PartialEq {
    /// Unknowns of each stage (`D` for the stage velocities alone).
    const PER_STAGE: usize;
    /// Unknowns after the stages' (the new node's velocity of the holonomic family).
    const AFTER_STAGES: usize;
    /// Buffers of zeros.
    fn zeros() -> Self;
}

/// What a family's state gives a step besides `(q⁰, p⁰)` ([`Known::extra`]).
pub trait StepStart<T: Real, Mdl, const D: usize, const Q: usize = D>:
    NodeValues<T, D, Q> + Copy
{
    /// The values: `()`, or the nonholonomic family's `λₖ`.
    type Extra: Copy;
    /// The values for a step.
    fn extra(&self, model: &Mdl) -> Result<Self::Extra, SolveError<T>>;
    /// The same for [`equations`], which cannot fail on the state: a fallback where
    /// [`extra`](Self::extra) fails.
    fn extra_for_equations(&self, model: &Mdl) -> Self::Extra;
}

/// A phase state gives nothing besides `(q, p)`: its `v` is only Newton's guess.
impl<T: Real, Mdl, const D: usize, const Q: usize> StepStart<T, Mdl, D, Q> for PhaseState<T, D, Q> {
    type Extra = ();
    fn extra(&self, _: &Mdl) -> Result<(), SolveError<T>> {
        Ok(())
    }
    fn extra_for_equations(&self, _: &Mdl) {}
}

/// The known values of a step of family `F` ([`Known`] with its state's extra values).
pub type KnownOf<
    'a,
    T,
    Mdl,
    F,
    const S: usize,
    const D: usize,
    const N: usize,
    const Q: usize = D,
> = Known<
    'a,
    T,
    Mdl,
    <<F as StageEquations<T, Mdl, S, D, N, Q>>::State as StepStart<T, Mdl, D, Q>>::Extra,
    S,
    D,
    Q,
    <F as StageEquations<T, Mdl, S, D, N, Q>>::Coefficients,
>;

/// The equations of a family with `S` stages on a model `Mdl` of `D` coordinates (its
/// configuration stored in `Q` numbers, `Q = D` in a vector space), in `N` unknowns,
/// implemented by its kernel buffers: what a family writes, every other part of a step
/// being this module's.
///
/// Each method's floating-point operations are the family's own: the skeleton calls
/// them in a fixed order (per Newton iteration: `residual`; for a fresh Jacobian
/// instead, with a plan, `assemble` zeroing then `residual_and_assemble`, without one the
/// whole matrix zeroed then `residual_and_assemble`; `next_state` after the solve) and
/// does no arithmetic of its own.
pub trait StageEquations<
    T: Real,
    Mdl,
    const S: usize,
    const D: usize,
    const N: usize,
    const Q: usize = D,
>: StageBuffers
{
    /// The scheme marker the family steps (`LobattoIIIAIIIB<S>`, …).
    type Scheme;
    /// The coefficients the workspace holds and [`Known::tableau`] shows: the
    /// partitioned tableau of the Lobatto families, the Galerkin tables.
    type Coefficients: Clone + Debug + PartialEq;
    /// What the family carries from node to node.
    type State: StepStart<T, Mdl, D, Q>;

    /// What the step knows besides `(q⁰, p⁰)`: by default what the state gives
    /// ([`StepStart::extra`]); a family may take it otherwise (the nonholonomic family's
    /// recomputed multiplier).
    fn start(
        model: &Mdl,
        state: &Self::State,
        inputs: &[T],
    ) -> Result<<Self::State as StepStart<T, Mdl, D, Q>>::Extra, SolveError<T>> {
        let _ = inputs;
        state.extra(model)
    }

    /// Newton's starting point: every entry of `x`, from the state.
    fn guess(
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        state: &Self::State,
        x: &mut SVector<T, N>,
    );
    /// Newton's starting point continued from the last step's solution `previous` (the
    /// step, of the same size, that produced the state), by the extrapolation `e` of the
    /// stage polynomial ([`extrapolation`]), over the starting point
    /// [`guess`](Self::guess) wrote into `x`. By default nothing is moved.
    fn predict(
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        e: &[[f64; S]; S],
        previous: &SVector<T, N>,
        x: &mut SVector<T, N>,
    ) {
        let _ = (known, e, previous, x);
    }
    /// The residual `R(x)`, every entry of `r`.
    fn residual(
        &mut self,
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    );
    /// Adds the exact Jacobian `∂R/∂x` at `x` into `out`, or, in the pass that zeroes
    /// ([`Assembly::adds`] false), zeroes the entries it would add to, without evaluating
    /// the kernels. The entries it visits must be the same in both passes (those of the
    /// elimination plan's pattern, `macros/src/emit/stage_patterns.rs`).
    fn assemble(
        &mut self,
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        x: &SVector<T, N>,
        out: Assembly<'_, T, N>,
    );
    /// [`residual`](Self::residual) and then [`assemble`](Self::assemble) adding at the
    /// same `x`, with the same floating-point operations: by default the two calls. A
    /// family overrides it to evaluate each stage's point kernels back to back, so that
    /// the compiler computes what they share once (the trigonometry of `Qʲ` behind both
    /// `D₁L` and `D₁₁L`): a Newton iteration with a fresh Jacobian is then one pass over
    /// the stages.
    fn residual_and_assemble(
        &mut self,
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        out: Assembly<'_, T, N>,
    ) {
        self.residual(known, x, r);
        self.assemble(known, x, out);
    }
    /// The next state from Newton's solution `x`, or the error of a family's
    /// post-processing (the Galerkin family's momentum projection).
    fn next_state(
        &mut self,
        known: &KnownOf<'_, T, Mdl, Self, S, D, N, Q>,
        x: &SVector<T, N>,
    ) -> Result<Self::State, SolveError<T>>;
}
