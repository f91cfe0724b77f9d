# Shared by build.sh (HIP over CUDA) and build-math.sh (hipBLAS/hipRAND over cuBLAS/cuRAND):
# unpacking a .deb, finding CUDA, picking the compiler, compiling a shared library. Sourced, not
# run. The caller defines die and log, and BUILD (a scratch folder); see README.md.

# hipnv_extract_deb <deb> <dest>: dpkg-deb when present, else ar + tar (the GPU machine may lack
# dpkg).
hipnv_extract_deb() {
    local deb="$1" dest="$2"
    mkdir -p "$dest"
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$dest"
        return
    fi
    command -v ar >/dev/null || die "neither dpkg-deb nor ar found: cannot unpack $deb"
    local tmp
    tmp="$(mktemp -d "$BUILD/deb-ar.XXXXXX")"
    (cd "$tmp" && ar x "$deb")
    local data
    data="$(ls "$tmp"/data.tar* 2>/dev/null | head -n1)"
    [[ -n "$data" ]] || die "$deb has no data.tar member"
    case "$data" in
        *.zst) command -v zstd >/dev/null || die "$deb needs zstd to unpack"
               zstd -dc "$data" | tar -x -C "$dest" ;;
        *) tar -xf "$data" -C "$dest" ;;  # GNU tar picks the .xz/.gz decompressor itself
    esac
    rm -rf "$tmp"
}

# hipnv_cuda_setup: CUDA (CUDA_HOME / CUDA_PATH / /usr/local/cuda) headers appended to INCLUDES
# (with CUDA_EXTRA_INCLUDE), its library folders in LIBDIRS, and the headers HIP's NVIDIA
# headers pull in checked, so a partial install fails with a sentence, not a compiler error.
hipnv_cuda_setup() {
    CUDA="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
    [[ -f "$CUDA/include/cuda_runtime_api.h" ]] \
        || die "no CUDA headers at $CUDA/include (set CUDA_HOME to the toolkit root)"
    INCLUDES+=(-I"$CUDA/include")
    # CUDA 13 moved CCCL (nv/target, which cuda_fp16.h includes) under include/cccl; nvcc adds it
    # by itself, a host compiler needs to be told.
    [[ -d "$CUDA/include/cccl" ]] && INCLUDES+=(-I"$CUDA/include/cccl")
    local extra d h i found
    IFS=: read -r -a extra <<<"${CUDA_EXTRA_INCLUDE:-}"
    for d in "${extra[@]}"; do [[ -n "$d" ]] && INCLUDES+=(-I"$d"); done
    for h in crt/host_defines.h cuda_profiler_api.h nv/target; do
        found=0
        for i in "${INCLUDES[@]}"; do [[ -e "${i#-I}/$h" ]] && { found=1; break; }; done
        ((found)) || die "$h not found in $CUDA/include or CUDA_EXTRA_INCLUDE (a full CUDA toolkit has it; without one, see build-here.sh)"
    done
    LIBDIRS=()
    for d in "$CUDA/lib64" "$CUDA/lib" "$CUDA/targets/x86_64-linux/lib"; do
        [[ -d "$d" ]] && LIBDIRS+=("$(cd "$d" && pwd -P)")
    done
    return 0
}

# hipnv_find_lib <name> [dir...]: the unversioned .so, else the highest-versioned one, in the
# given folders (default: LIBDIRS).
hipnv_find_lib() {
    local name="$1" d f
    shift
    local dirs=("$@")
    ((${#dirs[@]})) || dirs=("${LIBDIRS[@]}")
    for d in "${dirs[@]}"; do
        [[ -e "$d/$name.so" ]] && { echo "$d/$name.so"; return; }
    done
    for d in "${dirs[@]}"; do
        f="$(ls "$d/$name".so.* 2>/dev/null | sort -V | tail -n1 || true)"
        [[ -n "$f" ]] && { echo "$f"; return; }
    done
    return 0
}

# hipnv_find_libcuda: LIBCUDA, the driver's libcuda (the toolkit's link stub or the system's), or
# "" on a machine with no driver.
hipnv_find_libcuda() {
    LIBCUDA=""
    local f
    for f in "$CUDA/lib64/stubs/libcuda.so" "$CUDA/lib/stubs/libcuda.so" \
             "$CUDA/targets/x86_64-linux/lib/stubs/libcuda.so" \
             /usr/lib/x86_64-linux-gnu/libcuda.so /usr/lib/x86_64-linux-gnu/libcuda.so.1 \
             /usr/lib64/libcuda.so /usr/lib64/libcuda.so.1; do
        [[ -e "$f" ]] && { LIBCUDA="$f"; break; }
    done
    if [[ -z "$LIBCUDA" ]] && command -v ldconfig >/dev/null; then
        LIBCUDA="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')"
    fi
    return 0
}

# hipnv_pick_compiler: NVCC (nvcc's path, or "" for the host compiler) and CXX, by
# HIPNV_COMPILER (nvcc | g++; default nvcc when found).
hipnv_pick_compiler() {
    NVCC=""
    case "${HIPNV_COMPILER:-}" in
        "") NVCC="$(command -v nvcc || true)"
            [[ -z "$NVCC" && -x "$CUDA/bin/nvcc" ]] && NVCC="$CUDA/bin/nvcc" ;;
        nvcc) NVCC="$(command -v nvcc || echo "$CUDA/bin/nvcc")"
              [[ -x "$NVCC" ]] || die "HIPNV_COMPILER=nvcc but no nvcc found" ;;
        g++|gcc|c++|clang++) ;;
        *) die "HIPNV_COMPILER must be nvcc or g++" ;;
    esac
    CXX="${CXX:-g++}"
    return 0
}

# hipnv_compile_shared <lib> <source...>: compiles and links a shared library from C++ sources
# with CXXFLAGS, DEFS, INCLUDES, LIBS and LDFLAGS (arrays the caller set; -std=... first in
# CXXFLAGS). nvcc when NVCC is set (falling back to CXX unless HIPNV_COMPILER=nvcc), else CXX.
hipnv_compile_shared() {
    local lib="$1"
    shift
    _hipnv_gxx() {
        command -v "$CXX" >/dev/null || die "no C++ compiler ($CXX) found"
        log "compiling $(basename "$lib") with $CXX ($("$CXX" --version | head -n1))"
        "$CXX" "${CXXFLAGS[@]}" "${DEFS[@]}" "${INCLUDES[@]}" -shared -o "$lib" "$@" \
            "${LIBS[@]}" "${LDFLAGS[@]}"
    }
    _hipnv_nvcc() {
        # nvcc hands a .cpp to its host compiler as plain C++ (no __CUDACC__); --cudart shared
        # keeps the runtime dynamic, the same libcudart anycuda's CUDA backend uses.
        log "compiling $(basename "$lib") with $NVCC ($("$NVCC" --version | tail -n1))"
        local xc x xl=() libs=()
        xc="$(IFS=,; echo "${CXXFLAGS[*]:1}")"  # -std goes to nvcc itself
        for x in "${LDFLAGS[@]}"; do xl+=(-Xlinker "${x#-Wl,}"); done
        # nvcc takes no versioned library (libcublas.so.13) as an input file: hand it to the linker.
        for x in "${LIBS[@]}"; do
            if [[ "$x" == *.so.* ]]; then libs+=(-Xlinker "$x"); else libs+=("$x"); fi
        done
        "$NVCC" "${CXXFLAGS[0]}" -shared --cudart shared -Xcompiler "$xc" "${DEFS[@]}" \
            "${INCLUDES[@]}" -o "$lib" "$@" "${libs[@]}" "${xl[@]}"
    }
    if [[ -n "$NVCC" ]]; then
        if ! _hipnv_nvcc "$@"; then
            [[ "${HIPNV_COMPILER:-}" == nvcc ]] && die "nvcc failed"
            log "nvcc failed (above); retrying with $CXX"
            _hipnv_gxx "$@" || die "$(basename "$lib") did not compile"
        fi
    else
        _hipnv_gxx "$@" || die "$(basename "$lib") did not compile"
    fi
}
