//! The circle `S¹ = SO(2)` as a configuration space for tests: a rotation stored as a
//! unit complex number `z = (cos φ, sin φ)` (2 numbers) moving in its 1-dimensional
//! algebra by the Cayley map. The smallest space whose storage is larger than its
//! tangent, so that it proves every path that carries both sizes before the Lie groups
//! of seed 002 arrive.
//!
//! With `so(2) ≅ R`, `ξ̂ = ξ J`: `τ(ξ) = (1 + iξ/2)/(1 − iξ/2)`, a turn by
//! `2 atan(ξ/2)`; the group is abelian, so `Ad = 1` and `ad = 0`, and the spec's
//! general formulas (`next_packages.md` §A.2) give `B(ξ) = 1 + ξ²/4`,
//! `B(ξ)⁻¹ = 4/(4 + ξ²)` and `E(ξ, y) = ξ y / 2`.
use livens::space::Space;
use livens::{Real, SVector};

/// `S¹` stored as a unit complex number, with the Cayley retraction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Circle;

fn c<T: Real>(x: f64) -> T {
    T::from_subset(&x)
}

/// `a · b` as complex numbers.
fn mul<T: Real>(a: &SVector<T, 2>, b: &SVector<T, 2>) -> SVector<T, 2> {
    SVector::from([a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]])
}

impl<T: Real> Space<T, 1, 2> for Circle {
    const NAME: &'static str = "S1";
    const FLAT: bool = false;

    /// `z · τ(ξ)` with `τ(ξ) = ((4 − ξ²) + 4iξ)/(4 + ξ²)`, divided by its modulus. The
    /// exact product already has modulus one, so the division changes only the
    /// rounding, which without it random-walks `|z|` away from 1: 1.1e-14 on average
    /// and 2.4e-14 at worst after 10⁴ products with random `|ξ| ≤ ½` (49 walks). The
    /// spec renormalises the quaternion of SO(3) the same way (§A.2).
    fn retract(z: &SVector<T, 2>, xi: &SVector<T, 1>) -> SVector<T, 2> {
        let (four, x2) = (c::<T>(4.0), xi[0] * xi[0]);
        let turn = SVector::from([(four - x2) / (four + x2), four * xi[0] / (four + x2)]);
        let moved = mul(z, &turn);
        moved / moved.norm()
    }

    /// `τ⁻¹(z0⁻¹ z1)`: for the turn `(cos φ, sin φ)`, `2 tan(φ/2) = 2 sin φ / (1 + cos φ)`.
    fn local(z0: &SVector<T, 2>, z1: &SVector<T, 2>) -> SVector<T, 1> {
        let conj = SVector::from([z0[0], -z0[1]]);
        let turn = mul(&conj, z1);
        SVector::from([c::<T>(2.0) * turn[1] / (T::one() + turn[0])])
    }

    fn dtau_inv(xi: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = T::one() + xi[0] * xi[0] / c::<T>(4.0);
    }

    fn dtau(xi: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = c::<T>(4.0) / (c::<T>(4.0) + xi[0] * xi[0]);
    }

    fn dtau_inv_derivative(xi: &SVector<T, 1>, y: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = xi[0] * y[0] / c::<T>(2.0);
    }

    /// `B(ξ)ᵀ m = (1 + ξ²/4) m`.
    fn dtau_inv_t_derivative(xi: &SVector<T, 1>, m: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = xi[0] * m[0] / c::<T>(2.0);
    }

    /// `E(ξ, y)ᵀ π = ξ y π / 2`.
    fn dtau_inv_derivative_t_derivatives(
        xi: &SVector<T, 1>,
        y: &SVector<T, 1>,
        pi: &SVector<T, 1>,
        d_xi: &mut [[T; 1]; 1],
        d_y: &mut [[T; 1]; 1],
    ) {
        d_xi[0][0] = y[0] * pi[0] / c::<T>(2.0);
        d_y[0][0] = xi[0] * pi[0] / c::<T>(2.0);
    }

    fn ad_tau(_: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = T::one();
    }

    fn ad(_: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = T::zero();
    }

    fn ad_t_derivative(_: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = T::zero();
    }
}
