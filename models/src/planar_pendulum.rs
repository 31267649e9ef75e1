//! The planar pendulum of the Galerkin paper (Wenger, Ober-Blöbaum, Leyendecker,
//! "Construction and analysis of higher order variational integrators for dynamical
//! systems with holonomic constraints", §4; spec `next_packages.md` §B.6 E1), and the
//! same pendulum with a nonlinear potential (E3), the spec's addition: a linear potential
//! makes the Lagrangian's integrand a polynomial, which hides the difference between
//! multipliers of degree `s` and `s − 1` and between the quadrature rules.
use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// A point mass `m` at `(x, y)` on a massless rod of length `l` about the origin,
    /// under gravity `g` along −y, with the extra potential `a x⁴ + b y³` (zero for the
    /// paper's E1, `a = b = 1` for E3 with `m = 1`):
    /// `L = ½ m (ẋ² + ẏ²) − m g y − a x⁴ − b y³`, `g(q) = ½ (x² + y² − l²)`.
    pub struct PlanarPendulum {
        params {
            /// Mass (kg).
            m = 1.0,
            /// Rod length (m).
            l = 1.0,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
            /// Coefficient of `x⁴` (E3: 1).
            a = 0.0,
            /// Coefficient of `y³` (E3: 1).
            b = 0.0,
        }
        requires { m > 0.0, l > 0.0 }
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * m * (x_dot * x_dot + y_dot * y_dot);
        potential = m * g * y + a * x * x * x * x + b * y * y * y;
        holonomic { rod: 0.5 * (x * x + y * y - l * l) }
        schemes {
            Galerkin(2, 2, Gauss(2)),
            Galerkin(3, 3, Gauss(3)),
            ConvertedHolonomic(Rk4, Forward),
            ConvertedHolonomic(Kutta3, Symmetric),
        }
    }
}

impl PlanarPendulum<f64> {
    /// The spec's time span `T = 1`.
    pub const DEFAULT_SPAN: f64 = 1.0;
    /// A step of the spec's order studies.
    pub const DEFAULT_STEP: f64 = 0.05;

    /// E3: `V = x⁴ + 9.81 y + y³`, `m = l = 1`.
    pub fn nonlinear() -> Self {
        Self {
            a: 1.0,
            b: 1.0,
            ..Self::default()
        }
    }

    /// The spec's initial data: at rest at the angle `θ₀ = 1` from the downward vertical,
    /// `q⁰ = l (sin 1, −cos 1)`, `v⁰ = 0`.
    pub fn initial_positions_velocities(&self) -> (SVector<f64, 2>, SVector<f64, 2>) {
        let q = SVector::from([ComplexField::sin(1.0), -ComplexField::cos(1.0)]) * self.l;
        (q, SVector::zeros())
    }

    /// The spec's initial state, on both constraint levels (checked, not projected).
    pub fn initial_state(&self) -> Result<NodeState<f64, 2, 1>, InitError<f64>> {
        let (q, v) = self.initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-15 })
    }
}
