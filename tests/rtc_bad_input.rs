//! Bad input to the NVRTC API gets NVRTC's error on both backends, never a crash.

mod common;

use anycuda::core::{Program, ProgramOptions};
use anycuda::nvrtc::{nvrtcProgram, nvrtcResult as R};
use anycuda::{Backend, BackendKind, Rtc};
use common::compiler;
use core::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

const SAXPY: &CStr =
    c"extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }";
const TEMPLATE: &CStr =
    c"template <typename T> __global__ void scale(T *p, T f) { p[threadIdx.x] *= f; }";

fn arch(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Cuda => "--gpu-architecture=sm_90",
        BackendKind::Hip => "--gpu-architecture=gfx90a",
    }
}

fn create(b: Backend, src: &CStr, name: *const c_char) -> nvrtcProgram {
    let mut p = null_mut();
    // SAFETY: `p` is a live local for the handle; `src` is a NUL-terminated `CStr` and `name` null
    // or one of the callers' NUL-terminated literals; zero headers with null arrays.
    let r = unsafe { b.nvrtcCreateProgram(&mut p, src.as_ptr(), name, 0, null(), null()) };
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
    assert_eq!(buf.last(), Some(&0), "the log is NUL-terminated");
    String::from_utf8_lossy(&buf[..n - 1]).into_owned()
}

fn destroy(b: Backend, mut p: nvrtcProgram) {
    // SAFETY: `p` is a live local holding the handle to destroy, which NVRTC's contract lets us
    // null.
    assert_eq!(unsafe { b.nvrtcDestroyProgram(&mut p) }, R::NVRTC_SUCCESS);
}

fn null_and_destroyed_programs(kind: BackendKind) {
    let Some(b) = compiler(kind) else { return };
    let mut n = 0usize;
    // SAFETY: a program handle is only a key that the backend looks up in its table (never
    // dereferenced), so stale or made-up ones are safe to pass; `n`, `none` and `stale` are live
    // locals, and the null `prog` pointer is what `nvrtcDestroyProgram` must refuse.
    unsafe {
        assert_eq!(compile(b, null_mut(), &[]), R::NVRTC_ERROR_INVALID_PROGRAM);
        assert_eq!(
            b.nvrtcGetPTXSize(null_mut(), &mut n),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        assert_eq!(
            b.nvrtcGetProgramLogSize(null_mut(), &mut n),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        // NVIDIA's NVRTC answers a NULL program pointer as no program (the C ABI's fuzzer).
        assert_eq!(
            b.nvrtcDestroyProgram(null_mut()),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        let mut none: nvrtcProgram = null_mut();
        assert_eq!(
            b.nvrtcDestroyProgram(&mut none),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        // A made-up handle is refused without being dereferenced.
        let bogus = 0xdead_bee0usize as nvrtcProgram;
        assert_eq!(
            b.nvrtcGetPTXSize(bogus, &mut n),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        // A destroyed handle is refused, and a second destroy too.
        let p = create(b, SAXPY, c"saxpy.cu".as_ptr());
        let mut stale = p;
        destroy(b, p);
        assert_eq!(compile(b, stale, &[]), R::NVRTC_ERROR_INVALID_PROGRAM);
        assert_eq!(
            b.nvrtcGetPTXSize(stale, &mut n),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        assert_eq!(
            b.nvrtcDestroyProgram(&mut stale),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
    }
}

#[test]
fn null_and_destroyed_programs_nvrtc() {
    null_and_destroyed_programs(BackendKind::Cuda);
}
#[test]
fn null_and_destroyed_programs_hiprtc() {
    null_and_destroyed_programs(BackendKind::Hip);
}

fn null_arguments(kind: BackendKind) {
    let Some(b) = compiler(kind) else { return };
    // SAFETY: every non-null pointer is a live local, a NUL-terminated literal or a live
    // one-element array; the null ones and the bad counts are exactly what these calls must refuse
    // (with NVIDIA's codes) before reading anything.
    unsafe {
        let mut p = null_mut();
        // A NULL program out-pointer: NVIDIA's NVRTC says invalid program (the C ABI's fuzzer).
        assert_eq!(
            b.nvrtcCreateProgram(null_mut(), SAXPY.as_ptr(), null(), 0, null(), null()),
            R::NVRTC_ERROR_INVALID_PROGRAM
        );
        assert_eq!(
            b.nvrtcCreateProgram(&mut p, null(), null(), 0, null(), null()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        assert_eq!(
            b.nvrtcCreateProgram(&mut p, SAXPY.as_ptr(), null(), -1, null(), null()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        assert_eq!(
            b.nvrtcCreateProgram(&mut p, SAXPY.as_ptr(), null(), 1, null(), null()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        let hdr = [null::<c_char>()];
        let name = [c"h.h".as_ptr()];
        assert_eq!(
            b.nvrtcCreateProgram(
                &mut p,
                SAXPY.as_ptr(),
                null(),
                1,
                hdr.as_ptr(),
                name.as_ptr()
            ),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        // A null name is NVRTC's "default_program".
        let p = create(b, SAXPY, null());
        // A missing option array: NVIDIA's NVRTC says invalid option (the C ABI's fuzzer).
        assert_eq!(
            b.nvrtcCompileProgram(p, 1, null()),
            R::NVRTC_ERROR_INVALID_OPTION
        );
        assert_eq!(
            b.nvrtcCompileProgram(p, -1, null()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        let opts = [null::<c_char>()];
        assert_eq!(
            b.nvrtcCompileProgram(p, 1, opts.as_ptr()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        assert_eq!(
            compile(b, p, &[&std::ffi::CString::new(arch(kind)).unwrap()]),
            R::NVRTC_SUCCESS
        );
        assert_eq!(
            b.nvrtcGetPTXSize(p, null_mut()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        assert_eq!(b.nvrtcGetPTX(p, null_mut()), R::NVRTC_ERROR_INVALID_INPUT);
        assert_eq!(
            b.nvrtcGetProgramLogSize(p, null_mut()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        assert_eq!(
            b.nvrtcGetLoweredName(p, c"x".as_ptr(), null_mut()),
            R::NVRTC_ERROR_INVALID_INPUT
        );
        destroy(b, p);
    }
}

#[test]
fn null_arguments_nvrtc() {
    null_arguments(BackendKind::Cuda);
}
#[test]
fn null_arguments_hiprtc() {
    null_arguments(BackendKind::Hip);
}

fn bad_option(kind: BackendKind) {
    let Some(b) = compiler(kind) else { return };
    let p = create(b, SAXPY, c"saxpy.cu".as_ptr());
    let arch = std::ffi::CString::new(arch(kind)).unwrap();
    assert_eq!(
        compile(b, p, &[&arch, c"--no-such-option"]),
        R::NVRTC_ERROR_INVALID_OPTION
    );
    assert!(
        log(b, p).contains("no-such-option"),
        "{kind}: log: {}",
        log(b, p)
    );
    // The program stays usable after a refused option.
    assert_eq!(compile(b, p, &[&arch]), R::NVRTC_SUCCESS);
    destroy(b, p);
}

#[test]
fn bad_option_nvrtc() {
    bad_option(BackendKind::Cuda);
}
#[test]
fn bad_option_hiprtc() {
    bad_option(BackendKind::Hip);
}

/// Unknown arches are refused with a clear log; on HIP this includes the targets that make
/// hipRTC 5.2.3 abort the whole process, so reaching the end of this test proves the check.
fn unknown_arch(kind: BackendKind, arches: &[&CStr], must_mention: &str) {
    let Some(b) = compiler(kind) else { return };
    for a in arches {
        let p = create(b, SAXPY, c"saxpy.cu".as_ptr());
        assert_eq!(
            compile(b, p, &[a]),
            R::NVRTC_ERROR_INVALID_OPTION,
            "{kind} {a:?}"
        );
        let l = log(b, p);
        assert!(
            l.contains(must_mention),
            "{kind} {a:?}: log lacks {must_mention:?}: {l}"
        );
        destroy(b, p);
    }
}

#[test]
fn unknown_arch_nvrtc() {
    unknown_arch(
        BackendKind::Cuda,
        &[c"--gpu-architecture=sm_9999", c"--gpu-architecture=gfx90a"],
        "gpu-architecture",
    );
}
#[cfg(feature = "backend-hip")]
#[test]
fn unknown_arch_hiprtc() {
    let Some(b) = compiler(BackendKind::Hip) else {
        return;
    };
    let v = b.as_hip().unwrap().hip_version();
    let mut arches = vec![
        c"--gpu-architecture=gfx9999",
        c"--anycuda-hip-arch=gfx9999",
        c"--gpu-architecture=sm_90x",
    ];
    if v < 50_300_000 {
        // Known to abort hipRTC 5.2.3 in-process when not caught first (5.7 knows gfx942).
        arches.extend([
            c"--gpu-architecture=gfx942",
            c"--gpu-architecture=gfx1100",
            c"--offload-arch=gfx90a:xnack",
        ]);
    }
    unknown_arch(BackendKind::Hip, &arches, "gfx");
}

fn name_expressions(kind: BackendKind) {
    let Some(b) = compiler(kind) else { return };
    let arch = std::ffi::CString::new(arch(kind)).unwrap();
    // SAFETY: `p` is a live program until `destroy`; the name expressions are NUL-terminated
    // literals, `lowered` is a live local, and after a successful `nvrtcGetLoweredName` it points
    // to a NUL-terminated name owned by the still-live program.
    unsafe {
        let p = create(b, TEMPLATE, c"t.cu".as_ptr());
        assert_eq!(
            b.nvrtcAddNameExpression(p, c"scale<float>".as_ptr()),
            R::NVRTC_SUCCESS
        );
        let mut lowered: *const c_char = null();
        assert_eq!(
            b.nvrtcGetLoweredName(p, c"scale<float>".as_ptr(), &mut lowered),
            R::NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION
        );
        assert_eq!(compile(b, p, &[&arch]), R::NVRTC_SUCCESS);
        assert_eq!(
            b.nvrtcGetLoweredName(p, c"scale<float>".as_ptr(), &mut lowered),
            R::NVRTC_SUCCESS
        );
        assert_eq!(
            CStr::from_ptr(lowered).to_str().unwrap(),
            "_Z5scaleIfEvPT_S0_"
        );
        assert_eq!(
            b.nvrtcGetLoweredName(p, c"scale<double>".as_ptr(), &mut lowered),
            R::NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID
        );
        assert_eq!(
            b.nvrtcAddNameExpression(p, c"scale<int>".as_ptr()),
            R::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
        );
        destroy(b, p);
        // An expression naming nothing fails the compilation with a log, not the process.
        let p = create(b, TEMPLATE, c"t.cu".as_ptr());
        assert_eq!(
            b.nvrtcAddNameExpression(p, c"no_such_kernel<float>".as_ptr()),
            R::NVRTC_SUCCESS
        );
        assert_eq!(compile(b, p, &[&arch]), R::NVRTC_ERROR_COMPILATION);
        assert!(
            log(b, p).contains("no_such_kernel"),
            "{kind}: {}",
            log(b, p)
        );
        destroy(b, p);
    }
}

#[test]
fn name_expressions_nvrtc() {
    name_expressions(BackendKind::Cuda);
}
#[test]
fn name_expressions_hiprtc() {
    name_expressions(BackendKind::Hip);
}

fn non_utf8_source_name(kind: BackendKind) {
    let Some(b) = compiler(kind) else { return };
    let name = b"k\xff\xfe\x80.cu\0";
    let p = create(b, SAXPY, name.as_ptr().cast());
    let arch = std::ffi::CString::new(arch(kind)).unwrap();
    assert_eq!(compile(b, p, &[&arch]), R::NVRTC_SUCCESS);
    destroy(b, p);
    // And a compile error in such a file still yields a log.
    let p = create(b, c"__global__ void k() { nope(); }", name.as_ptr().cast());
    assert_eq!(compile(b, p, &[&arch]), R::NVRTC_ERROR_COMPILATION);
    assert!(log(b, p).contains("nope"));
    destroy(b, p);
}

#[test]
fn non_utf8_source_name_nvrtc() {
    non_utf8_source_name(BackendKind::Cuda);
}
#[test]
fn non_utf8_source_name_hiprtc() {
    non_utf8_source_name(BackendKind::Hip);
}

#[test]
fn safe_layer_refuses_interior_nul() {
    let Some(b) = compiler(BackendKind::Cuda).or_else(|| compiler(BackendKind::Hip)) else {
        return;
    };
    let e = Program::with_backend(b, "a\0b", ProgramOptions::new()).unwrap_err();
    assert_eq!(e.nvrtc_code(), Some(R::NVRTC_ERROR_INVALID_INPUT));
    let e = Program::with_backend(b, "k", ProgramOptions::new().name("x\0.cu")).unwrap_err();
    assert_eq!(e.nvrtc_code(), Some(R::NVRTC_ERROR_INVALID_INPUT));
    let mut p = Program::with_backend(b, "k", ProgramOptions::new()).unwrap();
    let e = p.compile_with_args(&["-DX\0Y"]).unwrap_err();
    assert_eq!(e.nvrtc_code(), Some(R::NVRTC_ERROR_INVALID_OPTION));
}

/// Finding 7: a library file named by `ANYCUDA_NVRTC_LIBRARY` that is a truncated copy of the
/// real libnvrtc (SIGBUS inside dlopen before), a FIFO (dlopen blocked forever), a directory or
/// a text file is a LoadError saying why, in a child process that must end quickly.
#[test]
#[cfg(feature = "backend-cuda")]
fn bad_library_files_are_load_errors_nvrtc() {
    const CHILD: &str = "ANYCUDA_TEST_BAD_LIBRARY_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let b = Backend::load(BackendKind::Cuda).expect("the CUDA backend is compiled in");
        assert!(!b.compiler_loaded());
        let report: Vec<String> = b
            .libraries()
            .into_iter()
            .filter_map(|l| l.status.err().map(|e| e.to_string()))
            .collect();
        println!("REPORT {}", report.join(" | "));
        return;
    }
    // Under CI the real library is installed (ci/fetch-inputs.sh): missing it fails there.
    let on_ci = std::env::var_os("CI").is_some();
    let Ok(cuda_path) = std::env::var("CUDA_PATH") else {
        assert!(
            !on_ci,
            "CUDA_PATH unset under CI: no real libnvrtc to truncate"
        );
        eprintln!("SKIP: CUDA_PATH unset (no real libnvrtc to truncate)");
        return;
    };
    let real = std::path::Path::new(&cuda_path).join("lib/libnvrtc.so.13");
    let Ok(mut f) = std::fs::File::open(&real) else {
        assert!(!on_ci, "no {} under CI", real.display());
        eprintln!("SKIP: no {}", real.display());
        return;
    };
    let dir = std::env::temp_dir().join(format!("anycuda-badlib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("libnvrtc-truncated.so");
    let mut head = vec![0u8; 8 << 20];
    std::io::Read::read_exact(&mut f, &mut head).unwrap();
    std::fs::write(&cut, &head).unwrap();
    let text = dir.join("libnvrtc-text.so");
    std::fs::write(
        &text,
        "/* GNU ld script */\nINPUT(libnvrtc.so.13)\n".repeat(5),
    )
    .unwrap();
    let sub = dir.join("libnvrtc-dir.so");
    std::fs::create_dir_all(&sub).unwrap();
    let fifo = dir.join("libnvrtc-fifo.so");
    let have_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut cases = vec![(cut, "truncated"), (text, "ELF magic"), (sub, "directory")];
    if have_fifo {
        cases.push((fifo, "FIFO"));
    }
    for (path, why) in cases {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "bad_library_files_are_load_errors_nvrtc",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .env("ANYCUDA_NVRTC_LIBRARY", &path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("{}: the load hung", path.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let o = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(status.success(), "{}: {status}\n{out}", path.display());
        let line = out
            .lines()
            .find(|l| l.starts_with("REPORT"))
            .unwrap_or_default();
        assert!(
            line.contains(why) && line.contains(path.to_str().unwrap()),
            "{}: {line}",
            path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
