//! CUDA's deprecated execution control (`cuFuncSetBlockShape`, `cuFuncSetSharedSize`,
//! `cuParamSet*`, `cuLaunch*`) on HIP: state is kept only for function handles HIP handed out,
//! so a bogus handle is `CUDA_ERROR_INVALID_HANDLE` and costs no memory (issue 11 item 6: it
//! used to be accepted, with 4 KiB kept per handle forever). The launch itself needs a device:
//! a `#[gpu_test]` that ci/gpu-test.sh runs on the HIP backend, and that never passes
//! without one.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::nvrtc::nvrtcResult;
use anycuda_api::traits::{Api, Driver, Rtc};
use anycuda_hip::HipBackend;
use anycuda_test::gpu_test;
use core::ffi::{c_char, c_void};
use core::ptr::null_mut;

mod common;
use common::{hip, hip_with_device};

const OK: CUresult = CUresult::CUDA_SUCCESS;
const BAD_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;

/// Resident memory of this process in bytes (Linux), if readable.
fn resident() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
fn bogus_function_handles_are_refused_and_cost_nothing() {
    let Some(b) = hip() else { return };
    let before = resident();
    // SAFETY: the handles are never given to HIP: anycuda refuses them first.
    unsafe {
        for i in 0..100_000usize {
            let f = (0x7777_0000_0000usize + i * 64) as CUfunction;
            assert_eq!(b.cuFuncSetSharedSize(f, 256), BAD_HANDLE, "handle {i}");
        }
        let f = 0x7777_0000usize as CUfunction;
        assert_eq!(b.cuFuncSetBlockShape(f, 32, 1, 1), BAD_HANDLE);
        assert_eq!(b.cuParamSetSize(f, 16), BAD_HANDLE);
        assert_eq!(b.cuParamSeti(f, 0, 7), BAD_HANDLE);
        assert_eq!(b.cuParamSetf(f, 4, 1.5), BAD_HANDLE);
        let mut v = [1u8; 8];
        assert_eq!(b.cuParamSetv(f, 8, v.as_mut_ptr().cast(), 8), BAD_HANDLE);
        assert_eq!(b.cuLaunch(f), BAD_HANDLE);
        assert_eq!(b.cuLaunchGrid(f, 1, 1), BAD_HANDLE);
        assert_eq!(b.cuLaunchGridAsync(f, 1, 1, null_mut()), BAD_HANDLE);
        assert_eq!(b.cuFuncSetSharedSize(null_mut(), 0), BAD_HANDLE);
    }
    if let (Some(a), Some(z)) = (before, resident()) {
        // 100,000 handles at 4 KiB each were 400 MB before the fix.
        let grown = z.saturating_sub(a);
        assert!(grown < 16 << 20, "resident memory grew by {grown} bytes");
    }
}

fn nv(r: nvrtcResult) {
    assert_eq!(r, nvrtcResult::NVRTC_SUCCESS);
}

/// The device's code for one kernel that writes `v + blockDim.x` per thread.
fn kernel_image(b: &HipBackend, arch: &str) -> Vec<u8> {
    let src = c"extern \"C\" __global__ void k(int* p, int v) { p[threadIdx.x] = v + blockDim.x; }";
    let opt = std::ffi::CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let opts = [opt.as_ptr()];
    let mut prog = null_mut();
    // SAFETY: NUL-terminated strings and valid out-pointers.
    unsafe {
        nv(b.nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            c"k.cu".as_ptr(),
            0,
            core::ptr::null(),
            core::ptr::null(),
        ));
        nv(b.nvrtcCompileProgram(prog, 1, opts.as_ptr()));
        let mut n = 0;
        nv(b.nvrtcGetPTXSize(prog, &mut n));
        let mut image = vec![0u8; n + 1];
        nv(b.nvrtcGetPTX(prog, image.as_mut_ptr().cast::<c_char>()));
        nv(b.nvrtcDestroyProgram(&mut prog));
        image
    }
}

#[gpu_test(backend = "hip")]
fn legacy_launch_on_a_real_function() {
    let b = hip_with_device();
    // SAFETY: valid out-pointers; the handles below come from HIP.
    unsafe {
        let arch = b.device_arch(0).expect("device arch");
        let mut ctx = null_mut();
        assert_eq!(b.cuDevicePrimaryCtxRetain(&mut ctx, 0), OK);
        assert_eq!(b.cuCtxSetCurrent(ctx), OK);
        let image = kernel_image(&b, &arch);
        let mut m = null_mut();
        assert_eq!(b.cuModuleLoadData(&mut m, image.as_ptr().cast()), OK);
        let mut f = null_mut();
        assert_eq!(b.cuModuleGetFunction(&mut f, m, c"k".as_ptr()), OK);
        let mut d: CUdeviceptr = 0;
        assert_eq!(b.cuMemAlloc(&mut d, 64 * 4), OK);
        assert_eq!(b.cuFuncSetBlockShape(f, 64, 1, 1), OK);
        assert_eq!(b.cuFuncSetSharedSize(f, 0), OK);
        let mut ptr = d as usize as *mut c_void;
        assert_eq!(
            b.cuParamSetv(f, 0, (&mut ptr as *mut *mut c_void).cast(), 8),
            OK
        );
        assert_eq!(b.cuParamSeti(f, 8, 100), OK);
        // The parameters' own size, as a CUDA user computes it: `int*` at 0, `int` at 8.
        assert_eq!(b.cuParamSetSize(f, 12), OK);
        assert_eq!(b.cuLaunchGrid(f, 1, 1), OK);
        assert_eq!(b.cuCtxSynchronize(), OK);
        let mut out = [0i32; 64];
        assert_eq!(b.cuMemcpyDtoH(out.as_mut_ptr().cast(), d, 64 * 4), OK);
        assert!(out.iter().all(|&x| x == 164), "{out:?}");
        assert_eq!(b.cuMemFree(d), OK);
        assert_eq!(b.cuModuleUnload(m), OK);
        // The module is gone: so is its function's legacy state.
        assert_eq!(b.cuFuncSetSharedSize(f, 0), BAD_HANDLE);
        assert_eq!(b.cuDevicePrimaryCtxRelease(0), OK);
    }
}
