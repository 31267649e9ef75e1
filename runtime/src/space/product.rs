//! Products of configuration spaces: a rigid body and the position of its contact point
//! (the ball on a turntable, SO(3) × R², of the nonholonomic paper's Sec. 7.5), a group
//! and the scalar coordinates beside it.
use core::marker::PhantomData;

use nalgebra::{RealField, SVector};

use super::Space;

/// The product `A × B`: a configuration is `A`'s `QA` stored numbers followed by `B`'s
/// `QB`, a tangent vector `A`'s `DA` components followed by `B`'s `DB`, and a step
/// retracts each factor by its own map. Every map of [`Space`] is then block-diagonal:
/// the two factors' algebras commute with each other, and `B(ξ) y` of one factor reads
/// only that factor's `ξ` and `y`.
///
/// The sizes of the product, `D = DA + DB` and `Q = QA + QB`, are the trait's parameters
/// (stable Rust cannot add const generics in a type); a use with other sizes fails when
/// the code that uses it is built (a constant assertion, which `cargo check` does not
/// evaluate). `Product<So3, Euclidean, 3, 4, 2, 2>` is a `Space<T, 5, 6>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Product<A, B, const DA: usize, const QA: usize, const DB: usize, const QB: usize>(
    PhantomData<(A, B)>,
);

/// `x` cut after its first `N` components.
fn split<T: RealField + Copy, const D: usize, const N: usize, const M: usize>(
    x: &SVector<T, D>,
) -> (SVector<T, N>, SVector<T, M>) {
    (
        SVector::from_fn(|i, _| x[i]),
        SVector::from_fn(|i, _| x[N + i]),
    )
}

/// `(a, b)` as one vector.
fn join<T: RealField + Copy, const N: usize, const M: usize, const D: usize>(
    a: &SVector<T, N>,
    b: &SVector<T, M>,
) -> SVector<T, D> {
    SVector::from_fn(|i, _| if i < N { a[i] } else { b[i - N] })
}

/// The block-diagonal matrix of the factors' maps `fa` and `fb`, in column storage.
fn blocks<T: RealField + Copy, const DA: usize, const DB: usize, const D: usize>(
    out: &mut [[T; D]; D],
    fa: impl FnOnce(&mut [[T; DA]; DA]),
    fb: impl FnOnce(&mut [[T; DB]; DB]),
) {
    let (mut a, mut b) = ([[T::zero(); DA]; DA], [[T::zero(); DB]; DB]);
    fa(&mut a);
    fb(&mut b);
    for column in out.iter_mut() {
        column.fill(T::zero());
    }
    for (j, column) in a.iter().enumerate() {
        out[j][..DA].copy_from_slice(column);
    }
    for (j, column) in b.iter().enumerate() {
        out[DA + j][DA..].copy_from_slice(column);
    }
}

/// Refuses, when a method is compiled, a product used with sizes other than its factors'.
macro_rules! sizes_agree {
    () => {
        const {
            assert!(
                D == DA + DB && Q == QA + QB,
                "a product space's sizes are the sums of its factors'"
            )
        }
    };
}

impl<
        T,
        A,
        B,
        const DA: usize,
        const QA: usize,
        const DB: usize,
        const QB: usize,
        const D: usize,
        const Q: usize,
    > Space<T, D, Q> for Product<A, B, DA, QA, DB, QB>
where
    T: RealField + Copy,
    A: Space<T, DA, QA>,
    B: Space<T, DB, QB>,
{
    const NAME: &'static str = "product";
    const FLAT: bool = A::FLAT && B::FLAT;

    fn retract(q: &SVector<T, Q>, xi: &SVector<T, D>) -> SVector<T, Q> {
        sizes_agree!();
        let ((qa, qb), (xa, xb)) = (split::<T, Q, QA, QB>(q), split::<T, D, DA, DB>(xi));
        join(&A::retract(&qa, &xa), &B::retract(&qb, &xb))
    }

    fn local(q0: &SVector<T, Q>, q1: &SVector<T, Q>) -> SVector<T, D> {
        sizes_agree!();
        let ((a0, b0), (a1, b1)) = (split::<T, Q, QA, QB>(q0), split::<T, Q, QA, QB>(q1));
        join(&A::local(&a0, &a1), &B::local(&b0, &b1))
    }

    fn dtau_inv(xi: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let (xa, xb) = split::<T, D, DA, DB>(xi);
        blocks(out, |o| A::dtau_inv(&xa, o), |o| B::dtau_inv(&xb, o));
    }

    fn dtau(xi: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let (xa, xb) = split::<T, D, DA, DB>(xi);
        blocks(out, |o| A::dtau(&xa, o), |o| B::dtau(&xb, o));
    }

    fn dtau_inv_derivative(xi: &SVector<T, D>, y: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let ((xa, xb), (ya, yb)) = (split::<T, D, DA, DB>(xi), split::<T, D, DA, DB>(y));
        blocks(
            out,
            |o| A::dtau_inv_derivative(&xa, &ya, o),
            |o| B::dtau_inv_derivative(&xb, &yb, o),
        );
    }

    fn dtau_inv_t_derivative(xi: &SVector<T, D>, m: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let ((xa, xb), (ma, mb)) = (split::<T, D, DA, DB>(xi), split::<T, D, DA, DB>(m));
        blocks(
            out,
            |o| A::dtau_inv_t_derivative(&xa, &ma, o),
            |o| B::dtau_inv_t_derivative(&xb, &mb, o),
        );
    }

    fn dtau_inv_derivative_t_derivatives(
        xi: &SVector<T, D>,
        y: &SVector<T, D>,
        pi: &SVector<T, D>,
        d_xi: &mut [[T; D]; D],
        d_y: &mut [[T; D]; D],
    ) {
        sizes_agree!();
        let (xa, xb) = split::<T, D, DA, DB>(xi);
        let (ya, yb) = split::<T, D, DA, DB>(y);
        let (pa, pb) = split::<T, D, DA, DB>(pi);
        // Each factor's two derivatives at once, kept for the second block-diagonal.
        let (mut a_y, mut b_y) = ([[T::zero(); DA]; DA], [[T::zero(); DB]; DB]);
        blocks(
            d_xi,
            |o| A::dtau_inv_derivative_t_derivatives(&xa, &ya, &pa, o, &mut a_y),
            |o| B::dtau_inv_derivative_t_derivatives(&xb, &yb, &pb, o, &mut b_y),
        );
        blocks(d_y, |o| *o = a_y, |o| *o = b_y);
    }

    fn ad_tau(xi: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let (xa, xb) = split::<T, D, DA, DB>(xi);
        blocks(out, |o| A::ad_tau(&xa, o), |o| B::ad_tau(&xb, o));
    }

    fn ad(u: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let (ua, ub) = split::<T, D, DA, DB>(u);
        blocks(out, |o| A::ad(&ua, o), |o| B::ad(&ub, o));
    }

    fn ad_t_derivative(w: &SVector<T, D>, out: &mut [[T; D]; D]) {
        sizes_agree!();
        let (wa, wb) = split::<T, D, DA, DB>(w);
        blocks(
            out,
            |o| A::ad_t_derivative(&wa, o),
            |o| B::ad_t_derivative(&wb, o),
        );
    }
}
