//! The states schemes carry, one type per layout, and the one trait through which
//! diagnostics and output read the values at a node.
mod consistent;
mod converted;
mod galerkin;
pub(crate) mod multiplier;
mod node;
mod nonholonomic;
mod phase;

pub use consistent::Consistency;
pub use converted::ConvertedState;
pub use galerkin::{GalerkinState, Lagged};
pub use multiplier::{nonholonomic_multiplier, nonholonomic_multiplier_on_group};
pub use node::NodeState;
pub use nonholonomic::NonholonomicState;
pub use phase::PhaseState;

/// [`NodeState`] under its first name, from when only the GGL schemes used it.
#[deprecated(
    since = "0.1.0",
    note = "renamed `NodeState`: the two-point family's state, whatever the scheme"
)]
pub type GglState<T, const D: usize, const M: usize, const Q: usize = D> = NodeState<T, D, M, Q>;

use nalgebra::SVector;

use crate::model::{Model, Real};

/// The values of a state at its time node, whatever the scheme's layout: what
/// [`Diagnostics`](crate::Diagnostics), the command's CSV and its plots read. The
/// configuration is stored in `Q` numbers, the velocities and momenta have `D` (`Q = D`
/// in a vector space, the default; [`Configuration`](crate::Configuration)).
pub trait NodeValues<T: Real, const D: usize, const Q: usize = D> {
    /// Time `tⁿ` of the node.
    fn time(&self) -> T;
    /// Positions `qⁿ`.
    fn positions(&self) -> &SVector<T, Q>;
    /// Conjugate momenta `pⁿ`.
    fn momenta(&self) -> &SVector<T, D>;
    /// The velocities the state carries, if it carries any. Their time label is the
    /// scheme's (VI-A's `v` belongs to the interval that ended at the node); `None`
    /// means "compute `v = M⁻¹ p` if you need it".
    fn velocities(&self) -> Option<&SVector<T, D>>;
    /// The node's velocities for any state: the state's own ([`velocities`](Self::velocities)),
    /// or `v = M⁻¹ p` from `model` for a state that carries none (the stage families'
    /// [`PhaseState`] keeps `(q, p)` only), so that code generic over states never gets
    /// nothing.
    fn node_velocities<Mdl, const M: usize>(&self, model: &Mdl) -> SVector<T, D>
    where
        Mdl: Model<T, D, M, Q>,
    {
        self.velocities()
            .copied()
            .unwrap_or_else(|| model.velocity(self.positions(), self.momenta()))
    }
    /// The multipliers the state carries, block by block (`lambda`, then `gamma` for the
    /// GGL layout): `visit(name, values)` once per block. None by default.
    fn multipliers(&self, visit: &mut dyn FnMut(&'static str, &[T])) {
        let _ = visit;
    }
    /// The multiplier blocks of the state's layout and their sizes, whether or not the
    /// state carries their values yet (a nonholonomic state gets its `λ` at its first
    /// step): `visit(name, len)` once per block. By default, the blocks
    /// [`multipliers`](Self::multipliers) visits.
    fn multiplier_blocks(&self, visit: &mut dyn FnMut(&'static str, usize)) {
        self.multipliers(&mut |name, values| visit(name, values.len()));
    }
    /// The first field with a NaN or infinite entry (`t`, `q`, `p`, `v` or a
    /// multiplier block's name), or `None` if every value is finite.
    fn non_finite_field(&self) -> Option<&'static str> {
        let finite = |x: &[T]| x.iter().all(|x| x.is_finite());
        if !self.time().is_finite() {
            return Some("t");
        }
        if !finite(self.positions().as_slice()) {
            return Some("q");
        }
        if !finite(self.momenta().as_slice()) {
            return Some("p");
        }
        if self.velocities().is_some_and(|v| !finite(v.as_slice())) {
            return Some("v");
        }
        let mut bad = None;
        self.multipliers(&mut |name, values| {
            if bad.is_none() && !finite(values) {
                bad = Some(name);
            }
        });
        bad
    }
}

/// A scheme's state built from a consistent node of the model: how every layout starts
/// from the same initial data. [`NodeState`] is the node: it carries every quantity a
/// layout may start from (`t`, `q`, `v`, `p`, `λ`, `γ`), and
/// [`NodeState::consistent`] computes it from the user's `(q, v)`.
pub trait FromNode<T: Real, const D: usize, const M: usize, const Q: usize = D> {
    /// The state at `node`.
    fn from_node(node: &NodeState<T, D, M, Q>) -> Self;
}

impl<T: Real, const D: usize, const M: usize, const Q: usize> FromNode<T, D, M, Q>
    for NodeState<T, D, M, Q>
{
    fn from_node(node: &NodeState<T, D, M, Q>) -> Self {
        *node
    }
}

/// `(q, p)` of the node; its velocity starts Newton.
impl<T: Real, const D: usize, const M: usize, const Q: usize> FromNode<T, D, M, Q>
    for PhaseState<T, D, Q>
{
    fn from_node(node: &NodeState<T, D, M, Q>) -> Self {
        PhaseState {
            t: node.t,
            q: node.q,
            p: node.p,
            v: node.v,
        }
    }
}
