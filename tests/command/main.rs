//! The `livens` command as a user runs it.
//!
//! One test binary per theme, each file a module: the models and schemes a theme
//! shares are compiled and linked once (`cargo test --test command MODULE::`).
mod cli;
