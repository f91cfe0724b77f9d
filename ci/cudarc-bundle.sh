#!/usr/bin/env bash
# Builds everything the cudarc-facade proofs run on a GPU machine (which has no Rust): cudarc's
# examples and unit tests against the facade and against cudarc itself, the candle-kernels
# workload, the [patch] proof and the overhead benchmark (cudarc itself and the facade), into DEST (default .device/cudarc).
#   bash ci/cudarc-bundle.sh [DEST]      then on the GPU machine: bash ci/cudarc-gpu.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/.device/cudarc}"
rm -rf "$DEST" && mkdir -p "$DEST/bin"
bash "$ROOT/ci/cudarc-examples.sh" bundle "$DEST"
bash "$ROOT/ci/cudarc-unit-tests.sh" bundle "$DEST/bin"
bash "$ROOT/ci/cudarc-workload.sh" bundle "$DEST"
bash "$ROOT/ci/cudarc-bench.sh" bundle "$DEST"
bash "$ROOT/ci/cudarc-upstream.sh" bundle "$DEST"
export ANYCUDA_CUDARC_QUIET=1
CARGO_TARGET_DIR="$ROOT/target" cargo build --release --locked --manifest-path "$ROOT/facades/cudarc-proof/Cargo.toml"
cp "$ROOT/target/release/cudarc-proof" "$DEST/bin/"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}" cargo build --release --locked -p anycuda-cudarc --example bench_pageable
cp "${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/bench_pageable" "$DEST/bin/"
# Smaller to carry: symbols are not needed to run.
command -v strip >/dev/null && strip "$DEST"/bin/*
ls "$DEST/bin" && du -sh "$DEST"
