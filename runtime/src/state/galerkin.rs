//! The state of the Galerkin family (Wenger, Ober-Blöbaum, Leyendecker, seed
//! `003_7c34c28b0df0e267.txt`; spec `next_packages.md` §B.4): what the next step needs,
//! the carried momentum `p̃ₖ`, and what a user reads at the node, the projected momentum
//! `ℙ p̃ₖ`, its velocity and the multiplier of the continuous equations (70).
use nalgebra::SVector;

use crate::error::InitError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::{InputValues, Real};
use crate::state::multiplier::holonomic_multiplier;
use crate::state::{FromNode, NodeState, NodeValues};

/// `(q, ℙp̃, v, λ)` at a time node, with the carried momentum `p̃` the next step starts
/// from and the paper's lagged values of the node before.
///
/// The scheme's own momentum at node `k` is `p̃ₖ = ∂_s L_d` of the step that ended there;
/// it has a component normal to the constraints, so `G M⁻¹ p̃ₖ ≠ 0`. The paper's node
/// momentum `pₖ⁰ = p̃ₖ − h e₁ G(qₖ)ᵀ λₖ⁰` and multiplier `λₖ⁰` need the next step's
/// unknown `λₖ⁰`, so they are known one step late ([`lagged`](Self::lagged)). What the
/// state reports instead is available at once: `p = ℙ(q) p̃` (eq. (4), `ℙ Gᵀ = 0`, so the
/// same as `ℙ pₖ⁰`), tangent to the constraints, and `λ` from the continuous equations at
/// `(q, v)` (eq. (70)). With them the paper states `ord(p) = ord(λ) = ord(q)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GalerkinState<T: Real, const D: usize, const M: usize> {
    /// Time `tₖ`.
    pub t: T,
    /// Positions `qₖ`.
    pub q: SVector<T, D>,
    /// The projected momentum `ℙ(qₖ) p̃ₖ = D₂L(qₖ, vₖ)`.
    pub p: SVector<T, D>,
    /// The node velocity `vₖ`: `D₂L(qₖ, vₖ) = pₖ`, `G(qₖ) vₖ = 0`.
    pub v: SVector<T, D>,
    /// The multiplier of the continuous equations at `(qₖ, vₖ)` (70), with the sign of
    /// `L − g·λ`.
    pub lambda: SVector<T, M>,
    /// The carried momentum `p̃ₖ` (equal to `p` at an initial state).
    pub p_tilde: SVector<T, D>,
    /// The paper's `(pₖ₋₁⁰, λₖ₋₁⁰)` of the node before, known after the step that left
    /// it; `None` at an initial state, whose next step is the first (`ω₀ = 1`).
    pub lagged: Option<Lagged<T, D, M>>,
}

/// The paper's node momentum and multiplier of a node, known one step late.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lagged<T: Real, const D: usize, const M: usize> {
    /// `pₖ⁰ = p̃ₖ − h e₁ G(qₖ)ᵀ λₖ⁰`.
    pub p: SVector<T, D>,
    /// `λₖ⁰`, the multiplier polynomial's value at `tₖ`.
    pub lambda: SVector<T, M>,
}

impl<T: Real, const D: usize, const M: usize> GalerkinState<T, D, M> {
    /// The state at `t = 0` from positions and velocities consistent with the
    /// constraints (`g(q) = 0`, `G(q) v = 0`; see [`NodeState::consistent`] to project
    /// them first): `p = p̃ = D₂L(q, v)`, `λ` from the continuous equations (70).
    /// [`InitError::SingularConstraints`] if `D₂₂L` or `G M⁻¹ Gᵀ` is singular there.
    pub fn from_velocities<Mdl>(
        model: &Mdl,
        q: SVector<T, D>,
        v: SVector<T, D>,
    ) -> Result<Self, InitError<T>>
    where
        Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    {
        let at_rest = (T::zero(), &InputValues::zeros());
        let lambda = holonomic_multiplier(model, at_rest, &q, &v)
            .map_err(|_| InitError::SingularConstraints)?;
        let p = model.l_v(&q, &v);
        Ok(Self {
            t: T::zero(),
            q,
            p,
            v,
            lambda,
            p_tilde: p,
            lagged: None,
        })
    }
}

impl<T: Real, const D: usize, const M: usize> NodeValues<T, D> for GalerkinState<T, D, M> {
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, D> {
        &self.q
    }
    /// The projected momentum `ℙ p̃`.
    fn momenta(&self) -> &SVector<T, D> {
        &self.p
    }
    fn velocities(&self) -> Option<&SVector<T, D>> {
        Some(&self.v)
    }
    /// `lambda`, the multiplier (70).
    fn multipliers(&self, visit: &mut dyn FnMut(&'static str, &[T])) {
        visit("lambda", self.lambda.as_slice());
    }
}

/// A consistent GGL node, `(q, p, v, λ)` as it is: the node's `λ` is the GGL
/// family's, not recomputed (use [`GalerkinState::from_velocities`] for (70)); it only
/// starts Newton and is replaced after the first step.
impl<T: Real, const D: usize, const M: usize> FromNode<T, D, M> for GalerkinState<T, D, M> {
    fn from_node(node: &NodeState<T, D, M>) -> Self {
        Self {
            t: node.t,
            q: node.q,
            p: node.p,
            v: node.v,
            lambda: node.lambda,
            p_tilde: node.p,
            lagged: None,
        }
    }
}
