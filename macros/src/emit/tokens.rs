//! The pieces of straight-line Rust that the model, kernel and scheme emitters share:
//! paths into the runtime, literals, reads of the model's variables, and graph nodes
//! turned into statements, vectors and matrices.
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Model, Role};
use crate::sym::{emit::emit, Id, VarId};

/// The hidden runtime module every path of the generated code goes through.
pub(crate) fn private() -> TokenStream {
    quote!(::livens::__private)
}

pub(crate) fn lit(i: usize) -> Literal {
    Literal::usize_unsuffixed(i)
}

/// Rust expression reading variable `v` inside a generated function.
pub(crate) fn var_expr(model: &Model, v: VarId) -> TokenStream {
    let idx = |name: &str, i: usize| {
        let (n, i) = (format_ident!("{}", name), lit(i));
        quote!(#n[#i])
    };
    match model.role(v) {
        Role::Param(k) => {
            let name = &model.params[k].name;
            quote!(self.#name)
        }
        Role::Q(i) => idx("q", i),
        Role::V(i) => idx("v", i),
        Role::P(i) => idx("p", i),
        Role::Input(block, Some(i)) => idx(block, i),
        Role::Input(scalar, None) => {
            let n = format_ident!("{}", scalar);
            quote!(#n)
        }
        Role::Unknown(i) => idx("x", i),
        Role::Intermediate(k) => {
            let n = intermediate_ident(k);
            quote!(#n)
        }
        Role::IntermediateDerivative(k, j) => {
            let n = intermediate_derivative_ident(k, j);
            quote!(#n)
        }
        Role::Invariant(_) => unreachable!("invariants are substituted before emission"),
        Role::Time => quote!(time),
        Role::Control(k) => idx("u", k),
        Role::SchemeParam(field) => {
            let (p, f) = (private(), format_ident!("{}", field));
            quote!(#p::c::<T>(scheme.#f()))
        }
    }
}

/// The local a template's intermediate `w_k` is bound to (`Template::intermediates`).
pub(crate) fn intermediate_ident(k: usize) -> proc_macro2::Ident {
    format_ident!("w_{}", k)
}

/// The local `∂w_k/∂x_j` is bound to.
pub(crate) fn intermediate_derivative_ident(k: usize, j: usize) -> proc_macro2::Ident {
    format_ident!("dw_{}_{}", k, j)
}

/// Statements computing `outputs`, and the names of their values.
pub(crate) fn block(model: &Model, outputs: &[Id]) -> (TokenStream, Vec<TokenStream>) {
    let b = emit(&model.graph, outputs, &|v| var_expr(model, v), &private());
    (b.stmts, b.values)
}

pub(crate) fn svector(n: usize, values: &[TokenStream]) -> TokenStream {
    let p = private();
    let n = lit(n);
    quote!(#p::SVector::<T, #n>::from([#(#values),*]))
}

/// A function body returning the `rows × cols` matrix `entries` (row-major), writing
/// only its nonzero entries.
pub(crate) fn smatrix_body(model: &Model, rows: usize, cols: usize, entries: &[Id]) -> TokenStream {
    let p = private();
    let nonzero: Vec<(usize, Id)> = entries
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, e)| !model.graph.is_zero(*e))
        .collect();
    let ids: Vec<Id> = nonzero.iter().map(|(_, e)| *e).collect();
    let (stmts, vals) = block(model, &ids);
    let writes = nonzero.iter().zip(&vals).map(|((k, _), val)| {
        let (r, c) = (lit(k / cols), lit(k % cols));
        quote!(out.data.0[#c][#r] = #val;)
    });
    let (rows, cols) = (lit(rows), lit(cols));
    quote! {
        #stmts
        let mut out = #p::SMatrix::<T, #rows, #cols>::from_element(#p::c::<T>(0.0));
        #(#writes)*
        out
    }
}
