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
#
# The .debs come through a private apt configuration (own sources.list, state and cache folders
# under .cache/inputs/hipblas-apt) and `dpkg -x`: nothing is installed system-wide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh (codegen reads them there); defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
HIPBLAS_DEB_VERSION="${HIPBLAS_DEB_VERSION:-$(pin HIPBLAS_DEB_VERSION)}"
[[ -n "$HIPBLAS_DEB_VERSION" ]] || { echo "cublas-fetch: no HIPBLAS_DEB_VERSION pin in ci/fetch-inputs.sh" >&2; exit 2; }
INPUTS="$ROOT/.cache/inputs"
log() { printf 'cublas-fetch: %s\n' "$*" >&2; }

HIPBLAS_DIR="$INPUTS/hipblas"
APT_DIR="$INPUTS/hipblas-apt"
PKGS=(libhipblas-dev libhipblas0)
if [[ ! -f "$HIPBLAS_DIR/.hipblas-$HIPBLAS_DEB_VERSION.done" || ! -e "$HIPBLAS_DIR/usr/include/hipblas/hipblas.h" ]]; then
    mkdir -p "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/debs"
    : >"$APT_DIR/state/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
        >"$APT_DIR/sources.list"
    opts=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null"
        -o "Dir::State=$APT_DIR/state" -o "Dir::State::status=$APT_DIR/state/status"
        -o "Dir::Cache=$APT_DIR/cache" -o "APT::Architecture=amd64" -o "APT::Architectures=amd64"
        -o "Debug::NoLocking=1" -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)")
    want=()
    for p in "${PKGS[@]}"; do
        compgen -G "$APT_DIR/debs/${p}_${HIPBLAS_DEB_VERSION//:/%3a}_*.deb" >/dev/null || want+=("$p=$HIPBLAS_DEB_VERSION")
    done
    if ((${#want[@]})); then
        log "downloading ${want[*]} (Debian trixie)"
        apt-get "${opts[@]}" -q update >&2
        (cd "$APT_DIR/debs" && apt-get "${opts[@]}" -q download "${want[@]}" >&2)
    fi
    rm -rf "$HIPBLAS_DIR"
    mkdir -p "$HIPBLAS_DIR"
    for p in "${PKGS[@]}"; do
        dpkg -x "$(compgen -G "$APT_DIR/debs/${p}_${HIPBLAS_DEB_VERSION//:/%3a}_*.deb" | head -n1)" "$HIPBLAS_DIR"
    done
    touch "$HIPBLAS_DIR/.hipblas-$HIPBLAS_DEB_VERSION.done"
fi
echo "hipBLAS headers: $HIPBLAS_DIR/usr/include/hipblas (Debian trixie libhipblas-dev $HIPBLAS_DEB_VERSION)"
