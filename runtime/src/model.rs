//! The traits `model!` implements for a model struct.
use nalgebra::{RealField, SMatrix, SVector};

use crate::space::Space;

/// The scalar type of every generated function: `f64`, `f32`, or a dual number.
pub trait Real: RealField + Copy {}
impl<T: RealField + Copy> Real for T {}

/// Where a model's configuration lives: its [`Space`], whose tangent vectors have `D`
/// entries (velocities, momenta) and whose points are stored in `Q` (`Q = D` in a vector
/// space, the default). `model!` emits it ([`Euclidean`](crate::space::Euclidean) for
/// every model of scalar and vector coordinates); [`Model`] and
/// [`PointKernels`](crate::PointKernels) share it.
pub trait Configuration<T: Real, const D: usize, const Q: usize = D> {
    /// The configuration space.
    type Space: Space<T, D, Q>;
    /// The model's control inputs `u`, held over a step (zero-order hold): `[T; U]`,
    /// `U` the number of scalar inputs its `inputs` block declares (`[T; 0]` for a
    /// model without). Only the generalized forces read them.
    type Inputs: InputValues<T>;
}

/// The values of a model's inputs ([`Configuration::Inputs`]): a fixed-size array, so
/// that a generated force reads `u[k]` with its index checked at compile time.
pub trait InputValues<T>: Copy + core::fmt::Debug + PartialEq + AsRef<[T]> + AsMut<[T]> {
    /// The number of scalar inputs.
    const LEN: usize;
    /// Every input zero.
    fn zeros() -> Self;
    /// The inputs from a slice of exactly [`LEN`](Self::LEN) values; `None` otherwise.
    fn from_slice(values: &[T]) -> Option<Self>;
}

impl<T: Real, const U: usize> InputValues<T> for [T; U] {
    const LEN: usize = U;
    fn zeros() -> Self {
        [T::zero(); U]
    }
    fn from_slice(values: &[T]) -> Option<Self> {
        values.try_into().ok()
    }
}

/// Model-level functions of a mechanical system with `D` coordinates (the size of its
/// velocities and momenta), `M` holonomic constraints, and its configuration stored in
/// `Q` numbers (`Q = D`, the default, but for a model on a group: see
/// [`Configuration`]), emitted by `model!` from the symbolic Lagrangian. Derivatives
/// with respect to the configuration are left-trivialised, with `D` entries.
///
/// All functions are straight-line code: no allocation, no branches but those the model
/// itself contains.
pub trait Model<T: Real, const D: usize, const M: usize, const Q: usize = D>:
    Configuration<T, D, Q>
{
    /// The model's name as declared.
    const NAME: &'static str;
    /// Name of every stored number of the configuration, e.g. `r.x`.
    const COORDINATES: [&'static str; Q];
    /// Name of every tangent direction (of the velocities and momenta): the
    /// coordinates' names in a vector space.
    const VELOCITIES: [&'static str; D];
    /// Name of every scalar holonomic constraint, e.g. `length` or `tip.y`.
    const CONSTRAINTS: [&'static str; M];

    /// Lagrangian `L(q, v)`.
    fn lagrangian(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> T;
    /// Energy function `E = ∂L/∂v · v − L` (spec 000 eq. (4) with `p = ∂L/∂v`).
    fn energy(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> T;
    /// `∂L/∂q`.
    fn dl_dq(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SVector<T, D>;
    /// `∂L/∂v`, the conjugate momentum.
    fn dl_dv(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SVector<T, D>;
    /// Mass matrix `∂²L/∂v²`.
    fn mass_matrix(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SMatrix<T, D, D>;
    /// Velocity from momentum, `v = M⁻¹ p`, for Lagrangians quadratic in `v`. Emitted
    /// symbolically when `M` is constant, otherwise one LU solve.
    fn velocity(&self, q: &SVector<T, Q>, p: &SVector<T, D>) -> SVector<T, D>;
    /// Holonomic constraints `g(q)`.
    fn constraints(&self, q: &SVector<T, Q>) -> SVector<T, M>;
    /// Constraint Jacobian `G(q) = ∂g/∂q`.
    fn constraint_jacobian(&self, q: &SVector<T, Q>) -> SMatrix<T, M, D>;
    /// Curvature term of the hidden acceleration constraint, `c_k = vᵀ H_k(q) v` with
    /// `H_k = ∂²g_k/∂q²`: `d²g/dt² = G q̈ + c`.
    fn constraint_curvature(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SVector<T, M>;

    /// Names of the nonholonomic constraints `Φ(q, v) = A(q)·v = 0`, in order; empty for
    /// a model without.
    const NONHOLONOMIC: &'static [&'static str] = &[];
    /// `max|A(q)·v|` over the nonholonomic constraints; zero for a model without.
    fn nonholonomic_residual(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> T {
        let _ = (q, v);
        T::zero()
    }

    /// Names of the model's scalar inputs as its `inputs` block declares them (`u`,
    /// `f.x`), in order: the entries of [`Configuration::Inputs`]; empty for a model
    /// without.
    const INPUTS: &'static [&'static str] = &[];

    /// Whether the model declares generalized forces (a `forces` block): its energy then
    /// changes by their work, `Eⁿ⁺¹ − Eⁿ = h F·v^½` for the energy–momentum schemes that
    /// take them.
    const FORCED: bool = false;
    /// The generalized forces `F(q, v, t, u)` of the `forces` block at the inputs `u`,
    /// one per coordinate; zero for a model without.
    fn forces(
        &self,
        t: T,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        u: &<Self as Configuration<T, D, Q>>::Inputs,
    ) -> SVector<T, D> {
        let _ = (t, q, v, u);
        SVector::zeros()
    }

    /// Names of the quantities the model's `observables` block declares (e.g. the
    /// energies of subsystems), in order; empty for a model without.
    const OBSERVABLES: &'static [&'static str] = &[];
    /// The declared observables at `(q, v)`: `visit(name, value)` once each, in
    /// [`OBSERVABLES`](Self::OBSERVABLES) order.
    fn observables(
        &self,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        visit: &mut dyn FnMut(&'static str, T),
    ) {
        let _ = (q, v, visit);
    }

    /// Whether the runtime parameters describe a model the equations mean something for:
    /// every parameter finite, and every condition of the model's `requires` block
    /// (`m > 0.0`, `J1 <= J2 + J3`) true. `model!` generates it; the step and
    /// [`NodeState::consistent`](crate::NodeState::consistent) call it first, so a NaN or
    /// negative mass is reported as such rather than as a failed Newton solve. The
    /// default (for hand-written models) accepts everything.
    fn check_parameters(&self) -> Result<(), ParameterError<T>> {
        Ok(())
    }
}

/// Runtime parameters a model refuses (see [`Model::check_parameters`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParameterError<T> {
    /// A parameter is NaN or infinite.
    NotFinite {
        /// The parameter's name.
        name: &'static str,
        /// Its value.
        value: T,
    },
    /// A condition of the model's `requires` block is false (or NaN).
    Violated {
        /// The condition as declared, e.g. `m > 0.0`.
        requirement: &'static str,
    },
}

impl<T: core::fmt::Debug> core::fmt::Display for ParameterError<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotFinite { name, value } => {
                write!(
                    f,
                    "parameter `{name}` is {value:?}; parameters must be finite"
                )
            }
            Self::Violated { requirement } => write!(
                f,
                "the parameters violate the model's requirement `{requirement}`"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl<T: core::fmt::Debug> std::error::Error for ParameterError<T> {}

/// Momentum maps `J_ξ(q, p) = p · ξ_Q(q)` of the symmetries the model declares.
pub trait MomentumMaps<T: Real, const D: usize, const K: usize, const Q: usize = D> {
    /// Name of every momentum map as declared.
    const NAMES: [&'static str; K];
    /// Values of all momentum maps at `(q, p)`.
    fn momentum_maps(&self, q: &SVector<T, Q>, p: &SVector<T, D>) -> SVector<T, K>;
}

/// Runtime parameters of a model by name, for tools that set them from text (the
/// command line, a configuration file). Code that knows the model sets the public
/// fields directly.
pub trait Parameters<T: Real> {
    /// Every parameter's name, in declaration order.
    const PARAMETERS: &'static [&'static str];
    /// The value of parameter `name`, if the model has one of that name.
    fn parameter(&self, name: &str) -> Option<T>;
    /// Sets parameter `name`; an unknown name changes nothing and is an error.
    fn set_parameter(&mut self, name: &str, value: T) -> Result<(), UnknownParameter>;
}

/// A parameter name the model does not declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownParameter;

impl core::fmt::Display for UnknownParameter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("unknown parameter")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownParameter {}
