//! The elimination plan of a step Jacobian, chosen at compile time from its sparsity
//! pattern and emitted as data for the runtime's `solve::sparse` (see there for how it
//! is used and safeguarded).
//!
//! Order: the unknowns whose diagonal entry is a structural nonzero (positions,
//! momenta, velocities: the templates write equation `i` for unknown `i`, and these
//! entries are `I + O(h)`, the strongest of their columns) are eliminated first, on
//! the diagonal, in Markowitz order: each step takes the remaining `(i, i)` that
//! minimises `(rᵢ − 1)(cᵢ − 1)`, `rᵢ` and `cᵢ` the nonzeros left in its row and column,
//! the elimination that creates the least fill; ties go to the lowest index, so the
//! plan is deterministic. The rest (the multipliers, whose diagonal is a structural
//! zero) is their Schur complement, factored as one dense block with partial
//! pivoting at run time. A purely structural Markowitz order, tried first, picked
//! constraint-gradient and `h`-scaled pivots that failed the run-time threshold test
//! in every step of the catalogue's models.
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;

use super::lit;

use super::private;

/// The plan of an `n × n` pattern.
pub struct Elimination {
    n: usize,
    /// `(row, column)` of each static step's pivot.
    pivots: Vec<(usize, usize)>,
    /// Rows and columns left for the dense block.
    block_rows: Vec<usize>,
    block_columns: Vec<usize>,
    /// Rows below each pivot with a nonzero in its column.
    rows: Vec<Vec<usize>>,
    /// Columns right of each pivot with a nonzero in its row.
    columns: Vec<Vec<usize>>,
    /// Entries the factorisation reads that the Jacobian does not have: the static
    /// steps' fill and the block's zeros.
    fill: Vec<(usize, usize)>,
}

impl Elimination {
    /// Plans the elimination of the `n × n` pattern `nonzeros` (`(row, column)`):
    /// static diagonal pivots for every unknown whose diagonal entry is a structural
    /// nonzero, the rest left to the dense block. `None` if the pattern has no nonzero
    /// diagonal entry at all (the dense LU is then as good).
    pub fn plan(n: usize, nonzeros: impl IntoIterator<Item = (usize, usize)>) -> Option<Self> {
        let mut in_row: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut in_column: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        for (i, j) in nonzeros {
            in_row[i].insert(j);
            in_column[j].insert(i);
        }
        let primal: Vec<bool> = (0..n).map(|i| in_row[i].contains(&i)).collect();
        if !primal.contains(&true) {
            return None;
        }
        let mut plan = Elimination {
            n,
            pivots: Vec::new(),
            block_rows: Vec::new(),
            block_columns: Vec::new(),
            rows: Vec::new(),
            columns: Vec::new(),
            fill: Vec::new(),
        };
        let mut done = vec![false; n];
        // Markowitz among the primal diagonal entries still to eliminate.
        while let Some((_, i)) = (0..n)
            .filter(|&i| primal[i] && !done[i])
            .map(|i| ((in_row[i].len() - 1) * (in_column[i].len() - 1), i))
            .min()
        {
            let rows: Vec<usize> = in_column[i].iter().copied().filter(|&r| r != i).collect();
            let columns: Vec<usize> = in_row[i].iter().copied().filter(|&c| c != i).collect();
            for &r in &rows {
                for &c in &columns {
                    if in_row[r].insert(c) {
                        in_column[c].insert(r);
                        plan.fill.push((r, c));
                    }
                }
            }
            // Remove the pivot's row and column from what is left.
            for &c in &columns {
                in_column[c].remove(&i);
            }
            for &r in &rows {
                in_row[r].remove(&i);
            }
            in_row[i].clear();
            in_column[i].clear();
            done[i] = true;
            plan.pivots.push((i, i));
            plan.rows.push(rows);
            plan.columns.push(columns);
        }
        // The rest is one dense block: every entry of it is read.
        let rest: Vec<usize> = (0..n).filter(|&i| !done[i]).collect();
        for &r in &rest {
            for &c in &rest {
                if in_row[r].insert(c) {
                    plan.fill.push((r, c));
                }
            }
        }
        plan.block_rows = rest.clone();
        plan.block_columns = rest;
        Some(plan)
    }

    /// Multiply–adds of one factorisation along the plan.
    #[cfg(test)]
    pub fn flops(&self) -> usize {
        let s = self.block_columns.len();
        let block: usize = (0..s).map(|t| (s - t - 1) * (s - t)).sum();
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
        let block_rows = self.block_rows.iter().map(|&i| i as u16);
        let block_columns = self.block_columns.iter().map(|&i| i as u16);
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
                in_block: &[#(#in_block),*],
                rows: &[#(#rows),*],
                row_start: &[#(#row_start),*],
                columns: &[#(#columns),*],
                column_start: &[#(#column_start),*],
                fill: &[#(#fill),*],
            }
        }
    }
}

/// Multiply–adds of static elimination up to which `model!` emits the static steps as
/// straight-line code (no index tables, constant indices, no bounds checks); larger
/// plans follow the tables at run time.
const STRAIGHT_LINE_LIMIT: usize = 20_000;

/// Blocks of up to this many unknowns are factored in a contiguous stack copy
/// (`8 S²` bytes in `f64`: 32 KiB at 64).
const DENSE_BLOCK_LIMIT: usize = 64;

impl Elimination {
    fn static_flops(&self) -> usize {
        self.rows
            .iter()
            .zip(&self.columns)
            .map(|(r, c)| r.len() * (c.len() + 1))
            .sum()
    }

    /// `factor_planned` and `solve_planned` of `DiscreteSystem`, with the static steps
    /// as straight-line code and the block through the runtime, for plans small
    /// enough; nothing (the trait's table-driven defaults) otherwise. `plan` is the
    /// expression naming the emitted `Plan`.
    pub fn methods(&self, plan: &TokenStream) -> TokenStream {
        if self.static_flops() > STRAIGHT_LINE_LIMIT {
            return quote!();
        }
        let p = private();
        let n = lit(self.n);
        let at = |i: usize, j: usize| {
            let (i, j) = (lit(i), lit(j));
            quote!(a[#j][#i])
        };
        let fill = self.fill.iter().map(|&(i, j)| {
            let e = at(i, j);
            quote!(#e = T::zero();)
        });
        let in_block = |i: usize| self.block_rows.contains(&i);
        let steps = self.pivots.iter().enumerate().map(|(k, &(r, c))| {
            let rows = &self.rows[k];
            let pivot = at(r, c);
            let largest = rows.iter().filter(|&&i| !in_block(i)).map(|&i| {
                let e = at(i, c);
                quote!(let largest = largest.max(#e.abs());)
            });
            let scale = rows.iter().map(|&i| {
                let e = at(i, c);
                quote!(#e *= inverse;)
            });
            let updates = self.columns[k].iter().map(|&j| {
                let u = at(r, j);
                let each = rows.iter().map(|&i| {
                    let (target, l) = (at(i, j), at(i, c));
                    quote!(#target -= #l * u;)
                });
                quote!({ let u = #u; #(#each)* })
            });
            quote! {
                {
                    let pivot = #pivot;
                    let largest = pivot.abs();
                    #(#largest)*
                    if !(pivot.abs() >= threshold * largest && largest.is_finite()) || pivot == T::zero() {
                        return ::core::option::Option::Some(::core::result::Result::Err(
                            #p::NeedsPivoting { step: #k },
                        ));
                    }
                    let inverse = T::one() / pivot;
                    #(#scale)*
                    #(#updates)*
                }
            }
        });
        let b = |i: usize| {
            let i = lit(i);
            quote!(b[#i])
        };
        // x_j of a block column sits in b[slot[j]] until the block is unpermuted.
        let x = |j: usize| {
            if in_block(j) {
                let j = lit(j);
                quote!(b[slot[#j]])
            } else {
                b(j)
            }
        };
        let forward = self.pivots.iter().enumerate().map(|(k, &(r, c))| {
            let y = b(r);
            let each = self.rows[k].iter().map(|&i| {
                let (bi, l) = (b(i), at(i, c));
                quote!(#bi -= #l * y;)
            });
            quote!({ let y = #y; #(#each)* })
        });
        let backward = self.pivots.iter().enumerate().rev().map(|(k, &(r, c))| {
            let (br, pivot) = (b(r), at(r, c));
            let each = self.columns[k].iter().map(|&j| {
                let (u, xj) = (at(r, j), x(j));
                quote!(s -= #u * #xj;)
            });
            quote!({ let mut s = #br; #(#each)* #br = s / #pivot; })
        });
        // A small block is factored in a contiguous copy by the dense LU.
        let size = self.block_columns.len();
        let block = if size <= DENSE_BLOCK_LIMIT {
            let s = lit(size);
            quote!(#p::sparse::factor_block_dense::<T, #n, #s>(plan, a, slot))
        } else {
            quote!(#p::sparse::factor_block(plan, a, slot))
        };
        quote! {
            #[allow(clippy::all)]
            fn factor_planned(
                &self,
                a: &mut [[T; #n]; #n],
                slot: &mut [usize; #n],
            ) -> ::core::option::Option<::core::result::Result<(), #p::NeedsPivoting>> {
                let plan: &#p::Plan = #plan;
                #(#fill)*
                let threshold = #p::c::<T>(#p::sparse_threshold());
                #(#steps)*
                ::core::option::Option::Some(#block)
            }

            #[allow(clippy::all)]
            fn solve_planned(&self, a: &[[T; #n]; #n], slot: &[usize; #n], r: &mut #p::SVector<T, #n>) {
                let plan: &#p::Plan = #plan;
                {
                    let b = &mut r.data.0[0];
                    #(#forward)*
                }
                #p::sparse::solve_block(plan, a, slot, r);
                {
                    let b = &mut r.data.0[0];
                    #(#backward)*
                }
                #p::sparse::unpermute_block(plan, slot, r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arrow matrix pointing down-right needs no fill when its dense row and column
    /// go last; Markowitz finds that order.
    #[test]
    fn arrow_is_eliminated_without_fill() {
        let n = 6;
        let mut nz = vec![];
        for k in 0..n {
            nz.push((k, k));
            nz.push((0, k));
            nz.push((k, 0));
        }
        let plan = Elimination::plan(n, nz).unwrap();
        assert!(plan.fill.is_empty(), "{:?}", plan.fill);
        // The dense row and column go once all but one of the others are gone.
        assert!(
            plan.pivots[..4].iter().all(|&p| p != (0, 0)),
            "{:?}",
            plan.pivots
        );
        assert!(plan.block_columns.is_empty());
    }

    /// A saddle point `[[A, Bᵀ], [B, 0]]`: the primal block is eliminated statically,
    /// the multiplier is left to the dense block, on its filled-in Schur complement.
    #[test]
    fn saddle_point_leaves_the_multipliers_to_the_block() {
        // A = 2×2 diagonal, B = [1 1].
        let nz = [(0, 0), (1, 1), (0, 2), (1, 2), (2, 0), (2, 1)];
        let plan = Elimination::plan(3, nz).unwrap();
        assert_eq!(plan.pivots, [(0, 0), (1, 1)]);
        assert_eq!(
            (plan.block_rows.as_slice(), plan.block_columns.as_slice()),
            (&[2][..], &[2][..])
        );
        assert_eq!(plan.fill, [(2, 2)]);
        assert_eq!(plan.flops(), 2 * 2);
    }

    #[test]
    fn a_pattern_without_a_diagonal_has_no_plan() {
        assert!(Elimination::plan(2, [(0, 1), (1, 0)]).is_none());
    }
}
