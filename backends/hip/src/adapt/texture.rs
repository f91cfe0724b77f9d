//! Texture references (deprecated in CUDA, still served): address and filter modes (their
//! translations: `conv::texture`), and the 1D linear texture width.

use super::support::{hip_fn, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED};
use crate::conv::texture::{
    address_mode_to_cuda, address_mode_to_hip, channel_desc, filter_mode_to_cuda,
    filter_mode_to_hip,
};
use crate::hip_types::textureReference;
use crate::HipBackend;
use anycuda_api::driver::{
    CUaddress_mode, CUarray_format, CUdevice, CUfilter_mode, CUresult, CUtexref,
};
use core::ffi::{c_int, c_uint};

fn tex(t: CUtexref) -> *mut textureReference {
    t.cast()
}

/// `cuTexRefSetAddressMode` → `hipTexRefSetAddressMode`: the mode translated; `dim` 0..=2.
pub(crate) unsafe fn cuTexRefSetAddressMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    dim: c_int,
    am: CUaddress_mode,
) -> CUresult {
    if hTexRef.is_null() || !(0..3).contains(&dim) {
        return INVALID_VALUE;
    }
    let m = tri!(address_mode_to_hip(b.conv().CUaddress_mode, am));
    let f = hip_fn!(b, hipTexRefSetAddressMode);
    // SAFETY: caller's texture reference.
    b.cu(unsafe { f(tex(hTexRef), dim, m as _) })
}

/// `cuTexRefGetAddressMode` → `hipTexRefGetAddressMode`: the mode translated back.
pub(crate) unsafe fn cuTexRefGetAddressMode(
    b: &HipBackend,
    pam: *mut CUaddress_mode,
    hTexRef: CUtexref,
    dim: c_int,
) -> CUresult {
    if pam.is_null() || hTexRef.is_null() || !(0..3).contains(&dim) {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexRefGetAddressMode);
    let mut m = 0;
    // SAFETY: valid out-pointer, caller's texture reference.
    let e = unsafe { f(&mut m, tex(hTexRef), dim) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pam = address_mode_to_cuda(b.conv().CUaddress_mode, m) };
    }
    b.cu(e)
}

/// `cuTexRefSetFilterMode` → `hipTexRefSetFilterMode`: the mode translated.
pub(crate) unsafe fn cuTexRefSetFilterMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    fm: CUfilter_mode,
) -> CUresult {
    if hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let m = tri!(filter_mode_to_hip(b.conv().CUfilter_mode, fm));
    let f = hip_fn!(b, hipTexRefSetFilterMode);
    // SAFETY: caller's texture reference.
    b.cu(unsafe { f(tex(hTexRef), m as _) })
}

/// `cuTexRefGetFilterMode` → `hipTexRefGetFilterMode`: the mode translated back.
pub(crate) unsafe fn cuTexRefGetFilterMode(
    b: &HipBackend,
    pfm: *mut CUfilter_mode,
    hTexRef: CUtexref,
) -> CUresult {
    if pfm.is_null() || hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexRefGetFilterMode);
    let mut m = 0;
    // SAFETY: valid out-pointer, caller's texture reference.
    let e = unsafe { f(&mut m, tex(hTexRef)) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pfm = filter_mode_to_cuda(b.conv().CUfilter_mode, m) };
    }
    b.cu(e)
}

/// `cuTexRefSetMipmapFilterMode` → `hipTexRefSetMipmapFilterMode`: the mode translated.
pub(crate) unsafe fn cuTexRefSetMipmapFilterMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    fm: CUfilter_mode,
) -> CUresult {
    if hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let m = tri!(filter_mode_to_hip(b.conv().CUfilter_mode, fm));
    let f = hip_fn!(b, hipTexRefSetMipmapFilterMode);
    // SAFETY: caller's texture reference.
    b.cu(unsafe { f(tex(hTexRef), m as _) })
}

/// `cuTexRefGetMipmapFilterMode` → `hipTexRefGetMipmapFilterMode`: translated back.
pub(crate) unsafe fn cuTexRefGetMipmapFilterMode(
    b: &HipBackend,
    pfm: *mut CUfilter_mode,
    hTexRef: CUtexref,
) -> CUresult {
    if pfm.is_null() || hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexRefGetMipmapFilterMode);
    let mut m = 0;
    // SAFETY: valid out-pointer, caller's texture reference.
    let e = unsafe { f(&mut m, tex(hTexRef)) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pfm = filter_mode_to_cuda(b.conv().CUfilter_mode, m) };
    }
    b.cu(e)
}

/// `cuDeviceGetTexture1DLinearMaxWidth` → `hipDeviceGetTexture1DLinearMaxWidth`: CUDA's
/// format and channel count become HIP's channel descriptor (HIP 7.0+; not supported before).
pub(crate) unsafe fn cuDeviceGetTexture1DLinearMaxWidth(
    b: &HipBackend,
    maxWidthInElements: *mut usize,
    format: CUarray_format,
    numChannels: c_uint,
    dev: CUdevice,
) -> CUresult {
    if maxWidthInElements.is_null() {
        return INVALID_VALUE;
    }
    let d = tri!(channel_desc(format, numChannels));
    // Only HIP 7.0+ declares it with this ABI (6.4's declaration has another signature).
    if b.hip_abi_version() < 70_051_831 {
        return NOT_SUPPORTED;
    }
    let f = hip_fn!(b, hipDeviceGetTexture1DLinearMaxWidth);
    // SAFETY: valid pointers; HIP validates the device.
    b.cu(unsafe { f(maxWidthInElements, &d, dev) })
}
