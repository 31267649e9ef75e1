//! The one-stage θ-family (76) of the GGL paper: its general form with run-time
//! coefficients reduces to VI-A at θ = ½ (option A: the λ term of (76c) cancels, (78))
//! and to VI-B at θ = 1, ϑ = ½ (option B, (83)); spec 000 §4 item 5. Also the family's
//! orders away from θ = ½, measured.
use livens::prelude::*;
use livens_models::{FourParticles, LagrangeTop};

/// Residuals of two schemes with the same unknown layout at random points agree to
/// round-off.
fn same_residuals<S1, S2, const N: usize>(a: S1, b: S2)
where
    S1: SchemeInfo,
    S2: SchemeInfo,
    LagrangeTop: DiscreteSystem<f64, S1, 12, 9, N> + DiscreteSystem<f64, S2, 12, 9, N>,
{
    let model = LagrangeTop::new();
    let mut seed = 0x0123_4567_89ab_cdefu64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..50 {
        let known = NodeState {
            t: 0.0,
            q: SVector::from_fn(|_, _| rnd()),
            v: SVector::from_fn(|_, _| rnd()),
            p: SVector::from_fn(|_, _| rnd()),
            lambda: SVector::from_fn(|_, _| rnd()),
            gamma: SVector::from_fn(|_, _| rnd()),
        };
        let x = SVector::<f64, N>::from_fn(|_, _| rnd());
        let h = 0.05 * (1.0 + rnd());
        let (mut ra, mut rb) = (SVector::<f64, N>::zeros(), SVector::<f64, N>::zeros());
        DiscreteSystem::<f64, S1, 12, 9, N>::residual(
            &model,
            &a,
            h,
            &known,
            &InputValues::zeros(),
            &x,
            &mut ra,
        );
        DiscreteSystem::<f64, S2, 12, 9, N>::residual(
            &model,
            &b,
            h,
            &known,
            &InputValues::zeros(),
            &x,
            &mut rb,
        );
        let scale = ra.amax().max(1.0);
        assert!(
            (ra - rb).amax() <= 1e-14 * scale,
            "{} vs {}: {:e}",
            S1::LABEL,
            S2::LABEL,
            (ra - rb).amax()
        );
    }
}

#[test]
fn option_a_at_one_half_is_vi_a() {
    same_residuals(GglThetaA::new(0.5).expect("valid θ"), GglViA);
}

#[test]
fn option_b_at_one_and_one_half_is_vi_b() {
    same_residuals(GglThetaB::new(1.0, 0.5).expect("valid θ, ϑ"), GglViB);
}

#[test]
fn invalid_coefficients_are_refused() {
    assert!(
        GglThetaA::new(0.0).is_none()
            && GglThetaA::new(1.0).is_none()
            && GglThetaA::new(f64::NAN).is_none()
    );
    assert!(GglThetaB::new(-0.1, 0.5).is_none() && GglThetaB::new(0.5, 0.0).is_none());
    assert!(GglThetaB::new(0.0, 1.0).is_some());
}

/// Error in p at t = 0.1 on the four-particle system against EM at h = 1e-5, and the
/// slope over h ∈ {1e-2, 1e-3, 1e-4}. (In q the first-order schemes read second order
/// here, because ∇V(q⁰) = 0; spec 000 §3.3.)
fn p_order<S: SchemeInfo + Copy>(scheme: S, reference: &SVector<f64, 12>) -> f64
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let model = FourParticles::new();
    let steps = [1e-2, 1e-3, 1e-4];
    let errors: Vec<f64> = steps
        .iter()
        .map(|&h| {
            let mut sim =
                Integrator::new(model, scheme, h, model.initial_state().expect("consistent"));
            for _ in 0..(0.1 / h).round() as usize {
                sim.step().expect("Newton converges");
            }
            (sim.state().p - reference).norm() / reference.norm()
        })
        .collect();
    let (x0, x2) = (steps[0].ln(), steps[2].ln());
    (errors[0].ln() - errors[2].ln()) / (x0 - x2)
}

fn reference() -> SVector<f64, 12> {
    let model = FourParticles::new();
    let mut sim = Integrator::new(
        model,
        GglEm,
        1e-5,
        model.initial_state().expect("consistent"),
    );
    for _ in 0..10_000 {
        sim.step().expect("Newton converges");
    }
    sim.state().p
}

/// Option B with ϑ ≤ ½ and θ away from ½ is first order. Measured in p on the
/// four-particle system, where the symmetric schemes are second order.
#[test]
fn option_b_away_from_the_symmetric_choice_is_first_order() {
    let reference = reference();
    let b = p_order(GglThetaB::new(0.3, 0.3).expect("valid θ, ϑ"), &reference);
    let half = p_order(GglThetaA::new(0.5).expect("valid θ"), &reference);
    eprintln!("p slopes: θB(0.3, 0.3) {b:.3}, θA(0.5) {half:.3}");
    assert!((b - 1.0).abs() <= 0.1, "θB(0.3, 0.3): slope {b}");
    assert!((half - 2.0).abs() <= 0.1, "θA(0.5): slope {half}");
}

/// Growth per step of the multipliers, `max(|λ|, |γ|)`, at h = 1e-3 on the
/// four-particle system, before the growth turns nonlinear (past step 20).
fn multiplier_growth<S: SchemeInfo + Copy>(scheme: S) -> f64
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let model = FourParticles::new();
    let mut sim = Integrator::new(
        model,
        scheme,
        1e-3,
        model.initial_state().expect("consistent"),
    );
    let mut sizes = Vec::new();
    for _ in 0..24 {
        sim.step().expect("Newton converges");
        let s = sim.state();
        sizes.push(s.lambda.amax().max(s.gamma.amax()));
    }
    // The fastest growth over four steps, from step 8 on: an unstable mode emerges from
    // round-off at a scheme-dependent step and then grows at its asymptotic rate.
    (8..=16)
        .map(|k| (sizes[k + 4] / sizes[k]).powf(0.25))
        .fold(0.0, f64::max)
}

/// A finding beyond the paper, which states option A for θ ∈ (0, 1) and option B for
/// ϑ ∈ (0, 1]: both are stable only at the symmetric choice or on one side of it.
/// * Option A: `g(q^θ) = 0` propagates the node constraint error by `−(1−θ)/θ` per step,
///   and `G(q^θ) M⁻¹(θ p⁰ + (1−θ) p¹) = 0` the momentum-level one by `−θ/(1−θ)`: one of
///   them grows unless θ = ½.
/// * Option B: the trapezoidal constraint force propagates λ by `−ϑ/(1−ϑ)`, which grows
///   for ϑ > ½ (for any θ); ϑ ≤ ½ is stable.
///
/// The test pins the predicted growth factor 7/3 for θ = 0.3, θ = 0.7 (option A) and
/// ϑ = 0.7 (option B), measured on the multipliers.
#[test]
fn unstable_coefficients_grow_as_predicted() {
    let predicted = 7.0 / 3.0;
    for (label, growth) in [
        (
            "θA(0.3)",
            multiplier_growth(GglThetaA::new(0.3).expect("valid θ")),
        ),
        (
            "θA(0.7)",
            multiplier_growth(GglThetaA::new(0.7).expect("valid θ")),
        ),
        (
            "θB(1, 0.7)",
            multiplier_growth(GglThetaB::new(1.0, 0.7).expect("valid θ, ϑ")),
        ),
    ] {
        eprintln!("{label}: multipliers grow by {growth:.3} per step");
        assert!(
            (growth / predicted - 1.0).abs() < 0.05,
            "{label}: growth {growth} per step"
        );
    }
    for (label, growth) in [
        (
            "θA(0.5)",
            multiplier_growth(GglThetaA::new(0.5).expect("valid θ")),
        ),
        (
            "θB(1, 0.3)",
            multiplier_growth(GglThetaB::new(1.0, 0.3).expect("valid θ, ϑ")),
        ),
    ] {
        eprintln!("{label}: multipliers grow by {growth:.3} per step");
        assert!(growth < 1.2, "{label}: growth {growth} per step");
    }
}
