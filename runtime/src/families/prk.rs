//! The variational partitioned Runge–Kutta family (Martín de Diego, Sato Martín de
//! Almagro, "High-order geometric methods for nonholonomic mechanical systems"; spec
//! 002), assembled at run time from the model's [`PointKernels`] and a cited tableau,
//! for any number of stages `S`. Nothing about it is emitted per stage count: `model!`
//! emits the kernels once and an impl of `Step` that calls [`step`] with the sizes.
//!
//! Unconstrained scheme S1 (eq. (9)), unknowns `X = (V¹, …, Vˢ)` (`N = S·D`):
//!
//! ```text
//! Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ,   Wⁱ = D₁L(Qⁱ, Vⁱ) + F(Qⁱ, Vⁱ, t⁰ + cᵢ h),
//! Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ
//! q¹ = q⁰ + h Σⱼ bⱼ Vʲ,    p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ
//! ```
//!
//! with the generalized forces `F` of a `forces` block at the stage times (`cᵢ`, the
//! Lobatto IIIA nodes): the discrete Lagrange–d'Alembert principle (spec
//! `next_packages.md` §D.2), of order `2s − 2` for smooth `F`; `F = 0` without forces, and
//! then nothing of it is evaluated ([`PointKernels::FORCED`]). Its exact block Jacobian
//! (spec 002 S1):
//!
//! ```text
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i)
//!           − h Σⱼ âᵢⱼ (h aⱼₗ (D₁₁L(j) + F_q(j)) + δⱼₗ (D₁₂L(j) + F_v(j)))
//! ```
//!
//! assembled stage by stage: the kernels of stage `j` are evaluated once, into stage
//! `j`'s `D × D` buffers of the workspace, and scattered into every block they enter.
//! With a residual at the same iterate (Newton's iterations with a fresh Jacobian) it is
//! one pass over the stages, each stage's kernels from one emitted call
//! ([`PointKernels::derivatives`]).
//!
//! The new momentum `p¹` takes the stage forces `Wʲ` of Newton's last residual,
//! continued to the solution through those buffers (`Buffers::continued`): no kernel is
//! evaluated at the solution, and the terms left out are the size of the error Newton's
//! last update leaves (round-off, `tests/stages/prk.rs`).
//!
//! Its pattern is the kernels' patterns placed by the tableau's structural zeros
//! (`a₁ₗ = 0` in IIIA, `âᵢₛ = 0` in IIIB), which `model!` knows for each declared stage
//! count. Where an elimination plan of that pattern costs at most a sixteenth of the
//! dense LU's multiply–adds (a model of many bodies, whose second derivatives couple few
//! coordinates), it hands the plan to the workspace
//! ([`with_plan`](super::stages::StageWorkspace::with_plan)) and Newton factors along it
//! ([`crate::solve::sparse::factor`], table-driven: nothing is emitted per stage
//! count), falling back to the dense LU when a pivot fails its test.
//! The assembly visits only the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`]), and with a plan zeroes only those first.
//!
//! The step, the workspace ([`PrkWorkspace`], an alias), Newton's system and the plan are
//! the stage skeleton's ([`super::stages`]). This module is the family's part: its
//! kernel buffers ([`Buffers`]) and, in their impl of [`StageEquations`], Newton's
//! starting point, `R`, the assembly above (the row blocks through the shared
//! `Stage::legendre` and `Stage::force` of `families/blocks.rs`) and `(q¹, p¹)`.
use nalgebra::SVector;

use super::blocks::{Assembly, Stage};
use super::point::Hessians;
use super::stages::StageWorkspace;
use super::stages::{
    extrapolate_stages, set_block, stage_velocities, Known, StageBuffers, StageEquations,
};
use crate::error::SolveError;
use crate::kernels::PointKernels;
use crate::model::Real;
use crate::schemes::LobattoIIIAIIIB;
use crate::solve::Storage;
use crate::state::PhaseState;

pub use super::stages::predicted_options as default_options;
pub use super::stages::{equations, stage_system, step};

/// Memory of a step of the family: Newton's workspace for the `N = S·D` stage
/// velocities, the tableau, and the kernel buffers, every matrix in storage `K`.
pub type PrkWorkspace<T, const S: usize, const D: usize, const N: usize, K> =
    StageWorkspace<T, Buffers<T, S, D, K>, S, N, K>;

/// The family's kernel buffers: `D₁₁L`, `D₁₂L`, `D₂₂L` (and the forces' `F_q`, `F_v`)
/// of every stage, from the last Jacobian assembled (`5·S` matrices of `D × D` in
/// storage `K`), and the stage velocities and forces of the last residual: the iterates
/// `next_state` continues from.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<T: Real, const S: usize, const D: usize, K: Storage> {
    hessians: [Hessians<T, D, K>; S],
    /// Whether `hessians` were evaluated since the last `next_state`.
    assembled: bool,
    /// `(Vʲ, Wʲ)` of the last residual since the last `next_state`.
    last: Option<StageForces<T, S, D>>,
}

/// The stage velocities `Vʲ` of an iterate and the stage forces `Wʲ` there.
type StageForces<T, const S: usize, const D: usize> = ([SVector<T, D>; S], [SVector<T, D>; S]);

/// Unknowns `X = (V¹, …, Vˢ)`: `N = S·D`.
impl<T: Real, const S: usize, const D: usize, K: Storage> StageBuffers for Buffers<T, S, D, K> {
    const PER_STAGE: usize = D;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self {
            hessians: core::array::from_fn(|_| Hessians::zeros()),
            assembled: false,
            last: None,
        }
    }
}

impl<T: Real, const S: usize, const D: usize, K: Storage> Buffers<T, S, D, K> {
    /// Stage `j`'s forces' derivatives at `(q, v)`, into the buffers (nothing without
    /// forces).
    #[inline(always)]
    fn evaluate_forces<Mdl: PointKernels<T, D>>(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        j: usize,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
    ) {
        let (t, u) = (known.stage_time(j), known.inputs());
        self.hessians[j].evaluate_forces(known.model, (t, &u), (q, v));
    }

    /// Stage `j`'s terms of the Jacobian (module docs), from the buffers, added into
    /// every block they enter (or those entries zeroed).
    #[inline(always)]
    fn add_stage<Mdl: PointKernels<T, D>, const N: usize>(
        &self,
        known: &Known<'_, T, Mdl, (), S, D>,
        j: usize,
        out: &mut Assembly<'_, T, N>,
    ) {
        let (h, tab) = (known.h, known.tableau);
        let hessians = &self.hessians[j];
        let [qq, qv, vv] = hessians.kernels::<Mdl>(Mdl::PATTERNS.map(|p| p.l_qq));
        let stage: Stage<'_, T, D, 0, S> = Stage {
            j,
            a_j: &tab.a[j],
            h,
            qq,
            qv,
            vv,
            multiplier: None,
            forcing: hessians.forcing::<Mdl>(),
        };
        // Row block j: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j), D₂₁L = D₁₂Lᵀ.
        stage.legendre(out, j * D);
        // Every row block i: −h âᵢⱼ ∂Wʲ/∂Vˡ = −h âᵢⱼ (h aⱼₗ D₁₁L(j) + δⱼₗ D₁₂L(j)).
        for i in 0..S {
            stage.force(out, i * D, tab.a_hat[i][j]);
        }
    }

    /// The stage forces at the stage velocities `v` from `(Vʲ, Wʲ)` of the last
    /// residual, to first order through the kernels of the last Jacobian:
    ///
    /// ```text
    /// Wʲ(v) = Wʲ + (D₁₁L(j) + F_q(j)) δQʲ + (D₁₂L(j) + F_v(j)) δVʲ,
    /// δVʲ = vʲ − Vʲ,   δQʲ = h Σₗ aⱼₗ δVˡ
    /// ```
    ///
    /// `v` is Newton's last update from that residual (`δV`, at most the tolerance over
    /// the Jacobian's scale), so the terms left out, `O(|δV| (|δV| + |V − X_J|))` with
    /// `X_J` the Jacobian's iterate, are the size of the error the update itself leaves
    /// in `v` (it is made with that Jacobian): round-off in a converged step. Five
    /// evaluations of `D₁L` saved (a twentieth of a stage step at `s = 5` on the double
    /// pendulum, `docs/performance.md`).
    fn continued<Mdl: PointKernels<T, D>>(
        &self,
        known: &Known<'_, T, Mdl, (), S, D>,
        (last_v, last_w): StageForces<T, S, D>,
        v: &[SVector<T, D>; S],
    ) -> [SVector<T, D>; S] {
        let dv: [SVector<T, D>; S] = core::array::from_fn(|j| v[j] - last_v[j]);
        let qq_pattern = Mdl::PATTERNS.map(|p| p.l_qq);
        core::array::from_fn(|j| {
            let dq = known.combine(&SVector::zeros(), &dv, &known.tableau.a[j]);
            let hessians = &self.hessians[j];
            let [qq, qv, _] = hessians.kernels::<Mdl>(qq_pattern);
            let mut w = last_w[j];
            qq.add_times(&dq, &mut w);
            qv.add_times(&dv[j], &mut w);
            if let Some([f_q, f_v]) = hessians.forcing::<Mdl>() {
                f_q.add_times(&dq, &mut w);
                f_v.add_times(&dv[j], &mut w);
            }
            w
        })
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

impl<T: Real, Mdl, K: Storage, const S: usize, const D: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N> for Buffers<T, S, D, K>
where
    Mdl: PointKernels<T, D>,
{
    type Scheme = LobattoIIIAIIIB<S>;
    type Coefficients = crate::tableaux::PartitionedTableau<S>;
    type State = PhaseState<T, D>;

    /// `Vⁱ = v`, the state's guess.
    fn guess(_: &Known<'_, T, Mdl, (), S, D>, state: &PhaseState<T, D>, x: &mut SVector<T, N>) {
        for i in 0..S {
            set_block(x, i * D, &state.v);
        }
    }

    /// The last step's stage velocities continued: `Vⁱ = Σⱼ E[i][j] Vʲ_previous`.
    fn predict(
        _: &Known<'_, T, Mdl, (), S, D>,
        e: &[[f64; S]; S],
        previous: &SVector<T, N>,
        x: &mut SVector<T, N>,
    ) {
        extrapolate_stages(e, previous, x, (0, D));
    }

    /// `Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ`, `Wʲ = D₁L(Qʲ, Vʲ)`.
    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        let model = known.model;
        let (q, v) = stages(known, x);
        // Both kernels of a stage in one call ([`PointKernels::l_q_and_l_v`]), near the
        // last Jacobian's point ([`PointKernels::l_q_and_l_v_near`]).
        let mut l_v = [SVector::zeros(); S];
        let w: [SVector<T, D>; S] = core::array::from_fn(|j| {
            let (l_q, l_vj) = self.hessians[j].first_near(model, (&q[j], &v[j]));
            l_v[j] = l_vj;
            known.with_forces(j, (&q[j], &v[j]), l_q)
        });
        for (i, l_v) in l_v.into_iter().enumerate() {
            let ri = known.legendre_minus_forces(l_v, &w, i);
            set_block(r, i * D, &ri);
        }
        self.last = Some((v, w));
    }

    /// The stage Jacobian's terms (module docs), stage by stage: the kernels of stage
    /// `j` are evaluated once and added, each over its pattern ([`PointKernels::PATTERNS`],
    /// every entry without one), into every block they enter.
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        let (q, v) = stages(known, x);
        for j in 0..S {
            if out.adds() {
                self.hessians[j].evaluate(known.model, (&q[j], &v[j]), true);
                self.evaluate_forces(known, j, (&q[j], &v[j]));
            }
            self.add_stage(known, j, &mut out);
        }
        self.assembled |= out.adds();
    }

    /// One pass over the stages: stage `j`'s `D₁L`, `D₂L` and second derivatives in one
    /// call ([`PointKernels::derivatives`], their common terms computed once), then its
    /// blocks.
    fn residual_and_assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        let (q, v) = stages(known, x);
        let mut l_v = [SVector::zeros(); S];
        let mut w = [SVector::zeros(); S];
        for j in 0..S {
            let (l_q, l_vj) = match (j, self.hessians.split_last_mut()) {
                // Stage 1 from the anchors of the last pass's stage `s`: with Lobatto's
                // nodes the last step's end, `q⁰` to within Newton's last update.
                (0, Some((last, [first, ..]))) => {
                    first.evaluate_with_first_near(known.model, (&q[0], &v[0]), last)
                }
                _ => self.hessians[j].evaluate_with_first(known.model, (&q[j], &v[j])),
            };
            self.evaluate_forces(known, j, (&q[j], &v[j]));
            // Stored before the blocks are added: the values the residual reads are then
            // computed where the second derivatives are (not moved past the
            // assembly's loops), and `sin` and `cos` of an angle become one `sincos`.
            (l_v[j], w[j]) = (l_vj, known.with_forces(j, (&q[j], &v[j]), l_q));
            self.add_stage(known, j, &mut out);
        }
        for (i, l_v) in l_v.into_iter().enumerate() {
            let ri = known.legendre_minus_forces(l_v, &w, i);
            set_block(r, i * D, &ri);
        }
        (self.assembled, self.last) = (true, Some((v, w)));
    }

    /// `q¹ = q⁰ + h Σⱼ bⱼ Vʲ`, `p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ`, and `Vˢ` as the next step's guess.
    ///
    /// `Wʲ` at Newton's solution is continued from the last residual's, whose update
    /// gave the solution, by the stage Jacobian's kernels (`Buffers::continued`): no
    /// kernel is evaluated again. Without both (a caller that did not solve), the
    /// kernels are evaluated at the solution.
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D>,
        x: &SVector<T, N>,
    ) -> Result<PhaseState<T, D>, SolveError<T>> {
        let (h, tableau) = (known.h, known.tableau);
        let v = stage_velocities(x);
        let w = match (self.last.take(), core::mem::take(&mut self.assembled)) {
            (Some(last), true) => self.continued(known, last, &v),
            _ => {
                let q = known.stage_positions(&v);
                core::array::from_fn(|j| known.lagrangian_force(j, &q[j], &v[j]))
            }
        };
        let (mut q1, mut p1) = (*known.q0, *known.p0);
        for j in 0..S {
            let b: T = nalgebra::convert(tableau.b[j]);
            let b_hat: T = nalgebra::convert(tableau.b_hat[j]);
            q1.axpy(h * b, &v[j], T::one());
            p1.axpy(h * b_hat, &w[j], T::one());
        }
        Ok(PhaseState {
            t: known.t0 + h,
            q: q1,
            p: p1,
            v: v[S - 1],
        })
    }
}
