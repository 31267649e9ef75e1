use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// The closed loop of four rigid bars of Kinon, Betsch, "Conserving integration of
    /// multibody systems with singular and non-constant mass matrix including
    /// quaternion-based rigid body dynamics", Sect. 5.5 (spec 001 §3.5): bars of length
    /// `l = 10`, unit square cross-section and density `ρ = 1`, joined at their ends by
    /// four spherical joints into a square in the e₁–e₂ plane, at rest; during
    /// `t ∈ [0, 1]` a force `8 f(t) e₁` and a torque `6 f(t) e₁` act on bar 1, with the
    /// hat function `f(t) = 2 f_m min(t, 1 − t)` of peak `f_m = 100` (eq. (127)).
    ///
    /// Coordinates: each bar's centre of mass `φ_a` and orientation `q_a` (eq. (122)),
    /// `T = Σ ½ m |φ̇_a|² + ½ Ω_a·J_a Ω_a` with `Ω_a = omega(q_a, q̇_a)` declared as
    /// invariants (the G-equivariant derivative (87) for every body, spec 001 §2.4); the
    /// inertias of a 1 × 1 × l box (the authors' code; the paper gives none), long axis
    /// `d₂` for bars 1 and 3, `d₁` for bars 2 and 4. Constraints: the four unit norms and
    /// the four joints (125), `φ_a + R(q_a)X^(a,b) − φ_b − R(q_b)X^(b,a) = 0`, all
    /// quadratic. The generalized force is (128), `[f; 2E(q₁)ᵀτ; 0]`, at the midpoint in
    /// `q` and `t`.
    pub struct ClosedLoop {
        params {
            /// Length of each bar.
            l = 10.0,
            /// Density (the cross-section is a unit square).
            rho = 1.0,
            /// Peak of the load's hat function.
            fm = 100.0,
        }
        requires { l > 0.0, rho > 0.0 }
        coords { phi: [Vec3; 4], q: [Quat; 4] }
        invariants {
            w0: omega(q[0], q_dot[0]),
            w1: omega(q[1], q_dot[1]),
            w2: omega(q[2], q_dot[2]),
            w3: omega(q[3], q_dot[3]),
        }
        let m = rho * l;
        let j_short = m / 12.0 * (l * l + 1.0);
        let j_long = m / 6.0;
        let half = 0.5 * l;
        kinetic = 0.5 * m * sum(a in 0..4, dot(phi_dot[a], phi_dot[a]))
            + 0.5 * (j_short * w0[0] * w0[0] + j_long * w0[1] * w0[1] + j_short * w0[2] * w0[2])
            + 0.5 * (j_long * w1[0] * w1[0] + j_short * w1[1] * w1[1] + j_short * w1[2] * w1[2])
            + 0.5 * (j_short * w2[0] * w2[0] + j_long * w2[1] * w2[1] + j_short * w2[2] * w2[2])
            + 0.5 * (j_long * w3[0] * w3[0] + j_short * w3[1] * w3[1] + j_short * w3[2] * w3[2]);
        holonomic {
            unit: for a in 0..4 { 0.5 * (dot(q[a], q[a]) - 1.0) },
            joint12: phi[0] + rotate(q[0], half * e2) - phi[1] - rotate(q[1], half * e1),
            joint23: phi[1] - rotate(q[1], half * e1) - phi[2] - rotate(q[2], half * e2),
            joint34: phi[2] - rotate(q[2], half * e2) - phi[3] + rotate(q[3], half * e1),
            joint41: phi[3] + rotate(q[3], half * e1) - phi[0] + rotate(q[0], half * e2),
        }
        forces {
            phi[0]: 16.0 * fm * max(0.0, min(t, 1.0 - t)) * e1,
            q[0]: torque(q[0], 12.0 * fm * max(0.0, min(t, 1.0 - t)) * e1),
        }
        momentum {
            px: translation(e1), py: translation(e2), pz: translation(e3),
            lx: rotation(e1), ly: rotation(e2), lz: rotation(e3),
        }
        // The stabilised REML's step (d + 3m = 76 unknowns) is over the emitter's budget of
        // temporaries; the stabilised EML and the paper's REML are not.
        schemes { Eml, EmlPaper, RemlPaper, Mpl }
    }
}

impl ClosedLoop<f64> {
    /// The paper's step (Table 5), `h = 0.1`.
    pub const DEFAULT_STEP: f64 = 0.1;
    /// The paper's time span, `t_end = 10`.
    pub const DEFAULT_SPAN: f64 = 10.0;

    /// The square at rest: `φ = (±l/2, 0, 0)`, `(0, ±l/2, 0)`, every `q = (1, 0, 0, 0)`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 28, 16>, InitError<f64>> {
        let h = 0.5 * self.l;
        let centres = [[h, 0.0, 0.0], [0.0, h, 0.0], [-h, 0.0, 0.0], [0.0, -h, 0.0]];
        let mut q = SVector::<f64, 28>::zeros();
        for (a, c) in centres.iter().enumerate() {
            q.fixed_rows_mut::<3>(3 * a).copy_from_slice(c);
            q[12 + 4 * a] = 1.0;
        }
        NodeState::consistent(
            self,
            q,
            SVector::zeros(),
            Consistency::Reject { tolerance: 1e-15 },
        )
    }
}
