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

/// The metric of the projections and of `λ`: the augmented mass matrix
/// `M̃ = M + α GᵀG` (Kinon, Betsch, "Conserving integration of multibody systems with
/// singular and non-constant mass matrix …", App. D; spec 001 §1.8), factored at `q`,
/// with `α = max|M| / max|GᵀG|` so that both terms have one scale. It is regular wherever
/// `M` is positive definite on `ker G`, so the singular mass matrices of redundant
/// coordinates are never inverted; and where `M` is regular it gives the `M`-metric
/// results exactly: a correction `δ` with `M δ ∈ range Gᵀ` and `G δ` prescribed solves
/// `M̃ δ ∈ range Gᵀ` too, since `α GᵀG δ` is in `range Gᵀ`.
struct Metric<T: Real, const D: usize, const M: usize> {
    lu: Lu<T, D>,
    alpha: T,
}

impl<T: Real, const D: usize, const M: usize> Metric<T, D, M> {
    fn at<Mdl: Model<T, D, M>>(
        model: &Mdl,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        g_jac: &SMatrix<T, M, D>,
    ) -> Result<Self, InitError<T>> {
        let mass = model.mass_matrix(q, v);
        let gtg = g_jac.transpose() * g_jac;
        let scale = max_abs_matrix(&gtg);
        let alpha = if scale > T::zero() {
            max_abs_matrix(&mass) / scale
        } else {
            T::zero()
        };
        let lu = Lu::factor(mass + gtg * alpha).map_err(|_| InitError::SingularConstraints)?;
        Ok(Self { lu, alpha })
    }

    /// `W = M̃⁻¹ Gᵀ`.
    fn inverse_gt(&self, g_jac: &SMatrix<T, M, D>) -> SMatrix<T, D, M> {
        let mut w = g_jac.transpose();
        self.lu.solve_matrix_in_place(&mut w);
        w
    }

    /// `M̃⁻¹ x`.
    fn solve(&self, mut x: SVector<T, D>) -> SVector<T, D> {
        self.lu.solve_in_place(&mut x);
        x
    }
}

fn max_abs_matrix<T: Real, const R: usize, const C: usize>(a: &SMatrix<T, R, C>) -> T {
    a.iter().fold(T::zero(), |m, x| m.max(x.abs()))
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
    /// mass matrix, as every GGL scheme here requires.) `M⁻¹` is never formed: the
    /// projections and this equation use the augmented mass matrix `M + α GᵀG` (which
    /// gives the same results where `M` is regular, and is regular for the singular mass
    /// matrices of redundant coordinates, spec 001 §1.8). A singular augmented matrix or
    /// `G M̃⁻¹ Gᵀ` gives [`InitError::SingularConstraints`]. With no constraints (`M = 0`)
    /// `q` and `v` are taken as given and both modes succeed.
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

        // G M̃⁻¹ Gᵀ λ = G M̃⁻¹ (∂L/∂q − α Gᵀ c) + c, from M q̈ = ∂L/∂q − Gᵀ λ and
        // G q̈ + c = 0 (α Gᵀ (G q̈ + c) added to the first).
        let mut lambda = SVector::<T, M>::zeros();
        if M > 0 {
            let g_jac = model.constraint_jacobian(&q);
            let metric = Metric::at(model, &q, &v, &g_jac)?;
            let curvature = model.constraint_curvature(&q, &v);
            let force = model.dl_dq(&q, &v) - g_jac.transpose() * curvature * metric.alpha;
            lambda = g_jac * metric.solve(force) + curvature;
            let lu = Lu::factor(g_jac * metric.inverse_gt(&g_jac))
                .map_err(|_| InitError::SingularConstraints)?;
            lu.solve_in_place(&mut lambda);
        }

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
        let w = Metric::at(model, &q, &v, &g_jac)?.inverse_gt(&g_jac);
        q -= correction(&g_jac, &w, g)?;
        iterations += 1;
    }
    let g_jac = model.constraint_jacobian(&q);
    let w = Metric::at(model, &q, &v, &g_jac)?.inverse_gt(&g_jac);
    let v = v - correction(&g_jac, &w, g_jac * v)?;
    Ok((q, v))
}
