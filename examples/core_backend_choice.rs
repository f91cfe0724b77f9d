//! One binary, backend chosen at run time: `--backend cuda|hip|auto` (or `ANYCUDA_BACKEND`),
//! then the same safe-layer code runs on whichever backend was chosen, printing what it chose
//! and why, its libraries, and a round trip through device memory. Prints "SKIP: no GPU"
//! (exit 0) when the chosen backend has no device.
//!
//! `cargo run --release --example core_backend_choice -- --backend hip`

use anycuda::core::{system, EventOptions};
use anycuda::BackendChoice;

mod core_common;
use core_common::{device_or_skip, main_with, Res};

fn main() {
    main_with("core_backend_choice", run);
}

fn run() -> Res<()> {
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = match a.strip_prefix("--backend=") {
            Some(v) => v.to_string(),
            None if a == "--backend" => args.next().ok_or("--backend needs a value")?,
            None => {
                return Err(
                    format!("unknown argument {a:?}; usage: --backend cuda|hip|auto").into(),
                )
            }
        };
        let choice: BackendChoice = value.parse()?;
        anycuda::select(choice)?;
    }
    let info = system::backend_info()?;
    print!("chose {info}");
    let Some(dev) = device_or_skip()? else {
        return Ok(());
    };
    println!(
        "device 0: {} ({}), driver {}",
        dev.name()?,
        dev.arch()?,
        system::driver_version()?
    );
    let ctx = dev.set_current()?;
    let s = ctx.default_stream();
    let data: Vec<i32> = (0..1_000_000).map(|i| i - 500_000).collect();
    let t0 = s.record(EventOptions::timing())?;
    let mut buf = s.clone_from_host(&data)?;
    buf.view_mut(..10)?.fill(7, &s)?;
    let back = buf.to_vec()?;
    let t1 = s.record(EventOptions::timing())?;
    t1.synchronize()?;
    if back[..10] != [7; 10] || back[10..] != data[10..] {
        return Err("round trip through device memory is wrong".into());
    }
    println!(
        "round trip of {} MB on the {} backend: {:.3} ms: OK",
        data.len() * 4 / 1_000_000,
        info.kind,
        t0.elapsed_ms(&t1)?
    );
    Ok(())
}
