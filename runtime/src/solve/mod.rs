//! The solver layer: Newton's method with its policy, the in-place LU it factors with,
//! and the workspace a step owns.
pub mod lu;
mod newton;
mod options;
pub mod sparse;
mod workspace;

pub use newton::max_abs;
pub use newton::{solve, NewtonSystem, StepReport};
pub use options::{default_tolerance, JacobianUpdate, NewtonOptions};
#[cfg(feature = "alloc")]
pub use workspace::Boxed;
pub use workspace::{Inline, Storage, Workspace};
