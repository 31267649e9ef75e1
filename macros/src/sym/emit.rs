//! Emission of straight-line Rust in which every shared subexpression is computed once.
//!
//! The values live in one flat array of temporaries, `let mut t = [0; K]; t[3] = t[1] *
//! t[2]; …`, not in one `let` per value: each `let` opens a scope nested in the previous
//! one, and rustc's and LLVM's passes over that nesting (the debug-info writer first)
//! recurse once per level, which overflowed the stack at a few thousand statements. The
//! array keeps the nesting depth at one whatever the size; in optimised builds LLVM
//! splits it back into registers (measured no slower, see `docs/ARCHITECTURE.md`).
//! Variables and constants are not copied into the array: they are read where used.
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use super::{Func, Graph, Id, Node, VarId};

/// A block of statements computing a set of expressions, and for each requested
/// expression the token that names its value.
pub struct Block {
    pub stmts: TokenStream,
    pub values: Vec<TokenStream>,
    /// Number of temporaries (array slots) the block uses: its size, for the budget.
    pub temporaries: usize,
}

/// Emits the statements computing `outputs`. `var` maps each variable to the Rust
/// expression of its value (of type `T`); `private` is the path of the runtime's hidden
/// module (for constant conversion).
pub fn emit(
    g: &Graph,
    outputs: &[Id],
    var: &dyn Fn(VarId) -> TokenStream,
    private: &TokenStream,
) -> Block {
    let needed = needed_nodes(g, outputs);
    // Slots for operations only; variables and constants are operands in place.
    let mut slot = vec![usize::MAX; needed.len()];
    let mut slots = 0;
    for (i, &need) in needed.iter().enumerate() {
        if need && !matches!(g.node(Id(i as u32)), Node::Var(_) | Node::Const(_)) {
            slot[i] = slots;
            slots += 1;
        }
    }
    let operand = |id: Id| -> TokenStream {
        match g.node(id) {
            Node::Const(bits) => {
                let lit = Literal::f64_suffixed(f64::from_bits(bits));
                quote!(#private::c::<T>(#lit))
            }
            Node::Var(v) => var(v),
            _ => {
                let k = Literal::usize_unsuffixed(slot[id.index()]);
                quote!(t[#k])
            }
        }
    };
    let mut stmts = TokenStream::new();
    for (i, &need) in needed.iter().enumerate() {
        if !need || slot[i] == usize::MAX {
            continue;
        }
        let id = Id(i as u32);
        let rhs = match g.node(id) {
            Node::Const(_) | Node::Var(_) => unreachable!("operands, not slots"),
            Node::Add(a, b) => {
                let ta = operand(a);
                match g.node(b) {
                    Node::Neg(c) => {
                        let tc = operand(c);
                        quote!(#ta - #tc)
                    }
                    _ => {
                        let tb = operand(b);
                        quote!(#ta + #tb)
                    }
                }
            }
            Node::Mul(a, b) => {
                let (ta, tb) = (operand(a), operand(b));
                quote!(#ta * #tb)
            }
            Node::Div(a, b) => {
                let (ta, tb) = (operand(a), operand(b));
                quote!(#ta / #tb)
            }
            Node::Neg(a) => {
                let ta = operand(a);
                quote!(-#ta)
            }
            Node::Powi(a, n) => {
                let ta = operand(a);
                match n {
                    2 => quote!(#ta * #ta),
                    -1 => quote!(#private::c::<T>(1.0f64) / #ta),
                    _ => quote!(#ta.powi(#n)),
                }
            }
            Node::Func(f, a) => {
                let ta = operand(a);
                let m = Ident::new(f.name(), Span::call_site());
                let _: Func = f;
                quote!(#ta.#m())
            }
            Node::SelectLt(x, y, a, b) => {
                let (tx, ty, ta, tb) = (operand(x), operand(y), operand(a), operand(b));
                quote!(if #tx < #ty { #ta } else { #tb })
            }
        };
        let k = Literal::usize_unsuffixed(slot[i]);
        stmts.extend(quote!(t[#k] = #rhs;));
    }
    if slots > 0 {
        let n = Literal::usize_unsuffixed(slots);
        stmts = quote! {
            let mut t: [T; #n] = [#private::c::<T>(0.0f64); #n];
            #stmts
        };
    }
    let values = outputs.iter().map(|&o| operand(o)).collect();
    Block {
        stmts,
        values,
        temporaries: slots,
    }
}

/// Marks every node the outputs need. A `Neg` that only appears as the right operand
/// of an `Add` is printed as a subtraction and is not needed itself.
fn needed_nodes(g: &Graph, outputs: &[Id]) -> Vec<bool> {
    let Some(max) = outputs.iter().max() else {
        return Vec::new();
    };
    let mut need = vec![false; max.index() + 1];
    for &o in outputs {
        need[o.index()] = true;
    }
    for i in (0..need.len()).rev() {
        if !need[i] {
            continue;
        }
        let node = g.node(Id(i as u32));
        match node {
            Node::Add(a, b) => {
                need[a.index()] = true;
                match g.node(b) {
                    Node::Neg(c) => need[c.index()] = true,
                    _ => need[b.index()] = true,
                }
            }
            _ => {
                for c in node.children() {
                    need[c.index()] = true;
                }
            }
        }
    }
    need
}
