//! Configuration spaces: where a model's configuration lives and how a step moves it.
//!
//! A configuration is stored in `Q` numbers and moves in a tangent space of dimension
//! `D` (the size of the velocities and momenta). In a vector space both are the number
//! of coordinates and a step moves `q` to `q + ξ` ([`Euclidean`]). On a Lie group `G`
//! a unit quaternion stores a rotation in 4 numbers, which moves in the 3-dimensional
//! algebra; a step moves `g` to `g · τ(ξ)` by a retraction `τ: 𝔤 → G` such as the
//! Cayley map, never by `g + ξ`, so the configuration stays on the group without a
//! projection (Martín de Diego, Sato Martín de Almagro, "High-order geometric methods
//! for nonholonomic mechanical systems", Sec. 6 and App. C; spec `next_packages.md`
//! §A.2).
//!
//! A stage family on a group needs, besides the retraction, its left-trivialised
//! tangent and the maps the exact Newton Jacobian reads (§A.2 of the spec, whose
//! notation this module follows):
//!
//! ```text
//! B(ξ)      = d^L τ_ξ⁻¹          d/dε τ(ξ + εδ)|₀ = τ(ξ) · (B(ξ)⁻¹ δ)^
//! E(ξ, y) δ = ∂_ξ[B(ξ) y] · δ    (the paper's second trivialised tangent: (dd^Lτ_ξ)*(η, π) = −E(ξ, B(ξ)⁻¹η)ᵀ π)
//! Ad_{τ(ξ)}                      (the paper's Ad* is its plain transpose)
//! ad_u ζ    = [u, ζ]
//! ```
//!
//! The trait's sizes are const generics in the order the rest of the runtime uses them:
//! the tangent size `D` first, the storage size `Q` last with `Q = D` as its default,
//! so that a vector space reads `Space<T, D>` as every Euclidean model did before.
//! Matrices are written into caller-provided column storage (`out[j][i]` is row `i`,
//! column `j`), as the point kernels' are.
use nalgebra::{RealField, SVector};

mod euclidean;
mod product;
mod se2;
mod so3;

pub use euclidean::Euclidean;
pub use product::Product;
pub use se2::Se2;
pub use so3::{hat, So3};

/// The constant `x` in the scalar type, for the spaces' closed forms.
fn c<T: RealField + Copy>(x: f64) -> T {
    nalgebra::convert(x)
}

/// A configuration space with a retraction: configurations stored in `Q` numbers,
/// tangent vectors (velocities, increments, momenta) of `D`.
///
/// Every map is generic over the scalar, so that dual numbers differentiate it (the
/// tests check each derivative map against them). The bound is [`Real`](crate::Real)'s,
/// written out, so that a space depends on nalgebra alone and the model on the space.
pub trait Space<T: RealField + Copy, const D: usize, const Q: usize = D> {
    /// The space's name, for messages.
    const NAME: &'static str;
    /// Whether the space is a vector space with `τ(ξ) = ξ` added: then `B = I`,
    /// `E = 0`, `Ad = I` and `ad = 0`, and a family skips the terms they would
    /// contribute, so that its Euclidean steps cost what they cost before spaces.
    const FLAT: bool;

    /// The configuration reached from `q` by the increment `xi`: `q · τ(ξ)` (`q + ξ` in
    /// a vector space).
    fn retract(q: &SVector<T, Q>, xi: &SVector<T, D>) -> SVector<T, Q>;

    /// The increment from `q0` to `q1`: `τ⁻¹(q0⁻¹ q1)`, the `ξ` with
    /// `retract(q0, ξ) = q1` (`q1 − q0` in a vector space). Defined wherever `τ⁻¹` is
    /// (for the Cayley map, away from half turns).
    fn local(q0: &SVector<T, Q>, q1: &SVector<T, Q>) -> SVector<T, D>;

    /// `B(ξ) = d^L τ_ξ⁻¹`.
    fn dtau_inv(xi: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// `B(ξ)⁻¹ = d^L τ_ξ`.
    fn dtau(xi: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// `E(ξ, y)`, the derivative of `B(ξ) y` with respect to `ξ`:
    /// `out[j][i] = ∂(B(ξ) y)ᵢ/∂ξⱼ`.
    fn dtau_inv_derivative(xi: &SVector<T, D>, y: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// `∂_ξ(B(ξ)ᵀ m)`: `out[j][a] = ∂(B(ξ)ᵀ m)ₐ/∂ξⱼ = mᵀ E(ξ, eₐ) eⱼ` (§A.2's
    /// `∂_X(B(X)ᵀ n)`).
    fn dtau_inv_t_derivative(xi: &SVector<T, D>, m: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// The derivatives of `E(ξ, y)ᵀ π` with respect to `ξ` (into `d_xi`) and to `y`
    /// (into `d_y`), the blocks of the stage momentum's `D = −E(Ξ, ζ)ᵀ Π` in the Newton
    /// Jacobian.
    fn dtau_inv_derivative_t_derivatives(
        xi: &SVector<T, D>,
        y: &SVector<T, D>,
        pi: &SVector<T, D>,
        d_xi: &mut [[T; D]; D],
        d_y: &mut [[T; D]; D],
    );

    /// `Ad_{τ(ξ)}`, the adjoint action of the group element `τ(ξ)` on the algebra.
    fn ad_tau(xi: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// `ad_u`, the algebra's bracket with `u`: `ad_u ζ = [u, ζ]`.
    fn ad(u: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// `∂_u(ad_uᵀ w)`, linear in `u`: `out[j][a] = (ad_{eⱼ}ᵀ w)ₐ`, the derivative of the
    /// coadjoint term `Ad_{τ(ξ)}ᵀ m` (§A.2: `∂_ξ(Ad_{τ(ξ)}ᵀ m) δ = ad_uᵀ (Ad_{τ(ξ)}ᵀ m)`
    /// with `u = B(ξ)⁻¹ δ`).
    fn ad_t_derivative(w: &SVector<T, D>, out: &mut [[T; D]; D]);
}
