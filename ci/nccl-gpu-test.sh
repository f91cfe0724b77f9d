#!/usr/bin/env bash
# The collective layer on a 2-GPU machine, on the CUDA backend and on the HIP backend through
# HIP's NVIDIA platform (which loads NCCL there, as AMD's stack does): the data-parallel example
# in its three ways to start (threads, ncclCommInitAll, one process per GPU over the socket
# transport on loopback) and the GPU suite tests/nccl_gpu.rs.
#
# Runs ON the GPU machine from the repository root, with the bundle of `cargo xtask gpu pack`:
#   bash ci/nccl-gpu-test.sh
# Environment: OUT (default ./nccl-gpu-results), GPU_BACKENDS (default "cuda hip"),
# ANYCUDA_NCCL_LIBRARY (default: PyTorch's nvidia-nccl wheel, then the system's libnccl.so.2),
# HIPNV_DIR (ci/gpu-env.sh: HIP's NVIDIA platform, built once per GPU run when missing).
# Exits 1 if anything failed, 3 if only the 1-GPU test could run (fewer than 2 GPUs). Every
# process gets NCCL_NVLS_ENABLE=0 (ci/gpu-env.sh; the programs also set it themselves).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DEV="${GPU_BUNDLE:-$ROOT/.device}"
OUT="${OUT:-$ROOT/nccl-gpu-results}"
mkdir -p "$OUT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, ANYCUDA_TEST_GPUS, HIPNV, hip_shim
source "$ROOT/ci/nccl-find-lib.sh"
say() { printf 'nccl-gpu-test: %s\n' "$*"; }
say "NCCL: $ANYCUDA_NCCL_LIBRARY"
[[ -x "$DEV/bin/nccl_data_parallel" && -x "$DEV/tests/nccl_gpu" ]] || { say "bundle lacks nccl_data_parallel/nccl_gpu: run cargo xtask gpu pack where Rust is"; exit 2; }
BACKENDS=(${GPU_BACKENDS:-cuda hip})
if [[ " ${BACKENDS[*]} " == *" hip "* ]] && ! hip_shim "$OUT/hip-shim-build.log"; then
    say "HIP: no HIP shim: HIP backend not run"
    BACKENDS=(cuda)
fi
FAILED=0
RESULTS=()
run() { # <name> <backend> <timeout> <cmd...>
    local name="$1" b="$2" limit="$3"; shift 3
    local log="$OUT/$b.$name.log" env=(ANYCUDA_BACKEND="$b" ANYCUDA_REQUIRE_GPU=1 ANYCUDA_REQUIRE_NCCL=1)
    [[ "$b" == hip ]] && env+=(ANYCUDA_HIP_LIBRARY="$HIPNV/libamdhip64.so")
    env "${env[@]}" timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1
    local rc=$?
    if ((rc == 0)); then
        RESULTS+=("| $name | $b | PASS |")
        say "PASS $b $name"
    elif ((rc == 77)); then
        # A #[gpu_test] whose need is not met here (anycuda-test's exit status 77): not a failure.
        local why
        why="$(sed -n 's/^not run: //p' "$log" | head -n1 | sed 's/ (counted from .*//')"
        RESULTS+=("| $name | $b | NOT RUN: $why |")
        say "NOT RUN $b $name: $why"
        INCOMPLETE=1
    elif ((rc == 78)); then
        # Its feature is absent on this backend (anycuda-test's exit status 78).
        RESULTS+=("| $name | $b | n/a |")
        say "n/a $b $name"
    else
        RESULTS+=("| $name | $b | FAIL (exit $rc) |")
        say "FAIL $b $name (log $log)"
        tail -n 15 "$log" | sed 's/^/    /'
        FAILED=1
    fi
}
NGPU="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
say "GPUs: $NGPU"
INCOMPLETE=0
for b in "${BACKENDS[@]}"; do
    # One rank on one GPU: the library, types, streams and groups against a real GPU.
    run one_gpu_every_collective_one_rank "$b" 600 "$DEV/tests/nccl_gpu" --exact one_gpu_every_collective_one_rank --include-ignored --nocapture --test-threads=1
    # A non-blocking communicator's group keeps its buffers borrowed until NCCL has enqueued.
    run one_gpu_nonblocking_group_keeps_borrows_until_enqueued "$b" 300 "$DEV/tests/nccl_gpu" --exact one_gpu_nonblocking_group_keeps_borrows_until_enqueued --include-ignored --nocapture --test-threads=1
    if ((NGPU < 2)); then
        RESULTS+=("| the 2-GPU examples and tests below | $b | NOT RUN: needs 2 GPUs, found $NGPU |")
        say "NOT RUN $b: the 2-GPU examples and tests (found $NGPU GPU)"
        INCOMPLETE=1
        continue
    fi
    run data_parallel_threads "$b" 300 "$DEV/bin/nccl_data_parallel"
    run data_parallel_init_all "$b" 300 "$DEV/bin/nccl_data_parallel" --all
    run data_parallel_processes_socket "$b" 300 "$DEV/bin/nccl_data_parallel" --processes
    for t in every_collective_dtype_op_init_all every_collective_dtype_op_init_rank \
        socket_transport_processes wrong_use_is_refused_before_nccl_sees_it \
        counts_that_differ_across_ranks_end_in_an_error_not_a_hang \
        killed_peer_is_an_error_within_the_timeout; do
        run "$t" "$b" 900 "$DEV/tests/nccl_gpu" --exact "$t" --include-ignored --nocapture --test-threads=1
    done
done
{
    echo "| test | backend | result |"
    echo "|---|---|---|"
    printf '%s\n' "${RESULTS[@]}"
} >"$OUT/nccl-gpu-results.md"
cat "$OUT/nccl-gpu-results.md"
# 1: something failed; 3: nothing failed, but the 2-GPU part could not run here.
((FAILED)) && exit 1
((INCOMPLETE)) && exit 3
exit 0
