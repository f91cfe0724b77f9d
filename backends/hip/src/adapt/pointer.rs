//! Pointer attributes: HIP's memory types renumbered and folded onto CUDA's meanings.

use super::support::{hip_fn, nvidia, pre_r0600, table, HIP_SUCCESS};
use crate::conv::devptr_to_hip;
use crate::conv::pointer::{attribute_size, cu_memtype, cuda_memtype, ptr_kind};
use crate::hip_types::{
    hipPointerAttribute_t, hipPointerAttribute_t__hip5_2, hipPointer_attribute,
};
use crate::HipBackend;
use anycuda_api::driver::{CUdeviceptr, CUpointer_attribute, CUresult};
use anycuda_api::runtime::{cudaError_t, cudaMemoryType, cudaPointerAttributes};
use anycuda_api::CudaEnum;
use core::ffi::{c_uint, c_void};

/// `cuPointerGetAttribute`: the attribute through the `CUpointer_attribute` table (one HIP lacks
/// is `CUDA_ERROR_NOT_SUPPORTED`), and `MEMORY_TYPE` translated back to CUDA's `CUmemorytype`
/// (HIP 5 numbers host 0, device 1). On HIP's NVIDIA platform the attribute is CUDA's and
/// passes unchanged.
pub(crate) unsafe fn cuPointerGetAttribute(
    b: &HipBackend,
    data: *mut c_void,
    attribute: CUpointer_attribute,
    ptr: CUdeviceptr,
) -> CUresult {
    if data.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let get = hip_fn!(b, hipPointerGetAttribute);
    let p = devptr_to_hip(ptr);
    if nvidia(b) {
        // SAFETY: `hipPointer_attribute` is `CUpointer_attribute` there.
        return b.cu(unsafe { get(data, attribute.0 as hipPointer_attribute, p) });
    }
    let hip_attr = match b.conv().CUpointer_attribute.to_hip(attribute.to_i64()) {
        Some(a) => a as hipPointer_attribute,
        None if attribute.name().is_some() => return CUresult::CUDA_ERROR_NOT_SUPPORTED,
        None => return CUresult::CUDA_ERROR_INVALID_VALUE,
    };
    // SAFETY: `data` points to storage of the attribute's CUDA type (same C type in HIP).
    let e = unsafe { get(data, hip_attr, p) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    if attribute == CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE {
        // SAFETY: HIP wrote a 32-bit hipMemoryType there.
        let raw = unsafe { *data.cast::<c_uint>() };
        match cu_memtype(ptr_kind(b.conv().CUmemorytype, i64::from(raw))) {
            // SAFETY: same storage, CUDA's 32-bit CUmemorytype.
            Ok(t) => unsafe { *data.cast::<c_uint>() = t.0 },
            Err(e) => return e,
        }
    }
    CUresult::CUDA_SUCCESS
}

/// `cuPointerGetAttributes`: each attribute as [`cuPointerGetAttribute`]; as on CUDA, an
/// attribute that cannot be read (unknown pointer, attribute HIP lacks) is zero-filled instead
/// of failing the call. A value that is not a pointer attribute is `CUDA_ERROR_INVALID_VALUE`.
pub(crate) unsafe fn cuPointerGetAttributes(
    b: &HipBackend,
    numAttributes: c_uint,
    attributes: *mut CUpointer_attribute,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    if numAttributes == 0 || attributes.is_null() || data.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    for i in 0..numAttributes as usize {
        // SAFETY: caller's arrays of `numAttributes` entries.
        let (a, d) = unsafe { (*attributes.add(i), *data.add(i)) };
        let Some(size) = attribute_size(a) else {
            return CUresult::CUDA_ERROR_INVALID_VALUE;
        };
        if d.is_null() {
            return CUresult::CUDA_ERROR_INVALID_VALUE;
        }
        // SAFETY: forwarded contract.
        let r = unsafe { cuPointerGetAttribute(b, d, a, ptr) };
        if r != CUresult::CUDA_SUCCESS {
            if r == CUresult::CUDA_ERROR_NOT_INITIALIZED || r == CUresult::CUDA_ERROR_DEINITIALIZED
            {
                return r;
            }
            // SAFETY: `d` holds at least the attribute's CUDA size.
            unsafe { core::ptr::write_bytes(d.cast::<u8>(), 0, size) };
        }
    }
    CUresult::CUDA_SUCCESS
}

/// `cudaPointerGetAttributes`: HIP's struct (5.2 or 6.x layout) rebuilt as CUDA's, memory types
/// folded onto CUDA's meanings (managed memory is `cudaMemoryTypeManaged`). A pointer HIP does
/// not know gives `cudaSuccess` with `cudaMemoryTypeUnregistered`, as CUDA 11+ does (HIP 5
/// reports `hipErrorInvalidValue` there); HIP's `allocationFlags` has no CUDA field.
pub(crate) unsafe fn cudaPointerGetAttributes(
    b: &HipBackend,
    attributes: *mut cudaPointerAttributes,
    ptr: *const c_void,
) -> cudaError_t {
    if attributes.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let map = b.conv().CUmemorytype;
    let (e, raw, device, dptr, hptr, managed) = if pre_r0600(b) {
        let get = hip_fn!(b, hipPointerGetAttributes__hip5_2);
        // SAFETY: zeroed POD, filled by HIP.
        let mut h: hipPointerAttribute_t__hip5_2 = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        let e = unsafe { get(&mut h, ptr) };
        (
            e,
            h.memoryType,
            h.device,
            h.devicePointer,
            h.hostPointer,
            h.isManaged != 0,
        )
    } else {
        let get = hip_fn!(b, hipPointerGetAttributes);
        // SAFETY: zeroed POD, filled by HIP.
        let mut h: hipPointerAttribute_t = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        let e = unsafe { get(&mut h, ptr) };
        (
            e,
            h.type_,
            h.device,
            h.devicePointer,
            h.hostPointer,
            h.isManaged != 0,
        )
    };
    let invalid_value = b
        .conv()
        .cudaError_t
        .to_hip(cudaError_t::cudaErrorInvalidValue.to_i64())
        .unwrap_or(1) as crate::hip_types::hipError_t;
    // SAFETY: zeroed POD.
    let mut out: cudaPointerAttributes = unsafe { core::mem::zeroed() };
    if e == invalid_value && !ptr.is_null() {
        out.type_ = cudaMemoryType::cudaMemoryTypeUnregistered;
        out.device = -2; // cudaInvalidDeviceId
        out.hostPointer = ptr.cast_mut();
    } else if e != HIP_SUCCESS {
        return b.rt(e);
    } else {
        let kind = ptr_kind(map, i64::from(raw));
        out.type_ = cuda_memtype(kind, managed);
        out.device = device;
        out.devicePointer = dptr;
        out.hostPointer = hptr;
    }
    // SAFETY: checked non-NULL.
    unsafe { *attributes = out };
    cudaError_t::cudaSuccess
}
