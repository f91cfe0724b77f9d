//! Graph capture and replay on the safe layer: capture two kernels and a device copy on a
//! stream into a graph, instantiate it, replay it ten times, and check the result; then the
//! same work through the explicit `GraphBuilder`. Prints "skipped: no GPU" and exits 0 without
//! a device.
//!
//! `cargo run --release --example core_graph`

use anycuda::core::{
    launch, Buffer, CaptureMode, CodeType, Device, GraphBuilder, LaunchConfig, Program,
    ProgramOptions, StreamOptions,
};

mod common;
use common::{device_or_skip, Res};

const KERNELS: &str = r#"
extern "C" __global__ void add_one(float *x, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
extern "C" __global__ void twice(const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("core_graph: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    let ctx = Device::new(0)?.set_current()?;
    let code = Program::new(KERNELS, ProgramOptions::new())?.compile(CodeType::Ptx)?;
    let add_one = code.kernel("add_one")?;
    let twice = code.kernel("twice")?;
    let stream = ctx.create_stream(StreamOptions::default().non_blocking(true))?;

    let n = 1u32 << 16;
    let cfg = LaunchConfig::for_num_elems(n, 256);
    let mut x = Buffer::<f32>::zeroed(&stream, n as usize)?;
    let mut y = Buffer::<f32>::zeroed(&stream, n as usize)?;
    let mut z = Buffer::<f32>::zeroed(&stream, n as usize)?;
    stream.synchronize()?;

    // 1. Capture: x += 1; y = 2x; z = y (recorded, not run).
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: add_one and twice touch x[i], y[i] for i < n only (n is the buffers' length);
    // no host borrow is alive; x, y, the kernels and their module outlive the graph and its
    // executables (all are dropped at the end of main, the graph first).
    unsafe {
        launch(&stream, &cfg, &add_one, (&mut x, n))?;
        launch(&stream, &cfg, &twice, (&x, &mut y, n))?;
    }
    z.copy_from(&y, &stream)?;
    let graph = stream.end_capture()?;
    println!("captured {} nodes", graph.node_count()?);
    let exec = graph.instantiate()?;
    match exec.upload(&stream) {
        // HIP 5.x on its NVIDIA platform has no hipGraphUpload; the first launch uploads.
        Err(e) if e.is_not_supported() => {
            println!("upload: not supported here ({e}); the first launch uploads")
        }
        r => r?,
    }
    let replays = 10;
    for _ in 0..replays {
        exec.launch(&stream)?;
    }
    stream.synchronize()?;
    let want = 2.0 * replays as f32;
    let got = z.to_vec()?;
    if let Some(i) = got.iter().position(|&v| v != want) {
        return Err(format!("capture: z[{i}] = {}, expected {want}", got[i]).into());
    }
    println!("capture and {replays} replays: correct");

    // 2. The same graph built node by node.
    let mut b = GraphBuilder::new(&ctx)?;
    // SAFETY: (both kernel nodes) as for the captured launches; the graph keeps x, y and the
    // kernels alive itself.
    let n1 = match unsafe { b.kernel(&[], &cfg, &add_one, (&mut x, n)) } {
        Ok(node) => node,
        // The HIP backend has no kernel nodes (HIP's descriptor differs from CUDA's).
        Err(e) if e.is_not_supported() => {
            println!("builder graph: kernel nodes not supported on this backend ({e})");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    // SAFETY: see above.
    let n2 = unsafe { b.kernel(&[n1], &cfg, &twice, (&x, &mut y, n))? };
    b.memcpy(&[n2], &mut z, &y)?;
    let exec = b.build().instantiate()?;
    for _ in 0..replays {
        exec.launch(&stream)?;
    }
    stream.synchronize()?;
    let want = 2.0 * (2 * replays) as f32;
    let got = z.to_vec()?;
    if let Some(i) = got.iter().position(|&v| v != want) {
        return Err(format!("builder: z[{i}] = {}, expected {want}", got[i]).into());
    }
    println!("builder graph and {replays} replays: correct");
    Ok(())
}
