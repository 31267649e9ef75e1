//! Holonomic and nonholonomic constraints together: `NonholonomicLobatto(s)` takes a
//! model's holonomic constraints `g(q) = 0` at velocity level, `G(q) v = 0`, as further
//! rows of `A(q)` (the paper's method applied to the index-2 form; its theory covers any
//! constraints linear in the velocities). So `G v = 0` holds at the nodes to Newton's
//! tolerance and `g` to the method's order.
//!
//! The oracle is a second path to the same motion: the nonholonomic particle of spec 002
//! §5.1 lifted to four coordinates by `w = sin x` (holonomic), against the same particle
//! with `w` eliminated (a position-dependent mass, nonholonomic only). Both converge to
//! one trajectory; the lifted one with the orders `2s − 2`.
use livens::prelude::*;
use livens::{Consistency, InitError};

livens::model! {
    /// The nonholonomic particle (spec 002 §5.1) with a fourth coordinate `w = sin x`.
    pub struct Lifted {
        coords { x: Scalar, y: Scalar, z: Scalar, w: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot + w_dot * w_dot);
        potential = 0.5 * (x * x + y * y + w * w);
        holonomic { lift: w - sin(x) }
        nonholonomic { phi: z_dot - y * x_dot }
        schemes { NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4) }
    }
}

livens::model! {
    /// `Lifted` with `w = sin x` substituted: the same Lagrangian on the constraint.
    pub struct Reduced {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * ((1.0 + cos(x) * cos(x)) * x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y + sin(x) * sin(x));
        nonholonomic { phi: z_dot - y * x_dot }
        schemes { NonholonomicLobatto(4) }
    }
}

const T: f64 = 2.0;

/// Spec 002 §5.1's data, `q⁰ = (0.5, 0.3, 0)`, `v⁰ = (0.2, 0.4, 0.06)`, lifted.
fn lifted_start() -> NonholonomicState<f64, 4, 2> {
    let (x, vx) = (0.5_f64, 0.2_f64);
    let q = SVector::from([x, 0.3, 0.0, x.sin()]);
    let v = SVector::from([vx, 0.4, 0.06, x.cos() * vx]);
    NonholonomicState::consistent(
        &Lifted::new(),
        q,
        v,
        Consistency::Reject { tolerance: 1e-15 },
    )
    .expect("the data satisfy both constraints")
}

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    }
}

/// The lifted state at `T` after `steps` steps, and the largest `|g|`, `|G v|` and
/// `|A v|` at the nodes.
fn lifted<const S: usize>(steps: u32) -> (NonholonomicState<f64, 4, 2>, [f64; 3])
where
    Lifted<f64>: Step<f64, NonholonomicLobatto<S>, State = NonholonomicState<f64, 4, 2>>,
{
    let model = Lifted::new();
    let h = T / f64::from(steps);
    let mut sim =
        Integrator::new(model, NonholonomicLobatto::<S>, h, lifted_start()).with_options(tight());
    let mut worst = [0.0_f64; 3];
    for _ in 0..steps {
        sim.step().expect("Newton converges");
        let s = sim.state();
        let (x, w) = (s.q[0], s.q[3]);
        worst[0] = worst[0].max((w - x.sin()).abs());
        worst[1] = worst[1].max((s.v[3] - x.cos() * s.v[0]).abs());
        worst[2] = worst[2].max(model.nonholonomic(&s.q, &s.v)[0].abs());
    }
    (*sim.state(), worst)
}

/// Orders `2s − 2` in `q` and `p` for s = 2, 3, 4 against the four-stage method at
/// T/1024; `G v` and `A v` at the nodes at Newton's tolerance; `g` at the nodes shrinks
/// with the method's order.
#[test]
fn orders_and_constraints_at_the_nodes() {
    let (reference, _) = lifted::<4>(1024);
    let errors =
        |s: &NonholonomicState<f64, 4, 2>| ((s.q - reference.q).amax(), (s.p - reference.p).amax());
    let mut checks = Vec::new();
    macro_rules! order {
        ($s:literal, $n:expr) => {{
            let (coarse, g_coarse) = lifted::<$s>($n);
            let (fine, g_fine) = lifted::<$s>(2 * $n);
            let ((eq0, ep0), (eq1, ep1)) = (errors(&coarse), errors(&fine));
            let (oq, op) = ((eq0 / eq1).log2(), (ep0 / ep1).log2());
            let og = (g_coarse[0] / g_fine[0]).log2();
            println!(
                "s = {}: orders q {oq:.2}, p {op:.2}; max|g| {:.1e} → {:.1e} (order {og:.2}); \
                 max|G v| {:.1e}, max|A v| {:.1e}",
                $s, g_coarse[0], g_fine[0], g_fine[1], g_fine[2]
            );
            checks.push(($s, oq, op, og, g_fine));
        }};
    }
    order!(2, 32);
    order!(3, 16);
    order!(4, 8);
    for (s, oq, op, og, worst) in checks {
        let expected = f64::from(2 * s - 2);
        assert!((oq - expected).abs() < 0.3, "s = {s}: q order {oq}");
        assert!((op - expected).abs() < 0.3, "s = {s}: p order {op}");
        // g's local error is one order above its global drift: at least 2s − 2.
        assert!(og > expected - 0.3, "s = {s}: g order {og}");
        assert!(worst[1] < 1e-13 && worst[2] < 1e-13, "s = {s}: {worst:?}");
    }
}

/// The other path: the reduced particle (nonholonomic only, `w` eliminated) reaches the
/// same `(x, y, z)` at `T`; both four-stage runs at T/256 agree to 1e-11, and `λ` of the
/// nonholonomic constraint is the same multiplier.
#[test]
fn the_reduced_model_reaches_the_same_motion() {
    let (lifted, _) = lifted::<4>(256);
    let model = Reduced::new();
    let (x, vx) = (0.5_f64, 0.2_f64);
    let start = NonholonomicState::consistent(
        &model,
        SVector::from([x, 0.3, 0.0]),
        SVector::from([vx, 0.4, 0.06]),
        Consistency::Reject { tolerance: 1e-15 },
    )
    .expect("the data satisfy Φ = 0");
    let mut sim =
        Integrator::new(model, NonholonomicLobatto::<4>, T / 256.0, start).with_options(tight());
    sim.run(256).expect("converges");
    let reduced = sim.state();
    let dq = (lifted.q.fixed_rows::<3>(0) - reduced.q).amax();
    let dv = (lifted.v.fixed_rows::<3>(0) - reduced.v).amax();
    let dl =
        (lifted.lambda.expect("after a step")[0] - reduced.lambda.expect("after a step")[0]).abs();
    println!("lifted against reduced at T: |Δq| {dq:.2e}, |Δv| {dv:.2e}, |Δλ| {dl:.2e}");
    assert!(dq < 1e-11 && dv < 1e-11, "{dq:e} {dv:e}");
    assert!(dl < 1e-8, "{dl:e}");
}

/// The initial multipliers come from the continuous equations with both constraints,
/// and initial data off `g = 0` are rejected, or projected onto both constraints.
#[test]
fn initial_data_are_checked_against_both_constraints() {
    let model = Lifted::new();
    let start = lifted_start();
    let lambda = start.lambda.expect("computed");
    // Reduced-model oracle: λ of Φ equals the reduced model's.
    let reduced = NonholonomicState::consistent(
        &Reduced::new(),
        SVector::from([0.5, 0.3, 0.0]),
        SVector::from([0.2, 0.4, 0.06]),
        Consistency::Reject { tolerance: 1e-15 },
    )
    .expect("consistent");
    let dl = (lambda[0] - reduced.lambda.expect("computed")[0]).abs();
    println!("λ⁰ = {lambda:?}; Φ's against the reduced model's: {dl:.1e}");
    assert!(dl < 1e-14, "{dl:e}");

    let off = SVector::from([0.5, 0.3, 0.0, 0.5_f64.sin() + 1e-3]);
    let v = start.v;
    let e = NonholonomicState::consistent(&model, off, v, Consistency::Reject { tolerance: 1e-12 })
        .expect_err("g(q) = 1e-3");
    assert!(
        matches!(e, InitError::Inconsistent { position, .. } if (position - 1e-3).abs() < 1e-12),
        "{e:?}"
    );
    let projected =
        NonholonomicState::consistent(&model, off, v, Consistency::Project { tolerance: 1e-14 })
            .expect("projects");
    let (q, v) = (projected.q, projected.v);
    assert!((q[3] - q[0].sin()).abs() <= 1e-14);
    assert!((v[3] - q[0].cos() * v[0]).abs() <= 1e-14);
    assert!(model.nonholonomic(&q, &v)[0].abs() <= 1e-14);
}
