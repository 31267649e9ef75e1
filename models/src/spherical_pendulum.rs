use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// A unit mass on the unit sphere under gravity, in Cartesian coordinates (Martín de
    /// Diego, Sato Martín de Almagro, "High-order geometric methods for nonholonomic
    /// mechanical systems", Sec. 4.3; spec 002 §6 C), the test of the holonomically
    /// constrained Lobatto IIIA–IIIB method (spec 002 S3).
    ///
    /// `L = ½ v·v − g q₃`, `Φ(q) = q·q − 1`; the rotation about e3 is a symmetry with
    /// momentum map `J₃ = (q × p)·e3`.
    pub struct SphericalPendulum {
        params {
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        coords { q: Vec3 }
        kinetic = 0.5 * dot(q_dot, q_dot);
        potential = g * q.z;
        holonomic { sphere: dot(q, q) - 1.0 }
        momentum { j3: rotation(e3) }
        schemes {
            HolonomicLobatto(2), HolonomicLobatto(3), HolonomicLobatto(4), HolonomicLobatto(5),
            Rattle, Shake, GglEm, Galerkin(2, 2, Gauss, 2), Galerkin(3, 2, Lobatto, 3),
            ConvertedHolonomic(Rk4, Forward)
        }
    }
}

impl SphericalPendulum<f64> {
    /// The step size of the spec's finest s = 3, 4 runs, `T / 128`.
    pub const DEFAULT_STEP: f64 = 2.0 / 128.0;
    /// The spec's time span `T = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The spec's initial data: `q⁰ = (sin 1, 0, −cos 1)`, `v⁰ = (0, 1.2, 0)`.
    pub fn initial_positions_velocities() -> (SVector<f64, 3>, SVector<f64, 3>) {
        (
            SVector::from([ComplexField::sin(1.0), 0.0, -ComplexField::cos(1.0)]),
            SVector::from([0.0, 1.2, 0.0]),
        )
    }

    /// The spec's initial state, on both constraint levels (checked, not projected).
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 1>, InitError<f64>> {
        let (q, v) = Self::initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-15 })
    }
}
