use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// The planar double pendulum in its joint angles, unconstrained: two point masses
    /// on massless rods, the angles `a`, `b` from the downward vertical. Its mass matrix
    /// depends on the configuration (`cos(a − b)`), so every derivative the converted
    /// schemes read (Patrick, Cuell, Spiteri, Zhang; spec `next_packages.md` §C) is
    /// nontrivial, up to the fourth derivatives of `L` in the exact Newton Jacobian.
    /// The parameters and start are those of the stage families' work-precision
    /// comparison (`m₁ = m₂ = l₁ = l₂ = 1`, `g = 9.81`, `θ(0) = (2.0, 2.5)`, at rest).
    pub struct AnglePendulum {
        params {
            /// First mass (kg).
            m1 = 1.0,
            /// Second mass (kg).
            m2 = 1.0,
            /// First rod (m).
            l1 = 1.0,
            /// Second rod (m).
            l2 = 1.0,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        requires { m1 > 0.0, m2 > 0.0, l1 > 0.0, l2 > 0.0 }
        coords { a: Scalar, b: Scalar }
        kinetic = 0.5 * (m1 + m2) * l1 * l1 * a_dot * a_dot
            + 0.5 * m2 * l2 * l2 * b_dot * b_dot
            + m2 * l1 * l2 * cos(a - b) * a_dot * b_dot;
        potential = -(m1 + m2) * g * l1 * cos(a) - m2 * g * l2 * cos(b);
        schemes { LobattoIIIAIIIB(4), Converted(Rk4, Forward), Converted(Kutta3, Symmetric) }
    }
}

impl AnglePendulum<f64> {
    /// A step at which every declared scheme runs the default span: `h = 0.01`.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// `T = 5`.
    pub const DEFAULT_SPAN: f64 = 5.0;

    /// `θ(0) = (2.0, 2.5)` at rest, `p⁰ = M(q⁰) v⁰ = 0`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 2, 0>, InitError<f64>> {
        let q = SVector::from([2.0, 2.5]);
        let v = SVector::zeros();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 0.0 })
    }
}
