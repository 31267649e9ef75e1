//! Newton's method for the `N` step equations of a scheme, with the stopping rule of
//! the authors' code (spec 000 §3).
use nalgebra::{SMatrix, SVector};

use crate::error::SolveError;
use crate::lu::Lu;
use crate::model::Real;

/// Tolerance and iteration budget of Newton's method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonOptions<T> {
    /// Newton stops once `max|R(x_k)|` (∞-norm, before the update) is at most this.
    pub tolerance: T,
    /// Iteration budget; the solve fails with [`SolveError::MaxIterations`] after it.
    pub max_iterations: u32,
}

impl<T: Real> Default for NewtonOptions<T> {
    /// The paper's settings: tolerance `1e-9`, at most 40 iterations.
    fn default() -> Self {
        Self {
            tolerance: nalgebra::convert(1e-9),
            max_iterations: 40,
        }
    }
}

/// What a successful solve cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport<T> {
    /// Newton iterations performed, including the final update applied after the
    /// residual already met the tolerance.
    pub iterations: u32,
    /// `max|R|` at the start of the last iteration (the value that met the tolerance;
    /// the returned `x` has had one more update and is typically far more accurate).
    pub residual: T,
}

/// `max_i |v_i|`, or the first non-finite `|v_i|` if there is one (so NaN propagates).
pub(crate) fn max_abs<T: Real, const R: usize>(v: &SVector<T, R>) -> T {
    let mut m = T::zero();
    for x in v.iter() {
        let a = x.abs();
        if !a.is_finite() {
            return a;
        }
        if a > m {
            m = a;
        }
    }
    m
}

/// Solves `R(x) = 0` by Newton's method, starting from and overwriting `x`.
///
/// `system(x, r, jac)` must write `R(x)` into `r` and `∂R/∂x` into `jac` (both are
/// zeroed before the first call only; write every entry).
///
/// Stopping rule (the authors' code): each iteration evaluates `R` and `J` at the
/// current `x`, measures `res = max|R(x)|` *before* updating, then applies the update
/// `x ← x − J⁻¹ R` and counts the iteration. The loop stops successfully once
/// `res ≤ tolerance`, so one extra update is always applied after the tolerance is
/// met, and that last iteration is counted in [`StepReport::iterations`]. At least one
/// iteration is always performed.
///
/// Errors (iterations counted from 1):
/// - [`SolveError::NonFinite`] if `R` or the update contains NaN/∞;
/// - [`SolveError::SingularJacobian`] if `J` has a zero or non-finite pivot;
/// - [`SolveError::MaxIterations`] if `max_iterations` iterations end without
///   `res ≤ tolerance`.
///
/// On error `x` holds whatever iterate the solve reached — garbage for the caller. The
/// [`Integrator`](crate::Integrator) solves on a scratch copy and keeps its state.
///
/// No allocation: `r`, `J` and its factorisation live on the stack.
pub fn solve<T: Real, const N: usize>(
    x: &mut SVector<T, N>,
    options: &NewtonOptions<T>,
    mut system: impl FnMut(&SVector<T, N>, &mut SVector<T, N>, &mut SMatrix<T, N, N>),
) -> Result<StepReport<T>, SolveError<T>> {
    let mut r = SVector::<T, N>::zeros();
    let mut jac = SMatrix::<T, N, N>::zeros();
    let mut iterations: u32 = 0;
    loop {
        let iteration = iterations.saturating_add(1);
        system(x, &mut r, &mut jac);
        let residual = max_abs(&r);
        if !residual.is_finite() {
            return Err(SolveError::NonFinite { iteration });
        }
        let lu = match Lu::factor(jac) {
            Ok(lu) => lu,
            Err(SolveError::SingularMatrix { column }) => {
                return Err(SolveError::SingularJacobian { iteration, column })
            }
            Err(other) => return Err(other),
        };
        // r becomes the Newton update J⁻¹ R.
        lu.solve_in_place(&mut r);
        *x -= r;
        iterations = iteration;
        // A finite R with a badly conditioned J can still overflow; never hand back a
        // non-finite "converged" x.
        if !max_abs(x).is_finite() {
            return Err(SolveError::NonFinite { iteration });
        }
        if residual <= options.tolerance {
            return Ok(StepReport {
                iterations,
                residual,
            });
        }
        if iterations >= options.max_iterations {
            return Err(SolveError::MaxIterations {
                iterations,
                residual,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2, Vector1, Vector2};

    /// x² + y² = 4, x y = 1.
    fn circle_hyperbola(x: &Vector2<f64>, r: &mut Vector2<f64>, j: &mut Matrix2<f64>) {
        *r = Vector2::new(x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0);
        *j = Matrix2::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]);
    }

    #[test]
    fn converges_quadratically() {
        let mut x = Vector2::new(2.0, 0.3);
        let mut history = [0.0_f64; 40];
        let mut n = 0;
        let report = solve(&mut x, &NewtonOptions::default(), |x, r, j| {
            circle_hyperbola(x, r, j);
            history[n] = r.amax();
            n += 1;
        })
        .expect("converges");
        assert_eq!(report.iterations as usize, n);
        assert!(report.iterations <= 6, "{report:?}");
        assert!(report.residual <= 1e-9);
        assert_eq!(report.residual, history[n - 1]);
        // The extra update leaves the residual at round-off.
        let mut r = Vector2::zeros();
        circle_hyperbola(&x, &mut r, &mut Matrix2::zeros());
        assert!(r.amax() <= 1e-15, "{r}");
        // Quadratic convergence: r_{k+1} ≤ C r_k² once in the basin.
        for k in 1..n - 1 {
            if history[k] < 0.1 {
                assert!(
                    history[k + 1] <= 10.0 * history[k] * history[k],
                    "{history:?}"
                );
            }
        }
    }

    #[test]
    fn exact_root_still_takes_one_update() {
        let mut x = Vector1::new(3.0_f64);
        let report = solve(&mut x, &NewtonOptions::default(), |x, r, j| {
            r[0] = x[0] * x[0] - 9.0;
            j[(0, 0)] = 2.0 * x[0];
        })
        .expect("converges");
        assert_eq!(
            report,
            StepReport {
                iterations: 1,
                residual: 0.0
            }
        );
        assert_eq!(x[0], 3.0);
    }

    #[test]
    fn no_root_hits_the_budget() {
        let mut x = Vector1::new(0.3_f64);
        let err = solve(&mut x, &NewtonOptions::default(), |x, r, j| {
            r[0] = x[0] * x[0] + 1.0;
            j[(0, 0)] = 2.0 * x[0];
        })
        .expect_err("x² + 1 has no real root");
        match err {
            SolveError::MaxIterations {
                iterations,
                residual,
            } => {
                assert_eq!(iterations, 40);
                assert!(residual >= 1.0);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nan_residual_is_non_finite() {
        let mut x = Vector2::new(2.0_f64, 0.3);
        let mut calls = 0;
        let err = solve(&mut x, &NewtonOptions::default(), |x, r, j| {
            calls += 1;
            circle_hyperbola(x, r, j);
            if calls == 2 {
                r[1] = f64::NAN;
            }
        });
        assert_eq!(err, Err(SolveError::NonFinite { iteration: 2 }));
    }

    #[test]
    fn singular_jacobian_is_reported() {
        let mut x = Vector2::new(1.0_f64, 1.0);
        let err = solve(&mut x, &NewtonOptions::default(), |x, r, j| {
            *r = Vector2::new(x[0] + x[1] - 1.0, x[0] + x[1] - 3.0);
            *j = Matrix2::new(1.0, 1.0, 1.0, 1.0);
        });
        assert_eq!(
            err,
            Err(SolveError::SingularJacobian {
                iteration: 1,
                column: 1
            })
        );
    }

    #[test]
    fn f32_and_default_options() {
        let options = NewtonOptions::<f32>::default();
        assert_eq!(options.tolerance, 1e-9_f32);
        assert_eq!(options.max_iterations, 40);
        let mut x = Vector1::new(1.0_f32);
        let report = solve(
            &mut x,
            &NewtonOptions {
                tolerance: 1e-5,
                max_iterations: 10,
            },
            |x, r, j| {
                r[0] = x[0] * x[0] - 2.0;
                j[(0, 0)] = 2.0 * x[0];
            },
        )
        .expect("converges");
        assert!(
            (x[0] - core::f32::consts::SQRT_2).abs() <= 1e-6,
            "{report:?}"
        );
    }
}
