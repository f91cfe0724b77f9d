#!/usr/bin/env bash
# Builds the `anycuda` wheel (python/build-wheel.sh), installs it into a fresh virtual
# environment (offline: the wheel only) and checks it as a user would:
#   python -m anycuda info / libdir / run, the installed `anycuda` command, exit statuses, and,
#   where CI's NVRTC is unpacked (.cache/inputs/cuda/nvidia/cu13/lib), that anycuda inside
#   `python -m anycuda run` finds NVIDIA's NVRTC in the venv's own nvidia/cu13/lib wheel folder.
#
#   bash python/test-wheel.sh [WHEEL]     WHEEL: test this wheel instead of building one
# Ends with "test-wheel: N passed, M failed"; exits 1 when a check failed. No GPU needed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$SECONDS
WORK="$(mktemp -d /tmp/anycuda-wheel-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
if (($#)); then
    WHEEL="$1"
else
    WHEEL="$(bash python/build-wheel.sh "$WORK/dist")"
fi
built=$SECONDS
echo "test-wheel: wheel $WHEEL ($((built - start)) s to build)"

VENV="$WORK/venv"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps "$WHEEL"
PY="$VENV/bin/python"
# The venv is used by path, never activated: what the child Python finds, it finds by itself.
unset VIRTUAL_ENV CONDA_PREFIX ANYCUDA_SITE_PACKAGES ANYCUDA_CAPI_LIBRARY ANYCUDA_BACKEND

passed=0 failed=0
check() { # check NAME COMMAND...: passes when COMMAND succeeds
    local name="$1"
    shift
    if out="$("$@" 2>&1)"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        printf '%s\n' "$out" | tail -n 20 | sed 's/^/     /'
    fi
}

check "the command and the C ABI are installed side by side in bin/" \
    test -x "$VENV/bin/anycuda" -a -f "$VENV/bin/libanycuda_capi.so"
check "python -m anycuda info --verbose lists the libraries and the search" \
    bash -c "'$PY' -m anycuda info --verbose | grep -q '^library search (each try'"
check "python -m anycuda libdir makes the folder of NVIDIA-named libraries" \
    bash -c "d=\$('$PY' -m anycuda libdir) && test -e \"\$d/libcuda.so.1\" -a -e \"\$d/libnvrtc.so.13\" -a -e \"\$d/libcudart.so.13\" -a -e \"\$d/libcudart.so.12\""
check "python -m anycuda run -c 'print(1)' prints 1" \
    bash -c "test \"\$('$PY' -m anycuda run -c 'print(1)')\" = 1"
check "run uses this interpreter and preloads anycuda's C ABI" \
    "$PY" -m anycuda run -c "
import sys, os
assert os.path.realpath(sys.executable) == os.path.realpath('$PY'), sys.executable
assert sys.prefix == os.path.realpath('$VENV') or sys.prefix == '$VENV', sys.prefix
maps = open('/proc/self/maps').read()
assert 'libanycuda_capi.so' in maps
assert os.environ['LD_LIBRARY_PATH'].split(':')[0].endswith('anycuda-c-abi')
"
check "run passes the exit status through" \
    bash -c "'$PY' -m anycuda run -c 'import sys; sys.exit(3)'; test \$? = 3"
check "run --backend hip sets ANYCUDA_BACKEND" \
    bash -c "test \"\$('$PY' -m anycuda run --backend hip -c 'import os; print(os.environ[\"ANYCUDA_BACKEND\"])')\" = hip"
check "the installed anycuda command runs any program" \
    bash -c "'$VENV/bin/anycuda' run -- sh -c 'echo \$LD_PRELOAD' | grep -q 'anycuda-c-abi/libcuda.so.1'"

NVRTC_DIR="$ROOT/.cache/inputs/cuda/nvidia/cu13/lib"
if [[ -f "$NVRTC_DIR/libnvrtc.so.13" ]]; then
    # NVIDIA's NVRTC wheel, as pip lays it out (links to CI's unpacked copy).
    SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    mkdir -p "$SITE/nvidia/cu13/lib"
    ln -s "$NVRTC_DIR"/libnvrtc* "$SITE/nvidia/cu13/lib/"
    check "python -m anycuda info finds NVRTC in this Python's nvidia/cu13/lib" \
        bash -c "env -u CUDA_PATH -u CUDA_HOME -u ANYCUDA_NVRTC_LIBRARY '$PY' -m anycuda info --json | '$PY' -c '
import json, sys
v = json.load(sys.stdin)
cuda = [b for b in v[\"backends\"] if b[\"backend\"] == \"cuda\"][0]
nvrtc = [l for l in cuda[\"libraries\"] if l[\"role\"] == \"nvrtc\"][0]
assert nvrtc[\"path\"] == \"$SITE/nvidia/cu13/lib/libnvrtc.so.13\", nvrtc
'"
    check "under run, Python's libnvrtc.so.13 is anycuda's, which uses NVIDIA's from the venv" \
        env -u CUDA_PATH -u CUDA_HOME -u ANYCUDA_NVRTC_LIBRARY "$PY" -m anycuda run --backend cuda -c "
import ctypes
lib = ctypes.CDLL('libnvrtc.so.13')
major, minor = ctypes.c_int(), ctypes.c_int()
assert lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0
assert major.value >= 12, major.value
files = {l.split()[-1] for l in open('/proc/self/maps')}
assert any(f.endswith('/libanycuda_capi.so') for f in files)
assert any(f.endswith('/nvidia/cu13/lib/libnvrtc.so.13') for f in files), files
"
else
    echo "skip NVRTC checks: no $NVRTC_DIR/libnvrtc.so.13 (bash ci/fetch-inputs.sh)"
fi

echo "test-wheel: $((SECONDS - start)) s in all ($((built - start)) s building the wheel)"
echo "test-wheel: $passed passed, $failed failed"
((failed == 0))
