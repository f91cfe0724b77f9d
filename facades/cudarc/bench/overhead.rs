//! Launch and copy overhead, written against cudarc's API only, so the same file builds against
//! cudarc 0.19.10 itself and against anycuda-cudarc (ci/cudarc-bench.sh generates both crates).
//! Prints one `name value unit` line per measurement; the runner interleaves the two binaries.
//! With no GPU it prints SKIP and exits 0.

use cudarc::driver::{CudaContext, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::time::Instant;

const SRC: &str = r#"
extern "C" __global__ void empty(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 0 && i < n) x[i] = 0.0f;
}"#;

fn best_of<F: FnMut() -> Result<f64, DriverError>>(
    reps: usize,
    mut f: F,
) -> Result<f64, DriverError> {
    let mut best = f64::MAX;
    for _ in 0..reps {
        best = best.min(f()?);
    }
    Ok(best)
}

fn main() -> Result<(), DriverError> {
    let ctx = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            println!("SKIP: no GPU ({e})");
            return Ok(());
        }
    };
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC).expect("compile"))?;
    let f = module.load_function("empty")?;
    let mut x: CudaSlice<f32> = stream.alloc_zeros(1024)?;
    let n = 1024i32;
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };

    // Launch: submit N launches through the builder, one synchronize.
    const LAUNCHES: usize = 100_000;
    let us = best_of(5, || {
        stream.synchronize()?;
        let t = Instant::now();
        for _ in 0..LAUNCHES {
            let mut b = stream.launch_builder(&f);
            b.arg(&mut x).arg(&n);
            unsafe { b.launch(cfg) }?;
        }
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64() * 1e6 / LAUNCHES as f64)
    })?;
    println!("launch_builder_launch {us:.4} us");

    // Small copies: latency of memcpy_htod / memcpy_dtoh of 4 KiB (pageable).
    const SMALL: usize = 1024;
    const COPIES: usize = 20_000;
    let host = vec![1.0f32; SMALL];
    let mut back = vec![0.0f32; SMALL];
    let mut dev: CudaSlice<f32> = stream.alloc_zeros(SMALL)?;
    let us = best_of(5, || {
        let t = Instant::now();
        for _ in 0..COPIES {
            stream.memcpy_htod(&host, &mut dev)?;
        }
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64() * 1e6 / COPIES as f64)
    })?;
    println!("memcpy_htod_4KiB {us:.4} us");
    let us = best_of(5, || {
        let t = Instant::now();
        for _ in 0..COPIES {
            stream.memcpy_dtoh(&dev, &mut back)?;
        }
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64() * 1e6 / COPIES as f64)
    })?;
    println!("memcpy_dtoh_4KiB {us:.4} us");

    // Large copies: bandwidth of 256 MiB pageable and pinned.
    const BIG: usize = 64 << 20; // f32 elements = 256 MiB
    let big = vec![1.5f32; BIG];
    let mut big_back = vec![0.0f32; BIG];
    let mut dbig: CudaSlice<f32> = stream.alloc_zeros(BIG)?;
    let gbs = |s: f64| (BIG * 4) as f64 / s / 1e9;
    let s = best_of(3, || {
        let t = Instant::now();
        stream.memcpy_htod(&big, &mut dbig)?;
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    println!("htod_pageable_256MiB {:.2} GB/s", gbs(s));
    let s = best_of(3, || {
        let t = Instant::now();
        stream.memcpy_dtoh(&dbig, &mut big_back)?;
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    println!("dtoh_pageable_256MiB {:.2} GB/s", gbs(s));
    assert!(
        big_back.iter().all(|&v| v == 1.5),
        "round trip corrupted data"
    );
    let mut pinned = unsafe { ctx.alloc_pinned::<f32>(BIG) }?;
    pinned.as_mut_slice()?.fill(2.5);
    let s = best_of(3, || {
        let t = Instant::now();
        stream.memcpy_htod(&pinned, &mut dbig)?;
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    println!("htod_pinned_256MiB {:.2} GB/s", gbs(s));
    let s = best_of(3, || {
        let t = Instant::now();
        stream.memcpy_dtoh(&dbig, &mut pinned)?;
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    println!("dtoh_pinned_256MiB {:.2} GB/s", gbs(s));
    assert!(
        pinned.as_slice()?.iter().all(|&v| v == 2.5),
        "pinned round trip corrupted data"
    );
    Ok(())
}
