//! Error types of the step path ([`SolveError`]) and of consistent initialisation
//! ([`InitError`]).
//!
//! Both are plain `Copy` data carrying the numbers that explain the failure, so a
//! real-time caller can log or react without formatting. `Display` needs
//! `T: Debug` because `Debug` prints `f64`/`f32` in scientific notation when the
//! magnitude is very small or large (a residual of `1e-300` stays readable), which
//! `Display` never does.
use core::fmt;

use crate::model::ParameterError;

/// Why a step's nonlinear solve (or a linear solve) failed.
///
/// Iteration numbers count from 1: `iteration: 1` is the first Newton iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SolveError<T> {
    /// Newton's method used up its iteration budget without reaching the tolerance.
    MaxIterations {
        /// Iterations performed (the budget).
        iterations: u32,
        /// `max|R|` at the start of the last iteration.
        residual: T,
    },
    /// The Newton Jacobian had a zero or non-finite pivot.
    SingularJacobian {
        /// Iteration in which the factorisation failed.
        iteration: u32,
        /// Column of the (row-permuted) Jacobian where elimination broke down.
        column: usize,
    },
    /// A matrix handed to [`Lu::factor`](crate::solve::lu::Lu::factor) had a zero or
    /// non-finite pivot.
    SingularMatrix {
        /// Column where elimination broke down.
        column: usize,
    },
    /// The residual grew by more than
    /// [`NewtonOptions::divergence`](crate::NewtonOptions::divergence) in one iteration.
    Diverged {
        /// Iteration in which the growth was seen.
        iteration: u32,
        /// `max|R|` in that iteration.
        residual: T,
        /// `max|R|` in the iteration before.
        previous: T,
    },
    /// The residual or the Newton update contained NaN or an infinity.
    NonFinite {
        /// Iteration in which the non-finite value appeared.
        iteration: u32,
    },
    /// Newton's residual stopped decreasing at a level above the tolerance but within
    /// reach of the scalar type's round-off: the tolerance is too tight for the scalar
    /// (typically `f32` with a tolerance meant for `f64`), not the step too large.
    ToleranceUnreachable {
        /// The tolerance asked for.
        tolerance: T,
        /// `max|R|` where the iteration stalled.
        residual: T,
    },
    /// The step size is zero, NaN or infinite (checked before any work).
    InvalidStepSize {
        /// The step size given.
        h: T,
    },
    /// The time the step starts at ([`StepContext::t`](crate::StepContext::t)) is NaN
    /// or infinite (checked before any work).
    InvalidTime {
        /// The time given.
        t: T,
    },
    /// An input of the step ([`StepContext::inputs`](crate::StepContext::inputs)) is NaN
    /// or infinite (checked before any work).
    NonFiniteInput {
        /// Its index in the inputs.
        index: usize,
    },
    /// The step was given another number of inputs than the model declares
    /// ([`Model::INPUTS`](crate::Model::INPUTS); checked before any work).
    WrongInputCount {
        /// The number of scalar inputs the model declares.
        expected: usize,
        /// The number given.
        given: usize,
    },
    /// A field of the state to step from is NaN or infinite (checked before any work).
    NonFiniteState {
        /// The field: `t`, `q`, `p`, `v` or a multiplier block's name.
        field: &'static str,
    },
    /// The model's parameters are refused by
    /// [`Model::check_parameters`](crate::Model::check_parameters) (checked before any
    /// work).
    Parameter(ParameterError<T>),
    /// The Newton options cannot work: a tolerance that is not a positive finite
    /// number, a budget of zero iterations, or a divergence factor not above one.
    InvalidOptions {
        /// Which option, and what it must be.
        reason: &'static str,
    },
    /// Newton converged, but the solution breaks the energy balance of an
    /// energy-conserving scheme by more than a tolerance scaled to Newton's
    /// ([`families::two_point::energy_balance`](crate::families::two_point::energy_balance)): it is
    /// another root of the step equations, not the step. Refused as a failed solve is.
    EnergyBalance {
        /// `E¹ − E⁰` of the solution found.
        change: T,
        /// The largest `|E¹ − E⁰|` accepted.
        allowed: T,
        /// Newton iterations it took (many, typically, on the way to the other root).
        iterations: u32,
    },
}

impl<T: fmt::Debug> fmt::Display for SolveError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MaxIterations {
                iterations,
                residual,
            } => write!(
                f,
                "Newton did not converge in {iterations} iterations (residual {residual:?}); \
                 try a smaller step size"
            ),
            Self::SingularJacobian { iteration, column } => write!(
                f,
                "singular Newton Jacobian in iteration {iteration} (zero or non-finite pivot \
                 in column {column}); check for redundant constraints or try a smaller step size"
            ),
            Self::SingularMatrix { column } => write!(
                f,
                "singular matrix: zero or non-finite pivot in column {column}"
            ),
            Self::Diverged {
                iteration,
                residual,
                previous,
            } => write!(
                f,
                "Newton diverged in iteration {iteration}: the residual grew from \
                 {previous:?} to {residual:?}; try a smaller step size"
            ),
            Self::NonFinite { iteration } => write!(
                f,
                "non-finite residual or update in Newton iteration {iteration}; the step \
                 diverged, try a smaller step size"
            ),
            Self::ToleranceUnreachable {
                tolerance,
                residual,
            } => write!(
                f,
                "Newton's residual stalled at {residual:?}, above the tolerance {tolerance:?}, \
                 at the round-off level of the scalar type; loosen the tolerance (the \
                 default follows the scalar's precision) or use a wider scalar type"
            ),
            Self::InvalidStepSize { h } => write!(
                f,
                "the step size is {h:?}; it must be a finite number other than zero"
            ),
            Self::InvalidTime { t } => write!(
                f,
                "the step's start time is {t:?}; it must be a finite number"
            ),
            Self::NonFiniteInput { index } => write!(
                f,
                "input {index} of the step is NaN or infinite; inputs must be finite"
            ),
            Self::WrongInputCount { expected, given } => write!(
                f,
                "the step was given {given} inputs, and the model declares {expected} \
                 (its `inputs` block)"
            ),
            Self::NonFiniteState { field } => write!(
                f,
                "the state's `{field}` is NaN or infinite; start from a finite state \
                 (NodeState::consistent checks one)"
            ),
            Self::Parameter(e) => write!(f, "{e}"),
            Self::InvalidOptions { reason } => write!(f, "invalid Newton options: {reason}"),
            Self::EnergyBalance {
                change,
                allowed,
                iterations,
            } => write!(
                f,
                "Newton converged in {iterations} iterations to a solution that changes the \
                 energy by {change:?} (at most {allowed:?} for this energy-conserving scheme): \
                 another root of the step equations, not the step; try a smaller step size"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl<T: fmt::Debug> std::error::Error for SolveError<T> {}

/// Why [`NodeState::consistent`](crate::NodeState::consistent) refused the initial data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InitError<T> {
    /// [`Consistency::Reject`](crate::Consistency::Reject): the data violates a
    /// constraint level by more than the tolerance.
    Inconsistent {
        /// `max|g(q)|`.
        position: T,
        /// `max|G(q) v|`.
        velocity: T,
    },
    /// [`Consistency::Project`](crate::Consistency::Project): the projection of `q`
    /// onto `g(q) = 0` did not reach the tolerance.
    ProjectionFailed {
        /// Projection steps performed.
        iterations: u32,
        /// `max|g(q)|` after the last step.
        residual: T,
    },
    /// `G M⁻¹ Gᵀ` is singular at the initial position: the constraints are redundant
    /// there (rank-deficient `G`), or the mass matrix is singular.
    SingularConstraints,
    /// An entry of the initial `q` or `v` is NaN or infinite.
    NonFiniteInput {
        /// `q` or `v`.
        field: &'static str,
    },
    /// The tolerance is not a non-negative finite number.
    InvalidTolerance {
        /// The tolerance given.
        tolerance: T,
    },
    /// The model's parameters are refused by
    /// [`Model::check_parameters`](crate::Model::check_parameters).
    Parameter(ParameterError<T>),
    /// A field computed from finite data came out NaN or infinite: `p`, `λ` or the
    /// energy overflowed (velocities of 1e200), or the model is undefined at `q`.
    NonFiniteResult {
        /// `p`, `lambda`, `v` or `energy`.
        field: &'static str,
    },
}

impl<T: fmt::Debug> fmt::Display for InitError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Inconsistent { position, velocity } => write!(
                f,
                "inconsistent initial data: max|g(q)| = {position:?}, max|G(q) v| = \
                 {velocity:?}; fix q and v or use Consistency::Project"
            ),
            Self::ProjectionFailed {
                iterations,
                residual,
            } => write!(
                f,
                "projection of the initial positions onto g(q) = 0 did not converge in \
                 {iterations} iterations (residual {residual:?}); start closer to the \
                 constraint manifold"
            ),
            Self::SingularConstraints => f.write_str(
                "G M⁻¹ Gᵀ is singular at the initial position: redundant constraints \
                 or a singular mass matrix",
            ),
            Self::NonFiniteInput { field } => write!(
                f,
                "the initial `{field}` has a NaN or infinite entry; give finite initial data"
            ),
            Self::InvalidTolerance { tolerance } => write!(
                f,
                "the consistency tolerance is {tolerance:?}; it must be a finite number ≥ 0"
            ),
            Self::Parameter(e) => write!(f, "{e}"),
            Self::NonFiniteResult { field } => write!(
                f,
                "the consistent initial `{field}` is NaN or infinite although q and v are \
                 finite: the initial data are too large for the scalar type, or the model \
                 is undefined at q"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl<T: fmt::Debug> std::error::Error for InitError<T> {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn messages_carry_the_numbers() {
        let e = SolveError::MaxIterations {
            iterations: 40,
            residual: 3.1e-2_f64,
        };
        assert_eq!(
            e.to_string(),
            "Newton did not converge in 40 iterations (residual 0.031); try a smaller step size"
        );
        let e: SolveError<f64> = SolveError::SingularJacobian {
            iteration: 3,
            column: 7,
        };
        let s = e.to_string();
        assert!(s.contains("iteration 3") && s.contains("column 7"), "{s}");
        let e: SolveError<f32> = SolveError::SingularMatrix { column: 2 };
        assert!(e.to_string().contains("column 2"));
        let e = SolveError::Diverged {
            iteration: 4,
            residual: 3.0_f64,
            previous: 0.5,
        };
        let s = e.to_string();
        assert!(s.contains("iteration 4") && s.contains("0.5 to 3.0"), "{s}");
        let e: SolveError<f32> = SolveError::NonFinite { iteration: 5 };
        assert!(e.to_string().contains("iteration 5"));

        let e = InitError::Inconsistent {
            position: 1e-300_f64,
            velocity: 0.5,
        };
        let s = e.to_string();
        assert!(s.contains("1e-300") && s.contains("0.5"), "{s}");
        let e = InitError::ProjectionFailed {
            iterations: 50,
            residual: 2.0_f64,
        };
        assert!(e.to_string().contains("50 iterations (residual 2.0)"));
        assert!(InitError::<f64>::SingularConstraints
            .to_string()
            .contains("singular"));
    }
}
