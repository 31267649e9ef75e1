//! Block writes shared by the stage families' assemblies ([`super::prk`],
//! [`super::prk_holonomic`], [`super::prk_nonholonomic`]): a kernel (`D × D`, or a
//! `K × D` constraint matrix), or its transpose, scaled and added at a block of the
//! column-stored Jacobian, over the kernel's structural nonzeros when `model!` gave
//! them.
use crate::model::Real;

/// What an assembly writes at the entries it visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    /// Zero: with an elimination plan, the entries the assembly adds to are zeroed
    /// first, without evaluating the kernels, instead of the whole matrix.
    Zero,
    /// The term, added.
    Add,
}

/// The stages `l` whose tableau coefficient `row[l]` is not a structural zero, with it:
/// the blocks an assembly writes, in both passes. The others are outside the plan's
/// pattern (`macros/src/emit/stage_patterns.rs`).
pub(crate) fn nonzero<const S: usize>(row: &[f64; S]) -> impl Iterator<Item = (usize, f64)> + '_ {
    row.iter().copied().enumerate().filter(|&(_, a)| a != 0.0)
}

/// A kernel of `R` rows and `C` columns in column storage (`values[c][r]` is its row
/// `r`, column `c`), with its structural nonzeros `(r, c)` if known.
#[derive(Clone, Copy)]
pub(crate) struct Kernel<'a, T, const R: usize, const C: usize> {
    pub values: &'a [[T; R]; C],
    pub pattern: Option<&'static [(u16, u16)]>,
}

impl<'a, T, const R: usize, const C: usize> Kernel<'a, T, R, C> {
    pub fn new(values: &'a [[T; R]; C], pattern: Option<&'static [(u16, u16)]>) -> Self {
        Self { values, pattern }
    }
}

/// Adds `f · K` (`f · Kᵀ` if `transpose`) at rows `row…`, columns `column…` of the
/// column-stored Jacobian, visiting `K`'s pattern (every entry without one), or zeroes
/// the entries it would add to. Adding skips a zero `f`; zeroing does not, so that
/// every entry of a plan's pattern is zeroed even where a coefficient `f` computed at
/// run time is zero (`h²` underflowing), and none keeps a value of the last
/// factorisation. The blocks of the tableau's own zeros, which the pattern leaves out,
/// the assemblies skip before calling this, in both passes ([`nonzero`]).
pub(crate) fn add<T: Real, const R: usize, const C: usize, const N: usize>(
    jac: &mut [[T; N]; N],
    (row, column): (usize, usize),
    f: T,
    kernel: Kernel<'_, T, R, C>,
    transpose: bool,
    write: Write,
) {
    if write == Write::Add && f == T::zero() {
        return;
    }
    let mut entry = |r: usize, c: usize| {
        let (i, j) = if transpose { (c, r) } else { (r, c) };
        let target = &mut jac[column + j][row + i];
        match write {
            Write::Zero => *target = T::zero(),
            Write::Add => *target += f * kernel.values[c][r],
        }
    };
    match kernel.pattern {
        Some(pattern) => {
            for &(r, c) in pattern {
                entry(r as usize, c as usize);
            }
        }
        None => {
            for c in 0..C {
                for r in 0..R {
                    entry(r, c);
                }
            }
        }
    }
}
