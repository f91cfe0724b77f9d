//! SAXPY with NVRTC on the safe layer (`anycuda::core`): compile, load, launch with typed
//! arguments, check every element. Runs unchanged on either backend
//! (`ANYCUDA_BACKEND=cuda|hip`); prints "skipped: no GPU" and exits 0 without a device (a
//! failure under `ANYCUDA_REQUIRE_GPU=1`).
//!
//! `cargo run --release --example core_saxpy`

use anycuda::core::{launch, Buffer, CodeType, Device, LaunchConfig, Program, ProgramOptions};

mod common;
use common::{device_or_skip, Res};

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) out[tid] = a * x[tid] + y[tid];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("core_saxpy: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    let dev = Device::new(0)?;
    let ctx = dev.set_current()?;
    println!("device 0: {} ({})", dev.name()?, dev.arch()?);

    // No contraction, so the host's a*x+y rounds exactly like the device's.
    let opts = ProgramOptions::new().name("saxpy.cu").fma(false);
    let mut prog = Program::new(SAXPY, opts)?;
    let code = prog.compile(CodeType::Ptx)?;
    let kernel = code.kernel("saxpy")?;

    let stream = ctx.create_stream(Default::default())?;
    let n: usize = 512 * 32768;
    let a = 2.0f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.25).collect();
    let dx = Buffer::from_slice(&stream, &x)?;
    let dy = Buffer::from_slice(&stream, &y)?;
    let mut dout = Buffer::<f32>::new(&stream, n)?;

    let cfg = LaunchConfig::new(32768u32, 512u32);
    // SAFETY: saxpy reads x[i], y[i] and writes out[i] for i < n only; n is every buffer's
    // length; no host borrow of them is alive; the stream is not capturing.
    unsafe { launch(&stream, &cfg, &kernel, (a, &dx, &dy, &mut dout, n))? };
    stream.synchronize()?;
    let out = dout.to_vec()?;

    let wrong = (0..n).filter(|&i| out[i] != a * x[i] + y[i]).count();
    if wrong != 0 {
        return Err(format!("{wrong} of {n} elements differ from a*x+y").into());
    }
    println!("saxpy: {n} elements correct");
    Ok(())
}
