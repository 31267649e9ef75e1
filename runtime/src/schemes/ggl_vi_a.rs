use crate::model::SchemeInfo;

/// GGL variational integrator, one-stage θ-method with option A and θ = ½, "VI-A"
/// (Kinon, Betsch, Schneider 2023, Sect. 4.3.1, eq. (79); spec 000 §2.4):
///
/// ```text
/// (79a) q¹ − q⁰ = h v¹ + h M⁻¹ G(q^θ)ᵀ γ
/// (79b) p¹ − p⁰ = h ∂L/∂q(q^θ, v¹) − h G(q^θ)ᵀ λ − h Σ_k γ_k H_k(q^θ) v¹
/// (79c) ∂L/∂v(q^θ, v¹) = θ p⁰ + (1 − θ) p¹
/// (79d) 0 = g(q^θ)
/// (79e) 0 = G(q^θ) v¹
/// ```
///
/// with `q^θ = (1 − θ) q⁰ + θ q¹`. Unknowns `(q¹, p¹, v¹, λ, γ)`, `3d + 2m` equations.
/// `v¹` is the velocity of the interval `[tⁿ, tⁿ⁺¹]` and the multipliers belong to it.
///
/// Properties: symplectic, momentum maps conserved, second order; energy not conserved
/// but bounded. Both constraint levels hold exactly at the midpoints `q^½`, not at the
/// nodes (except for linear constraints). Requires a constant mass matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GglViA;

impl SchemeInfo for GglViA {
    const LABEL: &'static str = "VI-A";
    const ORDER: u32 = 2;
    const CONSERVES_ENERGY: bool = false;
    const SYMPLECTIC: bool = true;
}
