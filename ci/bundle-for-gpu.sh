#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no Rust toolchain): the anycuda CLI, the examples,
# every test executable of anycuda (.device/tests/) and those of anycuda-hip that hold GPU tests
# (#[ignore]d ones; .device/tests/hip/, run on the HIP backend only), copied with the kernel
# corpus into .device/ (git-ignored, carried over).
#   bash ci/bundle-for-gpu.sh [DEST]     # default DEST: .device (cargo xtask gpu pack runs it)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/.device}"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$DEST/bin" "$DEST/tests/hip"
rm -f "$DEST"/bin/* "$DEST"/tests/* "$DEST"/tests/hip/* 2>/dev/null || true

# Built with the `half` feature, so the GPU tests cover core::Blas's f16 and bf16 GEMMs.
# Only this package's examples (target/release/examples also holds other crates' builds, such as
# the cudarc facade's, which ci/cudarc-bundle.sh bundles with their own arguments).
cargo build --release --locked -p anycuda -p anycuda-cli --features anycuda/half --bin anycuda --examples --message-format=json 2>/dev/null \
    | python3 -c '
import json, shutil, sys, os
dest = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] in (["example"], ["bin"]):
        shutil.copy(m["executable"], os.path.join(dest, m["target"]["name"]))
' "$DEST/bin"

# The C ABI (anycuda-capi) in lib/ (bin/ holds only programs, which ci/gpu-test.sh runs);
# ci/capi-gpu.sh names it to `anycuda libdir` with ANYCUDA_CAPI_LIBRARY.
mkdir -p "$DEST/lib"
cargo build --release --locked -p anycuda-capi -p anycuda-cudart12
cp "$TARGET/release/libanycuda_capi.so" "$TARGET/release/libanycuda_cudart12.so" "$DEST/lib/"
# CUDA 12's runtime headers and NVIDIA's libcudart.so.12 (the GPU machine has no PyPI):
# ci/capi-gpu.sh builds its CUDA 12 program against them.
CUDA12="$ROOT/.cache/inputs/cuda/nvidia/cuda_runtime"
[[ -f "$CUDA12/lib/libcudart.so.12" ]] || bash ci/fetch-inputs.sh
rm -rf "$DEST/cuda12" && mkdir -p "$DEST/cuda12/lib"
cp -r "$CUDA12/include" "$DEST/cuda12/"
cp "$CUDA12/lib/libcudart.so.12" "$DEST/cuda12/lib/"
# CUDA 12.9's static runtime, for ci/static-gpu.sh (a program linked with it on the GPU machine).
cp "$CUDA12/lib/libcudart_static.a" "$DEST/cuda12/lib/"

# Test executables: cargo names them <test>-<hash>; keep the test name.
cargo test --release --locked --no-run --message-format=json -p anycuda --features half 2>/dev/null \
    | python3 -c '
import json, shutil, sys, os
dest = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        shutil.copy(m["executable"], os.path.join(dest, m["target"]["name"]))
' "$DEST/tests"
# anycuda-hip's integration tests call the HIP backend directly (the legacy launch, rules both
# APIs share); those with GPU tests (listed by --list --ignored) go to tests/hip/.
cargo test --release --locked --no-run --message-format=json -p anycuda-hip 2>/dev/null \
    | python3 -c '
import json, shutil, subprocess, sys, os
dest = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        listed = subprocess.run([m["executable"], "--list", "--ignored"], capture_output=True, text=True).stdout
        if any(l.endswith(": test") for l in listed.splitlines()):
            shutil.copy(m["executable"], os.path.join(dest, m["target"]["name"]))
' "$DEST/tests/hip"
[[ -n "$(ls "$DEST/tests/hip")" ]] || { echo "bundle-for-gpu: no anycuda-hip GPU test binaries" >&2; exit 1; }
rm -rf "$DEST/kernels" && cp -r tests/kernels "$DEST/kernels"
ls "$DEST/bin" "$DEST/tests" "$DEST/tests/hip"
du -sh "$DEST"
