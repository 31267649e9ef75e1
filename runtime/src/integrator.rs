//! The step loop: a model, a scheme, the scheme's state and its workspace.
use crate::error::SolveError;
use crate::linearize::{Linearize, LinearizedStep};
use crate::model::{InputValues, Real};
use crate::solve::{Inline, NewtonOptions, StepReport, Storage};
use crate::step::{Guess, Step, StepContext, StepOptions};

/// Advances a model with scheme `S` at a fixed step size.
///
/// The state layout and the workspace are the scheme's ([`Step::State`],
/// [`Step::Workspace`]); every size is read from the model's generated impl, so
///
/// ```text
/// let mut integrator = Integrator::new(pendulum, GglEm, 0.05, state);
/// integrator.step()?;
/// ```
///
/// needs no annotations. Stepping allocates nothing. The workspace's large matrices
/// live in storage `K`: inside the integrator ([`Inline`], from [`Integrator::new`]) or
/// on the heap ([`Boxed`](crate::solve::Boxed), from [`Integrator::new_boxed`], for
/// steps with hundreds of unknowns).
pub struct Integrator<T: Real, Mdl: Step<T, S>, S, K: Storage = Inline> {
    model: Mdl,
    scheme: S,
    h: T,
    state: Mdl::State,
    inputs: Mdl::Inputs,
    options: StepOptions<T>,
    workspace: Mdl::Workspace<K>,
}

impl<T: Real, Mdl: Step<T, S> + Clone, S: Clone, K: Storage> Clone for Integrator<T, Mdl, S, K> {
    fn clone(&self) -> Self {
        Self {
            model: self.model.clone(),
            scheme: self.scheme.clone(),
            h: self.h,
            state: self.state,
            inputs: self.inputs,
            options: self.options,
            workspace: self.workspace.clone(),
        }
    }
}

impl<T: Real, Mdl: Step<T, S> + core::fmt::Debug, S: core::fmt::Debug, K: Storage> core::fmt::Debug
    for Integrator<T, Mdl, S, K>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Integrator")
            .field("model", &self.model)
            .field("scheme", &self.scheme)
            .field("h", &self.h)
            .field("state", &self.state)
            .field("inputs", &self.inputs)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl<T: Real, Mdl: Step<T, S>, S> Integrator<T, Mdl, S, Inline> {
    /// An integrator at `state` with step size `h` and the scheme's default options
    /// ([`Step::default_options`]), its workspace inside it.
    ///
    /// `state` should be consistent (see [`NodeState::consistent`](crate::NodeState::consistent)).
    /// The step size is not validated: a non-finite `h` shows up as a failed step, while
    /// a negative `h` integrates backwards in time (the schemes are defined for either
    /// sign).
    pub fn new(model: Mdl, scheme: S, h: T, state: Mdl::State) -> Self {
        Self::new_in(model, scheme, h, state)
    }
}

#[cfg(feature = "alloc")]
impl<T: Real, Mdl: Step<T, S>, S> Integrator<T, Mdl, S, crate::solve::Boxed> {
    /// As [`Integrator::new`], with the workspace's matrices on the heap: for steps
    /// with hundreds of unknowns, whose `8 N²`-byte Jacobian would not fit on a thread
    /// stack. Allocates once, here; stepping allocates nothing.
    pub fn new_boxed(model: Mdl, scheme: S, h: T, state: Mdl::State) -> Self {
        Self::new_in(model, scheme, h, state)
    }
}

impl<T: Real, Mdl: Step<T, S>, S, K: Storage> Integrator<T, Mdl, S, K> {
    /// An integrator whose workspace keeps its matrices in storage `K`.
    pub fn new_in(model: Mdl, scheme: S, h: T, state: Mdl::State) -> Self {
        let workspace = model.workspace::<K>(&scheme);
        let options = model.default_options(&scheme);
        Self {
            model,
            scheme,
            h,
            state,
            inputs: InputValues::zeros(),
            options,
            workspace,
        }
    }

    /// Replaces the choice of Newton's starting point.
    #[must_use]
    pub fn with_guess(mut self, guess: Guess) -> Self {
        self.options.guess = guess;
        self
    }

    /// Replaces the Newton options. Options that cannot work are refused by the next
    /// step ([`SolveError::InvalidOptions`], the state kept); [`set_options`](Self::set_options)
    /// refuses them at once.
    #[must_use]
    pub fn with_options(mut self, options: NewtonOptions<T>) -> Self {
        self.options.newton = options;
        self
    }

    /// Replaces the Newton options if they can work ([`NewtonOptions::validate`]: a
    /// tolerance the scalar type can reach, a budget, a divergence factor above 1);
    /// otherwise keeps the current ones and says which option is wrong.
    pub fn set_options(&mut self, options: NewtonOptions<T>) -> Result<(), SolveError<T>> {
        options
            .validate()
            .map_err(|reason| SolveError::InvalidOptions { reason })?;
        self.options.newton = options;
        Ok(())
    }

    /// Advances the state by one step of size `h` from the state's time.
    ///
    /// On success the state becomes the scheme's new state. On error the state is
    /// untouched — bit for bit what it was before the call — so the caller can retry
    /// with a smaller step size or other options.
    pub fn step(&mut self) -> Result<StepReport<T>, SolveError<T>> {
        // The step starts at the state's time, the inputs held over it.
        let context = StepContext {
            h: self.h,
            t: Mdl::time(&self.state),
            inputs: self.inputs.as_ref(),
        };
        let (next, report) = self.model.step(
            &self.scheme,
            context,
            &self.state,
            &mut self.workspace,
            &self.options,
        )?;
        self.state = next;
        Ok(report)
    }

    /// The step [`step`](Self::step) would take and its linearisation `A = ∂z⁺/∂z`,
    /// `B = ∂z⁺/∂u` ([`Linearize`]), the state left as it was: what a controller designs
    /// against at the current state and inputs.
    pub fn linearize(&mut self) -> Result<Mdl::Linearized, SolveError<T>>
    where
        Mdl: Linearize<T, S>,
    {
        let context = StepContext {
            h: self.h,
            t: Mdl::time(&self.state),
            inputs: self.inputs.as_ref(),
        };
        self.model.linearize(
            &self.scheme,
            context,
            &self.state,
            &mut self.workspace,
            &self.options,
        )
    }

    /// [`linearize`](Self::linearize), and the state advanced to the step's (the
    /// time-varying linearisation along a trajectory an MPC relinearises on).
    pub fn step_linearized(&mut self) -> Result<Mdl::Linearized, SolveError<T>>
    where
        Mdl: Linearize<T, S>,
    {
        let out = self.linearize()?;
        self.state = out.next_state();
        Ok(out)
    }

    /// Takes up to `steps` steps, stopping at the first failure; the state is then the
    /// one after the last successful step (its time tells how far the run got).
    /// Returns the total number of Newton iterations on success.
    pub fn run(&mut self, steps: usize) -> Result<u64, SolveError<T>> {
        let mut iterations: u64 = 0;
        for _ in 0..steps {
            iterations = iterations.saturating_add(u64::from(self.step()?.iterations));
        }
        Ok(iterations)
    }

    /// The current state.
    pub fn state(&self) -> &Mdl::State {
        &self.state
    }

    /// Replaces the state, e.g. to restart from a new consistent initial state.
    pub fn set_state(&mut self, state: Mdl::State) {
        self.state = state;
    }

    /// The inputs the following steps hold (zero-order hold), in the order of the
    /// model's `inputs` block ([`Model::INPUTS`](crate::Model::INPUTS)); zero at first.
    pub fn inputs(&self) -> &Mdl::Inputs {
        &self.inputs
    }

    /// Holds `inputs` over the following steps, until changed. A NaN or infinite input
    /// is refused ([`SolveError::NonFiniteInput`]) and the inputs held are kept.
    pub fn set_inputs(&mut self, inputs: Mdl::Inputs) -> Result<(), SolveError<T>> {
        if let Some(index) = inputs.as_ref().iter().position(|u| !u.is_finite()) {
            return Err(SolveError::NonFiniteInput { index });
        }
        self.inputs = inputs;
        Ok(())
    }

    /// The model.
    pub fn model(&self) -> &Mdl {
        &self.model
    }

    /// The model, mutably: runtime parameters may change between steps.
    pub fn model_mut(&mut self) -> &mut Mdl {
        &mut self.model
    }

    /// The step size `h`.
    pub fn step_size(&self) -> T {
        self.h
    }

    /// Changes the step size for the following steps.
    pub fn set_step_size(&mut self, h: T) {
        self.h = h;
    }

    /// The Newton options.
    pub fn options(&self) -> &NewtonOptions<T> {
        &self.options.newton
    }

    /// The scheme value.
    pub fn scheme(&self) -> &S {
        &self.scheme
    }

    /// Dismantles the integrator into its model and state.
    pub fn into_parts(self) -> (Mdl, Mdl::State) {
        (self.model, self.state)
    }
}
