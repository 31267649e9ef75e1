//! The state a two-point scheme (GGL, Livens, SHAKE, RATTLE) carries from step to step.
use nalgebra::SVector;

use crate::model::Real;
use crate::state::NodeValues;

/// State at one time node: positions, velocities, momenta and the two multiplier
/// vectors of the GGL principle (spec 000 eq. (33)).
///
/// Which time label each field carries depends on the scheme (spec 000 §6): for EM all
/// belong to `t^n`; for VI-A `v` and the multipliers belong to the interval
/// `[t^{n-1}, t^n]` that ended at this node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeState<T: Real, const D: usize, const M: usize, const Q: usize = D> {
    /// Time `t^n`.
    pub t: T,
    /// Positions `q` (stored in `Q` numbers).
    pub q: SVector<T, Q>,
    /// Velocities `v`.
    pub v: SVector<T, D>,
    /// Conjugate momenta `p`.
    pub p: SVector<T, D>,
    /// Multipliers `λ` of the position constraints `g(q) = 0`.
    pub lambda: SVector<T, M>,
    /// Multipliers `γ` of the velocity constraints `G M⁻¹ p = 0`.
    pub gamma: SVector<T, M>,
}

impl<T: Real, const D: usize, const M: usize, const Q: usize> NodeState<T, D, M, Q> {
    /// The same state in another scalar type, converting every entry with `f`: e.g.
    /// `state.map(|x| x as f32)` for an embedded target, or to dual numbers for
    /// derivatives of a step.
    pub fn map<U: Real>(&self, f: impl Fn(T) -> U) -> NodeState<U, D, M, Q> {
        NodeState {
            t: f(self.t),
            q: self.q.map(&f),
            v: self.v.map(&f),
            p: self.p.map(&f),
            lambda: self.lambda.map(&f),
            gamma: self.gamma.map(&f),
        }
    }
}

impl<T: Real, const D: usize, const M: usize, const Q: usize> NodeValues<T, D, Q>
    for NodeState<T, D, M, Q>
{
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, Q> {
        &self.q
    }
    fn momenta(&self) -> &SVector<T, D> {
        &self.p
    }
    fn velocities(&self) -> Option<&SVector<T, D>> {
        Some(&self.v)
    }
    fn multipliers(&self, visit: &mut dyn FnMut(&'static str, &[T])) {
        visit("lambda", self.lambda.as_slice());
        visit("gamma", self.gamma.as_slice());
    }
}
