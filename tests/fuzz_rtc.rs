//! Bounded fuzzing of the NVRTC API on both compilers (NVRTC 13.5, hipRTC 5.2.3; hipRTC 5.7.1
//! and 6.4.3 through `ci/rocm.sh`), run by `.ci/run` as its own step:
//!
//! ```sh
//! cargo test -p anycuda --test fuzz_rtc -- --ignored --nocapture
//! ```
//!
//! The parent test runs the cases in child processes (this same test binary, re-entered through
//! `ANYCUDA_FUZZ_CHILD`), so an abort inside a vendor library is counted, not fatal, and the
//! run goes on after it. Every case is derived from `(seed, index)` alone, so one case can be
//! replayed: the summary prints the command. The summary line reads
//! `fuzz: seed S: N cases (...), A aborts, P panics`; the test fails unless both are 0.
//!
//! Options are drawn from the whole option table (`anycuda::nvrtc::options`: every option, both
//! spellings, every form — `=`, two entries, glued, bare — with valid and invalid values of its
//! class and odd values), and sources from deep expressions of every class the depth scanner
//! bounds (brackets, prefix operators, `*&`, casts, `?:`, assignments, template angles,
//! unbraced `if`, `else if`, depth-building macros), below and above the bound. Most cases are
//! cheap (handle sequences, name expressions, option lists ending in an option every compiler
//! rejects); a bounded share compiles for real. A third of the cases run on a fresh 2 MiB
//! thread.
//!
//! Knobs: `ANYCUDA_FUZZ_SEED` (default 11), `ANYCUDA_FUZZ_CASES` per compiler (default 15000),
//! `ANYCUDA_FUZZ_CASE=kind:index` to replay one case in this process,
//! `ANYCUDA_FUZZ_ONLY=cuda|hip` to fuzz one compiler (the ROCm runs).

mod common;

use anycuda::nvrtc::options::{invalid_samples, valid_samples, Spec, Value, HIP_EXTRA, NVRTC_13_5};
use anycuda::nvrtc::{nvrtcProgram, nvrtcResult as R};
use anycuda::{Backend, BackendKind, CudaEnum, Rtc};
use core::ffi::c_char;
use std::ffi::CString;
use std::io::Write;
use std::process::{Command, Stdio};
use std::ptr::{null, null_mut};

const CHILD_ENV: &str = "ANYCUDA_FUZZ_CHILD";
const BATCH: u64 = 1000;

/// splitmix64: small, deterministic, good enough to pick cases.
struct Rng(u64);
impl Rng {
    fn new(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Option names outside the table (unknown to NVRTC, or near misses of real spellings).
const UNKNOWN_NAMES: &[&str] = &[
    "--nvvm-options",
    "--Xnvvm",
    "-Xcudafe",
    "--arch",
    "-gpu-architecture",
    "--dc",
    "-O3",
    "-x",
    "--uumn",
    "--tile-only",
    "",
    "-",
    "--",
];
/// Odd values, tried with every option.
const OPTION_VALUES: &[&str] = &[
    "",
    " ",
    "\t",
    "\n",
    "\x0b",
    ",",
    "=",
    "-",
    "+",
    "sm_90",
    "compute_90",
    "lto_90",
    "sm_9999",
    "gfx90a",
    "gfx942",
    "gfx9999",
    "gfx90a:xnack",
    "on",
    "true",
    "false",
    "c++17",
    "-v",
    "X=1",
    "/nonexistent",
    "0",
    "-1",
    "101",
    "102",
    "2147483647",
    "2147483648",
    "-2147483649",
    "99999999999999999999",
    "0x10",
    "1,,2",
    "\u{e9}",
    "%s%n",
];
/// Every compiler rejects this; ending a list with it keeps a case to option parsing.
const POISON: &str = "--anycuda-fuzz-no-such-option";

const KERNEL: &str = "extern \"C\" __global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n\
template <typename T> __global__ void t(T *p) { p[0] = T(1); }\n";

/// One option, drawn from the whole table (every option, both spellings, every form: `=`,
/// two entries, glued, bare) with a valid or invalid value of its class or an odd one, or an
/// unknown name; sometimes mutated byte by byte. Two entries come back as two strings.
fn option(rng: &mut Rng) -> Vec<String> {
    let all: Vec<&Spec> = NVRTC_13_5.iter().chain(HIP_EXTRA).collect();
    let (name, value) = if rng.chance(8) {
        (
            (*rng.pick(UNKNOWN_NAMES)).to_owned(),
            (*rng.pick(OPTION_VALUES)).to_owned(),
        )
    } else {
        let spec = *rng.pick(&all);
        let name = match spec.short {
            Some(s) if rng.chance(50) => s,
            _ => spec.long,
        };
        let value = match rng.below(3) {
            0 => rng.pick(&valid_samples(spec)).clone(),
            1 => rng.pick(&invalid_samples(spec)).clone(),
            _ => (*rng.pick(OPTION_VALUES)).to_owned(),
        };
        (name.to_owned(), value)
    };
    let mut v = match rng.below(8) {
        0 => vec![name],
        1 => vec![name, value],
        2 => vec![format!("{name}{value}")],
        3 => vec![format!("{name} {value}")],
        _ => vec![format!("{name}={value}")],
    };
    if rng.chance(10) {
        // Byte-level mutation of one entry: drop, duplicate or flip one character.
        let k = rng.below(v.len() as u64) as usize;
        let mut b = std::mem::take(&mut v[k]).into_bytes();
        if !b.is_empty() {
            let i = rng.below(b.len() as u64) as usize;
            match rng.below(3) {
                0 => {
                    b.remove(i);
                }
                1 => b.insert(i, b[i]),
                _ => b[i] = (rng.below(255) + 1) as u8,
            }
        }
        v[k] = String::from_utf8_lossy(&b).into_owned();
    }
    v.into_iter().map(|s| s.replace('\0', "")).collect()
}

/// A list of options every one of which is valid in the table (so it reaches the compiler).
fn valid_options(rng: &mut Rng, kind: BackendKind) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let spec = rng.pick(NVRTC_13_5);
        // Options whose valid values write files or need companions stay out of real compiles.
        if matches!(
            spec.long,
            "--time"
                | "--fdevice-time-trace"
                | "--create-pch"
                | "--use-pch"
                | "--pch-dir"
                | "--pch"
                | "--gpu-architecture"
                | "--device-float128"
                | "--numba-debug"
                | "--pre-include"
                | "--device-c"
                | "--device-w"
                | "--extensible-whole-program"
        ) {
            continue;
        }
        let name = match spec.short {
            Some(s) if rng.chance(50) => s,
            _ => spec.long,
        };
        if spec.value == Value::Flag {
            out.push(name.to_owned());
        } else {
            let v = rng.pick(&valid_samples(spec)).clone();
            if !spec.eq_only && rng.chance(30) {
                out.push(name.to_owned());
                out.push(v);
            } else {
                out.push(format!("{name}={v}"));
            }
        }
    }
    if kind == BackendKind::Hip && rng.chance(50) {
        out.push("-I".to_owned());
        out.push("/tmp".to_owned());
    }
    out
}

/// A name expression; `long` is the longest filler (hipRTC takes seconds per 10 KB compiled).
fn name_expression(rng: &mut Rng, long: u64) -> Vec<u8> {
    let base: &[u8] = match rng.below(8) {
        0 => b"",
        1 => b" ",
        2 => b"k",
        3 => b"t<float>",
        4 => b"&t<int>",
        5 => b"t<",
        6 => b"::k",
        _ => b"t<t<t<int>>>",
    };
    let mut v = base.to_vec();
    match rng.below(5) {
        0 => v.extend(std::iter::repeat_n(b'<', rng.below(5000) as usize)),
        1 => v.extend((0..rng.below(64)).map(|_| (rng.below(255) + 1) as u8)),
        2 => v.extend(std::iter::repeat_n(b'x', rng.below(long) as usize)),
        _ => {}
    }
    v
}

/// A source nested deep by one class of construct: brackets of each kind, prefix operators
/// (with and without spaces), `*&`, casts, ternaries, assignment chains, template angle
/// brackets, unbraced `if` nesting, `else if` chains, and macros that build depth at their
/// expansion (object-like unbalanced, function-like wrapping), below and above the bound.
fn deep_source(rng: &mut Rng) -> String {
    // Below the bound only shallow ones (a 5,000-deep compile takes seconds and proves no
    // more); above it every depth is refused before the compiler, in microseconds.
    let depth = *rng.pick(&[300usize, 100_001, 150_000, 500_000]);
    let f = "__device__ int f(int x) { return ";
    match rng.below(14) {
        0..=2 => {
            let (open, close) = *rng.pick(&[("(", ")"), ("{", "}"), ("[", "]")]);
            let body = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            if rng.chance(50) {
                format!("__device__ int f() {{ return {body}; }}")
            } else {
                format!("void f() {}", open.repeat(depth))
            }
        }
        3 => format!("{f}{}x; }}", "-".repeat(depth)),
        4 => format!(
            "{f}{}x; }}",
            rng.pick(&["- ", "! ", "~", "+ "]).repeat(depth)
        ),
        5 => format!("{f}{}x; }}", "*&".repeat(depth / 2)),
        6 => format!("{f}{}x; }}", "(int)".repeat(depth)),
        7 => format!("{f}{}0; }}", "x?1:".repeat(depth)),
        8 => format!("__device__ void g(int x) {{ {}0; }}", "x=".repeat(depth)),
        9 => format!(
            "template <class T> struct A {{}}; A<{}int{}> a;",
            "A<".repeat(depth),
            ">".repeat(depth)
        ),
        10 => format!(
            "__device__ void g(int a) {{ {} a = 1; }}",
            "if (a) ".repeat(depth)
        ),
        11 => format!(
            "__device__ void g(int a) {{ if (a) a = 1; {} }}",
            "else if (a) a = 1; ".repeat(depth)
        ),
        12 => {
            let levels = depth.ilog2();
            let mut s = String::from("#define L0 (\n");
            for k in 1..=levels {
                s.push_str(&format!("#define L{k} L{} L{}\n", k - 1, k - 1));
            }
            s.push_str(&format!("__device__ int g() {{ return L{levels} 1; }}\n"));
            s
        }
        _ => {
            let levels = depth.ilog2();
            let mut s = String::from("#define W0(x) (-(x))\n");
            for k in 1..=levels {
                s.push_str(&format!("#define W{k}(x) W{}(W{}(x))\n", k - 1, k - 1));
            }
            s.push_str(&format!(
                "__device__ int g(int y) {{ return W{levels}(y); }}\n"
            ));
            s
        }
    }
}

/// Large inputs that a compiler can get through quickly (a redefinition per line takes
/// hipRTC minutes: that is slow, not broken, and left out).
fn huge_source(rng: &mut Rng) -> String {
    let size = ((1 + rng.below(4)) as usize) << 20;
    match rng.below(3) {
        0 => format!("#if 0\n{}\n#endif\n{KERNEL}", "x".repeat(size)),
        1 => (0..64 << 10)
            .map(|_| (b' ' + rng.below(95) as u8) as char)
            .collect(),
        _ => format!("/*{}*/{KERNEL}", "*".repeat(size)),
    }
}

fn arch(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Cuda => "--gpu-architecture=compute_90",
        BackendKind::Hip => "--gpu-architecture=gfx90a",
    }
}

fn cstring(bytes: impl Into<Vec<u8>>) -> CString {
    let mut v: Vec<u8> = bytes.into();
    v.retain(|&b| b != 0); // the C API cannot carry NUL: that is the safe layer's check
    CString::new(v).unwrap()
}

fn create(b: Backend, src: &str) -> nvrtcProgram {
    let src = cstring(src);
    let mut p = null_mut();
    let r =
        // SAFETY: `p` is a live local for the handle; `src` (a `CString`) and the `f.cu` literal
        // are NUL-terminated and outlive the call; zero headers with null arrays.
        unsafe { b.nvrtcCreateProgram(&mut p, src.as_ptr(), c"f.cu".as_ptr(), 0, null(), null()) };
    assert_eq!(r, R::NVRTC_SUCCESS);
    p
}

fn compile(b: Backend, p: nvrtcProgram, opts: &[String]) -> R {
    let c: Vec<CString> = opts.iter().map(|o| cstring(o.as_bytes())).collect();
    let ptrs: Vec<*const c_char> = c.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `ptrs` holds `ptrs.len()` pointers into the `CString`s of `c`, which outlive the
    // call.
    let r = unsafe { b.nvrtcCompileProgram(p, ptrs.len() as i32, ptrs.as_ptr()) };
    assert!(r.name().is_some(), "unknown result {r:?}");
    // The log is always readable and NUL-terminated after a compile.
    let mut n = 0;
    assert_eq!(
        // SAFETY: `n` is a live local `usize` for the size; a program handle is only a key that the
        // backend looks up in its table (never dereferenced), so stale or made-up ones are safe to
        // pass.
        unsafe { b.nvrtcGetProgramLogSize(p, &mut n) },
        R::NVRTC_SUCCESS
    );
    let mut buf = vec![1u8; n];
    assert_eq!(
        // SAFETY: `buf` has the `n` bytes that `nvrtcGetProgramLogSize` just reported for `p`, and
        // nothing compiles `p` in between.
        unsafe { b.nvrtcGetProgramLog(p, buf.as_mut_ptr().cast()) },
        R::NVRTC_SUCCESS
    );
    assert_eq!(buf.last(), Some(&0));
    r
}

fn destroy(b: Backend, mut p: nvrtcProgram) {
    // SAFETY: `p` is a live local holding the handle to destroy; a program handle is only a key
    // that the backend looks up in its table (never dereferenced), so stale or made-up ones are
    // safe to pass.
    assert_eq!(unsafe { b.nvrtcDestroyProgram(&mut p) }, R::NVRTC_SUCCESS);
}

/// What one case did, for the summary.
#[derive(Clone, Copy)]
enum Did {
    Cheap,
    Compiled,
}

/// One case: everything derives from `(seed, index)`.
fn case(kind: BackendKind, b: Backend, seed: u64, index: u64) -> Did {
    let mut rng = Rng::new(seed ^ kind as u64, index);
    let roll = rng.below(100);
    match roll {
        // Handle sequences: live, destroyed, made-up and null handles.
        0..=34 => {
            let mut live = Vec::new();
            let mut dead = Vec::new();
            for _ in 0..1 + rng.below(12) {
                match rng.below(6) {
                    0 | 1 => live.push(create(b, KERNEL)),
                    2 if !live.is_empty() => {
                        let i = rng.below(live.len() as u64) as usize;
                        let p = live.swap_remove(i);
                        destroy(b, p);
                        dead.push(p);
                    }
                    3 => {
                        let p = if !dead.is_empty() && rng.chance(60) {
                            *rng.pick(&dead)
                        } else {
                            rng.next() as usize as nvrtcProgram
                        };
                        let mut n = 0;
                        let mut low = null();
                        let mut q = p;
                        // SAFETY: a program handle is only a key that the backend looks up in its
                        // table (never dereferenced), so stale or made-up ones are safe to pass;
                        // `n`, `low` and `q` are live locals and the name is a NUL-terminated
                        // literal.
                        unsafe {
                            assert_eq!(
                                b.nvrtcGetPTXSize(p, &mut n),
                                R::NVRTC_ERROR_INVALID_PROGRAM
                            );
                            assert_eq!(
                                b.nvrtcAddNameExpression(p, c"k".as_ptr()),
                                R::NVRTC_ERROR_INVALID_PROGRAM
                            );
                            assert_eq!(
                                b.nvrtcGetLoweredName(p, c"k".as_ptr(), &mut low),
                                R::NVRTC_ERROR_INVALID_PROGRAM
                            );
                            assert_eq!(
                                b.nvrtcDestroyProgram(&mut q),
                                R::NVRTC_ERROR_INVALID_PROGRAM
                            );
                        }
                    }
                    // SAFETY: `nvrtcGetErrorString` takes any result value by value and returns a
                    // static string (unknown codes get a fallback); nothing is dereferenced here.
                    4 => unsafe {
                        let s = b.nvrtcGetErrorString(R(rng.next() as u32));
                        assert!(!s.is_null());
                    },
                    _ if !live.is_empty() => {
                        let p = *rng.pick(&live);
                        let mut n = 0;
                        // SAFETY: `p` is a live program of this thread; `n` is a live local, and
                        // the null out-pointers are what these calls must refuse with
                        // `NVRTC_ERROR_INVALID_INPUT`.
                        unsafe {
                            assert_eq!(b.nvrtcGetPTXSize(p, &mut n), R::NVRTC_SUCCESS);
                            assert_eq!(
                                b.nvrtcGetPTXSize(p, null_mut()),
                                R::NVRTC_ERROR_INVALID_INPUT
                            );
                            assert_eq!(
                                b.nvrtcGetProgramLog(p, null_mut()),
                                R::NVRTC_ERROR_INVALID_INPUT
                            );
                        }
                    }
                    _ => {}
                }
            }
            for p in live {
                destroy(b, p);
            }
            Did::Cheap
        }
        // Name expressions, before any compile.
        35..=59 => {
            let p = create(b, KERNEL);
            for _ in 0..1 + rng.below(4) {
                let e = cstring(name_expression(&mut rng, 100_000));
                // SAFETY: `p` is a live program from `create`; `e` is a `CString` (NUL-terminated)
                // that outlives the call.
                let r = unsafe { b.nvrtcAddNameExpression(p, e.as_ptr()) };
                assert!(r.name().is_some(), "{r:?}");
                let mut low = null();
                // SAFETY: `p` is a live program; `e` is a NUL-terminated `CString` and `low` a live
                // local for the answer.
                let r = unsafe { b.nvrtcGetLoweredName(p, e.as_ptr(), &mut low) };
                assert_eq!(r, R::NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
            }
            destroy(b, p);
            Did::Cheap
        }
        // Option lists stopped at parsing by the poison option.
        60..=93 => {
            let p = create(b, KERNEL);
            let mut opts: Vec<String> = (0..1 + rng.below(6))
                .flat_map(|_| option(&mut rng))
                .collect();
            opts.push(POISON.to_owned());
            let r = compile(b, p, &opts);
            destroy(b, p);
            // A trailing value-taking option can swallow the poison: then it really compiled.
            if r == R::NVRTC_ERROR_INVALID_OPTION {
                Did::Cheap
            } else {
                Did::Compiled
            }
        }
        // Deep sources of every class, compiled with the arch alone (over the bound: refused
        // before the compiler; under it: compiled).
        94..=96 => {
            let src = deep_source(&mut rng);
            if std::env::var_os("ANYCUDA_FUZZ_CASE").is_some() {
                let head: String = src.chars().take(60).collect();
                eprintln!(
                    "deep case: {} bytes, depth {}: {head}",
                    src.len(),
                    anycuda_depth(&src)
                );
            }
            let p = create(b, &src);
            let r = compile(b, p, &[arch(kind).to_owned()]);
            if anycuda_depth(&src) > anycuda_rtc::rtc_input::MAX_NESTING {
                assert_eq!(r, R::NVRTC_ERROR_COMPILATION, "over the bound");
            }
            destroy(b, p);
            Did::Compiled
        }
        // Real compiles: valid or random options, name expressions, huge sources.
        _ => {
            let src = match rng.below(4) {
                0 if rng.chance(25) => huge_source(&mut rng),
                _ => KERNEL.to_owned(),
            };
            let p = create(b, &src);
            let e = cstring(name_expression(&mut rng, 2_000));
            if std::env::var_os("ANYCUDA_FUZZ_CASE").is_some() {
                eprintln!(
                    "compile case: source {} bytes (depth {}), name expression {} bytes",
                    src.len(),
                    anycuda_depth(&src),
                    e.as_bytes().len()
                );
            }
            // SAFETY: `p` is a live program from `create`; `e` is a NUL-terminated `CString` that
            // outlives the call.
            unsafe { b.nvrtcAddNameExpression(p, e.as_ptr()) };
            let mut opts = vec![arch(kind).to_owned()];
            match rng.below(3) {
                0 => opts.extend(option(&mut rng)),
                1 => opts.extend(valid_options(&mut rng, kind)),
                _ => {}
            }
            let r = compile(b, p, &opts);
            let mut n = 0;
            // SAFETY: `p` is a live program; `n` is a live local `usize` for the size.
            assert_eq!(unsafe { b.nvrtcGetPTXSize(p, &mut n) }, R::NVRTC_SUCCESS);
            if r != R::NVRTC_SUCCESS {
                let mut low = null();
                assert_eq!(
                    // SAFETY: `p` is a live program; `e` is a NUL-terminated `CString` and `low` a
                    // live local for the answer.
                    unsafe { b.nvrtcGetLoweredName(p, e.as_ptr(), &mut low) },
                    R::NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION
                );
            }
            destroy(b, p);
            Did::Compiled
        }
    }
}

fn anycuda_depth(s: &str) -> usize {
    anycuda_rtc::rtc_input::nesting_depth(s.as_bytes())
}

fn kind_of(s: &str) -> BackendKind {
    if s == "cuda" {
        BackendKind::Cuda
    } else {
        BackendKind::Hip
    }
}

/// The child: runs cases `first..first + count`, announcing each before it starts.
fn child(spec: &str) {
    let f: Vec<&str> = spec.split(':').collect();
    let kind = kind_of(f[0]);
    let (seed, first, count): (u64, u64, u64) = (
        f[1].parse().unwrap(),
        f[2].parse().unwrap(),
        f[3].parse().unwrap(),
    );
    let b = common::compiler(kind).expect("compiler present (checked by the parent)");
    let mut out = std::io::stdout().lock();
    for i in first..first + count {
        writeln!(out, "start {i}").unwrap();
        out.flush().unwrap();
        let threaded = Rng::new(seed, i).chance(33);
        let did = if threaded {
            std::thread::spawn(move || case(kind, b, seed, i))
                .join()
                .expect("case panicked")
        } else {
            case(kind, b, seed, i)
        };
        let tag = match did {
            Did::Cheap => "cheap",
            Did::Compiled => "compiled",
        };
        writeln!(out, "end {i} {tag}").unwrap();
    }
}

#[derive(Default, Debug)]
struct Tally {
    cases: u64,
    compiled: u64,
    aborts: Vec<u64>,
    panics: Vec<u64>,
}

/// Runs cases `0..total` of one compiler in batches of child processes; a child that dies is
/// restarted after the case it died in.
fn run_compiler(kind: BackendKind, seed: u64, total: u64) -> Tally {
    // Under ci/rocm.sh's loader, current_exe is the loader itself: argv[0] is this binary.
    let exe = match std::env::var_os("ROCM_LOADER") {
        Some(_) => std::path::PathBuf::from(std::env::args_os().next().unwrap()),
        None => std::env::current_exe().unwrap(),
    };
    // Children run in a scratch directory: the path must not be relative.
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let mut t = Tally::default();
    let mut next = 0;
    while next < total {
        let count = BATCH.min(total - next);
        let name = if kind == BackendKind::Cuda {
            "cuda"
        } else {
            "hip"
        };
        // Under ci/rocm.sh (a newer ROCm), children need that release's loader too.
        let mut cmd = match (
            std::env::var_os("ROCM_LOADER"),
            std::env::var_os("ROCM_LIBRARY_PATH"),
        ) {
            (Some(loader), Some(libs)) => {
                let mut c = Command::new(loader);
                c.arg("--library-path").arg(libs).arg(&exe);
                c
            }
            _ => Command::new(&exe),
        };
        // Options such as `--fdevice-time-trace=X` and `-time=X` make the compiler write files
        // relative to the working directory: keep them out of the repository.
        let scratch =
            std::env::temp_dir().join(format!("anycuda-fuzz-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        let o = cmd
            .current_dir(&scratch)
            .args([
                "fuzz_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, format!("{name}:{seed}:{next}:{count}"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let mut last_start = None;
        let mut done = 0;
        for line in stdout.lines() {
            let w: Vec<&str> = line.split(' ').collect();
            match w.as_slice() {
                ["start", i] => last_start = i.parse::<u64>().ok(),
                ["end", _, tag] => {
                    done += 1;
                    t.compiled += u64::from(*tag == "compiled");
                    last_start = None;
                }
                _ => {}
            }
        }
        t.cases += done;
        let ended = next + done;
        match (o.status.success(), last_start) {
            (true, _) => next = ended,
            (false, Some(i)) => {
                use std::os::unix::process::ExitStatusExt;
                t.cases += 1;
                if o.status.signal().is_some() {
                    t.aborts.push(i);
                } else {
                    t.panics.push(i);
                }
                let err = String::from_utf8_lossy(&o.stderr);
                eprintln!(
                    "fuzz: {name} case {i} died ({}); replay: ANYCUDA_FUZZ_SEED={seed} \
                     ANYCUDA_FUZZ_CASE={name}:{i} cargo test -p anycuda --test fuzz_rtc -- \
                     --ignored --nocapture fuzz_child\n{}",
                    o.status,
                    err.lines().rev().take(8).collect::<Vec<_>>().join("\n")
                );
                next = i + 1;
            }
            (false, None) => panic!(
                "fuzz child failed outside a case: {}\n{}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ),
        }
    }
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!(
        "anycuda-fuzz-{}-{}",
        std::process::id(),
        if kind == BackendKind::Cuda {
            "cuda"
        } else {
            "hip"
        }
    )));
    t
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The entry point of the child processes (and of a one-case replay).
#[test]
#[ignore = "run by fuzz_rtc_both_compilers in child processes"]
fn fuzz_child() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        child(&spec);
    } else if let Ok(one) = std::env::var("ANYCUDA_FUZZ_CASE") {
        let (k, i) = one.split_once(':').expect("kind:index");
        let kind = kind_of(k);
        let b = common::compiler(kind).expect("compiler");
        let seed = env_u64("ANYCUDA_FUZZ_SEED", 11);
        let i: u64 = i.parse().unwrap();
        case(kind, b, seed, i);
    }
}

#[test]
#[ignore = "bounded-time fuzzing: the fuzz step of .ci/run runs it"]
fn fuzz_rtc_both_compilers() {
    let seed = env_u64("ANYCUDA_FUZZ_SEED", 11);
    let per = env_u64("ANYCUDA_FUZZ_CASES", 15_000);
    let started = std::time::Instant::now();
    let only = std::env::var("ANYCUDA_FUZZ_ONLY").ok();
    let kinds: Vec<BackendKind> = [BackendKind::Cuda, BackendKind::Hip]
        .into_iter()
        .filter(|k| only.as_deref().is_none_or(|o| kind_of(o) == *k))
        .filter(|k| common::compiler(*k).is_some())
        .collect();
    let runs: Vec<_> = kinds
        .iter()
        .map(|&k| (k, std::thread::spawn(move || run_compiler(k, seed, per))))
        .collect();
    let mut total = Tally::default();
    let mut parts = Vec::new();
    for (k, h) in runs {
        let t = h.join().unwrap();
        parts.push(format!("{k} {} ({} compiled)", t.cases, t.compiled));
        total.cases += t.cases;
        total.compiled += t.compiled;
        total.aborts.extend(t.aborts);
        total.panics.extend(t.panics);
    }
    eprintln!(
        "fuzz: seed {seed}: {} cases ({}), {} aborts, {} panics, {:.0} s",
        total.cases,
        parts.join(", "),
        total.aborts.len(),
        total.panics.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        total.aborts.is_empty() && total.panics.is_empty(),
        "{total:?}"
    );
}
