//! Compile-fail tests of `model!`: every diagnostic is pinned in `tests/ui/<class>/<case>.stderr`.
//! Regenerate with `TRYBUILD=overwrite cargo test --test compile_fail`, then read the diff.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*/*.rs");
}
