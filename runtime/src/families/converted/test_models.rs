//! Two small models with their `SecondOrderKernels` written by hand, for the family's
//! tests and `benches/converted.rs` (which includes this file by its path): P1 of spec
//! `next_packages.md` §C.5, the pendulum in its angle, and P2, the central potential,
//! with a magnetic term so that `L_vq ≠ 0` reaches every derivative. The includer
//! provides `SecondOrderKernels` in the parent module.
use nalgebra::{SMatrix, Vector1, Vector2};

use super::SecondOrderKernels;

/// Gravity of P1.
pub const G: f64 = 9.81;

/// P1: the pendulum in its angle, `L = ½v² + g cos q`, `A = −g sin q`.
pub struct Pendulum;

impl SecondOrderKernels<f64, 1> for Pendulum {
    fn lagrangian(&self, q: &Vector1<f64>, v: &Vector1<f64>) -> f64 {
        0.5 * v[0] * v[0] + G * q[0].cos()
    }
    fn l_q(&self, q: &Vector1<f64>, _: &Vector1<f64>) -> Vector1<f64> {
        Vector1::new(-G * q[0].sin())
    }
    fn l_v(&self, _: &Vector1<f64>, v: &Vector1<f64>) -> Vector1<f64> {
        *v
    }
    fn l_qq(&self, q: &Vector1<f64>, _: &Vector1<f64>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(-G * q[0].cos())
    }
    fn l_qv(&self, _: &Vector1<f64>, _: &Vector1<f64>) -> SMatrix<f64, 1, 1> {
        SMatrix::zeros()
    }
    fn l_vv(&self, _: &Vector1<f64>, _: &Vector1<f64>) -> SMatrix<f64, 1, 1> {
        SMatrix::identity()
    }
    fn acceleration(&self, q: &Vector1<f64>, _: &Vector1<f64>) -> Vector1<f64> {
        Vector1::new(-G * q[0].sin())
    }
    fn acceleration_jacobians(
        &self,
        q: &Vector1<f64>,
        _: &Vector1<f64>,
    ) -> (SMatrix<f64, 1, 1>, SMatrix<f64, 1, 1>) {
        (SMatrix::<f64, 1, 1>::new(-G * q[0].cos()), SMatrix::zeros())
    }
    fn acceleration_second(
        &self,
        q: &Vector1<f64>,
        _: &Vector1<f64>,
        dq: &Vector1<f64>,
        _: &Vector1<f64>,
    ) -> (SMatrix<f64, 1, 1>, SMatrix<f64, 1, 1>) {
        (
            SMatrix::<f64, 1, 1>::new(G * q[0].sin() * dq[0]),
            SMatrix::zeros(),
        )
    }
}

/// P2: a particle in the plane in the central potential `V = ¼|q|⁴ + ½|q|²`, with a
/// velocity-dependent term `L = ½|v|² + ε (q₁v₂ − q₂v₁) − V` (a magnetic field, still
/// rotation invariant) so that `L_vq ≠ 0` reaches the derivatives: `A = −2ε J v − ∇V`
/// with `J = [[0, −1], [1, 0]]`.
pub struct Central {
    /// The magnetic term's strength.
    pub epsilon: f64,
}

impl Central {
    fn gyro(&self, v: &Vector2<f64>) -> Vector2<f64> {
        // 2ε J v
        Vector2::new(-v[1], v[0]) * (2.0 * self.epsilon)
    }
}

impl SecondOrderKernels<f64, 2> for Central {
    fn lagrangian(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> f64 {
        let r2 = q.norm_squared();
        0.5 * v.norm_squared() + self.epsilon * (q[0] * v[1] - q[1] * v[0])
            - (0.25 * r2 * r2 + 0.5 * r2)
    }
    fn l_q(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> Vector2<f64> {
        Vector2::new(v[1], -v[0]) * self.epsilon - q * (q.norm_squared() + 1.0)
    }
    fn l_v(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> Vector2<f64> {
        v + Vector2::new(-q[1], q[0]) * self.epsilon
    }
    fn l_qq(&self, q: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        -(SMatrix::<f64, 2, 2>::identity() * (q.norm_squared() + 1.0) + q * q.transpose() * 2.0)
    }
    fn l_qv(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        // ∂/∂v of L_q = ε (v₂, −v₁) − ∇V.
        SMatrix::<f64, 2, 2>::new(0.0, self.epsilon, -self.epsilon, 0.0)
    }
    fn l_vv(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::identity()
    }
    fn acceleration(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> Vector2<f64> {
        // d/dt L_v = L_q:  v̇ + ε J v = ε (v₂, −v₁) − ∇V  ⇒  v̇ = −2ε J v − ∇V.
        -self.gyro(v) - q * (q.norm_squared() + 1.0)
    }
    fn acceleration_jacobians(
        &self,
        q: &Vector2<f64>,
        _: &Vector2<f64>,
    ) -> (SMatrix<f64, 2, 2>, SMatrix<f64, 2, 2>) {
        let a_q = -(SMatrix::<f64, 2, 2>::identity() * (q.norm_squared() + 1.0)
            + q * q.transpose() * 2.0);
        let e = 2.0 * self.epsilon;
        (a_q, SMatrix::<f64, 2, 2>::new(0.0, e, -e, 0.0))
    }
    fn acceleration_second(
        &self,
        q: &Vector2<f64>,
        _: &Vector2<f64>,
        dq: &Vector2<f64>,
        _: &Vector2<f64>,
    ) -> (SMatrix<f64, 2, 2>, SMatrix<f64, 2, 2>) {
        // A_q = −((|q|² + 1) I + 2 q qᵀ), A_v constant.
        let a_q = -(SMatrix::<f64, 2, 2>::identity() * (2.0 * q.dot(dq))
            + (dq * q.transpose() + q * dq.transpose()) * 2.0);
        (a_q, SMatrix::zeros())
    }
}
