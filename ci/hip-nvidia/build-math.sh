#!/usr/bin/env bash
# Builds HIP's math libraries on NVIDIA: OUT_DIR/libhipblas.so (hipBLAS 5.5.1's own NVIDIA backend,
# over cuBLAS) and OUT_DIR/libhiprand.so (hipRAND 5.3.3's API over cuRAND), so anycuda's HIP
# backend can run its cuBLAS/cuRAND layers end to end on an NVIDIA GPU
# (ANYCUDA_HIPBLAS_LIBRARY=OUT_DIR/libhipblas.so, ANYCUDA_HIPRAND_LIBRARY=OUT_DIR/libhiprand.so).
# See README.md beside this file, "Math libraries".
#
#   bash ci/hip-nvidia/build-math.sh OUT_DIR [SRC]
#
# SRC: the folder fetch-math.sh filled (default: .cache/hip-nvidia-math when it has src/, else
# .device/math, the GPU bundle's copy): src/hipblas_5.5.1.orig.tar.gz and
# src/libhiprand-dev_5.3.3-4_amd64.deb (or those two files directly in SRC). HIP's own headers
# (both libraries include hip/hip_runtime.h) come from libamdhip64-dev 5.2.3: HIPNV_HIP_DEB, else
# the first libamdhip64-dev_*.deb in SRC, SRC/src or .device/; they are patched for CUDA 13 by
# prepare.py, exactly as for build.sh.
#
# Environment (as build.sh): CUDA_HOME / CUDA_PATH (toolkit root: the CUDA runtime headers),
# CUDA_EXTRA_INCLUDE, HIPNV_COMPILER (nvcc | g++), HIPNV_EXPECT_GPU (1: the check must run the
# GPU part; 0: it must find no GPU; default: 1 when /dev/nvidiactl exists). And:
#   HIPNV_CUBLAS_DIR, HIPNV_CURAND_DIR   a root with include/ and lib/ (or lib64/) holding
#                       cublas_v2.h + libcublas.so.13, curand.h + libcurand.so.10. Default: the
#                       first of the CUDA toolkit, the Python environment's nvidia-cublas /
#                       nvidia-curand wheels (python3 -c 'import nvidia', then cu13/, cublas/ or
#                       curand/), the pinned wheels fetch-math.sh unpacked (SRC/cuda/nvidia/cu13).
#                       A library found without its header (a runtime-only install) is paired with
#                       the pinned headers when SRC/cuda/nvidia/cu13/include has them (the GPU
#                       bundle carries those headers, not the 480 MB of libraries).
#   HIPNV_PYTHON        the Python whose environment is searched (default python3)
#
# Output in OUT_DIR: libhipblas.so (+ libhipblas.so.0, Debian libhipblas0's soname),
# libhiprand.so (+ libhiprand.so.1, Debian libhiprand1's), build-math/ (prepared sources,
# summary.txt). Each library is linked with -z defs and an rpath to the cuBLAS/cuRAND it was built
# against. AMD's files are never committed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

die() { printf 'hip-nvidia-math: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'hip-nvidia-math: %s\n' "$*" >&2; }
# shellcheck source=ci/hip-nvidia/common.sh
source "$HERE/common.sh"

[[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 OUT_DIR [SRC]"
command -v python3 >/dev/null || die "python3 is required"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
BUILD="$OUT/build-math"
rm -rf "$BUILD"
mkdir -p "$BUILD"

# ---- AMD's inputs -----------------------------------------------------------------------------
SRC="${2:-}"
if [[ -z "$SRC" ]]; then
    SRC="$ROOT/.cache/hip-nvidia-math"
    [[ -d "$SRC/src" ]] || SRC="$ROOT/.device/math"
fi
[[ -d "$SRC" ]] || die "$SRC does not exist: run bash ci/hip-nvidia/fetch-math.sh first"
SRC="$(cd "$SRC" && pwd)"
pick() { # <glob>: the first match in SRC/src, SRC, then the extra folders given
    local pattern="$1" d f
    shift
    for d in "$SRC/src" "$SRC" "$@"; do
        f="$(ls "$d"/$pattern 2>/dev/null | head -n1 || true)"
        [[ -n "$f" ]] && { echo "$f"; return; }
    done
    return 0
}
ORIG="$(pick 'hipblas_5.5.1.orig.tar.gz')"
RAND_DEB="$(pick 'libhiprand-dev_5.3.3-*_amd64.deb')"
HIP_DEB="${HIPNV_HIP_DEB:-$(pick 'libamdhip64-dev_*.deb' "$ROOT/.device")}"
[[ -n "$ORIG" ]] || die "hipblas_5.5.1.orig.tar.gz not found in $SRC/src or $SRC (fetch-math.sh)"
[[ -n "$RAND_DEB" ]] || die "libhiprand-dev_5.3.3-*_amd64.deb not found in $SRC/src or $SRC (fetch-math.sh)"
[[ -n "$HIP_DEB" && -f "$HIP_DEB" ]] || die "libamdhip64-dev_*.deb not found (fetch-deb.sh; or set HIPNV_HIP_DEB)"
log "inputs: $(basename "$ORIG"), $(basename "$RAND_DEB"), $(basename "$HIP_DEB")"

tar -xzf "$ORIG" -C "$BUILD" || die "cannot unpack $ORIG"
HIPBLAS_SRC="$(ls -d "$BUILD"/hipBLAS-* 2>/dev/null | head -n1)"
[[ -n "$HIPBLAS_SRC" ]] || die "$ORIG holds no hipBLAS-* folder"
hipnv_extract_deb "$RAND_DEB" "$BUILD/hiprand-deb"
hipnv_extract_deb "$HIP_DEB" "$BUILD/hip-deb"
# HIP's NVIDIA headers, patched for CUDA 13 by prepare.py (its exports.cpp is not used here).
python3 "$HERE/prepare.py" "$BUILD/hip-deb/usr/include" "$BUILD/hip" >"$BUILD/hip-prepare.log" \
    || { cat "$BUILD/hip-prepare.log" >&2; die "prepare.py failed on the HIP headers"; }

# ---- CUDA: runtime headers, cuBLAS, cuRAND ----------------------------------------------------
INCLUDES=()
hipnv_cuda_setup
CUDART="$(hipnv_find_lib libcudart)"

# python_roots: the folders of the Python environment's `nvidia` namespace package (the
# nvidia-cublas / nvidia-curand wheels install under it).
python_roots() {
    "${HIPNV_PYTHON:-python3}" - <<'EOF' 2>/dev/null || true
try:
    import nvidia
    for p in nvidia.__path__:
        print(p)
except Exception:
    pass
EOF
}
# find_math <what> <header> <soname> <explicit dir> <wheel subdir>: prints "INCLUDE_DIR LIBRARY",
# both from the first candidate root that has both; failing that, the library from the first
# root that has it with the headers fetch-math.sh bundled (SRC/cuda/nvidia/cu13/include).
find_math() {
    local what="$1" header="$2" soname="$3" explicit="$4" sub="$5" root cands=() libs=() d
    if [[ -n "$explicit" ]]; then
        cands=("$explicit")
    else
        cands=("$CUDA")
        while read -r root; do
            [[ -n "$root" ]] && cands+=("$root/cu13" "$root/$sub")
        done < <(python_roots)
        cands+=("$SRC/cuda/nvidia/cu13")
    fi
    for root in "${cands[@]}"; do
        for d in "$root/lib64" "$root/lib" "$root/targets/x86_64-linux/lib"; do
            [[ -e "$d/$soname" ]] || continue
            if [[ -f "$root/include/$header" ]]; then
                echo "$root/include $(cd "$d" && pwd -P)/$soname"
                return
            fi
            libs+=("$(cd "$d" && pwd -P)/$soname")
        done
    done
    if ((${#libs[@]})) && [[ -z "$explicit" && -f "$SRC/cuda/nvidia/cu13/include/$header" ]]; then
        log "$what: ${libs[0]} has no $header beside it: using the bundled pinned headers"
        echo "$SRC/cuda/nvidia/cu13/include ${libs[0]}"
        return
    fi
    die "$what: no $soname with include/$header among: ${cands[*]} (set HIPNV_${what^^}_DIR to a root with include/ and lib/, or run fetch-math.sh)"
}
read -r CUBLAS_INC CUBLAS_LIB < <(find_math cuBLAS cublas_v2.h libcublas.so.13 "${HIPNV_CUBLAS_DIR:-}" cublas)
read -r CURAND_INC CURAND_LIB < <(find_math cuRAND curand.h libcurand.so.10 "${HIPNV_CURAND_DIR:-}" curand)
[[ -n "$CUBLAS_LIB" && -n "$CURAND_LIB" ]] || die "cuBLAS or cuRAND not found (above)"
log "CUDA: $CUDA; cuBLAS $CUBLAS_LIB; cuRAND $CURAND_LIB"

hipnv_pick_compiler
CXXFLAGS=(-std=c++17 -O2 -fPIC -fvisibility=hidden -Wall -Wno-deprecated-declarations)
expect_gpu="${HIPNV_EXPECT_GPU:-}"
[[ -n "$expect_gpu" ]] || { expect_gpu=0; [[ -e /dev/nvidiactl ]] && expect_gpu=1; }

check_exports() { # <lib> <exports.txt> <prefix>: nm -D's defined <prefix>* functions equal the list
    local lib="$1" want="$2" prefix="$3" got other
    got="$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)"
    if [[ "$(sort "$want")" != "$(grep "^$prefix" <<<"$got")" ]]; then
        diff <(sort "$want") <(grep "^$prefix" <<<"$got") >&2 || true
        die "$(basename "$lib"): exported $prefix* functions (nm -D, >) differ from the header's (<)"
    fi
    other="$(grep -v "^$prefix" <<<"$got" || true)"
    [[ -z "$other" ]] || log "warning: $(basename "$lib") also exports $(wc -l <<<"$other") other function(s): $(head -n5 <<<"$other" | tr '\n' ' ')"
    grep -c "^$prefix" <<<"$got"
}
command -v nm >/dev/null || die "nm (binutils) is required for the export check"

# ---- hipBLAS: its own NVIDIA backend ----------------------------------------------------------
python3 "$HERE/prepare-math.py" hipblas "$HIPBLAS_SRC" "$BUILD/hipblas" >"$BUILD/hipblas-prepare.log" \
    || { cat "$BUILD/hipblas-prepare.log" >&2; die "prepare-math.py hipblas failed"; }
LIB="$OUT/libhipblas.so"
rm -f "$LIB" "$LIB".*
# __HIP_PLATFORM_NVCC__ and __HIP_PLATFORM_SOLVER__: what hipBLAS's CMake defines for USE_CUDA
# and its default BUILD_WITH_SOLVER=ON (the getrf/getrs/geqrf/gels entry points exist, and answer
# HIPBLAS_STATUS_NOT_SUPPORTED on NVIDIA, as Debian's AMD build answers with rocSOLVER).
DEFS=(-D__HIP_PLATFORM_NVIDIA__ -D__HIP_PLATFORM_NVCC__ -D__HIP_DISABLE_CPP_FUNCTIONS__
      -D__HIP_PLATFORM_SOLVER__)
INCLUDES_BASE=("${INCLUDES[@]}")
INCLUDES=(-I"$BUILD/hipblas/include" -I"$HIPBLAS_SRC/library/include"
          -I"$HIPBLAS_SRC/library/src/include" -I"$BUILD/hip/include" -I"$CUBLAS_INC"
          "${INCLUDES_BASE[@]}")
LIBS=("$CUBLAS_LIB")
# --exclude-libs: a toolchain that links libstdc++ statically (the GPU machine's g++ does) must
# not re-export it; hipBLAS's C++ exceptions stay inside.
LDFLAGS=(-Wl,-soname,libhipblas.so.0 -Wl,-rpath,"$(dirname "$CUBLAS_LIB")" -Wl,-z,defs
         -Wl,--exclude-libs,ALL)
hipnv_compile_shared "$LIB" "$BUILD/hipblas/hipblas.cpp" "$BUILD/hipblas/hipblas_auxiliary.cpp"
ln -sf libhipblas.so "$LIB.0"
blas_n="$(check_exports "$LIB" "$BUILD/hipblas/exports.txt" hipblas)"

# ---- hipRAND: generated from hiprand.h over cuRAND --------------------------------------------
RAND_INCLUDE="$BUILD/hiprand-deb/usr/include"
python3 "$HERE/prepare-math.py" hiprand "$RAND_INCLUDE" "$CURAND_INC" "$BUILD/hiprand" \
    >"$BUILD/hiprand-prepare.log" \
    || { cat "$BUILD/hiprand-prepare.log" >&2; die "prepare-math.py hiprand failed"; }
LIB="$OUT/libhiprand.so"
rm -f "$LIB" "$LIB".*
DEFS=(-D__HIP_PLATFORM_NVIDIA__ -D__HIP_PLATFORM_NVCC__ -D__HIP_DISABLE_CPP_FUNCTIONS__)
INCLUDES=(-I"$RAND_INCLUDE" -I"$BUILD/hip/include" -I"$CURAND_INC" "${INCLUDES_BASE[@]}")
LIBS=("$CURAND_LIB")
LDFLAGS=(-Wl,-soname,libhiprand.so.1 -Wl,-rpath,"$(dirname "$CURAND_LIB")" -Wl,-z,defs
         -Wl,--exclude-libs,ALL)
hipnv_compile_shared "$LIB" "$BUILD/hiprand/hiprand_nvidia.cpp"
ln -sf libhiprand.so "$LIB.1"
rand_n="$(check_exports "$LIB" "$BUILD/hiprand/exports.txt" hiprand)"

# ---- the dlopen check -------------------------------------------------------------------------
CC="${CC:-cc}"
command -v "$CC" >/dev/null || CC=gcc
"$CC" -std=c99 -O1 -Wall -o "$BUILD/check-math" "$HERE/check-math.c" -ldl -lm \
    || die "check-math.c did not compile"
mode=()
((expect_gpu)) && mode=(gpu)
[[ -n "$CUDART" || $expect_gpu == 0 ]] || die "libcudart not found under $CUDA: the GPU check needs it"
log "dlopen check ($([[ $expect_gpu == 1 ]] && echo "GPU run" || echo "no GPU run"))"
"$BUILD/check-math" "$OUT/libhipblas.so" "$OUT/libhiprand.so" "${CUDART:-none}" "${mode[@]}" \
    | tee "$BUILD/check-math.log" || die "the dlopen check failed"

{
    echo "cuBLAS: $CUBLAS_LIB (headers $CUBLAS_INC)"
    echo "cuRAND: $CURAND_LIB (headers $CURAND_INC)"
    cat "$BUILD/hipblas/summary.txt"
    echo "libhipblas.so exports (nm -D): $blas_n functions, = hipblas.h's HIPBLAS_EXPORT list"
    cat "$BUILD/hiprand/summary.txt"
    echo "libhiprand.so exports (nm -D): $rand_n functions, = hiprand.h's HIPRANDAPI list"
} >"$BUILD/summary.txt"
echo "== HIP math libraries on NVIDIA"
cat "$BUILD/summary.txt"
echo "use: ANYCUDA_HIPBLAS_LIBRARY=$OUT/libhipblas.so ANYCUDA_HIPRAND_LIBRARY=$OUT/libhiprand.so"
