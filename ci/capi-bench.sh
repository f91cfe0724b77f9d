#!/usr/bin/env bash
# The C ABI's per-call cost without a GPU (docs/c-abi.md reports it): a release build of the
# C-ABI library on the active backend (ANYCUDA_BACKEND as usual); with NVIDIA's driver present,
# cuDriverGetVersion through anycuda against the driver itself.
#   bash ci/capi-bench.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --locked --release -p anycuda-capi
LIB="${CARGO_TARGET_DIR:-$ROOT/target}/release/libanycuda_capi.so"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cc -O2 -Wall -Werror ci/capi/bench.c -o "$WORK/bench" -ldl
"$WORK/bench" "$LIB"
