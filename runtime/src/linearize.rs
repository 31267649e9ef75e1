//! The linearised step (spec `next_packages.md` §D.3): the derivatives of the carried
//! state after a step, `z⁺`, with respect to the state before it, `z`, and to the
//! inputs held over it, `u`, exact to round-off. By the implicit-function theorem on the
//! converged step equations `R(x; z, u) = 0` and the explicit next state
//! `z⁺ = Ψ(x; z, u)`:
//!
//! ```text
//! J = ∂R/∂x at the converged x (re-assembled there: Newton's last factors are at the
//!     previous iterate),
//! A = ∂z⁺/∂z = Ψ_z − Ψ_x J⁻¹ R_z,   B = ∂z⁺/∂u = Ψ_u − Ψ_x J⁻¹ R_u.
//! ```
//!
//! The model's derivatives enter through its point kernels (`D₁₁L`, `D₁₂L`, `F_q`,
//! `F_v`, `F_u`); no finite differences. A controller designs against `(A, B)`
//! (discrete LQR, MPC).
use nalgebra::SMatrix;

use crate::error::SolveError;
use crate::model::Real;
use crate::solve::{StepReport, Storage};
use crate::step::{Step, StepContext, StepOptions};

/// A step and its linearisation: the new state, `A = ∂z⁺/∂z` (`NZ × NZ`) and
/// `B = ∂z⁺/∂u` (`NZ × NU`) of the carried state `z` (for the Lobatto IIIA–IIIB family
/// `z = (q, p)`, `NZ = 2D`; for EML `z = (q, v, p)`, `NZ = 3D`) and the inputs (`NU` of
/// them), and what the solve cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linearized<State, T, const NZ: usize, const NU: usize> {
    /// The state after the step (the one [`Step::step`] returns).
    pub next: State,
    /// `∂z⁺/∂z`.
    pub a: SMatrix<T, NZ, NZ>,
    /// `∂z⁺/∂u`.
    pub b: SMatrix<T, NZ, NU>,
    /// Newton's iterations and residual.
    pub report: StepReport<T>,
}

/// What [`Integrator::step_linearized`](crate::Integrator::step_linearized) reads of a
/// linearised step: the state after it.
pub trait LinearizedStep<State> {
    /// The state after the step.
    fn next_state(&self) -> State;
}

impl<State: Copy, T, const NZ: usize, const NU: usize> LinearizedStep<State>
    for Linearized<State, T, NZ, NU>
{
    fn next_state(&self) -> State {
        self.next
    }
}

/// A scheme whose step `model!` can linearise for this model: emitted for models with an
/// `inputs` block, for the schemes that support it.
pub trait Linearize<T: Real, S>: Step<T, S> {
    /// The carried state's components, in the order of `A`'s rows and columns (`q.x`,
    /// …, `p.x`, …; EML's `q.x`, …, `v.x`, …, `p.x`, …).
    const CARRIED: &'static [&'static str];
    /// [`Linearized`] with this model's sizes.
    type Linearized: Copy + core::fmt::Debug + LinearizedStep<Self::State>;

    /// Solves the step of `context` from `state` and linearises it there. On error
    /// nothing but the workspace has been written.
    fn linearize<K: Storage>(
        &self,
        scheme: &S,
        context: StepContext<'_, T>,
        state: &Self::State,
        workspace: &mut Self::Workspace<K>,
        options: &StepOptions<T>,
    ) -> Result<Self::Linearized, SolveError<T>>;
}
