//! Regression tests for what a bad-input probe broke (issue 11), on both compilers. Before the
//! fixes, several of these aborted the whole test binary (NVRTC throwing out of a C API, or
//! overflowing a thread's stack).

mod common;

use anycuda::nvrtc::{nvrtcProgram, nvrtcResult as R};
use anycuda::{Backend, BackendKind, Rtc};
use common::compiler;
use core::ffi::c_char;
use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

const KERNEL: &CStr = c"extern \"C\" __global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }";

fn arch(kind: BackendKind) -> &'static CStr {
    match kind {
        BackendKind::Cuda => c"--gpu-architecture=sm_90",
        BackendKind::Hip => c"--gpu-architecture=gfx90a",
    }
}

fn create(b: Backend, src: &CStr) -> nvrtcProgram {
    let mut p = null_mut();
    let r =
        unsafe { b.nvrtcCreateProgram(&mut p, src.as_ptr(), c"t.cu".as_ptr(), 0, null(), null()) };
    assert_eq!(r, R::NVRTC_SUCCESS);
    p
}

fn compile(b: Backend, p: nvrtcProgram, opts: &[&CStr]) -> R {
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    unsafe { b.nvrtcCompileProgram(p, ptrs.len() as i32, ptrs.as_ptr()) }
}

fn log(b: Backend, p: nvrtcProgram) -> String {
    let mut n = 0;
    assert_eq!(
        unsafe { b.nvrtcGetProgramLogSize(p, &mut n) },
        R::NVRTC_SUCCESS
    );
    let mut buf = vec![0u8; n];
    assert_eq!(
        unsafe { b.nvrtcGetProgramLog(p, buf.as_mut_ptr().cast()) },
        R::NVRTC_SUCCESS
    );
    String::from_utf8_lossy(&buf[..n.saturating_sub(1)]).into_owned()
}

fn destroy(b: Backend, mut p: nvrtcProgram) {
    assert_eq!(unsafe { b.nvrtcDestroyProgram(&mut p) }, R::NVRTC_SUCCESS);
    assert!(p.is_null(), "destroy nulls the handle, as NVRTC does");
}

fn each(f: impl Fn(BackendKind, Backend)) {
    for kind in [BackendKind::Cuda, BackendKind::Hip] {
        if let Some(b) = compiler(kind) {
            f(kind, b);
        }
    }
}

/// Item 1: NVRTC 13.0 throws `std::out_of_range` (exit 134) on these.
#[test]
fn blank_option_values_are_invalid_options_not_aborts() {
    each(|kind, b| {
        for bad in [
            c"--ptxas-options=",
            c"-Xptxas=",
            c"--ptxas-options= ",
            c"-dopt=",
            c"--dopt=\t",
            c"-Xnvvm=",
        ] {
            let p = create(b, KERNEL);
            assert_eq!(
                compile(b, p, &[arch(kind), bad]),
                R::NVRTC_ERROR_INVALID_OPTION,
                "{kind} {bad:?}"
            );
            let l = log(b, p);
            assert!(l.contains("expects a value"), "{kind} {bad:?}: {l}");
            // The program is still usable, as after NVRTC's own option errors.
            assert_eq!(
                compile(b, p, &[arch(kind)]),
                R::NVRTC_SUCCESS,
                "{kind}: {}",
                log(b, p)
            );
            destroy(b, p);
        }
    });
}

/// Item 2: deep nesting compiled from a 2 MiB thread aborted the process on NVRTC.
#[test]
fn deep_nesting_from_a_small_thread_is_an_error_not_an_abort() {
    each(|kind, b| {
        let src = |s: String| CString::new(s).unwrap();
        let unbalanced = src(format!("void f() {}", "{".repeat(5000)));
        let parens = src(format!(
            "__device__ int f() {{ return {}1{}; }}",
            "(".repeat(20_000),
            ")".repeat(20_000)
        ));
        let too_deep = src(format!(
            "__device__ int f() {{ return {}1{}; }}",
            "(".repeat(anycuda::rtc::MAX_NESTING + 1),
            ")".repeat(anycuda::rtc::MAX_NESTING + 1)
        ));
        let a = arch(kind);
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let p = create(b, &unbalanced);
                assert_eq!(compile(b, p, &[a]), R::NVRTC_ERROR_COMPILATION, "{kind}");
                destroy(b, p);

                // Valid and 20,000 deep: NVRTC compiles it (on its large-stack thread); hipRTC
                // stops at its bracket limit of 256.
                let p = create(b, &parens);
                let r = compile(b, p, &[a]);
                match kind {
                    BackendKind::Cuda => assert_eq!(r, R::NVRTC_SUCCESS, "{}", log(b, p)),
                    BackendKind::Hip => assert_eq!(r, R::NVRTC_ERROR_COMPILATION),
                }
                destroy(b, p);

                let p = create(b, &too_deep);
                assert_eq!(compile(b, p, &[a]), R::NVRTC_ERROR_COMPILATION, "{kind}");
                assert!(
                    log(b, p).contains("the limit is 100000"),
                    "{kind}: {}",
                    log(b, p)
                );
                destroy(b, p);
            })
            .unwrap()
            .join()
            .expect("compile thread panicked");
    });
}

/// Item 4: hipRTC reused the freed address in 193 of 200 destroy-then-create pairs, so a stale
/// handle acted on the new program.
#[test]
fn stale_handles_never_reach_a_new_program() {
    each(|kind, b| {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let old = create(b, KERNEL);
            assert!(
                seen.insert(old as usize),
                "{kind}: handle {old:p} handed out twice"
            );
            destroy(b, old);
            let new = create(b, KERNEL);
            assert_ne!(
                old, new,
                "{kind}: a new program got the destroyed one's handle"
            );
            let mut n = 0;
            assert_eq!(
                unsafe { b.nvrtcGetPTXSize(old, &mut n) },
                R::NVRTC_ERROR_INVALID_PROGRAM
            );
            let mut stale = old;
            assert_eq!(
                unsafe { b.nvrtcDestroyProgram(&mut stale) },
                R::NVRTC_ERROR_INVALID_PROGRAM
            );
            // The new program is untouched by the stale calls.
            assert_eq!(unsafe { b.nvrtcGetPTXSize(new, &mut n) }, R::NVRTC_SUCCESS);
            assert!(seen.insert(new as usize));
            destroy(b, new);
        }
    });
}

/// Item 4: a destroy racing with calls on the same handle never frees under a call.
#[test]
fn concurrent_destroy_and_use() {
    each(|kind, b| {
        for _ in 0..50 {
            let p = create(b, KERNEL) as usize;
            let users: Vec<_> = (0..3)
                .map(|_| {
                    std::thread::spawn(move || {
                        let mut seen_dead = false;
                        for _ in 0..200 {
                            let mut n = 0;
                            let r = unsafe { b.nvrtcGetProgramLogSize(p as nvrtcProgram, &mut n) };
                            match r {
                                R::NVRTC_SUCCESS => assert!(!seen_dead, "{kind}: alive after dead"),
                                R::NVRTC_ERROR_INVALID_PROGRAM => seen_dead = true,
                                other => panic!("{kind}: {other}"),
                            }
                        }
                    })
                })
                .collect();
            destroy(b, p as nvrtcProgram);
            for u in users {
                u.join().unwrap();
            }
        }
    });
}

/// Item 8: NVRTC 13.0 (probed) accepts a blank name expression and fails the compile; before a
/// successful compile PTX is one NUL byte, CUBIN and LTO IR are empty, lowered names are
/// NO_LOWERED_NAMES_BEFORE_COMPILATION, and after a failed compile no name can be added.
#[test]
fn blank_name_expression_and_failed_compile_agree_with_nvrtc() {
    each(|kind, b| {
        let empty_code = |p: nvrtcProgram, when: &str| unsafe {
            let mut n = 77;
            assert_eq!(b.nvrtcGetPTXSize(p, &mut n), R::NVRTC_SUCCESS);
            assert_eq!(n, 1, "{kind} {when}: PTX size");
            let mut byte = [0x55u8];
            assert_eq!(b.nvrtcGetPTX(p, byte.as_mut_ptr().cast()), R::NVRTC_SUCCESS);
            assert_eq!(byte, [0], "{kind} {when}");
            assert_eq!(b.nvrtcGetCUBINSize(p, &mut n), R::NVRTC_SUCCESS);
            assert_eq!(n, 0, "{kind} {when}: CUBIN size");
            let mut lowered = null();
            assert_eq!(
                b.nvrtcGetLoweredName(p, c"k".as_ptr(), &mut lowered),
                R::NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION,
                "{kind} {when}"
            );
        };
        for blank in [c"", c" "] {
            let p = create(b, KERNEL);
            empty_code(p, "before compile");
            assert_eq!(
                unsafe { b.nvrtcAddNameExpression(p, blank.as_ptr()) },
                R::NVRTC_SUCCESS,
                "{kind}"
            );
            assert_eq!(
                compile(b, p, &[arch(kind)]),
                R::NVRTC_ERROR_COMPILATION,
                "{kind}"
            );
            assert!(
                log(b, p).contains("name expression"),
                "{kind}: {}",
                log(b, p)
            );
            empty_code(p, "after a failed compile");
            assert_eq!(
                unsafe { b.nvrtcAddNameExpression(p, c"k".as_ptr()) },
                R::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
                "{kind}"
            );
            destroy(b, p);
        }
        // A source error: the same state.
        let p = create(b, c"__global__ void k() { int x = ; }");
        assert_eq!(compile(b, p, &[arch(kind)]), R::NVRTC_ERROR_COMPILATION);
        empty_code(p, "after a source error");
        destroy(b, p);
        // An option error is no compile: names may still be added.
        let p = create(b, KERNEL);
        assert_eq!(
            compile(b, p, &[c"--no-such-option"]),
            R::NVRTC_ERROR_INVALID_OPTION
        );
        assert_eq!(
            unsafe { b.nvrtcAddNameExpression(p, c"k".as_ptr()) },
            R::NVRTC_SUCCESS
        );
        destroy(b, p);
    });
}

/// Item 7: NVRTC compiles an empty source; hipRTC refused to create one.
#[test]
fn empty_source_compiles_on_both() {
    each(|kind, b| {
        let p = create(b, c"");
        assert_eq!(
            compile(b, p, &[arch(kind)]),
            R::NVRTC_SUCCESS,
            "{kind}: {}",
            log(b, p)
        );
        let mut n = 0;
        assert_eq!(unsafe { b.nvrtcGetPTXSize(p, &mut n) }, R::NVRTC_SUCCESS);
        assert!(n > 1, "{kind}: some code for an empty source");
        destroy(b, p);
    });
}
