#!/usr/bin/env bash
# The PTX route's benchmark ON the GPU machine (examples/bench_ptx.rs, in the bundle): on the HIP
# backend (HIP's NVIDIA platform, AMD-faithful mode, the default there), kernels translated from
# NVRTC's PTX against the same kernels compiled from their CUDA source by hipRTC, interleaved
# rounds, and a PTX module's cold and warm load. Prints the table and RESULT lines (also
# $OUT/ptx-bench.md). Environment: OUT (default ./ptx-bench-results), GPU_BUNDLE (default
# .device), BENCH_ROUNDS (default 15), HIPNV_DIR (ci/gpu-env.sh's HIP shim, built when missing).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/ptx-bench-results}"
mkdir -p "$RESULTS"
[[ -x "$DEV/bin/bench_ptx" ]] || { echo "ptx-bench: $DEV/bin/bench_ptx missing: run cargo xtask gpu pack" >&2; exit 2; }
hip_shim "$RESULTS/hip-shim.log" || { echo "ptx-bench: no HIP shim (HIP's NVIDIA platform)" >&2; exit 1; }
ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so" \
    "$DEV/bin/bench_ptx" "${BENCH_ROUNDS:-15}" 2>"$RESULTS/ptx-bench.err" | tee "$RESULTS/ptx-bench.md"
rc=${PIPESTATUS[0]}
((rc == 0)) || { echo "ptx-bench: exit $rc"; tail -20 "$RESULTS/ptx-bench.err"; }
exit "$rc"
