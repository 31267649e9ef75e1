//! Scheme families: how a step of each family is solved. Two-point families whose
//! equations `model!` emits symbolically ([`ggl`]) get a driver that runs Newton on
//! the generated residual; stage families are assembled here from point kernels.
mod blocks;
#[macro_use]
mod planned;
pub mod ggl;
pub mod prk;
pub mod prk_holonomic;
pub mod prk_nonholonomic;

use core::borrow::{Borrow, BorrowMut};

use crate::model::Real;
use crate::solve::{NewtonSystem, Storage, Workspace};

/// The tail of every assembled family's `equations`: `system`'s residual and Jacobian at
/// `x`, evaluated in Newton's workspace and copied out (the Jacobian column by column).
fn equations_at<T: Real, S: NewtonSystem<T, N>, K: Storage, const N: usize>(
    newton: &mut Workspace<T, N, K>,
    system: &mut S,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) {
    newton.x.as_mut_slice().copy_from_slice(x);
    system.residual_and_jacobian(&newton.x, &mut newton.r, newton.jac.borrow_mut());
    r.copy_from_slice(newton.r.as_slice());
    for (out, column) in jac.chunks_exact_mut(N).zip(newton.jac.borrow().iter()) {
        out.copy_from_slice(column);
    }
}
