#!/usr/bin/env bash
# Fetches the pinned inputs of anycuda-codegen (and the CUDA test libraries CI uses) into
# <repo>/.cache/inputs, which is git-ignored and, in a fresh clone, a link to a folder outside it
# (ci/cache-dir.sh). Idempotent: a second run only checks what is there.
#
#   bash ci/fetch-inputs.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/   CUDA 13.0 headers (cuda.h, nvrtc.h, ...)
#   .cache/inputs/cuda/nvidia/cu13/lib/       libcudart.so.13, libnvrtc.so.13, libnvJitLink.so.13,
#                                             libcurand.so.10, libcublas.so.13, libcublasLt.so.13,
#                                             libcufft.so.12, libcusparse.so.12
#                                             (test libraries)
#   .cache/inputs/cuda/nvidia/cuda_runtime/   CUDA 12.9's runtime (include/cuda_runtime_api.h, ...,
#                                             lib/libcudart.so.12): the C ABI's libcudart.so.12
#   .cache/inputs/cubecl/cubecl-hip-sys/      the vendored crate (src/bindings/bindings_*.rs)
#   .cache/inputs/nvcc-13.0/nvidia/cu13/bin/  nvcc 13.0 (ci/candle-fetch.sh): fat binaries for tests
#   /usr/include/hip/                         HIP 5.2.3 headers (Debian libamdhip64-dev)
set -euo pipefail

# ---- pinned versions (the only place they are written; codegen reads the same pins) ----------
CUDA_RUNTIME_VERSION="13.5.37"   # PyPI nvidia-cuda-runtime
CUDA_NVRTC_VERSION="13.5.37"     # PyPI nvidia-cuda-nvrtc
CUDA12_RUNTIME_VERSION="12.9.79" # PyPI nvidia-cuda-runtime-cu12, the newest 12.x: CUDA 12's runtime
                                 # headers and libcudart.so.12 (libcudart.so.12 of the C ABI)
CUDA12_RUNTIME_SHA256="25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3"
NVJITLINK_VERSION="13.5.37"      # PyPI nvidia-nvjitlink (nvJitLink.h, libnvJitLink.so.13: LTO-IR linking)
CURAND_VERSION="10.4.5.25"       # PyPI nvidia-curand (curand.h, libcurand.so.10; CUDA 13.x)
HIPRAND_DEB_VERSION="5.3.3-4"    # Debian bookworm libhiprand-dev/librocrand-dev (ci/curand-fetch.sh)
CUBLAS_VERSION="13.10.0.20"      # PyPI nvidia-cublas (cublas_api.h, libcublas.so.13, libcublasLt.so.13;
                                 # the release PyPI cuda-toolkit 13.5.0 pins with the wheels above)
HIPBLAS_DEB_VERSION="5.5.1-4"    # Debian trixie libhipblas-dev/libhipblas0 (ci/cublas-fetch.sh)
HIPBLAS2_DEB_VERSION="6.4.4-1"   # Debian sid libhipblas-dev/libhipblas2: hipBLAS 2.x's ABI (hipDataType,
                                 # hipblasComputeType_t), its header for codegen's checks
HIPBLAS_COMMON_DEB_VERSION="7.1.0-1+b1" # Debian sid libhipblas-common-dev (hipblas-common.h:
                                 # hipblasComputeType_t, which hipBLAS 2.x's header includes)
HIPBLASLT_DEB_VERSION="7.1.1+dfsg-4" # Debian sid libhipblaslt-dev/libhipblaslt1 (ci/cublaslt-fetch.sh;
                                 # amd64 only; cuBLASLt itself is libcublasLt.so.13 of nvidia-cublas)
HIP_DEV_SID_DEB_VERSION="6.4.3-5" # Debian sid libamdhip64-dev: the HIP headers hipBLASLt 7.1.1 is
                                 # built with (hipDataType; ci/cublaslt-fetch.sh)
CUBECL_HIP_SYS_VERSION="7.14.6085001"
NCCL_VERSION="2.32.3"            # PyPI nvidia-nccl-cu13 (ci/nccl-fetch.sh)
RCCL_DEB_VERSION="5.4.3-3+b1"     # Debian trixie librccl-dev/librccl1 (ci/nccl-fetch.sh)
ROCM_SMI_DEB_VERSION="6.1.2-1"   # Debian trixie librocm-smi64-1, RCCL's one other dependency
CUFFT_VERSION="12.5.0.14"        # PyPI nvidia-cufft (cufft.h, libcufft.so.12; the release PyPI cuda-toolkit
                                 # 13.5.0 pins)
HIPFFT_DEB_VERSION="6.1.2-3"     # Debian trixie libhipfft-dev/libhipfft0 (ci/cufft-fetch.sh)
ROCFFT_DEB_VERSION="6.1.2-1"     # Debian trixie librocfft0, hipFFT's one library dependency
NVML_VERSION="13.5.37"           # PyPI nvidia-nvml-dev (nvml.h: NVML's vocabulary; no library in it)
ROCM_SMI5_DEB_VERSION="5.2.3-2"  # Debian bookworm librocm-smi64-1/librocm-smi-dev: NVML on the HIP
                                 # backend (ci/rocm-smi-fetch.sh)
CUSPARSE_VERSION="12.9.4.2"      # PyPI nvidia-cusparse (cusparse.h, libcusparse.so.12; the release PyPI
                                 # cuda-toolkit 13.5.0 pins)
HIPSPARSE_DEB_VERSION="5.3.3+dfsg-2~deb12u1" # Debian bookworm libhipsparse-dev/libhipsparse0
                                 # (ci/cusparse-fetch.sh)
ROCSPARSE_DEB_VERSION="5.3.0+dfsg-2" # Debian bookworm librocsparse0, hipSPARSE 5.3.3's backend
DEBIAN_PACKAGES=(libamdhip64-5 libamdhip64-dev libhiprtc-builtins5 libclang-dev)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT" # .cache lives outside the clone (ci/cache-dir.sh)
INPUTS="$ROOT/.cache/inputs"
CUDA_DIR="$INPUTS/cuda"
WHEELS_DIR="$INPUTS/wheels"
CUBECL_DIR="$INPUTS/cubecl"
mkdir -p "$CUDA_DIR" "$WHEELS_DIR" "$CUBECL_DIR"

log() { printf 'fetch-inputs: %s\n' "$*" >&2; }

# ---- CUDA headers and libraries from the PyPI wheels ----------------------------------------
fetch_wheel() { # <pypi name> <version> <file that proves it is unpacked> [sha256 of the wheel]
    local name="$1" version="$2" marker="$3" sha="${4:-}"
    local stamp="$CUDA_DIR/.${name}-${version}.done"
    if [[ -f "$stamp" && -e "$CUDA_DIR/$marker" ]]; then
        return
    fi
    local whl
    whl="$(ls "$WHEELS_DIR"/"${name//-/_}"-"$version"-*.whl 2>/dev/null | head -n1 || true)"
    if [[ -z "$whl" ]]; then
        local pip=(python3 -m pip)
        command -v python3 >/dev/null || pip=(pip)
        log "downloading $name==$version"
        "${pip[@]}" download --quiet --no-deps --only-binary=:all: \
            --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2010_x86_64 --platform manylinux_2_12_x86_64 \
            --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
            --python-version 3.12 --implementation py --abi none \
            --dest "$WHEELS_DIR" "$name==$version"
        whl="$(ls "$WHEELS_DIR"/"${name//-/_}"-"$version"-*.whl | head -n1)"
    fi
    if [[ -n "$sha" && "$(sha256sum "$whl" | cut -d' ' -f1)" != "$sha" ]]; then
        log "$(basename "$whl"): SHA-256 is not the pinned $sha"
        exit 1
    fi
    log "unpacking $(basename "$whl")"
    if command -v unzip >/dev/null; then
        unzip -q -o "$whl" -d "$CUDA_DIR"
    else
        python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$CUDA_DIR"
    fi
    touch "$stamp"
}
fetch_wheel nvidia-cuda-runtime "$CUDA_RUNTIME_VERSION" nvidia/cu13/include/cuda.h
fetch_wheel nvidia-cuda-nvrtc "$CUDA_NVRTC_VERSION" nvidia/cu13/include/nvrtc.h
fetch_wheel nvidia-cuda-runtime-cu12 "$CUDA12_RUNTIME_VERSION" nvidia/cuda_runtime/include/cuda_runtime_api.h \
    "$CUDA12_RUNTIME_SHA256"
fetch_wheel nvidia-nvjitlink "$NVJITLINK_VERSION" nvidia/cu13/include/nvJitLink.h
fetch_wheel nvidia-curand "$CURAND_VERSION" nvidia/cu13/include/curand.h
fetch_wheel nvidia-cublas "$CUBLAS_VERSION" nvidia/cu13/include/cublas_api.h
fetch_wheel nvidia-cufft "$CUFFT_VERSION" nvidia/cu13/include/cufft.h
fetch_wheel nvidia-nvml-dev "$NVML_VERSION" nvidia/cu13/include/nvml.h
fetch_wheel nvidia-cusparse "$CUSPARSE_VERSION" nvidia/cu13/include/cusparse.h

# ---- HIP 5.2.3 headers and libraries, libclang for bindgen (Debian packages) ----------------
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=()
    [[ "$(id -u)" == 0 ]] || sudo=(sudo)
    log "installing ${missing[*]}"
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
        "${sudo[@]}" apt-get update
        "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
    fi
fi

# ---- cubecl-hip-sys (HIP 6.x/7.x bindings) via cargo vendor --------------------------------
CUBECL_CRATE="$CUBECL_DIR/cubecl-hip-sys"
CUBECL_STAMP="$CUBECL_DIR/.cubecl-hip-sys-$CUBECL_HIP_SYS_VERSION.done"
if [[ ! -f "$CUBECL_STAMP" || ! -d "$CUBECL_CRATE/src/bindings" ]]; then
    log "vendoring cubecl-hip-sys =$CUBECL_HIP_SYS_VERSION"
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/src"
    : >"$tmp/src/lib.rs"
    cat >"$tmp/Cargo.toml" <<TOML
[package]
name = "fetch-cubecl"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cubecl-hip-sys = { version = "=$CUBECL_HIP_SYS_VERSION", default-features = false }
[workspace]
TOML
    (cd "$tmp" && cargo vendor --quiet --versioned-dirs vendor >/dev/null)
    rm -rf "$CUBECL_CRATE"
    cp -r "$tmp/vendor/cubecl-hip-sys-$CUBECL_HIP_SYS_VERSION" "$CUBECL_CRATE"
    touch "$CUBECL_STAMP"
fi

bash "$ROOT/ci/nccl-fetch.sh"
bash "$ROOT/ci/curand-fetch.sh"
bash "$ROOT/ci/cublas-fetch.sh"
bash "$ROOT/ci/cublaslt-fetch.sh"
bash "$ROOT/ci/rocm-smi-fetch.sh"
bash "$ROOT/ci/cufft-fetch.sh"
bash "$ROOT/ci/cusparse-fetch.sh"
# nvcc 13.0 (PyPI wheels, pinned there): the fat binary tests run it (rtc/tests/fatbin_nvcc.rs,
# the nvcc-built program of tests/); the candle step uses the same prefix.
bash "$ROOT/ci/candle-fetch.sh" >/dev/null

echo "CUDA headers:    $CUDA_DIR/nvidia/cu13/include"
echo "CUDA libraries:  $CUDA_DIR/nvidia/cu13/lib"
echo "CUDA 12 runtime: $CUDA_DIR/nvidia/cuda_runtime (include, lib/libcudart.so.12)"
echo "HIP headers:     /usr/include/hip (Debian libamdhip64-dev $(dpkg-query -W -f='${Version}' libamdhip64-dev))"
echo "cubecl-hip-sys:  $CUBECL_CRATE"

# ---- the real-world kernel corpus (tests/rocm_real_corpus.rs), pinned crates via cargo -------
bash "$ROOT/ci/rocm/fetch-kernels.sh"

# ---- numba-cuda, which writes the PTX of the numba corpus (tests/ptx_corpus.rs) ---------------
echo "numba-cuda:      $(bash "$ROOT/ci/numba-fetch.sh")"
