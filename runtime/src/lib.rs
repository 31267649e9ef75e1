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

    /// `(sin x, cos x)` from an anchor `[x₀, sin x₀, cos x₀]`
    /// ([`PointKernels::l_q_and_l_v_near`](crate::PointKernels::l_q_and_l_v_near)):
    /// where `δ = x − x₀` is at most `2⁻¹⁰` by the angle-addition formulas, with
    /// `sin δ ≈ δ − δ³/6 + δ⁵/120` and `cos δ ≈ 1 − δ²/2 + δ⁴/24` (their remainders,
    /// below `δ⁷/5040` and `δ⁶/720`, are under 2e-21 there, far below a unit in the
    /// last place of `f64`), otherwise by `sin_cos`. The anchor's values carry their own
    /// rounding, so the result is within a few units in the last place of the direct
    /// one. A NaN `x` or anchor takes the direct branch.
    #[inline(always)]
    pub fn sin_cos_near<T: Real>(x: T, [x0, s0, c0]: [T; 3]) -> (T, T) {
        let d = x - x0;
        if d.abs() <= c::<T>(1.0 / 1024.0) {
            // sin(x₀ + δ) = sin x₀ + (cos x₀ sin δ − sin x₀ (1 − cos δ)), and cos alike:
            // the anchor plus a small correction, which keeps `1 − cos δ` (about
            // `δ²/2`, below the last place of 1 for `δ` of 1e-8) from rounding away.
            let d2 = d * d;
            let sin_d = d - d * d2 * c::<T>(1.0 / 6.0) * (T::one() - d2 * c::<T>(0.05));
            let versine = d2 * c::<T>(0.5) * (T::one() - d2 * c::<T>(1.0 / 12.0));
            (
                s0 + (c0 * sin_d - s0 * versine),
                c0 - (s0 * sin_d + c0 * versine),
            )
        } else {
            x.sin_cos()
        }
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

#[cfg(test)]
mod tests {
    use super::__private::sin_cos_near;

    /// Continued from an anchor, `sin` and `cos` are the direct values to a unit or two
    /// in the last place for every `δ` up to `2⁻¹⁰`, in every quadrant; beyond, and for
    /// a NaN argument or anchor, they are the direct values.
    #[test]
    fn sin_cos_near_is_sin_cos_to_round_off() {
        let mut largest = 0.0_f64;
        for k in 0..400 {
            let x0 = -20.0 + 0.1 * f64::from(k) + 0.013;
            let (s0, c0) = x0.sin_cos();
            for d in [0.0, 1e-16, -3e-12, 1e-8, -2e-6, 1e-4, -5e-4, 1.0 / 1024.0] {
                let x = x0 + d;
                let (s, c) = sin_cos_near(x, [x0, s0, c0]);
                largest = largest.max((s - x.sin()).abs()).max((c - x.cos()).abs());
            }
            let far = x0 + 2e-3;
            assert_eq!(sin_cos_near(far, [x0, s0, c0]), far.sin_cos());
            assert!(sin_cos_near(f64::NAN, [x0, s0, c0]).0.is_nan());
            assert_eq!(sin_cos_near(x0, [f64::NAN; 3]), x0.sin_cos());
        }
        // Measured: 1.1e-16, half a unit in the last place of 1.
        assert!(largest <= f64::EPSILON, "{largest:e}");
    }
}
