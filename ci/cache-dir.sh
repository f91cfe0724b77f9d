#!/usr/bin/env bash
# Sourced by the scripts that download (ci/fetch-inputs.sh, ci/rocm.sh): makes <repo>/.cache, where
# every pinned download and unpacked prefix lives, point OUTSIDE the clone, so a fresh clone on a
# machine that has run CI before downloads nothing (the PyPI wheels, ROCm 5.7/6.4 and RCCL
# packages, the kernel corpus: about 4 GB unpacked).
#
#   ANYCUDA_CI_CACHE   the shared folder (default: ${XDG_CACHE_HOME:-$HOME/.cache}/anycuda-ci)
#
# A .cache that already exists (a folder, or a link made earlier) is left as it is: that keeps a
# developer's own checkout, and a worktree linked to it, working unchanged. Every file in the
# cache is named by its pinned version, so clones at different commits can share it.
anycuda_cache_dir() {
    local root="$1"
    [[ -e "$root/.cache" || -L "$root/.cache" ]] && return 0
    local shared="${ANYCUDA_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anycuda-ci}"
    mkdir -p "$shared"
    ln -s "$shared" "$root/.cache"
    printf 'cache: %s/.cache -> %s\n' "$root" "$shared" >&2
}
