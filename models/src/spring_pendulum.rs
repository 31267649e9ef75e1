use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;

model! {
    /// The nonlinear spring pendulum in spherical coordinates of Kinon, Betsch,
    /// "Conserving integration of multibody systems with singular and non-constant mass
    /// matrix including quaternion-based rigid body dynamics", Sect. 5.2 (spec 001 §3.2):
    /// a mass on a spring of stiffness `EA` and rest length `l₀`, no gravity.
    ///
    /// `M(q) = m diag(1, r², r² sin²θ)` depends on the configuration (and is singular at
    /// the poles, θ = kπ), so only schemes that never invert it apply (EML). The
    /// potential `V = ½ EA ε²` with the Green–Lagrange strain `ε = (r² − l₀²)/(2 l₀²)` is
    /// written in the invariant `r²`, as the authors' code does.
    pub struct SpringPendulum {
        params {
            /// Mass (kg).
            m = 1.0,
            /// Axial stiffness (N).
            ea = 300.0,
            /// Rest length (m).
            l0 = 1.0,
        }
        requires { m > 0.0, ea > 0.0, l0 > 0.0 }
        coords { r: Scalar, theta: Scalar, phi: Scalar }
        invariants { rr: r * r }
        kinetic = 0.5 * m * (r_dot * r_dot + r * r * theta_dot * theta_dot
            + r * r * sin(theta) * sin(theta) * phi_dot * phi_dot);
        potential = 0.5 * ea * ((rr - l0 * l0) / (2.0 * l0 * l0)).powi(2);
        schemes { Eml }
    }
}

impl SpringPendulum<f64> {
    /// The paper's step (Table 3), `h = 0.01`.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// The paper's time span, `t_end = 1`.
    pub const DEFAULT_SPAN: f64 = 1.0;

    /// The paper's initial data: `q⁰ = (1.05, π/2, 0)` (5 % stretch), `v⁰ = (0, 1, 1)`,
    /// `p⁰ = M(q⁰) v⁰`.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        let q = SVector::from([1.05, core::f64::consts::FRAC_PI_2, 0.0]);
        let v = SVector::from([0.0, 1.0, 1.0]);
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 0.0 })
    }
}
