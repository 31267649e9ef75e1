//! The planar rigid motions SE(2), stored as `(x, y, θ)`, with the Cayley retraction
//! (spec `next_packages.md` §A.2; the nonholonomic paper's Sec. 6, App. C and its
//! unicycle, Sec. 7.4).
use nalgebra::{RealField, SVector};

use super::{c, Space};

/// SE(2) stored as the position and heading `(x, y, θ)` of a body, with `θ` unwrapped
/// (it is never reduced to a turn, so nothing drifts off the group), moving in its
/// algebra `se(2) ≅ R³` of body velocities `ξ = (v₁, v₂, ω)` (`ξ̂` the 3 × 3 matrix
/// `[[0, −ω, v₁], [ω, 0, v₂], [0, 0, 0]]`) by the Cayley map. `g · τ(ξ)` turns the
/// heading by `2 atan(ω/2)` and moves the position by `R(θ) t`, with
/// `t = (I − ω̂/2)⁻¹ v = (2(2v₁ − ωv₂), 2(ωv₁ + 2v₂))/(4 + ω²)`. With `J` the quarter
/// turn of the plane:
///
/// ```text
/// B(ξ)  = [[1, −ω/2, ωv₁/4 + v₂/2], [ω/2, 1, ωv₂/4 − v₁/2], [0, 0, 1 + ω²/4]]
/// B(ξ)⁻¹ = [[4, 2ω, −2v₂], [−2ω, 4, 2v₁], [0, 0, 4]] / (4 + ω²)
/// Ad_g  = [[cos θ, −sin θ, y], [sin θ, cos θ, −x], [0, 0, 1]]  at g = (x, y, θ)
/// ad_u  = [[0, −ω, v₂], [ω, 0, −v₁], [0, 0, 0]]  at u = (v₁, v₂, ω)
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Se2;

type V3<T> = SVector<T, 3>;

/// The matrix with rows `rows`, in column storage.
fn rows<T: RealField + Copy>(rows: [[T; 3]; 3], out: &mut [[T; 3]; 3]) {
    for (i, row) in rows.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            out[j][i] = x;
        }
    }
}

/// The displacement `t = (I − ω̂/2)⁻¹ v` of `τ(ξ)`, in the frame of the body before the
/// step.
fn displacement<T: RealField + Copy>(xi: &V3<T>) -> (T, T) {
    let (v1, v2, w) = (xi[0], xi[1], xi[2]);
    let two = c::<T>(2.0);
    let d = c::<T>(4.0) + w * w;
    (two * (two * v1 - w * v2) / d, two * (w * v1 + two * v2) / d)
}

impl<T: RealField + Copy> Space<T, 3, 3> for Se2 {
    const NAME: &'static str = "SE2";
    const FLAT: bool = false;

    /// `θ + 2 atan(ω/2)`, and the position moved by `R(θ) t`.
    fn retract(g: &V3<T>, xi: &V3<T>) -> V3<T> {
        let (t1, t2) = displacement(xi);
        let (s, co) = g[2].sin_cos();
        V3::new(
            g[0] + co * t1 - s * t2,
            g[1] + s * t1 + co * t2,
            g[2] + c::<T>(2.0) * (xi[2] * c::<T>(0.5)).atan(),
        )
    }

    /// `ω = 2 tan(Δθ/2)` and `v = (I − ω̂/2) t`, with `t` the displacement seen from
    /// `g0`'s frame; defined away from half turns, as `τ⁻¹` is.
    fn local(g0: &V3<T>, g1: &V3<T>) -> V3<T> {
        let half = c::<T>(0.5);
        let w = c::<T>(2.0) * ((g1[2] - g0[2]) * half).tan();
        let (s, co) = g0[2].sin_cos();
        let (dx, dy) = (g1[0] - g0[0], g1[1] - g0[1]);
        let (t1, t2) = (co * dx + s * dy, -s * dx + co * dy);
        V3::new(t1 + half * w * t2, t2 - half * w * t1, w)
    }

    fn dtau_inv(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let (v1, v2, w) = (xi[0], xi[1], xi[2]);
        let (half, quarter, zero, one) = (c::<T>(0.5), c::<T>(0.25), T::zero(), T::one());
        rows(
            [
                [one, -half * w, quarter * w * v1 + half * v2],
                [half * w, one, quarter * w * v2 - half * v1],
                [zero, zero, one + quarter * w * w],
            ],
            out,
        );
    }

    fn dtau(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let (v1, v2, w) = (xi[0], xi[1], xi[2]);
        let (two, four, zero) = (c::<T>(2.0), c::<T>(4.0), T::zero());
        let f = T::one() / (four + w * w);
        rows(
            [
                [four * f, two * w * f, -two * v2 * f],
                [-two * w * f, four * f, two * v1 * f],
                [zero, zero, four * f],
            ],
            out,
        );
    }

    /// `out[j][i] = ∂(B(ξ) y)ᵢ/∂ξⱼ`; `B(ξ) y` is linear in `v` and quadratic in `ω`.
    fn dtau_inv_derivative(xi: &V3<T>, y: &V3<T>, out: &mut [[T; 3]; 3]) {
        let (v1, v2, w) = (xi[0], xi[1], xi[2]);
        let (y1, y2, yw) = (y[0], y[1], y[2]);
        let (half, quarter, zero) = (c::<T>(0.5), c::<T>(0.25), T::zero());
        rows(
            [
                [quarter * w * yw, half * yw, -half * y2 + quarter * v1 * yw],
                [-half * yw, quarter * w * yw, half * y1 + quarter * v2 * yw],
                [zero, zero, half * w * yw],
            ],
            out,
        );
    }

    /// `B(ξ)ᵀ m = (m₁ + ωm₂/2, m₂ − ωm₁/2, (ωv₁/4 + v₂/2) m₁ + (ωv₂/4 − v₁/2) m₂ +
    /// (1 + ω²/4) m₃)`, differentiated in `ξ`.
    fn dtau_inv_t_derivative(xi: &V3<T>, m: &V3<T>, out: &mut [[T; 3]; 3]) {
        let (v1, v2, w) = (xi[0], xi[1], xi[2]);
        let (m1, m2, m3) = (m[0], m[1], m[2]);
        let (half, quarter, zero) = (c::<T>(0.5), c::<T>(0.25), T::zero());
        rows(
            [
                [zero, zero, half * m2],
                [zero, zero, -half * m1],
                [
                    quarter * w * m1 - half * m2,
                    half * m1 + quarter * w * m2,
                    quarter * (v1 * m1 + v2 * m2) + half * w * m3,
                ],
            ],
            out,
        );
    }

    /// `E(ξ, y)ᵀ π`, differentiated in `ξ` (affine: `E` is linear in `ξ`) and in `y`.
    fn dtau_inv_derivative_t_derivatives(
        xi: &V3<T>,
        y: &V3<T>,
        pi: &V3<T>,
        d_xi: &mut [[T; 3]; 3],
        d_y: &mut [[T; 3]; 3],
    ) {
        let (v1, v2, w) = (xi[0], xi[1], xi[2]);
        let yw = y[2];
        let (p1, p2, p3) = (pi[0], pi[1], pi[2]);
        let (half, quarter, zero) = (c::<T>(0.5), c::<T>(0.25), T::zero());
        rows(
            [
                [zero, zero, quarter * p1 * yw],
                [zero, zero, quarter * p2 * yw],
                [quarter * p1 * yw, quarter * p2 * yw, half * p3 * yw],
            ],
            d_xi,
        );
        rows(
            [
                [zero, zero, quarter * w * p1 - half * p2],
                [zero, zero, half * p1 + quarter * w * p2],
                [
                    half * p2,
                    -half * p1,
                    quarter * (v1 * p1 + v2 * p2) + half * w * p3,
                ],
            ],
            d_y,
        );
    }

    /// `Ad` at `τ(ξ) = (t, 2 atan(ω/2))`: `cos θ = (4 − ω²)/(4 + ω²)`,
    /// `sin θ = 4ω/(4 + ω²)`.
    fn ad_tau(xi: &V3<T>, out: &mut [[T; 3]; 3]) {
        let w = xi[2];
        let four = c::<T>(4.0);
        let d = four + w * w;
        let (co, s) = ((four - w * w) / d, four * w / d);
        let (t1, t2) = displacement(xi);
        let (zero, one) = (T::zero(), T::one());
        rows([[co, -s, t2], [s, co, -t1], [zero, zero, one]], out);
    }

    fn ad(u: &V3<T>, out: &mut [[T; 3]; 3]) {
        let (v1, v2, w) = (u[0], u[1], u[2]);
        let zero = T::zero();
        rows([[zero, -w, v2], [w, zero, -v1], [zero, zero, zero]], out);
    }

    /// `out[j] = ad_{eⱼ}ᵀ w`: `(0, 0, −w₂)`, `(0, 0, w₁)`, `(w₂, −w₁, 0)`.
    fn ad_t_derivative(w: &V3<T>, out: &mut [[T; 3]; 3]) {
        let zero = T::zero();
        *out = [[zero, zero, -w[1]], [zero, zero, w[0]], [w[1], -w[0], zero]];
    }
}
