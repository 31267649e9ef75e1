//! LU factorisation along an elimination plan fixed at compile time.
//!
//! `model!` knows the sparsity pattern of every step Jacobian it emits. It splits the
//! unknowns in two:
//!
//! - the **primal** ones (positions, momenta, velocities), whose diagonal entries are
//!   structural nonzeros of the form `I + O(h)`: eliminated first, with static
//!   pivots on the diagonal in a fill-reducing (Markowitz) order, and for each
//!   elimination step the plan records which rows and columns it touches;
//! - the **multipliers**, whose diagonal is a structural zero: what is left of their
//!   rows and columns after the primal elimination is their Schur complement, a small
//!   block factored densely with partial pivoting. Its scaling is the scheme's (in EM
//!   the `λ`–`λ` entries are `O(h²)` and the `λ`–`γ` ones `O(h)`), which no static
//!   order can know, so the block pivots by value.
//!
//! At run time [`factor`] follows the plan: no pivot search over the primal part, no
//! scan of structural zeros, work proportional to the nonzeros and their fill plus the
//! block's cube.
//!
//! Static pivots are not chosen by value, so each is checked when it is used: a pivot
//! smaller than [`THRESHOLD`] times the largest primal entry of its column (the classic
//! threshold test of sparse LU codes), or not finite, stops the factorisation with
//! [`NeedsPivoting`], as does a block without a nonzero pivot. The caller then factors
//! the whole Jacobian with partial pivoting
//! ([`lu::factor_in_place`](crate::solve::lu::factor_in_place), which also reports a
//! singular Jacobian by column) and counts it: the plan never produces a wrong answer,
//! only a slower step.
use nalgebra::SVector;

use crate::model::Real;

/// A pivot may be this small relative to the largest entry in its column before the
/// factorisation falls back to partial pivoting. `0.1` is the usual choice of
/// threshold-pivoting codes: growth stays bounded by `1 + 1/0.1` per step.
pub const THRESHOLD: f64 = 0.1;

/// The elimination of an `n × n` matrix with a fixed sparsity pattern, as `model!`
/// emits it. Indices are rows and columns of the original matrix; static step `k`
/// eliminates with the pivot `(pivots[k].0, pivots[k].1)` (row, column); the rows and
/// columns no static step pivots form the dense block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Number of unknowns.
    pub n: usize,
    /// Pivot `(row, column)` of each static step.
    pub pivots: &'static [(u16, u16)],
    /// Rows of the dense block, factored after the static steps.
    pub block_rows: &'static [u16],
    /// Columns of the dense block, in elimination order.
    pub block_columns: &'static [u16],
    /// For each row, whether it belongs to the dense block.
    pub in_block: &'static [bool],
    /// Rows not yet pivoted with a nonzero in the pivot's column, static step `k` at
    /// `rows[row_start[k]..row_start[k + 1]]`: the entries of `L`.
    pub rows: &'static [u16],
    /// Offsets into `rows`, one more than the static steps.
    pub row_start: &'static [u32],
    /// Columns not yet pivoted with a nonzero in the pivot's row: the entries of `U`.
    pub columns: &'static [u16],
    /// Offsets into `columns`, one more than the static steps.
    pub column_start: &'static [u32],
    /// `(row, column)` of every entry that is structurally zero in the Jacobian but
    /// is read by the factorisation (the static steps' fill, the block's zeros):
    /// zeroed before factoring, since the Jacobian's writer only writes its nonzeros.
    pub fill: &'static [(u16, u16)],
}

impl Plan {
    #[inline]
    fn rows(&self, k: usize) -> &'static [u16] {
        &self.rows[self.row_start[k] as usize..self.row_start[k + 1] as usize]
    }
    #[inline]
    fn columns(&self, k: usize) -> &'static [u16] {
        &self.columns[self.column_start[k] as usize..self.column_start[k + 1] as usize]
    }

    /// Multiply–adds of one factorisation (for choosing between this plan and the
    /// dense LU, and for reports).
    pub fn flops(&self) -> usize {
        let s = self.block_columns.len();
        let block: usize = (0..s).map(|t| (s - t - 1) * (s - t)).sum();
        (0..self.pivots.len())
            .map(|k| self.rows(k).len() * (self.columns(k).len() + 1))
            .sum::<usize>()
            + block
    }
}

/// A static pivot failed the threshold test (or was not finite) in elimination step
/// `step`, or the dense block found no nonzero pivot (`step` counts on through it):
/// factor with partial pivoting instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedsPivoting {
    /// The elimination step.
    pub step: usize,
}

/// Factors the column-stored `a` (`a[j][i]` is row `i` of column `j`) in place along
/// `plan`, and writes into `slot[j]` the row whose entry of the right-hand side holds
/// unknown `j` during [`solve`]. Reads only the plan's entries: the Jacobian's nonzeros,
/// which the caller has written, and the entries of [`Plan::fill`], zeroed here first.
/// On error `a` is partly factored: the caller must assemble it again before factoring
/// another way.
pub fn factor<T: Real, const N: usize>(
    plan: &Plan,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> Result<(), NeedsPivoting> {
    debug_assert_eq!(plan.n, N);
    for &(i, j) in plan.fill {
        a[j as usize][i as usize] = T::zero();
    }
    let threshold: T = nalgebra::convert(THRESHOLD);
    for (k, &(r, c)) in plan.pivots.iter().enumerate() {
        let (r, c) = (r as usize, c as usize);
        let rows = plan.rows(k);
        let pivot = a[c][r];
        // The threshold test looks at the other primal rows only: a multiplier row's
        // entries scale with its constraint's arbitrary normalisation (the top's rows
        // carry 1/l and M⁻¹, 13 and 3.8e3 against a pivot of 1), and eliminating the
        // primal block first is the saddle-point elimination, whose stability rests
        // on that block, not on the scale of the rows below it.
        let mut largest = pivot.abs();
        let mut finite = true;
        for &i in rows {
            let entry = a[c][i as usize].abs();
            finite &= entry.is_finite();
            if !plan.in_block[i as usize] {
                largest = largest.max(entry);
            }
        }
        let acceptable = pivot.abs() >= threshold * largest && largest.is_finite() && finite;
        if !acceptable || pivot == T::zero() {
            return Err(NeedsPivoting { step: k });
        }
        let inverse = T::one() / pivot;
        for &i in rows {
            a[c][i as usize] *= inverse;
        }
        for &j in plan.columns(k) {
            let j = j as usize;
            let u = a[j][r];
            if u == T::zero() {
                continue;
            }
            let (lower, upper) = two_columns(a, c, j);
            for &i in rows {
                let i = i as usize;
                upper[i] -= lower[i] * u;
            }
        }
    }
    factor_block(plan, a, slot)
}

/// The dense block of [`factor`] (the multipliers' Schur complement, left by the
/// static steps), by partial pivoting; the row of block position `t` is kept in
/// `slot[block_columns[t]]`, and every static column `c` (pivoted on the diagonal) in
/// `slot[c] = c`. Called by [`factor`] and by the straight-line static steps `model!`
/// emits for small plans.
pub fn factor_block<T: Real, const N: usize>(
    plan: &Plan,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> Result<(), NeedsPivoting> {
    for &(r, c) in plan.pivots {
        slot[c as usize] = r as usize;
    }
    let (rows, columns) = (plan.block_rows, plan.block_columns);
    for (&row, &column) in rows.iter().zip(columns) {
        slot[column as usize] = row as usize;
    }
    let statics = plan.pivots.len();
    for t in 0..columns.len() {
        let c = columns[t] as usize;
        let mut best = t;
        let mut largest = T::zero();
        for (u, &cu) in columns.iter().enumerate().skip(t) {
            let magnitude = a[c][slot[cu as usize]].abs();
            if !magnitude.is_finite() {
                return Err(NeedsPivoting { step: statics + t });
            }
            if magnitude > largest {
                largest = magnitude;
                best = u;
            }
        }
        if largest == T::zero() {
            return Err(NeedsPivoting { step: statics + t });
        }
        slot.swap(c, columns[best] as usize);
        let r = slot[c];
        let inverse = T::one() / a[c][r];
        for &cu in &columns[t + 1..] {
            let ru = slot[cu as usize];
            a[c][ru] *= inverse;
        }
        for &cv in &columns[t + 1..] {
            let cv = cv as usize;
            let u = a[cv][r];
            if u == T::zero() {
                continue;
            }
            let (lower, upper) = two_columns(a, c, cv);
            for &cu in &columns[t + 1..] {
                let ru = slot[cu as usize];
                upper[ru] -= lower[ru] * u;
            }
        }
    }
    Ok(())
}

/// [`factor_block`] for a block of `S` unknowns known at compile time: the block is
/// copied into a contiguous `S × S` matrix, factored there by the dense LU (no index
/// indirection, `S` fixed), and copied back in the layout [`solve_block`] reads.
/// `model!` calls it for blocks small enough for the stack.
pub fn factor_block_dense<T: Real, const N: usize, const S: usize>(
    plan: &Plan,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> Result<(), NeedsPivoting> {
    debug_assert_eq!(plan.block_columns.len(), S);
    for &(r, c) in plan.pivots {
        slot[c as usize] = r as usize;
    }
    let (rows, columns) = (plan.block_rows, plan.block_columns);
    let mut block = [[T::zero(); S]; S];
    for (column, &c) in block.iter_mut().zip(columns) {
        for (entry, &r) in column.iter_mut().zip(rows) {
            *entry = a[c as usize][r as usize];
        }
    }
    let mut perm = [0usize; S];
    crate::solve::lu::factor_in_place(&mut block, &mut perm).map_err(|e| NeedsPivoting {
        step: plan.pivots.len()
            + match e {
                crate::SolveError::SingularMatrix { column } => column,
                _ => 0,
            },
    })?;
    // Row t of the factors is the block's row perm[t]: that is the slot of column t.
    for (t, &c) in columns.iter().enumerate() {
        slot[c as usize] = rows[perm[t]] as usize;
    }
    for (column, &c) in block.iter().zip(columns) {
        for (t, &entry) in column.iter().enumerate() {
            a[c as usize][rows[perm[t]] as usize] = entry;
        }
    }
    Ok(())
}

/// Column `c` to read and column `j ≠ c` to update, borrowed together.
fn two_columns<T, const N: usize>(
    a: &mut [[T; N]; N],
    c: usize,
    j: usize,
) -> (&[T; N], &mut [T; N]) {
    if c < j {
        let (left, right) = a.split_at_mut(j);
        (&left[c], &mut right[0])
    } else {
        let (left, right) = a.split_at_mut(c);
        (&right[0], &mut left[j])
    }
}

/// Overwrites `b` with the solution of `A x = b`, given the factors and the slots of
/// [`factor`]. `b` is indexed by equation on entry and by unknown on return.
pub fn solve<T: Real, const N: usize>(
    plan: &Plan,
    lu: &[[T; N]; N],
    slot: &[usize; N],
    b: &mut SVector<T, N>,
) {
    // Forward, static steps: L y = b in pivot order.
    for (k, &(r, c)) in plan.pivots.iter().enumerate() {
        let (r, c) = (r as usize, c as usize);
        let y = b[r];
        if y != T::zero() {
            for &i in plan.rows(k) {
                let i = i as usize;
                b[i] -= lu[c][i] * y;
            }
        }
    }
    solve_block(plan, lu, slot, b);
    // Backward, static steps, last first; unknown j sits in b[slot[j]] until the end.
    for (k, &(r, c)) in plan.pivots.iter().enumerate().rev() {
        let (r, c) = (r as usize, c as usize);
        let mut s = b[r];
        for &j in plan.columns(k) {
            let j = j as usize;
            s -= lu[j][r] * b[slot[j]];
        }
        b[r] = s / lu[c][r];
    }
    unpermute_block(plan, slot, b);
}

/// The block's part of [`solve`]: forward with its unit lower triangle, then backward
/// with its upper; unknown `c` of the block is left in `b[slot[c]]`.
pub fn solve_block<T: Real, const N: usize>(
    plan: &Plan,
    lu: &[[T; N]; N],
    slot: &[usize; N],
    b: &mut SVector<T, N>,
) {
    let columns = plan.block_columns;
    for (t, &ct) in columns.iter().enumerate() {
        let ct = ct as usize;
        let y = b[slot[ct]];
        for &cu in &columns[t + 1..] {
            let ru = slot[cu as usize];
            b[ru] -= lu[ct][ru] * y;
        }
    }
    for (t, &ct) in columns.iter().enumerate().rev() {
        let ct = ct as usize;
        let rt = slot[ct];
        let mut s = b[rt];
        for &cv in &columns[t + 1..] {
            let cv = cv as usize;
            s -= lu[cv][rt] * b[slot[cv]];
        }
        b[rt] = s / lu[ct][rt];
    }
}

/// Moves each unknown of the block from `b[slot[c]]` to `b[c]` (the static unknowns,
/// pivoted on the diagonal, are already in place).
pub fn unpermute_block<T: Real, const N: usize>(
    plan: &Plan,
    slot: &[usize; N],
    b: &mut SVector<T, N>,
) {
    let y = *b;
    for &c in plan.block_columns {
        let c = c as usize;
        b[c] = y[slot[c]];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    /// `[[a, 0, b₀], [0, c, b₁], [b₀, b₁, 0]]`: two static diagonal pivots, the
    /// multiplier's Schur complement as a 1 × 1 block, fill at (2, 2).
    const SADDLE: Plan = Plan {
        n: 3,
        pivots: &[(0, 0), (1, 1)],
        block_rows: &[2],
        block_columns: &[2],
        in_block: &[false, false, true],
        rows: &[2, 2],
        row_start: &[0, 1, 2],
        columns: &[2, 2],
        column_start: &[0, 1, 2],
        fill: &[(2, 2)],
    };

    fn saddle(a: f64, c: f64, b0: f64, b1: f64) -> [[f64; 3]; 3] {
        // Column storage; (2, 2) left as garbage: the plan zeroes its fill.
        [[a, 0.0, b0], [0.0, c, b1], [b0, b1, f64::NAN]]
    }

    #[test]
    fn table_driven_factor_and_solve_match_the_dense_solution() {
        let mut m = saddle(2.0, 3.0, 1.0, -0.5);
        let mut slot = [0; 3];
        factor(&SADDLE, &mut m, &mut slot).unwrap();
        let rhs = Vector3::new(1.0, -2.0, 0.5);
        let mut x = rhs;
        solve(&SADDLE, &m, &slot, &mut x);
        let dense = Matrix3::new(2.0, 0.0, 1.0, 0.0, 3.0, -0.5, 1.0, -0.5, 0.0);
        let want = dense.lu().solve(&rhs).unwrap();
        assert!((x - want).amax() < 1e-15, "{x} vs {want}");
    }

    #[test]
    fn a_small_static_pivot_asks_for_partial_pivoting() {
        // a = 1e-3 is small, but the only other entry of its column is in row 2, the
        // block's, which the threshold test does not compare with: it passes.
        let mut m = saddle(1e-3, 3.0, 1.0, -0.5);
        let mut slot = [0; 3];
        assert!(factor(&SADDLE, &mut m, &mut slot).is_ok());
        // A zero or NaN pivot never passes.
        let mut m = saddle(0.0, 3.0, 1.0, -0.5);
        assert_eq!(
            factor(&SADDLE, &mut m, &mut slot),
            Err(NeedsPivoting { step: 0 })
        );
        let mut m = saddle(f64::NAN, 3.0, 1.0, -0.5);
        assert_eq!(
            factor(&SADDLE, &mut m, &mut slot),
            Err(NeedsPivoting { step: 0 })
        );
        // A singular Schur complement (b = 0) stops in the block.
        let mut m = saddle(2.0, 3.0, 0.0, 0.0);
        assert_eq!(
            factor(&SADDLE, &mut m, &mut slot),
            Err(NeedsPivoting { step: 2 })
        );
    }
}
