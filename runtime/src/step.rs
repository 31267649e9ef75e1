//! What every scheme family implements: one step of a scheme on a model, with the
//! state layout and the workspace the scheme owns.
use core::fmt::Debug;

use crate::error::SolveError;
use crate::model::{InputValues, ParameterError, Real};
use crate::solve::{NewtonOptions, StepReport, Storage};
use crate::state::NodeValues;

/// Newton's starting point for the unknowns of a step (spec 000 §3, Table 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Guess {
    /// The known values at `tⁿ` ("simple guess"; the paper's default).
    #[default]
    Previous,
    /// The known values, with the new positions extrapolated as `qⁿ + h vⁿ` ("advanced
    /// guess"; it saves about one Newton iteration per step). Each scheme's template
    /// says which unknowns it moves. `LobattoIIIAIIIB(s)` and `HolonomicLobatto(s)` in a
    /// vector space (their default) continue the last step's stage polynomial instead,
    /// where the workspace solved the step that produced the state with the same `h`,
    /// and start from the state's values otherwise; the other stage families start from
    /// the state's values.
    Extrapolated,
}

/// How a step is solved: Newton's policy and its starting point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOptions<T> {
    /// Tolerance, budget and Jacobian policy.
    pub newton: NewtonOptions<T>,
    /// Starting point.
    pub guess: Guess,
}

impl<T: Real> Default for StepOptions<T> {
    fn default() -> Self {
        Self {
            newton: NewtonOptions::default(),
            guess: Guess::Previous,
        }
    }
}

/// What a step is given besides the state: the step size, the time the step starts
/// at and the model's inputs over the step. One value, so that adding what a step
/// reads (control inputs, spec `next_packages.md` §D) does not change every
/// signature again.
///
/// The time is the context's, not the state's: a stage family evaluates the forces at
/// `t + cᵢ h` from it. The [`Integrator`](crate::Integrator) builds it from its `h`
/// and the state's time, so the two agree there; a caller stepping by hand says when
/// the step starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepContext<'u, T> {
    /// The step size (negative integrates backwards).
    pub h: T,
    /// The time the step starts at.
    pub t: T,
    /// The model's inputs `u` over the step, held for its length (zero-order hold):
    /// one value per entry of [`Model::INPUTS`](crate::Model::INPUTS), empty for a
    /// model without an `inputs` block.
    pub inputs: &'u [T],
}

impl<T> StepContext<'static, T> {
    /// A step of size `h` from time `t`, without inputs.
    pub const fn new(h: T, t: T) -> Self {
        Self { h, t, inputs: &[] }
    }
}

/// A named block of a vector of unknowns (or of a state), e.g. `q1` at offset 0 with
/// length `d`. Emitted by `model!` so that tests and diagnostics read the layout
/// instead of guessing it from the sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The block's name as the scheme's equations write it (`q1`, `p1`, `lambda`, …).
    pub name: &'static str,
    /// Index of its first entry.
    pub offset: usize,
    /// Number of entries.
    pub len: usize,
}

/// The block containing entry `index` of a layout, and the index within it.
pub fn block_of(layout: &[Block], index: usize) -> Option<(&Block, usize)> {
    layout
        .iter()
        .find(|b| (b.offset..b.offset + b.len).contains(&index))
        .map(|b| (b, index - b.offset))
}

/// One step of scheme `S` on this model: implemented by `model!` for every scheme the
/// model declares, by delegating to the scheme family's driver with the sizes filled
/// in. The user never names the sizes: [`Integrator`](crate::Integrator) reads them
/// from the associated types.
pub trait Step<T: Real, S>: Sized {
    /// What the scheme carries from node to node (the GGL tuple, `(q, p)` plus warm
    /// starts for partitioned Runge–Kutta, …).
    type State: Copy + Debug + PartialEq;
    /// The model's inputs ([`Configuration::Inputs`](crate::Configuration::Inputs)):
    /// what an [`Integrator`](crate::Integrator) holds and hands each step.
    type Inputs: InputValues<T>;
    /// Memory a step needs, with its large matrices kept in storage `K`.
    type Workspace<K: Storage>: Clone + Debug;

    /// The named blocks of one step's unknowns, in order (`q1`, `p1`, … or the stage
    /// velocities `V1 … Vs`).
    const UNKNOWNS: &'static [Block];

    /// A fresh workspace.
    fn workspace<K: Storage>(&self, scheme: &S) -> Self::Workspace<K>;

    /// The time of a state ([`NodeValues::time`]): where the
    /// [`Integrator`](crate::Integrator) starts a step's [`StepContext`].
    fn time(state: &Self::State) -> T;

    /// The options an [`Integrator`](crate::Integrator) steps with unless told others:
    /// by default the papers' settings ([`StepOptions::default`]). `model!` returns its
    /// driver module's `default_options`: the papers' too, except for the stage families
    /// that predict their stages, which start from the last step's stage polynomial
    /// with simplified Newton
    /// ([`families::stages::predicted_options`](crate::families::stages::predicted_options)).
    fn default_options(&self, scheme: &S) -> StepOptions<T> {
        let _ = scheme;
        StepOptions::default()
    }

    /// Advances `state` by one step of `context` (its size `h` from its time `t`),
    /// returning the new state and what the solve cost. On error nothing but the
    /// workspace has been written.
    fn step<K: Storage>(
        &self,
        scheme: &S,
        context: StepContext<'_, T>,
        state: &Self::State,
        workspace: &mut Self::Workspace<K>,
        options: &StepOptions<T>,
    ) -> Result<(Self::State, StepReport<T>), SolveError<T>>;

    /// The step's equations at the unknowns `x` (laid out as [`UNKNOWNS`](Self::UNKNOWNS)):
    /// writes `R(x)` into `r` and `∂R/∂x` into `jac`, column by column
    /// (`jac[j * n + i] = ∂Rᵢ/∂xⱼ`). For derivative oracles and diagnostics: `step` does
    /// not call it. `x` and `r` must have `n` entries and `jac` `n²`, `n` the sum of the
    /// blocks' lengths; otherwise nothing is written and the error says what was expected.
    #[allow(clippy::too_many_arguments)]
    fn equations<K: Storage>(
        &self,
        scheme: &S,
        context: StepContext<'_, T>,
        state: &Self::State,
        workspace: &mut Self::Workspace<K>,
        x: &[T],
        r: &mut [T],
        jac: &mut [T],
    ) -> Result<(), WrongLength>;
}

/// The front door of every step, called by the generated [`Step::step`] before any
/// work: the model's parameters (`parameters`, from
/// [`Model::check_parameters`](crate::Model::check_parameters)), the step's context
/// (its size, its time and its inputs), the state and the Newton options must all make
/// sense, or the step fails with the
/// reason, leaving the state as it was. Without it a NaN `t` went through a
/// "successful" step, and `h = 0` failed as a singular Jacobian with advice to reduce
/// the step. The cost is a few comparisons per value, small next to one Newton
/// iteration.
pub fn check_step<T: Real, const D: usize, const Q: usize>(
    parameters: Result<(), ParameterError<T>>,
    expected_inputs: usize,
    context: StepContext<'_, T>,
    state: &impl NodeValues<T, D, Q>,
    options: &NewtonOptions<T>,
) -> Result<(), SolveError<T>> {
    parameters.map_err(SolveError::Parameter)?;
    let StepContext { h, t, inputs } = context;
    if !h.is_finite() || h == T::zero() {
        return Err(SolveError::InvalidStepSize { h });
    }
    // The state first: the integrator's `t` is the state's, and its NaN is the state's
    // fault.
    if let Some(field) = state.non_finite_field() {
        return Err(SolveError::NonFiniteState { field });
    }
    if !t.is_finite() {
        return Err(SolveError::InvalidTime { t });
    }
    if inputs.len() != expected_inputs {
        return Err(SolveError::WrongInputCount {
            expected: expected_inputs,
            given: inputs.len(),
        });
    }
    if let Some(index) = inputs.iter().position(|u| !u.is_finite()) {
        return Err(SolveError::NonFiniteInput { index });
    }
    options
        .validate()
        .map_err(|reason| SolveError::InvalidOptions { reason })
}

/// Slices of the wrong length given to [`Step::equations`]: the unknowns, the residual
/// or the Jacobian, or the context's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrongLength {
    /// The number of unknowns `n`.
    pub unknowns: usize,
    /// The lengths given for `x`, `r` and `jac`.
    pub given: [usize; 3],
    /// The number of inputs the model declares and the number given, if they differ.
    pub inputs: Option<[usize; 2]>,
}

impl WrongLength {
    /// `Ok` if `x`, `r`, `jac` have `n`, `n`, `n²` entries.
    pub fn check<T>(n: usize, x: &[T], r: &[T], jac: &[T]) -> Result<(), Self> {
        let given = [x.len(), r.len(), jac.len()];
        if given == [n, n, n * n] {
            Ok(())
        } else {
            Err(Self {
                unknowns: n,
                given,
                inputs: None,
            })
        }
    }

    /// `Ok` if `inputs` has the `expected` number of values, the model's (the other
    /// slices, `n` unknowns, having been checked).
    pub fn check_inputs<T>(n: usize, expected: usize, inputs: &[T]) -> Result<(), Self> {
        if inputs.len() == expected {
            Ok(())
        } else {
            Err(Self {
                unknowns: n,
                given: [n, n, n * n],
                inputs: Some([expected, inputs.len()]),
            })
        }
    }
}

impl core::fmt::Display for WrongLength {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some([expected, given]) = self.inputs {
            return write!(
                f,
                "the model declares {expected} inputs, and the step's context has {given}"
            );
        }
        let [x, r, jac] = self.given;
        write!(
            f,
            "the step has {n} unknowns: x and r need {n} entries and jac {}, given {x}, {r} and {jac}",
            self.unknowns * self.unknowns,
            n = self.unknowns
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for WrongLength {}
