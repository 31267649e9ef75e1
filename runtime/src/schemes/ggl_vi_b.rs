use crate::model::SchemeInfo;

/// GGL variational θ-method with option B, θ = 1 and ϑ = ½, "VI-B" (Kinon, Betsch,
/// Schneider 2023, Sect. 4.3.2, eq. (83); spec 000 §2.5):
///
/// ```text
/// (83a) q¹ − q⁰ = h v¹ + h M⁻¹ G(q¹)ᵀ γ
/// (83b) p¹ − p⁰ = h ∂L/∂q(q¹, v¹) − (h/2)(G(q⁰) + G(q¹))ᵀ λ − h T(q¹, γ) v¹
/// (83c) ∂L/∂v(q¹, v¹) = p⁰ − (h/2) G(q⁰)ᵀ λ
/// (83d) 0 = g(q¹)
/// (83e) 0 = G(q¹) v¹
/// ```
///
/// Unknowns `(q¹, p¹, v¹, λ, γ)`, `3d + 2m`. Properties: symplectic, momentum maps
/// conserved, first order. `g(qⁿ) = 0` and `G(qⁿ) vⁿ = 0` exactly, but `G M⁻¹ p ≠ 0`:
/// `pⁿ` belongs with `vⁿ⁺¹`. Its `λ` oscillates with period 2 around the physical
/// multiplier (spec 000 §2.5); do not compare it directly with other schemes'. For
/// θ = 1 its positions follow the VI-S recursion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GglViB;

impl SchemeInfo for GglViB {
    const LABEL: &'static str = "VI-B";
    const ORDER: u32 = 1;
    const CONSERVES_ENERGY: bool = false;
    const SYMPLECTIC: bool = true;
}
