//! The re-entry guard, through the built library: a call made from inside an anycuda C-ABI
//! call (what a vendor library's call back into `libcuda`/`libcudart` by name is) goes to
//! NVIDIA's library, never to the active backend. With the HIP backend active and no NVIDIA
//! driver (CI), the direct call is HIP's answer (success) and the re-entrant one NVIDIA's
//! absent driver's (`CUDA_ERROR_NOT_INITIALIZED`): removing the guard makes this fail.
//! One test per file: the backend is chosen once per process.

mod common;
use common::*;
use core::ffi::{c_int, c_void};

type DriverGetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
type AsVendor =
    unsafe extern "C" fn(Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void) -> c_int;

struct Call {
    f: DriverGetVersion,
    result: c_int,
    version: c_int,
}

unsafe extern "C" fn inner(arg: *mut c_void) {
    // SAFETY: `arg` is the `Call` the test passes.
    let c = unsafe { &mut *arg.cast::<Call>() };
    // SAFETY: valid out-pointer.
    c.result = unsafe { (c.f)(&mut c.version) };
}

#[test]
fn a_reentrant_call_never_reaches_the_active_backend() {
    // SAFETY: set before anything in this process reads the environment (one test per file).
    unsafe { std::env::set_var("ANYCUDA_BACKEND", "hip") };
    let path = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let lib = unsafe { libloading::Library::new(&path) }.expect("loading the C-ABI library");
    // SAFETY: the exports have these signatures.
    let (f, as_vendor) = unsafe {
        (
            *lib.get::<DriverGetVersion>(b"cuDriverGetVersion\0")
                .unwrap(),
            *lib.get::<AsVendor>(b"anycuda_capi_call_as_vendor\0")
                .unwrap(),
        )
    };
    let mut direct = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { f(&mut direct) };
    assert_eq!(
        r, 0,
        "the HIP backend answers cuDriverGetVersion (is ROCm's libamdhip64 installed?)"
    );
    assert!(direct > 0);
    let mut call = Call {
        f,
        result: -1,
        version: 0,
    };
    // SAFETY: `inner` reads `call` only during the call.
    let rc = unsafe { as_vendor(Some(inner), (&raw mut call).cast()) };
    assert_eq!(rc, 0);
    assert_eq!(
        call.result, 3,
        "re-entrant cuDriverGetVersion must go to NVIDIA's driver (absent: CUDA_ERROR_NOT_INITIALIZED), got {} (version {})",
        call.result, call.version
    );
    // After the re-entrant call the thread is outside again: the direct call is HIP's again.
    let mut again = 0;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { f(&mut again) }, 0);
    assert_eq!(again, direct);
    // A NULL callback is refused, not called.
    // SAFETY: NULL is documented as refused.
    assert_eq!(unsafe { as_vendor(None, core::ptr::null_mut()) }, -1);
}
