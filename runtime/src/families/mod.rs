//! Scheme families: how a step of each family is solved. Two-point families whose
//! equations `model!` emits symbolically ([`two_point`]) get a driver that runs Newton on
//! the generated residual; stage families are assembled here from point kernels, each
//! its equations and block Jacobian over one shared skeleton ([`stages`]).
use crate::step::StepOptions;

mod blocks;
pub mod converted;
/// The constrained converted schemes' driver (`ConvertedHolonomic`), by the name the
/// catalogue's family entry gives it.
pub use converted::holonomic as converted_holonomic;
/// The driver of the converted schemes with a tableau given as data
/// (`ConvertedTableau`), by the name the catalogue's family entry gives it.
pub use converted::tableau as converted_tableau;
pub mod galerkin;
mod point;
pub mod prk;
pub mod prk_holonomic;
pub mod prk_holonomic_linear;
pub mod prk_lie;
pub mod prk_lie_nonholonomic;
pub mod prk_linear;
pub mod prk_nonholonomic;
pub mod stages;
pub mod two_point;
pub mod two_point_linear;

/// The papers' options ([`StepOptions::default`]): full Newton from the known values.
/// Every driver module exports its scheme's defaults as `default_options`, which the
/// `Step` impls `model!` emits return: these, or the predicting stage families'
/// ([`stages::predicted_options`]).
pub fn papers_options<T: crate::Real>() -> StepOptions<T> {
    StepOptions::default()
}

/// The two-point family under its first name.
#[deprecated(
    since = "0.1.0",
    note = "renamed `families::two_point`: the family also steps the Livens, SHAKE and RATTLE schemes"
)]
pub mod ggl {
    pub use super::two_point::*;
}
/// The two-point family's linearised step under its first name.
#[deprecated(since = "0.1.0", note = "renamed `families::two_point_linear`")]
pub mod ggl_linear {
    pub use super::two_point_linear::*;
}

use core::borrow::Borrow;

use crate::model::Real;
use crate::solve::{Storage, Workspace};

/// The tail of every family's `equations`: the residual and the Jacobian (column by
/// column) that `newton` holds, copied out to the caller's slices.
fn copy_out<T: Real, K: Storage, const N: usize>(
    newton: &Workspace<T, N, K>,
    r: &mut [T],
    jac: &mut [T],
) {
    r.copy_from_slice(newton.r.as_slice());
    for (out, column) in jac.chunks_exact_mut(N).zip(newton.jac.borrow().iter()) {
        out.copy_from_slice(column);
    }
}
