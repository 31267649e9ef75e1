//! The stability experiment of the GGL paper (Sect. 6.3, Figs. 31–33) as a scan: for
//! each scheme, the largest step size h on a grid such that the four-particle system
//! stays stable up to T = 100 at that h and every smaller grid value. Unstable means a
//! relative energy error above 100 % or a failed Newton solve (spec 000 §3.3).
use livens::prelude::*;
use livens_models::FourParticles;

const T_END: f64 = 100.0;

/// Whether the run at step `h` stays stable to `T_END`, and if not, when and why.
fn stable<S: SchemeInfo + Copy>(scheme: S, h: f64) -> Result<(), (f64, &'static str)>
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let model = FourParticles::new();
    let state = model
        .initial_state()
        .map_err(|_| (0.0, "inconsistent data"))?;
    let h0 = Diagnostics::of(&model, &state).hamiltonian;
    let mut sim = Integrator::new(model, scheme, h, state);
    while sim.state().t < T_END {
        sim.step().map_err(|_| (sim.state().t, "Newton fails"))?;
        let dev = (Diagnostics::of(&model, sim.state()).hamiltonian - h0).abs() / h0;
        if dev.is_nan() || dev > 1.0 {
            return Err((sim.state().t, "energy error > 100 %"));
        }
    }
    Ok(())
}

fn scan<S: SchemeInfo + Copy>(scheme: S)
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let grid = (1..=140).map(|k| 0.005 * f64::from(k));
    let mut largest = None;
    for h in grid {
        match stable(scheme, h) {
            Ok(()) => largest = Some(h),
            Err((t, why)) => {
                let last = largest.map_or_else(|| "none".to_string(), |h: f64| format!("{h:.3}"));
                println!(
                    "{:<5} largest stable h = {last:>6}   (at h = {h:.3}: {why} at t = {t:.2})",
                    S::LABEL
                );
                return;
            }
        }
    }
    println!("{:<5} stable on the whole grid up to h = 0.700", S::LABEL);
}

fn main() {
    println!("four-particle system, T = {T_END}, grid h = 0.005, 0.010, …, 0.700");
    scan(GglViS);
    scan(GglViA);
    scan(GglViB);
    scan(GglEm);
    scan(GglEmG);
}
