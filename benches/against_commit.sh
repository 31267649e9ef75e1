#!/usr/bin/env bash
# A step of this working tree against the same step at an older commit, in one criterion
# run (one binary, cargo's default bench profile, as this workspace's own benches), so
# that machine, load and compiler are the same for both.
#
#   benches/against_commit.sh [COMMIT] [top|chain]
#
# COMMIT defaults to 64f01cc, the performance issue's base. `top` (the default) times the
# Lagrange top's EM step: `Integrator::new(LagrangeTop::new(), GglEm,
# LagrangeTop::DEFAULT_STEP, initial)`, restarting every 1000 steps, which every commit
# since the first release of the GGL schemes spells the same way; it prints both medians
# and their ratio (the issue asks for at most 0.3 against 64f01cc). `chain` times the EM
# step of the 10- and 40-link chains of `benches/support/chains.rs` (each version's own
# declaration: commits that have the file), restarting every 200 steps as
# `benches/chain.rs` does, and prints the medians, new / old, and t(40) / t(10) of each
# version.
#
# Two versions of livens cannot share a crate graph under one version number, so the
# old commit is checked out in a temporary worktree with its version set to 0.0.0, and
# a throwaway crate depending on both runs the benchmark. The chains are declared in one
# small crate per version, since `model!` names its runtime `::livens`.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-64f01cc}"
what="${2:-top}"
case "$what" in top | chain) ;; *) echo "usage: $0 [COMMIT] [top|chain]" >&2; exit 2 ;; esac
work="$(mktemp -d)"
trap 'git -C "$here" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$here" worktree add --detach -q "$work/old" "$commit"
sed -i 's/^version = "0\.1\.0"/version = "0.0.0"/; s/version = "=0\.1\.0"/version = "=0.0.0"/g' \
    "$work/old/Cargo.toml"

# Starts the manifest $1 of a throwaway crate named $2 with its [package] table.
package() {
    cat > "$1" <<EOF
[package]
name = "$2"
version = "0.0.0"
edition = "2021"
publish = false

EOF
}

if [ "$what" = chain ]; then
    for version in old new; do
        source="$here"
        [ "$version" = old ] && source="$work/old"
        mkdir -p "$work/ab/$version-chains/src"
        cp "$source/benches/support/chains.rs" "$work/ab/$version-chains/src/chains.rs"
        package "$work/ab/$version-chains/Cargo.toml" "$version-chains"
        cat >> "$work/ab/$version-chains/Cargo.toml" <<EOF
[dependencies]
livens = { path = "$source" }
EOF
        cat > "$work/ab/$version-chains/src/lib.rs" <<'EOF'
pub use livens;
#[macro_use]
mod chains;
chain!(Chain10, 10);
chain!(Chain40, 40);
EOF
    done
    # The throwaway workspace apart from the old worktree, whose own workspace it would
    # otherwise take in as a member.
    mkdir -p "$work/ab/probe/benches" "$work/ab/probe/src"
    touch "$work/ab/probe/src/lib.rs"
    cat > "$work/ab/Cargo.toml" <<EOF
[workspace]
members = ["probe", "old-chains", "new-chains"]
resolver = "2"
EOF
    package "$work/ab/probe/Cargo.toml" against-commit
    cat >> "$work/ab/probe/Cargo.toml" <<EOF
[dependencies]
old-chains = { path = "../old-chains" }
new-chains = { path = "../new-chains" }
criterion = { version = "0.5", default-features = false }

[[bench]]
name = "chain"
harness = false
EOF
    cat > "$work/ab/probe/benches/chain.rs" <<'EOF'
use std::hint::black_box;

use criterion::Criterion;

const RESET: u32 = 200;

macro_rules! chain_em {
    ($c:expr, $name:expr, $chains:ident, $model:ident) => {{
        use $chains::livens::prelude::*;
        let model = $chains::$model::new();
        let initial = model.initial_state();
        let mut sim = Box::new(Integrator::new(model, GglEm, 0.01, initial));
        let mut since = 0;
        $c.bench_function($name, |b| {
            b.iter(|| {
                if since == RESET {
                    sim.set_state(initial);
                    since = 0;
                }
                since += 1;
                black_box(black_box(&mut sim).step().expect("a chain step").iterations)
            })
        });
    }};
}

fn run() {
    let mut c = Criterion::default().configure_from_args();
    chain_em!(c, "chain_em/old/10", old_chains, Chain10);
    chain_em!(c, "chain_em/new/10", new_chains, Chain10);
    chain_em!(c, "chain_em/old/40", old_chains, Chain40);
    chain_em!(c, "chain_em/new/40", new_chains, Chain40);
    c.final_summary();
}

/// On a 2 MiB thread, as `benches/chain.rs`.
fn main() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("the bench thread finished");
}
EOF
    cd "$work/ab/probe"
    cargo bench --bench chain 2>&1 | tee "$work/log" | grep -E "time:"
    # The middle of criterion's three estimates is its median.
    awk '$1 ~ /^chain_em\// && $2 == "time:" {
             scale = ($6 == "ms") ? 1000 : ($6 == "ns") ? 0.001 : 1
             median[substr($1, 10)] = $5 * scale
         }
         END {
             for (n = 10; n <= 40; n += 30)
                 printf "chain_em/%d: new / old = %.2f (medians %.2f and %.2f µs)\n", n,
                        median["new/" n] / median["old/" n], median["new/" n], median["old/" n]
             printf "t(40) / t(10): old %.2f, new %.2f\n",
                    median["old/40"] / median["old/10"], median["new/40"] / median["new/10"]
         }' "$work/log"
    exit 0
fi

mkdir -p "$work/probe/benches" "$work/probe/src"
touch "$work/probe/src/lib.rs"
package "$work/probe/Cargo.toml" against-commit
cat >> "$work/probe/Cargo.toml" <<EOF
[dependencies]
livens = { path = "$here" }
livens-models = { path = "$here/models" }
old-livens = { package = "livens", path = "$work/old" }
old-models = { package = "livens-models", path = "$work/old/models" }
criterion = { version = "0.5", default-features = false }

[[bench]]
name = "top"
harness = false

[workspace]
EOF
cat > "$work/probe/benches/top.rs" <<'EOF'
use std::hint::black_box;

use criterion::Criterion;

const RESET: u32 = 1000;

macro_rules! top_em {
    ($c:expr, $name:expr, $livens:ident, $models:ident) => {{
        use $livens::prelude::*;
        let model = $models::LagrangeTop::new();
        let initial = model.initial_state().expect("the paper's top data");
        let h = $models::LagrangeTop::DEFAULT_STEP;
        let mut sim = Integrator::new(model, GglEm, h, initial);
        let (mut since, mut steps, mut iterations) = (0, 0u64, 0u64);
        $c.bench_function($name, |b| {
            b.iter(|| {
                if since == RESET {
                    sim.set_state(initial);
                    since = 0;
                }
                since += 1;
                let report = black_box(&mut sim).step().expect("a top step");
                steps += 1;
                iterations += u64::from(report.iterations);
            })
        });
        iterations as f64 / steps.max(1) as f64
    }};
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let old = top_em!(c, "top_em/old", old_livens, old_models);
    let new = top_em!(c, "top_em/new", livens, livens_models);
    c.final_summary();
    eprintln!("mean Newton iterations: old {old:.3}, new {new:.3}");
}
EOF
cd "$work/probe"
cargo bench --bench top 2>&1 | tee "$work/log" | grep -E "time:|iterations"
# The middle of criterion's three estimates is its median.
awk '$1 ~ /^top_em\// && $2 == "time:" {
         scale = ($6 == "ms") ? 1000 : ($6 == "ns") ? 0.001 : 1
         median[substr($1, 8)] = $5 * scale
     }
     END { printf "top_em: new / old = %.2f (medians %.2f and %.2f µs)\n",
                  median["new"] / median["old"], median["new"], median["old"] }' "$work/log"
