//! GEMM through anycuda, measured like ci/bench/blas_baseline.cu (same shapes, data, stream
//! setup and timing; ci/blas-bench.sh runs them in one interleaved run and tabulates the ratios):
//!
//! - `sgemm_4096`: SGEMM 4096³ (ms per call); `hgemm_4096`: f16 GEMM 4096³ through
//!   `cublasGemmEx` with `CUBLAS_COMPUTE_32F` (ms per call);
//! - `sgemm_b64`, `hgemm_b64`: strided-batched 64³ GEMM, batch 1024 (µs per call), and
//!   `*_b64_enq`: the host's time per call alone (100 calls, no wait for the GPU), which is
//!   where a wrapper's overhead shows.
//!
//! `bench_blas ab` measures the raw layer's own cost in one process, apart from everything that
//! differs between processes (loaded libraries, heap, page layout): the same cuBLAS entry point
//! called through a pointer taken from the very library anycuda loaded (`dlsym` on
//! ANYCUDA_CUBLAS_LIBRARY, else the soname) and through `anycuda::cublas`, on one handle and
//! stream, in alternating batches: `ab_*_direct`/`ab_*_anycuda` (µs per call) for the two batched
//! GEMMs' host time and for a trivial call (`cublasGetStream_v2`, ns per call).
//!
//! `bench_blas raw` calls the raw layer (`anycuda::cublas`, `anycuda::runtime`); `bench_blas
//! core` the safe layer (`anycuda::core::Blas` over `Buffer`s; needs the `half` feature). Each figure is
//! the median of BENCH_REPEATS repeats of N calls and one stream synchronisation, after a
//! warm-up. A counting global allocator checks that the GEMM loops allocate nothing (exits 1
//! otherwise). Lines starting with `RESULT` are what ci/blas-bench.sh reads.
//!
//! `ANYCUDA_BACKEND=cuda cargo run --release --example bench_blas -- raw` (or `hip`).
//! Environment: BENCH_REPEATS (7), BENCH_BIG_CALLS (20), BENCH_SMALL_CALLS (2000).

use anycuda::cublas::*;
use anycuda::driver::{CUcontext, CUresult};
use anycuda::runtime::{
    cudaDeviceSynchronize, cudaError_t, cudaFree, cudaMalloc, cudaMemset,
    cudaStreamCreateWithFlags, cudaStreamDestroy, cudaStreamNonBlocking, cudaStreamSynchronize,
};
use std::error::Error;
use std::ffi::c_void;
use std::time::Instant;

// Counts every allocation (and reallocation) the process makes (anycuda-test).
anycuda_test::count_allocations!();

type Res<T> = Result<T, Box<dyn Error>>;

const N: i32 = 4096;
const S: i32 = 64;
const BATCH: i32 = 1024;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Times `f` like the baseline: 3 warm-up calls, then `repeats` x (`calls` calls + one stream
/// sync); the median seconds per call. Checks that the timed calls allocate nothing.
fn per_call(
    key: &str,
    sync: &mut dyn FnMut() -> Res<()>,
    calls: usize,
    repeats: usize,
    f: &mut dyn FnMut() -> Res<()>,
    allocs: &mut Vec<String>,
) -> Res<f64> {
    for _ in 0..3 {
        f()?;
    }
    sync()?;
    let mut t = Vec::with_capacity(repeats);
    let before = anycuda_test::alloc::total_allocations();
    for _ in 0..repeats {
        let t0 = Instant::now();
        for _ in 0..calls {
            f()?;
        }
        sync()?;
        t.push(t0.elapsed().as_secs_f64() / calls as f64);
    }
    let n = anycuda_test::alloc::total_allocations() - before;
    if n != 0 {
        allocs.push(format!(
            "{key}: {n} allocations in {} calls",
            calls * repeats
        ));
    }
    if key.ends_with("_b64") {
        // The host's cost per call, apart from the GPU's: 100 calls (too few to fill the launch
        // queue, so none waits for the GPU) timed up to the last call's return, 50 times.
        let mut e = Vec::with_capacity(50);
        for _ in 0..50 {
            let t0 = Instant::now();
            for _ in 0..100 {
                f()?;
            }
            e.push(t0.elapsed().as_secs_f64() / 100.0);
            sync()?;
        }
        e.sort_by(f64::total_cmp);
        println!("RESULT {key}_enq {:.6}", e[e.len() / 2] * 1e6);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "raw".into());
    let r = match mode.as_str() {
        "raw" => raw(),
        "core" => core(),
        "ab" => ab(),
        other => Err(format!("unknown mode {other:?} (raw, core, ab)").into()),
    };
    if let Err(e) = r {
        eprintln!("bench_blas: FAILED: {e}");
        std::process::exit(1);
    }
}

fn ck(r: cudaError_t) -> Res<()> {
    r.result().map_err(|e| e.to_string().into())
}
fn cb(r: cublasStatus_t) -> Res<()> {
    r.result().map_err(|e| e.to_string().into())
}

/// The raw layer: the same calls as the C++ baseline, through anycuda's C-named functions.
fn raw() -> Res<()> {
    let sel = anycuda::backend()?;
    println!("RESULT backend raw-{}", sel.kind());
    let repeats = env_num("BENCH_REPEATS", 7).max(1);
    let big_calls = env_num("BENCH_BIG_CALLS", 20).max(1);
    let small_calls = env_num("BENCH_SMALL_CALLS", 2000).max(1);
    let big = (N as usize) * (N as usize);
    let mut allocs = Vec::new();
    // SAFETY: (whole body) every pointer passed is a live local or a device allocation of the
    // size the call reads or writes (4096² elements, or 1024 batches of 64² within them).
    unsafe {
        let mut s: cudaStream_t = core::ptr::null_mut();
        ck(cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking))?;
        let mut h: cublasHandle_t = core::ptr::null_mut();
        cb(cublasCreate_v2(&mut h))?;
        cb(cublasSetStream_v2(h, s))?;
        let mut bufs = [core::ptr::null_mut::<c_void>(); 6];
        for (i, p) in bufs.iter_mut().enumerate() {
            let bytes = big * if i < 3 { 4 } else { 2 };
            ck(cudaMalloc(p, bytes))?;
            ck(cudaMemset(*p, 0x3c, bytes))?;
        }
        ck(cudaDeviceSynchronize())?;
        let [a, b, c, ha, hb, hc] = bufs;
        let (one, zero) = (1.0f32, 0.0f32);
        let (op, f16) = (cublasOperation_t::CUBLAS_OP_N, cudaDataType::CUDA_R_16F);
        let (c32, algo) = (
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        );
        let mut sync = || ck(cudaStreamSynchronize(s));
        let t = per_call(
            "sgemm_4096",
            &mut sync,
            big_calls,
            repeats,
            &mut || {
                cb(cublasSgemm_v2(
                    h,
                    op,
                    op,
                    N,
                    N,
                    N,
                    &one,
                    a.cast(),
                    N,
                    b.cast(),
                    N,
                    &zero,
                    c.cast(),
                    N,
                ))
            },
            &mut allocs,
        )?;
        println!("RESULT sgemm_4096 {:.6}", t * 1e3);
        let t = per_call(
            "hgemm_4096",
            &mut sync,
            big_calls,
            repeats,
            &mut || {
                cb(cublasGemmEx(
                    h,
                    op,
                    op,
                    N,
                    N,
                    N,
                    (&one as *const f32).cast(),
                    ha,
                    f16,
                    N,
                    hb,
                    f16,
                    N,
                    (&zero as *const f32).cast(),
                    hc,
                    f16,
                    N,
                    c32,
                    algo,
                ))
            },
            &mut allocs,
        )?;
        println!("RESULT hgemm_4096 {:.6}", t * 1e3);
        let st = i64::from(S * S);
        let t = per_call(
            "sgemm_b64",
            &mut sync,
            small_calls,
            repeats,
            &mut || {
                cb(cublasSgemmStridedBatched(
                    h,
                    op,
                    op,
                    S,
                    S,
                    S,
                    &one,
                    a.cast(),
                    S,
                    st,
                    b.cast(),
                    S,
                    st,
                    &zero,
                    c.cast(),
                    S,
                    st,
                    BATCH,
                ))
            },
            &mut allocs,
        )?;
        println!("RESULT sgemm_b64 {:.6}", t * 1e6);
        let t = per_call(
            "hgemm_b64",
            &mut sync,
            small_calls,
            repeats,
            &mut || {
                cb(cublasGemmStridedBatchedEx(
                    h,
                    op,
                    op,
                    S,
                    S,
                    S,
                    (&one as *const f32).cast(),
                    ha,
                    f16,
                    S,
                    st,
                    hb,
                    f16,
                    S,
                    st,
                    (&zero as *const f32).cast(),
                    hc,
                    f16,
                    S,
                    st,
                    BATCH,
                    c32,
                    algo,
                ))
            },
            &mut allocs,
        )?;
        println!("RESULT hgemm_b64 {:.6}", t * 1e6);
        cb(cublasDestroy_v2(h))?;
        for p in bufs {
            ck(cudaFree(p))?;
        }
        ck(cudaStreamDestroy(s))?;
    }
    report_allocs(&allocs)
}

/// Median of `rounds` alternating batches of `calls` calls through `a` and `b` (the order flips
/// every round so neither always runs first); seconds per call, `(a, b)`. Heap allocations
/// inside the batches are added to `allocs` (the timing vectors are made before they start).
fn alternate(
    rounds: usize,
    calls: usize,
    sync: &mut dyn FnMut() -> Res<()>,
    a: &mut dyn FnMut() -> Res<()>,
    b: &mut dyn FnMut() -> Res<()>,
    allocs: &mut u64,
) -> Res<(f64, f64)> {
    let (mut ta, mut tb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let before = anycuda_test::alloc::total_allocations();
    for r in 0..rounds {
        for first in [r % 2 == 0, r % 2 != 0] {
            let (f, t): (&mut dyn FnMut() -> Res<()>, _) = if first {
                (&mut *a, &mut ta)
            } else {
                (&mut *b, &mut tb)
            };
            let t0 = Instant::now();
            for _ in 0..calls {
                f()?;
            }
            t.push(t0.elapsed().as_secs_f64() / calls as f64);
            sync()?;
        }
    }
    *allocs += anycuda_test::alloc::total_allocations() - before;
    ta.sort_by(f64::total_cmp);
    tb.sort_by(f64::total_cmp);
    Ok((ta[rounds / 2], tb[rounds / 2]))
}

/// The in-process A/B of the raw layer against the same cuBLAS called directly (module docs).
fn ab() -> Res<()> {
    type SgemmBatched = unsafe extern "C" fn(
        cublasHandle_t,
        cublasOperation_t,
        cublasOperation_t,
        i32,
        i32,
        i32,
        *const f32,
        *const f32,
        i32,
        i64,
        *const f32,
        i32,
        i64,
        *const f32,
        *mut f32,
        i32,
        i64,
        i32,
    ) -> cublasStatus_t;
    type GemmBatchedEx = unsafe extern "C" fn(
        cublasHandle_t,
        cublasOperation_t,
        cublasOperation_t,
        i32,
        i32,
        i32,
        *const c_void,
        *const c_void,
        cudaDataType,
        i32,
        i64,
        *const c_void,
        cudaDataType,
        i32,
        i64,
        *const c_void,
        *mut c_void,
        cudaDataType,
        i32,
        i64,
        i32,
        cublasComputeType_t,
        cublasGemmAlgo_t,
    ) -> cublasStatus_t;
    type GetStream = unsafe extern "C" fn(cublasHandle_t, *mut cudaStream_t) -> cublasStatus_t;
    let sel = anycuda::backend()?;
    println!("RESULT backend ab-{}", sel.kind());
    if sel.kind() != anycuda::BackendKind::Cuda {
        return Err("the A/B calls NVIDIA's cuBLAS directly: ANYCUDA_BACKEND=cuda".into());
    }
    let path = std::env::var("ANYCUDA_CUBLAS_LIBRARY").unwrap_or_else(|_| "libcublas.so.13".into());
    let rounds = env_num("BENCH_AB_ROUNDS", 201).max(1);
    let mut allocs = Vec::new();
    // SAFETY: (whole body) the symbols are cuBLAS's own, called with their C signatures; every
    // pointer passed is a live local or a device allocation of the size the call reads or writes.
    unsafe {
        let mut s: cudaStream_t = core::ptr::null_mut();
        ck(cudaStreamCreateWithFlags(&mut s, cudaStreamNonBlocking))?;
        let mut h: cublasHandle_t = core::ptr::null_mut();
        cb(cublasCreate_v2(&mut h))?;
        cb(cublasSetStream_v2(h, s))?;
        // Opened after anycuda's first cuBLAS call: the same path maps the same library, so the
        // direct pointers are the very functions anycuda dispatches to.
        let lib = libloading::Library::new(&path)?;
        let d_sgemm: libloading::Symbol<SgemmBatched> = lib.get(b"cublasSgemmStridedBatched\0")?;
        let d_hgemm: libloading::Symbol<GemmBatchedEx> =
            lib.get(b"cublasGemmStridedBatchedEx\0")?;
        let d_get: libloading::Symbol<GetStream> = lib.get(b"cublasGetStream_v2\0")?;
        let (d_sgemm, d_hgemm, d_get) = (*d_sgemm, *d_hgemm, *d_get);
        let small = (S * S * BATCH) as usize;
        let mut bufs = [core::ptr::null_mut::<c_void>(); 6];
        for (i, p) in bufs.iter_mut().enumerate() {
            let bytes = small * if i < 3 { 4 } else { 2 };
            ck(cudaMalloc(p, bytes))?;
            ck(cudaMemset(*p, 0x3c, bytes))?;
        }
        ck(cudaDeviceSynchronize())?;
        let [a, b, c, ha, hb, hc] = bufs;
        let (one, zero) = (1.0f32, 0.0f32);
        let (op, f16) = (cublasOperation_t::CUBLAS_OP_N, cudaDataType::CUDA_R_16F);
        let (c32, algo) = (
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        );
        let st = i64::from(S * S);
        let mut sync = || ck(cudaStreamSynchronize(s));
        let mut n = 0;
        let (ta, tb) = alternate(
            rounds,
            100,
            &mut sync,
            &mut || {
                cb(d_sgemm(
                    h,
                    op,
                    op,
                    S,
                    S,
                    S,
                    &one,
                    a.cast(),
                    S,
                    st,
                    b.cast(),
                    S,
                    st,
                    &zero,
                    c.cast(),
                    S,
                    st,
                    BATCH,
                ))
            },
            &mut || {
                cb(cublasSgemmStridedBatched(
                    h,
                    op,
                    op,
                    S,
                    S,
                    S,
                    &one,
                    a.cast(),
                    S,
                    st,
                    b.cast(),
                    S,
                    st,
                    &zero,
                    c.cast(),
                    S,
                    st,
                    BATCH,
                ))
            },
            &mut n,
        )?;
        println!("RESULT ab_sgemm_direct {:.6}", ta * 1e6);
        println!("RESULT ab_sgemm_anycuda {:.6}", tb * 1e6);
        let alpha = (&one as *const f32).cast::<c_void>();
        let beta = (&zero as *const f32).cast::<c_void>();
        let (ta, tb) = alternate(
            rounds,
            100,
            &mut sync,
            &mut || {
                cb(d_hgemm(
                    h, op, op, S, S, S, alpha, ha, f16, S, st, hb, f16, S, st, beta, hc, f16, S,
                    st, BATCH, c32, algo,
                ))
            },
            &mut || {
                cb(cublasGemmStridedBatchedEx(
                    h, op, op, S, S, S, alpha, ha, f16, S, st, hb, f16, S, st, beta, hc, f16, S,
                    st, BATCH, c32, algo,
                ))
            },
            &mut n,
        )?;
        println!("RESULT ab_hgemm_direct {:.6}", ta * 1e6);
        println!("RESULT ab_hgemm_anycuda {:.6}", tb * 1e6);
        let (mut got_a, mut got_b): (cudaStream_t, cudaStream_t) =
            (core::ptr::null_mut(), core::ptr::null_mut());
        let (ta, tb) = alternate(
            rounds,
            10_000,
            &mut || Ok(()),
            &mut || cb(d_get(h, &mut got_a)),
            &mut || cb(cublasGetStream_v2(h, &mut got_b)),
            &mut n,
        )?;
        if got_a != s || got_b != s {
            return Err("cublasGetStream_v2 returned another stream".into());
        }
        println!("RESULT ab_trivial_direct {:.3}", ta * 1e9);
        println!("RESULT ab_trivial_anycuda {:.3}", tb * 1e9);
        // The Driver API's trivial call, the same way: NVIDIA's libcuda (already mapped by
        // anycuda's CUDA backend; the soname returns that mapping) against anycuda::driver.
        type CtxGetCurrent = unsafe extern "C" fn(*mut CUcontext) -> CUresult;
        let cuda = libloading::Library::new("libcuda.so.1")?;
        let d_ctx: CtxGetCurrent = *cuda.get::<CtxGetCurrent>(b"cuCtxGetCurrent\0")?;
        let (mut ca, mut cb_): (CUcontext, CUcontext) =
            (core::ptr::null_mut(), core::ptr::null_mut());
        let dk = |r: CUresult| -> Res<()> { r.result().map_err(|e| e.into()) };
        let (ta, tb) = alternate(
            rounds,
            10_000,
            &mut || Ok(()),
            &mut || dk(d_ctx(&mut ca)),
            &mut || dk(anycuda::driver::cuCtxGetCurrent(&mut cb_)),
            &mut n,
        )?;
        if ca.is_null() || ca != cb_ {
            return Err("cuCtxGetCurrent: the two calls disagree".into());
        }
        println!("RESULT ab_driver_direct {:.3}", ta * 1e9);
        println!("RESULT ab_driver_anycuda {:.3}", tb * 1e9);
        if n != 0 {
            allocs.push(format!("A/B: {n} allocations"));
        }
        cb(cublasDestroy_v2(h))?;
        for p in bufs {
            ck(cudaFree(p))?;
        }
        ck(cudaStreamDestroy(s))?;
    }
    report_allocs(&allocs)
}

/// The safe layer: the same GEMMs through `anycuda::core::Blas` over `Buffer`s (f16 needs the
/// `half` feature, which the GPU bundle is built with).
#[cfg(feature = "half")]
fn core() -> Res<()> {
    use anycuda::core::{Blas, Buffer, Device, Gemm, StridedBatch};
    use half::f16;
    let sel = anycuda::backend()?;
    println!("RESULT backend core-{}", sel.kind());
    let repeats = env_num("BENCH_REPEATS", 7).max(1);
    let big_calls = env_num("BENCH_BIG_CALLS", 20).max(1);
    let small_calls = env_num("BENCH_SMALL_CALLS", 2000).max(1);
    let (n, s, count) = (N as usize, S as usize, BATCH as usize);
    let mut allocs = Vec::new();
    // A non-blocking stream, as the baseline's; the buffers are allocated on it, so the GEMMs
    // are uses on their own stream (nothing to record for their frees).
    let stream = Device::new(0)?.create_stream(Default::default())?;
    let blas = Blas::new(&stream)?;
    // The baseline's memset(0x3c) of every byte.
    let f32_buf = || -> Res<Buffer<f32>> {
        let mut b = Buffer::new(&stream, n * n)?;
        b.fill(f32::from_bits(0x3c3c_3c3c), &stream)?;
        Ok(b)
    };
    let f16_buf = || -> Res<Buffer<f16>> {
        let mut b = Buffer::new(&stream, n * n)?;
        b.fill(f16::from_bits(0x3c3c), &stream)?;
        Ok(b)
    };
    let (a, b, mut c) = (f32_buf()?, f32_buf()?, f32_buf()?);
    let (ha, hb, mut hc) = (f16_buf()?, f16_buf()?, f16_buf()?);
    stream.synchronize()?;
    let big = Gemm::<f32>::new(n, n, n);
    let small = Gemm::<f32>::new(s, s, s);
    let batch = StridedBatch::new(count);
    let mut sync = || -> Res<()> { Ok(stream.synchronize()?) };
    let t = per_call(
        "sgemm_4096",
        &mut sync,
        big_calls,
        repeats,
        &mut || Ok(blas.gemm(&big, &a, &b, &mut c)?),
        &mut allocs,
    )?;
    println!("RESULT sgemm_4096 {:.6}", t * 1e3);
    let t = per_call(
        "hgemm_4096",
        &mut sync,
        big_calls,
        repeats,
        &mut || Ok(blas.gemm(&big, &ha, &hb, &mut hc)?),
        &mut allocs,
    )?;
    println!("RESULT hgemm_4096 {:.6}", t * 1e3);
    let t = per_call(
        "sgemm_b64",
        &mut sync,
        small_calls,
        repeats,
        &mut || Ok(blas.gemm_strided_batched(&small, &batch, &a, &b, &mut c)?),
        &mut allocs,
    )?;
    println!("RESULT sgemm_b64 {:.6}", t * 1e6);
    let t = per_call(
        "hgemm_b64",
        &mut sync,
        small_calls,
        repeats,
        &mut || Ok(blas.gemm_strided_batched(&small, &batch, &ha, &hb, &mut hc)?),
        &mut allocs,
    )?;
    println!("RESULT hgemm_b64 {:.6}", t * 1e6);
    report_allocs(&allocs)
}

/// Without the `half` feature there is no f16 GEMM in the safe layer to measure.
#[cfg(not(feature = "half"))]
fn core() -> Res<()> {
    Err("the core mode measures f16 GEMMs too: build with `--features half`".into())
}

fn report_allocs(allocs: &[String]) -> Res<()> {
    if allocs.is_empty() {
        println!("RESULT allocs_per_gemm 0");
        Ok(())
    } else {
        Err(format!("heap allocations in GEMM loops: {}", allocs.join("; ")).into())
    }
}
