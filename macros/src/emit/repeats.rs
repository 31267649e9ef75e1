//! Repeated runs of emitted statements, folded into loops.
//!
//! A model built of repeated parts (the links of a chain) gets an elimination plan with
//! repeated steps: at 40 links the minimum-deficiency order sweeps the chain two links
//! at a time, and each sweep's ten steps are the previous sweep's with every row,
//! column and entry position moved by the same offsets. Emitted as one statement per
//! multiply–add, the 40-link chain's factorisation was 867 KiB of machine code, more
//! than the second-level cache here holds, and its time per multiply–add was 1.17 times
//! the 10-link chain's. Folded, a run of `T` repetitions of `P` items is emitted once,
//! as the body of `for t in 0..T`, with every operand written `v + t d`.
//!
//! An *item* is a closure emitting a few statements through [`Operands`]: every number
//! in them that can differ between repetitions (an entry of the matrix, a row or
//! column, a step number) goes through it. Emitted with placeholders, an item's tokens
//! are its shape; a block of items repeats the block before it when the shapes are
//! equal and every operand moves by the same offset from each repetition to the next.
//! What moves differently, or is not an operand, differs in the shape, so a loop is
//! only ever the same statements on moved operands.
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::Range;

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::lit;

/// What an item's statements read and write.
pub trait Operands {
    /// Entry `(i, j)` of the column-stored matrix `a`, as a place.
    fn entry(&self, i: usize, j: usize) -> TokenStream;
    /// A row, column or step number, as a `usize` expression.
    fn index(&self, i: usize) -> TokenStream;
}

/// A few statements, emitted through their operands.
pub type Item<'a> = Box<dyn Fn(&dyn Operands) -> TokenStream + 'a>;

/// The flat position of each entry `(i, j)` in the `n × n` column-stored matrix
/// (`j n + i` column-stored, or the entry's place in the compact layout).
pub struct Layout<'a> {
    pub n: usize,
    pub position: &'a dyn Fn(usize, usize) -> usize,
}

/// A run of items as emitted: `items` covers `repetitions` repetitions of `body`
/// items (one repetition when the run is not a loop).
pub struct Chunk {
    pub tokens: TokenStream,
    pub items: Range<usize>,
    pub body: Range<usize>,
}

/// Longest block of items a loop repeats. The chain's sweeps are 10 static steps.
const LONGEST_BODY: usize = 40;

/// Fewest repetitions folded into a loop. Any two blocks of the same shapes repeat
/// each other, whatever their operands; three show a constant move.
const FEWEST_REPETITIONS: usize = 3;

/// `items` emitted in order, each run of [`FEWEST_REPETITIONS`] or more of a block as a
/// loop whose body is wrapped in `flatten` (a statement binding `f` to the matrix as a
/// flat slice: the body addresses entries by moving positions), the rest statement by
/// statement with constant positions. Among the runs starting at an item, the one
/// covering most items is taken, the shorter body on ties. Without `fold`, every item
/// is emitted on its own.
pub fn emit(items: &[Item], layout: &Layout, flatten: &TokenStream, fold: bool) -> Vec<Chunk> {
    let mut shapes: HashMap<String, usize> = HashMap::new();
    let recorded: Vec<(usize, Vec<usize>)> = items
        .iter()
        .map(|item| {
            let recorder = Recorder {
                layout,
                values: RefCell::default(),
            };
            let shape = item(&recorder).to_string();
            let next = shapes.len();
            let id = *shapes.entry(shape).or_insert(next);
            (id, recorder.values.into_inner())
        })
        .collect();
    let mut chunks = Vec::new();
    let mut k = 0;
    while k < items.len() {
        let longest = if fold {
            LONGEST_BODY.min((items.len() - k) / FEWEST_REPETITIONS)
        } else {
            0
        };
        let run = (1..=longest)
            .map(|p| (p, repetitions(&recorded, k, p)))
            .filter(|&(_, t)| t >= FEWEST_REPETITIONS)
            .max_by_key(|&(p, t)| (p * t, std::cmp::Reverse(p)));
        let chunk = match run {
            Some((p, t)) => looped(items, &recorded, k, p, t, flatten),
            None => Chunk {
                tokens: items[k](&Literal(layout)),
                items: k..k + 1,
                body: k..k + 1,
            },
        };
        k = chunk.items.end;
        chunks.push(chunk);
    }
    chunks
}

/// How many times the block of `p` items from `k` repeats (counting itself), each
/// repetition the same shapes with every operand moved by the same offset as from
/// the first to the second.
fn repetitions(recorded: &[(usize, Vec<usize>)], k: usize, p: usize) -> usize {
    let same_shapes = |t: usize| {
        (0..p).all(|m| {
            let (a, b) = (&recorded[k + m], &recorded[k + t * p + m]);
            a.0 == b.0 && a.1.len() == b.1.len()
        })
    };
    let mut t = 1;
    while k + (t + 1) * p <= recorded.len() && same_shapes(t) {
        let moved = (0..p).all(|m| {
            let (first, second, this) = (
                &recorded[k + m].1,
                &recorded[k + p + m].1,
                &recorded[k + t * p + m].1,
            );
            first.iter().zip(second).zip(this).all(|((&a, &b), &c)| {
                let d = b as isize - a as isize;
                c as isize == a as isize + t as isize * d
            })
        });
        if !moved {
            break;
        }
        t += 1;
    }
    t
}

/// The loop over `t` repetitions of the `p` items from `k`.
fn looped(
    items: &[Item],
    recorded: &[(usize, Vec<usize>)],
    k: usize,
    p: usize,
    t: usize,
    flatten: &TokenStream,
) -> Chunk {
    let operands: Vec<(usize, isize)> = (k..k + p)
        .flat_map(|m| {
            let (first, second) = (&recorded[m].1, &recorded[m + p].1);
            first
                .iter()
                .zip(second)
                .map(|(&a, &b)| (a, b as isize - a as isize))
        })
        .collect();
    let moving = Moving {
        operands: &operands,
        last: t - 1,
        next: Cell::new(0),
    };
    let body: Vec<TokenStream> = items[k..k + p].iter().map(|item| item(&moving)).collect();
    debug_assert_eq!(moving.next.get(), operands.len());
    let (count, last) = (lit(t), lit(t - 1));
    // Operands moving down are written `v' + u d` with `u = T − 1 − t` counting down
    // (`v'` the last repetition's value): as `v − t d`, LLVM computed each address
    // apart (a move, a subtraction and a shift before every load) instead of one
    // pointer per stride with the operands at constant displacements from it.
    let backwards = operands
        .iter()
        .any(|&(_, d)| d < 0)
        .then(|| quote!(let u = #last - t;));
    Chunk {
        tokens: quote!({ #flatten for t in 0..#count { #backwards #(#body)* } }),
        items: k..k + p * t,
        body: k..k + p,
    }
}

/// Constant operands: `a[j][i]` at the entry's position.
struct Literal<'a>(&'a Layout<'a>);

impl Operands for Literal<'_> {
    fn entry(&self, i: usize, j: usize) -> TokenStream {
        let position = (self.0.position)(i, j);
        let (i, j) = (lit(position % self.0.n), lit(position / self.0.n));
        quote!(a[#j][#i])
    }
    fn index(&self, i: usize) -> TokenStream {
        let i = lit(i);
        quote!(#i)
    }
}

/// Placeholders, the values recorded in order.
struct Recorder<'a> {
    layout: &'a Layout<'a>,
    values: RefCell<Vec<usize>>,
}

impl Operands for Recorder<'_> {
    fn entry(&self, i: usize, j: usize) -> TokenStream {
        self.values.borrow_mut().push((self.layout.position)(i, j));
        quote!(a[_])
    }
    fn index(&self, i: usize) -> TokenStream {
        self.values.borrow_mut().push(i);
        quote!(_)
    }
}

/// The operands of a loop's body, in the order the items ask for them: the first
/// repetition's value and the offset per repetition.
struct Moving<'a> {
    operands: &'a [(usize, isize)],
    /// The last repetition's `t`.
    last: usize,
    next: Cell<usize>,
}

impl Moving<'_> {
    fn value(&self) -> TokenStream {
        let (v, d) = self.operands[self.next.get()];
        self.next.set(self.next.get() + 1);
        let step = d.unsigned_abs();
        match d {
            0 => {
                let v = lit(v);
                quote!(#v)
            }
            d if d > 0 => {
                let (v, step) = (lit(v), lit(step));
                quote!(#v + t * #step)
            }
            _ => {
                let (v, step) = (lit(v - self.last * step), lit(step));
                quote!(#v + u * #step)
            }
        }
    }
}

impl Operands for Moving<'_> {
    fn entry(&self, _: usize, _: usize) -> TokenStream {
        let at = self.value();
        quote!(f[#at])
    }
    fn index(&self, _: usize) -> TokenStream {
        self.value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column_stored(n: usize) -> impl Fn(usize, usize) -> usize {
        move |i, j| j * n + i
    }

    /// Ten items `a[i][i] *= 2` on the diagonal and one on row 0: the ten become a
    /// loop moving by `n + 1` positions, the last stays a statement.
    #[test]
    fn a_run_becomes_a_loop_and_the_rest_stays_straight() {
        let position = column_stored(20);
        let layout = Layout {
            n: 20,
            position: &position,
        };
        let mut items: Vec<Item> = (0..10)
            .map(|i| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let e = o.entry(i, i);
                    quote!(#e *= 2.0;)
                })
            })
            .collect();
        items.push(Box::new(|o: &dyn Operands| {
            let e = o.entry(0, 5);
            quote!(#e = 0.0;)
        }));
        let chunks = emit(
            &items,
            &layout,
            &quote!(let f = a.as_flattened_mut();),
            true,
        );
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            (chunks[0].items.clone(), chunks[0].body.clone()),
            (0..10, 0..1)
        );
        let text = chunks[0].tokens.to_string();
        assert!(text.contains("for t in 0 .. 10"), "{text}");
        assert!(text.contains("f [0 + t * 21]"), "{text}");
        assert_eq!(chunks[1].tokens.to_string(), "a [5] [0] = 0.0 ;");
        let unfolded = emit(&items, &layout, &quote!(), false);
        assert_eq!(unfolded.len(), 11);
    }

    /// Operands that do not move by the same offset in every repetition are not
    /// folded: entries on the diagonal at the squares.
    #[test]
    fn uneven_moves_stay_straight() {
        let position = column_stored(100);
        let layout = Layout {
            n: 100,
            position: &position,
        };
        let items: Vec<Item> = (0..6)
            .map(|i| -> Item {
                Box::new(move |o: &dyn Operands| {
                    let e = o.entry(i * i, i * i);
                    quote!(#e *= 2.0;)
                })
            })
            .collect();
        let chunks = emit(&items, &layout, &quote!(), true);
        assert_eq!(chunks.len(), 6);
    }

    /// A block of two items moving in opposite directions, repeated three times.
    #[test]
    fn a_block_of_two_moving_both_ways() {
        let position = column_stored(10);
        let layout = Layout {
            n: 10,
            position: &position,
        };
        let items: Vec<Item> = (0..3)
            .flat_map(|t| -> [Item; 2] {
                [
                    Box::new(move |o: &dyn Operands| {
                        let (e, s) = (o.entry(t, 0), o.index(9 - t));
                        quote!(#e = x[#s];)
                    }),
                    Box::new(move |o: &dyn Operands| {
                        let e = o.entry(1, t);
                        quote!(#e += 1.0;)
                    }),
                ]
            })
            .collect();
        let chunks = emit(&items, &layout, &quote!(), true);
        assert_eq!(chunks.len(), 1);
        let text = chunks[0].tokens.to_string();
        assert!(text.contains("for t in 0 .. 3"), "{text}");
        assert!(text.contains("let u = 2 - t ;"), "{text}");
        assert!(text.contains("x [7 + u * 1]"), "{text}");
        assert!(text.contains("f [1 + t * 10]"), "{text}");
    }
}
