#!/usr/bin/env bash
# ON the GPU machine: NVIDIA's compute-sanitizer over the safe layer, CUDA backend.
#   - memcheck, racecheck and synccheck on every safe-layer example (.device/bin/core_*);
#   - the same three tools on every safe-layer GPU test binary (.device/tests/core_gpu_*), one
#     process per test, so one report names its test.
# On the examples, memcheck also reports every CUDA API call that fails (`--report-api-errors
# explicit`, the default): a correct safe program makes no call that is expected to fail, and the
# safe layer itself must not either. The tests provoke API errors on purpose (bad ordinals,
# out-of-range launches), so there API-error reports are off and the memory, race and
# synchronisation checks stay on.
#
#   bash ci/gpu-sanitize.sh            # after the bundle of `cargo xtask gpu pack` is unpacked in .device
#
# Writes $OUT/sanitize-results.md (the table) and $OUT/sanitize.log; exits 1 if any run reported
# an error or failed. GPU_SANITIZE_TOOLS overrides the example tools ("memcheck racecheck
# synccheck"); GPU_SANITIZE_TESTS=0 leaves the test binaries out.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/gpu-results}"
mkdir -p "$RESULTS"
LOG="$RESULTS/sanitize.log"
: >"$LOG"
say() { printf 'sanitize: %s\n' "$*"; }

CS="$(command -v compute-sanitizer || true)"
if [[ -z "$CS" ]]; then
    for d in /usr/local/cuda/bin /usr/local/cuda-*/bin /opt/nvidia/*/bin; do
        [[ -x "$d/compute-sanitizer" ]] && { CS="$d/compute-sanitizer"; break; }
    done
fi
[[ -n "$CS" ]] || { say "FAIL: compute-sanitizer not found"; exit 1; }
say "using $CS ($("$CS" --version 2>/dev/null | tail -n1))"

source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0; ANYCUDA_TEST_GPUS (what the GPU tests count)
export ANYCUDA_BACKEND=cuda ANYCUDA_REQUIRE_GPU=1 ANYCUDA_REPO_ROOT="$ROOT"
ROWS=()
FAILED=0
# <label> <tool> <cmd...>: PASS when the program exits 0 and the sanitizer reports 0 errors; a
# GPU test that exits 77 (its #[gpu_test] need is not met here, e.g. 2 GPUs) is "not run" and
# one that exits 78 (its feature is absent on this backend) "n/a", as in ci/gpu-test.sh.
# API_ERRORS (explicit or no) is passed to memcheck.
run() {
    local label="$1" tool="$2" out rc errs extra=(); shift 2
    [[ "$tool" == memcheck ]] && extra=(--report-api-errors "${API_ERRORS:-explicit}")
    out="$(timeout --kill-after=10 300 "$CS" --tool "$tool" "${extra[@]}" --error-exitcode 97 \
        --print-limit 20 "$@" 2>&1)"
    rc=$?
    # memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck with
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    errs="$(printf '%s\n' "$out" | sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
        -e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' | tail -n1)"
    local r=PASS
    if ((rc == 77)) && [[ "${errs:-0}" == 0 ]]; then
        r="not run ($(printf '%s\n' "$out" | sed -n 's/^not run: //p' | head -n1 | sed 's/ (counted from .*//'))"
    elif ((rc == 78)) && [[ "${errs:-x}" == 0 ]]; then
        r="n/a"
    elif ((rc != 0)) || [[ "${errs:-x}" != 0 ]]; then
        r="FAIL (exit $rc, ${errs:-no} errors)"; FAILED=$((FAILED + 1))
    fi
    ROWS+=("| $label | $tool | $r |")
    say "$label [$tool]: $r"
    { printf '\n===== %s [%s]: %s =====\n' "$label" "$tool" "$r"; printf '%s\n' "$out"; } >>"$LOG"
    [[ "$r" == PASS ]] || printf '%s\n' "$out" | grep -E '^=========' | head -n 12 | sed 's/^/    /'
}

for ex in "$DEV"/bin/core_*; do
    [[ -x "$ex" ]] || continue
    for tool in ${GPU_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
        run "example $(basename "$ex")" "$tool" "$ex"
    done
done
if [[ "${GPU_SANITIZE_TESTS:-1}" == 1 ]]; then
    for bin in "$DEV"/tests/core_gpu_*; do
        [[ -x "$bin" ]] || continue
        suite="$(basename "$bin")"
        mapfile -t TESTS < <("$bin" --list --ignored 2>/dev/null | sed -n 's/: test$//p')
        ((${#TESTS[@]})) || { ROWS+=("| $suite | --list | FAIL (no tests) |"); FAILED=$((FAILED + 1)); }
        for t in "${TESTS[@]}"; do
            for tool in ${GPU_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
                API_ERRORS=no run "$suite::$t" "$tool" "$bin" --ignored --exact "$t" --test-threads=1
            done
        done
    done
fi

{
    echo "# compute-sanitizer, CUDA backend"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
    echo "| program | tool | result |"
    echo "|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
} >"$RESULTS/sanitize-results.md"
say "$((${#ROWS[@]} - FAILED)) of ${#ROWS[@]} clean; table in $RESULTS/sanitize-results.md"
((FAILED == 0))
