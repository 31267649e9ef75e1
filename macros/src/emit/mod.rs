//! Emission of the model struct and of the runtime trait impls: [`model`] (the struct,
//! parameters, model-level functions, momentum maps), [`kernels`] (point kernels for the
//! assembled families), [`scheme`] (per requested scheme: the symbolic family's step
//! equations with their exact Jacobian, the `Step` impls, the budget); here the helpers
//! they share, which turn graph nodes into straight-line Rust.
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::schemes::SchemeRequest;

mod kernels;
mod model;
mod scheme;
use crate::sym::{emit::emit, Id, VarId};

/// The hidden runtime module every path of the generated code goes through.
pub(crate) fn private() -> TokenStream {
    quote!(::livens::__private)
}

pub(crate) fn lit(i: usize) -> Literal {
    Literal::usize_unsuffixed(i)
}

/// Rust expression reading variable `v` inside a generated function.
fn var_expr(model: &Model, v: VarId) -> TokenStream {
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
        Role::Invariant(_) => unreachable!("invariants are substituted before emission"),
        Role::SchemeParam(field) => {
            let (p, f) = (private(), format_ident!("{}", field));
            quote!(#p::c::<T>(scheme.#f()))
        }
    }
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
fn smatrix_body(model: &Model, rows: usize, cols: usize, entries: &[Id]) -> TokenStream {
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

/// Expands the checked model into its struct and trait impls, or the errors of the
/// schemes whose code would exceed the budget.
pub fn expand(
    model: &mut Model,
    quantities: &Quantities,
    schemes: &[SchemeRequest],
) -> syn::Result<TokenStream> {
    let mut out = model::items(model, quantities);
    out.extend(kernels::point_kernels(model, quantities));
    out.extend(scheme::impls(model, quantities, schemes)?);
    out.extend(scheme::declared_schemes(model, schemes));
    debug_assert!(model.graph.check_memo(), "no two ids for one node");
    Ok(out)
}
