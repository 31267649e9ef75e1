//! Runtime of livens: the traits that `model!`-generated code implements, the step
//! abstraction every scheme family implements, a Newton solver whose workspace the
//! integrator owns, consistent initialisation and diagnostics. `#![no_std]`, no
//! allocation on the step path, no panics.
//!
//! Layout: [`step`] (the [`Step`] trait, options, named blocks) → [`families`] (how a
//! step of each family is solved) → [`solve`] (Newton, its policy, in-place LU, the
//! workspace) ; [`state`](NodeState) (one type per layout, read through
//! [`NodeValues`]); [`Integrator`] ties a model, a scheme, its state and its
//! workspace together.
//!
//! Sizes are const generics: `D` coordinates, `M` holonomic constraints, `N` unknowns of
//! a scheme's step equations, `K` momentum maps. The generated impls fix them; every
//! function here is generic over them (stable Rust has no `generic_const_exprs`, so `N`
//! is a parameter of its own rather than `2 * D + 2 * M`).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod control;
pub mod declared;
mod diagnostics;
mod error;
pub mod families;
mod integrator;
pub mod kernels;
pub mod linearize;
mod model;
pub mod schemes;
pub mod solve;
pub mod space;
mod state;
pub mod step;
/// Butcher tableaux as cited data, with their order conditions tested.
pub mod tableaux;

pub use declared::{DeclaredSchemes, SchemeVisitor};
pub use diagnostics::Diagnostics;
pub use error::{InitError, SolveError};
pub use families::two_point::DiscreteSystem;
pub use integrator::Integrator;
pub use kernels::{
    ConstraintPatterns, HolonomicKernels, KernelPatterns, NonholonomicKernels, PointKernels,
};
pub use linearize::{Linearize, Linearized};
pub use model::{
    Configuration, InputValues, Model, MomentumMaps, ParameterError, Parameters, Real,
    UnknownParameter,
};
pub use schemes::info::{Orders, SchemeInfo};
pub use solve::{JacobianUpdate, NewtonOptions, StepReport};
/// [`NodeState`] under its first name, kept for one release.
#[allow(deprecated)]
pub use state::GglState;
pub use state::{
    nonholonomic_multiplier, nonholonomic_multiplier_on_group, Consistency, ConvertedState,
    FromNode, GalerkinState, Lagged, NodeState, NodeValues, NonholonomicState, PhaseState,
};
pub use step::{Guess, Step, StepContext, StepOptions};

/// Re-exports of the linear-algebra types the generated code and users need.
pub use nalgebra::{SMatrix, SVector};

/// Items used by `model!`-generated code. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::declared::{DeclaredSchemes, SchemeVisitor};
    pub use crate::families;
    pub use crate::kernels::{
        ConstraintPatterns, HolonomicKernels, KernelPatterns, NonholonomicKernels, PointKernels,
    };
    pub use crate::model::{
        Configuration, InputValues, Model, MomentumMaps, ParameterError, Parameters, Real,
        UnknownParameter,
    };
    pub use crate::schemes;
    pub use crate::solve::sparse::{self, NeedsPivoting, Plan};
    pub use crate::space::{self, Euclidean};

    /// [`sparse::THRESHOLD`], for the generated static elimination steps.
    #[inline(always)]
    pub const fn sparse_threshold() -> f64 {
        crate::solve::sparse::THRESHOLD
    }
    pub use crate::families::converted::{CurvatureKernels, EulerLagrangeKernels};
    pub use crate::linearize::{Linearize, Linearized};
    pub use crate::solve::{max_abs, StepReport, Storage, Workspace};
    pub use crate::state::{
        ConvertedState, GalerkinState, NodeState, NodeValues, NonholonomicState, PhaseState,
    };
    pub use crate::step::check_step;
    pub use crate::step::{Block, Guess, Step, StepContext, StepOptions, WrongLength};
    pub use crate::SolveError;
    pub use nalgebra::{SMatrix, SVector};

    /// Converts an `f64` literal of the generated code into the scalar type.
    #[inline(always)]
    pub fn c<T: Real>(x: f64) -> T {
        nalgebra::convert(x)
    }

    /// Sets every entry of a column-stored matrix to zero.
    #[inline(always)]
    pub fn zero_matrix<T: Real, const R: usize, const C: usize>(m: &mut [[T; R]; C]) {
        for column in m.iter_mut() {
            column.fill(T::zero());
        }
    }

    /// `M⁻¹ p` for a model whose mass matrix is not constant: one LU solve.
    pub fn solve_mass<T: Real, const D: usize>(
        mass: &SMatrix<T, D, D>,
        p: &SVector<T, D>,
    ) -> SVector<T, D> {
        let mut x = *p;
        match crate::solve::lu::Lu::factor(*mass) {
            Ok(lu) => lu.solve_in_place(&mut x),
            Err(_) => x.fill(T::from_subset(&f64::NAN)),
        }
        x
    }
}
