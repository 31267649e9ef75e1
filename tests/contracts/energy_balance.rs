//! A converged step of an energy-conserving scheme whose energy balance fails is refused
//! (`SolveError::EnergyBalance`), as a failed solve is, and leaves the state as it was:
//! the free rigid body with the paper's Null-EML (`NullEmlPaper`; the stabilised default
//! never meets it) at `h = 0.05` (spec 001 §3.3's data) meets such a
//! step at step 160, where Newton takes 24 iterations to another root of the step
//! equations. Two half steps from the refused state keep the energy, so the refusal
//! was the root's fault, not the check's.
use livens::families::two_point::{energy_balance, ENERGY_BALANCE_TOLERANCES};
use livens::prelude::*;
use livens::SolveError;
use livens_models::FreeBody;

type State = NodeState<f64, 4, 1>;

/// `E = p·v − L(q, v)`, the energy the Livens schemes keep (with the state's own `v`),
/// written out here rather than read from the check.
fn energy(model: &FreeBody<f64>, s: &State) -> f64 {
    s.p.dot(&s.v) - model.lagrangian(&s.q, &s.v)
}

#[test]
fn a_step_to_another_root_is_refused_and_the_state_kept() {
    let model = FreeBody::new();
    let start = model.initial_state().expect("the paper's data");
    let h = 0.05;
    let mut sim = Integrator::new(model, NullEmlPaper, h, start);
    let e0 = energy(&model, &start);
    let mut refused = None;
    for k in 1..=400 {
        let before = *sim.state();
        match sim.step() {
            Ok(report) => {
                // Every accepted step keeps the energy far within the check's bound.
                let de = energy(&model, sim.state()) - energy(&model, &before);
                assert!(de.abs() <= 1e-14 * e0 * 10.0, "step {k}: ΔE {de:e}");
                assert!(report.iterations <= 10, "step {k}: {report:?}");
            }
            Err(error) => {
                // Nothing written: the state is the one before the step, bit for bit.
                assert_eq!(*sim.state(), before, "step {k} wrote the state");
                refused = Some((k, error, before));
                break;
            }
        }
    }
    let (k, error, before) = refused.expect("the run meets the other root");
    let message = error.to_string();
    println!("step {k}: {message}");
    assert_eq!(k, 160);
    match error {
        SolveError::EnergyBalance {
            change,
            allowed,
            iterations,
        } => {
            assert!(iterations >= 20, "{iterations} iterations");
            assert!((change.abs() - 7.4e-4).abs() < 0.1e-4, "ΔE {change:e}");
            // The bound: ten default tolerances times p⁰·v⁰ (6 764 here, above E⁰ = 2500).
            let scale = before.p.dot(&before.v);
            let want = ENERGY_BALANCE_TOLERANCES * 1e-9 * scale;
            assert!(
                (allowed / want - 1.0).abs() < 1e-12,
                "{allowed:e} against {want:e}"
            );
            assert!(
                change.abs() > 10.0 * allowed,
                "{change:e} against {allowed:e}"
            );
        }
        other => panic!("expected the energy balance's error, got {other:?}"),
    }
    assert!(
        message.contains("another root") && message.contains("smaller step size"),
        "{message}"
    );
    // Two half steps from the refused state: the step the solver should have found.
    sim.set_step_size(h / 2.0);
    for _ in 0..2 {
        let report = sim.step().expect("half steps converge to the step");
        assert!(report.iterations <= 10, "{report:?}");
    }
    let de = energy(&model, sim.state()) - energy(&model, &before);
    assert!(de.abs() <= 1e-13 * e0, "ΔE over the half steps {de:e}");
}

/// The check itself, on states built by hand: an energy change within ten tolerances of
/// the scale passes, beyond it (or NaN) is refused with the numbers; a tolerance below
/// round-off is raised to `64 ε`.
#[test]
fn the_bound_is_ten_tolerances_of_the_energys_scale() {
    let model = FreeBody::new();
    let start = model.initial_state().expect("the paper's data");
    let scale = start.p.dot(&start.v).max(energy(&model, &start).abs());
    let moved = |dp: f64| State {
        p: start.p * (1.0 + dp),
        ..start
    };
    // E = p·v − L changes by dp·p·v when only p moves.
    let tolerance = 1e-9;
    let allowed = ENERGY_BALANCE_TOLERANCES * tolerance * scale;
    let inside = 0.5 * allowed / start.p.dot(&start.v);
    assert_eq!(
        energy_balance(&model, &start, &moved(inside), tolerance, 3),
        Ok(())
    );
    let outside = 2.0 * allowed / start.p.dot(&start.v);
    match energy_balance(&model, &start, &moved(outside), tolerance, 3) {
        Err(SolveError::EnergyBalance {
            change,
            allowed: got,
            iterations: 3,
        }) => {
            assert!((change / (2.0 * allowed) - 1.0).abs() < 1e-6, "{change:e}");
            assert!((got / allowed - 1.0).abs() < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    assert!(energy_balance(&model, &start, &moved(f64::NAN), tolerance, 3).is_err());
    // A tolerance of 1e-20 is read as 64 ε: round-off in p·v still passes.
    assert_eq!(
        energy_balance(&model, &start, &moved(1e-16), 1e-20, 3),
        Ok(())
    );
}
