#!/usr/bin/env bash
# ON the GPU machine (ci/gpu-all.sh capi): anycuda's C ABI under unchanged programs, on the CUDA
# backend and on the HIP backend through HIP's NVIDIA platform. The programs (ci/capi-gpu/) are
# built here with nvcc against NVIDIA's headers and libraries, as their users build them, then run
# with LD_LIBRARY_PATH="$(anycuda libdir)":
#   saxpy_driver    cuda-python's SAXPY walk-through in C (Driver API + NVRTC)
#   runtime_demo    Runtime API: memory, streams, events, an NVRTC kernel through cudaLibrary*
#   runtime_demo12  the same program built against CUDA 12's runtime headers and NVIDIA's real
#                   libcudart.so.12 (PyPI nvidia-cuda-runtime-cu12, bundled in .device/cuda12),
#                   run on anycuda's libcudart.so.12 (baseline: NVIDIA's libcudart.so.12)
#   launch          nvcc's <<<>>> with the shared runtime (nvcc's default arch: a compute_75 PTX
#                   in the fat binary): runs on CUDA, and on HIP from that PTX, translated
#   launch_sass     the same built for machine code only (-gencode arch=compute_90,code=sm_90):
#                   on HIP no PTX to translate, so cudaErrorNoKernelImageForDevice is the answer
#   libs_gpu        the CUDA libraries from C++ (cuBLAS, cuBLASLt, cuRAND, NCCL; ci/capi-gpu/libs_gpu.cu
#                   says what it checks): the anycuda columns must print NVIDIA's lines
#   nccl_mp         NCCL across processes from C (ci/capi-gpu/nccl_mp.c): one process per GPU (2 to
#                   4), the socket transport forced, the unique id passed by fork + pipe; an exact
#                   all-reduce of several sizes, then non-blocking communicators whose last rank is
#                   SIGKILLed in an all-reduce: every survivor must see ncclCommGetAsyncError answer
#                   an error within 60 s, abort and exit. Every column must pass both phases; with
#                   one GPU the row is not run (exit 77)
#   sparse_gpu      cuSPARSE's generic API from C++ (ci/capi-gpu/sparse_gpu.cu: CSR SpMV, its
#                   transpose, SpMM in both orders, each against the host; bad input): the CUDA
#                   column must print NVIDIA's lines; HIP's NVIDIA platform has no hipSPARSE build
#                   (ci/hip-nvidia/build-math.sh builds hipBLAS and hipRAND only), so there
#                   cusparseCreate must answer CUSPARSE_STATUS_NOT_SUPPORTED (exit 3)
#   saxpy_bindings  the same walk-through on NVIDIA's cuda.bindings, as installed here
#   core_examples   cuda.core: device, stream, memory, program, launch, graph
#   bundled_ptx     PTX written by `anycuda nvcc --ptx` over the real nvcc (the kernel's source
#                   bundle appended), loaded with cuModuleLoadData and run; on HIP with
#                   ANYCUDA_HIP_BUNDLES=always the bundle is compiled by hipRTC and that code
#                   loaded (the AMD route on an NVIDIA GPU): the row passes only if the log says so
#   fft_gpu         cuFFT from C++ (C2C 1D forward and inverse, R2C 2D, each against a host DFT;
#                   ci/capi-gpu/fft_gpu.cu): the CUDA column must print NVIDIA's lines; HIP's
#                   NVIDIA platform has no hipFFT, so the HIP column must print `cufft unsupported`
#   nvml_query      NVML as a scheduler asks it (count, names, UUIDs, bus ids, memory, compute
#                   capability, bad input), built against NVIDIA's nvml.h with -lnvidia-ml: the CUDA
#                   column's output must equal the baseline's; on HIP rocm-smi finds no AMD GPU, so
#                   nvmlInit_v2 must answer NVML_ERROR_DRIVER_NOT_LOADED (9; 12, LIBRARY_NOT_FOUND,
#                   where rocm-smi is not bundled)
# Every program also runs without anycuda first (the baseline column), so a failure that is the
# program's own shows as such. Writes $OUT/capi-gpu.md (the table) and logs; exits 1 on a failure
# in an anycuda column that the baseline does not share.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
OUT="${OUT:-$ROOT/gpu-results}/capi"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/capi-gpu.XXXXXX)"
say() { printf 'capi-gpu: %s\n' "$*" >&2; }

export ANYCUDA_CAPI_LIBRARY="$DEV/lib/libanycuda_capi.so" # where ci/bundle-for-gpu.sh puts it
LIBDIR="$("$DEV/bin/anycuda" libdir 2>"$OUT/libdir.err")" || {
    say "anycuda libdir failed: $(cat "$OUT/libdir.err")"
    exit 1
}
say "libdir: $LIBDIR -> $(readlink -f "$LIBDIR/libcuda.so.1")"

# HIP's NVIDIA platform, once per GPU run (reused when present).
hip_shim "$OUT/hip-shim-build.log" >&2

CUDA_INC="$(dirname "$(dirname "$(command -v nvcc)")")/include"
build() { # NAME CMD...
    local name="$1"
    shift
    if "$@" >"$OUT/build-$name.log" 2>&1; then return 0; fi
    say "build of $name failed:"
    tail -n 20 "$OUT/build-$name.log" >&2
    return 1
}
build saxpy_driver nvcc -O2 -o "$WORK/saxpy_driver" ci/capi-gpu/saxpy_driver.c -lcuda -lnvrtc
build runtime_demo nvcc -O2 -cudart shared -o "$WORK/runtime_demo" ci/capi-gpu/runtime_demo.cpp -lnvrtc
build launch nvcc -O2 -cudart shared -o "$WORK/launch" ci/capi-gpu/launch.cu
build launch_sass nvcc -O2 -cudart shared -gencode arch=compute_90,code=sm_90 -o "$WORK/launch_sass" ci/capi-gpu/launch.cu
# CUDA 12: a host compiler (the nvcc here is CUDA 13's) over CUDA 12's runtime headers (codegen's
# crt/host_defines.h stand-in, as in CI), linked against NVIDIA's real libcudart.so.12.
CUDA12="$DEV/cuda12"
CUDA_LIB="$(dirname "$CUDA_INC")/lib64"
build runtime_demo12 c++ -O2 -DANYCUDA_CUDA12 -I"$CUDA12/include" -Icodegen/shim -I"$CUDA_INC" \
    -o "$WORK/runtime_demo12" ci/capi-gpu/runtime_demo.cpp "$CUDA12/lib/libcudart.so.12" \
    -L"$CUDA_LIB" -Wl,-rpath,"$CUDA_LIB" -lnvrtc
build bundled_ptx nvcc -O2 -o "$WORK/bundled_ptx" ci/capi-gpu/bundled_ptx.c -lcuda
# The CUDA libraries: cuBLAS and cuRAND from the toolkit, NCCL from the Python environment's
# wheel (its folder also the NVIDIA column's library path).
NCCL_DIR="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)"
[[ -f "$NCCL_DIR/include/nccl.h" ]] || say "no NCCL wheel in python3's environment: libs_gpu not built"
[[ -f "$NCCL_DIR/include/nccl.h" ]] && build libs_gpu nvcc -O2 -cudart shared -I"$NCCL_DIR/include" \
    -o "$WORK/libs_gpu" ci/capi-gpu/libs_gpu.cu -lcublas -lcublasLt -lcurand -L"$NCCL_DIR/lib" -l:libnccl.so.2
[[ -f "$NCCL_DIR/include/nccl.h" ]] && build nccl_mp nvcc -O2 -cudart shared -I"$NCCL_DIR/include" \
    -o "$WORK/nccl_mp" ci/capi-gpu/nccl_mp.c -L"$NCCL_DIR/lib" -l:libnccl.so.2
build fft_gpu nvcc -O2 -cudart shared -o "$WORK/fft_gpu" ci/capi-gpu/fft_gpu.cu -lcufft
build sparse_gpu nvcc -O2 -cudart shared -o "$WORK/sparse_gpu" ci/capi-gpu/sparse_gpu.cu -lcusparse
# Linked against the folder's libnvidia-ml.so.1 (no symbol versions, as NVIDIA's): the binary
# needs only the soname, so the baseline runs it on NVIDIA's library.
build nvml_query cc -O2 -Wall -I"$CUDA_INC" -o "$WORK/nvml_query" ci/capi-gpu/nvml_query.c \
    -L"$LIBDIR" -lnvidia-ml
# The front end runs the real nvcc found on PATH (not itself) and appends the source bundle.
build bundled_ptx_ptx "$DEV/bin/anycuda" nvcc --ptx -arch=sm_90 -o "$WORK/scale.ptx" \
    ci/capi-gpu/bundled/scale.cu
grep -q '^// anycuda' "$WORK/scale.ptx" 2>/dev/null || say "scale.ptx carries no source bundle"
for b in saxpy_driver runtime_demo runtime_demo12 launch; do
    [[ -x "$WORK/$b" ]] && ldd "$WORK/$b" | grep -E 'libcuda|libcudart|libnvrtc' | sed "s/^/  $b: /" >&2
done

declare -A RES
run() { # COLUMN PROGRAM CMD...
    local col="$1" prog="$2" rc
    shift 2
    timeout --kill-after=10 120 "$@" >"$OUT/$prog.$col.log" 2>&1
    rc=$?
    local line
    line="$(grep -E 'PASS|FAIL' "$OUT/$prog.$col.log" | tail -n 1)"
    if ((rc == 0)); then RES[$prog,$col]="PASS"; else RES[$prog,$col]="FAIL (exit $rc)"; fi
    say "$prog [$col]: ${RES[$prog,$col]} ${line:+- $line}"
    ((rc == 0)) || tail -n 12 "$OUT/$prog.$col.log" >&2
    ((rc != 0)) || rm -f "$OUT/$prog.$col.log" # passing runs' logs add nothing to the line above
}
HIPENV=(ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so")
for prog in saxpy_driver runtime_demo launch launch_sass; do
    [[ -x "$WORK/$prog" ]] || { RES[$prog,nvidia]="not built"; continue; }
    run nvidia "$prog" "$WORK/$prog"
    run cuda "$prog" env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/$prog"
    arg=()
    [[ "$prog" == launch_sass ]] && arg=(expect-no-image)
    run hip "$prog" env "${HIPENV[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/$prog" "${arg[@]}"
done
# The CUDA libraries: NVIDIA's column on the toolkit's cuBLAS/cuRAND and the wheel's NCCL; the
# anycuda columns through the folder's libcublas.so.13 ... libnccl.so.2 (anycuda loads the same
# NCCL: ANYCUDA_NCCL_LIBRARY). Each anycuda column must print NVIDIA's lines (the cuRAND hashes
# are the values); HIP's NVIDIA platform has no hipBLASLt, so there `cublasLt unsupported`
# stands for the cuBLASLt line.
if [[ -x "$WORK/libs_gpu" ]]; then
    export ANYCUDA_NCCL_LIBRARY="$NCCL_DIR/lib/libnccl.so.2"
    run nvidia libs_gpu env LD_LIBRARY_PATH="$NCCL_DIR/lib" "$WORK/libs_gpu"
    LIBS_NV="$(env LD_LIBRARY_PATH="$NCCL_DIR/lib" "$WORK/libs_gpu" 2>/dev/null)"
    for col in cuda hip; do
        if [[ $col == cuda ]]; then envs=(ANYCUDA_BACKEND=cuda); else envs=("${HIPENV[@]}"); fi
        run "$col" libs_gpu env "${envs[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/libs_gpu"
        got="$(env "${envs[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/libs_gpu" 2>/dev/null)"
        want="$LIBS_NV"
        [[ $col == hip ]] && want="$(sed 's/^PASS cublasLtMatmul: .*/cublasLt unsupported/' <<<"$want")"
        if [[ "${RES[libs_gpu,$col]}" == PASS && "$got" != "$want" ]]; then
            RES[libs_gpu,$col]="FAIL (lines differ from NVIDIA's)"
            diff <(echo "$want") <(echo "$got") | head -n 20 >&2
        elif [[ "${RES[libs_gpu,$col]}" == PASS ]]; then
            RES[libs_gpu,$col]="PASS (NVIDIA's lines, cuRAND's values)"
        fi
        printf '%s\n' "$got" >"$OUT/libs_gpu.$col.txt"
    done
    printf '%s\n' "$LIBS_NV" >"$OUT/libs_gpu.nvidia.txt"
else
    RES[libs_gpu,nvidia]="not built"
fi
# NCCL across processes: NVIDIA's column on the wheel's NCCL, the anycuda columns through the
# folder's libnccl.so.2 (the same NCCL underneath on CUDA). Its own time limit: each phase waits
# up to 60 s for what it checks (the program enforces it and kills what hangs).
if [[ -x "$WORK/nccl_mp" ]]; then
    export ANYCUDA_NCCL_LIBRARY="$NCCL_DIR/lib/libnccl.so.2"
    for col in nvidia cuda hip; do
        case $col in
            nvidia) envs=(LD_LIBRARY_PATH="$NCCL_DIR/lib") ;;
            cuda) envs=(ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR") ;;
            hip) envs=("${HIPENV[@]}" LD_LIBRARY_PATH="$LIBDIR") ;;
        esac
        timeout --kill-after=10 300 env "${envs[@]}" "$WORK/nccl_mp" >"$OUT/nccl_mp.$col.log" 2>&1
        rc=$?
        npass="$(grep -c '^PASS nccl_mp' "$OUT/nccl_mp.$col.log")"
        if ((rc == 77)); then
            RES[nccl_mp,$col]="not run ($(grep -m1 '^SKIP' "$OUT/nccl_mp.$col.log" | cut -c1-120))"
        elif ((rc == 0 && npass == 2)); then
            RES[nccl_mp,$col]="PASS (exact all-reduce; a SIGKILLed peer seen by every survivor)"
        else
            RES[nccl_mp,$col]="FAIL (exit $rc; $npass of 2 phases passed)"
            tail -n 12 "$OUT/nccl_mp.$col.log" >&2
        fi
        say "nccl_mp [$col]: ${RES[nccl_mp,$col]}"
        grep -E '^(PASS|FAIL) nccl_mp' "$OUT/nccl_mp.$col.log" | sed 's/^/  /' >&2
    done
else
    RES[nccl_mp,nvidia]="not built"
fi
# cuFFT: NVIDIA's column on the toolkit's libcufft.so.12, the anycuda columns through the folder's.
# The CUDA column must print NVIDIA's lines; HIP's NVIDIA platform has no hipFFT (not available
# on HIP's NVIDIA platform: hipFFT's NVIDIA build is not built), so there the one line is
# `cufft unsupported`.
if [[ -x "$WORK/fft_gpu" ]]; then
    run nvidia fft_gpu "$WORK/fft_gpu"
    FFT_NV="$("$WORK/fft_gpu" 2>/dev/null)"
    for col in cuda hip; do
        if [[ $col == cuda ]]; then envs=(ANYCUDA_BACKEND=cuda); else envs=("${HIPENV[@]}"); fi
        run "$col" fft_gpu env "${envs[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/fft_gpu"
        got="$(env "${envs[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/fft_gpu" 2>/dev/null)"
        want="$FFT_NV"
        [[ $col == hip ]] && want="cufft unsupported"
        if [[ "${RES[fft_gpu,$col]}" == PASS && "$got" != "$want" ]]; then
            RES[fft_gpu,$col]="FAIL (lines differ from the expected)"
            diff <(echo "$want") <(echo "$got") | head -n 20 >&2
        elif [[ "${RES[fft_gpu,$col]}" == PASS && $col == hip ]]; then
            RES[fft_gpu,$col]="PASS (not available on HIP's NVIDIA platform: cufft unsupported)"
        elif [[ "${RES[fft_gpu,$col]}" == PASS ]]; then
            RES[fft_gpu,$col]="PASS (NVIDIA's lines)"
        fi
        printf '%s\n' "$got" >"$OUT/fft_gpu.$col.txt"
    done
    printf '%s\n' "$FFT_NV" >"$OUT/fft_gpu.nvidia.txt"
else
    RES[fft_gpu,nvidia]="not built"
fi
# cuSPARSE: NVIDIA's column on the toolkit's libcusparse.so.12, the CUDA column through the
# folder's libcusparse.so.12, which must print NVIDIA's lines. The HIP column has no hipSPARSE on
# HIP's NVIDIA platform: cusparseCreate must answer CUSPARSE_STATUS_NOT_SUPPORTED (exit 3).
if [[ -x "$WORK/sparse_gpu" ]]; then
    run nvidia sparse_gpu "$WORK/sparse_gpu"
    SPARSE_NV="$("$WORK/sparse_gpu" 2>/dev/null)"
    run cuda sparse_gpu env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/sparse_gpu"
    got="$(env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/sparse_gpu" 2>/dev/null)"
    printf '%s\n' "$SPARSE_NV" >"$OUT/sparse_gpu.nvidia.txt"
    printf '%s\n' "$got" >"$OUT/sparse_gpu.cuda.txt"
    if [[ "${RES[sparse_gpu,cuda]}" == PASS && "$got" != "$SPARSE_NV" ]]; then
        RES[sparse_gpu,cuda]="FAIL (lines differ from NVIDIA's)"
        diff <(echo "$SPARSE_NV") <(echo "$got") | head -n 20 >&2
    elif [[ "${RES[sparse_gpu,cuda]}" == PASS ]]; then
        RES[sparse_gpu,cuda]="PASS (NVIDIA's lines)"
    fi
    env "${HIPENV[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/sparse_gpu" >"$OUT/sparse_gpu.hip.txt" 2>&1
    rc=$?
    if ((rc == 3)) && grep -q '^cusparseCreate: not supported' "$OUT/sparse_gpu.hip.txt"; then
        RES[sparse_gpu,hip]="PASS (not available on HIP's NVIDIA platform: no hipSPARSE build; cusparseCreate answers NOT_SUPPORTED)"
    else
        RES[sparse_gpu,hip]="FAIL (exit $rc)"
        tail -n 5 "$OUT/sparse_gpu.hip.txt" >&2
    fi
    say "sparse_gpu: ${RES[sparse_gpu,nvidia]} / ${RES[sparse_gpu,cuda]} / ${RES[sparse_gpu,hip]}"
else
    RES[sparse_gpu,nvidia]="not built"
fi
# The CUDA 12 program: NVIDIA's libcudart.so.12 for the baseline, anycuda's (LIBDIR's
# libcudart.so.12, CUDA 12's ABI on anycuda) on both backends.
if [[ -x "$WORK/runtime_demo12" ]]; then
    run nvidia runtime_demo12 env LD_LIBRARY_PATH="$CUDA12/lib" "$WORK/runtime_demo12"
    run cuda runtime_demo12 env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/runtime_demo12"
    run hip runtime_demo12 env "${HIPENV[@]}" LD_LIBRARY_PATH="$LIBDIR" "$WORK/runtime_demo12"
else
    RES[runtime_demo12,nvidia]="not built"
fi
if [[ -x "$WORK/bundled_ptx" && -f "$WORK/scale.ptx" ]]; then
    run nvidia bundled_ptx "$WORK/bundled_ptx" "$WORK/scale.ptx"
    run cuda bundled_ptx env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/bundled_ptx" "$WORK/scale.ptx"
    # The AMD route: the log must show the bundle compiled by hipRTC, not the PTX loaded as PTX.
    timeout --kill-after=10 180 env "${HIPENV[@]}" ANYCUDA_HIP_BUNDLES=always ANYCUDA_LOG=info \
        ANYCUDA_CACHE_DISABLE=1 LD_LIBRARY_PATH="$LIBDIR" "$WORK/bundled_ptx" "$WORK/scale.ptx" \
        >"$OUT/bundled_ptx.hip.log" 2>&1
    rc=$?
    if ((rc == 0)) && grep -q 'source bundle of scale.cu.*compiled with hipRTC' "$OUT/bundled_ptx.hip.log"; then
        RES[bundled_ptx,hip]="PASS (bundle compiled by hipRTC)"
    else
        RES[bundled_ptx,hip]="FAIL (exit $rc)"
        tail -n 12 "$OUT/bundled_ptx.hip.log" >&2
    fi
    say "bundled_ptx [hip]: ${RES[bundled_ptx,hip]}"
else
    RES[bundled_ptx,nvidia]="not built"
fi
if [[ -x "$WORK/nvml_query" ]]; then
    # Outputs kept and compared: the CUDA column must print exactly what NVIDIA's NVML prints.
    "$WORK/nvml_query" >"$OUT/nvml_query.nvidia.txt" 2>&1
    rc=$?
    if ((rc == 0)); then RES[nvml_query,nvidia]="PASS"; else RES[nvml_query,nvidia]="FAIL (exit $rc)"; fi
    env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" "$WORK/nvml_query" >"$OUT/nvml_query.cuda.txt" 2>&1
    rc=$?
    if ((rc == 0)) && diff -u "$OUT/nvml_query.nvidia.txt" "$OUT/nvml_query.cuda.txt" >"$OUT/nvml_query.diff"; then
        RES[nvml_query,cuda]="PASS (output identical)"
    else
        RES[nvml_query,cuda]="FAIL (exit $rc; $OUT/nvml_query.diff)"
        head -n 20 "$OUT/nvml_query.diff" >&2
    fi
    smi="$ROOT/.cache/inputs/rocm-smi/usr/lib/librocm_smi64.so.1"
    want=12
    [[ -e "$smi" ]] && want=9
    env "${HIPENV[@]}" ANYCUDA_ROCM_SMI_LIBRARY="$smi" LD_LIBRARY_PATH="$LIBDIR" "$WORK/nvml_query" \
        >"$OUT/nvml_query.hip.txt" 2>&1
    rc=$?
    if ((rc == 2)) && grep -q "^nvmlInit_v2 failed: $want " "$OUT/nvml_query.hip.txt"; then
        RES[nvml_query,hip]="PASS (no AMD GPU: nvmlInit_v2 $want)"
    else
        RES[nvml_query,hip]="FAIL (exit $rc)"
        tail -n 5 "$OUT/nvml_query.hip.txt" >&2
    fi
    say "nvml_query: ${RES[nvml_query,nvidia]} / ${RES[nvml_query,cuda]} / ${RES[nvml_query,hip]}"
else
    RES[nvml_query,nvidia]="not built"
fi
for prog in saxpy_bindings core_examples; do
    run nvidia "$prog" env -C ci/capi-gpu python3 "$prog.py"
    run cuda "$prog" env -C ci/capi-gpu ANYCUDA_EXPECT=1 ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR" python3 "$prog.py"
    run hip "$prog" env -C ci/capi-gpu ANYCUDA_EXPECT=1 "${HIPENV[@]}" LD_LIBRARY_PATH="$LIBDIR" python3 "$prog.py"
done

# The C ABI's per-call cost against NVIDIA's driver (ci/capi/bench.c: cuDriverGetVersion both
# ways, cuGetErrorName, the re-entry guard), interleaved rounds in one process.
if cc -O2 -Wall -o "$WORK/capi-bench" ci/capi/bench.c -ldl >"$OUT/build-bench.log" 2>&1; then
    ANYCUDA_BACKEND=cuda taskset -c "${BENCH_CPU:-2}" "$WORK/capi-bench" "$ANYCUDA_CAPI_LIBRARY" \
        >"$OUT/capi-bench.txt" 2>&1 || say "capi bench failed"
    cat "$OUT/capi-bench.txt" >&2
else
    say "capi bench did not build"
fi

failed=0
{
    echo "| program | NVIDIA's libraries | anycuda, CUDA backend | anycuda, HIP backend (HIP's NVIDIA platform) |"
    echo "|---|---|---|---|"
    for prog in saxpy_driver runtime_demo runtime_demo12 launch launch_sass bundled_ptx libs_gpu nccl_mp fft_gpu sparse_gpu nvml_query saxpy_bindings core_examples; do
        echo "| $prog | ${RES[$prog,nvidia]:--} | ${RES[$prog,cuda]:--} | ${RES[$prog,hip]:--} |"
        for col in cuda hip; do
            [[ "${RES[$prog,$col]:-}" == PASS* || "${RES[$prog,nvidia]:-}" != PASS* ]] || failed=1
        done
    done
} >"$OUT/capi-gpu.md"
cat "$OUT/capi-gpu.md"
rm -rf "$WORK"
exit "$failed"
