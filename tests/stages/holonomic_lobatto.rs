//! The holonomically constrained Lobatto IIIA–IIIB method (spec 002 S3) on the spherical
//! pendulum of spec 002 §6 C: orders 2, 4, 6 for s = 2, 3, 4 with the spec's recomputed
//! errors at T, `Φ` and `DΦ v` at the nodes at round-off, and at s = 2 the trajectory of
//! the symbolic RATTLE, reached by the other way to a step.
use livens::families::prk_holonomic::{self, PrkHolonomicWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens_models::{Chain10, SphericalPendulum};

use crate::support::symplectic;

/// Spec 002 §6 C: `q⁰ = (sin 1, 0, −cos 1)`, `v⁰ = (0, 1.2, 0)`, `T = 2`.
const T: f64 = 2.0;

fn initial() -> PhaseState<f64, 3> {
    let (q, v) = SphericalPendulum::initial_positions_velocities();
    PhaseState::from_velocities(&SphericalPendulum::new(), q, v)
}

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    }
}

/// `q`, `p` at `T` after `steps` steps of `HolonomicLobatto<S>`, and the largest `|Φ|`
/// and `|DΦ v|` at the nodes.
fn run<const S: usize>(steps: u32) -> (PhaseState<f64, 3>, f64, f64)
where
    SphericalPendulum<f64>: Step<f64, HolonomicLobatto<S>, State = PhaseState<f64, 3>>,
{
    let model = SphericalPendulum::new();
    let h = T / f64::from(steps);
    let mut sim = Integrator::new(model, HolonomicLobatto::<S>, h, initial()).with_options(tight());
    let (mut phi, mut tangency): (f64, f64) = (0.0, 0.0);
    for _ in 0..steps {
        sim.step().expect("Newton converges");
        let s = sim.state();
        phi = phi.max((s.q.norm_squared() - 1.0).abs());
        tangency = tangency.max(s.q.dot(&s.v).abs());
    }
    (*sim.state(), phi, tangency)
}

/// `|Δq|` at `T` against the five-stage method (order 8) at `h = T/512` (its own error
/// is below 1e-16 there), at three step sizes halving from `T / n0`, with the observed
/// orders of `q` and `p`; `Φ` and `DΦ v` at every node at round-off.
fn errors<const S: usize>(reference: &PhaseState<f64, 3>, n0: u32) -> [f64; 3]
where
    SphericalPendulum<f64>: Step<f64, HolonomicLobatto<S>, State = PhaseState<f64, 3>>,
{
    let mut dq = [0.0; 3];
    let errors: [f64; 3] = core::array::from_fn(|k| {
        let n = n0 << k;
        let (s, phi, tangency) = run::<S>(n);
        assert!(phi <= 1e-14, "s = {S}, T/{n}: max |Φ| = {phi:e}");
        assert!(
            tangency <= 1e-14,
            "s = {S}, T/{n}: max |DΦ v| = {tangency:e}"
        );
        let (eq, ep) = ((s.q - reference.q).norm(), (s.p - reference.p).norm());
        println!("s = {S}, T/{n}: |Δq| {eq:.3e}, |Δp| {ep:.3e}");
        dq[k] = eq;
        eq.max(ep)
    });
    let slopes = [errors[0] / errors[1], errors[1] / errors[2]].map(f64::log2);
    println!(
        "s = {S}: errors {:.3e} {:.3e} {:.3e} at T/{n0}, T/{}, T/{}, orders {slopes:.2?}",
        errors[0],
        errors[1],
        errors[2],
        2 * n0,
        4 * n0
    );
    for slope in slopes {
        assert!(
            (slope - (2 * S - 2) as f64).abs() < 0.3,
            "s = {S}: order {slope}"
        );
    }
    dq
}

/// Spec 002 §6 C item 4: observed orders 2, 4, 6 for s = 2, 3, 4 and the recomputed
/// `|Δq|` at `T`: 1.68e-4 (s = 2, h = T/256), 3.49e-8 (s = 3, T/128), 2.61e-12 (s = 4,
/// T/128).
#[test]
fn orders_2_4_6_the_spec_errors_and_the_constraints_at_round_off() {
    let (reference, _, _) = run::<5>(512);
    let close = |got: f64, want: f64, within: f64| {
        assert!(
            (got / want - 1.0).abs() < within,
            "|Δq| {got:.3e}, spec {want:.2e}"
        );
    };
    close(errors::<2>(&reference, 64)[2], 1.68e-4, 0.01);
    close(errors::<3>(&reference, 32)[2], 3.49e-8, 0.01);
    errors::<4>(&reference, 16);
    let (s4, _, _) = run::<4>(128);
    let dq = (s4.q - reference.q).norm();
    println!("s = 4, T/128: |Δq| {dq:.3e}");
    close(dq, 2.61e-12, 0.05);
}

/// At s = 2 the method is RATTLE (spec 002 S2, S3): the assembled family and the
/// symbolic `Rattle` template, two ways to a step, agree over 1000 steps.
#[test]
fn two_stages_are_rattle_by_the_other_path() {
    let model = SphericalPendulum::new();
    let start = initial();
    let node = NodeState::consistent(
        &model,
        start.q,
        start.v,
        Consistency::Reject { tolerance: 1e-15 },
    )
    .expect("the data are consistent");
    let h = 0.01;
    let mut lobatto = Integrator::new(model, HolonomicLobatto::<2>, h, start).with_options(tight());
    let mut rattle = Integrator::new(model, Rattle, h, node).with_options(tight());
    let mut worst: f64 = 0.0;
    for _ in 0..1000 {
        lobatto.step().expect("Lobatto converges");
        rattle.step().expect("RATTLE converges");
        let (a, b) = (lobatto.state(), rattle.state());
        worst = worst.max((a.q - b.q).amax()).max((a.p - b.p).amax());
    }
    println!("max |HolonomicLobatto(2) − RATTLE| over 1000 steps: {worst:.2e}");
    assert!(worst < 1e-12, "{worst:e}");
}

/// Symplectic on the constraint manifold: the step's derivative `J` (central differences
/// in the state, projected back onto the manifold) satisfies `Jᵀ Ω J = Ω` on the tangent
/// space of `T*N`, tested through pairs of tangent directions: `ω(J ξ, J η) = ω(ξ, η)`.
#[test]
fn the_step_is_symplectic_on_the_constraint_manifold() {
    let model = SphericalPendulum::new();
    let h = 0.1;
    let step = |z: &PhaseState<f64, 3>| {
        let mut sim =
            Integrator::new(model, HolonomicLobatto::<3>, h, *z).with_options(NewtonOptions {
                tolerance: 1e-15,
                max_iterations: 50,
                ..NewtonOptions::default()
            });
        sim.step().expect("converges");
        *sim.state()
    };
    let z0 = initial();
    // Tangent directions of T*N at z0: δq ⟂ q, δp with q·δp + δq·p = 0.
    let (q, p) = (z0.q, z0.p);
    let tangent = |a: SVector<f64, 3>, b: SVector<f64, 3>| {
        let dq = a - q * q.dot(&a);
        let dp = b - q * (q.dot(&b) + dq.dot(&p));
        (dq, dp)
    };
    let dirs = [
        tangent(
            SVector::from([0.3, -0.2, 0.5]),
            SVector::from([0.1, 0.4, -0.2]),
        ),
        tangent(
            SVector::from([-0.1, 0.6, 0.2]),
            SVector::from([0.5, -0.3, 0.1]),
        ),
        tangent(
            SVector::from([0.2, 0.1, -0.4]),
            SVector::from([-0.2, 0.2, 0.6]),
        ),
    ];
    let eps = 1e-6;
    let image = |(dq, dp): (SVector<f64, 3>, SVector<f64, 3>)| {
        let moved = |s: f64| {
            // On the manifold: q normalised, p projected onto the tangency condition.
            let qs = (q + dq * s).normalize();
            let ps = p + dp * s;
            let ps = ps - qs * qs.dot(&ps);
            step(&PhaseState {
                q: qs,
                p: ps,
                v: ps,
                ..z0
            })
        };
        let (a, b) = (moved(eps), moved(-eps));
        ((a.q - b.q) / (2.0 * eps), (a.p - b.p) / (2.0 * eps))
    };
    symplectic::assert_omega_kept(&dirs, &dirs.map(image), 1e-9);
}

/// Spec 002 §6 C item 5: every `Λ¹ … Λˢ` is an unknown and the constraint is imposed at
/// stages 2..s plus the tangency equation. The assembled Jacobian is regular; with the
/// tangency row replaced by the stage-1 constraint `Φ(Q¹)`, `Q¹ = q⁰ + h Σⱼ a₁ⱼ Vʲ`
/// (differentiated by central differences through the model's `Φ`, with the tableau's
/// first row), it is singular: Lobatto IIIA's `Q¹` is `q⁰` whatever the unknowns.
#[test]
fn the_constraint_at_stage_one_would_make_the_jacobian_singular() {
    use livens::solve::Inline;
    use livens::tableaux::PartitionedTableau;
    const S: usize = 3;
    const N: usize = 3 * S + S + 3;
    let model = SphericalPendulum::new();
    let scheme = HolonomicLobatto::<S>;
    let (h, state) = (0.05, initial());
    let mut ws = Step::<f64, HolonomicLobatto<S>>::workspace::<Inline>(&model, &scheme);
    // A generic iterate: stage velocities near v⁰, nonzero multipliers, v¹ near v⁰.
    let x: [f64; N] = core::array::from_fn(|i| 0.3 * (i as f64 + 1.0).sin());
    let (mut r, mut jac) = ([0.0; N], [0.0; N * N]);
    model
        .equations(
            &scheme,
            StepContext::new(h, state.t),
            &state,
            &mut ws,
            &x,
            &mut r,
            &mut jac,
        )
        .expect("the sizes match");
    let assembled = SMatrix::<f64, N, N>::from_column_slice(&jac);
    assert!(assembled.lu().is_invertible(), "{assembled}");

    let a = PartitionedTableau::<S>::lobatto_iiia_iiib().a;
    let phi_stage_one = |x: &[f64; N]| {
        let mut q1 = state.q;
        for (j, a1j) in a[0].iter().enumerate() {
            q1 += SVector::<f64, 3>::from_column_slice(&x[3 * j..3 * j + 3]) * (h * a1j);
        }
        model.constraints(&q1)[0]
    };
    let mut replaced = assembled;
    let tangency = 3 * S + (S - 1); // Tg, after the stage constraints C₂ … Cₛ
    let eps = 1e-6;
    for k in 0..N {
        let (mut up, mut down) = (x, x);
        up[k] += eps;
        down[k] -= eps;
        replaced[(tangency, k)] = (phi_stage_one(&up) - phi_stage_one(&down)) / (2.0 * eps);
    }
    assert!(replaced.row(tangency).iter().all(|&e| e == 0.0));
    assert!(!replaced.lu().is_invertible());
    // Stage 2's constraint row, by the same differences, is the assembled one.
    let phi_stage_two = |x: &[f64; N]| {
        let mut q2 = state.q;
        for (j, a2j) in a[1].iter().enumerate() {
            q2 += SVector::<f64, 3>::from_column_slice(&x[3 * j..3 * j + 3]) * (h * a2j);
        }
        model.constraints(&q2)[0]
    };
    let row = 3 * S; // C₂, the first constraint row
    let mut worst: f64 = 0.0;
    for k in 0..N {
        let (mut up, mut down) = (x, x);
        up[k] += eps;
        down[k] -= eps;
        let fd = (phi_stage_two(&up) - phi_stage_two(&down)) / (2.0 * eps);
        worst = worst.max((fd - assembled[(row, k)]).abs());
    }
    assert!(
        worst < 1e-9,
        "stage-2 constraint row against differences: {worst:e}"
    );
}

/// Steps `planned` (the workspace `model!` builds, factoring along the elimination plan
/// of the step Jacobian's pattern) and the dense LU's workspace from the same states
/// along `steps` steps of the dense trajectory: the largest difference of `q`, `p`, `v`
/// relative to their size, and the pivoting fallbacks. Every step takes as many
/// Newton iterations both ways: Newton reaches the same root with a wrong Jacobian too,
/// only in more iterations, so the same count says the planned Jacobian (assembled
/// over the kernels' patterns, zeroed only there) is the dense one.
fn planned_against_dense<Mdl, const S: usize, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    mut state: PhaseState<f64, D>,
    h: f64,
    steps: u32,
) -> (f64, u32)
where
    Mdl: Step<
        f64,
        HolonomicLobatto<S>,
        State = PhaseState<f64, D>,
        Workspace<Inline> = PrkHolonomicWorkspace<f64, S, D, M, N, Inline>,
    >,
    Mdl: livens::PointKernels<f64, D> + livens::HolonomicKernels<f64, D, M>,
{
    let scheme = HolonomicLobatto::<S>;
    let mut planned = model.workspace::<Inline>(&scheme);
    assert!(planned.plan().is_some(), "s = {S}: the step is planned");
    let mut dense = PrkHolonomicWorkspace::<f64, S, D, M, N, Inline>::lobatto();
    let options = livens::StepOptions::default();
    let (mut worst, mut fallbacks): (f64, u32) = (0.0, 0);
    for _ in 0..steps {
        let (a, report) = prk_holonomic::step(
            model,
            &scheme,
            StepContext::new(h, state.t),
            &state,
            &mut planned,
            &options,
        )
        .expect("planned step");
        let (b, dense_report) = prk_holonomic::step(
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
        let scale = b.q.amax().max(b.p.amax()).max(b.v.amax());
        let gap = (a.q - b.q)
            .amax()
            .max((a.p - b.p).amax())
            .max((a.v - b.v).amax());
        worst = worst.max(gap / scale);
        state = b;
    }
    (worst, fallbacks)
}

/// The step Jacobian is factored along the elimination plan `model!` chose for its
/// pattern (multipliers' Schur complement pivoted by value): on the ten-link chain (30
/// coordinates, 10 constraints) the planned steps agree with the dense LU's, and no
/// static pivot fails its test. The spherical pendulum's Jacobians (11 to 23 unknowns)
/// keep the dense LU, faster there than a plan followed table-driven.
#[test]
fn planned_steps_agree_with_the_dense_lu() {
    let pendulum = SphericalPendulum::new();
    let planned = |plan: Option<&livens::solve::sparse::Plan>| plan.is_some();
    assert!(!planned(
        pendulum.workspace::<Inline>(&HolonomicLobatto::<2>).plan()
    ));
    assert!(!planned(
        pendulum.workspace::<Inline>(&HolonomicLobatto::<5>).plan()
    ));
    let chain = Chain10::new();
    let (q, v) = Chain10::initial_positions_velocities();
    let start = PhaseState::from_velocities(&chain, q, v);
    let h = Chain10::DEFAULT_STEP;
    let chains = [
        (
            "chain s = 2",
            planned_against_dense::<_, 2, 30, 10, 110>(&chain, start, h, 100),
        ),
        (
            "chain s = 3",
            planned_against_dense::<_, 3, 30, 10, 150>(&chain, start, h, 100),
        ),
    ];
    for (name, (worst, fallbacks)) in chains {
        println!("{name}: planned against dense {worst:.1e}, {fallbacks} fallbacks");
        assert!(worst <= 1e-12, "{name}: {worst:e}");
        assert_eq!(fallbacks, 0, "{name}");
    }
}
