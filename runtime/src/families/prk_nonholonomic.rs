//! The nonholonomic partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair (Martín
//! de Diego, Sato Martín de Almagro, "High-order geometric methods for nonholonomic
//! mechanical systems", eqs. (14), App. D; spec 002 S4), assembled at run time from the
//! model's [`PointKernels`] and [`NonholonomicKernels`] for any number of stages `S`,
//! in the velocity form for any regular Lagrangian.
//!
//! Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)`, `N = S (2D + K)`; with
//! `Wʲ = D₁L(Qʲ, Vʲ) + A(Qʲ)ᵀ Λʲ` (14c), plus the generalized forces
//! `F(Qʲ, Vʲ, tₖ + cⱼ h)` of a `forces` block (spec `next_packages.md` §D.2; `F_q` joins
//! `K_qq` and `F_v` joins `D₁₂L` in `∂Wʲ/∂Vˡ` below), `Qⁱ = qₖ + h Σⱼ aᵢⱼ Vʲ` and
//! `pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ` (14d, the IIIA coefficients) the equations are, block by block
//! in the order of the unknowns,
//!
//! ```text
//! Rᵢ  = D₂L(Qⁱ, Vⁱ) − pₖ − h Σⱼ âᵢⱼ Wʲ      i = 1 … s     (14b, 14c)
//! C₁  = Λ¹ − λₖ,   Cᵢ = A(Qⁱ) vⁱ + a(Qⁱ)    i = 2 … s     (14e: Ψ(qⁱ, pⁱ) = 0)
//! Lᵢ  = D₂L(Qⁱ, vⁱ) − pⁱ                    i = 1 … s     (App. D: pⁱ = D₂L(qⁱ, vⁱ))
//! ```
//!
//! The spec's recommended solve (S4) takes `Λ²…Λˢ` and `v²…vˢ` as unknowns; `Λ¹` and
//! `v¹` are kept here with their trivial equations (`C₁`, and `L₁`, which is
//! `D₂L(qₖ, v¹) = pₖ` since `a₁ⱼ = 0`) so that every block has one per stage: two more
//! blocks of `K` and `D` for Newton, solved exactly in its first iteration. The
//! constraint at stage 1 holds already (`q¹ = qₖ`, `p¹ = pₖ`, a consistent state).
//! Outputs (14a): `qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ`, `pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ`, `vₖ₊₁ = vˢ`,
//! and `λₖ₊₁` (below).
//!
//! # The multiplier at the start of a step
//!
//! The paper's map is on `(q, p, λ)`: `λₖ₊₁ = Λˢ`, the next step's `Λ¹`
//! ([`Carried`], [`NonholonomicLobattoCarried`]). That map has a spurious mode, almost
//! pure `λ`, multiplied each step by `(−1)^(s−1) (1 + κh/(s−1))`: Lobatto IIIA's
//! `R_A(∞) = (−1)^(s−1)` times an `O(h)` factor of the model's (on the Chaplygin sleigh
//! `κ = m a u/(I + m a²)`, positive while it moves forward). Where `κ > 0` for long the
//! mode, seeded by `λ`'s `O(hᵖ)` error, grows until the trajectory is wrong: the sleigh
//! brakes and reverses, which the physical one never does (`tests/stages/sleigh.rs`,
//! docs/schemes.md). With [`Recomputed`] ([`NonholonomicLobatto`], the default) `Λ¹`
//! is the continuous multiplier at `(qₖ, vₖ, tₖ)` every step (spec 002 §2.2,
//! [`nonholonomic_multiplier`](crate::nonholonomic_multiplier)), whatever the state
//! carries: nothing is carried, so there is no mode; `q`, `p` keep the order `2s − 2`,
//! and the state's `λₖ₊₁`, the same formula at the new node, has it too. The map is
//! then not time-symmetric (a step back misses by `O(h^(s+2))`), and on reversible
//! systems its energy error grows slowly where the carried map's stays bounded.
//!
//! The exact Jacobian, with `K_qq(j) = D₁₁L(j) + ∂(A(q)ᵀ Λʲ)/∂q` at `(Qʲ, Vʲ)`:
//!
//! ```text
//! ∂Wʲ/∂Vˡ = h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j),   ∂Wʲ/∂Λʲ = A(Qʲ)ᵀ
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i) − h Σⱼ âᵢⱼ ∂Wʲ/∂Vˡ,   ∂Rᵢ/∂Λʲ = −h âᵢⱼ A(Qʲ)ᵀ
//! ∂Cᵢ/∂Vˡ = h aᵢₗ ∂(A(q) vⁱ + a(q))/∂q |Qⁱ,   ∂Cᵢ/∂vⁱ = A(Qⁱ),   ∂C₁/∂Λ¹ = I
//! ∂Lᵢ/∂Vˡ = h aᵢₗ D₂₁L(Qⁱ, vⁱ) − h Σⱼ aᵢⱼ ∂Wʲ/∂Vˡ,   ∂Lᵢ/∂Λʲ = −h aᵢⱼ A(Qʲ)ᵀ,
//! ∂Lᵢ/∂vⁱ = D₂₂L(Qⁱ, vⁱ)
//! ```
//!
//! assembled stage by stage over the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]) and factored along
//! the elimination plan `model!` hands the workspace when one pays
//! ([`with_plan`](super::stages::StageWorkspace::with_plan): `Λ¹`'s identity is a pivot
//! of its own, the later stages' multipliers have none), by the dense LU otherwise. With
//! the carried multiplier, a state without `λ` gets the multiplier of the continuous
//! equations at its `(q, v)` (spec 002 §4.8).
//!
//! The step, the workspace ([`PrkNonholonomicWorkspace`], an alias), Newton's system and
//! the plan are the stage skeleton's ([`super::stages`]). This module is the family's
//! part: `λₖ` (the state's, its [`StepStart`] impl, or recomputed), its layout, its kernel buffers
//! ([`Buffers`]: a constrained point of `families/point.rs` with `R = A`, and
//! `∂(A v)/∂q`) and, in their impl of [`StageEquations`], Newton's starting point, the
//! equations, the Jacobian above (a stage's rows through the shared `Stage::legendre`
//! and `Stage::force`, then `Cⱼ` and `Lⱼ`) and (14a).
use core::fmt::Debug;
use core::marker::PhantomData;

use nalgebra::SVector;

use super::blocks::{Assembly, Kernel};
use super::point::{Constrained, Nonholonomic};
use super::stages::{block, set_block, stage_velocities, Known, StageBuffers, StageEquations};
use super::stages::{StageWorkspace, StepStart};
use crate::error::SolveError;
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::{InputValues, Real};
use crate::schemes::{NonholonomicLobatto, NonholonomicLobattoCarried};
use crate::solve::Storage;
use crate::state::multiplier::multiplier;
use crate::state::NonholonomicState;

pub use super::papers_options as default_options;
pub use super::stages::{equations, step};

/// Memory of a step of [`NonholonomicLobatto`] (the recomputed multiplier): Newton's
/// workspace for the `N = S (2D + K)` unknowns, the tableau, and the kernel buffers,
/// every `D × D` matrix in storage `Z`.
#[rustfmt::skip]
pub type PrkNonholonomicWorkspace<T, const S: usize, const D: usize, const K: usize, const N: usize, Z> =
    StageWorkspace<T, Buffers<T, D, K, Z, Recomputed>, S, N, Z>;

/// Memory of a step of [`NonholonomicLobattoCarried`] (the paper's carried multiplier),
/// as [`PrkNonholonomicWorkspace`].
#[rustfmt::skip]
pub type PrkNonholonomicCarriedWorkspace<T, const S: usize, const D: usize, const K: usize, const N: usize, Z> =
    StageWorkspace<T, Buffers<T, D, K, Z, Carried>, S, N, Z>;

/// Where a step's first multiplier `Λ¹ = λₖ` comes from (module docs, "The multiplier
/// at the start of a step").
pub trait MultiplierRule: Clone + Copy + Debug + PartialEq + Default {
    /// The scheme marker of the family with this rule.
    type Scheme<const S: usize>;
    /// `true`: `λₖ` is the previous step's `Λˢ` (the paper's map on `(q, p, λ)`);
    /// `false`: the multiplier of the continuous equations at `(qₖ, vₖ, tₖ)`.
    const CARRIED: bool;
}

/// `λₖ` from the continuous equations at the step's start, every step
/// ([`NonholonomicLobatto`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recomputed;

/// `λₖ` carried from the previous step's `Λˢ`, as the paper's map
/// ([`NonholonomicLobattoCarried`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carried;

impl MultiplierRule for Recomputed {
    type Scheme<const S: usize> = NonholonomicLobatto<S>;
    const CARRIED: bool = false;
}

impl MultiplierRule for Carried {
    type Scheme<const S: usize> = NonholonomicLobattoCarried<S>;
    const CARRIED: bool = true;
}

/// The family's kernel buffers: the kernels of one point, with `A(q)` as the
/// constraint matrix, and `∂(A v)/∂q`; `R` is the rule for `λₖ`.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const D: usize, const K: usize, Z: Storage, R: MultiplierRule> {
    a_v_q: [[T; K]; D],
    point: Constrained<T, D, K, Z, Nonholonomic>,
    rule: PhantomData<R>,
}

/// Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)`: `N = S (2D + K)`.
impl<T: Real, const D: usize, const K: usize, Z: Storage, R: MultiplierRule> StageBuffers
    for Buffers<T, D, K, Z, R>
{
    const PER_STAGE: usize = 2 * D + K;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self {
            a_v_q: [[T::zero(); K]; D],
            point: Constrained::zeros(),
            rule: PhantomData,
        }
    }
}

/// `λₖ`: the state's, or from the continuous equations at its `(q, v)`; for
/// [`Step::equations`](crate::Step::equations), zero if that fails.
impl<T, Mdl, const D: usize, const K: usize, const Q: usize> StepStart<T, Mdl, D, Q>
    for NonholonomicState<T, D, K, Q>
where
    T: Real,
    Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
{
    type Extra = SVector<T, K>;
    fn extra(&self, model: &Mdl) -> Result<SVector<T, K>, SolveError<T>> {
        match self.lambda {
            Some(lambda) => Ok(lambda),
            // A state without `λ` (from `consistent`) at rest inputs.
            None => multiplier(model, (self.t, &InputValues::zeros()), &self.q, &self.v),
        }
    }
    fn extra_for_equations(&self, model: &Mdl) -> SVector<T, K> {
        self.extra(model).unwrap_or_else(|_| SVector::zeros())
    }
}

/// Where each block of the unknowns (and of the equations, in the same order) starts
/// (`Vⁱ` and `Rᵢ` at `i·D`, as in every family); the family on a group has the same.
pub(super) struct Layout<const S: usize, const D: usize, const K: usize>;

impl<const S: usize, const D: usize, const K: usize> Layout<S, D, K> {
    /// `Λⁱ` and `Cᵢ`.
    pub(super) const fn multiplier(i: usize) -> usize {
        S * D + i * K
    }
    /// `vⁱ` and `Lᵢ`.
    pub(super) const fn velocity(i: usize) -> usize {
        S * D + S * K + i * D
    }
}

/// `λₖ` by the rule `R`: carried, the state's (the continuous one if it has none);
/// recomputed, the continuous one at `(qₖ, vₖ, tₖ)` whatever the state carries, so that
/// no error of a previous step's `Λˢ` reaches this one (module docs). For both
/// nonholonomic families, in a vector space and on a group.
pub(super) fn start_multiplier<R, T, Mdl, const D: usize, const K: usize, const Q: usize>(
    model: &Mdl,
    state: &NonholonomicState<T, D, K, Q>,
    inputs: &[T],
) -> Result<SVector<T, K>, SolveError<T>>
where
    R: MultiplierRule,
    T: Real,
    Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
{
    if R::CARRIED {
        state.extra(model)
    } else {
        let u = Mdl::Inputs::from_slice(inputs).unwrap_or_else(Mdl::Inputs::zeros);
        multiplier(model, (state.t, &u), &state.q, &state.v)
    }
}

/// The known values of a step of the family: `(qₖ, pₖ)` and `λₖ`.
type Node<'a, T, Mdl, const S: usize, const D: usize, const K: usize> =
    Known<'a, T, Mdl, SVector<T, K>, S, D>;

/// The values an iterate determines: `Qⁱ`, `Vⁱ`, `Λⁱ`, `vⁱ`.
struct Iterate<T: Real, const S: usize, const D: usize, const K: usize> {
    q: [SVector<T, D>; S],
    v_stage: [SVector<T, D>; S],
    lambda: [SVector<T, K>; S],
    v: [SVector<T, D>; S],
}

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

    /// `Wʲ = D₁L(Qʲ, Vʲ) [+ F(Qʲ, Vʲ, t⁰ + cⱼ h)] + A(Qʲ)ᵀ Λʲ` (14c) of every stage.
    fn forces<Mdl, Z: Storage>(
        &self,
        node: &Node<'_, T, Mdl, S, D, K>,
        point: &mut Constrained<T, D, K, Z, Nonholonomic>,
    ) -> [SVector<T, D>; S]
    where
        Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    {
        point.forces(node, (&self.q, &self.v_stage, &self.lambda))
    }
}

impl<T, Mdl, Z, R, const S: usize, const D: usize, const K: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N> for Buffers<T, D, K, Z, R>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
    R: MultiplierRule,
{
    type Scheme = R::Scheme<S>;
    type Coefficients = crate::tableaux::PartitionedTableau<S>;
    type State = NonholonomicState<T, D, K>;

    /// `λₖ` by the family's rule (module docs, "The multiplier at the start of a step").
    fn start(
        model: &Mdl,
        state: &NonholonomicState<T, D, K>,
        inputs: &[T],
    ) -> Result<SVector<T, K>, SolveError<T>> {
        start_multiplier::<R, _, _, D, K, D>(model, state, inputs)
    }

    /// `Vⁱ = vⁱ = vₖ`, `Λⁱ = λₖ`.
    fn guess(
        node: &Node<'_, T, Mdl, S, D, K>,
        state: &NonholonomicState<T, D, K>,
        x: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        for i in 0..S {
            set_block(x, i * D, &state.v);
            set_block(x, L::<S, D, K>::velocity(i), &state.v);
            set_block(x, L::<S, D, K>::multiplier(i), &node.extra);
        }
    }

    /// The equations of the module docs, block by block.
    fn residual(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let (model, tab) = (node.model, node.tableau);
        let it = Iterate::<T, S, D, K>::new(node, x);
        let w = it.forces(node, &mut self.point);
        for i in 0..S {
            let qi = &it.q[i];
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − (pₖ + h Σⱼ âᵢⱼ Wʲ)
            let ri = model.l_v(qi, &it.v_stage[i]) - node.combine(node.p0, &w, &tab.a_hat[i]);
            // Lᵢ = D₂L(Qⁱ, vⁱ) − pⁱ, pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ
            let li = model.l_v(qi, &it.v[i]) - node.combine(node.p0, &w, &tab.a[i]);
            set_block(r, i * D, &ri);
            set_block(r, L::<S, D, K>::velocity(i), &li);
            // C₁ = Λ¹ − λₖ, Cᵢ = A(Qⁱ) vⁱ + a(Qⁱ)
            let ci = if i == 0 {
                it.lambda[0] - node.extra
            } else {
                model.a(qi, &mut self.point.matrix);
                let affine = model.affine(qi);
                SVector::from_fn(|row, _| {
                    let mut c = affine[row];
                    for k in 0..D {
                        c += self.point.matrix[k][row] * it.v[i][k];
                    }
                    c
                })
            };
            set_block(r, L::<S, D, K>::multiplier(i), &ci);
        }
    }

    /// Adds the Jacobian (module docs) to `out`, stage by stage, each kernel over its
    /// pattern ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]; every
    /// entry without one). In the pass that zeroes, it zeroes the entries it would add
    /// to instead, without evaluating the kernels.
    fn assemble(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        x: &SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let it = Iterate::<T, S, D, K>::new(node, x);
        let (model, h, tab) = (node.model, node.h, node.tableau);
        let p_av = <Mdl as NonholonomicKernels<T, D, K>>::PATTERNS.map(|p| p.times_v);
        let evaluate = out.adds();
        let Buffers { a_v_q, point, .. } = self;
        let u = node.inputs();
        for j in 0..S {
            let qj = &it.q[j];
            let (crow, vcol) = (L::<S, D, K>::multiplier(j), L::<S, D, K>::velocity(j));
            let at = (qj, &it.v_stage[j], &it.lambda[j]);
            let t = (node.stage_time(j), &u);
            let stage = point.stage(model, (j, &tab.a[j], h, t), at, crow, evaluate);
            // Row block Rⱼ: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j).
            stage.legendre(&mut out, j * D);
            // The rows Wʲ enters, `Rᵢ` with `âᵢⱼ` and `Lᵢ` with `aᵢⱼ`, weight g:
            // −h g (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)) on Vˡ, −h g A(Qʲ)ᵀ on Λʲ.
            for i in 0..S {
                stage.force(&mut out, i * D, tab.a_hat[i][j]);
            }
            for i in 0..S {
                stage.force(&mut out, L::<S, D, K>::velocity(i), tab.a[i][j]);
            }
            // Cⱼ: the identity on Λ¹ at j = 0; A(Qʲ) vʲ after: h aⱼₗ ∂(A vʲ)/∂q on Vˡ,
            // A(Qʲ) on vʲ.
            if j == 0 {
                out.identity(crow, K);
            } else if let Some((_, am)) = stage.multiplier {
                if evaluate {
                    model.a_v_q(qj, &it.v[j], a_v_q);
                }
                let av = Kernel::new(&*a_v_q, p_av);
                out.through_point(crow, (&tab.a[j], h), av, false);
                out.add((crow, vcol), T::one(), am, false);
            }
            // Lⱼ's D₂L(Qʲ, vʲ): h aⱼₗ D₂₁L on Vˡ, D₂₂L on vʲ.
            if evaluate {
                point.hessians.evaluate(model, (qj, &it.v[j]), false);
            }
            let [_, qv, vv] = point.hessians.kernels::<Mdl>(None);
            out.legendre((vcol, vcol), (&tab.a[j], h), (qv, vv));
        }
    }

    /// (14a): `qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ`, `pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ`, `vₖ₊₁ = vˢ`;
    /// `λₖ₊₁ = Λˢ` carried, the continuous multiplier at `(qₖ₊₁, vₖ₊₁, tₖ₊₁)` recomputed
    /// (of the order of `q` and `v`, where `Λˢ` has the paper's lower order (20c); `Λˢ`
    /// if that system is singular there, and the next step refuses the state).
    fn next_state(
        &mut self,
        node: &Node<'_, T, Mdl, S, D, K>,
        x: &SVector<T, N>,
    ) -> Result<NonholonomicState<T, D, K>, SolveError<T>> {
        let tab = node.tableau;
        let it = Iterate::<T, S, D, K>::new(node, x);
        let w = it.forces(node, &mut self.point);
        let (t, q, v) = (
            node.t0 + node.h,
            node.combine(node.q0, &it.v_stage, &tab.b),
            it.v[S - 1],
        );
        let lambda = if R::CARRIED {
            it.lambda[S - 1]
        } else {
            multiplier(node.model, (t, &node.inputs()), &q, &v).unwrap_or(it.lambda[S - 1])
        };
        Ok(NonholonomicState {
            t,
            q,
            p: node.combine(node.p0, &w, &tab.b_hat),
            v,
            lambda: Some(lambda),
        })
    }
}
