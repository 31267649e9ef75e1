//! The `model!` macro of livens: DSL → model IR → symbolic engine → scheme templates →
//! Rust code. See the `livens` crate for the user documentation.
mod sym;

use proc_macro::TokenStream;

/// Declares a mechanical model; see the `livens` crate docs.
#[proc_macro]
pub fn model(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
