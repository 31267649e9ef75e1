//! The holonomically constrained Lobatto IIIA–IIIB method (Martín de Diego, Sato Martín
//! de Almagro, "High-order geometric methods for nonholonomic mechanical systems",
//! eqs. (12)–(13); spec 002 S3), assembled at run time from the model's
//! [`PointKernels`] and [`HolonomicKernels`] for any number of stages `S`.
//!
//! Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹)`, `N = S·D + S·M + D`; with
//! `Wʲ = D₁L(Qʲ, Vʲ) + DΦ(Qʲ)ᵀ Λʲ` (13c) the equations are
//!
//! ```text
//! Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ     i = 1 … s     (13b, 13c)
//! Cᵢ = Φ(Qⁱ)                              i = 2 … s     (13d)
//! Tg = DΦ(q¹) v¹                                        (13d, tangency)
//! Lg = D₂L(q¹, v¹) − p¹                                 (the Legendre transform at q¹)
//! ```
//!
//! in this order, so that equation block `k` and unknown block `k` have the same size:
//! `Cᵢ` and `Tg` (no `Λ` in them) face the multipliers, `Lg` faces `v¹`.
//!
//! with `Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ`, `q¹ = q⁰ + h Σⱼ bⱼ Vʲ`, `p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ` (13a).
//! The paper writes `Φ(Qⁱ) = 0` for every stage; at `i = 1` it is `Φ(q⁰) = 0`, already
//! true, and would leave `Λ¹`'s column without a pivot (spec 002 §6 C item 5). `Λˢ` enters
//! only `p¹` (`âᵢₛ = 0`) and is fixed by the tangency equation. The unknown `v¹`, the
//! velocity at the new node, makes the tangency equation `DΦ(q¹) ∂H/∂p(q¹, p¹) = 0` hold
//! for any regular Lagrangian, without inverting the mass matrix (spec 002 S3).
//!
//! The exact Jacobian, with `K_qq(j) = D₁₁L(j) + Σₐ Λʲₐ D²Φᵃ(Qʲ)` and `Gⱼ = DΦ(Qʲ)`:
//!
//! ```text
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i) − h Σⱼ âᵢⱼ (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j))
//! ∂Rᵢ/∂Λʲ = −h âᵢⱼ Gⱼᵀ
//! ∂Cᵢ/∂Vˡ = h aᵢₗ Gᵢ
//! ∂Lg/∂Vˡ = h bₗ D₂₁L(q¹, v¹) − h Σⱼ b̂ⱼ (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)),   ∂Lg/∂Λʲ = −h b̂ⱼ Gⱼᵀ
//! ∂Lg/∂v¹ = D₂₂L(q¹, v¹)
//! ∂Tg/∂Vˡ = h bₗ ∂(DΦ(q) v¹)/∂q |q¹,                                ∂Tg/∂v¹ = DΦ(q¹)
//! ```
//!
//! At `S = 2` this is RATTLE (spec 002 S2) for any regular Lagrangian.
//!
//! The Jacobian is assembled stage by stage, each kernel over its structural nonzeros
//! ([`PointKernels::PATTERNS`], [`HolonomicKernels::PATTERNS`]). Where `model!` found
//! an elimination plan of the resulting pattern that pays (a model of many bodies: the
//! multipliers' Schur complement pivoted by value, a constraint's multipliers at two
//! stages possibly paired), the workspace carries it ([`PrkHolonomicWorkspace::with_plan`])
//! and Newton factors along it, the entries it adds to zeroed first instead of the whole
//! matrix; otherwise, and when a static pivot fails its test, the dense LU.
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel, Write};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::HolonomicLobatto;
use crate::solve::sparse::{self, NeedsPivoting, Plan};
use crate::solve::{self, NewtonSystem, StepReport, Storage, Workspace};
use crate::state::PhaseState;
use crate::step::{StepOptions, WrongLength};
use crate::tableaux::PartitionedTableau;
use core::borrow::{Borrow, BorrowMut};

/// Memory of a step: Newton's workspace for the `N = S·D + S·M + D` unknowns, the
/// tableau, and the kernel buffers, every `D × D` matrix in storage `K`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrkHolonomicWorkspace<
    T: Real,
    const S: usize,
    const D: usize,
    const M: usize,
    const N: usize,
    K: Storage,
> {
    newton: Workspace<T, N, K>,
    tableau: PartitionedTableau<S>,
    kernels: Buffers<T, D, M, K>,
    plan: Option<&'static Plan>,
}

/// The kernels of one point.
#[derive(Clone, Debug, PartialEq)]
struct Buffers<T: Real, const D: usize, const M: usize, K: Storage> {
    /// `K_qq = D₁₁L + Σₐ Λₐ D²Φᵃ`, and the constraint term alone before it is added.
    k_qq: K::Matrix<T, D>,
    phi_qq: K::Matrix<T, D>,
    l_qv: K::Matrix<T, D>,
    l_vv: K::Matrix<T, D>,
    /// `DΦ`, or `∂(DΦ v)/∂q` at `q¹`.
    phi_q: [[T; M]; D],
}

impl<T: Real, const S: usize, const D: usize, const M: usize, const N: usize, K: Storage>
    PrkHolonomicWorkspace<T, S, D, M, N, K>
{
    /// A workspace for the Lobatto IIIA–IIIB pair with `S` stages.
    pub fn lobatto() -> Self {
        const { assert!(N == S * D + S * M + D, "N must be S·D + S·M + D") };
        Self {
            newton: Workspace::new(),
            tableau: PartitionedTableau::lobatto_iiia_iiib(),
            kernels: Buffers {
                k_qq: K::zeros(),
                phi_qq: K::zeros(),
                l_qv: K::zeros(),
                l_vv: K::zeros(),
                phi_q: [[T::zero(); M]; D],
            },
            plan: None,
        }
    }

    /// The workspace factoring the step Jacobian along `plan` (an elimination plan of
    /// its `N × N` pattern, see the module) instead of by the dense LU.
    pub fn with_plan(mut self, plan: Option<&'static Plan>) -> Self {
        if let Some(plan) = plan {
            assert_eq!(plan.n, N, "a plan of the step Jacobian's size");
        }
        self.plan = plan;
        self
    }

    /// The plan the step Jacobian is factored along, if any.
    pub fn plan(&self) -> Option<&'static Plan> {
        self.plan
    }

    /// Newton's workspace, and the step equations at `(q⁰, p⁰)` over the rest.
    fn split<'w, 's, Mdl>(
        &'w mut self,
        model: &'s Mdl,
        h: T,
        q0: &'s SVector<T, D>,
        p0: &'s SVector<T, D>,
    ) -> (
        &'w mut Workspace<T, N, K>,
        Equations<'s, T, Mdl, S, D, M, K>,
    )
    where
        'w: 's,
    {
        let system = Equations {
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

/// Where each block of the unknowns and of the equations starts.
struct Layout<const S: usize, const D: usize, const M: usize>;

impl<const S: usize, const D: usize, const M: usize> Layout<S, D, M> {
    /// `Vⁱ` (unknowns) and `Rᵢ` (equations), `i = 0 … S − 1`.
    const fn stage(i: usize) -> usize {
        i * D
    }
    /// `Λʲ`.
    const fn multiplier(j: usize) -> usize {
        S * D + j * M
    }
    /// `Cᵢ`, `i = 1 … S − 1`.
    const fn constraint(i: usize) -> usize {
        S * D + (i - 1) * M
    }
    /// `v¹`.
    const VELOCITY: usize = S * D + S * M;
    /// `Tg`, after the stage constraints: with the stage constraints it makes one row
    /// of `M` equations for each `Λʲ`'s block of columns, and `Lg` falls on `v¹`'s, so
    /// that every unknown with a structural diagonal is a primal one (what the
    /// elimination plan's order needs, `solve::sparse`).
    const TANGENCY: usize = S * D + (S - 1) * M;
    /// `Lg`, last.
    const LEGENDRE: usize = S * D + S * M;
}

/// The values an iterate determines: `Qⁱ`, `Vⁱ`, `Λʲ`, `q¹` and `v¹`.
struct Iterate<T: Real, const S: usize, const D: usize, const M: usize> {
    q: [SVector<T, D>; S],
    v: [SVector<T, D>; S],
    lambda: [SVector<T, M>; S],
    q1: SVector<T, D>,
    v1: SVector<T, D>,
}

impl<T: Real, const S: usize, const D: usize, const M: usize> Iterate<T, S, D, M> {
    fn new<const N: usize>(
        tableau: &PartitionedTableau<S>,
        h: T,
        q0: &SVector<T, D>,
        x: &SVector<T, N>,
    ) -> Self {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let v: [SVector<T, D>; S] =
            core::array::from_fn(|i| SVector::from_fn(|k, _| x[L::<S, D, M>::stage(i) + k]));
        let lambda =
            core::array::from_fn(|j| SVector::from_fn(|a, _| x[L::<S, D, M>::multiplier(j) + a]));
        let combine = |weights: &[f64; S]| {
            let mut out = *q0;
            for (vj, &w) in v.iter().zip(weights) {
                let w: T = nalgebra::convert(w);
                out.axpy(h * w, vj, T::one());
            }
            out
        };
        let q = core::array::from_fn(|i| combine(&tableau.a[i]));
        let q1 = combine(&tableau.b);
        let v1 = SVector::from_fn(|k, _| x[L::<S, D, M>::VELOCITY + k]);
        Iterate {
            q,
            v,
            lambda,
            q1,
            v1,
        }
    }
}

/// The step equations at a known `(q⁰, p⁰)` and step size, as Newton sees them.
struct Equations<'a, T: Real, Mdl, const S: usize, const D: usize, const M: usize, K: Storage> {
    model: &'a Mdl,
    tableau: &'a PartitionedTableau<S>,
    kernels: &'a mut Buffers<T, D, M, K>,
    plan: Option<&'static Plan>,
    h: T,
    q0: &'a SVector<T, D>,
    p0: &'a SVector<T, D>,
}

impl<T, Mdl, K, const S: usize, const D: usize, const M: usize> Equations<'_, T, Mdl, S, D, M, K>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    /// `Wʲ = D₁L(Qʲ, Vʲ) + DΦ(Qʲ)ᵀ Λʲ` (13c).
    fn forces(&mut self, it: &Iterate<T, S, D, M>) -> [SVector<T, D>; S] {
        core::array::from_fn(|j| {
            let mut w = self.model.l_q(&it.q[j], &it.v[j]);
            self.model.phi_q(&it.q[j], &mut self.kernels.phi_q);
            for (k, column) in self.kernels.phi_q.iter().enumerate() {
                for (a, &g) in column.iter().enumerate() {
                    w[k] += g * it.lambda[j][a];
                }
            }
            w
        })
    }

    /// `p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ` (13a).
    fn momentum(&self, w: &[SVector<T, D>; S]) -> SVector<T, D> {
        let mut p1 = *self.p0;
        for (wj, &b) in w.iter().zip(&self.tableau.b_hat) {
            let b: T = nalgebra::convert(b);
            p1.axpy(self.h * b, wj, T::one());
        }
        p1
    }
}

impl<T, Mdl, K, const S: usize, const D: usize, const M: usize, const N: usize> NewtonSystem<T, N>
    for Equations<'_, T, Mdl, S, D, M, K>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let it = Iterate::<T, S, D, M>::new(self.tableau, self.h, self.q0, x);
        let w = self.forces(&it);
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
            let mut ri = self.model.l_v(&it.q[i], &it.v[i]) - self.p0;
            for (wj, &a_hat) in w.iter().zip(&self.tableau.a_hat[i]) {
                let a_hat: T = nalgebra::convert(a_hat);
                ri.axpy(-self.h * a_hat, wj, T::one());
            }
            for k in 0..D {
                r[L::<S, D, M>::stage(i) + k] = ri[k];
            }
        }
        for i in 1..S {
            let c = self.model.phi(&it.q[i]);
            for a in 0..M {
                r[L::<S, D, M>::constraint(i) + a] = c[a];
            }
        }
        let legendre = self.model.l_v(&it.q1, &it.v1) - self.momentum(&w);
        for k in 0..D {
            r[L::<S, D, M>::LEGENDRE + k] = legendre[k];
        }
        self.model.phi_q(&it.q1, &mut self.kernels.phi_q);
        for a in 0..M {
            let mut t = T::zero();
            for k in 0..D {
                t += self.kernels.phi_q[k][a] * it.v1[k];
            }
            r[L::<S, D, M>::TANGENCY + a] = t;
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

impl<T, Mdl, K, const S: usize, const D: usize, const M: usize> Equations<'_, T, Mdl, S, D, M, K>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    /// Adds the Jacobian (module docs) to `jac`, stage by stage: the kernels of stage
    /// `j` are evaluated once and added into every block they enter, each over its
    /// pattern ([`PointKernels::PATTERNS`], [`HolonomicKernels::PATTERNS`]; every entry
    /// without one). With [`Write::Zero`] it zeroes the entries it would add to instead,
    /// without evaluating the kernels.
    fn assemble<const N: usize>(&mut self, x: &SVector<T, N>, jac: &mut [[T; N]; N], write: Write) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let it = Iterate::<T, S, D, M>::new(self.tableau, self.h, self.q0, x);
        let (h, tab) = (self.h, self.tableau);
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let point = <Mdl as PointKernels<T, D>>::PATTERNS;
        let holonomic = <Mdl as HolonomicKernels<T, D, M>>::PATTERNS;
        let p_qv = point.map(|p| p.l_qv);
        let p_vv = point.map(|p| p.l_vv);
        let (p_g, p_qq, p_gv) = (
            holonomic.map(|p| p.matrix),
            holonomic.map(|p| p.k_qq),
            holonomic.map(|p| p.times_v),
        );
        let stage = L::<S, D, M>::stage;
        // The rows a stage's `Wʲ` enters, with their weights: `Rᵢ` by `âᵢⱼ`, `Lg` by `b̂ⱼ`.
        let w_rows = |j: usize| {
            (0..S)
                .map(move |i| (stage(i), tab.a_hat[i][j]))
                .chain(core::iter::once((L::<S, D, M>::LEGENDRE, tab.b_hat[j])))
        };
        for j in 0..S {
            let Buffers {
                k_qq,
                phi_qq,
                l_qv,
                l_vv,
                phi_q,
            } = &mut *self.kernels;
            let (k_qq, phi_qq): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (k_qq.borrow_mut(), phi_qq.borrow_mut());
            let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (l_qv.borrow_mut(), l_vv.borrow_mut());
            if write == Write::Add {
                let (qj, vj) = (&it.q[j], &it.v[j]);
                self.model.l_qq(qj, vj, k_qq);
                self.model.phi_qq_contracted(qj, &it.lambda[j], phi_qq);
                for (k, column) in k_qq.iter_mut().enumerate() {
                    for (i, e) in column.iter_mut().enumerate() {
                        *e += phi_qq[k][i];
                    }
                }
                self.model.l_qv(qj, vj, l_qv);
                self.model.l_vv(qj, vj, l_vv);
                self.model.phi_q(qj, phi_q);
            }
            let qq = Kernel::new(&*k_qq, p_qq);
            let qv = Kernel::new(&*l_qv, p_qv);
            let vv = Kernel::new(&*l_vv, p_vv);
            let g = Kernel::new(&*phi_q, p_g);
            // Row block j: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j), D₂₁L = D₁₂Lᵀ.
            let row = stage(j);
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (row, stage(l)), f, qv, true, write);
            }
            add(jac, (row, stage(j)), T::one(), vv, false, write);
            // The rows Wʲ enters, weight g: −h g (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)) on Vˡ,
            // −h g Gⱼᵀ on Λʲ.
            for (row, weight) in w_rows(j) {
                if weight == 0.0 {
                    continue;
                }
                let w = -h * c(weight);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = w * h * c(a_jl);
                    add(jac, (row, stage(l)), f, qq, false, write);
                }
                add(jac, (row, stage(j)), w, qv, false, write);
                add(jac, (row, L::<S, D, M>::multiplier(j)), w, g, true, write);
            }
            // Cⱼ = Φ(Qʲ), j ≥ 1: h aⱼₗ Gⱼ on Vˡ.
            if j > 0 {
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = h * c(a_jl);
                    add(
                        jac,
                        (L::<S, D, M>::constraint(j), stage(l)),
                        f,
                        g,
                        false,
                        write,
                    );
                }
            }
        }
        // The new node: Lg's D₂L(q¹, v¹) and the tangency equation.
        let Buffers {
            l_qv, l_vv, phi_q, ..
        } = &mut *self.kernels;
        let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
            (l_qv.borrow_mut(), l_vv.borrow_mut());
        let (legendre, tangency) = (L::<S, D, M>::LEGENDRE, L::<S, D, M>::TANGENCY);
        let velocity = L::<S, D, M>::VELOCITY;
        if write == Write::Add {
            self.model.l_qv(&it.q1, &it.v1, l_qv);
            self.model.l_vv(&it.q1, &it.v1, l_vv);
        }
        let qv = Kernel::new(&*l_qv, p_qv);
        let vv = Kernel::new(&*l_vv, p_vv);
        for (l, b_l) in nonzero(&tab.b) {
            let f = h * c(b_l);
            add(jac, (legendre, stage(l)), f, qv, true, write);
        }
        add(jac, (legendre, velocity), T::one(), vv, false, write);
        if write == Write::Add {
            self.model.phi_qv(&it.q1, &it.v1, phi_q);
        }
        let gv = Kernel::new(&*phi_q, p_gv);
        for (l, b_l) in nonzero(&tab.b) {
            let f = h * c(b_l);
            add(jac, (tangency, stage(l)), f, gv, false, write);
        }
        if write == Write::Add {
            self.model.phi_q(&it.q1, phi_q);
        }
        let g = Kernel::new(&*phi_q, p_g);
        add(jac, (tangency, velocity), T::one(), g, false, write);
    }
}

/// The step residual `R(X)` at the unknowns `x` and its exact Jacobian `∂R/∂X` (column
/// storage) in the workspace, exposed for derivative oracles.
pub fn step_system<'w, T, Mdl, K, const S: usize, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    ws: &'w mut PrkHolonomicWorkspace<T, S, D, M, N, K>,
    h: T,
    q0: &SVector<T, D>,
    p0: &SVector<T, D>,
    x: &SVector<T, N>,
    r: &mut SVector<T, N>,
) -> &'w [[T; N]; N]
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    let (newton, mut system) = ws.split(model, h, q0, p0);
    system.residual_and_jacobian(x, r, newton.jac.borrow_mut());
    newton.jac.borrow()
}

/// One step: Newton from `Vⁱ = v¹ = v` (the state's velocity) and `Λʲ = 0`, then `q¹`,
/// `p¹` from the solution; the new state's `v` is `v¹`, the velocity at the new node
/// (`D₂L(q¹, v¹) = p¹`, tangent to the constraints). `state` is only read, so a failed
/// step leaves it as it was.
pub fn step<T, Mdl, K, const S: usize, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    _scheme: &HolonomicLobatto<S>,
    h: T,
    state: &PhaseState<T, D>,
    ws: &mut PrkHolonomicWorkspace<T, S, D, M, N, K>,
    options: &StepOptions<T>,
) -> Result<(PhaseState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
    let (newton, mut system) = ws.split(model, h, &state.q, &state.p);
    newton.x.fill(T::zero());
    for i in 0..S {
        for k in 0..D {
            newton.x[L::<S, D, M>::stage(i) + k] = state.v[k];
        }
    }
    for k in 0..D {
        newton.x[L::<S, D, M>::VELOCITY + k] = state.v[k];
    }
    let report = solve::solve(newton, &options.newton, &mut system)?;
    let it = Iterate::<T, S, D, M>::new(system.tableau, h, &state.q, &newton.x);
    let w = system.forces(&it);
    let next = PhaseState {
        t: state.t + h,
        q: it.q1,
        p: system.momentum(&w),
        v: it.v1,
    };
    Ok((next, report))
}

/// [`Step::equations`](crate::Step::equations) of the family: the step equations and
/// their assembled Jacobian at `x`.
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, K, const S: usize, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    _scheme: &HolonomicLobatto<S>,
    h: T,
    state: &PhaseState<T, D>,
    ws: &mut PrkHolonomicWorkspace<T, S, D, M, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let (newton, mut system) = ws.split(model, h, &state.q, &state.p);
    super::equations_at(newton, &mut system, x, r, jac);
    Ok(())
}
