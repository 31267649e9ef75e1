//! The nonholonomic partitioned Runge–Kutta family on a Lie group (Martín de Diego, Sato
//! Martín de Almagro, "High-order geometric methods for nonholonomic mechanical
//! systems", Sec. 6.4 and App. F in its Lagrangian form; spec `next_packages.md` §A.4,
//! scheme S7): the Lobatto IIIA–IIIB family of [`super::prk_lie`] with constraints
//! `A(g) η + a(g) = 0` affine in the body velocity and their Chetaev force `A(g)ᵀ λ`,
//! for a model on a group `G` with a retraction `τ` ([`Space`]), stored in `Q` numbers
//! and moving in its algebra of dimension `D`.
//!
//! Unknowns `X = (H¹ … Hˢ, Λ¹ … Λˢ, η¹ … ηˢ)`, `N = S (2D + K)`, in the block order of
//! [`super::prk_nonholonomic`]. With [`super::prk_lie`]'s stage quantities (`Ξⁱ`, `ξ`,
//! `Gⁱ = g · τ(Ξⁱ)`, `ζⁱ = B(Ξⁱ)⁻¹ Hⁱ`, `Πⁱ`, `Dⁱ`), the Chetaev force joining `Nⁱ`:
//!
//! ```text
//! Nⁱ = B(Ξⁱ)⁻ᵀ [ℓ_ζ(Gⁱ, ζⁱ) + A(Gⁱ)ᵀ Λⁱ]
//! mⁱ = Ad_{τ(Ξⁱ)}ᵀ Pⁱ,   Pⁱ = μₖ + h Σⱼ aᵢⱼ B(−Ξʲ)ᵀ Nʲ         (IIIA stage momentum)
//! Rᵢ = (26) of super::prk_lie with these Nʲ                     i = 1 … s
//! C₁ = Λ¹ − λₖ,   Cᵢ = A(Gⁱ) ηⁱ + a(Gⁱ)                          i = 2 … s
//! Lᵢ = ℓ_η(Gⁱ, ηⁱ) − mⁱ                                         i = 1 … s
//! ```
//!
//! and the outputs `gₖ₊₁ = gₖ · τ(ξ)`, `μₖ₊₁ = mˢ = Ad_{τ(ξ)}ᵀ [μₖ + h Σⱼ bⱼ B(−Ξʲ)ᵀ Nʲ]`
//! (27), `ηₖ₊₁ = ηˢ`. `Ξ¹ = 0`, so `G¹ = gₖ`, `m¹ = μₖ` and the first stage's constraint
//! holds already: its rows are the trivial `C₁` and `L₁` (`ℓ_η(gₖ, η¹) = μₖ`), kept so
//! that every block has one per stage, as in the vector family. In a vector space
//! (`B = I`, `E = 0`, `Ad = I`) these are [`super::prk_nonholonomic`]'s equations, which
//! the tests check.
//!
//! The multiplier at a step's start is the vector family's rule ([`MultiplierRule`]):
//! [`Recomputed`] by default, the continuous `λ` at `(gₖ, ηₖ)` (spec §A.3, with the
//! Euler–Poincaré term `ad*_η ℓ_η`), and the paper's [`Carried`] `λₖ₊₁ = Λˢ` by name.
//!
//! The exact Jacobian, dense (the groups are small): the rows `Rᵢ` on `Hˡ` are
//! [`super::prk_lie`]'s, with `N_Ξ` taking `Kᵀ (Aᵀ Λ)_ζ K` (`(Aᵀ Λ)_ζ =
//! ∂_s(A(G)ᵀ Λ) Lg(G)`, [`NonholonomicKernels::a_t_lambda_q`]); with `N_Λ(j) = Kʲᵀ
//! A(Gʲ)ᵀ`, `Tʲ = B(−Ξʲ)ᵀ`, `Kⁱ = B(Ξⁱ)⁻¹`, `A(w) = ∂_u(ad_uᵀ w)` and
//! `∂Xʲ/∂Hˡ = h aⱼₗ X_Ξ(j) + δⱼₗ X_H(j)` as there,
//!
//! ```text
//! ∂Rᵢ/∂Λʲ = −h Ad_{τ(ξ)}ᵀ (bⱼ Tʲ − cᵢⱼ B(−ξ)ᵀ) N_Λ(j)
//! ∂Cᵢ/∂Hˡ = h aᵢₗ (Aη + a)_ζ(Gⁱ, ηⁱ) Kⁱ,   ∂Cᵢ/∂ηⁱ = A(Gⁱ),   ∂C₁/∂Λ¹ = I
//! ∂Lᵢ/∂Hˡ = h aᵢₗ (ℓ_ηζ(Gⁱ, ηⁱ) − A(mⁱ)) Kⁱ − Ad_{τ(Ξⁱ)}ᵀ h Σⱼ aᵢⱼ ∂(Tʲ Nʲ)/∂Hˡ
//! ∂Lᵢ/∂Λʲ = −h aᵢⱼ Ad_{τ(Ξⁱ)}ᵀ Tʲ N_Λ(j),   ∂Lᵢ/∂ηⁱ = ℓ_ηη(Gⁱ, ηⁱ)
//! ```
//!
//! (`ℓ_ηζ = ℓ_ζηᵀ`). Forces are not taken yet (a forced model does not compile against
//! this family), as in [`super::prk_lie`].
use core::marker::PhantomData;

use nalgebra::{ArrayStorage, SMatrix, SVector};

use super::blocks::{Assembly, Kernel};
use super::prk_lie::{self as lie, matrix, Mat, SpaceOf, StageBlocks, StageValues, Vector};
use super::stages::{block, set_block, Known, StageBuffers, StageEquations, StageWorkspace};
use crate::error::SolveError;
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::{Configuration, InputValues, Real};
use crate::space::Space;
use crate::state::multiplier::multiplier;
use crate::state::NonholonomicState;

pub use super::papers_options as default_options;
use super::prk_nonholonomic::{start_multiplier, Layout};
pub use super::prk_nonholonomic::{Carried, MultiplierRule, Recomputed};
pub use super::stages::{equations, step};

/// Memory of a step with the recomputed multiplier (the default): Newton's workspace for
/// the `N = S (2D + K)` unknowns and the tableau.
#[rustfmt::skip]
pub type PrkLieNonholonomicWorkspace<T, const S: usize, const D: usize, const K: usize, const Q: usize, const N: usize, Z> =
    StageWorkspace<T, Buffers<T, D, K, Q, Recomputed>, S, N, Z>;

/// Memory of a step with the paper's carried multiplier, as
/// [`PrkLieNonholonomicWorkspace`].
#[rustfmt::skip]
pub type PrkLieNonholonomicCarriedWorkspace<T, const S: usize, const D: usize, const K: usize, const Q: usize, const N: usize, Z> =
    StageWorkspace<T, Buffers<T, D, K, Q, Carried>, S, N, Z>;

/// The family's buffers: none (its blocks are formed on the stack); the type names the
/// sizes and the multiplier rule `R` its [`StageEquations`] impl is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Buffers<T, const D: usize, const K: usize, const Q: usize, R>(PhantomData<(T, R)>);

/// Unknowns `X = (H¹ … Hˢ, Λ¹ … Λˢ, η¹ … ηˢ)`: `N = S (2D + K)`.
impl<T, const D: usize, const K: usize, const Q: usize, R> StageBuffers for Buffers<T, D, K, Q, R>
where
    T: Real,
    R: MultiplierRule,
{
    const PER_STAGE: usize = 2 * D + K;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self(PhantomData)
    }
}

/// The known values of a step: `(gₖ, μₖ)` and `λₖ`.
type Node<'a, T, Mdl, const S: usize, const D: usize, const K: usize, const Q: usize> =
    Known<'a, T, Mdl, SVector<T, K>, S, D, Q>;

/// `A(g)`, `K × D`.
fn constraint_matrix<T, Mdl, const D: usize, const K: usize, const Q: usize>(
    model: &Mdl,
    g: &SVector<T, Q>,
) -> SMatrix<T, K, D>
where
    T: Real,
    Mdl: NonholonomicKernels<T, D, K, Q>,
{
    let mut columns = [[T::zero(); K]; D];
    model.a(g, &mut columns);
    SMatrix::from_data(ArrayStorage(columns))
}

/// What an iterate determines: the stage values with the Chetaev forces, the node's
/// shared terms, `Λⁱ` and `ηⁱ`.
struct Iterate<T: Real, const S: usize, const D: usize, const K: usize, const Q: usize> {
    stages: [StageValues<T, D, Q>; S],
    node: lie::Node<T, D>,
    lambda: [SVector<T, K>; S],
    eta: [SVector<T, D>; S],
}

impl<T: Real, const S: usize, const D: usize, const K: usize, const Q: usize>
    Iterate<T, S, D, K, Q>
{
    fn new<Mdl, const N: usize>(known: &Node<'_, T, Mdl, S, D, K, Q>, x: &SVector<T, N>) -> Self
    where
        Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
    {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let lambda: [SVector<T, K>; S] =
            core::array::from_fn(|i| block(x, L::<S, D, K>::multiplier(i)));
        let chetaev = |j: usize, g: &SVector<T, Q>| {
            constraint_matrix::<T, Mdl, D, K, Q>(known.model, g).tr_mul(&lambda[j])
        };
        let stages = lie::stage_values(known, x, chetaev);
        Iterate {
            node: lie::node(known, x, &stages),
            stages,
            lambda,
            eta: core::array::from_fn(|i| block(x, L::<S, D, K>::velocity(i))),
        }
    }

    /// `Ad_{τ(Ξⁱ)}ᵀ` and `Pⁱ = μₖ + h Σⱼ aᵢⱼ B(−Ξʲ)ᵀ Nʲ`, so that `mⁱ = Ad_{τ(Ξⁱ)}ᵀ Pⁱ`.
    fn stage_momentum<Mdl>(
        &self,
        known: &Node<'_, T, Mdl, S, D, K, Q>,
        i: usize,
    ) -> (Mat<T, D>, Vector<T, D>)
    where
        Mdl: Configuration<T, D, Q>,
    {
        let n_back: [Vector<T, D>; S] = core::array::from_fn(|j| self.stages[j].n_back);
        let ad_t = matrix(|o| SpaceOf::<Mdl, T, D, Q>::ad_tau(&self.stages[i].xi, o)).transpose();
        (ad_t, known.combine(known.p0, &n_back, &known.tableau.a[i]))
    }
}

impl<T, Mdl, R, const S: usize, const D: usize, const K: usize, const Q: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N, Q> for Buffers<T, D, K, Q, R>
where
    T: Real,
    Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
    R: MultiplierRule,
{
    type Scheme = R::Scheme<S>;
    type Coefficients = crate::tableaux::PartitionedTableau<S>;
    type State = NonholonomicState<T, D, K, Q>;

    /// `λₖ` by the family's rule, as in the vector family (the continuous `λ` at
    /// `(gₖ, ηₖ, tₖ)` on the group when recomputed).
    fn start(
        model: &Mdl,
        state: &NonholonomicState<T, D, K, Q>,
        inputs: &[T],
    ) -> Result<SVector<T, K>, SolveError<T>> {
        start_multiplier::<R, _, _, D, K, Q>(model, state, inputs)
    }

    /// `Hⁱ = ηⁱ = ηₖ`, `Λⁱ = λₖ`.
    fn guess(
        known: &Node<'_, T, Mdl, S, D, K, Q>,
        state: &NonholonomicState<T, D, K, Q>,
        x: &mut SVector<T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        for i in 0..S {
            set_block(x, i * D, &state.v);
            set_block(x, L::<S, D, K>::multiplier(i), &known.extra);
            set_block(x, L::<S, D, K>::velocity(i), &state.v);
        }
    }

    /// The equations of the module docs, block by block.
    fn residual(
        &mut self,
        known: &Node<'_, T, Mdl, S, D, K, Q>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        const {
            assert!(
                !<Mdl as PointKernels<T, D, Q>>::FORCED,
                "the nonholonomic family on a group does not take forces yet"
            )
        };
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let model = known.model;
        let it = Iterate::new(known, x);
        for i in 0..S {
            let (y, _, z) = lie::brackets(known, &it.stages, &it.node, i);
            set_block(r, i * D, &(it.node.b_t * y - it.node.ad_t * z));
            let g = &it.stages[i].g;
            let ci = if i == 0 {
                it.lambda[0] - known.extra
            } else {
                constraint_matrix::<T, Mdl, D, K, Q>(model, g) * it.eta[i] + model.affine(g)
            };
            set_block(r, L::<S, D, K>::multiplier(i), &ci);
            let (ad_t, p) = it.stage_momentum(known, i);
            let li = model.l_v(g, &it.eta[i]) - ad_t * p;
            set_block(r, L::<S, D, K>::velocity(i), &li);
        }
    }

    /// The exact Jacobian (module docs), dense.
    fn assemble(
        &mut self,
        known: &Node<'_, T, Mdl, S, D, K, Q>,
        x: &SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let (model, tab, h) = (known.model, known.tableau, known.h);
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let it = Iterate::new(known, x);
        let blocks: [StageBlocks<T, D>; S] = core::array::from_fn(|j| {
            let st = &it.stages[j];
            let force = matrix(|o| model.a_t_lambda_q(&st.g, &it.lambda[j], o));
            lie::stage_blocks(model, st, Some(force))
        });
        lie::momentum_rows(known, &it.stages, &it.node, &blocks, &mut out);
        // A(Gʲ) once per stage, for N_Λ(j) = Kʲᵀ A(Gʲ)ᵀ and the rows Cⱼ.
        let a: [SMatrix<T, K, D>; S] =
            core::array::from_fn(|j| constraint_matrix::<T, Mdl, D, K, Q>(model, &it.stages[j].g));
        let n_lambda: [SMatrix<T, D, K>; S] =
            core::array::from_fn(|j| it.stages[j].k.transpose() * a[j].transpose());
        for i in 0..S {
            for (j, (bj, n_l)) in blocks.iter().zip(&n_lambda).enumerate() {
                let cij = c(lie::c_coefficient(&tab.b, &tab.a, i, j));
                let weight = bj.back_t * c(tab.b[j]) - it.node.back_t * cij;
                let jac = -(it.node.ad_t * weight * n_l) * h;
                let column = L::<S, D, K>::multiplier(j);
                out.add(
                    (i * D, column),
                    T::one(),
                    Kernel::new(&jac.data.0, None),
                    false,
                );
            }
        }
        for (i, (st, a_i)) in it.stages.iter().zip(&a).enumerate() {
            let (crow, vcol) = (L::<S, D, K>::multiplier(i), L::<S, D, K>::velocity(i));
            // Cᵢ: the identity on Λ¹; h aᵢₗ (Aη + a)_ζ Kⁱ on Hˡ and A(Gⁱ) on ηⁱ after.
            if i == 0 {
                out.identity(crow, K);
            } else {
                let mut phi_zeta = [[T::zero(); K]; D];
                model.a_v_q(&st.g, &it.eta[i], &mut phi_zeta);
                let phi_zeta = SMatrix::<T, K, D>::from_data(ArrayStorage(phi_zeta)) * st.k;
                for l in 0..S {
                    let jac = phi_zeta * (h * c(tab.a[i][l]));
                    out.add(
                        (crow, l * D),
                        T::one(),
                        Kernel::new(&jac.data.0, None),
                        false,
                    );
                }
                out.add(
                    (crow, vcol),
                    T::one(),
                    Kernel::new(&a_i.data.0, None),
                    false,
                );
            }
            // Lᵢ = ℓ_η(Gⁱ, ηⁱ) − Ad_{τ(Ξⁱ)}ᵀ Pⁱ.
            let (ad_t, p) = it.stage_momentum(known, i);
            let l_eta_zeta = matrix(|o| model.l_qv(&st.g, &it.eta[i], o)).transpose() * st.k;
            let coadjoint =
                matrix(|o| SpaceOf::<Mdl, T, D, Q>::ad_t_derivative(&(ad_t * p), o)) * st.k;
            for l in 0..S {
                let mut dp = Mat::<T, D>::zeros();
                for (j, bj) in blocks.iter().enumerate() {
                    let term = lie::through((&tab.a, h), (j, l), &bj.back_xi, &bj.back_h);
                    dp += term * (h * c(tab.a[i][j]));
                }
                let jac = (l_eta_zeta - coadjoint) * (h * c(tab.a[i][l])) - ad_t * dp;
                out.add(
                    (vcol, l * D),
                    T::one(),
                    Kernel::new(&jac.data.0, None),
                    false,
                );
            }
            for (j, (bj, n_l)) in blocks.iter().zip(&n_lambda).enumerate() {
                let jac = -(ad_t * bj.back_t * n_l) * (h * c(tab.a[i][j]));
                let column = L::<S, D, K>::multiplier(j);
                out.add(
                    (vcol, column),
                    T::one(),
                    Kernel::new(&jac.data.0, None),
                    false,
                );
            }
            let l_ee = matrix(|o| model.l_vv(&st.g, &it.eta[i], o));
            out.add(
                (vcol, vcol),
                T::one(),
                Kernel::new(&l_ee.data.0, None),
                false,
            );
        }
    }

    /// `gₖ₊₁ = gₖ · τ(ξ)`, `μₖ₊₁ = Ad_{τ(ξ)}ᵀ Z⁰` (27), `ηₖ₊₁ = ηˢ`; `λₖ₊₁ = Λˢ` carried,
    /// the continuous multiplier at `(gₖ₊₁, ηₖ₊₁, tₖ₊₁)` recomputed (`Λˢ` if that system
    /// is singular there, and the next step refuses the state).
    fn next_state(
        &mut self,
        known: &Node<'_, T, Mdl, S, D, K, Q>,
        x: &SVector<T, N>,
    ) -> Result<NonholonomicState<T, D, K, Q>, SolveError<T>> {
        let it = Iterate::new(known, x);
        let t = known.t0 + known.h;
        let q = SpaceOf::<Mdl, T, D, Q>::retract(known.q0, &it.node.xi);
        let v = it.eta[S - 1];
        let lambda = if R::CARRIED {
            it.lambda[S - 1]
        } else {
            let u = Mdl::Inputs::from_slice(known.inputs).unwrap_or_else(Mdl::Inputs::zeros);
            multiplier(known.model, (t, &u), &q, &v).unwrap_or(it.lambda[S - 1])
        };
        Ok(NonholonomicState {
            t,
            q,
            p: it.node.ad_t * it.node.z0,
            v,
            lambda: Some(lambda),
        })
    }
}
