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
    /// its iterations (spec 004 §2.5 solves its conversion equations this way). If
    /// its elimination plan meets a pivot too small, the exact Jacobian is factored
    /// with partial pivoting instead.
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

impl<T: crate::Real> NewtonOptions<T> {
    /// `Ok` if the options can work, otherwise which option is wrong and what it must
    /// be. Every step checks them first ([`SolveError::InvalidOptions`](crate::SolveError::InvalidOptions)).
    pub fn validate(&self) -> Result<(), &'static str> {
        // Written so that NaN fails each test.
        if !(self.tolerance.is_finite() && self.tolerance > T::zero()) {
            return Err("the tolerance must be a positive finite number");
        }
        // Below the scalar's machine epsilon a residual of unit scale cannot get: Newton
        // would spend its budget on round-off and fail mid-run (`f32` with the paper's
        // `1e-9`). Refused before the first step instead.
        if self.tolerance < T::default_epsilon() {
            return Err("the tolerance is below the scalar type's machine epsilon, which its residuals cannot reach (default_tolerance gives the paper's 1e-9 or 1000 ε)");
        }
        if self.max_iterations == 0 {
            return Err("the iteration budget must be at least 1");
        }
        if let Some(factor) = self.divergence {
            if factor.partial_cmp(&T::one()) != Some(core::cmp::Ordering::Greater) {
                return Err("the divergence factor must be greater than 1");
            }
        }
        if let JacobianUpdate::Reuse {
            max_age,
            contraction,
        } = self.jacobian
        {
            if max_age == 0 || !(contraction > 0.0 && contraction < 1.0) {
                return Err(
                    "Jacobian reuse needs a maximum age of at least 1 and a contraction in (0, 1)",
                );
            }
        }
        Ok(())
    }
}

/// The default tolerance for scalar type `T`: the paper's `1e-9`, or `1000 ε` where
/// the scalar's machine epsilon `ε` makes `1e-9` unreachable (`f32`: `ε ≈ 1.2e-7`,
/// tolerance `1.2e-4`). Newton applies one more update after meeting the tolerance,
/// so the solution is still accurate to about `ε` times the problem's scale.
pub fn default_tolerance<T: crate::Real>() -> T {
    let paper: T = nalgebra::convert(1e-9);
    let floor = T::default_epsilon() * nalgebra::convert(1000.0);
    if floor > paper {
        floor
    } else {
        paper
    }
}

impl<T: crate::Real> Default for NewtonOptions<T> {
    /// The paper's settings: tolerance `1e-9` (or `1000 ε` for a scalar type too coarse
    /// for it, see [`default_tolerance`]), at most 40 iterations, full Newton, no early
    /// divergence check.
    fn default() -> Self {
        Self {
            tolerance: default_tolerance(),
            max_iterations: 40,
            divergence: None,
            jacobian: JacobianUpdate::EveryIteration,
        }
    }
}
