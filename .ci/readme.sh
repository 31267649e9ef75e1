#!/usr/bin/env bash
# The README as a newcomer follows it: a fresh crate outside the workspace gets the
# README's dependency lines (their path pointed at this checkout) as its Cargo.toml and
# the README's "model in 15 lines" as its src/main.rs, builds and runs it with
# `cargo run`, and must print what the README says it prints. Figures at round-off
# (below 1e-12) may differ in their digits between machines and are compared as such.
# The blocks are the fenced code blocks after the README's `<!-- readme.sh: NAME -->`
# marker lines (NAME: Cargo.toml, main.rs, output).
# Usage: .ci/readme.sh [DIR]: the crate is made in DIR (kept, so that a second run reuses
# its dependencies) or in a temporary directory.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="$repo/README.md"
if [ -n "${1:-}" ]; then
    dir="$1"
else
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi

# Prints the fenced block that follows the marker line `<!-- readme.sh: $1 -->`.
block() {
    local text
    text="$(awk -v marker="<!-- readme.sh: $1 -->" '
        $0 == marker { found = 1; next }
        found && !inside && /^```/ { inside = 1; next }
        inside && /^```/ { exit }
        inside { print }
    ' "$readme")"
    if [ -z "$text" ]; then
        echo "README.md has no code block after the marker <!-- readme.sh: $1 -->" >&2
        exit 1
    fi
    printf '%s\n' "$text"
}

# Round-off figures (d.de-12 and smaller, and 0.0e0) read as one word, so that another
# machine's last digits do not count.
roundoff() {
    sed -E 's/[0-9]\.[0-9]e-(1[2-9]|[2-9][0-9]|[0-9]{3})|0\.0e0/<round-off>/g'
}

mkdir -p "$dir/src"
# The workspace's lock file pins the dependencies to the versions the tests ran with.
cp "$repo/Cargo.lock" "$dir/Cargo.lock"
cat > "$dir/Cargo.toml" <<'TOML'
[package]
name = "newcomer"
version = "0.0.0"
edition = "2021"
publish = false

# Not a member of any workspace above the crate's directory.
[workspace]

TOML
block Cargo.toml | sed -E "s|path = \"[^\"]*\"|path = \"$repo\"|" >> "$dir/Cargo.toml"
if ! grep -q "path = \"$repo\"" "$dir/Cargo.toml"; then
    echo "the README's Cargo.toml lines name no path dependency to point at the checkout" >&2
    exit 1
fi
block main.rs > "$dir/src/main.rs"
expected="$(block output)"

cd "$dir"
unset CARGO_TARGET_DIR
start=$(date +%s)
cargo build --quiet
echo "built the README's program in $(( $(date +%s) - start )) s"
actual="$(cargo run --quiet)"
printf '%s\n' "$actual"
if [ "$(printf '%s\n' "$actual" | roundoff)" != "$(printf '%s\n' "$expected" | roundoff)" ]; then
    echo "the README's program printed the lines above; the README says it prints:" >&2
    printf '%s\n' "$expected" >&2
    exit 1
fi
echo "the README's program prints what the README says"
