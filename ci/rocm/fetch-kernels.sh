#!/usr/bin/env bash
# Fetches the real-world kernel corpus (tests/rocm_real_corpus.rs) into .cache/inputs/real-kernels
# through cargo, pinned; nothing of it is committed. Idempotent.
#   candle-kernels (crates.io): the CUDA kernels of the candle ML framework.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/.cache/inputs/real-kernels"
# What to fetch: tests/kernels/real/crates.txt (`name version [file...]` lines).
mapfile -t CRATES < <(awk '!/^#/ && NF >= 2 { print $1 "=" $2 }' "$ROOT/tests/kernels/real/crates.txt")
mkdir -p "$DEST"
for spec in "${CRATES[@]}"; do
    name="${spec%%=*}" version="${spec#*=}"
    [[ -d "$DEST/$name-$version/src" ]] && continue
    printf 'fetch-kernels: vendoring %s =%s\n' "$name" "$version" >&2
    tmp="$(mktemp -d)"
    mkdir -p "$tmp/src"
    : >"$tmp/src/lib.rs"
    cat >"$tmp/Cargo.toml" <<TOML
[package]
name = "fetch-real-kernels"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
$name = { version = "=$version", default-features = false }
[workspace]
TOML
    (cd "$tmp" && cargo vendor --quiet --versioned-dirs vendor >/dev/null)
    rm -rf "${DEST:?}/$name-$version"
    cp -r "$tmp/vendor/$name-$version" "$DEST/$name-$version"
    rm -rf "$tmp"
done
echo "real kernels: $DEST"
