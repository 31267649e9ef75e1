use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// Mathematical pendulum in 3D, in redundant Cartesian coordinates (Kinon, Betsch,
    /// Schneider 2023, Sect. 6.1, eqs. (92)–(98); spec 000 §3.1): a point mass `m` on a
    /// massless rod of length `l` about a fixed pivot, under gravity `g` along −e3.
    ///
    /// `L = ½ m v·v − m g q₃`, `g(q) = ½ (q·q / l² − 1)`; the rotation about e3 is a
    /// symmetry with momentum map `J₃ = (q × p)·e3`.
    pub struct Pendulum3d {
        params {
            /// Mass (kg).
            m = 1.0,
            /// Rod length (m).
            l = 1.0,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        requires { m > 0.0, l > 0.0 }
        coords { q: Vec3 }
        kinetic = 0.5 * m * dot(q_dot, q_dot);
        potential = m * g * q.z;
        holonomic { length: 0.5 * (dot(q, q) / (l * l) - 1.0) }
        momentum { j3: rotation(e3) }
        schemes { GglViS, GglViA, GglViB, GglThetaA, GglThetaB, GglEm, GglEmG, Rattle }
    }
}

impl Pendulum3d<f64> {
    /// Step size of the paper's runs.
    pub const DEFAULT_STEP: f64 = 0.05;
    /// Time span of the paper's runs.
    pub const DEFAULT_SPAN: f64 = 10.0;

    /// The paper's initial data: `q⁰ = [1, 0, 0]`, `v⁰ = [0, 1, 0]` (consistent).
    pub fn initial_positions_velocities() -> (SVector<f64, 3>, SVector<f64, 3>) {
        (
            SVector::from([1.0, 0.0, 0.0]),
            SVector::from([0.0, 1.0, 0.0]),
        )
    }

    /// The paper's consistent initial state, with `p⁰ = M v⁰` and the initial `λ⁰`.
    /// The data lie exactly on both constraint levels; they are checked, not
    /// projected, so that an edit that breaks them fails loudly.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 1>, InitError<f64>> {
        let (q, v) = Self::initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-14 })
    }
}
