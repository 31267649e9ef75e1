//! A particle on a torus (`livens_models::ParticleOnTorus`): the energy–momentum schemes
//! with a holonomic constraint of degree 4 (spec 000 §2.6, spec 001 §2.1). The constraint
//! is written through the invariants `ρ²`, `z²`, so EM, EM-G and EML conserve the energy
//! and the momentum map `J₃` of the rotation about e3 to round-off, with `g = 0` at every
//! node; the same torus written in the coordinates keeps the energy but not `J₃`.
use livens::prelude::*;
use livens_models::ParticleOnTorus;

/// The drift is this model's point: `model!`'s warning that its momentum maps may
/// drift (`macros/src/check/momentum_drift.rs`) is expected here.
#[allow(deprecated)]
mod drifting {
    livens::model! {
        /// The same torus with the constraint written in the coordinates: its discrete
        /// gradients are Gonzalez's formula in `q`, directional (energy exact) but not
        /// orthogonal to the rotation (spec 000 §2.6's warning).
        pub struct TorusInCoordinates {
            params { m = 1.0, g = 9.81, big_r = 2.0, small_r = 0.5 }
            coords { x: Vec3 }
            kinetic = 0.5 * m * dot(x_dot, x_dot);
            potential = m * g * x.z;
            holonomic {
                torus: ((dot(x, x) + big_r * big_r - small_r * small_r).powi(2)
                    - 4.0 * big_r * big_r * (x.x * x.x + x.y * x.y))
                    / (8.0 * big_r * big_r * small_r),
            }
            momentum { j3: rotation(e3) }
            schemes { GglEm, GglEmG, Eml }
        }
    }
}
use drifting::TorusInCoordinates;

const H: f64 = ParticleOnTorus::DEFAULT_STEP;

/// `J₃ = (x × p)·e3`.
fn j3(s: &NodeState<f64, 3, 1>) -> f64 {
    s.q[0] * s.p[1] - s.q[1] * s.p[0]
}

/// What a run measured: the largest relative drifts of the energy (`E = p·v − L` with
/// the state's own `v`) and of `J₃`, and the largest `|g|`, `|G M⁻¹ p|`, `|γ|` at the
/// nodes.
#[derive(Debug, Default)]
struct Run {
    energy: f64,
    j3: f64,
    g: f64,
    gv: f64,
    gamma: f64,
}

fn run<Mdl, S>(model: Mdl, scheme: S, steps: usize) -> Run
where
    Mdl: Step<f64, S, State = NodeState<f64, 3, 1>> + Model<f64, 3, 1> + Copy,
    S: SchemeInfo + Copy,
{
    let (q, v) = ParticleOnTorus::initial_positions_velocities();
    let start = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-14 })
        .expect("on the torus");
    let e0 = Diagnostics::of(&model, &start).energy;
    let j0 = j3(&start);
    let mut sim = Integrator::new(model, scheme, H, start);
    let mut out = Run::default();
    for _ in 0..steps {
        sim.step().expect("Newton converges");
        let s = sim.state();
        let d = Diagnostics::of(&model, s);
        out.energy = out.energy.max((d.energy - e0).abs() / e0.abs());
        out.j3 = out.j3.max((j3(s) - j0).abs() / j0.abs());
        out.g = out.g.max(d.position_residual);
        out.gv = out.gv.max(d.velocity_residual);
        out.gamma = out.gamma.max(s.gamma.amax());
    }
    out
}

/// The spec item's acceptance: over 10⁴ steps, relative energy and `J₃` drifts ≤ 1e-12
/// and `|g| ≤ 1e-12` at every node, for EM, EM-G and EML; EM also keeps `G M⁻¹ p = 0`.
#[test]
fn invariant_constraint_conserves_energy_and_j3() {
    let model = ParticleOnTorus::new();
    for (label, r) in [
        ("EM", run(model, GglEm, 10_000)),
        ("EM-G", run(model, GglEmG, 10_000)),
        ("EML", run(model, Eml, 10_000)),
    ] {
        eprintln!("{label}: {r:?}");
        assert!(r.energy <= 1e-12, "{label}: energy {r:?}");
        assert!(r.j3 <= 1e-12, "{label}: J3 {r:?}");
        assert!(r.g <= 1e-12, "{label}: g {r:?}");
        if label == "EM" {
            assert!(r.gv <= 1e-12, "{label}: G M⁻¹ p {r:?}");
        }
    }
}

/// The negative control: the constraint written in the coordinates keeps the energy
/// (directionality) and `g = 0`, but its Gonzalez gradient is not orthogonal to the
/// rotation, and `J₃` drifts.
#[test]
fn coordinate_constraint_keeps_energy_but_not_j3() {
    let model = TorusInCoordinates::new();
    for (label, r) in [
        ("EM", run(model, GglEm, 10_000)),
        ("EM-G", run(model, GglEmG, 10_000)),
        ("EML", run(model, Eml, 10_000)),
    ] {
        eprintln!("{label} in coordinates: {r:?}");
        assert!(r.energy <= 1e-12 && r.g <= 1e-12, "{label}: {r:?}");
        assert!(r.j3 > 1e-6, "{label}: J3 kept to {:e}", r.j3);
    }
}

/// `(q, p)` at `t = T` from the initial state with `n` steps.
fn endpoint<S: SchemeInfo + Copy>(scheme: S, t: f64, n: usize) -> NodeState<f64, 3, 1>
where
    ParticleOnTorus: Step<f64, S, State = NodeState<f64, 3, 1>>,
{
    let model = ParticleOnTorus::new();
    let start = model.initial_state().expect("on the torus");
    let mut sim = Integrator::new(model, scheme, t / n as f64, start);
    for _ in 0..n {
        sim.step().expect("Newton converges");
    }
    *sim.state()
}

/// Second order in `q` and `p`: errors at `T = 0.64` over `h = T/16, T/32, T/64, T/128`
/// against the same scheme at `h = T/4096`; each halving divides the error by 4 (slopes
/// within 0.1 of 2).
#[test]
fn second_order() {
    fn slopes<S: SchemeInfo + Copy>(scheme: S) -> (Vec<f64>, Vec<f64>, Vec<f64>)
    where
        ParticleOnTorus: Step<f64, S, State = NodeState<f64, 3, 1>>,
    {
        let t = 0.64;
        let reference = endpoint(scheme, t, 4096);
        let (mut eq, mut ep) = (Vec::new(), Vec::new());
        for n in [16, 32, 64, 128] {
            let s = endpoint(scheme, t, n);
            eq.push((s.q - reference.q).amax());
            ep.push((s.p - reference.p).amax());
        }
        let slope = |e: &[f64]| e.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        let (sq, sp) = (slope(&eq), slope(&ep));
        let sci = |e: &[f64]| e.iter().map(|x| format!("{x:.2e}")).collect::<Vec<_>>();
        let (fq, fp) = (sci(&eq), sci(&ep));
        eprintln!(
            "{}: e_q {fq:?} slopes {sq:.3?}; e_p {fp:?} slopes {sp:.3?}",
            S::LABEL
        );
        (eq, sq, sp)
    }
    for (label, (_, sq, sp)) in [
        ("EM", slopes(GglEm)),
        ("EM-G", slopes(GglEmG)),
        ("EML", slopes(Eml)),
    ] {
        for s in sq.iter().chain(&sp) {
            assert!((s - 2.0).abs() <= 0.1, "{label}: slopes {sq:?} {sp:?}");
        }
    }
}
