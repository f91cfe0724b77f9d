#!/usr/bin/env bash
# Fetches hipSPARSE's pinned inputs into <repo>/.cache/inputs (git-ignored); ci/fetch-inputs.sh
# runs it (cuSPARSE itself, PyPI nvidia-cusparse, is fetched there with the other wheels).
# Idempotent: a second run only checks what is there.
#
#   bash ci/cusparse-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/cusparse.h      cuSPARSE headers (PyPI nvidia-cusparse,
#   .cache/inputs/cuda/nvidia/cu13/lib/libcusparse.so.12    fetched by ci/fetch-inputs.sh)
#   .cache/inputs/hipsparse/usr/include/hipsparse/hipsparse.h
#                                                          hipSPARSE 5.3.3 headers (Debian bookworm
#                                                          libhipsparse-dev, the ROCm 5.2.3 set)
#   .cache/inputs/hipsparse/usr/lib/x86_64-linux-gnu/libhipsparse.so.0, librocsparse.so.0
#                                                          the libraries (bookworm's glibc: they run
#                                                          here against the system's ROCm 5.2.3)
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hipsparse-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPSPARSE_DEB_VERSION="${HIPSPARSE_DEB_VERSION:-$(pin HIPSPARSE_DEB_VERSION)}"
ROCSPARSE_DEB_VERSION="${ROCSPARSE_DEB_VERSION:-$(pin ROCSPARSE_DEB_VERSION)}"
for v in HIPSPARSE_DEB_VERSION ROCSPARSE_DEB_VERSION; do
    [[ -n "${!v}" ]] || { echo "cusparse-fetch: no $v pin in ci/fetch-inputs.sh" >&2; exit 2; }
done
INPUTS="$ROOT/.cache/inputs"

HIPSPARSE_DIR="$INPUTS/hipsparse"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$HIPSPARSE_DIR" "$INPUTS/hipsparse-apt" bookworm usr/include/hipsparse/hipsparse.h "hipsparse-$HIPSPARSE_DEB_VERSION" \
    "libhipsparse-dev=$HIPSPARSE_DEB_VERSION" "libhipsparse0=$HIPSPARSE_DEB_VERSION" "librocsparse0=$ROCSPARSE_DEB_VERSION"
echo "hipSPARSE headers: $HIPSPARSE_DIR/usr/include/hipsparse (Debian bookworm libhipsparse-dev $HIPSPARSE_DEB_VERSION)"
