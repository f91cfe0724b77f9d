#!/usr/bin/env python3
"""cuda-python (cuda.bindings.driver) column for ci/bench.sh: per-call cost of cuCtxGetDevice and
submission cost of an empty-kernel launch, with the methodology of examples/bench_dispatch.rs and
ci/bench/baseline.cu (same kernels.cu, NVRTC, warm-up, median of BENCH_REPEATS repeats). Python
is ~100x slower per call, so the call loop runs BENCH_PY_CALLS (default 1,000,000) times.

    python3 ci/bench/cuda_python_bench.py ci/bench/kernels.cu
Prints `RESULT key value` lines; exits 0 with "skipped" when cuda-python is missing.
"""
import ctypes
import os
import statistics
import sys
import time

try:
    from cuda.bindings import driver, nvrtc
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: cuda-python not importable: {e}")
    sys.exit(0)


def ck(ret):
    """cuda-python returns (err, *values); raise on error, return the values."""
    err, *rest = ret
    ok = err == driver.CUresult.CUDA_SUCCESS if isinstance(err, driver.CUresult) else err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    if not ok:
        raise RuntimeError(f"{err}")
    return rest[0] if len(rest) == 1 else rest


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "ci/bench/kernels.cu"
    calls = int(os.environ.get("BENCH_PY_CALLS", "1000000"))
    launches = int(os.environ.get("BENCH_LAUNCHES", "100000"))
    repeats = max(1, int(os.environ.get("BENCH_REPEATS", "5")))
    src = open(path, "rb").read()

    ck(driver.cuInit(0))
    dev = ck(driver.cuDeviceGet(0))
    ctx = ck(driver.cuDevicePrimaryCtxRetain(dev))
    ck(driver.cuCtxSetCurrent(ctx))
    A = driver.CUdevice_attribute
    major = ck(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ck(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    prog = ck(nvrtc.nvrtcCreateProgram(src, b"kernels.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{major}{minor}".encode()]
    ck(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    size = ck(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    ck(nvrtc.nvrtcGetPTX(prog, ptx))
    buf = ctypes.create_string_buffer(ptx, size)
    module = ck(driver.cuModuleLoadData(ctypes.addressof(buf)))
    empty = ck(driver.cuModuleGetFunction(module, b"empty"))
    print(f"cuda-python {getattr(sys.modules.get('cuda.bindings'), '__version__', '?')}: "
          f"sm_{major}{minor}; calls {calls}, launches {launches}, repeats {repeats}")
    print("RESULT backend cuda-python")

    get = driver.cuCtxGetDevice
    for _ in range(10000):
        get()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter_ns()
        for _ in range(calls):
            get()
        samples.append((time.perf_counter_ns() - t) / calls)
    ns = statistics.median(samples)
    print(f"cuCtxGetDevice: {ns:.1f} ns/call\nRESULT call_ns {ns:.3f}")

    stream = ck(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    launch = driver.cuLaunchKernel
    for _ in range(1000):
        launch(empty, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
    ck(driver.cuStreamSynchronize(stream))
    samples = []
    for _ in range(repeats):
        t = time.perf_counter_ns()
        for _ in range(launches):
            launch(empty, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)
        ck(driver.cuStreamSynchronize(stream))
        samples.append((time.perf_counter_ns() - t) / 1000 / launches)
    us = statistics.median(samples)
    # One checked launch: the unchecked loop above must not have been failing fast.
    ck(launch(empty, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0))
    ck(driver.cuStreamSynchronize(stream))
    print(f"empty launch: {us:.3f} us/launch\nRESULT launch_us {us:.4f}")
    ck(driver.cuStreamDestroy(stream))
    ck(driver.cuModuleUnload(module))
    ck(driver.cuDevicePrimaryCtxRelease(dev))


if __name__ == "__main__":
    main()
