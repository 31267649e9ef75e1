use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// A chain of ten point masses in redundant Cartesian coordinates: the first hangs
    /// from a fixed pivot at the origin on a massless rod of length `l`, each next one
    /// from the one before on a rod of the same length, under gravity `g` along −e3.
    ///
    /// `L = Σᵢ ½ m rᵢ'·rᵢ' − m g rᵢ₃`, `pivot = ½ (r₀·r₀ / l² − 1)`,
    /// `link[i] = ½ (|rᵢ − rᵢ₋₁|² / l² − 1)` for i = 1..9; the rotation about e3 is a
    /// symmetry with momentum map `J₃ = Σᵢ (rᵢ × pᵢ)·e3`. Declared through the DSL's
    /// repetition (coordinate arrays, `sum`, constraint families); the same model with
    /// another number of links is the same declaration with another literal. The
    /// constraints are written with `k = 1 / (2 l²)` (`k |d|² − ½`, the same values):
    /// with `/ (l * l)` in each of them, the step equations of `GglEm` and `GglViS` at 40
    /// links take 10357 and 10671 temporaries, over the macro's budget of 10000.
    pub struct Chain10 {
        params {
            /// Mass of each particle (kg).
            m = 1.0,
            /// Rod length (m).
            l = 1.0,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        requires { m > 0.0, l > 0.0 }
        coords { r: [Vec3; 10] }
        kinetic = sum(i in 0..10, 0.5 * m * dot(r_dot[i], r_dot[i]));
        potential = sum(i in 0..10, m * g * r[i].z);
        let k = 0.5 / (l * l);
        holonomic {
            pivot: k * dot(r[0], r[0]) - 0.5,
            link: for i in 1..10 { k * norm_squared(r[i] - r[i - 1]) - 0.5 },
        }
        momentum { jz: rotation(e3) }
        schemes { GglEm, GglViA, HolonomicLobatto(2), HolonomicLobatto(3) }
    }
}

impl Chain10<f64> {
    /// A step size at which Newton converges in a few iterations from the initial state.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// Time span of a run: the chain falls through the vertical and swings back up.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The chain straight out along e1 at rest: `r[k] = (k + 1) e1`, `r_dot[k] = 0`
    /// (exactly consistent for `l = 1`).
    pub fn initial_positions_velocities() -> (SVector<f64, 30>, SVector<f64, 30>) {
        let mut q = SVector::<f64, 30>::zeros();
        for k in 0..10 {
            q[3 * k] = (k + 1) as f64;
        }
        (q, SVector::zeros())
    }

    /// The consistent initial state: the data lie exactly on both constraint levels
    /// and are checked, not projected.
    pub fn initial_state(&self) -> Result<NodeState<f64, 30, 10>, InitError<f64>> {
        let (mut q, v) = Self::initial_positions_velocities();
        q *= self.l;
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-14 })
    }
}
