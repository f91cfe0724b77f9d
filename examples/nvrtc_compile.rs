//! Compile SAXPY with NVRTC's C API, unchanged, on whichever backend anycuda picks: NVRTC on
//! NVIDIA, hipRTC on AMD (the "PTX" is then an AMD code object). No GPU needed: without one,
//! name a target, e.g. `cargo run --example nvrtc_compile -- sm_90` or `-- gfx90a`
//! (with `ANYCUDA_BACKEND=hip`).

use anycuda::nvrtc::*;
use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

const SAXPY: &CStr =
    c"extern \"C\" __global__ void saxpy(float a, const float *x, float *y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}";

fn check(r: nvrtcResult) -> Result<(), Box<dyn std::error::Error>> {
    Ok(r.result()?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selected = anycuda::backend()?;
    println!("backend: {} ({})", selected.kind(), selected.reason);
    let arch = match std::env::args().nth(1) {
        Some(a) => a,
        None => {
            // The device's target, as CUDA code would read it from the driver.
            let mut dev = 0;
            // SAFETY: `cuInit` takes a flag word, and `dev` is a local `CUdevice` the driver
            // writes.
            unsafe {
                anycuda::driver::cuInit(0).result()?;
                anycuda::driver::cuDeviceGet(&mut dev, 0).result()?;
            }
            selected.backend.device_arch(dev)?
        }
    };
    let opt = CString::new(format!("--gpu-architecture={arch}"))?;
    let opts = [opt.as_ptr(), c"--fmad=false".as_ptr()];
    // SAFETY: `SAXPY` and the name are NUL-terminated, `opts` holds `opts.len()` C strings alive
    // for the call, each buffer is as large as the size NVRTC reported for it, and `prog` is
    // destroyed once, at the end.
    unsafe {
        let mut prog: nvrtcProgram = null_mut();
        check(nvrtcCreateProgram(
            &mut prog,
            SAXPY.as_ptr(),
            c"saxpy.cu".as_ptr(),
            0,
            null(),
            null(),
        ))?;
        let compiled = nvrtcCompileProgram(prog, opts.len() as i32, opts.as_ptr());
        let mut log_size = 0;
        check(nvrtcGetProgramLogSize(prog, &mut log_size))?;
        let mut log = vec![0u8; log_size];
        check(nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()))?;
        let log = CStr::from_bytes_until_nul(&log)?.to_string_lossy();
        if !log.trim().is_empty() {
            println!("log:\n{}", log.trim_end());
        }
        check(compiled)?;
        let mut size = 0;
        check(nvrtcGetPTXSize(prog, &mut size))?;
        let mut code = vec![0u8; size];
        check(nvrtcGetPTX(prog, code.as_mut_ptr().cast()))?;
        let what = if code.starts_with(b"\x7fELF") {
            "code object"
        } else {
            "PTX"
        };
        println!("compiled saxpy for {arch}: {size} bytes of {what}");
        check(nvrtcDestroyProgram(&mut prog))?;
    }
    Ok(())
}
