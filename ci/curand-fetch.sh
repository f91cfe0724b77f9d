#!/usr/bin/env bash
# Fetches cuRAND's and hipRAND's pinned inputs into <repo>/.cache/inputs (git-ignored);
# ci/fetch-inputs.sh runs it. Idempotent: a second run only checks what is there.
#
#   bash ci/curand-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/curand.h     cuRAND headers (PyPI nvidia-curand,
#   .cache/inputs/cuda/nvidia/cu13/lib/libcurand.so.10   fetched by ci/fetch-inputs.sh)
#   .cache/inputs/hiprand/usr/include/hiprand/hiprand.h  hipRAND 5.3.3 headers (Debian bookworm
#                                                        libhiprand-dev, the ROCm 5.2.3 set)
#   .cache/inputs/hiprand/usr/lib/x86_64-linux-gnu/libhiprand.so.1, librocrand.so.1
#                                                        the libraries (bookworm's glibc: they run
#                                                        here against the system's ROCm 5.2.3)
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hiprand-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPRAND_DEB_VERSION="${HIPRAND_DEB_VERSION:-$(pin HIPRAND_DEB_VERSION)}"
[[ -n "$HIPRAND_DEB_VERSION" ]] || { echo "curand-fetch: no HIPRAND_DEB_VERSION pin in ci/fetch-inputs.sh" >&2; exit 2; }
INPUTS="$ROOT/.cache/inputs"

HIPRAND_DIR="$INPUTS/hiprand"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$HIPRAND_DIR" "$INPUTS/hiprand-apt" bookworm usr/include/hiprand/hiprand.h "hiprand-$HIPRAND_DEB_VERSION" \
    "libhiprand-dev=$HIPRAND_DEB_VERSION" "libhiprand1=$HIPRAND_DEB_VERSION" "librocrand-dev=$HIPRAND_DEB_VERSION" "librocrand1=$HIPRAND_DEB_VERSION"
echo "hipRAND headers: $HIPRAND_DIR/usr/include/hiprand (Debian bookworm libhiprand-dev $HIPRAND_DEB_VERSION)"
