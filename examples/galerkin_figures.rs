//! The Galerkin paper's figures on its planar pendulum (Wenger, Ober-Blöbaum,
//! Leyendecker, "Construction and analysis of higher order variational integrators for
//! dynamical systems with holonomic constraints", §4; spec `next_packages.md` §B.7):
//!
//! - Fig. 2: the energy error over `[0, 100]` of (a) `s = 5`, Gauss(5), `w = 4`
//!   (ord(q) = 8) at `h = 0.1` and (b) `s = 5`, Lobatto(5), `w = 3` (ord(q) = 4) at
//!   `h = 0.01`;
//! - Fig. 4: the error in `q` at `T = 1` against the run time for `s = w = r = 1 … 6`
//!   (Gauss), several step sizes each;
//! - Fig. 5: the same for `s = w = 2` and 5 with Gauss `r = s` against Lobatto
//!   `r = s + 1` (equal accuracy; the Gauss rule has one node fewer).
//!
//! Prints the figures' numbers and draws `galerkin_fig2.svg` and `galerkin_fig4.svg`
//! (or into the folder given as the first argument). The run times are wall-clock
//! medians of repeated runs of this process: a picture, not a benchmark.
//!
//! ```text
//! cargo run --release --example galerkin_figures
//! ```
use std::time::Instant;

use livens::families::galerkin::{self, GalerkinWorkspace};
use livens::prelude::*;
use livens::schemes::Quadrature;
use livens::solve::Inline;
use livens::{GalerkinState, StepOptions};
use livens_models::PlanarPendulum;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

fn options() -> StepOptions<f64> {
    StepOptions {
        newton: NewtonOptions {
            tolerance: 1e-12,
            ..NewtonOptions::default()
        },
        ..StepOptions::default()
    }
}

fn start(model: &PlanarPendulum<f64>) -> GalerkinState<f64, 2, 1> {
    let (q, v) = model.initial_positions_velocities();
    GalerkinState::from_velocities(model, q, v).expect("a regular start")
}

/// Every state of `n` steps of `Galerkin(S, W, Q, R)` over `[0, span]`.
fn run<const S: usize, const W: usize, Q: Quadrature, const R: usize, const N: usize>(
    span: f64,
    n: usize,
) -> Vec<GalerkinState<f64, 2, 1>> {
    let model = PlanarPendulum::default();
    let scheme = Galerkin::<S, W, Q, R>::default();
    let mut ws = GalerkinWorkspace::<f64, S, W, Q, R, 2, 1, N, Inline>::galerkin(&scheme)
        .expect("an admissible scheme");
    let h = span / n as f64;
    let mut state = start(&model);
    let mut out = vec![state];
    for k in 0..n {
        let context = StepContext::new(h, k as f64 * h);
        state = galerkin::step(&model, &scheme, context, &state, &mut ws, &options())
            .expect("Newton converges")
            .0;
        out.push(state);
    }
    out
}

/// `(t, |E − E₀|)` along a run.
fn energy_error(states: &[GalerkinState<f64, 2, 1>]) -> Vec<(f64, f64)> {
    let model = PlanarPendulum::default();
    let e0 = model.energy(&states[0].q, &states[0].v);
    states
        .iter()
        .map(|s| (s.t, (model.energy(&s.q, &s.v) - e0).abs()))
        .collect()
}

/// The reference angle at `T = 1`: the classical Runge–Kutta method on
/// `θ̈ = −g sin θ` at `h = 2⁻¹⁶`.
fn reference_q() -> SVector<f64, 2> {
    let (steps, g) = (1 << 16, 9.81);
    let h = 1.0 / f64::from(steps);
    let f = |[a, w]: [f64; 2]| [w, -g * f64::sin(a)];
    let mut y = [1.0, 0.0];
    for _ in 0..steps {
        let k1 = f(y);
        let k2 = f([y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
        let k3 = f([y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    SVector::from([y[0].sin(), -y[0].cos()])
}

/// `(seconds, |q(T) − q_ref(T)|)` of `Galerkin(S, W, Q, R)` at `n = n0 · 2ᵏ` steps.
fn work_precision<const S: usize, const W: usize, Q: Quadrature, const R: usize, const N: usize>(
    reference: &SVector<f64, 2>,
    counts: &[usize],
) -> Vec<(f64, f64)> {
    counts
        .iter()
        .map(|&n| {
            let mut times: Vec<f64> = (0..7)
                .map(|_| {
                    let clock = Instant::now();
                    std::hint::black_box(run::<S, W, Q, R, N>(1.0, n));
                    clock.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let last = run::<S, W, Q, R, N>(1.0, n);
            (times[3], (last[n].q - reference).norm())
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let _ = register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());

    // Fig. 2.
    let a = energy_error(&run::<5, 4, Gauss, 5, 14>(100.0, 1000));
    let b = energy_error(&run::<5, 3, Lobatto, 5, 13>(100.0, 10_000));
    let largest = |e: &[(f64, f64)]| e.iter().map(|p| p.1).fold(0.0, f64::max);
    println!(
        "Fig. 2: max |ΔE| over [0, 100]: (a) s = 5, Gauss(5), w = 4, h = 0.1: {:.2e}; (b) s = 5, Lobatto(5), w = 3, h = 0.01: {:.2e}",
        largest(&a),
        largest(&b)
    );
    let path = format!("{folder}/galerkin_fig2.svg");
    let root = SVGBackend::new(&path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = largest(&a).max(largest(&b)) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption("Energy error, planar pendulum (Fig. 2)", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..100.0, 0.0..top)?;
    chart
        .configure_mesh()
        .x_desc("t")
        .y_desc("|E − E₀|")
        .draw()?;
    let series = [
        (&b, RED, "(b) s = 5, Lobatto(5), w = 3, h = 0.01"),
        (&a, BLUE, "(a) s = 5, Gauss(5), w = 4, h = 0.1"),
    ];
    for (points, color, label) in series {
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    println!("wrote {path}");

    // Figs. 4 and 5.
    let reference = reference_q();
    let counts = [4, 8, 16, 32, 64, 128];
    let curves: Vec<(String, Vec<(f64, f64)>)> = vec![
        (
            "s = w = r = 1".into(),
            work_precision::<1, 1, Gauss, 1, 3>(&reference, &[64, 128, 256, 512, 1024, 2048]),
        ),
        (
            "s = w = r = 2".into(),
            work_precision::<2, 2, Gauss, 2, 6>(&reference, &counts),
        ),
        (
            "s = w = r = 3".into(),
            work_precision::<3, 3, Gauss, 3, 9>(&reference, &counts),
        ),
        (
            "s = w = r = 4".into(),
            work_precision::<4, 4, Gauss, 4, 12>(&reference, &counts[..5]),
        ),
        (
            "s = w = r = 5".into(),
            work_precision::<5, 5, Gauss, 5, 15>(&reference, &counts[..4]),
        ),
        (
            "s = w = r = 6".into(),
            work_precision::<6, 6, Gauss, 6, 18>(&reference, &counts[..3]),
        ),
        (
            "s = w = 2, Lobatto(3)".into(),
            work_precision::<2, 2, Lobatto, 3, 6>(&reference, &counts),
        ),
        (
            "s = w = 5, Lobatto(6)".into(),
            work_precision::<5, 5, Lobatto, 6, 15>(&reference, &counts[..4]),
        ),
    ];
    println!("Figs. 4 and 5: |q(1) − q_ref(1)| against the run time (median of 7)");
    for (label, points) in &curves {
        let cells: Vec<String> = points
            .iter()
            .map(|(t, e)| format!("{e:.1e} in {:.0} µs", t * 1e6))
            .collect();
        println!("  {label:24} {}", cells.join(", "));
    }
    let path = format!("{folder}/galerkin_fig4.svg");
    let root = SVGBackend::new(&path, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let all = curves.iter().flat_map(|c| c.1.iter());
    let (t_min, t_max) = all
        .clone()
        .fold((f64::MAX, 0.0f64), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Error against run time, planar pendulum (Figs. 4, 5)",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (t_min * 0.8..t_max * 1.2).log_scale(),
            (1e-15..1e-1).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("run time (s)")
        .y_desc("|q(1) − q_ref(1)|")
        .draw()?;
    let colors = [
        BLACK,
        BLUE,
        GREEN,
        CYAN,
        MAGENTA,
        RED,
        RGBColor(120, 120, 255),
        RGBColor(255, 140, 0),
    ];
    for ((label, points), color) in curves.iter().zip(colors) {
        let points: Vec<(f64, f64)> = points.iter().map(|&(t, e)| (t, e.max(1e-15))).collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
