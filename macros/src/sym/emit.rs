//! Emission of straight-line Rust in which every shared subexpression is computed once.
//!
//! Each value is a local of its own, declared once for the whole block and assigned
//! once, in order: `let [t0, t1, …]: [T; K]; t2 = t0 * t1; …`. Two shapes were measured
//! and left:
//! - one `let` per value: each `let` opens a scope nested in the previous one, and
//!   rustc's debug-info writer recursed once per level until the stack overflowed at
//!   a few thousand statements (it still does with line tables, rustc 1.95);
//! - one array of temporaries, `t[2] = t[0] * t[1]`: the nesting depth is one, but
//!   rustc type-checks an indexed place twenty times slower than a local and LLVM
//!   must split the array back into registers. On a 10 000-statement function
//!   (`opt-level = 1`, line tables) that took 12.3 s to build against 1.5 s now;
//!   the models crate's type checking went from 36.5 s to 6.8 s.
//!
//! Deferred initialisation keeps both: one `let`, one scope, and plain locals.
//! Variables and constants are not copied into locals: they are read where used.
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use super::{Func, Graph, Id, Node, VarId};

/// A block of statements computing a set of expressions, and for each requested
/// expression the token that names its value.
pub struct Block {
    pub stmts: TokenStream,
    pub values: Vec<TokenStream>,
    /// Number of temporaries (locals) the block uses: its size, for the budget.
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
    emit_sunk(g, outputs, var, private, &|_, _| TokenStream::new())
}

/// A statement storing output `k` whose value is the expression given.
pub type Sink<'a> = &'a dyn Fn(usize, &TokenStream) -> TokenStream;

/// As [`emit`], with `sink(k, value)` (a statement storing output `k`) emitted right
/// after the statement that computes output `k`, or first of all when the output is a
/// variable or a constant. A step's writer stores thousands of Jacobian entries: stored
/// after the whole block, every entry's value stayed live until the end, and LLVM
/// spilled them to the stack and loaded them back. Stored as they come, the 40-link
/// chain's EM writer went from 159 KiB of machine code to 115 KiB.
pub fn emit_sunk(
    g: &Graph,
    outputs: &[Id],
    var: &dyn Fn(VarId) -> TokenStream,
    private: &TokenStream,
    sink: Sink,
) -> Block {
    let mut blocks = emit_sunk_each(g, outputs, var, private, &[sink]);
    blocks.swap_remove(0)
}

/// The right-hand side for an elementary function `f` of the operand `id` (named by
/// the tokens given), or `None` for the method call `x.f()`.
pub type Funcs<'a> = &'a dyn Fn(Func, Id, &TokenStream) -> Option<TokenStream>;

/// As [`emit_sunk`], with the elementary functions `funcs` computes in its own way (a
/// kernel that continues `sin` and `cos` from anchors) and the rest as method calls.
pub fn emit_with_funcs(
    g: &Graph,
    outputs: &[Id],
    (var, private): (&dyn Fn(VarId) -> TokenStream, &TokenStream),
    sink: Sink,
    funcs: Funcs,
) -> Block {
    let mut blocks = emit_blocks(g, outputs, (var, private), &[sink], funcs);
    blocks.swap_remove(0)
}

/// As [`emit_sunk`], once for each of `sinks`: the blocks differ only in their stores,
/// and the statements computing the values are built once (a writer that stores its
/// Jacobian in two layouts walks its graph once).
pub fn emit_sunk_each(
    g: &Graph,
    outputs: &[Id],
    var: &dyn Fn(VarId) -> TokenStream,
    private: &TokenStream,
    sinks: &[Sink],
) -> Vec<Block> {
    emit_blocks(g, outputs, (var, private), sinks, &|_, _, _| None)
}

/// [`emit_sunk_each`] with the elementary functions of `funcs`.
fn emit_blocks(
    g: &Graph,
    outputs: &[Id],
    (var, private): (&dyn Fn(VarId) -> TokenStream, &TokenStream),
    sinks: &[Sink],
    funcs: Funcs,
) -> Vec<Block> {
    // Slots for operations only, in the order they are computed; variables and
    // constants are operands in place. (A node's operands have lower ids.)
    let len = outputs.iter().map(|o| o.index() + 1).max().unwrap_or(0);
    let order = depth_first(g, outputs, len);
    let mut slot = vec![usize::MAX; len];
    for (k, &i) in order.iter().enumerate() {
        slot[i] = k;
    }
    let slots = order.len();
    let plain = |id: Id| -> TokenStream {
        match g.node(id) {
            Node::Const(bits) => {
                let lit = Literal::f64_suffixed(f64::from_bits(bits));
                quote!(#private::c::<T>(#lit))
            }
            Node::Var(v) => var(v),
            _ => {
                let t = temporary(slot[id.index()]);
                quote!(#t)
            }
        }
    };
    // A negation is printed in place, `(-t3)`: it costs no local of its own.
    let operand = |id: Id| -> TokenStream {
        match g.node(id) {
            Node::Neg(x) => {
                let inner = plain(x);
                quote!((-#inner))
            }
            _ => plain(id),
        }
    };
    // The outputs each node's statement completes, in order.
    let mut completes: Vec<Vec<usize>> = vec![Vec::new(); len];
    let mut stmts = vec![TokenStream::new(); sinks.len()];
    let store = |stmts: &mut [TokenStream], k: usize, value: &TokenStream| {
        for (stmts, sink) in stmts.iter_mut().zip(sinks) {
            stmts.extend(sink(k, value));
        }
    };
    for (k, &o) in outputs.iter().enumerate() {
        // A negated output is stored with the statement of what it negates.
        let computed = match g.node(o) {
            Node::Neg(x) => x,
            _ => o,
        };
        if slot[computed.index()] == usize::MAX {
            store(&mut stmts, k, &operand(o));
        } else {
            completes[computed.index()].push(k);
        }
    }
    for &i in &order {
        let id = Id(i as u32);
        let rhs = match g.node(id) {
            Node::Func(f, a) => funcs(f, a, &operand(a)),
            _ => None,
        }
        .unwrap_or_else(|| operation(g, id, &operand, private));
        let t = temporary(slot[i]);
        let statement = quote!(#t = #rhs;);
        for stmts in &mut stmts {
            stmts.extend(statement.clone());
        }
        for &k in &completes[i] {
            store(&mut stmts, k, &operand(outputs[k]));
        }
    }
    let values: Vec<TokenStream> = outputs.iter().map(|&o| operand(o)).collect();
    stmts
        .into_iter()
        .map(|stmts| {
            let stmts = if slots > 0 {
                let n = Literal::usize_unsuffixed(slots);
                let names = (0..slots).map(temporary);
                quote! {
                    let [#(#names),*]: [T; #n];
                    #stmts
                }
            } else {
                stmts
            };
            Block {
                stmts,
                values: values.clone(),
                temporaries: slots,
            }
        })
        .collect()
}

/// The local holding the value computed `k`-th.
fn temporary(k: usize) -> Ident {
    Ident::new(&format!("t{k}"), Span::call_site())
}

/// The right-hand side of the statement computing operation `id`, its operands as
/// `operand` names them.
fn operation(
    g: &Graph,
    id: Id,
    operand: &dyn Fn(Id) -> TokenStream,
    private: &TokenStream,
) -> TokenStream {
    match g.node(id) {
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
        Node::Neg(_) => unreachable!("a negation is printed in place, not computed"),
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
    }
}

/// The operations the outputs need, each after its operands, in the order of a
/// depth-first walk from each output in turn, so that each value is computed close to
/// where it is used. In the order the graph created its nodes, a step's whole residual
/// came before any of its derivatives, and every value of the residual that the
/// Jacobian reuses stayed live (on the stack) until its row came: with the writer's
/// outputs equation by equation, the 40-link chain's EM writer went from 115 KiB of
/// machine code to 97 KiB.
fn depth_first(g: &Graph, outputs: &[Id], len: usize) -> Vec<usize> {
    // A negation is printed in place (`emit_sunk_each`): its operand is what is computed.
    let unnegated = |id: Id| match g.node(id) {
        Node::Neg(x) => x,
        _ => id,
    };
    let operands = |id: Id| -> Vec<Id> { g.node(id).children().map(unnegated).collect() };
    let is_operation = |id: Id| !matches!(g.node(id), Node::Var(_) | Node::Const(_) | Node::Neg(_));
    let mut visited = vec![false; len];
    let mut order = Vec::new();
    for &o in outputs {
        let o = unnegated(o);
        if !is_operation(o) {
            continue;
        }
        // (node, whether its operands have been pushed): a node is computed when it
        // comes off the stack the second time, after every operand pushed above it.
        let mut stack = vec![(o, false)];
        while let Some((id, expanded)) = stack.pop() {
            if expanded {
                order.push(id.index());
                continue;
            }
            if visited[id.index()] {
                continue;
            }
            visited[id.index()] = true;
            stack.push((id, true));
            for c in operands(id).into_iter().rev() {
                if is_operation(c) && !visited[c.index()] {
                    stack.push((c, false));
                }
            }
        }
    }
    order
}
