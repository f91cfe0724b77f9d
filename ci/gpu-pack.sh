#!/usr/bin/env bash
# Builds everything the GPU machine runs (it has no Rust toolchain and no network) and packs it
# into .gpu/bundle.tar.xz (git-ignored), small enough to carry: the bundle of
# ci/bundle-for-gpu.sh, the cudarc proofs of ci/cudarc-bundle.sh and Debian's libamdhip64-dev
# .deb for HIP's NVIDIA platform. On the GPU machine, ci/gpu-all.sh unpacks and runs it.
#   bash ci/gpu-pack.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash ci/hip-nvidia/fetch-deb.sh .device >/dev/null
bash ci/bundle-for-gpu.sh
bash ci/cudarc-bundle.sh
strip .device/bin/* .device/tests/* .device/tests/hip/* 2>/dev/null || true
mkdir -p .gpu
tar -C .device -cf - . | xz -9 -T2 >.gpu/bundle.tar.xz
ls -la .gpu/bundle.tar.xz
