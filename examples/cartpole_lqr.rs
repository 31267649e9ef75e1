//! Balancing the cart-pole with a discrete LQR gain designed on the linearised step
//! (spec `next_packages.md` §D.4): linearise `LobattoIIIAIIIB(2)` at the upright
//! equilibrium with `h = 0.01` (`A = ∂z⁺/∂z`, `B = ∂z⁺/∂u` on `z = (q, p)`), solve the
//! discrete Riccati equation for `Q = diag(10, 100, 1, 1)` on `(x, θ, ẋ, θ̇)` and
//! `R = 1`, then run the nonlinear cart-pole in closed loop from θ₀ = 0.2 and 0.5, the
//! push held between samples (zero-order hold), the plant stepped by
//! `LobattoIIIAIIIB(3)` at a quarter of the sample time. Prints the gain, the closed
//! loop's spectral radius and the figures of both runs, and plots the state and the
//! input over time to `cartpole_lqr.svg` (or the path given as the first argument).
//!
//! ```text
//! cargo run --release --example cartpole_lqr
//! ```
use livens::control::dlqr;
use livens::prelude::*;
use livens_models::CartPole;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// The control period and the plant's substeps in it.
const H: f64 = 0.01;
const SUBSTEPS: usize = 4;
const SPAN: f64 = 10.0;

/// One sample of a closed-loop run: the time, `(x, θ, ẋ, θ̇)` and the push.
type Sample = (f64, [f64; 4], f64);

/// One closed-loop run from the angle `theta0`, at rest.
fn run(k: &SMatrix<f64, 1, 4>, theta0: f64) -> Result<Vec<Sample>, SolveError<f64>> {
    let model = CartPole::new();
    let start = PhaseState::from_velocities(&model, SVector::from([0.0, theta0]), SVector::zeros());
    let mut plant = Integrator::new(model, LobattoIIIAIIIB::<3>, H / SUBSTEPS as f64, start);
    let mut samples = Vec::new();
    for _ in 0..(SPAN / H).round() as usize {
        let s = *plant.state();
        let z = SVector::from([s.q[0], s.q[1], s.p[0], s.p[1]]);
        let u = -(k * z)[0];
        samples.push((s.t, [s.q[0], s.q[1], s.v[0], s.v[1]], u));
        plant.set_inputs([u])?;
        plant.run(SUBSTEPS)?;
    }
    Ok(samples)
}

fn plot(path: &str, runs: &[(f64, Vec<Sample>)]) -> Result<(), Box<dyn std::error::Error>> {
    let _ = register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(420);
    let colors = [BLUE, RED, GREEN, MAGENTA];
    let names = ["x", "θ", "ẋ", "θ̇"];
    let mut state = ChartBuilder::on(&top)
        .caption("cart-pole under LQR: state", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..SPAN, -1.5..1.5)?;
    state.configure_mesh().x_desc("t").draw()?;
    for (theta0, samples) in runs {
        for (c, name) in names.iter().enumerate() {
            let dashed = *theta0 > 0.3;
            let color = colors[c].mix(if dashed { 0.5 } else { 1.0 });
            state
                .draw_series(LineSeries::new(
                    samples.iter().map(|s| (s.0, s.1[c])),
                    color,
                ))?
                .label(format!("{name} (θ₀ = {theta0})"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], color));
        }
    }
    state.configure_series_labels().border_style(BLACK).draw()?;
    let mut input = ChartBuilder::on(&bottom)
        .caption("input u (push on the cart)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..SPAN, -20.0..20.0)?;
    input.configure_mesh().x_desc("t").draw()?;
    for (theta0, samples) in runs {
        let color = if *theta0 > 0.3 { RED } else { BLUE };
        input
            .draw_series(LineSeries::new(samples.iter().map(|s| (s.0, s.2)), color))?
            .label(format!("θ₀ = {theta0}"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 15, y)], color));
    }
    input.configure_series_labels().border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The linearised step at the upright equilibrium, at rest, no push.
    let upright = PhaseState::from_velocities(&CartPole::new(), SVector::zeros(), SVector::zeros());
    let mut sim = Integrator::new(CartPole::new(), LobattoIIIAIIIB::<2>, H, upright);
    let step = sim.linearize()?;
    // Weights on (x, θ, ẋ, θ̇), moved to z = (q, p) = T (q, v), T = diag(I, M*).
    let mut t = SMatrix::<f64, 4, 4>::identity();
    t.fixed_view_mut::<2, 2>(2, 2)
        .copy_from(&SMatrix::<f64, 2, 2>::new(1.1, 0.05, 0.05, 0.025));
    let t_inv = t.try_inverse().ok_or("T is invertible")?;
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from([10.0, 100.0, 1.0, 1.0]));
    let r = SMatrix::<f64, 1, 1>::new(1.0);
    let lqr = dlqr(
        &step.a,
        &step.b,
        (&(t_inv.transpose() * q * t_inv), &r),
        1e-14,
        100_000,
    )?;
    let rho = (step.a - step.b * lqr.k)
        .complex_eigenvalues()
        .iter()
        .fold(0.0f64, |m, e| m.max(e.norm()));
    println!("A = {}B = {}", step.a, step.b);
    println!("K on (x, θ, p_x, p_θ) = {:.8}", lqr.k);
    println!("K on (x, θ, ẋ, θ̇)     = {:.8}", lqr.k * t);
    println!(
        "ρ(A − BK) = {rho:.8} ({} Riccati iterations)",
        lqr.iterations
    );
    let mut runs = Vec::new();
    for theta0 in [0.2, 0.5] {
        let samples = run(&lqr.k, theta0)?;
        let last = samples.last().ok_or("a run has samples")?;
        let end = last.1.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let max_u = samples.iter().fold(0.0f64, |m, s| m.max(s.2.abs()));
        println!(
            "θ₀ = {theta0}: max|state| at t = {:.2} is {end:.2e}, max|u| = {max_u:.2}",
            last.0
        );
        runs.push((theta0, samples));
    }
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "cartpole_lqr.svg".into());
    plot(&path, &runs)?;
    println!("plot: {path}");
    Ok(())
}
