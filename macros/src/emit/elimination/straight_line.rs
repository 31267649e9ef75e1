//! The plan's static steps as straight-line code: `factor_planned` and
//! `solve_planned` of a step's `DiscreteSystem`, in panels and parts, with the
//! compact layout and the block's calls.
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Elimination;
use crate::emit::repeats::{self, Chunk, Item, Layout, Operands};
use crate::emit::tokens::{lit, private};

/// Multiply–adds of static elimination up to which `model!` emits the static steps as
/// straight-line code (no index tables, constant indices, no bounds checks); larger
/// plans follow the tables at run time.
const STRAIGHT_LINE_LIMIT: usize = 60_000;

/// Most static steps emitted as one [`Elimination::panel`].
///
/// Measured with callgrind (instructions a step) and, for the top, llvm-mca's
/// throughput model of the static steps' code (cycles a factorisation, Zen 3), all
/// with bit-identical trajectories:
///
/// | width | top EM | pendulum EM | chain of 10 EM | top, model |
/// |---|---|---|---|---|
/// | 1 (steps one by one) | 97.3 k | 4.69 k | 169.6 k | 2713 |
/// | 2 | 94.0 k | 4.63 k | 165.6 k | |
/// | 3 | 93.1 k | 4.62 k | 162.8 k | 2515 |
/// | 4 | 93.4 k | | | |
/// | 6 | 90.3 k | 4.66 k | 167.8 k | 2499 |
///
/// The model puts the bound on the stores of floating-point data, which panels
/// reduce. Wider panels hold more multipliers than there are registers, and their
/// spills are stores again.
pub(super) const PANEL_WIDTH: usize = 3;

/// Multiply–adds of the static steps emitted in one function.
const PART_FLOPS: usize = 1_000;

/// Blocks of up to this many unknowns are factored in a contiguous stack copy
/// (`8 S²` bytes in `f64`: 32 KiB at 64).
const DENSE_BLOCK_LIMIT: usize = 64;

/// Plans whose block (dense) has at most this many unknowns keep their entries in the
/// compact layout, where the block's copies and solve are straight-line code too
/// (`3 S²` statements).
const COMPACT_BLOCK_LIMIT: usize = 24;

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
    ///
    /// The methods are compiled only without debug assertions (release builds and
    /// benches): straight-line code is where LLVM spends a build's time, and debug
    /// builds are for compiling often. A crate stepping the 10-link chain with EM and
    /// VI-A builds in the dev profile, after its dependencies, in 18.9 s with them and
    /// in 7.6 s with the table-driven defaults, whose factorisation takes three times
    /// the instructions. Both paths are tested: `tests/derivatives/elimination.rs` runs in the
    /// test profile and, in CI, with `--release`.
    pub fn methods(&self, plan: &TokenStream) -> TokenStream {
        if self.static_flops() > STRAIGHT_LINE_LIMIT {
            return quote!();
        }
        let p = private();
        let n = lit(self.n);
        let packing = self.packing();
        let compact = packing.is_some();
        let position = |i: usize, j: usize| match &packing {
            Some(position) => position[&(i, j)],
            None => j * self.n + i,
        };
        let layout = Layout {
            n: self.n,
            position: &position,
        };
        let at = |i: usize, j: usize| {
            let k = position(i, j);
            let (i, j) = (lit(k % self.n), lit(k / self.n));
            quote!(a[#j][#i])
        };
        // Repeated steps are folded into loops (see `repeats`) in the compact layout;
        // the column-stored one's 2 × 2 pivots call the runtime with the whole matrix,
        // which a loop's flat view of it has borrowed.
        let fold = compact;
        let reading = quote!(let f = a.as_flattened(););
        let writing = quote!(let f = a.as_flattened_mut(););
        let emit =
            |items: &[Item], flatten: &TokenStream| repeats::emit(items, &layout, flatten, fold);
        let tokens = |chunks: Vec<Chunk>| chunks.into_iter().map(|chunk| chunk.tokens);
        let fill = tokens(emit(&self.fill_items(&position), &writing));
        let scales = tokens(emit(&self.scale_items(), &reading));
        let panels = self.panels();
        let parts = self.factor_parts(&panels, emit(&self.step_items(&panels, compact), &writing));
        let forward = tokens(emit(&self.forward_items(), &reading));
        let backward = tokens(emit(&self.backward_items(compact), &reading));
        let (block, solve_block, unpermute) = self.block_calls(compact, &at);
        quote! {
            #[cfg(not(debug_assertions))]
            #[allow(clippy::all)]
            fn factor_planned(
                &self,
                a: &mut [[T; #n]; #n],
                slot: &mut [usize; #n],
            ) -> ::core::option::Option<::core::result::Result<(), #p::NeedsPivoting>> {
                let plan: &#p::Plan = #plan;
                #(#fill)*
                let threshold = #p::c::<T>(#p::sparse_threshold());
                let mut scale = [T::zero(); #n];
                #(#scales)*
                let mut pair_scale = T::zero();
                #(#parts)*
                ::core::option::Option::Some(#block)
            }

            #[cfg(not(debug_assertions))]
            #[allow(clippy::all)]
            fn solve_planned(&self, a: &[[T; #n]; #n], slot: &[usize; #n], r: &mut #p::SVector<T, #n>) {
                let plan: &#p::Plan = #plan;
                {
                    let b = &mut r.data.0[0];
                    #(#forward)*
                }
                #solve_block
                {
                    let b = &mut r.data.0[0];
                    #(#backward)*
                }
                #unpermute
            }
        }
    }

    /// The fill, zeroed in the order of its positions, which repeats where the matrix
    /// does.
    fn fill_items(&self, position: &dyn Fn(usize, usize) -> usize) -> Vec<Item<'static>> {
        let mut fill = self.fill.clone();
        fill.sort_by_key(|&(i, j)| position(i, j));
        fill.into_iter()
            .map(|(i, j)| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let e = o.entry(i, j);
                    quote!(#e = T::zero();)
                })
            })
            .collect()
    }

    /// The row scales of the threshold test (see `solve::sparse::factor`): the 1-norm of
    /// each primal row that a single pivot's test reads.
    fn scale_items(&self) -> Vec<Item<'_>> {
        let in_pair = |k: usize| self.paired[k] || (k > 0 && self.paired[k - 1]);
        let single = |k: usize| !in_pair(k) && !self.linear[k];
        let mut tested: BTreeSet<usize> = BTreeSet::new();
        for (k, &(r, _)) in self.pivots.iter().enumerate().filter(|&(k, _)| single(k)) {
            let below = self.rows[k].iter().filter(|&&i| !self.multiplier[i]);
            if below.clone().next().is_some() {
                tested.insert(r);
                tested.extend(below);
            }
        }
        tested
            .iter()
            .map(|&i| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let name = o.index(i);
                    let entries = self.scaled[i].iter().map(|&j| {
                        let e = o.entry(i, j);
                        quote!(#e.abs())
                    });
                    quote!(scale[#name] = #(#entries)+*;)
                })
            })
            .collect()
    }

    /// The static steps, one item per panel.
    fn step_items<'a>(&'a self, panels: &[(usize, usize)], compact: bool) -> Vec<Item<'a>> {
        panels
            .iter()
            .map(|&(k, width)| -> Item {
                Box::new(move |o: &dyn Operands| self.panel(k, width, compact, o))
            })
            .collect()
    }

    /// The emitted static steps in parts of at most `PART_FLOPS` multiply–adds (a loop
    /// counts its body once), each its own function: LLVM's time on one function grows
    /// faster than its length. One function for the 40-link chain's 39 k multiply–adds
    /// more than doubled the build of the chains bench; a crate stepping the 10-link
    /// chain with EM and VI-A built (dev profile, after its dependencies, before the
    /// methods were left to release builds) in 22.6 s with parts of 4000, 17.6 s with
    /// 1000, 16.9 s with 250, and 6.7 s with no straight-line code at all. Chunking the
    /// solve's passes as well gained nothing.
    fn factor_parts(&self, panels: &[(usize, usize)], steps: Vec<Chunk>) -> Vec<TokenStream> {
        let p = private();
        let n = lit(self.n);
        let step_flops = |item: usize| {
            let (k, width) = panels[item];
            (k..k + width)
                .map(|k| self.rows[k].len() * (self.columns[k].len() + 1))
                .sum::<usize>()
        };
        let mut parts: Vec<Vec<TokenStream>> = vec![vec![]];
        let mut part_flops = 0;
        for chunk in steps {
            let flops: usize = chunk.body.clone().map(step_flops).sum();
            if part_flops > 0 && part_flops + flops > PART_FLOPS {
                parts.push(vec![]);
                part_flops = 0;
            }
            part_flops += flops;
            if let Some(part) = parts.last_mut() {
                part.push(chunk.tokens);
            }
        }
        let inline = if parts.len() > 1 {
            quote!(#[inline(never)])
        } else {
            quote!(#[inline])
        };
        parts
            .iter()
            .map(|steps| {
                quote! {
                    {
                        #inline
                        fn part<T: #p::Real>(
                            a: &mut [[T; #n]; #n],
                            slot: &mut [usize; #n],
                            plan: &#p::Plan,
                            threshold: T,
                            scale: &[T; #n],
                            pair_scale: &mut T,
                        ) -> ::core::result::Result<(), #p::NeedsPivoting> {
                            let _ = (&slot, plan, scale, &pair_scale);
                            #(#steps)*
                            ::core::result::Result::Ok(())
                        }
                        if let ::core::result::Result::Err(e) =
                            part(a, slot, plan, threshold, &scale, &mut pair_scale)
                        {
                            return ::core::option::Option::Some(::core::result::Result::Err(e));
                        }
                    }
                }
            })
            .collect()
    }

    /// The forward substitution, one item per pivot in order.
    fn forward_items(&self) -> Vec<Item<'_>> {
        self.pivots
            .iter()
            .enumerate()
            .map(|(k, &(r, c))| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let exchange = if self.paired[k] {
                        let (r, c) = (o.index(r), o.index(c));
                        quote!(if slot[#c] != #r { b.swap(#r, slot[#c]); })
                    } else {
                        quote!()
                    };
                    let y = rhs(o, r);
                    let each = self.rows[k].iter().map(|&i| {
                        let (bi, l) = (rhs(o, i), o.entry(i, c));
                        quote!(#bi -= #l * y;)
                    });
                    quote!({ #exchange let y = #y; #(#each)* })
                })
            })
            .collect()
    }

    /// The back substitution, one item per pivot in reverse order.
    fn backward_items(&self, compact: bool) -> Vec<Item<'_>> {
        let in_block = |i: usize| self.block_rows.contains(&i);
        // x_j of a dense block's column sits in b[slot[j]] until the block is
        // unpermuted; a banded block solves in place.
        let x = move |o: &dyn Operands, j: usize| {
            if in_block(j) && self.band.is_none() && !compact {
                let j = o.index(j);
                quote!(b[slot[#j]])
            } else {
                rhs(o, j)
            }
        };
        self.pivots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &(r, c))| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let br = rhs(o, r);
                    let each = self.columns[k].iter().map(|&j| {
                        let (u, xj) = (o.entry(r, j), x(o, j));
                        quote!(s -= #u * #xj;)
                    });
                    let pivot = o.entry(r, c);
                    quote!({ let mut s = #br; #(#each)* #br = s / #pivot; })
                })
            })
            .collect()
    }

    /// The block's factorisation, its solve and its unpermutation: a banded block is
    /// factored inside its band; a small dense one in a contiguous copy by the dense LU.
    fn block_calls(
        &self,
        compact: bool,
        at: &dyn Fn(usize, usize) -> TokenStream,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let p = private();
        let n = lit(self.n);
        if compact {
            self.compact_block(at)
        } else if self.band.is_some() {
            (
                quote!(#p::sparse::factor_block_band(plan, a, slot)),
                quote!(#p::sparse::solve_block_band(plan, a, slot, r);),
                quote!(),
            )
        } else {
            let size = self.block_columns.len();
            let factor = if size <= DENSE_BLOCK_LIMIT {
                let s = lit(size);
                quote!(#p::sparse::factor_block_dense::<T, #n, #s>(plan, a, slot))
            } else {
                quote!(#p::sparse::factor_block(plan, a, slot))
            };
            (
                factor,
                quote!(#p::sparse::solve_block(plan, a, slot, r);),
                quote!(#p::sparse::unpermute_block(plan, slot, r);),
            )
        }
    }

    /// Static steps `k..k + width` of `factor_planned` as one panel (one step when
    /// `width` is 1). Each step in turn: its front ([`front`](Self::front): the choice
    /// of row of a 2 × 2 pivot, the pivot's test, the scaling of its column), then its
    /// updates of the entries a later
    /// step of the panel pivots on (that step's row and column), which must be final
    /// before that step's front reads them. Then every other entry takes the updates
    /// of all the panel's steps in one pass, `a_ij -= l_i u_j` step after step in
    /// their order, as the steps one after another would: the factors are the same
    /// to the bit. An entry `w` steps update is loaded and stored once instead of `w`
    /// times.
    ///
    /// Why: the straight-line factorisation is bound by its stores (one per update,
    /// or per two updates paired into a vector), not by its arithmetic; see
    /// [`PANEL_WIDTH`] for the measurements. (The other way round, left-looking, each
    /// entry taking all its updates when a step first reads it, was tried: one store
    /// per entry, but two loads per update and no vector pairs; the top's step took
    /// 10.4 µs against 9.2 µs right-looking, in the same program.)
    fn panel(&self, k: usize, width: usize, compact: bool, o: &dyn Operands) -> TokenStream {
        let steps = k..k + width;
        let name = |s: usize, m: usize| format_ident!("l{}_{}", s - k, m);
        let pivot_row = |i: usize| steps.clone().skip(1).any(|t| self.pivots[t].0 == i);
        let pivot_column = |j: usize| steps.clone().skip(1).any(|t| self.pivots[t].1 == j);
        // Pivot rows and columns of the panel's later steps are updated step by step.
        let mut parts: Vec<TokenStream> = Vec::new();
        for s in steps.clone() {
            let names = format!("l{}_", s - k);
            let front = self.front(s, compact, &names, o);
            let r = self.pivots[s].0;
            let early = self.columns[s].iter().map(|&j| {
                let each = self.rows[s]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &i)| pivot_row(i) || pivot_column(j))
                    .map(|(m, &i)| {
                        let (target, l, u) = (o.entry(i, j), name(s, m), o.entry(r, j));
                        quote!(#target -= #l * #u;)
                    });
                quote!(#(#each)*)
            });
            parts.push(quote!(#front #(#early)*));
        }
        // Every other entry: the panel's updates in order.
        let others = |lists: &[Vec<usize>], pivot: &dyn Fn(usize) -> bool| -> Vec<usize> {
            let all: BTreeSet<usize> = steps
                .clone()
                .flat_map(|s| lists[s].iter().copied())
                .collect();
            all.into_iter().filter(|&x| !pivot(x)).collect()
        };
        let columns = others(&self.columns, &pivot_column);
        let rows = others(&self.rows, &pivot_row);
        let fused = columns.iter().map(|&j| {
            let updating: Vec<usize> = steps
                .clone()
                .filter(|&s| self.columns[s].contains(&j))
                .collect();
            let loads = updating.iter().map(|&s| {
                let (row, u) = (format_ident!("u{}", s - k), o.entry(self.pivots[s].0, j));
                quote!(let #row = #u;)
            });
            let each = rows.iter().map(|&i| {
                let terms: Vec<TokenStream> = updating
                    .iter()
                    .filter_map(|&s| {
                        let m = self.rows[s].iter().position(|&x| x == i)?;
                        let (l, u) = (name(s, m), format_ident!("u{}", s - k));
                        Some(quote!(acc -= #l * #u;))
                    })
                    .collect();
                if terms.is_empty() {
                    return quote!();
                }
                let target = o.entry(i, j);
                quote!({ let mut acc = #target; #(#terms)* #target = acc; })
            });
            quote!({ #(#loads)* #(#each)* })
        });
        let mut body = quote!(#(#fused)*);
        for part in parts.into_iter().rev() {
            body = quote!({ #part #body });
        }
        body
    }

    /// Step `k`'s pivot: for the first of a 2 × 2 pivot the choice of its row, then
    /// the pivot's test and the scaling of its column, each scaled entry also held in
    /// `{names}0`, `{names}1`, … (in the order of `rows[k]`) for the updates.
    fn front(&self, k: usize, compact: bool, names: &str, o: &dyn Operands) -> TokenStream {
        let p = private();
        let (r, c) = self.pivots[k];
        let rows = &self.rows[k];
        let in_pair = |k: usize| self.paired[k] || (k > 0 && self.paired[k - 1]);
        let scale = |i: usize| {
            let i = o.index(i);
            quote!(scale[#i])
        };
        // As `solve::sparse::factor` tests: a single pivot against the primal rows
        // below it, each row divided by its 1-norm; a 2 × 2 pivot against itself.
        let test = if self.linear[k] {
            // A declared linear pivot: only finite and nonzero (see `plan_with_linear_pivots`).
            quote!(let acceptable = pivot.is_finite() & (pivot != T::zero());)
        } else if !in_pair(k) {
            let below: Vec<_> = rows.iter().filter(|&&i| !self.multiplier[i]).collect();
            let limit = (!below.is_empty()).then(|| {
                let scale_r = scale(r);
                quote!(let limit = threshold * #scale_r;)
            });
            let each = below.iter().map(|&&i| {
                let (e, scale_i) = (o.entry(i, c), scale(i));
                quote!(& (#e.abs() * limit <= magnitude * #scale_i))
            });
            quote! {
                let magnitude = pivot.abs();
                #limit
                let acceptable = (magnitude.is_finite() & (pivot != T::zero())) #(#each)*;
            }
        } else {
            let largest =
                (!self.paired[k]).then(|| quote!(let largest = largest.max(*pair_scale);));
            quote! {
                let largest = pivot.abs();
                #largest
                let acceptable = pivot.abs() >= threshold * largest
                    && largest.is_finite()
                    && pivot != T::zero();
            }
        };
        // The multipliers are scaled once and then held as values: read back from the
        // matrix in every column's update, they would be loads that LLVM cannot keep in
        // registers or pair into vectors inside a loop, where the pivot column and the
        // updated column move by different offsets and may, for all it knows, overlap.
        let multiplier = |m: usize| format_ident!("{}{}", names, m);
        let scaling = rows.iter().enumerate().map(|(m, &i)| {
            let (e, l) = (o.entry(i, c), multiplier(m));
            quote!(let #l = #e * inverse; #e = #l;)
        });
        let choose = match (self.paired[k], compact) {
            (false, _) => quote!(),
            (true, false) => {
                let k = o.index(k);
                quote!(*pair_scale = #p::sparse::choose_pair_row(plan, #k, a, slot);)
            }
            // As `solve::sparse::choose_pair_row`, on the entries' positions.
            (true, true) => {
                let (r2, c2) = self.pivots[k + 1];
                let (a11, a21, a12, a22) = (
                    o.entry(r, c),
                    o.entry(r2, c),
                    o.entry(r, c2),
                    o.entry(r2, c2),
                );
                let swaps = std::iter::once(c)
                    .chain(self.columns[k].iter().copied())
                    .map(|j| {
                        let (x, y) = (o.entry(r, j), o.entry(r2, j));
                        quote!(let kept = #x; #x = #y; #y = kept;)
                    });
                let (cl, rl, r2l) = (o.index(c), o.index(r), o.index(r2));
                quote! {
                    let products = (#a11 * #a22).abs() + (#a12 * #a21).abs();
                    let first = #a11.abs().max(#a21.abs());
                    *pair_scale = if first > T::zero() { products / first } else { T::zero() };
                    if #a21.abs() > #a11.abs() {
                        #(#swaps)*
                        slot[#cl] = #r2l;
                    } else {
                        slot[#cl] = #rl;
                    }
                }
            }
        };
        let pivot = o.entry(r, c);
        let step = o.index(k);
        quote! {
            #choose
            let pivot = #pivot;
            #test
            if !acceptable {
                return ::core::result::Result::Err(#p::NeedsPivoting { step: #step });
            }
            let inverse = T::one() / pivot;
            #(#scaling)*
        }
    }

    /// The static steps grouped for emission as [`panel`](Self::panel)s, `(first
    /// step, steps)`: up to [`PANEL_WIDTH`] consecutive steps whose updates share
    /// entries, the rest one by one.
    pub(super) fn panels(&self) -> Vec<(usize, usize)> {
        let mut panels = Vec::new();
        let mut k = 0;
        while k < self.pivots.len() {
            let mut end = k + 1;
            // Steps join while the panel is narrower than `PANEL_WIDTH` and the next
            // step updates an entry the panel's steps update too (otherwise nothing
            // would be saved). A panel does not end on the first of a 2 × 2 pivot,
            // whose choice of row reads the second's row, which only its own panel
            // brings up to date first.
            while end < self.pivots.len() && end - k < PANEL_WIDTH && self.shares(k..end, end) {
                end += 1;
            }
            while end - k > 1 && self.paired[end - 1] {
                end -= 1;
            }
            panels.push((k, end - k));
            k = end;
        }
        panels
    }

    /// Whether step `next` updates an entry one of `steps` updates, other than the
    /// pivot rows and columns of `next`.
    fn shares(&self, steps: std::ops::Range<usize>, next: usize) -> bool {
        let (r, c) = self.pivots[next];
        self.rows[next].iter().filter(|&&i| i != r).any(|&i| {
            self.columns[next].iter().filter(|&&j| j != c).any(|&j| {
                steps
                    .clone()
                    .any(|s| self.rows[s].contains(&i) && self.columns[s].contains(&j))
            })
        })
    }

    /// The compact layout, if release builds use one for this plan: the position of
    /// each entry the factorisation reads (the Jacobian's nonzeros and the fill) when
    /// they are packed at the front of the column-stored matrix column by column, so
    /// that its working set is contiguous. At 40 links the chain's matrix is 800 KiB
    /// and its 6924 entries 54 KiB. The Jacobian's writer
    /// (`residual_and_jacobian_planned`) writes there; `residual_and_jacobian`
    /// unpacks. Plans whose static steps are not straight-line code, or whose block
    /// is banded or has more than [`COMPACT_BLOCK_LIMIT`] unknowns, keep the
    /// column-stored layout.
    ///
    /// Within a column the entries go in the order their rows are eliminated (the
    /// static pivots' rows, then the block's), not by row index: the rows a step
    /// updates are then the column's last entries, next to each other, and LLVM pairs
    /// more of the updates into vectors. On the Lagrange top's EM step, 1000 steps by
    /// callgrind: the factorisation's static steps 13.7 k → 12.7 k instructions, 4.6 %
    /// of the step, with bit-identical results. (Ordering each column by a search for
    /// the fewest unpaired updates paired more, 1545 vector updates against 1275, but
    /// the multipliers then had to be shuffled into different pairs for each column:
    /// 1.4 % fewer instructions, and the search made the build of a crate with the
    /// top 25 s longer, since macros build unoptimised in release profiles.)
    ///
    /// Entry `k` of the packing lies at or before its own place `j N + i`, which lets
    /// the unpacking go in place; an order that breaks this falls back to rows by
    /// index.
    pub fn packing(&self) -> Option<std::collections::BTreeMap<(usize, usize), usize>> {
        let straight_line = self.static_flops() <= STRAIGHT_LINE_LIMIT;
        let small_block = self.band.is_none() && self.block_columns.len() <= COMPACT_BLOCK_LIMIT;
        if !(straight_line && small_block) {
            return None;
        }
        let mut rank = vec![0usize; self.n];
        let order = self
            .pivots
            .iter()
            .map(|&(r, _)| r)
            .chain(self.block_rows.iter().copied());
        for (k, r) in order.enumerate() {
            rank[r] = k;
        }
        let entries: BTreeSet<(usize, usize, usize)> = self
            .pattern
            .iter()
            .chain(&self.fill)
            .map(|&(i, j)| (j, rank[i], i))
            .collect();
        let ranked: std::collections::BTreeMap<(usize, usize), usize> = entries
            .iter()
            .enumerate()
            .map(|(k, &(j, _, i))| ((i, j), k))
            .collect();
        if ranked.iter().all(|(&(i, j), &k)| k <= j * self.n + i) {
            return Some(ranked);
        }
        let entries: BTreeSet<(usize, usize)> = self
            .pattern
            .iter()
            .chain(&self.fill)
            .map(|&(i, j)| (j, i))
            .collect();
        Some(
            entries
                .iter()
                .enumerate()
                .map(|(k, &(j, i))| ((i, j), k))
                .collect(),
        )
    }

    /// The unpacking of [`packing`](Self::packing) for `residual_and_jacobian`: the
    /// place `j N + i` of each packed entry, `u32::MAX` for the fill.
    pub fn unpacking(&self) -> Option<TokenStream> {
        let packing = self.packing()?;
        let mut source = vec![u32::MAX; packing.len()];
        for &(i, j) in &self.pattern {
            source[packing[&(i, j)]] = (j * self.n + i) as u32;
        }
        let count = lit(source.len());
        let p = private();
        Some(quote! {
            const SOURCE: [u32; #count] = [#(#source),*];
            #p::sparse::unpack(jac, &SOURCE);
        })
    }

    /// The multipliers' block in the compact layout: copied into a contiguous `S × S`
    /// matrix, factored by the dense LU with partial pivoting, its factors stored
    /// back at the positions of the block's rows in pivot order (row `t` of the
    /// factors at `block_rows[t]`) and, for each column `c_t`, the row whose entry of
    /// the right-hand side is its `t`-th in `slot[c_t]`. The solve gathers those
    /// entries, substitutes forward and back, and leaves `x_{c_t}` in `b[c_t]`.
    /// Returns the factor expression, the solve statements and the (empty)
    /// unpermutation, as `methods` takes them.
    fn compact_block(
        &self,
        at: &dyn Fn(usize, usize) -> TokenStream,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let p = private();
        let (rows, columns) = (&self.block_rows, &self.block_columns);
        let s = lit(columns.len());
        let statics = lit(self.pivots.len());
        let copy_in = columns.iter().enumerate().flat_map(|(v, &c)| {
            rows.iter().enumerate().map(move |(u, &r)| {
                let (e, u, v) = (at(r, c), lit(u), lit(v));
                quote!(block[#v][#u] = #e;)
            })
        });
        let copy_out = columns.iter().enumerate().flat_map(|(v, &c)| {
            rows.iter().enumerate().map(move |(t, &r)| {
                let (e, t, v) = (at(r, c), lit(t), lit(v));
                quote!(#e = block[#v][#t];)
            })
        });
        let block_rows = rows.iter().map(|&r| lit(r));
        let slots = columns.iter().enumerate().map(|(t, &c)| {
            let (t, c) = (lit(t), lit(c));
            quote!(slot[#c] = ROWS[perm[#t]];)
        });
        let lu = if columns.len() <= STRAIGHT_BLOCK_LIMIT {
            let lu = straight_line_lu(columns.len(), self.pivots.len());
            quote!({ #lu lu(&mut block, &mut perm) })
        } else {
            quote!(#p::sparse::factor_small_block(&mut block, &mut perm, #statics))
        };
        let factor = quote! {{
            const ROWS: [usize; #s] = [#(#block_rows),*];
            let mut block = [[T::zero(); #s]; #s];
            #(#copy_in)*
            let mut perm = [0usize; #s];
            match #lu {
                ::core::result::Result::Ok(()) => {
                    #(#copy_out)*
                    #(#slots)*
                    ::core::result::Result::Ok(())
                }
                ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
            }
        }};
        let gather = columns.iter().enumerate().map(|(t, &c)| {
            let (t, c) = (lit(t), lit(c));
            quote!(y[#t] = b[slot[#c]];)
        });
        let forward = (0..columns.len()).flat_map(|t| {
            (t + 1..columns.len()).map(move |u| {
                let (l, t, u) = (at(rows[u], columns[t]), lit(t), lit(u));
                quote!(y[#u] -= #l * y[#t];)
            })
        });
        let backward = (0..columns.len()).rev().map(|t| {
            let each = (t + 1..columns.len()).map(|v| {
                let (e, v) = (at(rows[t], columns[v]), lit(v));
                quote!(s -= #e * y[#v];)
            });
            let (pivot, t) = (at(rows[t], columns[t]), lit(t));
            quote!({ let mut s = y[#t]; #(#each)* y[#t] = s / #pivot; })
        });
        let scatter = columns.iter().enumerate().map(|(t, &c)| {
            let (t, c) = (lit(t), lit(c));
            quote!(b[#c] = y[#t];)
        });
        let solve = quote! {{
            let b = &mut r.data.0[0];
            let mut y = [T::zero(); #s];
            #(#gather)*
            #(#forward)*
            #(#backward)*
            #(#scatter)*
        }};
        (factor, solve, quote!())
    }
}

/// `b[i]`: entry `i` of the right-hand side the substitutions solve in place.
fn rhs(o: &dyn Operands, i: usize) -> TokenStream {
    let i = o.index(i);
    quote!(b[#i])
}

/// Blocks of up to this many unknowns (in the compact layout) are factored by
/// straight-line code ([`straight_line_lu`]) rather than by the runtime's loops.
const STRAIGHT_BLOCK_LIMIT: usize = 12;

/// `fn lu(block: &mut [[T; S]; S], perm: &mut [usize; S]) -> Result<(), NeedsPivoting>`:
/// the runtime's `lu::factor_in_place` (partial pivoting, the same operations on every
/// entry in the same order, so the same factors) unrolled for a block of `s`
/// unknowns, whose singular or non-finite column `k` is reported as the elimination
/// step `statics + k`, as `sparse::factor_small_block` does. Only the pivot search
/// and the row exchange index at run time; every update has constant indices, so LLVM
/// keeps the pivot row in registers and pairs the column's updates. It does not skip
/// zero multipliers as the loops do: the block is the filled Schur complement, and
/// the products with a zero change no finite entry. On the Lagrange top's 8 × 8 block
/// (EM, callgrind) it takes 1.1 k instructions a factorisation, copies included,
/// against 2.9 k for the loops: 8 % of the step.
fn straight_line_lu(s: usize, statics: usize) -> TokenStream {
    let p = private();
    let n = lit(s);
    let steps = (0..s).map(|k| {
        let kk = lit(k);
        let step = lit(statics + k);
        let search = (k..s).map(|i| {
            let i = lit(i);
            quote! {
                let m = block[#kk][#i].abs();
                finite &= m.is_finite();
                if m > largest {
                    largest = m;
                    row = #i;
                }
            }
        });
        let scaling = (k + 1..s).map(|i| {
            let i = lit(i);
            quote!(block[#kk][#i] /= pivot;)
        });
        let updates = (k + 1..s).map(|c| {
            let c = lit(c);
            let each = (k + 1..s).map(|i| {
                let i = lit(i);
                quote!(block[#c][#i] -= block[#kk][#i] * u;)
            });
            quote!({ let u = block[#c][#kk]; #(#each)* })
        });
        quote! {
            {
                let mut row = #kk;
                let mut largest = T::zero();
                let mut finite = true;
                #(#search)*
                if !finite || largest == T::zero() {
                    return ::core::result::Result::Err(#p::NeedsPivoting { step: #step });
                }
                if row != #kk {
                    for column in block.iter_mut() {
                        column.swap(#kk, row);
                    }
                    perm.swap(#kk, row);
                }
                let pivot = block[#kk][#kk];
                #(#scaling)*
                #(#updates)*
            }
        }
    });
    let identity = (0..s).map(lit);
    quote! {
        #[inline]
        fn lu<T: #p::Real>(
            block: &mut [[T; #n]; #n],
            perm: &mut [usize; #n],
        ) -> ::core::result::Result<(), #p::NeedsPivoting> {
            *perm = [#(#identity),*];
            #(#steps)*
            ::core::result::Result::Ok(())
        }
    }
}
