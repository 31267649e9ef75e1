//! The default options of the predicting stage families: Newton from the last step's
//! stage polynomial continued over the next interval, simplified within a step. They
//! save iterations and factorisations, not accuracy: the trajectory is the papers'
//! options', to Newton's tolerance. A step the workspace did not solve the step before
//! (a state set by hand, a new step size, after a failure) starts from the state, bit
//! for bit as a fresh integrator does. The fused kernels (`l_q_and_l_v`, `derivatives`)
//! are the separate kernels bit for bit, and so is the one pass over the stages that
//! makes a residual with a fresh Jacobian.
use livens::prelude::*;
use livens::schemes::{Converted, Forward, Rk4};
use livens::{ConvertedState, Guess, JacobianUpdate, PointKernels, SVector};
use livens_models::{AnglePendulum, FreeBodySo3};

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

/// `derivatives` at `(q, v)` is `l_q`, `l_v`, `l_qq`, `l_qv`, `l_vv` there, bit for bit,
/// and so is `l_q_and_l_v`.
fn fused_kernels_agree<Mdl: PointKernels<f64, D, Q>, const D: usize, const Q: usize>(
    model: &Mdl,
    q: &SVector<f64, Q>,
    v: &SVector<f64, D>,
) {
    let separate = (model.l_q(q, v), model.l_v(q, v));
    assert_eq!(model.l_q_and_l_v(q, v), separate);
    let (mut qq, mut qv, mut vv) = ([[0.0; D]; D], [[0.0; D]; D], [[0.0; D]; D]);
    model.l_qq(q, v, &mut qq);
    model.l_qv(q, v, &mut qv);
    model.l_vv(q, v, &mut vv);
    // Filled with garbage first: `derivatives` writes every entry.
    let mut fused = [[[f64::NAN; D]; D]; 3];
    let [a, b, c] = &mut fused;
    assert_eq!(model.derivatives(q, v, [a, b, c]), separate);
    assert_eq!(fused, [qq, qv, vv]);
}

#[test]
fn the_fused_kernels_are_the_separate_kernels_bit_for_bit() {
    let (angles, body) = (AnglePendulum::<f64>::new(), FreeBodySo3::<f64>::new());
    for k in 0..20 {
        let s = f64::from(k);
        let q = SVector::from([0.37 * s - 3.0, 1.3 - 0.21 * s]);
        let v = SVector::from([(0.5 * s).sin() * 4.0, 2.0 - 0.3 * s]);
        fused_kernels_agree(&angles, &q, &v);
        // A configuration on the group (a unit quaternion) and a body velocity.
        let axis = SVector::from([0.3 * s, 1.0 - 0.1 * s, 0.5]);
        let (half, axis) = (0.2 * s, axis.normalize());
        let q = SVector::from([half.cos(), 0.0, 0.0, 0.0]) + (axis * half.sin()).insert_row(0, 0.0);
        fused_kernels_agree(&body, &q, &(axis * (1.0 + s)));
    }
}

#[test]
fn a_residual_made_with_a_fresh_jacobian_is_the_residual_alone_bit_for_bit() {
    // One iteration, a tolerance every start meets: with `EveryIteration` its residual
    // comes from the pass that also assembles the Jacobian, with `Chord` from the
    // residual alone (the Jacobian from that pass): the same update, the same state.
    let once = |jacobian| NewtonOptions {
        tolerance: 1.0,
        max_iterations: 1,
        jacobian,
        ..NewtonOptions::default()
    };
    // Fresh integrators at each state: a residual near the last Jacobian's point
    // continues its `sin` and `cos` (`l_q_and_l_v_near`, tested below), equal to a few
    // units in the last place, not bit for bit.
    let mut state = *integrator(0.01).state();
    for _ in 0..20 {
        let mut fused = integrator(0.01).with_options(once(JacobianUpdate::EveryIteration));
        let mut alone = integrator(0.01).with_options(once(JacobianUpdate::Chord));
        fused.set_state(state);
        alone.set_state(state);
        let (a, b) = (fused.step().unwrap(), alone.step().unwrap());
        assert_eq!(a.iterations, 1);
        assert_eq!((fused.state(), a.residual), (alone.state(), b.residual));
        state = *fused.state();
    }
}

/// `derivatives_anchored` is `derivatives`, and anchors `[x, sin x, cos x]`; from them
/// `l_q_and_l_v_near` is `l_q_and_l_v` (and `derivatives_near` is `derivatives`) to a
/// few units in the last place near the point
/// (a Newton iterate moves a stage by about 1e-8), and bit for bit where a coordinate
/// moved further than `2⁻¹⁰` (evaluated, not continued).
#[test]
fn the_anchored_kernels_continue_sin_and_cos_to_round_off() {
    let model = AnglePendulum::<f64>::new();
    // `sin` and `cos` of the two angles and their difference, in the model's order.
    assert_eq!(<AnglePendulum<f64> as PointKernels<f64, 2>>::ANCHORS, 3);
    assert_eq!(<FreeBodySo3<f64> as PointKernels<f64, 3, 4>>::ANCHORS, 0);
    let mut largest = 0.0_f64;
    for k in 0..20 {
        let s = f64::from(k);
        let q = SVector::from([0.37 * s - 3.0, 1.3 - 0.21 * s]);
        let v = SVector::from([(0.5 * s).sin() * 4.0, 2.0 - 0.3 * s]);
        let ([mut a, mut b, mut c], mut d) = ([[[0.0; 2]; 2]; 3], [[[0.0; 2]; 2]; 3]);
        let mut anchors = [[f64::NAN; 3]; 4];
        let [e, f, g] = &mut d;
        let plain = model.derivatives(&q, &v, [&mut a, &mut b, &mut c]);
        assert_eq!(
            model.derivatives_anchored(&q, &v, [e, f, g], &mut anchors),
            plain
        );
        assert_eq!(d, [a, b, c]);
        for [x, sin, cos] in &anchors[..3] {
            assert_eq!((*sin, *cos), x.sin_cos());
        }
        assert!(
            anchors[3][0].is_nan(),
            "three anchors written, the fourth left"
        );
        let direction = SVector::from([0.6, -0.8]);
        for step in [0.0, 1e-14, 1e-8, 1e-5, 9e-4] {
            let (q, v) = (q + direction * step, v + direction * step);
            let (near, direct) = (
                model.l_q_and_l_v_near(&q, &v, &anchors),
                model.l_q_and_l_v(&q, &v),
            );
            let scale = 1.0 + direct.0.amax().max(direct.1.amax());
            let gap = (near.0 - direct.0).amax().max((near.1 - direct.1).amax()) / scale;
            largest = largest.max(gap);
            // All five derivatives, continued and evaluated.
            let ([mut a, mut b, mut c], mut d) = ([[[0.0; 2]; 2]; 3], [[[0.0; 2]; 2]; 3]);
            let [e, f, g] = &mut d;
            let near = model.derivatives_near(&q, &v, [e, f, g], &anchors);
            let direct = model.derivatives(&q, &v, [&mut a, &mut b, &mut c]);
            let evaluated = [a, b, c];
            let pairs = d
                .iter()
                .flatten()
                .flatten()
                .zip(evaluated.iter().flatten().flatten());
            let second = pairs.fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
            let gap = (near.0 - direct.0)
                .amax()
                .max((near.1 - direct.1).amax())
                .max(second);
            largest = largest.max(gap / scale);
        }
        let far = q + direction * 2e-3;
        let direct = model.l_q_and_l_v(&far, &v);
        assert_eq!(model.l_q_and_l_v_near(&far, &v, &anchors), direct);
        // Too few anchors: evaluated.
        assert_eq!(model.l_q_and_l_v_near(&far, &v, &anchors[..2]), direct);
    }
    // Measured: 4.0e-16 relative to the kernels' scale, 1.8 ε.
    assert!(largest <= 4.0 * f64::EPSILON, "{largest:e}");
    assert!(largest > 0.0, "continued, not evaluated");
}
