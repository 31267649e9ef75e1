//! Control inputs (spec `next_packages.md` §D.2): declared in an `inputs` block, read by
//! the `forces`, held over each step (zero-order hold) and changed between steps through
//! `Integrator::set_inputs`. EML keeps its discrete power balance with the input's work;
//! the stage family's trajectory under a held input is the one the same force written
//! as a parameter gives.
use livens::prelude::*;
use livens_models::CartPole;

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

/// The push of a controller that changes it every step: a chirp of a few newtons.
fn push(k: u32) -> f64 {
    let t = f64::from(k) * 0.02;
    3.0 * (2.0 * t + 0.3 * t * t).sin()
}

/// `Eⁿ⁺¹ − Eⁿ = h F(q^½, v^½, tⁿ + h/2, uₙ)·v^½` (spec 001's balance with the input
/// held over the step), step by step, to 1e-11 of the energy's scale.
#[test]
fn eml_keeps_the_power_balance_with_inputs() {
    let model = CartPole::new();
    let start = NodeState::consistent(
        &model,
        SVector::from([0.0, 0.3]),
        SVector::from([0.2, -0.1]),
        Consistency::Reject { tolerance: 1e-12 },
    )
    .unwrap();
    let h = 0.02;
    let mut sim = Integrator::new(model, Eml, h, start).with_options(tight());
    let energy = |s: &NodeState<f64, 2, 0>| s.p.dot(&s.v) - model.lagrangian(&s.q, &s.v);
    let scale = energy(&start).abs().max(1.0);
    let (mut balance, mut work_total) = (0.0_f64, 0.0_f64);
    for k in 0..300 {
        let u = [push(k)];
        sim.set_inputs(u).unwrap();
        let before = *sim.state();
        sim.step().expect("Newton converges");
        let after = *sim.state();
        let (qm, vm) = ((before.q + after.q) / 2.0, (before.v + after.v) / 2.0);
        let work = h * model.forces(before.t + h / 2.0, &qm, &vm, &u).dot(&vm);
        work_total += work.abs();
        balance = balance.max((energy(&after) - energy(&before) - work).abs() / scale);
    }
    println!("EML with inputs: power balance {balance:.1e} of the energy, Σ|work| {work_total:.2}");
    assert!(work_total > 0.1, "the input does work: {work_total}");
    assert!(balance <= 1e-11, "{balance:e}");
}

/// The inputs reach the stage family's step: the cart-pole's `x` is cyclic and the force
/// acts on it alone (`ṗ_x = u`), so the momentum along the rail, a momentum map of the
/// variational scheme, grows by exactly the impulse `Σ h uₖ` of the held inputs. (EML's
/// discrete gradient of the kinetic energy has an `x` component where `x` moves, so
/// there it changes by more; its balance is the energy's, above.)
#[test]
fn the_rail_momentum_takes_the_impulse_of_the_inputs() {
    let model = CartPole::new();
    let (q, v) = (SVector::from([0.0, 0.3]), SVector::zeros());
    let h = 0.02;
    let start = PhaseState::from_velocities(&model, q, v);
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<3>, h, start).with_options(tight());
    let mut impulse = 0.0;
    for k in 0..200 {
        let u = [push(k)];
        sim.set_inputs(u).unwrap();
        sim.step().unwrap();
        impulse += h * u[0];
        let p_x = sim.state().p[0];
        assert!(
            (p_x - impulse).abs() <= 1e-12,
            "p_x {p_x} against {impulse}"
        );
    }
    assert!(impulse.abs() > 0.1, "the push has an impulse: {impulse}");
}
