//! SAXPY with the classic Driver API and NVRTC, as in NVIDIA's CUDA Python guide, written against
//! CUDA's C API and run unchanged on whichever backend anycuda picks (`ANYCUDA_BACKEND=cuda|hip`).
//!
//! It compiles with `--fmad=false` for the device's own target (sm_XX on NVIDIA, gfxNNN on AMD),
//! launches 512 threads x 32768 blocks and checks every element against `a*x+y` computed on the
//! host (bit for bit: without contraction both sides round the same way). Exits 1 on a mismatch;
//! prints "skipped: no GPU" and exits 0 only when no device exists (unless
//! `ANYCUDA_REQUIRE_GPU=1`, which makes that a failure).
//!
//! `cargo run --release --example saxpy_driver`

use anycuda::driver::*;
use anycuda::nvrtc::*;
use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};

const SAXPY: &CStr = c"extern \"C\" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        out[tid] = a * x[tid] + y[tid];
    }
}";

const NUM_THREADS: u32 = 512; // threads per block
const NUM_BLOCKS: u32 = 32768; // blocks per grid

mod common;
use common::{device_or_skip, Res};

fn compile(arch: &str) -> Res<Vec<u8>> {
    let arch_opt = CString::new(format!("--gpu-architecture={arch}"))?;
    let opts = [c"--fmad=false".as_ptr(), arch_opt.as_ptr()];
    // SAFETY: `SAXPY` and the name are NUL-terminated, `opts` holds `opts.len()` C strings alive
    // for the call, and each buffer is as large as the size NVRTC reported for it.
    unsafe {
        let mut prog: nvrtcProgram = null_mut();
        nvrtcCreateProgram(
            &mut prog,
            SAXPY.as_ptr(),
            c"saxpy.cu".as_ptr(),
            0,
            null(),
            null(),
        )
        .result()?;
        let compiled = nvrtcCompileProgram(prog, opts.len() as i32, opts.as_ptr());
        let mut log_size = 0usize;
        nvrtcGetProgramLogSize(prog, &mut log_size).result()?;
        let mut log = vec![0u8; log_size.max(1)];
        nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()).result()?;
        let log = String::from_utf8_lossy(&log)
            .trim_end_matches('\0')
            .trim()
            .to_string();
        if !log.is_empty() {
            println!("compile log:\n{log}");
        }
        compiled.result()?;
        // PTX on NVIDIA (its size counts the NUL, which cuModuleLoadData needs), the code object
        // on AMD.
        let mut size = 0usize;
        nvrtcGetPTXSize(prog, &mut size).result()?;
        let mut code = vec![0u8; size];
        nvrtcGetPTX(prog, code.as_mut_ptr().cast()).result()?;
        nvrtcDestroyProgram(&mut prog).result()?;
        Ok(code)
    }
}

fn main() {
    match run() {
        Ok(()) => {}
        Err(e) => {
            eprintln!("saxpy_driver: FAILED: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Res<()> {
    let Some(backend) = device_or_skip()? else {
        return Ok(());
    };
    // SAFETY: the context is current before use; the image is the compiler's complete output;
    // `d_x`, `d_y`, `d_out` hold `n` floats, the host Vecs `n` floats, and the kernel's argument
    // pointers point to live locals of its parameter types.
    unsafe {
        cuInit(0).result()?;
        let mut dev: CUdevice = 0;
        cuDeviceGet(&mut dev, 0).result()?;
        let (mut major, mut minor) = (0, 0);
        cuDeviceGetAttribute(
            &mut major,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            dev,
        )
        .result()?;
        cuDeviceGetAttribute(
            &mut minor,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            dev,
        )
        .result()?;
        let arch = backend.device_arch(dev)?;
        println!("device 0: compute capability {major}.{minor}, target {arch}");

        let code = compile(&arch)?;
        let what = if code.starts_with(b"\x7fELF") {
            "code object"
        } else {
            "PTX"
        };
        println!("compiled saxpy: {} bytes of {what}", code.len());

        // CUDA 13: cuCtxCreate(ctx, CUctxCreateParams*, flags, dev); NULL params = defaults.
        let mut ctx: CUcontext = null_mut();
        cuCtxCreate(&mut ctx, null_mut(), 0, dev).result()?;
        let mut module: CUmodule = null_mut();
        cuModuleLoadData(&mut module, code.as_ptr().cast()).result()?;
        let mut kernel: CUfunction = null_mut();
        cuModuleGetFunction(&mut kernel, module, c"saxpy".as_ptr()).result()?;

        let n = (NUM_THREADS as usize) * (NUM_BLOCKS as usize);
        let bytes = n * std::mem::size_of::<f32>();
        let mut a = 2.0f32;
        let h_x: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 10007) as f32 / 1000.0)
            .collect();
        let h_y: Vec<f32> = (0..n).map(|i| ((i * 104729) % 1009) as f32 / 7.0).collect();
        let mut h_out = vec![0f32; n];

        let (mut d_x, mut d_y, mut d_out): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
        cuMemAlloc(&mut d_x, bytes).result()?;
        cuMemAlloc(&mut d_y, bytes).result()?;
        cuMemAlloc(&mut d_out, bytes).result()?;
        let mut stream: CUstream = null_mut();
        cuStreamCreate(&mut stream, 0).result()?;

        cuMemcpyHtoDAsync(d_x, h_x.as_ptr().cast(), bytes, stream).result()?;
        cuMemcpyHtoDAsync(d_y, h_y.as_ptr().cast(), bytes, stream).result()?;

        // The kernel's arguments: an array of pointers to each argument's value.
        let mut n_arg = n;
        let mut args: [*mut c_void; 5] = [
            (&mut a as *mut f32).cast(),
            (&mut d_x as *mut CUdeviceptr).cast(),
            (&mut d_y as *mut CUdeviceptr).cast(),
            (&mut d_out as *mut CUdeviceptr).cast(),
            (&mut n_arg as *mut usize).cast(),
        ];
        cuLaunchKernel(
            kernel,
            NUM_BLOCKS,
            1,
            1,
            NUM_THREADS,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            null_mut(),
        )
        .result()?;
        cuMemcpyDtoHAsync(h_out.as_mut_ptr().cast(), d_out, bytes, stream).result()?;
        cuStreamSynchronize(stream).result()?;

        let mut bad = 0usize;
        for i in 0..n {
            let want = a * h_x[i] + h_y[i];
            if h_out[i].to_bits() != want.to_bits() {
                if bad < 5 {
                    eprintln!("mismatch at {i}: got {} want {want}", h_out[i]);
                }
                bad += 1;
            }
        }

        cuStreamDestroy(stream).result()?;
        cuMemFree(d_x).result()?;
        cuMemFree(d_y).result()?;
        cuMemFree(d_out).result()?;
        cuModuleUnload(module).result()?;
        cuCtxDestroy(ctx).result()?;

        if bad > 0 {
            return Err(format!("{bad} of {n} elements differ from a*x+y").into());
        }
        println!(
            "saxpy: {n} elements ({NUM_BLOCKS} blocks x {NUM_THREADS} threads) match a*x+y: OK"
        );
    }
    Ok(())
}
