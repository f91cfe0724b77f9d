#!/usr/bin/env bash
# Downloads the inputs of HIP's math libraries on NVIDIA (build-math.sh): AMD's hipBLAS source and
# hipRAND headers from Debian, and NVIDIA's cuBLAS and cuRAND from PyPI, each pinned by exact
# version and SHA-256, into a private cache. AMD's files are never committed, only fetched.
#
#   bash ci/hip-nvidia/fetch-math.sh [DEST]          # default DEST: .cache/hip-nvidia-math
#
# DEST gets:
#   src/hipblas_5.5.1.orig.tar.gz          Debian trixie's hipblas source (library/src/nvidia_detail
#                                          /hipblas.cpp is hipBLAS over cuBLAS; hipblas.h is inside)
#   src/libhiprand-dev_5.3.3-4_amd64.deb   Debian bookworm's hipRAND 5.3.3 headers (hiprand.h,
#                                          hiprand_nvcc.h: the NVIDIA type aliases)
#   wheels/*.whl, cuda/nvidia/cu13/...     PyPI nvidia-cublas and nvidia-curand for CUDA 13
#                                          (headers and libcublas.so.13 / libcurand.so.10), unpacked
# HIP's own headers (libamdhip64-dev 5.2.3) come from fetch-deb.sh, as for build.sh.
# Downloads go through apt's own fetcher (/usr/lib/apt/apt-helper, which checks the hash) and pip;
# no apt-get update and no root needed. Idempotent: a file already there with the right hash is
# kept. HIPNV_MATH_WHEELS=0 skips the wheels (when a CUDA toolkit or Python env provides cuBLAS
# and cuRAND). Prints DEST on stdout.
set -euo pipefail

# ---- pins ------------------------------------------------------------------------------------
# Debian's pool keeps these names as long as the suites carry these versions.
DEBIAN=http://deb.debian.org/debian
HIPBLAS_ORIG=hipblas_5.5.1.orig.tar.gz              # trixie, source package hipblas 5.5.1-4
HIPBLAS_ORIG_URL=$DEBIAN/pool/main/h/hipblas/$HIPBLAS_ORIG
HIPBLAS_ORIG_SHA256=5920c9a9c83cf7e2b42d1f99f5d5091cac7f6c0a040a737e869e57b92d7045a9
HIPRAND_DEB=libhiprand-dev_5.3.3-4_amd64.deb        # bookworm, source package rocrand 5.3.3-4
HIPRAND_DEB_URL=$DEBIAN/pool/main/r/rocrand/$HIPRAND_DEB
HIPRAND_DEB_SHA256=1c4422dfdf9971c4ec6dbe4050e4499137481ffd087ac5473c3dee5a518f2a99
# CUDA 13.0's releases (the GPU machine's toolkit): libcublas.so.13 (+ libcublasLt.so.13) and
# libcurand.so.10. py3-none wheels, one file each. Deliberately not the codegen's pins
# (CUBLAS_VERSION / CURAND_VERSION in ci/fetch-inputs.sh, the newest headers anycuda exposes):
# hipBLAS/hipRAND are compiled here against the headers of the library they will call on the
# GPU machine, and a newer header could declare what that 13.0 library lacks.
CUBLAS_WHEEL=nvidia_cublas-13.0.2.14-py3-none-manylinux_2_27_x86_64.whl
CUBLAS_WHEEL_SHA256=0cf238ffdbe46c00cb9aa98e7bca745c223a5ca5a53e686ac8b3e5a08fe80d6c
CURAND_WHEEL=nvidia_curand-10.4.0.35-py3-none-manylinux_2_27_x86_64.whl
CURAND_WHEEL_SHA256=1aee33a5da6e1db083fe2b90082def8915f30f3248d5896bcec36a579d941bfc

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
die() { printf 'fetch-math: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'fetch-math: %s\n' "$*" >&2; }

[[ $# -le 1 ]] || die "usage: $0 [DEST]"
DEST="${1:-$ROOT/.cache/hip-nvidia-math}"
mkdir -p "$DEST/src" "$DEST/wheels"
DEST="$(cd "$DEST" && pwd)"

has_hash() { [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]; }

fetch_url() { # <url> <file> <sha256>
    local url="$1" file="$2" sum="$3" tmp
    if has_hash "$file" "$sum"; then return; fi
    log "downloading $url"
    tmp="$(mktemp -d)"
    # apt-helper runs its fetcher as _apt when started by root: it must be able to write there.
    chmod 777 "$tmp"
    if [[ -x /usr/lib/apt/apt-helper ]]; then
        /usr/lib/apt/apt-helper download-file "$url" "$tmp/f" "SHA256:$sum" >&2 \
            || { rm -rf "$tmp"; die "download of $url failed (or its SHA-256 differs from $sum)"; }
    elif command -v curl >/dev/null; then
        curl -fsSL -o "$tmp/f" "$url" || { rm -rf "$tmp"; die "curl $url failed"; }
    else
        rm -rf "$tmp"
        die "neither apt-helper nor curl found to download $url"
    fi
    has_hash "$tmp/f" "$sum" || { rm -rf "$tmp"; die "$url: SHA-256 differs from the pin $sum"; }
    mv "$tmp/f" "$file"
    rm -rf "$tmp"
}

fetch_wheel() { # <file name> <sha256>: pip, from PyPI, exact version (taken from the name)
    local whl="$1" sum="$2" name version
    name="${whl%%-*}" version="${whl#*-}" version="${version%%-*}"
    if has_hash "$DEST/wheels/$whl" "$sum"; then return; fi
    log "downloading ${name//_/-}==$version from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux_2_27_x86_64 --python-version 3.12 --implementation py --abi none \
        --dest "$DEST/wheels" "${name//_/-}==$version" >&2 || die "pip download ${name//_/-}==$version failed"
    has_hash "$DEST/wheels/$whl" "$sum" || die "$whl: missing or SHA-256 differs from the pin $sum"
}

fetch_url "$HIPBLAS_ORIG_URL" "$DEST/src/$HIPBLAS_ORIG" "$HIPBLAS_ORIG_SHA256"
fetch_url "$HIPRAND_DEB_URL" "$DEST/src/$HIPRAND_DEB" "$HIPRAND_DEB_SHA256"

if [[ "${HIPNV_MATH_WHEELS:-1}" != 0 ]]; then
    command -v python3 >/dev/null || die "python3 is required for the wheels"
    fetch_wheel "$CUBLAS_WHEEL" "$CUBLAS_WHEEL_SHA256"
    fetch_wheel "$CURAND_WHEEL" "$CURAND_WHEEL_SHA256"
    for whl in "$CUBLAS_WHEEL" "$CURAND_WHEEL"; do
        stamp="$DEST/cuda/.${whl%.whl}.done"
        [[ -f "$stamp" ]] && continue
        log "unpacking $whl"
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
            "$DEST/wheels/$whl" "$DEST/cuda" || die "cannot unpack $whl"
        touch "$stamp"
    done
fi
printf '%s\n' "$DEST"
