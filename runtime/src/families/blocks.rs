//! Block writes shared by the constrained stage families' dense assemblies
//! ([`super::prk_holonomic`], [`super::prk_nonholonomic`]): a `D × D` kernel or a
//! `K × D` constraint matrix (or their transposes), scaled, added at a block of the
//! column-stored Jacobian.
use crate::model::Real;

/// Adds `f · K` (`f · Kᵀ` if `transpose`) for the `D × D` kernel `K` in column storage
/// at rows `row…`, columns `column…` of the column-stored Jacobian.
pub(crate) fn add_square<T: Real, const D: usize, const N: usize>(
    jac: &mut [[T; N]; N],
    (row, column): (usize, usize),
    f: T,
    kernel: &[[T; D]; D],
    transpose: bool,
) {
    if f == T::zero() {
        return;
    }
    for (c, kc) in kernel.iter().enumerate() {
        for (r, &e) in kc.iter().enumerate() {
            let (i, j) = if transpose { (c, r) } else { (r, c) };
            jac[column + j][row + i] += f * e;
        }
    }
}

/// Adds `f · G` (`K × D`) or `f · Gᵀ` (`D × K`, if `transpose`) for `G` in column
/// storage at rows `row…`, columns `column…`.
pub(crate) fn add_rect<T: Real, const D: usize, const K: usize, const N: usize>(
    jac: &mut [[T; N]; N],
    (row, column): (usize, usize),
    f: T,
    g: &[[T; K]; D],
    transpose: bool,
) {
    if f == T::zero() {
        return;
    }
    for (k, gk) in g.iter().enumerate() {
        for (a, &e) in gk.iter().enumerate() {
            let (i, j) = if transpose { (k, a) } else { (a, k) };
            jac[column + j][row + i] += f * e;
        }
    }
}
