#!/usr/bin/env bash
# The test command the README gives: installs (or checks) the real libraries the tests use, then
# runs every test of the workspace against them.
#   - Debian's ROCm 5.2.3 (libamdhip64-5, libamdhip64-dev, libhiprtc-builtins5): hipRTC, HIP.
#   - NVRTC and the CUDA runtime 13.5 from PyPI, unpacked into .cache/inputs (not system-wide).
# Under CI=true a test whose library is missing fails instead of skipping.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash ci/fetch-inputs.sh

# anycuda finds NVRTC and libcudart through CUDA_PATH (see docs/choosing-a-backend.md, "Library search").
export CUDA_PATH="$ROOT/.cache/inputs/cuda/nvidia/cu13"
export ANYCUDA_REAL_CORPUS=1 # the real-world kernel corpus (tests/rocm_real_corpus.rs)
# No default program cache (docs/safe-layer.md, "The program cache"): the compiler tests must
# run the compiler every time, not replay an earlier compile. tests/program_cache.rs tests the
# cache with caches of its own, and the default one in child processes that turn it back on.
export ANYCUDA_CACHE_DISABLE=1

# The C-ABI tests (capi/tests) load the built cdylib, which cargo does not always rebuild for
# integration tests: build it first.
cargo build --locked -p anycuda-capi

if (($#)); then
    cargo test --workspace --locked "$@"
    exit
fi

# The real-world corpus tests (tests/param_layouts.rs, tests/rocm_real_corpus.rs) are minutes of
# single-threaded hipRTC 5.2.3 (the HIP backend serialises it). They run as their own processes
# beside the rest of the suite, so CI's second core works through them meanwhile; their output
# is printed whole when they end, and a failure there fails this script.
mapfile -t corpus < <(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and m["target"]["name"] in ("param_layouts", "rocm_real_corpus")):
        print(m["executable"])')
((${#corpus[@]} == 2)) || {
    echo "ci/test.sh: expected the 2 corpus test binaries, got ${#corpus[@]} (build: cargo test --no-run)" >&2
    exit 1
}
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
(
    set +e
    rc=0
    for exe in "${corpus[@]}"; do
        printf '\n     Running %s real_corpus (beside the suite)\n' "$exe"
        "$exe" real_corpus --nocapture || rc=1
    done
    exit "$rc"
) >"$log" 2>&1 &
corpus_pid=$!
status=0
cargo test --workspace --locked -- --skip real_corpus || status=$?
wait "$corpus_pid" || status=1
cat "$log"
exit "$status"
