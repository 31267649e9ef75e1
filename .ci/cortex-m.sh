#!/usr/bin/env bash
# Builds examples/cortex-m for the Cortex-M4F (thumbv7em-none-eabihf, release) and runs
# it on QEMU's MPS2 AN386 board: the binary steps catalogue models in f32 and f64,
# checks its own figures and exits through semihosting with their verdict. Fails if
# the build, the lints or a check fail, if the run does not end within the timeout, or
# if an expected line is missing. docs/embedded.md says what the lines mean.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/examples/cortex-m"

command -v qemu-system-arm >/dev/null || {
    apt-get update && apt-get install -y --no-install-recommends qemu-system-arm
}
rustup target add thumbv7em-none-eabihf >/dev/null 2>&1 || true
rustup component add rustfmt clippy >/dev/null 2>&1 || true

# The crate is outside the workspace: its own lockfile (kept as committed: --locked),
# its own format and lint checks. Its builds share the workspace's target folder
# (examples/cortex-m/.cargo/config.toml) unless CARGO_TARGET_DIR says otherwise.
cargo fmt --check
# Clippy lints the crate in a release build (clippy-driver as the compiler of this
# package only, `-D warnings` for the binary), so that the dependencies and the models
# are built once: `cargo clippy` would check them first, expanding every catalogue
# model a second time (3 to 4 minutes more on a 2-core machine). Clippy turns MIR
# optimisations off, so the binary is then rebuilt as `cargo run --release` builds it
# (that crate alone, seconds): the figures are those of the plain release build.
RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)" \
    cargo rustc --release --locked --bin livens-cortex-m -- -D warnings
cargo build --release --locked
target_dir="${CARGO_TARGET_DIR:-$root/target}"
binary="$target_dir/thumbv7em-none-eabihf/release/livens-cortex-m"

# The runner of .cargo/config.toml, with a timeout: `-icount shift=0` makes SysTick
# count instructions; semihosting carries the output and the exit status.
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
# No serial port, monitor or display: QEMU needs no terminal and no standard input.
timeout 300 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 \
    -display none -serial none -monitor none \
    -icount shift=0 -semihosting-config enable=on,target=native \
    -kernel "$binary" | tee "$out" || status=$?
if [ "$status" -ne 0 ]; then
    echo "cortex-m: the binary exited with status $status (124: timed out)" >&2
    exit 1
fi

expected=(
    '^  ok     SysTick counts instructions: '
    '^default Pendulum3d GglEm f64: 200 of 200 steps, .*instructions/step min [0-9]+ mean [0-9]+ max [0-9]+$'
    '^default Pendulum3d GglEm f32: 200 of 200 steps, .*instructions/step min [0-9]+ mean [0-9]+ max [0-9]+$'
    '^ForcedOscillator LobattoIIIAIIIB\(2\) f64: 400 of 400 steps, '
    '^ForcedOscillator LobattoIIIAIIIB\(2\) f32: 400 of 400 steps, '
    '^cart-pole f64: linearize [0-9]+ instructions, dlqr [0-9]+ instructions '
    '^cart-pole LQR f64: 1000 control steps .*instructions/step min [0-9]+ mean [0-9]+ max [0-9]+$'
    '^cart-pole f32: linearize [0-9]+ instructions, dlqr [0-9]+ instructions '
    '^cart-pole LQR f32: 1000 control steps .*instructions/step min [0-9]+ mean [0-9]+ max [0-9]+$'
    '^real-time f64: worst step [0-9]+ instructions '
    '^real-time f32: worst step [0-9]+ instructions '
    '^  ok     real-time f64, budget 1 iteration: the step reports Err\(MaxIterations '
    '^  ok     real-time f32, budget 1 iteration: the step reports Err\(MaxIterations '
    '^memory: flash [0-9]+ B .* peak stack [0-9]+ B$'
    '^checks: [0-9]+ ok, 0 failed$'
)
missing=0
for line in "${expected[@]}"; do
    if ! grep -Eq "$line" "$out"; then
        echo "cortex-m: no line matches: $line" >&2
        missing=1
    fi
done
if grep -q 'FAILED' "$out"; then
    echo "cortex-m: a check failed" >&2
    missing=1
fi
[ "$missing" -eq 0 ] || exit 1
echo "cortex-m: every check passed on the emulated Cortex-M4F"
