//! Every status the C ABI returns is a member of its API's C enum, "no library" included: with
//! no CUDA library at all (the files named do not exist), anycuda's Rust API answers NVRTC calls
//! with its own `NVRTC_ERROR_NOT_SUPPORTED` (805306368), which no C or Python caller knows
//! (cuda.bindings raised `ValueError: 805306368 is not a valid nvrtcResult`); through the C ABI
//! that is `NVRTC_ERROR_INTERNAL_ERROR`. One test per file: the backend is chosen once per process.

mod common;
use common::*;
use core::ffi::{c_char, c_int, CStr};

type NvrtcVersion = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
type NvrtcErrorString = unsafe extern "C" fn(c_int) -> *const c_char;
type CuInit = unsafe extern "C" fn(u32) -> c_int;
type CudaGetDeviceCount = unsafe extern "C" fn(*mut c_int) -> c_int;

/// anycuda's reserved ranges start here (`anycuda_api::hallucinated::ANYCUDA_BASE`).
const RESERVED: c_int = 0x3000_0000;

#[test]
fn no_library_statuses_are_enum_members() {
    // SAFETY: set before anything in this process reads the environment (one test per file).
    unsafe {
        std::env::set_var("ANYCUDA_BACKEND", "cuda");
        std::env::set_var(
            "ANYCUDA_CUDA_LIBRARY",
            "/nonexistent/anycuda-test/libcuda.so.1",
        );
        std::env::set_var(
            "ANYCUDA_CUDART_LIBRARY",
            "/nonexistent/anycuda-test/libcudart.so.13",
        );
        std::env::set_var(
            "ANYCUDA_NVRTC_LIBRARY",
            "/nonexistent/anycuda-test/libnvrtc.so.13",
        );
    }
    let path = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let lib = unsafe { libloading::Library::new(&path) }.expect("loading the C-ABI library");
    // SAFETY: the exports have these signatures.
    let (version, text, init, count) = unsafe {
        (
            *lib.get::<NvrtcVersion>(b"nvrtcVersion\0").unwrap(),
            *lib.get::<NvrtcErrorString>(b"nvrtcGetErrorString\0")
                .unwrap(),
            *lib.get::<CuInit>(b"cuInit\0").unwrap(),
            *lib.get::<CudaGetDeviceCount>(b"cudaGetDeviceCount\0")
                .unwrap(),
        )
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let r = unsafe { version(&mut major, &mut minor) };
    assert_eq!(
        r, 11,
        "nvrtcVersion with no NVRTC: NVRTC_ERROR_INTERNAL_ERROR, got {r}"
    );
    // SAFETY: any status is accepted; the answer is a static C string.
    let s = unsafe { CStr::from_ptr(text(r)) }.to_string_lossy();
    assert_eq!(s, "NVRTC_ERROR_INTERNAL_ERROR");
    // SAFETY: a plain call.
    let ri = unsafe { init(0) };
    let mut n = 0;
    // SAFETY: a valid out-pointer.
    let rc = unsafe { count(&mut n) };
    for (what, code) in [("cuInit", ri), ("cudaGetDeviceCount", rc)] {
        assert!(
            (0..RESERVED).contains(&code),
            "{what} answered {code}, which is not a member of its enum"
        );
        assert_ne!(code, 0, "{what} cannot succeed with no CUDA library");
    }
}
