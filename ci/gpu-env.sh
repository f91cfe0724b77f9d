#!/usr/bin/env bash
# The one place for what every GPU process shares. Sourced by ci/gpu-all.sh (the GPU machine's
# entry) and by every GPU part, so a part run on its own gets the same as under gpu-all.sh:
#   source "$ROOT/ci/gpu-env.sh"
#
# - NCCL_NVLS_ENABLE=0, exported: shared hosts never get NVLink multicast, in this process and
#   every child (NCCL reads it when a communicator is made).
# - HIPNV: the folder of HIP's NVIDIA platform (the "HIP shim", ci/hip-nvidia/build.sh):
#   $HIPNV_DIR, default /tmp/hipnv.
# - hip_shim [LOG]: makes $HIPNV/libamdhip64.so from the bundle's libamdhip64-dev .deb
#   ($GPU_BUNDLE, default .device) unless it is there (HIPNV_REBUILD=1: rebuilt, once). It is
#   built once per GPU run: gpu-all.sh calls it first and exports the outcome (HIP_SHIM_STATE,
#   internal), so the parts after it neither rebuild nor retry a failed build. Returns 0 when the
#   library is there, 1 when its build failed, 2 when there is no .deb to build it from. Its log
#   goes to LOG (default: $OUT/hip-shim.log, or /dev/null).
#
# - ANYCUDA_TEST_GPUS: the GPUs nvidia-smi lists, exported unless set, so a #[gpu_test]
#   (anycuda-test) counts this machine's GPUs the way the parts do.
#
# Run as a script, it builds the shim: bash ci/gpu-env.sh hip-shim
export NCCL_NVLS_ENABLE=0
if [[ -z "${ANYCUDA_TEST_GPUS:-}" ]]; then
    _ngpu="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)"
    if ((${_ngpu:-0} > 0)); then export ANYCUDA_TEST_GPUS="$_ngpu"; fi
    unset _ngpu
fi
HIPNV="${HIPNV_DIR:-/tmp/hipnv}"

hip_shim() {
    local log="${1:-${OUT:+$OUT/hip-shim.log}}" root deb t0=$SECONDS
    log="${log:-/dev/null}"
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    case "${HIP_SHIM_STATE:-}" in
        "ready $HIPNV") return 0 ;;
        "failed $HIPNV") echo "hip-shim: its build failed earlier in this run: no HIP" >&2; return 1 ;;
        "missing $HIPNV") return 2 ;;
    esac
    if [[ -f "$HIPNV/libamdhip64.so" && "${HIPNV_REBUILD:-0}" != 1 ]]; then
        echo "hip-shim: reusing $HIPNV/libamdhip64.so (HIPNV_REBUILD=1 rebuilds)"
        export HIP_SHIM_STATE="ready $HIPNV"
        return 0
    fi
    deb="$(ls "${GPU_BUNDLE:-$root/.device}"/libamdhip64-dev_*.deb 2>/dev/null | head -n1 || true)"
    if [[ -z "$deb" ]]; then
        echo "hip-shim: no libamdhip64-dev_*.deb in the bundle (cargo xtask gpu pack fetches it): no HIP" >&2
        export HIP_SHIM_STATE="missing $HIPNV"
        return 2
    fi
    echo "hip-shim: building HIP's NVIDIA platform into $HIPNV from $(basename "$deb") ..."
    if bash "$root/ci/hip-nvidia/build.sh" "$HIPNV" "$deb" >"$log" 2>&1; then
        echo "hip-shim: built in $((SECONDS - t0)) s"
        export HIP_SHIM_STATE="ready $HIPNV"
        return 0
    fi
    echo "hip-shim: build FAILED in $((SECONDS - t0)) s (log: $log):" >&2
    [[ -f "$log" ]] && tail -n 20 "$log" | sed 's/^/    /' >&2
    export HIP_SHIM_STATE="failed $HIPNV"
    return 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    [[ "${1:-}" == hip-shim ]] || { echo "usage: bash ci/gpu-env.sh hip-shim (or source it)" >&2; exit 2; }
    hip_shim /dev/stderr
fi
