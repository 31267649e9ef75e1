//! Consistent initial states for constrained models.
//!
//! Contract: initial data that violates the constraints is either **rejected** or
//! **projected** onto the constraint manifold — never silently used. A GGL scheme fed
//! an inconsistent `(q, v)` would enforce `g(q¹) = 0` in the first step with a jump
//! that no tolerance check would reveal.
use nalgebra::{SMatrix, SVector};

use crate::error::InitError;
use crate::model::{Model, Real};
use crate::solve::lu::{self, Lu};
use crate::solve::max_abs;
use crate::state::NodeState;

/// Projection steps [`Consistency::Project`] may take before giving up.
const PROJECTION_MAX_ITERATIONS: u32 = 50;

/// How [`NodeState::consistent`] treats initial data that violates the constraints.
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
///
/// It is the one `D × D` matrix of the computation: built and factored in place in a
/// buffer [`constrained`] owns and reuses for every factorisation (`GᵀG` is read entry
/// by entry, never formed), so that a chain of 64 links (192 coordinates, 288 KiB a
/// matrix) fits a 2 MiB thread as its step does (`tests/contracts/consistent_stack.rs`).
struct Metric<T: Real, const D: usize> {
    /// `M̃`'s LU factors, column-stored ([`lu::factor_in_place`]).
    lu: [[T; D]; D],
    perm: [usize; D],
    alpha: T,
}

impl<T: Real, const D: usize> Metric<T, D> {
    fn new() -> Self {
        Self {
            lu: [[T::zero(); D]; D],
            perm: [0; D],
            alpha: T::zero(),
        }
    }

    /// Builds `M̃` at `(q, v)` in the buffer and factors it there.
    fn factor_at<Mdl: Model<T, D, M>, const M: usize>(
        &mut self,
        model: &Mdl,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        g_jac: &SMatrix<T, M, D>,
    ) -> Result<(), InitError<T>> {
        self.lu = model.mass_matrix(q, v).data.0;
        // (GᵀG)ᵢⱼ, one entry at a time.
        let gtg = |i: usize, j: usize| {
            let mut sum = T::zero();
            for k in 0..M {
                sum += g_jac[(k, i)] * g_jac[(k, j)];
            }
            sum
        };
        let (mut mass_scale, mut gtg_scale) = (T::zero(), T::zero());
        for (j, column) in self.lu.iter().enumerate() {
            for (i, entry) in column.iter().enumerate() {
                mass_scale = mass_scale.max(entry.abs());
                gtg_scale = gtg_scale.max(gtg(i, j).abs());
            }
        }
        self.alpha = if gtg_scale > T::zero() {
            mass_scale / gtg_scale
        } else {
            T::zero()
        };
        let alpha = self.alpha;
        for (j, column) in self.lu.iter_mut().enumerate() {
            for (i, entry) in column.iter_mut().enumerate() {
                *entry += gtg(i, j) * alpha;
            }
        }
        lu::factor_in_place(&mut self.lu, &mut self.perm)
            .map_err(|_| InitError::SingularConstraints)
    }

    /// `W = M̃⁻¹ Gᵀ`, column by column.
    fn inverse_gt<const M: usize>(&self, g_jac: &SMatrix<T, M, D>) -> SMatrix<T, D, M> {
        let mut w = g_jac.transpose();
        for c in 0..M {
            let mut column: SVector<T, D> = w.column(c).into_owned();
            lu::solve_in_place(&self.lu, &self.perm, &mut column);
            w.set_column(c, &column);
        }
        w
    }

    /// `M̃⁻¹ x`.
    fn solve(&self, mut x: SVector<T, D>) -> SVector<T, D> {
        lu::solve_in_place(&self.lu, &self.perm, &mut x);
        x
    }
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

impl<T: Real, const D: usize, const M: usize> NodeState<T, D, M> {
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
        let (q, v, lambda) = if M == 0 {
            // No constraints: nothing to check, project or solve for.
            (q, v, SVector::zeros())
        } else {
            constrained(model, q, v, mode)?
        };

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

/// A consistent `(q, v)` and its `λ`.
type Node<T, const D: usize, const M: usize> = (SVector<T, D>, SVector<T, D>, SVector<T, M>);

/// The constrained part of [`NodeState::consistent`]: `(q, v)` checked or projected,
/// and `λ`, with one [`Metric`] for every factorisation. Kept out of line, so that its
/// `D × D` buffer is on the stack only when there are constraints.
#[inline(never)]
fn constrained<T: Real, Mdl: Model<T, D, M>, const D: usize, const M: usize>(
    model: &Mdl,
    q: SVector<T, D>,
    v: SVector<T, D>,
    mode: Consistency<T>,
) -> Result<Node<T, D, M>, InitError<T>> {
    let mut metric = Metric::new();
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
        Consistency::Project { tolerance } => project(model, q, v, tolerance, &mut metric)?,
    };
    // G M̃⁻¹ Gᵀ λ = G M̃⁻¹ (∂L/∂q − α Gᵀ c) + c, from M q̈ = ∂L/∂q − Gᵀ λ and
    // G q̈ + c = 0 (α Gᵀ (G q̈ + c) added to the first).
    let g_jac = model.constraint_jacobian(&q);
    metric.factor_at(model, &q, &v, &g_jac)?;
    let curvature = model.constraint_curvature(&q, &v);
    let force = model.dl_dq(&q, &v) - g_jac.transpose() * curvature * metric.alpha;
    let mut lambda = g_jac * metric.solve(force) + curvature;
    let lu = Lu::factor(g_jac * metric.inverse_gt(&g_jac))
        .map_err(|_| InitError::SingularConstraints)?;
    lu.solve_in_place(&mut lambda);
    Ok((q, v, lambda))
}

/// [`Consistency::Project`]: positions by Newton-type projection, then velocities, the
/// metric refactored in `metric` at each new position.
fn project<T: Real, Mdl: Model<T, D, M>, const D: usize, const M: usize>(
    model: &Mdl,
    mut q: SVector<T, D>,
    v: SVector<T, D>,
    tolerance: T,
    metric: &mut Metric<T, D>,
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
        metric.factor_at(model, &q, &v, &g_jac)?;
        q -= correction(&g_jac, &metric.inverse_gt(&g_jac), g)?;
        iterations += 1;
    }
    let g_jac = model.constraint_jacobian(&q);
    metric.factor_at(model, &q, &v, &g_jac)?;
    let v = v - correction(&g_jac, &metric.inverse_gt(&g_jac), g_jac * v)?;
    Ok((q, v))
}
