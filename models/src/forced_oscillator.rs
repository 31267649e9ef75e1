use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// A damped oscillator under a harmonic drive, `m ẍ = −k x − c ẋ + F₀ cos(ω t)`: the
    /// Lagrangian `L = ½ m ẋ² − ½ k x²` and the generalized force `F = −c ẋ + F₀ cos(ω t)`
    /// of a `forces` block, in `v` and `t`. Its solution is known in closed form
    /// ([`exact`](ForcedOscillator::exact)), so the orders of a scheme with forces (the
    /// discrete Lagrange–d'Alembert principle of the stage families, spec
    /// `next_packages.md` §D.2, order `2s − 2`) are measured against it.
    pub struct ForcedOscillator {
        params {
            /// Mass.
            m = 1.0,
            /// Spring stiffness.
            k = 4.0,
            /// Viscous damping.
            c = 0.4,
            /// The drive's amplitude.
            f0 = 1.0,
            /// The drive's angular frequency (off the resonance `√(k/m) = 2`).
            omega = 1.3,
        }
        requires { m > 0.0, k > 0.0, c >= 0.0, c * c < 4.0 * k * m }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot;
        potential = 0.5 * k * x * x;
        forces { x: -c * x_dot + f0 * cos(omega * t) }
        schemes { LobattoIIIAIIIB(2), LobattoIIIAIIIB(3), LobattoIIIAIIIB(4), Eml }
    }
}

impl ForcedOscillator<f64> {
    /// A step of about a fiftieth of the free period `2π/ω_d ≈ 3.1`.
    pub const DEFAULT_STEP: f64 = 0.05;
    /// Long enough for the free oscillation to decay (`e^{−c t/2m}` at `t = 20` is
    /// `e^{−4}`) and the forced one to dominate.
    pub const DEFAULT_SPAN: f64 = 20.0;

    /// `x⁰ = 1`, `v⁰ = 0`.
    pub fn initial_positions_velocities() -> (SVector<f64, 1>, SVector<f64, 1>) {
        (SVector::from([1.0]), SVector::from([0.0]))
    }

    /// The node at `t = 0` of [`initial_positions_velocities`](Self::initial_positions_velocities).
    pub fn initial_state(&self) -> Result<NodeState<f64, 1, 0>, InitError<f64>> {
        let (q, v) = Self::initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-12 })
    }

    /// The exact `(x(t), ẋ(t))` from `(x₀, v₀)` at `t = 0` (underdamped, `c² < 4km`): the
    /// steady response `a cos ωt + b sin ωt`, with `(k − mω²) a + cω b = F₀` and
    /// `(k − mω²) b − cω a = 0`, plus the free one `e^{−γt}(A cos ω_d t + B sin ω_d t)`,
    /// `γ = c/2m`, `ω_d = √(k/m − γ²)`, fitted to the initial values.
    pub fn exact(&self, t: f64, x0: f64, v0: f64) -> (f64, f64) {
        let (m, k, c, f0, w) = (self.m, self.k, self.c, self.f0, self.omega);
        let detuning = k - m * w * w;
        let norm = detuning * detuning + (c * w) * (c * w);
        let (a, b) = (f0 * detuning / norm, f0 * c * w / norm);
        let gamma = c / (2.0 * m);
        let wd = ComplexField::sqrt(k / m - gamma * gamma);
        let big_a = x0 - a;
        let big_b = (v0 - w * b + gamma * big_a) / wd;
        let (e, cd, sd) = (
            ComplexField::exp(-gamma * t),
            ComplexField::cos(wd * t),
            ComplexField::sin(wd * t),
        );
        let (cw, sw) = (ComplexField::cos(w * t), ComplexField::sin(w * t));
        let x = e * (big_a * cd + big_b * sd) + a * cw + b * sw;
        let v = e * ((-gamma * big_a + wd * big_b) * cd + (-gamma * big_b - wd * big_a) * sd)
            - a * w * sw
            + b * w * cw;
        (x, v)
    }
}
