//! The catalogue's models on groups stepped through the `Integrator`: the free rigid
//! body on SO(3) (`FreeBodySo3`, M-A3) keeps its spatial angular momentum and its unit
//! quaternion over 10⁴ steps and converges with order `2s − 2` against an independent
//! reference; the unicycle and the ball are the hand-written models of
//! `lie_unicycle.rs` and `lie_ball.rs` (`lie_dsl.rs` checks their kernels).
use livens::prelude::*;
use livens::FromNode;
use livens_models::FreeBodySo3;

type State = PhaseState<f64, 3, 4>;

/// The spatial angular momentum `R J ω` of a state (`J ω = μ`).
fn spatial(q: &SVector<f64, 4>, mu: &SVector<f64, 3>) -> SVector<f64, 3> {
    let rotation = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        q[0], q[1], q[2], q[3],
    ));
    rotation * mu
}

fn run<const S: usize>(h: f64, steps: usize, mut visit: impl FnMut(&State))
where
    FreeBodySo3<f64>: Step<f64, LobattoIIIAIIIB<S>, State = State>,
{
    let model = FreeBodySo3::new();
    let node = model.initial_state().expect("finite");
    // Momenta of 160: round-off is 3e-14.
    let options = NewtonOptions {
        tolerance: 1e-12,
        ..NewtonOptions::default()
    };
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<S>, h, State::from_node(&node))
        .with_options(options);
    for _ in 0..steps {
        sim.step().expect("converges");
        visit(sim.state());
    }
}

/// 10⁴ steps of `h = 0.01` (`|ω₀| h = 0.3`): the spatial angular momentum and `|q|`.
fn invariants<const S: usize>() -> (f64, f64)
where
    FreeBodySo3<f64>: Step<f64, LobattoIIIAIIIB<S>, State = State>,
{
    let node = FreeBodySo3::new().initial_state().expect("finite");
    let l0 = spatial(&node.q, &node.p);
    let (mut drift, mut norm): (f64, f64) = (0.0, 0.0);
    run::<S>(0.01, 10_000, |s| {
        drift = drift.max((spatial(&s.q, &s.p) - l0).norm() / l0.norm());
        norm = norm.max((s.q.norm() - 1.0).abs());
    });
    (drift, norm)
}

#[test]
fn free_body_on_so3_keeps_its_spatial_momentum_and_unit_quaternion() {
    for (s, (drift, norm)) in [(2, invariants::<2>()), (3, invariants::<3>())] {
        println!(
            "free body on SO(3), s = {s}, 10⁴ steps: |ΔL|/|L| {drift:.1e}, ||q| − 1| {norm:.1e}"
        );
        assert!(drift <= 1e-13, "s = {s}: {drift:e}");
        assert!(norm <= 1e-14, "s = {s}: {norm:e}");
    }
}

/// `(q, μ)` at `t` by the classical Runge–Kutta method on `q̇ = ½ q ⊗ (0, ω)`,
/// `J ω̇ = J ω × ω` at 2·10⁵ steps per unit of time.
fn reference(t: f64) -> (SVector<f64, 4>, SVector<f64, 3>) {
    let j = [6.0, 8.0, 3.0];
    let rate = |y: [f64; 7]| {
        let (q, w) = ([y[0], y[1], y[2], y[3]], [y[4], y[5], y[6]]);
        let jw = [j[0] * w[0], j[1] * w[1], j[2] * w[2]];
        // J ω̇ = J ω × ω.
        let cross = [
            jw[1] * w[2] - jw[2] * w[1],
            jw[2] * w[0] - jw[0] * w[2],
            jw[0] * w[1] - jw[1] * w[0],
        ];
        [
            0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2]),
            0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]),
            0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]),
            0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]),
            cross[0] / j[0],
            cross[1] / j[1],
            cross[2] / j[2],
        ]
    };
    let n = (200_000.0 * t) as usize;
    let h = t / n as f64;
    let mut y = [1.0, 0.0, 0.0, 0.0, 10.0, 20.0, 20.0];
    let add = |y: [f64; 7], k: [f64; 7], f: f64| core::array::from_fn(|i| y[i] + f * k[i]);
    for _ in 0..n {
        let k1 = rate(y);
        let k2 = rate(add(y, k1, h / 2.0));
        let k3 = rate(add(y, k2, h / 2.0));
        let k4 = rate(add(y, k3, h));
        y = core::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
    }
    (
        SVector::from([y[0], y[1], y[2], y[3]]),
        SVector::from([j[0] * y[4], j[1] * y[5], j[2] * y[6]]),
    )
}

#[test]
fn free_body_on_so3_has_order_2s_minus_2() {
    const T: f64 = 0.5;
    let (q_ref, mu_ref) = reference(T);
    fn errors<const S: usize>(
        steps: usize,
        (q_ref, mu_ref): (&SVector<f64, 4>, &SVector<f64, 3>),
    ) -> (f64, f64)
    where
        FreeBodySo3<f64>: Step<f64, LobattoIIIAIIIB<S>, State = State>,
    {
        let mut last = None;
        run::<S>(0.5 / steps as f64, steps, |s| last = Some(*s));
        let s = last.expect("a step");
        // q and −q are one rotation: the nearer sign.
        let dq = (s.q - q_ref).norm().min((s.q + q_ref).norm());
        (dq, (s.p - mu_ref).norm())
    }
    for (s, e) in [
        (2, [40, 80, 160].map(|n| errors::<2>(n, (&q_ref, &mu_ref)))),
        (3, [20, 40, 80].map(|n| errors::<3>(n, (&q_ref, &mu_ref)))),
    ] {
        let order = |a: f64, b: f64| (a / b).log2();
        let q = [order(e[0].0, e[1].0), order(e[1].0, e[2].0)];
        let mu = [order(e[0].1, e[1].1), order(e[1].1, e[2].1)];
        println!("free body on SO(3), s = {s}: errors {e:?}, orders q {q:.2?}, μ {mu:.2?}");
        for o in q.iter().chain(&mu) {
            assert!(
                (o - (2 * s - 2) as f64).abs() <= 0.3,
                "s = {s}: q {q:?}, μ {mu:?}"
            );
        }
    }
}

/// A failed step on a group is an error and leaves the state as it was: the free body at
/// `FreeBody`'s `h = 0.05` (`|ω₀| h = 1.5`) with `s = 2`, where Newton does not converge
/// from the node's velocity.
#[test]
fn a_failed_step_on_a_group_leaves_the_state() {
    let model = FreeBodySo3::new();
    let node = model.initial_state().expect("finite");
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<2>, 0.05, State::from_node(&node));
    let before = *sim.state();
    let error = sim
        .step()
        .expect_err("Newton does not converge at |ω₀| h = 1.5");
    println!("free body on SO(3), s = 2, h = 0.05: {error}");
    assert_eq!(*sim.state(), before);
}
