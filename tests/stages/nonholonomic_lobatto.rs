//! The nonholonomic Lobatto IIIA–IIIB method (spec 002 S4) as the paper defines it, its
//! multiplier carried (`NonholonomicLobattoCarried`), against spec 002 §6 D on the
//! nonholonomic particle in a harmonic potential (§5.1, the re-implementation's data):
//! orders `2s − 2` in `q` and `p` and `2, 2, 4` in `λ` for s = 2, 3, 4 with the spec's
//! recomputed errors, the constraint at every node, `λ` fed forward (and the orders lost
//! when the first `λ` is zero instead of the continuous one), time symmetry.
use livens::families::prk_nonholonomic::{self, PrkNonholonomicWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens_models::Chaotic;

livens::model! {
    /// The nonholonomic particle in a harmonic potential (spec 002 §5.1).
    pub struct Particle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic { phi: z_dot - y * x_dot }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4),
            NonholonomicLobatto(5), NonholonomicLobattoCarried(2), NonholonomicLobattoCarried(3),
            NonholonomicLobattoCarried(4), NonholonomicLobattoCarried(5)
        }
    }
}

/// Spec 002 §6 D: `q⁰ = (0.5, 0.3, 0)`, `v⁰ = (0.2, 0.4, 0.06)`, `T = 2`.
const T: f64 = 2.0;

type State = NonholonomicState<f64, 3, 1>;

fn initial() -> State {
    let (q, v) = (
        SVector::from([0.5, 0.3, 0.0]),
        SVector::from([0.2, 0.4, 0.06]),
    );
    NonholonomicState::from_velocities(&Particle::new(), q, v)
}

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    }
}

/// The state at `T` after `steps` steps from `start`, and the largest `|Φ(q, v)|` at
/// the nodes.
fn run<const S: usize>(start: State, steps: u32) -> (State, f64)
where
    Particle<f64>: Step<f64, NonholonomicLobattoCarried<S>, State = State>,
{
    let model = Particle::new();
    let h = T / f64::from(steps);
    let scheme = NonholonomicLobattoCarried::<S>;
    let mut sim = Integrator::new(model, scheme, h, start).with_options(tight());
    let mut phi: f64 = 0.0;
    for _ in 0..steps {
        sim.step().expect("Newton converges");
        let s = sim.state();
        phi = phi.max(model.nonholonomic(&s.q, &s.v)[0].abs());
    }
    (*sim.state(), phi)
}

/// `(|Δq|, |Δp|, |Δλ|)` at `T` against the four-stage method at `h = T/2048` (its
/// errors below 1e-14), at three step counts doubling from `n0`, and the observed
/// orders; `Φ` at every node within ten times Newton's tolerance.
fn errors<const S: usize>(
    reference: &State,
    start: State,
    n0: u32,
) -> ([[f64; 3]; 3], [[f64; 3]; 2])
where
    Particle<f64>: Step<f64, NonholonomicLobattoCarried<S>, State = State>,
{
    let errors = [n0, 2 * n0, 4 * n0].map(|n| {
        let (s, phi) = run::<S>(start, n);
        assert!(phi <= 1e-13, "s = {S}, T/{n}: max |Φ| = {phi:e}");
        let dl = (s.lambda.expect("fed forward") - reference.lambda.expect("fed forward")).norm();
        let e = [(s.q - reference.q).norm(), (s.p - reference.p).norm(), dl];
        println!(
            "s = {S}, T/{n}: |Δq| {:.3e}, |Δp| {:.3e}, |Δλ| {:.3e}",
            e[0], e[1], e[2]
        );
        e
    });
    let slopes = [0, 1].map(|k| core::array::from_fn(|c| (errors[k][c] / errors[k + 1][c]).log2()));
    println!(
        "s = {S}: orders (q, p, λ) {:.2?} then {:.2?}",
        slopes[0], slopes[1]
    );
    (errors, slopes)
}

fn reference() -> State {
    run::<4>(initial(), 2048).0
}

/// Spec 002 §6 D items 6–7: orders and the recomputed errors.
#[test]
fn orders_and_the_specs_errors() {
    let reference = reference();
    let close = |got: f64, want: f64| {
        assert!(
            (got / want - 1.0).abs() < 0.02,
            "{got:.3e}, spec {want:.2e}"
        );
    };
    let expect = |slopes: [[f64; 3]; 2], want: [f64; 3]| {
        for row in slopes {
            for (got, want) in row.into_iter().zip(want) {
                assert!((got - want).abs() < 0.3, "order {got:.2}, expected {want}");
            }
        }
    };
    let (e, slopes) = errors::<2>(&reference, initial(), 64);
    expect(slopes, [2.0, 2.0, 2.0]);
    close(e[2][0], 1.94e-6);
    close(e[2][1], 4.24e-6);
    close(e[2][2], 4.56e-6);
    let (e, slopes) = errors::<3>(&reference, initial(), 16);
    expect(slopes, [4.0, 4.0, 2.0]);
    close(e[2][0], 9.79e-10);
    close(e[2][1], 1.09e-9);
    close(e[2][2], 2.57e-5);
    let (e, slopes) = errors::<4>(&reference, initial(), 8);
    expect(slopes, [6.0, 6.0, 4.0]);
    close(e[2][0], 1.93e-12);
    close(e[2][2], 9.52e-8);
}

/// Five stages: `q` and `p` of order 8, `λ` of order 4, each the least-squares slope
/// over `T/4, T/8, T/16` (at `T/16` `q` is at 3e-14, near round-off, and the first
/// halving is not yet asymptotic for `p`: 8.32 then 7.84).
#[test]
fn five_stages() {
    let reference = reference();
    let (e, _) = errors::<5>(&reference, initial(), 4);
    for (c, want) in [8.0, 8.0, 4.0].into_iter().enumerate() {
        let got = (e[0][c] / e[2][c]).log2() / 2.0;
        assert!((got - want).abs() < 0.3, "order {got:.2}, expected {want}");
    }
}

/// Spec 002 §6 D item 8: started from `λ₀ = 0` instead of the continuous multiplier,
/// `λ` does not converge (its error stays near 6.5e-2) and `q` loses its order (2 for
/// s = 3, 4 for s = 4).
#[test]
fn a_zero_first_multiplier_costs_the_orders() {
    let reference = reference();
    let zero = State {
        lambda: Some(SVector::zeros()),
        ..initial()
    };
    let (e, slopes) = errors::<3>(&reference, zero, 16);
    for row in e {
        assert!((row[2] - 6.5e-2).abs() < 1e-2, "|Δλ| {:.3e}", row[2]);
    }
    assert!(
        (slopes[1][0] - 2.0).abs() < 0.3,
        "s = 3: q order {:.2}",
        slopes[1][0]
    );
    let (_, slopes) = errors::<4>(&reference, zero, 8);
    assert!(
        (slopes[1][0] - 4.0).abs() < 0.3,
        "s = 4: q order {:.2}",
        slopes[1][0]
    );
}

/// Spec 002 §6 D item 9: a step with `h` and then one with `−h` from its result return
/// `(q, p, λ)` to within 1e-12.
#[test]
fn a_step_back_returns() {
    let model = Particle::new();
    let mut start = initial();
    start.lambda = Some(SVector::from([livens::nonholonomic_multiplier(
        &model, &start.q, &start.v,
    )
    .expect("regular")[0]]));
    let step = |state: State, h: f64| {
        let mut sim =
            Integrator::new(model, NonholonomicLobattoCarried::<3>, h, state).with_options(tight());
        sim.step().expect("Newton converges");
        *sim.state()
    };
    let there = step(start, 0.1);
    let back = step(there, -0.1);
    let dl = (back.lambda.unwrap() - start.lambda.unwrap()).norm();
    let (dq, dp) = ((back.q - start.q).norm(), (back.p - start.p).norm());
    println!("+h then −h: |Δq| {dq:.1e}, |Δp| {dp:.1e}, |Δλ| {dl:.1e}");
    assert!(dq.max(dp).max(dl) <= 1e-12, "{dq:e} {dp:e} {dl:e}");
}

/// Initial data off `A(q) v = 0` are refused or projected, never used as given.
#[test]
fn inconsistent_data_are_rejected_or_projected() {
    let model = Particle::new();
    let (q, v) = (
        SVector::from([0.5, 0.3, 0.0]),
        SVector::from([0.2, 0.4, 0.5]),
    );
    let reject = Consistency::Reject { tolerance: 1e-12 };
    match NonholonomicState::consistent(&model, q, v, reject) {
        Err(livens::InitError::Inconsistent { velocity, .. }) => {
            assert!((velocity - (0.5 - 0.3 * 0.2)).abs() < 1e-15, "{velocity}")
        }
        other => panic!("accepted an inconsistent v: {other:?}"),
    }
    let projected =
        NonholonomicState::consistent(&model, q, v, Consistency::Project { tolerance: 1e-12 })
            .expect("projected");
    assert!(model.nonholonomic(&q, &projected.v)[0].abs() < 1e-15);
    let lambda = livens::nonholonomic_multiplier(&model, &q, &projected.v).expect("regular");
    assert_eq!(projected.lambda, Some(lambda));
    // Consistent data pass unchanged, with the continuous λ.
    let start = initial();
    let checked =
        NonholonomicState::consistent(&model, start.q, start.v, reject).expect("consistent");
    assert_eq!(
        (checked.q, checked.v, checked.p),
        (start.q, start.v, start.p)
    );
}

/// Steps the workspace `model!` builds (factoring along the elimination plan of the
/// step Jacobian's pattern) and the dense LU's from the same states along `steps`
/// steps of the dense trajectory: the largest difference of `q`, `p`, `v`, `λ`
/// relative to their size, and the pivoting fallbacks. Every step takes as many Newton
/// iterations both ways (a wrong Jacobian would take more), so the planned Jacobian,
/// assembled and zeroed over the kernels' patterns, is the dense one.
fn planned_against_dense<Mdl, const S: usize, const D: usize, const K: usize, const N: usize>(
    model: &Mdl,
    mut state: NonholonomicState<f64, D, K>,
    h: f64,
    steps: u32,
) -> (f64, u32)
where
    Mdl: Step<
        f64,
        NonholonomicLobatto<S>,
        State = NonholonomicState<f64, D, K>,
        Workspace<Inline> = PrkNonholonomicWorkspace<f64, S, D, K, N, Inline>,
    >,
    Mdl: livens::PointKernels<f64, D> + livens::NonholonomicKernels<f64, D, K>,
{
    let scheme = NonholonomicLobatto::<S>;
    let mut planned = model.workspace::<Inline>(&scheme);
    assert!(planned.plan().is_some(), "s = {S}: the step is planned");
    let mut dense = PrkNonholonomicWorkspace::<f64, S, D, K, N, Inline>::lobatto();
    let options = livens::StepOptions::default();
    let (mut worst, mut fallbacks): (f64, u32) = (0.0, 0);
    for _ in 0..steps {
        let (a, report) = prk_nonholonomic::step(
            model,
            &scheme,
            StepContext::new(h, state.t),
            &state,
            &mut planned,
            &options,
        )
        .expect("planned step");
        let (b, dense_report) = prk_nonholonomic::step(
            model,
            &scheme,
            StepContext::new(h, state.t),
            &state,
            &mut dense,
            &options,
        )
        .expect("dense step");
        assert_eq!(report.iterations, dense_report.iterations);
        fallbacks += report.pivoting_fallbacks;
        let (la, lb) = (a.lambda.expect("a step's λ"), b.lambda.expect("a step's λ"));
        let scale = b.q.amax().max(b.p.amax()).max(b.v.amax()).max(lb.amax());
        let gap = (a.q - b.q)
            .amax()
            .max((a.p - b.p).amax())
            .max((a.v - b.v).amax())
            .max((la - lb).amax());
        worst = worst.max(gap / scale);
        state = b;
    }
    (worst, fallbacks)
}

/// The step Jacobian is factored along the elimination plan `model!` chose for its
/// pattern: on the particle at every declared stage count and on the chaotic system
/// (7 coordinates, spec 002 §5.3), the planned steps agree with the dense LU's, and no
/// static pivot fails its test.
#[test]
fn planned_steps_agree_with_the_dense_lu() {
    let particle = Particle::new();
    let start = initial();
    let h = 0.05;
    let chaotic = Chaotic::new();
    let node = chaotic.initial_state().expect("the spec's data");
    let chaotic_start = NonholonomicState::from_velocities(&chaotic, node.q, node.v);
    let h_chaotic = Chaotic::DEFAULT_STEP;
    let results = [
        (
            "particle s = 2",
            planned_against_dense::<_, 2, 3, 1, 14>(&particle, start, h, 100),
        ),
        (
            "particle s = 3",
            planned_against_dense::<_, 3, 3, 1, 21>(&particle, start, h, 100),
        ),
        (
            "particle s = 4",
            planned_against_dense::<_, 4, 3, 1, 28>(&particle, start, h, 100),
        ),
        (
            "particle s = 5",
            planned_against_dense::<_, 5, 3, 1, 35>(&particle, start, h, 100),
        ),
        (
            "chaotic s = 2",
            planned_against_dense::<_, 2, 7, 1, 30>(&chaotic, chaotic_start, h_chaotic, 100),
        ),
        (
            "chaotic s = 3",
            planned_against_dense::<_, 3, 7, 1, 45>(&chaotic, chaotic_start, h_chaotic, 100),
        ),
    ];
    for (name, (worst, fallbacks)) in results {
        println!("{name}: planned against dense {worst:.1e}, {fallbacks} fallbacks");
        assert!(worst <= 1e-12, "{name}: {worst:e}");
        assert_eq!(fallbacks, 0, "{name}");
    }
}
