//! The same generated code in single precision, as a controller on a microcontroller
//! would run it (`livens-models` builds for `thumbv7em-none-eabihf`; CI checks that).
//! The state is prepared in f64 and converted once; every step then runs in f32 with the
//! default Newton options, whose tolerance follows the scalar (1000 ε = 1.2e-4 for f32,
//! where the paper's 1e-9 is out of reach).
use livens::prelude::*;
use livens_models::Pendulum3d;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let state64 = Pendulum3d::new().initial_state()?;
    let model = Pendulum3d::<f32>::default();
    let mut sim = Integrator::new(model, GglEm, 0.05f32, state64.map(|x| x as f32));
    let e0 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
    let mut worst = 0.0f32;
    for _ in 0..200 {
        sim.step()?;
        let d = Diagnostics::of(sim.model(), sim.state());
        worst = worst.max((d.hamiltonian - e0).abs());
    }
    println!(
        "f32 EM, 200 steps: max |ΔH| = {worst:.1e} (H⁰ = {e0}), final q₃ = {}",
        sim.state().q[2]
    );
    Ok(())
}
