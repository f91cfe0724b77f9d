#!/usr/bin/env bash
# All-reduce benchmark on 2 GPUs, one run, interleaved rounds: NCCL called from C
# (ci/bench/nccl_baseline.cu, built here with nvcc), anycuda (examples/bench_nccl from the
# bundle, CUDA backend, and the HIP backend on HIP's NVIDIA platform when its shim exists), and
# PyTorch's torch.distributed (ci/bench/nccl_torch.py). By default all use PyTorch's libnccl.so.2.
#
# Runs ON the GPU machine from the repository root, with the bundle of `cargo xtask gpu pack`:
#   bash ci/nccl-bench.sh
# Environment: OUT (default ./nccl-bench-results), BENCH_ROUNDS (default 3), MAX_BYTES (default 1 GiB),
# ANYCUDA_NCCL_LIBRARY (default: PyTorch's nvidia-nccl wheel, then the system's libnccl.so.2),
# HIPNV_DIR (ci/gpu-env.sh: libamdhip64.so of HIP's NVIDIA platform, when built).
# Writes $OUT/nccl-bench.md (table, ratios) and $OUT/nccl-bench.png (plot, with matplotlib).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEV="${GPU_BUNDLE:-$ROOT/.device}"
OUT="${OUT:-$ROOT/nccl-bench-results}"
ROUNDS="${BENCH_ROUNDS:-3}"
MAX_BYTES="${MAX_BYTES:-1073741824}"
say() { printf 'nccl-bench: %s\n' "$*" >&2; }
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0 (shared hosts: no NVLink multicast), HIPNV
source "$ROOT/ci/nccl-find-lib.sh"
mkdir -p "$OUT"
rm -f "$OUT"/*.round*.csv
LIBDIR="$(dirname "$ANYCUDA_NCCL_LIBRARY")"
say "NCCL: $ANYCUDA_NCCL_LIBRARY"
# The library file itself goes to the linker (the wheel has no libnccl.so link).
nvcc -O2 -std=c++17 -o "$OUT/nccl_baseline" ci/bench/nccl_baseline.cu \
    -Xlinker "$ANYCUDA_NCCL_LIBRARY" -Xlinker -rpath -Xlinker "$LIBDIR"
[[ -x "$DEV/bin/bench_nccl" ]] || { say "no $DEV/bin/bench_nccl: run ci/bundle-for-gpu.sh where Rust is"; exit 2; }
PROGS=(c anycuda-cuda torch)
[[ -f "$HIPNV/libamdhip64.so" ]] && PROGS+=(anycuda-hip)
python3 -c 'import torch' 2>/dev/null || { say "no PyTorch: its column is left out"; PROGS=("${PROGS[@]/torch}"); }
for r in $(seq 1 "$ROUNDS"); do
    for p in ${PROGS[@]}; do
        say "round $r/$ROUNDS: $p"
        f="$OUT/$p.round$r.csv"
        case "$p" in
        c) "$OUT/nccl_baseline" "$MAX_BYTES" >"$f" ;;
        anycuda-cuda) ANYCUDA_BACKEND=cuda "$DEV/bin/bench_nccl" --max-bytes "$MAX_BYTES" >"$f" ;;
        anycuda-hip) ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so" \
            "$DEV/bin/bench_nccl" --max-bytes "$MAX_BYTES" >"$f" ;;
        torch) python3 ci/bench/nccl_torch.py "$MAX_BYTES" >"$f" ;; # its own NCCL: the default lib above
        esac
    done
done
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" || true
python3 ci/bench/nccl_report.py "$OUT"
