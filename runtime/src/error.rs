//! Error types of the step path ([`SolveError`]) and of consistent initialisation
//! ([`InitError`]).
//!
//! Both are plain `Copy` data carrying the numbers that explain the failure, so a
//! real-time caller can log or react without formatting. `Display` needs
//! `T: Debug` because `Debug` prints `f64`/`f32` in scientific notation when the
//! magnitude is very small or large (a residual of `1e-300` stays readable), which
//! `Display` never does.
use core::fmt;

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
        }
    }
}

#[cfg(feature = "std")]
impl<T: fmt::Debug> std::error::Error for SolveError<T> {}

/// Why [`GglState::consistent`](crate::GglState::consistent) refused the initial data.
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
