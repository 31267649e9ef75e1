//! The nonholonomic partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair (Martín
//! de Diego, Sato Martín de Almagro, "High-order geometric methods for nonholonomic
//! mechanical systems", eqs. (14), App. D; spec 002 S4), assembled at run time from the
//! model's [`PointKernels`] and [`NonholonomicKernels`] for any number of stages `S`,
//! in the velocity form for any regular Lagrangian.
//!
//! Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)`, `N = S (2D + K)`; with
//! `Wʲ = D₁L(Qʲ, Vʲ) + A(Qʲ)ᵀ Λʲ` (14c), `Qⁱ = qₖ + h Σⱼ aᵢⱼ Vʲ` and
//! `pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ` (14d, the IIIA coefficients) the equations are, block by block
//! in the order of the unknowns,
//!
//! ```text
//! Rᵢ  = D₂L(Qⁱ, Vⁱ) − pₖ − h Σⱼ âᵢⱼ Wʲ      i = 1 … s     (14b, 14c)
//! C₁  = Λ¹ − λₖ,   Cᵢ = A(Qⁱ) vⁱ            i = 2 … s     (14e: Ψ(qⁱ, pⁱ) = 0)
//! Lᵢ  = D₂L(Qⁱ, vⁱ) − pⁱ                    i = 1 … s     (App. D: pⁱ = D₂L(qⁱ, vⁱ))
//! ```
//!
//! The spec's recommended solve (S4) takes `Λ²…Λˢ` and `v²…vˢ` as unknowns; `Λ¹` and
//! `v¹` are kept here with their trivial equations (`C₁`, and `L₁`, which is
//! `D₂L(qₖ, v¹) = pₖ` since `a₁ⱼ = 0`) so that every block has one per stage: two more
//! blocks of `K` and `D` for Newton, solved exactly in its first iteration. The
//! constraint at stage 1 holds already (`q¹ = qₖ`, `p¹ = pₖ`, a consistent state).
//! Outputs (14a): `qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ`, `pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ`, `vₖ₊₁ = vˢ`,
//! `λₖ₊₁ = Λˢ`.
//!
//! The exact Jacobian, with `K_qq(j) = D₁₁L(j) + ∂(A(q)ᵀ Λʲ)/∂q` at `(Qʲ, Vʲ)`:
//!
//! ```text
//! ∂Wʲ/∂Vˡ = h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j),   ∂Wʲ/∂Λʲ = A(Qʲ)ᵀ
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i) − h Σⱼ âᵢⱼ ∂Wʲ/∂Vˡ,   ∂Rᵢ/∂Λʲ = −h âᵢⱼ A(Qʲ)ᵀ
//! ∂Cᵢ/∂Vˡ = h aᵢₗ ∂(A(q) vⁱ)/∂q |Qⁱ,   ∂Cᵢ/∂vⁱ = A(Qⁱ),   ∂C₁/∂Λ¹ = I
//! ∂Lᵢ/∂Vˡ = h aᵢₗ D₂₁L(Qⁱ, vⁱ) − h Σⱼ aᵢⱼ ∂Wʲ/∂Vˡ,   ∂Lᵢ/∂Λʲ = −h aᵢⱼ A(Qʲ)ᵀ,
//! ∂Lᵢ/∂vⁱ = D₂₂L(Qⁱ, vⁱ)
//! ```
//!
//! assembled stage by stage over the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]) and factored along
//! the elimination plan `model!` hands the workspace when one pays
//! ([`StageWorkspace::with_plan`](super::stages::StageWorkspace::with_plan): `Λ¹`'s identity is a pivot of its own, the
//! later stages' multipliers have none), by the dense LU otherwise. A state without `λ`
//! gets the multiplier of the continuous equations at its `(q, v)` (spec 002 §4.8).
//!
//! The step itself, the workspace, Newton's system and the plan are the stage skeleton's
//! ([`super::stages`]); this module is the family's part of it: its kernel buffers
//! ([`Buffers`]), `λₖ` and Newton's starting point, the residual, the assembly above and
//! the new state, in the impl of [`StageEquations`] for [`Buffers`].
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel};
use super::stages::{block, stage_velocities, Known, StageBuffers, StageEquations};
use super::stages::{StageWorkspace, Write};
use crate::error::SolveError;
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::NonholonomicLobatto;
use crate::solve::Storage;
use crate::state::multiplier::multiplier;
use crate::state::NonholonomicState;
use core::borrow::BorrowMut;

pub use super::stages::{equations, step};

/// Memory of a step: Newton's workspace for the `N = S (2D + K)` unknowns, the tableau,
/// and the kernel buffers, every `D × D` matrix in storage `Z`.
pub type PrkNonholonomicWorkspace<
    T,
    const S: usize,
    const D: usize,
    const K: usize,
    const N: usize,
    Z,
> = StageWorkspace<T, Buffers<T, D, K, Z>, S, N, Z>;

/// The family's kernel buffers: the kernels of one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const D: usize, const K: usize, Z: Storage> {
    /// `K_qq = D₁₁L + ∂(Aᵀ Λ)/∂q`, and the constraint term alone before it is added.
    k_qq: Z::Matrix<T, D>,
    a_t_lambda_q: Z::Matrix<T, D>,
    l_qv: Z::Matrix<T, D>,
    l_vv: Z::Matrix<T, D>,
    /// `A(q)` and `∂(A v)/∂q`.
    a: [[T; K]; D],
    a_v_q: [[T; K]; D],
}

/// Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)`: `N = S (2D + K)`.
impl<T: Real, const D: usize, const K: usize, Z: Storage> StageBuffers for Buffers<T, D, K, Z> {
    const PER_STAGE: usize = 2 * D + K;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self {
            k_qq: Z::zeros(),
            a_t_lambda_q: Z::zeros(),
            l_qv: Z::zeros(),
            l_vv: Z::zeros(),
            a: [[T::zero(); K]; D],
            a_v_q: [[T::zero(); K]; D],
        }
    }
}

/// Where each block of the unknowns (and of the equations, in the same order) starts
/// (`Vⁱ` and `Rᵢ` at `i·D`, as in every family).
struct Layout<const S: usize, const D: usize, const K: usize>;

impl<const S: usize, const D: usize, const K: usize> Layout<S, D, K> {
    /// `Λⁱ` and `Cᵢ`.
    const fn multiplier(i: usize) -> usize {
        S * D + i * K
    }
    /// `vⁱ` and `Lᵢ`.
    const fn velocity(i: usize) -> usize {
        S * D + S * K + i * D
    }
}

/// The values an iterate determines: `Qⁱ`, `Vⁱ`, `Λⁱ`, `vⁱ`.
struct Iterate<T: Real, const S: usize, const D: usize, const K: usize> {
    q: [SVector<T, D>; S],
    v_stage: [SVector<T, D>; S],
    lambda: [SVector<T, K>; S],
    v: [SVector<T, D>; S],
}

/// The known values of a step of the family: `(qₖ, pₖ)` and `λₖ`.
type Node<'a, T, Mdl, const S: usize, const D: usize, const K: usize> =
    Known<'a, T, Mdl, SVector<T, K>, S, D>;

impl<T: Real, const S: usize, const D: usize, const K: usize> Iterate<T, S, D, K> {
    fn new<Mdl, const N: usize>(node: &Node<'_, T, Mdl, S, D, K>, x: &SVector<T, N>) -> Self {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let v_stage = stage_velocities(x);
        Iterate {
            q: node.stage_positions(&v_stage),
            v_stage,
            lambda: core::array::from_fn(|i| block(x, L::<S, D, K>::multiplier(i))),
            v: core::array::from_fn(|i| block(x, L::<S, D, K>::velocity(i))),
        }
    }
}

impl<T: Real, const D: usize, const K: usize, Z: Storage> Buffers<T, D, K, Z> {
    /// `Wʲ = D₁L(Qʲ, Vʲ) + A(Qʲ)ᵀ Λʲ` (14c).
    fn forces<Mdl, const S: usize>(
        &mut self,
        model: &Mdl,
        it: &Iterate<T, S, D, K>,
    ) -> [SVector<T, D>; S]
    where
        Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    {
        core::array::from_fn(|j| {
            let mut w = model.l_q(&it.q[j], &it.v_stage[j]);
            model.a(&it.q[j], &mut self.a);
            for (k, column) in self.a.iter().enumerate() {
                for (a, &e) in column.iter().enumerate() {
                    w[k] += e * it.lambda[j][a];
                }
            }
            w
        })
    }
}

impl<T, Mdl, Z, const S: usize, const D: usize, const K: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N> for Buffers<T, D, K, Z>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    type Scheme = NonholonomicLobatto<S>;
    type State = NonholonomicState<T, D, K>;
    type Extra = SVector<T, K>;

    /// `λₖ`: the state's, or from the continuous equations at its `(q, v)`.
    fn extra(
        model: &Mdl,
        state: &NonholonomicState<T, D, K>,
    ) -> Result<SVector<T, K>, SolveError<T>> {
        match state.lambda {
            Some(lambda) => Ok(lambda),
            None => multiplier(model, &state.q, &state.v),
        }
    }

    /// `λₖ` as for a step, zero where the continuous equations fail.
    fn extra_for_equations(model: &Mdl, state: &NonholonomicState<T, D, K>) -> SVector<T, K> {
        <Self as StageEquations<T, Mdl, S, D, N>>::extra(model, state)
            .unwrap_or_else(|_| SVector::zeros())
    }

    /// `Vⁱ = vⁱ = vₖ`, `Λⁱ = λₖ`.
    fn guess(
        node: &Node<'_, T, Mdl, S, D, K>,
        state: &NonholonomicState<T, D, K>,
        x: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        for i in 0..S {
            for k in 0..D {
                x[i * D + k] = state.v[k];
                x[L::<S, D, K>::velocity(i) + k] = state.v[k];
            }
            for a in 0..K {
                x[L::<S, D, K>::multiplier(i) + a] = node.extra[a];
            }
        }
    }

    fn residual(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let (model, tab) = (node.model, node.tableau);
        let it = Iterate::<T, S, D, K>::new(node, x);
        let w = self.forces(model, &it);
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − pₖ − h Σⱼ âᵢⱼ Wʲ
            let ri = model.l_v(&it.q[i], &it.v_stage[i]) - node.combine(node.p0, &w, &tab.a_hat[i]);
            // Lᵢ = D₂L(Qⁱ, vⁱ) − pⁱ, pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ
            let li = model.l_v(&it.q[i], &it.v[i]) - node.combine(node.p0, &w, &tab.a[i]);
            for k in 0..D {
                r[i * D + k] = ri[k];
                r[L::<S, D, K>::velocity(i) + k] = li[k];
            }
            // C₁ = Λ¹ − λₖ, Cᵢ = A(Qⁱ) vⁱ
            let ci = if i == 0 {
                it.lambda[0] - node.extra
            } else {
                model.a(&it.q[i], &mut self.a);
                SVector::from_fn(|a, _| {
                    let mut c = T::zero();
                    for k in 0..D {
                        c += self.a[k][a] * it.v[i][k];
                    }
                    c
                })
            };
            for a in 0..K {
                r[L::<S, D, K>::multiplier(i) + a] = ci[a];
            }
        }
    }

    /// Adds the Jacobian (module docs) to `jac`, stage by stage, each kernel over its
    /// pattern ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]; every
    /// entry without one). With [`Write::Zero`] it zeroes the entries it would add to
    /// instead, without evaluating the kernels.
    fn assemble(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        x: &SVector<T, N>,
        jac: &mut [[T; N]; N],
        write: Write,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let it = Iterate::<T, S, D, K>::new(node, x);
        let (model, h, tab) = (node.model, node.h, node.tableau);
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let point = <Mdl as PointKernels<T, D>>::PATTERNS;
        let constraint = <Mdl as NonholonomicKernels<T, D, K>>::PATTERNS;
        let (p_qv, p_vv) = (point.map(|p| p.l_qv), point.map(|p| p.l_vv));
        let (p_a, p_qq, p_av) = (
            constraint.map(|p| p.matrix),
            constraint.map(|p| p.k_qq),
            constraint.map(|p| p.times_v),
        );
        let stage = |i: usize| i * D;
        // The rows a stage's `Wʲ` enters, with their weights: `Rᵢ` by `âᵢⱼ`, `Lᵢ` by `aᵢⱼ`.
        let w_rows = |j: usize| {
            (0..S)
                .map(move |i| (stage(i), tab.a_hat[i][j]))
                .chain((0..S).map(move |i| (L::<S, D, K>::velocity(i), tab.a[i][j])))
        };
        for j in 0..S {
            let Buffers {
                k_qq,
                a_t_lambda_q,
                l_qv,
                l_vv,
                a,
                a_v_q,
            } = &mut *self;
            let (k_qq, a_t_lambda_q): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (k_qq.borrow_mut(), a_t_lambda_q.borrow_mut());
            let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (l_qv.borrow_mut(), l_vv.borrow_mut());
            let (qj, vj) = (&it.q[j], &it.v_stage[j]);
            if write == Write::Add {
                model.l_qq(qj, vj, k_qq);
                model.a_t_lambda_q(qj, &it.lambda[j], a_t_lambda_q);
                for (k, column) in k_qq.iter_mut().enumerate() {
                    for (i, e) in column.iter_mut().enumerate() {
                        *e += a_t_lambda_q[k][i];
                    }
                }
                model.l_qv(qj, vj, l_qv);
                model.l_vv(qj, vj, l_vv);
                model.a(qj, a);
            }
            let qq = Kernel::new(&*k_qq, p_qq);
            let qv = Kernel::new(&*l_qv, p_qv);
            let vv = Kernel::new(&*l_vv, p_vv);
            let am = Kernel::new(&*a, p_a);
            // Row block Rⱼ: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j).
            let row = stage(j);
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (row, stage(l)), f, qv, true, write);
            }
            add(jac, (row, row), T::one(), vv, false, write);
            // The rows Wʲ enters, weight g: −h g (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)) on Vˡ,
            // −h g A(Qʲ)ᵀ on Λʲ.
            for (row, weight) in w_rows(j) {
                if weight == 0.0 {
                    continue;
                }
                let g = -h * c(weight);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = g * h * c(a_jl);
                    add(jac, (row, stage(l)), f, qq, false, write);
                }
                add(jac, (row, stage(j)), g, qv, false, write);
                add(jac, (row, L::<S, D, K>::multiplier(j)), g, am, true, write);
            }
            // Cⱼ: the identity on Λ¹ at j = 0; A(Qʲ) vʲ after: h aⱼₗ ∂(A vʲ)/∂q on Vˡ,
            // A(Qʲ) on vʲ.
            let (crow, vcol) = (L::<S, D, K>::multiplier(j), L::<S, D, K>::velocity(j));
            if j == 0 {
                for a in 0..K {
                    let target = &mut jac[crow + a][crow + a];
                    match write {
                        Write::Zero => *target = T::zero(),
                        Write::Add => *target += T::one(),
                    }
                }
            } else {
                if write == Write::Add {
                    model.a_v_q(qj, &it.v[j], a_v_q);
                }
                let av = Kernel::new(&*a_v_q, p_av);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = h * c(a_jl);
                    add(jac, (crow, stage(l)), f, av, false, write);
                }
                add(jac, (crow, vcol), T::one(), am, false, write);
            }
            // Lⱼ's D₂L(Qʲ, vʲ): h aⱼₗ D₂₁L on Vˡ, D₂₂L on vʲ.
            if write == Write::Add {
                model.l_qv(qj, &it.v[j], l_qv);
                model.l_vv(qj, &it.v[j], l_vv);
            }
            let qv = Kernel::new(&*l_qv, p_qv);
            let vv = Kernel::new(&*l_vv, p_vv);
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (vcol, stage(l)), f, qv, true, write);
            }
            add(jac, (vcol, vcol), T::one(), vv, false, write);
        }
    }

    /// (14a): `qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ`, `pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ`, `vₖ₊₁ = vˢ`,
    /// `λₖ₊₁ = Λˢ`.
    fn next_state(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        state: &NonholonomicState<T, D, K>,
        x: &SVector<T, N>,
    ) -> NonholonomicState<T, D, K> {
        let tab = node.tableau;
        let it = Iterate::<T, S, D, K>::new(node, x);
        let w = self.forces(node.model, &it);
        NonholonomicState {
            t: state.t + node.h,
            q: node.combine(&state.q, &it.v_stage, &tab.b),
            p: node.combine(&state.p, &w, &tab.b_hat),
            v: it.v[S - 1],
            lambda: Some(it.lambda[S - 1]),
        }
    }
}
