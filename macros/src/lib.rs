//! The `model!` macro of livens, a small compiler in stages, one module each:
//! `dsl` (syn grammar) → `lower` (names, vectors → scalar graph, the `ir`) → `check`
//! (can the model support its schemes?) → `schemes` (templates build the discrete
//! equations) → `emit` (straight-line Rust through the `sym` engine's emitter).
//! Everything below the entry point speaks `proc_macro2`, so it is unit-testable.
#![deny(missing_docs)]

mod check;
#[cfg(test)]
mod deep_tests;
mod dsl;
mod emit;
mod errors;
mod ir;
mod lower;
#[cfg(test)]
mod mutation_tests;
mod quantities;
mod quaternion;
mod schemes;
mod suggest;
mod sym;
#[cfg(test)]
mod test_rng;

use proc_macro::TokenStream;

// The language's reference, with a compiled example of every block. Its examples run as
// the `livens` facade's doctests (`src/doctests.rs`): run here they would need the facade
// as a dev-dependency, a second build of the runtime and nalgebra for the host.
#[doc = include_str!("model.md")]
#[proc_macro]
pub fn model(input: TokenStream) -> TokenStream {
    let ast = syn::parse_macro_input!(input as dsl::ModelAst);
    expand(ast).into()
}

fn expand(ast: dsl::ModelAst) -> proc_macro2::TokenStream {
    try_expand(ast).unwrap_or_else(|e| e.to_compile_error())
}

/// The expansion, or the model's errors.
fn try_expand(ast: dsl::ModelAst) -> syn::Result<proc_macro2::TokenStream> {
    // On error, emit the errors alone, as for a parse error: rustc then reports no
    // follow-up errors at the uses of the struct, whereas a placeholder struct without
    // the model's impls gave a cascade of "no function `new`", "`Model` is not
    // implemented", ... (pinned by macros/diagnostics/tests/ui/structure/model_in_use.rs).
    lower::lower(ast).and_then(|(mut model, schemes)| {
        let quantities = quantities::Quantities::new(&mut model);
        check::check(&mut model, &quantities, &schemes)?;
        let mut expansion = emit::expand(&mut model, &quantities, &schemes)?;
        // After the expansion, whose code it leaves as it was.
        expansion.extend(check::momentum_drift(&mut model, &schemes));
        Ok(expansion)
    })
}
