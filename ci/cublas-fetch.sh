#!/usr/bin/env bash
# Fetches hipBLAS's pinned inputs into <repo>/.cache/inputs (git-ignored); ci/fetch-inputs.sh runs
# it (cuBLAS itself, PyPI nvidia-cublas, is fetched there with the other wheels). Idempotent: a
# second run only checks what is there.
#
#   bash ci/cublas-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/cuda/nvidia/cu13/include/cublas_api.h   cuBLAS headers (PyPI nvidia-cublas,
#   .cache/inputs/cuda/nvidia/cu13/lib/libcublas.so.13     fetched by ci/fetch-inputs.sh)
#   .cache/inputs/hipblas/usr/include/hipblas/hipblas.h    hipBLAS 5.5.1 headers (Debian trixie
#                                                          libhipblas-dev, the ROCm 5.7.1 set; the
#                                                          release ci/hip-nvidia builds for NVIDIA)
#   .cache/inputs/hipblas/usr/lib/x86_64-linux-gnu/libhipblas.so.0.1
#                                                          the library (trixie's glibc and rocBLAS:
#                                                          it runs in ci/rocm.sh 5.7's prefix, not
#                                                          against bookworm's ROCm 5.2.3)
#   .cache/inputs/hipblas2/usr/include/hipblas/hipblas.h   hipBLAS 6.4.4 headers (Debian sid
#   .cache/inputs/hipblas2/usr/include/hipblas-common/     libhipblas-dev, libhipblas-common-dev:
#                                                          the 2.x ABI, hipDataType and
#                                                          hipblasComputeType_t; codegen checks
#                                                          its GEMM signatures and pairs the
#                                                          compute types by name)
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hipblas-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPBLAS_DEB_VERSION="${HIPBLAS_DEB_VERSION:-$(pin HIPBLAS_DEB_VERSION)}"
HIPBLAS2_DEB_VERSION="${HIPBLAS2_DEB_VERSION:-$(pin HIPBLAS2_DEB_VERSION)}"
HIPBLAS_COMMON_DEB_VERSION="${HIPBLAS_COMMON_DEB_VERSION:-$(pin HIPBLAS_COMMON_DEB_VERSION)}"
for v in HIPBLAS_DEB_VERSION HIPBLAS2_DEB_VERSION HIPBLAS_COMMON_DEB_VERSION; do
    [[ -n "${!v}" ]] || { echo "cublas-fetch: no $v pin in ci/fetch-inputs.sh" >&2; exit 2; }
done
INPUTS="$ROOT/.cache/inputs"

HIPBLAS_DIR="$INPUTS/hipblas"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$HIPBLAS_DIR" "$INPUTS/hipblas-apt" trixie usr/include/hipblas/hipblas.h "hipblas-$HIPBLAS_DEB_VERSION" \
    "libhipblas-dev=$HIPBLAS_DEB_VERSION" "libhipblas0=$HIPBLAS_DEB_VERSION"
echo "hipBLAS headers: $HIPBLAS_DIR/usr/include/hipblas (Debian trixie libhipblas-dev $HIPBLAS_DEB_VERSION)"

# hipBLAS 2.x (sid): headers only for the codegen (its library runs in ci/rocm.sh 6.4's prefix,
# with rocBLAS, which this input leaves out).
HIPBLAS2_DIR="$INPUTS/hipblas2"
deb_fetch "$HIPBLAS2_DIR" "$INPUTS/hipblas2-apt" sid usr/include/hipblas/hipblas.h "hipblas-$HIPBLAS2_DEB_VERSION" \
    "libhipblas-dev=$HIPBLAS2_DEB_VERSION" "libhipblas-common-dev=$HIPBLAS_COMMON_DEB_VERSION"
echo "hipBLAS 2.x headers: $HIPBLAS2_DIR/usr/include/hipblas (Debian sid libhipblas-dev $HIPBLAS2_DEB_VERSION)"
