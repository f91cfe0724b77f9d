# Sourced by ci/candle-gpu.sh --model (ON the GPU machine), after its set-up: the bundle ($B), the
# columns ($COLS, col_env, dir_of) and HIP's NVIDIA platform. Runs ci/candle-model's program
# (a candle-transformers 0.11.1 Llama with deterministic random weights, built by
# ci/candle-build.sh on cudarc and on the facade):
#   1. the model check in every column: the same model and inputs on the CPU and on the GPU in
#      one process, f32 and bf16, the GPU's logits within the program's stated tolerance of the
#      CPU's f32 (1e-4 and 5e-2 of the largest logit); then the columns' GPU logits against
#      each other (f32: cudarc vs facade CUDA, facade CUDA vs facade HIP);
#   2. the benchmark: candle on cudarc and candle on the facade (CUDA backend), one process each
#      per round, alternating which goes first, BENCH_ROUNDS rounds (default 10) of
#      CANDLE_BENCH_ITERS timed iterations per workload (default 100); the ratio facade / cudarc
#      of each round's medians, and their median over the rounds.
# Writes $RESULTS/model-results.md, the raw JSON lines in $RESULTS/model-raw.txt and every run's
# logits and stderr in $RESULTS/model-files.tar.gz; returns 1
# when a check fails or a column cannot run.
# shellcheck shell=bash disable=SC2154
model_fail=0
RAW="$RESULTS/model-raw.txt"
: >"$RAW"
# Logits and stderr of every run stay on the machine (the device tool returns few files); they
# come back packed in model-files.tar.gz.
MF="$B/results/model"
rm -rf "$MF" && mkdir -p "$MF"
declare -A MCHK
for c in "${COLS[@]}"; do
    exe="$(dir_of "$c")/candle-model"
    for dt in f32 bf16; do
        if [[ ! -x $exe ]]; then MCHK["$c|$dt"]="not built"; model_fail=1; continue; fi
        if [[ $c == hip && -n "$HIP_NOTE" ]]; then MCHK["$c|$dt"]="not run: $HIP_NOTE"; model_fail=1; continue; fi
        read -r -a ENVV <<<"$(col_env "$c")"
        out="$(timeout --kill-after=10 300 env "${ENVV[@]}" "$exe" check --dtype "$dt" --out "$MF/$c-$dt.bin" 2>"$MF/$c-$dt.err")"
        rc=$?
        echo "$c $dt $out" >>"$RAW"
        if ((rc == 0)); then
            MCHK["$c|$dt"]="$(python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print("pass: max |GPU - CPU| = %.2e (%.2e of the largest logit, %.3g; tolerance %.0e)" % (m["max_abs_diff"], m["rel"], m["max_abs_cpu"], m["tol"]))' "$out")"
        else
            MCHK["$c|$dt"]="FAILED (exit $rc): ${out:-$(tail -n1 "$MF/$c-$dt.err" | cut -c1-160)}"
            model_fail=1
        fi
        say "model check, $c, $dt: ${MCHK["$c|$dt"]}"
    done
done
# Columns against each other (f32 logits; the same binary's CUDA and HIP runs, and cudarc's).
CROSS=()
cross() { # A B TOL
    [[ -f "$MF/$1-f32.bin" && -f "$MF/$2-f32.bin" ]] || return 0
    local exe out rc
    exe="$(dir_of cuda)/candle-model"
    out="$("$exe" compare "$MF/$1-f32.bin" "$MF/$2-f32.bin" --tol "$3" 2>&1)"
    rc=$?
    echo "compare $1 $2 $out" >>"$RAW"
    ((rc == 0)) || model_fail=1
    CROSS+=("| $1 against $2 (f32) | $(python3 -c 'import json,sys
try:
    m=json.loads(sys.argv[1]); print("%s: max difference %.2e (%.2e of the largest logit; tolerance %.0e)" % ("pass" if m["pass"] else "FAILED", m["max_abs_diff"], m["rel"], m["tol"]))
except Exception: print("error: " + sys.argv[1][:160])' "$out") |")
}
cross cudarc cuda 1e-4
cross cuda hip 1e-4

# ---- the benchmark: cudarc against the facade on CUDA, interleaved -------------------------
ROUNDS="${BENCH_ROUNDS:-10}"
ITERS="${CANDLE_BENCH_ITERS:-100}"
# Both builds run on the same few CPU cores (CANDLE_BENCH_CPUS, default 2-5; "" for none): the
# host side of these workloads is most of their time, and a process moved between cores (or
# NUMA nodes) mid-run varies more than the two builds differ.
PIN=()
[[ -n "${CANDLE_BENCH_CPUS-2-5}" ]] && command -v taskset >/dev/null && PIN=(taskset -c "${CANDLE_BENCH_CPUS-2-5}")
BENCH_NOTE=""
if [[ -x "$B/cudarc/candle-model" && -x "$B/facade/candle-model" ]]; then
    read -r -a ENV_CUDARC <<<"$(col_env cudarc)"
    read -r -a ENV_CUDA <<<"$(col_env cuda)"
    for ((r = 1; r <= ROUNDS; r++)); do
        order=(cudarc cuda)
        ((r % 2 == 0)) && order=(cuda cudarc)
        for c in "${order[@]}"; do
            if [[ $c == cudarc ]]; then envv=("${ENV_CUDARC[@]}"); else envv=("${ENV_CUDA[@]}"); fi
            timeout --kill-after=10 240 "${PIN[@]}" env "${envv[@]}" "$(dir_of "$c")/candle-model" bench --iters "$ITERS" \
                2>>"$MF/bench.err" | sed "s/^/bench $r $c /" >>"$RAW"
        done
    done
    python3 - "$RAW" "$ROUNDS" "$ITERS" >"$MF/bench.md" <<'PY' || { model_fail=1; BENCH_NOTE="the benchmark did not complete (bench.err in model-files.tar.gz)"; }
import json, statistics, sys
raw, rounds, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ms = {}  # (what, column, round) -> median ms
for line in open(raw):
    p = line.split(" ", 3)
    if p[0] != "bench":
        continue
    m = json.loads(p[3])
    ms[(m["what"], p[2], int(p[1]))] = m["median_ms"]
whats = list(dict.fromkeys(k[0] for k in ms))
if not whats:
    sys.exit("no benchmark output")
print("| workload | cudarc (ms, median of rounds) | facade, CUDA (ms) | facade / cudarc, median of %d rounds (min to max) |" % rounds)
print("|---|---:|---:|---:|")
for w in whats:
    rs = [ms[(w, "cuda", r)] / ms[(w, "cudarc", r)] for r in range(1, rounds + 1) if (w, "cuda", r) in ms and (w, "cudarc", r) in ms]
    if len(rs) != rounds:
        sys.exit("round missing for " + w)
    a = statistics.median(ms[(w, "cudarc", r)] for r in range(1, rounds + 1))
    b = statistics.median(ms[(w, "cuda", r)] for r in range(1, rounds + 1))
    print("| %s | %.4f | %.4f | **%.3f×** (%.3f to %.3f) |" % (w, a, b, statistics.median(rs), min(rs), max(rs)))
print()
print("Each round: one process per build, alternating which runs first; each workload %d timed iterations after at least 10 warm-up calls and 0.5 s, each iteration followed by a synchronize; a round's figure is its median." % iters)
PY
else
    BENCH_NOTE="no benchmark: the bundle lacks cudarc/candle-model or facade/candle-model"
    model_fail=1
fi

{
    echo "## candle-transformers 0.11.1 Llama, random weights, on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
    sed 's/^/    /' "$B/BUILD.txt"
    echo
    echo "Model check: 4 layers, width 256, 8 heads over 4 KV heads, vocabulary 1024; a 24-token prompt, then 8 decode steps through the KV cache; the logits of all 9 steps (9216 values), GPU against the CPU's f32 in the same process."
    echo
    echo "| column | f32 | bf16 |"
    echo "|---|---|---|"
    for c in "${COLS[@]}"; do echo "| $(title "$c") | ${MCHK["$c|f32"]:-—} | ${MCHK["$c|bf16"]:-—} |"; done
    echo
    if ((${#CROSS[@]})); then
        echo "| columns | GPU logits against each other |"
        echo "|---|---|"
        printf '%s\n' "${CROSS[@]}"
        echo
    fi
    echo "### Benchmark: candle on the facade (CUDA backend) against candle on cudarc"
    echo
    if [[ -n $BENCH_NOTE ]]; then echo "$BENCH_NOTE"; else cat "$MF/bench.md"; fi
} >"$RESULTS/model-results.md"
tar -C "$MF" -czf "$RESULTS/model-files.tar.gz" .
cat "$RESULTS/model-results.md"
return "$model_fail" 2>/dev/null || exit "$model_fail"
