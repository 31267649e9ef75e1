//! Emission of the model struct and of the runtime trait impls: [`model`] (the struct,
//! parameters, model-level functions, momentum maps), [`kernels`] (point kernels for the
//! assembled families), [`scheme`] (per requested scheme: the symbolic family's step
//! equations with their exact Jacobian, the `Step` impls, the budget); here the helpers
//! they share, which turn graph nodes into straight-line Rust.
use proc_macro2::{Group, Ident, Literal, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::schemes::{Kernels, SchemeRequest};

mod elimination;
mod kernels;
mod model;
mod repeats;
mod scheme;
mod stage_patterns;
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
    // Hygiene: the generated items are generic over a scalar type `T`, and the model's
    // name is the only user-chosen name in the type namespace. A model named `T` is
    // generated under a placeholder name, and the scalar is then renamed `T_` and the
    // placeholder back to the user's ident (params are fields, a separate namespace,
    // but a field named `T` is protected the same way).
    let clash = model.name == "T";
    let mut renamed = Vec::new();
    if clash {
        let placeholder = |ident: &mut Ident, renamed: &mut Vec<(Ident, Ident)>| {
            let fresh = Ident::new(&format!("__livens_user_{}", renamed.len()), ident.span());
            renamed.push((fresh.clone(), std::mem::replace(ident, fresh)));
        };
        placeholder(&mut model.name, &mut renamed);
        for prm in &mut model.params {
            if prm.name == "T" {
                placeholder(&mut prm.name, &mut renamed);
            }
        }
    }
    let mut out = model::items(model, quantities);
    out.extend(kernels::point_kernels(model, quantities));
    // The constraint kernels of the assembled families the model's schemes belong to.
    let reads = |k: Kernels| {
        schemes.iter().any(|s| {
            let family = s.kind.family().assembled();
            family.is_some_and(|f| f.kernels.contains(&k))
        })
    };
    if reads(Kernels::Holonomic) {
        out.extend(kernels::holonomic_kernels(model, quantities));
    }
    out.extend(kernels::nonholonomic_kernels(model, quantities));
    out.extend(scheme::impls(model, quantities, schemes)?);
    out.extend(scheme::declared_schemes(model, schemes));
    debug_assert!(model.graph.check_memo(), "no two ids for one node");
    if clash {
        out = rename_scalar(out, &renamed);
    }
    Ok(out)
}

/// The generated code with the scalar type `T` renamed `T_` and each placeholder of
/// `renamed` replaced by the user's ident (and its string by the user's name).
fn rename_scalar(tokens: TokenStream, renamed: &[(Ident, Ident)]) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) if ident == "T" => {
                TokenTree::Ident(Ident::new("T_", ident.span()))
            }
            TokenTree::Ident(ident) => TokenTree::Ident(
                renamed
                    .iter()
                    .find(|(placeholder, _)| *placeholder == ident)
                    .map_or(ident, |(_, user)| user.clone()),
            ),
            TokenTree::Group(group) => {
                let mut inner =
                    Group::new(group.delimiter(), rename_scalar(group.stream(), renamed));
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            // The names as strings (`NAME`, `PARAMETERS`, messages).
            TokenTree::Literal(lit) => TokenTree::Literal(
                renamed
                    .iter()
                    .find(|(placeholder, _)| lit.to_string() == format!("\"{placeholder}\""))
                    .map_or(lit, |(_, user)| {
                        let mut text = Literal::string(&user.to_string());
                        text.set_span(user.span());
                        text
                    }),
            ),
            other => other,
        })
        .collect()
}
