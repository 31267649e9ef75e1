//! The multiplier of nonholonomic constraints from the continuous equations (spec 002
//! §4.8): the nonholonomic Lobatto method converges with its full order in `λ`, and in
//! `q`, `p` for s ≥ 3, only when its first `Λ¹ = λ₀` is this one (spec 002 §4.8: with
//! `λ₀ = 0` the orders drop).
use nalgebra::{SMatrix, SVector};

use crate::error::{InitError, SolveError};
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::{InputValues, Real};
use crate::solve::lu::{self, Lu};

/// `λ` of the continuous nonholonomic equations at `(q, v)`:
///
/// ```text
/// d/dt D₂L(q, v) = D₁L(q, v) + F(q, v, t) + A(q)ᵀ λ,      A(q) v = 0
/// ```
///
/// differentiated once in time: with `M = D₂₂L`, `f = D₁L + F − (∂D₂L/∂q) v`,
///
/// ```text
/// (A M⁻¹ Aᵀ) λ = −(∂(A v)/∂q) v − A M⁻¹ f
/// ```
///
/// The forces `F` of a model with a `forces` block are taken at `t = 0`, the time of
/// the states [`NonholonomicState::consistent`](crate::NonholonomicState::consistent)
/// makes (a step from a state without `λ` takes them at the state's time).
///
/// [`InitError::SingularConstraints`] if `M` or `A M⁻¹ Aᵀ` is singular (redundant
/// constraints, or a singular mass matrix).
pub fn nonholonomic_multiplier<T, Mdl, const D: usize, const K: usize>(
    model: &Mdl,
    q: &SVector<T, D>,
    v: &SVector<T, D>,
) -> Result<SVector<T, K>, InitError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
{
    multiplier(model, (T::zero(), &InputValues::zeros()), q, v)
        .map_err(|_| InitError::SingularConstraints)
}

/// [`nonholonomic_multiplier`] at time `t`, with the factorisation's error.
pub(crate) fn multiplier<T, Mdl, const D: usize, const K: usize>(
    model: &Mdl,
    (t, u): (T, &Mdl::Inputs),
    q: &SVector<T, D>,
    v: &SVector<T, D>,
) -> Result<SVector<T, K>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
{
    // One `D × D` buffer, for `∂D₂L/∂q` and then `M`, factored in place: the recomputed
    // nonholonomic family calls this twice a step, on the step's stack.
    let mut square = [[T::zero(); D]; D];
    // f = D₁L − (∂D₂L/∂q) v; `l_qv` holds ∂²L/∂qᵣ∂v꜀ at [c][r], so (∂D₂L/∂q)ᵢⱼ is [i][j].
    model.l_qv(q, v, &mut square);
    let mut f = model.l_q(q, v);
    if Mdl::FORCED {
        f += model.f(t, q, v, u);
    }
    for (i, column) in square.iter().enumerate() {
        for (j, &e) in column.iter().enumerate() {
            f[i] -= e * v[j];
        }
    }
    model.l_vv(q, v, &mut square);
    let mut perm = [0; D];
    lu::factor_in_place(&mut square, &mut perm)?;
    let mut a = [[T::zero(); K]; D];
    model.a(q, &mut a);
    let a = SMatrix::<T, K, D>::from_data(nalgebra::ArrayStorage(a));
    let mut minv_at: SMatrix<T, D, K> = a.transpose();
    for c in 0..K {
        let mut column: SVector<T, D> = minv_at.column(c).into_owned();
        lu::solve_in_place(&square, &perm, &mut column);
        minv_at.set_column(c, &column);
    }
    lu::solve_in_place(&square, &perm, &mut f);
    let mut a_v_q = [[T::zero(); K]; D];
    model.a_v_q(q, v, &mut a_v_q);
    let a_v_q = SMatrix::<T, K, D>::from_data(nalgebra::ArrayStorage(a_v_q));
    let mut lambda = -(a_v_q * v) - a * f;
    Lu::factor(a * minv_at)?.solve_in_place(&mut lambda);
    Ok(lambda)
}
