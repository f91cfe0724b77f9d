//! A library written for cudarc: compiles a kernel, runs it, reads the result back.

use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

const SRC: &str = r#"
extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}"#;

/// Why the work could not run.
#[derive(Debug)]
pub enum Error {
    /// A driver call failed.
    Driver(DriverError),
    /// The kernel did not compile.
    Compile(cudarc::nvrtc::CompileError),
}

/// Multiplies `data` by `a` on GPU 0.
pub fn scale_on_gpu(data: &[f32], a: f32) -> Result<Vec<f32>, Error> {
    let ctx = CudaContext::new(0).map_err(Error::Driver)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx_with_opts(SRC, CompileOptions::default()).map_err(Error::Compile)?;
    let module = ctx.load_module(ptx).map_err(Error::Driver)?;
    let f = module.load_function("scale").map_err(Error::Driver)?;
    let mut x = stream.clone_htod(data).map_err(Error::Driver)?;
    let n = data.len() as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&mut x).arg(&a).arg(&n);
    // SAFETY: `scale(float *x, float a, int n)` gets `x` (n floats), `a` and `n`, in that order,
    // and guards `i < n`, so no thread writes past `x`.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.map_err(Error::Driver)?;
    stream.clone_dtoh(&x).map_err(Error::Driver)
}
