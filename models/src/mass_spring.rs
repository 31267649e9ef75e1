use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// Two masses on springs in redundant coordinates (Kinon, Betsch, "Conserving
    /// integration of multibody systems with singular and non-constant mass matrix
    /// including quaternion-based rigid body dynamics", Sect. 5.1; spec 001 §3.1):
    /// `q = (x₁, q₂, x₂)` with `q₂ = x₁ + l₁₀ + w` held by the constraint; the second mass
    /// moves with `q₂ + x₂`, so `T = ½ m₁ v₁² + ½ m₂ (v₂ + v₃)²` and the constant mass matrix
    /// has rank 2 at every configuration: no Hamiltonian exists, and only schemes that
    /// never invert `M` apply (EML).
    ///
    /// The paper's parameters (Table 2) are the defaults; the authors' code uses
    /// `m₁ = 2` and springs `½ k (x² + x⁴)` instead of `¼ k (x² + x⁴)` (spec 001 §3.1,
    /// DISCREPANCY): set `m1 = 2` and `spring = 0.5` for those. The potential is written
    /// in the invariants `x₁²`, `x₂²`, as the authors' code does.
    pub struct MassSpring {
        params {
            /// First mass.
            m1 = 1.0,
            /// Second mass.
            m2 = 1.0,
            /// Spring stiffnesses.
            k1 = 1.0,
            k2 = 3.0,
            /// Rest length of the first spring and the width of the first mass.
            l10 = 1.0,
            w = 0.1,
            /// The springs' factor: `¼` in the paper, `½` in the authors' code.
            spring = 0.25,
        }
        requires { m1 > 0.0, m2 > 0.0, l10 + w > 0.0 }
        coords { x1: Scalar, q2: Scalar, x2: Scalar }
        invariants { s1: x1 * x1, s2: x2 * x2 }
        kinetic = 0.5 * m1 * x1_dot * x1_dot + 0.5 * m2 * (q2_dot + x2_dot) * (q2_dot + x2_dot);
        potential = spring * (k1 * (s1 + s1 * s1) + k2 * (s2 + s2 * s2));
        holonomic { gap: 0.5 * ((q2 - x1) * (q2 - x1) - (l10 + w) * (l10 + w)) }
        schemes { Eml }
    }
}

impl MassSpring<f64> {
    /// The paper's step (Table 2), `h = 0.1`.
    pub const DEFAULT_STEP: f64 = 0.1;
    /// The paper's time span, `t_end = 10`.
    pub const DEFAULT_SPAN: f64 = 10.0;

    /// The paper's initial data `q⁰ = (0, 1.1, 0)`, `v⁰ = (1, 1, −1)`, on both constraint
    /// levels (checked, not projected), `p⁰ = M v⁰`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 1>, InitError<f64>> {
        let q = SVector::from([0.0, 1.1, 0.0]);
        let v = SVector::from([1.0, 1.0, -1.0]);
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-15 })
    }
}
