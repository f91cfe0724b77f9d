#!/usr/bin/env bash
# The test command, which `cargo xtask test` (the README's) runs: installs (or checks) the real
# libraries the tests use, then runs every test of the workspace against them.
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
# The HIP tests run on the system ROCm, bookworm's 5.2.3 (ci/fetch-inputs.sh installs it); the
# tests that check a release's own behaviour (tests/rocm_live.rs) check that it is the one
# loaded. ci/rocm/test-all.sh runs them on 5.7.1 and 6.4.3.
export ANYCUDA_ROCM_VERSION="${ANYCUDA_ROCM_VERSION:-5.2}"
# No default program cache (docs/safe-layer.md, "The program cache"): the compiler tests must
# run the compiler every time, not replay an earlier compile. tests/program_cache.rs tests the
# cache with caches of its own, and the default one in child processes that turn it back on.
export ANYCUDA_CACHE_DISABLE=1

# The C-ABI tests (capi/tests) load the built cdylib, which cargo does not always rebuild for
# integration tests: build it first (and libcudart.so.12, capi/tests/cudart12.rs), and the
# `anycuda` command, which tests of the root package run (tests/common::anycuda_bin).
cargo build --locked -p anycuda-capi -p anycuda-cudart12 -p anycuda-cli

if (($#)); then
    cargo test --workspace --locked "$@"
    exit
fi

# The real-world corpus (tests/rocm_real_corpus.rs: NVRTC, then hipRTC 5.2.3 with its layouts)
# is minutes of single-threaded hipRTC (the HIP backend serialises it). It runs as its own
# process beside the rest of the suite, so CI's second core works through it meanwhile; its
# output is printed whole when it ends, and a failure there fails this script.
mapfile -t corpus < <(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if (m.get("reason") == "compiler-artifact" and m.get("executable")
            and m["target"]["name"] == "rocm_real_corpus"):
        print(m["executable"])')
((${#corpus[@]} == 1)) || {
    echo "ci/test.sh: expected the corpus test binary, got ${#corpus[@]} (build: cargo test --no-run)" >&2
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
