//! The default options of the predicting stage families: Newton from the last step's
//! stage polynomial continued over the next interval, simplified within a step. They
//! save iterations and factorisations, not accuracy: the trajectory is the papers'
//! options', to Newton's tolerance. A step the workspace did not solve the step before
//! (a state set by hand, a new step size, after a failure) starts from the state, bit
//! for bit as a fresh integrator does. The fused kernel `l_q_and_l_v` is the two
//! kernels bit for bit.
use livens::prelude::*;
use livens::schemes::{Converted, Forward, Rk4};
use livens::{ConvertedState, Guess, JacobianUpdate, PointKernels};
use livens_models::AnglePendulum;

type Scheme = LobattoIIIAIIIB<4>;

fn integrator(h: f64) -> Integrator<f64, AnglePendulum<f64>, Scheme> {
    let model = AnglePendulum::new();
    let start = PhaseState::from_node(&model.initial_state().expect("consistent"));
    Integrator::new(model, LobattoIIIAIIIB::<4>, h, start)
}

fn gap(a: &PhaseState<f64, 2>, b: &PhaseState<f64, 2>) -> f64 {
    (a.q - b.q).amax().max((a.p - b.p).amax())
}

#[test]
fn the_defaults_save_iterations_on_the_papers_trajectory() {
    // The family's defaults against the papers' options (the state's values, full
    // Newton): the same trajectory to Newton's tolerance.
    let papers = integrator(0.01)
        .with_guess(Guess::Previous)
        .with_options(NewtonOptions::default());
    let (mut predicted, mut simple) = (integrator(0.01), papers);
    let (mut with, mut without) = (0, 0);
    let (mut factored, mut largest) = (0, 0.0_f64);
    for _ in 0..200 {
        let report = predicted.step().expect("converges");
        (with, factored) = (with + report.iterations, factored + report.factorizations);
        without += simple.step().expect("converges").iterations;
        largest = largest.max(gap(predicted.state(), simple.state()));
    }
    // Measured: 471 iterations and 200 factorisations against 622 over the 200 steps
    // (h = 0.01, T = 2), the states at most 3.4e-14 apart (the chaotic pendulum amplifies
    // Newton's last digits).
    assert!(5 * with <= 4 * without, "{with} against {without}");
    assert!(2 * factored <= without, "{factored} against {without}");
    assert!(largest <= 1e-12, "{largest:e}");
}

/// The predicting families default to the predictor and simplified Newton; the others
/// keep the papers' options.
#[test]
fn each_family_has_its_defaults() {
    let pendulum = integrator(0.01);
    assert!(matches!(
        pendulum.options().jacobian,
        JacobianUpdate::Reuse { .. }
    ));
    let model = AnglePendulum::new();
    let start = ConvertedState::from_node(&model.initial_state().unwrap());
    let converted = Integrator::new(model, Converted::<Rk4, Forward>::default(), 0.01, start);
    assert_eq!(converted.options(), &NewtonOptions::default());
}

#[test]
fn a_step_the_workspace_did_not_precede_starts_from_the_state() {
    let mut reference = integrator(0.01);
    reference.run(7).expect("converges");
    let elsewhere = *reference.state();

    // A state set by hand: the next step is a fresh integrator's, bit for bit.
    let mut moved = integrator(0.01);
    moved.run(3).expect("converges");
    moved.set_state(elsewhere);
    let mut fresh = integrator(0.01);
    fresh.set_state(elsewhere);
    for _ in 0..3 {
        let (a, b) = (moved.step().unwrap(), fresh.step().unwrap());
        assert_eq!((moved.state(), a.iterations), (fresh.state(), b.iterations));
    }

    // A new step size: the polynomial of the old one is not continued.
    let mut resized = integrator(0.01);
    resized.run(7).expect("converges");
    resized.set_step_size(0.005);
    let mut fresh = integrator(0.005);
    fresh.set_state(elsewhere);
    let (a, b) = (resized.step().unwrap(), fresh.step().unwrap());
    assert_eq!(
        (resized.state(), a.iterations),
        (fresh.state(), b.iterations)
    );

    // A failed step (a budget of one iteration) forgets the step before it.
    let mut failed = integrator(0.01);
    failed.run(7).expect("converges");
    let options = *failed.options();
    failed
        .set_options(NewtonOptions {
            max_iterations: 1,
            ..options
        })
        .unwrap();
    assert!(failed.step().is_err());
    assert_eq!(failed.state(), &elsewhere, "a failed step keeps the state");
    failed.set_options(options).unwrap();
    let mut fresh = integrator(0.01);
    fresh.set_state(elsewhere);
    let (a, b) = (failed.step().unwrap(), fresh.step().unwrap());
    assert_eq!(
        (failed.state(), a.iterations),
        (fresh.state(), b.iterations)
    );
}

#[test]
fn the_fused_kernel_is_the_two_kernels_bit_for_bit() {
    let model = AnglePendulum::<f64>::new();
    for k in 0..20 {
        let s = f64::from(k);
        let q = SVector::from([0.37 * s - 3.0, 1.3 - 0.21 * s]);
        let v = SVector::from([(0.5 * s).sin() * 4.0, 2.0 - 0.3 * s]);
        let (l_q, l_v) = model.l_q_and_l_v(&q, &v);
        assert_eq!((l_q, l_v), (model.l_q(&q, &v), model.l_v(&q, &v)));
    }
}
