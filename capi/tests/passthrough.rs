//! The pass-through exports (capi/src/passthrough.rs) on the CUDA backend, against a stand-in
//! `libcuda` built here: an export NVIDIA's library defines reaches NVIDIA's definition with
//! every argument as the caller passed it (eight of them, two on the stack) and its result
//! back; one NVIDIA's library lacks answers `CUDA_ERROR_NOT_SUPPORTED`; `cuGetProcAddress`
//! answers an older ABI with the same export, and refuses what NVIDIA's driver refuses. One test
//! per file: the backend is chosen once.

mod common;
use common::*;
use core::ffi::{c_char, c_int, c_uint, c_void};
use std::process::Command;

const STAND_IN: &str = r#"
#include <string.h>
typedef int CUresult;
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuInit(unsigned f) { (void)f; return 0; }
CUresult cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st);
CUresult cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st) {
    /* NVIDIA's driver refuses a cudaVersion past any it knows (INT_MAX, the C ABI's fuzzer). */
    if (v > 1000000) return 1;
    (void)f;
    /* Itself, so the backend's table has it; nothing else. */
    if (strcmp(s, "cuGetProcAddress") == 0) { *p = (void *)cuGetProcAddress_v2; if (st) *st = 0; return 0; }
    *p = 0; if (st) *st = 1; return 0;
}
unsigned long long seen[8];
/* The CUDA 5.5 ABI of cuLinkAddData: eight arguments, the last two on the stack. */
CUresult cuLinkAddData(void *state, int type, void *data, size_t size, const char *name,
                       unsigned n, void *opts, void **vals) {
    seen[0] = (unsigned long long)state; seen[1] = (unsigned)type; seen[2] = (unsigned long long)data;
    seen[3] = size; seen[4] = (unsigned long long)name; seen[5] = n; seen[6] = (unsigned long long)opts;
    seen[7] = (unsigned long long)vals;
    return 4242;
}
"#;

type LinkAddData = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    *mut c_void,
    usize,
    *const c_char,
    c_uint,
    *mut c_void,
    *mut *mut c_void,
) -> c_int;
type NoArgs = unsafe extern "C" fn() -> c_int;
type AsVendor =
    unsafe extern "C" fn(Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void) -> c_int;

/// Calls the `NoArgs` export behind `arg` and stores its result in place of the pointer.
unsafe extern "C" fn call_no_args(arg: *mut c_void) {
    // SAFETY: the test passes a `(NoArgs, c_int)` pair.
    let pair = unsafe { &mut *arg.cast::<(NoArgs, c_int)>() };
    // SAFETY: an export with no arguments.
    pair.1 = unsafe { (pair.0)() };
}
type DeviceGetName = unsafe extern "C" fn(*mut c_char, c_int, c_int) -> c_int;
type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;

#[test]
fn passthrough_exports_reach_nvidias_definition_with_every_argument() {
    let dir = std::env::temp_dir().join(format!("anycuda-passthrough-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, lib) = (dir.join("fake.c"), dir.join("libcuda.so.1"));
    std::fs::write(&src, STAND_IN).unwrap();
    let ok = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("cc (the tests build C)");
    assert!(ok.success(), "building the stand-in libcuda");
    // SAFETY: set before anything in this process reads the environment (one test per file).
    unsafe {
        std::env::set_var("ANYCUDA_BACKEND", "cuda");
        std::env::set_var("ANYCUDA_CUDA_LIBRARY", &lib);
        std::env::set_var("ANYCUDA_CUDART_LIBRARY", dir.join("absent-libcudart.so.13"));
        std::env::set_var("ANYCUDA_NVRTC_LIBRARY", dir.join("absent-libnvrtc.so.13"));
    }
    let capi = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let c = unsafe { libloading::Library::new(&capi) }.expect("loading the C-ABI library");
    // SAFETY: the exports have these signatures (NVIDIA's ABIs of those names).
    let (add, gl_init, profiler_start, gpa) = unsafe {
        (
            *c.get::<LinkAddData>(b"cuLinkAddData\0").unwrap(),
            *c.get::<NoArgs>(b"cuGLInit\0").unwrap(),
            *c.get::<NoArgs>(b"cuProfilerStart\0").unwrap(),
            *c.get::<GetProcAddress>(b"cuGetProcAddress_v2\0").unwrap(),
        )
    };
    let args: [usize; 8] = [0x1110, 7, 0x3330, 0x4444_5555, 0x6660, 9, 0x8880, 0x9990];
    for round in 0..2 {
        // SAFETY: the stand-in only records the values; nothing is dereferenced.
        let r = unsafe {
            add(
                args[0] as *mut c_void,
                args[1] as c_int,
                args[2] as *mut c_void,
                args[3],
                args[4] as *const c_char,
                args[5] as c_uint,
                args[6] as *mut c_void,
                args[7] as *mut *mut c_void,
            )
        };
        assert_eq!(r, 4242, "round {round}: NVIDIA's result comes back");
        // SAFETY: the stand-in library, loaded by the backend, stays mapped; reopening it by
        // path returns the same handle.
        let fake = unsafe { libloading::Library::new(&lib) }.unwrap();
        // SAFETY: `seen` is an array of eight 64-bit integers in the stand-in.
        let seen = unsafe { *fake.get::<*const [u64; 8]>(b"seen\0").unwrap() };
        // SAFETY: as above; read after the call returned.
        let seen = unsafe { *seen };
        for (i, (&s, &a)) in seen.iter().zip(&args).enumerate() {
            assert_eq!(s, a as u64, "round {round}: argument {i} arrives unchanged");
        }
    }
    // A vendor library's call by name from inside an anycuda call (the re-entry guard) gets
    // NVIDIA's definition, here none: not initialised, and nothing is kept for the program's
    // own calls, which follow.
    // SAFETY: the export has this signature.
    let as_vendor = unsafe { *c.get::<AsVendor>(b"anycuda_capi_call_as_vendor\0").unwrap() };
    let mut pair: (NoArgs, c_int) = (gl_init, -1);
    // SAFETY: `call_no_args` reads `pair` only during the call.
    let rc = unsafe { as_vendor(Some(call_no_args), (&raw mut pair).cast()) };
    assert_eq!(rc, 0);
    assert_eq!(
        pair.1, 3,
        "a vendor's first call of a pass-through name: not initialised"
    );
    assert_eq!(
        // SAFETY: no arguments.
        unsafe { gl_init() },
        801,
        "a name NVIDIA's library lacks: not supported"
    );
    assert_eq!(
        // SAFETY: no arguments.
        unsafe { profiler_start() },
        0,
        "the profiler's start is served everywhere"
    );
    let mut f: *mut c_void = std::ptr::null_mut();
    let mut st = -1;
    // SAFETY: valid C string and out-pointers.
    let r = unsafe { gpa(c"cuLinkAddData".as_ptr(), &mut f, 5050, 0, &mut st) };
    assert_eq!((r, st), (0, 0));
    assert_eq!(
        f, add as *mut c_void,
        "cuGetProcAddress answers the CUDA 5.5 ABI with the export"
    );
    // Arguments NVIDIA's driver refuses are refused though anycuda has the export.
    // SAFETY: valid C string and out-pointers.
    let r = unsafe { gpa(c"cuLinkAddData".as_ptr(), &mut f, c_int::MAX, 0, &mut st) };
    assert_eq!(
        r, 1,
        "a version NVIDIA's driver refuses: CUDA_ERROR_INVALID_VALUE"
    );
    // Argument classes NVIDIA's driver crashes on are refused before it is called
    // (anycuda_api::arg_checks); valid ones reach it (the stand-in resolves no table entry, so
    // the CUDA backend answers that the driver lacks the function).
    // SAFETY: the export has this signature.
    let name = unsafe { *c.get::<DeviceGetName>(b"cuDeviceGetName\0").unwrap() };
    let mut buf = [0 as c_char; 16];
    // SAFETY: a writable buffer of 16 bytes, or NULL.
    unsafe {
        assert_eq!(
            name(buf.as_mut_ptr(), 0, 0),
            1,
            "length 0: CUDA_ERROR_INVALID_VALUE"
        );
        assert_eq!(
            name(std::ptr::null_mut(), 16, 0),
            1,
            "NULL buffer: CUDA_ERROR_INVALID_VALUE"
        );
        assert_eq!(
            name(buf.as_mut_ptr(), 16, 0),
            801,
            "valid: passed on to the driver"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
