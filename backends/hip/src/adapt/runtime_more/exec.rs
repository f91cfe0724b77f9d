//! Launches (`cudaLaunchCooperativeKernel`, `cudaLaunchKernelExC`), function attributes and
//! device choice.

use crate::adapt::launch::stream_to_hip;
use crate::adapt::props::{copy_fields, hip52_shared_fields};
use crate::adapt::{nvidia, pre_r0600, rt, rt_fn};
use crate::hip_types::{
    dim3 as hip_dim3, hipDeviceProp_t, hipDeviceProp_tR0600, hipFuncAttributes,
};
use crate::HipBackend;
use anycuda_api::runtime::{
    cudaDeviceProp, cudaError_t, cudaFuncAttributes, cudaLaunchAttributeID, cudaLaunchConfig_t,
    cudaStream_t, dim3,
};
use core::ffi::{c_int, c_uint, c_void};

/// CUDA's `dim3` in HIP's (same fields).
pub(crate) fn dim3_to_hip(d: dim3) -> hip_dim3 {
    hip_dim3 {
        x: d.x,
        y: d.y,
        z: d.z,
    }
}

/// HIP's `dim3` in CUDA's.
pub(crate) fn dim3_to_cuda(d: hip_dim3) -> dim3 {
    dim3 {
        x: d.x,
        y: d.y,
        z: d.z,
    }
}

/// `cudaFuncAttributes` from HIP's (the cluster fields stay zero: no cluster requirement, as
/// for a kernel without `__cluster_dims__`; HIP has no clusters).
pub(crate) fn func_attrs_from_hip(h: &hipFuncAttributes) -> cudaFuncAttributes {
    // SAFETY: plain data; all-zero is valid.
    let mut a: cudaFuncAttributes = unsafe { core::mem::zeroed() };
    copy_fields!(a <- h:
        sharedSizeBytes, constSizeBytes, localSizeBytes, maxThreadsPerBlock, numRegs, ptxVersion,
        binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes, preferredShmemCarveout,
    );
    a
}

/// HIP 5.2's `hipDeviceProp_t` from CUDA's, for `hipChooseDevice` (the fields both have).
pub(crate) fn props_to_hip52(p: &cudaDeviceProp) -> hipDeviceProp_t {
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
    hip52_shared_fields!(h <- p);
    h.maxSharedMemoryPerMultiProcessor = p.sharedMemPerMultiprocessor;
    h
}

/// HIP 6+'s `hipDeviceProp_tR0600` from CUDA's, for `hipChooseDeviceR0600`.
pub(crate) fn props_to_r0600(p: &cudaDeviceProp) -> hipDeviceProp_tR0600 {
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
    copy_fields!(h <- p:
        name, totalGlobalMem, sharedMemPerBlock, regsPerBlock, warpSize, memPitch,
        maxThreadsPerBlock, maxThreadsDim, maxGridSize, totalConstMem, major, minor,
        textureAlignment, texturePitchAlignment, multiProcessorCount, integrated,
        canMapHostMemory, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID,
        tccDriver, asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize,
        maxThreadsPerMultiProcessor, sharedMemPerMultiprocessor, regsPerMultiprocessor,
        managedMemory, isMultiGpuBoard, pageableMemoryAccess, concurrentManagedAccess,
        cooperativeLaunch, sharedMemPerBlockOptin, maxBlocksPerMultiProcessor,
        memoryPoolsSupported,
    );
    h
}

/// `cudaLaunchCooperativeKernel` → `hipLaunchCooperativeKernel`: CUDA's `size_t` shared
/// memory must fit HIP's `unsigned int` (else `cudaErrorInvalidValue`: no device has that
/// much), `cudaStreamLegacy` translated.
pub(crate) unsafe fn cudaLaunchCooperativeKernel(
    b: &HipBackend,
    func: *const c_void,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    let f = rt_fn!(b, hipLaunchCooperativeKernel);
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    let Ok(shared) = c_uint::try_from(sharedMem) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: CUDA's contract for the function and arguments; stream translated.
    rt(b, unsafe {
        f(
            func,
            dim3_to_hip(gridDim),
            dim3_to_hip(blockDim),
            args,
            shared,
            stream_to_hip(b, stream.cast()),
        )
    })
}

/// What a CUDA launch attribute list asks for, as far as HIP's plain launches can express it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct LaunchRequest {
    /// `cudaLaunchAttributeCooperative` with a non-zero value.
    pub cooperative: bool,
}

/// Reads CUDA launch attributes: `Ignore` entries are skipped (as CUDA does), `Cooperative`
/// selects a cooperative launch; every other attribute changes the launch in a way HIP's launch
/// entry points cannot express in every version, so it is `cudaErrorNotSupported` (never
/// silently dropped). A NULL list with a non-zero count is `cudaErrorInvalidValue`.
///
/// # Safety
/// `attrs` is NULL or points to `n` attributes.
pub(crate) unsafe fn read_launch_attrs(
    attrs: *const anycuda_api::runtime::cudaLaunchAttribute,
    n: c_uint,
) -> Result<LaunchRequest, cudaError_t> {
    let mut req = LaunchRequest::default();
    if n == 0 {
        return Ok(req);
    }
    if attrs.is_null() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    // SAFETY: caller's array of `n` attributes.
    let list = unsafe { core::slice::from_raw_parts(attrs, n as usize) };
    for a in list {
        match a.id {
            cudaLaunchAttributeID::cudaLaunchAttributeIgnore => {}
            cudaLaunchAttributeID::cudaLaunchAttributeCooperative => {
                // SAFETY: the union member this id selects.
                req.cooperative = unsafe { a.val.cooperative } != 0;
            }
            id if anycuda_api::CudaEnum::name(id).is_none() => {
                return Err(cudaError_t::cudaErrorInvalidValue)
            }
            _ => return Err(cudaError_t::cudaErrorNotSupported),
        }
    }
    Ok(req)
}

/// `cudaLaunchKernelExC` → `hipLaunchKernel` or `hipLaunchCooperativeKernel` (both exist in
/// every HIP version, unlike `hipLaunchKernelExC` whose config layout changes per version):
/// the configuration is read and the attributes honoured as [`read_launch_attrs`] says.
pub(crate) unsafe fn cudaLaunchKernelExC(
    b: &HipBackend,
    config: *const cudaLaunchConfig_t,
    func: *const c_void,
    args: *mut *mut c_void,
) -> cudaError_t {
    if config.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    // SAFETY: non-NULL config from the caller.
    let c = unsafe { &*config };
    // SAFETY: CUDA's contract for the attribute list.
    let req = match unsafe { read_launch_attrs(c.attrs, c.numAttrs) } {
        Ok(r) => r,
        Err(e) => return e,
    };
    let s = stream_to_hip(b, c.stream.cast());
    if req.cooperative {
        // SAFETY: forwarded contract.
        unsafe {
            cudaLaunchCooperativeKernel(
                b,
                func,
                c.gridDim,
                c.blockDim,
                args,
                c.dynamicSmemBytes,
                c.stream,
            )
        }
    } else {
        let f = rt_fn!(b, hipLaunchKernel);
        // SAFETY: CUDA's contract for the function and arguments.
        rt(b, unsafe {
            f(
                func,
                dim3_to_hip(c.gridDim),
                dim3_to_hip(c.blockDim),
                args,
                c.dynamicSmemBytes,
                s,
            )
        })
    }
}

/// `cudaFuncGetAttributes` → `hipFuncGetAttributes`: HIP's struct (other field order, no
/// cluster fields) copied field by field into CUDA 13's. HIP's NVIDIA platform: CUDA's struct.
pub(crate) unsafe fn cudaFuncGetAttributes(
    b: &HipBackend,
    attr: *mut cudaFuncAttributes,
    func: *const c_void,
) -> cudaError_t {
    let f = rt_fn!(b, hipFuncGetAttributes);
    if attr.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    if nvidia(b) {
        // SAFETY: `hipFuncAttributes` is `cudaFuncAttributes` on that platform.
        return rt(b, unsafe { f(attr.cast(), func) });
    }
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipFuncAttributes = unsafe { core::mem::zeroed() };
    // SAFETY: `h` is a valid out-struct.
    let e = rt(b, unsafe { f(&mut h, func) });
    if e == cudaError_t::cudaSuccess {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { attr.write(func_attrs_from_hip(&h)) };
    }
    e
}

/// `cudaChooseDevice` → `hipChooseDevice` / `hipChooseDeviceR0600`: the wanted properties
/// rebuilt in the loaded HIP's `hipDeviceProp_t` layout (the fields it shares with CUDA 13's).
pub(crate) unsafe fn cudaChooseDevice(
    b: &HipBackend,
    device: *mut c_int,
    prop: *const cudaDeviceProp,
) -> cudaError_t {
    if device.is_null() || prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let p = unsafe { &*prop };
    if pre_r0600(b) {
        let f = rt_fn!(b, hipChooseDevice);
        let h = props_to_hip52(p);
        // SAFETY: `h` lives for the call; valid out-pointer.
        rt(b, unsafe { f(device, &h) })
    } else {
        let f = rt_fn!(b, hipChooseDeviceR0600);
        let h = props_to_r0600(p);
        // SAFETY: as above.
        rt(b, unsafe { f(device, &h) })
    }
}
