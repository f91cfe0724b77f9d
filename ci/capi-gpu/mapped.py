"""Which CUDA libraries this Python process mapped: the proof that a run went through anycuda."""
import os


def cuda_libraries():
    """The files mapped whose names look like CUDA's libraries or anycuda's C ABI."""
    seen = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6:
                p = parts[5]
                base = os.path.basename(p)
                if base.startswith(("libcuda.", "libcudart.", "libnvrtc.", "libanycuda")):
                    seen.add(os.path.realpath(p))
    return sorted(seen)


def check_anycuda(tag):
    """Exits 1 when ANYCUDA_EXPECT=1 and anycuda's C-ABI library is not mapped."""
    libs = cuda_libraries()
    print(f"{tag}: mapped: {', '.join(libs)}")
    if os.environ.get("ANYCUDA_EXPECT") == "1" and not any("anycuda" in os.path.basename(p) for p in libs):
        print(f"{tag}: FAIL: anycuda's C-ABI library is not mapped")
        raise SystemExit(1)
