#!/usr/bin/env bash
# Shared by ci/cudarc-*.sh (sourced): fetches a crate's published source through cargo (never
# committed) and prints where it is.  cudarc_src -> cudarc 0.19.10's source folder.
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
CUDARC_VERSION="0.19.10"
WORK="${CUDARC_WORK:-$ROOT/target/cudarc-proofs}"
export ANYCUDA_CUDARC_QUIET=1
# cudarc's examples that use only the driver and NVRTC modules. Out of scope (not driver/NVRTC):
# 08-cupti (CUPTI), cufile-copy (cuFile).
CUDARC_EXAMPLES=(01-allocate 02-copy 03-launch-kernel 04-streams 05-device-repr 06-threading
    09-constant-memory 10-function-attributes 12-context-config 13-copy-multi-gpu
    matmul-kernel nvrtc-compile)

# crate_src NAME VERSION: the unpacked source of NAME=VERSION from crates.io (cargo's cache).
crate_src() {
    local name="$1" version="$2" dir="$WORK/fetch-$1"
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "fetch-$name"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
$name = { version = "=$version", default-features = false }
TOML
    : >"$dir/src/lib.rs"
    cargo metadata --quiet --format-version 1 --manifest-path "$dir/Cargo.toml" \
        | python3 -c '
import json, os, sys
name = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == name:
        print(os.path.dirname(p["manifest_path"]))
        break
else:
    sys.exit(f"{name} not resolved")
' "$name"
}

cudarc_src() { crate_src cudarc "$CUDARC_VERSION"; }
