#!/usr/bin/env bash
# ON the GPU machine (ci/gpu-all.sh static): programs with NVIDIA's runtime linked in statically
# (docs/c-abi.md, "Statically linked runtime"), in three columns: NVIDIA's libraries, anycuda's
# folder on the CUDA backend, and on the HIP backend through HIP's NVIDIA platform (AMD-faithful:
# PTX translated, cubins refused), where anycuda answers the runtime's private tables itself.
#   static_rt12 / static_rt13  ci/capi/static_rt.c linked with CUDA 12.9's libcudart_static.a
#                              (the bundle's .device/cuda12) and with the toolkit's (CUDA 13):
#                              must PASS in every column
#   ci/samples                 the 25 sample programs built by nvcc both ways (-cudart static,
#                              nvcc's default, and -cudart shared): a report (ci/samples/run.sh)
# Writes $OUT/static/static.md and logs; exits 1 when static_rt fails in an anycuda column while
# NVIDIA's passes.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
OUT="${OUT:-$ROOT/gpu-results}/static"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/static-gpu.XXXXXX)"
say() { printf 'static-gpu: %s\n' "$*" >&2; }
export ANYCUDA_CAPI_LIBRARY="$DEV/lib/libanycuda_capi.so"
LIBDIR="$("$DEV/bin/anycuda" libdir 2>"$OUT/libdir.err")" || {
    say "anycuda libdir failed: $(cat "$OUT/libdir.err")"
    exit 1
}
hip_shim "$OUT/hip-shim-build.log" >&2
HIPLIB="$HIPNV/libamdhip64.so"
CUDA_ROOT="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
STATIC13="$(find "$CUDA_ROOT" -name libcudart_static.a 2>/dev/null | head -n1)"
failed=0
{
    echo "# Programs with NVIDIA's runtime linked statically"
    echo
    echo "| program | nvidia | cuda | hip |"
    echo "|---|---|---|---|"
} >"$OUT/static.md"
for rt in 13 12; do
    if [[ $rt == 13 ]]; then inc="$CUDA_ROOT/include" lib="$STATIC13"; else inc="$DEV/cuda12/include" lib="$DEV/cuda12/lib/libcudart_static.a"; fi
    if [[ ! -f "$lib" ]] || ! cc -O1 -Wall -I"$inc" -Icodegen/shim -idirafter "$CUDA_ROOT/include" ci/capi/static_rt.c \
        -o "$WORK/static_rt$rt" "$lib" -lpthread -ldl -lrt >"$OUT/build-static_rt$rt.log" 2>&1; then
        say "static_rt$rt not built (log: $OUT/build-static_rt$rt.log)"
        echo "| static_rt$rt | not built | not built | not built |" >>"$OUT/static.md"
        failed=1
        continue
    fi
    row="| static_rt$rt"
    declare -A R=()
    for col in nvidia cuda hip; do
        case $col in
            nvidia) envs=() ;;
            cuda) envs=(ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR") ;;
            hip) envs=(ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPLIB" LD_LIBRARY_PATH="$LIBDIR"
                ANYCUDA_LOG=anycuda_hip::adapt::export_tables=debug,anycuda_capi::codes=debug,warn) ;;
        esac
        timeout -k 10 60 env "${envs[@]}" "$WORK/static_rt$rt" >"$OUT/static_rt$rt.$col.log" 2>&1
        rc=$?
        if ((rc == 0)) && grep -q '^PASS static_rt' "$OUT/static_rt$rt.$col.log"; then R[$col]=PASS; else R[$col]="FAIL (exit $rc)"; fi
        row="$row | ${R[$col]}"
        say "static_rt$rt $col: ${R[$col]}"
    done
    echo "$row |" >>"$OUT/static.md"
    if [[ ${R[nvidia]} == PASS ]]; then
        for col in cuda hip; do
            [[ ${R[$col]} == PASS ]] || { failed=1; tail -n 8 "$OUT/static_rt$rt.$col.log" >&2; }
        done
    fi
    unset R
done
{
    echo
    echo "What the HIP column's runtime asked for (static_rt13):"
    echo
    grep -o 'cuGetExportTable: .*' "$OUT/static_rt13.hip.log" 2>/dev/null | sed 's/^/    /'
} >>"$OUT/static.md"
JOBS="$(nproc)" bash ci/samples/build.sh "$WORK/samples" >"$OUT/samples-build.log" 2>&1 || say "some samples did not build (ci/samples/run.sh reports them)"
TIMEOUT_S=60 bash ci/samples/run.sh "$WORK/samples" "$LIBDIR" "$HIPLIB" "$OUT/samples" >"$OUT/samples-run.log" 2>&1
{
    echo
    grep -E '^samples: (static|shared):' "$OUT/samples-run.log"
    echo
    grep -E '^\|' "$OUT/samples/samples.md" | head -n 28
} >>"$OUT/static.md"
cat "$OUT/static.md"
rm -rf "$WORK"
exit "$failed"
