//! The state of the nonholonomic Lobatto method (spec 002 S4): `(q, p, v)` at a node and
//! the multiplier `λ`, which the method feeds forward (`Λ¹ = λₖ`, `λₖ₊₁ = Λˢ`).
use nalgebra::SVector;

use crate::kernels::PointKernels;
use crate::model::Real;
use crate::state::{FromNode, GglState, NodeValues};

/// `(q, p, v, λ)` at a time node of a model with `K` nonholonomic constraints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonholonomicState<T: Real, const D: usize, const K: usize> {
    /// Time `tⁿ`.
    pub t: T,
    /// Positions `qⁿ`.
    pub q: SVector<T, D>,
    /// Conjugate momenta `pⁿ = D₂L(qⁿ, vⁿ)`.
    pub p: SVector<T, D>,
    /// Velocities `vⁿ` (after a step, the last stage's `vˢ`, which satisfies
    /// `D₂L(qⁿ, vⁿ) = pⁿ` and `A(qⁿ) vⁿ = 0`).
    pub v: SVector<T, D>,
    /// The multiplier `λⁿ`. `None` until the first step, which computes it from the
    /// continuous equations at `(q, v)` ([`nonholonomic_multiplier`](crate::nonholonomic_multiplier),
    /// spec 002 §4.8): the method has its orders only from that one.
    pub lambda: Option<SVector<T, K>>,
}

impl<T: Real, const D: usize, const K: usize> NonholonomicState<T, D, K> {
    /// The state at `t = 0` from positions and velocities, `p = D₂L(q, v)`, `λ` from the
    /// continuous equations at the first step.
    pub fn from_velocities<Mdl: PointKernels<T, D>>(
        model: &Mdl,
        q: SVector<T, D>,
        v: SVector<T, D>,
    ) -> Self {
        Self {
            t: T::zero(),
            q,
            p: model.l_v(&q, &v),
            v,
            lambda: None,
        }
    }
}

impl<T: Real, const D: usize, const K: usize> NodeValues<T, D> for NonholonomicState<T, D, K> {
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, D> {
        &self.q
    }
    fn momenta(&self) -> &SVector<T, D> {
        &self.p
    }
    fn velocities(&self) -> Option<&SVector<T, D>> {
        Some(&self.v)
    }
    fn multipliers(&self, visit: &mut dyn FnMut(&'static str, &[T])) {
        if let Some(lambda) = &self.lambda {
            visit("lambda", lambda.as_slice());
        }
    }
}

/// `(q, p, v)` of the node; `λ` from the continuous equations at the first step.
impl<T: Real, const D: usize, const M: usize, const K: usize> FromNode<T, D, M>
    for NonholonomicState<T, D, K>
{
    fn from_node(node: &GglState<T, D, M>) -> Self {
        Self {
            t: node.t,
            q: node.q,
            p: node.p,
            v: node.v,
            lambda: None,
        }
    }
}
