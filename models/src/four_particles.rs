use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// Gonzalez's four-particle system (Kinon, Betsch, Schneider 2023, Sect. 6.3, eqs.
    /// (116)–(127); spec 000 §3.3; from Gonzalez 1999): four point masses in space, two
    /// pairs joined by rigid rods, the other two pairs by stiff nonlinear springs.
    ///
    /// `V = ½ k₁₃ (π₁ − l₁₃²)² + ½ k₂₄ (π₂ − l₂₄²)²` (116) is written through the
    /// quadratic invariants `π₁ = |q₃ − q₁|²`, `π₂ = |q₄ − q₂|²` (122, with the spec's
    /// correction R7 of π₂), so that the energy–momentum schemes' discrete gradient (126)
    /// conserves both energy and angular momentum. Constraints (117):
    /// `g₁ = ½(|q₂ − q₁|²/l₁₂² − 1)`, `g₂ = ½(|q₄ − q₃|²/l₃₄² − 1)`. No gravity.
    /// Symmetries: translations (linear momentum `L = Σ pᵢ`, (118)) and rotations
    /// (angular momentum `J = Σ qᵢ × pᵢ`, (121)).
    pub struct FourParticles {
        params {
            /// Masses (kg).
            m1 = 1.0, m2 = 3.0, m3 = 2.3, m4 = 1.7,
            /// Spring stiffnesses.
            k13 = 50.0, k24 = 500.0,
            /// Spring rest lengths (m).
            l13 = 1.0, l24 = 1.0,
            /// Rod lengths (m).
            l12 = 1.0, l34 = 1.0,
        }
        requires {
            m1 > 0.0, m2 > 0.0, m3 > 0.0, m4 > 0.0,
            k13 >= 0.0, k24 >= 0.0,
            l13 > 0.0, l24 > 0.0, l12 > 0.0, l34 > 0.0,
        }
        coords { q1: Vec3, q2: Vec3, q3: Vec3, q4: Vec3 }
        invariants { pi1: norm_squared(q3 - q1), pi2: norm_squared(q4 - q2) }
        kinetic = 0.5 * (m1 * dot(q1_dot, q1_dot) + m2 * dot(q2_dot, q2_dot)
            + m3 * dot(q3_dot, q3_dot) + m4 * dot(q4_dot, q4_dot));
        potential = 0.5 * k13 * (pi1 - l13 * l13).powi(2) + 0.5 * k24 * (pi2 - l24 * l24).powi(2);
        holonomic {
            rod12: 0.5 * (norm_squared(q2 - q1) / (l12 * l12) - 1.0),
            rod34: 0.5 * (norm_squared(q4 - q3) / (l34 * l34) - 1.0),
        }
        momentum {
            lx: translation(e1), ly: translation(e2), lz: translation(e3),
            jx: rotation(e1), jy: rotation(e2), jz: rotation(e3),
        }
        schemes { GglViS, GglViA, GglViB, GglThetaA, GglThetaB, GglEm, GglEmG, Rattle }
    }
}

impl FourParticles<f64> {
    /// Step size of the paper's runs.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// Time span of the paper's runs.
    pub const DEFAULT_SPAN: f64 = 10.0;

    /// The paper's initial data (127): the particles at the corners of the unit square
    /// in the x-y plane, all at rest but the fourth, which moves with `[0, 0, 2/1.7]`.
    pub fn initial_positions_velocities() -> (SVector<f64, 12>, SVector<f64, 12>) {
        let mut q = SVector::<f64, 12>::zeros();
        let mut v = SVector::<f64, 12>::zeros();
        // q1 = 0, q2 = e1, q3 = e2, q4 = e1 + e2
        q[3] = 1.0;
        q[7] = 1.0;
        q[9] = 1.0;
        q[10] = 1.0;
        v[11] = 2.0 / 1.7;
        (q, v)
    }

    /// The paper's consistent initial state; the data lie exactly on both constraint
    /// levels and are checked, not projected.
    pub fn initial_state(&self) -> Result<NodeState<f64, 12, 2>, InitError<f64>> {
        let (q, v) = Self::initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-14 })
    }
}
