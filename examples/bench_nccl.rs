//! All-reduce bus bandwidth and latency, 8 B to 1 GiB, on 2 GPUs through anycuda's safe layer
//! (`Communicator::init_all`, one thread driving both ranks in a group, float32 sum), measured
//! the way `ci/bench/nccl_baseline.cu` measures NCCL called directly from C: warm-up, then N
//! back-to-back all-reduces timed on the host around a final stream synchronisation.
//!
//! `bench_nccl [--max-bytes N]` prints CSV: `bytes,time_us,algbw_GBs,busbw_GBs` (run by
//! ci/nccl-bench.sh). Sets `NCCL_NVLS_ENABLE=0` itself.

use anycuda::core::comm::{self, Communicator, ReduceOp};
use anycuda::core::{Buffer, Device, Stream, StreamOptions};
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn iters_for(bytes: usize) -> (usize, usize) {
    let iters = ((4usize << 30) / bytes.max(1)).clamp(20, 1000);
    (iters / 10 + 5, iters)
}

fn main() {
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let max = args
        .windows(2)
        .find(|w| w[0] == "--max-bytes")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(1usize << 30);
    if let Err(e) = run(max) {
        eprintln!("bench_nccl: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run(max: usize) -> Res<()> {
    let n = Device::count()?;
    if n < 2 {
        return Err(format!("needs 2 GPUs, found {n}").into());
    }
    let devs = [Device::new(0)?, Device::new(1)?];
    let info = anycuda::nccl::library()?.info();
    eprintln!(
        "# anycuda ({}) {} {} {}",
        anycuda::backend()
            .map(|s| s.kind().to_string())
            .unwrap_or_default(),
        info.name,
        anycuda::nccl::version_string(info.version),
        info.path
    );
    let mut comms = Communicator::init_all(&devs)?;
    let streams: Vec<Stream> = devs
        .iter()
        .map(|d| d.set_current()?.create_stream(StreamOptions::default()))
        .collect::<Result<_, _>>()?;
    let elems = max / 4;
    let mut send: Vec<Buffer<f32>> = Vec::new();
    let mut recv: Vec<Buffer<f32>> = Vec::new();
    for s in &streams {
        send.push(Buffer::from_slice(s, &vec![1.0f32; elems])?);
        recv.push(Buffer::zeroed(s, elems)?);
    }
    println!("bytes,time_us,algbw_GBs,busbw_GBs");
    let mut bytes = 8usize;
    while bytes <= max {
        let count = bytes / 4;
        let sv: Vec<_> = send
            .iter()
            .map(|b| b.view(..count))
            .collect::<Result<_, _>>()?;
        let mut rv: Vec<_> = recv
            .iter_mut()
            .map(|b| b.view_mut(..count))
            .collect::<Result<_, _>>()?;
        let step = |comms: &mut [Communicator],
                    rv: &mut [anycuda::core::BufferViewMut<'_, f32>]| {
            comm::group(|| {
                for (i, c) in comms.iter_mut().enumerate() {
                    c.all_reduce(&sv[i], &mut rv[i], ReduceOp::Sum, &streams[i])?;
                }
                Ok(())
            })
        };
        let (warm, iters) = iters_for(bytes);
        for _ in 0..warm {
            step(&mut comms, &mut rv)?;
        }
        for s in &streams {
            s.synchronize()?;
        }
        let t0 = Instant::now();
        for _ in 0..iters {
            step(&mut comms, &mut rv)?;
        }
        for s in &streams {
            s.synchronize()?;
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / iters as f64;
        drop(rv);
        // Every element is the sum over 2 ranks of 1.0 (checked once per size).
        let got = recv[0].view(..count.min(4))?.to_vec()?;
        if got.iter().any(|v| *v != 2.0) {
            return Err(format!("wrong result at {bytes} B: {got:?}").into());
        }
        let algbw = bytes as f64 / us / 1e3;
        let busbw = algbw * 2.0 * (2.0 - 1.0) / 2.0;
        println!("{bytes},{us:.3},{algbw:.3},{busbw:.3}");
        bytes *= 2;
    }
    Ok(())
}
