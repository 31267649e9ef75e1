//! The 3D pendulum of the GGL paper with the energy–momentum scheme: energy and the
//! vertical angular momentum stay constant to round-off, both constraint levels hold.
use livens::prelude::*;
use livens_models::Pendulum3d;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Pendulum3d::default();
    let state = model.initial_state()?;
    let mut sim = Integrator::new(model, GglEm, Pendulum3d::DEFAULT_STEP, state);
    let d0 = Diagnostics::of(sim.model(), sim.state());
    let j0 = sim.model().momentum_maps(&sim.state().q, &sim.state().p)[0];
    println!(
        "{:>6} {:>12} {:>10} {:>10} {:>10} {:>5}",
        "t", "q_3", "ΔH", "ΔJ₃", "|g|", "iters"
    );
    for n in 1..=200 {
        let report = sim.step()?;
        if n % 20 == 0 {
            let s = sim.state();
            let d = Diagnostics::of(sim.model(), s);
            let j = sim.model().momentum_maps(&s.q, &s.p)[0];
            println!(
                "{:>6.2} {:>12.8} {:>10.1e} {:>10.1e} {:>10.1e} {:>5}",
                s.t,
                s.q[2],
                d.hamiltonian - d0.hamiltonian,
                j - j0,
                d.position_residual,
                report.iterations
            );
        }
    }
    Ok(())
}
