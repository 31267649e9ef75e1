//! SHAKE (spec 002 S2) on the spherical pendulum of spec 002 §6 C. Its positions are
//! RATTLE's and its momentum is RATTLE's minus a known multiple of the constraint normal,
//! so RATTLE is the oracle of every step: the positions, the momenta and the multipliers
//! of the two schemes are tied by exact identities, checked over 1000 steps. Besides:
//! `g = 0` at the nodes, order 2 in `q`, the momentum's `O(h)` normal component, and
//! symplecticity of the position–momentum map on the constraint manifold.
use livens::prelude::*;
use livens_models::SphericalPendulum;

use crate::support::symplectic;

fn initial(model: &SphericalPendulum<f64>) -> NodeState<f64, 3, 1> {
    let (q, v) = SphericalPendulum::initial_positions_velocities();
    NodeState::consistent(model, q, v, Consistency::Reject { tolerance: 1e-15 })
        .expect("the spec's data are consistent")
}

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    }
}

/// With `G(q) = 2qᵀ` (the sphere `q·q − 1`), from the same tangent start:
///
/// - `qₖ` (SHAKE) = `qₖ` (RATTLE);
/// - `pₖ` (SHAKE) = `pₖ − (h/2) G(qₖ)ᵀ γₖ` (RATTLE), for `k ≥ 1`;
/// - `λ₁` (SHAKE) = `λ₁ / 2`, and `λₖ₊₁` (SHAKE) = `(γₖ + λₖ₊₁) / 2` (RATTLE) after.
///
/// RATTLE carries the step's `λ⁰` as `lambda` and `λ¹` as `gamma`: SHAKE's single
/// impulse at a node is the sum of RATTLE's two half impulses there.
#[test]
fn positions_momenta_and_multipliers_are_rattles() {
    let model = SphericalPendulum::new();
    let h = 0.01;
    let mut shake = Integrator::new(model, Shake, h, initial(&model)).with_options(tight());
    let mut rattle = Integrator::new(model, Rattle, h, initial(&model)).with_options(tight());
    let (mut dq, mut dp, mut dl): (f64, f64, f64) = (0.0, 0.0, 0.0);
    let mut gamma_before = None;
    for _ in 0..1000 {
        shake.step().expect("SHAKE converges");
        rattle.step().expect("RATTLE converges");
        let (s, r) = (shake.state(), rattle.state());
        dq = dq.max((s.q - r.q).amax());
        dp = dp.max((s.p - (r.p - r.q * (h * r.gamma[0]))).amax());
        let expected = match gamma_before {
            None => r.lambda[0] / 2.0,
            Some(gamma) => (gamma + r.lambda[0]) / 2.0,
        };
        dl = dl.max((s.lambda[0] - expected).abs() / expected.abs().max(1.0));
        gamma_before = Some(r.gamma[0]);
    }
    println!("over 1000 steps: |Δq| {dq:.2e}, |Δp| {dp:.2e}, relative |Δλ| {dl:.2e}");
    assert!(
        dq < 1e-12 && dp < 1e-12 && dl < 1e-11,
        "{dq:e} {dp:e} {dl:e}"
    );
}

/// `g = 0` at Newton's tolerance at every node; the momentum's normal component
/// `G M⁻¹ p = 2 q·p` is first order in `h` (halving `h` halves it), where RATTLE's is 0.
#[test]
fn constraint_holds_at_the_nodes_and_the_momentum_is_not_tangent() {
    let model = SphericalPendulum::new();
    let run = |h: f64| {
        let mut sim = Integrator::new(model, Shake, h, initial(&model)).with_options(tight());
        let (mut g, mut normal): (f64, f64) = (0.0, 0.0);
        for _ in 0..(1.0 / h).round() as usize {
            sim.step().expect("converges");
            let s = sim.state();
            g = g.max((s.q.norm_squared() - 1.0).abs());
            normal = normal.max((2.0 * s.q.dot(&s.p)).abs());
        }
        (g, normal)
    };
    let (g1, n1) = run(0.02);
    let (g2, n2) = run(0.01);
    println!("max |g| {g1:.1e}, {g2:.1e}; max |G M⁻¹ p| {n1:.3e} (h = 0.02), {n2:.3e} (h = 0.01)");
    assert!(g1 < 1e-14 && g2 < 1e-14, "{g1:e} {g2:e}");
    let ratio = n1 / n2;
    assert!((ratio - 2.0).abs() < 0.1, "normal component ratio {ratio}");
}

/// Order 2 in `q` against a run with a quarter of the smallest step.
#[test]
fn second_order_in_the_positions() {
    let model = SphericalPendulum::new();
    let run = |steps: u32| {
        let h = SphericalPendulum::DEFAULT_SPAN / f64::from(steps);
        let mut sim = Integrator::new(model, Shake, h, initial(&model)).with_options(tight());
        sim.run(steps as usize).expect("converges");
        sim.state().q
    };
    let reference = run(2048);
    let errors = [128, 256, 512].map(|n| (run(n) - reference).amax());
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        println!("order in q: {order:.3}");
        assert!((order - 2.0).abs() < 0.1, "{order}");
    }
}

/// Symplectic in `(q, p)` on `{g = 0}`: the step's derivative (central differences,
/// `q` moved along the sphere, `p` in any direction — a normal component of `p` only
/// changes `λ`) keeps `ω(ξ, η) = δq_ξ·δp_η − δq_η·δp_ξ` for tangent `δq`.
#[test]
fn the_step_is_symplectic_on_the_constraint_manifold() {
    let model = SphericalPendulum::new();
    let h = 0.05;
    let z0 = initial(&model);
    let step = |q: SVector<f64, 3>, p: SVector<f64, 3>| {
        let start = NodeState { q, p, v: p, ..z0 };
        let mut sim = Integrator::new(model, Shake, h, start).with_options(NewtonOptions {
            tolerance: 1e-15,
            max_iterations: 50,
            ..NewtonOptions::default()
        });
        sim.step().expect("converges");
        (sim.state().q, sim.state().p)
    };
    let q = z0.q;
    let along = |a: SVector<f64, 3>| a - q * q.dot(&a);
    let dirs = [
        (
            along(SVector::from([0.3, -0.2, 0.5])),
            SVector::from([0.1, 0.4, -0.2]),
        ),
        (
            along(SVector::from([-0.1, 0.6, 0.2])),
            SVector::from([0.5, -0.3, 0.1]),
        ),
        (
            along(SVector::from([0.2, 0.1, -0.4])),
            SVector::from([-0.2, 0.2, 0.6]),
        ),
    ];
    let eps = 1e-6;
    let image = |(dq, dp): (SVector<f64, 3>, SVector<f64, 3>)| {
        let moved = |s: f64| step((q + dq * s).normalize(), z0.p + dp * s);
        let (a, b) = (moved(eps), moved(-eps));
        ((a.0 - b.0) / (2.0 * eps), (a.1 - b.1) / (2.0 * eps))
    };
    symplectic::assert_omega_kept(&dirs, &dirs.map(image), 1e-8);
}
