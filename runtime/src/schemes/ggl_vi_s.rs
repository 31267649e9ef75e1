use crate::model::SchemeInfo;

/// First-order GGL variational integrator, "VI-S" (Kinon, Betsch, Schneider 2023,
/// Sect. 4.1, eq. (55); spec 000 §2.1), a generalisation of the symplectic Euler method:
///
/// ```text
/// (55a) q¹ − q⁰ = h v⁰ + h M⁻¹ G(q̄)ᵀ γ¹,            q̄ = q⁰ + h v⁰
/// (55b) p¹ − p⁰ = h ∂L/∂q(q⁰, v⁰) − h G(q⁰)ᵀ λ⁰ − h T(q̄, γ¹) M⁻¹ p¹
/// (55c) ∂L/∂v(q⁰, v⁰) = (I + h T(q̄, γ¹) M⁻¹) p¹
/// (55d) 0 = g(q¹)
/// (55e) 0 = G(q̄) M⁻¹ p¹
/// ```
///
/// with `T(q, γ) = Σ_k γ_k H_k(q)`. Unknowns `(q¹, p¹, v⁰, λ⁰, γ¹)`, `3d + 2m`.
///
/// **Index quirk:** `v⁰`, the velocity of `[tⁿ, tⁿ⁺¹]`, is solved in the step n → n+1,
/// so after a step the state's `v` is the velocity of the interval that just ended; the
/// user's initial `v` only sets `p⁰` and the Newton guess.
///
/// Properties: symplectic, momentum maps conserved, first order; energy oscillates.
/// `g = 0` at the nodes; the secondary constraint holds at `q̄`, so `G(qⁿ) M⁻¹ pⁿ` is
/// zero only for linear constraints and special cases such as the pendulum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GglViS;

impl SchemeInfo for GglViS {
    const LABEL: &'static str = "VI-S";
    const ORDER: u32 = 1;
    const CONSERVES_ENERGY: bool = false;
    const SYMPLECTIC: bool = true;
}
