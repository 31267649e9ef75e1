//! The Chaplygin sleigh: a rigid body on the plane resting on a knife edge that cannot
//! slip sideways, the classical nonholonomic system whose forward speed can only grow
//! (issue 30).
use livens::{Consistency, InitError, NodeState, NonholonomicState, SVector};
use livens_macros::model;

model! {
    /// The Chaplygin sleigh: the blade's contact point `(x, y)`, the heading `θ`, the
    /// centre of mass a distance `a` ahead of the contact point along the blade, mass
    /// `m` and moment of inertia `I` about the centre of mass, no potential.
    ///
    /// `L = ½ m ((ẋ − a sin θ θ̇)² + (ẏ + a cos θ θ̇)²) + ½ I θ̇²`, and the blade does not
    /// slip sideways: `Φ = −sin θ ẋ + cos θ ẏ = 0`. In the forward speed
    /// `u = cos θ ẋ + sin θ ẏ` and `ω = θ̇` the motion is
    ///
    /// ```text
    /// u̇ = a ω²,      ω̇ = −m a u ω / (I + m a²),      λ = m I u ω / (I + m a²)
    /// ```
    ///
    /// (`λ` the sideways force on the blade, the multiplier of `Φ`)
    ///
    /// so `u` never decreases, and `E = ½ m u² + ½ (I + m a²) ω²` is conserved: `ω`
    /// decays and `u` tends to `√(2E/m)`.
    pub struct ChaplyginSleigh {
        params {
            /// Mass.
            m = 1.0,
            /// Distance of the centre of mass ahead of the contact point.
            a = 0.5,
            /// Moment of inertia about the centre of mass.
            inertia = 0.2,
        }
        requires { m > 0.0, inertia > 0.0 }
        coords { x: Scalar, y: Scalar, theta: Scalar }
        kinetic = 0.5 * m * ((x_dot - a * sin(theta) * theta_dot) * (x_dot - a * sin(theta) * theta_dot)
            + (y_dot + a * cos(theta) * theta_dot) * (y_dot + a * cos(theta) * theta_dot))
            + 0.5 * inertia * theta_dot * theta_dot;
        nonholonomic { blade: cos(theta) * y_dot - sin(theta) * x_dot }
        observables {
            forward: cos(theta) * x_dot + sin(theta) * y_dot,
            turn_rate: theta_dot,
        }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4),
            NonholonomicLobatto(5), NonholonomicLobattoCarried(2), NonholonomicLobattoCarried(3),
            NonholonomicLobattoCarried(4), NonholonomicLobattoCarried(5)
        }
    }
}

impl ChaplyginSleigh<f64> {
    /// `h = 0.1`, the step of issue 30's runs.
    pub const DEFAULT_STEP: f64 = 0.1;
    /// `T = 200`: `ω` has decayed long before.
    pub const DEFAULT_SPAN: f64 = 200.0;

    /// Forward speed `u = cos θ ẋ + sin θ ẏ` and turn rate `ω = θ̇` at `(q, v)`,
    /// written out by hand.
    pub fn forward_and_turn(q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> (f64, f64) {
        let (s, c) = libm_sin_cos(q[2]);
        (c * v[0] + s * v[1], v[2])
    }

    /// The energy `½ m u² + ½ (I + m a²) ω²` at `(q, v)` on the constraint, written
    /// out by hand.
    pub fn energy_of(&self, q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> f64 {
        let (u, w) = Self::forward_and_turn(q, v);
        0.5 * self.m * u * u + 0.5 * (self.inertia + self.m * self.a * self.a) * w * w
    }

    /// At the origin heading along `x` with forward speed `u = 1` and turn rate `ω = 2`
    /// (energy 1.4 with the default parameters).
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        self.node(0.0, 1.0, 2.0)
    }

    /// At the origin with heading `θ`, forward speed `u` and turn rate `ω`, checked
    /// against the blade's constraint.
    pub fn node(
        &self,
        theta: f64,
        u: f64,
        omega: f64,
    ) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        let (s, c) = libm_sin_cos(theta);
        let q = SVector::from([0.0, 0.0, theta]);
        let v = SVector::from([u * c, u * s, omega]);
        let exact = Consistency::Reject { tolerance: 1e-15 };
        NonholonomicState::<f64, 3, 1>::consistent(self, q, v, exact)?;
        NodeState::consistent(self, q, v, exact)
    }
}

/// `(sin x, cos x)` without `std`.
fn libm_sin_cos(x: f64) -> (f64, f64) {
    use nalgebra::ComplexField;
    (ComplexField::sin(x), ComplexField::cos(x))
}
