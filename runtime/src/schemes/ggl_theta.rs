//! The general one-stage GGL θ-methods with run-time coefficients.

/// The general one-stage GGL variational θ-method with option A, intermediate
/// constraint evaluation (Kinon, Betsch, Schneider 2023, eq. (76) with (77)–(79); spec
/// 000 §2.3–2.4), for any θ ∈ (0, 1):
///
/// ```text
/// q¹ − q⁰ = h v¹ + h M⁻¹ G(q^θ)ᵀ γ,   p¹ − p⁰ = h ∂L/∂q(q^θ, v¹) − h G(q^θ)ᵀ λ − h T(q^θ, γ) v¹,
/// ∂L/∂v(q^θ, v¹) = θ p⁰ + (1 − θ) p¹,  g(q^θ) = 0,  G(q^θ) v¹ = 0,     q^θ = (1 − θ) q⁰ + θ q¹
/// ```
///
/// Symplectic and momentum-conserving; second order at θ = ½ ([`GglViA`](super::GglViA),
/// which folds the constant). The constraints hold at `q^θ`.
///
/// <div class="warning">Only θ = ½ is stable, although the paper states the method for
/// θ ∈ (0, 1): `g(q^θ) = 0` propagates the constraint error at the nodes by
/// −(1−θ)/θ per step, and the momentum-level constraint error by −θ/(1−θ), so one of
/// them grows geometrically unless θ = ½ (measured: 7/3 per step at θ = 0.3 and 0.7,
/// `tests/papers/theta_family.rs`).</div>
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GglThetaA {
    theta: f64,
}

impl GglThetaA {
    /// The method with weight `theta`; `None` unless θ ∈ (0, 1).
    pub fn new(theta: f64) -> Option<Self> {
        (theta > 0.0 && theta < 1.0).then_some(Self { theta })
    }

    /// The weight θ of `q¹` in `q^θ`.
    pub fn theta(&self) -> f64 {
        self.theta
    }
}

impl Default for GglThetaA {
    /// θ = ½, the VI-A instance.
    fn default() -> Self {
        Self { theta: 0.5 }
    }
}

/// The general one-stage GGL variational θ-method with option B, trapezoidal
/// constraint evaluation (eq. (76) with (80)–(82); spec 000 §2.5), for θ ∈ [0, 1] and
/// ϑ ∈ (0, 1]:
///
/// ```text
/// q¹ − q⁰ = h v¹ + h M⁻¹ G(q^θ)ᵀ γ
/// p¹ − p⁰ = h ∂L/∂q(q^θ, v¹) − h((1 − ϑ) G(q⁰) + ϑ G(q¹))ᵀ λ − h T(q^θ, γ) v¹
/// ∂L/∂v(q^θ, v¹) = θ p⁰ + (1 − θ) p¹ − h(θ(1 − ϑ) G(q⁰)ᵀ − (1 − θ) ϑ G(q¹)ᵀ) λ
/// g(q¹) = 0,   G(q^θ) v¹ = 0
/// ```
///
/// Symplectic (for variations with `dg(q⁰) = 0`) and momentum-conserving; `g = 0` at the
/// nodes; first order unless θ = ϑ = ½. θ = 1, ϑ = ½ is [`GglViB`](super::GglViB).
///
/// <div class="warning">Stable only for ϑ ≤ ½ (the paper allows ϑ ∈ (0, 1]): the
/// trapezoidal constraint force propagates λ by −ϑ/(1−ϑ) per step, which grows for
/// ϑ > ½ whatever θ (measured: 7/3 per step at ϑ = 0.7, `tests/papers/theta_family.rs`); at
/// ϑ = ½ it is the period-2 oscillation of VI-B's λ.</div>
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GglThetaB {
    theta: f64,
    vartheta: f64,
}

impl GglThetaB {
    /// The method with weights `theta` and `vartheta`; `None` unless θ ∈ [0, 1] and
    /// ϑ ∈ (0, 1].
    pub fn new(theta: f64, vartheta: f64) -> Option<Self> {
        ((0.0..=1.0).contains(&theta) && vartheta > 0.0 && vartheta <= 1.0)
            .then_some(Self { theta, vartheta })
    }

    /// The weight θ of `q¹` in `q^θ`.
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// The weight ϑ of `g(q¹)` in the trapezoidal discrete constraint.
    pub fn vartheta(&self) -> f64 {
        self.vartheta
    }
}

impl Default for GglThetaB {
    /// θ = 1, ϑ = ½, the VI-B instance.
    fn default() -> Self {
        Self {
            theta: 1.0,
            vartheta: 0.5,
        }
    }
}
