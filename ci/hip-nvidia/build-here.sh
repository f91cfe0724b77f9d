#!/usr/bin/env bash
# Runs build.sh on a machine with no CUDA toolkit (a developer's or CI's): against the CUDA 13.0
# headers and libraries that ci/fetch-inputs.sh unpacks from PyPI into .cache/inputs, with g++,
# and without libcuda (no driver). This proves the patches, the generated exports and the link;
# the GPU machine then runs build.sh itself against its toolkit.
#
#   bash ci/hip-nvidia/build-here.sh [OUT_DIR]        # default OUT_DIR: .cache/hip-nvidia
#
# Then, unless HIPNV_MATH=0, build-math.sh builds libhipblas.so and libhiprand.so into the same
# OUT_DIR, against the pinned nvidia-cublas / nvidia-curand wheels fetch-math.sh unpacks into
# .cache/hip-nvidia-math (README.md, "Math libraries").
#
# The runtime and NVRTC wheels lack three header sets that the HIP headers pull in; they come
# from three more CUDA 13.0 wheels, unpacked into .cache/inputs/cuda-extra (git-ignored; kept out
# of .device/, which travels to the GPU machine under a size limit):
#   nvidia-cuda-crt (crt/host_defines.h), nvidia-cuda-cccl (nv/target, for cuda_fp16.h),
#   nvidia-cuda-profiler-api (cuda_profiler_api.h).
# Needs network access the first time (apt for the .deb, PyPI for the wheels); idempotent.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/.cache/hip-nvidia}"
CUDA="$ROOT/.cache/inputs/cuda/nvidia/cu13"
EXTRA="$ROOT/.cache/inputs/cuda-extra"
# The 13.0 releases matching fetch-inputs.sh's runtime 13.0.96 / NVRTC 13.0.88.
WHEELS=(nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-cuda-profiler-api==13.0.85)

die() { printf 'build-here: error: %s\n' "$*" >&2; exit 1; }

[[ -f "$CUDA/include/cuda_runtime_api.h" ]] || die "$CUDA missing: run bash ci/fetch-inputs.sh first"

deb="$(bash "$HERE/fetch-deb.sh" "$ROOT/.device")"

mkdir -p "$EXTRA"
for spec in "${WHEELS[@]}"; do
    name="${spec%%==*}" version="${spec##*==}"
    stamp="$EXTRA/.${name}-${version}.done"
    [[ -f "$stamp" ]] && continue
    whl="$(ls "$EXTRA"/"${name//-/_}"-"$version"-*.whl 2>/dev/null | head -n1 || true)"
    if [[ -z "$whl" ]]; then
        python3 -m pip download --quiet --no-deps --only-binary=:all: \
            --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
            --python-version 3.12 --implementation py --abi none --dest "$EXTRA" "$spec" \
            || die "pip download $spec failed"
        whl="$(ls "$EXTRA"/"${name//-/_}"-"$version"-*.whl | head -n1)"
    fi
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
        "$whl" "$EXTRA"
    touch "$stamp"
done
inc="$EXTRA/nvidia/cu13/include"

CUDA_HOME="$CUDA" CUDA_EXTRA_INCLUDE="$inc:$inc/cccl" HIPNV_COMPILER="${HIPNV_COMPILER:-g++}" \
    bash "$HERE/build.sh" "$OUT" "$deb"

[[ "${HIPNV_MATH:-1}" == 0 ]] && exit 0
math="$(bash "$HERE/fetch-math.sh")"
CUDA_HOME="$CUDA" CUDA_EXTRA_INCLUDE="$inc:$inc/cccl" HIPNV_COMPILER="${HIPNV_COMPILER:-g++}" \
    HIPNV_HIP_DEB="$deb" HIPNV_CUBLAS_DIR="$math/cuda/nvidia/cu13" \
    HIPNV_CURAND_DIR="$math/cuda/nvidia/cu13" bash "$HERE/build-math.sh" "$OUT" "$math"
