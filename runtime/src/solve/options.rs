//! The Newton policy: tolerance, budget, divergence check and when to refresh the
//! Jacobian.

/// When Newton evaluates and factors a new Jacobian.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum JacobianUpdate {
    /// Full Newton: the exact Jacobian at every iterate (the paper's setting, quadratic
    /// convergence).
    #[default]
    EveryIteration,
    /// Simplified Newton: keep the factors of an earlier iterate while the residual
    /// still shrinks by at least `contraction` per iteration, and for at most `max_age`
    /// iterations; then evaluate and factor the Jacobian at the current iterate. Each
    /// step starts with a fresh Jacobian.
    Reuse {
        /// Iterations one factorisation may serve.
        max_age: u32,
        /// Largest acceptable ratio `max|R_k| / max|R_{k−1}|` with old factors.
        contraction: f64,
    },
    /// Chord iteration: the system's
    /// [`approximate_jacobian`](crate::solve::NewtonSystem::approximate_jacobian),
    /// evaluated and factored once at the starting point of each step and kept for all
    /// its iterations (spec 004 §2.5 solves its conversion equations this way).
    Chord,
}

/// Tolerance, iteration budget and Jacobian policy of Newton's method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonOptions<T> {
    /// Newton stops once `max|R(x_k)|` (∞-norm, before the update) is at most this.
    pub tolerance: T,
    /// Iteration budget; the solve fails with
    /// [`SolveError::MaxIterations`](crate::SolveError::MaxIterations) after it.
    pub max_iterations: u32,
    /// Declares divergence early: the solve fails with
    /// [`SolveError::Diverged`](crate::SolveError::Diverged) as soon as the residual
    /// grows by more than this factor from one iteration to the next. `None` (the
    /// default) lets the budget decide, as the paper does.
    pub divergence: Option<T>,
    /// When the Jacobian is refreshed.
    pub jacobian: JacobianUpdate,
}

impl<T: crate::Real> Default for NewtonOptions<T> {
    /// The paper's settings: tolerance `1e-9`, at most 40 iterations, full Newton, no
    /// early divergence check.
    fn default() -> Self {
        Self {
            tolerance: nalgebra::convert(1e-9),
            max_iterations: 40,
            divergence: None,
            jacobian: JacobianUpdate::EveryIteration,
        }
    }
}
