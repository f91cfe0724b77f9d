// Launch and small-copy loops written against cudarc's API, included twice by ab.rs: once with
// `cudarc` naming cudarc itself, once naming anycuda-cudarc. (No inner doc comments: this file
// is `include!`d.)
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;
use std::time::Instant;

/// A stream, the empty kernel and the buffers the loops use.
pub struct State {
    stream: Arc<CudaStream>,
    f: CudaFunction,
    x: CudaSlice<f32>,
    small: CudaSlice<f32>,
    host: Vec<f32>,
    back: Vec<f32>,
}

/// Device 0's primary context (shared by both libraries in this process), its default stream,
/// and `empty` compiled from `src` with this library's `compile_ptx`.
pub fn setup(src: &str) -> Result<State, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(cudarc::nvrtc::compile_ptx(src).expect("compile"))?;
    let f = module.load_function("empty")?;
    let x = stream.alloc_zeros(1024)?;
    let small = stream.alloc_zeros(1024)?;
    Ok(State {
        stream,
        f,
        x,
        small,
        host: vec![1.0; 1024],
        back: vec![0.0; 1024],
    })
}

/// µs per `launch_builder` … `launch` of `n`, then one synchronize.
pub fn launches(s: &mut State, n: usize) -> Result<f64, DriverError> {
    s.stream.synchronize()?;
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let len = 1024i32;
    let t = Instant::now();
    for _ in 0..n {
        let mut b = s.stream.launch_builder(&s.f);
        b.arg(&mut s.x).arg(&len);
        unsafe { b.launch(cfg) }?;
    }
    s.stream.synchronize()?;
    Ok(t.elapsed().as_secs_f64() * 1e6 / n as f64)
}

/// µs per 4 KiB `memcpy_htod` from pageable memory, `n` of them, then one synchronize.
pub fn htod(s: &mut State, n: usize) -> Result<f64, DriverError> {
    let t = Instant::now();
    for _ in 0..n {
        s.stream.memcpy_htod(&s.host, &mut s.small)?;
    }
    s.stream.synchronize()?;
    Ok(t.elapsed().as_secs_f64() * 1e6 / n as f64)
}

/// µs per 4 KiB `memcpy_dtoh` into pageable memory, `n` of them, then one synchronize.
pub fn dtoh(s: &mut State, n: usize) -> Result<f64, DriverError> {
    let t = Instant::now();
    for _ in 0..n {
        s.stream.memcpy_dtoh(&s.small, &mut s.back)?;
    }
    s.stream.synchronize()?;
    Ok(t.elapsed().as_secs_f64() * 1e6 / n as f64)
}
