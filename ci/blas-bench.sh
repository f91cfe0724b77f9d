#!/usr/bin/env bash
# The GEMM benchmark of issue 16, ON the GPU machine, in one interleaved run: cuBLAS called from
# C++ (ci/bench/blas_baseline.cu, built here with nvcc against the machine's cuBLAS), anycuda's
# raw layer and safe layer (examples/bench_blas.rs `raw` / `core`) on the CUDA backend and on
# the HIP backend (HIP's NVIDIA platform: hipBLAS's NVIDIA build over the same cuBLAS), and
# cudarc 0.19.10 itself against the facade (facades/cudarc/bench/blas.rs, built twice by
# ci/cudarc-bench.sh), each program in every round, the rounds interleaved.
#
#   bash ci/blas-bench.sh        (ci/gpu-all.sh blasbench runs it, after the hipmath step)
# Environment: OUT (default ./blas-bench-results), GPU_BUNDLE (.device), BENCH_ROUNDS (5),
# BENCH_REPEATS / BENCH_BIG_CALLS / BENCH_SMALL_CALLS (passed to every program), HIPNV_DIR
# (/tmp/hipnv: the HIP shim and hipBLAS build), CUBLAS_ROOT (a root with include/cublas_v2.h and
# lib/libcublas.so.13; default: the CUDA toolkit, else the Python environment's nvidia-cublas).
# Prints a markdown table (median of the rounds; ratio = C++ time / column time, so 1.00 is
# parity and higher is faster) with TFLOP/s beside the H100's peak; $OUT/blas-bench.md and .log.
# Exits 1 if a program failed, including a non-zero allocation count per GEMM call.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/blas-bench-results}"
ROUNDS="${BENCH_ROUNDS:-5}"
WORK="$(mktemp -d /tmp/blas-bench.XXXXXX)"
mkdir -p "$RESULTS"
say() { printf 'bench: %s\n' "$*" >&2; }
FAILED=0

# cuBLAS for the C++ baseline: the toolkit's, else the Python environment's wheel.
find_cublas() {
    local r
    for r in ${CUBLAS_ROOT:-} "$(dirname "$(dirname "$(command -v nvcc)")")" \
        $(python3 -c 'import nvidia; [print(p + "/cu13") for p in nvidia.__path__]; [print(p + "/cublas") for p in nvidia.__path__]' 2>/dev/null); do
        for l in "$r/lib64" "$r/lib" "$r/targets/x86_64-linux/lib"; do
            if [[ -e "$l/libcublas.so.13" && -f "$r/include/cublas_v2.h" ]]; then
                echo "$r $l"
                return
            fi
        done
    done
}
read -r CUBLAS_DIR CUBLAS_LIBDIR < <(find_cublas)
[[ -n "${CUBLAS_DIR:-}" ]] || { say "error: no cuBLAS (include/cublas_v2.h + libcublas.so.13) found; set CUBLAS_ROOT"; exit 2; }
say "cuBLAS: $CUBLAS_LIBDIR"
# nvcc takes no versioned library as an input: link it by path through the linker.
if ! nvcc -O2 -std=c++17 -o "$WORK/blas_baseline" ci/bench/blas_baseline.cu -I"$CUBLAS_DIR/include" \
        -Xlinker "$CUBLAS_LIBDIR/libcublas.so.13" -Xlinker -rpath="$CUBLAS_LIBDIR" >"$WORK/nvcc.log" 2>&1; then
    cat "$WORK/nvcc.log" >&2
    say "error: the baseline does not build"
    exit 2
fi
# Every program loads the same cuBLAS: anycuda's search and cudarc's dynamic loading both take
# the soname first, so put its folder first.
export LD_LIBRARY_PATH="$CUBLAS_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ANYCUDA_CUBLAS_LIBRARY="$CUBLAS_LIBDIR/libcublas.so.13"

hip_shim "$WORK/hip-shim-build.log" >&2
(($? == 1)) && FAILED=1 # a failed build (no .deb: the HIP columns are left out below)

COLS=(cxx)
declare -A CMD
CMD[cxx]="$WORK/blas_baseline"
[[ -x "$DEV/bin/bench_blas" ]] && {
    CMD[raw-cuda]="env ANYCUDA_BACKEND=cuda $DEV/bin/bench_blas raw"
    CMD[core-cuda]="env ANYCUDA_BACKEND=cuda $DEV/bin/bench_blas core"
    # The raw layer against the same cuBLAS called directly, in one process (its own table).
    CMD[ab]="env ANYCUDA_BACKEND=cuda $DEV/bin/bench_blas ab"
    COLS+=(raw-cuda core-cuda ab)
}
for b in cudarc facade; do
    [[ -x "$DEV/cudarc/bin/blas_$b" ]] && {
        CMD[$b]="env ANYCUDA_BACKEND=cuda $DEV/cudarc/bin/blas_$b"
        COLS+=("$b")
    }
done
if [[ -f "$HIPNV/libamdhip64.so" && -n "${ANYCUDA_HIPBLAS_LIBRARY:-}" ]]; then
    H="env ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=$HIPNV/libamdhip64.so"
    [[ -x "$DEV/bin/bench_blas" ]] && {
        CMD[raw-hip]="$H $DEV/bin/bench_blas raw"
        CMD[core-hip]="$H $DEV/bin/bench_blas core"
        COLS+=(raw-hip core-hip)
    }
    [[ -x "$DEV/cudarc/bin/blas_facade" ]] && { CMD[facade-hip]="$H $DEV/cudarc/bin/blas_facade"; COLS+=(facade-hip); }
else
    say "warning: no HIP shim ($HIPNV/libamdhip64.so) or ANYCUDA_HIPBLAS_LIBRARY: the HIP columns are left out"
    FAILED=1
fi
# Every program on one core of its own choosing: a process that migrates between cores times its
# host-bound small GEMMs with more variance than the layers differ by.
PIN=()
command -v taskset >/dev/null && PIN=(taskset -c "${BENCH_CPU:-2}")
say "columns: ${COLS[*]}; $ROUNDS rounds; pinned: ${PIN[*]:-no}"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
    for col in "${COLS[@]}"; do
        say "round $ROUND: $col"
        # shellcheck disable=SC2086 # CMD holds a command line
        if ! "${PIN[@]}" ${CMD[$col]} >>"$WORK/$col.out" 2>&1; then
            say "$col FAILED:"
            tail -n 15 "$WORK/$col.out" >&2
            FAILED=1
        fi
    done
done
for col in "${COLS[@]}"; do
    { echo "== $col"; cat "$WORK/$col.out"; } >>"$RESULTS/blas-bench.log"
done
python3 - "$WORK" "${COLS[@]}" >"$RESULTS/blas-bench.md" <<'PY' || FAILED=1
import statistics, sys
work, cols = sys.argv[1], sys.argv[2:]
keys = [("sgemm_4096", "SGEMM 4096³", "ms", 2 * 4096**3 / 1e-3, 67.0),
        ("hgemm_4096", "HGEMM 4096³ (f16, compute 32F)", "ms", 2 * 4096**3 / 1e-3, 989.4),
        ("sgemm_b64", "SGEMM 64³ x 1024 strided", "µs", 2 * 64**3 * 1024 / 1e-6, 67.0),
        ("hgemm_b64", "HGEMM 64³ x 1024 strided", "µs", 2 * 64**3 * 1024 / 1e-6, 989.4),
        ("sgemm_b64_enq", "SGEMM 64³ x 1024: host time per call", "µs", None, None),
        ("hgemm_b64_enq", "HGEMM 64³ x 1024: host time per call", "µs", None, None)]
vals, allocs = {}, {}
for c in cols:
    for line in open(f"{work}/{c}.out", errors="replace"):
        p = line.split()
        if len(p) == 3 and p[0] == "RESULT":
            try:
                v = float(p[2])
            except ValueError:
                continue
            if p[1] == "allocs_per_gemm":
                allocs[c] = max(allocs.get(c, 0.0), v)
            else:
                vals.setdefault((c, p[1]), []).append(v)
tcols = [c for c in cols if c != "ab"]  # the A/B has its own table below
print("| case | " + " | ".join(tcols) + " |")
print("|---|" + "---:|" * len(tcols))
bad = False
for key, label, unit, flop_scale, peak in keys:
    base = vals.get(("cxx", key))
    base = statistics.median(base) if base else None
    cells = []
    for c in tcols:
        v = vals.get((c, key))
        if not v:
            cells.append("-")
            continue
        m = statistics.median(v)
        r = f" ({base / m:.3f}×)" if base and c != "cxx" else ""
        if flop_scale is None:
            cells.append(f"{m:.4g} {unit}{r}")
        else:
            tf = flop_scale / m / 1e12
            cells.append(f"{m:.4g} {unit}, {tf:.1f} TF/s{r}")
    print(f"| {label} | " + " | ".join(cells) + " |")
print()
print("Median of the rounds; (ratio) = C++ time / column time: 1.000 is parity, above is faster.")
print("Host time per call: 100 calls timed up to the last one's return (no wait for the GPU), median of 50;")
print("the small batched GEMMs take about as long on the GPU as to enqueue, so their throughput rows are noisy.")
print("Peaks (H100 SXM, dense): FP32 67 TFLOP/s; FP16 tensor 989.4 TFLOP/s.")
print("Heap allocations per GEMM call: " + ", ".join(f"{c} {allocs[c]:g}" for c in cols if c in allocs))
# The in-process A/B (bench_blas ab): the raw layer's own cost per call, every round's median.
ab = [("sgemm", "SGEMM 64³ x 1024: host time per call", "µs"),
      ("hgemm", "HGEMM 64³ x 1024: host time per call", "µs"),
      ("trivial", "cublasGetStream_v2", "ns"),
      ("driver", "cuCtxGetCurrent (Driver API)", "ns")]
if any(vals.get(("ab", f"ab_{k}_direct")) for k, _, _ in ab):
    print()
    print("In one process (bench_blas ab): the same cuBLAS function called through a pointer from the")
    print("library anycuda loaded, and through anycuda::cublas, alternating batches, same handle and stream.")
    print()
    print("| call | direct | anycuda::cublas | anycuda / direct | added per call |")
    print("|---|---:|---:|---:|---:|")
    for k, label, unit in ab:
        d, a = vals.get(("ab", f"ab_{k}_direct")), vals.get(("ab", f"ab_{k}_anycuda"))
        if not d or not a:
            continue
        d, a = statistics.median(d), statistics.median(a)
        print(f"| {label} | {d:.4g} {unit} | {a:.4g} {unit} | {a / d:.3f} | {a - d:+.3g} {unit} |")
for c in cols:
    if c in ("cxx", "cudarc"):
        continue
    if allocs.get(c, 0) != 0:
        bad = True
sys.exit(1 if bad else 0)
PY
cat "$RESULTS/blas-bench.md"
rm -rf "$WORK"
exit "$FAILED"
