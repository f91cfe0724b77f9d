#!/usr/bin/env bash
# Runs the examples and the GPU test suite on a GPU machine, on the CUDA backend and on the HIP
# backend through HIP's NVIDIA platform (ci/hip-nvidia), and tabulates test x backend.
#
# Runs ON the GPU machine (no Rust toolchain, no network needed), from the repository root, with
# the bundle made on the build machine by `cargo xtask gpu pack` in .device/:
#   .device/bin/{anycuda,<examples>}  .device/tests/{gpu_suite,core_gpu_*,...}
#   .device/tests/hip/{legacy_launch,both_apis,...}  [.device/libamdhip64-dev_*.deb]
#
# What runs, per backend: `anycuda demo` and `anycuda info`, every example, and the GPU tests
# (the ignored tests, #[gpu_test]s, of every *gpu* test binary), one process per test. The
# anycuda-hip GPU tests (tests/hip/) call the HIP backend directly: they run on hip and are "—"
# (not applicable) on cuda. Each test checks its own need (anycuda-test's #[gpu_test]; see
# docs/contributing.md, "GPU tests") and says how it ended by its exit status:
#   0   PASS
#   77  "not run (<reason>)": its need is not met here (2 GPUs on a 1-GPU machine); not a failure
#   78  "n/a": it found its feature absent on this backend (never on CUDA); its "N/A: " line
#       is in the log
#   any other status (a panic, a crash, a timeout): FAIL
#
#   bash ci/gpu-test.sh
#
# Environment: OUT (results folder; default ./gpu-results), GPU_BACKENDS ("cuda hip"),
# GPU_BUNDLE (the bundle folder; default .device), and ci/gpu-env.sh's (HIPNV_DIR: where the HIP
# shim is, built once per GPU run when missing).
# Writes $OUT/gpu-results.md (the table) and $OUT/gpu-test.log (every log, concatenated). Exits 1
# if anything failed, including a HIP shim that does not build.
set -uo pipefail
# The compilers run for real in every test, as in ci/test.sh; the program cache's own tests use
# caches of their own.
export ANYCUDA_CACHE_DISABLE=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, ANYCUDA_TEST_GPUS, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/gpu-results}"
LOGS="$(mktemp -d /tmp/gpu-test.XXXXXX)"
mkdir -p "$RESULTS"
START=$SECONDS

die() { printf 'gpu-test: error: %s\n' "$*" >&2; exit 2; }
say() { printf 'gpu-test: %s\n' "$*"; }

[[ -x "$DEV/bin/anycuda" ]] || die "no bundle in $DEV: run 'cargo xtask gpu pack' where Rust is"
[[ -x "$DEV/tests/gpu_suite" ]] || die "$DEV/tests/gpu_suite missing: rebuild the bundle"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
    | sed 's/^/gpu-test: GPU: /'

NGPU="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
NGPU="${NGPU:-0}"

# Exit statuses of anycuda-test (test-support/src/lib.rs: NOT_RUN, NOT_APPLICABLE).
NOT_RUN=77
NOT_APPLICABLE=78

declare -A RESULT   # "row|backend" -> PASS / FAIL / — (not applicable) / n/a / not run (why)
ROWS=()
add_row() { local r; for r in "${ROWS[@]}"; do [[ "$r" == "$1" ]] && return; done; ROWS+=("$1"); }
record() { add_row "$1"; RESULT["$1|$2"]="$3"; }

# ---- (a) the HIP shim ------------------------------------------------------------------------
BACKENDS=(${GPU_BACKENDS:-cuda hip})
HIP_NOTE=""
if [[ " ${BACKENDS[*]} " == *" hip "* ]]; then
    hip_shim "$LOGS/hip-shim-build.log"
    case $? in
        0) [[ -s "$LOGS/hip-shim-build.log" ]] && record "hip shim build" hip PASS ;;
        2) HIP_NOTE="HIP skipped: no libamdhip64-dev_*.deb in the bundle (cargo xtask gpu pack fetches it)"
           BACKENDS=("${BACKENDS[@]/hip}") ;;
        *) record "hip shim build" hip FAIL
           HIP_NOTE="HIP shim build failed: HIP tests not run"
           BACKENDS=("${BACKENDS[@]/hip}") ;;
    esac
fi
read -r -a BACKENDS <<<"${BACKENDS[*]}"

# ---- (b) examples and the suite, per backend -------------------------------------------------
EXAMPLES=()
for f in "$DEV"/bin/*; do
    name="$(basename "$f")"
    # bench_* are the benchmark's; nccl_* need 2 GPUs and run from ci/nccl-gpu-test.sh.
    [[ -x "$f" && "$name" != anycuda && "$name" != bench_* && "$name" != nccl_* ]] && EXAMPLES+=("$name")
done

run_logged() { # <log> <timeout> <cmd...>: runs with the backend's environment, returns its status
    local log="$1" limit="$2"; shift 2
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
}

gpu_tests() { # <binary> <row label> <backend> <run|na>: one row per #[ignore]d test
    local bin="$1" suite="$2" backend="$3" mode="$4" t t0=$SECONDS r rc why log ran=0
    mapfile -t TESTS < <("$bin" --list --ignored 2>/dev/null | sed -n 's/: test$//p')
    if ((${#TESTS[@]} == 0)); then
        record "$suite --list" "$backend" FAIL
        say "  $suite: no GPU tests listed"
    fi
    for t in "${TESTS[@]}"; do
        if [[ "$mode" == na ]]; then
            record "$suite::$t" "$backend" "—"
            continue
        fi
        log="$LOGS/$backend-${suite//\//-}-$t.log"
        run_logged "$log" 120 "$bin" --ignored --exact "$t" --nocapture --test-threads=1
        rc=$?
        case $rc in
            0) r=PASS ;;
            "$NOT_RUN")
                # "not run: <need>, found <n> (counted from ...)": the need goes into the table.
                why="$(sed -n 's/^not run: //p' "$log" | head -n1 | sed 's/ (counted from .*//')"
                r="not run (${why:-its need is not met here})"
                record "$suite::$t" "$backend" "$r"
                continue
                ;;
            "$NOT_APPLICABLE") r="n/a" ;;
            *) r=FAIL ;;
        esac
        ran=$((ran + 1))
        record "$suite::$t" "$backend" "$r"
        if [[ "$r" == FAIL ]]; then
            say "    $suite::$t: FAILED"
            grep -v '^\(running\|test result\|$\)' "$log" | tail -n 15 | sed 's/^/      /'
        fi
    done
    [[ "$mode" == na ]] && say "  $suite: ${#TESTS[@]} tests, not applicable on $backend" && return
    say "  $suite: $ran of ${#TESTS[@]} tests run in $((SECONDS - t0)) s"
}

for backend in "${BACKENDS[@]}"; do
    export ANYCUDA_BACKEND="$backend" ANYCUDA_REQUIRE_GPU=1 ANYCUDA_REPO_ROOT="$ROOT" \
        ANYCUDA_BIN="$DEV/bin/anycuda" RUST_BACKTRACE=1
    if [[ "$backend" == hip ]]; then
        export ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so"
    else
        unset ANYCUDA_HIP_LIBRARY
    fi
    say "== backend $backend"

    log="$LOGS/$backend-anycuda-info.log"
    if run_logged "$log" 60 "$DEV/bin/anycuda" info; then r=PASS; else r=FAIL; fi
    record "anycuda info" "$backend" "$r"
    say "  anycuda info: $r"

    # The README's first command: with ANYCUDA_REQUIRE_GPU=1, no GPU is a failure.
    log="$LOGS/$backend-anycuda-demo.log"
    if run_logged "$log" 120 "$DEV/bin/anycuda" demo && grep -q '^OK: anycuda ran SAXPY' "$log"; then
        r=PASS
    else
        r=FAIL
    fi
    record "anycuda demo" "$backend" "$r"
    say "  anycuda demo: $r"
    [[ "$r" == PASS ]] || tail -n 15 "$log" | sed 's/^/      /'

    for ex in "${EXAMPLES[@]}"; do
        log="$LOGS/$backend-$ex.log"
        t0=$SECONDS
        if run_logged "$log" 120 "$DEV/bin/$ex"; then r=PASS; else r="FAIL"; fi
        # A skip under ANYCUDA_REQUIRE_GPU=1 is a failure, whatever the exit status.
        grep -qE '^(skipped: no GPU|SKIP)' "$log" && r=FAIL
        record "example $ex" "$backend" "$r"
        say "  example $ex: $r ($((SECONDS - t0)) s)"
        [[ "$r" == PASS ]] || tail -n 15 "$log" | sed 's/^/      /'
    done

    # The GPU tests (#[ignore]d on machines without one): gpu_suite, every *gpu* test binary and
    # ptx_translate and ptx_conformance (the translated kernels and every instruction form
    # against native PTX), one process per test, so a crash (a wrong ABI is a segfault) fails
    # only its test.
    for bin in "$DEV"/tests/*; do
        suite="$(basename "$bin")"
        [[ -f "$bin" && -x "$bin" && ("$suite" == *gpu* || "$suite" == ptx_translate || "$suite" == ptx_conformance) && "$suite" != nccl_* ]] || continue
        gpu_tests "$bin" "$suite" "$backend" run
    done
    # anycuda-hip's GPU tests: the HIP backend's own calls, not applicable on cuda.
    HIP_BINS=("$DEV"/tests/hip/*)
    if [[ "$backend" == hip && ! -x "${HIP_BINS[0]}" ]]; then
        record "hip/ (anycuda-hip GPU tests)" hip FAIL
        say "  no anycuda-hip GPU tests in $DEV/tests/hip: rebuild the bundle"
    fi
    for bin in "${HIP_BINS[@]}"; do
        [[ -f "$bin" && -x "$bin" ]] || continue
        if [[ "$backend" == hip ]]; then mode=run; else mode=na; fi
        gpu_tests "$bin" "hip/$(basename "$bin")" "$backend" "$mode"
    done
done
unset ANYCUDA_BACKEND ANYCUDA_REQUIRE_GPU ANYCUDA_HIP_LIBRARY

# ---- (c) the table ---------------------------------------------------------------------------
ALL=(cuda hip)
TABLE="$RESULTS/gpu-results.md"
FAILED=0
{
    echo "# GPU test results"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1), $((SECONDS - START)) s"
    [[ -n "$HIP_NOTE" ]] && { echo; echo "$HIP_NOTE"; }
    echo
    echo "—: not applicable (anycuda-hip's own tests on the CUDA backend) or not run on that backend;"
    echo "not run (why): the test's #[gpu_test] need is not met here (exit status 77; $NGPU GPU(s) here)."
    echo "n/a: the test found its feature absent on that backend (exit status 78; its 'N/A: ' line is in gpu-test.log)."
    echo
    echo "| test | cuda | hip |"
    echo "|---|---|---|"
    for row in "${ROWS[@]}"; do
        line="| $row |"
        for b in "${ALL[@]}"; do
            v="${RESULT["$row|$b"]:-—}"
            [[ "$v" == FAIL ]] && FAILED=$((FAILED + 1))
            line+=" $v |"
        done
        echo "$line"
    done
} >"$TABLE"
echo
cat "$TABLE"

{
    for f in "$LOGS"/*.log; do
        printf '\n===== %s =====\n' "$(basename "$f" .log)"
        cat "$f"
    done
} >"$RESULTS/gpu-test.log"
rm -rf "$LOGS"
echo
say "wrote $TABLE and $RESULTS/gpu-test.log in $((SECONDS - START)) s"
if ((FAILED > 0)); then
    say "$FAILED failure(s)"
    exit 1
fi
say "all passed"
