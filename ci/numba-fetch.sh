#!/usr/bin/env bash
# Makes the Python environment that compiles the numba-cuda kernel corpus (tests/kernels/numba)
# to PTX with no GPU: numba-cuda and what it imports, every wheel pinned by exact version and
# installed with --no-deps (nothing unpinned comes in), plus NVIDIA's NVVM (libnvvm, libdevice),
# NVRTC and runtime wheels, the ones ci/candle-fetch.sh and ci/fetch-inputs.sh already pin.
# Idempotent: a second run only checks the stamp. Prints the environment's python on stdout.
#
#   bash ci/numba-fetch.sh          # then: "$(bash ci/numba-fetch.sh)" tests/kernels/numba/compile.py OUT
#
# Layout (under .cache, outside the clone: ci/cache-dir.sh):
#   .cache/inputs/wheels/numba/     the downloaded wheels (for this interpreter's Python version)
#   .cache/numba-venv/              the virtual environment (made with the system's python3)
set -euo pipefail

# ---- pins: numba-cuda 0.30.4 (the GPU machine's) and the versions pip resolved for it ----------
PYPI=(
    numba-cuda==0.30.4
    numba==0.68.1
    llvmlite==0.50.0
    numpy==2.4.6
    cuda-bindings==13.5.0
    cuda-core==1.2.2
    cuda-pathfinder==1.9.1
    packaging==26.4
)
# NVIDIA's wheels, shared with the other fetch scripts (file name and SHA-256).
NVIDIA_WHEELS=(
    "nvidia_nvvm-13.0.88-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0"
    "nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548"
    "nvidia_cuda_nvrtc-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl 86b4d68058807988b7d9af5b44917a0601e9c337f35ccd657bfb3c759ff8d8bc"
)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT"
WHEEL_DIR="$ROOT/.cache/inputs/wheels"
NUMBA_WHEELS="$WHEEL_DIR/numba"
VENV="$ROOT/.cache/numba-venv"
log() { printf 'numba-fetch: %s\n' "$*" >&2; }
die() { printf 'numba-fetch: error: %s\n' "$*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 is needed"
pyver="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
STAMP="$VENV/.done-$(printf '%s\n' "$pyver" "${PYPI[@]}" "${NVIDIA_WHEELS[@]}" | sha256sum | cut -c1-16)"
if [[ -f "$STAMP" && -x "$VENV/bin/python" ]]; then
    echo "$VENV/bin/python"
    exit 0
fi
mkdir -p "$NUMBA_WHEELS"

nvidia=()
for entry in "${NVIDIA_WHEELS[@]}"; do
    read -r whl sum <<<"$entry"
    if [[ ! -f "$WHEEL_DIR/$whl" ]]; then
        name="${whl%%-*}" version="${whl#*-}" version="${version%%-*}"
        log "downloading ${name//_/-}==$version from PyPI"
        python3 -m pip download --quiet --no-deps --only-binary=:all: \
            --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux2010_x86_64 --platform manylinux_2_12_x86_64 \
            --python-version 3.12 --implementation py --abi none \
            --dest "$WHEEL_DIR" "${name//_/-}==$version" || die "pip download of ${name//_/-}==$version failed"
        [[ -f "$WHEEL_DIR/$whl" ]] || die "pip did not download $whl"
    fi
    if [[ "$sum" != - && "$(sha256sum "$WHEEL_DIR/$whl" | cut -d' ' -f1)" != "$sum" ]]; then
        die "$whl: SHA-256 differs from the pin $sum"
    fi
    nvidia+=("$WHEEL_DIR/$whl")
done

# The Python wheels for this interpreter (numba, llvmlite, numpy, cuda-bindings and cuda-core are
# built per Python version); a second machine with the same Python finds them in the cache.
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --no-index \
    --find-links "$NUMBA_WHEELS" --dest "$NUMBA_WHEELS" "${PYPI[@]}" 2>/dev/null; then
    log "downloading ${PYPI[*]} from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$NUMBA_WHEELS" "${PYPI[@]}" ||
        die "pip download failed"
fi

log "making $VENV (Python $pyver)"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --no-deps --no-index --find-links "$NUMBA_WHEELS" \
    "${PYPI[@]}" "${nvidia[@]}" || die "pip install into $VENV failed"
# It must import and find NVVM without a GPU.
"$VENV/bin/python" -c 'from numba import cuda; from cuda.bindings import nvvm; print(nvvm.version())' >/dev/null ||
    die "numba-cuda does not import in $VENV"
touch "$STAMP"
echo "$VENV/bin/python"
