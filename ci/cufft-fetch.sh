#!/usr/bin/env bash
# Fetches hipFFT's pinned inputs into <repo>/.cache/inputs (git-ignored); ci/fetch-inputs.sh runs
# it (cuFFT itself, PyPI nvidia-cufft, is fetched there with the other wheels). Idempotent: a
# second run only checks what is there.
#
#   bash ci/cufft-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/cufft.h       cuFFT headers (PyPI nvidia-cufft,
#   .cache/inputs/cuda/nvidia/cu13/lib/libcufft.so.12     fetched by ci/fetch-inputs.sh)
#   .cache/inputs/hipfft/usr/include/hipfft/hipfft.h      hipFFT 6.1.2 headers (Debian trixie
#                                                         libhipfft-dev, the ROCm 5.7.1 set)
#   .cache/inputs/hipfft/usr/lib/x86_64-linux-gnu/libhipfft.so.0, librocfft.so.0
#                                                         the libraries (trixie's glibc: they run in
#                                                         ci/rocm.sh 5.7's prefix, which has its own
#                                                         copy, not against bookworm's ROCm 5.2.3)
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hipfft-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPFFT_DEB_VERSION="${HIPFFT_DEB_VERSION:-$(pin HIPFFT_DEB_VERSION)}"
ROCFFT_DEB_VERSION="${ROCFFT_DEB_VERSION:-$(pin ROCFFT_DEB_VERSION)}"
for v in HIPFFT_DEB_VERSION ROCFFT_DEB_VERSION; do
    [[ -n "${!v}" ]] || { echo "cufft-fetch: no $v pin in ci/fetch-inputs.sh" >&2; exit 2; }
done
INPUTS="$ROOT/.cache/inputs"

HIPFFT_DIR="$INPUTS/hipfft"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$HIPFFT_DIR" "$INPUTS/hipfft-apt" trixie usr/include/hipfft/hipfft.h "hipfft-$HIPFFT_DEB_VERSION" \
    "libhipfft-dev=$HIPFFT_DEB_VERSION" "libhipfft0=$HIPFFT_DEB_VERSION" "librocfft0=$ROCFFT_DEB_VERSION"
echo "hipFFT headers: $HIPFFT_DIR/usr/include/hipfft (Debian trixie libhipfft-dev $HIPFFT_DEB_VERSION)"
