#!/usr/bin/env bash
# Fetches rocm-smi 5.2.3 (NVML on the HIP backend) into <repo>/.cache/inputs (git-ignored);
# ci/fetch-inputs.sh runs it. Idempotent: a second run only checks what is there.
#
#   bash ci/rocm-smi-fetch.sh
#
# Layout afterwards:
#   .cache/inputs/rocm-smi/usr/include/rocm_smi/rocm_smi.h           rocm-smi's header (Debian
#                                                                     bookworm librocm-smi-dev)
#   .cache/inputs/rocm-smi/usr/lib/librocm_smi64.so.1  the library (librocm-smi64-1;
#                                                                     loads without a GPU)
#
# The .debs come through a private apt configuration (.cache/inputs/rocm-smi-apt) and `dpkg -x`:
# nothing is installed system-wide. Tests find the library through ANYCUDA_ROCM_SMI_LIBRARY.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins live in ci/fetch-inputs.sh; defaults for a direct run.
pin() { sed -n "s/^$1=\"\\([^\"]*\\)\".*/\\1/p" "$ROOT/ci/fetch-inputs.sh" | head -n1; }
ROCM_SMI5_DEB_VERSION="${ROCM_SMI5_DEB_VERSION:-$(pin ROCM_SMI5_DEB_VERSION)}"
[[ -n "$ROCM_SMI5_DEB_VERSION" ]] || { echo "rocm-smi-fetch: no ROCM_SMI5_DEB_VERSION pin in ci/fetch-inputs.sh" >&2; exit 2; }
INPUTS="$ROOT/.cache/inputs"

SMI_DIR="$INPUTS/rocm-smi"
# shellcheck source=ci/deb-fetch.sh
source "$ROOT/ci/deb-fetch.sh"
deb_fetch "$SMI_DIR" "$INPUTS/rocm-smi-apt" bookworm usr/lib/librocm_smi64.so.1 "rocm-smi-$ROCM_SMI5_DEB_VERSION" \
    "librocm-smi64-1=$ROCM_SMI5_DEB_VERSION" "librocm-smi-dev=$ROCM_SMI5_DEB_VERSION"
echo "rocm-smi: $SMI_DIR/usr/lib/librocm_smi64.so.1 (Debian bookworm librocm-smi64-1 $ROCM_SMI5_DEB_VERSION)"
