//! The names NVIDIA's libraries export that anycuda serves by passing them on: every older ABI
//! of a driver function (`cuCtxCreate_v2` beside anycuda's `cuCtxCreate_v4`, the plain legacy
//! names, `cuStreamBeginCapture` of CUDA 10.0), the OpenGL, EGL and VDPAU interop functions of
//! the driver and the runtime, and the profiler (`cuProfilerStart`, `cudaProfilerStart`).
//!
//! Why they must exist: NVIDIA's runtime, statically linked into nvcc's default builds and into
//! cuda.bindings, asks `cuGetProcAddress` for all of them when it starts and fails every call
//! with an initialisation error when one is missing; a library linked against NVIDIA's
//! `libcudart.so.13` (PyTorch's `libtorch_cuda.so` imports `cudaProfilerStart`) does not load
//! without them; and binaries built with older headers call the older ABIs by name.
//!
//! How: each is a trampoline export (generated, `generated/passthrough.rs`, x86-64) that jumps
//! through its slot. A slot starts at a stub that calls [`anycuda_passthrough_resolve`] on the
//! first call and stores the answer, so every later call is one indirect jump, whatever the
//! function's signature:
//! - **CUDA backend:** NVIDIA's own definition of that name in the library anycuda loaded, so
//!   the call is exactly NVIDIA's (anycuda has no rule for these functions there);
//! - **HIP backend, or a CUDA driver without the name:** anycuda's own where it has one
//!   ([`HIP_SERVED`]: the profiler's no-op start and stop, the older context, stream, event
//!   and capture ABIs onto their successors), else a function answering "not supported" in the
//!   API's code
//!   (`CUDA_ERROR_NOT_SUPPORTED`, `cudaErrorNotSupported`): OpenGL, EGL and VDPAU have no AMD
//!   counterpart anycuda could serve, and an older ABI has a newer one that a rebuilt program
//!   reaches.
//! - **no backend at all:** `CUDA_ERROR_NOT_INITIALIZED` / `cudaErrorInitializationError`.
//!
//! `cuGetProcAddress` answers these names with the same exports (capi/src/procaddr.rs).

use anycuda::driver::{
    CUcontext, CUctxCreateParams, CUdevice, CUexecAffinityParam, CUresult, CUstream,
    CUstreamCaptureMode,
};
use anycuda::runtime::cudaError_t;
use anycuda_api::backend::LibraryRole;
use core::ffi::{c_int, c_uint, c_void, CStr};

/// Which NVIDIA library defines an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    /// `libcuda.so.1`.
    Driver,
    /// `libcudart.so.13`.
    Runtime,
}

/// One pass-through export.
#[derive(Debug)]
pub struct Entry {
    /// The exported name, NVIDIA's.
    pub name: &'static CStr,
    /// The library it belongs to.
    pub library: Library,
}

/// Pass-through names anycuda serves itself where NVIDIA's library does not (the HIP backend),
/// and why: the profiler's start and stop are no-ops when no profiler is attached (NVIDIA's
/// answer `CUDA_SUCCESS` then too; on HIP no NVIDIA profiler can attach); an older ABI whose
/// parameters and meaning are its successor's is that successor's export (re-entry guard
/// included); the older context and capture ABIs are adapted onto the current ones
/// (`ctx_create_v2`, `ctx_create_v3`, `stream_begin_capture_v1`). The 32-bit ABIs
/// (`cuMemAlloc`, ...) and the ones whose structs changed are not: on HIP they answer not
/// supported.
pub const HIP_SERVED: &[(&CStr, &str)] = &[
    (c"cuProfilerStart", "no-op: no profiler attached"),
    (c"cuProfilerStop", "no-op: no profiler attached"),
    (c"cudaProfilerStart", "no-op: no profiler attached"),
    (c"cudaProfilerStop", "no-op: no profiler attached"),
    (
        c"cuCtxCreate",
        "cuCtxCreate_v4 with no parameters (CUDA 2.0's ABI: CUdevice was already an int)",
    ),
    (c"cuCtxCreate_v2", "cuCtxCreate_v4 with no parameters"),
    (
        c"cuCtxCreate_v3",
        "cuCtxCreate_v4 with the execution-affinity parameters",
    ),
    (
        c"cuCtxDestroy",
        "cuCtxDestroy_v2 (same parameters and meaning)",
    ),
    (c"cuCtxPopCurrent", "cuCtxPopCurrent_v2 (same)"),
    (c"cuCtxPushCurrent", "cuCtxPushCurrent_v2 (same)"),
    (
        c"cuDevicePrimaryCtxRelease",
        "cuDevicePrimaryCtxRelease_v2 (same)",
    ),
    (
        c"cuDevicePrimaryCtxReset",
        "cuDevicePrimaryCtxReset_v2 (same)",
    ),
    (
        c"cuDevicePrimaryCtxSetFlags",
        "cuDevicePrimaryCtxSetFlags_v2 (same)",
    ),
    (c"cuEventDestroy", "cuEventDestroy_v2 (same)"),
    (c"cuStreamDestroy", "cuStreamDestroy_v2 (same)"),
    (c"cuEventElapsedTime", "cuEventElapsedTime_v2 (same)"),
    (
        c"cuStreamBeginCapture",
        "cuStreamBeginCapture_v2 in CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA 10.0's only mode",
    ),
    (
        c"cuStreamBeginCapture_ptsz",
        "cuStreamBeginCapture_v2_ptsz in CU_STREAM_CAPTURE_MODE_GLOBAL",
    ),
    (
        c"cuDeviceGetUuid",
        "cuDeviceGetUuid_v2 (same: no MIG instances on HIP)",
    ),
    (
        c"cuMemAdvise",
        "cuMemAdvise_v2 at the device's location (CU_DEVICE_CPU: the host)",
    ),
    (
        c"cuMemPrefetchAsync",
        "cuMemPrefetchAsync_v2 to the device's location (CU_DEVICE_CPU: the host), no flags",
    ),
    (
        c"cuMemPrefetchAsync_ptsz",
        "as cuMemPrefetchAsync, per-thread stream",
    ),
    (
        c"cuGraphInstantiate",
        "cuGraphInstantiateWithFlags with no flags; no error node, an empty log",
    ),
    (c"cuGraphInstantiate_v2", "as cuGraphInstantiate"),
    (c"cuGraphAddNode", "cuGraphAddNode_v2 without edge data"),
    (c"cuGraphGetEdges", "cuGraphGetEdges_v2 without edge data"),
    (
        c"cuGraphNodeGetDependencies",
        "cuGraphNodeGetDependencies_v2 without edge data",
    ),
    (
        c"cuGraphNodeGetDependentNodes",
        "cuGraphNodeGetDependentNodes_v2 without edge data",
    ),
    (
        c"cuGraphAddDependencies",
        "cuGraphAddDependencies_v2 without edge data",
    ),
    (
        c"cuGraphRemoveDependencies",
        "cuGraphRemoveDependencies_v2 without edge data",
    ),
    (
        c"cuStreamGetCaptureInfo",
        "cuStreamGetCaptureInfo_v3's status and id (CUDA 10.1's ABI)",
    ),
    (
        c"cuStreamGetCaptureInfo_ptsz",
        "as cuStreamGetCaptureInfo, per-thread stream",
    ),
    (
        c"cuStreamGetCaptureInfo_v2",
        "cuStreamGetCaptureInfo_v3 without edge data",
    ),
    (
        c"cuStreamGetCaptureInfo_v2_ptsz",
        "as cuStreamGetCaptureInfo_v2, per-thread stream",
    ),
    (
        c"cuStreamUpdateCaptureDependencies",
        "cuStreamUpdateCaptureDependencies_v2 without edge data",
    ),
    (
        c"cuStreamUpdateCaptureDependencies_ptsz",
        "as cuStreamUpdateCaptureDependencies, per-thread stream",
    ),
];

/// The function serving `name` on a backend where NVIDIA's library has none (see
/// [`HIP_SERVED`]), if anycuda serves it.
fn served_here(name: &CStr, success: *const c_void) -> Option<*const c_void> {
    use crate::generated::exports as x;
    let f: *const c_void = match name.to_bytes() {
        b"cuProfilerStart" | b"cuProfilerStop" | b"cudaProfilerStart" | b"cudaProfilerStop" => {
            success
        }
        b"cuCtxCreate" | b"cuCtxCreate_v2" => ctx_create_v2 as *const c_void,
        b"cuCtxCreate_v3" => ctx_create_v3 as *const c_void,
        b"cuCtxDestroy" => x::cuCtxDestroy_v2 as *const c_void,
        b"cuCtxPopCurrent" => x::cuCtxPopCurrent_v2 as *const c_void,
        b"cuCtxPushCurrent" => x::cuCtxPushCurrent_v2 as *const c_void,
        b"cuDevicePrimaryCtxRelease" => x::cuDevicePrimaryCtxRelease_v2 as *const c_void,
        b"cuDevicePrimaryCtxReset" => x::cuDevicePrimaryCtxReset_v2 as *const c_void,
        b"cuDevicePrimaryCtxSetFlags" => x::cuDevicePrimaryCtxSetFlags_v2 as *const c_void,
        b"cuEventDestroy" => x::cuEventDestroy_v2 as *const c_void,
        b"cuStreamDestroy" => x::cuStreamDestroy_v2 as *const c_void,
        b"cuEventElapsedTime" => x::cuEventElapsedTime_v2 as *const c_void,
        b"cuStreamBeginCapture" => stream_begin_capture_v1 as *const c_void,
        b"cuStreamBeginCapture_ptsz" => older::stream_begin_capture_v1_ptsz as *const c_void,
        b"cuDeviceGetUuid" => x::cuDeviceGetUuid_v2 as *const c_void,
        b"cuMemAdvise" => older::mem_advise_v1 as *const c_void,
        b"cuMemPrefetchAsync" => older::mem_prefetch_v1 as *const c_void,
        b"cuMemPrefetchAsync_ptsz" => older::mem_prefetch_v1_ptsz as *const c_void,
        b"cuGraphInstantiate" | b"cuGraphInstantiate_v2" => {
            older::graph_instantiate_v1 as *const c_void
        }
        b"cuGraphAddNode" => older::graph_add_node_v1 as *const c_void,
        b"cuGraphGetEdges" => older::graph_get_edges_v1 as *const c_void,
        b"cuGraphNodeGetDependencies" => older::node_dependencies_v1 as *const c_void,
        b"cuGraphNodeGetDependentNodes" => older::node_dependents_v1 as *const c_void,
        b"cuGraphAddDependencies" => older::add_dependencies_v1 as *const c_void,
        b"cuGraphRemoveDependencies" => older::remove_dependencies_v1 as *const c_void,
        b"cuStreamGetCaptureInfo" => older::capture_info_v1 as *const c_void,
        b"cuStreamGetCaptureInfo_ptsz" => older::capture_info_v1_ptsz as *const c_void,
        b"cuStreamGetCaptureInfo_v2" => older::capture_info_v2 as *const c_void,
        b"cuStreamGetCaptureInfo_v2_ptsz" => older::capture_info_v2_ptsz as *const c_void,
        b"cuStreamUpdateCaptureDependencies" => older::update_capture_v1 as *const c_void,
        b"cuStreamUpdateCaptureDependencies_ptsz" => older::update_capture_v1_ptsz as *const c_void,
        _ => return None,
    };
    Some(f)
}

/// `cuCtxCreate` (CUDA 2.0) and `cuCtxCreate_v2` (CUDA 3.2): `cuCtxCreate_v4` with no
/// parameters.
unsafe extern "C" fn ctx_create_v2(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CUresult {
    // SAFETY: the caller's contract is _v4's with NULL parameters.
    unsafe { crate::generated::exports::cuCtxCreate_v4(pctx, core::ptr::null_mut(), flags, dev) }
}

/// `cuCtxCreate_v3` (CUDA 11.4): `cuCtxCreate_v4` with the execution-affinity parameters.
unsafe extern "C" fn ctx_create_v3(
    pctx: *mut CUcontext,
    params: *mut CUexecAffinityParam,
    num_params: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    let mut p = CUctxCreateParams {
        execAffinityParams: params,
        numExecAffinityParams: num_params,
        cigParams: core::ptr::null_mut(),
    };
    // SAFETY: the caller's contract; `p` lives for the call.
    unsafe { crate::generated::exports::cuCtxCreate_v4(pctx, &mut p, flags, dev) }
}

/// `cuStreamBeginCapture` (CUDA 10.0, no mode): `cuStreamBeginCapture_v2` in global mode.
unsafe extern "C" fn stream_begin_capture_v1(stream: CUstream) -> CUresult {
    // SAFETY: the caller's stream.
    unsafe {
        crate::generated::exports::cuStreamBeginCapture_v2(
            stream,
            CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
        )
    }
}

/// Older driver ABIs onto anycuda's current exports (the HIP backend serves only the current
/// ones): the parameters a newer ABI added are NULL or zero, or derived from the old ones.
mod older {
    use crate::generated::exports as x;
    use anycuda::driver::{
        CUdevice, CUdeviceptr, CUgraph, CUgraphExec, CUgraphNode, CUgraphNodeParams, CUmemLocation,
        CUmemLocationType, CUmemLocation_st__bindgen_ty_1, CUmem_advise, CUresult, CUstream,
        CUstreamCaptureMode, CUstreamCaptureStatus, CU_DEVICE_CPU,
    };
    use core::ffi::{c_char, c_uint};

    /// A CUDA 8 device argument as a `CUmemLocation`: `CU_DEVICE_CPU` is the host.
    fn location(device: CUdevice) -> CUmemLocation {
        let (type_, id) = if device == CU_DEVICE_CPU {
            (CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST, 0)
        } else {
            (CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, device)
        };
        CUmemLocation {
            type_,
            __bindgen_anon_1: CUmemLocation_st__bindgen_ty_1 { id },
        }
    }

    pub(super) unsafe extern "C" fn stream_begin_capture_v1_ptsz(stream: CUstream) -> CUresult {
        // SAFETY: the caller's stream.
        unsafe {
            x::cuStreamBeginCapture_v2_ptsz(
                stream,
                CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            )
        }
    }

    pub(super) unsafe extern "C" fn mem_advise_v1(
        ptr: CUdeviceptr,
        count: usize,
        advice: CUmem_advise,
        device: CUdevice,
    ) -> CUresult {
        // SAFETY: the caller's range; the location is built here.
        unsafe { x::cuMemAdvise_v2(ptr, count, advice, location(device)) }
    }

    pub(super) unsafe extern "C" fn mem_prefetch_v1(
        ptr: CUdeviceptr,
        count: usize,
        device: CUdevice,
        stream: CUstream,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuMemPrefetchAsync_v2(ptr, count, location(device), 0, stream) }
    }

    pub(super) unsafe extern "C" fn mem_prefetch_v1_ptsz(
        ptr: CUdeviceptr,
        count: usize,
        device: CUdevice,
        stream: CUstream,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuMemPrefetchAsync_v2_ptsz(ptr, count, location(device), 0, stream) }
    }

    /// CUDA 10's instantiate: no flags; on success no error node and an empty log, as
    /// NVIDIA's driver leaves them.
    pub(super) unsafe extern "C" fn graph_instantiate_v1(
        exec: *mut CUgraphExec,
        graph: CUgraph,
        error_node: *mut CUgraphNode,
        log: *mut c_char,
        log_size: usize,
    ) -> CUresult {
        // SAFETY: the caller's out-pointer and graph.
        let r = unsafe { x::cuGraphInstantiateWithFlags(exec, graph, 0) };
        if !error_node.is_null() {
            // SAFETY: the caller's out-pointer, checked non-NULL.
            unsafe { *error_node = core::ptr::null_mut() };
        }
        if !log.is_null() && log_size > 0 {
            // SAFETY: the caller's buffer of `log_size` bytes, at least one.
            unsafe { *log = 0 };
        }
        r
    }

    pub(super) unsafe extern "C" fn graph_add_node_v1(
        node: *mut CUgraphNode,
        graph: CUgraph,
        deps: *const CUgraphNode,
        n: usize,
        params: *mut CUgraphNodeParams,
    ) -> CUresult {
        // SAFETY: the caller's arguments; no edge data.
        unsafe { x::cuGraphAddNode_v2(node, graph, deps, core::ptr::null(), n, params) }
    }

    pub(super) unsafe extern "C" fn graph_get_edges_v1(
        graph: CUgraph,
        from: *mut CUgraphNode,
        to: *mut CUgraphNode,
        n: *mut usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuGraphGetEdges_v2(graph, from, to, core::ptr::null_mut(), n) }
    }

    pub(super) unsafe extern "C" fn node_dependencies_v1(
        node: CUgraphNode,
        deps: *mut CUgraphNode,
        n: *mut usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuGraphNodeGetDependencies_v2(node, deps, core::ptr::null_mut(), n) }
    }

    pub(super) unsafe extern "C" fn node_dependents_v1(
        node: CUgraphNode,
        deps: *mut CUgraphNode,
        n: *mut usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuGraphNodeGetDependentNodes_v2(node, deps, core::ptr::null_mut(), n) }
    }

    pub(super) unsafe extern "C" fn add_dependencies_v1(
        graph: CUgraph,
        from: *const CUgraphNode,
        to: *const CUgraphNode,
        n: usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuGraphAddDependencies_v2(graph, from, to, core::ptr::null(), n) }
    }

    pub(super) unsafe extern "C" fn remove_dependencies_v1(
        graph: CUgraph,
        from: *const CUgraphNode,
        to: *const CUgraphNode,
        n: usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe { x::cuGraphRemoveDependencies_v2(graph, from, to, core::ptr::null(), n) }
    }

    pub(super) unsafe extern "C" fn capture_info_v1(
        stream: CUstream,
        status: *mut CUstreamCaptureStatus,
        id: *mut u64,
    ) -> CUresult {
        let (mut g, mut d, mut n) = (core::ptr::null_mut(), core::ptr::null(), 0usize);
        let mut e = core::ptr::null();
        // SAFETY: the caller's out-pointers; the others are local.
        unsafe { x::cuStreamGetCaptureInfo_v3(stream, status, id, &mut g, &mut d, &mut e, &mut n) }
    }

    pub(super) unsafe extern "C" fn capture_info_v1_ptsz(
        stream: CUstream,
        status: *mut CUstreamCaptureStatus,
        id: *mut u64,
    ) -> CUresult {
        let (mut g, mut d, mut n) = (core::ptr::null_mut(), core::ptr::null(), 0usize);
        let mut e = core::ptr::null();
        // SAFETY: as above.
        unsafe {
            x::cuStreamGetCaptureInfo_v3_ptsz(stream, status, id, &mut g, &mut d, &mut e, &mut n)
        }
    }

    pub(super) unsafe extern "C" fn capture_info_v2(
        stream: CUstream,
        status: *mut CUstreamCaptureStatus,
        id: *mut u64,
        graph: *mut CUgraph,
        deps: *mut *const CUgraphNode,
        n: *mut usize,
    ) -> CUresult {
        // SAFETY: the caller's out-pointers; no edge data asked for.
        unsafe {
            x::cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, core::ptr::null_mut(), n)
        }
    }

    pub(super) unsafe extern "C" fn capture_info_v2_ptsz(
        stream: CUstream,
        status: *mut CUstreamCaptureStatus,
        id: *mut u64,
        graph: *mut CUgraph,
        deps: *mut *const CUgraphNode,
        n: *mut usize,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe {
            x::cuStreamGetCaptureInfo_v3_ptsz(
                stream,
                status,
                id,
                graph,
                deps,
                core::ptr::null_mut(),
                n,
            )
        }
    }

    pub(super) unsafe extern "C" fn update_capture_v1(
        stream: CUstream,
        deps: *mut CUgraphNode,
        n: usize,
        flags: c_uint,
    ) -> CUresult {
        // SAFETY: the caller's arguments; no edge data.
        unsafe {
            x::cuStreamUpdateCaptureDependencies_v2(stream, deps, core::ptr::null(), n, flags)
        }
    }

    pub(super) unsafe extern "C" fn update_capture_v1_ptsz(
        stream: CUstream,
        deps: *mut CUgraphNode,
        n: usize,
        flags: c_uint,
    ) -> CUresult {
        // SAFETY: as above.
        unsafe {
            x::cuStreamUpdateCaptureDependencies_v2_ptsz(stream, deps, core::ptr::null(), n, flags)
        }
    }
}

extern "C" fn driver_success() -> CUresult {
    CUresult::CUDA_SUCCESS
}
extern "C" fn runtime_success() -> cudaError_t {
    cudaError_t::cudaSuccess
}
// The "not supported" and "not initialised" answers take no arguments: the System V caller
// passes them in registers and on its own stack frame, so a callee that reads none is correct
// for every signature.
extern "C" fn driver_not_supported() -> CUresult {
    CUresult::CUDA_ERROR_NOT_SUPPORTED
}
extern "C" fn runtime_not_supported() -> cudaError_t {
    cudaError_t::cudaErrorNotSupported
}
extern "C" fn driver_not_initialised() -> CUresult {
    CUresult::CUDA_ERROR_NOT_INITIALIZED
}
extern "C" fn runtime_not_initialised() -> cudaError_t {
    cudaError_t::cudaErrorInitializationError
}

/// What entry `e` is served by on this process's backend: `Ok` to keep in its slot, `Err` for
/// this call only (a vendor library's re-entrant call).
fn resolve(e: &Entry) -> Result<*const c_void, *const c_void> {
    let (role, success, not_supported, not_initialised): (
        LibraryRole,
        *const c_void,
        *const c_void,
        *const c_void,
    ) = match e.library {
        Library::Driver => (
            LibraryRole::Driver,
            driver_success as *const c_void,
            driver_not_supported as *const c_void,
            driver_not_initialised as *const c_void,
        ),
        Library::Runtime => (
            LibraryRole::Runtime,
            runtime_success as *const c_void,
            runtime_not_supported as *const c_void,
            runtime_not_initialised as *const c_void,
        ),
    };
    // A vendor library's call by name while this thread is inside an anycuda C-ABI call (the
    // re-entry guard, docs/c-abi.md): NVIDIA's own definition, or not initialised, and nothing is
    // cached (the program's own calls go by the backend). Choosing the backend here could wait on
    // the very load that made the call.
    let Some(_inside) = crate::guard::Inside::enter() else {
        let p =
            crate::guard::vendor().map_or(core::ptr::null_mut(), |v| v.vendor_symbol(role, e.name));
        return Err(if p.is_null() {
            not_initialised
        } else {
            p.cast_const()
        });
    };
    let Ok(sel) = anycuda::backend() else {
        return Ok(not_initialised);
    };
    let nvidia = sel.backend.vendor_symbol(role, e.name);
    if !nvidia.is_null() {
        return Ok(nvidia);
    }
    if let Some(f) = served_here(e.name, success) {
        return Ok(f);
    }
    log::debug!(
        "anycuda C ABI: {} is not served on the {} backend: CUDA's not-supported code",
        e.name.to_string_lossy(),
        sel.kind()
    );
    Ok(not_supported)
}

/// Resolves slot `index` (called by the generated stubs on an entry's first call): stores and
/// returns the function the entry's export jumps to. An index out of range (impossible from
/// the generated stubs) answers the driver's "not supported".
#[no_mangle]
pub extern "C" fn anycuda_passthrough_resolve(index: u32) -> *const c_void {
    let entries = &crate::generated::passthrough::ENTRIES;
    let Some(e) = entries.get(index as usize) else {
        return driver_not_supported as *const c_void;
    };
    let f = match resolve(e) {
        Ok(f) => f,
        Err(once) => return once,
    };
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the slots are the generated asm's `.data` array of one pointer per entry,
        // only ever accessed atomically (a racing first call stores the same answer).
        let slots = unsafe { &crate::generated::passthrough::anycuda_passthrough_slots };
        slots[index as usize].store(f.cast_mut(), core::sync::atomic::Ordering::Release);
    }
    f
}
