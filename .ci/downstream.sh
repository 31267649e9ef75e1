#!/usr/bin/env bash
# A downstream crate, outside the workspace and with cargo's default profiles (so the
# proc macro itself is built without optimisation, as every user gets it), compiles a
# model whose potential has TERMS terms as written, with `cargo build --release`.
# Usage: .ci/downstream.sh [TERMS [DIR]]: TERMS defaults to 5000; the crate is made in
# DIR (kept, so that a second run reuses its dependencies) or in a temporary directory.
# Prints the build's time and, when /usr/bin/time is there, its peak memory. Then
# checks that 2 000 nested minus signs are a compile error, not a crash of rustc.
set -euo pipefail
terms="${1:-5000}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${2:-}" ]; then
    dir="$2"
else
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
fi

mkdir -p "$dir/src"
# The workspace's lock file pins the dependencies to the versions the tests ran with.
cp "$repo/Cargo.lock" "$dir/Cargo.lock"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "downstream"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
livens = { path = "$repo", default-features = false }

# Not a member of any workspace above the temporary directory.
[workspace]
TOML

# A polynomial potential of degree ≤ 3 in six coordinates, every term with its own
# coefficient, so that no two terms are the same node and nothing collapses.
awk -v n="$terms" 'BEGIN {
    split("a.x a.y a.z b.x b.y b.z", c, " ");
    printf "livens::model! {\n    /// %d terms in the potential.\n", n;
    print "    pub struct Long {";
    print "        params { k = 1.0 }";
    print "        coords { a: Vec3, b: Vec3 }";
    print "        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));";
    printf "        potential = ";
    for (i = 0; i < n; i++) {
        coef = sprintf("%.6f", 1.0 + i / 1000.0);
        x = c[i % 6 + 1]; y = c[int(i / 6) % 6 + 1]; z = c[int(i / 36) % 6 + 1];
        if (i > 0) printf (i % 7 == 3 ? "\n            - " : "\n            + ");
        if (i % 3 == 0) printf "%s * k * %s", coef, x;
        else if (i % 3 == 1) printf "%s * %s * %s", coef, x, y;
        else printf "%s * %s * %s * %s", coef, x, y, z;
    }
    print ";";
    print "        schemes { LobattoIIIAIIIB(2) }";
    print "    }";
    print "}";
}' > "$dir/src/model.rs"

cat > "$dir/src/main.rs" <<'RS'
use livens::prelude::*;

include!("model.rs");

fn main() {
    let model = Long::new();
    let q = SVector::from([0.1, -0.2, 0.3, 0.4, -0.5, 0.6]);
    let v = SVector::from([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let (e, f) = (model.energy(&q, &v), model.dl_dq(&q, &v));
    assert!(e.is_finite() && f.iter().all(|x| x.is_finite()));
    // One step of the scheme, so that its generated code is compiled as well.
    let state = PhaseState::from_velocities(&model, q, v);
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<2>, 1e-4, state);
    let report = sim.step().expect("a small step converges");
    println!("energy {e}, force {}, one step in {} Newton iterations", f.norm(), report.iterations);
}
RS

cd "$dir"
unset CARGO_TARGET_DIR
start=$(date +%s)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "peak memory %M kB" cargo build --release --quiet
else
    cargo build --release --quiet
fi
echo "built a model with a $terms-term potential in $(( $(date +%s) - start )) s"
./target/release/downstream

# The same crate with 2 000 nested minus signs in the potential: rustc's stack overflowed
# inside the unoptimised macro at this depth. It must be a compile error with a span.
minus=$(printf -- '- %.0s' $(seq 2000))
cat > src/model.rs <<RS
livens::model! {
    pub struct Long {
        params { k = 1.0 }
        coords { a: Vec3, b: Vec3 }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = k * a.z + ${minus}b.z;
        schemes { LobattoIIIAIIIB(2) }
    }
}
RS
if out=$(cargo build --release --quiet 2>&1); then
    echo "2 000 nested minus signs compiled; expected a refusal" >&2
    exit 1
fi
if ! grep -q "nests more than 256 levels" <<<"$out"; then
    echo "2 000 nested minus signs: no nesting error in" >&2
    echo "$out" >&2
    exit 1
fi
echo "2 000 nested minus signs: refused with a spanned error"
