#!/usr/bin/env bash
# CI for candle on the facade (no GPU), the issue's "CI" proof:
#   1. candle-core 0.11.1 and candle-nn 0.11.1 with `--features cuda`, cudarc patched to anycuda's
#      facade exactly as a user does: `bash ci/candle-build.sh check` (the wrapper workspace and
#      build variables of ci/candle-build.sh; `anycuda nvcc` as NVCC over PyPI's nvcc 13.0). A
#      `cargo check`: candle-kernels' build script runs in full (nvcc on its 11 PTX modules and
#      libmoe.a's 15 files), the facade and candle are type-checked; nothing is linked (the link
#      and the runs are ci/candle-build.sh's and ci/candle-gpu.sh's, on the GPU machine).
#   2. tests/candle_ptx_bundles.rs on the PTX that build wrote: every module carries a source
#      bundle, read back with anycuda's reader, equal (file by file) to the corpus that
#      tests/rocm_real_corpus.rs compiles with hipRTC 5.7.1 and 6.4.3 for gfx90a, gfx942 and
#      gfx1100 (ci/rocm/test-all.sh); one bundle also compiles through the HIP module load's
#      function here. And the PTX route: every module's PTX translated by anycuda's translator
#      (all 755 kernels), and all but quantized.ptx compiled by hipRTC 5.2.3 for gfx90a, and by
#      5.7.1 and 6.4.3 for gfx90a, gfx942 and gfx1100 (cold about 6 minutes in all, warm the
#      program cache's; quantized.ptx alone takes 5.2.3 about 5.5; docs/ptx-on-amd.md).
#
#   bash ci/candle-ci.sh
#
# Measured on the 2-core machine, shared with other builds while it ran (2026-11-25):
#   cold (a new key, empty folder): 1346 s and 1143 s, almost all of it candle-kernels' nvcc
#     (950 s of CPU; the 11 PTX modules about 2 minutes, libmoe.a's 15 files the rest);
#   warm (same key): 27 s in the same clone (the check 23 s, the test 2 s); 107 s in a fresh
#     clone with an empty target folder, of which 73 s built the anycuda binary, which .ci/run's
#     earlier steps have already built (cargo test -p anycuda shares it), so about 30 s there.
#
# The cache: candle's cargo target folder lives outside the clone, in the shared CI cache
# (ci/cache-dir.sh: .cache -> ANYCUDA_CI_CACHE), under .cache/candle-ci/KEY/. Why a key, and what
# it holds:
# - cargo does not know what candle-kernels' build script depends on beyond what it declares:
#   its source files and the variables CUDA_COMPUTE_CAP, NVCC (the path, not the program behind
#   it) and NVCC_CCBIN. A changed front end (the anycuda binary behind the NVCC link), a changed
#   ANYCUDA_REAL_NVCC, or another nvcc would not rerun it; and when it does rerun, cudaforge's
#   own cache in OUT_DIR (source hash, arguments, arch) skips every module whose PTX is there.
#   So the folder is keyed by everything that decides what that build writes and cargo does not
#   track: the front end's sources (FRONT_END below: the nvcc command, the bundle writer and the
#   include resolution it uses), the nvcc pins (ci/candle-fetch.sh), the build's scripts
#   (ci/candle-build.sh), the toolchain (rustc -vV, cargo -V) and KEY_SCHEMA. A new key starts
#   from an empty folder (cold); the two most recently used keys are kept, older ones removed.
#   The NVCC link lives in the key's folder, so its path (which cargo does track) is the same in
#   every clone. The folder is used where it is, never copied or moved: cargo's and cudaforge's
#   records name absolute paths (a copy elsewhere compiled everything again).
# - The path packages (anycuda's crates, the facade, the copies of candle-core and candle-nn) are
#   never taken from the cache: their artifacts are removed before the check, so cargo checks
#   them, and everything above them, anew on every run. cargo would rebuild them in a fresh clone
#   anyway (its sources are newer than any cached output), but only by modification times; this
#   makes a changed facade impossible to miss, and stops their outputs from piling up per clone.
# - Second safety net: the test compares each bundle with what the current front end's bundle
#   gatherer makes of the same file, so a front-end change the key missed fails, not passes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT"
export CI="${CI:-true}" CUDA_PATH="${CUDA_PATH:-$ROOT/.cache/inputs/cuda/nvidia/cu13}"
ANYCUDA_TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
log() { printf 'candle-ci: %s\n' "$*" >&2; }
T0=$SECONDS

# ---- the key --------------------------------------------------------------------------------
KEY_SCHEMA=1
# The sources of what `anycuda nvcc` writes when a real nvcc runs: the command (main.rs hands
# nvcc's command line to it), the bundle (its text format and gathering), the include resolution
# and the built-in header list that decide which headers are bundled.
FRONT_END=(cli/src/main.rs cli/src/cli/nvcc.rs rtc/src/rtc_bundle/mod.rs rtc/src/rtc_include.rs
    rtc/src/rtc_headers.rs rtc/src/rtc_headers_extra.rs rtc/src/rtc_input.rs)
KEY="$({
    echo "candle-ci $KEY_SCHEMA"
    rustc -vV
    cargo -V
    sha256sum ci/candle-build.sh ci/candle-fetch.sh "${FRONT_END[@]}"
} | sha256sum | cut -c1-16)"
# The real path: NVCC's path below is in cargo's fingerprint, and .cache is a link in a clone.
BASE="$(realpath "$ROOT/.cache")/candle-ci"
DIR="$BASE/$KEY"
mkdir -p "$DIR"
# One run per key at a time (cargo locks the target folder too; this also covers the link).
exec 9>"$DIR.lock"
flock 9
if [[ -d "$DIR/target" ]]; then log "cache $DIR (warm)"; else log "cache $DIR (new key: cold)"; fi
touch "$DIR/.used"
# Keep this key and the most recently used other one; remove the rest (skipping any in use).
mapfile -t old < <(find "$BASE" -mindepth 2 -maxdepth 2 -name .used -printf '%T@ %h\n' | sort -rn \
    | cut -d' ' -f2- | grep -vxF "$DIR" | tail -n +2)
for d in "${old[@]}"; do
    (flock -n 9 && rm -rf "$d" && log "removed the old key $(basename "$d")") 9>"$d.lock" || true
    rm -f "$d.lock"
done

# ---- the path packages: never from the cache --------------------------------------------------
TARGET="$DIR/target"
if [[ -d "$TARGET/release" ]]; then
    PATH_PACKAGES=(anycuda anycuda-api anycuda-rtc anycuda-cuda anycuda-hip anycuda-cudarc cudarc candle-core candle-nn)
    for p in "${PATH_PACKAGES[@]}"; do
        u="${p//-/_}"
        rm -rf "$TARGET/release/.fingerprint/$p"-???????????????? "$TARGET/release/build/$p"-???????????????? \
            "$TARGET/release/deps/lib$u"-????????????????.* "$TARGET/release/deps/$u"-????????????????.d
    done
fi

# ---- 1. the build ----------------------------------------------------------------------------
t=$SECONDS
# The front end: this clone's anycuda binary (the debug build the other CI steps use).
cargo build --locked -p anycuda-cli --bin anycuda
log "anycuda CLI: $((SECONDS - t)) s"
t=$SECONDS
OUT_DIR="$(CANDLE_TARGET_DIR="$TARGET" CANDLE_NVCC_FRONT="$DIR/nvcc-front" \
    CANDLE_ANYCUDA_BIN="$ANYCUDA_TARGET/debug/anycuda" bash ci/candle-build.sh check)"
log "candle-core and candle-nn (cuda) checked on the facade in $((SECONDS - t)) s; candle-kernels' OUT_DIR: $OUT_DIR"

# ---- 2. the PTX and its bundles --------------------------------------------------------------
t=$SECONDS
bash ci/rocm/fetch-kernels.sh # the corpus the bundles are compared with
# The PTX route too (candle_ptx_translates_and_compiles_for_amd): every module translated, all
# but quantized.ptx compiled by hipRTC for gfx90a, through a program cache that outlives the key
# (keyed by the translated source and hipRTC: an unchanged translation is compiled once).
ANYCUDA_CANDLE_PTX_DIR="$OUT_DIR" ANYCUDA_CANDLE_PTX_CACHE="$BASE/ptx-code" \
    cargo test --locked -p anycuda --test candle_ptx_bundles -- --include-ignored --nocapture
log "bundles and the PTX route checked in $((SECONDS - t)) s"
# The PTX route on hipRTC 5.7.1 and 6.4.3 too, for gfx90a, gfx942 and gfx1100 (the same test
# binary under each release's loader, as ci/rocm/test-all.sh runs its tests). Cold, about 50 s
# per target and release on 2 cores; warm (an unchanged translation), the program cache's.
t=$SECONDS
BIN="$(cargo test --locked -p anycuda --test candle_ptx_bundles --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')"
[[ -x "$BIN" ]] || { log "no candle_ptx_bundles test binary"; exit 1; }
for v in 5.7 6.4; do
    ANYCUDA_CANDLE_PTX_DIR="$OUT_DIR" ANYCUDA_CANDLE_PTX_CACHE="$BASE/ptx-code" \
        ANYCUDA_CANDLE_PTX_ARCHES=gfx90a,gfx942,gfx1100 \
        bash ci/rocm.sh "$v" -- "$BIN" candle_ptx_translates_and_compiles_for_amd --include-ignored --nocapture
done
log "the PTX route on hipRTC 5.7.1 and 6.4.3 in $((SECONDS - t)) s"
log "done in $((SECONDS - T0)) s"
