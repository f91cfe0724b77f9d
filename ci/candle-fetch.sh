#!/usr/bin/env bash
# Fetches NVIDIA's real compiler from PyPI, without the toolkit, for building candle's CUDA
# feature (candle-kernels runs `nvcc --ptx` and `nvcc -c`): CUDA 13.0's nvcc, the NVVM back end
# (cicc, libdevice), the CRT headers, CCCL (cub/thrust/libcu++) and the runtime headers with
# libcudart, each pinned by exact version and SHA-256, unpacked into one prefix. Idempotent: a
# second run only checks what is there. Prints the prefix's bin folder on stdout.
#
#   bash ci/candle-fetch.sh          # then: PATH="$(bash ci/candle-fetch.sh):$PATH" nvcc --version
#
# Why 13.0 and not the 13.5 headers anycuda's codegen pins: PTX carries its ISA version, and a
# driver refuses PTX newer than it knows (CUDA_ERROR_UNSUPPORTED_PTX_VERSION). The GPU machine's
# driver is 580 (CUDA 13.0), so candle's kernels are built with the nvcc of the oldest driver
# they must load on. 13.0.88 is CUDA 13.0 Update 2's nvcc (the newest 13.0 release on PyPI), with
# the nvvm/crt/cccl/runtime wheels of the same update.
#
# Layout afterwards (under .cache, which lives outside the clone: ci/cache-dir.sh):
#   .cache/inputs/nvcc-13.0/nvidia/cu13/bin/nvcc        (+ ptxas, fatbinary, nvlink, cudafe++)
#   .cache/inputs/nvcc-13.0/nvidia/cu13/nvvm/           cicc and libdevice
#   .cache/inputs/nvcc-13.0/nvidia/cu13/include/        CUDA 13.0 headers, crt/, cccl/
#   .cache/inputs/nvcc-13.0/nvidia/cu13/lib/            libcudart.so.13 (+ libcudart_static.a)
set -euo pipefail

# ---- pins: file name (exact version) and SHA-256 of each wheel --------------------------------
WHEELS=(
    "nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03"
    "nvidia_nvvm-13.0.88-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0"
    "nvidia_cuda_crt-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4"
    "nvidia_cuda_cccl-13.0.85-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649"
    "nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548"
)
NVCC_RELEASE="13.0" # what `nvcc --version` must print ("release 13.0")

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT"
WHEEL_DIR="$ROOT/.cache/inputs/wheels"
PREFIX="$ROOT/.cache/inputs/nvcc-$NVCC_RELEASE"
BIN="$PREFIX/nvidia/cu13/bin"
log() { printf 'candle-fetch: %s\n' "$*" >&2; }
die() { printf 'candle-fetch: error: %s\n' "$*" >&2; exit 1; }
has_hash() { [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]; }
mkdir -p "$WHEEL_DIR" "$PREFIX"

# The stamp names every pin, so a changed pin unpacks afresh.
STAMP="$PREFIX/.done-$(printf '%s\n' "${WHEELS[@]}" | sha256sum | cut -c1-16)"
if [[ ! -f "$STAMP" || ! -x "$BIN/nvcc" ]]; then
    for entry in "${WHEELS[@]}"; do
        read -r whl sum <<<"$entry"
        if ! has_hash "$WHEEL_DIR/$whl" "$sum"; then
            name="${whl%%-*}" version="${whl#*-}" version="${version%%-*}"
            log "downloading ${name//_/-}==$version from PyPI"
            tmp="$(mktemp -d)"
            python3 -m pip download --quiet --no-deps --only-binary=:all: \
                --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
                --platform manylinux2010_x86_64 --platform manylinux_2_12_x86_64 \
                --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
                --python-version 3.12 --implementation py --abi none \
                --dest "$tmp" "${name//_/-}==$version" || { rm -rf "$tmp"; die "pip download of ${name//_/-}==$version failed"; }
            [[ -f "$tmp/$whl" ]] || { ls "$tmp" >&2; rm -rf "$tmp"; die "pip did not download $whl"; }
            has_hash "$tmp/$whl" "$sum" || { rm -rf "$tmp"; die "$whl: SHA-256 differs from the pin $sum"; }
            mv "$tmp/$whl" "$WHEEL_DIR/$whl"
            rm -rf "$tmp"
        fi
    done
    rm -rf "$PREFIX" && mkdir -p "$PREFIX"
    for entry in "${WHEELS[@]}"; do
        read -r whl _ <<<"$entry"
        log "unpacking $whl"
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$WHEEL_DIR/$whl" "$PREFIX"
    done
    # zipfile drops the executable bits the wheels' RECORD does not carry either.
    chmod +x "$BIN"/* "$PREFIX"/nvidia/cu13/nvvm/bin/*
    touch "$STAMP"
fi
version="$("$BIN/nvcc" --version)" || die "$BIN/nvcc does not run"
grep -q "release $NVCC_RELEASE," <<<"$version" || die "$BIN/nvcc is not release $NVCC_RELEASE: $version"
echo "$BIN"
