//! livens compiles Lagrangian mechanics into native, allocation-free,
//! structure-preserving time steppers.
//!
//! Declare a model with [`model!`]; the macro differentiates it symbolically at build
//! time and emits the residual and exact Jacobian of each scheme's discrete equations.
//! Then: initialise consistently ([`NodeState::consistent`]), step ([`Integrator::step`]),
//! read diagnostics ([`Diagnostics`], [`MomentumMaps`]).
//!
//! ```
//! use livens::prelude::*;
//!
//! livens::model! {
//!     /// Spherical pendulum in redundant Cartesian coordinates.
//!     pub struct Pendulum {
//!         params { m = 1.0, l = 1.0, g = 9.81 }
//!         coords { r: Vec3 }
//!         kinetic = 0.5 * m * dot(r_dot, r_dot);
//!         potential = m * g * r.z;
//!         holonomic { length: 0.5 * (dot(r, r) / (l * l) - 1.0) }
//!         momentum { lz: rotation(e3) }
//!         schemes { GglEm }
//!     }
//! }
//!
//! let model = Pendulum::new();
//! let q = SVector::from([1.0, 0.0, 0.0]);
//! let v = SVector::from([0.0, 1.0, 0.0]);
//! let state = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 }).unwrap();
//! let mut sim = Integrator::new(model, GglEm, 0.05, state);
//! let e0 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
//! for _ in 0..100 {
//!     sim.step().unwrap();
//! }
//! let e1 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
//! assert!((e1 - e0).abs() < 1e-12);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// Lets `::livens::...` paths of generated code resolve inside this crate too.
extern crate self as livens;

#[cfg(doctest)]
mod doctests;

pub use livens_macros::model;
pub use livens_runtime::*;

/// Everything a user of a model needs in scope.
pub mod prelude {
    pub use livens_runtime::schemes::*;
    /// [`NodeState`] under its first name, kept for one release.
    #[allow(deprecated)]
    pub use livens_runtime::GglState;
    pub use livens_runtime::{
        Consistency, DeclaredSchemes, Diagnostics, DiscreteSystem, FromNode, Guess, InputValues,
        Integrator, Linearize, Model, MomentumMaps, NewtonOptions, NodeState, NodeValues,
        NonholonomicState, Parameters, PhaseState, PointKernels, SMatrix, SVector, SchemeInfo,
        SchemeVisitor, SolveError, Step, StepContext,
    };
}
