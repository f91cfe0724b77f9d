//! Live calls of the mipmapped-array, texture-object and surface-object adaptations
//! (`src/adapt/texture.rs`) against the installed HIP (CI: Debian's ROCm 5.2.3, no GPU, so HIP
//! 5.2's `__hip5_2` entry points). Validation anycuda does itself is checked exactly; calls
//! that reach HIP must come back as named CUDA codes, and nothing may crash. No call here
//! passes HIP a made-up handle it would dereference.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::runtime::*;
use anycuda_api::traits::{Driver, Runtime};
use anycuda_api::CudaEnum;
use anycuda_hip::HipBackend;

mod common;
use core::ptr::{null, null_mut};

const INVALID: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
const UNSUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;
const RT_INVALID: cudaError_t = cudaError_t::cudaErrorInvalidValue;
const RT_UNSUPPORTED: cudaError_t = cudaError_t::cudaErrorNotSupported;

/// The HIP backend (`common::hip`: a missing libamdhip64 fails on CI, skips elsewhere), on a
/// machine without a device: these checks expect HIP's no-device answers.
fn hip_without_device() -> Option<HipBackend> {
    let b = common::hip()?;
    let mut n = 0;
    // SAFETY: a local out-pointer.
    let counted = unsafe { b.cuDeviceGetCount(&mut n) } == CUresult::CUDA_SUCCESS;
    if counted && n > 0 {
        eprintln!("SKIP: these checks are for a machine without a device");
        return None;
    }
    Some(b)
}

/// A failure that is a real CUDA code (named, not an invented HIP-only value), and not one of
/// the answers anycuda gives before HIP is called.
fn reached_hip(r: CUresult) {
    assert_ne!(r, CUresult::CUDA_SUCCESS);
    assert_ne!(
        r, UNSUPPORTED,
        "the loaded HIP's entry point was not called"
    );
    assert!(r.name().is_some(), "unnamed code {r:?}");
    assert!(
        anycuda_api::hallucinated::classify(r.to_i64()).is_none(),
        "HIP-only code {r:?}"
    );
}

/// The Runtime's twin of [`reached_hip`].
fn rt_reached_hip(r: cudaError_t) {
    assert_ne!(r, cudaError_t::cudaSuccess);
    assert_ne!(
        r, RT_UNSUPPORTED,
        "the loaded HIP's entry point was not called"
    );
    assert!(r.name().is_some(), "unnamed code {r:?}");
    assert!(
        anycuda_api::hallucinated::classify(r.to_i64()).is_none(),
        "HIP-only code {r:?}"
    );
}

fn array_desc() -> CUDA_ARRAY3D_DESCRIPTOR {
    CUDA_ARRAY3D_DESCRIPTOR {
        Width: 16,
        Height: 16,
        Depth: 0,
        Format: CUarray_format::CU_AD_FORMAT_FLOAT,
        NumChannels: 1,
        Flags: 0,
    }
}

fn array_resource() -> CUDA_RESOURCE_DESC {
    // SAFETY: all-zero bytes are a valid CUDA_RESOURCE_DESC (plain data).
    let mut r: CUDA_RESOURCE_DESC = unsafe { core::mem::zeroed() };
    r.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
    r
}

fn texture_desc() -> CUDA_TEXTURE_DESC {
    // SAFETY: all-zero bytes are a valid CUDA_TEXTURE_DESC (wrap, point, no flags).
    unsafe { core::mem::zeroed() }
}

#[test]
fn mipmapped_arrays_validate_then_reach_hip_without_device() {
    let Some(b) = hip_without_device() else {
        return;
    };
    let mut m: CUmipmappedArray = null_mut();
    let mut a: CUarray = null_mut();
    let d = array_desc();
    // SAFETY: local out-pointers and descriptors, or NULL; bad input is refused first.
    unsafe {
        assert_eq!(b.cuMipmappedArrayCreate(null_mut(), &d, 2), INVALID);
        assert_eq!(b.cuMipmappedArrayCreate(&mut m, null(), 2), INVALID);
        let bad = CUDA_ARRAY3D_DESCRIPTOR {
            Format: CUarray_format(0x77),
            ..d
        };
        assert_eq!(b.cuMipmappedArrayCreate(&mut m, &bad, 2), INVALID);
        let sparse = CUDA_ARRAY3D_DESCRIPTOR { Flags: 0x40, ..d };
        assert_eq!(b.cuMipmappedArrayCreate(&mut m, &sparse, 2), UNSUPPORTED);
        let odd = CUDA_ARRAY3D_DESCRIPTOR { Flags: 0x1000, ..d };
        assert_eq!(b.cuMipmappedArrayCreate(&mut m, &odd, 2), INVALID);
        // A valid descriptor reaches HIP (5.2's declaration here), which has no device.
        reached_hip(b.cuMipmappedArrayCreate(&mut m, &d, 2));

        assert_eq!(b.cuMipmappedArrayDestroy(null_mut()), INVALID);
        assert_eq!(
            b.cuMipmappedArrayGetLevel(null_mut(), 0x10 as _, 0),
            INVALID
        );
        assert_eq!(b.cuMipmappedArrayGetLevel(&mut a, null_mut(), 0), INVALID);
        assert_eq!(
            b.cuTexRefSetMipmappedArray(null_mut(), 0x10 as _, 0),
            INVALID
        );

        let mut rm: cudaMipmappedArray_t = null_mut();
        let c = cudaChannelFormatDesc {
            x: 32,
            y: 0,
            z: 0,
            w: 0,
            f: cudaChannelFormatKind::cudaChannelFormatKindFloat,
        };
        let e = cudaExtent {
            width: 16,
            height: 16,
            depth: 0,
        };
        assert_eq!(
            b.cudaMallocMipmappedArray(null_mut(), &c, e, 2, 0),
            RT_INVALID
        );
        assert_eq!(
            b.cudaMallocMipmappedArray(&mut rm, null(), e, 2, 0),
            RT_INVALID
        );
        let bad = cudaChannelFormatDesc {
            f: cudaChannelFormatKind(0x55),
            ..c
        };
        assert_eq!(
            b.cudaMallocMipmappedArray(&mut rm, &bad, e, 2, 0),
            RT_INVALID
        );
        assert_eq!(
            b.cudaMallocMipmappedArray(&mut rm, &c, e, 2, 0x40),
            RT_UNSUPPORTED
        );
        rt_reached_hip(b.cudaMallocMipmappedArray(&mut rm, &c, e, 2, 0));
        assert_eq!(b.cudaFreeMipmappedArray(null_mut()), RT_INVALID);
        let mut ra: cudaArray_t = null_mut();
        assert_eq!(b.cudaGetMipmappedArrayLevel(&mut ra, null(), 0), RT_INVALID);
        assert_eq!(
            b.cudaGetMipmappedArrayLevel(null_mut(), 0x10 as _, 0),
            RT_INVALID
        );
    }
}

#[test]
fn texture_objects_validate_then_reach_hip_without_device() {
    let Some(b) = hip_without_device() else {
        return;
    };
    let mut o: CUtexObject = 0;
    let r = array_resource();
    let t = texture_desc();
    // SAFETY: local out-pointers and descriptors, or NULL; bad input is refused first. The
    // array handle is NULL, which HIP checks before any use.
    unsafe {
        assert_eq!(b.cuTexObjectCreate(null_mut(), &r, &t, null()), INVALID);
        assert_eq!(b.cuTexObjectCreate(&mut o, null(), &t, null()), INVALID);
        assert_eq!(b.cuTexObjectCreate(&mut o, &r, null(), null()), INVALID);
        let mut bad = r;
        bad.resType = CUresourcetype(9);
        assert_eq!(b.cuTexObjectCreate(&mut o, &bad, &t, null()), INVALID);
        let mut flagged = r;
        flagged.flags = 1;
        assert_eq!(b.cuTexObjectCreate(&mut o, &flagged, &t, null()), INVALID);
        let mode = CUDA_TEXTURE_DESC {
            filterMode: CUfilter_mode(7),
            ..t
        };
        assert_eq!(b.cuTexObjectCreate(&mut o, &r, &mode, null()), INVALID);
        let cube = CUDA_TEXTURE_DESC { flags: 0x40, ..t };
        assert_eq!(b.cuTexObjectCreate(&mut o, &r, &cube, null()), UNSUPPORTED);
        // SAFETY: all-zero bytes are a valid view descriptor; then an unknown format.
        let mut v: CUDA_RESOURCE_VIEW_DESC = core::mem::zeroed();
        v.format = CUresourceViewFormat(0x99);
        assert_eq!(b.cuTexObjectCreate(&mut o, &r, &t, &v), INVALID);
        let mut lin = r;
        lin.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
        lin.res.linear.format = CUarray_format::CU_AD_FORMAT_BC1_UNORM;
        lin.res.linear.numChannels = 1;
        assert_eq!(b.cuTexObjectCreate(&mut o, &lin, &t, null()), UNSUPPORTED);
        // Well-formed descriptors reach HIP, which has no device (or refuses the NULL array).
        reached_hip(b.cuTexObjectCreate(&mut o, &r, &t, null()));

        let mut rd = array_resource();
        let mut td = texture_desc();
        let mut vd: CUDA_RESOURCE_VIEW_DESC = core::mem::zeroed();
        assert_eq!(b.cuTexObjectGetResourceDesc(null_mut(), 1), INVALID);
        assert_eq!(b.cuTexObjectGetResourceDesc(&mut rd, 0), INVALID);
        assert_eq!(b.cuTexObjectGetTextureDesc(null_mut(), 1), INVALID);
        assert_eq!(b.cuTexObjectGetTextureDesc(&mut td, 0), INVALID);
        assert_eq!(b.cuTexObjectGetResourceViewDesc(null_mut(), 1), INVALID);
        assert_eq!(b.cuTexObjectGetResourceViewDesc(&mut vd, 0), INVALID);

        let mut ro: cudaTextureObject_t = 0;
        let mut rr: cudaResourceDesc = core::mem::zeroed();
        rr.resType = cudaResourceType::cudaResourceTypeArray;
        let mut rt: cudaTextureDesc = core::mem::zeroed();
        assert_eq!(
            b.cudaCreateTextureObject(null_mut(), &rr, &rt, null()),
            RT_INVALID
        );
        assert_eq!(
            b.cudaCreateTextureObject(&mut ro, null(), &rt, null()),
            RT_INVALID
        );
        assert_eq!(
            b.cudaCreateTextureObject(&mut ro, &rr, null(), null()),
            RT_INVALID
        );
        rt.seamlessCubemap = 1;
        assert_eq!(
            b.cudaCreateTextureObject(&mut ro, &rr, &rt, null()),
            RT_UNSUPPORTED
        );
        rt.seamlessCubemap = 0;
        rt.readMode = cudaTextureReadMode(9);
        assert_eq!(
            b.cudaCreateTextureObject(&mut ro, &rr, &rt, null()),
            RT_INVALID
        );
        rt.readMode = cudaTextureReadMode::cudaReadModeElementType;
        rr.flags = 2;
        assert_eq!(
            b.cudaCreateTextureObject(&mut ro, &rr, &rt, null()),
            RT_INVALID
        );
        rr.flags = 0;
        rt_reached_hip(b.cudaCreateTextureObject(&mut ro, &rr, &rt, null()));
        assert_eq!(b.cudaGetTextureObjectResourceDesc(&mut rr, 0), RT_INVALID);
        assert_eq!(b.cudaGetTextureObjectTextureDesc(&mut rt, 0), RT_INVALID);
        let mut rv: cudaResourceViewDesc = core::mem::zeroed();
        assert_eq!(
            b.cudaGetTextureObjectResourceViewDesc(&mut rv, 0),
            RT_INVALID
        );
    }
}

#[test]
fn surface_objects_arrays_only_then_hip_without_device() {
    let Some(b) = hip_without_device() else {
        return;
    };
    let mut s: CUsurfObject = 0;
    let r = array_resource();
    // SAFETY: local out-pointers and descriptors, or NULL; bad input is refused first. The
    // array handle is NULL, which HIP checks before any use.
    unsafe {
        assert_eq!(b.cuSurfObjectCreate(null_mut(), &r), INVALID);
        assert_eq!(b.cuSurfObjectCreate(&mut s, null()), INVALID);
        // Surfaces come from arrays only, as on CUDA.
        let mut lin = r;
        lin.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
        lin.res.linear.format = CUarray_format::CU_AD_FORMAT_FLOAT;
        lin.res.linear.numChannels = 1;
        assert_eq!(b.cuSurfObjectCreate(&mut s, &lin), INVALID);
        let mut mip = r;
        mip.resType = CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        assert_eq!(b.cuSurfObjectCreate(&mut s, &mip), INVALID);
        let mut flagged = r;
        flagged.flags = 1;
        assert_eq!(b.cuSurfObjectCreate(&mut s, &flagged), INVALID);
        reached_hip(b.cuSurfObjectCreate(&mut s, &r));

        let mut rs: cudaSurfaceObject_t = 0;
        let mut rr: cudaResourceDesc = core::mem::zeroed();
        rr.resType = cudaResourceType::cudaResourceTypeArray;
        assert_eq!(b.cudaCreateSurfaceObject(null_mut(), &rr), RT_INVALID);
        assert_eq!(b.cudaCreateSurfaceObject(&mut rs, null()), RT_INVALID);
        rr.resType = cudaResourceType::cudaResourceTypeLinear;
        assert_eq!(b.cudaCreateSurfaceObject(&mut rs, &rr), RT_INVALID);
        rr.resType = cudaResourceType::cudaResourceTypeArray;
        rt_reached_hip(b.cudaCreateSurfaceObject(&mut rs, &rr));
    }
}
