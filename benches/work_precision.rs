//! Work against precision: livens' stage schemes beside an explicit adaptive integrator
//! of another crate, DOP853 (`ode_solvers`, Hairer's eighth-order Dormand–Prince pair),
//! on the same mechanics in the same criterion run.
//!
//! - **The double pendulum in its angles** (`m₁ = m₂ = l₁ = l₂ = 1`, `g = 9.81`,
//!   `θ(0) = (2.0, 2.5)` at rest, `T = 5`): the Lobatto IIIA–IIIB family at `s = 2..7`
//!   and the converted schemes `Converted(Rk4, Forward)`, `Converted(Kutta3, Symmetric)`
//!   with fixed steps, against DOP853 on its equations of motion written by hand, at a
//!   range of tolerances.
//! - **The same pendulum in Cartesian coordinates with its two rods as holonomic
//!   constraints** (`HolonomicLobatto(s)`, `s = 2..5`): DOP853 can only run it in the
//!   angles, so the error is that of the masses' positions at `T` for both.
//!
//! The error is measured at `T` against classical RK4 in steps of 5e-5 on the angles'
//! equations, an independent reference (its gap to DOP853 at tolerance 1e-13 is
//! printed). Each point is one whole run to `T`, timed by criterion. At the end the bench
//! prints every point (error, time, Newton iterations per step) and, for errors 1e-6 and
//! 1e-9, the time of the fastest livens scheme, DOP853's time and their ratio,
//! interpolating each curve log-linearly between the two points that bracket the target.
//! With `LIVENS_WORK_PRECISION_CSV=<path>` the points are also written there as CSV.
//! `LIVENS_BENCH_QUICK=1` shortens the run.
//!
//! `LIVENS_BENCH_COUNT=1` times nothing: every scheme on the angles (`LobattoIIIAIIIB(s)`,
//! `s = 2..7`, then the converted schemes), each run
//! [`COUNTED_STEPS`] steps on the angles from the start once, inside [`counted_run`], with the
//! default options, and the bench prints the Newton iterations per step. Under callgrind
//! with `--toggle-collect='*counted_run*' --dump-after='*counted_run*'` each dump holds one
//! run's instructions, in the order printed: divided by the iterations, the
//! instructions per iteration.
use std::fmt::Write as _;
use std::hint::black_box;

use criterion::Criterion;
use livens::schemes::{
    Converted, Forward, HolonomicLobatto, Kutta3, LobattoIIIAIIIB, Rk4, Symmetric,
};
use livens::{Consistency, FromNode, Integrator, NodeState, NodeValues, SVector, Step};
use ode_solvers::dop_shared::OutputType;
use ode_solvers::{Dop853, System, Vector4};

#[path = "support/record.rs"]
mod record;
use record::Record;

const G: f64 = 9.81;
const T_END: f64 = 5.0;
const THETA0: [f64; 2] = [2.0, 2.5];

livens::model! {
    /// The planar double pendulum in its joint angles (unit masses and rods).
    struct Angles {
        params { g = 9.81 }
        coords { a: Scalar, b: Scalar }
        kinetic = a_dot * a_dot + 0.5 * b_dot * b_dot + cos(a - b) * a_dot * b_dot;
        potential = -2.0 * g * cos(a) - g * cos(b);
        schemes {
            LobattoIIIAIIIB(2), LobattoIIIAIIIB(3), LobattoIIIAIIIB(4), LobattoIIIAIIIB(5),
            LobattoIIIAIIIB(6), LobattoIIIAIIIB(7),
            Converted(Rk4, Forward), Converted(Kutta3, Symmetric)
        }
    }
}

livens::model! {
    /// The same pendulum in the Cartesian positions of its masses, the rods as holonomic
    /// constraints.
    struct Cartesian {
        params { g = 9.81 }
        coords { x1: Scalar, y1: Scalar, x2: Scalar, y2: Scalar }
        kinetic = 0.5 * (x1_dot * x1_dot + y1_dot * y1_dot + x2_dot * x2_dot + y2_dot * y2_dot);
        potential = g * (y1 + y2);
        holonomic {
            rod1: 0.5 * (x1 * x1 + y1 * y1 - 1.0),
            rod2: 0.5 * ((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) - 1.0),
        }
        schemes { HolonomicLobatto(2), HolonomicLobatto(3), HolonomicLobatto(4), HolonomicLobatto(5) }
    }
}

/// The angles' equations of motion, `y = (a, b, ȧ, ḃ)`: with `c = cos(a − b)`,
/// `s = sin(a − b)`, `[[2, c], [c, 1]] (ä, b̈) = (−s ḃ² − 2g sin a, s ȧ² − g sin b)`.
#[derive(Clone, Copy)]
struct AnglesOde;

fn angles_rate(y: &Vector4<f64>) -> Vector4<f64> {
    let (a, b, wa, wb) = (y[0], y[1], y[2], y[3]);
    let (s, c) = (a - b).sin_cos();
    let (f1, f2) = (-s * wb * wb - 2.0 * G * a.sin(), s * wa * wa - G * b.sin());
    let det = 2.0 - c * c;
    Vector4::new(wa, wb, (f1 - c * f2) / det, (2.0 * f2 - c * f1) / det)
}

impl System<f64, Vector4<f64>> for AnglesOde {
    fn system(&self, _t: f64, y: &Vector4<f64>, dy: &mut Vector4<f64>) {
        *dy = angles_rate(y);
    }
}

/// The reference angles at `T`: classical RK4 in 100 000 steps.
fn reference() -> [f64; 2] {
    let n = 100_000;
    let h = T_END / n as f64;
    let mut y = Vector4::new(THETA0[0], THETA0[1], 0.0, 0.0);
    for _ in 0..n {
        let k1 = angles_rate(&y);
        let k2 = angles_rate(&(y + k1 * (0.5 * h)));
        let k3 = angles_rate(&(y + k2 * (0.5 * h)));
        let k4 = angles_rate(&(y + k3 * h));
        y += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    [y[0], y[1]]
}

/// DOP853 from the start to `T` at relative and absolute tolerance `tol`: the angles at
/// `T` and the right-hand side's evaluations.
fn dop853(tol: f64) -> ([f64; 2], u32) {
    let y0 = Vector4::new(THETA0[0], THETA0[1], 0.0, 0.0);
    // The crate's default controller (`Dop853::new`: safety 0.9, β = 0, step factors
    // in [0.333, 6], automatic first step), with the solution kept at the steps only:
    // its dense output at `T` is wrong in this version (errors of order 1e5 against the
    // reference), and it is a cost the livens runs do not pay either.
    let mut solver = Dop853::from_param(
        AnglesOde,
        0.0,
        T_END,
        T_END,
        y0,
        tol,
        tol,
        0.9,
        0.0,
        0.333,
        6.0,
        T_END,
        0.0,
        100_000,
        1000,
        OutputType::Sparse,
    );
    let stats = solver.integrate().expect("DOP853 integrates");
    assert_eq!(
        solver.x_out().last(),
        Some(&T_END),
        "the last step ends at T"
    );
    let y = solver.y_out().last().expect("an output at T");
    ([y[0], y[1]], stats.num_eval)
}

/// The masses' positions for the angles `θ`.
fn positions(theta: [f64; 2]) -> [f64; 4] {
    let (x1, y1) = (theta[0].sin(), -theta[0].cos());
    [x1, y1, x1 + theta[1].sin(), y1 - theta[1].cos()]
}

fn max_gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// One point of a curve: its label, the error at `T` and the timing.
struct Point {
    curve: String,
    steps: usize,
    error: f64,
    record: Record,
}

/// `scheme` on `model` from `start` in `n` steps to `T`, the positions at `T` read by
/// `read`: the error against `exact` and the Newton iterations.
fn run<Mdl, S, const D: usize>(
    model: Mdl,
    scheme: &S,
    start: <Mdl as Step<f64, S>>::State,
    n: usize,
) -> (SVector<f64, D>, u32)
where
    S: Clone + std::fmt::Debug + 'static,
    Mdl: Step<f64, S>,
    <Mdl as Step<f64, S>>::State: NodeValues<f64, D>,
{
    let mut sim = Integrator::new(model, scheme.clone(), T_END / n as f64, start);
    let mut iterations = 0;
    for _ in 0..n {
        iterations += sim.step().expect("converges").iterations;
    }
    (*sim.state().positions(), iterations)
}

/// The points of `scheme` on `model` for each step count of `counts`, timed.
#[allow(clippy::too_many_arguments)]
fn curve<Mdl, S, const D: usize, const M: usize>(
    c: &mut Criterion,
    group: &str,
    name: &str,
    model: Mdl,
    scheme: S,
    node: &NodeState<f64, D, M>,
    counts: &[usize],
    error_of: impl Fn(&SVector<f64, D>) -> f64,
) -> Vec<Point>
where
    S: Clone + std::fmt::Debug + 'static,
    Mdl: Step<f64, S> + Copy,
    <Mdl as Step<f64, S>>::State: NodeValues<f64, D> + FromNode<f64, D, M> + Copy,
{
    let start = <Mdl as Step<f64, S>>::State::from_node(node);
    let mut bench = c.benchmark_group(format!("work_precision/{group}/{name}"));
    let mut points = Vec::new();
    for &n in counts {
        let (at_end, _) = run(model, &scheme, start, n);
        let mut record = Record::default();
        bench.bench_function(format!("{n}"), |b| {
            b.iter_custom(|iters| record.time(iters, || black_box(run(model, &scheme, start, n)).1))
        });
        points.push(Point {
            curve: format!("{group}/{name}"),
            steps: n,
            error: error_of(&at_end),
            record,
        });
    }
    bench.finish();
    points
}

/// Steps of each counted run: `h = 0.01`, where `LobattoIIIAIIIB(5)` reaches 5e-10.
const COUNTED_STEPS: usize = 500;

/// `n` steps of `scheme` on `model` from `start`, and their Newton iterations. Not
/// inlined, so that callgrind can count its instructions alone.
#[inline(never)]
fn counted_run<Mdl, S, const D: usize>(
    model: Mdl,
    scheme: &S,
    start: <Mdl as Step<f64, S>>::State,
    n: usize,
) -> u32
where
    S: Clone + std::fmt::Debug + 'static,
    Mdl: Step<f64, S>,
    <Mdl as Step<f64, S>>::State: NodeValues<f64, D>,
{
    black_box(run(model, scheme, start, n)).1
}

/// The count mode (module docs): each scheme's counted run, its iterations printed.
macro_rules! count {
    ($model:ident, $node:ident, [$(($name:literal, $scheme:expr)),+ $(,)?]) => {
        $({
            let start = FromNode::from_node(&$node);
            let iterations = counted_run($model, &$scheme, start, COUNTED_STEPS);
            eprintln!(
                "{}: {} iterations in {COUNTED_STEPS} steps, {:.3} per step",
                $name,
                iterations,
                f64::from(iterations) / COUNTED_STEPS as f64
            );
        })+
    };
}

/// `$m!(… [(name, scheme), …])` with every scheme run on the angles: one list for the
/// timed curves and the count mode.
macro_rules! angle_schemes {
    ($m:ident!($($args:tt)*)) => {
        $m!($($args)* [
            ("lobatto2", LobattoIIIAIIIB::<2>),
            ("lobatto3", LobattoIIIAIIIB::<3>),
            ("lobatto4", LobattoIIIAIIIB::<4>),
            ("lobatto5", LobattoIIIAIIIB::<5>),
            ("lobatto6", LobattoIIIAIIIB::<6>),
            ("lobatto7", LobattoIIIAIIIB::<7>),
            ("converted_rk4_forward", Converted::<Rk4, Forward>::default()),
            ("converted_kutta3_symmetric", Converted::<Kutta3, Symmetric>::default()),
        ])
    };
}

/// DOP853's points at each tolerance of `tolerances`, the error read by `error_of`.
fn dop853_curve(
    c: &mut Criterion,
    group: &str,
    tolerances: &[f64],
    error_of: impl Fn([f64; 2]) -> f64,
) -> Vec<Point> {
    let mut bench = c.benchmark_group(format!("work_precision/{group}/dop853"));
    let mut points = Vec::new();
    for &tol in tolerances {
        let (at_end, evaluations) = dop853(tol);
        let mut record = Record::default();
        bench.bench_function(format!("{tol:e}"), |b| {
            b.iter_custom(|iters| record.time(iters, || black_box(dop853(tol)).1))
        });
        points.push(Point {
            curve: format!("{group}/dop853"),
            steps: evaluations as usize,
            error: error_of(at_end),
            record,
        });
    }
    bench.finish();
    points
}

/// A curve's time per run at `target` error, interpolating `log t` linearly in `log e`
/// between the two points that bracket it; `None` if none do.
fn time_at(points: &[(f64, f64)], target: f64) -> Option<f64> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    sorted.windows(2).find_map(|w| {
        let ((e0, t0), (e1, t1)) = (w[0], w[1]);
        (e0 <= target && target <= e1).then(|| {
            let s = (target.ln() - e0.ln()) / (e1.ln() - e0.ln());
            (t0.ln() + s * (t1.ln() - t0.ln())).exp()
        })
    })
}

/// `curve` for each `(name, scheme)` of a list on one model, the points appended.
macro_rules! curves {
    ($c:ident, $points:ident, $group:literal, $model:ident, $node:ident, $counts:ident, $error:ident,
     [$(($name:literal, $scheme:expr)),+ $(,)?]) => {
        $($points.extend(curve(
            &mut $c, $group, $name, $model, $scheme, &$node, &$counts, $error,
        ));)+
    };
}

fn main() {
    let (config, samples) = record::config();
    let mut c = config.configure_from_args();
    let exact = reference();
    let (tight, _) = dop853(1e-13);
    eprintln!(
        "reference: RK4 in 100 000 steps; its gap to DOP853 at tolerance 1e-13: {:.1e}",
        max_gap(&exact, &tight)
    );
    let exact_positions = positions(exact);
    let angle_error = |q: &SVector<f64, 2>| max_gap(q.as_slice(), &exact);
    let position_error = |q: &SVector<f64, 4>| max_gap(q.as_slice(), &exact_positions);

    let angles = Angles::new();
    let node = NodeState::consistent(
        &angles,
        SVector::from(THETA0),
        SVector::zeros(),
        Consistency::Reject { tolerance: 0.0 },
    )
    .expect("unconstrained");
    if std::env::var("LIVENS_BENCH_COUNT").is_ok_and(|v| v == "1") {
        angle_schemes!(count!(angles, node,));
        return;
    }
    // Step counts a factor √2 apart (and tolerances half a decade apart below): the
    // target errors fall between points close enough for the interpolation to follow
    // each curve (with counts a factor 2 apart, an order-8 scheme's error falls by 256
    // or more between two points, more before the asymptotic regime).
    let counts = [125, 177, 250, 354, 500, 707, 1000, 1414, 2000, 2828, 4000];
    let mut points = Vec::new();
    angle_schemes!(curves!(
        c,
        points,
        "angles",
        angles,
        node,
        counts,
        angle_error,
    ));
    let tolerances: Vec<f64> = (0..15)
        .map(|k| 1e-5 * 10_f64.powf(-0.5 * k as f64))
        .collect();
    points.extend(dop853_curve(&mut c, "angles", &tolerances, |theta| {
        max_gap(&theta, &exact)
    }));

    let cartesian = Cartesian::new();
    let q0 = SVector::from(positions(THETA0));
    let node = NodeState::consistent(
        &cartesian,
        q0,
        SVector::zeros(),
        Consistency::Reject { tolerance: 1e-14 },
    )
    .expect("on the rods");
    curves!(
        c,
        points,
        "cartesian",
        cartesian,
        node,
        counts,
        position_error,
        [
            ("holonomic_lobatto2", HolonomicLobatto::<2>),
            ("holonomic_lobatto3", HolonomicLobatto::<3>),
            ("holonomic_lobatto4", HolonomicLobatto::<4>),
            ("holonomic_lobatto5", HolonomicLobatto::<5>),
        ]
    );
    points.extend(dop853_curve(&mut c, "cartesian", &tolerances, |theta| {
        max_gap(&positions(theta), &exact_positions)
    }));
    c.final_summary();

    let mut csv = String::from("curve,steps_or_evaluations,error,time_us,newton_per_step\n");
    let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for p in &points {
        let Some(median) = p.record.median_ns(samples) else {
            continue;
        };
        let micros = median / 1e3;
        let newton = if p.curve.ends_with("dop853") {
            0.0
        } else {
            p.record.mean_iterations() / p.steps as f64
        };
        eprintln!(
            "{} {}: error {:.2e}, {micros:.1} µs per run, Newton {newton:.2} per step",
            p.curve, p.steps, p.error
        );
        let _ = writeln!(
            csv,
            "{},{},{:e},{micros},{newton}",
            p.curve, p.steps, p.error
        );
        match curves.iter_mut().find(|(name, _)| *name == p.curve) {
            Some((_, v)) => v.push((p.error, micros)),
            None => curves.push((p.curve.clone(), vec![(p.error, micros)])),
        }
    }
    for group in ["angles", "cartesian"] {
        for target in [1e-6, 1e-9] {
            let of = |name: &str| {
                curves
                    .iter()
                    .find(|(c, _)| c == name)
                    .and_then(|(_, v)| time_at(v, target))
            };
            let peer = of(&format!("{group}/dop853"));
            let best = curves
                .iter()
                .filter(|(name, _)| name.starts_with(group) && !name.ends_with("dop853"))
                .filter_map(|(name, v)| time_at(v, target).map(|t| (name.as_str(), t)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match (best, peer) {
                (Some((name, t)), Some(p)) => eprintln!(
                    "{group}, error {target:e}: best livens {name} {t:.1} µs, DOP853 {p:.1} µs: {:.2}×",
                    t / p
                ),
                _ => eprintln!("{group}, error {target:e}: not bracketed by both curves"),
            }
        }
    }
    if let Ok(path) = std::env::var("LIVENS_WORK_PRECISION_CSV") {
        std::fs::write(&path, csv).expect("the CSV path is writable");
    }
    if let Ok(path) = std::env::var("LIVENS_WORK_PRECISION_SVG") {
        std::fs::write(&path, svg(&curves)).expect("the SVG path is writable");
    }
}

/// The curves as a log–log plot, error across and time per run up, one panel per
/// group (`angles`, `cartesian`): a plain SVG written by hand, so that the bench needs
/// no plotting crate.
fn svg(curves: &[(String, Vec<(f64, f64)>)]) -> String {
    const COLOURS: [&str; 7] = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#000000",
    ];
    let (width, height, margin) = (460.0, 340.0, 60.0);
    // Decades shown: errors 1e-12..1e0, times 1e1..1e6 µs.
    let (e_lo, e_hi, t_lo, t_hi) = (-12.0, 0.0, 1.0, 6.0);
    let x = |e: f64| {
        margin + (e.log10().clamp(e_lo, e_hi) - e_lo) / (e_hi - e_lo) * (width - 1.5 * margin)
    };
    let y = |t: f64| {
        height
            - margin
            - (t.log10().clamp(t_lo, t_hi) - t_lo) / (t_hi - t_lo) * (height - 1.5 * margin)
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        2.0 * width
    );
    for (panel, group) in ["angles", "cartesian"].iter().enumerate() {
        let dx = panel as f64 * width;
        let _ = writeln!(out, "<g transform=\"translate({dx},0)\">");
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"16\" text-anchor=\"middle\">double pendulum, {}: time per run (µs) against error at T = 5</text>",
            width / 2.0,
            if *group == "angles" { "angles" } else { "Cartesian with rods" }
        );
        for k in 0..=((e_hi - e_lo) as i32 / 3) {
            let e = 10f64.powi(e_lo as i32 + 3 * k);
            let _ = writeln!(
                out,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>",
                x(e), y(10f64.powf(t_lo)), y(10f64.powf(t_hi)), height - margin + 14.0, e_lo as i32 + 3 * k
            );
        }
        for k in t_lo as i32..=t_hi as i32 {
            let t = 10f64.powi(k);
            let _ = writeln!(
                out,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4}\" text-anchor=\"end\">1e{k}</text>",
                x(10f64.powf(e_lo)), y(t), x(10f64.powf(e_hi)), x(10f64.powf(e_lo)) - 4.0, y(t) + 4.0
            );
        }
        let mine = curves.iter().filter(|(name, _)| name.starts_with(group));
        for (k, (name, points)) in mine.enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let mut sorted = points.clone();
            sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
            let path: Vec<String> = sorted
                .iter()
                .map(|&(e, t)| format!("{:.1},{:.1}", x(e), y(t)))
                .collect();
            let _ = writeln!(
                out,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
                path.join(" ")
            );
            for &(e, t) in &sorted {
                let _ = writeln!(
                    out,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{colour}\"/>",
                    x(e),
                    y(t)
                );
            }
            let label = name.split('/').nth(1).unwrap_or(name);
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" fill=\"{colour}\">{label}</text>",
                width - 1.4 * margin,
                40.0 + 14.0 * k as f64
            );
        }
        let _ = writeln!(out, "</g>");
    }
    out.push_str("</svg>\n");
    out
}
