//! RATTLE (spec 002 S2), the scheme added through the catalogue alone: without
//! constraints it is the Störmer–Verlet method, i.e. `LobattoIIIAIIIB(2)`, which reaches
//! the same trajectory by the other way to a step (assembled from point kernels); on the
//! paper's pendulum it holds both constraint levels at the nodes, conserves the
//! momentum map about the vertical, keeps the energy bounded and converges with order 2.
use livens::prelude::*;
use livens_models::Pendulum3d;

#[macro_use]
#[path = "../../benches/support/small_models.rs"]
mod small_models;

// Constant mass matrix, no constraints: on both ways to a step.
henon_heiles!(HenonHeiles, Rattle, LobattoIIIAIIIB(2));

/// The symbolic RATTLE and the assembled two-stage Lobatto IIIA–IIIB pair are the same
/// map: over 1000 steps their states agree to round-off.
#[test]
fn without_constraints_rattle_is_stormer_verlet_by_the_other_path() {
    let model = HenonHeiles::new();
    let (q0, v0) = (SVector::from([0.3, -0.2]), SVector::from([0.1, 0.4]));
    let node = NodeState::consistent(&model, q0, v0, Consistency::Reject { tolerance: 0.0 })
        .expect("no constraints");
    let h = 0.05;
    let mut rattle = Integrator::new(model, Rattle, h, node);
    let mut verlet = Integrator::new(
        model,
        LobattoIIIAIIIB::<2>,
        h,
        PhaseState::from_velocities(&model, q0, v0),
    );
    let tight = NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    };
    rattle = rattle.with_options(tight);
    verlet = verlet.with_options(tight);
    let mut worst: f64 = 0.0;
    for _ in 0..1000 {
        rattle.step().expect("RATTLE converges");
        verlet.step().expect("Lobatto IIIA-IIIB converges");
        let (a, b) = (rattle.state(), verlet.state());
        worst = worst.max((a.q - b.q).amax()).max((a.p - b.p).amax());
    }
    println!("max |RATTLE − Lobatto IIIA–IIIB(2)| over 1000 steps: {worst:.2e}");
    assert!(worst < 1e-13, "{worst:e}");
}

/// The paper's pendulum: both constraint levels at Newton's tolerance at every node, the
/// vertical angular momentum to round-off, the energy bounded: its error over the
/// second half of 4000 steps (100 s) is no larger than over the first, where a drift
/// would double it.
#[test]
fn constraints_hold_at_the_nodes_and_energy_stays_bounded() {
    let model = Pendulum3d::new();
    let node = model.initial_state().expect("paper's data are consistent");
    let mut sim = Integrator::new(model, Rattle, Pendulum3d::DEFAULT_STEP, node);
    let h0 = Diagnostics::of(&model, &node).hamiltonian;
    let j0 = model.momentum_maps(&node.q, &node.p)[0];
    let (mut g, mut gv, mut dj): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let mut de = [0.0_f64; 2];
    for n in 0..4000 {
        sim.step().expect("RATTLE converges at the paper's step");
        let s = sim.state();
        let d = Diagnostics::of(&model, s);
        g = g.max(d.position_residual);
        gv = gv.max(d.velocity_residual);
        de[n / 2000] = de[n / 2000].max((d.hamiltonian - h0).abs());
        dj = dj.max((model.momentum_maps(&s.q, &s.p)[0] - j0).abs());
    }
    println!(
        "4000 steps: max|g| {g:.1e}, max|G M⁻¹ p| {gv:.1e}, max|ΔJ| {dj:.1e}, \
         max|ΔH| {:.3e} then {:.3e} (H⁰ = {h0:.3})",
        de[0], de[1]
    );
    assert!(g < 1e-9 && gv < 1e-9, "{g:e} {gv:e}");
    assert!(dj < 1e-11, "{dj:e}");
    assert!(de[1] < 1.05 * de[0], "energy drifts: {de:?}");
}

/// Order 2 in q and p, measured against a run with a quarter of the smallest step.
#[test]
fn second_order() {
    let model = Pendulum3d::new();
    let node = model.initial_state().expect("consistent");
    let t_end = 1.0;
    let run = |h: f64| {
        let mut sim = Integrator::new(model, Rattle, h, node).with_options(NewtonOptions {
            tolerance: 1e-13,
            ..NewtonOptions::default()
        });
        sim.run((t_end / h).round() as usize).expect("converges");
        (sim.state().q, sim.state().p)
    };
    let (q_ref, p_ref) = run(0.0025 / 4.0);
    let errors: Vec<(f64, f64)> = [0.01, 0.005, 0.0025]
        .iter()
        .map(|&h| {
            let (q, p) = run(h);
            ((q - q_ref).amax(), (p - p_ref).amax())
        })
        .collect();
    for w in errors.windows(2) {
        let (oq, op) = ((w[0].0 / w[1].0).log2(), (w[0].1 / w[1].1).log2());
        println!("orders: q {oq:.2}, p {op:.2}");
        assert!(
            (oq - 2.0).abs() < 0.15 && (op - 2.0).abs() < 0.15,
            "{oq} {op}"
        );
    }
}
