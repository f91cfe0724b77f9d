#!/usr/bin/env bash
# cudarc 0.19.10 itself (from crates.io, never committed): its 12 driver/NVRTC examples and its
# own unit tests, built against real cudarc, so the GPU machine can run each proof on cudarc
# itself next to the facade. A failure both share belongs to the machine, the driver or the test,
# not to the facade (ci/cudarc-gpu.sh prints the two side by side).
#
#   bash ci/cudarc-upstream.sh bundle DIR     # DIR/bin/upstream-<example>, DIR/bin/upstream_unit_tests
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/cudarc-common.sh"
[[ "${1:-}" == bundle ]] || { echo "usage: $0 bundle DIR" >&2; exit 2; }
DEST="${2:?usage: $0 bundle DIR}"
SRC="$(cudarc_src)"
GEN="$WORK/upstream-src"
rm -rf "$GEN" && cp -r "$SRC" "$GEN" && chmod -R u+w "$GEN"
# Its own workspace (the copy sits under this repository's target/).
printf '\n[workspace]\n' >>"$GEN/Cargo.toml"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# The same CUDA API version and modules the facade's proofs use (cublas, cublaslt: their unit tests
# run beside the facade's); cudarc loads libcuda, NVRTC, cuBLAS and cuBLASLt at run time
# (dynamic-loading), as on the facade.
FEATURES="std,driver,nvrtc,cublas,cublaslt,f16,cuda-13000,dynamic-loading"
EXAMPLES="${CUDARC_EXAMPLES[*]}"
mkdir -p "$DEST/bin"
args=()
for e in $EXAMPLES; do args+=(--example "$e"); done
cargo build --release --manifest-path "$GEN/Cargo.toml" --no-default-features --features "$FEATURES" "${args[@]}"
for e in $EXAMPLES; do cp "$CARGO_TARGET_DIR/release/examples/$e" "$DEST/bin/upstream-$e"; done
exe="$(cargo test --release --manifest-path "$GEN/Cargo.toml" --no-default-features --features "$FEATURES" \
    --lib --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')"
cp "$exe" "$DEST/bin/upstream_unit_tests"
echo "cudarc-upstream: $(echo $EXAMPLES | wc -w) examples and the unit tests of cudarc $CUDARC_VERSION in $DEST/bin"
