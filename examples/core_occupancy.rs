//! Occupancy on the safe layer, as in cuda.core's walk-through: the kernel's attributes, the
//! block size that maximises occupancy, active blocks per multiprocessor for several block
//! sizes and shared-memory loads, then a launch with the suggested size, checked. Prints
//! "skipped: no GPU" and exits 0 without a device.
//!
//! `cargo run --release --example core_occupancy`

use anycuda::core::{launch, Buffer, CodeType, Device, LaunchConfig, Program, ProgramOptions};
use anycuda::driver::CUdevice_attribute;

mod common;
use common::{device_or_skip, Res};

const KERNEL: &str = r#"
extern "C" __global__ void square(const float *x, float *y, unsigned n)
{
    extern __shared__ float scratch[];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = scratch[threadIdx.x] * scratch[threadIdx.x];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("core_occupancy: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    let dev = Device::new(0)?;
    let ctx = dev.set_current()?;
    let sms = dev.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let code = Program::new(KERNEL, ProgramOptions::new())?.compile(CodeType::Ptx)?;
    let k = code.kernel("square")?;
    let attrs = k.attributes();
    println!(
        "square: {} registers, {} B local, max {} threads/block, {:?} parameters",
        attrs.num_regs()?,
        attrs.local_size_bytes()?,
        attrs.max_threads_per_block()?,
        k.num_arguments()
    );

    let occ = k.occupancy();
    let (min_grid, block) = occ.max_potential_block_size(0, 0)?;
    println!("suggested block size {block}; {min_grid} blocks fill the {sms} multiprocessors");
    if block == 0 || block > attrs.max_threads_per_block()? {
        return Err(format!("suggested block size {block} is out of range").into());
    }
    for bs in [64u32, 128, 256, 512, 1024] {
        let plain = occ.max_active_blocks_per_multiprocessor(bs, bs as usize * 4)?;
        let heavy = occ.max_active_blocks_per_multiprocessor(bs, 32 * 1024)?;
        println!(
            "block {bs:4}: {plain:2} active blocks/SM ({} B shared), {heavy:2} with 32 KiB",
            bs * 4
        );
        if heavy > plain {
            return Err("more shared memory cannot allow more active blocks".into());
        }
    }

    let stream = ctx.create_stream(Default::default())?;
    let n = 1_000_000u32;
    let x: Vec<f32> = (0..n).map(|i| (i % 100) as f32).collect();
    let dx = Buffer::from_slice(&stream, &x)?;
    let mut dy = Buffer::<f32>::zeroed(&stream, n as usize)?;
    let cfg = LaunchConfig::for_num_elems(n, block).shared_mem(block * 4);
    // SAFETY: square reads x[i] and writes y[i] for i < n only (n is both lengths), uses
    // block * 4 bytes of shared memory (given); no host borrow is alive; no capture.
    unsafe { launch(&stream, &cfg, &k, (&dx, &mut dy, n))? };
    stream.synchronize()?;
    let y = dy.to_vec()?;
    if let Some(i) = (0..n as usize).find(|&i| y[i] != x[i] * x[i]) {
        return Err(format!("y[{i}] = {}, expected {}", y[i], x[i] * x[i]).into());
    }
    println!("launch with the suggested block size: {n} elements correct");
    Ok(())
}
