#!/usr/bin/env bash
# cudarc 0.19.10's own examples, unchanged, built against anycuda-cudarc (and run, on a GPU).
#
#   bash ci/cudarc-examples.sh build          # CI: fetch cudarc through cargo, compile every example
#   bash ci/cudarc-examples.sh run            # build, then run each (needs a GPU; ANYCUDA_BACKEND)
#   bash ci/cudarc-examples.sh bundle DIR     # release binaries + their data into DIR, for a
#                                             # GPU machine without Rust (run there: ci/cudarc-gpu.sh)
#
# The examples are copied from cargo's cache into target/cudarc-proofs/examples/ at test time; a
# generated crate there depends on `cudarc = { package = "anycuda-cudarc", path = ... }`, with
# the facade's `f16` feature: the examples do not need it, but then this crate, cudarc's unit
# tests (ci/cudarc-unit-tests.sh), the [patch] proof and ci/cudarc-ci.sh's out-of-scope check
# resolve the same features below the facade (`half` changes syn's, and so every crate above),
# and share one build of anycuda's crates instead of building them again (about 25 s of CI).
# The list is CUDARC_EXAMPLES in ci/cudarc-common.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/cudarc-common.sh"
MODE="${1:-build}"
EXAMPLES=("${CUDARC_EXAMPLES[@]}")


SRC="$(cudarc_src)"
GEN="$WORK/examples"
mkdir -p "$GEN/src" "$GEN/examples"
echo "cudarc-examples: cudarc $CUDARC_VERSION source: $SRC"
cat >"$GEN/Cargo.toml" <<TOML
[package]
name = "cudarc-examples-on-anycuda"
version = "0.0.0"
edition = "2021"
publish = false
autoexamples = true
[workspace]
[dependencies]
cudarc = { package = "anycuda-cudarc", path = "$ROOT/facades/cudarc", features = ["f16"] }
TOML
: >"$GEN/src/lib.rs"
rm -f "$GEN"/examples/*
for e in "${EXAMPLES[@]}"; do cp "$SRC/examples/$e.rs" "$GEN/examples/"; done
# The data files the examples read (include_str!, ./examples/sin.ptx at run time).
cp "$SRC"/examples/*.cu "$SRC"/examples/*.ptx "$GEN/examples/"
# Start from the workspace's lock so the shared target dir reuses what it built.
cp "$ROOT/Cargo.lock" "$GEN/Cargo.lock"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

case "$MODE" in
build)
    cargo build --manifest-path "$GEN/Cargo.toml" --examples
    echo "cudarc-examples: ${#EXAMPLES[@]} cudarc examples compiled against anycuda-cudarc"
    ;;
run)
    cargo build --manifest-path "$GEN/Cargo.toml" --examples --release
    cd "$GEN"
    fail=0
    for e in "${EXAMPLES[@]}"; do
        if timeout 300 "$CARGO_TARGET_DIR/release/examples/$e" >"$WORK/$e.log" 2>&1; then
            echo "PASS $e"
        else
            echo "FAIL $e (log: $WORK/$e.log)"; tail -n 5 "$WORK/$e.log" | sed 's/^/    /'; fail=1
        fi
    done
    exit $fail
    ;;
bundle)
    DEST="${2:?bundle needs a destination folder}"
    cargo build --manifest-path "$GEN/Cargo.toml" --examples --release
    mkdir -p "$DEST/bin" "$DEST/examples"
    for e in "${EXAMPLES[@]}"; do cp "$CARGO_TARGET_DIR/release/examples/$e" "$DEST/bin/"; done
    cp "$GEN"/examples/*.ptx "$GEN"/examples/*.cu "$DEST/examples/"
    printf '%s\n' "${EXAMPLES[@]}" >"$DEST/examples.txt"
    echo "cudarc-examples: bundled into $DEST"
    ;;
*) echo "usage: $0 build|run|bundle DIR" >&2; exit 2 ;;
esac
