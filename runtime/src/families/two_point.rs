//! The two-point family: schemes whose residual and exact Jacobian `model!` emits as
//! straight-line code ([`DiscreteSystem`]), solved here by one Newton solve per step.
//! The GGL schemes (Kinon, Betsch, Schneider 2023; spec 000) came first; the Livens
//! energy–momentum schemes, SHAKE and RATTLE are stepped the same way.
use nalgebra::SVector;

use crate::error::SolveError;
use crate::model::{Configuration, InputValues, Model, Real};
use crate::schemes::info::SchemeInfo;
use crate::solve::sparse::{self, NeedsPivoting, Plan};
use crate::solve::{self, NewtonSystem, StepReport, Storage, Workspace};
use crate::state::NodeState;
use crate::step::{Block, Guess, StepContext, StepOptions, WrongLength};
use core::borrow::BorrowMut;

pub use super::papers_options as default_options;

/// The discrete equations of scheme `S` for one step of a model, with `N` unknowns:
/// emitted by `model!` from the scheme's template, residual and exact Jacobian.
///
/// Every function takes the scheme value: a scheme with parameters (the θ-methods'
/// `theta`, `vartheta`) carries them as fields, read by the generated code.
pub trait DiscreteSystem<T: Real, S, const D: usize, const M: usize, const N: usize>:
    Model<T, D, M>
{
    /// The named blocks of the unknowns, in order (`q1`, `p1`, …).
    const UNKNOWNS: &'static [Block];
    /// The Jacobian's elimination plan, chosen by `model!` from its sparsity pattern
    /// (see [`sparse`]); `None` for a structurally singular
    /// pattern, which the dense LU then reports.
    const PLAN: Option<&'static Plan> = None;

    /// Factors the Jacobian along [`PLAN`](Self::PLAN) (see
    /// [`NewtonSystem::factor_planned`]): `model!` emits the static steps as
    /// straight-line code for small plans; the default follows the plan's tables.
    fn factor_planned(
        &self,
        jac: &mut [[T; N]; N],
        slot: &mut [usize; N],
    ) -> Option<Result<(), NeedsPivoting>> {
        Self::PLAN.map(|plan| sparse::factor(plan, jac, slot))
    }
    /// Solves with the factors of [`factor_planned`](Self::factor_planned).
    fn solve_planned(&self, lu: &[[T; N]; N], slot: &[usize; N], r: &mut SVector<T, N>) {
        match Self::PLAN {
            Some(plan) => sparse::solve(plan, lu, slot, r),
            None => solve::lu::solve_in_place(lu, slot, r),
        }
    }
    /// Writes the residual `R(known, x, h, u)` at the inputs `u` into `r` and `∂R/∂x` into the column-stored
    /// `jac` (`jac[j][i] = ∂R_i/∂x_j`). With a [`PLAN`](Self::PLAN) only the structural
    /// nonzeros are written (the rest of `jac` is left as it was); without one every
    /// entry is.
    #[allow(clippy::too_many_arguments)]
    fn residual_and_jacobian(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    );
    /// [`residual_and_jacobian`](Self::residual_and_jacobian) with `∂R/∂x` in the
    /// layout [`factor_planned`](Self::factor_planned) reads. Release builds of
    /// `model!` pack the plan's entries at the front of `jac` (see
    /// [`sparse`]'s compact layout), where the factorisation's working set is
    /// contiguous; otherwise, and by default, the layout is the column-stored one.
    #[allow(clippy::too_many_arguments)]
    fn residual_and_jacobian_planned(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        self.residual_and_jacobian(scheme, h, known, inputs, x, r, jac);
    }
    /// Writes only the residual `R(known, x, h)` into `r`.
    fn residual(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    );
    /// Newton's starting point (spec 000 §3, Table 2): the known values at `tⁿ`, with
    /// the new positions moved to `qⁿ + h vⁿ` for [`Guess::Extrapolated`].
    fn initial_guess(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        guess: Guess,
    ) -> SVector<T, N>;
    /// The state at `tⁿ⁺¹` from the solved unknowns.
    fn accept(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        x: &SVector<T, N>,
    ) -> NodeState<T, D, M>;
}

/// A [`DiscreteSystem`] at a known state and step size, as Newton sees it.
struct AtState<'a, T: Real, Mdl: Configuration<T, D>, S, const D: usize, const M: usize> {
    model: &'a Mdl,
    scheme: &'a S,
    h: T,
    known: &'a NodeState<T, D, M>,
    inputs: Mdl::Inputs,
}

impl<T, Mdl, S, const D: usize, const M: usize, const N: usize> NewtonSystem<T, N>
    for AtState<'_, T, Mdl, S, D, M>
where
    T: Real,
    Mdl: DiscreteSystem<T, S, D, M, N>,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        self.model
            .residual(self.scheme, self.h, self.known, &self.inputs, x, r);
    }
    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        let (h, known, inputs) = (self.h, self.known, &self.inputs);
        self.model
            .residual_and_jacobian(self.scheme, h, known, inputs, x, r, jac);
    }
    fn residual_and_jacobian_planned(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        let (h, known, inputs) = (self.h, self.known, &self.inputs);
        self.model
            .residual_and_jacobian_planned(self.scheme, h, known, inputs, x, r, jac);
    }
    fn factor_planned(
        &mut self,
        jac: &mut [[T; N]; N],
        slot: &mut [usize; N],
    ) -> Option<Result<(), NeedsPivoting>> {
        self.model.factor_planned(jac, slot)
    }
    fn solve_planned(&mut self, lu: &[[T; N]; N], slot: &[usize; N], r: &mut SVector<T, N>) {
        self.model.solve_planned(lu, slot, r);
    }
}

/// How far the energy of a converged step of an energy-conserving scheme may move, in
/// Newton tolerances times the energy's scale ([`energy_balance`]).
///
/// The energy balance of these schemes is an identity of their equations (e.g.
/// `E¹ − E⁰ = 𝖣V·r_q + v^½·r_p` for EM's (84) with residuals `r`), so a converged step
/// moves `E` by about the residual times a velocity or a force, a small multiple of the
/// tolerance times the energy's scale at most, and in practice far less (on the papers'
/// models 1e-12 of the energy at the default tolerance 1e-9, a thousandth of a
/// tolerance). A step that lands on another root of the step equations moves it by
/// more: the free body with Null-EML at `h = 0.05` (`tests/contracts/energy_balance.rs`) takes 24
/// iterations at step 160 to a root 7.4e-4 away in energy, 110 tolerances of its scale
/// 6 764. Ten tolerances refuses that with a factor of eleven to spare.
pub const ENERGY_BALANCE_TOLERANCES: f64 = 10.0;

/// `Ok` if the step from `start` to `next` keeps the energy `E = p·v − L(q, v)` (the
/// states' own `v`: the quantity every energy-conserving scheme of the catalogue keeps,
/// [`Diagnostics::energy`](crate::Diagnostics::energy)) to within
/// [`ENERGY_BALANCE_TOLERANCES`] Newton tolerances (at least `64 ε` each) times
/// `max(1, |E⁰|, |p⁰·v⁰|)` (the energy's size, `p·v` counting a kinetic energy that a
/// potential cancels); otherwise
/// [`SolveError::EnergyBalance`]: Newton converged, but to a solution that is not the
/// step (another root of the equations).
pub fn energy_balance<T, Mdl, const D: usize, const M: usize>(
    model: &Mdl,
    start: &NodeState<T, D, M>,
    next: &NodeState<T, D, M>,
    tolerance: T,
    iterations: u32,
) -> Result<(), SolveError<T>>
where
    T: Real,
    Mdl: Model<T, D, M>,
{
    let energy = |s: &NodeState<T, D, M>| s.p.dot(&s.v) - model.lagrangian(&s.q, &s.v);
    let (before, after) = (energy(start), energy(next));
    let scale = T::one().max(before.abs()).max(start.p.dot(&start.v).abs());
    // Not below the round-off of `p·v` and `L` at that scale (a tolerance near `ε`).
    let floor = nalgebra::convert::<f64, T>(64.0) * T::default_epsilon();
    let tolerance = tolerance.max(floor);
    let allowed = nalgebra::convert::<f64, T>(ENERGY_BALANCE_TOLERANCES) * tolerance * scale;
    let change = after - before;
    // A NaN or infinite change is refused too.
    if !change.is_finite() || change.abs() > allowed {
        return Err(SolveError::EnergyBalance {
            change,
            allowed,
            iterations,
        });
    }
    Ok(())
}

/// One step of a GGL scheme: Newton on the generated equations, from the scheme's
/// guess, in the workspace; the new state is [`DiscreteSystem::accept`] of the
/// solution. For a scheme that conserves the energy ([`SchemeInfo::CONSERVES_ENERGY`])
/// on a model without forces, a solution that breaks the energy balance is refused
/// ([`energy_balance`]), as a failed solve is. `state` is only read, so a failed step
/// leaves it as it was.
pub fn step<T, Mdl, S, K, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    scheme: &S,
    context: StepContext<'_, T>,
    state: &NodeState<T, D, M>,
    ws: &mut Workspace<T, N, K>,
    options: &StepOptions<T>,
) -> Result<(NodeState<T, D, M>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: DiscreteSystem<T, S, D, M, N>,
    S: SchemeInfo,
    K: Storage,
{
    let h = context.h;
    let inputs = Mdl::Inputs::from_slice(context.inputs).ok_or(SolveError::WrongInputCount {
        expected: Mdl::Inputs::LEN,
        given: context.inputs.len(),
    })?;
    // The generated equations read the start time from the known state: the
    // context's (the same, from the integrator).
    let state = &NodeState {
        t: context.t,
        ..*state
    };
    ws.x = model.initial_guess(scheme, h, state, &inputs, options.guess);
    let mut system = AtState {
        model,
        scheme,
        h,
        known: state,
        inputs,
    };
    let report = solve::solve(ws, &options.newton, &mut system)?;
    let next = model.accept(scheme, h, state, &inputs, &ws.x);
    // With forces the energy changes by their work, which only the template's own
    // force term gives exactly: such steps are not checked.
    if S::CONSERVES_ENERGY && !Mdl::FORCED {
        energy_balance(
            model,
            state,
            &next,
            options.newton.tolerance,
            report.iterations,
        )?;
    }
    Ok((next, report))
}

/// [`Step::equations`](crate::Step::equations) of a GGL scheme: the generated residual
/// and Jacobian at `x`, through the workspace.
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, S, K, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    scheme: &S,
    context: StepContext<'_, T>,
    state: &NodeState<T, D, M>,
    ws: &mut Workspace<T, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: DiscreteSystem<T, S, D, M, N>,
    K: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let inputs = Mdl::Inputs::from_slice(context.inputs).ok_or(WrongLength {
        unknowns: N,
        given: [N, N, N * N],
        inputs: Some([Mdl::Inputs::LEN, context.inputs.len()]),
    })?;
    let h = context.h;
    let state = &NodeState {
        t: context.t,
        ..*state
    };
    ws.x.as_mut_slice().copy_from_slice(x);
    // The writer skips structural zeros: clear them for a caller that reads them all.
    crate::__private::zero_matrix(ws.jac.borrow_mut());
    let jac_out = ws.jac.borrow_mut();
    model.residual_and_jacobian(scheme, h, state, &inputs, &ws.x, &mut ws.r, jac_out);
    super::copy_out(ws, r, jac);
    Ok(())
}
