//! The state of the converted variational integrators (seed 004): the node, and the
//! segment state of the standard layer that reached it.
use nalgebra::SVector;

use crate::model::Real;
use crate::state::{FromNode, NodeState, NodeValues};

/// The node `(x_k, p_k)` at `t_k` and the segment state `w_k = (q, v)` of the step that
/// reached it (the next step's guess): two notions of state, the node the variational
/// integrator's, the segment the standard layer's, which sits at `t_k − α⁻h` of the
/// step it belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvertedState<T: Real, const N: usize> {
    /// Time of the node.
    pub t: T,
    /// Node position `x_k`.
    pub x: SVector<T, N>,
    /// Node momentum `p_k`.
    pub p: SVector<T, N>,
    /// Segment position (the standard layer's `q`).
    pub q: SVector<T, N>,
    /// Segment velocity (the standard layer's `v`).
    pub v: SVector<T, N>,
}

impl<T: Real, const N: usize> NodeValues<T, N> for ConvertedState<T, N> {
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, N> {
        &self.x
    }
    fn momenta(&self) -> &SVector<T, N> {
        &self.p
    }
    /// `None`: the stored `v` is the segment's, not the node's (`M⁻¹ p` is).
    fn velocities(&self) -> Option<&SVector<T, N>> {
        None
    }
}

/// The node `(q, p)` as `(x₀, p₀)`, the start the spec names "from a node" (§C.3 (ii),
/// `p₀ = ∂L/∂v(q₀, v₀)`), and `(q₀, v₀)` as the first segment's guess. The paper's
/// own start, `p₀ = −D₁L_d(w₀)`, is
/// [`families::converted::from_segment`](crate::families::converted::node_form::from_segment);
/// the two differ by the scheme's local error.
impl<T: Real, const N: usize, const M: usize> FromNode<T, N, M> for ConvertedState<T, N> {
    fn from_node(node: &NodeState<T, N, M>) -> Self {
        ConvertedState {
            t: node.t,
            x: node.q,
            p: node.p,
            q: node.q,
            v: node.v,
        }
    }
}
