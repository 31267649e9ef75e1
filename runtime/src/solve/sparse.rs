//! LU factorisation along an elimination plan fixed at compile time.
//!
//! `model!` knows the sparsity pattern of every step Jacobian it emits. It splits the
//! unknowns in two:
//!
//! - the **primal** ones (positions, momenta, velocities), whose diagonal entries are
//!   structural nonzeros of the form `I + O(h)`: eliminated first, with static
//!   pivots on the diagonal in a fill-reducing (minimum-deficiency) order, and for each
//!   elimination step the plan records which rows and columns it touches;
//! - the **multipliers**, whose diagonal is a structural zero: what is left of their
//!   rows and columns after the primal elimination is their Schur complement, a block
//!   factored with partial pivoting. Its scaling is the scheme's (in EM the `λ`–`λ`
//!   entries are `O(h²)` and the `λ`–`γ` ones `O(h)`), which no static order can know,
//!   so the block pivots by value. A small or full block is factored densely; a block
//!   that a bandwidth-reducing order makes banded ([`Plan::band`]: a chain's
//!   constraints couple only their neighbours) is factored inside its band, as LAPACK's
//!   `gbtrf` does, at a cost linear in its size.
//!
//! Multipliers can also be eliminated before the primal unknowns are done, two at a
//! time: once eliminations have filled the `2 × 2` block of two multipliers (in EM, a
//! constraint's `λ` and `γ`, coupled through the bodies it joins), the plan may take
//! it as one pivot, with the larger of its first column's two entries chosen at run
//! time ([`choose_pair_row`]). This keeps a chain's elimination local: eliminating all
//! primal unknowns first would leave a full Schur complement, since the constraints'
//! curvature couples neighbouring bodies and the inverse of the primal block is full.
//!
//! Release builds of `model!` emit the plan as straight-line code, and for plans with
//! a small dense block they also pack its entries (the Jacobian's nonzeros and the
//! fill) at the front of the matrix in column-major order: the Jacobian's planned
//! writer puts each there, the factorisation and solve read it there, and
//! [`unpack`] restores the column-stored layout for `residual_and_jacobian`. The
//! table-driven functions here always work on the column-stored layout.
//!
//! At run time [`factor`] follows the plan: no pivot search over the primal part, no
//! scan of structural zeros, work proportional to the nonzeros and their fill plus the
//! block's (its cube when dense, its size times the band's area when banded).
//!
//! Static pivots are not chosen by value, so each is checked when it is used: a pivot
//! smaller than [`THRESHOLD`] times the largest primal entry of its column, rows
//! divided by their 1-norms (the classic threshold test of sparse LU codes, on
//! the row-equilibrated matrix), or not finite, stops the factorisation with
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
///
/// The test is made on the row-equilibrated matrix: each entry is divided by the
/// 1-norm of its row in the Jacobian (computed once per factorisation; a sum, cheaper
/// than the largest entry and NaN-propagating), as LAPACK's expert drivers equilibrate
/// before pivoting. Row scaling commutes with elimination,
/// so this is threshold pivoting on `D J` for a diagonal `D`, as stable for it as the
/// unscaled test is for `J`; and the rows of a step Jacobian carry their equations'
/// units, which a test on raw magnitudes would compare. Unscaled, a position pivot of
/// 1 against momentum rows whose spring stiffness gives them entries of 20 (the four
/// particles with VI-θB) failed in 84 % of the factorisations; scaled, in none.
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
    /// Rows of the block, factored after the static steps.
    pub block_rows: &'static [u16],
    /// Columns of the block, in elimination order.
    pub block_columns: &'static [u16],
    /// `Some((lower, upper))` if the block, its rows and columns taken in the orders
    /// above, has no nonzero more than `lower` places below or `upper` places above
    /// its diagonal: it is then factored inside the band ([`factor_block_band`]).
    /// Banded blocks list the same indices in `block_rows` and `block_columns`.
    pub band: Option<(u16, u16)>,
    /// For each row, whether it belongs to the block.
    pub in_block: &'static [bool],
    /// For each row, whether its unknown is a multiplier (a structurally zero
    /// diagonal): the threshold test compares pivots with the other rows only.
    pub multiplier: &'static [bool],
    /// For each static step, whether it and the next form a 2 × 2 pivot on two
    /// multipliers (see [`factor`]).
    pub paired: &'static [bool],
    /// For each static step, whether its pivot is a linear one the scheme declares (an
    /// exact substitution with a constant coefficient, such as EML's `v¹` through
    /// `q¹ − q⁰ − h v^½ = 0`): tested for being finite and nonzero only, since its
    /// size relative to its column says nothing about the elimination (the threshold
    /// test would compare `h/2` with a singular mass matrix's entries and fail).
    pub linear: &'static [bool],
    /// Rows not yet pivoted with a nonzero in the pivot's column, static step `k` at
    /// `rows[row_start[k]..row_start[k + 1]]`: the entries of `L`.
    pub rows: &'static [u16],
    /// Offsets into `rows`, one more than the static steps.
    pub row_start: &'static [u32],
    /// Columns not yet pivoted with a nonzero in the pivot's row: the entries of `U`.
    pub columns: &'static [u16],
    /// Offsets into `columns`, one more than the static steps.
    pub column_start: &'static [u32],
    /// The Jacobian's nonzero columns of each primal row (none for a multiplier's),
    /// row `i` at `scaled[scaled_start[i]..scaled_start[i + 1]]`: the row's largest
    /// magnitudes summed are its scale in the threshold test.
    pub scaled: &'static [u16],
    /// Offsets into `scaled`, one more than the rows.
    pub scaled_start: &'static [u32],
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
    #[inline]
    fn scaled(&self, i: usize) -> &'static [u16] {
        &self.scaled[self.scaled_start[i] as usize..self.scaled_start[i + 1] as usize]
    }

    /// Multiply–adds of one factorisation (for choosing between this plan and the
    /// dense LU, and for reports).
    pub fn flops(&self) -> usize {
        let s = self.block_columns.len();
        let block: usize = match self.band {
            None => (0..s).map(|t| (s - t - 1) * (s - t)).sum(),
            Some((lower, upper)) => {
                let (lower, width) = (lower as usize, (lower + upper) as usize);
                (0..s)
                    .map(|t| (lower.min(s - t - 1)) * (width.min(s - t - 1) + 1))
                    .sum()
            }
        };
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
/// `plan`, and writes into `slot` what [`solve`] needs of the run-time pivoting: for
/// the first column of each 2 × 2 pivot the row exchanged into it, for each column
/// of a dense block the row whose entry of the right-hand side holds its unknown
/// during the solve, for each step of a banded one the position exchanged with it.
/// A static step's unknown is always solved in the row of its own index. Reads only the plan's entries: the Jacobian's nonzeros,
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
    // Each primal row's 1-norm, for the threshold test.
    let mut scale = [T::zero(); N];
    for (i, scale) in scale.iter_mut().enumerate() {
        for &j in plan.scaled(i) {
            *scale += a[j as usize][i].abs();
        }
    }
    // The second pivot's scale while a 2 × 2 pivot is eliminated.
    let mut pair_scale: Option<T> = None;
    let mut gathered = [T::zero(); N];
    for (k, &(r, c)) in plan.pivots.iter().enumerate() {
        let (r, c) = (r as usize, c as usize);
        let first_of_pair = plan.paired[k];
        let second_of_pair = pair_scale.is_some();
        if first_of_pair {
            pair_scale = Some(choose_pair_row(plan, k, a, slot));
        }
        let rows = plan.rows(k);
        let pivot = a[c][r];
        let mut finite = pivot.is_finite();
        for &i in rows {
            finite &= a[c][i as usize].is_finite();
        }
        let acceptable = if plan.linear[k] {
            true
        } else if first_of_pair || second_of_pair {
            // A 2 × 2 pivot is a piece of the multipliers' Schur complement, whose
            // scale (`h²` and `h` in EM) is not the primal rows': it is tested against
            // itself (see `choose_pair_row`).
            let largest = match second_of_pair {
                true => pivot.abs().max(pair_scale.take().unwrap_or_else(T::zero)),
                false => pivot.abs(),
            };
            pivot.abs() >= threshold * largest && largest.is_finite()
        } else {
            // A single pivot is tested against the primal rows below it, each row
            // divided by its 1-norm (see [`THRESHOLD`]).
            let magnitude = pivot.abs();
            let limit = threshold * scale[r];
            rows.iter()
                .filter(|&&i| !plan.multiplier[i as usize])
                .all(|&i| a[c][i as usize].abs() * limit <= magnitude * scale[i as usize])
        };
        if !(acceptable && finite) || pivot == T::zero() {
            return Err(NeedsPivoting { step: k });
        }
        let inverse = T::one() / pivot;
        // The multipliers, gathered contiguously: the updates below then read them
        // in order, and index only the column they write.
        let multipliers = &mut gathered[..rows.len()];
        for (l, &i) in multipliers.iter_mut().zip(rows) {
            let i = i as usize;
            a[c][i] *= inverse;
            *l = a[c][i];
        }
        for &j in plan.columns(k) {
            let column = &mut a[j as usize];
            let u = column[r];
            if u == T::zero() {
                continue;
            }
            for (&l, &i) in multipliers.iter().zip(rows) {
                column[i as usize] -= l * u;
            }
        }
    }
    match plan.band {
        Some(_) => factor_block_band(plan, a, slot),
        None => factor_block(plan, a, slot),
    }
}

/// The dense block of [`factor`] (the multipliers' Schur complement, left by the
/// static steps), by partial pivoting; the row of block position `t` is kept in
/// `slot[block_columns[t]]`. Called by [`factor`] and by the straight-line static steps `model!`
/// emits for small plans.
pub fn factor_block<T: Real, const N: usize>(
    plan: &Plan,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> Result<(), NeedsPivoting> {
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

/// Factors the `S × S` block `block` (column-stored) in place with partial pivoting,
/// as [`lu::factor_in_place`](crate::solve::lu::factor_in_place) does, for the
/// compact layout's straight-line code; a singular block is reported as the
/// elimination step `statics` plus its column.
pub fn factor_small_block<T: Real, const S: usize>(
    block: &mut [[T; S]; S],
    perm: &mut [usize; S],
    statics: usize,
) -> Result<(), NeedsPivoting> {
    crate::solve::lu::factor_in_place(block, perm).map_err(|e| NeedsPivoting {
        step: statics
            + match e {
                crate::SolveError::SingularMatrix { column } => column,
                _ => 0,
            },
    })
}

/// Moves the entries of a Jacobian written in a plan's compact layout (entry `k` at
/// flat position `k` of the column-stored `a`) to their places: `source[k]` is entry
/// `k`'s place `j N + i`, or `u32::MAX` for a fill entry, which is dropped. Places are
/// increasing and never before their entries, so the move goes in place from the
/// last entry down; positions left behind are zeroed.
pub fn unpack<T: Real, const N: usize>(a: &mut [[T; N]; N], source: &[u32]) {
    let flat = a.as_flattened_mut();
    for (k, &place) in source.iter().enumerate().rev() {
        let value = core::mem::replace(&mut flat[k], T::zero());
        if place != u32::MAX {
            flat[place as usize] = value;
        }
    }
}

/// The banded block of [`factor`] ([`Plan::band`] is `Some((kl, ku))`), by partial
/// pivoting inside the band, in the layout of LAPACK's `gbtrf`: at step `t` the pivot
/// is the largest of the `kl` entries below the diagonal and the diagonal itself (all
/// others are zero), the two rows are exchanged from column `t` on (`U` then has
/// `kl + ku` superdiagonals), and the multipliers stay in column `t` at the positions
/// of that step; the row exchanged with position `t` is kept in `slot[column t]` for
/// [`solve_block_band`]. Entries are addressed by block position: row `p` of the block
/// is `block_rows[p]` of `a`, and the plan's fill zeroes every entry of the band that
/// the Jacobian does not write.
pub fn factor_block_band<T: Real, const N: usize>(
    plan: &Plan,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> Result<(), NeedsPivoting> {
    let Some((lower, upper)) = plan.band else {
        return factor_block(plan, a, slot);
    };
    let (rows, columns) = (plan.block_rows, plan.block_columns);
    let s = columns.len();
    let (lower, width) = (lower as usize, (lower + upper) as usize);
    let statics = plan.pivots.len();
    for t in 0..s {
        let c = columns[t] as usize;
        let last = (t + lower).min(s - 1);
        let end = (t + width).min(s - 1);
        let mut best = t;
        let mut largest = T::zero();
        for (p, &row) in rows.iter().enumerate().take(last + 1).skip(t) {
            let magnitude = a[c][row as usize].abs();
            if !magnitude.is_finite() {
                return Err(NeedsPivoting { step: statics + t });
            }
            if magnitude > largest {
                largest = magnitude;
                best = p;
            }
        }
        if largest == T::zero() {
            return Err(NeedsPivoting { step: statics + t });
        }
        slot[c] = best;
        let (r, rb) = (rows[t] as usize, rows[best] as usize);
        if best != t {
            for &v in &columns[t..=end] {
                a[v as usize].swap(r, rb);
            }
        }
        let below = &rows[t + 1..=last];
        let inverse = T::one() / a[c][r];
        for &p in below {
            a[c][p as usize] *= inverse;
        }
        for &v in &columns[t + 1..=end] {
            let v = v as usize;
            let u = a[v][r];
            if u == T::zero() {
                continue;
            }
            let (multipliers, target) = two_columns(a, c, v);
            for &p in below {
                let p = p as usize;
                target[p] -= multipliers[p] * u;
            }
        }
    }
    Ok(())
}

/// The banded block's part of [`solve`], with the factors of [`factor_block_band`]:
/// forward with the row exchanges and multipliers of each step in turn, backward with
/// `U`'s band. Unknown `c` of the block is left in `b[c]` (the block's rows and columns
/// are the same indices).
pub fn solve_block_band<T: Real, const N: usize>(
    plan: &Plan,
    lu: &[[T; N]; N],
    slot: &[usize; N],
    b: &mut SVector<T, N>,
) {
    let Some((lower, upper)) = plan.band else {
        return solve_block(plan, lu, slot, b);
    };
    let (rows, columns) = (plan.block_rows, plan.block_columns);
    let s = columns.len();
    let (lower, width) = (lower as usize, (lower + upper) as usize);
    for t in 0..s {
        let c = columns[t] as usize;
        let r = rows[t] as usize;
        let best = slot[c];
        if best != t {
            b.swap_rows(r, rows[best] as usize);
        }
        let y = b[r];
        if y != T::zero() {
            for &p in &rows[t + 1..=(t + lower).min(s - 1)] {
                let p = p as usize;
                b[p] -= lu[c][p] * y;
            }
        }
    }
    for t in (0..s).rev() {
        let r = rows[t] as usize;
        let mut sum = b[r];
        for (&v, &rv) in columns[t + 1..=(t + width).min(s - 1)]
            .iter()
            .zip(&rows[t + 1..])
        {
            sum -= lu[v as usize][r] * b[rv as usize];
        }
        b[r] = sum / lu[columns[t] as usize][r];
    }
}

/// The first half of a 2 × 2 pivot (static steps `k` and `k + 1`, on two multipliers
/// whose rows and columns the plan gave the same pattern): the larger of the two
/// entries in the first column becomes the pivot, by exchanging the two rows from
/// that column on if needed (the earlier steps' multipliers stay where they are, as in
/// LAPACK's `gbtrf`). `slot[first column]` records the row exchanged with the first
/// pivot row, for [`solve`]'s forward pass. Returns the scale the second pivot is
/// tested against: `(|a₁₁ a₂₂| + |a₁₂ a₂₁|) / |p₁|`, so that the test bounds the
/// block's determinant relative to its terms, a measure no row or column scaling
/// changes (the multipliers' rows carry their constraints' arbitrary normalisation).
pub fn choose_pair_row<T: Real, const N: usize>(
    plan: &Plan,
    k: usize,
    a: &mut [[T; N]; N],
    slot: &mut [usize; N],
) -> T {
    let (r1, c1) = plan.pivots[k];
    let (r2, c2) = plan.pivots[k + 1];
    let (r1, c1, r2, c2) = (r1 as usize, c1 as usize, r2 as usize, c2 as usize);
    // |det| ≥ τ (|a₁₁ a₂₂| + |a₁₂ a₂₁|) says the 2 × 2 block is not close to singular
    // whatever the scaling of its rows and columns; with det = p₁ p₂ it is a bound on
    // the second pivot.
    let products = (a[c1][r1] * a[c2][r2]).abs() + (a[c2][r1] * a[c1][r2]).abs();
    let first = a[c1][r1].abs().max(a[c1][r2].abs());
    let scale = if first > T::zero() {
        products / first
    } else {
        T::zero()
    };
    if a[c1][r2].abs() > a[c1][r1].abs() {
        a[c1].swap(r1, r2);
        for &j in plan.columns(k) {
            a[j as usize].swap(r1, r2);
        }
        slot[c1] = r2;
    } else {
        slot[c1] = r1;
    }
    scale
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
    // Forward, static steps: L y = b in pivot order, with the row exchanges of the
    // 2 × 2 pivots.
    for (k, &(r, c)) in plan.pivots.iter().enumerate() {
        let (r, c) = (r as usize, c as usize);
        if plan.paired[k] && slot[c] != r {
            b.swap_rows(r, slot[c]);
        }
        let y = b[r];
        if y != T::zero() {
            for &i in plan.rows(k) {
                let i = i as usize;
                b[i] -= lu[c][i] * y;
            }
        }
    }
    let banded = plan.band.is_some();
    if banded {
        solve_block_band(plan, lu, slot, b);
    } else {
        solve_block(plan, lu, slot, b);
    }
    // Backward, static steps, last first; unknown j of a dense block sits in
    // b[slot[j]] until the end, of a banded one in b[j].
    for (k, &(r, c)) in plan.pivots.iter().enumerate().rev() {
        let (r, c) = (r as usize, c as usize);
        let mut s = b[r];
        for &j in plan.columns(k) {
            let j = j as usize;
            let x = if banded || !plan.in_block[j] {
                b[j]
            } else {
                b[slot[j]]
            };
            s -= lu[j][r] * x;
        }
        b[r] = s / lu[c][r];
    }
    if !banded {
        unpermute_block(plan, slot, b);
    }
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
        band: None,
        in_block: &[false, false, true],
        multiplier: &[false, false, true],
        paired: &[false, false],
        linear: &[false, false],
        rows: &[2, 2],
        row_start: &[0, 1, 2],
        columns: &[2, 2],
        column_start: &[0, 1, 2],
        scaled: &[0, 2, 1, 2],
        scaled_start: &[0, 2, 4, 4],
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

    /// `[[p, u], [l, d]]`, both unknowns primal, eliminated on the diagonal in order.
    const TWO: Plan = Plan {
        n: 2,
        pivots: &[(0, 0), (1, 1)],
        block_rows: &[],
        block_columns: &[],
        band: None,
        in_block: &[false, false],
        multiplier: &[false, false],
        paired: &[false, false],
        linear: &[false, false],
        rows: &[1],
        row_start: &[0, 1, 1],
        columns: &[1],
        column_start: &[0, 1, 1],
        scaled: &[0, 1, 0, 1],
        scaled_start: &[0, 2, 4],
        fill: &[],
    };

    /// The threshold test compares rows divided by their 1-norms: an entry of 20
    /// below a pivot of 1 passes when it dominates its row (its equation's units), and
    /// a pivot of 0.01 fails against it whatever its row's scale.
    #[test]
    fn the_threshold_test_is_made_on_the_equilibrated_rows() {
        let mut slot = [0; 2];
        let mut a = [[1.0, 20.0], [0.0, 1.0]];
        assert_eq!(factor(&TWO, &mut a, &mut slot), Ok(()));
        let mut a = [[1.0, 20.0], [0.0, 1e3]];
        assert_eq!(factor(&TWO, &mut a, &mut slot), Ok(()));
        let mut a = [[0.01, 20.0], [1.0, 1.0]];
        assert_eq!(
            factor(&TWO, &mut a, &mut slot),
            Err(NeedsPivoting { step: 0 })
        );
        // Scaling the pivot's row does not rescue it: its norm scales too.
        let mut a = [[10.0, 20.0], [1e3, 1.0]];
        assert_eq!(
            factor(&TWO, &mut a, &mut slot),
            Err(NeedsPivoting { step: 0 })
        );
    }

    /// A declared linear pivot is tested for being finite and nonzero only: the pivot
    /// of 0.01 that fails against 1 in its column above passes as a linear pivot, and
    /// the solution is the dense one; zero and NaN still fail.
    #[test]
    fn a_linear_pivot_is_exempt_from_the_threshold_test() {
        const LINEAR: Plan = Plan {
            linear: &[true, false],
            ..TWO
        };
        let mut slot = [0; 2];
        let mut a = [[0.01, 20.0], [1.0, 1.0]];
        assert_eq!(factor(&LINEAR, &mut a, &mut slot), Ok(()));
        let mut x = nalgebra::Vector2::new(1.0, 2.0);
        solve(&LINEAR, &a, &slot, &mut x);
        // Column storage: the matrix is [[0.01, 1], [20, 1]].
        let want = nalgebra::Matrix2::new(0.01, 1.0, 20.0, 1.0)
            .lu()
            .solve(&nalgebra::Vector2::new(1.0, 2.0))
            .unwrap();
        assert!((x - want).amax() <= 1e-13 * want.amax(), "{x} vs {want}");
        for bad in [0.0, f64::NAN] {
            let mut a = [[bad, 20.0], [1.0, 1.0]];
            assert_eq!(
                factor(&LINEAR, &mut a, &mut slot),
                Err(NeedsPivoting { step: 0 })
            );
        }
    }

    /// A block with two sub- and one superdiagonal, in the order 5, 4, …, 0 of the
    /// matrix's indices, whose small diagonal makes every step exchange rows.
    const BAND: Plan = Plan {
        n: 6,
        pivots: &[],
        block_rows: &[5, 4, 3, 2, 1, 0],
        block_columns: &[5, 4, 3, 2, 1, 0],
        band: Some((2, 1)),
        in_block: &[true; 6],
        multiplier: &[true; 6],
        paired: &[],
        linear: &[],
        rows: &[],
        row_start: &[0],
        columns: &[],
        column_start: &[0],
        scaled: &[],
        scaled_start: &[0; 7],
        // The band's fill: positions (p, p + 2) and (p, p + 3).
        fill: &[(5, 3), (5, 2), (4, 2), (4, 1), (3, 1), (3, 0), (2, 0)],
    };

    #[test]
    fn banded_block_matches_the_dense_solution_through_row_exchanges() {
        // Entry (p, v) of the block in positions, for v − p in −2..=1.
        let entry = |p: usize, v: usize| -> f64 {
            match v as isize - p as isize {
                0 => 1e-3 * (p as f64 + 1.0),
                -2..=1 => 1.0 + 0.3 * p as f64 - 0.7 * v as f64,
                _ => 0.0,
            }
        };
        let index = |p: usize| 5 - p;
        let mut a = [[f64::NAN; 6]; 6];
        let mut dense = nalgebra::SMatrix::<f64, 6, 6>::zeros();
        for p in 0..6 {
            for v in 0..6 {
                let x = entry(p, v);
                if x != 0.0 {
                    a[index(v)][index(p)] = x;
                }
                dense[(index(p), index(v))] = x;
            }
        }
        let mut slot = [0; 6];
        factor(&BAND, &mut a, &mut slot).unwrap();
        // Each step found a larger entry below its tiny diagonal.
        assert!((0..5).all(|t| slot[index(t)] != t), "{slot:?}");
        let rhs = nalgebra::SVector::<f64, 6>::from_fn(|i, _| 1.0 + i as f64 * 0.25);
        let mut x = rhs;
        solve(&BAND, &a, &slot, &mut x);
        let want = dense.lu().solve(&rhs).unwrap();
        assert!((x - want).amax() < 1e-12 * want.amax(), "{x} vs {want}");
        // Steps 0–2: 2 rows × (3 columns + 1); 3: 2 × 3; 4: 1 × 2; 5: none.
        assert_eq!(BAND.flops(), 3 * 2 * 4 + 2 * 3 + 2);
    }
}
