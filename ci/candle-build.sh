#!/usr/bin/env bash
# Builds candle 0.11.1's own CUDA tests, its source untouched (fetched through cargo, never
# committed), twice: on cudarc 0.19.10 itself (the baseline) and on anycuda's cudarc facade. The
# only differences a user makes are the [patch.crates-io] lines of the wrapper workspace and the
# build-time environment below (docs/candle.md).
#
#   bash ci/candle-build.sh                 # build both; the test executables are listed in
#                                           #   target/candle/{cudarc,facade}.tests
#   bash ci/candle-build.sh bundle [FILE]   # build, then pack FILE (default .gpu/candle.tar.xz)
#                                           #   for ci/candle-gpu.sh on the GPU machine
#   CANDLE_CONFIGS="facade" bash ci/candle-build.sh   # one configuration only
#   CANDLE_PARTS="model" bash ci/candle-build.sh      # the model program only (default: tests model)
#   bash ci/candle-build.sh check           # CI (ci/candle-ci.sh): the facade only, `cargo check`
#                                           #   of candle-core and candle-nn (candle-kernels' build
#                                           #   script runs in full); prints candle-kernels' OUT_DIR
#     with, from ci/candle-ci.sh: CANDLE_TARGET_DIR (candle's target folder), CANDLE_NVCC_FRONT
#     (the front end's folder; its path is in cargo's fingerprint of candle-kernels' build, via
#     NVCC) and CANDLE_ANYCUDA_BIN (an anycuda binary already built: no release build here)
#
# What is built: candle-core's test files that have CUDA variants (test_device!: tensor, conv,
# grad, layout, matmul, pool, quantized, bilinear) and candle-nn's `ops`, with `--features cuda`;
# and ci/candle-model (a candle-transformers Llama; listed in target/candle/{cudarc,facade}.model).
#
# Scratch (git-ignored, under target/candle): a copy of candle-core and candle-nn from cargo's
# registry in one wrapper workspace per configuration, whose Cargo.toml holds only the members
# and [patch.crates-io] (candle-core -> the copy, so candle-nn uses it; cudarc -> the facade for
# the facade build). Both share one target folder, so the crates.io dependencies, and
# candle-kernels, are built once.
#
# Environment of the build (both configurations):
#   CUDA_COMPUTE_CAP=90                 candle-kernels' target (no GPU here to ask)
#   NVCC=<anycuda nvcc front end>       a link named nvcc to the anycuda binary, which runs the
#   ANYCUDA_REAL_NVCC=<nvcc 13.0>       real nvcc (ci/candle-fetch.sh: CUDA 13.0's, PTX ISA 9.0,
#                                       what the GPU machine's 580 driver loads) and appends the
#                                       kernel's source bundle to the PTX (docs/nvcc.md). The
#                                       baseline shares the kernels: their PTX is nvcc's, plus
#                                       comment lines the CUDA driver ignores; `nvcc -c` (libmoe.a)
#                                       is passed through unchanged.
# baseline only (cudarc links its libraries at build time, `dynamic-linking`):
#   CUDARC_CUDA_VERSION=13000           cudarc's build script knows no 13.5
#   CUDA_PATH=target/candle/cudarc-libs libcuda.so (a stub: PyPI has none), libnvrtc, libcublas,
#                                       libcublasLt, libcurand, libcudart from the PyPI wheels
# facade only:
#   LIBRARY_PATH=target/candle/cudart-link   candle-kernels' libmoe.a links -lcudart (its <<<>>>
#                                       launches): NVIDIA's libcudart.so of CUDA 13.0 from the
#                                       runtime wheel (ci/candle-fetch.sh), as NVIDIA's own link
#                                       does. Not anycuda's: `anycuda libdir`'s libcudart.so is a
#                                       name library with no symbols of its own (they live in the
#                                       C-ABI library it needs), and a linker does not resolve a
#                                       program's references through a library's dependencies
#                                       (tried: 1400 undefined __cudaPopCallConfiguration, ...).
#                                       The program records only the soname libcudart.so.13, so
#                                       the run-time library path decides: ci/candle-gpu.sh puts
#                                       anycuda's libdir first in the facade columns.
# CANDLE_OPT_LEVEL (default 1): the release profile's opt-level; 1 builds about twice as fast
# as 3 on 2 cores, and the binaries are as small.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CANDLE_VERSION="0.11.1"
CORE_TESTS=(tensor_tests conv_tests grad_tests layout_tests matmul_tests pool_tests quantized_tests bilinear_tests)
NN_TESTS=(ops)
MODE="${1:-build}"
case "$MODE" in
    build | check) [[ $# -le 1 ]] || { echo "usage: $0 [build | check | bundle [FILE]]" >&2; exit 2; } ;;
    bundle) [[ $# -le 2 ]] || { echo "usage: $0 [build | check | bundle [FILE]]" >&2; exit 2; } ;;
    *) echo "usage: $0 [build | check | bundle [FILE]]" >&2; exit 2 ;;
esac
CONFIGS=(${CANDLE_CONFIGS:-cudarc facade})
# CANDLE_PARTS: what to build, "tests model" (the default) or either alone.
PARTS="${CANDLE_PARTS:-tests model}"
for p in $PARTS; do
    [[ $p == tests || $p == model ]] || { echo "candle-build: unknown part $p (tests, model)" >&2; exit 2; }
done
[[ $MODE != check ]] || CONFIGS=(facade)
for c in "${CONFIGS[@]}"; do
    [[ $c == cudarc || $c == facade ]] || { echo "candle-build: unknown configuration $c (cudarc, facade)" >&2; exit 2; }
done
ANYCUDA_TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
WORK="$ANYCUDA_TARGET/candle"
TARGET="${CANDLE_TARGET_DIR:-$WORK/target}"
mkdir -p "$WORK"
log() { printf 'candle-build: %s\n' "$*" >&2; }
T0=$SECONDS
export CARGO_INCREMENTAL=0 ANYCUDA_CUDARC_QUIET=1
OPT_LEVEL="${CANDLE_OPT_LEVEL:-1}" # for candle's build only (its own target folder, below)

# ---- inputs: nvcc 13.0, candle's source, anycuda's CLI (the nvcc front end) and C ABI --------
NVCC_BIN="$(bash ci/candle-fetch.sh)"
# shellcheck source=ci/cudarc-common.sh
CUDARC_WORK="$WORK" source "$ROOT/ci/cudarc-common.sh"
CORE_SRC="$(crate_src candle-core "$CANDLE_VERSION")"
NN_SRC="$(crate_src candle-nn "$CANDLE_VERSION")"
log "candle-core $CANDLE_VERSION: $CORE_SRC"
t=$SECONDS
if [[ -n ${CANDLE_ANYCUDA_BIN:-} ]]; then
    ANYCUDA="$CANDLE_ANYCUDA_BIN"
else
    CARGO_TARGET_DIR="$ANYCUDA_TARGET" cargo build --release --locked -p anycuda-cli --bin anycuda
    CARGO_TARGET_DIR="$ANYCUDA_TARGET" cargo build --release --locked -p anycuda-capi
    ANYCUDA="$ANYCUDA_TARGET/release/anycuda"
    log "anycuda CLI and C ABI (release): $((SECONDS - t)) s"
fi

# The front end: bin/nvcc -> anycuda (it answers to the name nvcc); include/ beside it, because
# cudaforge takes the toolkit's include folder from nvcc's ../include.
FRONT="${CANDLE_NVCC_FRONT:-$WORK/nvcc-front}"
mkdir -p "$FRONT/bin"
ln -sfn "$ANYCUDA" "$FRONT/bin/nvcc"
ln -sfn "$(dirname "$NVCC_BIN")/include" "$FRONT/include"
export NVCC="$FRONT/bin/nvcc" ANYCUDA_REAL_NVCC="$NVCC_BIN/nvcc" CUDA_COMPUTE_CAP=90
export PATH="$NVCC_BIN:$PATH"
# cudaforge caches compiled objects by source hash under CUDAFORGE_HOME (default ~/.cudaforge);
# keep it in the scratch folder.
export CUDAFORGE_HOME="$WORK/cudaforge-home"

# Baseline link folder: cudarc's dynamic-linking wants the dev names; PyPI ships only the
# sonames, and no libcuda at all: a stub with every driver export of the C ABI, as NVIDIA's stub
# is (only to link; at run time the system's libcuda.so.1 serves).
CUDA_LIBS="$ROOT/.cache/inputs/cuda/nvidia/cu13/lib"
STUBS="$WORK/cudarc-libs/lib"
if [[ " ${CONFIGS[*]} " == *" cudarc "* ]]; then
    [[ -f "$CUDA_LIBS/libcublasLt.so.13" ]] || bash ci/fetch-inputs.sh
    mkdir -p "$STUBS"
    nm -D --defined-only "$ANYCUDA_TARGET/release/libanycuda_capi.so" \
        | awk '$2 == "T" && $3 ~ /^cu[A-Z]/ { print "void " $3 "(void) {}" }' >"$STUBS/stub.c"
    cc -shared -fPIC -o "$STUBS/libcuda.so" -Wl,-soname,libcuda.so.1 "$STUBS/stub.c"
    ln -sfn "$CUDA_LIBS/libnvrtc.so.13" "$STUBS/libnvrtc.so"
    ln -sfn "$CUDA_LIBS/libcublas.so.13" "$STUBS/libcublas.so"
    ln -sfn "$CUDA_LIBS/libcublasLt.so.13" "$STUBS/libcublasLt.so"
    ln -sfn "$CUDA_LIBS/libcurand.so.10" "$STUBS/libcurand.so"
    # libcudart of CUDA 13.0 (the GPU machine's), from ci/candle-fetch.sh's runtime wheel.
    ln -sfn "$(dirname "$NVCC_BIN")/lib/libcudart.so.13" "$STUBS/libcudart.so"
fi

# Facade link folder: NVIDIA's libcudart of CUDA 13.0 under its development name.
CUDART_LINK="$WORK/cudart-link"
mkdir -p "$CUDART_LINK"
ln -sfn "$(dirname "$NVCC_BIN")/lib/libcudart.so.13" "$CUDART_LINK/libcudart.so"

# ---- the wrapper workspaces ----------------------------------------------------------------
workspace() { # CONFIG: prints the folder
    local config="$1" ws="$WORK/ws-$1"
    # Copied once: a fresh copy has new times, and cargo would rebuild candle-core for nothing.
    if [[ ! -f "$ws/.copied-$CANDLE_VERSION" ]]; then
        rm -rf "$ws" && mkdir -p "$ws"
        cp -r "$CORE_SRC" "$ws/candle-core"
        cp -r "$NN_SRC" "$ws/candle-nn"
        rm -f "$ws/candle-core/Cargo.lock" "$ws/candle-nn/Cargo.lock"
        touch "$ws/.copied-$CANDLE_VERSION"
    fi
    # The model program (ours, ci/candle-model): copied with its times kept, so an unchanged
    # source is not rebuilt.
    mkdir -p "$ws/candle-model"
    cp -r --preserve=timestamps "$ROOT/ci/candle-model/." "$ws/candle-model/"
    {
        echo '[workspace]'
        echo 'resolver = "2"'
        echo 'members = ["candle-core", "candle-nn", "candle-model"]'
        echo
        echo '[patch.crates-io]'
        echo 'candle-core = { path = "candle-core" }'
        echo 'candle-nn = { path = "candle-nn" }'
        [[ $config == facade ]] && echo "cudarc = { path = \"$ROOT/facades/cudarc-patch\" }"
    } >"$ws/Cargo.toml.new"
    cmp -s "$ws/Cargo.toml.new" "$ws/Cargo.toml" && rm "$ws/Cargo.toml.new" || mv "$ws/Cargo.toml.new" "$ws/Cargo.toml"
    # One set of crates.io versions for both: candle's own lock file as published, completed by
    # cargo for what the patches change.
    if [[ ! -f "$ws/Cargo.lock" ]]; then
        if [[ -f "$WORK/Cargo.lock" ]]; then cp "$WORK/Cargo.lock" "$ws/Cargo.lock"
        else cp "$CORE_SRC/Cargo.lock" "$ws/Cargo.lock"; fi
    fi
    echo "$ws"
}

build_config() { # CONFIG
    local config="$1" ws t list="$WORK/$1.tests"
    ws="$(workspace "$config")"
    local envs=()
    if [[ $config == cudarc ]]; then
        envs=(CUDARC_CUDA_VERSION=13000 CUDA_PATH="$WORK/cudarc-libs")
    else
        envs=(LIBRARY_PATH="$CUDART_LINK")
    fi
    (cd "$ws" && cargo metadata --format-version 1 >/dev/null) # completes Cargo.lock
    [[ -f "$WORK/Cargo.lock" ]] || cp "$ws/Cargo.lock" "$WORK/Cargo.lock"
    if [[ $config == facade ]]; then
        (cd "$ws" && cargo tree -p candle-core --features cuda -i cudarc --depth 0 2>/dev/null | head -n1) \
            | grep -q "facades/cudarc-patch" || { log "cudarc is not the facade in $ws"; exit 1; }
    fi
    # Without the tests part, the list of an earlier build stays (a bundle then packs those
    # executables, as they were built); touch makes an empty one when there was none.
    [[ " $PARTS " == *" tests "* ]] && : >"$list"
    touch "$list"
    t=$SECONDS
    if [[ $MODE == check ]]; then # candle-kernels' OUT_DIR (its PTX) on stdout
        (cd "$ws" && env "${envs[@]}" CARGO_TARGET_DIR="$TARGET" CARGO_PROFILE_RELEASE_OPT_LEVEL="$OPT_LEVEL" cargo check --release \
            -p candle-core -p candle-nn --features candle-core/cuda,candle-nn/cuda --lib --message-format=json-render-diagnostics) \
            | python3 -c '
import json, sys
dirs = [m["out_dir"] for m in map(json.loads, filter(str.strip, sys.stdin))
        if m.get("reason") == "build-script-executed" and "#candle-kernels@" in m["package_id"]]
if len(dirs) != 1:
    sys.exit(f"candle-build: {len(dirs)} build-script outputs of candle-kernels, not 1")
print(dirs[0])
'
        log "$config: cargo check of candle-core and candle-nn in $((SECONDS - t)) s"
        return
    fi
    local args
    for pkg in $([[ " $PARTS " == *" tests "* ]] && echo candle-core candle-nn); do
        args=()
        if [[ $pkg == candle-core ]]; then for x in "${CORE_TESTS[@]}"; do args+=(--test "$x"); done
        else for x in "${NN_TESTS[@]}"; do args+=(--test "$x"); done; fi
        (cd "$ws" && env "${envs[@]}" CARGO_TARGET_DIR="$TARGET" CARGO_PROFILE_RELEASE_OPT_LEVEL="$OPT_LEVEL" cargo test --release --no-run \
            -p "$pkg" --features cuda "${args[@]}" --message-format=json-render-diagnostics) \
            | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])
' >>"$list"
    done
    [[ " $PARTS " == *" tests "* ]] && log "$config: built $(wc -l <"$list") test executables in $((SECONDS - t)) s (listed in $list)"
    [[ " $PARTS " == *" model "* ]] || { : >"$WORK/$config.model"; return 0; }
    t=$SECONDS
    (cd "$ws" && env "${envs[@]}" CARGO_TARGET_DIR="$TARGET" CARGO_PROFILE_RELEASE_OPT_LEVEL="$OPT_LEVEL" cargo build --release \
        -p candle-model --features cuda --message-format=json-render-diagnostics) \
        | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "candle-model":
        print(m["executable"])
' >"$WORK/$config.model"
    [[ -s "$WORK/$config.model" ]] || { log "$config: candle-model was not built"; exit 1; }
    log "$config: built candle-model in $((SECONDS - t)) s"
}

for c in "${CONFIGS[@]}"; do build_config "$c"; done
log "build done in $((SECONDS - T0)) s"

[[ $MODE == bundle ]] || exit 0
# ---- the bundle for the GPU machine (ci/candle-gpu.sh) --------------------------------------
FILE="${2:-$ROOT/.gpu/candle.tar.xz}"
STAGE="$WORK/bundle"
rm -rf "$STAGE" && mkdir -p "$STAGE/lib"
for c in "${CONFIGS[@]}"; do
    mkdir -p "$STAGE/$c"
    while read -r name exe; do
        cp "$exe" "$STAGE/$c/$name"
        strip "$STAGE/$c/$name"
    done <"$WORK/$c.tests"
    if [[ -s "$WORK/$c.model" ]]; then
        cp "$(cat "$WORK/$c.model")" "$STAGE/$c/candle-model"
        strip "$STAGE/$c/candle-model"
    fi
done
# anycuda's C ABI (libcudart.so.13 for libmoe.a's references in the facade columns): the library
# and the name libraries of `anycuda libdir`, made here so the GPU machine needs no anycuda CLI.
cp "$ANYCUDA_TARGET/release/libanycuda_capi.so" "$STAGE/lib/"
strip "$STAGE/lib/libanycuda_capi.so"
ANYCUDA_CAPI_LIBRARY="$STAGE/lib/libanycuda_capi.so" "$ANYCUDA" libdir >"$STAGE/lib/libdir.txt"
rel="$(realpath --relative-to="$STAGE" "$(cat "$STAGE/lib/libdir.txt")")"
[[ $rel != ..* ]] || { log "anycuda libdir made its folder outside the bundle: $rel"; exit 1; }
echo "$rel" >"$STAGE/lib/libdir.txt"
# libdir links the C-ABI library by its absolute path here; the bundle moves, so make it relative.
ln -sfn "$(realpath --relative-to="$STAGE/$rel" "$STAGE/lib/libanycuda_capi.so")" "$STAGE/$rel/libanycuda_capi.so"
[[ -e "$STAGE/$rel/libanycuda_capi.so" ]] || { log "bad link $STAGE/$rel/libanycuda_capi.so"; exit 1; }
# candle's tests read a few data files relative to the package (e.g. tests/test.npy).
mkdir -p "$STAGE/candle-core"
cp -r "$CORE_SRC/tests" "$STAGE/candle-core/"
rm -f "$STAGE"/candle-core/tests/*.rs
{
    echo "candle $CANDLE_VERSION, built $(date -u +%Y-%m-%dT%H:%MZ) from anycuda $(git rev-parse --short HEAD)"
    echo "nvcc: $("$NVCC_BIN/nvcc" --version | tail -n1); CUDA_COMPUTE_CAP=$CUDA_COMPUTE_CAP; opt-level $OPT_LEVEL"
} >"$STAGE/BUILD.txt"
mkdir -p "$(dirname "$FILE")"
# One solid xz stream with a dictionary larger than a test executable: every executable holds
# the same candle-core and PTX, which the dictionary then finds in the one before it.
(cd "$STAGE" && tar -cf - BUILD.txt lib candle-core "${CONFIGS[@]}") | xz -T1 --lzma2=preset=9,dict=192MiB >"$FILE.tmp"
mv "$FILE.tmp" "$FILE"
du -sh "$STAGE"/* | sed 's/^/candle-build: unpacked /' >&2
log "bundle: $FILE, $(du -h "$FILE" | cut -f1) ($(stat -c %s "$FILE") bytes; the device carries at most 64 MiB)"
