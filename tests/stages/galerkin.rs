//! The Galerkin family (the Galerkin paper, seed `003_7c34c28b0df0e267.txt`, eq. (22);
//! spec `next_packages.md` §B) against the schemes it contains (§B.5) and its Jacobian
//! against dual numbers, on the spherical pendulum (constant mass, linear potential):
//!
//! - `(s, w) = (1, 1)`, Lobatto `r = 2`: the configurations are SHAKE's, and with the
//!   projection the momenta RATTLE's;
//! - `w = s − 1`, Lobatto `r = s`: the constrained Lobatto IIIA–IIIB method, so
//!   `HolonomicLobatto(s)`'s `q` and `p`;
//! - a polynomial integrand (constant `M`, linear `V`): Gauss `r = s`, Gauss `r = s + 1`
//!   and Lobatto `r = s + 1` give one trajectory;
//! - the schemes the pendulum declares (`model!`'s `Step` impl) step as the driver does.
use livens::families::galerkin::{self, GalerkinWorkspace};
use livens::prelude::*;
use livens::schemes::{Galerkin, Gauss, Lobatto, Quadrature};
use livens::solve::Inline;
use livens::{GalerkinState, StepOptions};
use livens_models::SphericalPendulum;
use nalgebra::SMatrix;
use num_dual::Dual64;

const H: f64 = 0.05;
const STEPS: usize = 40;

fn tight() -> StepOptions<f64> {
    StepOptions {
        newton: NewtonOptions {
            tolerance: 1e-13,
            ..NewtonOptions::default()
        },
        ..StepOptions::default()
    }
}

fn start() -> GalerkinState<f64, 3, 1> {
    let (q, v) = SphericalPendulum::initial_positions_velocities();
    GalerkinState::from_velocities(&SphericalPendulum::new(), q, v).expect("regular")
}

/// `STEPS` states of `Galerkin(S, W, Q, R)` from the spec's initial data.
fn galerkin_run<const S: usize, const W: usize, Q: Quadrature, const R: usize, const N: usize>(
) -> Vec<GalerkinState<f64, 3, 1>> {
    let model = SphericalPendulum::new();
    let scheme = Galerkin::<S, W, Q, R>::default();
    let mut ws = GalerkinWorkspace::<f64, S, W, Q, R, 3, 1, N, Inline>::galerkin(&scheme).unwrap();
    let mut state = start();
    let mut out = vec![state];
    for _ in 0..STEPS {
        // From the state's time, as the integrator steps.
        let context = StepContext::new(H, state.t);
        let (next, _) = galerkin::step(&model, &scheme, context, &state, &mut ws, &tight())
            .expect("Newton converges");
        state = next;
        out.push(state);
    }
    out
}

/// `STEPS` nodes `(q, p)` of a scheme of the pendulum's own list.
fn run<Sch>(scheme: Sch) -> Vec<(SVector<f64, 3>, SVector<f64, 3>)>
where
    SphericalPendulum<f64>: Step<f64, Sch>,
    <SphericalPendulum<f64> as Step<f64, Sch>>::State: FromNode<f64, 3, 1> + NodeValues<f64, 3>,
{
    let model = SphericalPendulum::new();
    let node = model.initial_state().unwrap();
    let state = FromNode::from_node(&node);
    let mut sim = Integrator::new(model, scheme, H, state).with_options(tight().newton);
    let mut out = vec![(node.q, node.p)];
    for _ in 0..STEPS {
        sim.step().expect("Newton converges");
        out.push((*sim.state().positions(), *sim.state().momenta()));
    }
    out
}

fn largest(a: &[GalerkinState<f64, 3, 1>], b: &[(SVector<f64, 3>, SVector<f64, 3>)]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0, 0.0), |(dq, dp), (s, (q, p))| {
        (dq.max((s.q - q).amax()), dp.max((s.p - p).amax()))
    })
}

#[test]
fn one_one_lobatto_two_is_shake_and_rattle() {
    let g = galerkin_run::<1, 1, Lobatto, 2, 4>();
    let (dq, _) = largest(&g, &run(Shake));
    let (rq, rp) = largest(&g, &run(Rattle));
    println!(
        "Galerkin(1, 1, Lobatto(2)) against SHAKE: q {dq:.1e}; RATTLE: q {rq:.1e}, p {rp:.1e}"
    );
    assert!(dq <= 1e-13 && rq <= 1e-13 && rp <= 1e-13);
}

#[test]
fn w_below_s_with_lobatto_s_is_holonomic_lobatto() {
    fn check<const S: usize, const W: usize, const N: usize>()
    where
        SphericalPendulum<f64>: Step<f64, HolonomicLobatto<S>, State = PhaseState<f64, 3>>,
    {
        let g = galerkin_run::<S, W, Lobatto, S, N>();
        let (dq, dp) = largest(&g, &run(HolonomicLobatto::<S>));
        println!("Galerkin({S}, {W}, Lobatto({S})) against HolonomicLobatto({S}): q {dq:.1e}, p {dp:.1e}");
        assert!(dq <= 1e-12 && dp <= 1e-12, "s = {S}");
    }
    check::<2, 1, 7>();
    check::<3, 2, 11>();
    check::<4, 3, 15>();
    check::<5, 4, 19>();
}

/// Constant `M` and linear `V`: the Lagrangian's integrand is a polynomial of degree
/// `2s − 2`, which Gauss `r = s` and both `r = s + 1` rules integrate exactly.
#[test]
fn exact_quadratures_give_one_trajectory() {
    fn check<const S: usize, const S1: usize, const N: usize>() {
        let (a, b, l) = (
            galerkin_run::<S, S, Gauss, S, N>(),
            galerkin_run::<S, S, Gauss, S1, N>(),
            galerkin_run::<S, S, Lobatto, S1, N>(),
        );
        let gap = |x: &[GalerkinState<f64, 3, 1>], y: &[GalerkinState<f64, 3, 1>]| {
            x.iter()
                .zip(y)
                .map(|(x, y)| (x.q - y.q).amax().max((x.p - y.p).amax()))
                .fold(0.0, f64::max)
        };
        let (ab, al) = (gap(&a, &b), gap(&a, &l));
        println!("s = w = {S}: Gauss({S}) against Gauss({S1}) {ab:.1e}, Lobatto({S1}) {al:.1e}");
        assert!(ab <= 1e-13 && al <= 1e-13, "s = {S}");
    }
    check::<1, 2, 4>();
    check::<2, 3, 8>();
    check::<3, 4, 12>();
}

/// The assembled Jacobian against the residual in dual numbers, column by column, at a
/// point off the solution, on a first step (`ω = 1`) and a later one (`ω = 2`).
#[test]
fn jacobian_matches_dual_numbers() {
    fn check<const S: usize, const W: usize, Q: Quadrature, const R: usize, const N: usize>() {
        let scheme = Galerkin::<S, W, Q, R>::default();
        let dual_scheme = scheme;
        let model = SphericalPendulum::<f64>::new();
        let dual_model = SphericalPendulum::<Dual64>::default();
        let mut ws =
            GalerkinWorkspace::<f64, S, W, Q, R, 3, 1, N, Inline>::galerkin(&scheme).unwrap();
        let mut dws =
            GalerkinWorkspace::<Dual64, S, W, Q, R, 3, 1, N, Inline>::galerkin(&dual_scheme)
                .unwrap();
        let first = start();
        let context = StepContext::new(H, 0.0);
        let (second, _) =
            galerkin::step(&model, &scheme, context, &first, &mut ws, &tight()).unwrap();
        for state in [first, second] {
            let x: SVector<f64, N> = SVector::from_fn(|i, _| 0.3 + 0.1 * (i as f64).sin());
            let (mut r, mut jac) = ([0.0; N], SMatrix::<f64, N, N>::zeros());
            let context = StepContext::new(H, state.t);
            galerkin::equations(
                &model,
                &scheme,
                context,
                &state,
                &mut ws,
                x.as_slice(),
                &mut r,
                jac.as_mut_slice(),
            )
            .unwrap();
            let dual_state = dual(&state);
            let mut worst: f64 = 0.0;
            for k in 0..N {
                let xd: SVector<Dual64, N> =
                    SVector::from_fn(|i, _| Dual64::new(x[i], if i == k { 1.0 } else { 0.0 }));
                let (mut rd, mut jd) = ([Dual64::from(0.0); N], SMatrix::<Dual64, N, N>::zeros());
                let context = StepContext::new(Dual64::from(H), Dual64::from(state.t));
                galerkin::equations(
                    &dual_model,
                    &dual_scheme,
                    context,
                    &dual_state,
                    &mut dws,
                    xd.as_slice(),
                    &mut rd,
                    jd.as_mut_slice(),
                )
                .unwrap();
                for i in 0..N {
                    assert!((rd[i].re - r[i]).abs() <= 1e-15);
                    worst = worst.max((rd[i].eps - jac[(i, k)]).abs());
                }
            }
            println!(
                "Galerkin({S}, {W}, {}, {R}), ω = {}: |J − dual| {worst:.1e}",
                Q::NAME,
                if state.lagged.is_some() { 2 } else { 1 }
            );
            assert!(worst <= 1e-13, "({S}, {W}, {R})");
        }
    }
    check::<1, 1, Lobatto, 2, 4>();
    check::<2, 2, Gauss, 2, 8>();
    check::<3, 2, Lobatto, 3, 11>();
    check::<4, 3, Gauss, 5, 15>();
}

fn dual(s: &GalerkinState<f64, 3, 1>) -> GalerkinState<Dual64, 3, 1> {
    let d3 = |v: &SVector<f64, 3>| v.map(Dual64::from);
    GalerkinState {
        t: Dual64::from(s.t),
        q: d3(&s.q),
        p: d3(&s.p),
        v: d3(&s.v),
        lambda: s.lambda.map(Dual64::from),
        p_tilde: d3(&s.p_tilde),
        lagged: s.lagged.map(|l| livens::Lagged {
            p: d3(&l.p),
            lambda: l.lambda.map(Dual64::from),
        }),
    }
}

/// A step that fails leaves nothing behind but the workspace: the state is only read,
/// and the next step from it is the step it would have been.
#[test]
fn a_failed_step_changes_nothing() {
    let model = SphericalPendulum::new();
    let scheme = Galerkin::<2, 2, Gauss, 2>::default();
    let mut ws =
        GalerkinWorkspace::<f64, 2, 2, Gauss, 2, 3, 1, 8, Inline>::galerkin(&scheme).unwrap();
    let state = start();
    let before = state;
    let starved = StepOptions {
        newton: NewtonOptions {
            max_iterations: 1,
            ..NewtonOptions::default()
        },
        ..StepOptions::default()
    };
    let context = StepContext::new(0.5, 0.0);
    assert!(galerkin::step(&model, &scheme, context, &state, &mut ws, &starved).is_err());
    assert_eq!(state, before);
    let (a, _) = galerkin::step(
        &model,
        &scheme,
        StepContext::new(H, 0.0),
        &state,
        &mut ws,
        &tight(),
    )
    .unwrap();
    let mut fresh =
        GalerkinWorkspace::<f64, 2, 2, Gauss, 2, 3, 1, 8, Inline>::galerkin(&scheme).unwrap();
    let (b, _) = galerkin::step(
        &model,
        &scheme,
        StepContext::new(H, 0.0),
        &state,
        &mut fresh,
        &tight(),
    )
    .unwrap();
    assert_eq!(a, b);
}

/// `Galerkin(2, 2, Gauss, 2)` and `Galerkin(3, 2, Lobatto, 3)` as the pendulum's
/// `schemes { }` declares them: the integrator on `model!`'s `Step` impl takes the
/// driver's steps, to the bit.
#[test]
fn declared_schemes_step_as_the_driver() {
    fn check<const S: usize, const W: usize, Q: Quadrature, const R: usize, const N: usize>()
    where
        SphericalPendulum<f64>: Step<f64, Galerkin<S, W, Q, R>, State = GalerkinState<f64, 3, 1>>,
    {
        let direct = galerkin_run::<S, W, Q, R, N>();
        let model = SphericalPendulum::new();
        let scheme = Galerkin::<S, W, Q, R>::default();
        let mut sim = Integrator::new(model, scheme, H, start()).with_options(tight().newton);
        let mut declared = vec![*sim.state()];
        for _ in 0..STEPS {
            sim.step().expect("Newton converges");
            declared.push(*sim.state());
        }
        assert_eq!(declared, direct, "Galerkin({S}, {W}, {}, {R})", Q::NAME);
    }
    check::<2, 2, Gauss, 2, 8>();
    check::<3, 2, Lobatto, 3, 11>();
}
