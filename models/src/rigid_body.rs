use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

/// `v = ½ E(q)ᵀ ω` for a spatial angular velocity `ω` (spec 001 eq. (44) inverted on
/// `q·v = 0`): `E(q)ᵀ ω = (−q⃗·ω, q₀ ω − q⃗ × ω)`.
pub(crate) fn quaternion_velocity(q: [f64; 4], omega: [f64; 3]) -> [f64; 4] {
    let [q0, q1, q2, q3] = q;
    let [w1, w2, w3] = omega;
    let cross = [q2 * w3 - q3 * w2, q3 * w1 - q1 * w3, q1 * w2 - q2 * w1];
    [
        -0.5 * (q1 * w1 + q2 * w2 + q3 * w3),
        0.5 * (q0 * w1 - cross[0]),
        0.5 * (q0 * w2 - cross[1]),
        0.5 * (q0 * w3 - cross[2]),
    ]
}

/// The free body's initial data (spec 001 §3.3) for either declaration: `q⁰ = (1, 0, 0, 0)`
/// and `Ω⁰ = (10, 20, 20)`, where `G(q⁰)ᵀ = E(q⁰)ᵀ` makes the convected and spatial
/// angular velocities coincide.
fn free_body_start<Mdl: livens::Model<f64, 4, 1>>(
    model: &Mdl,
) -> Result<NodeState<f64, 4, 1>, InitError<f64>> {
    let q = [1.0, 0.0, 0.0, 0.0];
    let v = quaternion_velocity(q, [10.0, 20.0, 20.0]);
    NodeState::consistent(
        model,
        SVector::from(q),
        SVector::from(v),
        Consistency::Reject { tolerance: 1e-15 },
    )
}

model! {
    /// The free rigid body in unit quaternions of Kinon, Betsch, "Conserving integration
    /// of multibody systems with singular and non-constant mass matrix including
    /// quaternion-based rigid body dynamics", Sect. 5.3 (spec 001 §3.3): principal
    /// moments of inertia `J₀ = diag(6, 8, 3)`, no potential.
    ///
    /// `T = ½ Ω·J₀Ω` with the convected angular velocity `Ω = omega(q, q̇) = 2 G(q) q̇`,
    /// declared as an invariant, so that EML uses the G-equivariant discrete derivative
    /// (87)–(88) and conserves the spatial angular momentum `L = ½ E(q) p` (eq. (64)). The
    /// mass matrix `M̃₄ = 4 GᵀJ₀G` has rank 3 at every `q` and is never inverted.
    pub struct FreeBody {
        params {
            /// Principal moments of inertia.
            j1 = 6.0,
            j2 = 8.0,
            j3 = 3.0,
        }
        // Principal moments of a body: each at most the sum of the other two.
        requires {
            j1 > 0.0, j2 > 0.0, j3 > 0.0,
            j1 <= j2 + j3, j2 <= j1 + j3, j3 <= j1 + j2,
        }
        coords { q: Quat }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        momentum { lx: rotation(e1), ly: rotation(e2), lz: rotation(e3) }
        schemes { Eml, Reml, NullEml, EmlPaper, RemlPaper, NullEmlPaper, Mpl, Mph, Emh }
    }
}

impl FreeBody<f64> {
    /// The paper's step, `h = 0.05`.
    pub const DEFAULT_STEP: f64 = 0.05;
    /// The paper's time span, `t ∈ [0, 2]`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The paper's initial data: `q⁰ = (1, 0, 0, 0)`, `Ω⁰ = (10, 20, 20)`,
    /// `v⁰ = ½ G(q⁰)ᵀ Ω⁰ = (0, 5, 10, 10)`, `p⁰ = M̃₄(q⁰) v⁰ = (0, 120, 320, 120)`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 4, 1>, InitError<f64>> {
        free_body_start(self)
    }
}

model! {
    /// The free rigid body of [`FreeBody`] with its kinetic energy written directly in
    /// `q` and `q̇` rather than through the invariant `Ω`: EML then uses the generic
    /// partitioned discrete derivatives (129)–(131), which keep the energy but not the
    /// angular momentum (spec 001 §3.3, §4 B item 7: a negative control).
    pub struct FreeBodyGeneric {
        params {
            j1 = 6.0,
            j2 = 8.0,
            j3 = 3.0,
        }
        // Principal moments of a body: each at most the sum of the other two.
        requires {
            j1 > 0.0, j2 > 0.0, j3 > 0.0,
            j1 <= j2 + j3, j2 <= j1 + j3, j3 <= j1 + j2,
        }
        coords { q: Quat }
        let w = omega(q, q_dot);
        kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        momentum { lx: rotation(e1), ly: rotation(e2), lz: rotation(e3) }
        schemes { Eml, EmlPaper }
    }
}

impl FreeBodyGeneric<f64> {
    /// [`FreeBody::initial_state`].
    pub fn initial_state(&self) -> Result<NodeState<f64, 4, 1>, InitError<f64>> {
        free_body_start(self)
    }
}

model! {
    /// The heavy symmetric top in unit quaternions of Kinon, Betsch, "Conserving
    /// integration of multibody systems with singular and non-constant mass matrix
    /// including quaternion-based rigid body dynamics", Sect. 5.4 (spec 001 §3.4): a cone
    /// of density `ρ`, height `a` and radius `a/2` on its tip, in gravity `g`.
    ///
    /// Mass `m = ρπr²a/3`, centre of mass at `l = ¾a` on the axis; inertia about the tip
    /// `J₁ = J₂ = 3/80 m(4r² + a²) + m l²`, `J₃ = 3/10 m r²` (the parallel-axis shift the
    /// authors' code uses; the extracted eq. (114) is garbled, spec 001 §5 item 2).
    /// `V = m g l e₃·R(q)e₃`, quadratic in `q`. Rotation about the vertical `e₃` is a
    /// symmetry: `L₃` is conserved.
    pub struct HeavyTop {
        params {
            /// Density (kg/m³).
            rho = 2700.0,
            /// Height of the cone (m).
            a = 0.1,
            /// Gravitational acceleration (m/s²).
            gravity = 9.81,
        }
        requires { rho > 0.0, a > 0.0 }
        coords { q: Quat }
        invariants { w: omega(q, q_dot) }
        let r = 0.5 * a;
        let m = rho * pi * r * r * a / 3.0;
        let l = 0.75 * a;
        let j1 = 3.0 / 80.0 * m * (4.0 * r * r + a * a) + m * l * l;
        let j3 = 0.3 * m * r * r;
        kinetic = 0.5 * (j1 * (w[0] * w[0] + w[1] * w[1]) + j3 * w[2] * w[2]);
        potential = m * gravity * l * dot(e3, rotate(q, e3));
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        momentum { lz: rotation(e3) }
        schemes { Eml, Reml, NullEml, EmlPaper, RemlPaper, NullEmlPaper, Mpl, Mph, Emh }
    }
}

impl HeavyTop<f64> {
    /// The paper's step (Table 4), `h = 0.01`.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// The paper's time span, `t_end = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;
    /// The precession rate `ω_p` of the steady motion.
    pub const PRECESSION: f64 = 10.0;
    /// The initial tilt `ϑ₀`.
    pub const TILT: f64 = core::f64::consts::FRAC_PI_3;

    /// Mass, centre-of-mass distance and the moments `(J₁, J₃)` about the tip.
    pub fn inertia(&self) -> (f64, f64, f64, f64) {
        let r = 0.5 * self.a;
        let m = self.rho * core::f64::consts::PI * r * r * self.a / 3.0;
        let l = 0.75 * self.a;
        let j1 = 3.0 / 80.0 * m * (4.0 * r * r + self.a * self.a) + m * l * l;
        (m, l, j1, 0.3 * m * r * r)
    }

    /// The spin rate `ω_s` of steady precession, eq. (118):
    /// `ω_s = m g l / (J₃ ω_p) + (J₁ − J₃)/J₃ ω_p cos ϑ₀` (135.6 at the defaults).
    pub fn spin(&self) -> f64 {
        let (m, l, j1, j3) = self.inertia();
        let wp = Self::PRECESSION;
        m * self.gravity * l / (j3 * wp) + (j1 - j3) / j3 * wp * ComplexField::cos(Self::TILT)
    }

    /// Steady precession, eqs. (117)–(119): `q⁰ = (cos ϑ₀/2, sin ϑ₀/2, 0, 0)`,
    /// `ω⁰ = ω_p e₃ + ω_s d₃`, `d₃ = R(q⁰) e₃ = (0, −sin ϑ₀, cos ϑ₀)`, `v⁰ = ½ E(q⁰)ᵀ ω⁰`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 4, 1>, InitError<f64>> {
        let th = Self::TILT;
        let q = [
            ComplexField::cos(0.5 * th),
            ComplexField::sin(0.5 * th),
            0.0,
            0.0,
        ];
        let ws = self.spin();
        let omega = [
            0.0,
            -ws * ComplexField::sin(th),
            Self::PRECESSION + ws * ComplexField::cos(th),
        ];
        let v = quaternion_velocity(q, omega);
        NodeState::consistent(
            self,
            SVector::from(q),
            SVector::from(v),
            Consistency::Reject { tolerance: 1e-15 },
        )
    }

    /// The centre of mass of steady precession, eq. (120):
    /// `l (sin ϑ₀ sin ω_p t, −sin ϑ₀ cos ω_p t, cos ϑ₀)`.
    pub fn precession_reference(&self, t: f64) -> [f64; 3] {
        let (_, l, _, _) = self.inertia();
        let (s, c) = (ComplexField::sin(Self::TILT), ComplexField::cos(Self::TILT));
        let wt = Self::PRECESSION * t;
        [
            l * s * ComplexField::sin(wt),
            -l * s * ComplexField::cos(wt),
            l * c,
        ]
    }
}
