use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

use crate::rigid_body::quaternion_velocity;

model! {
    /// A double heavy top: the heavy top of [`HeavyTop`](crate::HeavyTop) (a cone of
    /// density `ρ`, height `a`, radius `a/2` on its tip at the origin, Kinon, Betsch 2024,
    /// Sect. 5.4) with a second, equal cone hanging by its tip from the centre of the first
    /// one's base, in gravity `g`. Not an example of the paper: two quaternion bodies, a
    /// translational block and a joint written as a vector constraint, the combination of
    /// the paper's Sect. 5.4 and 5.5 on which the paper's EML loses Newton's convergence
    /// (issue 30). At the default step the stabilised `Eml` and `Reml` run 1064 steps
    /// (their nodal velocities carry period-2 modes that grow there; they run at
    /// `h = 0.005`); `Emh`, whose state is `(q, p)`, runs on.
    ///
    /// Coordinates: the first cone's orientation `q1` about its fixed tip, the second's
    /// centre of mass `phi` and orientation `q2`. Kinetic energy `½ Ω₁·J₁Ω₁` (inertia about
    /// the tip, `J₁ = J₂ = 3/80 m(4r² + a²) + m l²`, `J₃ = 3/10 m r²`) plus
    /// `½ m |φ̇|² + ½ Ω₂·J_c Ω₂` (about the centre of mass, `J_c = diag(3/80 m(4r² + a²),
    /// same, 3/10 m r²)`), `Ω_i = omega(q_i, q̇_i)` declared as invariants; `l = ¾ a`.
    /// Potential `m g l e₃·R(q1)e₃ + m g φ₃`. Constraints: both unit norms and the
    /// spherical joint `R(q1)(a e₃) − φ − R(q2)(l e₃) = 0`, all quadratic. Rotation about
    /// the vertical `e₃` is a symmetry.
    pub struct DoubleTop {
        params {
            /// Density (kg/m³).
            rho = 2700.0,
            /// Height of each cone (m).
            a = 0.1,
            /// Gravitational acceleration (m/s²).
            gravity = 9.81,
        }
        requires { rho > 0.0, a > 0.0 }
        coords { q1: Quat, phi: Vec3, q2: Quat }
        invariants { w1: omega(q1, q1_dot), w2: omega(q2, q2_dot) }
        let r = 0.5 * a;
        let m = rho * pi * r * r * a / 3.0;
        let l = 0.75 * a;
        let jc = 3.0 / 80.0 * m * (4.0 * r * r + a * a);
        let j1 = jc + m * l * l;
        let j3 = 0.3 * m * r * r;
        kinetic = 0.5 * (j1 * (w1[0] * w1[0] + w1[1] * w1[1]) + j3 * w1[2] * w1[2])
            + 0.5 * m * dot(phi_dot, phi_dot)
            + 0.5 * (jc * (w2[0] * w2[0] + w2[1] * w2[1]) + j3 * w2[2] * w2[2]);
        potential = m * gravity * l * dot(e3, rotate(q1, e3)) + m * gravity * phi.z;
        holonomic {
            unit1: 0.5 * (dot(q1, q1) - 1.0),
            unit2: 0.5 * (dot(q2, q2) - 1.0),
            joint: rotate(q1, a * e3) - phi - rotate(q2, l * e3),
        }
        momentum { lz: rotation(e3) }
        schemes { Emh, Eml, Reml, EmlPaper, RemlPaper, Mpl }
    }
}

impl DoubleTop<f64> {
    /// The step of the acceptance runs, `h = 0.01` (the heavy top's, Table 4).
    pub const DEFAULT_STEP: f64 = 0.01;
    /// The heavy top's span, `t_end = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The first cone as the heavy top in steady precession (eqs. (117)–(119): tilt
    /// `ϑ₀ = π/3` about e₁, `ω₁ = ω_p e₃ + ω_s d₃` with `ω_p = 10` and the heavy top's
    /// `ω_s`), the second hanging straight down from it (`q2 = (1, 0, 0, 0)`) and spinning
    /// about the vertical at `ω₂ = ω_p e₃`; `φ` and `φ̇` from the joint.
    pub fn initial_state(&self) -> Result<NodeState<f64, 11, 5>, InitError<f64>> {
        let th = crate::HeavyTop::<f64>::TILT;
        let wp = crate::HeavyTop::<f64>::PRECESSION;
        let spin = crate::HeavyTop {
            rho: self.rho,
            a: self.a,
            gravity: self.gravity,
        }
        .spin();
        let (s, c) = (ComplexField::sin(th), ComplexField::cos(th));
        let q1 = [
            ComplexField::cos(0.5 * th),
            ComplexField::sin(0.5 * th),
            0.0,
            0.0,
        ];
        let d3 = [0.0, -s, c];
        let w1 = [spin * d3[0], spin * d3[1], wp + spin * d3[2]];
        let q2 = [1.0, 0.0, 0.0, 0.0];
        let w2 = [0.0, 0.0, wp];
        let l = 0.75 * self.a;
        // φ = a d₃ − l e₃, φ̇ = a ω₁ × d₃ − ω₂ × (l e₃) (the last is 0, ω₂ ∥ e₃).
        let phi = [self.a * d3[0], self.a * d3[1], self.a * d3[2] - l];
        let phi_dot = [
            self.a * (w1[1] * d3[2] - w1[2] * d3[1]),
            self.a * (w1[2] * d3[0] - w1[0] * d3[2]),
            self.a * (w1[0] * d3[1] - w1[1] * d3[0]),
        ];
        let (v1, v2) = (quaternion_velocity(q1, w1), quaternion_velocity(q2, w2));
        let mut q = SVector::<f64, 11>::zeros();
        let mut v = SVector::<f64, 11>::zeros();
        q.fixed_rows_mut::<4>(0).copy_from_slice(&q1);
        q.fixed_rows_mut::<3>(4).copy_from_slice(&phi);
        q.fixed_rows_mut::<4>(7).copy_from_slice(&q2);
        v.fixed_rows_mut::<4>(0).copy_from_slice(&v1);
        v.fixed_rows_mut::<3>(4).copy_from_slice(&phi_dot);
        v.fixed_rows_mut::<4>(7).copy_from_slice(&v2);
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-13 })
    }
}
