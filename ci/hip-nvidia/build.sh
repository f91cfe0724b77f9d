#!/usr/bin/env bash
# Builds HIP's own NVIDIA platform (Debian libamdhip64-dev 5.2.3's hip/nvidia_detail headers)
# into OUT_DIR/libamdhip64.so, a real shared library exporting every hip*/hiprtc* function over
# CUDA, so anycuda's HIP backend can be run end to end on an NVIDIA GPU
# (ANYCUDA_HIP_LIBRARY=OUT_DIR/libamdhip64.so). See README.md beside this file.
#
#   bash ci/hip-nvidia/build.sh OUT_DIR [DEB_OR_DIR]
#
# DEB_OR_DIR: libamdhip64-dev_5.2.3-8_amd64.deb (from fetch-deb.sh), or a directory holding the
# headers (an include dir with hip/ inside, or an extracted package root with usr/include/hip).
# Default: the first libamdhip64-dev*.deb in <repo>/.device/, else /usr/include.
#
# Environment:
#   CUDA_HOME / CUDA_PATH  CUDA toolkit root (default /usr/local/cuda): include/, lib64/ or lib/
#   CUDA_EXTRA_INCLUDE     extra include dirs, ':'-separated (for partial CUDA installs such as
#                          PyPI wheels, which split crt/, nv/ and cuda_profiler_api.h apart)
#   HIPNV_COMPILER         nvcc | g++ (default: nvcc when found, else ${CXX:-g++})
#   HIPNV_EXPECT_GPU       1: the dlopen check must find a GPU and run a kernel; 0: it must not
#                          try; default: 1 when /dev/nvidiactl exists and libcuda was found
#
# Output in OUT_DIR: libamdhip64.so (+ the libamdhip64.so.5 name), build/ (patched headers,
# generated exports.cpp, summary.txt). Rerunning rebuilds from scratch; inputs are not modified.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

die() { printf 'hip-nvidia: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'hip-nvidia: %s\n' "$*" >&2; }
# shellcheck source=ci/hip-nvidia/common.sh
source "$HERE/common.sh"

[[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 OUT_DIR [DEB_OR_DIR]"
command -v python3 >/dev/null || die "python3 is required"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
BUILD="$OUT/build"
rm -rf "$BUILD"
mkdir -p "$BUILD"

# ---- HIP headers: from the .deb or a directory ---------------------------------------------
INPUT="${2:-}"
if [[ -z "$INPUT" ]]; then
    INPUT="$(ls "$ROOT"/.device/libamdhip64-dev_*.deb 2>/dev/null | head -n1 || true)"
    [[ -n "$INPUT" ]] || INPUT=/usr/include
fi
[[ -e "$INPUT" ]] || die "$INPUT does not exist"

if [[ -f "$INPUT" ]]; then
    log "unpacking $(basename "$INPUT")"
    hipnv_extract_deb "$(cd "$(dirname "$INPUT")" && pwd)/$(basename "$INPUT")" "$BUILD/deb"
    HIP_INCLUDE="$BUILD/deb/usr/include"
elif [[ -d "$INPUT/hip" ]]; then
    HIP_INCLUDE="$INPUT"
elif [[ -d "$INPUT/usr/include/hip" ]]; then
    HIP_INCLUDE="$INPUT/usr/include"
else
    die "$INPUT is neither a .deb nor a directory containing hip/ or usr/include/hip/"
fi
[[ -f "$HIP_INCLUDE/hip/nvidia_detail/nvidia_hip_runtime_api.h" ]] \
    || die "$HIP_INCLUDE/hip/nvidia_detail/nvidia_hip_runtime_api.h not found"
if [[ -f "$HIP_INCLUDE/hip/hip_version.h" ]]; then
    hipver="$(awk '/define HIP_VERSION_(MAJOR|MINOR|PATCH)/ {printf "%s%s", sep, $3; sep="."}' \
        "$HIP_INCLUDE/hip/hip_version.h")"
    log "HIP headers $hipver from $HIP_INCLUDE"
    [[ "$hipver" == 5.2.* ]] || log "warning: the patches were written for HIP 5.2.3, not $hipver"
fi

# ---- CUDA: headers and libraries -------------------------------------------------------------
INCLUDES=(-I"$BUILD/include")
hipnv_cuda_setup
CUDART="$(hipnv_find_lib libcudart)"
NVRTC="$(hipnv_find_lib libnvrtc)"
[[ -n "$CUDART" ]] || die "libcudart.so not found under $CUDA (lib64, lib)"
[[ -n "$NVRTC" ]] || die "libnvrtc.so not found under $CUDA (lib64, lib)"

# libcuda is the driver's: the toolkit ships a link stub, the system the real one. Without it
# (a machine with no driver, e.g. CI here) the library still links, with the cu* calls left
# undefined (they resolve lazily, so the dlopen check can still call the cudart/NVRTC parts).
hipnv_find_libcuda
log "CUDA: $CUDA; cudart $CUDART; nvrtc $NVRTC; libcuda ${LIBCUDA:-absent (cu* left undefined)}"

# ---- patch the headers and generate the exports ----------------------------------------------
python3 "$HERE/prepare.py" "$HIP_INCLUDE" "$BUILD" >"$BUILD/prepare.log" \
    || { cat "$BUILD/prepare.log" >&2; die "prepare.py failed"; }

# ---- compile and link ------------------------------------------------------------------------
LIB="$OUT/libamdhip64.so"
rm -f "$LIB" "$LIB.5"
LIBS=("$CUDART" "$NVRTC")
LDFLAGS=(-Wl,-soname,libamdhip64.so.5 -Wl,--as-needed)
# rpath: the .so finds the very cudart/NVRTC it was built against, with no LD_LIBRARY_PATH.
for f in "$CUDART" "$NVRTC"; do LDFLAGS+=(-Wl,-rpath,"$(dirname "$f")"); done
if [[ -n "$LIBCUDA" ]]; then
    LIBS+=("$LIBCUDA")
    LDFLAGS+=(-Wl,-z,defs)  # with the driver API present, every symbol must resolve now
fi
DEFS=(-D__HIP_PLATFORM_NVIDIA__ -D__HIP_DISABLE_CPP_FUNCTIONS__)
CXXFLAGS=(-std=c++17 -O2 -fPIC -fvisibility=hidden -Wall -Wno-deprecated-declarations)

hipnv_pick_compiler
hipnv_compile_shared "$LIB" "$BUILD/exports.cpp"
ln -sf libamdhip64.so "$LIB.5"  # the name anycuda's default search tries first (soname)

# ---- sanity checks ---------------------------------------------------------------------------
command -v nm >/dev/null || die "nm (binutils) is required for the export check"
nm -D --defined-only "$LIB" | awk '$2 == "T" {print $3}' | sort >"$BUILD/nm-exports.txt"
missing=()
for s in hipInit hipMalloc hipModuleLaunchKernel hipGetDeviceProperties hipRuntimeGetVersion \
         hipGetDeviceCount hiprtcCreateProgram hiprtcCompileProgram hiprtcGetCode \
         hiprtcGetCodeSize hiprtcVersion; do
    grep -qx "$s" "$BUILD/nm-exports.txt" || missing+=("$s")
done
((${#missing[@]} == 0)) || die "not exported by $LIB: ${missing[*]}"
want="$(sort "$BUILD/exports.txt")"
if [[ "$want" != "$(grep -E '^hip' "$BUILD/nm-exports.txt")" ]]; then
    diff <(echo "$want") <(grep -E '^hip' "$BUILD/nm-exports.txt") >&2 || true
    die "the exported hip* symbols differ from the generated list (above)"
fi
other="$(grep -vcE '^hip' "$BUILD/nm-exports.txt" || true)"
((other == 0)) || log "warning: $other exported symbol(s) outside hip*: $(grep -vE '^hip' "$BUILD/nm-exports.txt" | head -n5 | tr '\n' ' ')"
undefined_cu="$(nm -D --undefined-only "$LIB" | awk '{print $2}' | grep -cE '^cu[A-Z]' || true)"

CC="${CC:-cc}"
command -v "$CC" >/dev/null || CC=gcc
"$CC" -std=c99 -O1 -Wall -o "$BUILD/check" "$HERE/check.c" -ldl
expect_gpu="${HIPNV_EXPECT_GPU:-}"
if [[ -z "$expect_gpu" ]]; then
    expect_gpu=0
    [[ -e /dev/nvidiactl && -n "$LIBCUDA" ]] && expect_gpu=1
fi
mode=()
((expect_gpu)) && mode=(gpu)
log "dlopen check ($([[ $expect_gpu == 1 ]] && echo "GPU run" || echo "no GPU run"))"
# NVRTC dlopens libnvrtc-builtins by bare name (anycuda preloads it from NVRTC's folder; this
# check just puts that folder on the search path).
LD_LIBRARY_PATH="$(dirname "$NVRTC")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$BUILD/check" "$LIB" "${mode[@]}" || die "the dlopen check failed"

echo "== HIP NVIDIA platform library: $LIB"
cat "$BUILD/prepare.log"
echo "exported (nm -D --defined-only): $(wc -l <"$BUILD/nm-exports.txt") symbols"
echo "libcuda: ${LIBCUDA:-absent; $undefined_cu cu* symbols left to resolve at load time}"
echo "use: ANYCUDA_HIP_LIBRARY=$LIB"
