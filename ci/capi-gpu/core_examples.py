"""cuda.core, as its examples use it: the device, a stream, memory, a program compiled at run
time, a kernel launch, and a graph; run with anycuda's folder first on the library path
(ci/capi-gpu.sh). Each part prints PASS or FAIL with the reason; exit 1 if any failed."""
import sys
import traceback

import numpy as np

try:
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
except ImportError:  # cuda.core before 0.4 keeps its API under `experimental`
    from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch

import mapped

CODE = """\
extern "C" __global__ void scale(float *v, float k, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= k;
}
"""

results = []


def part(name):
    def wrap(f):
        try:
            f()
            results.append((name, "PASS", ""))
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            traceback.print_exc()
            results.append((name, "FAIL", f"{type(e).__name__}: {e}"))
        return f
    return wrap


state = {}


@part("device")
def _():
    dev = Device(0)
    dev.set_current()
    state["dev"] = dev
    assert dev.compute_capability.major >= 3, dev.compute_capability
    print(f"device: {dev.name}, cc {dev.compute_capability}, arch {dev.arch}")


@part("stream")
def _():
    s = state["dev"].create_stream()
    s.sync()
    state["s"] = s


@part("memory")
def _():
    dev, s = state["dev"], state["s"]
    n = 1 << 16
    buf = dev.allocate(n * 4, stream=s)
    host = np.arange(n, dtype=np.float32)
    back = np.zeros(n, dtype=np.float32)
    from cuda.bindings import driver
    (err,) = driver.cuMemcpyHtoDAsync(int(buf.handle), host.ctypes.data, host.nbytes, int(s.handle))
    assert err == driver.CUresult.CUDA_SUCCESS, err
    (err,) = driver.cuMemcpyDtoHAsync(back.ctypes.data, int(buf.handle), host.nbytes, int(s.handle))
    assert err == driver.CUresult.CUDA_SUCCESS, err
    s.sync()
    assert np.array_equal(host, back)
    state["buf"], state["host"], state["n"] = buf, host, n


@part("program")
def _():
    dev = state["dev"]
    prog = Program(CODE, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}"))
    mod = prog.compile("cubin")
    state["kernel"] = mod.get_kernel("scale")


@part("launch")
def _():
    s, buf, n = state["s"], state["buf"], state["n"]
    cfg = LaunchConfig(grid=(n + 255) // 256, block=256)
    launch(s, cfg, state["kernel"], buf, np.float32(2.0), np.uint32(n))
    s.sync()
    out = np.zeros(n, dtype=np.float32)
    from cuda.bindings import driver
    (err,) = driver.cuMemcpyDtoH(out.ctypes.data, int(buf.handle), out.nbytes)
    assert err == driver.CUresult.CUDA_SUCCESS, err
    assert np.array_equal(out, state["host"] * 2), out[:4]


@part("graph")
def _():
    s, buf, n = state["s"], state["buf"], state["n"]
    gb = s.create_graph_builder()
    gb.begin_building()
    cfg = LaunchConfig(grid=(n + 255) // 256, block=256)
    launch(gb, cfg, state["kernel"], buf, np.float32(0.5), np.uint32(n))
    graph = gb.end_building().complete()
    graph.launch(s)
    s.sync()
    out = np.zeros(n, dtype=np.float32)
    from cuda.bindings import driver
    (err,) = driver.cuMemcpyDtoH(out.ctypes.data, int(buf.handle), out.nbytes)
    assert err == driver.CUresult.CUDA_SUCCESS, err
    assert np.array_equal(out, state["host"]), out[:4]


mapped.check_anycuda("core_examples")
for name, status, why in results:
    print(f"core_examples: {name}: {status}{' - ' + why if why else ''}")
sys.exit(0 if all(s == "PASS" for _, s, _ in results) else 1)
