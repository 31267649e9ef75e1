//! Newton's method for the `N` equations of a step, with the stopping rule of the
//! authors' code (spec 000 §3) and the Jacobian policy of [`NewtonOptions`].
use core::borrow::BorrowMut;

use nalgebra::SVector;

use crate::error::SolveError;
use crate::model::Real;
use crate::solve::lu;
use crate::solve::options::{JacobianUpdate, NewtonOptions};
use crate::solve::sparse::NeedsPivoting;
use crate::solve::workspace::{Storage, Workspace};

/// A square nonlinear system `R(x) = 0` of `N` equations, as Newton sees it.
pub trait NewtonSystem<T: Real, const N: usize> {
    /// Writes `R(x)` into `r`.
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>);
    /// Writes `R(x)` into `r` and `∂R/∂x` into the column-stored `jac` (`jac[j][i] =
    /// ∂R_i/∂x_j`). Every entry of `jac` must be written.
    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    );
    /// [`residual_and_jacobian`](Self::residual_and_jacobian) in the layout
    /// [`factor_planned`](Self::factor_planned) reads, which may pack the plan's
    /// entries (see [`sparse`](crate::solve::sparse)); by default the same.
    fn residual_and_jacobian_planned(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        self.residual_and_jacobian(x, r, jac);
    }
    /// An approximation of `∂R/∂x` for [`JacobianUpdate::Chord`], in the layout of
    /// [`residual_and_jacobian_planned`](Self::residual_and_jacobian_planned); the
    /// exact Jacobian unless the system supplies a cheaper one.
    fn approximate_jacobian(&mut self, x: &SVector<T, N>, jac: &mut [[T; N]; N]) {
        let mut r = SVector::zeros();
        self.residual_and_jacobian_planned(x, &mut r, jac);
    }
    /// Factors `jac` along an elimination plan fixed at compile time (see
    /// [`sparse`](crate::solve::sparse)), writing the unknowns' slots into `slot`; `None` if the system has
    /// no plan (the default: Newton then uses the dense LU, and the Jacobian writers
    /// must write every entry). With a plan the writers need only write the plan's
    /// nonzeros; when a static pivot is too small (`Some(Err(_))`) Newton zeroes
    /// `jac`, assembles it again and factors it with partial pivoting.
    fn factor_planned(
        &mut self,
        jac: &mut [[T; N]; N],
        slot: &mut [usize; N],
    ) -> Option<Result<(), NeedsPivoting>> {
        let _ = (jac, slot);
        None
    }
    /// Overwrites `r` with `J⁻¹ r` from the factors of [`factor_planned`](Self::factor_planned).
    /// Called only after it returned `Some(Ok(()))`.
    fn solve_planned(&mut self, lu: &[[T; N]; N], slot: &[usize; N], r: &mut SVector<T, N>) {
        lu::solve_in_place(lu, slot, r);
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
    /// Jacobian factorisations performed (equal to `iterations` with
    /// [`JacobianUpdate::EveryIteration`], fewer when the Jacobian is reused).
    pub factorizations: u32,
    /// Factorisations whose static elimination plan met a pivot too small for it and
    /// were redone with partial pivoting (see [`NewtonSystem::factor_planned`]): a slower
    /// iteration, never a different answer.
    pub pivoting_fallbacks: u32,
}

/// `max_i |v_i|`, or the first non-finite `|v_i|` if there is one (so NaN propagates).
///
/// Newton calls it twice an iteration, so the scan is written without a branch per
/// entry (which LLVM then pairs into vectors); the non-finite case, an error anyway,
/// scans again for the first.
pub fn max_abs<T: Real, const R: usize>(v: &SVector<T, R>) -> T {
    let mut largest = T::zero();
    let mut finite = true;
    for x in v.as_slice() {
        let a = x.abs();
        finite &= a.is_finite();
        largest = if a > largest { a } else { largest };
    }
    if finite {
        return largest;
    }
    v.iter()
        .map(|x| x.abs())
        .find(|a| !a.is_finite())
        .unwrap_or(largest)
}

/// Whether a budget ran out because the tolerance is below what the scalar type can
/// resolve: the last iteration no longer halved the residual (Newton near a root
/// contracts far faster), and the residual is within `√ε` of the unknowns' scale. A
/// slowly converging or wandering iteration (step too large) has a larger residual
/// and keeps [`SolveError::MaxIterations`].
fn stalled_at_round_off<T: Real, const N: usize>(
    residual: T,
    before: Option<T>,
    x: &SVector<T, N>,
) -> bool {
    let half: T = nalgebra::convert(0.5);
    let stalled = before.is_some_and(|b| residual > half * b);
    let scale = T::one().max(max_abs(x));
    stalled && residual <= T::default_epsilon().sqrt() * scale
}

/// Solves `R(x) = 0` by Newton's method, starting from and overwriting `ws.x`.
///
/// Stopping rule (the authors' code): each iteration evaluates `R` at the current `x`,
/// measures `res = max|R(x)|` *before* updating, then applies the update
/// `x ← x − J⁻¹ R` and counts the iteration. The loop stops successfully once
/// `res ≤ tolerance`, so one extra update is always applied after the tolerance is
/// met, and that last iteration is counted in [`StepReport::iterations`]. At least one
/// iteration is always performed. Which `J` is used follows
/// [`NewtonOptions::jacobian`].
///
/// Errors (iterations counted from 1):
/// - [`SolveError::NonFinite`] if `R` or the update contains NaN/∞;
/// - [`SolveError::SingularJacobian`] if `J` has a zero or non-finite pivot;
/// - [`SolveError::Diverged`] if [`NewtonOptions::divergence`] is set and the residual
///   grew by more than that factor in one iteration;
/// - [`SolveError::ToleranceUnreachable`] if `max_iterations` iterations end with the
///   residual stalled at the scalar's round-off level above the tolerance;
/// - [`SolveError::MaxIterations`] if `max_iterations` iterations end without
///   `res ≤ tolerance` otherwise.
///
/// On error `ws.x` holds whatever iterate the solve reached: garbage for the caller.
/// The step drivers solve on the workspace and write the state only on success.
///
/// No allocation: the Jacobian is factored in place in the workspace.
pub fn solve<T: Real, const N: usize, K: Storage>(
    ws: &mut Workspace<T, N, K>,
    options: &NewtonOptions<T>,
    system: &mut impl NewtonSystem<T, N>,
) -> Result<StepReport<T>, SolveError<T>> {
    let mut iterations: u32 = 0;
    let mut factorizations: u32 = 0;
    let mut pivoting_fallbacks: u32 = 0;
    // Whether the factors in the workspace came from the system's plan (or from
    // partial pivoting, with `perm`).
    let mut planned = false;
    // Iterations the factors in the workspace have served (`None` before the first
    // factorisation), and the previous residual for the contraction and divergence
    // checks.
    let mut age: Option<u32> = None;
    let mut previous: Option<T> = None;
    loop {
        let iteration = iterations.saturating_add(1);
        let Workspace { x, r, jac, perm } = &mut *ws;
        let jac: &mut [[T; N]; N] = jac.borrow_mut();
        let fresh = match (options.jacobian, age) {
            (_, None) | (JacobianUpdate::EveryIteration, _) => true,
            (JacobianUpdate::Chord, Some(_)) => false,
            (JacobianUpdate::Reuse { max_age, .. }, Some(a)) => a >= max_age,
        };
        let mut refactor = fresh;
        if fresh && options.jacobian == JacobianUpdate::Chord {
            system.residual(x, r);
            system.approximate_jacobian(x, jac);
        } else if fresh {
            system.residual_and_jacobian_planned(x, r, jac);
        } else {
            system.residual(x, r);
        }
        let residual = max_abs(r);
        check_residual(residual, previous, options, iteration)?;
        // Simplified Newton: old factors that no longer contract the residual fast
        // enough are replaced by the Jacobian at the current iterate.
        if let (JacobianUpdate::Reuse { contraction, .. }, false, Some(prev)) =
            (options.jacobian, fresh, previous)
        {
            if residual > nalgebra::convert::<f64, T>(contraction) * prev {
                system.residual_and_jacobian_planned(x, r, jac);
                refactor = true;
            }
        }
        if refactor {
            planned = factor(system, x, r, jac, perm, iteration, &mut pivoting_fallbacks)?;
            factorizations = factorizations.saturating_add(1);
            age = Some(1);
        } else {
            age = age.map(|a| a.saturating_add(1));
        }
        // r becomes the Newton update J⁻¹ R.
        if planned {
            system.solve_planned(jac, perm, r);
        } else {
            lu::solve_in_place(jac, perm, r);
        }
        // Entry by entry on the slices: nalgebra's `-=` goes through its strided
        // iterators, three times the instructions here.
        for (xi, ri) in x.as_mut_slice().iter_mut().zip(r.as_slice()) {
            *xi -= *ri;
        }
        iterations = iteration;
        let before = previous.replace(residual);
        // A finite R with a badly conditioned J can still overflow; never hand back a
        // non-finite "converged" x.
        if !max_abs(x).is_finite() {
            return Err(SolveError::NonFinite { iteration });
        }
        if residual <= options.tolerance {
            return Ok(StepReport {
                iterations,
                residual,
                factorizations,
                pivoting_fallbacks,
            });
        }
        if iterations >= options.max_iterations {
            return Err(out_of_iterations(options, iterations, residual, before, x));
        }
    }
}

/// The residual check at the start of an iteration: [`SolveError::NonFinite`] for a
/// NaN/∞, [`SolveError::Diverged`] if it grew by more than
/// [`NewtonOptions::divergence`] since the `previous` iteration.
fn check_residual<T: Real>(
    residual: T,
    previous: Option<T>,
    options: &NewtonOptions<T>,
    iteration: u32,
) -> Result<(), SolveError<T>> {
    if !residual.is_finite() {
        return Err(SolveError::NonFinite { iteration });
    }
    if let (Some(factor), Some(prev)) = (options.divergence, previous) {
        if residual > factor * prev {
            return Err(SolveError::Diverged {
                iteration,
                residual,
                previous: prev,
            });
        }
    }
    Ok(())
}

/// Factors `jac` in place: with the system's plan if it has one and its static pivots
/// hold (then `true`), else with partial pivoting into `perm` (then `false`).
fn factor<T: Real, const N: usize>(
    system: &mut impl NewtonSystem<T, N>,
    x: &SVector<T, N>,
    r: &mut SVector<T, N>,
    jac: &mut [[T; N]; N],
    perm: &mut [usize; N],
    iteration: u32,
    pivoting_fallbacks: &mut u32,
) -> Result<bool, SolveError<T>> {
    if let Some(result) = system.factor_planned(jac, perm) {
        if result.is_ok() {
            return Ok(true);
        }
        // The static pivot was too small here: assemble J again, every entry, in the
        // column-stored layout, and factor it with partial pivoting (with the chord
        // iteration too: the exact Jacobian, as the approximate one may be packed). `r`
        // is rewritten with the same residual.
        *pivoting_fallbacks = pivoting_fallbacks.saturating_add(1);
        for column in jac.iter_mut() {
            column.fill(T::zero());
        }
        system.residual_and_jacobian(x, r, jac);
    }
    lu::factor_in_place(jac, perm).map_err(|e| match e {
        SolveError::SingularMatrix { column } => SolveError::SingularJacobian { iteration, column },
        other => other,
    })?;
    Ok(false)
}

/// The error of a solve whose `max_iterations` ran out above the tolerance:
/// [`SolveError::ToleranceUnreachable`] if it stalled at round-off, else
/// [`SolveError::MaxIterations`].
fn out_of_iterations<T: Real, const N: usize>(
    options: &NewtonOptions<T>,
    iterations: u32,
    residual: T,
    before: Option<T>,
    x: &SVector<T, N>,
) -> SolveError<T> {
    if stalled_at_round_off(residual, before, x) {
        SolveError::ToleranceUnreachable {
            tolerance: options.tolerance,
            residual,
        }
    } else {
        SolveError::MaxIterations {
            iterations,
            residual,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Inline;
    use nalgebra::{Matrix2, SMatrix, Vector1, Vector2};

    /// A system given by one closure that writes `R` and `J` (as the tests' formulas
    /// are written): the residual-only path evaluates both and drops `J`.
    struct Closure<F>(F);

    impl<T: Real, F, const N: usize> NewtonSystem<T, N> for Closure<F>
    where
        F: FnMut(&SVector<T, N>, &mut SVector<T, N>, &mut SMatrix<T, N, N>),
    {
        fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
            (self.0)(x, r, &mut SMatrix::zeros());
        }
        fn residual_and_jacobian(
            &mut self,
            x: &SVector<T, N>,
            r: &mut SVector<T, N>,
            jac: &mut [[T; N]; N],
        ) {
            let mut j = SMatrix::zeros();
            (self.0)(x, r, &mut j);
            *jac = j.data.0;
        }
    }

    /// [`solve`] from `x` in an inline workspace, writing the iterate back.
    fn solve_fn<T: Real, const N: usize>(
        x: &mut SVector<T, N>,
        options: &NewtonOptions<T>,
        f: impl FnMut(&SVector<T, N>, &mut SVector<T, N>, &mut SMatrix<T, N, N>),
    ) -> Result<StepReport<T>, SolveError<T>> {
        let mut ws = Workspace::<T, N, Inline>::new();
        ws.x = *x;
        let result = solve(&mut ws, options, &mut Closure(f));
        *x = ws.x;
        result
    }

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
        let report = solve_fn(&mut x, &NewtonOptions::default(), |x, r, j| {
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
        let report = solve_fn(&mut x, &NewtonOptions::default(), |x, r, j| {
            r[0] = x[0] * x[0] - 9.0;
            j[(0, 0)] = 2.0 * x[0];
        })
        .expect("converges");
        assert_eq!(
            report,
            StepReport {
                iterations: 1,
                residual: 0.0,
                factorizations: 1,
                pivoting_fallbacks: 0,
            }
        );
        assert_eq!(x[0], 3.0);
    }

    #[test]
    fn no_root_hits_the_budget() {
        let mut x = Vector1::new(0.3_f64);
        let err = solve_fn(&mut x, &NewtonOptions::default(), |x, r, j| {
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
        let err = solve_fn(&mut x, &NewtonOptions::default(), |x, r, j| {
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
        let err = solve_fn(&mut x, &NewtonOptions::default(), |x, r, j| {
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
        // The paper's 1e-9 is below f32's round-off: the default is 1000 ε instead.
        let options = NewtonOptions::<f32>::default();
        assert_eq!(options.tolerance, 1000.0 * f32::EPSILON);
        assert_eq!(NewtonOptions::<f64>::default().tolerance, 1e-9);
        assert_eq!(options.max_iterations, 40);
        let mut x = Vector1::new(1.0_f32);
        let report = solve_fn(
            &mut x,
            &NewtonOptions {
                tolerance: 1e-5,
                max_iterations: 10,
                ..NewtonOptions::default()
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

    /// Simplified Newton reaches the same root with fewer factorisations; its counter
    /// is honest (one per fresh Jacobian).
    #[test]
    fn reuse_factors_less() {
        let full = {
            let mut x = Vector2::new(2.0, 0.3);
            let report = solve_fn(&mut x, &NewtonOptions::default(), circle_hyperbola).unwrap();
            (x, report)
        };
        let options = NewtonOptions {
            jacobian: JacobianUpdate::Reuse {
                max_age: 10,
                contraction: 0.5,
            },
            ..NewtonOptions::default()
        };
        let mut x = Vector2::new(1.9, 0.5);
        let report = solve_fn(&mut x, &options, circle_hyperbola).unwrap();
        assert_eq!(full.1.factorizations, full.1.iterations);
        assert!(report.factorizations < report.iterations, "{report:?}");
        assert!((x - full.0).amax() <= 1e-9, "{x} vs {}", full.0);
    }

    /// The chord iteration factors once per solve, here with a deliberately rough
    /// (diagonal) approximate Jacobian, and still converges linearly to the root.
    #[test]
    fn chord_factors_once() {
        struct Rough;
        impl NewtonSystem<f64, 2> for Rough {
            fn residual(&mut self, x: &Vector2<f64>, r: &mut Vector2<f64>) {
                circle_hyperbola(x, r, &mut Matrix2::zeros());
            }
            fn residual_and_jacobian(
                &mut self,
                x: &Vector2<f64>,
                r: &mut Vector2<f64>,
                jac: &mut [[f64; 2]; 2],
            ) {
                let mut j = Matrix2::zeros();
                circle_hyperbola(x, r, &mut j);
                *jac = j.data.0;
            }
            fn approximate_jacobian(&mut self, x: &Vector2<f64>, jac: &mut [[f64; 2]; 2]) {
                *jac = [[2.0 * x[0], 0.0], [0.0, x[0]]];
            }
        }
        let mut ws = Workspace::<f64, 2, Inline>::new();
        ws.x = Vector2::new(1.95, 0.52);
        let options = NewtonOptions {
            jacobian: JacobianUpdate::Chord,
            ..NewtonOptions::default()
        };
        let report = solve(&mut ws, &options, &mut Rough).unwrap();
        assert_eq!(report.factorizations, 1, "{report:?}");
        assert!(report.iterations > 6, "linear, not quadratic: {report:?}");
        let mut r = Vector2::zeros();
        circle_hyperbola(&ws.x, &mut r, &mut Matrix2::zeros());
        assert!(r.amax() <= 1e-9, "{r}");
    }

    /// A residual that grows is declared divergent as soon as the factor is exceeded,
    /// with both residuals in the error; without the check the budget decides.
    #[test]
    fn divergence_is_declared_early() {
        // x³ − 2x + 2 from x = 0 cycles 0 → 1 → 0: R goes 2 → 1 → 2.
        let cubic = |x: &Vector1<f64>, r: &mut Vector1<f64>, j: &mut SMatrix<f64, 1, 1>| {
            r[0] = x[0] * x[0] * x[0] - 2.0 * x[0] + 2.0;
            j[(0, 0)] = 3.0 * x[0] * x[0] - 2.0;
        };
        let options = NewtonOptions {
            divergence: Some(1.5),
            ..NewtonOptions::default()
        };
        let err = solve_fn(&mut Vector1::new(0.0), &options, cubic).unwrap_err();
        assert_eq!(
            err,
            SolveError::Diverged {
                iteration: 3,
                residual: 2.0,
                previous: 1.0
            }
        );
        let err = solve_fn(&mut Vector1::new(0.0), &NewtonOptions::default(), cubic);
        assert!(matches!(
            err,
            Err(SolveError::MaxIterations { iterations: 40, .. })
        ));
    }
}
