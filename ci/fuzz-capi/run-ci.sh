#!/usr/bin/env bash
# CI's part of the C ABI's differential fuzzer (no GPU): ci/fuzz-capi/fuzz.c, built with cc
# against the pinned CUDA 13 headers, runs FUZZ_CAPI_CASES cases (default 2000, about 54,000
# calls) through `anycuda libdir`'s libcuda.so.1 / libcudart.so.13 / libnvrtc.so.13 with
# ANYCUDA_BACKEND=cuda (no libcuda here: anycuda answers not-initialised, NVIDIA's libcudart and
# libnvrtc 13.5 from PyPI behind it) and ANYCUDA_BACKEND=hip (ROCm 5.2.3, no device), then
# ci/fuzz-capi/compare.py --ci checks: no crash, no hang, the same calls on both backends, and
# every returned code a member of its API's enum in the pinned headers (CUresult, cudaError_t,
# nvrtcResult). FUZZ_CAPI_ENUM_CHECK=0 reports codes outside the enums without failing.
# A third column, report only, runs the same cases on NVIDIA's own libcudart.so.13 and
# libnvrtc.so.13 from PyPI with no libcuda (driver calls ABSENT): against it, the cuda column's
# NVRTC and Runtime answers are compared without a GPU ($OUT/nvidia-diff.md; never fails CI:
# NVIDIA's NVRTC crashes on made-up and dangling programs, which is the point).
#
#   bash ci/fuzz-capi/run-ci.sh
#
# Environment: FUZZ_CAPI_CASES, FUZZ_CAPI_SEED (default 1), FUZZ_CAPI_PROFILE (debug, the build
# ci/capi-test.sh makes, or release), FUZZ_CAPI_OUT (logs; default target/fuzz-capi).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export CUDA_PATH="${CUDA_PATH:-$ROOT/.cache/inputs/cuda/nvidia/cu13}"
export ANYCUDA_CACHE_DISABLE=1
[[ -f "$CUDA_PATH/include/cuda.h" ]] || bash ci/fetch-inputs.sh
CASES="${FUZZ_CAPI_CASES:-2000}"
SEED="${FUZZ_CAPI_SEED:-1}"
PROFILE="${FUZZ_CAPI_PROFILE:-debug}"
OUT="${FUZZ_CAPI_OUT:-${CARGO_TARGET_DIR:-$ROOT/target}/fuzz-capi}"
mkdir -p "$OUT"

# The same packages as ci/capi-test.sh, so CI reuses that step's build.
case "$PROFILE" in
    debug) cargo build --locked -p anycuda-cli -p anycuda-capi -p anycuda-cudart12 ;;
    release) cargo build --locked --release -p anycuda-cli -p anycuda-capi -p anycuda-cudart12 ;;
    *) echo "fuzz-capi: FUZZ_CAPI_PROFILE is debug or release" >&2; exit 2 ;;
esac
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE"
LIBDIR="$("$TARGET/anycuda" libdir)"

# NVIDIA's runtime wheel lacks crt/host_defines.h: codegen's stand-in, as in ci/capi-test.sh.
cc -O2 -Wall -Wextra -Werror -I"$CUDA_PATH/include" -Icodegen/shim ci/fuzz-capi/fuzz.c -o "$OUT/fuzz" -ldl

t0=$SECONDS
for backend in cuda hip; do
    s=$SECONDS
    # The fuzzer kills a call that makes no progress for 20 s; the outer timeout is a backstop.
    if ! ANYCUDA_BACKEND=$backend LD_LIBRARY_PATH="$LIBDIR" timeout --kill-after=10 600 \
        "$OUT/fuzz" -s "$SEED" -n "$CASES" -b 100 -t 20 -o "$OUT/$backend.log" 2>"$OUT/$backend.stderr"; then
        echo "fuzz-capi: the fuzzer itself failed on $backend (log: $OUT/$backend.stderr)" >&2
        tail -n 20 "$OUT/$backend.stderr" >&2
        exit 1
    fi
    echo "fuzz-capi: $backend: $CASES cases in $((SECONDS - s)) s ($(grep -m1 '^# kernel image' "$OUT/$backend.log"))"
done
s=$SECONDS
env -u ANYCUDA_BACKEND LD_LIBRARY_PATH="$CUDA_PATH/lib" timeout --kill-after=10 600 \
    "$OUT/fuzz" -s "$SEED" -n "$CASES" -b 100 -t 20 -o "$OUT/nvidia.log" 2>"$OUT/nvidia.stderr" || true
python3 ci/fuzz-capi/compare.py --no-enum-check --headers "$CUDA_PATH/include" --names nvidia-no-driver,cuda \
    --md "$OUT/nvidia-diff.md" "$OUT/nvidia.log" "$OUT/cuda.log" >/dev/null || true
echo "fuzz-capi: report only, against NVIDIA's libnvrtc/libcudart without a driver ($((SECONDS - s)) s):" \
    "$(grep -m1 '^| nvidia-no-driver' "$OUT/nvidia-diff.md" | awk -F'|' '{print $4 " calls, " $5 " crashes"}');" \
    "cuda: $(grep -m1 -E '^(code mismatch|compared|crash|only|reference|same)' "$OUT/nvidia-diff.md") ($OUT/nvidia-diff.md)"
enum=()
[[ "${FUZZ_CAPI_ENUM_CHECK:-1}" == 0 ]] && enum=(--no-enum-check)
if python3 ci/fuzz-capi/compare.py --ci "${enum[@]}" --headers "$CUDA_PATH/include" --names cuda,hip \
    --md "$OUT/summary.md" "$OUT/cuda.log" "$OUT/hip.log"; then
    echo "fuzz-capi: ok in $((SECONDS - t0)) s (logs: $OUT)"
else
    echo "fuzz-capi: FAILED (above; logs: $OUT; a case replays alone: $OUT/fuzz -s $SEED -f CASE -n 1 -o LOG)" >&2
    exit 1
fi
