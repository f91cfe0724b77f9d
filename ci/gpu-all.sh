#!/usr/bin/env bash
# ON the GPU machine, from the repository root: unpacks .gpu/bundle.tar.xz (`cargo xtask gpu pack`,
# where Rust is) into .device when that is missing, then runs the named parts in order, each under
# its own time limit, with every result and log under $OUT (default ./gpu-results):
#   bash ci/gpu-all.sh test nccl cudarc bench
# (`cargo xtask gpu run PART...` packs and runs this on a machine with Rust and a GPU.)
#   test    ci/gpu-test.sh: examples + GPU suites, CUDA and HIP-on-NVIDIA
#   nccl    ci/nccl-gpu-test.sh: the collective layer (1 GPU: one rank; 2 GPUs: everything)
#   cudarc  ci/cudarc-gpu.sh: cudarc's examples and unit tests, the workload, the overhead
#   bench   ci/bench.sh: the interleaved overhead benchmark
#   blasbench ci/blas-bench.sh: the interleaved GEMM benchmark (cuBLAS from C++, anycuda, cudarc)
#   ncclbench ci/nccl-bench.sh: the all-reduce benchmark (2 GPUs)
#   libbench ci/capi-lib-bench.sh: the drop-in CUDA libraries against NVIDIA's from C (a trivial
#           call's cost, large GEMMs, the all-reduce's bus bandwidth), interleaved rounds
#   ptxbench ci/ptx-bench.sh: PTX translated against CUDA source compiled by hipRTC, cold and warm loads
#   sanitize ci/gpu-sanitize.sh: compute-sanitizer over the safe layer's examples and GPU tests
#   capi    ci/capi-gpu.sh: unchanged C, C++ and Python (cuda-python) programs on anycuda's C ABI
#   static  ci/static-gpu.sh: programs with NVIDIA's runtime linked statically (CUDA 13, 12.9), three columns
#   candle  ci/candle-gpu.sh: candle 0.11.1's own CUDA tests on cudarc, on the facade (CUDA) and on
#           the facade (HIP-on-NVIDIA), from .gpu/candle.tar.xz (ci/candle-build.sh bundle, carried
#           apart from the main bundle); CANDLE_COLUMNS picks columns ("cudarc", "cuda hip", ...)
#   candlemodel ci/candle-gpu.sh --model: a candle-transformers Llama on CPU and GPU in each column,
#           and the interleaved benchmark (facade against cudarc), from the same bundle
#   hipmath only the setup steps below
# Every process gets ci/gpu-env.sh's environment (NCCL_NVLS_ENABLE=0), which every part also
# sources when run on its own.
# Setup:
# - hipshim, before the first part that uses HIP (all but sanitize and libbench), unless GPU_BACKENDS leaves hip
#   out or there is no bundle (candle alone then builds it itself): HIP's NVIDIA platform, built
#   once for the whole run (ci/gpu-env.sh's hip_shim; log: $OUT/hip-shim.log); the parts reuse
#   it and do not retry a failed build.
# - hipmath, before test, cudarc, bench, blasbench, candle, candlemodel or capi:
#   ci/hip-nvidia/build-math.sh builds hipBLAS and hipRAND over the
# machine's cuBLAS/cuRAND into $HIPNV_DIR (default /tmp/hipnv, beside the HIP shim; an
# existing build is reused unless HIPNV_REBUILD=1) from the bundle's .device/math, and exports
# ANYCUDA_HIPBLAS_LIBRARY / ANYCUDA_HIPRAND_LIBRARY to every part (also written to
# $OUT/hip-math.env, to source by hand). HIPNV_MATH=0 skips it.
# A failed setup step counts as a failed part and the parts still run (without HIP, or without
# those variables). Each part's time limit is its default below unless GPU_LIMIT (seconds) is set.
# Exits with the number of parts that failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0 for every child, HIPNV, hip_shim
export OUT="${OUT:-$ROOT/gpu-results}"
mkdir -p "$OUT"
if [[ ! -x .device/bin/anycuda ]]; then
    if [[ -f .gpu/bundle.tar.xz ]]; then
        mkdir -p .device && tar -C .device -xJf .gpu/bundle.tar.xz
    elif [[ -n "$(printf '%s\n' "$@" | grep -vxE 'candle|candlemodel')" ]]; then
        # candle alone runs from its own bundle (its HIP column then needs the HIP shim already
        # built in $HIPNV_DIR, or the main bundle's libamdhip64-dev .deb).
        echo 'gpu-all: no .device/ and no .gpu/bundle.tar.xz: run `cargo xtask gpu pack` where Rust is' >&2; exit 2
    fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu-all: GPU: /'
failed=0
part() { # <name> <default limit s> <cmd...>
    local name="$1" limit="${GPU_LIMIT:-$2}" t0=$SECONDS rc; shift 2
    echo "gpu-all: == $name"
    timeout --kill-after=15 "$limit" "$@" 2>&1 | tee "$OUT/$name.log" | grep -E '^(gpu-test|nccl-gpu-test|bench|sanitize):|^\| |FAIL|PASS \(' | tail -n 80
    rc=${PIPESTATUS[0]}
    echo "gpu-all: $name: exit $rc in $((SECONDS - t0)) s"
    ((rc == 0)) || failed=$((failed + 1))
}
hip_math() { # the setup step above; returns nonzero when the libraries are not there
    local dir="$HIPNV" t0=$SECONDS
    echo "gpu-all: == hipmath"
    if [[ -f "$dir/libhipblas.so" && -f "$dir/libhiprand.so" && "${HIPNV_REBUILD:-0}" != 1 ]]; then
        echo "gpu-all: hipmath: reusing $dir/libhipblas.so and libhiprand.so (HIPNV_REBUILD=1 rebuilds)"
    elif [[ ! -d .device/math ]]; then
        echo "gpu-all: hipmath: no .device/math in the bundle (cargo xtask gpu pack fetches it): not built" >&2
        return 1
    elif ! timeout --kill-after=15 "${GPU_LIMIT:-300}" bash ci/hip-nvidia/build-math.sh "$dir" .device/math \
        >"$OUT/hipmath.log" 2>&1; then
        echo "gpu-all: hipmath: build-math.sh FAILED in $((SECONDS - t0)) s (log: $OUT/hipmath.log):" >&2
        tail -n 20 "$OUT/hipmath.log" | sed 's/^/    /' >&2
        return 1
    else
        grep -E '^(check-math|cuBLAS|cuRAND|libhip)' "$OUT/hipmath.log" | sed 's/^/gpu-all: hipmath: /'
    fi
    export ANYCUDA_HIPBLAS_LIBRARY="$dir/libhipblas.so" ANYCUDA_HIPRAND_LIBRARY="$dir/libhiprand.so"
    printf 'export ANYCUDA_HIPBLAS_LIBRARY=%q ANYCUDA_HIPRAND_LIBRARY=%q\n' \
        "$ANYCUDA_HIPBLAS_LIBRARY" "$ANYCUDA_HIPRAND_LIBRARY" >"$OUT/hip-math.env"
    echo "gpu-all: hipmath: ready in $((SECONDS - t0)) s ($OUT/hip-math.env)"
}
shim_done=0 math_done=0
for p in "$@"; do
    if [[ "$p" != sanitize && "$p" != libbench && -x .device/bin/anycuda ]] && ((shim_done == 0)) && [[ " ${GPU_BACKENDS:-cuda hip} " == *" hip "* ]]; then
        shim_done=1
        echo "gpu-all: == hipshim"
        hip_shim "$OUT/hip-shim.log"
        (($? == 1)) && failed=$((failed + 1)) # a failed build; no .deb (2) is the parts' to report
    fi
    if [[ " test cudarc bench blasbench hipmath candle candlemodel capi " == *" $p "* ]] && ((math_done == 0)) \
        && [[ "${HIPNV_MATH:-1}" != 0 ]]; then
        math_done=1
        hip_math || failed=$((failed + 1))
    fi
    case "$p" in
        test) part test 480 bash ci/gpu-test.sh ;;
        nccl) part nccl 300 env OUT="$OUT/nccl" bash ci/nccl-gpu-test.sh ;;
        cudarc) part cudarc 480 bash ci/cudarc-gpu.sh ;;
        bench) part bench 480 env OUT="$OUT/bench" bash ci/bench.sh ;;
        blasbench) part blasbench 420 env OUT="$OUT/blasbench" bash ci/blas-bench.sh ;;
        ncclbench) part ncclbench 480 env OUT="$OUT/ncclbench" bash ci/nccl-bench.sh ;;
        libbench) part libbench 360 env OUT="$OUT/libbench" bash ci/capi-lib-bench.sh ;;
        ptxbench) part ptxbench 300 env OUT="$OUT/ptxbench" bash ci/ptx-bench.sh ;;
        sanitize) part sanitize 540 bash ci/gpu-sanitize.sh ;;
        capi) part capi 540 bash ci/capi-gpu.sh ;; # nccl_mp's three columns: about a minute more
        static) part static 420 bash ci/static-gpu.sh ;;
        candle) part candle 540 bash ci/candle-gpu.sh ;;
        candlemodel) part candlemodel 540 bash ci/candle-gpu.sh --model ;;
        hipmath) ;; # the setup above
        *) echo "gpu-all: unknown part $p" >&2; failed=$((failed + 1)) ;;
    esac
done
exit "$failed"
