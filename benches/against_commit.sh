#!/usr/bin/env bash
# The Lagrange top's EM step of this working tree against the same step at an older
# commit, in one criterion run (one binary, cargo's default bench profile, as this
# workspace's own benches), so that machine, load and compiler are the same for both.
#
#   benches/against_commit.sh [COMMIT]     (default 64f01cc, the performance issue's base)
#
# Two versions of livens cannot share a crate graph under one version number, so the
# old commit is checked out in a temporary worktree with its version set to 0.0.0, and
# a throwaway crate depending on both runs the benchmark. It prints both medians and
# their ratio (the issue asks for at most 0.3 against 64f01cc). Both steps go through
# `Integrator::new(LagrangeTop::new(), GglEm, LagrangeTop::DEFAULT_STEP, initial)`,
# restarting every 1000 steps, which every commit since the first release of the GGL
# schemes spells the same way.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-64f01cc}"
work="$(mktemp -d)"
trap 'git -C "$here" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$here" worktree add --detach -q "$work/old" "$commit"
sed -i 's/^version = "0\.1\.0"/version = "0.0.0"/; s/version = "=0\.1\.0"/version = "=0.0.0"/g' \
    "$work/old/Cargo.toml"

mkdir -p "$work/probe/benches" "$work/probe/src"
touch "$work/probe/src/lib.rs"
cat > "$work/probe/Cargo.toml" <<EOF
[package]
name = "against-commit"
version = "0.0.0"
edition = "2021"
publish = false

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
