//! Pageable host copies through the cudarc facade: the contract, then the cost.
//!
//!   ANYCUDA_BACKEND=cuda bench_pageable [iterations]
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so bench_pageable [iterations]
//!
//! 1. The contract every backend keeps (CUDA's; on HIP the backend's rule,
//!    `anycuda::native::hip::pageable_copy_needs_wait`, so the facade adds no wait): a pageable
//!    source may be overwritten as soon as `memcpy_htod` returns, and a pageable destination
//!    holds the data as soon as `memcpy_dtoh`/`clone_dtoh` returns, with no synchronize. Each is
//!    checked behind a busy stream (many queued copies), so a copy that returned early would be
//!    caught. A failure exits 1.
//! 2. µs per 4 KiB pageable `memcpy_htod` and `memcpy_dtoh` (median of 7 rounds of
//!    `iterations`, default 2000, each round ending with one synchronize), and per 4 KiB pinned
//!    `memcpy_htod` for reference. The target: HIP's NVIDIA platform within 1.2x of the
//!    CUDA backend for the pageable `memcpy_htod`.
//!
//! With no GPU it prints `SKIP` and exits 0 (`ANYCUDA_REQUIRE_GPU=1`: exit 1).

use anycuda_cudarc as cudarc;
use cudarc::driver::{CudaContext, DriverError};
use std::time::Instant;

const N: usize = 1024; // 4 KiB of u32

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let backend = anycuda::backend()
        .map(|s| s.kind().to_string())
        .unwrap_or_else(|e| format!("none ({e})"));
    match run(iters, &backend) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            if std::env::var("ANYCUDA_REQUIRE_GPU").as_deref() == Ok("1") {
                eprintln!("FAIL: {backend}: {e}");
                std::process::exit(1);
            }
            println!("SKIP: {backend}: {e}");
        }
    }
}

fn run(iters: usize, backend: &str) -> Result<bool, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut ok = true;

    // 1. The contract, behind a busy stream.
    let big_host = vec![7u8; 64 << 20];
    let mut big = stream.alloc_zeros::<u8>(big_host.len())?;
    let mut d = stream.alloc_zeros::<u32>(N)?;
    for round in 0..20u32 {
        stream.memcpy_htod(&big_host, &mut big)?; // keeps the stream busy
        let mut src: Vec<u32> = (0..N as u32).map(|i| i ^ round).collect();
        stream.memcpy_htod(&src, &mut d)?;
        src.iter_mut().for_each(|x| *x = u32::MAX); // the source may be reused now
        stream.synchronize()?;
        let back = stream.clone_dtoh(&d)?; // complete on return, no synchronize
        if back.iter().enumerate().any(|(i, &x)| x != i as u32 ^ round) {
            eprintln!("FAIL: {backend}: round {round}: memcpy_htod read its pageable source late");
            ok = false;
            break;
        }
        stream.memcpy_htod(&big_host, &mut big)?;
        let mut dst = vec![0u32; N];
        stream.memcpy_dtoh(&d, &mut dst)?; // complete on return, no synchronize
        if dst.iter().enumerate().any(|(i, &x)| x != i as u32 ^ round) {
            eprintln!("FAIL: {backend}: round {round}: memcpy_dtoh returned before the copy");
            ok = false;
            break;
        }
    }
    println!(
        "{backend}: pageable copy contract (20 rounds behind a busy stream): {}",
        if ok { "ok" } else { "FAILED" }
    );

    // 2. The cost.
    let host = vec![1u32; N];
    let mut back = vec![0u32; N];
    // SAFETY: filled below before any read.
    let mut pinned = unsafe { ctx.alloc_pinned::<u32>(N) }?;
    pinned.as_mut_slice()?.fill(1);
    let time = |f: &mut dyn FnMut() -> Result<(), DriverError>| -> Result<f64, DriverError> {
        for _ in 0..iters / 10 + 1 {
            f()?;
        }
        stream.synchronize()?;
        let mut rounds = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..iters {
                f()?;
            }
            stream.synchronize()?;
            rounds.push(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
        }
        Ok(median(rounds))
    };
    let htod = time(&mut || stream.memcpy_htod(&host, &mut d))?;
    let dtoh = time(&mut || stream.memcpy_dtoh(&d, &mut back))?;
    let htod_pinned = time(&mut || stream.memcpy_htod(&pinned, &mut d))?;
    println!("{backend}: htod_pageable_4KiB_us {htod:.2}");
    println!("{backend}: dtoh_pageable_4KiB_us {dtoh:.2}");
    println!("{backend}: htod_pinned_4KiB_us {htod_pinned:.2}");
    Ok(ok)
}
