//! Live calls against the installed HIP (CI: Debian's ROCm 5.2.3, no GPU) for answers NVIDIA's
//! Python suites check: error strings, argument checks before HIP is asked, memory-range
//! attributes and cluster occupancy without a device. Every code must be a named CUDA code.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::runtime::cudaError_t;
use anycuda_api::traits::{Driver, Runtime};
use anycuda_api::CudaEnum;
use anycuda_hip::HipBackend;
use core::ffi::{c_char, CStr};
use core::ptr::{null, null_mut};

mod common;
use common::hip;

const OK: CUresult = CUresult::CUDA_SUCCESS;
const INVALID: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;

/// The string `cuGetErrorString` answers for `e` (asserting success and non-NULL).
fn driver_text(b: &HipBackend, e: CUresult) -> String {
    let mut p: *const c_char = null();
    // SAFETY: a local out-pointer.
    assert_eq!(unsafe { b.cuGetErrorString(e, &mut p) }, OK, "{e:?}");
    assert!(!p.is_null());
    // SAFETY: non-NULL strings from cuGetErrorString are static and NUL-terminated.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
}

/// The short strings: never the headers' long doc comments, never a HIP name, never NULL.
#[test]
fn error_strings_are_short() {
    let Some(b) = hip() else { return };
    for e in [
        CUresult::CUDA_SUCCESS,
        CUresult::CUDA_ERROR_INVALID_VALUE,
        CUresult::CUDA_ERROR_INVALID_DEVICE,
        CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE,
        CUresult::CUDA_ERROR_UNKNOWN,
    ] {
        let s = driver_text(&b, e);
        let long = e.info().unwrap().description;
        assert_ne!(s, long, "{e:?}: the doc comment");
        assert!(!s.is_empty() && s.len() < 64, "{e:?}: {s:?}");
        assert!(!s.starts_with("hip"), "{e:?}: HIP's name {s:?}");
        assert!(!s.contains("CUDA_"), "{e:?}: {s:?}");
    }
    // A code HIP has no value for: its name in words.
    assert_eq!(
        driver_text(&b, CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE),
        "invalid cluster size"
    );
    // HIP's own unknown error keeps HIP's (or CUDA's) text; others never borrow it.
    assert_ne!(
        driver_text(&b, CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE),
        driver_text(&b, CUresult::CUDA_ERROR_UNKNOWN)
    );
    // NULL out-pointer and a value that is no code: invalid value, NULL written for the latter.
    // SAFETY: NULL is refused before any write.
    assert_eq!(unsafe { b.cuGetErrorString(OK, null_mut()) }, INVALID);
    let mut p: *const c_char = c"stale".as_ptr();
    assert_eq!(
        // SAFETY: a local out-pointer.
        unsafe { b.cuGetErrorString(CUresult(123_456), &mut p) },
        INVALID
    );
    assert!(p.is_null());
    // The runtime: never NULL; the same rule.
    let rt = |e| {
        // SAFETY: cudaGetErrorString returns a static NUL-terminated string, never NULL.
        unsafe { CStr::from_ptr(b.cudaGetErrorString(e)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(rt(cudaError_t(123_456)), "unrecognized error code");
    assert_eq!(
        rt(cudaError_t::cudaErrorInvalidClusterSize),
        "invalid cluster size"
    );
    let s = rt(cudaError_t::cudaSuccess);
    assert!(
        !s.is_empty() && !s.starts_with("hip") && s.len() < 64,
        "{s:?}"
    );
}

/// A named CUDA code (a real constant, not an invented HIP-only value).
fn named(r: CUresult) {
    assert!(r.name().is_some(), "unnamed code {r:?}");
    assert!(
        anycuda_api::hallucinated::classify(r.to_i64()).is_none(),
        "HIP-only code {r:?}"
    );
}

/// CUDA 13's split location attributes: CUDA's size and pointer checks first, then HIP's
/// answer for the range as a named CUDA code; the plural call the same, per attribute.
#[test]
fn split_range_attributes_are_checked_then_asked() {
    use CUmem_range_attribute as A;
    let Some(b) = hip() else { return };
    let mut v: i32 = 0x5a5a;
    let p = (&raw mut v).cast::<core::ffi::c_void>();
    for a in [
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
        A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
        A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
    ] {
        // SAFETY: `p` is a local of 4 bytes; NULL and wrong sizes are refused before HIP.
        unsafe {
            assert_eq!(b.cuMemRangeGetAttribute(null_mut(), 4, a, 0, 4096), INVALID);
            assert_eq!(b.cuMemRangeGetAttribute(p, 8, a, 0, 4096), INVALID);
            assert_eq!(b.cuMemRangeGetAttribute(p, 2, a, 0, 4096), INVALID);
            // No managed range here: HIP's refusal, never NOT_SUPPORTED (the attribute is known).
            let r = b.cuMemRangeGetAttribute(p, 4, a, 0, 4096);
            named(r);
            assert_ne!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED, "{a:?}");
            let rt = b.cudaMemRangeGetAttribute(
                p,
                8,
                anycuda_api::runtime::cudaMemRangeAttribute(a.0),
                null(),
                4096,
            );
            assert_eq!(rt, cudaError_t::cudaErrorInvalidValue);
        }
    }
    assert_eq!(v, 0x5a5a, "nothing written on failure");
    let mut attrs = [
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
    ];
    let mut sizes = [4usize, 4];
    let mut w: i32 = 0;
    let mut data = [p, (&raw mut w).cast()];
    // SAFETY: arrays of two; NULL arrays and a zero count are refused before HIP.
    unsafe {
        let (d, s, a) = (data.as_mut_ptr(), sizes.as_mut_ptr(), attrs.as_mut_ptr());
        assert_eq!(
            b.cuMemRangeGetAttributes(null_mut(), s, a, 2, 0, 4096),
            INVALID
        );
        assert_eq!(
            b.cuMemRangeGetAttributes(d, null_mut(), a, 2, 0, 4096),
            INVALID
        );
        assert_eq!(
            b.cuMemRangeGetAttributes(d, s, null_mut(), 2, 0, 4096),
            INVALID
        );
        assert_eq!(b.cuMemRangeGetAttributes(d, s, a, 0, 0, 4096), INVALID);
        sizes[1] = 8;
        let s = sizes.as_mut_ptr();
        let r = b.cuMemRangeGetAttributes(d, s, a, 2, 0, 4096);
        named(r);
        assert_ne!(r, OK);
        // A value that is no attribute: invalid value, as on CUDA.
        attrs[0] = A(77);
        sizes[1] = 4;
        let (s, a) = (sizes.as_mut_ptr(), attrs.as_mut_ptr());
        assert_eq!(b.cuMemRangeGetAttributes(d, s, a, 2, 0, 4096), INVALID);
    }
}

/// The cluster queries: CUDA's NULL checks and a malformed cluster are answered before HIP is
/// given the function (the answers for a real one need a device: the GPU run).
#[test]
fn cluster_occupancy_checks_first() {
    let Some(b) = hip() else { return };
    // SAFETY: plain C structs, for which all-zero bytes are valid values.
    let mut cfg: CUlaunchConfig = unsafe { core::mem::zeroed() };
    cfg.gridDimX = 128;
    cfg.blockDimX = 64;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    let bogus = 0x7777_0000_4000usize as CUfunction;
    let mut n = -7;
    // SAFETY: local out-pointers and configuration; every call below is refused before the
    // bogus function reaches HIP.
    unsafe {
        assert_eq!(
            b.cuOccupancyMaxActiveClusters(null_mut(), bogus, &cfg),
            INVALID
        );
        assert_eq!(
            b.cuOccupancyMaxActiveClusters(&mut n, bogus, null()),
            INVALID
        );
        assert_eq!(
            b.cuOccupancyMaxPotentialClusterSize(null_mut(), bogus, &cfg),
            INVALID
        );
        assert_eq!(
            b.cuOccupancyMaxPotentialClusterSize(&mut n, bogus, null()),
            INVALID
        );
        assert_eq!(
            b.cuOccupancyMaxActiveClusters(&mut n, null_mut(), &cfg),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            b.cuOccupancyMaxPotentialClusterSize(&mut n, null_mut(), &cfg),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        // An attribute list announced but NULL; a zero cluster dimension.
        cfg.numAttrs = 1;
        assert_eq!(b.cuOccupancyMaxActiveClusters(&mut n, bogus, &cfg), INVALID);
        // SAFETY: as above.
        let mut a: CUlaunchAttribute = core::mem::zeroed();
        a.id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        cfg.attrs = &mut a;
        assert_eq!(b.cuOccupancyMaxActiveClusters(&mut n, bogus, &cfg), INVALID);
        assert_eq!(n, -7, "nothing written on failure");
    }
}
