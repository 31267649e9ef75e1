use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// Lagrange top (heavy symmetric top with a fixed tip) as a rigid body in director
    /// form (Kinon, Betsch, Schneider 2023, Sect. 6.2, eqs. (100)–(107); spec 000 §3.2).
    ///
    /// Coordinates: centre of mass `phi` and the principal-axis directors `d1, d2, d3`
    /// (12 scalars). `M = diag(m I, E₁ I, E₂ I, E₃ I)` with `E_i = ½(I_j + I_k − I_i)`
    /// (101); `V = m g phi₃`. Constraints (102)–(104): six internal ones keep the directors
    /// orthonormal, three linear external ones fix the tip at the origin
    /// (`phi / l − d3 = 0`). Rotation about e3 acts on every block; `J₃ = e3 · Σ q_i × p_i`
    /// (107).
    pub struct LagrangeTop {
        params {
            /// Mass in kg (a solid cone, ρ = 2700, a = 0.1).
            m = 0.7069,
            /// Principal moments of inertia about the centre of mass (kg m²).
            i1 = 5.3014e-4,
            i2 = 5.3014e-4,
            i3 = 5.3014e-4,
            /// Distance from the fixed tip to the centre of mass (m).
            l = 0.075,
            /// Gravitational acceleration (m/s²).
            g = 9.81,
        }
        // The director inertias j1, j2, j3 below are positive exactly when the principal
        // moments satisfy the triangle inequalities.
        requires { m > 0.0, l > 0.0, i1 < i2 + i3, i2 < i3 + i1, i3 < i1 + i2 }
        coords { phi: Vec3, d1: Vec3, d2: Vec3, d3: Vec3 }
        let j1 = 0.5 * (i2 + i3 - i1);
        let j2 = 0.5 * (i3 + i1 - i2);
        let j3 = 0.5 * (i1 + i2 - i3);
        kinetic = 0.5 * m * dot(phi_dot, phi_dot)
            + 0.5 * j1 * dot(d1_dot, d1_dot)
            + 0.5 * j2 * dot(d2_dot, d2_dot)
            + 0.5 * j3 * dot(d3_dot, d3_dot);
        potential = m * g * phi.z;
        holonomic {
            unit1: 0.5 * (dot(d1, d1) - 1.0),
            unit2: 0.5 * (dot(d2, d2) - 1.0),
            unit3: 0.5 * (dot(d3, d3) - 1.0),
            orth12: dot(d1, d2),
            orth13: dot(d1, d3),
            orth23: dot(d2, d3),
            tip: phi / l - d3,
        }
        momentum { j3: rotation(e3) }
        schemes { GglViS, GglViA, GglViB, GglThetaA, GglThetaB, GglEm, GglEmG, Rattle }
    }
}

impl LagrangeTop<f64> {
    /// Step size of the paper's Fig. 17.
    pub const DEFAULT_STEP: f64 = 0.002;
    /// Time span of Fig. 17 (not printed in the paper; the authors' code uses 2).
    pub const DEFAULT_SPAN: f64 = 2.0;
    /// Initial nutation angle `α₀` (108).
    pub const ALPHA0: f64 = core::f64::consts::FRAC_PI_3;
    /// Precession rate `ω_p` (111).
    pub const OMEGA_P: f64 = 10.0;

    /// Spin rate `ω_s` of steady precession (112): `m g l / (I₃ ω_p) + (I₁ + m l² − I₃) / I₃ · ω_p cos α₀`.
    pub fn spin_rate(&self) -> f64 {
        let (wp, c) = (Self::OMEGA_P, libm_cos(Self::ALPHA0));
        self.m * self.g * self.l / (self.i3 * wp)
            + (self.i1 + self.m * self.l * self.l - self.i3) / self.i3 * wp * c
    }

    /// Height of the centre of mass in steady precession, `l cos α₀ = 0.0375`.
    pub fn steady_height(&self) -> f64 {
        self.l * libm_cos(Self::ALPHA0)
    }

    /// The paper's initial data (108)–(112): directors `d_i = R(α₀) e_i` with `R` the
    /// rotation about e1, `phi = R [0, 0, l]`, velocities `ω₀ × q_i` with
    /// `ω₀ = ω_p e3 + ω_s d3`.
    pub fn initial_positions_velocities(&self) -> (SVector<f64, 12>, SVector<f64, 12>) {
        let (s, c) = (libm_sin(Self::ALPHA0), libm_cos(Self::ALPHA0));
        let d1 = [1.0, 0.0, 0.0];
        let d2 = [0.0, c, s];
        let d3 = [0.0, -s, c];
        let phi = [0.0, -s * self.l, c * self.l];
        let ws = self.spin_rate();
        let w = [ws * d3[0], ws * d3[1], Self::OMEGA_P + ws * d3[2]];
        let cross = |a: [f64; 3], b: [f64; 3]| {
            [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ]
        };
        let blocks = [phi, d1, d2, d3];
        let mut q = SVector::<f64, 12>::zeros();
        let mut v = SVector::<f64, 12>::zeros();
        for (b, x) in blocks.iter().enumerate() {
            let xv = cross(w, *x);
            for k in 0..3 {
                q[3 * b + k] = x[k];
                v[3 * b + k] = xv[k];
            }
        }
        (q, v)
    }

    /// The consistent initial state. The directors are orthonormal only up to rounding,
    /// so the data are projected (a change of order 1e-16).
    pub fn initial_state(&self) -> Result<NodeState<f64, 12, 9>, InitError<f64>> {
        let (q, v) = self.initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Project { tolerance: 1e-15 })
    }
}

fn libm_cos(x: f64) -> f64 {
    nalgebra::ComplexField::cos(x)
}

fn libm_sin(x: f64) -> f64 {
    nalgebra::ComplexField::sin(x)
}
