//! The holonomically constrained Lobatto IIIA–IIIB method (Martín de Diego, Sato Martín
//! de Almagro, "High-order geometric methods for nonholonomic mechanical systems",
//! eqs. (12)–(13); spec 002 S3), assembled at run time from the model's
//! [`PointKernels`] and [`HolonomicKernels`] for any number of stages `S`.
//!
//! Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹)`, `N = S·D + S·M + D`; with
//! `Wʲ = D₁L(Qʲ, Vʲ) + DΦ(Qʲ)ᵀ Λʲ` (13c), plus the generalized forces
//! `F(Qʲ, Vʲ, t⁰ + cⱼ h)` of a `forces` block (the discrete Lagrange–d'Alembert
//! principle, spec `next_packages.md` §D.2; their `F_q` joins `K_qq` and their `F_v`
//! joins `D₁₂L` wherever `Wʲ` enters the Jacobian below), the equations are
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
//! stages possibly paired), the workspace carries it
//! ([`with_plan`](super::stages::StageWorkspace::with_plan)) and Newton factors along
//! it, the entries it adds to zeroed first instead of the whole matrix; otherwise, and
//! when a static pivot fails its test, the dense LU.
//!
//! The step, the workspace ([`PrkHolonomicWorkspace`], an alias), Newton's system and
//! the plan are the stage skeleton's ([`super::stages`]). This module is the family's
//! part: its layout, its kernel buffers ([`Buffers`]: a constrained point of
//! `families/point.rs` with `R = DΦ`) and, in their impl of [`StageEquations`], Newton's
//! starting point, the equations, the Jacobian above (a stage's rows through the shared
//! `Stage::legendre` and `Stage::force`, then `Cⱼ`, `Lg` and `Tg`) and the new state.
use nalgebra::SVector;

use super::blocks::{Assembly, Kernel};
use super::point::{Constrained, Holonomic, StageValues};
use super::stages::StageWorkspace;
use super::stages::{
    block, extrapolate_stages, set_block, stage_velocities, Known, StageBuffers, StageEquations,
};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::HolonomicLobatto;
use crate::solve::Storage;
use crate::state::PhaseState;

pub use super::stages::predicted_options as default_options;
pub use super::stages::{equations, stage_system as step_system, step};

/// Memory of a step: Newton's workspace for the `N = S·D + S·M + D` unknowns, the
/// tableau, and the kernel buffers, every `D × D` matrix in storage `K`.
#[rustfmt::skip]
pub type PrkHolonomicWorkspace<T, const S: usize, const D: usize, const M: usize, const N: usize, K> =
    StageWorkspace<T, Buffers<T, D, M, K>, S, N, K>;

/// The family's kernel buffers: the kernels of one point, `DΦ` (or `∂(DΦ v)/∂q` at `q¹`)
/// in the constraint matrix's place.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const D: usize, const M: usize, K: Storage> {
    point: Constrained<T, D, M, K, Holonomic>,
}

/// Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹)`: `N = S (D + M) + D`.
impl<T: Real, const D: usize, const M: usize, K: Storage> StageBuffers for Buffers<T, D, M, K> {
    const PER_STAGE: usize = D + M;
    const AFTER_STAGES: usize = D;
    fn zeros() -> Self {
        Self {
            point: Constrained::zeros(),
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
        Iterate {
            q: known.stage_positions(&v),
            q1: known.combine(known.q0, &v, &known.tableau.b),
            v,
            lambda: core::array::from_fn(|j| block(x, L::<S, D, M>::multiplier(j))),
            v1: block(x, L::<S, D, M>::VELOCITY),
        }
    }

    /// `(Qʲ, Vʲ, Λʲ)` of every stage.
    fn stages(&self) -> StageValues<'_, T, S, D, M> {
        (&self.q, &self.v, &self.lambda)
    }
}

impl<T: Real, Mdl, K: Storage, const S: usize, const D: usize, const M: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N> for Buffers<T, D, M, K>
where
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
{
    type Scheme = HolonomicLobatto<S>;
    type Coefficients = crate::tableaux::PartitionedTableau<S>;
    type State = PhaseState<T, D>;

    /// `Vⁱ = v¹ = v` (the state's velocity), `Λʲ = 0`.
    fn guess(_: &Known<'_, T, Mdl, (), S, D>, state: &PhaseState<T, D>, x: &mut SVector<T, N>) {
        x.fill(T::zero());
        for i in 0..S {
            set_block(x, i * D, &state.v);
        }
        set_block(x, Layout::<S, D, M>::VELOCITY, &state.v);
    }

    /// The last step's stage velocities and multipliers continued, and `v¹` the
    /// continued `Vˢ` (`cₛ = 1`).
    fn predict(
        _: &Known<'_, T, Mdl, (), S, D>,
        e: &[[f64; S]; S],
        previous: &SVector<T, N>,
        x: &mut SVector<T, N>,
    ) {
        extrapolate_stages(e, previous, x, (0, D));
        extrapolate_stages(e, previous, x, (Layout::<S, D, M>::multiplier(0), M));
        let last: SVector<T, D> = block(x, (S - 1) * D);
        set_block(x, Layout::<S, D, M>::VELOCITY, &last);
    }

    /// The equations of the module docs, with `Wʲ = D₁L(Qʲ, Vʲ) + DΦ(Qʲ)ᵀ Λʲ` (13c).
    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let model = known.model;
        let it = Iterate::<T, S, D, M>::new(known, x);
        let w = self.point.forces(known, it.stages());
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
            let ri = known.legendre_minus_forces(model.l_v(&it.q[i], &it.v[i]), &w, i);
            set_block(r, i * D, &ri);
        }
        for i in 1..S {
            // Cᵢ = Φ(Qⁱ) (13d)
            set_block(r, L::<S, D, M>::constraint(i), &model.phi(&it.q[i]));
        }
        // Lg = D₂L(q¹, v¹) − p¹, p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ (13a).
        let p1 = known.combine(known.p0, &w, &known.tableau.b_hat);
        set_block(r, L::<S, D, M>::LEGENDRE, &(model.l_v(&it.q1, &it.v1) - p1));
        // Tg = DΦ(q¹) v¹
        model.phi_q(&it.q1, &mut self.point.matrix);
        for a in 0..M {
            let mut t = T::zero();
            for k in 0..D {
                t += self.point.matrix[k][a] * it.v1[k];
            }
            r[L::<S, D, M>::TANGENCY + a] = t;
        }
    }

    /// Adds the Jacobian (module docs) to `out`, stage by stage: the kernels of stage
    /// `j` are evaluated once and added into every block they enter, each over its
    /// pattern ([`PointKernels::PATTERNS`], [`HolonomicKernels::PATTERNS`]; every entry
    /// without one). In the pass that zeroes, it zeroes the entries it would add to instead,
    /// without evaluating the kernels.
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        type L<const S: usize, const D: usize, const M: usize> = Layout<S, D, M>;
        let it = Iterate::<T, S, D, M>::new(known, x);
        let (model, h, tab) = (known.model, known.h, known.tableau);
        let evaluate = out.adds();
        let u = known.inputs();
        for j in 0..S {
            let at = (&it.q[j], &it.v[j], &it.lambda[j]);
            let lambda_j = L::<S, D, M>::multiplier(j);
            let t = (known.stage_time(j), &u);
            let stage = self
                .point
                .stage(model, (j, &tab.a[j], h, t), at, lambda_j, evaluate);
            // Row block j: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j), D₂₁L = D₁₂Lᵀ.
            stage.legendre(&mut out, j * D);
            // The rows Wʲ enters, `Rᵢ` with `âᵢⱼ` and `Lg` with `b̂ⱼ`, weight g:
            // −h g (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)) on Vˡ, −h g Gⱼᵀ on Λʲ.
            for i in 0..S {
                stage.force(&mut out, i * D, tab.a_hat[i][j]);
            }
            stage.force(&mut out, L::<S, D, M>::LEGENDRE, tab.b_hat[j]);
            // Cⱼ = Φ(Qʲ), j ≥ 1: h aⱼₗ Gⱼ on Vˡ.
            if let (true, Some((_, g))) = (j > 0, stage.multiplier) {
                let row = L::<S, D, M>::constraint(j);
                out.through_point(row, (&tab.a[j], h), g, false);
            }
        }
        // The new node: Lg's D₂L(q¹, v¹) (h bₗ D₂₁L on Vˡ, D₂₂L on v¹) and the tangency
        // equation (h bₗ ∂(DΦ v¹)/∂q on Vˡ, DΦ(q¹) on v¹).
        let (legendre_row, tangency) = (L::<S, D, M>::LEGENDRE, L::<S, D, M>::TANGENCY);
        let velocity = L::<S, D, M>::VELOCITY;
        let point = &mut self.point;
        if evaluate {
            point.hessians.evaluate(model, (&it.q1, &it.v1), false);
        }
        let [_, qv, vv] = point.hessians.kernels::<Mdl>(None);
        out.legendre((legendre_row, velocity), (&tab.b, h), (qv, vv));
        let holonomic = <Mdl as HolonomicKernels<T, D, M>>::PATTERNS;
        if evaluate {
            model.phi_qv(&it.q1, &it.v1, &mut point.matrix);
        }
        let gv = Kernel::new(&point.matrix, holonomic.map(|p| p.times_v));
        out.through_point(tangency, (&tab.b, h), gv, false);
        if evaluate {
            model.phi_q(&it.q1, &mut point.matrix);
        }
        let g = Kernel::new(&point.matrix, holonomic.map(|p| p.matrix));
        out.add((tangency, velocity), T::one(), g, false);
    }

    /// `q¹` and `p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ` (13a); the new state's `v` is `v¹`, the velocity
    /// at the new node (`D₂L(q¹, v¹) = p¹`, tangent to the constraints).
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
    ) -> Result<PhaseState<T, D>, SolveError<T>> {
        let it = Iterate::<T, S, D, M>::new(known, x);
        let w = self.point.forces(known, it.stages());
        Ok(PhaseState {
            t: known.t0 + known.h,
            q: it.q1,
            p: known.combine(known.p0, &w, &known.tableau.b_hat),
            v: it.v1,
        })
    }
}
