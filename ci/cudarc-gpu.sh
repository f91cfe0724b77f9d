#!/usr/bin/env bash
# Runs the cudarc-facade proofs ON the GPU machine (no Rust needed), on the CUDA backend and on
# the HIP backend through HIP's NVIDIA platform, from the bundle made by ci/cudarc-bundle.sh:
#   bash ci/cudarc-gpu.sh                  # from the repository root
# Environment: GPU_BUNDLE (default .device; this part uses its cudarc/), OUT (default ./gpu-results),
# GPU_BACKENDS ("cuda hip"), HIPNV_DIR (ci/gpu-env.sh: the HIP shim, built once per GPU run from
# .device/libamdhip64-dev_*.deb when missing), CUDA_INCLUDE (for candle's kernels;
# default /usr/local/cuda/include), BENCH_ROUNDS (benchmark rounds, default 9).
# Writes $OUT/cudarc-results.md; exits 1 if anything failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
B="${GPU_BUNDLE:-$ROOT/.device}/cudarc"
RESULTS="${OUT:-$ROOT/gpu-results}"
LOGS="$RESULTS/cudarc-logs"
mkdir -p "$RESULTS" "$LOGS"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
export RUST_BACKTRACE=1
[[ -x "$B/bin/01-allocate" ]] || { echo "no bundle in $B: run 'bash ci/cudarc-bundle.sh' where Rust is" >&2; exit 2; }
BACKENDS=(${GPU_BACKENDS:-cuda hip})
if [[ " ${BACKENDS[*]} " == *" hip "* ]] && ! hip_shim "$LOGS/hip-shim.log"; then
    echo "HIP shim unavailable: HIP column skipped"
    BACKENDS=(cuda)
fi
NGPU="$(nvidia-smi -L 2>/dev/null | wc -l)"
declare -A R
ROWS=()
rec() { [[ " ${ROWS[*]} " == *" $1 "* ]] || ROWS+=("$1"); R["$1|$2"]="$3"; }
env_for() {
    export ANYCUDA_BACKEND="$1" ANYCUDA_REQUIRE_GPU=1
    if [[ $1 == hip ]]; then export ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so"; else unset ANYCUDA_HIP_LIBRARY; fi
}
fail=0
# cudarc itself (ci/cudarc-upstream.sh), when bundled: the same examples and unit tests built
# against cudarc 0.19.10, run first, so a failure the facade shares with cudarc is told apart.
COLS=("${BACKENDS[@]}")
[[ -x "$B/bin/upstream_unit_tests" ]] && COLS=(cudarc "${BACKENDS[@]}")
declare -A UPSTREAM_FAIL   # "example NAME" / "test NAME" -> 1 when it fails on cudarc itself
failed_tests() { grep ' \.\.\. FAILED$' "$1" | awk '{print $2}' | sed 's/.*:://' | sort -u; }
for be in "${COLS[@]}"; do
    if [[ $be == cudarc ]]; then
        unset ANYCUDA_BACKEND ANYCUDA_HIP_LIBRARY ANYCUDA_REQUIRE_GPU
        # cudarc finds libnvrtc through the loader path.
        export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64:${LD_LIBRARY_PATH:-}"
        prefix=upstream- unit="$B/bin/upstream_unit_tests"
    else
        env_for "$be"
        prefix="" unit="$B/bin/cudarc_unit_tests"
    fi
    # cudarc's examples, unchanged (they read ./examples/sin.ptx: run from the bundle).
    while read -r e; do
        if [[ $e == 13-copy-multi-gpu && "$NGPU" -lt 2 ]]; then rec "example $e" "$be" "SKIP (needs 2 GPUs, found $NGPU)"; continue; fi
        (cd "$B" && timeout 300 "./bin/$prefix$e") >"$LOGS/$be-$e.log" 2>&1
        rc=$?
        last="$(tail -n1 "$LOGS/$be-$e.log" | tr '|' '/')"
        if ((rc == 0)); then rec "example $e" "$be" PASS
        elif [[ $be == cudarc ]]; then rec "example $e" "$be" "FAIL (rc $rc: $last)"; UPSTREAM_FAIL["example $e"]=1
        elif [[ -n "${UPSTREAM_FAIL["example $e"]:-}" ]]; then rec "example $e" "$be" "FAIL as on cudarc itself (rc $rc: $last)"
        else rec "example $e" "$be" "FAIL (rc $rc: $last)"; fail=1; fi
    done <"$B/examples.txt"
    # cudarc's unit tests, in three processes: cuBLAS's grouped GEMM tests, the other cuBLAS tests,
    # and the rest. On cudarc itself the grouped GEMMs hand cuBLAS host pointer arrays, an illegal
    # address that poisons the process's context, and every later test in that process failed
    # with it (19 passed instead of 48 when they first ran together); apart, a failure stays
    # with the test that has it, and the shared-failure list below stays honest.
    unit_rc=0
    : >"$LOGS/$be-unit.log"
    # On HIP's NVIDIA platform there is no hipBLASLt (it has no NVIDIA build): every cuBLASLt
    # call is refused with a reason there, so cudarc's cuBLASLt tests are not run on hip and the
    # row says so; anycuda's own tests check the refusal (tests/cublaslt_gpu.rs, n/a on hip).
    lt_skip=""
    [[ $be == hip ]] && lt_skip="--skip cublaslt::"
    for group in "--skip cublas:: $lt_skip" "cublas:: --skip grouped_gemm" "grouped_gemm"; do
        # shellcheck disable=SC2086 # the group is a filter and its flags
        timeout 600 "$unit" --test-threads=1 $group >>"$LOGS/$be-unit.log" 2>&1 || unit_rc=$?
    done
    passed="$(grep -c ' \.\.\. ok$' "$LOGS/$be-unit.log")"
    failed="$(grep -c ' \.\.\. FAILED$' "$LOGS/$be-unit.log")"
    ignored="$(grep -c ' \.\.\. ignored' "$LOGS/$be-unit.log")"
    # Failures cudarc itself shares are listed apart; any other failure, a crash (signal) or a
    # non-zero exit without a FAILED line fails the row.
    own=() shared=()
    while read -r t; do
        [[ -z "$t" ]] && continue
        if [[ $be == cudarc ]]; then UPSTREAM_FAIL["test $t"]=1; shared+=("$t")
        elif [[ -n "${UPSTREAM_FAIL["test $t"]:-}" ]]; then shared+=("$t")
        else own+=("$t"); fi
    done < <(failed_tests "$LOGS/$be-unit.log")
    summary="$passed passed, $ignored ignored"
    [[ -n "$lt_skip" ]] && summary+="; cudarc's 2 cuBLASLt tests not run (no hipBLASLt on HIP's NVIDIA platform)"
    ((${#shared[@]})) && summary+="; failing on cudarc itself too: ${shared[*]}"
    if [[ $be == cudarc ]]; then
        rec "cudarc unit tests" "$be" "$summary"
    elif ((${#own[@]} == 0)) && [[ "$passed" -gt 0 ]] && { [[ "$unit_rc" == 0 ]] || ((failed == ${#shared[@]})); }; then
        rec "cudarc unit tests" "$be" "PASS ($summary)"
    else
        rec "cudarc unit tests" "$be" "FAIL ($summary; failing here only: ${own[*]:-none}; exit $unit_rc)"; fail=1
    fi
    [[ $be == cudarc ]] && continue
    # The candle-kernels workload and the [patch] proof.
    if timeout 600 "$B/bin/candle_kernels" "$B/candle-kernels" "${CUDA_INCLUDE:-/usr/local/cuda/include}" >"$LOGS/$be-candle.log" 2>&1; then
        rec "candle-kernels workload" "$be" PASS; else rec "candle-kernels workload" "$be" FAIL; fail=1; fi
    if timeout 300 "$B/bin/cudarc-proof" >"$LOGS/$be-proof.log" 2>&1 && grep -q '^PASS' "$LOGS/$be-proof.log"; then
        rec "[patch] proof (cudarc via a dependency)" "$be" PASS; else rec "[patch] proof (cudarc via a dependency)" "$be" FAIL; fail=1; fi
    # Pageable copies: CUDA's contract with no wait in the facade (the HIP backend's rule), and
    # µs per 4 KiB pageable copy (facades/cudarc/examples/bench_pageable.rs).
    if [[ -x "$B/bin/bench_pageable" ]]; then
        row="pageable copies: contract, htod/dtoh µs per 4 KiB"
        if timeout 300 "$B/bin/bench_pageable" >"$LOGS/$be-pageable.log" 2>&1 && grep -q 'contract.*: ok' "$LOGS/$be-pageable.log"; then
            us="$(grep -o '_pageable_4KiB_us [0-9.]*' "$LOGS/$be-pageable.log" | awk '{print $2}' | paste -sd/)"
            rec "$row" "$be" "PASS ($us)"
        else rec "$row" "$be" FAIL; fail=1; fi
    fi
done
unset ANYCUDA_REQUIRE_GPU
# Overhead: interleaved rounds of cudarc itself and the facade on each backend. Each program
# times its loops best-of-5 inside a round; the table gives the median over rounds (the figure
# compared) and the best round.
bench_cols=(cudarc "${BACKENDS[@]/#/facade-}")
ROUNDS="${BENCH_ROUNDS:-9}"
for ((r = 1; r <= ROUNDS; r++)); do
    for col in "${bench_cols[@]}"; do
        case $col in
            # cudarc itself finds libnvrtc through the loader path.
            cudarc) unset ANYCUDA_BACKEND ANYCUDA_HIP_LIBRARY; bin="$B/bin/overhead_cudarc"
                    export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64:${LD_LIBRARY_PATH:-}" ;;
            facade-*) env_for "${col#facade-}"; unset ANYCUDA_REQUIRE_GPU; bin="$B/bin/overhead_facade" ;;
        esac
        timeout 600 "$bin" >"$LOGS/bench-$col-$r.log" 2>&1 || { echo "bench $col round $r failed"; fail=1; }
    done
done
# The same loops with cudarc itself and the facade in one process, alternating (ab.rs).
if [[ -x "$B/bin/overhead_ab" ]]; then
    unset ANYCUDA_HIP_LIBRARY
    export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64:${LD_LIBRARY_PATH:-}"
    timeout 600 "$B/bin/overhead_ab" >"$LOGS/bench-ab.log" 2>&1 || { echo "overhead_ab failed"; fail=1; }
fi
{
    echo "## cudarc facade on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
    printf '| proof |'; for be in "${COLS[@]}"; do [[ $be == cudarc ]] && printf ' cudarc itself (CUDA) |' || printf ' facade on %s |' "$be"; done; echo
    printf '|---|'; for be in "${COLS[@]}"; do printf -- '---|'; done; echo
    for row in "${ROWS[@]}"; do
        printf '| %s |' "$row"; for be in "${COLS[@]}"; do printf ' %s |' "${R[$row|$be]:-—}"; done; echo
    done
    echo
    python3 - "$LOGS" "$ROUNDS" "$(grep -o '0\.19\.[0-9]*' ci/cudarc-common.sh | head -n1)" "${bench_cols[@]}" <<'PY'
import os, statistics, sys
logs, rounds, version, cols = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
vals, units = {}, {}
for c in cols:
    for r in range(1, rounds + 1):
        try:
            lines = open(os.path.join(logs, f"bench-{c}-{r}.log"), errors="replace")
        except OSError:
            continue
        for line in lines:
            p = line.split()
            if len(p) == 3 and p[2] in ("us", "GB/s"):
                vals.setdefault((p[0], c), []).append(float(p[1]))
                units[p[0]] = p[2]
names = ["launch_builder_launch", "memcpy_htod_4KiB", "memcpy_dtoh_4KiB", "htod_pageable_256MiB",
         "dtoh_pageable_256MiB", "htod_pinned_256MiB", "dtoh_pinned_256MiB"]
print(f"Overhead: the same source built against cudarc {version} and against the facade, "
      f"{rounds} interleaved rounds; median over rounds (best round in brackets). "
      "Times: lower is better; bandwidth: higher is better.")
print()
print("| measurement | " + " | ".join(cols) + " | facade-cuda / cudarc (median) |")
print("|---|" + "---|" * (len(cols) + 1))
for n in names:
    u = units.get(n, "")
    cells = []
    for c in cols:
        v = vals.get((n, c))
        if not v:
            cells.append("—")
            continue
        best = min(v) if u == "us" else max(v)
        cells.append(f"{statistics.median(v):.4g} ({best:.4g})")
    a, b = vals.get((n, "facade-cuda")), vals.get((n, "cudarc"))
    ratio = f"{statistics.median(a) / statistics.median(b):.3f}" if a and b else "—"
    print(f"| {n} ({u}) | " + " | ".join(cells) + f" | {ratio} |")
try:
    ab = [l.split() for l in open(os.path.join(logs, "bench-ab.log")) if l.startswith("AB ")]
except OSError:
    ab = []
if ab:
    print()
    print("The same loops, cudarc itself and the facade (CUDA backend) in one process, "
          "alternating in 21 rounds: medians, and the median of the per-round ratios.")
    print()
    print("| measurement | cudarc | facade | facade / cudarc |")
    print("|---|---|---|---|")
    for p in ab:
        # AB name us cudarc X facade Y ratio Z
        print(f"| {p[1]} ({p[2]}) | {p[4]} | {p[6]} | {p[8]} |")
PY
} | tee "$RESULTS/cudarc-results.md"
exit $fail
