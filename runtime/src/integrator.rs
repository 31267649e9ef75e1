//! The step loop: one Newton solve of a scheme's step equations per time step.
use crate::error::SolveError;
use crate::model::{Discretization, Real, SchemeInfo};
use crate::newton::{self, NewtonOptions, StepReport};
use crate::state::State;

/// Newton's starting point for the unknowns of a step (spec 000 §3, Table 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Guess {
    /// The known values at `tⁿ` ("simple guess"; the paper's default).
    #[default]
    Previous,
    /// The known values, with the new positions extrapolated as `qⁿ + h vⁿ` ("advanced
    /// guess"; it saves about one Newton iteration per step).
    Extrapolated,
}

/// Advances a model with scheme `S` at a fixed step size.
///
/// `D`, `M` and `N` are inferred from the model's unique
/// [`Discretization`] impl for the scheme:
///
/// ```text
/// let mut integrator = Integrator::new(pendulum, GglEm, 0.05, state);
/// integrator.step()?;
/// ```
///
/// Stepping allocates nothing: the unknowns, residual, Jacobian and its LU live on the
/// stack.
#[derive(Clone, Debug)]
pub struct Integrator<T: Real, Mdl, S, const D: usize, const M: usize, const N: usize> {
    model: Mdl,
    h: T,
    state: State<T, D, M>,
    options: NewtonOptions<T>,
    scheme: S,
    guess: Guess,
}

impl<T, Mdl, S, const D: usize, const M: usize, const N: usize> Integrator<T, Mdl, S, D, M, N>
where
    T: Real,
    Mdl: Discretization<T, S, D, M, N>,
    S: SchemeInfo,
{
    /// An integrator at `state` with step size `h` and the default Newton options
    /// (tolerance `1e-9`, 40 iterations).
    ///
    /// `state` should be consistent (see [`State::consistent`]). The step size is not
    /// validated: a non-finite `h` shows up as a failed step, while a negative `h`
    /// integrates backwards in time (the schemes are defined for either sign).
    pub fn new(model: Mdl, scheme: S, h: T, state: State<T, D, M>) -> Self {
        Self {
            model,
            h,
            state,
            options: NewtonOptions::default(),
            scheme,
            guess: Guess::Previous,
        }
    }

    /// Replaces the choice of Newton's starting point.
    #[must_use]
    pub fn with_guess(mut self, guess: Guess) -> Self {
        self.guess = guess;
        self
    }

    /// Replaces the Newton options.
    #[must_use]
    pub fn with_options(mut self, options: NewtonOptions<T>) -> Self {
        self.options = options;
        self
    }

    /// Advances the state by one step of size `h`.
    ///
    /// Newton starts from [`Discretization::initial_guess`] and solves on a scratch
    /// copy of the unknowns. On success the state becomes
    /// [`Discretization::accept`] of the solution. On error the state is untouched —
    /// bit for bit what it was before the call — so the caller can retry with a
    /// smaller step size or other options.
    pub fn step(&mut self) -> Result<StepReport<T>, SolveError<T>> {
        let h = self.h;
        let model = &self.model;
        let (known, scheme) = (&self.state, &self.scheme);
        let mut x = model.initial_guess(scheme, h, known);
        if self.guess == Guess::Extrapolated {
            // The first D unknowns are the new positions (a contract of Discretization).
            for (xi, &vi) in x.iter_mut().zip(known.v.iter()) {
                *xi += h * vi;
            }
        }
        let report = newton::solve(&mut x, &self.options, |x, r, jac| {
            model.residual_and_jacobian(scheme, h, known, x, r, jac)
        })?;
        self.state = model.accept(scheme, h, known, &x);
        Ok(report)
    }

    /// Takes up to `steps` steps, stopping at the first failure; the state is then the
    /// one after the last successful step (its `t` tells how far the run got).
    /// Returns the total number of Newton iterations on success.
    pub fn run(&mut self, steps: usize) -> Result<u64, SolveError<T>> {
        let mut iterations: u64 = 0;
        for _ in 0..steps {
            iterations = iterations.saturating_add(u64::from(self.step()?.iterations));
        }
        Ok(iterations)
    }

    /// The current state.
    pub fn state(&self) -> &State<T, D, M> {
        &self.state
    }

    /// Replaces the state, e.g. to restart from a new consistent initial state.
    pub fn set_state(&mut self, state: State<T, D, M>) {
        self.state = state;
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
        &self.options
    }

    /// The scheme marker.
    pub fn scheme(&self) -> &S {
        &self.scheme
    }

    /// Dismantles the integrator into its model and state.
    pub fn into_parts(self) -> (Mdl, State<T, D, M>) {
        (self.model, self.state)
    }
}
