"""cuda-python's SAXPY walk-through on cuda.bindings (Driver API + NVRTC), unchanged in what it
calls; run with anycuda's folder first on the library path (ci/capi-gpu.sh)."""
import ctypes
import sys

import numpy as np
from cuda.bindings import driver, nvrtc

import mapped


def check(result):
    err, *rest = result
    if isinstance(err, driver.CUresult) and err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err}: {driver.cuGetErrorName(err)[1]}")
    if isinstance(err, nvrtc.nvrtcResult) and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"NVRTC error {err}")
    return rest[0] if len(rest) == 1 else (rest or None)


SAXPY = """\
extern "C" __global__ void saxpy(float a, float *x, float *y, float *out, size_t n) {
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) out[tid] = a * x[tid] + y[tid];
}
"""


def main():
    check(driver.cuInit(0))
    dev = check(driver.cuDeviceGet(0))
    major = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    prog = check(nvrtc.nvrtcCreateProgram(SAXPY.encode(), b"saxpy.cu", 0, [], []))
    opts = [f"--gpu-architecture=compute_{major}{minor}".encode(), b"-fmad=false"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        size = check(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        check(nvrtc.nvrtcGetProgramLog(prog, log))
        raise RuntimeError(f"compile failed: {err}: {log.decode(errors='replace')}")
    size = check(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    check(nvrtc.nvrtcGetPTX(prog, ptx))

    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"saxpy"))

    n = 512 * 128
    a = np.array([2.0], dtype=np.float32)
    x = np.random.default_rng(7).random(n, dtype=np.float32)
    y = np.random.default_rng(8).random(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    nbytes = out.nbytes
    stream = check(driver.cuStreamCreate(0))
    dx = check(driver.cuMemAlloc(nbytes))
    dy = check(driver.cuMemAlloc(nbytes))
    dout = check(driver.cuMemAlloc(nbytes))
    check(driver.cuMemcpyHtoDAsync(dx, x.ctypes.data, nbytes, stream))
    check(driver.cuMemcpyHtoDAsync(dy, y.ctypes.data, nbytes, stream))
    # Kernel arguments as the walk-through builds them: an array of pointers to the values.
    vals = [a, np.array([int(dx)], dtype=np.uint64), np.array([int(dy)], dtype=np.uint64),
            np.array([int(dout)], dtype=np.uint64), np.array([n], dtype=np.uint64)]
    args = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
    check(driver.cuLaunchKernel(kernel, n // 128, 1, 1, 128, 1, 1, 0, stream, args.ctypes.data, 0))
    check(driver.cuMemcpyDtoHAsync(out.ctypes.data, dout, nbytes, stream))
    check(driver.cuStreamSynchronize(stream))
    want = a[0] * x + y
    if not np.allclose(out, want, rtol=0, atol=1e-5):
        print(f"saxpy_bindings: FAIL: {np.count_nonzero(~np.isclose(out, want, rtol=0, atol=1e-5))} wrong")
        return 1
    for p in (dx, dy, dout):
        check(driver.cuMemFree(p))
    check(driver.cuStreamDestroy(stream))
    check(driver.cuModuleUnload(module))
    check(driver.cuDevicePrimaryCtxRelease(dev))
    mapped.check_anycuda("saxpy_bindings")
    name = bytes(check(driver.cuDeviceGetName(256, dev))).split(b"\x00")[0].decode()
    print(f"saxpy_bindings: PASS on {name}: {n} elements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
