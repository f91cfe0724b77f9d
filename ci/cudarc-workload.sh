#!/usr/bin/env bash
# Downstream workload through the cudarc facade: candle's CUDA kernels (crate candle-kernels
# 0.9.1, fetched through cargo at test time, never committed) compiled with compile_ptx and run
# against a CPU reference by facades/cudarc/examples/candle_kernels.rs.
#
#   bash ci/cudarc-workload.sh            # build + run (no GPU: compiles the kernels, SKIPs launches)
#   bash ci/cudarc-workload.sh bundle DIR # the binary and the kernel sources into DIR
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/cudarc-common.sh"
MODE="${1:-run}"
KSRC="$(crate_src candle-kernels 0.9.1)/src"
echo "cudarc-workload: candle-kernels 0.9.1 source: $KSRC"
cd "$ROOT"
case "$MODE" in
run)
    # The features of ci/cudarc-ci.sh's facade tests, built just before: the same feature
    # resolution, so their build of anycuda's crates is reused (about 25 s of CI).
    cargo build --locked -p anycuda-cudarc --features f16,f8 --example candle_kernels
    # The CUDA headers: the pinned ones CI fetched (cuda_fp16.h), else the toolkit's.
    INC="${CUDA_INCLUDE:-${CUDA_PATH:-/usr/local/cuda}/include}"
    ANYCUDA_BACKEND="${ANYCUDA_BACKEND:-cuda}" "${CARGO_TARGET_DIR:-target}/debug/examples/candle_kernels" "$KSRC" "$INC"
    ;;
bundle)
    DEST="${2:?bundle needs a destination folder}"
    cargo build --locked --release -p anycuda-cudarc --example candle_kernels
    mkdir -p "$DEST/bin" "$DEST/candle-kernels"
    cp "${CARGO_TARGET_DIR:-target}/release/examples/candle_kernels" "$DEST/bin/"
    cp "$KSRC"/*.cu "$KSRC"/*.cuh "$DEST/candle-kernels/"
    ;;
*) echo "usage: $0 [run|bundle DIR]" >&2; exit 2 ;;
esac
