#!/usr/bin/env bash
# ON the GPU machine (ci/gpu-all.sh candle; no Rust needed): candle 0.11.1's own CUDA tests, built
# by ci/candle-build.sh, in three columns:
#   cudarc  candle on cudarc 0.19.10 itself, NVIDIA's libraries (the baseline)
#   cuda    candle on anycuda's cudarc facade, ANYCUDA_BACKEND=cuda
#   hip     candle on the facade, ANYCUDA_BACKEND=hip through HIP's NVIDIA platform (the shim
#           ci/gpu-test.sh builds; hipBLAS/hipRAND from gpu-all.sh's hipmath step), with the AMD
#           route forced (ANYCUDA_HIP_BUNDLES=always: candle-kernels' modules compiled from their
#           source bundles by hipRTC, not loaded as PTX; CANDLE_HIP_ROUTE=translate translates
#           the PTX instead, CANDLE_HIP_ROUTE=ptx loads it as PTX)
# In the cuda column libmoe.a's CUDA runtime calls (candle-kernels' MoE/MMQ kernels, <<<>>>
# launches) resolve to anycuda's C-ABI libcudart.so.13 (LD_LIBRARY_PATH starts with the bundle's
# `anycuda libdir`), so they go through anycuda as well, never straight to NVIDIA's runtime.
#
#   bash ci/candle-gpu.sh                 # from the repository root
#   bash ci/candle-gpu.sh --list          # what would run, without running (works without a GPU)
#   bash ci/candle-gpu.sh cuda hip        # only these columns (default: cudarc cuda hip)
#   bash ci/candle-gpu.sh --model         # instead of the tests: ci/candle-model-gpu.sh (the
#                                         #   model check in each column, the benchmark)
#
# The bundle: .device/candle ($GPU_BUNDLE/candle), unpacked from .gpu/candle.tar.xz, or from its
# pieces .gpu/candle.tar.xz.part-* (concatenated in name order), when missing.
# Environment: OUT (default ./gpu-results; logs and results under $OUT/candle), HIPNV_DIR (default
# /tmp/hipnv: libamdhip64.so, built here from .device/libamdhip64-dev_*.deb when missing, and
# libhipblas.so/libhiprand.so when gpu-all.sh's hipmath step made them), CANDLE_TEST_LIMIT
# (seconds per test executable, default 150), CANDLE_TEST_THREADS (default 4), CANDLE_TESTS (a
# space-separated subset of the executables' names), CANDLE_FILTER (space-separated test-name
# filters passed to each executable, e.g. "gpu cuda" for the GPU variants only), CANDLE_COLUMNS
# (the columns when none is named on the command line), CUDA_HOME (default /usr/local/cuda).
# CANDLE_HIP_CUDART (hip column): `nvidia` (the default) leaves anycuda's libdir off the library
# path; `anycuda` puts it first, as the cuda column does. The HIP shim links libcudart.so.13 and
# libcuda.so.1 by soname, so with anycuda's libdir first the shim's own CUDA calls enter a second
# anycuda (the C-ABI library, beside the one linked into the test) as a program's would, run on
# its HIP backend (the shim again), and only the shim's re-entrant call reaches NVIDIA: every HIP
# call crosses the shim twice, and cuBLAS's handle creation fails there
# (CUBLAS_STATUS_NOT_INITIALIZED, H100 2026-11-25: every GPU test of the column). On AMD,
# libamdhip64 calls no CUDA name, so neither happens. With `nvidia` the shim calls NVIDIA directly
# and libmoe.a's <<<>>> launches (MoE/MMQ) bypass anycuda: on HIP's NVIDIA platform they run on
# NVIDIA's runtime.
# A test executable that crashes or runs out of time is run again test by test for the tests it
# did not report (60 s each), so one crash does not hide the rest.
# The device tool runs one command for at most 10 minutes: the columns can run in separate calls
# (`bash ci/candle-gpu.sh cudarc`, then `cuda`, then `hip`). Each column's results are kept in
# $B/results/ (on the machine, across calls) and the table shows every column run so far with
# this bundle; a column run again replaces its results.
# Writes $OUT/candle/candle-results.md and candle-logs.tar.gz (every column's logs). Exits 1 when
# a facade column has a failure cudarc itself does not share, or a column could not run.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source ci/gpu-env.sh # NCCL_NVLS_ENABLE=0, HIPNV, hip_shim
export RUST_BACKTRACE=1
B="${GPU_BUNDLE:-$ROOT/.device}/candle"
RESULTS="${OUT:-$ROOT/gpu-results}/candle"
LIMIT="${CANDLE_TEST_LIMIT:-150}"
THREADS="${CANDLE_TEST_THREADS:-4}"
say() { printf 'candle-gpu: %s\n' "$*"; }
die() { printf 'candle-gpu: error: %s\n' "$*" >&2; exit 2; }

LIST_ONLY=0
MODEL=0
COLS=()
for a in "$@"; do
    case "$a" in
        --list) LIST_ONLY=1 ;;
        --model) MODEL=1 ;;
        cudarc | cuda | hip) COLS+=("$a") ;;
        -h | --help) sed -n '2,46p' "$0"; exit 0 ;;
        *) die "unknown argument $a (columns: cudarc cuda hip; --list)" ;;
    esac
done
((${#COLS[@]})) || read -r -a COLS <<<"${CANDLE_COLUMNS:-cudarc cuda hip}"
for c in "${COLS[@]}"; do [[ $c == cudarc || $c == cuda || $c == hip ]] || die "unknown column $c"; done
read -r -a FILTER <<<"${CANDLE_FILTER:-}"

# ---- the bundle ------------------------------------------------------------------------------
if [[ ! -f "$B/BUILD.txt" ]]; then
    mkdir -p "$B"
    if [[ -f .gpu/candle.tar.xz ]]; then
        say "unpacking .gpu/candle.tar.xz into $B"
        tar -C "$B" -xJf .gpu/candle.tar.xz || die "could not unpack .gpu/candle.tar.xz"
    elif compgen -G '.gpu/candle.tar.xz.part-*' >/dev/null; then
        say "unpacking $(ls .gpu/candle.tar.xz.part-* | wc -l) pieces of .gpu/candle.tar.xz into $B"
        cat .gpu/candle.tar.xz.part-* | tar -C "$B" -xJf - || die "could not unpack the pieces (all of them carried?)"
    else
        die "no bundle in $B and no .gpu/candle.tar.xz: run 'bash ci/candle-build.sh bundle' where Rust is"
    fi
fi
B="$(cd "$B" && pwd)"
sed 's/^/candle-gpu: /' "$B/BUILD.txt"
LIBDIR="$B/$(cat "$B/lib/libdir.txt")"
[[ -e "$LIBDIR/libcudart.so.13" ]] || die "anycuda's libdir $LIBDIR has no libcudart.so.13"
# The name libraries need the C-ABI library beside them ($ORIGIN); a bundle made before
# candle-build.sh made that link relative carries a link to the build machine's path.
[[ -e "$LIBDIR/libanycuda_capi.so" ]] || ln -sfn ../libanycuda_capi.so "$LIBDIR/libanycuda_capi.so"
[[ -e "$LIBDIR/libanycuda_capi.so" ]] || die "$LIBDIR/libanycuda_capi.so is missing"
mkdir -p "$RESULTS" "$B/results/logs"
# Logs stay on the machine beside the results (across calls) and come back packed in one file:
# the device tool returns at most 8 files.
LOGS="$B/results/logs"

# Test executables: the same names in both builds (cudarc/ and facade/).
mapfile -t BINS < <(ls "$B/facade" "$B/cudarc" 2>/dev/null | grep -v ':$' | grep -v '^$' | grep -vx candle-model | sort -u)
if [[ -n "${CANDLE_TESTS:-}" ]]; then read -r -a BINS <<<"$CANDLE_TESTS"; fi
((${#BINS[@]})) || die "no test executables in $B/facade or $B/cudarc"
dir_of() { [[ $1 == cudarc ]] && echo "$B/cudarc" || echo "$B/facade"; }
title() { case "$1" in cudarc) echo "candle on cudarc 0.19.10" ;; cuda) echo "facade, CUDA backend" ;; hip) echo "facade, HIP backend (HIP's NVIDIA platform)" ;; esac; }

# ---- NVIDIA's libraries for the baseline: the toolkit, else the Python env's wheels ---------
nvidia_dirs() {
    local cands=() d n out=()
    local home="${CUDA_HOME:-/usr/local/cuda}"
    cands+=("$home/lib64" "$home/targets/x86_64-linux/lib" "$home/lib")
    while read -r d; do cands+=("$d"); done < <(python3 - 2>/dev/null <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
seen = set()
for r in roots:
    for d in glob.glob(os.path.join(r, "nvidia", "*", "lib")) + glob.glob(os.path.join(r, "nvidia", "cu13", "lib")):
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            print(d)
PY
    )
    for n in libnvrtc.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcudart.so.13; do
        for d in "${cands[@]}"; do
            if [[ -e "$d/$n" ]]; then
                [[ " ${out[*]} " == *" $d "* ]] || out+=("$d")
                break
            fi
        done
    done
    local IFS=:
    echo "${out[*]}"
}
NVDIRS="$(nvidia_dirs)"
say "NVIDIA's libraries (baseline): ${NVDIRS:-none found}"

# ---- HIP's NVIDIA platform and its math libraries ----------------------------------------
HIP_NOTE=""
if [[ " ${COLS[*]} " == *" hip "* && $LIST_ONLY == 0 ]]; then
    hip_shim "$RESULTS/hip-shim.log" \
        || HIP_NOTE="HIP shim unavailable (no .device/libamdhip64-dev_*.deb from the main bundle, or the build failed)"
    # gpu-all.sh's hipmath step exports these; standalone, take what an earlier run built.
    [[ -z "${ANYCUDA_HIPBLAS_LIBRARY:-}" && -f "$HIPNV/libhipblas.so" ]] && export ANYCUDA_HIPBLAS_LIBRARY="$HIPNV/libhipblas.so"
    [[ -z "${ANYCUDA_HIPRAND_LIBRARY:-}" && -f "$HIPNV/libhiprand.so" ]] && export ANYCUDA_HIPRAND_LIBRARY="$HIPNV/libhiprand.so"
    if [[ -z "${ANYCUDA_HIPBLAS_LIBRARY:-}" || -z "${ANYCUDA_HIPRAND_LIBRARY:-}" ]]; then
        say "warning: no hipBLAS/hipRAND on NVIDIA (run 'bash ci/gpu-all.sh hipmath candle'): candle's device, which opens cuBLAS and cuRAND, cannot start on hip"
    fi
fi

col_env() { # COLUMN: the environment of that column, as env(1) arguments
    case "$1" in
        cudarc) echo "-u ANYCUDA_BACKEND -u ANYCUDA_HIP_LIBRARY -u ANYCUDA_REQUIRE_GPU LD_LIBRARY_PATH=$NVDIRS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
        cuda) echo "-u ANYCUDA_HIP_LIBRARY ANYCUDA_BACKEND=cuda ANYCUDA_REQUIRE_GPU=1 LD_LIBRARY_PATH=$LIBDIR${NVDIRS:+:$NVDIRS}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
        hip)
            local path="$LIBDIR${NVDIRS:+:$NVDIRS}"
            [[ "${CANDLE_HIP_CUDART:-nvidia}" == nvidia ]] && path="$NVDIRS"
            # CANDLE_HIP_ROUTE picks how candle-kernels' modules reach the GPU:
            #   amd (default)  the source bundles anycuda nvcc put in the PTX, compiled by hipRTC
            #   translate      the PTX itself translated by anycuda's PTX translator and compiled
            #                  by hipRTC (ANYCUDA_HIP_BUNDLES=never: the bundles ignored), as for
            #                  a candle built without anycuda nvcc (docs/ptx-on-amd.md)
            #   ptx            the PTX loaded as PTX, as HIP's NVIDIA platform does with the
            #                  AMD-faithful mode off (proves nothing for AMD)
            # The column's own program cache (cleared before it runs) shows the compiles.
            local route="ANYCUDA_HIP_BUNDLES=always"
            case "${CANDLE_HIP_ROUTE:-amd}" in
                amd) ;;
                translate) route="ANYCUDA_HIP_BUNDLES=never" ;;
                ptx) route="ANYCUDA_HIP_BUNDLES=auto ANYCUDA_HIP_AMD_FAITHFUL=0" ;;
                *) echo "candle-gpu: CANDLE_HIP_ROUTE=${CANDLE_HIP_ROUTE} is none of amd, translate, ptx" >&2; exit 2 ;;
            esac
            echo "ANYCUDA_BACKEND=hip ANYCUDA_REQUIRE_GPU=1 $route ANYCUDA_CACHE_DIR=$B/cache-hip ANYCUDA_HIP_LIBRARY=$HIPNV/libamdhip64.so LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    esac
}

if ((LIST_ONLY)); then
    for c in "${COLS[@]}"; do
        say "column $c: env $(col_env "$c")"
        read -r -a ENVV <<<"$(col_env "$c")"
        for b in "${BINS[@]}"; do
            exe="$(dir_of "$c")/$b"
            if [[ -x "$exe" ]]; then
                say "  $b: $(env "${ENVV[@]}" "$exe" --list "${FILTER[@]}" 2>/dev/null | grep -c ': test$') tests"
            else
                say "  $b: not in the bundle"
            fi
        done
    done
    exit 0
fi

# ---- --model: the candle-transformers model and the interleaved benchmark ----------------
if ((MODEL)); then
    # shellcheck source=ci/candle-model-gpu.sh
    source "$ROOT/ci/candle-model-gpu.sh"
    exit "$?"
fi

# ---- run ---------------------------------------------------------------------------------
declare -A RES FAILS
fail=0
# Parse a log: counts and failing test names (the libtest lines, with or without --nocapture
# noise before "... ok").
counts() { # LOG -> "passed failed ignored"
    printf '%s %s %s\n' "$(grep -cE '^test .* \.\.\. ok$' "$1")" "$(grep -cE '^test .* \.\.\. FAILED$' "$1")" \
        "$(grep -cE '^test .* \.\.\. ignored' "$1")"
}
for c in "${COLS[@]}"; do
    if [[ $c == hip && -n "$HIP_NOTE" ]]; then
        for b in "${BINS[@]}"; do RES["$b|$c"]="not run"; done
        say "column hip: $HIP_NOTE"
        fail=1
        continue
    fi
    read -r -a ENVV <<<"$(col_env "$c")"
    say "== column $c"
    [[ $c == hip ]] && rm -rf "$B/cache-hip"
    for b in "${BINS[@]}"; do
        exe="$(dir_of "$c")/$b"
        log="$LOGS/$c-$b.log"
        if [[ ! -x "$exe" ]]; then RES["$b|$c"]="not built"; continue; fi
        t0=$SECONDS
        # candle's tests read their data files relative to the package folder.
        (cd "$B/candle-core" && timeout --kill-after=15 "$LIMIT" env "${ENVV[@]}" "$exe" \
            --test-threads="$THREADS" "${FILTER[@]}") >"$log" 2>&1
        rc=$?
        note=""
        if ((rc != 0 && rc != 101)); then
            # A crash or a time-out: every test it did not report runs alone.
            note="exit $rc"
            ((rc == 124 || rc == 137)) && note="timed out after $LIMIT s"
            mapfile -t all < <(env "${ENVV[@]}" "$exe" --list "${FILTER[@]}" 2>/dev/null | sed -n 's/: test$//p')
            for t in "${all[@]}"; do
                grep -qE "^test $t \.\.\. (ok|FAILED|ignored)" "$log" && continue
                {
                    echo "---- rerun alone: $t"
                    (cd "$B/candle-core" && timeout --kill-after=5 60 env "${ENVV[@]}" "$exe" --exact "$t" --test-threads=1)
                    r=$?
                    # A crash alone still gets its line, so it counts as failed.
                    ((r != 0 && r != 101)) && echo "test $t ... FAILED"
                    echo "---- rerun exit $r"
                } >>"$log" 2>&1
            done
        fi
        read -r p f i <<<"$(counts "$log")"
        RES["$b|$c"]="$p passed, $f failed${note:+ ($note; rerun test by test)}"
        FAILS["$b|$c"]="$(grep -E '^test .* \.\.\. FAILED$' "$log" | awk '{print $2}' | sort -u | tr '\n' ' ')"
        ((p + f == 0)) && RES["$b|$c"]="no tests ran (exit $rc: $(grep -v '^\s*$' "$log" | tail -n1 | tr '|\t' '/ ' | cut -c1-120))"
        say "  $b: ${RES["$b|$c"]} in $((SECONDS - t0)) s"
    done
done

if [[ " ${COLS[*]} " == *" hip "* ]]; then
    # Every module the hip column loaded through its source bundle left one cache entry.
    n="$(find "$B/cache-hip" -type f 2>/dev/null | wc -l)"
    say "column hip: ${CANDLE_HIP_ROUTE:-amd} route; $n entries in its program cache (modules compiled by hipRTC)"
    echo "hip route ${CANDLE_HIP_ROUTE:-amd}: $n program-cache entries" >"$B/results/hip-route.txt" 2>/dev/null || true
fi

# ---- the table: every column run so far with this bundle ----------------------------------
STATE="$B/results"
mkdir -p "$STATE"
for c in "${COLS[@]}"; do
    for b in "${BINS[@]}"; do printf '%s\t%s\t%s\n' "$b" "${RES["$b|$c"]:-—}" "${FAILS["$b|$c"]:-}"; done >"$STATE/$c.res"
done
SHOWN=()
for c in cudarc cuda hip; do
    [[ -f "$STATE/$c.res" ]] || continue
    SHOWN+=("$c")
    while IFS=$'\t' read -r b r f; do RES["$b|$c"]="$r"; FAILS["$b|$c"]="$f"; done <"$STATE/$c.res"
done
{
    echo "## candle 0.11.1's CUDA tests on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)"
    echo
    sed 's/^/    /' "$B/BUILD.txt"
    echo
    printf '| test executable |'; for c in "${SHOWN[@]}"; do printf ' %s |' "$(title "$c")"; done; echo
    printf '|---|'; for c in "${SHOWN[@]}"; do printf -- '---|'; done; echo
    for b in "${BINS[@]}"; do
        printf '| %s |' "$b"; for c in "${SHOWN[@]}"; do printf ' %s |' "${RES["$b|$c"]:-—}"; done; echo
    done
    echo
    for c in "${SHOWN[@]}"; do
        echo "### failing: $(title "$c")"
        echo
        any=0
        for b in "${BINS[@]}"; do
            for t in ${FAILS["$b|$c"]:-}; do
                any=1
                shared=""
                if [[ $c != cudarc && " ${FAILS["$b|cudarc"]:-} " == *" $t "* ]]; then
                    shared=" (fails on cudarc itself too)"
                elif [[ $c != cudarc && " ${COLS[*]} " == *" $c "* ]]; then
                    fail=1
                fi
                echo "- $b::$t$shared"
            done
        done
        ((any)) || echo "none"
        echo
    done
} >"$RESULTS/candle-results.md"
# A column run now that could not run a test executable fails the run (the baseline's own
# failures are its own, and only inform the other columns).
for c in "${COLS[@]}"; do
    [[ $c == cudarc ]] && continue
    for b in "${BINS[@]}"; do
        case "${RES["$b|$c"]:-}" in "" | "—" | "not run" | "not built" | "no tests ran"*) fail=1 ;; esac
    done
done
tar -C "$B/results" -czf "$RESULTS/candle-logs.tar.gz" logs
cat "$RESULTS/candle-results.md"
exit "$fail"
