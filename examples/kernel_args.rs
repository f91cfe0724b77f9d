//! Kernel arguments of every kind, as in NVIDIA's CUDA Python guide: one kernel takes
//! `(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)`, a struct by value and by
//! pointer included, and writes results back through the pointers; the host checks every value.
//! The launch is made twice: with CUDA's `kernelParams` (an array of pointers to each value), and
//! with `extra` (one packed buffer, `CU_LAUNCH_PARAM_BUFFER_POINTER` ... `CU_LAUNCH_PARAM_END`,
//! whose marker values the HIP backend translates). Runs unchanged on either backend; exits 1 on
//! a mismatch; "skipped: no GPU" (exit 0) only when no device exists.
//!
//! `cargo run --release --example kernel_args`

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::driver::*;
use std::ffi::c_void;
use std::mem::{offset_of, size_of};
use std::ptr::null_mut;

mod common;
use common::{device_or_skip, Res};

const SRC: &str = r#"
struct testStruct { int a; float b; double c; };
extern "C" __global__ void kernel_args(int i, int *pi, float f, float *pf, testStruct s, testStruct *ps)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *pi = i * 3 + 1;
        *pf = f * 0.5f;
        ps->a = s.a + 100;
        ps->b = s.b * 4.0f;
        ps->c = s.c - 0.25;
    }
}
"#;

/// The kernel's `testStruct`, laid out as C lays it out.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct TestStruct {
    a: i32,
    b: f32,
    c: f64,
}

/// The packed argument buffer for `extra`: each argument at its C alignment.
#[repr(C)]
struct Packed {
    i: i32,
    pi: CUdeviceptr,
    f: f32,
    pf: CUdeviceptr,
    s: TestStruct,
    ps: CUdeviceptr,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("kernel_args: FAILED: {e}");
        std::process::exit(1);
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Via {
    KernelParams,
    Extra,
}

fn run() -> Res<()> {
    let Some(backend) = device_or_skip()? else {
        return Ok(());
    };
    const _: () = assert!(size_of::<TestStruct>() == 16);
    const _: () = assert!(offset_of!(Packed, s) == 32 && size_of::<Packed>() == 56);
    // SAFETY: the context is made current before use; the image is the compiler's complete output;
    // each device allocation is as large as the type copied into or out of it, and the kernel's
    // argument pointers point to live locals of its parameter types.
    unsafe {
        cuInit(0).result()?;
        let mut dev: CUdevice = 0;
        cuDeviceGet(&mut dev, 0).result()?;
        let arch = backend.device_arch(dev)?;
        let opts = ProgramOptions::new()
            .name("kernel_args.cu")
            .arch(arch.as_str());
        let mut code = Program::with_backend(backend, SRC, opts)?
            .compile(CodeType::Ptx)?
            .code()
            .to_vec();
        code.push(0); // PTX is loaded as a C string; harmless after a code object

        let mut ctx: CUcontext = null_mut();
        cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        cuCtxSetCurrent(ctx).result()?;
        let mut module: CUmodule = null_mut();
        cuModuleLoadData(&mut module, code.as_ptr().cast()).result()?;
        let mut kernel: CUfunction = null_mut();
        cuModuleGetFunction(&mut kernel, module, c"kernel_args".as_ptr()).result()?;

        // Both ways of passing arguments, on every backend: on HIP the `extra` markers are
        // translated (CUDA's END is 0; AMD's is 3; HIP's NVIDIA platform uses CUDA's).
        let vias = [Via::KernelParams, Via::Extra];

        let (mut d_i, mut d_f, mut d_s): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
        cuMemAlloc(&mut d_i, size_of::<i32>()).result()?;
        cuMemAlloc(&mut d_f, size_of::<f32>()).result()?;
        cuMemAlloc(&mut d_s, size_of::<TestStruct>()).result()?;

        let mut bad = Vec::new();
        for (round, via) in vias.into_iter().enumerate() {
            let mut i: i32 = 41 + round as i32;
            let mut f: f32 = 3.5 + round as f32;
            let mut s = TestStruct {
                a: -7 + round as i32,
                b: 1.25,
                c: 1e10 + 0.5,
            };
            cuMemsetD8(d_i, 0, size_of::<i32>()).result()?;
            cuMemsetD8(d_f, 0, size_of::<f32>()).result()?;
            cuMemsetD8(d_s, 0, size_of::<TestStruct>()).result()?;
            match via {
                Via::KernelParams => {
                    let mut args: [*mut c_void; 6] = [
                        (&mut i as *mut i32).cast(),
                        (&mut d_i as *mut CUdeviceptr).cast(),
                        (&mut f as *mut f32).cast(),
                        (&mut d_f as *mut CUdeviceptr).cast(),
                        (&mut s as *mut TestStruct).cast(),
                        (&mut d_s as *mut CUdeviceptr).cast(),
                    ];
                    cuLaunchKernel(
                        kernel,
                        1,
                        1,
                        1,
                        32,
                        1,
                        1,
                        0,
                        null_mut(),
                        args.as_mut_ptr(),
                        null_mut(),
                    )
                    .result()?;
                }
                Via::Extra => {
                    let mut packed = Packed {
                        i,
                        pi: d_i,
                        f,
                        pf: d_f,
                        s,
                        ps: d_s,
                    };
                    let mut size = size_of::<Packed>();
                    let mut extra: [*mut c_void; 5] = [
                        CU_LAUNCH_PARAM_BUFFER_POINTER,
                        (&mut packed as *mut Packed).cast(),
                        CU_LAUNCH_PARAM_BUFFER_SIZE,
                        (&mut size as *mut usize).cast(),
                        CU_LAUNCH_PARAM_END,
                    ];
                    cuLaunchKernel(
                        kernel,
                        1,
                        1,
                        1,
                        32,
                        1,
                        1,
                        0,
                        null_mut(),
                        null_mut(),
                        extra.as_mut_ptr(),
                    )
                    .result()?;
                }
            }
            cuCtxSynchronize().result()?;
            let (mut oi, mut of) = (0i32, 0f32);
            let mut os = TestStruct {
                a: 0,
                b: 0.0,
                c: 0.0,
            };
            cuMemcpyDtoH((&mut oi as *mut i32).cast(), d_i, size_of::<i32>()).result()?;
            cuMemcpyDtoH((&mut of as *mut f32).cast(), d_f, size_of::<f32>()).result()?;
            cuMemcpyDtoH(
                (&mut os as *mut TestStruct).cast(),
                d_s,
                size_of::<TestStruct>(),
            )
            .result()?;
            let want_s = TestStruct {
                a: s.a + 100,
                b: s.b * 4.0,
                c: s.c - 0.25,
            };
            println!("{via:?}: *pi = {oi}, *pf = {of}, *ps = {os:?}");
            if oi != i * 3 + 1 {
                bad.push(format!("{via:?}: *pi = {oi}, want {}", i * 3 + 1));
            }
            if of != f * 0.5 {
                bad.push(format!("{via:?}: *pf = {of}, want {}", f * 0.5));
            }
            if os != want_s {
                bad.push(format!("{via:?}: *ps = {os:?}, want {want_s:?}"));
            }
        }
        cuMemFree(d_i).result()?;
        cuMemFree(d_f).result()?;
        cuMemFree(d_s).result()?;
        cuModuleUnload(module).result()?;
        cuDevicePrimaryCtxRelease(dev).result()?;
        if !bad.is_empty() {
            return Err(bad.join("; ").into());
        }
    }
    println!("kernel_args: every value matches: OK");
    Ok(())
}
