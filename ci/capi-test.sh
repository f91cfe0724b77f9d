#!/usr/bin/env bash
# anycuda's C ABI without a GPU (issue 18): builds the C-ABI library and the CLI (debug), runs
# the C-ABI tests (exports vs the pinned headers and NVIDIA's real libraries, cuGetProcAddress
# for every export, the re-entry guard, never loading ourselves), then builds a C program
# against NVIDIA's headers from PyPI, linked as a real application is (NVIDIA's real
# libcudart.so.13 and libnvrtc.so.13, libcuda.so.1 from anycuda's folder), and runs it with
# LD_LIBRARY_PATH="$(anycuda libdir)" on both backends: CUDA's no-device answers, NVRTC to PTX
# on cuda and to an AMD code object with hipRTC on hip (ci/capi/smoke.c says what it checks);
# then a program linked with NVIDIA's static runtime (CUDA 13 and 12.9) on the HIP backend (the
# private tables it asks for, logged), then the CUDA libraries' drop-ins from C (ci/capi/libs.c),
# against NVIDIA's and ROCm's.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CUDA_PATH="${CUDA_PATH:-$ROOT/.cache/inputs/cuda/nvidia/cu13}"
export ANYCUDA_CACHE_DISABLE=1
[[ -f "$CUDA_PATH/include/cuda.h" ]] || bash ci/fetch-inputs.sh

cargo build --locked -p anycuda-cli -p anycuda-capi -p anycuda-cudart12
cargo test --locked -p anycuda-capi

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
LIBDIR="$("$TARGET/anycuda" libdir)"
[[ "$("$TARGET/anycuda" libdir)" == "$LIBDIR" ]] # idempotent
# The folder: the C-ABI library's link, and a name library per soname (its own DT_SONAME, and
# the C-ABI library as its dependency); the development names link to them.
[[ "$(readlink -f "$LIBDIR/libanycuda_capi.so")" == "$(readlink -f "$TARGET/libanycuda_capi.so")" ]]
for n in libcuda.so.1 libcudart.so.13 libnvrtc.so.13; do
    d="$(readelf -d "$LIBDIR/$n")"
    grep -q "Library soname: \[$n\]" <<<"$d" && grep -q 'Shared library: \[libanycuda_capi.so\]' <<<"$d" || {
        echo "capi-test: $LIBDIR/$n is not a name library of the C ABI:" >&2
        printf '%s\n' "$d" >&2
        exit 1
    }
    [[ "$(readlink -f "$LIBDIR/${n%.*}")" == "$(readlink -f "$LIBDIR/$n")" ]] # libX.so -> libX.so.N
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# NVIDIA's runtime wheel lacks crt/host_defines.h (it ships with nvcc): codegen's stand-in.
# NVIDIA links programs against a stub libcuda.so (soname libcuda.so.1, every driver function
# defined, none working): PyPI has none, so the test makes one the same way, from the C ABI's
# driver exports, only to link with; at run time the program gets the folder's libcuda.so.1.
mkdir -p "$WORK/stub"
nm -D --defined-only "$LIBDIR/libanycuda_capi.so" | awk '$2 == "T" && $3 ~ /^cu[A-Z]/ { print "void " $3 "(void) {}" }' \
    >"$WORK/stub/stub.c"
cc -shared -fPIC -o "$WORK/stub/libcuda.so" -Wl,-soname,libcuda.so.1 "$WORK/stub/stub.c"
cc -Wall -Werror -O1 -I"$CUDA_PATH/include" -Icodegen/shim ci/capi/smoke.c -o "$WORK/smoke" \
    "$CUDA_PATH/lib/libcudart.so.13" "$CUDA_PATH/lib/libnvrtc.so.13" -L"$WORK/stub" -lcuda -ldl
readelf -d "$WORK/smoke" | grep -q 'Shared library: \[libcuda.so.1\]' # as NVIDIA's stub gives
# The program references NVIDIA's versioned symbols (cudaMalloc@libcudart.so.13); anycuda's
# unversioned definitions satisfy them.
nm -D "$WORK/smoke" | grep -q 'cudaMalloc@libcudart.so.13'
nm -D "$WORK/smoke" | grep -q 'nvrtcVersion@libnvrtc.so.13'

for backend in cuda hip; do
    echo "== C program, ANYCUDA_BACKEND=$backend, LD_LIBRARY_PATH=$LIBDIR"
    # The name libraries define NVIDIA's version nodes, so glibc has nothing to warn about (a
    # bare symlink to the C-ABI library made it warn, and its check_match assertion abort).
    ANYCUDA_BACKEND=$backend LD_LIBRARY_PATH="$LIBDIR" "$WORK/smoke" "$backend" "$WORK/code.$backend" \
        2>"$WORK/stderr.$backend" || { cat "$WORK/stderr.$backend" >&2; exit 1; }
    cat "$WORK/stderr.$backend" >&2
    if grep -q 'no version information\|Inconsistency detected' "$WORK/stderr.$backend"; then
        echo "capi-test: the loader complained about anycuda's libraries (above)" >&2
        exit 1
    fi
done
# ---- libcudart.so.12: a CUDA 12 program (ci/capi/smoke12.c says what it checks) ----------------
CUDA12="$ROOT/.cache/inputs/cuda/nvidia/cuda_runtime"
[[ -f "$CUDA12/include/cuda_runtime_api.h" ]] || bash ci/fetch-inputs.sh
[[ "$(readlink -f "$LIBDIR/libcudart.so.12")" == "$(readlink -f "$TARGET/libanycuda_cudart12.so")" ]]
readelf -d "$LIBDIR/libcudart.so.12" | grep -q 'Library soname: \[libcudart.so.12\]'
# NVIDIA's scheme: every export carries the version libcudart.so.12.
if nm -D --defined-only "$LIBDIR/libcudart.so.12" | awk '$3 ~ /^_*cuda/ && $3 !~ /@@libcudart\.so\.12$/' | grep -q .; then
    echo "capi-test: libcudart.so.12 exports without the version libcudart.so.12" >&2
    exit 1
fi
# Linked against NVIDIA's real libcudart.so.12, with the stub libcuda.so.1 first on the line.
cc -Wall -Werror -O1 -I"$CUDA12/include" -Icodegen/shim ci/capi/smoke12.c -o "$WORK/smoke12" \
    -L"$WORK/stub" -Wl,--no-as-needed -lcuda -Wl,--as-needed "$CUDA12/lib/libcudart.so.12" -ldl
readelf -d "$WORK/smoke12" | grep 'NEEDED' | head -n1 | grep -q 'libcuda.so.1' # libcuda first
nm -D "$WORK/smoke12" | grep -q 'cudaGetDeviceProperties_v2@libcudart.so.12'
nm -D "$WORK/smoke12" | grep -q 'cudaMalloc@libcudart.so.12'
for backend in cuda hip; do
    echo "== CUDA 12 C program, ANYCUDA_BACKEND=$backend, LD_LIBRARY_PATH=$LIBDIR"
    ANYCUDA_BACKEND=$backend LD_LIBRARY_PATH="$LIBDIR" "$WORK/smoke12" "$backend" \
        2>"$WORK/stderr12.$backend" || { cat "$WORK/stderr12.$backend" >&2; exit 1; }
    cat "$WORK/stderr12.$backend" >&2
    if grep -q 'no version information\|Inconsistency detected' "$WORK/stderr12.$backend"; then
        echo "capi-test: the loader complained about anycuda's libcudart.so.12 (above)" >&2
        exit 1
    fi
done
# ---- NVIDIA's statically linked runtime (ci/capi/static_rt.c says what it checks) -------------
# The runtime inside the program (libcudart_static.a of CUDA 13 and of 12.9) reaches anycuda
# only through libcuda.so.1: cuGetProcAddress_v2, then cuGetExportTable for its private tables
# (backends/hip/src/adapt/export_tables.rs). Without a GPU it asks for one table before cuInit
# answers "no device"; the log below is what it asked and what the HIP backend answered, and the
# program must end with the runtime's own no-device answer, not a crash.
for rt in 13 12; do
    if [[ $rt == 13 ]]; then RT="$CUDA_PATH"; else RT="$CUDA12"; fi
    cc -Wall -Werror -O1 -I"$RT/include" -Icodegen/shim ci/capi/static_rt.c -o "$WORK/static_rt$rt" \
        "$RT/lib/libcudart_static.a" -lpthread -ldl -lrt
    if readelf -d "$WORK/static_rt$rt" | grep -q 'libcudart'; then
        echo "capi-test: static_rt$rt loads a shared libcudart" >&2
        exit 1
    fi
    echo "== CUDA $rt's static runtime, ANYCUDA_BACKEND=hip, LD_LIBRARY_PATH=$LIBDIR: the tables asked"
    ANYCUDA_LOG=anycuda_hip::adapt::export_tables=debug ANYCUDA_BACKEND=hip LD_LIBRARY_PATH="$LIBDIR" \
        "$WORK/static_rt$rt" >"$WORK/static_rt$rt.out" 2>"$WORK/static_rt$rt.err" || {
        cat "$WORK/static_rt$rt.out" "$WORK/static_rt$rt.err" >&2
        exit 1
    }
    grep 'cuGetExportTable' "$WORK/static_rt$rt.err" >&2 || true
    cat "$WORK/static_rt$rt.out"
    grep -q '^NODEVICE static_rt' "$WORK/static_rt$rt.out" &&
        grep -q 'cuGetExportTable: f8cff951-2146-8b4e-b9e2-fb469e7c0dd9 .*not served' "$WORK/static_rt$rt.err" || {
        echo "capi-test: CUDA $rt's static runtime did not get the HIP backend's answers (above)" >&2
        cat "$WORK/static_rt$rt.err" >&2
        exit 1
    }
done
# `anycuda run` handles such a program like any other (its folder on the path, libcuda.so.1
# preloaded): the same answers.
ANYCUDA_BACKEND=hip "$TARGET/anycuda" run -- "$WORK/static_rt13" >"$WORK/static_rt13.run" 2>&1 || {
    cat "$WORK/static_rt13.run" >&2
    exit 1
}
grep -q '^NODEVICE static_rt' "$WORK/static_rt13.run" || {
    echo "capi-test: anycuda run did not give CUDA 13's static runtime anycuda's answers" >&2
    cat "$WORK/static_rt13.run" >&2
    exit 1
}
# ---- The CUDA libraries' drop-ins (ci/capi/libs.c says what it calls) -------------------------
# One program, linked against the folder's libcublas.so.13, libcublasLt.so.13, libcurand.so.10,
# libnccl.so.2 and libnvJitLink.so.13, so it records NVIDIA's sonames and versions. It runs on
# NVIDIA's own libraries (the wheels, no GPU), then on anycuda's CUDA backend, which must answer
# line for line the same; then on the HIP backend against Debian's real ROCm libraries: 5.7.1
# (hipBLAS 5.5.1, hipRAND, RCCL 5.4.3) and 6.4.3 (hipBLAS 6.4.4, hipBLASLt 7.1.1, hipRAND), each
# answer pinned in ci/capi/libs-hip-*.txt with why it differs from NVIDIA's.
NCCL_ROOT="$ROOT/.cache/inputs/nccl/nvidia/nccl"
RCCL_LIB="$ROOT/.cache/inputs/rccl/usr/lib/x86_64-linux-gnu"
for n in libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnccl.so.2 libnvJitLink.so.13; do
    readelf -d "$LIBDIR/$n" | grep -q "Library soname: \[$n\]"
    [[ "$(readlink -f "$LIBDIR/${n%.so.*}.so")" == "$(readlink -f "$LIBDIR/$n")" ]]
done
cc -Wall -Werror -O1 -Icodegen/shim/cublas -Icodegen/shim/curand -I"$CUDA_PATH/include" \
    -I"$NCCL_ROOT/include" -Icodegen/shim ci/capi/libs.c -o "$WORK/libs" \
    -L"$LIBDIR" -lcublas -lcublasLt -lcurand -lnccl -lnvJitLink
nm -D "$WORK/libs" >"$WORK/libs.nm"
for v in 'cublasSgemm_v2@libcublas.so.13' 'cublasLtCreate@libcublasLt.so.13' \
    'curandCreateGenerator@libcurand.so.10' '__nvJitLinkCreate_13_5@libnvJitLink.so.13' ' ncclGetVersion$'; do
    grep -q "$v" "$WORK/libs.nm" || { echo "capi-test: libs does not reference $v" >&2; exit 1; }
done
# LD_BIND_NOW: every symbol bound at load, so a vendor library that binds another's internals
# through a soname anycuda's name library holds (NVIDIA's cuBLAS needs cuBLASLt's
# `cublasLtCtxInit`) fails here, not at a GPU's first call (anycuda_api::loader::make_global).
LD_BIND_NOW=1 LD_LIBRARY_PATH="$CUDA_PATH/lib:$NCCL_ROOT/lib" "$WORK/libs" >"$WORK/libs.nvidia"
LD_BIND_NOW=1 ANYCUDA_BACKEND=cuda ANYCUDA_NCCL_LIBRARY="$NCCL_ROOT/lib/libnccl.so.2" \
    LD_LIBRARY_PATH="$LIBDIR" "$WORK/libs" >"$WORK/libs.cuda"
diff -u "$WORK/libs.nvidia" "$WORK/libs.cuda" || {
    echo "capi-test: the CUDA libraries answer differently through anycuda's CUDA backend" >&2
    exit 1
}
for v in 5.7 6.4; do
    echo "== the CUDA libraries' C program, ANYCUDA_BACKEND=hip, ROCm $v"
    (
        eval "$(bash ci/rocm.sh "$v" --print-env)"
        export ANYCUDA_BACKEND=hip
        [[ "$v" == 5.7 ]] && export ANYCUDA_RCCL_LIBRARY="$RCCL_LIB/librccl.so.1"
        "$ROCM_LOADER" --library-path "$LIBDIR:$ROCM_LIBRARY_PATH:$RCCL_LIB" "$WORK/libs"
    ) >"$WORK/libs.hip$v"
    diff -u <(grep -v '^#' "ci/capi/libs-hip-$v.txt") "$WORK/libs.hip$v" || {
        echo "capi-test: the HIP backend's answers changed (ci/capi/libs-hip-$v.txt)" >&2
        exit 1
    }
done
# ---- cuFFT's drop-in (ci/capi/fft.c says what it calls) ----------------------------------------
# Linked against the folder's libcufft.so.12 (NVIDIA's soname and version node). NVIDIA's library
# (the wheel, no GPU), anycuda's CUDA backend and the HIP backend over Debian's hipFFT (5.7.1:
# 6.1.2, 6.4.3: 6.4.3) must print the same lines.
readelf -d "$LIBDIR/libcufft.so.12" | grep -q 'Library soname: \[libcufft.so.12\]'
cc -Wall -Werror -O1 -Icodegen/shim -I"$CUDA_PATH/include" ci/capi/fft.c -o "$WORK/fft" \
    -L"$LIBDIR" -lcufft
nm -D "$WORK/fft" | grep -q 'cufftPlan1d@libcufft.so.12' ||
    { echo "capi-test: fft does not reference cufftPlan1d@libcufft.so.12" >&2; exit 1; }
LD_LIBRARY_PATH="$CUDA_PATH/lib" "$WORK/fft" >"$WORK/fft.nvidia"
ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/fft" >"$WORK/fft.cuda"
diff -u "$WORK/fft.nvidia" "$WORK/fft.cuda" || {
    echo "capi-test: cuFFT answers differently through anycuda's CUDA backend" >&2
    exit 1
}
for v in 5.7 6.4; do
    echo "== cuFFT's C program, ANYCUDA_BACKEND=hip, ROCm $v"
    (
        eval "$(bash ci/rocm.sh "$v" --print-env)"
        export ANYCUDA_BACKEND=hip
        "$ROCM_LOADER" --library-path "$LIBDIR:$ROCM_LIBRARY_PATH" "$WORK/fft"
    ) >"$WORK/fft.hip$v"
    diff -u "$WORK/fft.nvidia" "$WORK/fft.hip$v" || {
        echo "capi-test: cuFFT answers differently through the HIP backend on ROCm $v" >&2
        exit 1
    }
done
echo "capi-test: ok"
