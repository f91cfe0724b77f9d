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
cargo test --workspace --locked "$@"
