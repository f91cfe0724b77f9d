#!/usr/bin/env bash
# Fetches hipBLASLt's pinned inputs into <repo>/.cache/inputs (git-ignored); ci/fetch-inputs.sh runs
# it (cuBLASLt itself, cublasLt.h and libcublasLt.so.13, comes with PyPI nvidia-cublas, fetched
# there with the other wheels). Idempotent: a second run only checks what is there.
#
#   bash ci/cublaslt-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/cublasLt.h        cuBLASLt header (PyPI nvidia-cublas,
#   .cache/inputs/cuda/nvidia/cu13/lib/libcublasLt.so.13      fetched by ci/fetch-inputs.sh)
#   .cache/inputs/hipblaslt/usr/include/hipblaslt/hipblaslt.h hipBLASLt 7.1.1 headers (Debian sid
#                                                             libhipblaslt-dev, amd64 only)
#   .cache/inputs/hipblaslt/usr/include/hipblas-common/       the status, operation and compute
#                                                             types it takes (libhipblas-common-dev)
#   .cache/inputs/hipblaslt/usr/include/hip/                  sid's HIP 6.4.3 headers (hipDataType;
#                                                             libamdhip64-dev)
# Only the headers: the library (libhipblaslt1, about 160 MB download, 680 MB installed, sid's
# glibc) is part of ci/rocm.sh 6.4's prefix, where it loads against that release's HIP.
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hipblaslt-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPBLASLT_DEB_VERSION="${HIPBLASLT_DEB_VERSION:-$(pin HIPBLASLT_DEB_VERSION)}"
HIPBLAS_COMMON_DEB_VERSION="${HIPBLAS_COMMON_DEB_VERSION:-$(pin HIPBLAS_COMMON_DEB_VERSION)}"
HIP_DEV_SID_DEB_VERSION="${HIP_DEV_SID_DEB_VERSION:-$(pin HIP_DEV_SID_DEB_VERSION)}"
[[ -n "$HIPBLASLT_DEB_VERSION" && -n "$HIPBLAS_COMMON_DEB_VERSION" && -n "$HIP_DEV_SID_DEB_VERSION" ]] ||
    { echo "cublaslt-fetch: a pin is missing in ci/fetch-inputs.sh" >&2; exit 2; }
INPUTS="$ROOT/.cache/inputs"

HIPBLASLT_DIR="$INPUTS/hipblaslt"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$HIPBLASLT_DIR" "$INPUTS/hipblaslt-apt" sid usr/include/hip/library_types.h \
    "hipblaslt-$HIPBLASLT_DEB_VERSION-common-$HIPBLAS_COMMON_DEB_VERSION-hip-$HIP_DEV_SID_DEB_VERSION" \
    "libhipblaslt-dev=$HIPBLASLT_DEB_VERSION" "libhipblas-common-dev=$HIPBLAS_COMMON_DEB_VERSION" \
    "libamdhip64-dev=$HIP_DEV_SID_DEB_VERSION"
echo "hipBLASLt headers: $HIPBLASLT_DIR/usr/include/hipblaslt (Debian sid libhipblaslt-dev $HIPBLASLT_DEB_VERSION)"
