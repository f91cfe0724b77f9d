#!/usr/bin/env bash
# Builds everything the GPU machine runs (it has no Rust toolchain and no network) and packs it
# into .gpu/bundle.tar.xz (git-ignored), small enough to carry: the bundle of
# ci/bundle-for-gpu.sh, the cudarc proofs of ci/cudarc-bundle.sh, Debian's libamdhip64-dev
# .deb for HIP's NVIDIA platform, and in .device/math the inputs of hipBLAS/hipRAND on NVIDIA
# (ci/hip-nvidia/fetch-math.sh: hipBLAS's source tarball, hipRAND's headers .deb and the pinned
# cuBLAS/cuRAND headers, 4 MB; not NVIDIA's libraries, which the GPU machine has). On the GPU
# machine, ci/gpu-all.sh unpacks and runs it.
#   bash ci/gpu-pack.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash ci/hip-nvidia/fetch-deb.sh .device >/dev/null
math="$(bash ci/hip-nvidia/fetch-math.sh)"
rm -rf .device/math && mkdir -p .device/math/src .device/math/cuda/nvidia/cu13
cp "$math"/src/* .device/math/src/
cp -r "$math/cuda/nvidia/cu13/include" .device/math/cuda/nvidia/cu13/
bash ci/bundle-for-gpu.sh
bash ci/cudarc-bundle.sh
strip .device/bin/* .device/tests/* .device/tests/hip/* 2>/dev/null || true
mkdir -p .gpu
tar -C .device -cf - . | xz -9 -T2 >.gpu/bundle.tar.xz
ls -la .gpu/bundle.tar.xz
