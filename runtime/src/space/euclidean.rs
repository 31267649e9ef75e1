//! The vector space `R^D`: configurations stored as they move, `q + ξ`.
use nalgebra::{RealField, SVector};

use super::Space;

/// `R^D` with the retraction `τ(ξ) = ξ`, added: the configuration space of every
/// model whose coordinates are scalars and vectors. Its trivialised tangent is the
/// identity and its bracket zero, so the stage families' Lie-group terms vanish
/// ([`Space::FLAT`]) and its steps are the vector-space schemes of the papers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Euclidean;

/// `out = I`.
fn identity<T: RealField + Copy, const D: usize>(out: &mut [[T; D]; D]) {
    for (j, column) in out.iter_mut().enumerate() {
        column.fill(T::zero());
        column[j] = T::one();
    }
}

/// `out = 0`.
fn zero<T: RealField + Copy, const D: usize>(out: &mut [[T; D]; D]) {
    for column in out.iter_mut() {
        column.fill(T::zero());
    }
}

impl<T: RealField + Copy, const D: usize> Space<T, D> for Euclidean {
    const NAME: &'static str = "Euclidean";
    const FLAT: bool = true;

    #[inline(always)]
    fn retract(q: &SVector<T, D>, xi: &SVector<T, D>) -> SVector<T, D> {
        q + xi
    }

    #[inline(always)]
    fn local(q0: &SVector<T, D>, q1: &SVector<T, D>) -> SVector<T, D> {
        q1 - q0
    }

    fn dtau_inv(_: &SVector<T, D>, out: &mut [[T; D]; D]) {
        identity(out);
    }

    fn dtau(_: &SVector<T, D>, out: &mut [[T; D]; D]) {
        identity(out);
    }

    fn dtau_inv_derivative(_: &SVector<T, D>, _: &SVector<T, D>, out: &mut [[T; D]; D]) {
        zero(out);
    }

    fn dtau_inv_t_derivative(_: &SVector<T, D>, _: &SVector<T, D>, out: &mut [[T; D]; D]) {
        zero(out);
    }

    fn dtau_inv_derivative_t_derivatives(
        _: &SVector<T, D>,
        _: &SVector<T, D>,
        _: &SVector<T, D>,
        d_xi: &mut [[T; D]; D],
        d_y: &mut [[T; D]; D],
    ) {
        zero(d_xi);
        zero(d_y);
    }

    fn ad_tau(_: &SVector<T, D>, out: &mut [[T; D]; D]) {
        identity(out);
    }

    fn ad(_: &SVector<T, D>, out: &mut [[T; D]; D]) {
        zero(out);
    }

    fn ad_t_derivative(_: &SVector<T, D>, out: &mut [[T; D]; D]) {
        zero(out);
    }
}
