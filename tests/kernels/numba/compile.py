"""Compiles every kernel of corpus.py to PTX with numba-cuda's `compile_ptx` (NVVM; no GPU).

    python compile.py OUT_DIR [--cc 9.0] [--cc 8.0] [--jobs N]

Writes OUT_DIR/<name>.sm_<cc>.ptx for each kernel and compute capability (and
<name>.sm_<cc>.link<N>.ptx for code numba links with it: its CUDA C++ helpers, compiled by
NVRTC), and
OUT_DIR/manifest.tsv, one line per kernel and cc:

    name<TAB>cc<TAB>ok<TAB>file [linked.ptx ...] [lib:library ...] [unlinked:cuda-c++]
    name<TAB>cc<TAB>failed<TAB>the error's first line (numba refused to compile the kernel)

The kernels compile in N worker processes (default: the CPU count), each importing numba
once. Exit status 0 when the manifest is written, whatever compiled; 2 on bad usage.
"""

import argparse
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class _NoDevice:
    """What numba asks of the current device while compiling, with no GPU: its cc."""

    def __init__(self, cc):
        self.compute_capability = cc


def _compile_one(job):
    index, cc, out_dir = job
    sys.path.insert(0, HERE)
    import corpus
    from numba import cuda
    import numba.cuda.dispatcher as dispatcher

    # numba-cuda 0.30.4 compiles a called device function (`@cuda.jit(device=True)`, and the
    # overloads numba writes that way: cmath, cooperative groups, ...) for the current device's
    # cc, which asks the driver; compile_ptx alone never does. With no GPU, the cc asked for.
    dispatcher.get_current_device = lambda: _NoDevice(cc)

    name, pyfunc, sig, options = corpus.KERNELS[index]
    tag = f"sm_{cc[0]}{cc[1]}"
    files = []
    try:
        # compile_all, not compile_ptx: a kernel may need code numba links in at load time
        # (the float16 functions, CUDA C++ that NVRTC compiles; cudadevrt for grid sync).
        codes, _ = cuda.compile_all(pyfunc, sig, cc=cc, device=False, abi="numba",
                                    output="ptx", **options)
    except Exception as e:
        # numba-cuda 0.30.4 compiles that CUDA C++ through cuda.core's Program, which loads
        # libcuda: with no driver, only the kernel's own PTX (its `.extern .func`s unresolved).
        if "NVIDIA driver library" not in str(e):
            return _failed(name, tag, e)
        try:
            codes = [cuda.compile_ptx(pyfunc, sig, cc=cc, **options)[0]]
        except Exception as e2:
            return _failed(name, tag, e2)
        files.append("unlinked:cuda-c++")
    for n, code in enumerate(codes):
        if isinstance(code, str):
            file = f"{name}.{tag}.ptx" if n == 0 else f"{name}.{tag}.link{n}.ptx"
            with open(os.path.join(out_dir, file), "w") as f:
                f.write(code)
            files.append(file)
        else:  # a library numba hands the linker as is (cudadevrt's archive)
            files.append("lib:" + os.path.basename(str(getattr(code, "name", code))))
    return (name, tag, "ok", " ".join(sorted(files, key=lambda f: ":" in f)))


def _failed(name, tag, e):
    """A kernel numba refuses: recorded, not fatal."""
    msg = f"{type(e).__name__}: {e}".replace("\t", " ").splitlines()
    return (name, tag, "failed", msg[0] if msg else type(e).__name__)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--cc", action="append", help="compute capability, e.g. 9.0 (repeatable)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    ccs = [tuple(int(p) for p in c.split(".")) for c in (args.cc or ["9.0"])]
    os.makedirs(args.out_dir, exist_ok=True)
    sys.path.insert(0, HERE)
    import corpus  # names only: the workers compile

    names = [k[0] for k in corpus.KERNELS]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"corpus.py: duplicate kernel names {sorted(dup)}")
    jobs = [(i, cc, args.out_dir) for cc in ccs for i in range(len(names))]
    start = time.time()
    # fork: the workers inherit the imported numba (and its warm caches) from this process.
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(max(1, args.jobs)) as pool:
        rows = pool.map(_compile_one, jobs, chunksize=1)
    with open(os.path.join(args.out_dir, "manifest.tsv"), "w") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")
    failed = sum(1 for r in rows if r[2] != "ok")
    print(f"numba corpus: {len(rows) - failed} of {len(rows)} compiled to PTX "
          f"({len(names)} kernels x {len(ccs)} cc) in {time.time() - start:.1f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
