//! The standard layer (seed 004, Sect. 3; spec `next_packages.md` §C.2): an explicit
//! Runge–Kutta method with tableau `(a, b, c)` and a signed step `t` run on
//!
//! ```text
//! q̇ = v,   v̇ = A(q, v),   Ṡ = L(q, v),   q(0) = q, v(0) = v, S(0) = 0,
//! ```
//!
//! giving `R^q_t(w)` and `R^S_t(w)` for `w = (q, v)` (the paper's `R^v` only places the
//! first segment of the symmetric bias):
//!
//! ```text
//! Qᵢ = q + t Σⱼ aᵢⱼ Vⱼ,   Vᵢ = v + t Σⱼ aᵢⱼ A(Qⱼ, Vⱼ)
//! R^q_t = q + t Σᵢ bᵢ Vᵢ,   R^v_t = v + t Σᵢ bᵢ A(Qᵢ, Vᵢ),   R^S_t = t Σᵢ bᵢ L(Qᵢ, Vᵢ)
//! ```
//!
//! and their derivatives with respect to `w`, `DR^q_t` (`N × 2N`) and `DR^S_t`
//! (`1 × 2N`): the derivative of a Runge–Kutta map is the same map run on the
//! variational equations `δq̇ = δv, δv̇ = A_q δq + A_v δv, δṠ = L_q δq + L_v δv`,
//!
//! ```text
//! δQᵢ = δq + t Σⱼ aᵢⱼ δVⱼ,   δVᵢ = δv + t Σⱼ aᵢⱼ (A_q δQⱼ + A_v δVⱼ)
//! DR^q_t = [I 0] + t Σᵢ bᵢ δVᵢ,   DR^S_t = t Σᵢ bᵢ (L_q δQᵢ + L_v δVᵢ)
//! ```
//!
//! with every `δ` an `N × 2N` block kept as its `q` and `v` halves. Explicit tableaux
//! only: stage `i` reads the stages before it, so no stage is solved for.
use nalgebra::{SMatrix, SVector};

use super::SecondOrderKernels;
use crate::model::Real;
use crate::tableaux::Tableau;

/// `R^q_t`, `R^S_t` and their derivatives at one `w = (q, v)`, each derivative split
/// into its `q` and `v` halves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flow<T: Real, const N: usize> {
    /// `R^q_t(w)`.
    pub q: SVector<T, N>,
    /// `R^v_t(w) = v + t Σᵢ bᵢ A(Qᵢ, Vᵢ)`: not used by the step, only to place the
    /// first segment state of the symmetric bias.
    pub v: SVector<T, N>,
    /// `R^S_t(w)`.
    pub action: T,
    /// `∂R^q_t/∂q`.
    pub q_q: SMatrix<T, N, N>,
    /// `∂R^q_t/∂v`.
    pub q_v: SMatrix<T, N, N>,
    /// `∂R^S_t/∂q`, as a column.
    pub action_q: SVector<T, N>,
    /// `∂R^S_t/∂v`, as a column.
    pub action_v: SVector<T, N>,
}

/// What later stages read of stage `j`: `Vⱼ`, `A(Qⱼ, Vⱼ)`, and the variations `δVⱼ` and
/// `A_q δQⱼ + A_v δVⱼ`, each by `q` and by `v`.
#[derive(Clone, Copy)]
struct Stage<T: Real, const N: usize> {
    v: SVector<T, N>,
    acc: SVector<T, N>,
    dv_q: SMatrix<T, N, N>,
    dv_v: SMatrix<T, N, N>,
    dacc_q: SMatrix<T, N, N>,
    dacc_v: SMatrix<T, N, N>,
}

/// The standard layer over `tableau` with signed step `t` at `w = (q, v)`.
///
/// # Panics
///
/// If `tableau` is not explicit ([`Tableau::is_explicit`]): the conversion's callers
/// take explicit tableaux only, checked where the scheme is built.
pub fn flow<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    tableau: &Tableau<S>,
    t: T,
    q: &SVector<T, N>,
    v: &SVector<T, N>,
) -> Flow<T, N> {
    assert!(
        tableau.is_explicit(),
        "the standard layer takes explicit tableaux"
    );
    let coefficient = |x: f64| -> T { nalgebra::convert(x) };
    let identity = SMatrix::<T, N, N>::identity();
    let zero = SMatrix::<T, N, N>::zeros();
    let mut stages = [Stage {
        v: *v,
        acc: SVector::zeros(),
        dv_q: zero,
        dv_v: identity,
        dacc_q: zero,
        dacc_v: zero,
    }; S];
    let mut flow = Flow {
        q: *q,
        v: *v,
        action: T::zero(),
        q_q: identity,
        q_v: zero,
        action_q: SVector::zeros(),
        action_v: SVector::zeros(),
    };
    for i in 0..S {
        // Qᵢ, Vᵢ and δQᵢ, δVᵢ (by q and by v) from the stages before i.
        let (mut stage_q, mut stage_v) = (*q, *v);
        let (mut dq_q, mut dq_v, mut dv_q, mut dv_v) = (identity, zero, zero, identity);
        for (j, earlier) in stages.iter().enumerate().take(i) {
            let ta = t * coefficient(tableau.a[i][j]);
            stage_q += earlier.v * ta;
            stage_v += earlier.acc * ta;
            dq_q += earlier.dv_q * ta;
            dq_v += earlier.dv_v * ta;
            dv_q += earlier.dacc_q * ta;
            dv_v += earlier.dacc_v * ta;
        }
        let (a_q, a_v) = model.acceleration_jacobians(&stage_q, &stage_v);
        stages[i] = Stage {
            v: stage_v,
            acc: model.acceleration(&stage_q, &stage_v),
            dv_q,
            dv_v,
            dacc_q: a_q * dq_q + a_v * dv_q,
            dacc_v: a_q * dq_v + a_v * dv_v,
        };
        // R^q_t = q + t Σ bᵢ Vᵢ,  R^S_t = t Σ bᵢ L(Qᵢ, Vᵢ), and their variations.
        let tb = t * coefficient(tableau.b[i]);
        flow.q += stage_v * tb;
        flow.v += stages[i].acc * tb;
        flow.q_q += dv_q * tb;
        flow.q_v += dv_v * tb;
        let (l_q, l_v) = (model.l_q(&stage_q, &stage_v), model.l_v(&stage_q, &stage_v));
        flow.action += model.lagrangian(&stage_q, &stage_v) * tb;
        flow.action_q += (dq_q.transpose() * l_q + dv_q.transpose() * l_v) * tb;
        flow.action_v += (dq_v.transpose() * l_q + dv_v.transpose() * l_v) * tb;
    }
    flow
}
