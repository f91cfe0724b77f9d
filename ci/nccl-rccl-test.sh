#!/usr/bin/env bash
# Runs the CPU tests of the NCCL layer (tests/nccl_raw.rs, tests/nccl_comm.rs) with RCCL loaded live: Debian
# trixie's librccl.so.1 (RCCL 2.13.4, fetched by ci/nccl-fetch.sh) needs glibc >= 2.38, so the
# test binary runs through the private glibc loader of trixie's ROCm 5.7 prefix (ci/rocm.sh),
# with RCCL's own folder (librccl, librocm_smi64) added to the library path, once with the
# facade on the CUDA backend (NCCL) and once on the HIP backend (RCCL). No GPU needed.
#
#   bash ci/nccl-rccl-test.sh            (ROCM_SH overrides the path of ci/rocm.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ROCM_SH="${ROCM_SH:-$ROOT/ci/rocm.sh}"
[[ -f "$ROCM_SH" ]] || { echo "nccl-rccl-test: $ROCM_SH is missing (it comes with the ROCm work)" >&2; exit 2; }
bash ci/nccl-fetch.sh >/dev/null
eval "$(bash "$ROCM_SH" 5.7 --print-env)"
RCCL_LIB="$ROOT/.cache/inputs/rccl/usr/lib/x86_64-linux-gnu"
mapfile -t bins < <(cargo test -p anycuda --test nccl_raw --test nccl_comm --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("nccl_raw", "nccl_comm"):
        print(m["executable"])')
((${#bins[@]} == 2)) || { echo "nccl-rccl-test: could not build tests/nccl_raw.rs and tests/nccl_comm.rs" >&2; exit 2; }
source "$ROOT/ci/gpu-env.sh" # NCCL_NVLS_ENABLE=0, as every process that loads NCCL or RCCL
export ANYCUDA_EXPECT_RCCL=1 ANYCUDA_RCCL_LIBRARY="$RCCL_LIB/librccl.so.1"
# The facade on each backend: NCCL (the wheel's) on cuda, RCCL translated on hip (ROCm 5.7, AMD).
for b in ${NCCL_RCCL_BACKENDS:-cuda hip}; do
    echo "nccl-rccl-test: ANYCUDA_BACKEND=$b" >&2
    for bin in "${bins[@]}"; do
        # --include-ignored: the RCCL-live test is ignored everywhere but here.
        ANYCUDA_BACKEND="$b" "$ROCM_LOADER" --library-path "$ROCM_LIBRARY_PATH:$RCCL_LIB" "$bin" --test-threads=1 --include-ignored "$@"
    done
done
