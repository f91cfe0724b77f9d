//! What anycuda's dispatch costs, measured against the same work through the driver API directly
//! (ci/bench/baseline.cu, same kernels and methodology; ci/bench.sh runs both and tabulates):
//!
//! 1. per-call cost of a trivial call (`cuCtxGetDevice`), ns/call;
//! 2. submission cost of an empty-kernel launch (N launches, then one stream sync), µs/launch;
//! 3. SAXPY kernel time with events (2^26 elements), ms;
//! 4. pageable and pinned H2D / D2H bandwidth (256 MiB), GB/s;
//! 5. a launch with four arguments, µs/launch, and a raw round trip of 2^18 floats (alloc, copy
//!    in, kernel, copy out, free), µs: the raw twins of examples/bench_core.rs.
//!
//! Each figure is the median of several repeats after a warm-up. A counting global allocator
//! checks that the timed trivial-call and launch loops allocate nothing (must print 0; exits 1
//! otherwise). Output lines starting with `RESULT` are what ci/bench.sh reads.
//!
//! `ANYCUDA_BACKEND=cuda cargo run --release --example bench_dispatch` (or `hip`).
//! Environment: BENCH_CALLS (10000000), BENCH_LAUNCHES (100000), BENCH_REPEATS (5),
//! BENCH_ROUNDTRIPS (200).

mod bench_common;

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::driver::*;
use std::error::Error;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Instant;

// Counts every allocation (and reallocation) the process makes (anycuda-test).
anycuda_test::count_allocations!();

const KERNELS: &str = include_str!("../ci/bench/kernels.cu");

type Res<T> = Result<T, Box<dyn Error>>;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Median ns per call of `f` over `repeats` loops of `calls` calls. A call that fails ends the
/// program: a failing call is not the call being measured.
#[inline(never)]
fn time_calls(calls: usize, repeats: usize, mut f: impl FnMut() -> bool) -> f64 {
    let mut samples = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t = Instant::now();
        for _ in 0..calls {
            if !f() {
                eprintln!("bench_dispatch: FAILED: the trivial call failed in a timed loop");
                std::process::exit(1);
            }
        }
        samples.push(t.elapsed().as_nanos() as f64 / calls as f64);
    }
    median(samples)
}

/// The trivial call, layer by layer: the library's own entry point through its function pointer,
/// from Rust (what the C++ columns do); the `Backend` value's `Driver` method (dispatch and
/// adaptation); the public function (adds the backend lookup). 21 rounds of `n` calls each, the
/// three alternating; the medians, and the medians of the per-round differences to the native
/// call, which cancel the drift between rounds.
fn decompose(backend: anycuda::Backend, n: usize, mut native: impl FnMut() -> bool) {
    const ROUNDS: usize = 21;
    let (mut nat, mut via_backend, mut public) = (Vec::new(), Vec::new(), Vec::new());
    let mut d: CUdevice = 0;
    for _ in 0..ROUNDS {
        nat.push(time_calls(n, 1, &mut native));
        via_backend.push(time_calls(n, 1, || {
            // SAFETY: valid out-pointer.
            let r =
                unsafe { <anycuda::Backend as anycuda::Driver>::cuCtxGetDevice(&backend, &mut d) };
            r == CUresult::CUDA_SUCCESS
        }));
        public.push(time_calls(n, 1, || {
            // SAFETY: valid out-pointer.
            let r = unsafe { cuCtxGetDevice(&mut d) };
            r == CUresult::CUDA_SUCCESS
        }));
    }
    let gap = |v: &[f64]| median(v.iter().zip(&nat).map(|(a, b)| a - b).collect());
    let (g_backend, g_public) = (gap(&via_backend), gap(&public));
    let (m_nat, m_backend, m_public) = (median(nat), median(via_backend), median(public));
    println!(
        "  alternating, {ROUNDS} rounds of {n} calls: the library's entry point from Rust {m_nat:.2} ns, \
         through the Backend value {m_backend:.2} ns (+{g_backend:.2}), the public function \
         {m_public:.2} ns (+{g_public:.2})"
    );
    println!("RESULT call_native_ns {m_nat:.3}");
    println!("RESULT call_backend_ns {m_backend:.3}");
    println!("RESULT call_public_ns {m_public:.3}");
    println!("RESULT call_gap_backend_ns {g_backend:.3}");
    println!("RESULT call_gap_public_ns {g_public:.3}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_dispatch: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let sel = match anycuda::backend() {
        Ok(s) => s,
        Err(e) => {
            println!("skipped: no GPU: {e}");
            return Ok(());
        }
    };
    match anycuda::device_count(sel.backend) {
        Ok(n) if n > 0 => {}
        Ok(_) => {
            println!(
                "skipped: no GPU: the {} backend reports 0 devices",
                sel.kind()
            );
            return Ok(());
        }
        Err(e) => {
            println!("skipped: no GPU: {e}");
            return Ok(());
        }
    }
    let backend = sel.backend;
    let calls = env_num("BENCH_CALLS", 10_000_000);
    let launches = env_num("BENCH_LAUNCHES", 100_000);
    let repeats = env_num("BENCH_REPEATS", 5).max(1);
    println!("anycuda bench: backend {} ({})", sel.kind(), sel.reason);
    println!("RESULT backend {}", sel.kind());
    let mut alloc_failures = Vec::new();
    // SAFETY: raw driver calls as in C; every pointer passed is to a live local, buffer or
    // allocation of the size given, and every handle is created here before use.
    unsafe {
        cuInit(0).result()?;
        let mut dev: CUdevice = 0;
        cuDeviceGet(&mut dev, 0).result()?;
        let mut ctx: CUcontext = null_mut();
        cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        cuCtxSetCurrent(ctx).result()?;
        let arch = backend.device_arch(dev)?;
        let opts = ProgramOptions::new().name("kernels.cu").arch(arch.as_str());
        let mut code = Program::with_backend(backend, KERNELS, opts)?
            .compile(CodeType::Ptx)?
            .code()
            .to_vec();
        code.push(0);
        let mut module: CUmodule = null_mut();
        cuModuleLoadData(&mut module, code.as_ptr().cast()).result()?;
        let (mut empty, mut saxpy): (CUfunction, CUfunction) = (null_mut(), null_mut());
        cuModuleGetFunction(&mut empty, module, c"empty".as_ptr()).result()?;
        cuModuleGetFunction(&mut saxpy, module, c"saxpy".as_ptr()).result()?;
        println!("device 0: {arch}; calls {calls}, launches {launches}, repeats {repeats}");

        // 1. Trivial call.
        let mut d: CUdevice = 0;
        for _ in 0..100_000 {
            cuCtxGetDevice(&mut d).result()?;
        }
        let mut samples = Vec::with_capacity(repeats * 2 + 2); // no growth inside the counted loops
        let before = anycuda_test::alloc::total_allocations();
        for _ in 0..repeats {
            let t = Instant::now();
            for _ in 0..calls {
                let r = cuCtxGetDevice(&mut d);
                if r != CUresult::CUDA_SUCCESS {
                    return Err(format!("cuCtxGetDevice: {r:?}").into());
                }
            }
            samples.push(t.elapsed().as_nanos() as f64 / calls as f64);
        }
        let allocs = anycuda_test::alloc::total_allocations() - before;
        let ns = median(samples);
        println!("cuCtxGetDevice: {ns:.2} ns/call (heap allocations in the loop: {allocs})");
        println!("RESULT call_ns {ns:.3}");
        println!("RESULT allocs_call {allocs}");
        if allocs != 0 {
            alloc_failures.push(format!("{allocs} allocations in the trivial-call loop"));
        }

        // 1b. Where the trivial call's time goes, measured in this process with the variants
        // alternating, so that drift hits them alike (see `decompose`).
        let n = (calls / 10).max(1);
        let mut done = false;
        #[cfg(feature = "backend-cuda")]
        if let Some(f) = backend
            .as_cuda()
            .and_then(|b| b.native_driver())
            .and_then(|t| t.cuCtxGetDevice)
        {
            let mut d: CUdevice = 0;
            decompose(backend, n, || f(&mut d) == CUresult::CUDA_SUCCESS);
            done = true;
        }
        #[cfg(feature = "backend-hip")]
        if let Some(f) = backend
            .as_hip()
            .and_then(|b| b.native_hip())
            .and_then(|t| t.hipCtxGetDevice)
        {
            let mut d = 0;
            decompose(backend, n, || f(&mut d) == 0);
            done = true;
        }
        if !done {
            return Err("no native cuCtxGetDevice/hipCtxGetDevice entry point".into());
        }

        // 2. Empty-kernel launches on one stream, one sync at the end.
        let mut stream: CUstream = null_mut();
        cuStreamCreate(&mut stream, CUstream_flags::CU_STREAM_NON_BLOCKING.0).result()?;
        for _ in 0..1000 {
            cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, null_mut(), null_mut()).result()?;
        }
        cuStreamSynchronize(stream).result()?;
        let mut samples = Vec::with_capacity(repeats * 2 + 2); // no growth inside the counted loops
        let before = anycuda_test::alloc::total_allocations();
        for _ in 0..repeats {
            let t = Instant::now();
            for _ in 0..launches {
                let r = cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, null_mut(), null_mut());
                if r != CUresult::CUDA_SUCCESS {
                    return Err(format!("cuLaunchKernel: {r:?}").into());
                }
            }
            let r = cuStreamSynchronize(stream);
            if r != CUresult::CUDA_SUCCESS {
                return Err(format!("cuStreamSynchronize: {r:?}").into());
            }
            samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / launches as f64);
        }
        let allocs = anycuda_test::alloc::total_allocations() - before;
        let us = median(samples);
        println!("empty launch: {us:.3} us/launch (heap allocations in the loop: {allocs})");
        println!("RESULT launch_us {us:.4}");
        println!("RESULT allocs_launch {allocs}");
        if allocs != 0 {
            alloc_failures.push(format!("{allocs} allocations in the launch loop"));
        }

        // 2b. A launch with four arguments (saxpy with n = 0: nothing runs).
        let (mut ax, mut ay) = (0, 0);
        cuMemAlloc(&mut ax, 1024).result()?;
        cuMemAlloc(&mut ay, 1024).result()?;
        let mut aa = 0.5f32;
        let mut an = 0u32;
        let mut aargs: [*mut c_void; 4] = [
            (&mut aa as *mut f32).cast(),
            (&mut ax as *mut CUdeviceptr).cast(),
            (&mut ay as *mut CUdeviceptr).cast(),
            (&mut an as *mut u32).cast(),
        ];
        for _ in 0..1000 {
            cuLaunchKernel(
                saxpy,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                stream,
                aargs.as_mut_ptr(),
                null_mut(),
            )
            .result()?;
        }
        cuStreamSynchronize(stream).result()?;
        let mut samples = Vec::with_capacity(repeats * 2 + 2);
        for _ in 0..repeats {
            let t = Instant::now();
            for _ in 0..launches {
                let r = cuLaunchKernel(
                    saxpy,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    stream,
                    aargs.as_mut_ptr(),
                    null_mut(),
                );
                if r != CUresult::CUDA_SUCCESS {
                    return Err(format!("cuLaunchKernel: {r:?}").into());
                }
            }
            cuStreamSynchronize(stream).result()?;
            samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / launches as f64);
        }
        let us = median(samples);
        println!("launch with 4 arguments: {us:.3} us/launch");
        println!("RESULT launch_args_us {us:.4}");
        cuMemFree(ax).result()?;
        cuMemFree(ay).result()?;

        // 2c. Round trip of 2^18 floats by hand: the driver calls anycuda::core's
        // Buffer::from_slice / launch / copy_to_host / drop make (stream-ordered allocation
        // where the device has memory pools).
        let mut pools = 0;
        cuDeviceGetAttribute(
            &mut pools,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            dev,
        )
        .result()?;
        let rn = 1usize << 18;
        let hx: Vec<f32> = (0..rn).map(|i| (i % 1000) as f32).collect();
        let hy: Vec<f32> = (0..rn).map(|i| (i % 7) as f32).collect();
        let mut hout = vec![0f32; rn];
        let roundtrips = env_num("BENCH_ROUNDTRIPS", 200).max(1);
        let round_trip = |out: &mut [f32]| {
            bench_common::raw_round_trip(pools != 0, stream, saxpy, &hx, &hy, out)
        };
        for _ in 0..10 {
            round_trip(&mut hout).map_err(|e| format!("round trip: {e:?}"))?;
        }
        if let Some(i) = (0..rn).find(|&i| hout[i] != 2.0 * hx[i] + hy[i]) {
            return Err(format!("round trip: y[{i}] = {}", hout[i]).into());
        }
        let mut samples = Vec::with_capacity(repeats * 2 + 2);
        for _ in 0..repeats {
            let t = Instant::now();
            for _ in 0..roundtrips {
                round_trip(&mut hout).map_err(|e| format!("round trip: {e:?}"))?;
            }
            samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / roundtrips as f64);
        }
        let us = median(samples);
        println!("raw round trip, 2 x {} KiB: {us:.2} us", rn * 4 / 1024);
        println!("RESULT roundtrip_us {us:.3}");

        // 3. SAXPY, timed with events.
        let n: u32 = 1 << 26;
        let bytes = n as usize * 4;
        let (mut x, mut y) = (0, 0);
        cuMemAlloc(&mut x, bytes).result()?;
        cuMemAlloc(&mut y, bytes).result()?;
        cuMemsetD32(x, 1.0f32.to_bits(), n as usize).result()?;
        cuMemsetD32(y, 2.0f32.to_bits(), n as usize).result()?;
        let (mut e0, mut e1): (CUevent, CUevent) = (null_mut(), null_mut());
        cuEventCreate(&mut e0, 0).result()?;
        cuEventCreate(&mut e1, 0).result()?;
        let mut a = 0.5f32;
        let mut nn = n;
        let mut args: [*mut c_void; 4] = [
            (&mut a as *mut f32).cast(),
            (&mut x as *mut CUdeviceptr).cast(),
            (&mut y as *mut CUdeviceptr).cast(),
            (&mut nn as *mut u32).cast(),
        ];
        let block = 256u32;
        let grid = n.div_ceil(block);
        let mut samples = Vec::with_capacity(repeats * 2 + 2); // no growth inside the counted loops
        for i in 0..repeats * 2 + 2 {
            cuEventRecord(e0, stream).result()?;
            cuLaunchKernel(
                saxpy,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                stream,
                args.as_mut_ptr(),
                null_mut(),
            )
            .result()?;
            cuEventRecord(e1, stream).result()?;
            cuEventSynchronize(e1).result()?;
            let mut ms = 0f32;
            cuEventElapsedTime(&mut ms, e0, e1).result()?;
            if i >= 2 {
                samples.push(f64::from(ms)); // the first two are warm-up
            }
        }
        let ms = median(samples);
        println!(
            "saxpy 2^26: {ms:.4} ms ({:.0} GB/s effective)",
            3.0 * bytes as f64 / (ms / 1e3) / 1e9
        );
        println!("RESULT saxpy_ms {ms:.5}");
        cuMemFree(x).result()?;
        cuMemFree(y).result()?;

        // 4. Bandwidth: synchronous copies, host clock around copy + context sync.
        let size = 256usize << 20;
        let mut dbuf = 0;
        cuMemAlloc(&mut dbuf, size).result()?;
        let mut pageable = vec![1u8; size];
        let mut pinned: *mut c_void = null_mut();
        cuMemAllocHost(&mut pinned, size).result()?;
        std::ptr::write_bytes(pinned.cast::<u8>(), 1, size);
        let cases: [(&str, *mut c_void, bool); 4] = [
            ("h2d_pageable", pageable.as_mut_ptr().cast(), true),
            ("d2h_pageable", pageable.as_mut_ptr().cast(), false),
            ("h2d_pinned", pinned, true),
            ("d2h_pinned", pinned, false),
        ];
        for (name, host, h2d) in cases {
            let mut samples = Vec::with_capacity(repeats * 2 + 2); // no growth inside the counted loops
            for i in 0..repeats + 1 {
                let t = Instant::now();
                if h2d {
                    cuMemcpyHtoD(dbuf, host, size).result()?;
                } else {
                    cuMemcpyDtoH(host, dbuf, size).result()?;
                }
                cuCtxSynchronize().result()?;
                let s = t.elapsed().as_secs_f64();
                if i > 0 {
                    samples.push(size as f64 / s / 1e9);
                }
            }
            let gbps = median(samples);
            println!("{name}: {gbps:.2} GB/s");
            println!("RESULT {name}_gbps {gbps:.3}");
        }
        cuMemFreeHost(pinned).result()?;
        cuMemFree(dbuf).result()?;
        cuEventDestroy(e0).result()?;
        cuEventDestroy(e1).result()?;
        cuStreamDestroy(stream).result()?;
        cuModuleUnload(module).result()?;
        cuDevicePrimaryCtxRelease(dev).result()?;
    }
    if !alloc_failures.is_empty() {
        return Err(alloc_failures.join("; ").into());
    }
    Ok(())
}
