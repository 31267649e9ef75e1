//! The Chaplygin sleigh (issue 30) with the nonholonomic Lobatto IIIA–IIIB family, against
//! its closed-form motion: the paper's map, its multiplier carried from step to step
//! (`NonholonomicLobattoCarried`), turns the sleigh around through a growing mode of
//! `λ`, multiplied each step by `(−1)^(s−1) (1 + κh/(s−1))`; with the multiplier
//! recomputed from the continuous equations each step (`NonholonomicLobatto`) the
//! forward speed never decreases, the energy error is of the method's order and flat,
//! and `q`, `p` and `λ` converge with order `2s − 2`. The price, measured on the
//! transmission of spec 002 §5.2: the recomputed map is not time-symmetric (a step back
//! misses by `O(h^(s+2))`), and its energy error there grows where the carried map's
//! stays bounded.
use livens::prelude::*;
use livens::SolveError;
use livens_models::{ChaplyginSleigh, Transmission};

type State = NonholonomicState<f64, 3, 1>;

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

fn start(model: &ChaplyginSleigh<f64>) -> State {
    let node = model.initial_state().expect("consistent");
    NonholonomicState::from_velocities(model, node.q, node.v)
}

/// The model's parameters (its defaults) and the start `u = 1`, `ω = 2`, `θ = 0`.
const M: f64 = 1.0;
const A: f64 = 0.5;
const I: f64 = 0.2;
const E0: f64 = 1.4;

/// Runs `steps` steps of `scheme` at `h` from the default start, calling `visit` with
/// every node (the start included).
fn run<Sch>(
    scheme: Sch,
    h: f64,
    steps: usize,
    mut visit: impl FnMut(&State),
) -> Result<(), SolveError<f64>>
where
    ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
{
    let model = ChaplyginSleigh::new();
    let mut sim = Integrator::new(model, scheme, h, start(&model)).with_options(tight());
    visit(sim.state());
    for _ in 0..steps {
        sim.step()?;
        visit(sim.state());
    }
    Ok(())
}

/// The closed-form motion from `θ = 0` at the origin with `u = 1`, `ω = 2` (module docs
/// of the model): `(q, v, λ)` at `t`, positions by Gauss–Legendre quadrature.
fn exact(t: f64) -> (SVector<f64, 3>, SVector<f64, 3>, f64) {
    let (m, a, i) = (M, A, I);
    let c: f64 = (i + m * a * a) / m;
    let (u0, w0): (f64, f64) = (1.0, 2.0);
    let big_u = (u0 * u0 + c * w0 * w0).sqrt();
    let phi0 = (u0 / big_u).atanh();
    let rate = a * big_u / c;
    let phi = |t: f64| rate * t + phi0;
    let u = |t: f64| big_u * phi(t).tanh();
    let w = |t: f64| big_u / c.sqrt() / phi(t).cosh();
    let theta = |t: f64| c.sqrt() / a * (phi(t).sinh().atan() - phi0.sinh().atan());
    // Five-point Gauss–Legendre on panels of 0.01.
    let nodes = [
        (0.0, 128.0 / 225.0),
        (-0.538_469_310_105_683_1, 0.478_628_670_499_366_5),
        (0.538_469_310_105_683_1, 0.478_628_670_499_366_5),
        (-0.906_179_845_938_664, 0.236_926_885_056_189_1),
        (0.906_179_845_938_664, 0.236_926_885_056_189_1),
    ];
    let panels = (t / 0.01).ceil().max(1.0) as usize;
    let width = t / panels as f64;
    let (mut x, mut y) = (0.0, 0.0);
    for k in 0..panels {
        let mid = (k as f64 + 0.5) * width;
        for (z, wt) in nodes {
            let s = mid + 0.5 * width * z;
            x += 0.5 * width * wt * u(s) * theta(s).cos();
            y += 0.5 * width * wt * u(s) * theta(s).sin();
        }
    }
    let th = theta(t);
    let q = SVector::from([x, y, th]);
    let v = SVector::from([u(t) * th.cos(), u(t) * th.sin(), w(t)]);
    (q, v, m * i * u(t) * w(t) / (i + m * a * a))
}

fn errors_at<Sch>(scheme: Sch, t_end: f64, n: usize) -> [f64; 3]
where
    ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
{
    let model = ChaplyginSleigh::new();
    let mut last = None;
    run(scheme, t_end / n as f64, n, |s| last = Some(*s)).expect("Newton converges");
    let s = last.expect("a node");
    let (q, v, l) = exact(t_end);
    let p = model.l_v(&q, &v);
    let lambda = s.lambda.expect("a step's λ")[0];
    [(s.q - q).norm(), (s.p - p).norm(), (lambda - l).abs()]
}

/// The model's multiplier (the runtime's continuous formula) is the closed form's
/// `λ = m I u ω / (I + m a²)` along the exact motion.
#[test]
fn the_continuous_multiplier_is_the_closed_forms() {
    let model = ChaplyginSleigh::new();
    for t in [0.0, 0.7, 2.5, 6.0] {
        let (q, v, l) = exact(t);
        let got = livens::nonholonomic_multiplier::<_, _, 3, 1>(&model, &q, &v).expect("regular");
        assert!(
            (got[0] - l).abs() <= 1e-14 * l.abs().max(1.0),
            "t = {t}: {} against {l}",
            got[0]
        );
        assert!((model.energy_of(&q, &v) - E0).abs() < 1e-13);
    }
}

/// Spec 002 S4 with `λₖ` recomputed: over `t ∈ [0, 200]`, `s = 2 … 5`, `h = 0.1` and
/// `0.025`, the forward speed never decreases by more than 1e-9 from one node to the
/// next; the energy error is at most a bound of order `h^(2s−2)` (the largest measured
/// times three), is the same at `t = 100` and `t = 200` (flat, once `ω` has decayed)
/// and falls by at least `4^(2s−2−0.3)` from `h = 0.1` to `0.025` where it is above
/// round-off; `u` ends at `√(2E₀/m)` to that error.
#[test]
fn recomputed_the_sleigh_never_slows_down() {
    // The largest |E − E₀| measured at h = 0.1, times three.
    let bounds = [(2, 1.3e-2), (3, 5.3e-6), (4, 2e-8), (5, 1.3e-11)];
    for (s, bound) in bounds {
        let mut worst = [0.0; 2];
        for (c, h) in [0.1, 0.025].into_iter().enumerate() {
            let (drop, energy, drift, u_end) = match s {
                2 => sample(NonholonomicLobatto::<2>, h),
                3 => sample(NonholonomicLobatto::<3>, h),
                4 => sample(NonholonomicLobatto::<4>, h),
                _ => sample(NonholonomicLobatto::<5>, h),
            }
            .expect("Newton converges");
            println!(
                "NonholonomicLobatto({s}), h = {h}: largest fall of u {drop:.1e}, max |E − E₀| \
                 {energy:.2e}, |E(200) − E(100)| {drift:.1e}, u(200) {u_end:.6}"
            );
            assert!(drop <= 1e-9, "s = {s}, h = {h}: u fell by {drop:e}");
            assert!(energy <= bound, "s = {s}, h = {h}: |E − E₀| {energy:e}");
            assert!(
                drift <= 1e-13,
                "s = {s}, h = {h}: the energy drifts by {drift:e}"
            );
            let u_limit = (2.0 * E0 / M).sqrt();
            assert!(
                (u_end - u_limit).abs() <= 2.0 * energy + 1e-13,
                "u(200) = {u_end}"
            );
            worst[c] = energy;
        }
        if worst[1] > 1e-13 {
            let order = (worst[0] / worst[1]).log(4.0);
            println!("s = {s}: energy error of order {order:.2}");
            assert!(
                order >= (2 * s - 2) as f64 - 0.3,
                "s = {s}: energy order {order:.2}"
            );
        }
    }
}

/// Largest fall of `u` between nodes, largest `|E − E₀|`, `|E(200) − E(100)|` and
/// `u(200)` over `t ∈ [0, 200]` with step `h`.
fn sample<Sch>(scheme: Sch, h: f64) -> Result<(f64, f64, f64, f64), SolveError<f64>>
where
    ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
{
    let model = ChaplyginSleigh::new();
    let steps = (200.0 / h).round() as usize;
    let (mut u_prev, mut drop, mut energy, mut e_half, mut e_end) =
        (f64::NAN, 0.0_f64, 0.0_f64, 0.0, 0.0);
    let mut k = 0;
    run(scheme, h, steps, |s| {
        let (u, _) = ChaplyginSleigh::forward_and_turn(&s.q, &s.v);
        let e = model.energy_of(&s.q, &s.v) - E0;
        drop = drop.max(u_prev - u);
        energy = energy.max(e.abs());
        if 2 * k == steps {
            e_half = e;
        }
        e_end = e;
        u_prev = u;
        k += 1;
    })?;
    Ok((drop, energy, (e_end - e_half).abs(), u_prev))
}

/// The paper's map (issue 30): at `h = 0.1`, once `ω` has decayed, the carried
/// multiplier turns the sleigh around (`u` below −1, where the physical sleigh never
/// slows down) and most of the energy is lost; `s = 3` does not even get there (Newton
/// fails on the way).
#[test]
fn carried_the_sleigh_turns_around() {
    fn turn<Sch>(scheme: Sch) -> (f64, f64, f64, Result<(), SolveError<f64>>)
    where
        ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
    {
        let model = ChaplyginSleigh::new();
        let (mut u_min, mut e_min, mut t_reversed) = (f64::MAX, f64::MAX, f64::NAN);
        let result = run(scheme, 0.1, 2000, |s| {
            let (u, _) = ChaplyginSleigh::forward_and_turn(&s.q, &s.v);
            if u < 0.0 && t_reversed.is_nan() {
                t_reversed = s.t;
            }
            u_min = u_min.min(u);
            e_min = e_min.min(model.energy_of(&s.q, &s.v) - E0);
        });
        (u_min, e_min, t_reversed, result)
    }
    let runs = [
        (2, turn(NonholonomicLobattoCarried::<2>)),
        (3, turn(NonholonomicLobattoCarried::<3>)),
        (4, turn(NonholonomicLobattoCarried::<4>)),
        (5, turn(NonholonomicLobattoCarried::<5>)),
    ];
    for (s, (u_min, e_min, t_reversed, result)) in runs {
        println!(
            "NonholonomicLobattoCarried({s}), h = 0.1: u down to {u_min:.3} (first below 0 at \
             t = {t_reversed:.1}), E − E₀ down to {e_min:.3}, {}",
            if result.is_ok() {
                "to t = 200".to_string()
            } else {
                format!("{result:?}")
            }
        );
        assert!(u_min < -1.0, "s = {s}: u_min = {u_min}");
        assert!(e_min < -1.3, "s = {s}: E − E₀ down to {e_min}");
        assert_eq!(result.is_ok(), s != 3, "s = {s}: {result:?}");
    }
}

/// The mechanism: with `λₖ` carried, `δλₖ = λₖ − λ(qₖ, vₖ)` (the carried multiplier
/// against the continuous one at the node) is multiplied each step by
/// `(−1)^(s−1) (1 + κh/(s−1))`, `κ = m a u/(I + m a²)`. Measured at `h = 0.1` over
/// `t ∈ [4, 16]`, where the mode dominates `δλ` and is still small: the sign, and the
/// growth `|δλₖ₊₁/δλₖ| − 1` within 5 % of `κh/(s−1)` (the rest is `O(h²)`). For
/// `s = 2, 3` the mode is not small by then (the carried `λ` is off by order one
/// from `t ≈ 2`).
#[test]
fn carried_the_mode_grows_by_the_predicted_factor() {
    fn ratios<Sch>(scheme: Sch, s: usize) -> f64
    where
        ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
    {
        let model = ChaplyginSleigh::new();
        let h = 0.1;
        let (mut previous, mut worst): (Option<f64>, f64) = (None, 0.0);
        run(scheme, h, 160, |state| {
            let Some(lambda) = state.lambda else { return };
            let continuous =
                livens::nonholonomic_multiplier::<_, _, 3, 1>(&model, &state.q, &state.v)
                    .expect("regular")[0];
            let delta = lambda[0] - continuous;
            if let (Some(p), true) = (previous, state.t > 4.0 - 1e-9) {
                let (u, _) = ChaplyginSleigh::forward_and_turn(&state.q, &state.v);
                let kappa = M * A * u / (I + M * A * A);
                let sign = if s % 2 == 0 { -1.0 } else { 1.0 };
                let ratio = delta / p;
                assert_eq!(ratio.signum(), sign, "s = {s}, t = {}", state.t);
                let predicted = kappa * h / (s as f64 - 1.0);
                worst = worst.max(((ratio.abs() - 1.0) / predicted - 1.0).abs());
            }
            previous = Some(delta);
        })
        .expect("Newton converges");
        worst
    }
    for (s, worst) in [
        (4, ratios(NonholonomicLobattoCarried::<4>, 4)),
        (5, ratios(NonholonomicLobattoCarried::<5>, 5)),
    ] {
        println!(
            "s = {s}: growth per step against κh/(s−1): within {:.1} %",
            100.0 * worst
        );
        assert!(worst < 0.05, "s = {s}: {worst}");
    }
}

/// Orders against the closed form at `T = 3`: with `λₖ` recomputed, `2s − 2` in `q`,
/// `p` and `λ` for s = 2 … 5 (each of the two halvings within 0.3); with `λₖ` carried,
/// `λ` has the paper's `s − s % 2` (eq. (20c)), shown at s = 4 (4 against 6; from
/// `T/32`, the first halving from `T/16` gives 3.67).
#[test]
fn orders_against_the_closed_form() {
    const T: f64 = 3.0;
    fn slopes(e: [[f64; 3]; 3]) -> [[f64; 3]; 2] {
        [0, 1].map(|k| core::array::from_fn(|c| (e[k][c] / e[k + 1][c]).log2()))
    }
    let cases: [(usize, usize, [[f64; 3]; 3]); 4] = [
        (
            2,
            256,
            [256, 512, 1024].map(|n| errors_at(NonholonomicLobatto::<2>, T, n)),
        ),
        (
            3,
            32,
            [32, 64, 128].map(|n| errors_at(NonholonomicLobatto::<3>, T, n)),
        ),
        (
            4,
            16,
            [16, 32, 64].map(|n| errors_at(NonholonomicLobatto::<4>, T, n)),
        ),
        (
            5,
            8,
            [8, 16, 32].map(|n| errors_at(NonholonomicLobatto::<5>, T, n)),
        ),
    ];
    for (s, n0, e) in cases {
        let slopes = slopes(e);
        println!(
            "NonholonomicLobatto({s}), T/{n0} … T/{}: |Δq|, |Δp|, |Δλ| at the finest {:.2e}, {:.2e}, {:.2e}, orders {:.2?} then {:.2?}",
            4 * n0,
            e[2][0],
            e[2][1],
            e[2][2],
            slopes[0],
            slopes[1]
        );
        let want = (2 * s - 2) as f64;
        for row in slopes {
            for got in row {
                assert!(
                    (got - want).abs() < 0.3,
                    "s = {s}: order {got:.2}, expected {want}"
                );
            }
        }
    }
    let e = [32, 64, 128].map(|n| errors_at(NonholonomicLobattoCarried::<4>, T, n));
    let slopes = slopes(e);
    println!(
        "NonholonomicLobattoCarried(4): orders (q, p, λ) {:.2?} then {:.2?}",
        slopes[0], slopes[1]
    );
    for row in slopes {
        for (got, want) in row.into_iter().zip([6.0, 6.0, 4.0]) {
            assert!(
                (got - want).abs() < 0.3,
                "carried s = 4: order {got:.2}, expected {want}"
            );
        }
    }
}

/// The price of recomputing `λₖ`, on the transmission (spec 002 §5.2, ε = ½, low
/// energy): a step with `h` and then `−h` returns the carried map to round-off (the
/// paper's map is symmetric) but the recomputed one only to `O(h^(s+2))` (its `Λ¹` at
/// the two ends of a step are taken by the same rule only up to `Λˢ`'s error); and over
/// `t ≤ 500` at `h = 0.1`, `s = 2` the carried map's energy error stays within 20 % of
/// its largest over `t ≤ 50` (spec 002 §6 D item 10: 1.23e-2 and 1.31e-2) while the
/// recomputed one's keeps growing (to three times that and more).
#[test]
fn recomputed_the_price_is_time_symmetry() {
    type T3 = NonholonomicState<f64, 3, 1>;
    let model = Transmission::new();
    let node = model.initial_node(false).expect("the spec's data");
    let mut start: T3 = livens::FromNode::from_node(&node);
    start.lambda =
        Some(livens::nonholonomic_multiplier(&model, &start.q, &start.v).expect("regular"));
    fn there_and_back<Sch: Copy>(model: Transmission<f64>, scheme: Sch, start: T3, h: f64) -> f64
    where
        Transmission<f64>: Step<f64, Sch, State = T3>,
    {
        let step = |state: T3, h: f64| {
            let mut sim = Integrator::new(model, scheme, h, state).with_options(tight());
            sim.step().expect("Newton converges");
            *sim.state()
        };
        let back = step(step(start, h), -h);
        (back.q - start.q).norm().max((back.p - start.p).norm())
    }
    for h in [0.1, 0.05] {
        let carried = there_and_back(model, NonholonomicLobattoCarried::<3>, start, h);
        assert!(carried <= 1e-14, "carried, h = {h}: {carried:e}");
    }
    let miss = [0.1, 0.05].map(|h| there_and_back(model, NonholonomicLobatto::<3>, start, h));
    let order = (miss[0] / miss[1]).log2();
    println!(
        "NonholonomicLobatto(3): a step back misses by {:.2e}, {:.2e}: order {order:.2}",
        miss[0], miss[1]
    );
    assert!(order >= 5.0 - 0.3, "order {order:.2}");
    fn energy_errors<Sch>(model: Transmission<f64>, scheme: Sch, start: T3) -> (f64, f64)
    where
        Transmission<f64>: Step<f64, Sch, State = T3>,
    {
        let total = |s: &T3| {
            let (d, p) = model.subsystem_energies(&s.q, &s.v);
            d + p
        };
        let mut sim = Integrator::new(model, scheme, 0.1, start).with_options(tight());
        let (mut early, mut late) = (0.0_f64, 0.0_f64);
        for k in 1..=5000 {
            sim.step().expect("Newton converges");
            let e = (total(sim.state()) - total(&start)).abs();
            if k <= 500 {
                early = early.max(e);
            } else {
                late = late.max(e);
            }
        }
        (early, late)
    }
    let (early, late) = energy_errors(model, NonholonomicLobattoCarried::<2>, start);
    println!("carried: max |ΔE| {early:.2e} over t ≤ 50, {late:.2e} after");
    assert!(late <= 1.2 * early, "carried: {early:e} then {late:e}");
    let (early, late) = energy_errors(model, NonholonomicLobatto::<2>, start);
    println!("recomputed: max |ΔE| {early:.2e} over t ≤ 50, {late:.2e} after");
    assert!(late >= 3.0 * early, "recomputed: {early:e} then {late:e}");
}
