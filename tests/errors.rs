//! Error names and strings on both backends with no GPU, and HIP's real errors arriving in
//! CUDA's vocabulary.

mod common;

use anycuda::driver::CUresult;
use anycuda::hallucinated::{for_unknown, UNKNOWN_BASE};
use anycuda::nvrtc::nvrtcResult;
use anycuda::runtime::cudaError_t;
use anycuda::{Backend, CudaEnum, Driver, Origin, Rtc, Runtime};
use core::ffi::{c_char, CStr};

fn backends() -> Vec<Backend> {
    anycuda::compiled_in()
        .into_iter()
        .map(|k| Backend::load(k).unwrap())
        .collect()
}

fn s(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: every caller passes what an error-name/-string function returned: a static
    // NUL-terminated string from anycuda's tables (non-NULL, asserted above).
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[test]
fn every_driver_code_has_a_name_and_string_on_both_backends() {
    for b in backends() {
        for c in CUresult::CONSTANTS {
            let code = CUresult::from_i64(c.value);
            let mut p: *const c_char = std::ptr::null();
            assert_eq!(
                // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call
                // stores.
                unsafe { b.cuGetErrorName(code, &mut p) },
                CUresult::CUDA_SUCCESS,
                "{}",
                c.name
            );
            // Aliases share a value; the canonical (first) name comes back.
            assert_eq!(s(p), code.name().unwrap(), "{:?}", b.kind());
            assert_eq!(
                // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call
                // stores.
                unsafe { b.cuGetErrorString(code, &mut p) },
                CUresult::CUDA_SUCCESS
            );
            assert!(!s(p).is_empty());
        }
        for c in cudaError_t::CONSTANTS {
            let code = cudaError_t::from_i64(c.value);
            // SAFETY: `cudaGetErrorName` takes a value and returns a static string; no pointers in.
            assert_eq!(s(unsafe { b.cudaGetErrorName(code) }), code.name().unwrap());
            // SAFETY: `cudaGetErrorString` takes a value and returns a static string; no pointers
            // in.
            assert!(!s(unsafe { b.cudaGetErrorString(code) }).is_empty());
        }
        for c in nvrtcResult::CONSTANTS {
            let code = nvrtcResult::from_i64(c.value);
            assert_eq!(
                // SAFETY: `nvrtcGetErrorString` takes a value and returns a static string; no
                // pointers in.
                s(unsafe { b.nvrtcGetErrorString(code) }),
                code.name().unwrap(),
                "{:?}",
                b.kind()
            );
        }
    }
}

#[test]
fn hallucinated_codes_print_through_the_c_api() {
    let hallucinated: Vec<_> = CUresult::CONSTANTS
        .iter()
        .filter(|c| matches!(c.origin, Origin::Hallucinated { .. }))
        .collect();
    assert!(
        !hallucinated.is_empty(),
        "HIP has errors CUDA lacks; the tables must carry them"
    );
    for b in backends() {
        for c in &hallucinated {
            let mut p: *const c_char = std::ptr::null();
            assert_eq!(
                // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call
                // stores.
                unsafe { b.cuGetErrorName(CUresult::from_i64(c.value), &mut p) },
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(s(p), c.name);
            assert!(c.name.starts_with("CUDA_ERROR_HIP_"), "{}", c.name);
        }
        let linking = nvrtcResult::NVRTC_ERROR_HIP_LINKING;
        assert_eq!(
            // SAFETY: `nvrtcGetErrorString` takes a value and returns a static string; no pointers
            // in.
            s(unsafe { b.nvrtcGetErrorString(linking) }),
            "NVRTC_ERROR_HIP_LINKING"
        );
    }
}

#[test]
fn unknown_codes_follow_cuda_and_keep_raw_hip_codes() {
    for b in backends() {
        let mut p: *const c_char = c"sentinel".as_ptr();
        // Not a CUDA code and not an invented one: CUDA's answer (NULL, INVALID_VALUE).
        assert_eq!(
            // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call stores.
            unsafe { b.cuGetErrorName(CUresult(77_777), &mut p) },
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert!(p.is_null());
        assert_eq!(
            // SAFETY: `cudaGetErrorName` takes a value and returns a static string; no pointers in.
            s(unsafe { b.cudaGetErrorName(cudaError_t(77_777)) }),
            "unrecognized error code"
        );
        // A HIP code unknown to the tables: a name that carries the raw code.
        let raw = 4242;
        let code = CUresult::from_i64(for_unknown(raw).unwrap());
        assert_eq!(code.0 as i64, UNKNOWN_BASE + raw);
        assert_eq!(
            // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call stores.
            unsafe { b.cuGetErrorName(code, &mut p) },
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(s(p), "CUDA_ERROR_HIP_UNKNOWN_4242");
        assert_eq!(anycuda::DriverError(code).hip_code(), Some(raw));
        assert!(anycuda::DriverError(code)
            .to_string()
            .contains("HIP code 4242"));
    }
    for b in backends() {
        assert_eq!(
            // SAFETY: a NULL out-pointer is what this checks: CUDA's contract is INVALID_VALUE, and
            // the tables check for NULL before writing.
            unsafe { b.cuGetErrorName(CUresult(1), std::ptr::null_mut()) },
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn free_functions_answer_error_names_even_without_a_backend_choice() {
    let mut p: *const c_char = std::ptr::null();
    assert_eq!(
        // SAFETY: `p` is a local `*const c_char`, writable for the one pointer the call stores.
        unsafe { anycuda::driver::cuGetErrorName(CUresult::CUDA_ERROR_OUT_OF_MEMORY, &mut p) },
        CUresult::CUDA_SUCCESS
    );
    assert_eq!(s(p), "CUDA_ERROR_OUT_OF_MEMORY");
    assert_eq!(
        s(anycuda::runtime::cudaGetErrorName(
            cudaError_t::cudaErrorInvalidValue
        )),
        "cudaErrorInvalidValue"
    );
    assert_eq!(
        s(anycuda::nvrtc::nvrtcGetErrorString(
            nvrtcResult::NVRTC_ERROR_COMPILATION
        )),
        "NVRTC_ERROR_COMPILATION"
    );
}

#[cfg(feature = "backend-hip")]
#[test]
fn hip_errors_arrive_as_cuda_codes() {
    use anycuda::driver::CUdevice_attribute;
    use anycuda::BackendKind;
    let b = Backend::load(BackendKind::Hip).unwrap();
    let hip_loaded = b
        .libraries()
        .iter()
        .any(|l| l.role == anycuda::LibraryRole::Hip && l.status.is_ok());
    if !hip_loaded {
        assert!(!common::on_ci(), "libamdhip64 must load on CI");
        return;
    }
    let mut n = -1;
    // SAFETY: `n` is a local `c_int` the call writes.
    let count = unsafe { b.cuDeviceGetCount(&mut n) };
    if count == CUresult::CUDA_SUCCESS && n > 0 {
        return; // a real AMD GPU: nothing to check about the no-device path
    }
    // ROCm with no GPU: hipInit and hipGetDeviceCount fail with HIP codes that must arrive in
    // CUDA's vocabulary (hipErrorNoDevice 100 / hipErrorInvalidDevice 101 on ROCm 5.2.3).
    assert_eq!(count, CUresult::CUDA_ERROR_NO_DEVICE, "{count}");
    // ROCm says hipErrorInvalidDevice here; CUDA's answer for "no GPU" is NO_DEVICE.
    // SAFETY: `cuInit` takes a flag word, no pointers.
    assert_eq!(unsafe { b.cuInit(0) }, CUresult::CUDA_ERROR_NO_DEVICE);
    // SAFETY: `cuInit` takes a flag word, no pointers; 1 is refused as invalid.
    assert_eq!(unsafe { b.cuInit(1) }, CUresult::CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        // SAFETY: `n` is a local `c_int` the call writes.
        unsafe { b.cudaGetDeviceCount(&mut n) },
        cudaError_t::cudaErrorNoDevice
    );
    // Attributes: HIP's answer for a mapped one, not-supported for a CUDA-only one, invalid
    // for a value that is no CUDA attribute at all.
    let mut v = 0;
    // SAFETY: `v` is a local `c_int` the call writes; device 0 is an ordinal the driver checks.
    let warp = unsafe {
        b.cuDeviceGetAttribute(&mut v, CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0)
    };
    assert!(
        warp.name().is_some() && warp != CUresult::CUDA_SUCCESS,
        "{warp}"
    );
    assert_eq!(
        // SAFETY: `v` is a local `c_int`; the unknown attribute is refused before anything is
        // written.
        unsafe { b.cuDeviceGetAttribute(&mut v, CUdevice_attribute(99_999), 0) },
        CUresult::CUDA_ERROR_INVALID_VALUE
    );
}
