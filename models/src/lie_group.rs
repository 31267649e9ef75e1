//! The models of the nonholonomic paper's Lie-group examples (Sec. 7.4–7.5, spec
//! `next_packages.md` §A.6): the unicycle on SE(2), the ball on a rotating turntable on
//! SO(3) × R², and a free rigid body on SO(3). Their configurations live on the group
//! (`SE2`, `SO3` coordinates) and their velocities are body velocities; the Lobatto
//! families written on the group step them, and the group's retraction keeps `R` a unit
//! quaternion without a constraint.
use livens::{InitError, Model, NodeState, SVector};
use livens_macros::model;

model! {
    /// The vertical disc (unicycle) on a spring, on SE(2) (the nonholonomic paper's Sec.
    /// 7.4, M-A1): `g = (x, y, θ)`, body velocity `η = (v₁, v₂, ω)`,
    /// `ℓ = ½ (m (v₁² + v₂²) + I ω²) − ½ k (x² + y²)`, rolling without sideways slip,
    /// `η₂ = 0` (in `(x, y, θ)` coordinates `ẏ cos θ − ẋ sin θ = 0`). The heading turns
    /// uniformly and `λ = m ω v₁ + k (y cos θ − x sin θ)`.
    pub struct Unicycle {
        params {
            /// Mass.
            m = 1.0,
            /// Moment of inertia about the vertical.
            inertia = 0.5,
            /// Stiffness of the spring pulling the centre to the origin.
            k = 1.0,
        }
        requires { m > 0.0, inertia > 0.0 }
        coords { g: SE2 }
        kinetic = 0.5 * m * (g_dot.x * g_dot.x + g_dot.y * g_dot.y)
            + 0.5 * inertia * g_dot.z * g_dot.z;
        potential = 0.5 * k * (g.x * g.x + g.y * g.y);
        nonholonomic { roll: g_dot.y }
        observables { forward: g_dot.x, turn_rate: g_dot.z }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4),
            NonholonomicLobattoCarried(2), NonholonomicLobattoCarried(3),
            NonholonomicLobattoCarried(4)
        }
    }
}

impl Unicycle<f64> {
    /// The prototype's step for the convergence runs' finest grid, `h = 2/64`.
    pub const DEFAULT_STEP: f64 = 0.031_25;
    /// The prototype's span, `T = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The prototype's data (spec §A.6): `g₀ = (1, 0, 0.3)`, `η₀ = (0.5, 0, 0.7)`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0, 3>, InitError<f64>> {
        node(
            self,
            SVector::from([1.0, 0.0, 0.3]),
            SVector::from([0.5, 0.0, 0.7]),
        )
    }
}

model! {
    /// A ball of radius `r` rolling without slipping on a turntable that turns at the
    /// rate `Ω` (the nonholonomic paper's Sec. 7.5, M-A2), on SO(3) × R²: attitude `R`,
    /// centre `(x, y)`, body angular velocity `ω`, unit mass and inertia `r² (a, a, a)`,
    /// `ℓ = ½ (ẋ² + ẏ²) + (a r²/2) |ω|²`, and the rolling constraints exactly as the
    /// paper prints them (affine in the velocities, with the body `ω`):
    /// `ẋ + Ω y − r ω₂ = 0`, `ẏ − Ω x + r ω₁ = 0`. Its first integrals are
    /// `I1 = ω₃`, `I2 = r ω₁ − Ω x/(1 + a)`, `I3 = r ω₂ − Ω y/(1 + a)` and the moving
    /// energy `I4 = ½ (ẋ² + ẏ²) + (a r²/2) |ω|² + r Ω (x ω₁ + y ω₂) − Ω² (x² + y²)`.
    pub struct TurntableBall {
        params {
            /// Radius.
            r = 1.0,
            /// Inertia coefficient (`2/5` for a homogeneous ball).
            a = 0.4,
            /// The turntable's rate `Ω`.
            spin = 1.3,
        }
        requires { r > 0.0, a > 0.0 }
        coords { R: SO3, x: Scalar, y: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot)
            + 0.5 * a * r * r * (R_dot.x * R_dot.x + R_dot.y * R_dot.y + R_dot.z * R_dot.z);
        nonholonomic {
            roll_x: x_dot + spin * y - r * R_dot.y,
            roll_y: y_dot - spin * x + r * R_dot.x,
        }
        observables {
            i1: R_dot.z,
            i2: r * R_dot.x - spin * x / (1.0 + a),
            i3: r * R_dot.y - spin * y / (1.0 + a),
            i4: 0.5 * (x_dot * x_dot + y_dot * y_dot)
                + 0.5 * a * r * r * (R_dot.x * R_dot.x + R_dot.y * R_dot.y + R_dot.z * R_dot.z)
                + r * spin * (x * R_dot.x + y * R_dot.y)
                - spin * spin * (x * x + y * y),
        }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3),
            NonholonomicLobattoCarried(2), NonholonomicLobattoCarried(3)
        }
    }
}

impl TurntableBall<f64> {
    /// The prototype's step, `h = 0.05`.
    pub const DEFAULT_STEP: f64 = 0.05;
    /// 4000 steps, `T = 200`.
    pub const DEFAULT_SPAN: f64 = 200.0;

    /// The prototype's data (spec §A.6): `R₀ = I`, `(x, y)₀ = (0.5, −0.2)`,
    /// `ω₀ = (0.3, −0.4, 0.8)`, and the centre's velocity the constraints give,
    /// `(−Ω y + r ω₂, Ω x − r ω₁)`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 5, 0, 6>, InitError<f64>> {
        let (x, y, w) = (0.5, -0.2, [0.3, -0.4, 0.8]);
        let v = [
            -self.spin * y + self.r * w[1],
            self.spin * x - self.r * w[0],
        ];
        node(
            self,
            SVector::from([1.0, 0.0, 0.0, 0.0, x, y]),
            SVector::from([w[0], w[1], w[2], v[0], v[1]]),
        )
    }
}

model! {
    /// The free rigid body of `FreeBody` on SO(3) (M-A3): attitude `R` (a unit quaternion
    /// the group's retraction keeps on the sphere, no constraint), body angular velocity
    /// `ω`, `ℓ = ½ ωᵀ J₀ ω`. Its spatial angular momentum `R J₀ ω` is constant.
    pub struct FreeBodySo3 {
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
        coords { R: SO3 }
        kinetic = 0.5 * (j1 * R_dot.x * R_dot.x + j2 * R_dot.y * R_dot.y + j3 * R_dot.z * R_dot.z);
        observables {
            spatial_momentum: rotate(R, vec3(j1 * R_dot.x, j2 * R_dot.y, j3 * R_dot.z)),
            quaternion_norm: dot(R, R),
        }
        schemes { LobattoIIIAIIIB(2), LobattoIIIAIIIB(3), LobattoIIIAIIIB(4) }
    }
}

impl FreeBodySo3<f64> {
    /// `h = 0.01`, `|ω₀| h = 0.3`. At `FreeBody`'s `h = 0.05` (`|ω₀| h = 1.5`) the
    /// `s = 2` step has no root near the motion: followed in `h` from a small step, its
    /// root runs off at `h ≈ 0.0252` (`|ω₀| h ≈ 0.76`), where `Hˢ` grows without bound.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// `FreeBody`'s span, `T = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// `FreeBody`'s data: `R₀ = I`, `ω₀ = (10, 20, 20)`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0, 4>, InitError<f64>> {
        node(
            self,
            SVector::from([1.0, 0.0, 0.0, 0.0]),
            SVector::from([10.0, 20.0, 20.0]),
        )
    }
}

/// The node at `t = 0` of a model on a group from its storage `q` and body velocity `v`
/// (`p = ∂ℓ/∂v`), after the parameters, checked finite and on the nonholonomic
/// constraints to round-off.
fn node<Mdl: Model<f64, D, 0, Q>, const D: usize, const Q: usize>(
    model: &Mdl,
    q: SVector<f64, Q>,
    v: SVector<f64, D>,
) -> Result<NodeState<f64, D, 0, Q>, InitError<f64>> {
    model.check_parameters().map_err(InitError::Parameter)?;
    let violation = model.nonholonomic_residual(&q, &v);
    // NaN is refused with the rest.
    if violation.is_nan() || violation > 1e-15 {
        return Err(InitError::Inconsistent {
            position: 0.0,
            velocity: violation,
        });
    }
    Ok(NodeState {
        t: 0.0,
        q,
        v,
        p: model.dl_dv(&q, &v),
        lambda: SVector::zeros(),
        gamma: SVector::zeros(),
    })
}
