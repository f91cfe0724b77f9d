#!/usr/bin/env bash
# Downloads Debian's libamdhip64-dev .deb (HIP 5.2.3 headers, including hip/nvidia_detail) into
# DEST, so it can be carried to the GPU machine, which has no package registry. build.sh consumes
# it there. The .deb is AMD's (MIT-licensed) work: it is never committed, only shipped.
#
#   bash ci/hip-nvidia/fetch-deb.sh DEST      # e.g. .device/ (git-ignored)
#
# Prints the path of the .deb on stdout. Idempotent: an existing matching .deb is reused.
set -euo pipefail

PACKAGE=libamdhip64-dev
PIN=5.2.3-8            # the version anycuda's HIP 5.2.3 tests are written against

die() { printf 'fetch-deb: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'fetch-deb: %s\n' "$*" >&2; }

[[ $# -eq 1 ]] || die "usage: $0 DEST"
command -v apt-get >/dev/null || die "apt-get not found (run this on a Debian/Ubuntu machine)"
DEST="$1"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"

existing="$(ls "$DEST"/${PACKAGE}_"${PIN//:/%3a}"_*.deb 2>/dev/null | head -n1 || true)"
if [[ -n "$existing" ]]; then
    log "already there: $existing"
    printf '%s\n' "$existing"
    exit 0
fi

# Pin the exact version when apt knows it; only refresh the lists when it does not, since an
# update is slow and needs root.
known() { apt-cache madison "$PACKAGE" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); print $2}' | grep -qx "$PIN"; }
if ! known; then
    log "apt does not know $PACKAGE=$PIN yet; running apt-get update"
    sudo=()
    [[ "$(id -u)" == 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq || log "apt-get update failed; trying anyway"
fi
if known; then
    spec="$PACKAGE=$PIN"
else
    log "warning: $PACKAGE=$PIN unknown to apt; downloading the candidate version instead"
    spec="$PACKAGE"
fi

# apt-get download writes into the current directory; as root it drops privileges to _apt,
# which must be able to write there, hence a world-writable temporary directory.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
(cd "$tmp" && apt-get download -q "$spec" >&2) || die "apt-get download $spec failed"
deb="$(ls "$tmp"/*.deb 2>/dev/null | head -n1)"
[[ -n "$deb" ]] || die "apt-get download produced no .deb"
mv "$deb" "$DEST/"
out="$DEST/$(basename "$deb")"
log "downloaded $out"
printf '%s\n' "$out"
