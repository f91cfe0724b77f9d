#!/usr/bin/env bash
# The HIP tests on the ROCm releases beside the system's: Debian's 5.7.1 (trixie) and 6.4.3 (sid),
# each through ci/rocm.sh. Test binaries are built once, here, then run directly (not through
# cargo) so that each runs under that release's own glibc loader. Bookworm's 5.2.3 is the system
# ROCm, which ci/test.sh's whole suite runs on (ANYCUDA_ROCM_VERSION=5.2 there), these tests
# included; `bash ci/rocm/test-all.sh 5.2` runs them here against it again.
#
#   bash ci/rocm/test-all.sh [VERSION...]        default: 5.7 6.4
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export CI="${CI:-true}" CUDA_PATH="${CUDA_PATH:-$ROOT/.cache/inputs/cuda/nvidia/cu13}"
export ANYCUDA_REAL_CORPUS=1 # tests/rocm_real_corpus.rs
versions=("$@")
((${#versions[@]})) || versions=(5.7 6.4)

# The HIP tests that need no GPU and start no child process.
TESTS=(rocm_live rocm_headers rtc_corpus rtc_bad_input rtc_threads rocm_include_fuzz rocm_real_corpus curand_raw cublas_raw cublaslt_raw cufft_raw cusparse_raw candle_wave ptx_translate ptx_corpus ptx_conformance)
args=()
for t in "${TESTS[@]}"; do args+=(--test "$t"); done
mapfile -t exes < <(cargo test -p anycuda --locked "${args[@]}" --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])')
((${#exes[@]} == ${#TESTS[@]})) || {
    echo "rocm tests: expected ${#TESTS[@]} test binaries, got ${#exes[@]}" >&2
    exit 1
}

# Each release runs in its own job, two at a time (CI has 2 cores and each hipRTC compile uses
# one): the releases share nothing but the built test binaries, and running them one after
# another was half of CI's time. Each job's output is kept and printed whole, in release order.
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
# The numba corpus's PTX (tests/ptx_corpus.rs), written once for every release by numba-cuda in
# its pinned environment (ci/numba-fetch.sh), before the releases run side by side.
export ANYCUDA_NUMBA_PTX="$LOGS/numba-ptx"
"$(bash ci/numba-fetch.sh)" tests/kernels/numba/compile.py "$ANYCUDA_NUMBA_PTX" --cc 9.0 --cc 8.0
for v in "${versions[@]}"; do
    bash ci/rocm.sh "$v" -- /bin/true # prepare (cached) before anything runs concurrently
done

run_release() { # VERSION: every test binary on that release; lines for the summary in $LOGS/VERSION.sum
    local v="$1" status=0 e name exe out line
    for e in "${exes[@]}"; do
        name="${e%% *}" exe="${e#* }"
        printf '\n---- ROCm %s: %s\n' "$v" "$name"
        # HIP only: the CUDA half of these tests runs in the main test step, and so does the
        # real-world corpus on 5.2.3 (the system ROCm).
        skip=(--skip nvrtc)
        [[ "$v" == 5.2 && "$name" == rocm_real_corpus ]] && skip+=(--skip real_corpus)
        # cuRAND's half and the CLI test (a child process) run in the main test step.
        [[ "$name" == curand_raw ]] && skip+=(--skip curand_loads --skip curand_host --skip cli)
        # cuBLAS's half and the CLI test likewise; hipBLAS runs on 5.7 and 6.4 (5.2 has none).
        [[ "$name" == cublas_raw ]] && skip+=(--skip cublas_loads --skip cli)
        # cuBLASLt's half and the CLI test likewise; hipBLASLt (sid's 7.1.1) exists for 6.4 only,
        # where the test requires it (elsewhere its half says why it does not run).
        [[ "$name" == cublaslt_raw ]] && skip+=(--skip cublaslt_loads --skip cli)
        # cuFFT's half runs in the main test step; hipFFT runs on 5.7 and 6.4 (5.2 has none).
        [[ "$name" == cufft_raw ]] && skip+=(--skip cufft_loads)
        # cuSPARSE's half likewise; hipSPARSE (bookworm's 5.3.3) runs on 5.2 only.
        [[ "$name" == cusparse_raw ]] && skip+=(--skip cusparse_loads)
        # The conformance suite's ptxas check and translation checks are release-independent
        # (ci/test.sh runs them); here only its hipRTC half.
        [[ "$name" == ptx_conformance ]] && skip+=(--skip ptxas --skip every_form --skip refused)
        # The include fuzz's compiler half: its first 60 cases here (200 in ci/test.sh, on 5.2.3);
        # the resolver it feeds is anycuda's, the same on every release.
        if out="$(ANYCUDA_BACKEND=hip ANYCUDA_INCLUDE_FUZZ_CASES=60 bash ci/rocm.sh "$v" -- "$exe" "${skip[@]}" --nocapture 2>&1)"; then
            line="$(grep -E '^test result' <<<"$out" | tail -n1)"
            grep -E '^(REAL-CORPUS|NUMBA-CORPUS)' <<<"$out" || true
        else
            status=1
            printf '%s\n' "$out" | tail -n 60
            line="FAILED: $(grep -E '^test result' <<<"$out" | tail -n1)"
        fi
        printf '%s\n' "$line"
        printf 'ROCm %s %s: %s\n' "$v" "$name" "$line" >>"$LOGS/$v.sum"
    done
    return "$status"
}

# The slowest releases first, so the short one fills the gap.
order=()
for v in 6.4 5.7 5.2; do [[ " ${versions[*]} " == *" $v "* ]] && order+=("$v"); done
for v in "${versions[@]}"; do [[ " ${order[*]} " == *" $v "* ]] || order+=("$v"); done
for v in "${order[@]}"; do
    while (($(jobs -rp | wc -l) >= 2)); do wait -n || true; done
    # The job's status goes to a file: `wait -n` above may already have reaped it.
    { rc=0; run_release "$v" >"$LOGS/$v.log" 2>&1 || rc=$?; echo "$rc" >"$LOGS/$v.rc"; } &
done
wait
status=0
for v in "${versions[@]}"; do
    [[ "$(cat "$LOGS/$v.rc" 2>/dev/null)" == 0 ]] || status=1
    printf '\n======== ROCm %s (its own job)\n' "$v"
    cat "$LOGS/$v.log"
done
printf '\n==== HIP tests per ROCm release\n'
for v in "${versions[@]}"; do cat "$LOGS/$v.sum" 2>/dev/null || echo "ROCm $v: no result (the job died)"; done
exit "$status"
