#!/usr/bin/env bash
# ON the GPU machine: compares the NVML names anycuda's C ABI exports (tests/nvml/exports.txt,
# the catalogue of the pinned nvml.h) with what NVIDIA's libnvidia-ml.so.1 exports, and shows
# whether NVIDIA's library defines symbol versions (anycuda's name library defines none).
#
#   bash ci/capi-gpu/nvml-exports.sh [path/to/libnvidia-ml.so.1]
#
# Prints three lists: names both export; names in the header that this driver's library lacks
# (a driver older than the pinned header: NVML answers NVML_ERROR_FUNCTION_NOT_FOUND for them on
# the CUDA backend, as NVIDIA's loader would); nvml* names the library exports that nvml.h does
# not declare (NVIDIA-internal entry points anycuda does not export). Exits 1 when the library
# defines symbol versions or a name of the header's define map (nvmlInit_v2, ...) is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIB="${1:-$(ldconfig -p | awk '/libnvidia-ml.so.1 .*x86-64/ {print $NF; exit}')}"
[[ -n "$LIB" && -e "$LIB" ]] || { echo "nvml-exports: no libnvidia-ml.so.1 found" >&2; exit 2; }
LIB="$(readlink -f "$LIB")"
echo "NVIDIA's NVML: $LIB"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$ROOT/tests/nvml/exports.txt" | sed '/^$/d' | sort -u >"$tmp/ours"
status=0
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TtWi]$/ {print $3}' | sed 's/@.*//' | grep '^nvml' | sort -u >"$tmp/theirs"
if readelf -V --wide "$LIB" 2>/dev/null | grep -q "Version definition section"; then
    echo "NVIDIA's library has a version definition section (.gnu.version_d)" >&2
    status=1
else
    echo "NVIDIA's library defines no symbol version (no .gnu.version_d)"
fi
readelf --dyn-syms --wide "$LIB" | awk '$8 ~ /^nvmlInit_v2/ {print "  nvmlInit_v2 symbol: " $8}'
if readelf --dyn-syms --wide "$LIB" | awk '$8 ~ /^nvml/' | grep -q '@'; then
    echo "NVIDIA's nvml* symbols carry versions: anycuda's name library must define them too" >&2
    status=1
fi
echo "both: $(comm -12 "$tmp/ours" "$tmp/theirs" | wc -l) of $(wc -l <"$tmp/ours") header names"
echo "in nvml.h, not exported by this library:"
comm -23 "$tmp/ours" "$tmp/theirs" | sed 's/^/  /'
echo "exported by this library, not in nvml.h:"
comm -13 "$tmp/ours" "$tmp/theirs" | sed 's/^/  /'
for n in nvmlInit_v2 nvmlDeviceGetCount_v2 nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetPciInfo_v3 \
    nvmlDeviceGetHandleByPciBusId_v2 nvmlInit nvmlDeviceGetCount; do
    grep -qx "$n" "$tmp/theirs" || { echo "NVIDIA's library lacks $n" >&2; status=1; }
done
exit "$status"
