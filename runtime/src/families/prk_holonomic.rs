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
//! stages possibly paired), the workspace carries it ([`StageWorkspace::with_plan`](super::stages::StageWorkspace::with_plan))
//! and Newton factors along it, the entries it adds to zeroed first instead of the whole
//! matrix; otherwise, and when a static pivot fails its test, the dense LU.
//!
//! The step itself, the workspace, Newton's system and the plan are the stage skeleton's
//! ([`super::stages`]); this module is the family's part of it: its kernel buffers
//! ([`Buffers`]), Newton's starting point, the residual, the assembly above and the new
//! state, in the impl of [`StageEquations`] for [`Buffers`].
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel};
use super::stages::{block, stage_velocities, Known, StageBuffers, StageEquations};
use super::stages::{StageWorkspace, Write};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::HolonomicLobatto;
use crate::solve::Storage;
use crate::state::PhaseState;
use core::borrow::BorrowMut;

pub use super::stages::{equations, stage_system as step_system, step};

/// Memory of a step: Newton's workspace for the `N = S·D + S·M + D` unknowns, the
/// tableau, and the kernel buffers, every `D × D` matrix in storage `K`.
pub type PrkHolonomicWorkspace<
    T,
    const S: usize,
    const D: usize,
    const M: usize,
    const N: usize,
    K,
> = StageWorkspace<T, Buffers<T, D, M, K>, S, N, K>;

/// The family's kernel buffers: the kernels of one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const D: usize, const M: usize, K: Storage> {
    /// `K_qq = D₁₁L + Σₐ Λₐ D²Φᵃ`, and the constraint term alone before it is added.
    k_qq: K::Matrix<T, D>,
    phi_qq: K::Matrix<T, D>,
    l_qv: K::Matrix<T, D>,
    l_vv: K::Matrix<T, D>,
    /// `DΦ`, or `∂(DΦ v)/∂q` at `q¹`.
    phi_q: [[T; M]; D],
}

/// Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹)`: `N = S (D + M) + D`.
impl<T: Real, const D: usize, const M: usize, K: Storage> StageBuffers for Buffers<T, D, M, K> {
    const PER_STAGE: usize = D + M;
    const AFTER_STAGES: usize = D;
    fn zeros() -> Self {
        Self {
            k_qq: K::zeros(),
            phi_qq: K::zeros(),
            l_qv: K::zeros(),
            l_vv: K::zeros(),
            phi_q: [[T::zero(); M]; D],
        }
    }
}

/// Where each block of the unknowns and of the equations starts (`Vⁱ` and `Rᵢ` at
/// `i·D`, as in every family).
struct Layout<const S: usize, const D: usize, const M: usize>;

impl<const S: usize, const D: usize, const M: usize> Layout<S, D, M> {
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
    fn new<Mdl, const N: usize>(known: &Known<'_, T, Mdl, (), S, D>, x: &SVector<T, N>) -> Self {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let v = stage_velocities(x);
        let lambda = core::array::from_fn(|j| block(x, L::<S, D, M>::multiplier(j)));
        Iterate {
            q: known.stage_positions(&v),
            q1: known.combine(known.q0, &v, &known.tableau.b),
            v,
            lambda,
            v1: block(x, L::<S, D, M>::VELOCITY),
        }
    }
}

impl<T: Real, const D: usize, const M: usize, K: Storage> Buffers<T, D, M, K> {
    /// `Wʲ = D₁L(Qʲ, Vʲ) + DΦ(Qʲ)ᵀ Λʲ` (13c).
    fn forces<Mdl, const S: usize>(
        &mut self,
        model: &Mdl,
        it: &Iterate<T, S, D, M>,
    ) -> [SVector<T, D>; S]
    where
        Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    {
        core::array::from_fn(|j| {
            let mut w = model.l_q(&it.q[j], &it.v[j]);
            model.phi_q(&it.q[j], &mut self.phi_q);
            for (k, column) in self.phi_q.iter().enumerate() {
                for (a, &g) in column.iter().enumerate() {
                    w[k] += g * it.lambda[j][a];
                }
            }
            w
        })
    }
}

impl<T, Mdl, K, const S: usize, const D: usize, const M: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N> for Buffers<T, D, M, K>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    type Scheme = HolonomicLobatto<S>;
    type State = PhaseState<T, D>;
    type Extra = ();

    fn extra(_: &Mdl, _: &PhaseState<T, D>) -> Result<(), SolveError<T>> {
        Ok(())
    }

    fn extra_for_equations(_: &Mdl, _: &PhaseState<T, D>) {}

    /// `Vⁱ = v¹ = v` (the state's velocity), `Λʲ = 0`.
    fn guess(_: &Known<'_, T, Mdl, (), S, D>, state: &PhaseState<T, D>, x: &mut SVector<T, N>) {
        x.fill(T::zero());
        for i in 0..S {
            for k in 0..D {
                x[i * D + k] = state.v[k];
            }
        }
        for k in 0..D {
            x[Layout::<S, D, M>::VELOCITY + k] = state.v[k];
        }
    }

    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let (model, h) = (known.model, known.h);
        let it = Iterate::<T, S, D, M>::new(known, x);
        let w = self.forces(model, &it);
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
            let mut ri = model.l_v(&it.q[i], &it.v[i]) - known.p0;
            for (wj, &a_hat) in w.iter().zip(&known.tableau.a_hat[i]) {
                let a_hat: T = nalgebra::convert(a_hat);
                ri.axpy(-h * a_hat, wj, T::one());
            }
            for k in 0..D {
                r[i * D + k] = ri[k];
            }
        }
        for i in 1..S {
            let c = model.phi(&it.q[i]);
            for a in 0..M {
                r[L::<S, D, M>::constraint(i) + a] = c[a];
            }
        }
        // Lg = D₂L(q¹, v¹) − p¹, p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ (13a).
        let legendre =
            model.l_v(&it.q1, &it.v1) - known.combine(known.p0, &w, &known.tableau.b_hat);
        for k in 0..D {
            r[L::<S, D, M>::LEGENDRE + k] = legendre[k];
        }
        model.phi_q(&it.q1, &mut self.phi_q);
        for a in 0..M {
            let mut t = T::zero();
            for k in 0..D {
                t += self.phi_q[k][a] * it.v1[k];
            }
            r[L::<S, D, M>::TANGENCY + a] = t;
        }
    }

    /// Adds the Jacobian (module docs) to `jac`, stage by stage: the kernels of stage
    /// `j` are evaluated once and added into every block they enter, each over its
    /// pattern ([`PointKernels::PATTERNS`], [`HolonomicKernels::PATTERNS`]; every entry
    /// without one). With [`Write::Zero`] it zeroes the entries it would add to instead,
    /// without evaluating the kernels.
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        jac: &mut [[T; N]; N],
        write: Write,
    ) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let it = Iterate::<T, S, D, M>::new(known, x);
        let (model, h, tab) = (known.model, known.h, known.tableau);
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
        let stage = |i: usize| i * D;
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
            } = &mut *self;
            let (k_qq, phi_qq): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (k_qq.borrow_mut(), phi_qq.borrow_mut());
            let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (l_qv.borrow_mut(), l_vv.borrow_mut());
            if write == Write::Add {
                let (qj, vj) = (&it.q[j], &it.v[j]);
                model.l_qq(qj, vj, k_qq);
                model.phi_qq_contracted(qj, &it.lambda[j], phi_qq);
                for (k, column) in k_qq.iter_mut().enumerate() {
                    for (i, e) in column.iter_mut().enumerate() {
                        *e += phi_qq[k][i];
                    }
                }
                model.l_qv(qj, vj, l_qv);
                model.l_vv(qj, vj, l_vv);
                model.phi_q(qj, phi_q);
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
        } = &mut *self;
        let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
            (l_qv.borrow_mut(), l_vv.borrow_mut());
        let (legendre, tangency) = (L::<S, D, M>::LEGENDRE, L::<S, D, M>::TANGENCY);
        let velocity = L::<S, D, M>::VELOCITY;
        if write == Write::Add {
            model.l_qv(&it.q1, &it.v1, l_qv);
            model.l_vv(&it.q1, &it.v1, l_vv);
        }
        let qv = Kernel::new(&*l_qv, p_qv);
        let vv = Kernel::new(&*l_vv, p_vv);
        for (l, b_l) in nonzero(&tab.b) {
            let f = h * c(b_l);
            add(jac, (legendre, stage(l)), f, qv, true, write);
        }
        add(jac, (legendre, velocity), T::one(), vv, false, write);
        if write == Write::Add {
            model.phi_qv(&it.q1, &it.v1, phi_q);
        }
        let gv = Kernel::new(&*phi_q, p_gv);
        for (l, b_l) in nonzero(&tab.b) {
            let f = h * c(b_l);
            add(jac, (tangency, stage(l)), f, gv, false, write);
        }
        if write == Write::Add {
            model.phi_q(&it.q1, phi_q);
        }
        let g = Kernel::new(&*phi_q, p_g);
        add(jac, (tangency, velocity), T::one(), g, false, write);
    }

    /// `q¹` and `p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ` (13a); the new state's `v` is `v¹`, the velocity
    /// at the new node (`D₂L(q¹, v¹) = p¹`, tangent to the constraints).
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        state: &PhaseState<T, D>,
        x: &SVector<T, N>,
    ) -> PhaseState<T, D> {
        let it = Iterate::<T, S, D, M>::new(known, x);
        let w = self.forces(known.model, &it);
        PhaseState {
            t: state.t + known.h,
            q: it.q1,
            p: known.combine(known.p0, &w, &known.tableau.b_hat),
            v: it.v1,
        }
    }
}
