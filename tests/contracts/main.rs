//! The runtime's contracts: no allocation per step, failures reported and state kept, bad input refused, hygienic generated code, the DSL's features and the scheme catalogue against what is generated.
//!
//! One test binary per theme, each file a module: the models and schemes a theme
//! shares are compiled and linked once (`cargo test --test contracts MODULE::`).
mod allocation;
mod arrays;
mod bad_input;
mod catalogue;
mod consistent_stack;
mod docs;
mod dsl;
mod energy_balance;
mod failure;
mod hygiene;
mod renamed;
