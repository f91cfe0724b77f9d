#!/usr/bin/env bash
# ON the GPU machine (no Rust there; gcc or cc, python3, a CUDA toolkit): the C ABI's differential
# fuzzer (ci/fuzz-capi/fuzz.c) in three columns, the same seed and cases in each:
#   nvidia  NVIDIA's libcuda.so.1, libcudart.so.13, libnvrtc.so.13 (no anycuda anywhere)
#   cuda    LD_LIBRARY_PATH=LIBDIR (`anycuda libdir`), ANYCUDA_BACKEND=cuda
#   hip     the same with ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=HIPLIB (HIP's NVIDIA platform,
#           ci/hip-nvidia/build.sh; built by ci/gpu-env.sh's hip_shim into HIPLIB's folder from
#           .device's libamdhip64-dev .deb when missing)
# then ci/fuzz-capi/compare.py: calls, crashes, timeouts, codes outside their enum, and, against
# the nvidia column, crashes where NVIDIA returned a code and code mismatches by function.
# Two passes, half the cases each: "defined" (handles only valid or NULL: every call is defined
# behaviour on NVIDIA's libraries, bad device pointers, enums, sizes and flags included, so
# NVIDIA's answers are the reference to match) and "full" (dangling, made-up and wrong-kind
# handles too: undefined behaviour on NVIDIA's side, where the point is that anycuda never
# crashes).
# Writes OUTDIR/fuzz.md (the figures), the logs and the fuzzer's stderr per column and shard.
# Exit 1 when an anycuda column crashed, hung, or returned a code outside its enum.
#
#   export ANYCUDA_CAPI_LIBRARY=$PWD/.device/lib/libanycuda_capi.so
#   bash ci/fuzz-capi/run-gpu.sh "$(.device/bin/anycuda libdir)" /tmp/hipnv/libamdhip64.so gpu-results/fuzz-capi
#
# Every crash costs NVIDIA's column a new process (cuInit, the primary context): the columns run
# one after the other, each in FUZZ_CAPI_SHARDS processes side by side, each stopping at a case
# boundary after FUZZ_CAPI_TIME seconds, so the whole run stays within about 4 minutes; a call that
# makes no progress for 10 s is killed and counted as a timeout.
#
# Environment: FUZZ_CAPI_CASES (default 4800: about 130,000 calls per column), FUZZ_CAPI_SEED
# (1), FUZZ_CAPI_SHARDS (default 12), FUZZ_CAPI_TIME (default 75), FUZZ_CUDA_INCLUDE (CUDA's
# headers to build against; default: beside nvcc, else /usr/local/cuda/include),
# FUZZ_CAPI_HEADERS (the headers whose enums the codes are checked against; default: the pinned
# .cache/inputs/cuda/nvidia/cu13/include when present, else FUZZ_CUDA_INCLUDE).
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 LIBDIR HIPLIB OUTDIR" >&2; exit 2; }
LIBDIR="$(cd "$1" && pwd)" || exit 2
HIPLIB="$2"
mkdir -p "$3" && OUT="$(cd "$3" && pwd)" || exit 2
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT" || exit 2
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, hip_shim
say() { printf 'fuzz-capi-gpu: %s\n' "$*" >&2; }
CASES="${FUZZ_CAPI_CASES:-4800}"
SEED="${FUZZ_CAPI_SEED:-1}"
SHARDS="${FUZZ_CAPI_SHARDS:-12}"
TLIMIT="${FUZZ_CAPI_TIME:-75}"
t0=$SECONDS

CUDA_INC="${FUZZ_CUDA_INCLUDE:-}"
if [[ -z "$CUDA_INC" ]] && command -v nvcc >/dev/null; then
    CUDA_INC="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")/include"
fi
[[ -n "$CUDA_INC" && -f "$CUDA_INC/cuda.h" ]] || CUDA_INC=/usr/local/cuda/include
[[ -f "$CUDA_INC/cuda.h" && -f "$CUDA_INC/nvrtc.h" ]] || { say "no CUDA headers (set FUZZ_CUDA_INCLUDE)"; exit 2; }
CUDA_LIB="$(dirname "$CUDA_INC")/lib64"
[[ -d "$CUDA_LIB" ]] || CUDA_LIB="$(dirname "$CUDA_INC")/lib"
HEADERS="${FUZZ_CAPI_HEADERS:-$ROOT/.cache/inputs/cuda/nvidia/cu13/include}"
[[ -f "$HEADERS/cuda.h" && -f "$HEADERS/driver_types.h" && -f "$HEADERS/nvrtc.h" ]] || HEADERS="$CUDA_INC"
CC="${CC:-$(command -v cc || command -v gcc)}"
if ! "$CC" -O2 -Wall -I"$CUDA_INC" -I"$ROOT/codegen/shim" ci/fuzz-capi/fuzz.c -o "$OUT/fuzz" -ldl >"$OUT/build.log" 2>&1; then
    say "the fuzzer did not build:"; tail -n 20 "$OUT/build.log" >&2; exit 2
fi
say "built against $CUDA_INC; enums from $HEADERS"

[[ -f "$HIPLIB" ]] || HIPNV="$(dirname "$HIPLIB")" hip_shim "$OUT/hip-shim-build.log" >&2
rm -f "$OUT"/nvidia.* "$OUT"/cuda.* "$OUT"/hip.* # an earlier run's shards
COLS=(nvidia cuda)
if [[ -f "$HIPLIB" ]]; then COLS+=(hip); else say "no $HIPLIB: the hip column is left out"; fi

# One column: SHARDS fuzzer processes over consecutive case ranges, side by side. The nvidia
# column's environment names no anycuda library: only CUDA's own folder on the library path.
column() { # NAME
    local name="$1" per=$(((CASES + SHARDS - 1) / SHARDS)) i pids=() envs
    case "$name" in
        nvidia) envs=(-u ANYCUDA_BACKEND -u LD_PRELOAD LD_LIBRARY_PATH="$CUDA_LIB") ;;
        cuda) envs=(ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$LIBDIR") ;;
        hip) envs=(ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPLIB" LD_LIBRARY_PATH="$LIBDIR") ;;
    esac
    for ((i = 0; i < SHARDS; i++)); do
        local first=$((i * per)) n=$per classes=()
        ((first + n > CASES)) && n=$((CASES - first))
        ((n > 0)) || continue
        ((first < CASES / 2)) && classes=(-p "70,30,0,0,0") # the defined pass: valid or NULL handles
        env "${envs[@]}" timeout --kill-after=15 $((TLIMIT + 120)) "$OUT/fuzz" -s "$SEED" -f "$first" -n "$n" -b 100 -t 10 \
            -T "$TLIMIT" "${classes[@]}" -o "$OUT/$name.$i.log" 2>"$OUT/$name.$i.stderr" &
        pids+=($!)
    done
    local rc=0
    for i in "${pids[@]}"; do wait "$i" || rc=1; done
    ((rc == 0)) || say "$name: a fuzzer process failed (see $OUT/$name.*.stderr)"
    : >"$OUT/$name.defined.log"
    : >"$OUT/$name.full.log"
    for ((i = 0; i < SHARDS; i++)); do
        [[ -f "$OUT/$name.$i.log" ]] || continue
        if ((i * per < CASES / 2)); then cat "$OUT/$name.$i.log" >>"$OUT/$name.defined.log"
        else cat "$OUT/$name.$i.log" >>"$OUT/$name.full.log"; fi
    done
    cat "$OUT/$name.defined.log" "$OUT/$name.full.log" >"$OUT/$name.log"
}
declare -A SECS
for col in "${COLS[@]}"; do
    s=$SECONDS
    column "$col"
    SECS[$col]=$((SECONDS - s))
    say "$col: $(grep -c '' "$OUT/$col.log") log lines in ${SECS[$col]} s; $(grep -m3 -E '^# (libcuda|libcudart|libnvrtc)' "$OUT/$col.0.log" | tr '\n' ' ')"
done

if grep -q -E '^# lib(cuda|cudart|nvrtc)[^:]*: .*anycuda' "$OUT/nvidia.0.log"; then
    say "the nvidia column loaded anycuda's libraries (LD_LIBRARY_PATH or ld.so.conf): not a baseline"
    exit 2
fi
NAMES=()
for col in "${COLS[@]}"; do NAMES+=("$col"); done
{
    echo "# The C ABI under a differential fuzzer (ci/fuzz-capi/run-gpu.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1);" \
        "seed $SEED, cases 0..$((CASES - 1)) per column in $SHARDS processes side by side, at most $TLIMIT s each;" \
        "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')."
    for col in "${COLS[@]}"; do
        echo "$col: ${SECS[$col]} s; $(grep -m1 '^# kernel image' "$OUT/$col.0.log" | sed 's/^# //'); $(grep -m3 -E '^# (libcuda|libcudart|libnvrtc)' "$OUT/$col.0.log" | sed 's/^# //' | tr '\n' ';' | sed 's/;$//')"
        grep -h '^# time limit' "$OUT/$col".[0-9]*.log | sed "s/^# /$col: /"
    done
    echo
} >"$OUT/fuzz.md"
names="$(IFS=,; echo "${NAMES[*]}")"
logs() { local col; for col in "${COLS[@]}"; do printf '%s\n' "$OUT/$col.$1.log"; done; }
# The first shard at or past half the cases starts the full pass (column() decides the same way).
PER=$(((CASES + SHARDS - 1) / SHARDS))
SPLIT=$(((CASES / 2 + PER - 1) / PER * PER))
((SPLIT > CASES)) && SPLIT=$CASES
rc=0
{
    echo "## Both passes: $CASES cases per column"
    echo
    all=()
    for col in "${COLS[@]}"; do all+=("$OUT/$col.log"); done
    python3 ci/fuzz-capi/compare.py --no-enum-check --headers "$HEADERS" --names "$names" "${all[@]}" | grep '^|' | head -n $((${#COLS[@]} + 2))
    echo
    echo "## Defined inputs (cases 0..$((SPLIT - 1)): handles valid or NULL)"
    echo
} >>"$OUT/fuzz.md"
mapfile -t defined < <(logs defined)
python3 ci/fuzz-capi/compare.py --headers "$HEADERS" --names "$names" "${defined[@]}" >>"$OUT/fuzz.md" || rc=1
{
    echo
    echo "## All classes (cases $SPLIT..$((CASES - 1)): dangling, made-up and wrong-kind handles too)"
    echo
} >>"$OUT/fuzz.md"
mapfile -t full < <(logs full)
python3 ci/fuzz-capi/compare.py --headers "$HEADERS" --names "$names" "${full[@]}" >>"$OUT/fuzz.md" || rc=1
cat "$OUT/fuzz.md"
say "done in $((SECONDS - t0)) s: $OUT/fuzz.md"
exit "$rc"
