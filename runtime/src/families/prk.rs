//! The variational partitioned Runge–Kutta family (Martín de Diego, Sato Martín de
//! Almagro, "High-order geometric methods for nonholonomic mechanical systems"; spec
//! 002), assembled at run time from the model's [`PointKernels`] and a cited tableau,
//! for any number of stages `S`. Nothing about it is emitted per stage count: `model!`
//! emits the kernels once and an impl of `Step` that calls [`step`] with the sizes.
//!
//! Unconstrained scheme S1 (eq. (9)), unknowns `X = (V¹, …, Vˢ)` (`N = S·D`):
//!
//! ```text
//! Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ,   Wⁱ = D₁L(Qⁱ, Vⁱ),   Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
//! q¹ = q⁰ + h Σⱼ bⱼ Vʲ,    p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ
//! ```
//!
//! and its exact block Jacobian (spec 002 S1):
//!
//! ```text
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i) − h Σⱼ âᵢⱼ (h aⱼₗ D₁₁L(j) + δⱼₗ D₁₂L(j))
//! ```
//!
//! assembled stage by stage: the kernels of stage `j` are evaluated once, into three
//! `D × D` buffers of the workspace, and scattered into every block they enter.
//!
//! Its pattern is the kernels' patterns placed by the tableau's structural zeros
//! (`a₁ₗ = 0` in IIIA, `âᵢₛ = 0` in IIIB), which `model!` knows for each declared stage
//! count. Where an elimination plan of that pattern costs at most a sixteenth of the dense LU's
//! multiply–adds (a model of many bodies, whose second derivatives couple few
//! coordinates), it hands the plan to the workspace ([`StageWorkspace::with_plan`](super::stages::StageWorkspace::with_plan)) and
//! Newton factors along it ([`crate::solve::sparse::factor`], table-driven: nothing is
//! emitted per stage count), falling back to the dense LU when a pivot fails its test.
//! The assembly visits only the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`]), and with a plan zeroes only those first.
//!
//! The step itself, the workspace, Newton's system and the plan are the stage skeleton's
//! ([`super::stages`]); this module is the family's part of it: its kernel buffers
//! ([`Buffers`]), Newton's starting point, the residual, the assembly above and the new
//! state, in the impl of [`StageEquations`] for [`Buffers`].
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel};
use super::stages::{stage_velocities, Known, StageBuffers, StageEquations, StageWorkspace, Write};
use crate::error::SolveError;
use crate::kernels::{KernelPatterns, PointKernels};
use crate::model::Real;
use crate::schemes::LobattoIIIAIIIB;
use crate::solve::Storage;
use crate::state::PhaseState;
use core::borrow::BorrowMut;

pub use super::stages::{equations, stage_system, step};

/// Memory of a step of the family: Newton's workspace for the `N = S·D` stage
/// velocities, the tableau, and the kernel buffers, every matrix in storage `K`.
pub type PrkWorkspace<T, const S: usize, const D: usize, const N: usize, K> =
    StageWorkspace<T, Buffers<T, D, K>, S, N, K>;

/// The family's kernel buffers: `D₁₁L`, `D₁₂L`, `D₂₂L` of one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const D: usize, K: Storage> {
    l_qq: K::Matrix<T, D>,
    l_qv: K::Matrix<T, D>,
    l_vv: K::Matrix<T, D>,
}

/// Unknowns `X = (V¹, …, Vˢ)`: `N = S·D`.
impl<T: Real, const D: usize, K: Storage> StageBuffers for Buffers<T, D, K> {
    const PER_STAGE: usize = D;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self {
            l_qq: K::zeros(),
            l_qv: K::zeros(),
            l_vv: K::zeros(),
        }
    }
}

/// Stage values of an iterate: `Qⁱ` and `Vⁱ` for every stage.
fn stages<T: Real, Mdl, const S: usize, const D: usize, const N: usize>(
    known: &Known<'_, T, Mdl, (), S, D>,
    x: &SVector<T, N>,
) -> ([SVector<T, D>; S], [SVector<T, D>; S]) {
    let v = stage_velocities(x);
    (known.stage_positions(&v), v)
}

impl<T, Mdl, K, const S: usize, const D: usize, const N: usize> StageEquations<T, Mdl, S, D, N>
    for Buffers<T, D, K>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    type Scheme = LobattoIIIAIIIB<S>;
    type State = PhaseState<T, D>;
    type Extra = ();

    fn extra(_: &Mdl, _: &PhaseState<T, D>) -> Result<(), SolveError<T>> {
        Ok(())
    }

    fn extra_for_equations(_: &Mdl, _: &PhaseState<T, D>) {}

    /// `Vⁱ = v`, the state's guess.
    fn guess(_: &Known<'_, T, Mdl, (), S, D>, state: &PhaseState<T, D>, x: &mut SVector<T, N>) {
        for i in 0..S {
            for k in 0..D {
                x[i * D + k] = state.v[k];
            }
        }
    }

    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        let (model, h) = (known.model, known.h);
        let (q, v) = stages(known, x);
        let w: [SVector<T, D>; S] = core::array::from_fn(|j| model.l_q(&q[j], &v[j]));
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
            let mut ri = model.l_v(&q[i], &v[i]) - known.p0;
            for (j, wj) in w.iter().enumerate() {
                let a_hat: T = nalgebra::convert(known.tableau.a_hat[i][j]);
                ri.axpy(-h * a_hat, wj, T::one());
            }
            for k in 0..D {
                r[i * D + k] = ri[k];
            }
        }
    }

    /// The stage Jacobian's terms (module docs), stage by stage: the kernels of stage
    /// `j` are evaluated once and added, each over its pattern ([`PointKernels::PATTERNS`],
    /// every entry without one), into every block they enter.
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        jac: &mut [[T; N]; N],
        write: Write,
    ) {
        let (q, v) = stages(known, x);
        let (model, h, tab) = (known.model, known.h, known.tableau);
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let patterns = Mdl::PATTERNS;
        let pattern =
            |pick: fn(&KernelPatterns) -> &'static [(u16, u16)]| patterns.map(|p| pick(&p));
        let (p_qq, p_qv, p_vv) = (
            pattern(|p| p.l_qq),
            pattern(|p| p.l_qv),
            pattern(|p| p.l_vv),
        );
        for j in 0..S {
            let Buffers { l_qq, l_qv, l_vv } = &mut *self;
            let l_qq: &mut [[T; D]; D] = l_qq.borrow_mut();
            let l_qv: &mut [[T; D]; D] = l_qv.borrow_mut();
            let l_vv: &mut [[T; D]; D] = l_vv.borrow_mut();
            if write == Write::Add {
                model.l_qq(&q[j], &v[j], l_qq);
                model.l_qv(&q[j], &v[j], l_qv);
                model.l_vv(&q[j], &v[j], l_vv);
            }
            let (qq, qv, vv) = (
                Kernel::new(&*l_qq, p_qq),
                Kernel::new(&*l_qv, p_qv),
                Kernel::new(&*l_vv, p_vv),
            );
            // Row block j: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j), D₂₁L = D₁₂Lᵀ.
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (j * D, l * D), f, qv, true, write);
            }
            add(jac, (j * D, j * D), T::one(), vv, false, write);
            // Every row block i: −h âᵢⱼ ∂Wʲ/∂Vˡ = −h âᵢⱼ (h aⱼₗ D₁₁L(j) + δⱼₗ D₁₂L(j)).
            for i in 0..S {
                if tab.a_hat[i][j] == 0.0 {
                    continue;
                }
                let g = -h * c(tab.a_hat[i][j]);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = g * h * c(a_jl);
                    add(jac, (i * D, l * D), f, qq, false, write);
                }
                add(jac, (i * D, j * D), g, qv, false, write);
            }
        }
    }

    /// `q¹ = q⁰ + h Σⱼ bⱼ Vʲ`, `p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ`, and `Vˢ` as the next step's guess.
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        state: &PhaseState<T, D>,
        x: &SVector<T, N>,
    ) -> PhaseState<T, D> {
        let (model, h, tableau) = (known.model, known.h, known.tableau);
        let (q, v) = stages(known, x);
        let (mut q1, mut p1) = (state.q, state.p);
        for j in 0..S {
            let b: T = nalgebra::convert(tableau.b[j]);
            let b_hat: T = nalgebra::convert(tableau.b_hat[j]);
            q1.axpy(h * b, &v[j], T::one());
            p1.axpy(h * b_hat, &model.l_q(&q[j], &v[j]), T::one());
        }
        PhaseState {
            t: state.t + h,
            q: q1,
            p: p1,
            v: v[S - 1],
        }
    }
}
