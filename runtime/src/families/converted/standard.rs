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

/// The derivative of a [`Flow`]'s derivatives along a direction `u = (u_q, u_v)` of
/// `w`: `D(DR^q_t)[u]` and `D(DR^S_t)[u]`, each split into its `q` and `v` halves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowTangent<T: Real, const N: usize> {
    /// `D(∂R^q_t/∂q)[u]`.
    pub q_q: SMatrix<T, N, N>,
    /// `D(∂R^q_t/∂v)[u]`.
    pub q_v: SMatrix<T, N, N>,
    /// `D(∂R^S_t/∂q)[u]`.
    pub action_q: SVector<T, N>,
    /// `D(∂R^S_t/∂v)[u]`.
    pub action_v: SVector<T, N>,
}

/// A pair of `N × N` blocks: a derivative by `q` and by `v`.
type Halves<T, const N: usize> = [SMatrix<T, N, N>; 2];

/// What later stages read of stage `j`: `Vⱼ`, `A(Qⱼ, Vⱼ)`, the variations `δVⱼ` and
/// `A_q δQⱼ + A_v δVⱼ` (each by `q` and by `v`), and those variations' derivatives
/// along the direction, if one is given.
#[derive(Clone, Copy)]
struct Stage<T: Real, const N: usize> {
    v: SVector<T, N>,
    acc: SVector<T, N>,
    dv: Halves<T, N>,
    dacc: Halves<T, N>,
    dv_tangent: Halves<T, N>,
    dacc_tangent: Halves<T, N>,
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
    flow_along(model, tableau, t, q, v, None).0
}

/// [`flow`] and, along `direction = (u_q, u_v)`, the derivative of its derivatives: the
/// variational equations differentiated once more (second-order variational
/// equations), with `(A_q, A_v)`'s own derivative along each stage's tangent
/// `(δQᵢ[u], δVᵢ[u])` from [`SecondOrderKernels::acceleration_second`]:
///
/// ```text
/// (δQᵢ)′ = t Σⱼ aᵢⱼ (δVⱼ)′,   (δVᵢ)′ = t Σⱼ aᵢⱼ (A_q′ δQⱼ + A_v′ δVⱼ + A_q (δQⱼ)′ + A_v (δVⱼ)′)
/// (DR^q)′ = t Σᵢ bᵢ (δVᵢ)′
/// (DR^S)′ = t Σᵢ bᵢ [(δQᵢ)′ᵀ L_q + δQᵢᵀ (L_qq Qᵢ′ + L_qv Vᵢ′) + (δVᵢ)′ᵀ L_v + δVᵢᵀ (L_vq Qᵢ′ + L_vv Vᵢ′)]
/// ```
///
/// which the step's exact Newton Jacobian reads, one direction per unknown of `w`.
pub fn flow_tangent<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    tableau: &Tableau<S>,
    t: T,
    w: (&SVector<T, N>, &SVector<T, N>),
    direction: (&SVector<T, N>, &SVector<T, N>),
) -> (Flow<T, N>, FlowTangent<T, N>) {
    let (flow, tangent) = flow_along(model, tableau, t, w.0, w.1, Some(direction));
    (flow, tangent.expect("a direction was given"))
}

fn flow_along<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    tableau: &Tableau<S>,
    t: T,
    q: &SVector<T, N>,
    v: &SVector<T, N>,
    direction: Option<(&SVector<T, N>, &SVector<T, N>)>,
) -> (Flow<T, N>, Option<FlowTangent<T, N>>) {
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
        dv: [zero, identity],
        dacc: [zero; 2],
        dv_tangent: [zero; 2],
        dacc_tangent: [zero; 2],
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
    let mut tangent = FlowTangent {
        q_q: zero,
        q_v: zero,
        action_q: SVector::zeros(),
        action_v: SVector::zeros(),
    };
    // Trailing stages nothing reads (a padded tableau's) are skipped.
    for i in 0..tableau.active_stages() {
        // Qᵢ, Vᵢ, δQᵢ, δVᵢ and their derivatives along u from the stages before i.
        let (mut stage_q, mut stage_v) = (*q, *v);
        let (mut dq, mut dv): (Halves<T, N>, Halves<T, N>) = ([identity, zero], [zero, identity]);
        let (mut dq_tangent, mut dv_tangent) = ([zero; 2], [zero; 2]);
        for (j, earlier) in stages.iter().enumerate().take(i) {
            let ta = t * coefficient(tableau.a[i][j]);
            stage_q += earlier.v * ta;
            stage_v += earlier.acc * ta;
            for h in 0..2 {
                dq[h] += earlier.dv[h] * ta;
                dv[h] += earlier.dacc[h] * ta;
                dq_tangent[h] += earlier.dv_tangent[h] * ta;
                dv_tangent[h] += earlier.dacc_tangent[h] * ta;
            }
        }
        let point = model.acceleration_with_jacobians(&stage_q, &stage_v);
        let (acc, a_q, a_v) = point;
        let dacc = [0, 1].map(|h| a_q * dq[h] + a_v * dv[h]);
        let (l_q, l_v) = (model.l_q(&stage_q, &stage_v), model.l_v(&stage_q, &stage_v));
        let tb = t * coefficient(tableau.b[i]);
        let mut dacc_tangent = [zero; 2];
        if let Some((u_q, u_v)) = direction {
            // The stage's tangent (Qᵢ′, Vᵢ′) = (δQᵢ u, δVᵢ u).
            let q_tangent = dq[0] * u_q + dq[1] * u_v;
            let v_tangent = dv[0] * u_q + dv[1] * u_v;
            let (a_q_tangent, a_v_tangent) =
                model.acceleration_second_at(&stage_q, &stage_v, &point, &q_tangent, &v_tangent);
            dacc_tangent = [0, 1].map(|h| {
                a_q_tangent * dq[h]
                    + a_v_tangent * dv[h]
                    + a_q * dq_tangent[h]
                    + a_v * dv_tangent[h]
            });
            let l_qv = model.l_qv(&stage_q, &stage_v);
            let l_q_tangent = model.l_qq(&stage_q, &stage_v) * q_tangent + l_qv * v_tangent;
            let l_v_tangent =
                l_qv.transpose() * q_tangent + model.l_vv(&stage_q, &stage_v) * v_tangent;
            tangent.q_q += dv_tangent[0] * tb;
            tangent.q_v += dv_tangent[1] * tb;
            let action = |h: usize| {
                dq_tangent[h].transpose() * l_q
                    + dq[h].transpose() * l_q_tangent
                    + dv_tangent[h].transpose() * l_v
                    + dv[h].transpose() * l_v_tangent
            };
            tangent.action_q += action(0) * tb;
            tangent.action_v += action(1) * tb;
        }
        stages[i] = Stage {
            v: stage_v,
            acc,
            dv,
            dacc,
            dv_tangent,
            dacc_tangent,
        };
        // R^q_t = q + t Σ bᵢ Vᵢ,  R^S_t = t Σ bᵢ L(Qᵢ, Vᵢ), and their variations.
        flow.q += stage_v * tb;
        flow.v += stages[i].acc * tb;
        flow.q_q += dv[0] * tb;
        flow.q_v += dv[1] * tb;
        flow.action += model.lagrangian(&stage_q, &stage_v) * tb;
        flow.action_q += (dq[0].transpose() * l_q + dv[0].transpose() * l_v) * tb;
        flow.action_v += (dq[1].transpose() * l_q + dv[1].transpose() * l_v) * tb;
    }
    (flow, direction.map(|_| tangent))
}
