//! The nonholonomic models of "High-order geometric methods for nonholonomic mechanical
//! systems" (Martín de Diego, Sato Martín de Almagro; spec 002 §5.1–5.3), integrated by
//! the nonholonomic Lobatto IIIA–IIIB method.
use livens::{
    Consistency, InitError, NodeState, NonholonomicKernels, NonholonomicState, PointKernels,
    SVector,
};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// A particle in a harmonic potential under the nonholonomic constraint
    /// `ż = y ẋ` (spec 002 §5.1): `L = ½ |v|² − ½ (x² + y²)`, `Φ = ż − y ẋ`; the
    /// continuous multiplier is `λ = (ẋ ẏ − x y)/(1 + y²)`.
    pub struct NonholonomicParticle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic { phi: z_dot - y * x_dot }
        schemes { NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4) }
    }
}

impl NonholonomicParticle<f64> {
    /// The re-implementation's run (spec 002 §5.1): `T = 2`, here in 256 steps.
    pub const DEFAULT_STEP: f64 = 2.0 / 256.0;
    /// `T = 2`.
    pub const DEFAULT_SPAN: f64 = 2.0;

    /// The node `q⁰ = (0.5, 0.3, 0)`, `v⁰ = (0.2, 0.4, 0.06)` (`Φ = 0`); the scheme's
    /// state takes `λ⁰` from the continuous equations at its first step.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        let (q, v) = (
            SVector::from([0.5, 0.3, 0.0]),
            SVector::from([0.2, 0.4, 0.06]),
        );
        node(self, q, v)
    }
}

model! {
    /// The pendulum-driven continuously variable transmission of Modin and Verdier (spec
    /// 002 §5.2): a driver pendulum `(y, ẏ)` and a passenger oscillator `(x, z, ẋ, ż)`
    /// coupled by `ż + sin(y) ẋ = 0`.
    /// `L = ½ |v|² − ½ (x² + z² − 2 cos y + ε sin 2y)`; the subsystem energies are
    /// `E_d = ½ ẏ² − cos y + (ε/2) sin 2y` and `E_p = ½ (ẋ² + ż²) + ½ (x² + z²)`.
    pub struct Transmission {
        params {
            /// The driver's asymmetry ε (the paper's figures: ½).
            epsilon = 0.5,
        }
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + z * z - 2.0 * cos(y) + epsilon * sin(2.0 * y));
        nonholonomic { phi: z_dot + sin(y) * x_dot }
        observables {
            E_d: 0.5 * y_dot * y_dot - cos(y) + 0.5 * epsilon * sin(2.0 * y),
            E_p: 0.5 * (x_dot * x_dot + z_dot * z_dot) + 0.5 * (x * x + z * z),
        }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobatto(4),
            NonholonomicLobattoCarried(2), NonholonomicLobattoCarried(3),
            NonholonomicLobattoCarried(4)
        }
    }
}

impl Transmission<f64> {
    /// The step of the paper's good runs (Sec. 7.2): `h = 1/10`.
    pub const DEFAULT_STEP: f64 = 0.1;
    /// A horizon of 100 (the paper does not print one).
    pub const DEFAULT_SPAN: f64 = 100.0;

    /// The low-energy node ([`initial_node`](Self::initial_node)), the command's.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        self.initial_node(false)
    }

    /// The node `q⁰ = (1, 0, 1)`, `v⁰ = (0, ẏ⁰, 0)`: `ẏ⁰ = 3√10/5` (low energy,
    /// `E_T = 9/5`, the driver oscillates) or `√8` (high energy, `E_T = 4`, it rotates).
    pub fn initial_node(&self, high_energy: bool) -> Result<NodeState<f64, 3, 0>, InitError<f64>> {
        let vy = if high_energy {
            ComplexField::sqrt(8.0)
        } else {
            3.0 * ComplexField::sqrt(10.0) / 5.0
        };
        let (q, v) = (
            SVector::from([1.0, 0.0, 1.0]),
            SVector::from([0.0, vy, 0.0]),
        );
        node(self, q, v)
    }

    /// The driver's and the passenger's energies `(E_d, E_p)` at `(q, v)`, written out
    /// by hand: the oracle of the generated [`observables`](livens::Model::observables).
    pub fn subsystem_energies(&self, q: &SVector<f64, 3>, v: &SVector<f64, 3>) -> (f64, f64) {
        let (x, y, z) = (q[0], q[1], q[2]);
        let driver = 0.5 * v[1] * v[1] - ComplexField::cos(y)
            + 0.5 * self.epsilon * ComplexField::sin(2.0 * y);
        let passenger = 0.5 * (v[0] * v[0] + v[2] * v[2]) + 0.5 * (x * x + z * z);
        (driver, passenger)
    }
}

model! {
    /// The fully chaotic nonholonomic system of McLachlan and Perlmutter with m = 3,
    /// n = 7 (spec 002 §5.3, 1-based indices of the spec shifted down by one):
    /// `L = ½ |v|² − ½ (|q|² + q₄² q₅² + Σᵢ₌₁³ qᵢ² qᵢ₊₃²)`, `Φ = v₀ + Σᵢ₌₄⁶ qᵢ vᵢ`.
    pub struct Chaotic {
        coords { q: [Scalar; 7] }
        kinetic = sum(i in 0..7, 0.5 * q_dot[i] * q_dot[i]);
        potential = 0.5 * (sum(i in 0..7, q[i] * q[i]) + q[4] * q[4] * q[5] * q[5]
            + sum(i in 1..4, q[i] * q[i] * q[i + 3] * q[i + 3]));
        nonholonomic { phi: q_dot[0] + sum(i in 4..7, q[i] * q_dot[i]) }
        schemes {
            NonholonomicLobatto(2), NonholonomicLobatto(3), NonholonomicLobattoCarried(2),
            NonholonomicLobattoCarried(3)
        }
    }
}

impl Chaotic<f64> {
    /// The step of the spec's recomputed runs, `h = 0.1`.
    pub const DEFAULT_STEP: f64 = 0.1;
    /// The spec's longest horizon, 100.
    pub const DEFAULT_SPAN: f64 = 100.0;

    /// The first member of the spec's ensemble of seven, the command's.
    pub fn initial_state(&self) -> Result<NodeState<f64, 7, 0>, InitError<f64>> {
        self.initial_node(0, 7)
    }

    /// Member `j` of `0..=members − 1` of the spec's ensemble: `q⁰ = (α, 0.6, 0.4, 0.2,
    /// 1, 1, 1)`, `v⁰ = (0, β, 0, …, 0)` with `α = cos(jπ/(2J))`, `β = sin(jπ/(2J))`,
    /// `J = members − 1`; every member has energy 3.06.
    pub fn initial_node(
        &self,
        j: usize,
        members: usize,
    ) -> Result<NodeState<f64, 7, 0>, InitError<f64>> {
        let angle = j as f64 * core::f64::consts::PI / (2.0 * (members - 1) as f64);
        let q = SVector::from([ComplexField::cos(angle), 0.6, 0.4, 0.2, 1.0, 1.0, 1.0]);
        let mut v = SVector::zeros();
        v[1] = ComplexField::sin(angle);
        node(self, q, v)
    }
}

/// The node at `(q, v)`, its data checked against the nonholonomic constraints (exactly:
/// the spec's data satisfy them to the last bit) as well as the holonomic ones (none).
fn node<Mdl, const D: usize>(
    model: &Mdl,
    q: SVector<f64, D>,
    v: SVector<f64, D>,
) -> Result<NodeState<f64, D, 0>, InitError<f64>>
where
    Mdl: livens::Model<f64, D, 0> + PointKernels<f64, D> + NonholonomicKernels<f64, D, 1>,
{
    let exact = Consistency::Reject { tolerance: 0.0 };
    NonholonomicState::consistent(model, q, v, exact)?;
    NodeState::consistent(model, q, v, exact)
}
