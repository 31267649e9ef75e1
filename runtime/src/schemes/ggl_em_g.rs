use crate::model::SchemeInfo;

/// Gonzalez's energy–momentum scheme with primary constraints only, "EM-G" (Gonzalez
/// 1999; the reference scheme of Kinon, Betsch, Schneider 2023, Sect. 6.3; spec 000
/// §2.7):
///
/// ```text
/// q¹ − q⁰ = h M⁻¹ p^½
/// p¹ − p⁰ = −h 𝖣V(q⁰, q¹) − h 𝖣g(q⁰, q¹)ᵀ λ¹
/// 0 = g(q¹)
/// ```
///
/// Unknowns `(q¹, p¹, λ¹)`, `2d + m`. Conserves energy and momentum maps (with
/// invariant-based `𝖣V`), `g = 0` at the nodes; the secondary constraint `G M⁻¹ p` is
/// not enforced and drifts. Second order in `q`, `p`; first in `λ`. The state's `γ` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GglEmG;

impl SchemeInfo for GglEmG {
    const LABEL: &'static str = "EM-G";
    const ORDER: u32 = 2;
    const CONSERVES_ENERGY: bool = true;
    const SYMPLECTIC: bool = false;
}
