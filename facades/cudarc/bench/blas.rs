//! GEMM through cudarc's `cublas` module, written against cudarc's API only, so the same file
//! builds against cudarc 0.19.10 itself and against anycuda-cudarc (ci/blas-bench.sh generates
//! both crates). Shapes, data, stream setup and timing are those of ci/bench/blas_baseline.cu:
//! `sgemm_4096`/`hgemm_4096` (ms per call), `sgemm_b64`/`hgemm_b64` (64³ x 1024 strided
//! batched, µs per call), each the median of BENCH_REPEATS repeats of N calls and one stream
//! synchronisation after a warm-up. A counting allocator reports allocations per GEMM call.
//! Prints `RESULT key value` lines.

use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, StridedBatchedConfig};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr};
use half::f16;
use std::sync::Arc;
use std::time::Instant;

// Counts every allocation (and reallocation) the process makes (anycuda-test).
anycuda_test::count_allocations!();

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const N: i32 = 4096;
const S: i32 = 64;
const BATCH: i32 = 1024;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// 3 warm-up calls, then `repeats` x (`calls` calls + one sync): median seconds per call, and
/// the allocations the timed calls made, per call.
fn per_call(
    stream: &Arc<CudaStream>,
    calls: usize,
    repeats: usize,
    enq: Option<&str>,
    f: &mut dyn FnMut() -> Res<()>,
) -> Res<(f64, f64)> {
    for _ in 0..3 {
        f()?;
    }
    stream.synchronize()?;
    let mut t = Vec::with_capacity(repeats);
    let before = anycuda_test::alloc::total_allocations();
    for _ in 0..repeats {
        let t0 = Instant::now();
        for _ in 0..calls {
            f()?;
        }
        stream.synchronize()?;
        t.push(t0.elapsed().as_secs_f64() / calls as f64);
    }
    let allocs = (anycuda_test::alloc::total_allocations() - before) as f64 / (calls * repeats) as f64;
    if let Some(key) = enq {
        // The host's cost per call alone: 100 calls (too few to fill the launch queue), timed
        // up to the last call's return, 50 times.
        let mut e = Vec::with_capacity(50);
        for _ in 0..50 {
            let t0 = Instant::now();
            for _ in 0..100 {
                f()?;
            }
            e.push(t0.elapsed().as_secs_f64() / 100.0);
            stream.synchronize()?;
        }
        e.sort_by(f64::total_cmp);
        println!("RESULT {key}_enq {:.6}", e[e.len() / 2] * 1e6);
    }
    t.sort_by(f64::total_cmp);
    Ok((t[t.len() / 2], allocs))
}

/// A buffer of `n` elements, every byte 0x3c (f32 ~0.0115, f16 ~1.06), as in the baseline.
fn pattern<T: cudarc::driver::DeviceRepr>(stream: &Arc<CudaStream>, n: usize) -> Res<CudaSlice<T>> {
    // SAFETY: every byte is written by the memset below before any read.
    let s = unsafe { stream.alloc::<T>(n) }?;
    {
        let (p, _rec) = s.device_ptr(stream);
        // SAFETY: `p` is the start of `s`, n * size_of::<T>() bytes, on this stream.
        unsafe {
            cudarc::driver::result::memset_d8_async(
                p,
                0x3c,
                n * std::mem::size_of::<T>(),
                stream.cu_stream(),
            )
        }?;
    }
    Ok(s)
}

fn main() -> Res<()> {
    let ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            println!("SKIP: no GPU ({e})");
            return Ok(());
        }
    };
    let repeats = env_num("BENCH_REPEATS", 7);
    let big_calls = env_num("BENCH_BIG_CALLS", 20);
    let small_calls = env_num("BENCH_SMALL_CALLS", 2000);
    let stream = ctx.new_stream()?;
    let blas = CudaBlas::new(stream.clone())?;
    let big = (N as usize) * (N as usize);
    let (a, b, mut c) = (
        pattern::<f32>(&stream, big)?,
        pattern::<f32>(&stream, big)?,
        pattern::<f32>(&stream, big)?,
    );
    let (ha, hb, mut hc) = (
        pattern::<f16>(&stream, big)?,
        pattern::<f16>(&stream, big)?,
        pattern::<f16>(&stream, big)?,
    );
    stream.synchronize()?;
    let op = cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N;
    fn cfg<T>(
        op: cudarc::cublas::sys::cublasOperation_t,
        n: i32,
        one: T,
        zero: T,
    ) -> GemmConfig<T> {
        GemmConfig {
            transa: op,
            transb: op,
            m: n,
            n,
            k: n,
            alpha: one,
            lda: n,
            ldb: n,
            beta: zero,
            ldc: n,
        }
    }
    let st = i64::from(S * S);
    let mut allocs = 0f64;

    let sg = cfg(op, N, 1.0f32, 0.0f32);
    // SAFETY: 4096² elements in each operand, as the configuration reads and writes.
    let (t, al) = per_call(&stream, big_calls, repeats, None, &mut || {
        Ok(unsafe { blas.gemm(sg, &a, &b, &mut c) }?)
    })?;
    println!("RESULT sgemm_4096 {:.6}", t * 1e3);
    allocs = allocs.max(al);
    let hg = cfg(op, N, f16::ONE, f16::ZERO);
    // SAFETY: as above.
    let (t, al) = per_call(&stream, big_calls, repeats, None, &mut || {
        Ok(unsafe { blas.gemm(hg, &ha, &hb, &mut hc) }?)
    })?;
    println!("RESULT hgemm_4096 {:.6}", t * 1e3);
    allocs = allocs.max(al);
    let sb = StridedBatchedConfig {
        gemm: cfg(op, S, 1.0f32, 0.0f32),
        batch_size: BATCH,
        stride_a: st,
        stride_b: st,
        stride_c: st,
    };
    // SAFETY: 1024 batches of 64² lie within the 4096² operands.
    let (t, al) = per_call(
        &stream,
        small_calls,
        repeats,
        Some("sgemm_b64"),
        &mut || Ok(unsafe { blas.gemm_strided_batched(sb, &a, &b, &mut c) }?),
    )?;
    println!("RESULT sgemm_b64 {:.6}", t * 1e6);
    allocs = allocs.max(al);
    let hb64 = StridedBatchedConfig {
        gemm: cfg(op, S, f16::ONE, f16::ZERO),
        batch_size: BATCH,
        stride_a: st,
        stride_b: st,
        stride_c: st,
    };
    // SAFETY: as above.
    let (t, al) = per_call(
        &stream,
        small_calls,
        repeats,
        Some("hgemm_b64"),
        &mut || Ok(unsafe { blas.gemm_strided_batched(hb64, &ha, &hb, &mut hc) }?),
    )?;
    println!("RESULT hgemm_b64 {:.6}", t * 1e6);
    allocs = allocs.max(al);
    println!("RESULT allocs_per_gemm {allocs}");
    Ok(())
}
