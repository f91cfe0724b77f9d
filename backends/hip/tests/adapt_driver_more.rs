//! Live calls of the Driver API adaptations in `src/adapt/` against the installed
//! HIP (CI: Debian's ROCm 5.2.3, no GPU). Validation anycuda does itself is checked exactly;
//! calls that reach HIP must come back as named CUDA codes, and nothing may crash. No call here
//! passes HIP a made-up handle it would dereference.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::traits::Driver;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_void};
use core::ptr::{null, null_mut};

mod common;
use common::{has_device, hip};

const OK: CUresult = CUresult::CUDA_SUCCESS;
const INVALID: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
const UNSUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;

/// A failure that is a real CUDA code (named, not an invented HIP-only value).
fn cuda_failure(r: CUresult) {
    assert_ne!(r, OK);
    assert!(r.name().is_some(), "unnamed code {r:?}");
    assert!(
        anycuda_api::hallucinated::classify(r.to_i64()).is_none(),
        "HIP-only code {r:?}"
    );
}

/// Success or a named CUDA failure.
fn named(r: CUresult) {
    if r != OK {
        cuda_failure(r);
    }
}

fn loc(t: CUmemLocationType, id: i32) -> CUmemLocation {
    CUmemLocation::new(t, id)
}

#[test]
fn copies_and_peer_copies() {
    let Some(b) = hip() else { return };
    if has_device(&b) {
        return;
    }
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        cuda_failure(b.cuMemcpy(0x1000, 0x2000, 16));
        cuda_failure(b.cuMemcpyAsync(0x1000, 0x2000, 16, null_mut()));
        assert_eq!(
            b.cuMemcpyPeer(0x1000, null_mut(), 0x2000, null_mut(), 16),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(
            b.cuMemcpyPeerAsync(0x1000, null_mut(), 0x2000, null_mut(), 16, null_mut()),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!(b.cuMemcpy3DPeer(null()), INVALID);
        let mut p: CUDA_MEMCPY3D_PEER = core::mem::zeroed();
        p.srcMemoryType = CUmemorytype(77);
        p.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        assert_eq!(b.cuMemcpy3DPeer(&p), INVALID, "bad memory type");
        p.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        p.srcDevice = 0x1000;
        p.dstDevice = 0x2000;
        p.WidthInBytes = 4;
        p.Height = 1;
        p.Depth = 1;
        cuda_failure(b.cuMemcpy3DPeerAsync(&p, null_mut()));
    }
}

#[test]
fn prefetch_advise_and_pools_validate_locations() {
    let Some(b) = hip() else { return };
    use CUmemLocationType as T;
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let dev = loc(T::CU_MEM_LOCATION_TYPE_DEVICE, 0);
        assert_eq!(
            b.cuMemPrefetchAsync(0x1000, 64, dev, 1, null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuMemPrefetchAsync(
                0x1000,
                64,
                loc(T::CU_MEM_LOCATION_TYPE_HOST_NUMA, 0),
                0,
                null_mut()
            ),
            UNSUPPORTED
        );
        assert_eq!(
            b.cuMemPrefetchAsync(0x1000, 64, loc(T(42), 0), 0, null_mut()),
            INVALID
        );
        assert_eq!(b.cuMemAdvise(0x1000, 64, CUmem_advise(999), dev), INVALID);
        assert_eq!(
            b.cuMemAdvise(
                0x1000,
                64,
                CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                loc(T::CU_MEM_LOCATION_TYPE_HOST_NUMA, 0)
            ),
            UNSUPPORTED
        );
        if !has_device(&b) {
            cuda_failure(b.cuMemPrefetchAsync(0x1000, 64, dev, 0, null_mut()));
            cuda_failure(b.cuMemAdvise(
                0x1000,
                64,
                CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
                dev,
            ));
        }
        let mut pool: CUmemoryPool = null_mut();
        let mut host = loc(T::CU_MEM_LOCATION_TYPE_HOST, 0);
        assert_eq!(
            b.cuMemGetDefaultMemPool(
                &mut pool,
                &mut host,
                CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED
            ),
            UNSUPPORTED
        );
        let mut d = dev;
        assert_eq!(
            b.cuMemGetDefaultMemPool(
                null_mut(),
                &mut d,
                CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED
            ),
            INVALID
        );
        named(b.cuMemGetDefaultMemPool(
            &mut pool,
            &mut d,
            CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        ));
    }
}

#[test]
fn virtual_memory_properties() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let mut prop: CUmemAllocationProp = core::mem::zeroed();
        prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = loc(CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, 0);
        let mut h: CUmemGenericAllocationHandle = 0;
        assert_eq!(
            b.cuMemCreate(&mut h, 1 << 21, &prop, 1),
            INVALID,
            "flags must be 0"
        );
        assert_eq!(b.cuMemCreate(&mut h, 1 << 21, null(), 0), INVALID);
        let mut bad = prop;
        bad.allocFlags.compressionType = 1;
        assert_eq!(b.cuMemCreate(&mut h, 1 << 21, &bad, 0), UNSUPPORTED);
        let mut bad = prop;
        bad.requestedHandleTypes = CUmemAllocationHandleType(0x8); // FABRIC
        assert_eq!(b.cuMemCreate(&mut h, 1 << 21, &bad, 0), UNSUPPORTED);
        let mut g = 0usize;
        assert_eq!(
            b.cuMemGetAllocationGranularity(&mut g, &prop, CUmemAllocationGranularity_flags(9)),
            INVALID
        );
        named(b.cuMemGetAllocationGranularity(
            &mut g,
            &prop,
            CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        ));
        if !has_device(&b) {
            cuda_failure(b.cuMemCreate(&mut h, 1 << 21, &prop, 0));
        }
        assert_eq!(
            b.cuMemGetAllocationPropertiesFromHandle(null_mut(), 0),
            INVALID
        );

        let mut pp: CUmemPoolProps = core::mem::zeroed();
        pp.allocType = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        pp.location = prop.location;
        let mut pool: CUmemoryPool = null_mut();
        assert_eq!(b.cuMemPoolCreate(null_mut(), &pp), INVALID);
        let mut bad = pp;
        bad.usage = 1;
        assert_eq!(b.cuMemPoolCreate(&mut pool, &bad), UNSUPPORTED);
        if b.hip_version() < 60_000_000 {
            let mut bad = pp;
            bad.maxSize = 1 << 30;
            assert_eq!(
                b.cuMemPoolCreate(&mut pool, &bad),
                UNSUPPORTED,
                "HIP 5.2 has no maxSize"
            );
        }
        if !has_device(&b) {
            cuda_failure(b.cuMemPoolCreate(&mut pool, &pp));
        }
        assert_eq!(
            b.cuGraphAddMemAllocNode(null_mut(), null_mut(), null(), 0, null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphMemAllocNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
    }
}

#[test]
fn streams_wait_values_capture_and_callbacks() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        assert_eq!(
            b.cuStreamWaitValue32(null_mut(), 0x1000, 1, 1 << 30),
            UNSUPPORTED
        );
        assert_eq!(b.cuStreamWaitValue64(null_mut(), 0x1000, 1, 7), INVALID);
        if !has_device(&b) {
            cuda_failure(b.cuStreamWaitValue32(null_mut(), 0x1000, 1, 0));
        }
        assert_eq!(b.cuThreadExchangeStreamCaptureMode(null_mut()), INVALID);
        let mut m = CUstreamCaptureMode(77);
        assert_eq!(b.cuThreadExchangeStreamCaptureMode(&mut m), INVALID);
        let mut m = CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        let r = b.cuThreadExchangeStreamCaptureMode(&mut m);
        named(r);
        if r == OK {
            // The previous mode comes back in CUDA's words; exchanging again restores it.
            assert!(m.name().is_some(), "{m:?}");
            let prev = m;
            let mut again = prev;
            assert_eq!(b.cuThreadExchangeStreamCaptureMode(&mut again), OK);
            assert_eq!(again, CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED);
        }
        let mut n = 0usize;
        let mut deps: *const CUgraphNode = null();
        assert_eq!(
            b.cuStreamGetCaptureInfo(
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            ),
            INVALID
        );
        let mut st = CUstreamCaptureStatus(99);
        assert_eq!(
            b.cuStreamGetCaptureInfo(
                null_mut(),
                &mut st,
                null_mut(),
                null_mut(),
                &mut deps,
                null_mut(),
                null_mut()
            ),
            INVALID,
            "dependencies without a count"
        );
        let mut edges: *const CUgraphEdgeData = null();
        let r = b.cuStreamGetCaptureInfo(
            null_mut(),
            &mut st,
            null_mut(),
            null_mut(),
            &mut deps,
            &mut edges,
            &mut n,
        );
        named(r);
        if r == OK {
            assert!(st.name().is_some(), "{st:?}");
        }

        unsafe extern "C" fn cb(_s: CUstream, _st: CUresult, _d: *mut c_void) {}
        assert_eq!(
            b.cuStreamAddCallback(null_mut(), None, null_mut(), 0),
            INVALID
        );
        assert_eq!(
            b.cuStreamAddCallback(null_mut(), Some(cb), null_mut(), 1),
            INVALID
        );
        if !has_device(&b) {
            cuda_failure(b.cuStreamAddCallback(null_mut(), Some(cb), null_mut(), 0));
        }
        let mut e = [CUgraphEdgeData {
            from_port: 0,
            to_port: 0,
            type_: 1,
            reserved: [0; 5],
        }];
        let mut node: CUgraphNode = null_mut();
        assert_eq!(
            b.cuStreamUpdateCaptureDependencies(null_mut(), &mut node, e.as_ptr(), 1, 0),
            UNSUPPORTED
        );
        assert_eq!(
            b.cuStreamBeginCaptureToGraph(
                null_mut(),
                null_mut(),
                &node,
                e.as_mut_ptr(),
                1,
                CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL
            ),
            UNSUPPORTED
        );
        assert_eq!(
            b.cuStreamBeginCaptureToGraph(
                null_mut(),
                null_mut(),
                null(),
                null(),
                0,
                CUstreamCaptureMode(9)
            ),
            INVALID
        );
        let mut ctx: CUcontext = null_mut();
        assert_eq!(b.cuStreamGetCtx(null_mut(), null_mut()), INVALID);
        let mut green: CUgreenCtx = null_mut();
        assert_eq!(
            b.cuStreamGetCtx_v2(null_mut(), &mut ctx, null_mut()),
            INVALID
        );
        if !has_device(&b) {
            cuda_failure(b.cuStreamGetCtx(null_mut(), &mut ctx));
            cuda_failure(b.cuStreamGetCtx_v2(null_mut(), &mut ctx, &mut green));
            cuda_failure(b.cuCtxSetFlags(0));
        }
    }
}

#[test]
fn graphs_edge_data_and_node_params() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let e = [CUgraphEdgeData {
            from_port: 1,
            to_port: 0,
            type_: 0,
            reserved: [0; 5],
        }];
        let n: CUgraphNode = null_mut();
        assert_eq!(
            b.cuGraphAddDependencies(null_mut(), &n, &n, e.as_ptr(), 1),
            UNSUPPORTED
        );
        assert_eq!(
            b.cuGraphRemoveDependencies(null_mut(), &n, &n, e.as_ptr(), 1),
            UNSUPPORTED
        );
        cuda_failure(b.cuGraphAddDependencies(null_mut(), &n, &n, null(), 1));
        assert_eq!(
            b.cuGraphGetEdges(null_mut(), null_mut(), null_mut(), null_mut(), null_mut()),
            INVALID
        );
        let mut cnt = 0usize;
        let mut ed = [CUgraphEdgeData {
            from_port: 9,
            to_port: 9,
            type_: 9,
            reserved: [9; 5],
        }];
        assert_eq!(
            b.cuGraphGetEdges(
                null_mut(),
                null_mut(),
                null_mut(),
                ed.as_mut_ptr(),
                &mut cnt
            ),
            INVALID,
            "edge data without nodes"
        );
        cuda_failure(b.cuGraphGetEdges(null_mut(), null_mut(), null_mut(), null_mut(), &mut cnt));
        assert_eq!(
            b.cuGraphNodeGetDependencies(null_mut(), null_mut(), null_mut(), null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphNodeGetDependentNodes(null_mut(), null_mut(), null_mut(), null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphExecUpdate(null_mut(), null_mut(), null_mut()),
            INVALID
        );
        let mut info: CUgraphExecUpdateResultInfo = core::mem::zeroed();
        cuda_failure(b.cuGraphExecUpdate(null_mut(), null_mut(), &mut info));
        assert!(info.result.name().is_some(), "{:?}", info.result);
        assert_eq!(
            b.cuGraphMemsetNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
        assert_eq!(b.cuGraphMemsetNodeSetParams(null_mut(), null()), INVALID);
        assert_eq!(
            b.cuGraphMemFreeNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphMemcpyNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
        let mut node: CUgraphNode = null_mut();
        assert_eq!(
            b.cuGraphAddMemcpyNode(&mut node, null_mut(), null(), 0, null(), null_mut()),
            INVALID
        );
        let mut c: CUDA_MEMCPY3D = core::mem::zeroed();
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.reserved0 = core::ptr::dangling_mut::<c_void>();
        assert_eq!(
            b.cuGraphMemcpyNodeSetParams(null_mut(), &c),
            INVALID,
            "reserved must be NULL"
        );
        c.reserved0 = null_mut();
        // HIP 5.2 has no hipDrvGraph*Memcpy*: not supported; newer HIP rejects the NULL graph.
        cuda_failure(b.cuGraphAddMemcpyNode(&mut node, null_mut(), null(), 0, &c, null_mut()));
        cuda_failure(b.cuGraphExecMemcpyNodeSetParams(null_mut(), null_mut(), &c, null_mut()));
        let mut exec: CUgraphExec = null_mut();
        assert_eq!(
            b.cuGraphInstantiateWithParams(&mut exec, null_mut(), null_mut()),
            INVALID
        );
        let mut ip: CUDA_GRAPH_INSTANTIATE_PARAMS = core::mem::zeroed();
        cuda_failure(b.cuGraphInstantiateWithParams(&mut exec, null_mut(), &mut ip));
    }
}

#[test]
fn modules_jit_options_and_function_settings() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let mut m: CUmodule = null_mut();
        let image = b"not a code object\0";
        let mut opts = [CUjit_option(99)];
        let mut vals = [null_mut::<c_void>()];
        assert_eq!(
            b.cuModuleLoadDataEx(
                &mut m,
                image.as_ptr().cast(),
                1,
                opts.as_mut_ptr(),
                vals.as_mut_ptr()
            ),
            INVALID
        );
        assert_eq!(
            b.cuModuleLoadDataEx(&mut m, image.as_ptr().cast(), 1, null_mut(), null_mut()),
            INVALID
        );
        if !has_device(&b) && b.hip_version() >= 50_000_000 {
            // AMD ignores JIT options: the log outputs read as empty, never stale.
            let mut log = [b'x' as c_char; 16];
            let mut opts = [
                CUjit_option::CU_JIT_INFO_LOG_BUFFER,
                CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                CUjit_option::CU_JIT_TARGET,
            ];
            let mut vals = [
                log.as_mut_ptr().cast::<c_void>(),
                16usize as *mut c_void,
                90usize as *mut c_void,
            ];
            cuda_failure(b.cuModuleLoadDataEx(
                &mut m,
                image.as_ptr().cast(),
                3,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            ));
            assert_eq!(vals[1] as usize, 0);
            assert_eq!(log[0], 0);
        }
        let mut st: CUlinkState = null_mut();
        assert_eq!(
            b.cuLinkCreate(0, null_mut(), null_mut(), null_mut()),
            INVALID
        );
        named(b.cuLinkCreate(0, null_mut(), null_mut(), &mut st));
        if !st.is_null() {
            named(b.cuLinkDestroy(st));
        }
        assert_eq!(
            b.cuLinkAddData(
                null_mut(),
                CUjitInputType::CU_JIT_INPUT_PTX,
                null_mut(),
                0,
                null(),
                0,
                null_mut(),
                null_mut()
            ),
            INVALID
        );
        assert_eq!(
            b.cuLinkAddFile(
                null_mut(),
                CUjitInputType::CU_JIT_INPUT_PTX,
                null(),
                0,
                null_mut(),
                null_mut()
            ),
            INVALID
        );

        assert_eq!(b.cuFuncSetCacheConfig(null_mut(), CUfunc_cache(9)), INVALID);
        assert_eq!(
            b.cuFuncSetSharedMemConfig(null_mut(), CUsharedconfig(9)),
            INVALID
        );
        assert_eq!(
            b.cuFuncSetCacheConfig(null_mut(), CUfunc_cache::CU_FUNC_CACHE_PREFER_L1),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            b.cuFuncSetAttribute(
                null_mut(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                1
            ),
            INVALID,
            "read-only attribute"
        );
        assert_eq!(
            b.cuFuncSetAttribute(
                null_mut(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                2
            ),
            UNSUPPORTED
        );
        assert_eq!(
            b.cuFuncSetAttribute(
                null_mut(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                101
            ),
            INVALID
        );
        assert_eq!(
            b.cuFuncSetAttribute(
                null_mut(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                1024
            ),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        let mut ls = CUfunctionLoadingState(0);
        assert_eq!(b.cuFuncIsLoaded(null_mut(), null_mut()), INVALID);
        assert_eq!(
            b.cuFuncIsLoaded(&mut ls, null_mut()),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            b.cuFuncLoad(null_mut()),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        let mut mode = CUmoduleLoadingMode(0);
        assert_eq!(b.cuModuleGetLoadingMode(null_mut()), INVALID);
        assert_eq!(b.cuModuleGetLoadingMode(&mut mode), OK);
        assert_eq!(mode, CUmoduleLoadingMode::CU_MODULE_EAGER_LOADING);

        unsafe extern "C" fn smem(_bs: i32) -> usize {
            0
        }
        let (mut g, mut bs) = (0, 0);
        // The callback is searched over HIP's per-size occupancy (GPU suite); a NULL function
        // is refused first, and without a current context the search stops at once.
        assert_eq!(
            b.cuOccupancyMaxPotentialBlockSize(&mut g, &mut bs, null_mut(), Some(smem), 0, 0),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        let bogus = 0x1000 as CUfunction;
        assert_eq!(
            b.cuOccupancyMaxPotentialBlockSize(&mut g, &mut bs, bogus, Some(smem), 0, 0),
            CUresult::CUDA_ERROR_INVALID_CONTEXT
        );
        assert_eq!((g, bs), (0, 0), "nothing written on an error");
        assert_eq!(
            b.cuOccupancyMaxPotentialBlockSizeWithFlags(&mut g, &mut bs, null_mut(), None, 0, 0, 2),
            INVALID
        );
        assert_eq!(
            b.cuOccupancyMaxPotentialBlockSize(null_mut(), &mut bs, null_mut(), None, 0, 0),
            INVALID
        );
    }
}

#[test]
fn texture_references_and_linear_width() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        let t: CUtexref = 0x1000 as CUtexref; // never reaches HIP: validation fails first
        assert_eq!(
            b.cuTexRefSetAddressMode(t, 3, CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP),
            INVALID
        );
        assert_eq!(b.cuTexRefSetAddressMode(t, 0, CUaddress_mode(77)), INVALID);
        assert_eq!(
            b.cuTexRefSetAddressMode(null_mut(), 0, CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP),
            INVALID
        );
        assert_eq!(b.cuTexRefSetFilterMode(t, CUfilter_mode(5)), INVALID);
        assert_eq!(b.cuTexRefSetMipmapFilterMode(t, CUfilter_mode(5)), INVALID);
        let mut am = CUaddress_mode(0);
        let mut fm = CUfilter_mode(0);
        assert_eq!(b.cuTexRefGetAddressMode(&mut am, null_mut(), 0), INVALID);
        assert_eq!(b.cuTexRefGetFilterMode(&mut fm, null_mut()), INVALID);
        assert_eq!(b.cuTexRefGetMipmapFilterMode(null_mut(), t), INVALID);
        let mut w = 0usize;
        assert_eq!(
            b.cuDeviceGetTexture1DLinearMaxWidth(&mut w, CUarray_format::CU_AD_FORMAT_FLOAT, 3, 0),
            INVALID
        );
        assert_eq!(
            b.cuDeviceGetTexture1DLinearMaxWidth(
                &mut w,
                CUarray_format::CU_AD_FORMAT_BC1_UNORM,
                1,
                0
            ),
            UNSUPPORTED
        );
        named(b.cuDeviceGetTexture1DLinearMaxWidth(
            &mut w,
            CUarray_format::CU_AD_FORMAT_FLOAT,
            1,
            0,
        ));
    }
}

#[test]
fn legacy_execution_control_and_device_properties() {
    let Some(b) = hip() else { return };
    // SAFETY: local out-pointers, NULL, or handles from HIP; bad input is refused first.
    unsafe {
        // Validation before the handle: CUDA's codes for bad shapes, sizes and offsets.
        // (Real handles and the launch itself: tests/legacy_launch.rs.)
        let f = 0x7777_0000usize as CUfunction;
        assert_eq!(b.cuFuncSetBlockShape(f, 0, 1, 1), INVALID);
        assert_eq!(
            b.cuFuncSetBlockShape(null_mut(), 1, 1, 1),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(b.cuParamSetSize(f, 4097), INVALID);
        assert_eq!(b.cuParamSeti(f, -1, 7), INVALID);
        assert_eq!(b.cuParamSeti(f, 4094, 7), INVALID);
        let mut v = [1u8; 16];
        assert_eq!(b.cuParamSetv(f, 4090, v.as_mut_ptr().cast(), 16), INVALID);
        assert_eq!(b.cuParamSetv(f, 0, null_mut(), 4), INVALID);
        assert_eq!(b.cuLaunch(null_mut()), CUresult::CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(b.cuLaunchGrid(f, 0, 1), INVALID);
        // A handle HIP never handed out has no state to launch with.
        let g = 0x7777_1000usize as CUfunction;
        assert_eq!(b.cuLaunchGrid(g, 1, 1), CUresult::CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(
            b.cuLaunchGridAsync(g, 1, 1, null_mut()),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );

        assert_eq!(b.cuDeviceGetProperties(null_mut(), 0), INVALID);
        let mut p: CUdevprop = core::mem::zeroed();
        let r = b.cuDeviceGetProperties(&mut p, 0);
        if has_device(&b) {
            assert_eq!(r, OK);
            assert!(p.maxThreadsPerBlock > 0 && p.SIMDWidth > 0);
        } else {
            cuda_failure(r);
        }
    }
}
