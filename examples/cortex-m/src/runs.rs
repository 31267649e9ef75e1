//! The runs: each steps a catalogue model, measures every step and checks its figures
//! against bounds. A failed step is reported and ends its run; nothing here panics.
use crate::control::Controller;
use crate::counter::{Counter, Meter};
use crate::scalar::Scalar;
use livens::prelude::*;
use livens_models::{ForcedOscillator, Pendulum3d};

/// Counts the checks and prints each with its outcome.
#[derive(Default)]
pub struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    /// Prints `what` as passed (`ok`) or `FAILED` and counts it.
    pub fn check(&mut self, ok: bool, what: core::fmt::Arguments) {
        if ok {
            self.passed += 1;
            say!("  ok     {}", what);
        } else {
            self.failed += 1;
            say!("  FAILED {}", what);
        }
    }

    /// Checks passed and failed.
    pub fn counts(&self) -> (u32, u32) {
        (self.passed, self.failed)
    }
}

/// The larger of `a` and `b`, NaN if either is: a NaN figure must fail its bound.
fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

/// Newton's iterations over a run.
#[derive(Default)]
struct Iterations {
    steps: u32,
    total: u32,
    max: u32,
}

impl Iterations {
    fn add(&mut self, n: u32) {
        self.steps += 1;
        self.total += n;
        self.max = self.max.max(n);
    }
}

impl core::fmt::Display for Iterations {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mean = f64::from(self.total) / f64::from(self.steps.max(1));
        write!(f, "Newton iterations max {} mean {:.2}", self.max, mean)
    }
}

/// Bounds of a pendulum run, per precision.
pub struct PendulumBounds {
    /// On the relative Hamiltonian drift `max |H − H⁰| / |H⁰|`.
    pub drift: f64,
    /// On the constraint residuals `max(|g|, |G M⁻¹ p|)`.
    pub constraint: f64,
}

/// The pendulum in 3D with the energy–momentum scheme GGL-EM, `steps` steps of the
/// paper's `h = 0.05` from the paper's initial state, Newton's budget `budget`
/// iterations. Checks that every step converges, the energy drift and both constraint
/// levels. Returns the per-step instruction counts.
pub fn pendulum_em<T: Scalar>(
    label: &str,
    counter: &Counter,
    report: &mut Report,
    controller: &mut impl Controller<Integrator<T, Pendulum3d<T>, GglEm>>,
    steps: u32,
    budget: u32,
    bounds: &PendulumBounds,
) -> Meter
where
    Pendulum3d<T>: Step<T, GglEm, State = GglState<T, 3, 1>> + Model<T, 3, 1>,
{
    let mut meter = Meter::default();
    let start = match Pendulum3d::new().initial_state() {
        Ok(state) => state.map(T::of),
        Err(e) => {
            report.check(false, format_args!("Pendulum3d initial state: {e:?}"));
            return meter;
        }
    };
    let options = NewtonOptions {
        max_iterations: budget,
        ..NewtonOptions::default()
    };
    let mut sim = Integrator::new(Pendulum3d::<T>::default(), GglEm, T::of(0.05), start)
        .with_options(options);
    let h0: f64 = Diagnostics::of(sim.model(), sim.state()).hamiltonian.into();
    let (mut drift, mut constraint) = (0.0f64, 0.0f64);
    let mut iterations = Iterations::default();
    let mut failure = None;
    for n in 0..steps {
        controller.before_step(&mut sim);
        let (result, instructions) = counter.measure(|| sim.step());
        match result {
            Ok(step) => iterations.add(step.iterations),
            Err(e) => {
                failure = Some((n, e));
                break;
            }
        }
        meter.add(instructions);
        let d = Diagnostics::of(sim.model(), sim.state());
        drift = worse(drift, ((d.hamiltonian.into() - h0) / h0).abs());
        constraint = worse(constraint, d.position_residual.into());
        constraint = worse(constraint, d.velocity_residual.into());
    }
    let name = T::NAME;
    say!(
        "{label} Pendulum3d GglEm {name}: {} of {steps} steps, h = 0.05, budget {budget} iterations; {iterations}; {meter}",
        iterations.steps
    );
    match failure {
        None => report.check(
            true,
            format_args!("{label} {name}: every step converged within {budget} iterations"),
        ),
        Some((n, e)) => report.check(
            false,
            format_args!("{label} {name}: step {n} failed, reported as {e:?}"),
        ),
    }
    report.check(
        drift <= bounds.drift,
        format_args!(
            "{label} {name}: energy drift max |H - H0|/|H0| = {drift:.2e} (bound {:.0e})",
            bounds.drift
        ),
    );
    report.check(
        constraint <= bounds.constraint,
        format_args!(
            "{label} {name}: constraints max(|g|, |G v|) = {constraint:.2e} (bound {:.0e})",
            bounds.constraint
        ),
    );
    meter
}

/// A Newton budget too small for the step (one iteration): the step must come back as
/// `SolveError::MaxIterations` with the state untouched, not panic and not move on.
pub fn budget_exceeded<T: Scalar>(report: &mut Report)
where
    Pendulum3d<T>: Step<T, GglEm, State = GglState<T, 3, 1>>,
{
    let name = T::NAME;
    let Ok(start) = Pendulum3d::new().initial_state() else {
        report.check(false, format_args!("Pendulum3d initial state"));
        return;
    };
    let start = start.map(T::of);
    let options = NewtonOptions {
        max_iterations: 1,
        ..NewtonOptions::default()
    };
    let mut sim = Integrator::new(Pendulum3d::<T>::default(), GglEm, T::of(0.05), start)
        .with_options(options);
    let result = sim.step();
    let kept = *sim.state() == start;
    let reported = matches!(result, Err(SolveError::MaxIterations { iterations: 1, .. }));
    report.check(
        reported && kept,
        format_args!(
            "real-time {name}, budget 1 iteration: the step reports {result:?}, state kept: {kept}"
        ),
    );
}

/// Bounds of a forced-oscillator run, per precision.
pub struct OscillatorBounds {
    /// On `max |x − x(t)|` against the closed-form solution.
    pub position: f64,
    /// On `max |p − m ẋ(t)|`.
    pub momentum: f64,
}

/// The forced, damped oscillator with Lobatto IIIA–IIIB, s = 2 (Störmer–Verlet with
/// the Lagrange–d'Alembert forces), `steps` steps of `h = 0.05` from `x = 1, ẋ = 0`,
/// each step's node compared with the closed-form solution.
pub fn oscillator_lobatto<T: Scalar>(
    counter: &Counter,
    report: &mut Report,
    controller: &mut impl Controller<Integrator<T, ForcedOscillator<T>, LobattoIIIAIIIB<2>>>,
    steps: u32,
    bounds: &OscillatorBounds,
) -> Meter
where
    ForcedOscillator<T>: Step<T, LobattoIIIAIIIB<2>, State = PhaseState<T, 1>> + PointKernels<T, 1>,
{
    let reference = ForcedOscillator::new();
    let (q0, v0) = ForcedOscillator::initial_positions_velocities();
    let model = ForcedOscillator::<T>::default();
    let start = PhaseState::from_velocities(&model, q0.map(T::of), v0.map(T::of));
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<2>, T::of(0.05), start);
    let mut meter = Meter::default();
    let (mut position, mut momentum) = (0.0f64, 0.0f64);
    let mut iterations = Iterations::default();
    let mut failure = None;
    for n in 0..steps {
        controller.before_step(&mut sim);
        let (result, instructions) = counter.measure(|| sim.step());
        match result {
            Ok(step) => iterations.add(step.iterations),
            Err(e) => {
                failure = Some((n, e));
                break;
            }
        }
        meter.add(instructions);
        let state = sim.state();
        let (x, v) = reference.exact(state.t.into(), q0[0], v0[0]);
        position = worse(position, (state.q[0].into() - x).abs());
        momentum = worse(momentum, (state.p[0].into() - reference.m * v).abs());
    }
    let name = T::NAME;
    say!(
        "ForcedOscillator LobattoIIIAIIIB(2) {name}: {} of {steps} steps, h = 0.05; {iterations}; {meter}",
        iterations.steps
    );
    match failure {
        None => report.check(true, format_args!("Lobatto {name}: every step converged")),
        Some((n, e)) => report.check(
            false,
            format_args!("Lobatto {name}: step {n} failed, reported as {e:?}"),
        ),
    }
    report.check(
        position <= bounds.position && momentum <= bounds.momentum,
        format_args!(
            "Lobatto {name}: against the exact solution max |x - x(t)| = {position:.2e} (bound {:.0e}), max |p - m v(t)| = {momentum:.2e} (bound {:.0e})",
            bounds.position, bounds.momentum
        ),
    );
    meter
}
