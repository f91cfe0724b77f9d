//! Argument classes the HIP backend settles before HIP sees them, live against the installed
//! HIP (CI: Debian's ROCm 5.2.3, no GPU):
//! - every Runtime call that takes a kernel (`const void* func`) recognises anycuda's own
//!   `cudaKernel_t` handles (CUDA lets one stand for the function) instead of handing HIP a
//!   handle it would read as a host stub (HIP's NVIDIA platform crashed on it under the C ABI's
//!   fuzzer): a handle this backend never made is `cudaErrorInvalidResourceHandle`;
//! - a pool attribute's NULL value is `CUDA_ERROR_INVALID_VALUE` in both APIs (NVIDIA's driver
//!   and HIP's NVIDIA platform crash on it).

#![allow(non_snake_case)]

use anycuda_api::driver::{CUmemPool_attribute, CUresult};
use anycuda_api::runtime::{cudaError_t, cudaFuncAttribute, cudaFuncCache, cudaMemPoolAttr};
use anycuda_api::traits::{Driver, Runtime};
use core::ffi::c_void;
use core::ptr::null_mut;

mod common;
use common::hip_required as hip;

/// A kernel handle in the shape this backend's library emulation hands out (its tag in the top
/// 16 bits), for a kernel it never made.
fn stale_kernel() -> *const c_void {
    ((0x2CC1usize << 48) | 0x7777) as *const c_void
}

#[test]
fn every_runtime_call_taking_a_kernel_refuses_a_stale_kernel_handle() {
    let b = hip();
    let k = stale_kernel();
    let bad = cudaError_t::cudaErrorInvalidResourceHandle;
    let mut n = 0;
    let mut smem = 0usize;
    // SAFETY: local out-pointers; the handle is refused before any call reads it.
    unsafe {
        let mut attrs = core::mem::zeroed();
        assert_eq!(b.cudaFuncGetAttributes(&mut attrs, k), bad);
        let a = cudaFuncAttribute::cudaFuncAttributeMaxDynamicSharedMemorySize;
        assert_eq!(b.cudaFuncSetAttribute(k, a, 0), bad);
        let c = cudaFuncCache::cudaFuncCachePreferNone;
        assert_eq!(b.cudaFuncSetCacheConfig(k, c), bad);
        let s = anycuda_api::runtime::cudaSharedMemConfig::cudaSharedMemBankSizeDefault;
        assert_eq!(b.cudaFuncSetSharedMemConfig(k, s), bad);
        assert_eq!(
            b.cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, k, 64, 0),
            bad
        );
        assert_eq!(
            b.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, k, 64, 0, 0),
            bad
        );
        assert_eq!(
            b.cudaOccupancyAvailableDynamicSMemPerBlock(&mut smem, k, 1, 64),
            bad
        );
        let (g, blk) = (
            anycuda_api::runtime::dim3 { x: 1, y: 1, z: 1 },
            anycuda_api::runtime::dim3 { x: 1, y: 1, z: 1 },
        );
        assert_eq!(
            b.cudaLaunchKernel(k, g, blk, null_mut(), 0, null_mut()),
            bad
        );
        assert_eq!(
            b.cudaLaunchCooperativeKernel(k, g, blk, null_mut(), 0, null_mut()),
            bad
        );
    }
}

#[test]
fn a_pool_attributes_null_value_is_an_invalid_value() {
    let b = hip();
    // SAFETY: NULL values, refused before the (NULL) pool reaches HIP.
    unsafe {
        let a = CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
        let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
        assert_eq!(b.cuMemPoolSetAttribute(null_mut(), a, null_mut()), invalid);
        assert_eq!(b.cuMemPoolGetAttribute(null_mut(), a, null_mut()), invalid);
        let r = cudaMemPoolAttr::cudaMemPoolAttrReleaseThreshold;
        let invalid = cudaError_t::cudaErrorInvalidValue;
        assert_eq!(
            b.cudaMemPoolSetAttribute(null_mut(), r, null_mut()),
            invalid
        );
        assert_eq!(
            b.cudaMemPoolGetAttribute(null_mut(), r, null_mut()),
            invalid
        );
    }
}
