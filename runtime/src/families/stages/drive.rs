//! The drivers every assembled family exposes: one step (Newton from the family's
//! guess, the next state from the solution), the equations at given unknowns for
//! [`Step::equations`](crate::Step::equations), and the stage system for derivative
//! oracles.
use core::borrow::{Borrow, BorrowMut};

use nalgebra::SVector;

use super::{StageEquations, StageWorkspace, StepStart};
use crate::error::SolveError;
use crate::model::{Configuration, InputValues, Real};
use crate::solve::{self, NewtonSystem, StepReport, Storage};
use crate::state::NodeValues;
use crate::step::{Guess, StepContext, StepOptions, WrongLength};

/// One step of the family `F`: Newton from [`StageEquations::guess`] (with
/// [`Guess::Extrapolated`], moved by [`StageEquations::predict`] where the workspace
/// solved the step that produced `state`), then [`StageEquations::next_state`] from the
/// solution. `state` is only read, so a failed step leaves it as it was; the workspace
/// then forgets the step it solved before.
pub fn step<T, Mdl, F, K, const S: usize, const D: usize, const N: usize, const Q: usize>(
    model: &Mdl,
    _scheme: &F::Scheme,
    context: StepContext<'_, T>,
    state: &F::State,
    ws: &mut StageWorkspace<T, F, S, N, K, F::Coefficients>,
    options: &StepOptions<T>,
) -> Result<(F::State, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: Configuration<T, D, Q>,
    F: StageEquations<T, Mdl, S, D, N, Q>,
    K: Storage,
{
    if context.inputs.len() != Mdl::Inputs::LEN {
        return Err(SolveError::WrongInputCount {
            expected: Mdl::Inputs::LEN,
            given: context.inputs.len(),
        });
    }
    let extra = F::start(model, state, context.inputs)?;
    let start = (state.positions(), state.momenta());
    let continued = ws.continued(context.h, state);
    // The step starts at the context's time (the state's, from the integrator).
    let known = (context.h, context.t, context.inputs);
    let (newton, mut system) = ws.split(model, known, start, extra);
    F::guess(&system.known, state, &mut newton.x);
    if let (Guess::Extrapolated, Some((e, previous))) = (options.guess, continued) {
        F::predict(&system.known, &e, &previous, &mut newton.x);
    }
    let report = solve::solve(newton, &options.newton, &mut system)?;
    let next = system.kernels.next_state(&system.known, &newton.x)?;
    ws.solved(context.h, &next);
    Ok((next, report))
}

/// [`Step::equations`](crate::Step::equations) of the family `F`: its equations and
/// their assembled Jacobian at `x` (column by column), with the known values of
/// [`StageEquations::start`], or where that fails [`StepStart::extra_for_equations`].
#[allow(clippy::too_many_arguments)]
pub fn equations<
    T: Real,
    Mdl,
    F,
    K: Storage,
    const S: usize,
    const D: usize,
    const N: usize,
    const Q: usize,
>(
    model: &Mdl,
    _scheme: &F::Scheme,
    context: StepContext<'_, T>,
    state: &F::State,
    ws: &mut StageWorkspace<T, F, S, N, K, F::Coefficients>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    Mdl: Configuration<T, D, Q>,
    F: StageEquations<T, Mdl, S, D, N, Q>,
{
    WrongLength::check(N, x, r, jac)?;
    WrongLength::check_inputs(N, Mdl::Inputs::LEN, context.inputs)?;
    let extra =
        F::start(model, state, context.inputs).unwrap_or_else(|_| state.extra_for_equations(model));
    let start = (state.positions(), state.momenta());
    let known = (context.h, context.t, context.inputs);
    let (newton, mut system) = ws.split(model, known, start, extra);
    newton.x.as_mut_slice().copy_from_slice(x);
    system.residual_and_jacobian(&newton.x, &mut newton.r, newton.jac.borrow_mut());
    super::super::copy_out(newton, r, jac);
    Ok(())
}

/// The residual `R(X)` of a family that knows nothing besides `(q⁰, p⁰)` at the
/// unknowns `x`, and its exact Jacobian `∂R/∂X` (column storage) in the workspace: the
/// system each Newton iteration of [`step`] solves, exposed for derivative oracles.
pub fn stage_system<
    'w,
    T,
    Mdl,
    F,
    K,
    const S: usize,
    const D: usize,
    const N: usize,
    const Q: usize,
>(
    model: &Mdl,
    ws: &'w mut StageWorkspace<T, F, S, N, K, F::Coefficients>,
    h: T,
    q0: &SVector<T, Q>,
    p0: &SVector<T, D>,
    x: &SVector<T, N>,
    r: &mut SVector<T, N>,
) -> &'w [[T; N]; N]
where
    T: Real,
    F: StageEquations<T, Mdl, S, D, N, Q>,
    F::State: StepStart<T, Mdl, D, Q, Extra = ()>,
    K: Storage,
{
    // No inputs: a model's inputs read zero here.
    let (newton, mut system) = ws.split(model, (h, T::zero(), &[]), (q0, p0), ());
    system.residual_and_jacobian(x, r, newton.jac.borrow_mut());
    newton.jac.borrow()
}
