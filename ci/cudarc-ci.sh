#!/usr/bin/env bash
# CI for the cudarc facade (no GPU; a few minutes on 2 cores): formatting of the crates outside
# the workspace, the facade's feature tests, cudarc's examples and unit tests compiled against
# the facade (its NVRTC tests run), the [patch] proof built and run, and candle's kernels compiled
# through compile_ptx. Expects CUDA_PATH pointing at the pinned CUDA 13.0 inputs (.ci/run sets it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export ANYCUDA_CUDARC_QUIET=1 CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
say() { printf '\n---- cudarc: %s\n' "$*"; }

say "rustfmt (patch package, proof, benchmark source)"
rustfmt --edition 2021 --check facades/cudarc-patch/src/lib.rs facades/cudarc-proof/src/main.rs \
    facades/cudarc-proof/user-lib/src/lib.rs facades/cudarc/bench/overhead.rs \
    facades/cudarc/bench/ab.rs facades/cudarc/bench/ab_ops.rs

say "facade tests with the f16/f8 features"
cargo test --locked -p anycuda-cudarc --features f16,f8 --test api_shape --test cublas_host \
    --test cublaslt_host

say "cudarc 0.19.10's examples, unchanged, against the facade"
bash ci/cudarc-examples.sh build

say "cudarc 0.19.10's unit tests against the facade (built; the NVRTC ones run)"
bash ci/cudarc-unit-tests.sh build
ANYCUDA_BACKEND=cuda bash ci/cudarc-unit-tests.sh run nvrtc::

say "out-of-scope modules: using cudarc::cudnn fails to compile, naming the module"
# `f16` beside `cudnn`: the features of the examples' crate (ci/cudarc-examples.sh says why),
# so this build reuses theirs.
oos="$CARGO_TARGET_DIR/cudarc-proofs/out-of-scope"
mkdir -p "$oos/src"
cat >"$oos/Cargo.toml" <<TOML
[package]
name = "uses-cudnn"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
cudarc = { package = "anycuda-cudarc", path = "$ROOT/facades/cudarc", features = ["cudnn", "f16"] }
TOML
echo 'use cudarc::cudnn::Cudnn; fn main() { let _ = std::mem::size_of::<Cudnn>(); }' >"$oos/src/main.rs"
cp Cargo.lock "$oos/Cargo.lock"
if out="$(env -u ANYCUDA_CUDARC_QUIET cargo build --manifest-path "$oos/Cargo.toml" 2>&1)"; then
    echo "using cudarc::cudnn compiled; it must not" >&2; exit 1
fi
grep -q 'could not find `cudnn` in `cudarc`' <<<"$out" || { echo "$out" >&2; exit 1; }
grep -q 'cudarc::cudnn (cuDNN) is not provided' <<<"$out" || { echo "$out" >&2; exit 1; }
echo "ok: the build names cudarc::cudnn and says why"

say "[patch.crates-io] proof: cudarc reached through a dependency"
cargo build --locked --manifest-path facades/cudarc-proof/Cargo.toml
cargo tree --locked --manifest-path facades/cudarc-proof/Cargo.toml -i cudarc | grep -q 'facades/cudarc-patch' \
    || { echo "cudarc does not come from the patch" >&2; exit 1; }
"$CARGO_TARGET_DIR/debug/cudarc-proof"

say "downstream workload: candle-kernels through compile_ptx (launches SKIP without a GPU)"
ANYCUDA_BACKEND=cuda CUDA_INCLUDE="${CUDA_PATH:?}/include" bash ci/cudarc-workload.sh
