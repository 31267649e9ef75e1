//! Consistent initial states for constrained models.
//!
//! Contract: initial data that violates the constraints is either **rejected** or
//! **projected** onto the constraint manifold — never silently used. A GGL scheme fed
//! an inconsistent `(q, v)` would enforce `g(q¹) = 0` in the first step with a jump
//! that no tolerance check would reveal.
use nalgebra::{SMatrix, SVector};

use crate::error::InitError;
use crate::model::{Model, Real};
use crate::solve::lu::Lu;
use crate::solve::max_abs;
use crate::state::GglState;

/// Projection steps [`Consistency::Project`] may take before giving up.
const PROJECTION_MAX_ITERATIONS: u32 = 50;

/// How [`GglState::consistent`] treats initial data that violates the constraints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Consistency<T> {
    /// Accept `(q, v)` only if `max|g(q)| ≤ tolerance` and `max|G(q) v| ≤ tolerance`;
    /// otherwise fail with [`InitError::Inconsistent`]. `q` and `v` are used as given.
    Reject {
        /// Admissible violation of each constraint level (∞-norm).
        tolerance: T,
    },
    /// Project `q` onto `g(q) = 0` and then `v` onto `G(q) v = 0`, both in the metric of
    /// the mass matrix (the closest consistent state in kinetic-energy distance).
    Project {
        /// Target of the position projection, `max|g(q)| ≤ tolerance`.
        tolerance: T,
    },
}

/// `W = M⁻¹ Gᵀ`, column by column through [`Model::velocity`].
fn inverse_mass_gt<T: Real, Mdl: Model<T, D, M>, const D: usize, const M: usize>(
    model: &Mdl,
    q: &SVector<T, D>,
    g_jac: &SMatrix<T, M, D>,
) -> SMatrix<T, D, M> {
    let gt = g_jac.transpose();
    let mut w = SMatrix::<T, D, M>::zeros();
    for k in 0..M {
        let column: SVector<T, D> = gt.column(k).into_owned();
        w.set_column(k, &model.velocity(q, &column));
    }
    w
}

/// `W (G W)⁻¹ y`: the M-orthogonal correction that removes `y` from `G x`.
fn correction<T: Real, const D: usize, const M: usize>(
    g_jac: &SMatrix<T, M, D>,
    w: &SMatrix<T, D, M>,
    mut y: SVector<T, M>,
) -> Result<SVector<T, D>, InitError<T>> {
    let lu = Lu::factor(g_jac * w).map_err(|_| InitError::SingularConstraints)?;
    lu.solve_in_place(&mut y);
    Ok(w * y)
}

impl<T: Real, const D: usize, const M: usize> GglState<T, D, M> {
    /// A consistent state at `t = 0` from positions `q` and velocities `v`.
    ///
    /// Parameters the model refuses ([`Model::check_parameters`]), a tolerance that is
    /// not a finite number ≥ 0 and non-finite `q` or `v` are errors before anything is
    /// computed; a state with a non-finite field is never returned
    /// ([`InitError::NonFiniteResult`]).
    ///
    /// Inconsistent initial data is rejected or projected according to `mode`, never
    /// silently used:
    /// - [`Consistency::Reject`] checks `max|g(q)|` and `max|G(q) v|` against the
    ///   tolerance and fails with [`InitError::Inconsistent`] if either exceeds it
    ///   (or is NaN).
    /// - [`Consistency::Project`] repeats `q ← q − W (G W)⁻¹ g(q)` with `W = M⁻¹ Gᵀ`
    ///   (at most 50 times, [`InitError::ProjectionFailed`] otherwise) until
    ///   `max|g(q)| ≤ tolerance`, then projects `v ← v − W (G W)⁻¹ G v` at the new `q`.
    ///
    /// The remaining fields follow from `(q, v)`: `p = ∂L/∂v(q, v)`, `γ = 0` (the
    /// velocity multiplier vanishes for the exact solution), and `λ` from the hidden
    /// acceleration constraint: with `M q̈ = ∂L/∂q − Gᵀ λ` and `G q̈ + c = 0`,
    ///
    /// ```text
    /// G M⁻¹ Gᵀ λ = G M⁻¹ ∂L/∂q + c,    c = vᵀ H(q) v.
    /// ```
    ///
    /// (This equation of motion assumes `∂L/∂v` depends on `q` only through a constant
    /// mass matrix, as every GGL scheme here requires.) A singular `G M⁻¹ Gᵀ` gives
    /// [`InitError::SingularConstraints`]. `M⁻¹` is applied through
    /// [`Model::velocity`]. With no constraints (`M = 0`) `q` and `v` are taken as
    /// given and both modes succeed.
    pub fn consistent<Mdl: Model<T, D, M>>(
        model: &Mdl,
        q: SVector<T, D>,
        v: SVector<T, D>,
        mode: Consistency<T>,
    ) -> Result<Self, InitError<T>> {
        model.check_parameters().map_err(InitError::Parameter)?;
        let tolerance = match mode {
            Consistency::Reject { tolerance } | Consistency::Project { tolerance } => tolerance,
        };
        if !(tolerance.is_finite() && tolerance >= T::zero()) {
            return Err(InitError::InvalidTolerance { tolerance });
        }
        if !all_finite(q.as_slice()) {
            return Err(InitError::NonFiniteInput { field: "q" });
        }
        if !all_finite(v.as_slice()) {
            return Err(InitError::NonFiniteInput { field: "v" });
        }
        let (q, v) = match mode {
            Consistency::Reject { tolerance } => {
                let position = max_abs(&model.constraints(&q));
                let velocity = max_abs(&(model.constraint_jacobian(&q) * v));
                // Written so that NaN is rejected too.
                if !(position <= tolerance && velocity <= tolerance) {
                    return Err(InitError::Inconsistent { position, velocity });
                }
                (q, v)
            }
            Consistency::Project { tolerance } => project(model, q, v, tolerance)?,
        };

        let g_jac = model.constraint_jacobian(&q);
        let w = inverse_mass_gt(model, &q, &g_jac);
        let accel_free = model.velocity(&q, &model.dl_dq(&q, &v));
        let rhs = g_jac * accel_free + model.constraint_curvature(&q, &v);
        let mut lambda = rhs;
        let lu = Lu::factor(g_jac * w).map_err(|_| InitError::SingularConstraints)?;
        lu.solve_in_place(&mut lambda);

        let state = Self {
            t: T::zero(),
            q,
            v,
            p: model.dl_dv(&q, &v),
            lambda,
            gamma: SVector::zeros(),
        };
        // Finite inputs can still give non-finite outputs (v = 1e200 overflows p and
        // the energy; a NaN parameter may enter λ only): never hand those out.
        let fields: [(&'static str, &[T]); 4] = [
            ("q", state.q.as_slice()),
            ("v", state.v.as_slice()),
            ("p", state.p.as_slice()),
            ("lambda", state.lambda.as_slice()),
        ];
        if let Some((field, _)) = fields.iter().find(|(_, x)| !all_finite(x)) {
            return Err(InitError::NonFiniteResult { field });
        }
        if !model.energy(&q, &v).is_finite() {
            return Err(InitError::NonFiniteResult { field: "energy" });
        }
        Ok(state)
    }
}

fn all_finite<T: Real>(x: &[T]) -> bool {
    x.iter().all(|x| x.is_finite())
}

/// [`Consistency::Project`]: positions by Newton-type projection, then velocities.
fn project<T: Real, Mdl: Model<T, D, M>, const D: usize, const M: usize>(
    model: &Mdl,
    mut q: SVector<T, D>,
    v: SVector<T, D>,
    tolerance: T,
) -> Result<(SVector<T, D>, SVector<T, D>), InitError<T>> {
    let mut iterations = 0;
    loop {
        let g = model.constraints(&q);
        let residual = max_abs(&g);
        if residual <= tolerance {
            break;
        }
        if iterations >= PROJECTION_MAX_ITERATIONS || !residual.is_finite() {
            return Err(InitError::ProjectionFailed {
                iterations,
                residual,
            });
        }
        let g_jac = model.constraint_jacobian(&q);
        let w = inverse_mass_gt(model, &q, &g_jac);
        q -= correction(&g_jac, &w, g)?;
        iterations += 1;
    }
    let g_jac = model.constraint_jacobian(&q);
    let w = inverse_mass_gt(model, &q, &g_jac);
    let v = v - correction(&g_jac, &w, g_jac * v)?;
    Ok((q, v))
}
