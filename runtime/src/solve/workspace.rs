//! The memory of a step: Newton's unknowns, residual, Jacobian and its factorisation,
//! sized at compile time and owned by the integrator.
//!
//! A step with `N` unknowns needs one `N × N` matrix (`8 N²` bytes in `f64`: 2 MB at
//! `N = 500`), which is too much for a thread stack when `N` is large. The matrix is
//! therefore stored through a [`Storage`]: [`Inline`] keeps it inside the workspace
//! (no heap, for embedded targets: place the integrator in a `static` cell), [`Boxed`]
//! (feature `alloc`) on the heap, allocated without passing through the stack.
use core::borrow::BorrowMut;
use core::fmt::Debug;

use nalgebra::SVector;

use crate::model::Real;

/// Where a workspace keeps its `N × N` matrix (column storage, `m[j][i]` is row `i` of
/// column `j`).
pub trait Storage: Copy + Debug + Default + PartialEq + 'static {
    /// The matrix container.
    type Matrix<T: Real, const N: usize>: BorrowMut<[[T; N]; N]> + Clone + Debug + PartialEq;
    /// A zero matrix.
    fn zeros<T: Real, const N: usize>() -> Self::Matrix<T, N>;
}

/// The matrix is part of the workspace value: no heap, `8 N²` bytes (in `f64`) wherever
/// the workspace (the integrator) lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inline;

impl Storage for Inline {
    type Matrix<T: Real, const N: usize> = [[T; N]; N];
    fn zeros<T: Real, const N: usize>() -> [[T; N]; N] {
        [[T::zero(); N]; N]
    }
}

/// The matrix lives on the heap; the workspace holds a pointer to it. Use it for steps
/// with many unknowns (a few hundred), where `8 N²` bytes would not fit on a thread's
/// stack.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Boxed;

#[cfg(feature = "alloc")]
impl Storage for Boxed {
    type Matrix<T: Real, const N: usize> = alloc::boxed::Box<[[T; N]; N]>;
    fn zeros<T: Real, const N: usize>() -> alloc::boxed::Box<[[T; N]; N]> {
        // Built column by column on the heap: `Box::new([[0; N]; N])` would first
        // build the whole matrix on the stack, which is what this storage avoids.
        let columns: alloc::boxed::Box<[[T; N]]> =
            alloc::vec![[T::zero(); N]; N].into_boxed_slice();
        match columns.try_into() {
            Ok(matrix) => matrix,
            // The vector has exactly N columns.
            Err(_) => unreachable!("a vector of N columns converts to [[T; N]; N]"),
        }
    }
}

/// Newton's working memory for `N` unknowns.
#[derive(Clone, Debug, PartialEq)]
pub struct Workspace<T: Real, const N: usize, K: Storage = Inline> {
    /// The unknowns: Newton's starting point on entry, the solution on success.
    pub x: SVector<T, N>,
    /// The residual, then the Newton update.
    pub r: SVector<T, N>,
    /// The Jacobian, then its LU factors (in place).
    pub jac: K::Matrix<T, N>,
    /// The row permutation of the LU factors.
    pub perm: [usize; N],
}

impl<T: Real, const N: usize, K: Storage> Workspace<T, N, K> {
    /// A zeroed workspace.
    pub fn new() -> Self {
        Self {
            x: SVector::zeros(),
            r: SVector::zeros(),
            jac: K::zeros(),
            perm: [0; N],
        }
    }

    /// Bytes of the workspace value itself (for [`Boxed`], the matrix is on the heap in
    /// addition: `size_of::<T>() · N²` bytes).
    pub const SIZE: usize = core::mem::size_of::<Self>();
}

impl<T: Real, const N: usize, K: Storage> Default for Workspace<T, N, K> {
    fn default() -> Self {
        Self::new()
    }
}
