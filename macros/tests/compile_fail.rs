//! Compile-fail tests of `model!`: every diagnostic is pinned in
//! `tests/ui/<class>/<case>.stderr` (in this package). Regenerate with
//! `TRYBUILD=overwrite cargo test -p livens-macros --test compile_fail`, then read the
//! diff.
//!
//! The harness lives in this package, not in `livens`, because trybuild checks the cases
//! in a project of its own with every dependency and dev-dependency of the package that
//! runs it, unoptimised: from `livens` that was the command's plotting stack, criterion,
//! num-dual and the papers' models (a third of the test's three minutes). From here it
//! is the facade without its default features: the runtime, nalgebra and this macro.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*/*.rs");
}
