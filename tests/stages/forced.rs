//! Generalized forces in the assembled stage families (the discrete Lagrange–d'Alembert
//! principle, spec `next_packages.md` §D.2: `Wⁱ = D₁L(Qⁱ, Vⁱ) + F(Qⁱ, Vⁱ, t⁰ + cᵢ h)`):
//! on the forced, damped oscillator the Lobatto IIIA–IIIB pair keeps its order `2s − 2`
//! in `q` and `p` against the closed-form solution, and EML keeps its discrete power
//! balance `Eⁿ⁺¹ − Eⁿ = h F(q^½, v^½, tⁿ + h/2)·v^½` (spec 001).
use livens::prelude::*;
use livens_models::ForcedOscillator;

/// The horizon of the convergence study: about one free period, the free and the forced
/// responses both present.
const T: f64 = 3.0;

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

/// `(|q − x(T)|, |p − m ẋ(T)|)` after `steps` steps of `LobattoIIIAIIIB<S>`.
fn errors<const S: usize>(steps: u32) -> (f64, f64)
where
    ForcedOscillator<f64>: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 1>>,
{
    let model = ForcedOscillator::new();
    let (q0, v0) = ForcedOscillator::initial_positions_velocities();
    let start = PhaseState::from_velocities(&model, q0, v0);
    let h = T / f64::from(steps);
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<S>, h, start).with_options(tight());
    sim.run(steps as usize).expect("Newton converges");
    let end = sim.state();
    assert!((end.t - T).abs() <= 1e-12, "t = {}", end.t);
    let (x, v) = model.exact(T, q0[0], v0[0]);
    ((end.q[0] - x).abs(), (end.p[0] - model.m * v).abs())
}

/// The observed orders `log₂(e(h)/e(h/2))` of `q` and `p` over two halvings from `T/n0`,
/// asserted within ±0.3 of `2s − 2`, with every error above `floor` (well above
/// round-off, so that the orders are the method's).
fn orders<const S: usize>(n0: u32, floor: f64) -> [[f64; 2]; 2]
where
    ForcedOscillator<f64>: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 1>>,
{
    let e: [(f64, f64); 3] = core::array::from_fn(|k| errors::<S>(n0 << k));
    let expected = (2 * S - 2) as f64;
    let mut observed = [[0.0; 2]; 2];
    for k in 0..2 {
        observed[k] = [(e[k].0 / e[k + 1].0).log2(), (e[k].1 / e[k + 1].1).log2()];
    }
    let shown: Vec<String> = e
        .iter()
        .map(|(q, p)| format!("({q:.2e}, {p:.2e})"))
        .collect();
    println!("s = {S}: errors (q, p) {shown:?}, orders {observed:.2?}");
    for (k, &(eq, ep)) in e.iter().enumerate() {
        assert!(
            eq > floor && ep > floor,
            "s = {S}, T/{}: {eq:e} {ep:e}",
            n0 << k
        );
    }
    for (k, pair) in observed.iter().enumerate() {
        for (name, &o) in ["q", "p"].iter().zip(pair) {
            assert!(
                (o - expected).abs() <= 0.3,
                "s = {S}, halving {k}: order of {name} {o:.2}, expected {expected}"
            );
        }
    }
    observed
}

#[test]
fn lobatto_iiia_iiib_keeps_order_two_with_forces() {
    orders::<2>(40, 1e-9);
}

#[test]
fn lobatto_iiia_iiib_keeps_order_four_with_forces() {
    orders::<3>(10, 1e-10);
}

#[test]
fn lobatto_iiia_iiib_keeps_order_six_with_forces() {
    orders::<4>(5, 1e-11);
}

/// The forces matter: without their stage terms the trajectory would be the free,
/// undamped oscillator's; with them the step follows the exact solution.
#[test]
fn the_forces_enter_the_stage_family() {
    let (eq, ep) = errors::<3>(60);
    assert!(eq <= 1e-6 && ep <= 1e-6, "{eq:e} {ep:e}");
}

/// EML's discrete power balance with a force in `v` and `t` (spec 001:
/// `Eⁿ⁺¹ − Eⁿ = h F(q^½, v^½, tⁿ + h/2)·v^½`, `E = p·v − L`), step by step.
#[test]
fn eml_keeps_the_power_balance_of_the_forced_oscillator() {
    let model = ForcedOscillator::new();
    let start = model.initial_state().expect("an unconstrained node");
    let h = ForcedOscillator::DEFAULT_STEP;
    let mut sim = Integrator::new(model, Eml, h, start).with_options(tight());
    let energy = |s: &NodeState<f64, 1, 0>| s.p.dot(&s.v) - model.lagrangian(&s.q, &s.v);
    let (mut balance, mut work_total) = (0.0_f64, 0.0_f64);
    for _ in 0..400 {
        let before = *sim.state();
        sim.step().expect("Newton converges");
        let after = *sim.state();
        let (qm, vm) = ((before.q + after.q) / 2.0, (before.v + after.v) / 2.0);
        let work = h * model.forces(before.t + h / 2.0, &qm, &vm, &[]).dot(&vm);
        work_total += work.abs();
        balance = balance.max((energy(&after) - energy(&before) - work).abs());
    }
    println!("EML: power balance {balance:.1e}, Σ|work| {work_total:.2}");
    assert!(work_total > 1.0, "the forces do work: {work_total}");
    assert!(balance <= 1e-12, "{balance:e}");
}
