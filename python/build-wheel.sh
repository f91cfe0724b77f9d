#!/usr/bin/env bash
# Builds the `anycuda` wheel (pip install anycuda): the anycuda command and anycuda's C ABI.
#
#   bash python/build-wheel.sh [OUT_DIR]        default OUT_DIR: python/dist
#
# 1. cargo builds the C-ABI library (anycuda-capi) and CUDA 12's runtime library
#    (anycuda-cudart12) in release, and copies them, stripped, into python/anycuda.data/scripts/
#    (installed beside the command, where `anycuda libdir` finds them).
# 2. maturin (the exact version pyproject.toml pins, installed into a virtual environment under
#    .cache/maturin-venv, never system-wide) builds the `anycuda` binary and the wheel.
# Prints the wheel's path last. Needs cargo, python3 and PyPI (the first time, for maturin).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/python/dist}"
cd "$ROOT"
MATURIN_VERSION="$(sed -n 's/^requires = \["maturin==\([0-9.]*\)"\]/\1/p' python/pyproject.toml)"
[[ -n "$MATURIN_VERSION" ]] || { echo "build-wheel.sh: no maturin pin in python/pyproject.toml" >&2; exit 2; }

# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT" # .cache lives outside the clone (ci/cache-dir.sh)
VENV="$ROOT/.cache/maturin-venv"
if [[ "$("$VENV/bin/maturin" --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ]]; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi

cargo build --release --locked -p anycuda-capi -p anycuda-cudart12
DATA="$ROOT/python/anycuda.data/scripts"
rm -rf "$ROOT/python/anycuda.data"
mkdir -p "$DATA"
for lib in libanycuda_capi.so libanycuda_cudart12.so; do
    strip --strip-unneeded -o "$DATA/$lib" "target/release/$lib"
done

mkdir -p "$OUT"
# maturin reads python/pyproject.toml (manifest-path = the workspace's Cargo.toml).
(cd "$ROOT/python" && "$VENV/bin/maturin" build --release --locked --out "$OUT" >&2)
# The newest wheel: the one just built (OUT may hold older ones). Wheel names have no spaces.
# shellcheck disable=SC2012
ls -t "$OUT"/anycuda-*.whl | head -n 1
