//! The 3D double pendulum of the Galerkin paper (Wenger, Ober-Blöbaum, Leyendecker,
//! "Construction and analysis of higher order variational integrators for dynamical
//! systems with holonomic constraints", §4, Fig. 3; spec `next_packages.md` §B.6 E2).
use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// Two point masses `m1` at `r1` and `m2` at `r2` in space, the first on a rod of
    /// length `l1` from the origin, the second on a rod of length `l2` from the first,
    /// under gravity `g` along −e3:
    /// `L = ½ m1 |ṙ1|² + ½ m2 |ṙ2|² − g (m1 z1 + m2 z2)`,
    /// `g1 = ½ (|r1|² − l1²)`, `g2 = ½ (|r2 − r1|² − l2²)`. The rotation about e3 is a
    /// symmetry: `I_z = Σ (x p_y − y p_x)` (the paper's eq. (71)) is conserved.
    pub struct DoublePendulum3d {
        params {
            /// Mass of the first bob (kg).
            m1 = 1.0,
            /// Mass of the second bob (kg).
            m2 = 2.0,
            /// Length of the first rod (m).
            l1 = 1.0,
            /// Length of the second rod (m).
            l2 = 0.8,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        requires { m1 > 0.0, m2 > 0.0, l1 > 0.0, l2 > 0.0 }
        coords { r1: Vec3, r2: Vec3 }
        kinetic = 0.5 * (m1 * dot(r1_dot, r1_dot) + m2 * dot(r2_dot, r2_dot));
        potential = g * (m1 * r1.z + m2 * r2.z);
        holonomic {
            rod1: 0.5 * (dot(r1, r1) - l1 * l1),
            rod2: 0.5 * (norm_squared(r2 - r1) - l2 * l2),
        }
        momentum { iz: rotation(e3) }
        schemes { Galerkin(2, 2, Gauss(2)) }
    }
}

impl DoublePendulum3d<f64> {
    /// The paper's step.
    pub const DEFAULT_STEP: f64 = 0.05;
    /// 200 of its steps.
    pub const DEFAULT_SPAN: f64 = 10.0;

    /// Initial data on both constraint levels (the paper's are not recorded; spec
    /// §B.6): `r1 = l1 (sin 1, 0, −cos 1)`, `v1 = (0, 1, 0)`,
    /// `r2 = r1 + l2 (0, sin ½, −cos ½)`, `v2 = v1 + (½, 0, 0)`.
    pub fn initial_positions_velocities(&self) -> (SVector<f64, 6>, SVector<f64, 6>) {
        let (s1, c1) = (ComplexField::sin(1.0), ComplexField::cos(1.0));
        let (s2, c2) = (ComplexField::sin(0.5), ComplexField::cos(0.5));
        let r1 = [self.l1 * s1, 0.0, -self.l1 * c1];
        let r2 = [r1[0], r1[1] + self.l2 * s2, r1[2] - self.l2 * c2];
        let q = SVector::from([r1[0], r1[1], r1[2], r2[0], r2[1], r2[2]]);
        let v = SVector::from([0.0, 1.0, 0.0, 0.5, 1.0, 0.0]);
        (q, v)
    }

    /// That initial state, on both constraint levels (checked, not projected).
    pub fn initial_state(&self) -> Result<NodeState<f64, 6, 2>, InitError<f64>> {
        let (q, v) = self.initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-15 })
    }
}
