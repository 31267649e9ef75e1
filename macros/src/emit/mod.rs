//! Emission of the model struct and of the runtime trait impls: [`model`] (the struct,
//! parameters, model-level functions, momentum maps), [`kernels`] (point kernels for the
//! assembled families), [`scheme`] (per requested scheme: the two-point family's step
//! equations with their exact Jacobian, the `Step` impls, the budget); [`tokens`] holds
//! the helpers they share, which turn graph nodes into straight-line Rust.
use proc_macro2::{Group, Ident, Literal, TokenStream, TokenTree};

use crate::ir::Model;
use crate::quantities::Quantities;
use crate::schemes::{Kernels, SchemeRequest};

mod elimination;
mod euler_lagrange;
mod kernels;
mod model;
mod repeats;
mod scheme;

pub(crate) use crate::ir::BUDGET;
mod stage_patterns;
mod tokens;

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
    if reads(Kernels::EulerLagrange) {
        out.extend(euler_lagrange::kernels(model, quantities));
    }
    if reads(Kernels::Curvature) {
        out.extend(kernels::curvature_kernels(model, quantities));
    }
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
