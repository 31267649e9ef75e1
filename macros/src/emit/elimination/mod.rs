//! The elimination plan of a step Jacobian, chosen at compile time from its sparsity
//! pattern and emitted as data for the runtime's `solve::sparse` (see there for how it
//! is used and safeguarded).
//!
//! Order: the unknowns whose diagonal entry is a structural nonzero (positions,
//! momenta, velocities: the templates write equation `i` for unknown `i`, and these
//! entries are `I + O(h)`, the strongest of their columns) are eliminated on the
//! diagonal. Between them the plan may take two multipliers together as a 2 × 2 pivot
//! (constraint `k`'s two, see [`Elimination::plan`]) once the eliminations have filled
//! their block and every primal unknown of their own equations is gone. Each step
//! takes the candidate that creates the least fill (minimum deficiency), ties to the
//! smaller Markowitz count `(rᵢ − 1)(cᵢ − 1)`, then to the lowest index, so the plan
//! is deterministic. What is left when the primal unknowns are done (the multipliers'
//! Schur complement) is one block, factored with partial pivoting at run time.
//!
//! Measured on a chain of `n` masses (EM, multiply–adds per factorisation, `n` = 10,
//! 20, 40): the first plans (all primal unknowns first, Markowitz order) left the
//! `2n` multipliers a full Schur complement, since the constraints' curvature couples
//! neighbouring bodies and the primal block's inverse is full: 9.9 k, 53 k, about
//! 200 k. A band LU of the whole matrix in reverse Cuthill–McKee order: 164 k at 40.
//! With the 2 × 2 pivots in Markowitz order 11 k, 41 k, 99 k; in minimum-deficiency
//! order 6.6 k, 15.6 k, 33.6 k, linear in `n` (the top's EM: 4.7 k, 4.2 k, 3.8 k).
//! A purely structural order without the primal-first rule, tried first, picked
//! constraint-gradient and `h`-scaled pivots that failed the run-time threshold test
//! in every step of the catalogue's models.
//!
//! The block is ordered by reverse Cuthill–McKee; when factoring inside the band that
//! order gives costs at most half the dense factorisation, the plan says so ([`Band`]),
//! otherwise the block stays dense.
//!
//! The plan is made here; [`straight_line`] emits its static steps as code, for plans
//! small enough.
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::private;

mod straight_line;
#[cfg(test)]
mod tests;

/// The plan of an `n × n` pattern.
pub struct Elimination {
    n: usize,
    /// `(row, column)` of each static step's pivot.
    pivots: Vec<(usize, usize)>,
    /// Rows and columns left for the block, in its elimination order.
    block_rows: Vec<usize>,
    block_columns: Vec<usize>,
    /// The block's band, if it is factored inside one.
    band: Option<Band>,
    /// Whether each row's unknown is a multiplier (no structural diagonal).
    multiplier: Vec<bool>,
    /// Whether each static step and the next form a 2 × 2 pivot.
    paired: Vec<bool>,
    /// Whether each static step's pivot is a linear pivot the template declared
    /// (`Template::linear_pivots`), exempt from the threshold test.
    linear: Vec<bool>,
    /// Rows below each pivot with a nonzero in its column.
    rows: Vec<Vec<usize>>,
    /// Columns right of each pivot with a nonzero in its row.
    columns: Vec<Vec<usize>>,
    /// Entries the factorisation reads that the Jacobian does not have: the static
    /// steps' fill and the block's zeros.
    fill: Vec<(usize, usize)>,
    /// The Jacobian's nonzero columns of each primal row (empty for a multiplier's):
    /// the entries whose magnitudes, summed, scale the row in the threshold test.
    scaled: Vec<Vec<usize>>,
    /// The Jacobian's nonzeros `(row, column)`.
    pattern: Vec<(usize, usize)>,
}

impl Elimination {
    /// Plans the elimination of the `n × n` pattern `nonzeros` (`(row, column)`), as
    /// the module says. `None` if the pattern has no nonzero diagonal entry at all
    /// (the dense LU is then as good).
    ///
    /// `partners` are the pairs of unknowns that may be eliminated together as a 2 × 2
    /// pivot when both turn out to be multipliers (in the GGL schemes, constraint
    /// `k`'s two multipliers).
    pub fn plan(
        n: usize,
        nonzeros: impl IntoIterator<Item = (usize, usize)>,
        partners: &[(usize, usize)],
    ) -> Option<Self> {
        Self::plan_with_linear_pivots(n, nonzeros, partners, &[])
    }

    /// [`Elimination::plan`], with the unknowns `linear` eliminated first, in order, on
    /// their diagonal: each is an exact linear substitution the template declares
    /// (`Template::linear_pivots`: EML's `v¹` through (72a), `p¹` through (72c)), whose
    /// pivot is a constant like `h/2`. The threshold test would compare it with the
    /// singular mass matrix's entries in its column and fall back every time; what is
    /// left after them is the reduced (REML) Jacobian, planned as usual.
    pub fn plan_with_linear_pivots(
        n: usize,
        nonzeros: impl IntoIterator<Item = (usize, usize)>,
        partners: &[(usize, usize)],
        linear: &[usize],
    ) -> Option<Self> {
        let mut in_row: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for (i, j) in nonzeros {
            in_row[i].insert(j);
        }
        if linear.iter().any(|&i| !in_row[i].contains(&i)) {
            return None;
        }
        Self::primal_first(n, in_row, partners, linear)
    }

    /// Static pivots for every unknown whose diagonal entry is a structural nonzero and
    /// for the pairs of multipliers that become ready in between, the rest left to the
    /// block; `None` without a primal unknown.
    fn primal_first(
        n: usize,
        mut in_row: Vec<BTreeSet<usize>>,
        partners: &[(usize, usize)],
        linear: &[usize],
    ) -> Option<Self> {
        let mut in_column: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for (i, row) in in_row.iter().enumerate() {
            for &j in row {
                in_column[j].insert(i);
            }
        }
        let primal: Vec<bool> = (0..n).map(|i| in_row[i].contains(&i)).collect();
        if !primal.contains(&true) {
            return None;
        }
        let original = (in_row.clone(), in_column.clone());
        let mut plan = Self::empty(n);
        plan.pattern = (0..n)
            .flat_map(|i| in_row[i].iter().map(move |&j| (i, j)))
            .collect();
        plan.multiplier = primal.iter().map(|&p| !p).collect();
        plan.scaled = (0..n)
            .map(|i| match primal[i] {
                true => in_row[i].iter().copied().collect(),
                false => Vec::new(),
            })
            .collect();
        let mut done = vec![false; n];
        let union = |a: &BTreeSet<usize>, b: &BTreeSet<usize>, not: [usize; 2]| -> Vec<usize> {
            a.union(b).copied().filter(|x| !not.contains(x)).collect()
        };
        loop {
            // The candidate creating the least fill (the minimum-deficiency order),
            // ties to the smaller Markowitz count `|rows| · |columns|`, then to the
            // single pivot, then to the lower index, so the plan is deterministic.
            let cost = |rows: &[usize], columns: &[usize]| {
                let fill: usize = rows
                    .iter()
                    .map(|r| columns.iter().filter(|c| !in_row[*r].contains(c)).count())
                    .sum();
                (fill, rows.len() * columns.len())
            };
            // Single primal pivots on the diagonal ...
            let single = (0..n)
                .filter(|&i| primal[i] && !done[i])
                .map(|i| {
                    let rows = union(&in_column[i], &in_column[i], [i, i]);
                    let columns = union(&in_row[i], &in_row[i], [i, i]);
                    (cost(&rows, &columns), 0, i, i)
                })
                .min();
            // ... and the pairs of multipliers whose 2 × 2 block has filled in both
            // off the diagonal (structurally nonsingular whatever its diagonal), once
            // every primal unknown of their own equations and columns is eliminated:
            // before, their block holds only part of the constraints' gradients and
            // can be singular where the gradient lies along what is left (the
            // pendulum's pair taken before its vertical unknowns failed in one
            // factorisation in ten).
            let ready = |i: usize| {
                let (rows, columns) = (&original.1[i], &original.0[i]);
                rows.iter().chain(columns).all(|&u| done[u] || !primal[u])
            };
            let pair = partners
                .iter()
                .map(|&(i, j)| (i.min(j), i.max(j)))
                .filter(|&(i, j)| {
                    let candidate = |u: usize| !primal[u] && !done[u] && ready(u);
                    candidate(i) && candidate(j) && in_row[i].contains(&j) && in_row[j].contains(&i)
                })
                .map(|(i, j)| {
                    let rows = union(&in_column[i], &in_column[j], [i, j]);
                    let columns = union(&in_row[i], &in_row[j], [i, j]);
                    (cost(&rows, &columns), 1, i, j)
                })
                .min();
            // Once the primal unknowns are done, what is left is the multipliers'
            // Schur complement, which pivoting by value factors more safely than a
            // static order of pairs (the top's failed its threshold test every time).
            if single.is_none() {
                break;
            }
            // The declared linear pivots come first, in their order.
            let next_linear = linear.iter().copied().find(|&i| !done[i]);
            let chosen = match next_linear {
                Some(i) => Some(((0, 0), 0, i, i)),
                None => [single, pair].into_iter().flatten().min(),
            };
            let Some((_, _, i, j)) = chosen else {
                break;
            };
            let pivots: &[usize] = if i == j { &[i] } else { &[i, j] };
            let not = [i, j];
            let rows = union(&in_column[i], &in_column[j], not);
            let columns = union(&in_row[i], &in_row[j], not);
            eliminate(
                pivots,
                &rows,
                &columns,
                (&mut in_row, &mut in_column),
                &mut plan.fill,
            );
            for &p in pivots {
                done[p] = true;
            }
            plan.record(i, j, next_linear.is_some(), rows, columns);
        }
        let rest: Vec<usize> = (0..n).filter(|&i| !done[i]).collect();
        plan.block(rest, &mut in_row);
        Some(plan)
    }

    /// Records the static step on pivot `i` (or the pair `i`, `j`) with the rows and
    /// columns it eliminates.
    fn record(&mut self, i: usize, j: usize, linear: bool, rows: Vec<usize>, columns: Vec<usize>) {
        if i == j {
            self.pivots.push((i, i));
            self.paired.push(false);
            self.linear.push(linear);
            self.rows.push(rows);
            self.columns.push(columns);
        } else {
            // Step one eliminates column i below its pivot, row j included; step
            // two column j below its own.
            self.pivots.extend([(i, i), (j, j)]);
            self.paired.extend([true, false]);
            self.linear.extend([false, false]);
            self.rows.push([&[j][..], &rows].concat());
            self.columns.push([&[j][..], &columns].concat());
            self.rows.push(rows);
            self.columns.push(columns);
        }
    }

    fn empty(n: usize) -> Self {
        Elimination {
            n,
            pivots: Vec::new(),
            block_rows: Vec::new(),
            block_columns: Vec::new(),
            band: None,
            multiplier: vec![false; n],
            paired: Vec::new(),
            linear: Vec::new(),
            rows: Vec::new(),
            columns: Vec::new(),
            fill: Vec::new(),
            scaled: vec![Vec::new(); n],
            pattern: Vec::new(),
        }
    }

    /// Makes `rest` (with the pattern `in_row` left by the static steps) the block:
    /// orders it, factors it inside its band when that costs at most half of the dense
    /// factorisation, and adds to the fill every entry of it the factorisation reads
    /// and the Jacobian does not write: all of a dense block, the band of a banded one
    /// (with the `lower` extra superdiagonals that row exchanges fill).
    fn block(&mut self, rest: Vec<usize>, in_row: &mut [BTreeSet<usize>]) {
        let order = reverse_cuthill_mckee(&rest, in_row);
        let s = order.len();
        let dense_flops: usize = (0..s).map(|t| (s - t - 1) * (s - t)).sum();
        self.band = Band::of(&order, in_row).filter(|band| 2 * band.flops(s) <= dense_flops);
        let reads = |p: usize, v: usize| match self.band {
            None => true,
            Some(Band { lower, upper }) => v + lower >= p && v <= p + lower + upper,
        };
        for (p, &r) in order.iter().enumerate() {
            for (v, &c) in order.iter().enumerate() {
                if reads(p, v) && in_row[r].insert(c) {
                    self.fill.push((r, c));
                }
            }
        }
        self.block_rows = order.clone();
        self.block_columns = order;
    }

    /// Multiply–adds of one factorisation along the plan.
    pub fn flops(&self) -> usize {
        let s = self.block_columns.len();
        let block: usize = match &self.band {
            Some(band) => band.flops(s),
            None => (0..s).map(|t| (s - t - 1) * (s - t)).sum(),
        };
        self.rows
            .iter()
            .zip(&self.columns)
            .map(|(r, c)| r.len() * (c.len() + 1))
            .sum::<usize>()
            + block
    }

    /// The plan as a `livens::solve::sparse::Plan` expression (a constant).
    pub fn tokens(&self) -> TokenStream {
        let p = private();
        let n = self.n;
        let pivots = self.pivots.iter().map(|&(i, j)| {
            let (i, j) = (i as u16, j as u16);
            quote!((#i, #j))
        });
        let in_block = (0..n).map(|i| self.block_rows.contains(&i));
        let multiplier = &self.multiplier;
        let paired = &self.paired;
        let linear = &self.linear;
        let block_rows = self.block_rows.iter().map(|&i| i as u16);
        let block_columns = self.block_columns.iter().map(|&i| i as u16);
        let band = match &self.band {
            Some(Band { lower, upper }) => {
                let (lower, upper) = (*lower as u16, *upper as u16);
                quote!(::core::option::Option::Some((#lower, #upper)))
            }
            None => quote!(::core::option::Option::None),
        };
        let flat = |lists: &[Vec<usize>]| {
            let mut start = vec![0u32];
            let mut all = Vec::new();
            for list in lists {
                all.extend(list.iter().map(|&x| x as u16));
                start.push(all.len() as u32);
            }
            (all, start)
        };
        let (rows, row_start) = flat(&self.rows);
        let (columns, column_start) = flat(&self.columns);
        let (scaled, scaled_start) = flat(&self.scaled);
        let fill = self.fill.iter().map(|&(i, j)| {
            let (i, j) = (i as u16, j as u16);
            quote!((#i, #j))
        });
        quote! {
            #p::Plan {
                n: #n,
                pivots: &[#(#pivots),*],
                block_rows: &[#(#block_rows),*],
                block_columns: &[#(#block_columns),*],
                band: #band,
                in_block: &[#(#in_block),*],
                multiplier: &[#(#multiplier),*],
                paired: &[#(#paired),*],
                linear: &[#(#linear),*],
                rows: &[#(#rows),*],
                row_start: &[#(#row_start),*],
                columns: &[#(#columns),*],
                column_start: &[#(#column_start),*],
                scaled: &[#(#scaled),*],
                scaled_start: &[#(#scaled_start),*],
                fill: &[#(#fill),*],
            }
        }
    }
}

/// The half-bandwidths of a block in its elimination order: no nonzero lies more than
/// `lower` places below or `upper` places above the diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Band {
    lower: usize,
    upper: usize,
}

impl Band {
    /// The band of `order`'s block in the pattern `in_row`; `None` for an empty block.
    fn of(order: &[usize], in_row: &[BTreeSet<usize>]) -> Option<Band> {
        let position = |i: usize| order.iter().position(|&x| x == i);
        let mut band = Band { lower: 0, upper: 0 };
        for (p, &r) in order.iter().enumerate() {
            for v in in_row[r].iter().filter_map(|&c| position(c)) {
                band.lower = band.lower.max(p.saturating_sub(v));
                band.upper = band.upper.max(v.saturating_sub(p));
            }
        }
        (!order.is_empty()).then_some(band)
    }

    /// Multiply–adds of a banded factorisation of `s` unknowns with partial pivoting
    /// (`U` gains `lower` superdiagonals from the row exchanges).
    fn flops(&self, s: usize) -> usize {
        let width = self.lower + self.upper;
        (0..s)
            .map(|t| self.lower.min(s - t - 1) * (width.min(s - t - 1) + 1))
            .sum()
    }
}

/// The reverse Cuthill–McKee order of the unknowns `nodes` in the (symmetrised)
/// pattern `in_row`: breadth first from a node of least degree, neighbours by
/// increasing degree, reversed; each connected part in turn. It keeps every coupling
/// close to the diagonal, so a chain-like block becomes banded. Ties go to the lowest
/// index, so the order is deterministic.
fn reverse_cuthill_mckee(nodes: &[usize], in_row: &[BTreeSet<usize>]) -> Vec<usize> {
    let member: BTreeSet<usize> = nodes.iter().copied().collect();
    let mut adjacent: std::collections::BTreeMap<usize, BTreeSet<usize>> =
        nodes.iter().map(|&i| (i, BTreeSet::new())).collect();
    for &i in nodes {
        for &j in in_row[i].iter().filter(|&&j| j != i && member.contains(&j)) {
            if let Some(a) = adjacent.get_mut(&i) {
                a.insert(j);
            }
            if let Some(a) = adjacent.get_mut(&j) {
                a.insert(i);
            }
        }
    }
    let degree = |i: usize| adjacent[&i].len();
    let mut order: Vec<usize> = Vec::with_capacity(nodes.len());
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    while let Some(start) = nodes
        .iter()
        .copied()
        .filter(|i| !seen.contains(i))
        .min_by_key(|&i| (degree(i), i))
    {
        seen.insert(start);
        let mut next = order.len();
        order.push(start);
        while next < order.len() {
            let i = order[next];
            next += 1;
            let mut neighbours: Vec<usize> = adjacent[&i]
                .iter()
                .copied()
                .filter(|j| !seen.contains(j))
                .collect();
            neighbours.sort_by_key(|&j| (degree(j), j));
            for j in neighbours {
                seen.insert(j);
                order.push(j);
            }
        }
    }
    order.reverse();
    order
}

/// Eliminates `pivots` from the pattern (`in_row`, `in_column`): the fill their
/// `rows` × `columns` create, recorded in `fill`, then their rows and columns removed
/// from what is left.
fn eliminate(
    pivots: &[usize],
    rows: &[usize],
    columns: &[usize],
    (in_row, in_column): (&mut [BTreeSet<usize>], &mut [BTreeSet<usize>]),
    fill: &mut Vec<(usize, usize)>,
) {
    let mut add = |r: usize, c: usize, in_row: &mut [BTreeSet<usize>]| {
        if in_row[r].insert(c) {
            in_column[c].insert(r);
            fill.push((r, c));
        }
    };
    // A pair's two rows (and two columns) get the same pattern, so that the run-time
    // exchange of its rows moves nonzeros onto nonzeros.
    for &p in pivots {
        for &c in pivots.iter().chain(columns) {
            add(p, c, in_row);
        }
        for &r in rows {
            add(r, p, in_row);
        }
    }
    for &r in rows {
        for &c in columns {
            add(r, c, in_row);
        }
    }
    // Remove the pivots' rows and columns from what is left.
    for &p in pivots {
        for &c in columns {
            in_column[c].remove(&p);
        }
        for &r in rows {
            in_row[r].remove(&p);
        }
    }
    for &p in pivots {
        in_row[p].clear();
        in_column[p].clear();
    }
}
