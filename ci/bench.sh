#!/usr/bin/env bash
# Benchmarks anycuda's dispatch against the CUDA driver API called directly, in one run on the
# GPU machine: the C++ baseline (ci/bench/baseline.cu, built here with nvcc), anycuda on the CUDA
# backend and on the HIP backend (HIP's NVIDIA platform, ci/hip-nvidia), and cuda-python when it
# is installed. All use ci/bench/kernels.cu compiled with NVRTC and the same methodology.
# With the HIP library, a second C++ baseline (ci/bench/baseline_hip.cpp, built here with g++,
# dlopens the same libamdhip64.so) times hipCtxGetDevice and hipModuleLaunchKernel directly, so
# the table separates HIP-on-NVIDIA's own wrapper cost (C++ (hip) / C++) from anycuda's dispatch
# (anycuda (hip) / C++ (hip)).
#
# The safe layer (anycuda::core, examples/bench_core.rs) runs in the same rounds, on both backends:
# empty-kernel and typed-argument launches through core::launch, pinned copies through
# PinnedBuffer, and a typed-buffer round trip, against the same rows of the C++ baseline (which
# makes the round trip's driver calls by hand).
#
# Runs ON the GPU machine from the repository root, with the bundle of ci/bundle-for-gpu.sh in
# .device/ (needs .device/bin/bench_dispatch and .device/bin/bench_core):
#   bash ci/bench.sh
# Environment: OUT (default ./bench-results), GPU_BUNDLE (default .device), BENCH_CALLS, BENCH_LAUNCHES, BENCH_ROUNDS (default 5), BENCH_REPEATS (passed
# to every program), HIPNV_DIR (ci/gpu-env.sh: the HIP shim, built once per GPU run
# when missing and the .deb is in .device/), BENCH_PYTHON=0 to leave cuda-python out, CXX (default g++; nvcc
# if there is no g++) for the HIP baseline.
# Prints two markdown tables, the median of the rounds and each program's best round, with
# ratios, then the safe layer's targets (also $OUT/bench.md; raw output in $OUT/bench.log).
# Exits 1 if a program failed (including a non-zero allocation count in the anycuda loops).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
DEV="${GPU_BUNDLE:-$ROOT/.device}"
RESULTS="${OUT:-$ROOT/bench-results}"
WORK="$(mktemp -d /tmp/bench.XXXXXX)"
mkdir -p "$RESULTS"
say() { printf 'bench: %s\n' "$*" >&2; }
FAILED=0

[[ -x "$DEV/bin/bench_dispatch" ]] || { say "error: $DEV/bin/bench_dispatch missing: run ci/bundle-for-gpu.sh"; exit 2; }
KERNELS="$ROOT/ci/bench/kernels.cu"
CORE_BENCH=0
if [[ -x "$DEV/bin/bench_core" ]]; then
    CORE_BENCH=1
else
    say "warning: $DEV/bin/bench_core missing (rebuild the bundle): the anycuda::core columns are left out"
    FAILED=1
fi

say "building the C++ baseline with nvcc"
if ! nvcc -O2 -std=c++17 -o "$WORK/baseline" ci/bench/baseline.cu -lcuda -lnvrtc \
        -Xlinker -rpath="$(dirname "$(dirname "$(command -v nvcc)")")/lib64" >"$WORK/nvcc.log" 2>&1; then
    cat "$WORK/nvcc.log" >&2
    say "error: the baseline does not build"
    exit 2
fi

COLUMNS_=()
run_col() { # <column> <cmd...>: one run, appended to the column's output
    local col="$1"; shift
    say "round $ROUND: running $col"
    if "$@" >>"$WORK/$col.out" 2>&1; then :; else
        say "$col FAILED (exit $?):"; tail -n 20 "$WORK/$col.out" >&2; FAILED=1
    fi
    [[ " ${COLUMNS_[*]} " == *" $col "* ]] || COLUMNS_+=("$col")
}

hip_shim "$WORK/hip-shim-build.log" >&2
(($? == 1)) && FAILED=1 # a failed build (no .deb: the HIP column is left out below)
HIPLIB=""
HIP_BASELINE=0
if [[ -f "$HIPNV/libamdhip64.so" ]]; then
    HIPLIB="$HIPNV/libamdhip64.so"
    # The same library, called directly from C++ (dlopen; no HIP headers, no link to CUDA).
    CXX_="${CXX:-}"
    if [[ -z "$CXX_" ]]; then
        if command -v g++ >/dev/null; then CXX_=g++; else CXX_=nvcc; fi
    fi
    say "building the C++ HIP baseline with $CXX_"
    if "$CXX_" -O2 -std=c++17 -o "$WORK/baseline_hip" ci/bench/baseline_hip.cpp -ldl \
            >"$WORK/baseline_hip-build.log" 2>&1; then
        HIP_BASELINE=1
    else
        cat "$WORK/baseline_hip-build.log" >&2
        say "error: the C++ HIP baseline does not build: its column is left out"
        FAILED=1
    fi
else
    say "HIP column skipped: no $HIPNV/libamdhip64.so and no libamdhip64-dev .deb in .device/"
fi
PYTHON_BENCH=0
if [[ "${BENCH_PYTHON:-1}" != 0 ]] && python3 -c 'import cuda.bindings.driver' 2>/dev/null; then
    PYTHON_BENCH=1
fi

# Rounds: every program once per round, interleaved, so slow drift of this shared machine hits
# all columns alike; the order rotates from round to round, so no program always follows the
# same one. The table gives the median of the rounds and each program's best round.
ROUNDS="${BENCH_ROUNDS:-5}"
PROGRAMS=(cpp anycuda-cuda)
[[ "$CORE_BENCH" == 1 ]] && PROGRAMS+=(core-cuda)
[[ "$HIP_BASELINE" == 1 ]] && PROGRAMS+=(cpp-hip)
[[ -n "$HIPLIB" ]] && PROGRAMS+=(anycuda-hip)
[[ -n "$HIPLIB" && "$CORE_BENCH" == 1 ]] && PROGRAMS+=(core-hip)
[[ "$PYTHON_BENCH" == 1 ]] && PROGRAMS+=(cuda-python)
run_program() {
    case "$1" in
        cpp) run_col cpp "$WORK/baseline" "$KERNELS" ;;
        anycuda-cuda) ANYCUDA_BACKEND=cuda run_col anycuda-cuda "$DEV/bin/bench_dispatch" ;;
        core-cuda) ANYCUDA_BACKEND=cuda run_col core-cuda "$DEV/bin/bench_core" ;;
        cpp-hip) ANYCUDA_HIP_LIBRARY="$HIPLIB" run_col cpp-hip "$WORK/baseline_hip" "$KERNELS" "$HIPLIB" ;;
        anycuda-hip) ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPLIB" run_col anycuda-hip "$DEV/bin/bench_dispatch" ;;
        core-hip) ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPLIB" run_col core-hip "$DEV/bin/bench_core" ;;
        cuda-python) PYTHONUNBUFFERED=1 run_col cuda-python python3 ci/bench/cuda_python_bench.py "$KERNELS" ;;
    esac
}
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
    n=${#PROGRAMS[@]}
    for ((k = 0; k < n; k++)); do
        run_program "${PROGRAMS[$(((k + ROUND - 1) % n))]}"
    done
done
# Columns in the fixed order, whatever order the last round ran them in.
ORDERED=()
for p in "${PROGRAMS[@]}"; do [[ " ${COLUMNS_[*]} " == *" $p "* ]] && ORDERED+=("$p"); done
COLUMNS_=("${ORDERED[@]}")

# One table: metric rows, a column per program, ratios against the C++ baseline; anycuda (hip)
# also against the C++ HIP baseline (same libamdhip64.so), when that ran.
python3 - "$WORK" "$RESULTS/bench.md" "${COLUMNS_[@]}" <<'PY'
import os, statistics, sys
work, out, cols = sys.argv[1], sys.argv[2], sys.argv[3:]
data = {}
for c in cols:
    d = {}
    for line in open(os.path.join(work, c + ".out"), errors="replace"):
        if line.startswith("RESULT "):
            parts = line.split()
            if len(parts) >= 3:
                try:
                    d.setdefault(parts[1], []).append(float(parts[2]))
                except ValueError:
                    pass
    data[c] = d
rows = [
    ("call_ns", "cuCtxGetDevice, ns/call", "lower"),
    ("call_native_ns", "  alternating in-process: the library's entry point from Rust (HIP: hipCtxGetDevice), ns/call", "lower"),
    ("call_backend_ns", "  alternating in-process: through the Backend value (dispatch + adaptation), ns/call", "lower"),
    ("call_public_ns", "  alternating in-process: the public function (adds the backend lookup), ns/call", "lower"),
    ("call_gap_backend_ns", "  paired difference: Backend value − entry point, ns", "diff"),
    ("call_gap_public_ns", "  paired difference: public function − entry point, ns", "diff"),
    ("launch_us", "empty launch (submit N, one sync), µs/launch", "lower"),
    ("launch_args_us", "launch with 4 arguments, µs/launch", "lower"),
    ("launch_raw_inproc_us", "  alternating in-process: raw cuLaunchKernel, µs/launch", "lower"),
    ("launch_core_inproc_us", "  alternating in-process: core::launch, µs/launch", "lower"),
    ("launch_core_over_raw", "  paired ratio core::launch / raw cuLaunchKernel", "diff"),
    ("roundtrip_us", "round trip 2×1 MiB: alloc, copy in, saxpy, copy out, free; µs", "lower"),
    ("roundtrip_raw_inproc_us", "  alternating in-process: raw round trip, µs", "lower"),
    ("roundtrip_core_inproc_us", "  alternating in-process: typed round trip, µs", "lower"),
    ("roundtrip_core_over_raw", "  paired ratio typed / raw round trip", "diff"),
    ("saxpy_ms", "SAXPY 2^26 floats, kernel ms (events)", "lower"),
    ("h2d_pageable_gbps", "H2D pageable 256 MiB, GB/s", "higher"),
    ("d2h_pageable_gbps", "D2H pageable 256 MiB, GB/s", "higher"),
    ("h2d_pinned_gbps", "H2D pinned 256 MiB, GB/s", "higher"),
    ("d2h_pinned_gbps", "D2H pinned 256 MiB, GB/s", "higher"),
    ("allocs_call", "heap allocations in the timed call loops", "zero"),
    ("allocs_launch", "heap allocations in the timed launch loops", "zero"),
    ("allocs_launch_args", "heap allocations in the timed argument-launch loops", "zero"),
    ("allocs_roundtrip", "heap allocations in the timed round trips (not a target)", "zero"),
]
# Column headers, and the short names the ratio headers use.
names = {"cpp": "C++ driver API", "anycuda-cuda": "anycuda (cuda)",
         "core-cuda": "anycuda::core (cuda)",
         "cpp-hip": "C++ via the same HIP library",
         "anycuda-hip": "anycuda (hip via HIP-on-NVIDIA)",
         "core-hip": "anycuda::core (hip via HIP-on-NVIDIA)", "cuda-python": "cuda-python"}
short = {"cpp": "C++", "anycuda-cuda": "anycuda (cuda)", "core-cuda": "core (cuda)",
         "cpp-hip": "C++ (hip)", "anycuda-hip": "anycuda (hip)", "core-hip": "core (hip)",
         "cuda-python": "cuda-python"}
# Extra baselines: column -> the columns it is also compared with.
extra = {"anycuda-hip": ["cpp-hip"], "core-hip": ["cpp-hip"]}
def pick(values, better, how):
    """One figure from the rounds: their median, or the best round (least time, most
    bandwidth; for allocations always the most: any is a finding)."""
    if not values:
        return None
    if better == "zero":
        return max(values)
    if better == "diff":
        return statistics.median(values)
    if how == "median":
        return statistics.median(values)
    return (min if better == "lower" else max)(values)
def bases(c):
    out = [] if c == "cpp" else ["cpp"]
    out += [b for b in extra.get(c, []) if b in data]
    return out
def fmt(v):
    return "—" if v is None else (f"{v:.0f}" if v == int(v) and abs(v) >= 100 else f"{v:.4g}")
def table(how):
    head = ["metric"]
    for c in cols:
        head.append(names.get(c, c))
        for b in bases(c):
            head.append(f"ratio {short.get(c, c)} / {short.get(b, b)}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, label, better in rows:
        if not any(data[c].get(key) for c in cols):
            continue
        cells = [label]
        for c in cols:
            v = pick(data[c].get(key), better, how)
            cells.append(fmt(v))
            for b in bases(c):
                w = pick(data.get(b, {}).get(key), better, how)
                cells.append(f"{v / w:.3f}" if better not in ("zero", "diff") and v is not None and w else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
rounds = max((len(v) for d in data.values() for v in d.values()), default=0)
notes = ("Times: lower is better (ratio > 1 means the first is slower); bandwidth: higher is "
         "better. Each program runs in BENCH_ROUNDS interleaved rounds (each round: the median of "
         "BENCH_REPEATS repeats after warm-up). cuda-python's call loop uses BENCH_PY_CALLS. "
         "The round trip's C++ and anycuda (raw) twins make, by hand, the driver calls that "
         "anycuda::core's Buffer::from_slice, launch, copy_to_host and drop make.")
if "cpp-hip" in data:
    notes += (" C++ (hip) calls the libamdhip64.so that anycuda (hip) loads, directly: "
              "hipCtxGetDevice and hipModuleLaunchKernel (what anycuda (hip) calls for "
              "cuCtxGetDevice and cuLaunchKernel there); C++ (hip) / C++ is HIP-on-NVIDIA's own "
              "wrapper cost, anycuda (hip) / C++ (hip) is anycuda's dispatch on top of it.")
# The safe layer's targets (issue 6), from the medians.
targets = []
def ratio(c, b, key, better):
    v = pick(data.get(c, {}).get(key), better, "median")
    w = pick(data.get(b, {}).get(key), better, "median")
    return None if v is None or not w else v / w
for c, b in (("core-cuda", "cpp"), ("core-hip", "cpp-hip")):
    if c not in data:
        continue
    r = ratio(c, b, "launch_us", "lower")
    if r is not None:
        targets.append(f"- {short[c]}: empty launch {r:.3f}× {short[b]}, separate processes "
                       "(target ≤ 1.02): " + ("met" if r <= 1.02 else "NOT met"))
    r = pick(data[c].get("launch_core_over_raw"), "diff", "median")
    if r is not None:
        targets.append(f"- {short[c]}: empty launch {r:.3f}× the raw cuLaunchKernel, alternating "
                       "in one process (target ≤ 1.02): " + ("met" if r <= 1.02 else "NOT met"))
    if b == "cpp":
        r = ratio(c, b, "roundtrip_us", "lower")
        if r is not None:
            targets.append(f"- {short[c]}: typed round trip {r:.3f}× the raw C++ path, separate "
                           "processes (target ≤ 1.02): " + ("met" if r <= 1.02 else "NOT met"))
        for k in ("h2d_pinned_gbps", "d2h_pinned_gbps"):
            r = ratio(c, b, k, "higher")
            if r is not None:
                targets.append(f"- {short[c]}: {k[:3].upper()} pinned bandwidth {r:.3f}× C++ "
                               "(target ≥ 0.98): " + ("met" if r >= 0.98 else "NOT met"))
    r = pick(data[c].get("roundtrip_core_over_raw"), "diff", "median")
    if r is not None:
        targets.append(f"- {short[c]}: typed round trip {r:.3f}× its raw twin, alternating in one "
                       "process (target ≤ 1.02): " + ("met" if r <= 1.02 else "NOT met"))
    for k in ("allocs_launch", "allocs_launch_args"):
        v = pick(data[c].get(k), "zero", "median")
        if v is not None:
            targets.append(f"- {short[c]}: {int(v)} heap allocations in the {k[7:].replace('_', ' ')} loops "
                           "(target 0): " + ("met" if v == 0 else "NOT met"))
text = ("# anycuda dispatch benchmark\n\n"
        f"## Median of {rounds} interleaved rounds\n\n" + table("median") + "\n\n"
        f"## Best round of {rounds}\n\n" + table("best") + "\n\n" + notes + "\n")
if targets:
    text += "\n## anycuda::core targets (medians)\n\n" + "\n".join(targets) + "\n"
open(out, "w").write(text)
print(text)
PY
{
    for c in "${COLUMNS_[@]}"; do printf '\n===== %s =====\n' "$c"; cat "$WORK/$c.out"; done
} >"$RESULTS/bench.log"
rm -rf "$WORK"
say "wrote $RESULTS/bench.md and $RESULTS/bench.log"
exit "$FAILED"
