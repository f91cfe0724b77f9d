//! The pass-through exports on the HIP backend (CI: Debian's ROCm 5.2.3, no GPU): the older
//! ABIs anycuda serves answer exactly as their successors do for the same arguments (so a
//! program built with CUDA 12's headers, which calls `cuCtxCreate_v2`, gets what CUDA 13's
//! `cuCtxCreate_v4` answers, not "not supported"); the profiler's start and stop succeed; the
//! 32-bit ABIs and interop answer `CUDA_ERROR_NOT_SUPPORTED`. One test per file: the backend is
//! chosen once per process.

mod common;
use common::*;
use core::ffi::{c_int, c_uint, c_void};

type CtxCreateV2 = unsafe extern "C" fn(*mut *mut c_void, c_uint, c_int) -> c_int;
type CtxCreateV3 =
    unsafe extern "C" fn(*mut *mut c_void, *mut c_void, c_int, c_uint, c_int) -> c_int;
type CtxCreateV4 = unsafe extern "C" fn(*mut *mut c_void, *mut c_void, c_uint, c_int) -> c_int;
type OneHandle = unsafe extern "C" fn(*mut c_void) -> c_int;
type Elapsed = unsafe extern "C" fn(*mut f32, *mut c_void, *mut c_void) -> c_int;
type BeginCaptureV2 = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;
type NoArgs = unsafe extern "C" fn() -> c_int;
type MemAllocV1 = unsafe extern "C" fn(*mut u32, c_uint) -> c_int;

#[test]
fn older_abis_answer_as_their_successors_on_hip() {
    // SAFETY: set before anything in this process reads the environment (one test per file).
    unsafe { std::env::set_var("ANYCUDA_BACKEND", "hip") };
    let path = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let c = unsafe { libloading::Library::new(&path) }.expect("loading the C-ABI library");
    /// The export `name` as `T`, NVIDIA's ABI of that name.
    fn sym<T: Copy>(c: &libloading::Library, name: &str) -> T {
        // SAFETY: every caller names the type of that export's ABI.
        unsafe { *c.get::<T>(format!("{name}\0").as_bytes()).unwrap() }
    }
    let (create_v2, create_v3, create_v4, create_v1): (
        CtxCreateV2,
        CtxCreateV3,
        CtxCreateV4,
        CtxCreateV2,
    ) = (
        sym(&c, "cuCtxCreate_v2"),
        sym(&c, "cuCtxCreate_v3"),
        sym(&c, "cuCtxCreate_v4"),
        sym(&c, "cuCtxCreate"),
    );
    let (elapsed_v1, elapsed_v2): (Elapsed, Elapsed) = (
        sym(&c, "cuEventElapsedTime"),
        sym(&c, "cuEventElapsedTime_v2"),
    );
    let (capture_v1, capture_v2): (OneHandle, BeginCaptureV2) = (
        sym(&c, "cuStreamBeginCapture"),
        sym(&c, "cuStreamBeginCapture_v2"),
    );
    let (profiler_start, gl_init): (NoArgs, NoArgs) =
        (sym(&c, "cuProfilerStart"), sym(&c, "cuGLInit"));
    let mem_alloc_v1: MemAllocV1 = sym(&c, "cuMemAlloc");
    let mut ctx: *mut c_void = std::ptr::null_mut();
    // An ordinal no machine has: both ABIs give the HIP backend's answer for it.
    let dev = 4096;
    // SAFETY: valid out-pointers; NULL parameters.
    let (v2, v3, v4) = unsafe {
        (
            create_v2(&mut ctx, 0, dev),
            create_v3(&mut ctx, std::ptr::null_mut(), 0, 0, dev),
            create_v4(&mut ctx, std::ptr::null_mut(), 0, dev),
        )
    };
    assert_ne!(v4, 801, "cuCtxCreate_v4 is served on HIP");
    assert_eq!((v2, v3), (v4, v4), "cuCtxCreate_v2/_v3 answer as _v4");
    // SAFETY: the plain cuCtxCreate is CUDA 2.0's ABI, the same parameters as _v2.
    assert_eq!(unsafe { create_v1(&mut ctx, 0, dev) }, v4);
    for (old, new) in [
        ("cuCtxDestroy", "cuCtxDestroy_v2"),
        ("cuEventDestroy", "cuEventDestroy_v2"),
        ("cuStreamDestroy", "cuStreamDestroy_v2"),
    ] {
        let (o, n): (OneHandle, OneHandle) = (sym(&c, old), sym(&c, new));
        // SAFETY: these take one handle; a made-up one is refused by anycuda's HIP backend.
        let (o, n) = unsafe { (o(0x10 as *mut c_void), n(0x10 as *mut c_void)) };
        assert_eq!(o, n, "{old} answers as {new}");
        assert_ne!(o, 801, "{old} is served on HIP");
    }
    let mut ms = 0f32;
    // SAFETY: a valid out-pointer and NULL events.
    let (e1, e2) = unsafe {
        (
            elapsed_v1(&mut ms, std::ptr::null_mut(), std::ptr::null_mut()),
            elapsed_v2(&mut ms, std::ptr::null_mut(), std::ptr::null_mut()),
        )
    };
    assert_eq!(e1, e2);
    // SAFETY: CUDA 10.0's cuStreamBeginCapture takes the stream alone; _v2 adds the mode
    // (CU_STREAM_CAPTURE_MODE_GLOBAL is 0).
    let (b1, b2) = unsafe {
        (
            capture_v1(0x10 as *mut c_void),
            capture_v2(0x10 as *mut c_void, 0),
        )
    };
    assert_eq!(b1, b2);
    // SAFETY: no arguments.
    assert_eq!(unsafe { profiler_start() }, 0);
    // SAFETY: no arguments.
    assert_eq!(unsafe { gl_init() }, 801, "no OpenGL interop on HIP");
    let mut p32 = 0u32;
    // SAFETY: the 32-bit ABI's out-pointer.
    let r = unsafe { mem_alloc_v1(&mut p32, 16) };
    assert_eq!(r, 801, "32-bit ABIs are not served");
}
