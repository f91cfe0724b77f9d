//! Streams and events through the safe layer: two non-blocking streams, a cross-stream wait,
//! a host callback, and event timing of a large memset and of pinned copies (bandwidth).
//! Checks every result; prints "SKIP: no GPU" (exit 0) without a device.
//!
//! `cargo run --release --example core_streams_events`

use anycuda::core::{EventOptions, PinnedBuffer, StreamOptions};
use std::sync::mpsc;
use std::time::Duration;

mod core_common;
use core_common::{device_or_skip, main_with, Res};

fn main() {
    main_with("core_streams_events", run);
}

fn run() -> Res<()> {
    let Some(dev) = device_or_skip()? else {
        return Ok(());
    };
    let ctx = dev.set_current()?;
    let (least, greatest) = ctx.stream_priority_range()?;
    println!(
        "device 0: {} ({}), stream priorities {greatest}..={least}",
        dev.name()?,
        dev.arch()?
    );
    let compute = ctx.create_stream(
        StreamOptions::default()
            .non_blocking(true)
            .priority(greatest),
    )?;
    let copy = ctx.create_stream(StreamOptions::default().non_blocking(true))?;

    let n: usize = 64 << 20; // 64 Mi u32 = 256 MiB
    let mut a = compute.alloc::<u32>(n)?;
    let start = compute.record(EventOptions::timing())?;
    a.fill(0xdead_beef, &compute)?;
    let end = compute.record(EventOptions::timing())?;

    // The copy stream waits for the fill, then copies part of it into pinned memory.
    let m = 16 << 20;
    let mut host = PinnedBuffer::<u32>::new(&ctx, m)?;
    copy.wait_event(&end)?;
    let c0 = copy.record(EventOptions::timing())?;
    a.view(..m)?.copy_to_pinned(&mut host, &copy)?;
    let c1 = copy.record(EventOptions::timing())?;
    let (tx, rx) = mpsc::channel();
    copy.launch_host_func(move || {
        let _ = tx.send("copy stream drained");
    })?;

    let msg = rx.recv_timeout(Duration::from_secs(60))?;
    println!("host callback: {msg}");
    let fill_ms = start.elapsed_ms(&end)?;
    let copy_ms = c0.elapsed_ms(&c1)?;
    let bad = host
        .as_slice()?
        .iter()
        .filter(|&&x| x != 0xdead_beef)
        .count();
    if bad != 0 {
        return Err(format!("{bad} of {m} values wrong after fill + copy").into());
    }
    let gbs = |bytes: usize, ms: f32| bytes as f64 / 1e9 / (f64::from(ms) / 1e3);
    println!(
        "memset {} MiB: {fill_ms:.3} ms ({:.1} GB/s)",
        (n * 4) >> 20,
        gbs(n * 4, fill_ms)
    );
    println!(
        "DtoH pinned {} MiB: {copy_ms:.3} ms ({:.1} GB/s)",
        (m * 4) >> 20,
        gbs(m * 4, copy_ms)
    );
    if !(fill_ms > 0.0 && copy_ms > 0.0) {
        return Err("event timing returned a non-positive time".into());
    }
    // Timing needs timing events: the safe layer says so instead of calling the driver.
    let plain = copy.record(EventOptions::default())?;
    match start.elapsed_ms(&plain) {
        Err(e) => println!("elapsed with a non-timing event -> {e}"),
        Ok(_) => return Err("elapsed time accepted a non-timing event".into()),
    }
    compute.synchronize()?;
    copy.synchronize()?;
    if !(compute.is_done()? && copy.is_done()? && plain.is_done()?) {
        return Err("streams not done after synchronize".into());
    }
    println!("core_streams_events: OK");
    Ok(())
}
