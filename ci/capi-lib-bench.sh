#!/usr/bin/env bash
# anycuda's drop-in CUDA libraries against NVIDIA's, ON the GPU machine, in one interleaved run:
# the same C programs (ci/capi-gpu/, built here with nvcc against NVIDIA's headers, as their users
# build them) on NVIDIA's libraries (the `nvidia` column: the toolkit's cuBLAS and cuRAND, the
# Python environment's NCCL wheel, as ci/capi-gpu.sh's baseline) and on `anycuda libdir`'s
# libcudart.so.13, libcublas.so.13, libcurand.so.10, libnccl.so.2 on the CUDA backend (the
# `anycuda` column: ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH=$LIBDIR:...), which forward to the
# very files the nvidia column loads (ANYCUDA_*_LIBRARY, read from the baseline's ldd):
#   libcall_bench    a trivial call's cost, ns per call, best of 5 x 10M calls: cublasGetVersion_v2,
#                    cublasGetStream_v2, curandSetStream, ncclGetVersion (pinned to one core)
#   gemm_bench       SGEMM and HGEMM (GemmEx f16, compute 32F), 4096 and 8192 square, cudaEvent
#                    timing after warm-up, median of 5 batches, TFLOP/s
#   allreduce_bench  NCCL all-reduce bus bandwidth over every visible GPU (ncclCommInitAll, one
#                    process; busbw = algbw * 2(n-1)/n), 8 B to MAX_BYTES; not run with one GPU
# Every round runs every program in both columns, the columns' order alternating by round.
# Reports the median of the rounds (and their range) in $OUT/capi-lib-bench.md with the targets:
# a call at most 2 ns dearer, GEMM throughput at least 0.99 of NVIDIA's, all-reduce bus bandwidth
# at least 0.98 of NVIDIA's at 256 MiB and above. A missed target is reported, not an error.
#
#   bash ci/capi-lib-bench.sh          (ci/gpu-all.sh libbench runs it)
# Environment: OUT (default ./capi-lib-bench-results), GPU_BUNDLE (.device), BENCH_ROUNDS (5),
# MAX_BYTES (all-reduce, default 1 GiB), LIBCALL_CALLS / LIBCALL_REPEATS, GEMM_SIZES /
# GEMM_REPEATS (passed to the programs), BENCH_CPU (the core for libcall_bench, default 2).
# Every process keeps NCCL_NVLS_ENABLE=0 (ci/gpu-env.sh). Exits 1 if a program failed or did
# not build, 2 without the bundle or the NCCL wheel.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
# shellcheck source=ci/gpu-env.sh
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, ANYCUDA_TEST_GPUS
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/capi-lib-bench-results}"
ROUNDS="${BENCH_ROUNDS:-5}"
MAX_BYTES="${MAX_BYTES:-1073741824}"
mkdir -p "$RESULTS"
say() { printf 'capi-lib-bench: %s\n' "$*" >&2; }
FAILED=0

[[ -x "$DEV/bin/anycuda" ]] || { say "no $DEV/bin/anycuda: unpack the bundle (ci/gpu-all.sh does)"; exit 2; }
export ANYCUDA_CAPI_LIBRARY="$DEV/lib/libanycuda_capi.so" # where ci/bundle-for-gpu.sh puts it
LIBDIR="$("$DEV/bin/anycuda" libdir 2>"$RESULTS/libdir.err")" || {
    say "anycuda libdir failed: $(cat "$RESULTS/libdir.err")"
    exit 1
}
# NCCL from the Python environment's wheel, as ci/capi-gpu.sh: its folder is also the nvidia
# column's library path (cuBLAS and cuRAND come from the toolkit, where nvcc links them).
NCCL_DIR="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)"
[[ -f "$NCCL_DIR/include/nccl.h" ]] || { say "no NCCL wheel (nvidia.nccl) in python3's environment"; exit 2; }
WORK="$(mktemp -d /tmp/capi-lib-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

build() { # NAME CMD...
    local name="$1"
    shift
    if "$@" >"$RESULTS/build-$name.log" 2>&1; then return 0; fi
    say "build of $name failed:"
    tail -n 20 "$RESULTS/build-$name.log" >&2
    FAILED=1
    return 1
}
build libcall_bench nvcc -O2 -cudart shared -I"$NCCL_DIR/include" -o "$WORK/libcall_bench" \
    ci/capi-gpu/libcall_bench.c -lcublas -lcurand -L"$NCCL_DIR/lib" -l:libnccl.so.2
build gemm_bench nvcc -O2 -cudart shared -o "$WORK/gemm_bench" ci/capi-gpu/gemm_bench.c -lcublas
build allreduce_bench nvcc -O2 -cudart shared -I"$NCCL_DIR/include" -o "$WORK/allreduce_bench" \
    ci/capi-gpu/allreduce_bench.c -L"$NCCL_DIR/lib" -l:libnccl.so.2

# The two columns' library paths: the same tail, the folder first in the anycuda column.
BASE_LD="$NCCL_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ANY_LD="$LIBDIR:$BASE_LD"
# anycuda forwards to the files the nvidia column loads (not whatever its own search finds first).
resolve() { # BINARY SONAME: the file the nvidia column's loader takes
    env LD_LIBRARY_PATH="$BASE_LD" ldd "$1" 2>/dev/null | awk -v n="$2" '$1 == n && $3 ~ /^\// { print $3; exit }'
}
for pair in CUBLAS:libcublas.so.13 CUBLASLT:libcublasLt.so.13 CURAND:libcurand.so.10 NCCL:libnccl.so.2; do
    var="ANYCUDA_${pair%%:*}_LIBRARY"
    f="$( [[ -x "$WORK/libcall_bench" ]] && resolve "$WORK/libcall_bench" "${pair#*:}")"
    if [[ -n "$f" ]]; then
        export "$var=$f"
        say "$var=$f"
    else
        say "the nvidia column finds no ${pair#*:} (ldd $WORK/libcall_bench): anycuda searches for its own"
    fi
done
for b in libcall_bench gemm_bench; do
    [[ -x "$WORK/$b" ]] || continue
    env LD_LIBRARY_PATH="$ANY_LD" ldd "$WORK/$b" | grep -E 'libcudart|libcublas\.|libcurand|libnccl' \
        | sed "s/^/  $b [anycuda]: /" >&2
done

NGPU="${ANYCUDA_TEST_GPUS:-0}"
PROGS=()
for p in libcall gemm allreduce; do [[ -x "$WORK/${p}_bench" ]] && PROGS+=("$p"); done
if [[ " ${PROGS[*]} " == *" allreduce "* ]] && ((NGPU < 2)); then
    say "$NGPU GPU(s): the all-reduce is not run"
    PROGS=("${PROGS[@]/allreduce/}")
fi
PIN=()
taskset -c "${BENCH_CPU:-2}" true 2>/dev/null && PIN=(taskset -c "${BENCH_CPU:-2}")
declare -A BROKEN
run_one() { # COLUMN PROGRAM
    local col="$1" prog="$2" rc
    local envs=(LD_LIBRARY_PATH="$BASE_LD")
    [[ $col == anycuda ]] && envs=(ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$ANY_LD")
    local cmd=("$WORK/${prog}_bench")
    [[ $prog == allreduce ]] && cmd+=("$MAX_BYTES")
    [[ $prog == libcall ]] && cmd=("${PIN[@]}" "${cmd[@]}")
    echo "== round $ROUND" >>"$WORK/$prog.$col.out"
    timeout --kill-after=10 "${BENCH_TIMEOUT:-120}" env "${envs[@]}" "${cmd[@]}" >>"$WORK/$prog.$col.out" 2>&1
    rc=$?
    if ((rc != 0)); then
        say "$prog [$col] round $ROUND FAILED (exit $rc); its later rounds are not run:"
        tail -n 15 "$WORK/$prog.$col.out" >&2
        BROKEN[$prog,$col]="exit $rc"
        FAILED=1
    fi
}
say "columns: nvidia, anycuda (CUDA backend); programs: ${PROGS[*]}; $ROUNDS rounds; $NGPU GPU(s); libcall_bench pinned: ${PIN[*]:-no}"
t0=$SECONDS
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
    cols=(nvidia anycuda)
    ((ROUND % 2 == 0)) && cols=(anycuda nvidia)
    for prog in "${PROGS[@]}"; do
        [[ -n "$prog" ]] || continue
        for col in "${cols[@]}"; do
            [[ -z "${BROKEN[$prog,$col]:-}" ]] && run_one "$col" "$prog"
        done
    done
    say "round $ROUND/$ROUNDS done at $((SECONDS - t0)) s"
done
: >"$RESULTS/capi-lib-bench.log"
for f in "$WORK"/*.out; do
    [[ -f "$f" ]] && { echo "=== $(basename "$f" .out)"; cat "$f"; } >>"$RESULTS/capi-lib-bench.log"
done
GPUS="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd ';' -)"
broken="$(for k in "${!BROKEN[@]}"; do echo "$k ${BROKEN[$k]}"; done)"
python3 - "$WORK" "$ROUNDS" "$NGPU" "${GPUS:-unknown}" "$broken" >"$RESULTS/capi-lib-bench.md" <<'PY' || FAILED=1
import os, statistics, sys
work, rounds, ngpu, gpus, broken = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
vals = {}
for prog in ("libcall", "gemm", "allreduce"):
    for col in ("nvidia", "anycuda"):
        path = f"{work}/{prog}.{col}.out"
        if not os.path.exists(path):
            continue
        for line in open(path, errors="replace"):
            p = line.split()
            if len(p) == 3 and p[0] == "RESULT":
                try:
                    vals.setdefault((col, p[1]), []).append(float(p[2]))
                except ValueError:
                    pass
def med(col, key):
    v = vals.get((col, key))
    return (statistics.median(v), min(v), max(v), len(v)) if v else None
def rng(m):
    return f"{m[1]:.4g}–{m[2]:.4g}" if m[3] > 1 else "one round"
met, missed = [], []
def judge(label, ok):
    (met if ok else missed).append(label)
    return "met" if ok else "**missed**"
env = os.environ
print("# anycuda's drop-in CUDA libraries against NVIDIA's (CUDA backend)")
print()
print(f"GPUs: {gpus}. {rounds} interleaved rounds (the columns' order alternating); every cell is the")
print("median of the rounds, its range beside it. nvidia: NVIDIA's libraries; anycuda: the same binary")
print("with LD_LIBRARY_PATH=$(anycuda libdir):..., ANYCUDA_BACKEND=cuda, forwarding to these files:")
for k in ("ANYCUDA_CUBLAS_LIBRARY", "ANYCUDA_CUBLASLT_LIBRARY", "ANYCUDA_CURAND_LIBRARY", "ANYCUDA_NCCL_LIBRARY"):
    print(f"- {k}={env.get(k, '(unset: anycuda searched)')}")
if broken.strip():
    print()
    print("Failed (later rounds not run): " + "; ".join(broken.split("\n")))
print()
print("## A trivial call (ns per call; best of the repeats of each round, then the rounds' median)")
print()
print("| call | nvidia | anycuda | added | anycuda / nvidia | target: at most +2 ns |")
print("|---|---:|---:|---:|---:|---|")
for fn in ("cublasGetVersion_v2", "cublasGetStream_v2", "curandSetStream", "ncclGetVersion"):
    n, a = med("nvidia", f"call_{fn}"), med("anycuda", f"call_{fn}")
    if not n or not a:
        print(f"| `{fn}` | {f'{n[0]:.2f} ({rng(n)})' if n else '-'} | {f'{a[0]:.2f} ({rng(a)})' if a else '-'} | - | - | not measured |")
        continue
    d = a[0] - n[0]
    print(f"| `{fn}` | {n[0]:.2f} ({rng(n)}) | {a[0]:.2f} ({rng(a)}) | {d:+.2f} ns | {a[0] / n[0]:.2f} | {judge(f'{fn} +{d:.2f} ns', d <= 2.0)} |")
print()
print("## GEMM from C (cudaEvent timing, median of 5 batches per round)")
print()
print("| case | nvidia | anycuda | anycuda / nvidia (throughput) | target: at least 0.99 |")
print("|---|---:|---:|---:|---|")
gemms = sorted({k for (_, k) in vals if k.startswith(("sgemm_", "hgemm_"))},
               key=lambda k: (k.split("_")[0] != "sgemm", int(k.split("_")[1])))
for key in gemms:
    kind, n_ = key.split("_")
    nflop = 2.0 * int(n_) ** 3
    n, a = med("nvidia", key), med("anycuda", key)
    tf = lambda m: f"{nflop / (m[0] * 1e-3) / 1e12:.1f} TFLOP/s ({m[0]:.4g} ms; {rng(m)})"
    label = f"{'SGEMM' if kind == 'sgemm' else 'HGEMM (f16, compute 32F)'} {n_}³"
    if not n or not a:
        print(f"| {label} | {tf(n) if n else '-'} | {tf(a) if a else '-'} | - | not measured |")
        continue
    r = n[0] / a[0]
    print(f"| {label} | {tf(n)} | {tf(a)} | {r:.4f} | {judge(f'{label} {r:.4f}', r >= 0.99)} |")
print()
sizes = sorted({int(k.split("_")[2]) for (_, k) in vals if k.startswith("ar_busbw_")})
if ngpu < 2:
    print(f"## NCCL all-reduce: not run ({ngpu} GPU)")
elif not sizes:
    print("## NCCL all-reduce: no results (the program failed)")
else:
    print(f"## NCCL all-reduce, {ngpu} GPUs, one process (busbw = algbw x 2(n-1)/n, float32 sum)")
    print()
    print("| size | nvidia busbw | anycuda busbw | anycuda / nvidia | nvidia time | anycuda time | target: at least 0.98 from 256 MiB |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for b in sizes:
        n, a = med("nvidia", f"ar_busbw_{b}"), med("anycuda", f"ar_busbw_{b}")
        nt, at = med("nvidia", f"ar_us_{b}"), med("anycuda", f"ar_us_{b}")
        label = f"{b >> 30} GiB" if b >= 1 << 30 else f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB" if b >= 1 << 10 else f"{b} B"
        bw = lambda m: f"{m[0]:.4g} GB/s ({rng(m)})" if m else "-"
        us = lambda m: f"{m[0]:.4g} µs" if m else "-"
        if not n or not a:
            print(f"| {label} | {bw(n)} | {bw(a)} | - | {us(nt)} | {us(at)} | not measured |")
            continue
        if n[0] <= 0 or a[0] <= 0:
            # Too small to show bandwidth at this resolution (8 B): the times say it.
            print(f"| {label} | {bw(n)} | {bw(a)} | - | {us(nt)} | {us(at)} | (latency: reported) |")
            continue
        r = a[0] / n[0]
        t = judge(f"all-reduce {label} {r:.4f}", r >= 0.98) if b >= 1 << 28 else "(latency: reported)"
        print(f"| {label} | {bw(n)} | {bw(a)} | {r:.4f} | {us(nt)} | {us(at)} | {t} |")
print()
print(f"Targets met: {len(met)} of {len(met) + len(missed)}." + (" Missed: " + "; ".join(missed) + "." if missed else ""))
PY
cat "$RESULTS/capi-lib-bench.md"
say "done in $((SECONDS - t0)) s; $RESULTS/capi-lib-bench.md"
exit "$FAILED"
