"""anycuda's numba-cuda kernel corpus: small kernels in the shapes numba users write.

Each kernel is registered with `@kernel(signature, ...)`; `compile.py` beside this file compiles
every one to PTX with `numba.cuda.compile_ptx` (NVVM, no GPU needed) and tests/ptx_corpus.rs
translates that PTX for AMD (anycuda_rtc::ptx) and compiles it with hipRTC.

The corpus is anycuda's own code, written for coverage of what numba lowers: integer, float and
complex arithmetic of every width, libdevice math, 1-3 D arrays in C and F order, exceptions,
atomics, shared/local/const memory, barriers, device functions, warp intrinsics, float16,
intrinsics (fma, popc, clz, brev, selp, fences), tuples and records, print, cooperative grid
sync and the reduction kernel `cuda.reduce` builds. A kernel's name (its key in the manifest)
is the Python name unless `name=` says otherwise; one Python function compiled for several
signatures gets one entry per signature, each with its own name.
"""

import cmath
import math

import numpy as np
from numba import cuda, from_dtype, types

KERNELS = []  # (name, pyfunc, signature, options)


def kernel(sig, name=None, **options):
    """Registers a kernel for `sig` (a numba signature string or object)."""

    def register(f):
        KERNELS.append((name or f.__name__, f, sig, options))
        return f

    return register


def variants(prefix, sigs, **options):
    """Registers one Python kernel for several signatures: `{prefix}_{suffix}` each."""

    def register(f):
        for suffix, sig in sigs:
            KERNELS.append((f"{prefix}_{suffix}", f, sig, options))
        return f

    return register


# ---- device functions (called by kernels below) ---------------------------------------------


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit(device=True)
def poly3(x, a, b, c):
    return (a * x + b) * x + c


@cuda.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b


@cuda.jit(device=True)
def recursive_sum(n):
    s = 0
    while n > 0:
        s += n
        n -= 1
    return s


# ---- arithmetic of every width --------------------------------------------------------------

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@variants("int_arith", [(t, f"void({t}[:], {t}[:], {t}[:])") for t in INT_TYPES])
def int_arith(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i] | 1
        out[i] = (x + y) * (x - y) + x // y + x % y + (x << 3) + (x >> 1) + (x ^ y) + (x & ~y)


@variants("float_arith", [("f32", "void(float32[:], float32[:], float32[:])"),
                          ("f64", "void(float64[:], float64[:], float64[:])")])
def float_arith(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        out[i] = x * y + x / y - abs(x) + x // y + x % y + min(x, y) - max(x, y) + (-x) ** 2


@variants("complex_arith", [("c64", "void(complex64[:], complex64[:], complex64[:])"),
                            ("c128", "void(complex128[:], complex128[:], complex128[:])")])
def complex_arith(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        out[i] = x * y + x / y - x.conjugate() + abs(x) + x.real * y.imag


@kernel("void(complex128[:], complex128[:])")
def complex_cmath(a, out):
    i = cuda.grid(1)
    if i < out.size:
        z = a[i]
        out[i] = cmath.exp(z) + cmath.sqrt(z) + cmath.log(z) + cmath.sin(z) + cmath.phase(z)


@kernel("void(int32[:], float32[:], float64[:], int64[:], uint8[:])")
def conversions(i32, f32, f64, i64, u8):
    i = cuda.grid(1)
    if i < i32.size:
        f32[i] = np.float32(i32[i]) + np.float32(i64[i]) + np.float32(f64[i])
        f64[i] = np.float64(f32[i]) + np.float64(u8[i]) + np.float64(i64[i])
        i32[i] = np.int32(f32[i]) + np.int32(f64[i])
        i64[i] = np.int64(f64[i]) + np.int64(np.uint64(f32[i]))
        u8[i] = np.uint8(i32[i]) + np.uint8(f32[i])


@kernel("void(boolean[:], int32[:], float64[:])")
def boolean_logic(flags, a, x):
    i = cuda.grid(1)
    if i < flags.size:
        p = a[i] > 3
        q = x[i] < 0.5 or math.isnan(x[i])
        flags[i] = (p and not q) or (flags[i] != p) or (a[i] == 7 and x[i] >= 1.0)


@kernel("void(uint32[:], uint64[:], int32[:])")
def bit_ops(u, v, out):
    i = cuda.grid(1)
    if i < u.size:
        a = u[i]
        b = v[i]
        out[i] = (cuda.popc(a) + cuda.popc(b) + cuda.clz(a) + cuda.clz(b) + cuda.ffs(a)
                  + cuda.ffs(b))
        u[i] = cuda.brev(a) ^ (a >> np.uint32(7)) | (a << np.uint32(25))
        v[i] = cuda.brev(b) & ~b


# ---- libdevice math ------------------------------------------------------------------------


@variants("math_unary", [("f32", "void(float32[:], float32[:])"),
                         ("f64", "void(float64[:], float64[:])")])
def math_unary(a, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        out[i] = (math.sin(x) + math.cos(x) + math.tan(x) + math.exp(x) + math.log(x)
                  + math.sqrt(x) + math.asin(x) + math.acos(x) + math.atan(x) + math.sinh(x)
                  + math.cosh(x) + math.tanh(x) + math.log1p(x) + math.expm1(x) + math.log10(x)
                  + math.log2(x) + math.erf(x) + math.erfc(x) + math.gamma(x) + math.lgamma(x)
                  + math.floor(x) + math.ceil(x) + math.trunc(x) + math.fabs(x) + math.exp2(x)
                  + math.asinh(x) + math.acosh(x) + math.atanh(x) + math.degrees(x)
                  + math.radians(x) + cuda.cbrt(x))


@variants("math_binary", [("f32", "void(float32[:], float32[:], float32[:])"),
                          ("f64", "void(float64[:], float64[:], float64[:])")])
def math_binary(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        out[i] = (math.pow(x, y) + math.fmod(x, y) + math.atan2(y, x) + math.hypot(x, y)
                  + math.copysign(x, y) + x ** y + math.ldexp(x, 3) + math.remainder(x, y))


@kernel("void(float64[:], int32[:], boolean[:])")
def math_classify(a, e, out):
    i = cuda.grid(1)
    if i < a.size:
        m, ex = math.frexp(a[i])
        e[i] = ex + round(m) + math.floor(a[i] * 10.0)
        out[i] = math.isnan(a[i]) or math.isinf(a[i]) or not math.isfinite(m)


@kernel("void(float32[:], float32[:], float32[:], float32[:])", fastmath=True)
def fastmath_f32(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fma(a[i], b[i], c[i]) + math.sin(a[i]) / math.sqrt(b[i]) + math.exp(c[i])


@kernel("void(float64[:], float64[:], float64[:], float64[:])")
def fma_f64(a, b, c, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.fma(a[i], b[i], c[i]) + poly3(a[i], 1.5, -2.0, 0.25)


# ---- arrays ----------------------------------------------------------------------------------


@kernel("void(float32[:, ::1], float32[:, ::1])")
def copy_2d_c(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j] * 2


@kernel("void(float64[::1, :], float64[::1, :])")
def copy_2d_f(src, dst):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[j % src.shape[0], i % src.shape[1]]


@kernel("void(int16[:, :, :], int16[:, :, :])")
def stencil_3d(src, dst):
    x, y, z = cuda.grid(3)
    nx, ny, nz = src.shape
    if 0 < x < nx - 1 and 0 < y < ny - 1 and 0 < z < nz - 1:
        dst[x, y, z] = (src[x - 1, y, z] + src[x + 1, y, z] + src[x, y - 1, z]
                        + src[x, y + 1, z] + src[x, y, z - 1] + src[x, y, z + 1])


@kernel("void(float32[:], float32[:], float32)")
def grid_stride_saxpy(x, y, a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        y[i] = a * x[i] + y[i]


@kernel("void(float32[:, :], float32[:])")
def strided_rows(m, out):
    row = cuda.blockIdx.x
    acc = np.float32(0)
    for j in range(cuda.threadIdx.x, m.shape[1], cuda.blockDim.x):
        acc += m[row, j]
    cuda.atomic.add(out, row, acc)


@kernel("void(float32[:], int64[:], float32[:])")
def gather_negative_index(src, idx, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = src[idx[i]] + src[-1]  # wraparound of negative indices


@kernel("void(float32[:, :], float32[:])")
def array_slicing(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i, 1:]
        s = np.float32(0)
        for v in row[::2]:
            s += v
        out[i] = s + row.size


@kernel("void(float32[:], float32[:])", debug=True, opt=False)
def bounds_checked(a, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    if a[i] < 0:
        raise ValueError("negative input")
    out[i] = math.sqrt(a[i])


@kernel("void(int32[:], int32[:])", debug=True, opt=False)
def zero_division_raises(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = 100 // a[i]


@kernel("void(float32[:], float32[:])", lineinfo=True)
def lineinfo_kernel(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = clamp(a[i], np.float32(-1), np.float32(1))


# ---- atomics ------------------------------------------------------------------------------------

ATOMIC_TYPES = [("i32", "int32"), ("i64", "int64"), ("u32", "uint32"), ("u64", "uint64"),
                ("f32", "float32"), ("f64", "float64")]


@variants("atomic_arith", [(s, f"void({t}[:], {t}[:])") for s, t in ATOMIC_TYPES])
def atomic_arith(acc, vals):
    i = cuda.grid(1)
    if i < vals.size:
        v = vals[i]
        cuda.atomic.add(acc, 0, v)
        cuda.atomic.sub(acc, 1, v)
        cuda.atomic.max(acc, 2, v)
        cuda.atomic.min(acc, 3, v)


@variants("atomic_exch", [(s, f"void({t}[:], {t}[:])") for s, t in ATOMIC_TYPES[:4]])
def atomic_exch(acc, vals):
    i = cuda.grid(1)
    if i < vals.size:
        vals[i] = cuda.atomic.exch(acc, i % acc.size, vals[i])


@variants("atomic_nan", [("f32", "void(float32[:], float32[:])"),
                         ("f64", "void(float64[:], float64[:])")])
def atomic_nan(acc, vals):
    i = cuda.grid(1)
    if i < vals.size:
        cuda.atomic.nanmax(acc, 0, vals[i])
        cuda.atomic.nanmin(acc, 1, vals[i])


@variants("atomic_bits", [("i32", "void(int32[:], int32[:])"), ("u64", "void(uint64[:], uint64[:])")])
def atomic_bits(acc, vals):
    i = cuda.grid(1)
    if i < vals.size:
        cuda.atomic.and_(acc, 0, vals[i])
        cuda.atomic.or_(acc, 1, vals[i])
        cuda.atomic.xor(acc, 2, vals[i])


@variants("atomic_incdec", [("u32", "void(uint32[:], uint32)"), ("u64", "void(uint64[:], uint64)")])
def atomic_incdec(ctr, limit):
    cuda.atomic.inc(ctr, 0, limit)
    cuda.atomic.dec(ctr, 1, limit)


@variants("atomic_cas", [("i32", "void(int32[:], int32[:])"), ("i64", "void(int64[:], int64[:])"),
                         ("u32", "void(uint32[:], uint32[:])")])
def atomic_cas(lock, old):
    i = cuda.grid(1)
    if i < old.size:
        old[i] = cuda.atomic.cas(lock, 0, 0, i + 1)
        cuda.atomic.compare_and_swap(lock[1:], 0, i)


@kernel("void(int32[:, :], float64[:, :])")
def atomic_2d_index(counts, sums):
    i = cuda.grid(1)
    cuda.atomic.add(counts, (i % counts.shape[0], i % counts.shape[1]), 1)
    cuda.atomic.add(sums, (0, i % sums.shape[1]), 0.5)


@kernel("void(int32[:], int32[:])")
def shared_histogram(data, hist):
    bins = cuda.shared.array(64, dtype=np.int32)
    t = cuda.threadIdx.x
    if t < 64:
        bins[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] & 63, 1)
        cuda.atomic.max(bins, 0, data[i])
    cuda.syncthreads()
    if t < 64:
        cuda.atomic.add(hist, t, bins[t])


@kernel("void(float64[:], float32[:])")
def shared_atomics_float(out64, out32):
    s64 = cuda.shared.array(2, dtype=np.float64)
    s32 = cuda.shared.array(2, dtype=np.float32)
    if cuda.threadIdx.x == 0:
        s64[0] = 0
        s32[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(s64, 0, 1.0)
    cuda.atomic.min(s32, 1, np.float32(cuda.threadIdx.x))
    cuda.atomic.max(s64, 1, 2.0)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out64[cuda.blockIdx.x] = s64[0]
        out32[cuda.blockIdx.x] = s32[1]


# ---- shared, local, const memory and barriers ------------------------------------------------


@kernel("void(float32[:], float32[:])")
def shared_tree_reduce(a, out):
    buf = cuda.shared.array(256, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = a[i] if i < a.size else 0
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


@kernel("void(float32[:, :], float32[:, :])")
def shared_2d_transpose(src, dst):
    tile = cuda.shared.array((32, 33), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    if x < src.shape[0] and y < src.shape[1]:
        tile[ty, tx] = src[x, y]
    cuda.syncthreads()
    x2 = cuda.blockIdx.y * 32 + tx
    y2 = cuda.blockIdx.x * 32 + ty
    if x2 < dst.shape[0] and y2 < dst.shape[1]:
        dst[x2, y2] = tile[tx, ty]


@kernel("void(float64[:])")
def dynamic_shared(out):
    dyn = cuda.shared.array(0, dtype=np.float64)
    t = cuda.threadIdx.x
    dyn[t] = t * 0.5
    cuda.syncthreads()
    out[cuda.grid(1)] = dyn[(t + 1) % cuda.blockDim.x]


@kernel("void(int32[:], int32[:])")
def local_array_sort(a, out):
    tmp = cuda.local.array(8, dtype=np.int32)
    base = cuda.grid(1) * 8
    if base + 8 > a.size:
        return
    for k in range(8):
        tmp[k] = a[base + k]
    for k in range(8):
        for m in range(7 - k):
            if tmp[m] > tmp[m + 1]:
                tmp[m], tmp[m + 1] = tmp[m + 1], tmp[m]
    for k in range(8):
        out[base + k] = tmp[k]


WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)


@kernel("void(float32[:], float32[:])")
def const_array_conv(a, out):
    w = cuda.const.array_like(WEIGHTS)
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        out[i] = w[0] * a[i - 1] + w[1] * a[i] + w[2] * a[i + 1]


@kernel("void(int32[:], int32[:])")
def syncthreads_predicates(a, out):
    t = cuda.threadIdx.x
    p = np.int32(a[cuda.grid(1)] > 0)
    c = cuda.syncthreads_count(p)
    all_ = cuda.syncthreads_and(p)
    any_ = cuda.syncthreads_or(p)
    if t == 0:
        out[cuda.blockIdx.x] = c * 4 + all_ * 2 + any_


@kernel("void(int32[:], int32[:])")
def fences(flag, data):
    i = cuda.grid(1)
    data[i] = i
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    if i == 0:
        flag[0] = 1


# ---- device functions, tuples, records ---------------------------------------------------


@kernel("void(int64[:], int64[:], int64[:])")
def device_calls(a, q, r):
    i = cuda.grid(1)
    if i < a.size:
        q[i], r[i] = divmod_pair(a[i], 7)
        q[i] += recursive_sum(i % 16)


@kernel("void(UniTuple(float32, 3), float32[:, :])")
def tuple_arg(v, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        t = (v[0] * i, v[1] + i, v[2])
        out[i, 0] = t[0]
        out[i, 1] = t[1]
        out[i, 2] = t[2]
        for j in range(3):
            out[i, j] += v[j]


POINT = from_dtype(np.dtype([("x", np.float32), ("y", np.float32), ("tag", np.int16)],
                            align=True))


@kernel(types.void(POINT[:], types.float32[:]))
def records(points, dist):
    i = cuda.grid(1)
    if i < points.size:
        p = points[i]
        dist[i] = math.sqrt(p.x * p.x + p.y * p.y)
        points[i].tag = np.int16(i)


@kernel("void(int32[:], int32[:])")
def index_builtins(out_a, out_b):
    i = cuda.grid(1)
    out_a[i] = (cuda.threadIdx.x + cuda.threadIdx.y * 2 + cuda.threadIdx.z * 4 + cuda.blockIdx.y
                + cuda.blockIdx.z + cuda.blockDim.y + cuda.blockDim.z + cuda.gridDim.x
                + cuda.gridDim.y + cuda.gridDim.z)
    out_b[i] = cuda.laneid + cuda.warpsize


# ---- warp intrinsics ---------------------------------------------------------------------------


@variants("shfl", [("i32", "void(int32[:])"), ("i64", "void(int64[:])"),
                   ("f32", "void(float32[:])"), ("f64", "void(float64[:])")])
def shfl(a):
    i = cuda.grid(1)
    v = a[i]
    m = 0xFFFFFFFF
    a[i] = (cuda.shfl_sync(m, v, 3) + cuda.shfl_up_sync(m, v, 1) + cuda.shfl_down_sync(m, v, 2)
            + cuda.shfl_xor_sync(m, v, 16))


@kernel("void(float32[:], float32[:])")
def warp_reduce_shfl(a, out):
    v = a[cuda.grid(1)]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)


@kernel("void(int32[:], uint32[:])")
def warp_votes(a, out):
    i = cuda.grid(1)
    p = a[i] > 0
    m = cuda.activemask()
    out[i] = (cuda.ballot_sync(m, p) + cuda.all_sync(m, p) + cuda.any_sync(m, p)
              + cuda.eq_sync(m, p) + cuda.lanemask_lt())
    cuda.syncwarp(m)


@kernel("void(int32[:], uint32[:])")
def warp_match(a, out):
    i = cuda.grid(1)
    m = cuda.match_any_sync(0xFFFFFFFF, a[i])
    allm, pred = cuda.match_all_sync(0xFFFFFFFF, a[i])
    out[i] = m + allm + pred


# ---- float16 ----------------------------------------------------------------------------------


@kernel("void(float16[:], float16[:], float16[:])")
def fp16_ops(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        r = cuda.fp16.hfma(x, y, cuda.fp16.hadd(x, y))
        r = cuda.fp16.hsub(r, cuda.fp16.hmul(x, y))
        r = cuda.fp16.hmax(cuda.fp16.hneg(r), cuda.fp16.habs(y))
        if cuda.fp16.hlt(r, x) or cuda.fp16.heq(x, y):
            r = cuda.fp16.hdiv(r, y)
        out[i] = r


@kernel("void(float16[:], float16[:])")
def fp16_math(a, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        out[i] = (cuda.fp16.hsin(x) + cuda.fp16.hcos(x) + cuda.fp16.hexp(x) + cuda.fp16.hlog(x)
                  + cuda.fp16.hsqrt(x) + cuda.fp16.hfloor(x) + cuda.fp16.hrcp(x))


@kernel("void(float16[:], float32[:], float64[:])")
def fp16_convert(h, f, d):
    i = cuda.grid(1)
    if i < h.size:
        f[i] = np.float32(h[i]) * 2
        d[i] = np.float64(h[i])
        h[i] = np.float16(f[i]) + np.float16(d[i]) * h[i]


# ---- misc intrinsics ---------------------------------------------------------------------------


@kernel("void(boolean[:], int32[:], float64[:])")
def selp(p, a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = cuda.selp(p[i], a[i], np.int32(a[i] + 1))
        x[i] = cuda.selp(p[i], x[i], 0.0)


@kernel("void(float32[:], int32)")
def printing(a, n):
    i = cuda.grid(1)
    if i < n:
        print("thread", i, "value", a[i])


@kernel("void(int32[:])")
def grid_sync(a):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] += 1
    g.sync()
    a[i] += a[(i + 1) % a.size]


@kernel("void(float32[:], float32[:])")
def branchy_loops(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return
    v = a[i]
    n = 0
    while v > 1.0 and n < 100:
        if n % 3 == 0:
            v = v / 2
        elif n % 3 == 1:
            v = v - 0.25
        else:
            continue_ = v > 10
            if continue_:
                v = math.sqrt(v)
        n += 1
    out[i] = v + n


# ---- cuda.reduce: the block-strided kernel numba builds for a reduction ------------------------


def _sum(a, b):
    return a + b


def reduce_kernel(dtype):
    """The Python function of the kernel `cuda.reduce(_sum)` launches for `dtype` arrays."""
    from numba import from_dtype as nb_from_dtype
    from numba.cuda.kernels.reduction import _gpu_reduce_factory

    return _gpu_reduce_factory(_sum, nb_from_dtype(np.dtype(dtype))).py_func


KERNELS.append(("reduce_f64", reduce_kernel("float64"), "void(float64[:], float64[:], float64, boolean)", {}))
KERNELS.append(("reduce_i32", reduce_kernel("int32"), "void(int32[:], int32[:], int32, boolean)", {}))
