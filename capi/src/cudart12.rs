//! CUDA 12's runtime functions whose C ABI differs from CUDA 13's, adapted by hand to the C
//! ABI's CUDA 13 exports (`libcudart.so.12`; docs/c-abi.md, "CUDA 12 programs"). Each is an
//! entry of the generated table `anycuda_cudart12_table` (codegen/src/cudart12.rs finds them
//! here by name); the functions codegen can convert itself (same signature, or a struct that
//! grew at its end) are generated, and the rest answer `cudaErrorNotSupported`.
//!
//! Every adapter calls the C ABI's own export, so the re-entry guard and the backend choice
//! apply as for a CUDA 13 program.

use crate::generated::cudart12_types::{cudaDeviceProp, device_prop_from_13, device_prop_to_13};
use crate::generated::exports as x;
use anycuda::runtime::{
    cudaDeviceAttr, cudaError_t, cudaFuncCache, cudaGraphEdgeData, cudaGraphNode_t, cudaGraph_t,
    cudaLimit, cudaMemLocation, cudaMemLocationType, cudaMemoryAdvise, cudaStreamCaptureStatus,
    cudaStream_t,
};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

/// `cudaCpuDeviceId`: the device number CUDA 12's `int device` parameters use for the host.
const CPU_DEVICE_ID: c_int = -1;

/// The `cudaMemLocation` CUDA 13 takes for CUDA 12's `int device`: the host for
/// `cudaCpuDeviceId`, else that device (an invalid number stays invalid and is refused by 13).
fn location(device: c_int) -> cudaMemLocation {
    // SAFETY: cudaMemLocation is a C struct of an enum and an integer union: zero is valid.
    let mut l: cudaMemLocation = unsafe { core::mem::zeroed() };
    if device == CPU_DEVICE_ID {
        l.type_ = cudaMemLocationType::cudaMemLocationTypeHost;
    } else {
        l.type_ = cudaMemLocationType::cudaMemLocationTypeDevice;
        l.__bindgen_anon_1.id = device;
    }
    l
}

/// `cudaGetDeviceProperties_v2` of CUDA 12: CUDA 12's `cudaDeviceProp` layout (8 fields CUDA 13
/// removed, 7 it added). Asks CUDA 13's `cudaGetDeviceProperties`, copies the shared fields,
/// and fills the removed ones from `cudaDeviceGetAttribute` with CUDA 12's attribute numbers
/// (`cooperativeMultiDeviceLaunch` and `singleToDoublePrecisionPerfRatio`, whose attributes
/// CUDA 13 reserved, are 0 when 13 does not answer).
///
/// # Safety
/// `prop` is NULL or points to a writable CUDA 12 `cudaDeviceProp`.
pub(crate) unsafe extern "C" fn cudaGetDeviceProperties_v2(
    prop: *mut c_void,
    device: c_int,
) -> cudaError_t {
    if prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: cudaDeviceProp (13) is a C struct of integers and arrays: zero is valid.
    let mut p13: anycuda_api::runtime::cudaDeviceProp = unsafe { core::mem::zeroed() };
    // SAFETY: a valid out-pointer.
    let r = unsafe { x::cudaGetDeviceProperties(&raw mut p13, device) };
    if r != cudaError_t::cudaSuccess {
        return r;
    }
    // SAFETY: as above, for CUDA 12's struct.
    let mut p12: cudaDeviceProp = unsafe { core::mem::zeroed() };
    device_prop_from_13(&p13, &mut p12);
    let attr = |a: u32| -> c_int {
        let mut v: c_int = 0;
        // SAFETY: a valid out-pointer; the attribute number is CUDA 12's.
        let r = unsafe { x::cudaDeviceGetAttribute(&raw mut v, cudaDeviceAttr(a), device) };
        if r == cudaError_t::cudaSuccess {
            v
        } else {
            0
        }
    };
    // CUDA 12's attribute numbers (driver_types.h of 12.9).
    p12.clockRate = attr(13);
    p12.deviceOverlap = attr(15);
    p12.kernelExecTimeoutEnabled = attr(17);
    p12.computeMode = attr(20);
    p12.memoryClockRate = attr(36);
    p12.maxTexture1DLinear = attr(69);
    p12.singleToDoublePrecisionPerfRatio = attr(87);
    p12.cooperativeMultiDeviceLaunch = attr(96);
    // SAFETY: the caller's writable CUDA 12 struct.
    unsafe { prop.cast::<cudaDeviceProp>().write_unaligned(p12) };
    cudaError_t::cudaSuccess
}

/// `cudaChooseDevice` of CUDA 12: the wished-for properties in CUDA 12's `cudaDeviceProp`
/// layout; the fields CUDA 13 shares are copied into a zeroed 13 struct (13 ignores zero fields
/// when choosing) and CUDA 13's `cudaChooseDevice` decides. CUDA 12's removed fields (clock
/// rates, compute mode, ...) take no part.
///
/// # Safety
/// `device` is NULL or writable; `prop` is NULL or points to a CUDA 12 `cudaDeviceProp`.
pub(crate) unsafe extern "C" fn cudaChooseDevice(
    device: *mut c_int,
    prop: *const c_void,
) -> cudaError_t {
    if device.is_null() || prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: the caller's CUDA 12 struct.
    let p12 = unsafe { prop.cast::<cudaDeviceProp>().read_unaligned() };
    // SAFETY: cudaDeviceProp (13) is a C struct of integers and arrays: zero is valid.
    let mut p13: anycuda_api::runtime::cudaDeviceProp = unsafe { core::mem::zeroed() };
    device_prop_to_13(&p12, &mut p13);
    // SAFETY: valid pointers.
    unsafe { x::cudaChooseDevice(device, &raw const p13) }
}

/// `cudaMemAdvise` of CUDA 12 (`int device`): CUDA 13 takes a `cudaMemLocation`; the device
/// becomes `{cudaMemLocationTypeDevice, device}`, `cudaCpuDeviceId` `{cudaMemLocationTypeHost}`.
///
/// # Safety
/// As `cudaMemAdvise`.
pub(crate) unsafe extern "C" fn cudaMemAdvise(
    devPtr: *const c_void,
    count: usize,
    advice: cudaMemoryAdvise,
    device: c_int,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaMemAdvise(devPtr, count, advice, location(device)) }
}

/// `cudaMemPrefetchAsync` of CUDA 12 (`int dstDevice`): CUDA 13 takes a `cudaMemLocation` and
/// flags; the device converts as for `cudaMemAdvise`, flags 0.
///
/// # Safety
/// As `cudaMemPrefetchAsync`.
pub(crate) unsafe extern "C" fn cudaMemPrefetchAsync(
    devPtr: *const c_void,
    count: usize,
    dstDevice: c_int,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaMemPrefetchAsync(devPtr, count, location(dstDevice), 0, stream) }
}

/// `cudaGraphAddDependencies` of CUDA 12 (no edge data): CUDA 13's with `edgeData` NULL
/// (default edges), which is what the CUDA 12 function adds.
///
/// # Safety
/// As `cudaGraphAddDependencies`.
pub(crate) unsafe extern "C" fn cudaGraphAddDependencies(
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    numDependencies: usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaGraphAddDependencies(graph, from, to, core::ptr::null(), numDependencies) }
}

/// `cudaGraphRemoveDependencies` of CUDA 12 (no edge data): CUDA 13's with `edgeData` NULL.
///
/// # Safety
/// As `cudaGraphRemoveDependencies`.
pub(crate) unsafe extern "C" fn cudaGraphRemoveDependencies(
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    numDependencies: usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaGraphRemoveDependencies(graph, from, to, core::ptr::null(), numDependencies) }
}

/// `cudaGraphGetEdges` of CUDA 12 (no edge data): CUDA 13's with `edgeData` NULL, which
/// answers `cudaErrorLossyQuery` for edges with non-default data, as CUDA 12's does.
///
/// # Safety
/// As `cudaGraphGetEdges`.
pub(crate) unsafe extern "C" fn cudaGraphGetEdges(
    graph: cudaGraph_t,
    from: *mut cudaGraphNode_t,
    to: *mut cudaGraphNode_t,
    numEdges: *mut usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaGraphGetEdges(graph, from, to, core::ptr::null_mut(), numEdges) }
}

/// `cudaGraphNodeGetDependencies` of CUDA 12 (no edge data): CUDA 13's with `edgeData` NULL.
///
/// # Safety
/// As `cudaGraphNodeGetDependencies`.
pub(crate) unsafe extern "C" fn cudaGraphNodeGetDependencies(
    node: cudaGraphNode_t,
    pDependencies: *mut cudaGraphNode_t,
    pNumDependencies: *mut usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe {
        x::cudaGraphNodeGetDependencies(
            node,
            pDependencies,
            core::ptr::null_mut::<cudaGraphEdgeData>(),
            pNumDependencies,
        )
    }
}

/// `cudaGraphNodeGetDependentNodes` of CUDA 12 (no edge data): CUDA 13's with `edgeData` NULL.
///
/// # Safety
/// As `cudaGraphNodeGetDependentNodes`.
pub(crate) unsafe extern "C" fn cudaGraphNodeGetDependentNodes(
    node: cudaGraphNode_t,
    pDependentNodes: *mut cudaGraphNode_t,
    pNumDependentNodes: *mut usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe {
        x::cudaGraphNodeGetDependentNodes(
            node,
            pDependentNodes,
            core::ptr::null_mut(),
            pNumDependentNodes,
        )
    }
}

/// `cudaStreamGetCaptureInfo_v2` of CUDA 12 (no edge data): CUDA 13's `cudaStreamGetCaptureInfo`
/// with `edgeData_out` NULL.
///
/// # Safety
/// As `cudaStreamGetCaptureInfo`.
pub(crate) unsafe extern "C" fn cudaStreamGetCaptureInfo_v2(
    stream: cudaStream_t,
    captureStatus_out: *mut cudaStreamCaptureStatus,
    id_out: *mut c_ulonglong,
    graph_out: *mut cudaGraph_t,
    dependencies_out: *mut *const cudaGraphNode_t,
    numDependencies_out: *mut usize,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe {
        x::cudaStreamGetCaptureInfo(
            stream,
            captureStatus_out,
            id_out,
            graph_out,
            dependencies_out,
            core::ptr::null_mut(),
            numDependencies_out,
        )
    }
}

/// `cudaStreamUpdateCaptureDependencies` of CUDA 12 (no edge data): CUDA 13's with
/// `dependencyData` NULL.
///
/// # Safety
/// As `cudaStreamUpdateCaptureDependencies`.
pub(crate) unsafe extern "C" fn cudaStreamUpdateCaptureDependencies(
    stream: cudaStream_t,
    dependencies: *mut cudaGraphNode_t,
    numDependencies: usize,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe {
        x::cudaStreamUpdateCaptureDependencies(
            stream,
            dependencies,
            core::ptr::null(),
            numDependencies,
            flags,
        )
    }
}

/// `cudaThreadExit` of CUDA 12 (deprecated, removed in 13): `cudaDeviceReset`, as CUDA 12
/// documents.
///
/// # Safety
/// None beyond the C API's.
pub(crate) unsafe extern "C" fn cudaThreadExit() -> cudaError_t {
    // SAFETY: no arguments.
    unsafe { x::cudaDeviceReset() }
}

/// `cudaThreadSynchronize` of CUDA 12 (removed in 13): `cudaDeviceSynchronize`.
///
/// # Safety
/// None beyond the C API's.
pub(crate) unsafe extern "C" fn cudaThreadSynchronize() -> cudaError_t {
    // SAFETY: no arguments.
    unsafe { x::cudaDeviceSynchronize() }
}

/// `cudaThreadSetLimit` of CUDA 12 (removed in 13): `cudaDeviceSetLimit`.
///
/// # Safety
/// None beyond the C API's.
pub(crate) unsafe extern "C" fn cudaThreadSetLimit(limit: cudaLimit, value: usize) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaDeviceSetLimit(limit, value) }
}

/// `cudaThreadGetLimit` of CUDA 12 (removed in 13): `cudaDeviceGetLimit`.
///
/// # Safety
/// `pValue` is NULL or writable.
pub(crate) unsafe extern "C" fn cudaThreadGetLimit(
    pValue: *mut usize,
    limit: cudaLimit,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaDeviceGetLimit(pValue, limit) }
}

/// `cudaThreadSetCacheConfig` of CUDA 12 (removed in 13): `cudaDeviceSetCacheConfig`.
///
/// # Safety
/// None beyond the C API's.
pub(crate) unsafe extern "C" fn cudaThreadSetCacheConfig(
    cacheConfig: cudaFuncCache,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaDeviceSetCacheConfig(cacheConfig) }
}

/// `cudaThreadGetCacheConfig` of CUDA 12 (removed in 13): `cudaDeviceGetCacheConfig`.
///
/// # Safety
/// `pCacheConfig` is NULL or writable.
pub(crate) unsafe extern "C" fn cudaThreadGetCacheConfig(
    pCacheConfig: *mut cudaFuncCache,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    unsafe { x::cudaDeviceGetCacheConfig(pCacheConfig) }
}

/// `cudaSetDoubleForDevice` of CUDA 12 (removed in 13): every device CUDA 12 supports has
/// native doubles, so there is nothing to convert; a NULL pointer is `cudaErrorInvalidValue`.
///
/// # Safety
/// None: the pointer is only compared with NULL.
pub(crate) unsafe extern "C" fn cudaSetDoubleForDevice(d: *mut f64) -> cudaError_t {
    if d.is_null() {
        cudaError_t::cudaErrorInvalidValue
    } else {
        cudaError_t::cudaSuccess
    }
}

/// `cudaSetDoubleForHost` of CUDA 12 (removed in 13): as `cudaSetDoubleForDevice`.
///
/// # Safety
/// None: the pointer is only compared with NULL.
pub(crate) unsafe extern "C" fn cudaSetDoubleForHost(d: *mut f64) -> cudaError_t {
    if d.is_null() {
        cudaError_t::cudaErrorInvalidValue
    } else {
        cudaError_t::cudaSuccess
    }
}

/// Sets CUDA 12's `failIdx` after a batch copy: `SIZE_MAX` ("the error does not pertain to a
/// specific copy", CUDA 12's documented value) on failure, since CUDA 13 no longer reports the
/// index; untouched on success, as CUDA 12 leaves it.
fn fail_index(r: cudaError_t, failIdx: *mut usize) -> cudaError_t {
    if r != cudaError_t::cudaSuccess && !failIdx.is_null() {
        // SAFETY: the caller's writable `size_t`.
        unsafe { failIdx.write(usize::MAX) };
    }
    r
}

/// `cudaMemcpyBatchAsync` of CUDA 12 (with `size_t *failIdx`): CUDA 13's without it, the index
/// set to `SIZE_MAX` on failure (13 does not say which copy failed).
///
/// # Safety
/// As `cudaMemcpyBatchAsync`; `failIdx` is NULL or writable.
#[allow(clippy::too_many_arguments)] // CUDA's signature
pub(crate) unsafe extern "C" fn cudaMemcpyBatchAsync(
    dsts: *mut *mut c_void,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    count: usize,
    attrs: *mut anycuda::runtime::cudaMemcpyAttributes,
    attrsIdxs: *mut usize,
    numAttrs: usize,
    failIdx: *mut usize,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: the caller's arguments (`void **` read as `const void *const *`: same ABI).
    let r = unsafe {
        x::cudaMemcpyBatchAsync(
            dsts,
            srcs.cast::<*const c_void>(),
            sizes,
            count,
            attrs,
            attrsIdxs,
            numAttrs,
            stream,
        )
    };
    fail_index(r, failIdx)
}

/// `cudaMemcpy3DBatchAsync` of CUDA 12 (with `size_t *failIdx`): CUDA 13's without it, as
/// `cudaMemcpyBatchAsync`.
///
/// # Safety
/// As `cudaMemcpy3DBatchAsync`; `failIdx` is NULL or writable.
pub(crate) unsafe extern "C" fn cudaMemcpy3DBatchAsync(
    numOps: usize,
    opList: *mut anycuda::runtime::cudaMemcpy3DBatchOp,
    failIdx: *mut usize,
    flags: c_ulonglong,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: the caller's arguments.
    let r = unsafe { x::cudaMemcpy3DBatchAsync(numOps, opList, flags, stream) };
    fail_index(r, failIdx)
}

/// `cudaGetDriverEntryPoint` of CUDA 12: CUDA 13's answers at CUDA 13's version, whose driver
/// ABIs a CUDA 12 program does not expect (`cuMemPrefetchAsync` takes a location in 13); CUDA 12's
/// runtime resolves at its own `CUDART_VERSION`, so this asks anycuda's table at the pinned CUDA
/// 12 headers' version (`CUDA12_VERSION`).
///
/// # Safety
/// CUDA's contract: `symbol` a C string, `funcPtr` writable, `driverStatus` NULL or writable.
pub(crate) unsafe extern "C" fn cudaGetDriverEntryPoint(
    symbol: *const core::ffi::c_char,
    funcPtr: *mut *mut c_void,
    flags: c_ulonglong,
    driverStatus: *mut anycuda::runtime::cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        crate::procaddr::cudaGetDriverEntryPointByVersion(
            symbol,
            funcPtr,
            crate::generated::cudart12::CUDA12_VERSION,
            flags,
            driverStatus,
        )
    }
}
