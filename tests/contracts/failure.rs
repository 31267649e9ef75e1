//! Failure is reported, never hidden: a failed Newton solve returns an error whose
//! message carries the numbers, leaves the integrator's state bit for bit unchanged,
//! and the integrator continues normally afterwards; inconsistent initial data are
//! rejected with the residual reported, or projected onto the constraint manifold.
use livens::prelude::*;
use livens::{InitError, SolveError};
use livens_models::{LagrangeTop, Pendulum3d};

/// Normal steps taken before the failing one, so that it fails mid-trajectory.
const BEFORE: usize = 10;
/// Normal steps taken after the failing one.
const AFTER: usize = 20;

/// How a step is made to fail.
#[derive(Clone, Copy, Debug)]
enum Provoke {
    /// A step size far beyond the basin of Newton's method from the simple guess.
    StepSize(f64),
    /// An iteration budget too small for the tolerance at the normal step size.
    Budget(u32),
}

fn assert_finite<const D: usize, const M: usize>(label: &str, s: &NodeState<f64, D, M>) {
    let finite = s.t.is_finite()
        && [
            s.q.as_slice(),
            s.v.as_slice(),
            s.p.as_slice(),
            s.lambda.as_slice(),
            s.gamma.as_slice(),
        ]
        .iter()
        .all(|block| block.iter().all(|x| x.is_finite()));
    assert!(finite, "{label}: state contains NaN/inf: {s:?}");
}

/// The error's message names the iteration and (where there is one) the residual.
fn assert_message_explains(label: &str, err: &SolveError<f64>) {
    let msg = err.to_string();
    println!("{label}: {msg}");
    match *err {
        SolveError::MaxIterations {
            iterations,
            residual,
        } => {
            assert!(residual.is_finite() && residual > 1e-9, "{label}: {err:?}");
            assert!(
                msg.contains(&format!("{iterations} iterations")),
                "{label}: {msg}"
            );
            assert!(
                msg.contains(&format!("residual {residual:?}")),
                "{label}: {msg}"
            );
        }
        SolveError::Diverged {
            iteration,
            residual,
            previous,
        } => {
            assert!(residual > previous, "{label}: {err:?}");
            assert!(
                msg.contains(&format!("iteration {iteration}")),
                "{label}: {msg}"
            );
        }
        SolveError::NonFinite { iteration } => {
            assert!(
                msg.contains(&format!("iteration {iteration}")),
                "{label}: {msg}"
            );
        }
        SolveError::SingularJacobian { iteration, column } => {
            assert!(
                msg.contains(&format!("iteration {iteration}")),
                "{label}: {msg}"
            );
            assert!(msg.contains(&format!("column {column}")), "{label}: {msg}");
        }
        SolveError::SingularMatrix { .. } => {
            panic!("{label}: a step cannot fail in Lu::factor: {err:?}")
        }
        SolveError::InvalidStepSize { h } => {
            assert!(msg.contains(&format!("{h:?}")), "{label}: {msg}");
        }
        other => panic!("{label}: unexpected failure {other:?}"),
    }
}

/// Takes `BEFORE` normal steps, provokes a failure, checks the error, that the state is
/// bit-identical to the one before, and that after restoring the step size/options the
/// run continues exactly as a run that never failed. Returns the error.
fn fail_and_recover<Mdl, S, const D: usize, const M: usize>(
    label: &str,
    model: Mdl,
    scheme: S,
    h: f64,
    initial: NodeState<f64, D, M>,
    provoke: Provoke,
) -> SolveError<f64>
where
    Mdl: Step<f64, S, State = NodeState<f64, D, M>> + Model<f64, D, M> + Clone,
    S: SchemeInfo + Clone,
{
    let label = format!("{label} {provoke:?}");
    let mut reference = Integrator::new(model.clone(), scheme.clone(), h, initial);
    let mut sim = Integrator::new(model, scheme, h, initial);
    for n in 0..BEFORE {
        reference
            .step()
            .unwrap_or_else(|e| panic!("{label}: reference step {n}: {e}"));
        sim.step()
            .unwrap_or_else(|e| panic!("{label}: step {n}: {e}"));
    }
    let before = *sim.state();
    assert_finite(&label, &before);
    assert_ne!(before, initial, "{label}: the run did not advance");

    match provoke {
        Provoke::StepSize(huge) => sim.set_step_size(huge),
        Provoke::Budget(max_iterations) => {
            sim = sim.with_options(NewtonOptions {
                max_iterations,
                ..NewtonOptions::default()
            });
        }
    }
    let err = match sim.step() {
        Err(err) => err,
        Ok(report) => panic!("{label}: expected the step to fail, got {report:?}"),
    };
    assert!(
        *sim.state() == before,
        "{label}: state changed by a failed step"
    );
    assert_eq!(
        sim.state().t.to_bits(),
        before.t.to_bits(),
        "{label}: time advanced"
    );
    assert_message_explains(&label, &err);
    // A second failing attempt is just as harmless.
    // (Compared as text: the error may carry a NaN step size.)
    assert_eq!(
        format!("{:?}", sim.step().err()),
        format!("{:?}", Some(err)),
        "{label}: failure not reproducible"
    );
    assert!(
        *sim.state() == before,
        "{label}: state changed by a second failed step"
    );

    // Back to normal: the run continues exactly as one that never failed.
    sim.set_step_size(h);
    sim = sim.with_options(NewtonOptions::default());
    for n in 0..AFTER {
        sim.step()
            .unwrap_or_else(|e| panic!("{label}: step {n} after the failure: {e}"));
        reference
            .step()
            .unwrap_or_else(|e| panic!("{label}: reference step {n}: {e}"));
    }
    assert_finite(&label, sim.state());
    assert!(
        *sim.state() == *reference.state(),
        "{label}: trajectory differs from an unfailed run:\n{:?}\n{:?}",
        sim.state(),
        reference.state()
    );
    err
}

fn pendulum() -> (Pendulum3d, NodeState<f64, 3, 1>) {
    let model = Pendulum3d::new();
    let initial = model.initial_state().unwrap();
    (model, initial)
}

fn top() -> (LagrangeTop, NodeState<f64, 12, 9>) {
    let model = LagrangeTop::new();
    let initial = model.initial_state().unwrap();
    (model, initial)
}

fn assert_budget_exhausted(err: SolveError<f64>, budget: u32) {
    assert!(
        matches!(err, SolveError::MaxIterations { iterations, .. } if iterations == budget),
        "{err:?}"
    );
}

// (a) + (b), a budget of 2 Newton iterations at the paper's step size: fails for all.

#[test]
fn pendulum_em_budget_failure() {
    let (m, s) = pendulum();
    let err = fail_and_recover(
        "pendulum/GglEm",
        m,
        GglEm,
        Pendulum3d::DEFAULT_STEP,
        s,
        Provoke::Budget(2),
    );
    assert_budget_exhausted(err, 2);
}

#[test]
fn pendulum_via_budget_failure() {
    let (m, s) = pendulum();
    let err = fail_and_recover(
        "pendulum/GglViA",
        m,
        GglViA,
        Pendulum3d::DEFAULT_STEP,
        s,
        Provoke::Budget(2),
    );
    assert_budget_exhausted(err, 2);
}

#[test]
fn top_em_budget_failure() {
    let (m, s) = top();
    let err = fail_and_recover(
        "top/GglEm",
        m,
        GglEm,
        LagrangeTop::DEFAULT_STEP,
        s,
        Provoke::Budget(2),
    );
    assert_budget_exhausted(err, 2);
}

#[test]
fn top_via_budget_failure() {
    let (m, s) = top();
    let err = fail_and_recover(
        "top/GglViA",
        m,
        GglViA,
        LagrangeTop::DEFAULT_STEP,
        s,
        Provoke::Budget(2),
    );
    assert_budget_exhausted(err, 2);
}

// (a) + (b), a huge step size with the default options (40 iterations).
//
// "Huge" has to be very huge: from the mid-trajectory state after `BEFORE` steps,
// Newton from the simple guess still converges at h = 1e3 and h = 1e6 for the
// pendulum (both schemes) and for the top with VI-A (for the pendulum only the
// initial state fails there). h = 1e50 fails by exhausting the 40 iterations for every
// model × scheme, from the initial state and after 1, 10 or 100 steps alike.
const HUGE: f64 = 1e50;

#[test]
fn pendulum_em_huge_step_failure() {
    let (m, s) = pendulum();
    let err = fail_and_recover(
        "pendulum/GglEm",
        m,
        GglEm,
        Pendulum3d::DEFAULT_STEP,
        s,
        Provoke::StepSize(HUGE),
    );
    assert_budget_exhausted(err, 40);
}

#[test]
fn pendulum_via_huge_step_failure() {
    let (m, s) = pendulum();
    let err = fail_and_recover(
        "pendulum/GglViA",
        m,
        GglViA,
        Pendulum3d::DEFAULT_STEP,
        s,
        Provoke::StepSize(HUGE),
    );
    assert_budget_exhausted(err, 40);
}

#[test]
fn top_em_huge_step_failure() {
    let (m, s) = top();
    let err = fail_and_recover(
        "top/GglEm",
        m,
        GglEm,
        LagrangeTop::DEFAULT_STEP,
        s,
        Provoke::StepSize(HUGE),
    );
    assert_budget_exhausted(err, 40);
}

#[test]
fn top_via_huge_step_failure() {
    let (m, s) = top();
    let err = fail_and_recover(
        "top/GglViA",
        m,
        GglViA,
        LagrangeTop::DEFAULT_STEP,
        s,
        Provoke::StepSize(HUGE),
    );
    assert!(
        matches!(
            err,
            SolveError::MaxIterations { .. } | SolveError::NonFinite { .. }
        ),
        "{err:?}"
    );
}

// A zero or non-finite step size is refused before any work, for every model × scheme
// (h = 0 used to fail as a singular Jacobian, with advice to reduce the step).

#[test]
fn zero_or_non_finite_step_size_is_refused() {
    for h in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0] {
        let (m, s) = pendulum();
        let e1 = fail_and_recover(
            "pendulum/GglEm",
            m,
            GglEm,
            Pendulum3d::DEFAULT_STEP,
            s,
            Provoke::StepSize(h),
        );
        let e2 = fail_and_recover(
            "pendulum/GglViA",
            m,
            GglViA,
            Pendulum3d::DEFAULT_STEP,
            s,
            Provoke::StepSize(h),
        );
        let (m, s) = top();
        let e3 = fail_and_recover(
            "top/GglEm",
            m,
            GglEm,
            LagrangeTop::DEFAULT_STEP,
            s,
            Provoke::StepSize(h),
        );
        let e4 = fail_and_recover(
            "top/GglViA",
            m,
            GglViA,
            LagrangeTop::DEFAULT_STEP,
            s,
            Provoke::StepSize(h),
        );
        for err in [e1, e2, e3, e4] {
            assert!(
                matches!(err, SolveError::InvalidStepSize { h: given } if given.to_bits() == h.to_bits()),
                "h = {h}: {err:?}"
            );
        }
    }
}

// (c) Consistent initialisation: reject or project, never silently use.

#[test]
fn inconsistent_pendulum_is_rejected_with_residuals() {
    let model = Pendulum3d::new();
    let q = SVector::from([1.1, 0.0, 0.0]);

    // Position level violated, velocity level satisfied (v ⟂ q).
    let v = SVector::from([0.0, 1.0, 0.0]);
    let err = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 })
        .expect_err("q = [1.1, 0, 0] violates |q| = 1");
    println!("reject: {err}");
    let expected_g = 0.5 * (1.1_f64 * 1.1 - 1.0); // 0.105
    match err {
        InitError::Inconsistent { position, velocity } => {
            assert!((position - expected_g).abs() <= 1e-15, "{err:?}");
            assert_eq!(velocity, 0.0, "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains(&format!("max|g(q)| = {position:?}")), "{msg}");
            assert!(
                msg.contains(&format!("max|G(q) v| = {velocity:?}")),
                "{msg}"
            );
        }
        other => panic!("expected Inconsistent, got {other:?}"),
    }

    // Both levels violated: G v = q · v / l² = 1.1 · 0.2.
    let v = SVector::from([0.2, 1.0, 0.0]);
    match NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 }) {
        Err(InitError::Inconsistent { position, velocity }) => {
            assert!((position - expected_g).abs() <= 1e-15);
            assert!((velocity - 0.22).abs() <= 1e-15, "{velocity}");
        }
        other => panic!("expected Inconsistent, got {other:?}"),
    }

    // Consistent data within the tolerance pass unchanged.
    let q = SVector::from([1.0, 0.0, 0.0]);
    let v = SVector::from([0.0, 1.0, 0.0]);
    let s = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 }).unwrap();
    assert_eq!((s.q, s.v), (q, v));
}

#[test]
fn inconsistent_pendulum_is_projected() {
    let model = Pendulum3d::new();
    let q = SVector::from([1.1, 0.0, 0.0]);
    for v in [
        SVector::from([0.0, 1.0, 0.0]),
        SVector::from([0.2, 1.0, 0.0]),
    ] {
        let s = NodeState::consistent(&model, q, v, Consistency::Project { tolerance: 1e-12 })
            .unwrap_or_else(|e| panic!("projection failed: {e}"));
        let g = model.constraints(&s.q).amax();
        let gv = (model.constraint_jacobian(&s.q) * s.v).amax();
        println!(
            "project v = {:?}: q = {:?}, v = {:?}, |g| = {g:e}, |G v| = {gv:e}",
            v.as_slice(),
            s.q.as_slice(),
            s.v.as_slice()
        );
        assert!(g <= 1e-12, "|g| = {g:e}");
        assert!(gv <= 1e-12, "|G v| = {gv:e}");
        // The closest point on the sphere (mass metric = Euclidean here) is [1, 0, 0];
        // the tangential velocity survives, the radial part is removed.
        assert!(
            (s.q - SVector::from([1.0, 0.0, 0.0])).amax() <= 1e-12,
            "{:?}",
            s.q
        );
        assert!(
            (s.v - SVector::from([0.0, 1.0, 0.0])).amax() <= 1e-12,
            "{:?}",
            s.v
        );
        // The rest of the state follows and is accepted by a strict Reject.
        let d = Diagnostics::of(&model, &s);
        assert!(
            d.position_residual <= 1e-12 && d.velocity_residual <= 1e-12,
            "{d:?}"
        );
        assert_eq!(s.p, s.v * model.m);
        NodeState::consistent(&model, s.q, s.v, Consistency::Reject { tolerance: 1e-12 })
            .expect("projected data are consistent");
    }
}
