//! What the safe layer (`anycuda::core`) costs, measured like ci/bench/baseline.cu and
//! examples/bench_dispatch.rs (same kernels, same methodology; ci/bench.sh runs all three in
//! one interleaved run and tabulates the ratios):
//!
//! 1. empty-kernel launch through `core::launch` (N launches, one stream sync), µs/launch;
//! 2. a launch with four typed arguments (`saxpy` with n = 0: the arguments are packed and
//!    checked, the kernel does nothing), µs/launch;
//! 3. pinned H2D / D2H bandwidth through `PinnedBuffer` (256 MiB), GB/s;
//! 4. a typed-buffer round trip of 2^18 floats: two `Buffer::from_slice`, a `saxpy` launch,
//!    `copy_to_host`, drop (the raw twins in baseline.cu and bench_dispatch.rs make the same
//!    driver calls by hand), µs.
//!
//! Each figure is the median of BENCH_REPEATS repeats after a warm-up. A counting global
//! allocator checks that the launch loops allocate nothing (exits 1 otherwise). Lines starting
//! with `RESULT` are what ci/bench.sh reads; the keys match the C++ baseline's.
//!
//! `ANYCUDA_BACKEND=cuda cargo run --release --example bench_core` (or `hip`).
//! Environment: BENCH_LAUNCHES (100000), BENCH_REPEATS (5), BENCH_ROUNDTRIPS (200).

mod bench_common;

use anycuda::core::{
    launch, Buffer, CodeType, Device, LaunchConfig, PinnedBuffer, Program, ProgramOptions,
    StreamOptions,
};
use std::error::Error;
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

/// The median of `v`, which is left empty with its capacity kept, so the next counted loop
/// pushes without allocating.
fn median(v: &mut Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let m = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    v.clear();
    m
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_core: FAILED: {e}");
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
    let launches = env_num("BENCH_LAUNCHES", 100_000);
    let repeats = env_num("BENCH_REPEATS", 5).max(1);
    let roundtrips = env_num("BENCH_ROUNDTRIPS", 200).max(1);
    println!(
        "anycuda::core bench: backend {} ({})",
        sel.kind(),
        sel.reason
    );
    println!("RESULT backend core-{}", sel.kind());

    let dev = Device::new(0)?;
    let ctx = dev.set_current()?;
    let arch = dev.arch()?;
    // The same options as the baselines: the device's arch, PTX loaded by the driver.
    let mut prog = Program::new(
        KERNELS,
        ProgramOptions::new().name("kernels.cu").arch(&arch),
    )?;
    let code = prog.compile(CodeType::Ptx)?;
    let empty = code.kernel("empty")?;
    let saxpy = code.kernel("saxpy")?;
    let stream = ctx.create_stream(StreamOptions::default().non_blocking(true))?;
    println!("device 0: {arch}; launches {launches}, repeats {repeats}, round trips {roundtrips}");
    let mut alloc_failures = Vec::new();

    // 1. Empty-kernel launches, one sync at the end.
    let one = LaunchConfig::new(1u32, 1u32);
    for _ in 0..1000 {
        // SAFETY: `empty` touches no memory.
        unsafe { launch(&stream, &one, &empty, ())? };
    }
    stream.synchronize()?;
    let mut samples = Vec::with_capacity(repeats * 2 + 2); // no growth inside the counted loops
    let before = anycuda_test::alloc::total_allocations();
    for _ in 0..repeats {
        let t = Instant::now();
        for _ in 0..launches {
            // SAFETY: `empty` touches no memory.
            unsafe { launch(&stream, &one, &empty, ())? };
        }
        stream.synchronize()?;
        samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / launches as f64);
    }
    let allocs = anycuda_test::alloc::total_allocations() - before;
    let us = median(&mut samples);
    println!("core::launch, empty kernel: {us:.3} us/launch (heap allocations: {allocs})");
    println!("RESULT launch_us {us:.4}");
    println!("RESULT allocs_launch {allocs}");
    if allocs != 0 {
        alloc_failures.push(format!("{allocs} allocations in the empty-launch loop"));
    }

    // 2. Four typed arguments (n = 0: nothing runs, everything is packed and checked).
    let x = Buffer::<f32>::zeroed(&stream, 256)?;
    let mut y = Buffer::<f32>::zeroed(&stream, 256)?;
    for _ in 0..1000 {
        // SAFETY: with n = 0 saxpy touches no memory.
        unsafe { launch(&stream, &one, &saxpy, (0.5f32, &x, &mut y, 0u32))? };
    }
    stream.synchronize()?;
    let before = anycuda_test::alloc::total_allocations();
    for _ in 0..repeats {
        let t = Instant::now();
        for _ in 0..launches {
            // SAFETY: with n = 0 saxpy touches no memory.
            unsafe { launch(&stream, &one, &saxpy, (0.5f32, &x, &mut y, 0u32))? };
        }
        stream.synchronize()?;
        samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / launches as f64);
    }
    let allocs = anycuda_test::alloc::total_allocations() - before;
    let us = median(&mut samples);
    println!("core::launch, 4 typed arguments: {us:.3} us/launch (heap allocations: {allocs})");
    println!("RESULT launch_args_us {us:.4}");
    println!("RESULT allocs_launch_args {allocs}");
    if allocs != 0 {
        alloc_failures.push(format!("{allocs} allocations in the argument-launch loop"));
    }

    // 2b. The safe layer against the raw driver call in this process, alternating, so drift
    // hits both alike: 21 rounds of `launches / 10` empty launches (then a sync) through
    // `cuLaunchKernel` directly and through `core::launch`; the median of the per-round ratios.
    let n = (launches / 10).max(1);
    let (f, s) = (empty.as_raw(), stream.as_raw());
    let (mut raw_t, mut core_t, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..21 {
        let t = Instant::now();
        for _ in 0..n {
            // SAFETY: a live function of the stream's (current) context, no arguments.
            let r = unsafe {
                anycuda::driver::cuLaunchKernel(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    s,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            };
            r.result()?;
        }
        stream.synchronize()?;
        let raw = t.elapsed().as_nanos() as f64 / 1000.0 / n as f64;
        let t = Instant::now();
        for _ in 0..n {
            // SAFETY: `empty` touches no memory.
            unsafe { launch(&stream, &one, &empty, ())? };
        }
        stream.synchronize()?;
        let safe = t.elapsed().as_nanos() as f64 / 1000.0 / n as f64;
        raw_t.push(raw);
        core_t.push(safe);
        ratios.push(safe / raw);
    }
    let (raw, safe, ratio) = (median(&mut raw_t), median(&mut core_t), median(&mut ratios));
    println!(
        "alternating in-process, 21 rounds of {n}: raw cuLaunchKernel {raw:.3} us, core::launch \
         {safe:.3} us, ratio {ratio:.4}"
    );
    println!("RESULT launch_raw_inproc_us {raw:.4}");
    println!("RESULT launch_core_inproc_us {safe:.4}");
    println!("RESULT launch_core_over_raw {ratio:.4}");
    drop((x, y));

    // 3. Pinned bandwidth through PinnedBuffer: the copy, then a stream sync.
    let size = 256usize << 20;
    let mut pinned = PinnedBuffer::<u8>::new(&ctx, size)?;
    pinned.as_mut_slice()?.fill(1);
    let mut dbuf = Buffer::<u8>::new(&stream, size)?;
    for h2d in [true, false] {
        for i in 0..repeats + 1 {
            let t = Instant::now();
            if h2d {
                dbuf.copy_from_pinned(&pinned, &stream)?;
            } else {
                dbuf.copy_to_pinned(&mut pinned, &stream)?;
            }
            stream.synchronize()?;
            let s = t.elapsed().as_secs_f64();
            if i > 0 {
                samples.push(size as f64 / s / 1e9);
            }
        }
        let name = if h2d { "h2d_pinned" } else { "d2h_pinned" };
        let gbps = median(&mut samples);
        println!("{name} (PinnedBuffer): {gbps:.2} GB/s");
        println!("RESULT {name}_gbps {gbps:.3}");
    }
    drop((dbuf, pinned));

    // 4. Typed-buffer round trip: alloc x and y with their data, saxpy, copy y out, free.
    let n = 1usize << 18;
    let hx: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let hy: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut out = vec![0f32; n];
    let cfg = LaunchConfig::for_num_elems(n as u32, 256);
    let round_trip = |out: &mut [f32]| -> anycuda::core::Result<()> {
        let dx = Buffer::from_slice(&stream, &hx)?;
        let mut dy = Buffer::from_slice(&stream, &hy)?;
        // SAFETY: saxpy reads x[i] and writes y[i] for i < n (both buffers' length); no host
        // borrow is alive; no capture.
        unsafe { launch(&stream, &cfg, &saxpy, (2.0f32, &dx, &mut dy, n as u32))? };
        dy.copy_to_host(out)
    };
    for _ in 0..10 {
        round_trip(&mut out)?;
    }
    if let Some(i) = (0..n).find(|&i| out[i] != 2.0 * hx[i] + hy[i]) {
        return Err(format!("round trip: y[{i}] = {}", out[i]).into());
    }
    let before = anycuda_test::alloc::total_allocations();
    for _ in 0..repeats {
        let t = Instant::now();
        for _ in 0..roundtrips {
            round_trip(&mut out)?;
        }
        samples.push(t.elapsed().as_nanos() as f64 / 1000.0 / roundtrips as f64);
    }
    let allocs = anycuda_test::alloc::total_allocations() - before;
    let us = median(&mut samples);
    println!(
        "typed round trip, 2 x {} KiB: {us:.2} us (heap allocations: {allocs})",
        n * 4 / 1024
    );
    println!("RESULT roundtrip_us {us:.3}");
    println!("RESULT allocs_roundtrip {allocs}");

    // 4b. The same round trip against its raw twin (bench_common), alternating in this process:
    // 21 rounds of `roundtrips / 10` each; the median of the per-round ratios.
    let pools = dev.memory_pools_supported();
    let m = (roundtrips / 10).max(1);
    let (mut raw_t, mut core_t, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut raw_out = vec![0f32; n];
    for _ in 0..21 {
        let t = Instant::now();
        for _ in 0..m {
            // SAFETY: `saxpy` and `stream` are live, of the current context.
            unsafe {
                bench_common::raw_round_trip(
                    pools,
                    stream.as_raw(),
                    saxpy.as_raw(),
                    &hx,
                    &hy,
                    &mut raw_out,
                )
            }
            .map_err(|e| format!("raw round trip: {e:?}"))?;
        }
        let raw = t.elapsed().as_nanos() as f64 / 1000.0 / m as f64;
        let t = Instant::now();
        for _ in 0..m {
            round_trip(&mut out)?;
        }
        let safe = t.elapsed().as_nanos() as f64 / 1000.0 / m as f64;
        raw_t.push(raw);
        core_t.push(safe);
        ratios.push(safe / raw);
    }
    if raw_out != out {
        return Err("the raw and the typed round trip disagree".into());
    }
    let (raw, safe, ratio) = (median(&mut raw_t), median(&mut core_t), median(&mut ratios));
    println!(
        "alternating in-process, 21 rounds of {m}: raw round trip {raw:.2} us, typed {safe:.2} us, \
         ratio {ratio:.4}"
    );
    println!("RESULT roundtrip_raw_inproc_us {raw:.3}");
    println!("RESULT roundtrip_core_inproc_us {safe:.3}");
    println!("RESULT roundtrip_core_over_raw {ratio:.4}");

    if !alloc_failures.is_empty() {
        return Err(alloc_failures.join("; ").into());
    }
    Ok(())
}
