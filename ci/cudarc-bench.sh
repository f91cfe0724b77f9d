#!/usr/bin/env bash
# Builds facades/cudarc/bench/overhead.rs twice: against cudarc 0.19.10 from crates.io
# (driver + nvrtc, dynamic loading, CUDA 13.0 API) and against anycuda-cudarc; and
# facades/cudarc/bench/ab.rs, which holds both and alternates them in one process; and the GEMM
# benchmark facades/cudarc/bench/blas.rs twice the same way (blas_cudarc, blas_facade). Not run in CI.
#
#   bash ci/cudarc-bench.sh bundle DIR   # release binaries DIR/bin/{overhead_cudarc,overhead_facade}
# Run them on the GPU machine with ci/cudarc-gpu.sh (5 interleaved rounds, best kept).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/cudarc-common.sh"
DEST="${2:?usage: $0 bundle DIR}"
[[ "${1:-}" == bundle ]] || { echo "usage: $0 bundle DIR" >&2; exit 2; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$DEST/bin"
for which in cudarc facade; do
    gen="$WORK/bench-$which"
    mkdir -p "$gen/src"
    cp "$ROOT/facades/cudarc/bench/overhead.rs" "$gen/src/main.rs"
    if [[ $which == cudarc ]]; then
        dep="cudarc = { version = \"=$CUDARC_VERSION\", default-features = false, features = [\"std\", \"driver\", \"nvrtc\", \"cuda-13000\", \"dynamic-loading\"] }"
    else
        dep="cudarc = { package = \"anycuda-cudarc\", path = \"$ROOT/facades/cudarc\", default-features = false, features = [\"std\", \"driver\", \"nvrtc\"] }"
        cp "$ROOT/Cargo.lock" "$gen/Cargo.lock"
    fi
    cat >"$gen/Cargo.toml" <<TOML
[package]
name = "overhead_$which"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
$dep
[profile.release]
debug = false
TOML
    cargo build --release --manifest-path "$gen/Cargo.toml"
    cp "$CARGO_TARGET_DIR/release/overhead_$which" "$DEST/bin/"
done
# Both in one binary, alternating in one process (facades/cudarc/bench/ab.rs).
gen="$WORK/bench-ab"
mkdir -p "$gen/src"
cp "$ROOT/facades/cudarc/bench/ab.rs" "$gen/src/main.rs"
cp "$ROOT/facades/cudarc/bench/ab_ops.rs" "$gen/src/ab_ops.rs"
cat >"$gen/Cargo.toml" <<TOML
[package]
name = "overhead_ab"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
cudarc_real = { package = "cudarc", version = "=$CUDARC_VERSION", default-features = false, features = ["std", "driver", "nvrtc", "cuda-13000", "dynamic-loading"] }
cudarc_facade = { package = "anycuda-cudarc", path = "$ROOT/facades/cudarc", default-features = false, features = ["std", "driver", "nvrtc"] }
[profile.release]
debug = false
TOML
cargo build --release --manifest-path "$gen/Cargo.toml"
cp "$CARGO_TARGET_DIR/release/overhead_ab" "$DEST/bin/"
# The GEMM benchmark (facades/cudarc/bench/blas.rs; ci/blas-bench.sh runs it), twice the same way.
for which in cudarc facade; do
    gen="$WORK/blas-$which"
    mkdir -p "$gen/src"
    cp "$ROOT/facades/cudarc/bench/blas.rs" "$gen/src/main.rs"
    if [[ $which == cudarc ]]; then
        dep="cudarc = { version = \"=$CUDARC_VERSION\", default-features = false, features = [\"std\", \"driver\", \"nvrtc\", \"cublas\", \"f16\", \"cuda-13000\", \"dynamic-loading\"] }"
    else
        dep="cudarc = { package = \"anycuda-cudarc\", path = \"$ROOT/facades/cudarc\", default-features = false, features = [\"std\", \"driver\", \"nvrtc\", \"cublas\", \"f16\"] }"
        cp "$ROOT/Cargo.lock" "$gen/Cargo.lock"
    fi
    cat >"$gen/Cargo.toml" <<TOML
[package]
name = "blas_$which"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
$dep
half = { version = "2", default-features = false }
# The counting allocator (count_allocations!), anycuda's test support: no anycuda crate.
anycuda-test = { path = "$ROOT/test-support" }
[profile.release]
debug = false
TOML
    cargo build --release --manifest-path "$gen/Cargo.toml"
    cp "$CARGO_TARGET_DIR/release/blas_$which" "$DEST/bin/"
done
echo "cudarc-bench: $DEST/bin/overhead_cudarc, overhead_facade, overhead_ab, blas_cudarc and blas_facade"
