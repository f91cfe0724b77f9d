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
log() { printf 'curand-fetch: %s\n' "$*" >&2; }

HIPRAND_DIR="$INPUTS/hiprand"
APT_DIR="$INPUTS/hiprand-apt"
PKGS=(libhiprand-dev libhiprand1 librocrand-dev librocrand1)
if [[ ! -f "$HIPRAND_DIR/.hiprand-$HIPRAND_DEB_VERSION.done" || ! -e "$HIPRAND_DIR/usr/include/hiprand/hiprand.h" ]]; then
    mkdir -p "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial" "$APT_DIR/debs"
    : >"$APT_DIR/state/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
        >"$APT_DIR/sources.list"
    opts=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null"
        -o "Dir::State=$APT_DIR/state" -o "Dir::State::status=$APT_DIR/state/status"
        -o "Dir::Cache=$APT_DIR/cache" -o "APT::Architecture=amd64" -o "APT::Architectures=amd64"
        -o "Debug::NoLocking=1" -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)")
    want=()
    for p in "${PKGS[@]}"; do
        compgen -G "$APT_DIR/debs/${p}_${HIPRAND_DEB_VERSION//:/%3a}_*.deb" >/dev/null || want+=("$p=$HIPRAND_DEB_VERSION")
    done
    if ((${#want[@]})); then
        log "downloading ${want[*]} (Debian bookworm)"
        apt-get "${opts[@]}" -q update >&2
        (cd "$APT_DIR/debs" && apt-get "${opts[@]}" -q download "${want[@]}" >&2)
    fi
    rm -rf "$HIPRAND_DIR"
    mkdir -p "$HIPRAND_DIR"
    for p in "${PKGS[@]}"; do
        dpkg -x "$(compgen -G "$APT_DIR/debs/${p}_${HIPRAND_DEB_VERSION//:/%3a}_*.deb" | head -n1)" "$HIPRAND_DIR"
    done
    touch "$HIPRAND_DIR/.hiprand-$HIPRAND_DEB_VERSION.done"
fi
echo "hipRAND headers: $HIPRAND_DIR/usr/include/hiprand (Debian bookworm libhiprand-dev $HIPRAND_DEB_VERSION)"
