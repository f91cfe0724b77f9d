#!/usr/bin/env bash
# Runs the cudarc-facade proofs ON the GPU machine (no Rust needed), on the CUDA backend and on
# the HIP backend through HIP's NVIDIA platform, from the bundle made by ci/cudarc-bundle.sh:
#   bash ci/cudarc-gpu.sh                  # from the repository root
# Environment: CUDARC_BUNDLE (default .device/cudarc), OUT (default ./gpu-results),
# BACKENDS ("cuda hip"), HIPNV_DIR (default /tmp/hipnv: the HIP shim ci/gpu-test.sh builds; built
# here from .device/libamdhip64-dev_*.deb when missing), CUDA_INCLUDE (for candle's kernels;
# default /usr/local/cuda/include), ROUNDS (benchmark rounds, default 5).
# Writes $OUT/cudarc-results.md; exits 1 if anything failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
B="${CUDARC_BUNDLE:-$ROOT/.device/cudarc}"
RESULTS="${OUT:-$ROOT/gpu-results}"
HIPNV="${HIPNV_DIR:-/tmp/hipnv}"
LOGS="$RESULTS/cudarc-logs"
mkdir -p "$RESULTS" "$LOGS"
export NCCL_NVLS_ENABLE=0 RUST_BACKTRACE=1
[[ -x "$B/bin/01-allocate" ]] || { echo "no bundle in $B: run 'bash ci/cudarc-bundle.sh' where Rust is" >&2; exit 2; }
BACKENDS=(${BACKENDS:-cuda hip})
if [[ " ${BACKENDS[*]} " == *" hip "* && ! -f "$HIPNV/libamdhip64.so" ]]; then
    DEB="$(ls "$ROOT"/.device/libamdhip64-dev_*.deb 2>/dev/null | head -n1 || true)"
    if [[ -n "$DEB" ]] && bash ci/hip-nvidia/build.sh "$HIPNV" "$DEB" >"$LOGS/hip-shim.log" 2>&1; then
        echo "HIP shim built in $HIPNV"
    else
        echo "HIP shim unavailable (see $LOGS/hip-shim.log): HIP column skipped"
        BACKENDS=(cuda)
    fi
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
for be in "${BACKENDS[@]}"; do
    env_for "$be"
    # cudarc's examples, unchanged (they read ./examples/sin.ptx: run from the bundle).
    while read -r e; do
        if [[ $e == 13-copy-multi-gpu && "$NGPU" -lt 2 ]]; then rec "example $e" "$be" "SKIP (needs 2 GPUs, found $NGPU)"; continue; fi
        if (cd "$B" && timeout 300 "./bin/$e") >"$LOGS/$be-$e.log" 2>&1; then rec "example $e" "$be" PASS
        else rec "example $e" "$be" "FAIL (rc $?)"; fail=1; fi
    done <"$B/examples.txt"
    # cudarc's unit tests.
    timeout 900 "$B/bin/cudarc_unit_tests" --test-threads=1 >"$LOGS/$be-unit.log" 2>&1
    unit_rc=$?
    passed="$(grep -c ' \.\.\. ok$' "$LOGS/$be-unit.log")"
    failed="$(grep -c ' \.\.\. FAILED$' "$LOGS/$be-unit.log")"
    ignored="$(grep -c ' \.\.\. ignored' "$LOGS/$be-unit.log")"
    # A crash (signal) or any non-zero exit fails the row, whatever was printed before it.
    if [[ "$unit_rc" == 0 && "$failed" == 0 && "$passed" -gt 0 ]]; then rec "cudarc unit tests" "$be" "PASS ($passed passed, $ignored ignored)"
    else rec "cudarc unit tests" "$be" "FAIL ($passed passed, $failed failed, exit $unit_rc: $(grep ' \.\.\. FAILED$' "$LOGS/$be-unit.log" | awk '{print $2}' | sed 's/.*:://' | tr '\n' ' '))"; fail=1; fi
    # The candle-kernels workload and the [patch] proof.
    if timeout 600 "$B/bin/candle_kernels" "$B/candle-kernels" "${CUDA_INCLUDE:-/usr/local/cuda/include}" >"$LOGS/$be-candle.log" 2>&1; then
        rec "candle-kernels workload" "$be" PASS; else rec "candle-kernels workload" "$be" FAIL; fail=1; fi
    if timeout 300 "$B/bin/cudarc-proof" >"$LOGS/$be-proof.log" 2>&1 && grep -q '^PASS' "$LOGS/$be-proof.log"; then
        rec "[patch] proof (cudarc via a dependency)" "$be" PASS; else rec "[patch] proof (cudarc via a dependency)" "$be" FAIL; fail=1; fi
done
unset ANYCUDA_REQUIRE_GPU
# Overhead: interleaved rounds of cudarc itself and the facade on each backend; best kept.
declare -A BEST
bench_cols=(cudarc "${BACKENDS[@]/#/facade-}")
for ((r = 1; r <= ${ROUNDS:-5}; r++)); do
    for col in "${bench_cols[@]}"; do
        case $col in
            # cudarc itself finds libnvrtc through the loader path.
            cudarc) unset ANYCUDA_BACKEND ANYCUDA_HIP_LIBRARY; bin="$B/bin/overhead_cudarc"
                    export LD_LIBRARY_PATH="${CUDA_HOME:-/usr/local/cuda}/lib64:${LD_LIBRARY_PATH:-}" ;;
            facade-*) env_for "${col#facade-}"; unset ANYCUDA_REQUIRE_GPU; bin="$B/bin/overhead_facade" ;;
        esac
        timeout 600 "$bin" >"$LOGS/bench-$col-$r.log" 2>&1 || { echo "bench $col round $r failed"; fail=1; }
        while read -r name value unit; do
            [[ "$unit" == us || "$unit" == GB/s ]] || continue
            k="$name|$col"; cur="${BEST[$k]:-}"
            if [[ -z "$cur" ]] || { [[ $unit == us ]] && awk "BEGIN{exit !($value < $cur)}"; } \
                || { [[ $unit == GB/s ]] && awk "BEGIN{exit !($value > $cur)}"; }; then BEST[$k]="$value"; fi
            BEST["$name|unit"]="$unit"
        done <"$LOGS/bench-$col-$r.log"
    done
done
{
    echo "## cudarc facade on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
    printf '| proof |'; for be in "${BACKENDS[@]}"; do printf ' %s |' "$be"; done; echo
    printf '|---|'; for be in "${BACKENDS[@]}"; do printf -- '---|'; done; echo
    for row in "${ROWS[@]}"; do
        printf '| %s |' "$row"; for be in "${BACKENDS[@]}"; do printf ' %s |' "${R[$row|$be]:-}"; done; echo
    done
    echo
    echo "Overhead (best of ${ROUNDS:-5} interleaved rounds; same source built against cudarc $(grep -o '0\.19\.[0-9]*' ci/cudarc-common.sh | head -n1) and the facade):"
    echo
    printf '| measurement |'; for c in "${bench_cols[@]}"; do printf ' %s |' "$c"; done; printf ' facade-cuda / cudarc |\n'
    printf '|---|'; for c in "${bench_cols[@]}"; do printf -- '---|'; done; printf -- '---|\n'
    for name in launch_builder_launch memcpy_htod_4KiB memcpy_dtoh_4KiB htod_pageable_256MiB dtoh_pageable_256MiB htod_pinned_256MiB dtoh_pinned_256MiB; do
        printf '| %s (%s) |' "$name" "${BEST[$name|unit]:-}"
        for c in "${bench_cols[@]}"; do printf ' %s |' "${BEST[$name|$c]:-—}"; done
        a="${BEST[$name|facade-cuda]:-}"; c="${BEST[$name|cudarc]:-}"
        if [[ -n "$a" && -n "$c" ]]; then awk "BEGIN{printf \" %.3f |\n\", $a / $c}"; else echo " — |"; fi
    done
} | tee "$RESULTS/cudarc-results.md"
exit $fail
