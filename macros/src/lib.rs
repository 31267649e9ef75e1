//! The `model!` macro of livens, a small compiler in stages, one module each:
//! `dsl` (syn grammar) → `lower` (names, vectors → scalar graph, the `ir`) → `check`
//! (can the model support its schemes?) → `schemes` (templates build the discrete
//! equations) → `emit` (straight-line Rust through the `sym` engine's emitter).
//! Everything below the entry point speaks `proc_macro2`, so it is unit-testable.
mod check;
mod dsl;
mod emit;
mod errors;
mod ir;
mod lower;
mod schemes;
mod sym;

use proc_macro::TokenStream;

/// Declares a mechanical model and generates its model-level functions and the step
/// equations of the schemes it lists. See the `livens` crate docs for the grammar.
#[proc_macro]
pub fn model(input: TokenStream) -> TokenStream {
    let ast = syn::parse_macro_input!(input as dsl::ModelAst);
    expand(ast).into()
}

fn expand(ast: dsl::ModelAst) -> proc_macro2::TokenStream {
    // On error, emit the errors alone, as for a parse error: rustc then reports no
    // follow-up errors at the uses of the struct, whereas a placeholder struct without
    // the model's impls gave a cascade of "no function `new`", "`Model` is not
    // implemented", ... (pinned by tests/ui/structure/model_in_use.rs).
    let result = lower::lower(ast).and_then(|mut model| {
        check::check(&mut model)?;
        Ok(emit::expand(&mut model))
    });
    result.unwrap_or_else(|e| e.to_compile_error())
}
