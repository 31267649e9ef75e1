#!/usr/bin/env bash
# Every published crate packages, and the packages compile from their tarballs alone.
#
# `cargo package` would verify each tarball by building it as a workspace of its own:
# the runtime, the macro and the models once per package that needs them, the models
# with an unoptimised macro (no profile of ours applies there), about three minutes of
# both cores. Here the tarballs are made without that (`--no-verify`), unpacked side by
# side under one workspace that takes the root's profiles, their dependencies on each
# other patched to the unpacked copies, and `cargo check` compiles every library and the
# command once: a file missing from a tarball, a path outside its package or a manifest
# that does not normalise fails here as it would in verification.
# Usage: .ci/package.sh (CARGO_TARGET_DIR: where the tarballs and the check build go).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
cd "$repo"

# The crates that are published; the benches and the compile-fail cases are not.
crates=(livens-catalogue livens-runtime livens-macros livens-models livens)
cargo package --workspace --exclude livens-benches --exclude livens-diagnostics --no-verify

unpacked="$target/package/unpacked"
rm -rf "$unpacked"
mkdir -p "$unpacked"
for crate in "${crates[@]}"; do
    tarball="$(ls "$target"/package/"$crate"-[0-9]*.crate)"
    tar -xzf "$tarball" -C "$unpacked"
done

# One workspace over the unpacked packages, with the root manifest's profiles (the
# macro optimised, as our own builds have it) and the lock file the tests ran with.
{
    echo '[workspace]'
    echo 'resolver = "2"'
    echo 'members = ['
    for crate in "${crates[@]}"; do
        echo "    \"$(basename "$unpacked"/"$crate"-[0-9]*)\","
    done
    echo ']'
    echo
    echo '[patch.crates-io]'
    for crate in "${crates[@]}"; do
        echo "$crate = { path = \"$(basename "$unpacked"/"$crate"-[0-9]*)\" }"
    done
    echo
    sed -n '/^\[profile/,$p' "$repo/Cargo.toml"
} > "$unpacked/Cargo.toml"
cp "$repo/Cargo.lock" "$unpacked/Cargo.lock"

cd "$unpacked"
# The packaged manifests are normalised: a `[workspace]` of their own would be refused
# here, and `package.workspace` would point outside. Neither is expected.
start=$(date +%s)
cargo check --workspace --bins --lib
echo "the unpacked packages compiled in $(( $(date +%s) - start )) s"
