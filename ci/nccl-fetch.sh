#!/usr/bin/env bash
# Fetches the collective libraries' pinned inputs into <repo>/.cache/inputs (git-ignored);
# ci/fetch-inputs.sh runs it. Idempotent: a second run only checks what is there.
#
#   bash ci/nccl-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/nccl/nvidia/nccl/include/nccl.h     NCCL headers (PyPI nvidia-nccl-cu13)
#   .cache/inputs/nccl/nvidia/nccl/lib/libnccl.so.2   NCCL itself (the CI loading tests use it)
#   .cache/inputs/rccl/usr/include/rccl/rccl.h        RCCL headers (Debian trixie librccl-dev)
#   .cache/inputs/rccl/usr/lib/x86_64-linux-gnu/librccl.so.1  RCCL (needs glibc >= 2.38: ci/rocm.sh)
#
# The .deb comes through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/rccl-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
NCCL_VERSION="${NCCL_VERSION:-$(pin NCCL_VERSION)}"
RCCL_DEB_VERSION="${RCCL_DEB_VERSION:-$(pin RCCL_DEB_VERSION)}"
ROCM_SMI_DEB_VERSION="${ROCM_SMI_DEB_VERSION:-$(pin ROCM_SMI_DEB_VERSION)}"
[[ -n "$NCCL_VERSION" && -n "$RCCL_DEB_VERSION" ]] || { echo "nccl-fetch: no NCCL_VERSION/RCCL_DEB_VERSION pins in ci/fetch-inputs.sh" >&2; exit 2; }
INPUTS="$ROOT/.cache/inputs"
WHEELS="$INPUTS/wheels"
log() { printf 'nccl-fetch: %s\n' "$*" >&2; }
mkdir -p "$WHEELS"

# ---- NCCL: PyPI nvidia-nccl-cu13 ---------------------------------------------------------------
NCCL_DIR="$INPUTS/nccl"
if [[ ! -f "$NCCL_DIR/.nvidia-nccl-cu13-$NCCL_VERSION.done" || ! -e "$NCCL_DIR/nvidia/nccl/include/nccl.h" ]]; then
    whl="$(ls "$WHEELS"/nvidia_nccl_cu13-"$NCCL_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
    if [[ -z "$whl" ]]; then
        log "downloading nvidia-nccl-cu13==$NCCL_VERSION"
        python3 -m pip download --quiet --no-deps --only-binary=:all: \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_18_x86_64 \
            --platform manylinux2014_x86_64 --python-version 3.12 --implementation py \
            --abi none --dest "$WHEELS" "nvidia-nccl-cu13==$NCCL_VERSION"
        whl="$(ls "$WHEELS"/nvidia_nccl_cu13-"$NCCL_VERSION"-*.whl | head -n1)"
    fi
    rm -rf "$NCCL_DIR"
    mkdir -p "$NCCL_DIR"
    log "unpacking $(basename "$whl")"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$NCCL_DIR"
    touch "$NCCL_DIR/.nvidia-nccl-cu13-$NCCL_VERSION.done"
fi

# ---- RCCL: Debian trixie librccl-dev + librccl1 + librocm-smi64-1 (private apt, dpkg -x) ---------
RCCL_DIR="$INPUTS/rccl"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$RCCL_DIR" "$INPUTS/rccl-apt" trixie usr/lib/x86_64-linux-gnu/librocm_smi64.so.1 "rccl-$RCCL_DEB_VERSION" \
    "librccl-dev=$RCCL_DEB_VERSION" "librccl1=$RCCL_DEB_VERSION" "librocm-smi64-1=$ROCM_SMI_DEB_VERSION"
echo "NCCL headers:    $NCCL_DIR/nvidia/nccl/include (nvidia-nccl-cu13 $NCCL_VERSION)"
echo "RCCL headers:    $RCCL_DIR/usr/include/rccl (Debian trixie librccl-dev $RCCL_DEB_VERSION)"
