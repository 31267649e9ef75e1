//! The rotation group SO(3), stored as a unit quaternion, with the Cayley retraction
//! (spec `next_packages.md` §A.2; the nonholonomic paper's Sec. 6 and App. C).
use nalgebra::{RealField, SMatrix, SVector};

use super::{c, Space};

/// SO(3) stored as a unit quaternion `q = (w, x, y, z)` (4 numbers), moving in its
/// algebra `so(3) ≅ R³` (`ξ̂ v = ξ × v`) by the Cayley map: `q · τ(ξ)` is the
/// quaternion product with `(2, ξ)/√(4 + |ξ|²)`, a turn by `2 atan(|ξ|/2)` about `ξ`
/// in the body frame. With `ξ̂` the cross-product matrix:
///
/// ```text
/// B(ξ) = I + ½ ξ̂ + ¼ ξ ξᵀ,          B(ξ)⁻¹ = 2/(4 + |ξ|²) (2I − ξ̂)
/// E(ξ, y) = −½ ŷ + ¼ (ξ yᵀ + (ξ·y) I)
/// Ad_{τ(ξ)} = I + 4/(4 + |ξ|²) (ξ̂ + ½ ξ̂²),   ad_u = û
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct So3;

type M3<T> = SMatrix<T, 3, 3>;
type V3<T> = SVector<T, 3>;

/// The cross-product matrix `â`, `â b = a × b`: the algebra `so(3)`'s `hat`.
pub fn hat<T: RealField + Copy>(a: &V3<T>) -> M3<T> {
    M3::new(
        T::zero(),
        -a[2],
        a[1],
        a[2],
        T::zero(),
        -a[0],
        -a[1],
        a[0],
        T::zero(),
    )
}

/// `m` into column storage.
fn write<T: RealField + Copy>(m: &M3<T>, out: &mut [[T; 3]; 3]) {
    *out = m.data.0;
}

/// The quaternion product `a ⊗ b`, scalar first.
fn product<T: RealField + Copy>(a: &SVector<T, 4>, b: &SVector<T, 4>) -> SVector<T, 4> {
    SVector::from([
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ])
}

impl<T: RealField + Copy> Space<T, 3, 4> for So3 {
    const NAME: &'static str = "SO3";
    const FLAT: bool = false;

    /// `q ⊗ (2, ξ)/√(4 + |ξ|²)`, divided by its norm: the exact product has norm one,
    /// so the division changes only the rounding, which would otherwise drift `|q|`
    /// (the spec renormalises the same way).
    fn retract(q: &SVector<T, 4>, xi: &V3<T>) -> SVector<T, 4> {
        let scale = T::one() / (c::<T>(4.0) + xi.norm_squared()).sqrt();
        let turn = SVector::from([
            c::<T>(2.0) * scale,
            xi[0] * scale,
            xi[1] * scale,
            xi[2] * scale,
        ]);
        let moved = product(q, &turn);
        moved / moved.norm()
    }

    /// `2 w_v / w₀` of `w = q0⁻¹ ⊗ q1`, the inverse of `(2, ξ)/√(4 + |ξ|²)`.
    fn local(q0: &SVector<T, 4>, q1: &SVector<T, 4>) -> V3<T> {
        let conj = SVector::from([q0[0], -q0[1], -q0[2], -q0[3]]);
        let w = product(&conj, q1);
        V3::new(w[1], w[2], w[3]) * (c::<T>(2.0) / w[0])
    }

    fn dtau_inv(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let b = M3::identity() + hat(xi) * c::<T>(0.5) + xi * xi.transpose() * c::<T>(0.25);
        write(&b, out);
    }

    fn dtau(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let f = c::<T>(2.0) / (c::<T>(4.0) + xi.norm_squared());
        write(&((M3::identity() * c::<T>(2.0) - hat(xi)) * f), out);
    }

    fn dtau_inv_derivative(xi: &V3<T>, y: &V3<T>, out: &mut [[T; 3]; 3]) {
        let quarter = c::<T>(0.25);
        let e = -hat(y) * c::<T>(0.5) + (xi * y.transpose() + M3::identity() * xi.dot(y)) * quarter;
        write(&e, out);
    }

    /// `∂_ξ(m − ½ ξ × m + ¼ ξ (ξ·m)) = ½ m̂ + ¼ ((ξ·m) I + ξ mᵀ)`.
    fn dtau_inv_t_derivative(xi: &V3<T>, m: &V3<T>, out: &mut [[T; 3]; 3]) {
        let quarter = c::<T>(0.25);
        let d = hat(m) * c::<T>(0.5) + (M3::identity() * xi.dot(m) + xi * m.transpose()) * quarter;
        write(&d, out);
    }

    /// `E(ξ, y)ᵀ π = ½ y × π + ¼ (y (ξ·π) + (ξ·y) π)`.
    fn dtau_inv_derivative_t_derivatives(
        xi: &V3<T>,
        y: &V3<T>,
        pi: &V3<T>,
        d_xi: &mut [[T; 3]; 3],
        d_y: &mut [[T; 3]; 3],
    ) {
        let quarter = c::<T>(0.25);
        write(&((y * pi.transpose() + pi * y.transpose()) * quarter), d_xi);
        let dy =
            -hat(pi) * c::<T>(0.5) + (M3::identity() * xi.dot(pi) + pi * xi.transpose()) * quarter;
        write(&dy, d_y);
    }

    fn ad_tau(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let x = hat(xi);
        let f = c::<T>(4.0) / (c::<T>(4.0) + xi.norm_squared());
        write(&(M3::identity() + (x + x * x * c::<T>(0.5)) * f), out);
    }

    fn ad(u: &V3<T>, out: &mut [[T; 3]; 3]) {
        write(&hat(u), out);
    }

    /// `ad_uᵀ w = −u × w = ŵ u`.
    fn ad_t_derivative(w: &V3<T>, out: &mut [[T; 3]; 3]) {
        write(&hat(w), out);
    }
}
