//! The converted variational integrators (seed 004) on models `model!` declares: the
//! acceleration and its derivatives from the emitted Euler–Lagrange kernels against
//! finite differences and the Euler–Lagrange equations, the spec's P1 calibrations
//! (`next_packages.md` §C.6, an independent prototype's figures) through the emitted
//! kernels, the catalogue's `Converted<L, B>` through the shared Newton driver (exact
//! Jacobian against finite differences, chord and Newton to the same node, orders on the
//! double pendulum against the Lobatto IIIA–IIIB family, the node momentum of a
//! rotation-invariant model kept to round-off, a failed solve reported).
use livens::families::converted::node_form::{self, Bias, Conversion, ConvertedOptions, Iteration};
use livens::families::converted::{standard, FromKernels, SecondOrderKernels};
use livens::prelude::*;
use livens::schemes::{
    Converted, ConvertedTableau, Euler, Forward, Kutta3, LobattoIIIAIIIB, Rk4, Symmetric,
};
use livens::solve::Inline;
use livens::tableaux::Tableau;
use livens::{ConvertedState, FromNode, JacobianUpdate, NewtonOptions};
use livens_models::AnglePendulum;
use num_dual::Dual64;

use crate::support::pendulum_reference::pendulum_reference;

livens::model! {
    /// P1 of spec `next_packages.md` §C.5: the pendulum in its angle.
    pub struct AnglePendulumP1 {
        params { g = 9.81 }
        coords { th: Scalar }
        lagrangian = 0.5 * th_dot * th_dot + g * cos(th);
        schemes { Converted(Euler, Forward), Converted(Rk4, Forward), ConvertedTableau }
    }
}

livens::model! {
    /// P2 of spec §C.5 with a magnetic term (still rotation invariant), so that
    /// `L_vq ≠ 0`: `L = ½|v|² + ε (x ẏ − y ẋ) − ¼|q|⁴ − ½|q|²`.
    pub struct MagneticCentral {
        params { eps = 0.3 }
        coords { x: Scalar, y: Scalar }
        lagrangian = 0.5 * (x_dot * x_dot + y_dot * y_dot) + eps * (x * y_dot - y * x_dot)
            - 0.25 * (x * x + y * y) * (x * x + y * y) - 0.5 * (x * x + y * y);
        schemes { Converted(Rk4, Forward) }
    }
}

/// `x + dx ε`.
fn lift(x: &SVector<f64, 2>, dx: &SVector<f64, 2>) -> SVector<Dual64, 2> {
    SVector::from_fn(|i, _| Dual64::new(x[i], dx[i]))
}

/// A point of the double pendulum away from every symmetry.
fn point() -> (SVector<f64, 2>, SVector<f64, 2>) {
    (SVector::from([0.7, -1.9]), SVector::from([1.3, -0.6]))
}

#[test]
fn the_emitted_acceleration_solves_the_euler_lagrange_equations() {
    // d/dt L_v(q, v) = L_q(q, v) along q̇ = v, v̇ = A: a central difference in time of
    // the model's own ∂L/∂v, which never reads the emitted kernels.
    let model = AnglePendulum::new();
    let (q, v) = point();
    let a = FromKernels(&model).acceleration(&q, &v);
    let dt = 1e-6;
    let ahead = model.dl_dv(&(q + v * dt), &(v + a * dt));
    let behind = model.dl_dv(&(q - v * dt), &(v - a * dt));
    let rate = (ahead - behind) / (2.0 * dt);
    let gap = (rate - model.dl_dq(&q, &v)).amax();
    assert!(gap < 1e-7, "d/dt L_v − L_q = {gap}");
}

#[test]
fn the_emitted_derivatives_match_finite_differences() {
    // A_q, A_v against differences of A; their derivative along (dq, dv) (the fourth
    // derivatives of L) against differences of A_q, A_v.
    let pendulum = AnglePendulum::new();
    let model = FromKernels(&pendulum);
    let (q, v) = point();
    let (dq, dv) = (SVector::from([0.3, 0.5]), SVector::from([-0.2, 0.4]));
    let e = 1e-6;
    let acc = |q: &SVector<f64, 2>, v: &SVector<f64, 2>| model.acceleration(q, v);
    let (a_q, a_v) = model.acceleration_jacobians(&q, &v);
    let along_q = (acc(&(q + dq * e), &v) - acc(&(q - dq * e), &v)) / (2.0 * e);
    let along_v = (acc(&q, &(v + dv * e)) - acc(&q, &(v - dv * e))) / (2.0 * e);
    assert!((along_q - a_q * dq).amax() < 1e-7, "A_q");
    assert!((along_v - a_v * dv).amax() < 1e-7, "A_v");
    let ahead = model.acceleration_jacobians(&(q + dq * e), &(v + dv * e));
    let behind = model.acceleration_jacobians(&(q - dq * e), &(v - dv * e));
    let (a_q_tangent, a_v_tangent) = model.acceleration_second(&q, &v, &dq, &dv);
    let gaps = [
        ((ahead.0 - behind.0) / (2.0 * e) - a_q_tangent).amax(),
        ((ahead.1 - behind.1) / (2.0 * e) - a_v_tangent).amax(),
    ];
    assert!(gaps.iter().all(|&g| g < 1e-6), "A_q′, A_v′: {gaps:?}");
}

#[test]
fn the_emitted_derivatives_match_dual_numbers() {
    // The same generic code run on dual numbers differentiates A exactly: its ε parts
    // against the emitted third derivatives (A_q, A_v), and those of A_q, A_v along
    // (dq, dv) against the emitted fourth derivatives.
    let (real, dual) = (AnglePendulum::new(), AnglePendulum::<Dual64>::default());
    let (real, dual) = (FromKernels(&real), FromKernels(&dual));
    let (q, v) = point();
    let zero = SVector::<f64, 2>::zeros();
    let (a_q, a_v) = real.acceleration_jacobians(&q, &v);
    let mut worst = 0.0f64;
    for k in 0..2 {
        let unit = SVector::<f64, 2>::from_fn(|i, _| if i == k { 1.0 } else { 0.0 });
        let by_q = dual.acceleration(&lift(&q, &unit), &lift(&v, &zero));
        let by_v = dual.acceleration(&lift(&q, &zero), &lift(&v, &unit));
        for i in 0..2 {
            worst = worst
                .max((by_q[i].eps - a_q[(i, k)]).abs())
                .max((by_v[i].eps - a_v[(i, k)]).abs());
        }
    }
    assert!(worst < 1e-12, "A_q, A_v against dual numbers: {worst}");
    let (dq, dv) = (SVector::from([0.3, 0.5]), SVector::from([-0.2, 0.4]));
    let (a_q_dual, a_v_dual) = dual.acceleration_jacobians(&lift(&q, &dq), &lift(&v, &dv));
    let (a_q_tangent, a_v_tangent) = real.acceleration_second(&q, &v, &dq, &dv);
    let gap = (a_q_dual.map(|x| x.eps) - a_q_tangent)
        .amax()
        .max((a_v_dual.map(|x| x.eps) - a_v_tangent).amax());
    assert!(gap < 1e-11, "A_q′, A_v′ against dual numbers: {gap}");
}

#[test]
fn the_standard_layers_derivatives_match_dual_numbers() {
    // DR^q_t and DR^S_t (the tableau run on the variational equations) against the
    // standard layer itself run on dual numbers, one coordinate direction of w = (q, v)
    // at a time, for RK4 over t = ±0.1 (both biases' end maps), on the double pendulum.
    let (real, dual) = (AnglePendulum::new(), AnglePendulum::<Dual64>::default());
    let (real, dual) = (FromKernels(&real), FromKernels(&dual));
    let (q, v) = point();
    let zero = SVector::<f64, 2>::zeros();
    let tableau = Tableau::rk4();
    let mut worst = 0.0f64;
    for t in [0.1, -0.1] {
        let exact = standard::flow(&real, &tableau, t, &q, &v);
        for k in 0..4 {
            let unit = SVector::<f64, 2>::from_fn(|i, _| if i == k % 2 { 1.0 } else { 0.0 });
            let (dq, dv) = if k < 2 { (unit, zero) } else { (zero, unit) };
            let lifted = standard::flow(
                &dual,
                &tableau,
                Dual64::from(t),
                &lift(&q, &dq),
                &lift(&v, &dv),
            );
            let (column, action) = if k < 2 {
                (exact.q_q.column(k % 2).into_owned(), exact.action_q[k % 2])
            } else {
                (exact.q_v.column(k % 2).into_owned(), exact.action_v[k % 2])
            };
            worst = worst
                .max((lifted.q.map(|x| x.eps) - column).amax())
                .max((lifted.action.eps - action).abs());
        }
    }
    assert!(worst < 1e-12, "DR^q, DR^S against dual numbers: {worst}");
}

#[test]
fn p1_calibrations_through_the_emitted_kernels() {
    // Spec §C.6, errors at h = 0.05 as w / node q / node p, the prototype's start:
    // w₀ = (q(0), v(0)) for the forward bias, the exact solution at h/2 for the
    // symmetric one, p₀ = −D₁L_d(w₀). The largest errors over [0, 2].
    let pendulum = AnglePendulumP1::new();
    let model = FromKernels(&pendulum);
    let h = 0.05;
    let options = ConvertedOptions {
        tolerance: 1e-14,
        max_iterations: 200,
        iteration: Iteration::Newton,
    };
    let run = |scheme: &Conversion<4>| {
        let (alpha_minus, _) = scheme.bias.alphas();
        let (q, v) = pendulum_reference(1.0, 0.0, -alpha_minus * h);
        let (wq, wv) = (SVector::from([q]), SVector::from([v]));
        let mut state = node_form::from_segment(&model, scheme, h, &wq, &wv).expect("starts");
        // The exact solution at the nodes t_k and at the segments' times t_k − α⁻h.
        let (mut node, mut segment) = ((1.0, 0.0), (q, v));
        let mut worst = [0.0f64; 3];
        for _ in 0..40 {
            let x_error = (state.x[0] - node.0).abs();
            let p_error = (state.p[0] - node.1).abs();
            let next = node_form::step(&model, scheme, h, &state, &options)
                .expect("converges")
                .0;
            // `next` carries w_k, the segment of the step from node k.
            let w_error = (next.q[0] - segment.0)
                .abs()
                .max((next.v[0] - segment.1).abs());
            for (w, e) in worst.iter_mut().zip([w_error, x_error, p_error]) {
                *w = w.max(e);
            }
            state = next;
            node = pendulum_reference(node.0, node.1, h);
            segment = pendulum_reference(segment.0, segment.1, h);
        }
        worst
    };
    let calibrations: [(&str, Conversion<4>, [f64; 3]); 3] = [
        (
            "RK4 (0, 1)",
            Conversion {
                tableau: Tableau::rk4().padded(),
                bias: Bias::Forward,
            },
            [6.44e-5, 2.22e-5, 7.32e-5],
        ),
        (
            "Kutta-3 (−½, ½)",
            Conversion {
                tableau: Tableau::kutta3().padded(),
                bias: Bias::Symmetric,
            },
            [5.68e-6, 1.79e-6, 5.89e-6],
        ),
        (
            "Euler (0, 1)",
            Conversion {
                tableau: Tableau::euler().padded(),
                bias: Bias::Forward,
            },
            [7.43e-2, 7.43e-2, 4.13e-1],
        ),
    ];
    for (name, scheme, expected) in calibrations {
        let errors = run(&scheme);
        println!("{name}: {errors:?} (spec {expected:?})");
        for (got, want) in errors.iter().zip(expected) {
            assert!(
                (got - want).abs() <= 0.006 * want,
                "{name}: {errors:?} against the spec's {expected:?}"
            );
        }
    }
}

/// Newton options with a Jacobian policy.
fn newton(jacobian: JacobianUpdate) -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-12,
        max_iterations: 100,
        divergence: None,
        jacobian,
    }
}

/// The double pendulum's start as a converted scheme's state.
fn start() -> ConvertedState<f64, 2> {
    let model = AnglePendulum::new();
    FromNode::from_node(&model.initial_state().expect("a consistent start"))
}

#[test]
fn the_step_jacobian_matches_finite_differences() {
    // Step::equations' exact Jacobian (the second-order variational equations, the
    // emitted fourth derivatives) against central differences of its residual.
    let model = AnglePendulum::new();
    let scheme = Converted::<Kutta3, Symmetric>::default();
    let state = ConvertedState {
        v: SVector::from([0.4, -0.7]),
        ..start()
    };
    let context = StepContext {
        h: 0.05,
        t: 0.0,
        inputs: &[],
    };
    let mut ws = Step::<f64, Converted<Kutta3, Symmetric>>::workspace::<Inline>(&model, &scheme);
    let x: Vec<f64> = vec![1.95, 2.52, 0.35, -0.68, 0.05, -0.1];
    let (mut r, mut jac) = (vec![0.0; 6], vec![0.0; 36]);
    model
        .equations(&scheme, context, &state, &mut ws, &x, &mut r, &mut jac)
        .expect("sizes");
    let e = 1e-6;
    let mut worst = 0.0f64;
    for j in 0..6 {
        let (mut ahead, mut behind) = (x.clone(), x.clone());
        ahead[j] += e;
        behind[j] -= e;
        let (mut ra, mut rb, mut scratch) = (vec![0.0; 6], vec![0.0; 6], vec![0.0; 36]);
        model
            .equations(
                &scheme,
                context,
                &state,
                &mut ws,
                &ahead,
                &mut ra,
                &mut scratch,
            )
            .expect("sizes");
        model
            .equations(
                &scheme,
                context,
                &state,
                &mut ws,
                &behind,
                &mut rb,
                &mut scratch,
            )
            .expect("sizes");
        for i in 0..6 {
            let difference = (ra[i] - rb[i]) / (2.0 * e);
            worst = worst.max((difference - jac[j * 6 + i]).abs());
        }
    }
    assert!(worst < 1e-7, "Jacobian against differences: {worst}");
}

#[test]
fn chord_and_newton_reach_the_same_node() {
    // The paper's chord iteration (JacobianUpdate::Chord: the approximate A₀) and
    // Newton with the exact Jacobian solve the same equations: the same node to
    // round-off, Newton in fewer iterations.
    let run = |jacobian| {
        let mut sim = Integrator::new(
            AnglePendulum::new(),
            Converted::<Rk4, Forward>::default(),
            0.01,
            start(),
        )
        .with_options(newton(jacobian));
        let mut iterations = 0;
        for _ in 0..100 {
            iterations += sim.step().expect("converges").iterations;
        }
        (*sim.state(), iterations)
    };
    let (exact, exact_iterations) = run(JacobianUpdate::EveryIteration);
    let (chord, chord_iterations) = run(JacobianUpdate::Chord);
    println!("iterations over 100 steps: Newton {exact_iterations}, chord {chord_iterations}");
    assert!(
        (exact.x - chord.x).amax() < 1e-10,
        "{exact:?} against {chord:?}"
    );
    assert!(
        (exact.p - chord.p).amax() < 1e-10,
        "{exact:?} against {chord:?}"
    );
    assert!(exact_iterations < chord_iterations);
}

/// The double pendulum's node `(x, p)` at `t_end` by the scheme `S` with step `h`.
fn node_at<S>(scheme: S, h: f64, t_end: f64) -> (SVector<f64, 2>, SVector<f64, 2>)
where
    S: Clone + std::fmt::Debug + 'static,
    AnglePendulum<f64>: Step<f64, S>,
    <AnglePendulum<f64> as Step<f64, S>>::State: NodeValues<f64, 2> + FromNode<f64, 2, 0>,
{
    let model = AnglePendulum::new();
    let node = model.initial_state().expect("a consistent start");
    let mut sim = Integrator::new(model, scheme, h, FromNode::from_node(&node))
        .with_options(newton(JacobianUpdate::EveryIteration));
    sim.run((t_end / h).round() as usize).expect("converges");
    (*sim.state().positions(), *sim.state().momenta())
}

#[test]
fn orders_on_the_double_pendulum() {
    // Against the Lobatto IIIA–IIIB family (order 6 at s = 4) at a much smaller step:
    // the scheme under test is not its own reference. T = 1.
    let t_end = 1.0;
    let reference = node_at(LobattoIIIAIIIB::<4>, 0.0025, t_end);
    let error = |node: (SVector<f64, 2>, SVector<f64, 2>)| {
        (node.0 - reference.0)
            .amax()
            .max((node.1 - reference.1).amax())
    };
    let hs: [f64; 2] = [0.01, 0.005];
    let rate = |errors: [f64; 2]| (errors[0] / errors[1]).log2() / (hs[0] / hs[1]).log2();
    let forward = hs.map(|h| error(node_at(Converted::<Rk4, Forward>::default(), h, t_end)));
    let symmetric = hs.map(|h| error(node_at(Converted::<Kutta3, Symmetric>::default(), h, t_end)));
    println!("RK4 (0, 1): errors {forward:?}, order {:.2}", rate(forward));
    println!(
        "Kutta-3 (−½, ½): errors {symmetric:?}, order {:.2}",
        rate(symmetric)
    );
    for (name, errors) in [("RK4 (0, 1)", forward), ("Kutta-3 (−½, ½)", symmetric)] {
        let order = rate(errors);
        assert!(
            (order - 4.0).abs() < 0.2,
            "{name}: order {order} ({errors:?})"
        );
    }
    // The catalogue states what was measured.
    assert_eq!(<Converted<Rk4, Forward>>::ORDER.q, 4);
    assert_eq!(<Converted<Kutta3, Symmetric>>::ORDER.q, 4);
    assert_eq!(<Converted<Euler, Forward>>::ORDER.q, 1);
    assert_eq!(<Converted<Euler, Symmetric>>::ORDER.q, 2);
}

#[test]
fn the_node_momentum_of_a_rotation_invariant_model_is_kept() {
    // Spec §C.6 (P2): the node's x × p is conserved to round-off, the segment's q × v
    // is not the conserved quantity (it drifts).
    let model = MagneticCentral::new();
    let q = SVector::from([1.0, 0.0]);
    let v = SVector::from([0.0, 0.7]);
    let state = ConvertedState {
        t: 0.0,
        x: q,
        p: model.dl_dv(&q, &v),
        q,
        v,
    };
    let mut sim = Integrator::new(model, Converted::<Rk4, Forward>::default(), 0.2, state)
        .with_options(newton(JacobianUpdate::EveryIteration));
    let cross = |a: &SVector<f64, 2>, b: &SVector<f64, 2>| a[0] * b[1] - a[1] * b[0];
    let node_start = cross(&sim.state().x, &sim.state().p);
    let (mut node_drift, mut segment_drift) = (0.0f64, 0.0f64);
    let mut segment_start = None;
    for _ in 0..200 {
        sim.step().expect("converges");
        let s = sim.state();
        node_drift = node_drift.max((cross(&s.x, &s.p) - node_start).abs());
        let segment = cross(&s.q, &s.v);
        let first = *segment_start.get_or_insert(segment);
        segment_drift = segment_drift.max((segment - first).abs());
    }
    println!("node x × p drift {node_drift:.1e}, segment q × v drift {segment_drift:.1e}");
    assert!(node_drift < 1e-12, "x × p drifts by {node_drift}");
    assert!(segment_drift > 1e-7, "q × v drifts by {segment_drift}");
}

#[test]
fn a_failed_solve_is_an_error_and_keeps_the_state() {
    let mut sim = Integrator::new(
        AnglePendulum::new(),
        Converted::<Rk4, Forward>::default(),
        0.01,
        start(),
    )
    .with_options(NewtonOptions {
        max_iterations: 1,
        ..newton(JacobianUpdate::EveryIteration)
    });
    let before = *sim.state();
    assert!(
        sim.step().is_err(),
        "one iteration cannot converge from rest"
    );
    assert_eq!(*sim.state(), before);
    let mut sim = Integrator::new(
        AnglePendulum::new(),
        Converted::<Rk4, Forward>::default(),
        f64::NAN,
        start(),
    );
    assert!(matches!(
        sim.step(),
        Err(livens::SolveError::InvalidStepSize { .. })
    ));
}

/// P1 from `(1, 0)` by the scheme `S` with step `h` for `steps` steps: the last node and
/// the largest node error `max(|x − q(t)|, |p − v(t)|)` against the reference.
fn p1_run<S>(scheme: S, h: f64, steps: usize) -> (ConvertedState<f64, 1>, f64)
where
    S: Clone + std::fmt::Debug + 'static,
    AnglePendulumP1<f64>: Step<f64, S, State = ConvertedState<f64, 1>>,
{
    let model = AnglePendulumP1::new();
    let node = NodeState::consistent(
        &model,
        SVector::from([1.0]),
        SVector::from([0.0]),
        livens::Consistency::Reject { tolerance: 0.0 },
    )
    .expect("unconstrained");
    let mut sim = Integrator::new(model, scheme, h, FromNode::from_node(&node))
        .with_options(newton(JacobianUpdate::EveryIteration));
    let (mut exact, mut worst) = ((1.0, 0.0), 0.0f64);
    for _ in 0..steps {
        sim.step().expect("converges");
        exact = pendulum_reference(exact.0, exact.1, h);
        let s = sim.state();
        worst = worst.max((s.x[0] - exact.0).abs().max((s.p[0] - exact.1).abs()));
    }
    (*sim.state(), worst)
}

#[test]
fn a_tableau_given_as_data_runs_in_the_catalogue() {
    // The default, RK4 given as data, is Converted<Rk4, Forward> to round-off.
    let (data, _) = p1_run(ConvertedTableau::default(), 0.05, 40);
    let (built_in, _) = p1_run(Converted::<Rk4, Forward>::default(), 0.05, 40);
    assert!((data.x - built_in.x).amax() < 1e-14 && (data.p - built_in.p).amax() < 1e-14);
    // Ralston's third-order method, which the catalogue does not name: the order it
    // states is the order measured against the reference, with both biases.
    let ralston = Tableau {
        a: [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.75, 0.0]],
        b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0],
        c: [0.0, 0.5, 0.75],
    };
    for (bias, h) in [(Bias::Forward, 0.0125f64), (Bias::Symmetric, 0.05)] {
        let scheme = ConvertedTableau::new(ralston, bias, 3).expect("order 3");
        let steps = (2.0 / h).round() as usize;
        let (_, coarse) = p1_run(scheme, h, steps);
        let (_, fine) = p1_run(scheme, h / 2.0, 2 * steps);
        let rate = (coarse / fine).log2();
        println!(
            "Ralston-3 {bias:?}: order {rate:.2}, stated {}",
            scheme.order()
        );
        assert!(
            (rate - scheme.order() as f64).abs() < 0.3,
            "{bias:?}: {rate}"
        );
    }
    // A tableau that fails the order it claims never reaches a step.
    let heun_as_third = ConvertedTableau::new(Tableau::heun2(), Bias::Forward, 3);
    assert!(matches!(
        heun_as_third,
        Err(livens::tableaux::LayerError::Order {
            claimed: 3,
            order: 2,
            ..
        })
    ));
}
