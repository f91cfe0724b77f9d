#!/usr/bin/env bash
# Runs a command against one ROCm release, with no GPU and nothing installed system-wide.
#
#   bash ci/rocm.sh VERSION -- COMMAND [ARGS...]      VERSION: 5.2, 5.7 or 6.4
#   bash ci/rocm.sh 6.4 -- target/release/anycuda compile k.cu --backend hip --arch gfx942
#   bash ci/rocm.sh 6.4 --print-env                    the variables the command gets, to eval
#
# 5.2: Debian bookworm's ROCm 5.2.3, installed system-wide by ci/fetch-inputs.sh; the command runs
#      as is.
# 5.7: Debian trixie's ROCm 5.7.1.  6.4: Debian sid's ROCm 6.4.3.
#      Their libraries need glibc >= 2.38 (bookworm has 2.36). The script fetches them with a
#      private apt configuration (its own sources.list, state and cache folders under
#      .cache/rocm/VERSION), unpacks them with `dpkg -x` into .cache/rocm/VERSION/prefix together
#      with that release's libc6, libstdc++6 and the rest of the dependency closure, and runs
#      COMMAND through the prefix's own loader:
#          prefix/.../ld-linux-x86-64.so.2 --library-path <prefix libs> COMMAND ARGS...
#      COMMAND must be an ELF executable (a binary built here against bookworm's glibc runs fine
#      under the newer glibc). Only that process sees the prefix: processes it starts run with the
#      system's loader again. It gets ROCM_LOADER and ROCM_LIBRARY_PATH to start children the same
#      way.
#
# The command also gets (docs/choosing-a-backend.md, "Library search"): ROCM_PATH, ANYCUDA_HIP_LIBRARY,
# ANYCUDA_HIPRTC_LIBRARY, ANYCUDA_HIPRAND_LIBRARY (hipRAND: bookworm's 5.3.3 from
# .cache/inputs/hiprand for 5.2, fetched by ci/curand-fetch.sh; the release's own libhiprand1 and
# librocrand1 otherwise), ANYCUDA_HIPBLAS_LIBRARY (hipBLAS: trixie's 5.5.1 for 5.7, sid's 6.4.4 for
# 6.4, each with its rocBLAS; unset for 5.2, as bookworm has none), ANYCUDA_HIPBLASLT_LIBRARY
# (hipBLASLt: 6.4 only, sid's libhipblaslt1; unset for 5.2 and 5.7, whose Debian releases have no
# hipBLASLt), ANYCUDA_HIPFFT_LIBRARY (hipFFT: trixie's 6.1.2 for 5.7, sid's 6.4.3 for 6.4, each
# with its rocFFT; unset for 5.2, as bookworm has none), ANYCUDA_HIPSPARSE_LIBRARY (hipSPARSE:
# bookworm's 5.3.3 from .cache/inputs/hipsparse for 5.2, fetched by ci/cusparse-fetch.sh; unset
# otherwise), and ANYCUDA_ROCM_VERSION (the VERSION asked for, for tests to check).
# The .debs stay in .cache/rocm/VERSION/debs (git-ignored), so a second run needs no network.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf 'rocm.sh: %s\n' "$*" >&2; }
die() {
    log "$*"
    exit 2
}

usage="usage: bash ci/rocm.sh 5.2|5.7|6.4 -- COMMAND [ARGS...]   (or: VERSION --print-env)"
(($# >= 2)) || die "$usage"
VERSION="$1"
shift
print_env=0
case "$1" in
--) shift ;;
--print-env) print_env=1 ;;
*) die "$usage" ;;
esac
((print_env || $# >= 1)) || die "$usage"

# Debian suite and the packages whose dependency closure makes up the prefix.
case "$VERSION" in
5.2)
    # bookworm's own ROCm: system-wide, installed by ci/fetch-inputs.sh.
    dpkg -s libamdhip64-5 >/dev/null 2>&1 || die "ROCm 5.2.3 is not installed: run bash ci/fetch-inputs.sh"
    export ANYCUDA_ROCM_VERSION=5.2 ROCM_PATH=/usr
    export ANYCUDA_HIP_LIBRARY=/usr/lib/x86_64-linux-gnu/libamdhip64.so.5
    unset ANYCUDA_HIPRTC_LIBRARY ANYCUDA_HIPBLASLT_LIBRARY ROCM_LOADER ROCM_LIBRARY_PATH
    # bookworm has no hipBLAS: cuBLAS on HIP is not served on 5.2 (tests/cublas_raw.rs knows).
    unset ANYCUDA_HIPBLAS_LIBRARY
    # nor hipFFT (trixie's needs glibc 2.38): cuFFT on HIP is served on 5.7 and 6.4 only.
    unset ANYCUDA_HIPFFT_LIBRARY
    # hipRAND 5.3.3 (bookworm, the 5.2.3 set) is unpacked privately by ci/curand-fetch.sh.
    hiprand="$ROOT/.cache/inputs/hiprand/usr/lib/x86_64-linux-gnu/libhiprand.so.1"
    if [[ -e "$hiprand" ]]; then
        export ANYCUDA_HIPRAND_LIBRARY="$hiprand"
    else
        unset ANYCUDA_HIPRAND_LIBRARY
    fi
    # hipSPARSE 5.3.3 (bookworm, with rocSPARSE) is unpacked privately by ci/cusparse-fetch.sh.
    hipsparse="$ROOT/.cache/inputs/hipsparse/usr/lib/x86_64-linux-gnu/libhipsparse.so.0"
    if [[ -e "$hipsparse" ]]; then
        export ANYCUDA_HIPSPARSE_LIBRARY="$hipsparse"
    else
        unset ANYCUDA_HIPSPARSE_LIBRARY
    fi
    if ((print_env)); then
        printf 'export %s=%q\n' ANYCUDA_ROCM_VERSION "$ANYCUDA_ROCM_VERSION" ROCM_PATH "$ROCM_PATH" \
            ANYCUDA_HIP_LIBRARY "$ANYCUDA_HIP_LIBRARY"
        [[ -n "${ANYCUDA_HIPRAND_LIBRARY:-}" ]] && printf 'export %s=%q\n' ANYCUDA_HIPRAND_LIBRARY "$ANYCUDA_HIPRAND_LIBRARY"
        [[ -n "${ANYCUDA_HIPSPARSE_LIBRARY:-}" ]] && printf 'export %s=%q\n' ANYCUDA_HIPSPARSE_LIBRARY "$ANYCUDA_HIPSPARSE_LIBRARY"
        exit 0
    fi
    exec "$@"
    ;;
5.7)
    SUITE=trixie
    # 5.7 keeps hipRTC inside libamdhip64; comgr 2 compiles, the builtins hold the headers.
    ROOTS=(libamdhip64-5 libhiprtc-builtins5 libamd-comgr2 libhsa-runtime64-1 libhiprand1 libhipblas0 libhipfft0)
    HIP_SONAME=libamdhip64.so.5
    HIPBLAS_SONAME=libhipblas.so.0
    HIPRTC_SONAME=
    HIPBLASLT_SONAME=
    ;;
6.4)
    SUITE=sid
    ROOTS=(libamdhip64-6 libhiprtc6 libhiprtc-builtins6 libamd-comgr3 libhsa-runtime64-1 libhiprand1 libhipblas2 libhipblaslt1 libhipfft0)
    HIPBLAS_SONAME=libhipblas.so.2
    HIP_SONAME=libamdhip64.so.6
    HIPRTC_SONAME=libhiprtc.so.6
    HIPBLASLT_SONAME=libhipblaslt.so.1
    ;;
*) die "unknown ROCm version '$VERSION' (5.2, 5.7 or 6.4)" ;;
esac
# libhiprand1 brings librocrand1 (tests/curand_raw.rs): about 140 MB installed on 6.4.
# libhipblas0 (trixie, hipBLAS 5.5.1) and libhipblas2 (sid, 6.4.4) bring rocBLAS
# (tests/cublas_raw.rs), by far the largest part of each prefix (its Tensile kernels for every
# GPU): see README's disk figures.
# libhipblaslt1 (6.4 only: sid's hipBLASLt 7.1.1, tests/cublaslt_raw.rs) depends on nothing the
# prefix lacks (libamdhip64-6, glibc, the C++ runtime: the same libamdhip64 as HIP's own) but is
# large: a 160 MB download, 680 MB installed (its GPU kernel libraries for every target).
# libhipfft0 (trixie's hipFFT 6.1.2, sid's 6.4.3; tests/cufft_raw.rs) brings librocfft0 (about
# 8 MB installed on 5.7: rocFFT compiles its kernels at run time).
# Loaded by the runtime through the loader itself: glibc and the C++ runtime of that release.
ROOTS+=(libc6 libstdc++6 libgcc-s1)
# Never needed to load or compile, and large or with maintainer scripts: left out of the closure.
SKIP_RE='^(debconf|perl-base|libc-bin|libc-gconv-modules-extra|dpkg|tar|install-info|ucf|sensible-utils|libclang-common-[0-9]+-dev|libllvm[0-9]+-dev)$'

# shellcheck source=ci/cache-dir.sh
source "$ROOT/ci/cache-dir.sh"
anycuda_cache_dir "$ROOT" # .cache lives outside the clone (ci/cache-dir.sh)
CACHE="$ROOT/.cache/rocm/$VERSION"
PREFIX="$CACHE/prefix"
STAMP="$CACHE/.prefix.done"
APT_DIR="$CACHE/apt"
DEBS="$CACHE/debs"

apt_opts() {
    printf '%s\n' \
        -o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null" \
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=/dev/null" \
        -o "Dir::State=$APT_DIR/state" -o "Dir::State::status=$APT_DIR/state/status" \
        -o "Dir::Cache=$APT_DIR/cache" -o "APT::Architecture=amd64" \
        -o "APT::Architectures=amd64" -o "Debug::NoLocking=1" -o "Acquire::Languages=none" \
        -o "APT::Sandbox::User=$(id -un)"
}

prepare() {
    log "preparing ROCm $VERSION (Debian $SUITE) in $PREFIX"
    mkdir -p "$APT_DIR/state/lists/partial" "$APT_DIR/cache/archives/partial" "$DEBS"
    : >"$APT_DIR/state/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" \
        >"$APT_DIR/sources.list"
    local opts
    mapfile -t opts < <(apt_opts)
    apt-get "${opts[@]}" -q update >&2
    # The dependency closure (Depends and Pre-Depends only), minus what never runs.
    local pkgs
    mapfile -t pkgs < <(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests \
        --no-conflicts --no-breaks --no-replaces --no-enhances "${ROOTS[@]}" |
        grep -v '^ ' | grep -v '^<' | sort -u | grep -Ev "$SKIP_RE")
    log "closure: ${#pkgs[*]} packages: ${pkgs[*]}"
    # Download what the cache lacks (a .deb is named after its exact version).
    local want=() p v f
    for p in "${pkgs[@]}"; do
        v="$(apt-cache "${opts[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -n1)"
        f="${p}_${v//:/%3a}_"
        compgen -G "$DEBS/$f*.deb" >/dev/null || want+=("$p")
    done
    if ((${#want[@]})); then
        log "downloading ${want[*]}"
        (cd "$DEBS" && apt-get "${opts[@]}" -q download "${want[@]}" >&2)
    fi
    # Unpacked beside the old prefix and swapped in at the end, so that a process still running
    # from the old one (another checkout sharing this cache) keeps its files.
    local next="$PREFIX.next.$$"
    rm -rf "$next"
    mkdir -p "$next"
    : >"$CACHE/packages.txt"
    for p in "${pkgs[@]}"; do
        v="$(apt-cache "${opts[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -n1)"
        f="$(compgen -G "$DEBS/${p}_${v//:/%3a}_*.deb" | head -n1)"
        dpkg -x "$f" "$next"
        echo "$p $v" >>"$CACHE/packages.txt"
    done
    if [[ -d "$PREFIX" ]]; then
        mv "$PREFIX" "$PREFIX.old.$$"
    fi
    mv "$next" "$PREFIX"
    rm -rf "$PREFIX.old.$$"
    printf '%s\n' "${ROOTS[*]}" >"$STAMP"
}

# The stamp records the package roots it was prepared for: a changed list prepares again.
[[ -f "$STAMP" && "$(cat "$STAMP")" == "${ROOTS[*]}" ]] || prepare

LIBDIRS=()
for d in usr/lib/x86_64-linux-gnu lib/x86_64-linux-gnu usr/lib lib; do
    [[ -d "$PREFIX/$d" && ! -L "$PREFIX/$d" ]] && LIBDIRS+=("$PREFIX/$d")
done
LIBRARY_PATH_="$(
    IFS=:
    echo "${LIBDIRS[*]}"
)"
LOADER=""
for d in "${LIBDIRS[@]}"; do
    [[ -e "$d/ld-linux-x86-64.so.2" ]] && LOADER="$d/ld-linux-x86-64.so.2" && break
done
[[ -n "$LOADER" ]] || die "no ld-linux-x86-64.so.2 in $PREFIX (remove $STAMP to prepare again)"
libfile() { # the real file behind a soname in the prefix
    local d
    for d in "${LIBDIRS[@]}"; do
        [[ -e "$d/$1" ]] && readlink -f "$d/$1" && return
    done
    die "$1 is not in $PREFIX (remove $STAMP to prepare again)"
}

export ANYCUDA_ROCM_VERSION="$VERSION" ROCM_PATH="$PREFIX/usr"
ANYCUDA_HIP_LIBRARY="$(libfile "$HIP_SONAME")"
export ANYCUDA_HIP_LIBRARY
if [[ -n "$HIPRTC_SONAME" ]]; then
    ANYCUDA_HIPRTC_LIBRARY="$(libfile "$HIPRTC_SONAME")"
    export ANYCUDA_HIPRTC_LIBRARY
else
    unset ANYCUDA_HIPRTC_LIBRARY
fi
ANYCUDA_HIPRAND_LIBRARY="$(libfile libhiprand.so.1)"
export ANYCUDA_HIPRAND_LIBRARY
# No hipSPARSE is fetched for 5.7/6.4 (bookworm's 5.3.3 is the one pinned): tests/cusparse_raw.rs
# skips its HIP part there.
unset ANYCUDA_HIPSPARSE_LIBRARY
ANYCUDA_HIPBLAS_LIBRARY="$(libfile "$HIPBLAS_SONAME")"
export ANYCUDA_HIPBLAS_LIBRARY
ANYCUDA_HIPFFT_LIBRARY="$(libfile libhipfft.so.0)"
export ANYCUDA_HIPFFT_LIBRARY
if [[ -n "$HIPBLASLT_SONAME" ]]; then
    ANYCUDA_HIPBLASLT_LIBRARY="$(libfile "$HIPBLASLT_SONAME")"
    export ANYCUDA_HIPBLASLT_LIBRARY
else
    unset ANYCUDA_HIPBLASLT_LIBRARY
fi
export ROCM_LOADER="$LOADER" ROCM_LIBRARY_PATH="$LIBRARY_PATH_"

if ((print_env)); then
    for v in ANYCUDA_ROCM_VERSION ROCM_PATH ANYCUDA_HIP_LIBRARY ANYCUDA_HIPRTC_LIBRARY ANYCUDA_HIPRAND_LIBRARY ANYCUDA_HIPBLAS_LIBRARY ANYCUDA_HIPFFT_LIBRARY ANYCUDA_HIPBLASLT_LIBRARY ROCM_LOADER ROCM_LIBRARY_PATH; do
        [[ -n "${!v:-}" ]] && printf 'export %s=%q\n' "$v" "${!v}"
    done
    exit 0
fi

cmd="$1"
shift
if [[ "$cmd" != */* ]]; then
    cmd="$(command -v "$cmd")" || die "command not found: $cmd"
fi
exec "$LOADER" --library-path "$LIBRARY_PATH_" "$cmd" "$@"
