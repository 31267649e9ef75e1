//! Compile-fail tests of `model!`: every diagnostic is pinned in
//! `tests/ui/<class>/<case>.stderr`. Regenerate with
//! `TRYBUILD=overwrite cargo test -p livens-diagnostics`, then read the diff.
//!
//! The harness has a package of its own (see its `Cargo.toml`): trybuild checks the
//! cases in a project with every dependency and dev-dependency of the package that runs
//! it, and this one has only the facade without its default features.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*/*.rs");
}
