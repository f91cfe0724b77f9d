#!/usr/bin/env bash
# The compiler fuzz (tests/fuzz_rtc.rs): NVRTC 13.5 and hipRTC 5.2.3 side by side, then hipRTC
# of each newer ROCm release through ci/rocm.sh (the test binary runs under that release's own
# glibc loader, and so do the child processes it starts: ROCM_LOADER).
#
#   bash ci/fuzz-rtc.sh [VERSION...]      default: 6.4 (after the 13.5 + 5.2.3 run)
#
# ANYCUDA_FUZZ_CASES (per compiler, default 15000), ANYCUDA_FUZZ_ROCM_CASES (per newer ROCm,
# default 15000) and ANYCUDA_FUZZ_SEED set the size and the seed (.ci/run asks for 4000 and 2000). Prints one `fuzz:` line per
# run and its wall time; fails on any abort or panic.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CI="${CI:-true}" CUDA_PATH="${CUDA_PATH:-$ROOT/.cache/inputs/cuda/nvidia/cu13}"
versions=("$@")
((${#versions[@]})) || versions=(6.4)

exe="$(cargo test -p anycuda --locked --test fuzz_rtc --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "fuzz_rtc":
        print(m["executable"])')"
[[ -x "$exe" ]] || {
    echo "fuzz-rtc: no fuzz_rtc test binary" >&2
    exit 1
}

run() {
    local label="$1"
    shift
    local start=$SECONDS out rc=0
    out="$("$@" --ignored --nocapture --exact fuzz_rtc_both_compilers 2>&1)" || rc=$?
    grep -E '^fuzz:|died|panicked' <<<"$out" || true
    printf 'fuzz-rtc: %s: %d s, exit %d\n' "$label" $((SECONDS - start)) "$rc"
    ((rc == 0)) || {
        tail -n 40 <<<"$out"
        return 1
    }
}

# The newer releases run beside the first run (which waits mostly on hipRTC 5.2.3, one core):
# both cores stay busy. Each run's lines are printed when it ends.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for v in "${versions[@]}"; do
    bash ci/rocm.sh "$v" -- /bin/true # prepare (cached) before timing anything
done
pids=()
for v in "${versions[@]}"; do
    ANYCUDA_FUZZ_ONLY=hip ANYCUDA_BACKEND=hip ANYCUDA_FUZZ_CASES="${ANYCUDA_FUZZ_ROCM_CASES:-15000}" \
        run "hipRTC $v" bash ci/rocm.sh "$v" -- "$exe" >"$tmp/$v.log" 2>&1 &
    pids+=($!)
done
status=0
run "NVRTC 13.5 + hipRTC 5.2.3" "$exe" || status=1
for i in "${!versions[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$tmp/${versions[$i]}.log"
done
exit "$status"
