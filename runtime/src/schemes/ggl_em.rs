use crate::model::SchemeInfo;

/// GGL energy–momentum scheme, "EM" (Kinon, Betsch, Schneider 2023, Sect. 5, eq. (84);
/// spec 000 §2.6), with the velocity eliminated as in the authors' code:
///
/// ```text
/// (84a) q¹ − q⁰ = h M⁻¹ p^½ + h M⁻¹ 𝖣g(q⁰,q¹)ᵀ γ¹
/// (84b) p¹ − p⁰ = −h 𝖣V(q⁰,q¹) − h 𝖣g(q⁰,q¹)ᵀ λ¹ − h Σ_k γ¹_k H_k M⁻¹ p^½
/// (84d) 0 = g(q¹)
/// (84e) 0 = G(q¹) M⁻¹ p¹
/// ```
///
/// Unknowns `(q¹, p¹, λ¹, γ¹)`, `2d + 2m` equations; `v¹ = M⁻¹ p¹` afterwards.
/// `x^½` is the arithmetic mean. For `V` and `g` of degree ≤ 2 the discrete gradients
/// `𝖣` are the midpoint gradients (exact directionality); a non-quadratic `V` gets the
/// Gonzalez formula, which conserves energy but not, in general, momentum maps.
///
/// Properties: energy `H` conserved exactly, momentum maps conserved, `g` and
/// `G M⁻¹ p` exactly zero at every node; second order in `q` and `p`, first in `λ`; not
/// symplectic. Requires a constant mass matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GglEm;

impl SchemeInfo for GglEm {
    const LABEL: &'static str = "EM";
    const ORDER: u32 = 2;
    const CONSERVES_ENERGY: bool = true;
    const SYMPLECTIC: bool = false;
}
