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
        // SAFETY: `p` is a live local for the handle; `src` is a NUL-terminated `CStr` and `t.cu` a
        // literal; zero headers with null arrays.
        unsafe { b.nvrtcCreateProgram(&mut p, src.as_ptr(), c"t.cu".as_ptr(), 0, null(), null()) };
    assert_eq!(r, R::NVRTC_SUCCESS);
    p
}

fn compile(b: Backend, p: nvrtcProgram, opts: &[&CStr]) -> R {
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `ptrs` holds `ptrs.len()` pointers into the `CStr`s of `opts`, which outlive the
    // call; a program handle is only a key that the backend looks up in its table (never
    // dereferenced), so stale or made-up ones are safe to pass.
    unsafe { b.nvrtcCompileProgram(p, ptrs.len() as i32, ptrs.as_ptr()) }
}

fn log(b: Backend, p: nvrtcProgram) -> String {
    let mut n = 0;
    assert_eq!(
        // SAFETY: `n` is a live local `usize` for the size; `p` is a live program of the caller.
        unsafe { b.nvrtcGetProgramLogSize(p, &mut n) },
        R::NVRTC_SUCCESS
    );
    let mut buf = vec![0u8; n];
    assert_eq!(
        // SAFETY: `buf` has the `n` bytes that `nvrtcGetProgramLogSize` just reported for `p`, and
        // nothing compiles `p` in between.
        unsafe { b.nvrtcGetProgramLog(p, buf.as_mut_ptr().cast()) },
        R::NVRTC_SUCCESS
    );
    String::from_utf8_lossy(&buf[..n.saturating_sub(1)]).into_owned()
}

fn destroy(b: Backend, mut p: nvrtcProgram) {
    // SAFETY: `p` is a live local holding the handle to destroy, which NVRTC's contract lets us
    // null.
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
            assert!(
                l.contains("anycuda: error: option 1"),
                "{kind} {bad:?}: {l}"
            );
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
            "(".repeat(anycuda_rtc::rtc_input::MAX_NESTING + 1),
            ")".repeat(anycuda_rtc::rtc_input::MAX_NESTING + 1)
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
                // SAFETY: `n` is a live local; `old` is a destroyed handle, and a program handle is
                // only a key that the backend looks up in its table (never dereferenced), so stale
                // or made-up ones are safe to pass.
                unsafe { b.nvrtcGetPTXSize(old, &mut n) },
                R::NVRTC_ERROR_INVALID_PROGRAM
            );
            let mut stale = old;
            assert_eq!(
                // SAFETY: `stale` is a live local holding a destroyed handle; a program handle is
                // only a key that the backend looks up in its table (never dereferenced), so stale
                // or made-up ones are safe to pass.
                unsafe { b.nvrtcDestroyProgram(&mut stale) },
                R::NVRTC_ERROR_INVALID_PROGRAM
            );
            // The new program is untouched by the stale calls.
            // SAFETY: `new` is a live program from `create`; `n` is a live local `usize`.
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
                            // SAFETY: `n` is a live local `usize`; `p` may be destroyed
                            // concurrently, and a program handle is only a key that the backend
                            // looks up in its table (never dereferenced), so stale or made-up ones
                            // are safe to pass (a destroy waits for calls in flight).
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
        // SAFETY: `p` is a live program from `create`; `n`, `byte` (room for the one-byte empty PTX
        // that the size call reports) and `lowered` are live locals; `k` is a NUL-terminated
        // literal.
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
                // SAFETY: `p` is a live program from `create`; `blank` is a NUL-terminated literal.
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
                // SAFETY: `p` is a live program (its compile failed, it is not destroyed); `k` is a
                // NUL-terminated literal.
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
            // SAFETY: `p` is a live program from `create`; `k` is a NUL-terminated literal.
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
        // SAFETY: `p` is a live program from `create`; `n` is a live local `usize`.
        assert_eq!(unsafe { b.nvrtcGetPTXSize(p, &mut n) }, R::NVRTC_SUCCESS);
        assert!(n > 1, "{kind}: some code for an empty source");
        destroy(b, p);
    });
}

/// Finding 1 (NVRTC 13.5): these abort the process inside NVRTC (an uncaught `stoi` or
/// `basic_string::at` exception); the option table refuses them first, on both backends.
#[test]
fn aborting_option_values_are_invalid_options() {
    each(|kind, b| {
        for bad in [
            &[c"--split-compile=-"][..],
            &[c"--split-compile=2147483648"],
            &[c"-jtd=99999999999"],
            &[c"-jtd", c"-"],
            &[c"--split-compile", c"-"],
            &[c"--Ofast-compile="],
            &[c"-Ofc= "],
            &[c"--maxrregcount=99999999999"],
            &[c"--no-such-option"],
        ] {
            let p = create(b, KERNEL);
            let mut opts = vec![arch(kind)];
            opts.extend_from_slice(bad);
            assert_eq!(
                compile(b, p, &opts),
                R::NVRTC_ERROR_INVALID_OPTION,
                "{kind} {bad:?}"
            );
            assert!(
                log(b, p).contains("anycuda: error: option 1"),
                "{}",
                log(b, p)
            );
            destroy(b, p);
        }
    });
}

/// Finding 1: the option table against the library. Every option of the table with every
/// valid sample value and both spellings reaches NVRTC 13.5 and is not refused as an option
/// (some fail later for what the value names, e.g. a directory given as a PCH file), and every
/// invalid sample is refused by anycuda before NVRTC sees it.
#[test]
fn option_table_agrees_with_nvrtc_13_5() {
    use anycuda::nvrtc::options::{invalid_samples, valid_samples, Value, NVRTC_13_5};
    let Some(b) = compiler(BackendKind::Cuda) else {
        return;
    };
    let empty = c"";
    let (mut checked, mut refused) = (0, 0);
    for spec in NVRTC_13_5 {
        for name in core::iter::once(spec.long).chain(spec.short) {
            for v in valid_samples(spec) {
                let opt = if spec.value == Value::Flag {
                    name.to_owned()
                } else {
                    format!("{name}={v}")
                };
                let opt = CString::new(opt).unwrap();
                // Options that need a companion to be valid at all.
                let arch = if spec.long == "--device-float128" {
                    c"-arch=sm_100"
                } else {
                    c"-arch=compute_90"
                };
                let mut opts = vec![arch, opt.as_c_str()];
                if spec.long == "--numba-debug" {
                    opts.push(c"-G");
                }
                let p = create(b, empty);
                let r = compile(b, p, &opts);
                assert_ne!(
                    r,
                    R::NVRTC_ERROR_INVALID_OPTION,
                    "{opt:?} is in the table but NVRTC refuses it: {}",
                    log(b, p)
                );
                destroy(b, p);
                checked += 1;
            }
            for v in invalid_samples(spec) {
                let opt = CString::new(format!("{name}={v}")).unwrap();
                let p = create(b, empty);
                let r = compile(b, p, &[c"-arch=compute_90", &opt]);
                assert_eq!(r, R::NVRTC_ERROR_INVALID_OPTION, "{opt:?}");
                assert!(
                    log(b, p).starts_with("anycuda: error"),
                    "{opt:?}: {}",
                    log(b, p)
                );
                destroy(b, p);
                refused += 1;
            }
        }
    }
    eprintln!("{checked} valid spellings accepted, {refused} invalid ones refused");
}

/// Finding 2: expressions nested without brackets, of every class, 500,000 deep: refused with
/// a log line (NVRTC_ERROR_COMPILATION, as NVRTC reports a program it cannot compile), never a
/// dead process; from a 2 MiB thread too.
#[test]
fn deep_expressions_of_every_class_are_refused() {
    each(|kind, b| {
        let n = 500_000;
        let f = "__device__ int f(int x) { return ";
        let sources = [
            format!("{f}{}x; }}", "-".repeat(n)),
            format!("{f}{}x; }}", "- ".repeat(n)),
            format!("{f}{}x; }}", "!".repeat(n)),
            format!("{f}{}x; }}", "*&".repeat(n / 2)),
            format!("{f}{}x; }}", "(int)".repeat(n)),
            format!("{f}{}0; }}", "x?1:".repeat(n)),
            format!("__device__ void f(int x) {{ {}0; }}", "x=".repeat(n)),
            format!(
                "template <class T> struct A {{}}; A<{}int{}> a;",
                "A<".repeat(n),
                ">".repeat(n)
            ),
            format!("void f(int a) {{ {} a = 1; }}", "if (a) ".repeat(n)),
            {
                let mut s = String::from("#define L0 (\n");
                for k in 1..=19 {
                    s.push_str(&format!("#define L{k} L{} L{}\n", k - 1, k - 1));
                }
                s.push_str("int g() { return L19 1; }\n");
                s
            },
        ];
        let a = arch(kind);
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                for src in &sources {
                    let p = create(b, &CString::new(src.as_str()).unwrap());
                    assert_eq!(compile(b, p, &[a]), R::NVRTC_ERROR_COMPILATION, "{kind}");
                    let l = log(b, p);
                    assert!(
                        l.contains("nest") && l.contains("the limit is"),
                        "{kind}: {l}"
                    );
                    destroy(b, p);
                }
                // Under the bound: compiled (or refused by the compiler itself), not killed.
                let ok = format!("{f}{}x; }}", "- ".repeat(20_000));
                let p = create(b, &CString::new(ok).unwrap());
                let r = compile(b, p, &[a]);
                if kind == BackendKind::Cuda {
                    assert_eq!(r, R::NVRTC_SUCCESS, "{}", log(b, p));
                }
                destroy(b, p);
            })
            .unwrap()
            .join()
            .expect("compile thread panicked");
    });
}

/// Finding 3: when the 1 GiB compile thread cannot be created (here: the address space is
/// limited with `prlimit`), the compile is NVRTC_ERROR_OUT_OF_MEMORY with a log line, never a
/// compile on the caller's small stack (where `{` x 5000 aborted).
#[test]
fn no_compile_thread_is_out_of_memory_not_a_fallback() {
    const CHILD: &str = "ANYCUDA_TEST_NO_COMPILE_THREAD";
    if let Ok(kind) = std::env::var(CHILD) {
        let kind = if kind == "cuda" {
            BackendKind::Cuda
        } else {
            BackendKind::Hip
        };
        let b = compiler(kind).expect("checked by the parent");
        let p = create(
            b,
            &CString::new(format!("void f() {}", "{".repeat(5000))).unwrap(),
        );
        // Lower RLIMIT_AS to what is mapped now plus 256 MiB: no room for a 1 GiB stack.
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let vm_kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmSize:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap();
        let limit = (vm_kib + (256 << 10)) << 10;
        let ok = std::process::Command::new("prlimit")
            .args([
                "--pid",
                &std::process::id().to_string(),
                &format!("--as={limit}"),
            ])
            .status()
            .unwrap();
        assert!(ok.success(), "prlimit");
        let handle = p as usize; // a key, not a pointer: sendable
        let r = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let p = handle as nvrtcProgram;
                let r = compile(b, p, &[arch(kind)]);
                (r, log(b, p))
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(r.0, R::NVRTC_ERROR_OUT_OF_MEMORY, "{kind}: {}", r.1);
        assert!(r.1.contains("compile thread"), "{}", r.1);
        println!("CHILD_OK");
        return;
    }
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: no prlimit");
        return;
    }
    for kind in [BackendKind::Cuda, BackendKind::Hip] {
        if compiler(kind).is_none() {
            continue;
        }
        // Under ci/rocm.sh (a newer ROCm), the child needs that release's loader too.
        // (Under that loader, current_exe is the loader itself: argv[0] is the test binary.)
        let exe = match std::env::var_os("ROCM_LOADER") {
            Some(_) => std::path::PathBuf::from(std::env::args_os().next().unwrap()),
            None => std::env::current_exe().unwrap(),
        };
        let mut cmd = match (
            std::env::var_os("ROCM_LOADER"),
            std::env::var_os("ROCM_LIBRARY_PATH"),
        ) {
            (Some(loader), Some(libs)) => {
                let mut c = std::process::Command::new(loader);
                c.arg("--library-path").arg(libs).arg(exe);
                c
            }
            _ => std::process::Command::new(exe),
        };
        let o = cmd
            .args([
                "--exact",
                "no_compile_thread_is_out_of_memory_not_a_fallback",
                "--nocapture",
            ])
            .env(
                CHILD,
                if kind == BackendKind::Cuda {
                    "cuda"
                } else {
                    "hip"
                },
            )
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && out.contains("CHILD_OK"),
            "{kind}: {}\n{out}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Finding 4: NVRTC's two-entry spellings (`-I`, `/dir`; `-D`, `X`; `--maxrregcount`, `32`;
/// `-arch`, `sm_90`) and glued ones (`-D X`) compile on both backends.
#[test]
fn two_entry_spellings_compile_on_both() {
    let dir = std::env::temp_dir().join(format!("anycuda-two-entry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("anycuda_two_entry.h"), "#define FROM_HEADER 1\n").unwrap();
    let dir_c = CString::new(dir.to_str().unwrap()).unwrap();
    let src = c"#include <anycuda_two_entry.h>\n#if !defined(X) || !defined(Y) || !FROM_HEADER\n#error options lost\n#endif\nextern \"C\" __global__ void k(float *p) { p[0] = X + Y; }\n";
    each(|kind, b| {
        let p = create(b, src);
        let arch_val = match kind {
            BackendKind::Cuda => c"sm_90",
            BackendKind::Hip => c"gfx90a",
        };
        let opts = [
            c"-arch",
            arch_val,
            c"-I",
            dir_c.as_c_str(),
            c"-D",
            c"X=1",
            c"-D Y=2",
            c"--maxrregcount",
            c"32",
        ];
        assert_eq!(
            compile(b, p, &opts),
            R::NVRTC_SUCCESS,
            "{kind}: {}",
            log(b, p)
        );
        destroy(b, p);
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// Findings 5 and 6: one program compiled twice behaves as on NVRTC on both backends (the
/// second compile's output replaces the first, name expressions survive), through
/// `core::Program` with NVRTC's own options and with typed ones; output is labelled by its
/// content.
#[test]
fn repeated_compiles_replace_output_on_both() {
    use anycuda::core::{CodeType, Program as CoreProgram, ProgramOptions};
    let src = "template <typename T> __global__ void t(T *p) { p[0] = T(1); }\n\
               #ifdef FAIL\n#error asked to fail\n#endif\n";
    each(|kind, b| {
        let (a1, a2) = match kind {
            BackendKind::Cuda => ("--gpu-architecture=sm_90", "--gpu-architecture=sm_80"),
            BackendKind::Hip => ("--gpu-architecture=gfx90a", "--gpu-architecture=gfx1030"),
        };
        let mut p = common::program(b, src, "t.cu", &["t<float>"]);
        p.compile_with_args(&[a1]).unwrap();
        let first = common::code(&p, CodeType::Cubin);
        assert!(first.starts_with(b"\x7fELF"), "{kind}");
        let low1 = p.lowered_name("t<float>").unwrap();
        p.compile_with_args(&[a2])
            .unwrap_or_else(|e| panic!("{kind}: second compile: {e}"));
        let second = common::code(&p, CodeType::Cubin);
        assert!(second.starts_with(b"\x7fELF"), "{kind}");
        assert_ne!(
            first, second,
            "{kind}: the second compile's output replaces the first"
        );
        assert_eq!(p.lowered_name("t<float>").unwrap(), low1, "{kind}");
        // A failed compile leaves no PTX, as NVRTC.
        assert!(p.compile_with_args(&[a1, "-DFAIL"]).is_err());
        assert!(common::code(&p, CodeType::Ptx).is_empty(), "{kind}");
        p.compile_with_args(&[a1]).unwrap();
        assert_eq!(common::code(&p, CodeType::Cubin), first, "{kind}");

        // core::Program: two targets from one program, labelled by content.
        let arch = a1.trim_start_matches("--gpu-architecture=");
        let opts = ProgramOptions::new().arch(arch).name_expression("t<float>");
        let mut cp = CoreProgram::with_backend(b, src, opts).unwrap();
        let c1 = cp.compile(CodeType::Cubin).unwrap();
        assert_eq!(c1.code_type(), CodeType::Cubin, "{kind}");
        let c2 = cp
            .compile(CodeType::Ptx)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let want = match kind {
            BackendKind::Cuda => CodeType::Ptx,
            BackendKind::Hip => CodeType::Cubin, // the AMD code object, whatever was asked
        };
        assert_eq!(c2.code_type(), want, "{kind}");
    });
}
