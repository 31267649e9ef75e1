//! The variational partitioned Runge–Kutta family on a Lie group (Martín de Diego, Sato
//! Martín de Almagro, "High-order geometric methods for nonholonomic mechanical
//! systems", Sec. 6.2, Thm 6.1, eqs. (23)–(27); App. F without constraints; spec
//! `next_packages.md` §A.4, scheme S5): the unconstrained Lobatto IIIA–IIIB family of
//! [`super::prk`] for a model whose configuration lives on a group `G` with a retraction
//! `τ` ([`Space`]), stored in `Q` numbers and moving in its algebra of dimension `D`.
//! A step moves `g` to `g · τ(ξ)`, never `g + h v`, so `g` stays on the group.
//!
//! Unknowns `X = (H¹ … Hˢ)` (`N = S·D`). With the model's left-trivialised kernels
//! (`ℓ_ζ = D₁L`, `ℓ_η = D₂L` and their derivatives, [`PointKernels`]) and the space's
//! maps `B(ξ) = d^L τ_ξ⁻¹`, `E(ξ, y) = ∂_ξ[B(ξ) y]` and `Ad`:
//!
//! ```text
//! Ξⁱ = h Σⱼ aᵢⱼ Hʲ,   ξ = h Σⱼ bⱼ Hʲ,   Gⁱ = g · τ(Ξⁱ),   ζⁱ = B(Ξⁱ)⁻¹ Hⁱ
//! Nⁱ = B(Ξⁱ)⁻ᵀ ℓ_ζ(Gⁱ, ζⁱ),   Πⁱ = B(Ξⁱ)⁻ᵀ ℓ_η(Gⁱ, ζⁱ),   Dⁱ = −E(Ξⁱ, ζⁱ)ᵀ Πⁱ
//! Rᵢ = B(ξ)ᵀ [Πⁱ + h Σⱼ cᵢⱼ Dʲ]
//!      − Ad_{τ(ξ)}ᵀ [μ + h Σⱼ bⱼ B(−Ξʲ)ᵀ Nʲ − h B(−ξ)ᵀ Σⱼ cᵢⱼ Nʲ]         (26)
//! g¹ = g · τ(ξ),   μ¹ = Ad_{τ(ξ)}ᵀ [μ + h Σⱼ bⱼ B(−Ξʲ)ᵀ Nʲ]                   (27)
//! ```
//!
//! with `cᵢⱼ = bⱼ aⱼᵢ / bᵢ`. In a vector space (`B = I`, `E = 0`, `Ad = I`) `Rᵢ` is
//! [`super::prk`]'s `D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ` (`âᵢⱼ = bⱼ (1 − aⱼᵢ/bᵢ)`), which
//! the tests check; that family, not this one, steps Euclidean models.
//!
//! The exact Jacobian by the chain rule (§A.4): with `Kʲ = B(Ξʲ)⁻¹`, `Eʲ = E(Ξʲ, ζʲ)`,
//! `M(ξ, m) = ∂_ξ(B(ξ)ᵀ m)` and `A(w) = ∂_u(ad_uᵀ w)`, every stage quantity `Xʲ` varies
//! as `∂Xʲ/∂Hˡ = h aⱼₗ X_Ξ(j) + δⱼₗ X_H(j)`, where
//!
//! ```text
//! ∂ζ/∂Ξ = −K E,   ∂ζ/∂H = K,   ∂f(G, ·)/∂Ξ = f_ζ K   (a kernel through G = g·τ(Ξ))
//! N_Ξ = −Kᵀ M(Ξ, N) + Kᵀ (ℓ_ζζ K − ℓ_ζη K E),    N_H = Kᵀ ℓ_ζη K
//! Π_Ξ = −Kᵀ M(Ξ, Π) + Kᵀ (ℓ_ηζ K − ℓ_ηη K E),    Π_H = Kᵀ ℓ_ηη K
//! D_Ξ = −(∂_ξ(EᵀΠ) − ∂_y(EᵀΠ) K E + Eᵀ Π_Ξ),      D_H = −(∂_y(EᵀΠ) K + Eᵀ Π_H)
//! ```
//!
//! (`ℓ_ηζ = ℓ_ζηᵀ`), and with `Yᵢ`, `Zᵢ` the brackets of (26) and `Sᵢ = Σⱼ cᵢⱼ Nʲ`:
//!
//! ```text
//! ∂Rᵢ/∂Hˡ = h bₗ [M(ξ, Yᵢ) − A(Ad_{τ(ξ)}ᵀ Zᵢ) B(ξ)⁻¹ − h Ad_{τ(ξ)}ᵀ M(−ξ, Sᵢ)]
//!          + B(ξ)ᵀ ∂Yᵢ/∂Hˡ − Ad_{τ(ξ)}ᵀ ∂Zᵢ/∂Hˡ|_Ξ
//! ∂Yᵢ/∂Hˡ = ∂Πⁱ/∂Hˡ + h Σⱼ cᵢⱼ ∂Dʲ/∂Hˡ
//! ∂Zᵢ/∂Hˡ|_Ξ = h Σⱼ bⱼ (−h aⱼₗ M(−Ξʲ, Nʲ) + B(−Ξʲ)ᵀ ∂Nʲ/∂Hˡ) − h B(−ξ)ᵀ Σⱼ cᵢⱼ ∂Nʲ/∂Hˡ
//! ```
//!
//! The groups are small (`D` of a rigid body and a few vector factors), so the blocks
//! are formed as `D × D` matrices on the stack and the Jacobian is dense: no plan.
//! Forces are not taken yet (a forced model does not compile against this family).
use core::marker::PhantomData;

use nalgebra::{ArrayStorage, SMatrix, SVector};

use super::blocks::{Assembly, Kernel};
use super::stages::StageWorkspace;
use super::stages::{set_block, stage_velocities, Known, StageBuffers, StageEquations};
use crate::error::SolveError;
use crate::kernels::PointKernels;
use crate::model::{Configuration, Real};
use crate::schemes::LobattoIIIAIIIB;
use crate::space::Space;
use crate::state::PhaseState;

pub use super::papers_options as default_options;
pub use super::stages::{equations, stage_system, step};

/// Memory of a step: Newton's workspace for the `N = S·D` unknowns and the tableau.
pub type PrkLieWorkspace<T, const S: usize, const D: usize, const Q: usize, const N: usize, K> =
    StageWorkspace<T, Buffers<T, D, Q>, S, N, K>;

/// The family's buffers: none (its blocks are formed on the stack); the type names the
/// sizes its [`StageEquations`] impl is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Buffers<T, const D: usize, const Q: usize>(PhantomData<T>);

/// Unknowns `X = (H¹, …, Hˢ)`: `N = S·D`.
impl<T: Real, const D: usize, const Q: usize> StageBuffers for Buffers<T, D, Q> {
    const PER_STAGE: usize = D;
    const AFTER_STAGES: usize = 0;
    fn zeros() -> Self {
        Self(PhantomData)
    }
}

pub(super) type Mat<T, const D: usize> = SMatrix<T, D, D>;
pub(super) type Vector<T, const D: usize> = SVector<T, D>;

/// A `D × D` matrix from a space map or a kernel that writes column storage.
pub(super) fn matrix<T: Real, const D: usize>(fill: impl FnOnce(&mut [[T; D]; D])) -> Mat<T, D> {
    let mut columns = [[T::zero(); D]; D];
    fill(&mut columns);
    Mat::from_data(ArrayStorage(columns))
}

/// The space of the model `Mdl`.
pub(super) type SpaceOf<Mdl, T, const D: usize, const Q: usize> =
    <Mdl as Configuration<T, D, Q>>::Space;

/// The values of one stage at an iterate, and what its Jacobian blocks read.
pub(super) struct StageValues<T: Real, const D: usize, const Q: usize> {
    /// `Ξʲ`, `Gʲ = g·τ(Ξʲ)`, `ζʲ`.
    pub xi: Vector<T, D>,
    pub g: Vector<T, Q>,
    pub zeta: Vector<T, D>,
    /// `Kʲ = B(Ξʲ)⁻¹`, `Eʲ = E(Ξʲ, ζʲ)`.
    pub k: Mat<T, D>,
    pub e: Mat<T, D>,
    /// `Nʲ`, `Πʲ`, `Dʲ`, and `B(−Ξʲ)ᵀ Nʲ`.
    pub n: Vector<T, D>,
    pub pi: Vector<T, D>,
    pub d: Vector<T, D>,
    pub n_back: Vector<T, D>,
}

/// The stage values at the unknowns `x`, `Nʲ` with the force `extra(j, Gʲ)` besides
/// `ℓ_ζ` (zero here, `A(Gʲ)ᵀ Λʲ` in the nonholonomic family on a group).
pub(super) fn stage_values<
    T,
    Mdl,
    X,
    const S: usize,
    const D: usize,
    const Q: usize,
    const N: usize,
>(
    known: &Known<'_, T, Mdl, X, S, D, Q>,
    x: &Vector<T, N>,
    extra: impl Fn(usize, &Vector<T, Q>) -> Vector<T, D>,
) -> [StageValues<T, D, Q>; S]
where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    let h_blocks: [Vector<T, D>; S] = stage_velocities(x);
    core::array::from_fn(|j| {
        let xi = known.combine(&Vector::zeros(), &h_blocks, &known.tableau.a[j]);
        let g = SpaceOf::<Mdl, T, D, Q>::retract(known.q0, &xi);
        let k = matrix(|out| SpaceOf::<Mdl, T, D, Q>::dtau(&xi, out));
        let zeta = k * h_blocks[j];
        let e = matrix(|out| SpaceOf::<Mdl, T, D, Q>::dtau_inv_derivative(&xi, &zeta, out));
        let n = k.tr_mul(&(known.model.l_q(&g, &zeta) + extra(j, &g)));
        let pi = k.tr_mul(&known.model.l_v(&g, &zeta));
        let d = -e.tr_mul(&pi);
        let back = matrix(|out| SpaceOf::<Mdl, T, D, Q>::dtau_inv(&-xi, out));
        let n_back = back.tr_mul(&n);
        StageValues {
            xi,
            g,
            zeta,
            k,
            e,
            n,
            pi,
            d,
            n_back,
        }
    })
}

/// What every row of (26) shares: `ξ`, `B(ξ)ᵀ`, `Ad_{τ(ξ)}ᵀ`, `B(−ξ)ᵀ` and
/// `Z⁰ = μ + h Σⱼ bⱼ B(−Ξʲ)ᵀ Nʲ`.
pub(super) struct Node<T: Real, const D: usize> {
    pub xi: Vector<T, D>,
    pub b_t: Mat<T, D>,
    pub ad_t: Mat<T, D>,
    pub back_t: Mat<T, D>,
    pub z0: Vector<T, D>,
}

pub(super) fn node<T, Mdl, X, const S: usize, const D: usize, const Q: usize, const N: usize>(
    known: &Known<'_, T, Mdl, X, S, D, Q>,
    x: &Vector<T, N>,
    stages: &[StageValues<T, D, Q>; S],
) -> Node<T, D>
where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    let xi = known.combine(&Vector::zeros(), &stage_velocities(x), &known.tableau.b);
    let n_back: [Vector<T, D>; S] = core::array::from_fn(|j| stages[j].n_back);
    Node {
        b_t: matrix(|out| SpaceOf::<Mdl, T, D, Q>::dtau_inv(&xi, out)).transpose(),
        ad_t: matrix(|out| SpaceOf::<Mdl, T, D, Q>::ad_tau(&xi, out)).transpose(),
        back_t: matrix(|out| SpaceOf::<Mdl, T, D, Q>::dtau_inv(&-xi, out)).transpose(),
        z0: known.combine(known.p0, &n_back, &known.tableau.b),
        xi,
    }
}

/// Row `i`'s brackets in (26): `Yᵢ = Πⁱ + h Σⱼ cᵢⱼ Dʲ`, `Sᵢ = Σⱼ cᵢⱼ Nʲ` and
/// `Zᵢ = Z⁰ − h B(−ξ)ᵀ Sᵢ`.
pub(super) fn brackets<T, Mdl, X, const S: usize, const D: usize, const Q: usize>(
    known: &Known<'_, T, Mdl, X, S, D, Q>,
    stages: &[StageValues<T, D, Q>; S],
    node: &Node<T, D>,
    i: usize,
) -> (Vector<T, D>, Vector<T, D>, Vector<T, D>)
where
    T: Real,
{
    let (tab, h) = (known.tableau, known.h);
    let (mut y, mut s_i) = (stages[i].pi, Vector::<T, D>::zeros());
    for (j, stage) in stages.iter().enumerate() {
        let c: T = nalgebra::convert(c_coefficient(&tab.b, &tab.a, i, j));
        y.axpy(h * c, &stage.d, T::one());
        s_i.axpy(c, &stage.n, T::one());
    }
    let z = node.z0 - node.back_t * s_i * h;
    (y, s_i, z)
}

/// `cᵢⱼ = bⱼ aⱼᵢ / bᵢ`.
pub(super) fn c_coefficient<const S: usize>(
    b: &[f64; S],
    a: &[[f64; S]; S],
    i: usize,
    j: usize,
) -> f64 {
    b[j] * a[j][i] / b[i]
}

/// The derivatives of one stage's quantities (module docs): `X_Ξ` and `X_H` for
/// `X = N, Π, D` and `B(−Ξ)ᵀ N` (which varies with `Ξ` through both factors:
/// `−M(−Ξ, N) + B(−Ξ)ᵀ N_Ξ`), and `B(−Ξ)ᵀ` itself.
pub(super) struct StageBlocks<T: Real, const D: usize> {
    pub n_xi: Mat<T, D>,
    pub n_h: Mat<T, D>,
    pub pi_xi: Mat<T, D>,
    pub pi_h: Mat<T, D>,
    pub d_xi: Mat<T, D>,
    pub d_h: Mat<T, D>,
    pub back_xi: Mat<T, D>,
    pub back_h: Mat<T, D>,
    pub back_t: Mat<T, D>,
}

/// The stage's [`StageBlocks`], `force_zeta` the left-trivialised derivative of a force
/// in `Nʲ` besides `ℓ_ζ` (`∂_s(A(G)ᵀ Λ) Lg(G)` in the nonholonomic family on a group),
/// which joins `ℓ_ζζ`.
pub(super) fn stage_blocks<T, Mdl, const D: usize, const Q: usize>(
    model: &Mdl,
    st: &StageValues<T, D, Q>,
    force_zeta: Option<Mat<T, D>>,
) -> StageBlocks<T, D>
where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    let mut l_zz = matrix(|o| model.l_qq(&st.g, &st.zeta, o));
    if let Some(f) = force_zeta {
        l_zz += f;
    }
    let l_ze = matrix(|o| model.l_qv(&st.g, &st.zeta, o));
    let l_ee = matrix(|o| model.l_vv(&st.g, &st.zeta, o));
    let m_n = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv_t_derivative(&st.xi, &st.n, o));
    let m_pi = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv_t_derivative(&st.xi, &st.pi, o));
    let (mut p_xi, mut p_y) = ([[T::zero(); D]; D], [[T::zero(); D]; D]);
    SpaceOf::<Mdl, T, D, Q>::dtau_inv_derivative_t_derivatives(
        &st.xi, &st.zeta, &st.pi, &mut p_xi, &mut p_y,
    );
    let (p_xi, p_y) = (
        Mat::from_data(ArrayStorage(p_xi)),
        Mat::from_data(ArrayStorage(p_y)),
    );
    let (k, e) = (st.k, st.e);
    let ke = k * e;
    let n_xi = k.transpose() * (l_zz * k - l_ze * ke - m_n);
    let n_h = k.transpose() * l_ze * k;
    let pi_xi = k.transpose() * (l_ze.transpose() * k - l_ee * ke - m_pi);
    let pi_h = k.transpose() * l_ee * k;
    let back_m = -matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv_t_derivative(&-st.xi, &st.n, o));
    let back_t = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv(&-st.xi, o)).transpose();
    StageBlocks {
        d_xi: -(p_xi - p_y * ke + e.transpose() * pi_xi),
        d_h: -(p_y * k + e.transpose() * pi_h),
        back_xi: back_t * n_xi + back_m,
        back_h: back_t * n_h,
        n_xi,
        n_h,
        pi_xi,
        pi_h,
        back_t,
    }
}

/// `∂Xʲ/∂Hˡ = h aⱼₗ X_Ξ(j) + δⱼₗ X_H(j)`.
pub(super) fn through<T: Real, const S: usize, const D: usize>(
    (a, h): (&[[f64; S]; S], T),
    (j, l): (usize, usize),
    xi_block: &Mat<T, D>,
    h_block: &Mat<T, D>,
) -> Mat<T, D> {
    let ajl: T = nalgebra::convert(a[j][l]);
    let mut m = xi_block * (h * ajl);
    if j == l {
        m += h_block;
    }
    m
}

/// The blocks `∂Rᵢ/∂Hˡ` of (26) (module docs) at rows `i·D`, columns `l·D`.
pub(super) fn momentum_rows<
    T,
    Mdl,
    X,
    const S: usize,
    const D: usize,
    const Q: usize,
    const N: usize,
>(
    known: &Known<'_, T, Mdl, X, S, D, Q>,
    stages: &[StageValues<T, D, Q>; S],
    node: &Node<T, D>,
    blocks: &[StageBlocks<T, D>; S],
    out: &mut Assembly<'_, T, N>,
) where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    let (tab, h) = (known.tableau, known.h);
    let c = |x: f64| -> T { nalgebra::convert(x) };
    let k_node = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau(&node.xi, o));
    for i in 0..S {
        let (y, s_i, z) = brackets(known, stages, node, i);
        let m_y = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv_t_derivative(&node.xi, &y, o));
        let a_z = matrix(|o| SpaceOf::<Mdl, T, D, Q>::ad_t_derivative(&(node.ad_t * z), o));
        let m_s = matrix(|o| SpaceOf::<Mdl, T, D, Q>::dtau_inv_t_derivative(&-node.xi, &s_i, o));
        // The terms through ξ, per unit of h bₗ.
        let through_xi = m_y - a_z * k_node - node.ad_t * m_s * h;
        for l in 0..S {
            let at = (&tab.a, h);
            let mut d_y = through(at, (i, l), &blocks[i].pi_xi, &blocks[i].pi_h);
            let mut d_z = Mat::<T, D>::zeros();
            let mut d_s = Mat::<T, D>::zeros();
            for (j, bj) in blocks.iter().enumerate() {
                let cij = c(c_coefficient(&tab.b, &tab.a, i, j));
                d_y += through(at, (j, l), &bj.d_xi, &bj.d_h) * (h * cij);
                d_z += through(at, (j, l), &bj.back_xi, &bj.back_h) * (h * c(tab.b[j]));
                d_s += through(at, (j, l), &bj.n_xi, &bj.n_h) * cij;
            }
            d_z -= node.back_t * d_s * h;
            let jac = through_xi * (h * c(tab.b[l])) + node.b_t * d_y - node.ad_t * d_z;
            out.add(
                (i * D, l * D),
                T::one(),
                Kernel::new(&jac.data.0, None),
                false,
            );
        }
    }
}

impl<T, Mdl, const S: usize, const D: usize, const Q: usize, const N: usize>
    StageEquations<T, Mdl, S, D, N, Q> for Buffers<T, D, Q>
where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    type Scheme = LobattoIIIAIIIB<S>;
    type Coefficients = crate::tableaux::PartitionedTableau<S>;
    type State = PhaseState<T, D, Q>;

    /// `Hⁱ = v`, the state's guess.
    fn guess(
        _: &Known<'_, T, Mdl, (), S, D, Q>,
        state: &PhaseState<T, D, Q>,
        x: &mut Vector<T, N>,
    ) {
        for i in 0..S {
            set_block(x, i * D, &state.v);
        }
    }

    /// `Rᵢ` of (26).
    fn residual(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D, Q>,
        x: &Vector<T, N>,
        r: &mut Vector<T, N>,
    ) {
        // Forces on a group enter `Nⁱ` as `B(Ξⁱ)⁻ᵀ F` (§D.2), not written yet: a forced
        // model is refused when the step is compiled, never integrated unforced.
        const {
            assert!(
                !<Mdl as PointKernels<T, D, Q>>::FORCED,
                "the Lobatto family on a group does not take forces yet"
            )
        };
        let stages = stage_values(known, x, |_, _| Vector::zeros());
        let node = node(known, x, &stages);
        for i in 0..S {
            let (y, _, z) = brackets(known, &stages, &node, i);
            set_block(r, i * D, &(node.b_t * y - node.ad_t * z));
        }
    }

    /// The exact Jacobian of (26) (module docs), dense.
    fn assemble(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D, Q>,
        x: &Vector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        let stages = stage_values(known, x, |_, _| Vector::zeros());
        let node = node(known, x, &stages);
        let blocks: [StageBlocks<T, D>; S] =
            core::array::from_fn(|j| stage_blocks(known.model, &stages[j], None));
        momentum_rows(known, &stages, &node, &blocks, &mut out);
    }

    /// `g¹ = g · τ(ξ)`, `μ¹ = Ad_{τ(ξ)}ᵀ Z⁰` (27), and the last stage's body velocity
    /// `ζˢ = B(ξ)⁻¹ Hˢ` as the next step's guess: `Hⁱ = ζ` is exact at the first stage
    /// (`Ξ¹ = 0`) and off by `O(h²|ζ|³)` after, where `Hˢ` itself is off by `O(h|ζ|²)`
    /// (a free body turning 1.5 rad a step diverged from it).
    fn next_state(
        &mut self,
        known: &Known<'_, T, Mdl, (), S, D, Q>,
        x: &Vector<T, N>,
    ) -> Result<PhaseState<T, D, Q>, SolveError<T>> {
        let stages = stage_values(known, x, |_, _| Vector::zeros());
        let node = node(known, x, &stages);
        Ok(PhaseState {
            t: known.t0 + known.h,
            q: SpaceOf::<Mdl, T, D, Q>::retract(known.q0, &node.xi),
            p: node.ad_t * node.z0,
            v: stages[S - 1].zeta,
        })
    }
}
