//! Emission of straight-line Rust: one `let` per needed node, in topological order, so
//! that every shared subexpression is computed once.
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use super::{Func, Graph, Id, Node, VarId};

/// A block of `let` statements computing a set of expressions, and for each requested
/// expression the token that names its value.
pub struct Block {
    pub stmts: TokenStream,
    pub values: Vec<TokenStream>,
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
    let mut stmts = TokenStream::new();
    for (i, &need) in needed.iter().enumerate() {
        if !need {
            continue;
        }
        let id = Id(i as u32);
        let name = temp(id);
        let rhs = match g.node(id) {
            Node::Const(bits) => {
                let x = f64::from_bits(bits);
                let lit = proc_macro2::Literal::f64_suffixed(x);
                quote!(#private::c::<T>(#lit))
            }
            Node::Var(v) => var(v),
            Node::Add(a, b) => {
                let ta = temp(a);
                match g.node(b) {
                    Node::Neg(c) => {
                        let tc = temp(c);
                        quote!(#ta - #tc)
                    }
                    _ => {
                        let tb = temp(b);
                        quote!(#ta + #tb)
                    }
                }
            }
            Node::Mul(a, b) => {
                let (ta, tb) = (temp(a), temp(b));
                quote!(#ta * #tb)
            }
            Node::Div(a, b) => {
                let (ta, tb) = (temp(a), temp(b));
                quote!(#ta / #tb)
            }
            Node::Neg(a) => {
                let ta = temp(a);
                quote!(-#ta)
            }
            Node::Powi(a, n) => {
                let ta = temp(a);
                match n {
                    2 => quote!(#ta * #ta),
                    -1 => quote!(#private::c::<T>(1.0f64) / #ta),
                    _ => quote!(#ta.powi(#n)),
                }
            }
            Node::Func(f, a) => {
                let ta = temp(a);
                let m = Ident::new(f.name(), Span::call_site());
                let _: Func = f;
                quote!(#ta.#m())
            }
            Node::SelectLt(x, y, a, b) => {
                let (tx, ty, ta, tb) = (temp(x), temp(y), temp(a), temp(b));
                quote!(if #tx < #ty { #ta } else { #tb })
            }
        };
        stmts.extend(quote!(let #name: T = #rhs;));
    }
    let values = outputs
        .iter()
        .map(|&o| {
            let t = temp(o);
            quote!(#t)
        })
        .collect();
    Block { stmts, values }
}

fn temp(id: Id) -> Ident {
    format_ident!("t{}", id.0)
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
