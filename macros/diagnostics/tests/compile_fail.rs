//! Compile-fail tests of `model!`: every diagnostic is pinned in
//! `tests/ui/<class>/<case>.stderr`. Regenerate with
//! `TRYBUILD=overwrite cargo test -p livens-diagnostics`, then read the diff.
//!
//! The harness has a package of its own (see its `Cargo.toml`): trybuild checks the
//! cases in a project with every dependency and dev-dependency of the package that runs
//! it, and this one has only the facade without its default features.

/// The flags trybuild 1.0.122 gives rustc when it checks the cases (`src/rustflags.rs`
/// and `src/cargo.rs` of its source, the version `Cargo.lock` pins).
const TRYBUILD_CASE_FLAGS: [&str; 6] = [
    "--cfg",
    "trybuild",
    "--verbose",
    "-A",
    "dead_code",
    "--diagnostic-width=140",
];

#[test]
fn ui() {
    // trybuild checks its project's dependencies (the facade, the runtime, nalgebra, and
    // the macro built for the host) with one set of flags, then the cases with
    // `--diagnostic-width=140` added: a change of flags, so every dependency is checked
    // and the macro built a second time. Cargo takes `CARGO_ENCODED_RUSTFLAGS` over the
    // `build.rustflags` trybuild sets on its command line: with the cases' flags there,
    // both passes are one build. The cases' diagnostics are the same (the `.stderr`
    // files are unchanged). The cases are compiled by rustc, as a user's crate is: a
    // lint driver CI wraps the workspace's builds in (`.ci/run`) is not passed on.
    std::env::set_var("CARGO_ENCODED_RUSTFLAGS", TRYBUILD_CASE_FLAGS.join("\x1f"));
    std::env::remove_var("RUSTC_WORKSPACE_WRAPPER");
    trybuild::TestCases::new().compile_fail("tests/ui/*/*.rs");
}
