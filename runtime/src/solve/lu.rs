//! Fixed-size LU factorisation with partial pivoting, in place.
//!
//! This is the linear solver of every Newton iteration. Why not nalgebra's `LU`:
//! `nalgebra::LU::new` skips a zero pivot silently and leaves it to `solve` to report
//! failure later (as `false`/`None`, without saying where). A real-time step wants to
//! know at factorisation — before any work is spent on the right-hand side — and wants
//! to know which column broke down, so that a singular Jacobian can be reported as a
//! [`SolveError`] naming the column (often pointing at a redundant constraint).
//!
//! The factorisation works in place on column storage `[[T; N]; N]` (`a[j][i]` is row
//! `i` of column `j`, nalgebra's layout), so a Newton workspace factors its Jacobian
//! where it was assembled: no `N × N` copy is ever made, which is what lets a step with
//! hundreds of unknowns run on a small thread stack (the matrix itself lives wherever
//! the workspace does, see [`Workspace`](crate::solve::Workspace)).
use nalgebra::{SMatrix, SVector};

use crate::error::SolveError;
use crate::model::Real;

/// Factors the column-stored matrix `a` in place as `P A = L U` with partial (row)
/// pivoting: afterwards `a` holds `L` (unit lower triangular, diagonal not stored) and
/// `U`, and row `i` of `P A` is row `perm[i]` of `A`.
///
/// Returns [`SolveError::SingularMatrix`] with the elimination column `k` when every
/// candidate pivot of that column is zero, or when a candidate is NaN or infinite;
/// `a` and `perm` then hold a partial factorisation (garbage for the caller). No
/// allocation, no panics.
pub fn factor_in_place<T: Real, const N: usize>(
    a: &mut [[T; N]; N],
    perm: &mut [usize; N],
) -> Result<(), SolveError<T>> {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..N {
        // Choose the candidate of largest magnitude in column k, rows k..N.
        let mut pivot_row = k;
        let mut pivot_abs = T::zero();
        // A non-finite entry would poison the elimination (NaN also compares false
        // against every candidate and would slip through the search): noted without a
        // branch per entry, refused after the scan.
        let mut finite = true;
        for (i, entry) in a[k].iter().enumerate().skip(k) {
            let magnitude = entry.abs();
            finite &= magnitude.is_finite();
            if magnitude > pivot_abs {
                pivot_abs = magnitude;
                pivot_row = i;
            }
        }
        // Singularity is detected here, at factorisation, not left to the solve.
        if !finite || pivot_abs == T::zero() {
            return Err(SolveError::SingularMatrix { column: k });
        }
        if pivot_row != k {
            for col in a.iter_mut() {
                col.swap(k, pivot_row);
            }
            perm.swap(k, pivot_row);
        }
        // The multipliers (zeros need no division; in a small matrix a loop without a
        // branch is faster than the test).
        let pivot = a[k][k];
        for entry in a[k].iter_mut().skip(k + 1) {
            if N <= 32 || *entry != T::zero() {
                *entry /= pivot;
            }
        }
        eliminate(a, k);
    }
    Ok(())
}

/// Subtracts `l u` from every column right of pivot `k` (`u` the column's entry in row
/// `k`, `l` the multipliers below the pivot), skipping the columns whose `u` is zero.
/// Where the multipliers are dense (always in a small matrix, `N ≤ 32`, the Jacobian of
/// a few stages; in a larger one when at least half are nonzero, counted once for the
/// pivot) each column is updated whole below the pivot, one loop without a branch that
/// LLVM turns into vector instructions (a zero multiplier changes an entry by `∓0`,
/// which leaves every nonzero value as it was). Where they are sparse (many bodies: a
/// tenth to a third of the entries nonzero), only the rows with a nonzero multiplier.
/// Measured: the branchless loop alone made the 40-link chain's EM step 1.29 times as
/// slow; the count in a small matrix cost a stage step at 10 unknowns 4 %.
fn eliminate<T: Real, const N: usize>(a: &mut [[T; N]; N], k: usize) {
    let (left, right) = a.split_at_mut(k + 1);
    let multipliers = &left[k][k + 1..];
    let dense = N <= 32 || {
        let nonzero = multipliers.iter().filter(|&&l| l != T::zero()).count();
        2 * nonzero >= multipliers.len()
    };
    for col in right.iter_mut() {
        let u = col[k];
        if u == T::zero() {
            continue;
        }
        let below = &mut col[k + 1..];
        if dense {
            for (entry, &l) in below.iter_mut().zip(multipliers) {
                *entry -= l * u;
            }
        } else {
            for (entry, &l) in below.iter_mut().zip(multipliers) {
                if l != T::zero() {
                    *entry -= l * u;
                }
            }
        }
    }
}

/// Overwrites `b` with the solution `x` of `A x = b`, given the factors of
/// [`factor_in_place`].
///
/// Both substitutions go column by column, along the storage: each finished unknown is
/// taken from the rest at once, a loop without a carried sum that LLVM turns into vector
/// instructions (a row's dot product is one chain of dependent subtractions). What
/// bounds a small solve is then the chain from one unknown to the next, so the next
/// unknown's update is taken out of the column's loop and kept in a register (not
/// stored by the loop's vector instructions and loaded back), and the back substitution
/// multiplies by the diagonal's reciprocals, computed first and off that chain, instead
/// of dividing on it: a 10 × 10 solve took 102 ns with the loop and the division, 85 ns
/// with the register, 60 ns with both. The reciprocal rounds once more than the
/// quotient (a backward error of the same order, as LAPACK's scaling by the pivot's
/// reciprocal); a diagonal entry whose reciprocal overflows (below `1/T::MAX`, subnormal
/// in `f64`) is divided by.
pub fn solve_in_place<T: Real, const N: usize>(
    lu: &[[T; N]; N],
    perm: &[usize; N],
    b: &mut SVector<T, N>,
) {
    // Row permutation: row i of the permuted right-hand side is row perm[i] of b.
    let rhs = *b;
    let b: &mut [T; N] = &mut b.data.0[0];
    for (bi, &src) in b.iter_mut().zip(perm) {
        *bi = rhs[src];
    }
    forward_substitution(lu, b);
    let mut reciprocal = [T::zero(); N];
    let mut finite = true;
    for (r, (j, column)) in reciprocal.iter_mut().zip(lu.iter().enumerate()) {
        *r = T::one() / column[j];
        finite &= r.is_finite();
    }
    if finite {
        back_substitution(lu, |j, x| x * reciprocal[j], b);
    } else {
        back_substitution(lu, |j, x| x / lu[j][j], b);
    }
}

/// `b ← L⁻¹ b` with the unit lower triangle of `lu` (each `bᵢ` loses its terms in the
/// order of `j`, as a row's dot product would take them).
fn forward_substitution<T: Real, const N: usize>(lu: &[[T; N]; N], b: &mut [T; N]) {
    let Some(&first) = b.first() else {
        return;
    };
    let mut bj = first;
    for (j, column) in lu.iter().enumerate() {
        b[j] = bj;
        if let Some((&l_next, below)) = column[j + 1..].split_first() {
            let next = b[j + 1] - l_next * bj;
            for (bi, &l) in b[j + 2..].iter_mut().zip(below) {
                *bi -= l * bj;
            }
            bj = next;
        }
    }
}

/// `b ← U⁻¹ b` with the upper triangle of `lu`, `divide(j, x)` dividing `x` by the
/// diagonal entry `j`.
fn back_substitution<T: Real, const N: usize>(
    lu: &[[T; N]; N],
    divide: impl Fn(usize, T) -> T,
    b: &mut [T; N],
) {
    let Some(&last) = b.last() else {
        return;
    };
    let mut bj = divide(N - 1, last);
    for (j, column) in lu.iter().enumerate().rev() {
        b[j] = bj;
        if let Some((&u_next, above)) = column[..j].split_last() {
            let next = divide(j - 1, b[j - 1] - u_next * bj);
            for (bi, &u) in b[..j - 1].iter_mut().zip(above) {
                *bi -= u * bj;
            }
            bj = next;
        }
    }
}

/// LU factorisation `P A = L U` of a small `N × N` matrix, held by value (for the
/// `M × M` and `D × D` solves of initialisation and `M⁻¹ p`; Newton factors its
/// workspace in place with [`factor_in_place`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lu<T, const N: usize> {
    lu: SMatrix<T, N, N>,
    perm: [usize; N],
}

impl<T: Real, const N: usize> Lu<T, N> {
    /// Factors `a` with partial pivoting; errors as [`factor_in_place`].
    pub fn factor(mut a: SMatrix<T, N, N>) -> Result<Self, SolveError<T>> {
        let mut perm = [0; N];
        factor_in_place(&mut a.data.0, &mut perm)?;
        Ok(Self { lu: a, perm })
    }

    /// Overwrites `b` with the solution `x` of `A x = b`.
    pub fn solve_in_place(&self, b: &mut SVector<T, N>) {
        solve_in_place(&self.lu.data.0, &self.perm, b);
    }

    /// Overwrites every column of `b` with the solution of `A x = b_col`.
    pub fn solve_matrix_in_place<const C: usize>(&self, b: &mut SMatrix<T, N, C>) {
        for c in 0..C {
            let mut col: SVector<T, N> = b.column(c).into_owned();
            self.solve_in_place(&mut col);
            b.set_column(c, &col);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{convert, Matrix3, SMatrix, SVector, Vector3};

    /// xorshift64: a deterministic pseudo-random stream for test matrices.
    struct XorShift(u64);

    impl XorShift {
        fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        /// Uniform in `[-1, 1)`.
        fn uniform(&mut self) -> f64 {
            (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    fn max_abs<T: Real, const R: usize, const C: usize>(m: &SMatrix<T, R, C>) -> T {
        m.iter().fold(T::zero(), |acc, x| acc.max(x.abs()))
    }

    fn check<T: Real, const N: usize>(seed: u64, eps: f64) {
        let mut rng = XorShift(seed);
        let a = SMatrix::<T, N, N>::from_fn(|_, _| convert(rng.uniform()));
        let b = SVector::<T, N>::from_fn(|_, _| convert(rng.uniform()));
        let lu = Lu::factor(a).expect("random matrix is regular");

        // P A = L U.
        let l = SMatrix::<T, N, N>::from_fn(|i, j| {
            if i == j {
                T::one()
            } else if i > j {
                lu.lu[(i, j)]
            } else {
                T::zero()
            }
        });
        let u = SMatrix::<T, N, N>::from_fn(|i, j| if i <= j { lu.lu[(i, j)] } else { T::zero() });
        let pa = SMatrix::<T, N, N>::from_fn(|i, j| a[(lu.perm[i], j)]);
        let mut sorted = lu.perm;
        sorted.sort_unstable();
        assert!(
            sorted.iter().enumerate().all(|(i, &p)| i == p),
            "not a permutation"
        );
        let n: T = convert(N as f64);
        let tol: T = convert(eps);
        assert!(
            max_abs(&(pa - l * u)) <= n * tol * max_abs(&a),
            "P A != L U for N = {N}"
        );
        // Partial pivoting bounds the multipliers by 1.
        assert!(max_abs(&l) <= T::one());

        // Solve residual, relative to ‖A‖‖x‖ (backward error).
        let mut x = b;
        lu.solve_in_place(&mut x);
        let r = a * x - b;
        let scale = max_abs(&a) * max_abs(&x) * n;
        assert!(
            max_abs(&r) <= convert::<f64, T>(10.0) * n * tol * scale,
            "residual for N = {N}"
        );

        // Several right-hand sides at once agree with column-by-column solves.
        let bs = SMatrix::<T, N, 2>::from_fn(|_, _| convert(rng.uniform()));
        let mut xs = bs;
        lu.solve_matrix_in_place(&mut xs);
        for c in 0..2 {
            let mut col: SVector<T, N> = bs.column(c).into_owned();
            lu.solve_in_place(&mut col);
            assert_eq!(col, xs.column(c).into_owned());
        }
    }

    #[test]
    fn random_f64() {
        for seed in [1, 0x9e37_79b9_7f4a_7c15, 12345] {
            check::<f64, 1>(seed, f64::EPSILON);
            check::<f64, 3>(seed, f64::EPSILON);
            check::<f64, 8>(seed, f64::EPSILON);
            check::<f64, 20>(seed, f64::EPSILON);
        }
    }

    #[test]
    fn random_f32() {
        for seed in [1, 0x9e37_79b9_7f4a_7c15, 12345] {
            check::<f32, 1>(seed, f64::from(f32::EPSILON));
            check::<f32, 3>(seed, f64::from(f32::EPSILON));
            check::<f32, 8>(seed, f64::from(f32::EPSILON));
            check::<f32, 20>(seed, f64::from(f32::EPSILON));
        }
    }

    /// A diagonal entry whose reciprocal overflows is divided by: the solution is
    /// still exact where the quotients are.
    #[test]
    fn a_subnormal_pivot_is_divided_by() {
        let tiny: f64 = 1e-310;
        assert!((1.0 / tiny).is_infinite());
        let lu = Lu::factor(Matrix3::new(tiny, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.0, 4.0))
            .expect("regular");
        let mut x = Vector3::new(3.0 * tiny, 4.0, 10.0);
        lu.solve_in_place(&mut x);
        assert_eq!(x, Vector3::new(3.0, 2.0, 2.0));
    }

    #[test]
    fn singular_matrix_names_the_column() {
        // Third column is the sum of the first two: elimination breaks down at column 2.
        // (Entries chosen so that elimination is exact in binary floating point.)
        let a = Matrix3::new(2.0, 1.0, 3.0, 4.0, 0.0, 4.0, 0.0, 2.0, 2.0);
        assert_eq!(Lu::factor(a), Err(SolveError::SingularMatrix { column: 2 }));
        // A zero column is caught where it is reached.
        let a = Matrix3::new(1.0, 0.0, 3.0, 4.0, 0.0, 9.0, 7.0, 0.0, 1.0);
        assert_eq!(Lu::factor(a), Err(SolveError::SingularMatrix { column: 1 }));
        assert_eq!(
            Lu::factor(SMatrix::<f64, 4, 4>::zeros()),
            Err(SolveError::SingularMatrix { column: 0 })
        );
    }

    #[test]
    fn non_finite_entries_are_rejected() {
        let a = Matrix3::new(1.0, 2.0, 3.0, f64::NAN, 5.0, 6.0, 7.0, 8.0, 10.0);
        assert_eq!(Lu::factor(a), Err(SolveError::SingularMatrix { column: 0 }));
        let a = Matrix3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, f64::INFINITY, 10.0);
        assert_eq!(Lu::factor(a), Err(SolveError::SingularMatrix { column: 1 }));
    }

    #[test]
    fn zero_leading_entry_needs_pivoting() {
        let a = Matrix3::new(0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 4.0, -3.0, 8.0);
        let lu = Lu::factor(a).expect("regular");
        let x_true = Vector3::new(1.0, -2.0, 0.5);
        let mut x = a * x_true;
        lu.solve_in_place(&mut x);
        assert!((x - x_true).amax() <= 1e-14, "{x}");
    }

    #[test]
    fn empty_and_scalar() {
        let lu = Lu::factor(SMatrix::<f64, 0, 0>::zeros()).expect("empty is regular");
        let mut b = SVector::<f64, 0>::zeros();
        lu.solve_in_place(&mut b);
        let lu = Lu::factor(SMatrix::<f64, 1, 1>::new(4.0)).expect("regular");
        let mut b = SVector::<f64, 1>::new(2.0);
        lu.solve_in_place(&mut b);
        assert_eq!(b[0], 0.5);
    }
}
