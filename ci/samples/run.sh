#!/usr/bin/env bash
# Runs every program that ci/samples/build.sh built, both builds (static, shared), in three
# columns, and writes the report OUTDIR/samples.md:
#   nvidia  NVIDIA's own libraries: no anycuda (LIBDIR taken out of LD_LIBRARY_PATH)
#   cuda    ANYCUDA_BACKEND=cuda, LD_LIBRARY_PATH=LIBDIR:...  (anycuda's libcuda.so.1,
#           libcudart.so.13, libnvrtc.so.13 over NVIDIA's)
#   hip     ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=HIPLIB, LD_LIBRARY_PATH=LIBDIR:...
#           (HIPLIB: a libamdhip64.so, e.g. HIP's NVIDIA platform from ci/hip-nvidia; "-" skips
#           the column)
#
#   bash ci/samples/run.sh BUILDDIR LIBDIR HIPLIB OUTDIR
#
# LIBDIR is `anycuda libdir`'s folder. Every run has `timeout 60` (TIMEOUT_S) and
# NCCL_NVLS_ENABLE=0; a cell is PASS (exit 0 and the line `PASS <name>`), FAIL (exit N),
# TIMEOUT, CRASH(SIGNAL) or "not built". Logs: OUTDIR/logs/<build>/<name>.<column>.log. The
# report has the table, totals per build and column, the runs where anycuda fails and NVIDIA's
# libraries pass, and the last 3 lines of every failing run. Always exits 0: it is a
# report; the totals are printed on stdout.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if (($# != 4)); then
    echo "usage: run.sh BUILDDIR LIBDIR HIPLIB OUTDIR" >&2
    exit 0
fi
BUILD="$(cd "$1" && pwd)" || exit 0
LIBDIR="$2"
HIPLIB="$3"
OUT="$4"
TIMEOUT_S="${TIMEOUT_S:-60}"
source "$HERE/../gpu-env.sh" # NCCL_NVLS_ENABLE=0
mkdir -p "$OUT/logs/static" "$OUT/logs/shared"
say() { printf 'samples-run: %s\n' "$*" >&2; }
[[ -d "$LIBDIR" ]] && LIBDIR="$(cd "$LIBDIR" && pwd)"
[[ -e "$LIBDIR/libcuda.so.1" ]] || say "warning: $LIBDIR has no libcuda.so.1: is it anycuda's libdir?"

# The baseline library path: the caller's, without LIBDIR, then the toolkit's folders that
# build.sh recorded (NVIDIA's libcudart.so.13 and libnvrtc.so.13 for the shared builds, and for
# anycuda's CUDA backend to forward to).
BASE=""
IFS=: read -r -a parts <<<"${LD_LIBRARY_PATH:-}"
for p in "${parts[@]}"; do
    [[ -z "$p" ]] && continue
    [[ -d "$p" && "$(cd "$p" && pwd)" == "$LIBDIR" ]] && continue
    BASE="${BASE:+$BASE:}$p"
done
if [[ -f "$BUILD/toolkit-libdirs" ]]; then
    while read -r d; do [[ -n "$d" ]] && BASE="${BASE:+$BASE:}$d"; done <"$BUILD/toolkit-libdirs"
fi
ANY="$LIBDIR${BASE:+:$BASE}"

NAMES=()
for src in "$HERE"/*.cu; do NAMES+=("$(basename "$src" .cu)"); done
BUILDS=(static shared)
COLS=(nvidia cuda hip)
[[ "$HIPLIB" == "-" || -z "$HIPLIB" ]] && COLS=(nvidia cuda)
[[ "$HIPLIB" != "-" && -n "$HIPLIB" && ! -e "$HIPLIB" ]] && say "warning: HIPLIB $HIPLIB does not exist"

declare -A RES
run_one() { # BUILD NAME COLUMN
    local b="$1" name="$2" col="$3" exe="$BUILD/$1/$2" log="$OUT/logs/$1/$2.$3.log" rc
    if [[ ! -x "$exe" ]]; then
        RES[$b,$name,$col]="not built"
        return
    fi
    case "$col" in
        nvidia) env LD_LIBRARY_PATH="$BASE" timeout -k 10 "$TIMEOUT_S" "$exe" >"$log" 2>&1 ;;
        cuda) env ANYCUDA_BACKEND=cuda LD_LIBRARY_PATH="$ANY" timeout -k 10 "$TIMEOUT_S" "$exe" \
            >"$log" 2>&1 ;;
        hip) env ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY="$HIPLIB" LD_LIBRARY_PATH="$ANY" \
            timeout -k 10 "$TIMEOUT_S" "$exe" >"$log" 2>&1 ;;
    esac
    rc=$?
    if ((rc == 0)) && grep -qx "PASS $name" "$log"; then
        RES[$b,$name,$col]="PASS"
    elif ((rc == 0)); then
        RES[$b,$name,$col]="FAIL (exit 0, no PASS line)"
    elif ((rc == 124 || rc == 137)); then
        RES[$b,$name,$col]="TIMEOUT"
    elif ((rc > 128)); then
        RES[$b,$name,$col]="CRASH($(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))))"
    else
        RES[$b,$name,$col]="FAIL (exit $rc)"
    fi
}

t0=$SECONDS
for b in "${BUILDS[@]}"; do
    for name in "${NAMES[@]}"; do
        line=""
        for col in "${COLS[@]}"; do
            run_one "$b" "$name" "$col"
            line="$line $col=${RES[$b,$name,$col]}"
        done
        say "$b/$name:$line"
    done
done

# ---- the report.
MD="$OUT/samples.md"
total=${#NAMES[@]}
{
    echo "# CUDA sample programs: nvcc-built, static and shared runtime"
    echo
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') by ci/samples/run.sh in $((SECONDS - t0)) s."
    gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo "GPU: ${gpu:-unknown}. nvcc: $(grep -m1 -o 'release [0-9.]*, V[0-9.]*' "$BUILD/logs/nvcc-version.txt" 2>/dev/null || echo unknown)."
    echo "LIBDIR: \`$LIBDIR\`; HIPLIB: \`$HIPLIB\`; per-run limit ${TIMEOUT_S} s."
    echo
    printf '| program |'
    for b in "${BUILDS[@]}"; do for col in "${COLS[@]}"; do printf ' %s %s |' "$b" "$col"; done; done
    echo
    printf '|---|'
    for b in "${BUILDS[@]}"; do for col in "${COLS[@]}"; do printf -- '---|'; done; done
    echo
    for name in "${NAMES[@]}"; do
        printf '| %s |' "$name"
        for b in "${BUILDS[@]}"; do
            for col in "${COLS[@]}"; do printf ' %s |' "${RES[$b,$name,$col]}"; done
        done
        echo
    done
    echo
    echo "## Totals"
    echo
    for b in "${BUILDS[@]}"; do
        line="$b:"
        sep=" "
        for col in "${COLS[@]}"; do
            n=0
            for name in "${NAMES[@]}"; do [[ "${RES[$b,$name,$col]}" == PASS ]] && n=$((n + 1)); done
            line="$line$sep$col $n/$total"
            sep=", "
        done
        echo "- $line"
    done
    echo
    echo "## anycuda failing where NVIDIA's libraries pass"
    echo
    none=1
    for b in "${BUILDS[@]}"; do
        for name in "${NAMES[@]}"; do
            [[ "${RES[$b,$name,nvidia]}" == PASS ]] || continue
            for col in "${COLS[@]}"; do
                [[ "$col" == nvidia || "${RES[$b,$name,$col]}" == PASS ]] && continue
                echo "- $b/$name on $col: ${RES[$b,$name,$col]}"
                none=0
            done
        done
    done
    ((none)) && echo "(none)"
    echo
    echo "## Output of each failing run (last 3 lines)"
    echo
    echo "NVIDIA's column too, to tell a program's own fault from anycuda's."
    for b in "${BUILDS[@]}"; do
        for name in "${NAMES[@]}"; do
            for col in "${COLS[@]}"; do
                r="${RES[$b,$name,$col]}"
                [[ "$r" == PASS || "$r" == "not built" ]] && continue
                echo
                echo "### $name ($b, $col): $r"
                echo
                echo '```'
                tail -n 3 "$OUT/logs/$b/$name.$col.log"
                echo '```'
            done
        done
    done
} >"$MD"

echo "samples: $MD"
for b in "${BUILDS[@]}"; do grep "^- $b:" "$MD" | sed 's/^- /samples: /'; done
exit 0
