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
//! count. Where an elimination plan of that pattern costs at most a quarter of the dense LU's
//! multiply–adds (a model of many bodies, whose second derivatives couple few
//! coordinates), it hands the plan to the workspace ([`PrkWorkspace::with_plan`]) and
//! Newton factors along it ([`crate::solve::sparse::factor`], table-driven: nothing is
//! emitted per stage count), falling back to the dense LU when a pivot fails its test.
//! The assembly visits only the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`]), and with a plan zeroes only those first.
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel, Write};
use crate::error::SolveError;
use crate::kernels::{KernelPatterns, PointKernels};
use crate::model::Real;
use crate::schemes::LobattoIIIAIIIB;
use crate::solve::sparse::{self, NeedsPivoting, Plan};
use crate::solve::{self, NewtonSystem, StepReport, Storage, Workspace};
use crate::state::PhaseState;
use crate::step::{StepOptions, WrongLength};
use crate::tableaux::PartitionedTableau;
use core::borrow::{Borrow, BorrowMut};

/// Memory of a step of the family: Newton's workspace for the `N = S·D` stage
/// velocities, the tableau, and the kernel buffers, every matrix in storage `K`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrkWorkspace<T: Real, const S: usize, const D: usize, const N: usize, K: Storage> {
    newton: Workspace<T, N, K>,
    tableau: PartitionedTableau<S>,
    kernels: KernelBuffers<T, D, K>,
    plan: Option<&'static Plan>,
}

/// `D₁₁L`, `D₁₂L`, `D₂₂L` of one stage.
#[derive(Clone, Debug, PartialEq)]
struct KernelBuffers<T: Real, const D: usize, K: Storage> {
    l_qq: K::Matrix<T, D>,
    l_qv: K::Matrix<T, D>,
    l_vv: K::Matrix<T, D>,
}

impl<T: Real, const S: usize, const D: usize, const N: usize, K: Storage>
    PrkWorkspace<T, S, D, N, K>
{
    /// A workspace for the Lobatto IIIA–IIIB pair with `S` stages.
    pub fn lobatto() -> Self {
        const { assert!(N == S * D, "N must be S·D") };
        Self {
            newton: Workspace::new(),
            tableau: PartitionedTableau::lobatto_iiia_iiib(),
            kernels: KernelBuffers {
                l_qq: K::zeros(),
                l_qv: K::zeros(),
                l_vv: K::zeros(),
            },
            plan: None,
        }
    }

    /// The workspace factoring the stage Jacobian along `plan` (an elimination plan of
    /// its `N × N` pattern, see the module) instead of by the dense LU.
    pub fn with_plan(mut self, plan: Option<&'static Plan>) -> Self {
        if let Some(plan) = plan {
            assert_eq!(plan.n, N, "a plan of the stage Jacobian's size");
        }
        self.plan = plan;
        self
    }

    /// The plan the stage Jacobian is factored along, if any.
    pub fn plan(&self) -> Option<&'static Plan> {
        self.plan
    }
}

impl<T: Real, const S: usize, const D: usize, const N: usize, K: Storage>
    PrkWorkspace<T, S, D, N, K>
{
    /// Newton's workspace, and the stage equations at `(q⁰, p⁰)` over the rest.
    fn split<'w, 's, Mdl>(
        &'w mut self,
        model: &'s Mdl,
        h: T,
        q0: &'s SVector<T, D>,
        p0: &'s SVector<T, D>,
    ) -> (&'w mut Workspace<T, N, K>, Stages<'s, T, Mdl, S, D, K>)
    where
        'w: 's,
    {
        let system = Stages {
            model,
            tableau: &self.tableau,
            kernels: &mut self.kernels,
            plan: self.plan,
            h,
            q0,
            p0,
        };
        (&mut self.newton, system)
    }
}

/// Stage values of an iterate: `Qⁱ` and `Vⁱ` for every stage.
fn stages<T: Real, const S: usize, const D: usize, const N: usize>(
    tableau: &PartitionedTableau<S>,
    h: T,
    q0: &SVector<T, D>,
    x: &SVector<T, N>,
) -> ([SVector<T, D>; S], [SVector<T, D>; S]) {
    let v: [SVector<T, D>; S] = core::array::from_fn(|i| SVector::from_fn(|k, _| x[i * D + k]));
    let q = core::array::from_fn(|i| {
        let mut qi = *q0;
        for (j, vj) in v.iter().enumerate() {
            let a: T = nalgebra::convert(tableau.a[i][j]);
            qi.axpy(h * a, vj, T::one());
        }
        qi
    });
    (q, v)
}

/// The stage equations at a known `(q⁰, p⁰)` and step size, as Newton sees them.
struct Stages<'a, T: Real, Mdl, const S: usize, const D: usize, K: Storage> {
    model: &'a Mdl,
    tableau: &'a PartitionedTableau<S>,
    kernels: &'a mut KernelBuffers<T, D, K>,
    plan: Option<&'static Plan>,
    h: T,
    q0: &'a SVector<T, D>,
    p0: &'a SVector<T, D>,
}

impl<T, Mdl, K, const S: usize, const D: usize, const N: usize> NewtonSystem<T, N>
    for Stages<'_, T, Mdl, S, D, K>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        let (q, v) = stages(self.tableau, self.h, self.q0, x);
        let w: [SVector<T, D>; S] = core::array::from_fn(|j| self.model.l_q(&q[j], &v[j]));
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
            let mut ri = self.model.l_v(&q[i], &v[i]) - self.p0;
            for (j, wj) in w.iter().enumerate() {
                let a_hat: T = nalgebra::convert(self.tableau.a_hat[i][j]);
                ri.axpy(-self.h * a_hat, wj, T::one());
            }
            for k in 0..D {
                r[i * D + k] = ri[k];
            }
        }
    }

    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        self.residual(x, r);
        for column in jac.iter_mut() {
            column.fill(T::zero());
        }
        self.assemble(x, jac, Write::Add);
    }

    planned_newton_methods!();
}

impl<T, Mdl, K, const S: usize, const D: usize> Stages<'_, T, Mdl, S, D, K>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    /// The stage Jacobian's terms (module docs), stage by stage: the kernels of stage
    /// `j` are evaluated once and added, each over its pattern ([`PointKernels::PATTERNS`],
    /// every entry without one), into every block they enter.
    fn assemble<const N: usize>(&mut self, x: &SVector<T, N>, jac: &mut [[T; N]; N], write: Write) {
        let (q, v) = stages(self.tableau, self.h, self.q0, x);
        let h = self.h;
        let tab = self.tableau;
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
            let KernelBuffers { l_qq, l_qv, l_vv } = &mut *self.kernels;
            let l_qq: &mut [[T; D]; D] = l_qq.borrow_mut();
            let l_qv: &mut [[T; D]; D] = l_qv.borrow_mut();
            let l_vv: &mut [[T; D]; D] = l_vv.borrow_mut();
            if write == Write::Add {
                self.model.l_qq(&q[j], &v[j], l_qq);
                self.model.l_qv(&q[j], &v[j], l_qv);
                self.model.l_vv(&q[j], &v[j], l_vv);
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
}

/// The stage residual `R(X)` at the unknowns `x`, and with `jacobian` its exact Jacobian
/// `∂R/∂X` (column storage) in the workspace: the system each Newton iteration of
/// [`step`] solves, exposed for derivative oracles.
pub fn stage_system<'w, T, Mdl, K, const S: usize, const D: usize, const N: usize>(
    model: &Mdl,
    ws: &'w mut PrkWorkspace<T, S, D, N, K>,
    h: T,
    q0: &SVector<T, D>,
    p0: &SVector<T, D>,
    x: &SVector<T, N>,
    r: &mut SVector<T, N>,
) -> &'w [[T; N]; N]
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    let (newton, mut system) = ws.split(model, h, q0, p0);
    system.residual_and_jacobian(x, r, newton.jac.borrow_mut());
    newton.jac.borrow()
}

/// One step of the Lobatto IIIA–IIIB method with `S` stages: Newton on the stage
/// velocities from `Vⁱ = v` (the state's guess), then `q¹`, `p¹` from the solution.
/// `state` is only read, so a failed step leaves it as it was.
pub fn step<T, Mdl, K, const S: usize, const D: usize, const N: usize>(
    model: &Mdl,
    _scheme: &LobattoIIIAIIIB<S>,
    h: T,
    state: &PhaseState<T, D>,
    ws: &mut PrkWorkspace<T, S, D, N, K>,
    options: &StepOptions<T>,
) -> Result<(PhaseState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    let (newton, mut system) = ws.split(model, h, &state.q, &state.p);
    for i in 0..S {
        for k in 0..D {
            newton.x[i * D + k] = state.v[k];
        }
    }
    let report = solve::solve(newton, &options.newton, &mut system)?;
    let tableau = system.tableau;
    let (q, v) = stages(tableau, h, &state.q, &newton.x);
    let (mut q1, mut p1) = (state.q, state.p);
    for j in 0..S {
        let b: T = nalgebra::convert(tableau.b[j]);
        let b_hat: T = nalgebra::convert(tableau.b_hat[j]);
        q1.axpy(h * b, &v[j], T::one());
        p1.axpy(h * b_hat, &model.l_q(&q[j], &v[j]), T::one());
    }
    let next = PhaseState {
        t: state.t + h,
        q: q1,
        p: p1,
        v: v[S - 1],
    };
    Ok((next, report))
}

/// [`Step::equations`](crate::Step::equations) of the family: the stage equations and
/// their assembled Jacobian at `x`.
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, K, const S: usize, const D: usize, const N: usize>(
    model: &Mdl,
    _scheme: &LobattoIIIAIIIB<S>,
    h: T,
    state: &PhaseState<T, D>,
    ws: &mut PrkWorkspace<T, S, D, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let (newton, mut system) = ws.split(model, h, &state.q, &state.p);
    super::equations_at(newton, &mut system, x, r, jac);
    Ok(())
}
