//! Live calls of the hand adaptations (`src/adapt/`) against the installed HIP (CI: Debian's
//! ROCm 5.2.3 with no GPU). Validation anycuda does itself is checked exactly; calls that reach
//! HIP must come back as named CUDA codes, and nothing may crash.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::runtime::{
    cudaDeviceProp, cudaError_t, cudaMemcpy3DParms, cudaMemcpyKind, cudaPointerAttributes,
};
use anycuda_api::traits::{Driver, Runtime};
use anycuda_api::CudaEnum;
use core::ffi::c_void;
use core::ptr::{null, null_mut};

mod common;
use common::{has_device, hip};

/// A failure that is a real CUDA code (named, not an invented HIP-only value).
fn cuda_failure(r: CUresult) {
    assert_ne!(r, CUresult::CUDA_SUCCESS);
    assert!(r.name().is_some(), "unnamed code {r:?}");
    assert!(
        anycuda_api::hallucinated::classify(r.to_i64()).is_none(),
        "HIP-only code {r:?}"
    );
}

fn rt_failure(r: cudaError_t) {
    assert_ne!(r, cudaError_t::cudaSuccess);
    assert!(r.name().is_some(), "unnamed code {r:?}");
}

#[test]
fn contexts_follow_cudas_stack_rules() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        // A fresh thread has no current context.
        let mut c: CUcontext = 1usize as CUcontext;
        assert_eq!(b.cuCtxGetCurrent(&mut c), CUresult::CUDA_SUCCESS);
        assert!(c.is_null());
        assert_eq!(
            b.cuCtxGetCurrent(null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cuCtxPopCurrent(null_mut()),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        let mut d: CUdevice = -7;
        assert_eq!(
            b.cuCtxGetDevice(&mut d),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(
            b.cuCtxGetDevice(null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(b.cuCtxSynchronize(), CUresult::CUDA_ERROR_INVALID_CONTEXT);
        let mut f = 0;
        assert_eq!(
            b.cuCtxGetFlags(&mut f),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(
            b.cuCtxPushCurrent(null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // NULL on an empty stack is a no-op.
        assert_eq!(b.cuCtxSetCurrent(null_mut()), CUresult::CUDA_SUCCESS);
        // Destroying what cuCtxCreate never made is refused before HIP sees it.
        assert_eq!(
            b.cuCtxDestroy(0x1234usize as CUcontext),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(
            b.cuCtxDestroy(null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cuDevicePrimaryCtxGetState(0, null_mut(), null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn ctx_create_validates_like_cuda() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let mut c: CUcontext = null_mut();
        assert_eq!(
            b.cuCtxCreate(null_mut(), null_mut(), 0, 0),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // A bit outside CU_CTX_FLAGS_MASK.
        assert_eq!(
            b.cuCtxCreate(&mut c, null_mut(), 0x100, 0),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // CIG / execution affinity cannot be honoured on HIP.
        let mut cig = CUctxCigParam {
            sharedDataType: CUcigDataType(1),
            sharedData: null_mut(),
        };
        let mut params = CUctxCreateParams {
            execAffinityParams: null_mut(),
            numExecAffinityParams: 0,
            cigParams: &mut cig,
        };
        assert_eq!(
            b.cuCtxCreate(&mut c, &mut params, 0, 0),
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        );
        // Coredump flags have no HIP counterpart.
        let r = b.cuCtxCreate(&mut c, null_mut(), CUctx_flags::CU_CTX_COREDUMP_ENABLE.0, 0);
        assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED);
        if has_device(&b) {
            return;
        }
        // No GPU: HIP's error arrives as a CUDA code, nothing is pushed.
        cuda_failure(b.cuCtxCreate(&mut c, null_mut(), 0, 0));
        let mut cur: CUcontext = 1usize as CUcontext;
        assert_eq!(b.cuCtxGetCurrent(&mut cur), CUresult::CUDA_SUCCESS);
        assert!(cur.is_null());
        cuda_failure(b.cuCtxSetCurrent(0x1234usize as CUcontext));
        cuda_failure(b.cuDevicePrimaryCtxSetFlags(0, 0));
        cuda_failure(b.cuDevicePrimaryCtxReset(0));
        rt_failure(b.cudaSetDevice(0));
    }
}

#[test]
fn launch_checks_before_hip() {
    let Some(b) = hip() else { return };
    let fake: CUfunction = 0x10usize as CUfunction;
    let mut arg = 0u64;
    let mut params = [(&mut arg as *mut u64).cast::<c_void>()];
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let launch = |f, kp: *mut *mut c_void, ex: *mut *mut c_void| {
            b.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), kp, ex)
        };
        assert_eq!(
            launch(null_mut(), null_mut(), null_mut()),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        let mut size = 8usize;
        let mut extra = [
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            (&mut arg as *mut u64).cast(),
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            (&mut size as *mut usize).cast(),
            CU_LAUNCH_PARAM_END,
        ];
        // kernelParams and extra together: invalid, as on CUDA.
        assert_eq!(
            launch(fake, params.as_mut_ptr(), extra.as_mut_ptr()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // An unknown key (HIP's END value 3 is not a CUDA marker).
        let mut bad = [3usize as *mut c_void, null_mut(), CU_LAUNCH_PARAM_END];
        assert_eq!(
            launch(fake, null_mut(), bad.as_mut_ptr()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // HIP 5.2 has no hipModuleLaunchCooperativeKernel.
        if b.hip_version() < 60_000_000 {
            assert_eq!(
                b.cuLaunchCooperativeKernel(
                    fake,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    null_mut(),
                    params.as_mut_ptr()
                ),
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            );
        }
    }
}

#[test]
fn copies_validate_and_return_cuda_codes() {
    let Some(b) = hip() else { return };
    let src = [1u8; 64];
    let mut dst = [0u8; 64];
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        assert_eq!(b.cuMemcpy2D(null()), CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            b.cuMemcpy2DAsync(null(), null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cuMemcpy2DUnaligned(null()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(b.cuMemcpy3D(null()), CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            b.cuMemcpy3DAsync(null(), null_mut()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        let mut d: CUDA_MEMCPY2D = core::mem::zeroed();
        d.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        d.srcHost = src.as_ptr().cast();
        d.srcPitch = 8;
        d.dstMemoryType = CUmemorytype(9); // not a memory type
        d.dstHost = dst.as_mut_ptr().cast();
        d.dstPitch = 8;
        d.WidthInBytes = 8;
        d.Height = 8;
        assert_eq!(b.cuMemcpy2D(&d), CUresult::CUDA_ERROR_INVALID_VALUE);
        let mut d3: CUDA_MEMCPY3D = core::mem::zeroed();
        d3.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        d3.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        d3.reserved0 = 0x10usize as *mut c_void;
        assert_eq!(b.cuMemcpy3D(&d3), CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(b.cudaMemcpy3D(null()), cudaError_t::cudaErrorInvalidValue);
        let mut p: cudaMemcpy3DParms = core::mem::zeroed();
        p.kind = cudaMemcpyKind(42);
        assert_eq!(
            b.cudaMemcpy3D(&p),
            cudaError_t::cudaErrorInvalidMemcpyDirection
        );
        if has_device(&b) {
            return;
        }
        // Well-formed host-to-host copies reach HIP: with no GPU its error comes back as a
        // CUDA code.
        d.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        cuda_failure(b.cuMemcpy2D(&d));
        d3.reserved0 = null_mut();
        d3.srcHost = src.as_ptr().cast();
        d3.dstHost = dst.as_mut_ptr().cast();
        d3.srcPitch = 8;
        d3.dstPitch = 8;
        d3.WidthInBytes = 8;
        d3.Height = 2;
        d3.Depth = 2;
        cuda_failure(b.cuMemcpy3D(&d3));
        p.kind = cudaMemcpyKind::cudaMemcpyHostToHost;
        rt_failure(b.cudaMemcpy3D(&p));
    }
}

#[test]
fn properties_and_pointers_return_cuda_codes() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        assert_eq!(
            b.cudaGetDeviceProperties(null_mut(), 0),
            cudaError_t::cudaErrorInvalidValue
        );
        let mut data = 0u64;
        assert_eq!(
            b.cuPointerGetAttribute(
                null_mut(),
                CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                0
            ),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cuPointerGetAttribute((&mut data as *mut u64).cast(), CUpointer_attribute(999), 0),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cudaPointerGetAttributes(null_mut(), null()),
            cudaError_t::cudaErrorInvalidValue
        );
        if has_device(&b) {
            return;
        }
        let mut p: cudaDeviceProp = core::mem::zeroed();
        rt_failure(b.cudaGetDeviceProperties(&mut p, 0));
        let host = [0u8; 16];
        let r = b.cuPointerGetAttribute(
            (&mut data as *mut u64).cast(),
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            host.as_ptr() as u64,
        );
        cuda_failure(r);
        // cuPointerGetAttributes never fails for an unknown pointer: values are zero-filled.
        let mut mt = 77u32;
        let mut dp = 77u64;
        let mut attrs = [
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        ];
        let mut outs: [*mut c_void; 2] =
            [(&mut mt as *mut u32).cast(), (&mut dp as *mut u64).cast()];
        let r = b.cuPointerGetAttributes(
            2,
            attrs.as_mut_ptr(),
            outs.as_mut_ptr(),
            host.as_ptr() as u64,
        );
        assert_eq!(r, CUresult::CUDA_SUCCESS);
        assert_eq!((mt, dp), (0, 0));
        let mut a: cudaPointerAttributes = core::mem::zeroed();
        let r = b.cudaPointerGetAttributes(&mut a, host.as_ptr().cast());
        assert!(r == cudaError_t::cudaSuccess || r.name().is_some(), "{r:?}");
    }
}
