# Sourced by ci/nccl-*.sh: sets ANYCUDA_NCCL_LIBRARY to the libnccl.so.2 every program of a run
# shares, unless set: PyTorch's nvidia-nccl wheel, then the system's (ldconfig), then the pinned
# wheel's copy in .cache/inputs (ci/nccl-fetch.sh).
if [[ -z "${ANYCUDA_NCCL_LIBRARY:-}" ]]; then
    ANYCUDA_NCCL_LIBRARY="$(python3 -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)"
    [[ -f "$ANYCUDA_NCCL_LIBRARY" ]] || ANYCUDA_NCCL_LIBRARY="$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')"
    [[ -f "$ANYCUDA_NCCL_LIBRARY" ]] || ANYCUDA_NCCL_LIBRARY="${ROOT:-.}/.cache/inputs/nccl/nvidia/nccl/lib/libnccl.so.2"
fi
if [[ ! -f "$ANYCUDA_NCCL_LIBRARY" ]]; then
    echo "no libnccl.so.2 found (PyTorch's nvidia-nccl wheel, ldconfig, .cache/inputs): set ANYCUDA_NCCL_LIBRARY" >&2
    exit 2
fi
export ANYCUDA_NCCL_LIBRARY
