//! The schemes a model declares, for tools that run every one of them: `model!` emits
//! [`DeclaredSchemes`] from the model's `schemes { … }` line, and a [`SchemeVisitor`]
//! (the command, the benches, the derivative oracles) is called once per scheme with
//! the concrete marker type, so a scheme added to the catalogue and declared by a model
//! reaches every tool without an edit.
use core::fmt::Debug;

use crate::model::{Model, Real};
use crate::schemes::info::SchemeInfo;
use crate::state::{FromNode, NodeValues};
use crate::step::Step;

/// Called once per scheme a model declares.
pub trait SchemeVisitor<T: Real, Mdl, const D: usize, const M: usize, const Q: usize = D> {
    /// One scheme (markers with coefficients take their defaults). The bounds say what
    /// a tool may do with it: step it, start it from a consistent node, read its nodes.
    fn visit<S>(&mut self, scheme: S)
    where
        S: SchemeInfo + Clone + Debug + 'static,
        Mdl: Step<T, S>,
        <Mdl as Step<T, S>>::State: NodeValues<T, D, Q> + FromNode<T, D, M, Q>;
}

/// The schemes of a model's `schemes { … }` line, in order.
pub trait DeclaredSchemes<T: Real, const D: usize, const M: usize, const Q: usize = D>:
    Model<T, D, M, Q> + Sized
{
    /// Calls `visitor` with every declared scheme.
    fn visit_schemes<V: SchemeVisitor<T, Self, D, M, Q>>(visitor: &mut V);
}
