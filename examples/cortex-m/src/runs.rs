//! The runs: each steps a catalogue model, measures every step and checks its figures
//! against bounds. A failed step is reported and ends its run; nothing here panics.
use crate::control::{Controller, Lqr};
use crate::counter::{Counter, Meter};
use crate::scalar::Scalar;
use livens::prelude::*;
use livens_models::{CartPole, ForcedOscillator, Pendulum3d};

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
    Pendulum3d<T>: Step<T, GglEm, State = NodeState<T, 3, 1>> + Model<T, 3, 1>,
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
    Pendulum3d<T>: Step<T, GglEm, State = NodeState<T, 3, 1>>,
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

/// The spec's LQR gain on `z = (x, θ, p_x, p_θ)` for the cart-pole linearised with
/// `LobattoIIIAIIIB(2)` at `h = 0.01`, `Q = diag(10, 100, 1, 1)` on `(x, θ, ẋ, θ̇)`,
/// `R = 1` (`tests/stages/linearized.rs` checks it on the host to 1e-6).
const SPEC_GAIN: [f64; 4] = [-2.97019102, -38.0677867, 12.13688578, -350.43686742];

/// Bounds of a cart-pole run, per precision.
pub struct CartPoleBounds {
    /// On `max |K − K_spec| / max |K_spec|`.
    pub gain: f64,
    /// On `max |(x, θ, ẋ, θ̇)|` after 10 s.
    pub settled: f64,
}

/// Balancing the cart-pole on the core: the step linearised at the upright equilibrium
/// (`Integrator::linearize`), the LQR gain from the discrete Riccati equation
/// (`control::dlqr`), both computed here in `T`; then `steps` steps of the nonlinear
/// cart-pole with `LobattoIIIAIIIB(2)` at `h = 0.01` from `θ₀ = 0.2`, the controller
/// setting the push before each step. Measures the design and each control step.
pub fn cart_pole_lqr<T: Scalar>(
    counter: &Counter,
    report: &mut Report,
    steps: u32,
    bounds: &CartPoleBounds,
) -> Meter
where
    CartPole<T>: Linearize<
            T,
            LobattoIIIAIIIB<2>,
            State = PhaseState<T, 2>,
            Inputs = [T; 1],
            Linearized = livens::Linearized<PhaseState<T, 2>, T, 4, 1>,
        > + Model<T, 2, 0>,
{
    let name = T::NAME;
    let mut meter = Meter::default();
    let model = CartPole::<T>::default();
    let upright = PhaseState::from_velocities(&model, SVector::zeros(), SVector::zeros());
    let mut design = Integrator::new(model, LobattoIIIAIIIB::<2>, T::of(0.01), upright);
    let (linearized, linearize_cost) = counter.measure(|| design.linearize());
    let step = match linearized {
        Ok(step) => step,
        Err(e) => {
            report.check(
                false,
                format_args!("cart-pole {name}: linearize failed: {e:?}"),
            );
            return meter;
        }
    };
    // Weights on (x, θ, ẋ, θ̇), moved to z = (q, p) by T = diag(I, M*), M* the mass
    // matrix upright.
    let (mc, m, l) = (model.mc, model.m, model.l);
    let mut t = SMatrix::<T, 4, 4>::identity();
    t[(2, 2)] = mc + m;
    t[(2, 3)] = m * l;
    t[(3, 2)] = m * l;
    t[(3, 3)] = m * l * l;
    let Some(t_inv) = t.try_inverse() else {
        report.check(
            false,
            format_args!("cart-pole {name}: the mass matrix is singular"),
        );
        return meter;
    };
    let weights = SVector::<T, 4>::from([T::of(10.0), T::of(100.0), T::one(), T::one()]);
    let q = t_inv.transpose() * SMatrix::from_diagonal(&weights) * t_inv;
    let r = SMatrix::<T, 1, 1>::identity();
    // The Riccati iteration converges like ρ² ≈ 0.978 per step: to 1e-12 in f64, and in
    // f32 to its round-off.
    let tolerance = if T::NAME == "f64" {
        T::of(1e-12)
    } else {
        T::of(1e-6)
    };
    let (lqr, riccati_cost) =
        counter.measure(|| livens::control::dlqr(&step.a, &step.b, (&q, &r), tolerance, 5000));
    let lqr = match lqr {
        Ok(lqr) => lqr,
        Err(e) => {
            report.check(false, format_args!("cart-pole {name}: dlqr failed: {e}"));
            return meter;
        }
    };
    let mut gain_error = 0.0f64;
    for (k, spec) in lqr.k.iter().zip(SPEC_GAIN) {
        gain_error = worse(gain_error, ((*k).into() - spec).abs() / 350.43686742);
    }
    say!(
        "cart-pole {name}: linearize {linearize_cost} instructions, dlqr {riccati_cost} instructions ({} iterations); K = [{:.6e}, {:.6e}, {:.6e}, {:.6e}]",
        lqr.iterations, lqr.k[0], lqr.k[1], lqr.k[2], lqr.k[3]
    );
    report.check(
        gain_error <= bounds.gain,
        format_args!(
            "cart-pole {name}: the gain designed on the core is the spec's to {gain_error:.1e} (bound {:.0e})",
            bounds.gain
        ),
    );

    let theta0: f64 = 0.2;
    let start = PhaseState::from_velocities(
        &model,
        SVector::from([T::zero(), T::of(theta0)]),
        SVector::zeros(),
    );
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<2>, T::of(0.01), start);
    let mut controller = Lqr {
        k: lqr.k,
        max_push: 0.0,
        accepted: true,
    };
    let mut failure = None;
    for n in 0..steps {
        let (result, instructions) = counter.measure(|| {
            controller.before_step(&mut sim);
            sim.step()
        });
        if let Err(e) = result {
            failure = Some((n, e));
            break;
        }
        meter.add(instructions);
    }
    let s = sim.state();
    let settled = [s.q[0], s.q[1], s.v[0], s.v[1]]
        .iter()
        .fold(0.0f64, |m, x| worse(m, (*x).into().abs()));
    say!(
        "cart-pole LQR {name}: {steps} control steps of h = 0.01 from theta0 = {theta0}; max |u| = {:.3}; max |state(10)| = {settled:.2e}; {meter}",
        controller.max_push
    );
    match failure {
        None => report.check(
            controller.accepted,
            format_args!("cart-pole {name}: every step converged and every push was finite"),
        ),
        Some((n, e)) => report.check(
            false,
            format_args!("cart-pole {name}: step {n} failed, reported as {e:?}"),
        ),
    }
    report.check(
        settled <= bounds.settled,
        format_args!(
            "cart-pole {name}: balanced, max |state(10)| = {settled:.2e} (bound {:.0e})",
            bounds.settled
        ),
    );
    meter
}
