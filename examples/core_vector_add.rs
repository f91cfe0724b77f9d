//! A vector add on the safe layer: one kernel, three typed buffers, the launch dimensions
//! from the kernel's suggested block size (occupancy API), the result checked on the host.
//! Prints "skipped: no GPU" and exits 0 without a device.
//!
//! `cargo run --release --example core_vector_add`

use anycuda::core::{launch, Buffer, CodeType, Device, LaunchConfig, Program, ProgramOptions};

mod common;
use common::{device_or_skip, Res};

const VECTOR_ADD: &str = r#"
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("core_vector_add: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    let ctx = Device::new(0)?.set_current()?;
    let code = Program::new(VECTOR_ADD, ProgramOptions::new())?.compile(CodeType::Ptx)?;
    let kernel = code.kernel("vector_add")?;
    let stream = ctx.create_stream(Default::default())?;

    let n = 1_000_003u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let da = Buffer::from_slice(&stream, &a)?;
    let db = Buffer::from_slice(&stream, &b)?;
    let mut dc = Buffer::<f32>::zeroed(&stream, n as usize)?;

    let (_, block) = kernel.occupancy().max_potential_block_size(0, 0)?;
    let cfg = LaunchConfig::for_num_elems(n, block);
    println!("{} blocks of {block} threads", cfg.grid.x);
    // SAFETY: vector_add reads a[i], b[i] and writes c[i] for i < n only (n is every
    // buffer's length); no host borrow is alive; no capture.
    unsafe { launch(&stream, &cfg, &kernel, (&da, &db, &mut dc, n))? };
    stream.synchronize()?;

    let c = dc.to_vec()?;
    if let Some(i) = (0..n as usize).find(|&i| c[i] != a[i] + b[i]) {
        return Err(format!("c[{i}] = {}, expected {}", c[i], a[i] + b[i]).into());
    }
    println!("vector_add: {n} elements correct");
    Ok(())
}
