//! Runtime of livens: the traits that `model!`-generated code implements, a fixed-size
//! Newton solver with partial-pivoting LU, consistent initialisation, the step loop and
//! diagnostics. `#![no_std]`, no allocation, no panics on the step path.
//!
//! Sizes are const generics: `D` coordinates, `M` holonomic constraints, `N` unknowns of
//! a scheme's step equations, `K` momentum maps. The generated impls fix them; every
//! function here is generic over them (stable Rust has no `generic_const_exprs`, so `N`
//! is a parameter of its own rather than `2 * D + 2 * M`).
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

mod diagnostics;
mod error;
mod init;
mod integrator;
pub mod lu;
mod model;
pub mod newton;
pub mod schemes;
mod state;
/// Butcher tableaux as cited data, with their order conditions tested.
pub mod tableaux;

pub use diagnostics::Diagnostics;
pub use error::{InitError, SolveError};
pub use init::Consistency;
pub use integrator::{Guess, Integrator};
pub use model::{
    Discretization, Model, MomentumMaps, Parameters, Real, SchemeInfo, UnknownParameter,
};
pub use newton::{NewtonOptions, StepReport};
pub use state::State;

/// Re-exports of the linear-algebra types the generated code and users need.
pub use nalgebra::{SMatrix, SVector};

/// Items used by `model!`-generated code. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::model::{
        Discretization, Model, MomentumMaps, Parameters, Real, UnknownParameter,
    };
    pub use crate::schemes;
    pub use crate::state::State;
    pub use nalgebra::{SMatrix, SVector};

    /// Converts an `f64` literal of the generated code into the scalar type.
    #[inline(always)]
    pub fn c<T: Real>(x: f64) -> T {
        nalgebra::convert(x)
    }

    /// `M⁻¹ p` for a model whose mass matrix is not constant: one LU solve.
    pub fn solve_mass<T: Real, const D: usize>(
        mass: &SMatrix<T, D, D>,
        p: &SVector<T, D>,
    ) -> SVector<T, D> {
        let mut x = *p;
        match crate::lu::Lu::factor(*mass) {
            Ok(lu) => lu.solve_in_place(&mut x),
            Err(_) => x.fill(T::from_subset(&f64::NAN)),
        }
        x
    }
}
