//! `cuGetExportTable` on the HIP backend (CI: Debian's ROCm 5.2.3, no GPU), called through the C
//! ABI as NVIDIA's statically linked runtime calls it: the tables it needs are served with the
//! layouts NVIDIA's driver has, their entries answer as NVIDIA's do where no device is needed
//! (context-local storage with explicit contexts, the tools buffers, the context check, the
//! integrity check's fixed answers and its dependence on the calling thread), and every other
//! UUID is refused with `CUDA_ERROR_NOT_SUPPORTED`. One test per file: the backend is chosen
//! once per process.

mod common;
use common::*;
use core::ffi::{c_int, c_uint, c_void};

type GetExportTable = unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> c_int;
type ClsPut = unsafe extern "C" fn(
    *mut c_void,
    *mut c_void,
    *mut c_void,
    Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void)>,
) -> c_int;
type ClsDelete = unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int;
type ClsGet = unsafe extern "C" fn(*mut *mut c_void, *mut c_void, *mut c_void) -> c_int;
type Buffer = unsafe extern "C" fn(*mut *mut c_void, *mut usize);
type IsWrapper = unsafe extern "C" fn(*mut c_void, *mut u32, *mut *mut c_void) -> c_int;
type Integrity = unsafe extern "C" fn(c_uint, u64, *mut u8) -> c_int;
type Refused = unsafe extern "C" fn() -> c_int;

fn uuid(hex: &str) -> [u8; 16] {
    let mut u = [0u8; 16];
    for (i, b) in u.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    u
}

const SUCCESS: c_int = 0;
const INVALID_VALUE: c_int = 1;
const INVALID_CONTEXT: c_int = 201;
const INVALID_HANDLE: c_int = 400;
const NOT_SUPPORTED: c_int = 801;

#[test]
fn the_static_runtimes_tables_are_served_on_hip() {
    // SAFETY: set before anything in this process reads the environment (one test per file).
    unsafe { std::env::set_var("ANYCUDA_BACKEND", "hip") };
    let path = library();
    // SAFETY: loading anycuda's C ABI runs only its `.init_array` entry (a flag, logging).
    let c = unsafe { libloading::Library::new(&path) }.expect("loading the C-ABI library");
    // SAFETY: NVIDIA's ABI of cuGetExportTable.
    let get: GetExportTable = unsafe { *c.get::<GetExportTable>(b"cuGetExportTable\0").unwrap() };
    let table = |hex: &str| -> (c_int, *const *const c_void) {
        let mut t: *const c_void = std::ptr::null();
        // SAFETY: valid out-pointer and UUID.
        let r = unsafe { get(&mut t, &uuid(hex)) };
        (r, t.cast())
    };
    // SAFETY: reads slot `i` of a table the backend handed out (its size checked by the caller).
    let slot = |t: *const *const c_void, i: usize| unsafe { *t.add(i) };

    // Bad arguments and tables anycuda does not serve.
    let known = uuid("6bd5fb6c5bf4e74a8987d93912fd9df9");
    // SAFETY: NULL arguments are what is tested.
    let r = unsafe { get(std::ptr::null_mut(), &known) };
    assert_eq!(r, INVALID_VALUE);
    let mut t: *const c_void = std::ptr::null();
    // SAFETY: as above.
    assert_eq!(unsafe { get(&mut t, std::ptr::null()) }, INVALID_VALUE);
    for refused in [
        "f8cff95121468b4eb9e2fb469e7c0dd9", // CUDA 13's optional first request
        "0ca50b8c1004929a89a7d0df10e77286", // context creation bypass
        "00112233445566778899aabbccddeeff", // no table at all
    ] {
        let (r, t) = table(refused);
        assert_eq!(r, NOT_SUPPORTED, "{refused}");
        assert!(t.is_null(), "{refused}: nothing written");
    }

    // Sized tables: slot 0 is the size in bytes, NVIDIA's driver 580's sizes.
    for (hex, slots) in [
        ("6bd5fb6c5bf4e74a8987d93912fd9df9", 13),
        ("a094798c2e742e7493f20800200c0a66", 7),
        ("42d85a8123f6cb478298f6e78a3aecdc", 3),
        ("263e88607cd2614392f6bbd5006dfa7e", 15),
        ("d4082055bde6704b8d34ba123c66e1f2", 3),
    ] {
        let (r, t) = table(hex);
        assert_eq!(r, SUCCESS, "{hex}");
        assert_eq!(slot(t, 0) as usize, slots * 8, "{hex}: size slot");
        assert_eq!(table(hex).1, t, "{hex}: one address for the process");
    }

    // Tools thread-local storage: entries nobody is known to call refuse, by code.
    let (_, tls) = table("42d85a8123f6cb478298f6e78a3aecdc");
    // SAFETY: slot 1 of the table; a refusing entry takes no arguments.
    let refused: Refused = unsafe { std::mem::transmute::<*const c_void, Refused>(slot(tls, 1)) };
    // SAFETY: as above.
    assert_eq!(unsafe { refused() }, NOT_SUPPORTED);

    // Tools hooks: two zeroed buffers with NVIDIA's counts.
    let (_, hooks) = table("a094798c2e742e7493f20800200c0a66");
    for (i, count) in [(2, 1024), (6, 14)] {
        // SAFETY: slot i is a buffer entry (the layout above).
        let f: Buffer = unsafe { std::mem::transmute::<*const c_void, Buffer>(slot(hooks, i)) };
        let (mut p, mut n): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: valid out-pointers.
        unsafe { f(&mut p, &mut n) };
        assert!(!p.is_null(), "hooks {i}");
        assert_eq!(n, count, "hooks {i}");
        // SAFETY: the buffer holds at least `count` words.
        let words = unsafe { std::slice::from_raw_parts(p.cast::<u64>(), count) };
        assert!(words.iter().all(|&w| w == 0));
    }

    // Context checks: a plain context, never a wrapper.
    let (_, checks) = table("263e88607cd2614392f6bbd5006dfa7e");
    // SAFETY: slot 2 is the wrapper check.
    let is_wrapper: IsWrapper =
        unsafe { std::mem::transmute::<*const c_void, IsWrapper>(slot(checks, 2)) };
    let mut w = 7u32;
    // SAFETY: valid out-pointers.
    let r = unsafe { is_wrapper(std::ptr::null_mut(), &mut w, std::ptr::null_mut()) };
    assert_eq!(r, SUCCESS);
    assert_eq!(w, 0);

    // Context-local storage: no size slot, NULL after three entries.
    let (r, cls) = table("c693336e1121df11a8c368f355d89593");
    assert_eq!(r, SUCCESS);
    assert!((0..3).all(|i| !slot(cls, i).is_null()));
    assert!(slot(cls, 3).is_null());
    // SAFETY: the layout above.
    let (put, delete, get_value) = unsafe {
        (
            std::mem::transmute::<*const c_void, ClsPut>(slot(cls, 0)),
            std::mem::transmute::<*const c_void, ClsDelete>(slot(cls, 1)),
            std::mem::transmute::<*const c_void, ClsGet>(slot(cls, 2)),
        )
    };
    let (ctx, key, other) = (
        0x1000 as *mut c_void,
        0x20 as *mut c_void,
        0x30 as *mut c_void,
    );
    let mut v: *mut c_void = std::ptr::null_mut();
    // No current context on this thread: NVIDIA's answer.
    // SAFETY: valid out-pointer; plain values.
    let r = unsafe { get_value(&mut v, std::ptr::null_mut(), key) };
    assert_eq!(r, INVALID_CONTEXT);
    // SAFETY: as above.
    unsafe {
        assert_eq!(put(ctx, key, 0xabc as *mut c_void, None), SUCCESS);
        assert_eq!(get_value(&mut v, ctx, key), SUCCESS);
        assert_eq!(v as usize, 0xabc);
        assert_eq!(get_value(&mut v, ctx, other), INVALID_HANDLE);
        assert_eq!(get_value(std::ptr::null_mut(), ctx, key), INVALID_VALUE);
        assert_eq!(put(ctx, key, 0xdef as *mut c_void, None), SUCCESS); // replaces
        assert_eq!(get_value(&mut v, ctx, key), SUCCESS);
        assert_eq!(v as usize, 0xdef);
        assert_eq!(delete(ctx, key), SUCCESS);
        assert_eq!(delete(ctx, key), INVALID_HANDLE);
        assert_eq!(get_value(&mut v, ctx, key), INVALID_HANDLE);
    }

    // The integrity check: fixed answers for versions ending in 0 and 1; otherwise a keyed hash
    // that depends on the calling thread (the runtime hashes pthread_self too).
    let (_, integrity) = table("d4082055bde6704b8d34ba123c66e1f2");
    // SAFETY: slot 1 is the integrity function.
    let check: Integrity =
        unsafe { std::mem::transmute::<*const c_void, Integrity>(slot(integrity, 1)) };
    let run = |version: c_uint| {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes.
        let r = unsafe { check(version, 1_764_400_000, out.as_mut_ptr()) };
        assert_eq!(r, SUCCESS);
        out
    };
    assert_eq!(
        run(13000),
        [
            0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33, 0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83,
            0xd3, 0x8e
        ]
    );
    assert_eq!(run(13001)[7], 0x18);
    let here = run(13002);
    assert_eq!(run(13002), here, "same thread, same second: same hash");
    assert_ne!(here, run(13000));
    let there = std::thread::spawn(move || {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes.
        let r = unsafe { check(13002, 1_764_400_000, out.as_mut_ptr()) };
        assert_eq!(r, SUCCESS);
        out
    })
    .join()
    .unwrap();
    assert_ne!(here, there, "another thread hashes another pthread_self");
    // SAFETY: NULL output is what is tested.
    let r = unsafe { check(13002, 0, std::ptr::null_mut()) };
    assert_eq!(r, INVALID_VALUE);
}
