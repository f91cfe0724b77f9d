//! `anycuda demo`: anycuda doing its main job on this machine.
//!
//! With a GPU on the active backend: SAXPY compiled at run time with the safe layer
//! (`anycuda::core`), run on device 0, every element checked against the host. Without one: the
//! same kernel compiled for both vendors (NVRTC: cubins and PTX; hipRTC: AMD code objects for
//! targets the loaded hipRTC knows), and what is missing to run it.
//!
//! Exit status: 0 when it did what the machine allows (ran and checked; or, with no GPU,
//! compiled with every compiler that loads; or found no compiler at all, with or without a
//! GPU), 1 on a real failure (a wrong element, a failed compile or call, an invalid
//! `ANYCUDA_BACKEND`), and 1 when it could not run the kernel under `ANYCUDA_REQUIRE_GPU=1`
//! (the GPU runner's setting).

use super::missing;
use anycuda::core::{
    launch, Buffer, CodeType, CoreError, Device, EventOptions, LaunchConfig, Program,
    ProgramOptions, StreamOptions,
};
use anycuda::{Backend, BackendKind, Rtc, SelectError};
use serde_json::{json, Value};
use std::process::ExitCode;
use std::time::Instant;

/// The kernel, as the README shows it.
pub const SAXPY: &str = r#"extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"#;

const A: f32 = 2.0;

/// The inputs: small integers and halves, so `a * x + y` is exact in `f32` whether or not the
/// compiler contracts it into an FMA, and every element can be compared for equality.
fn x_at(i: usize) -> f32 {
    (i % 4096) as f32
}
fn y_at(i: usize) -> f32 {
    (i % 7) as f32 * 0.5
}

/// NVIDIA targets tried without a GPU (kept when NVRTC lists them), and who runs a cubin of
/// each: a cubin runs on its compute capability's major version, at or above its minor.
const NVIDIA_TARGETS: &[(u32, &str)] = &[
    (
        80,
        "compute capability 8.x: A100, A10, L4, L40, RTX 30xx/40xx",
    ),
    (90, "compute capability 9.0: H100, H200, GH200"),
    (100, "compute capability 10.x: B200, GB200, B300"),
    (120, "compute capability 12.x: RTX 50xx, RTX PRO Blackwell"),
];

/// AMD targets tried without a GPU (kept when the loaded hipRTC knows them); an AMD code
/// object runs on its own processor only.
const AMD_TARGETS: &[(&str, &str)] = &[
    ("gfx90a", "MI210, MI250, MI250X"),
    ("gfx942", "MI300A, MI300X, MI325X"),
    ("gfx950", "MI350X, MI355X"),
    ("gfx1030", "RX 6800/6900, PRO W6800"),
    ("gfx1100", "RX 7900, PRO W7900"),
    ("gfx1201", "RX 9070"),
];

const EM_CUDA: u16 = 190;
const EM_AMDGPU: u16 = 224;

/// One compile for one target without a GPU.
struct Target {
    target: String,
    runs_on: String,
    /// What the code is, bytes, milliseconds; or the error.
    result: Result<(&'static str, usize, f64), String>,
}

/// One backend's compiler as the no-GPU path sees it.
struct Vendor {
    backend: BackendKind,
    /// "NVRTC 13.5 (/path)", or why there is no compiler (every path tried).
    compiler: Result<String, String>,
    /// Why there is no compiler, short, with how to get it (the text report's).
    compiler_short: String,
    /// Why this backend cannot run the kernel here (every path tried).
    cannot_run: String,
    /// The same, short, with how to get what is missing.
    cannot_run_short: String,
    targets: Vec<Target>,
}

/// The GPU run.
struct Ran {
    device: String,
    arch: String,
    memory_mib: usize,
    elements: usize,
    code: (&'static str, usize),
    compile_ms: f64,
    copy_in_ms: f64,
    kernel_ms: f64,
    copy_back_ms: f64,
    wrong: Vec<(usize, f32, f32)>,
    wrong_count: usize,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn run_on_gpu(elements: usize) -> Result<Ran, CoreError> {
    let dev = Device::new(0)?;
    let ctx = dev.set_current()?;
    let stream = ctx.create_stream(StreamOptions::default())?;
    let t = Instant::now();
    // The arch is the current device's (the context is current). On CUDA a cubin (no JIT at
    // load). On HIP, NVRTC's "PTX" is the code HIP's platform loads: the AMD code object, or
    // PTX on HIP's NVIDIA platform, where a cubin request also returns PTX, which
    // `Program::compile` labels a cubin and the loader then refuses.
    let target = match anycuda::backend().map(|s| s.kind()) {
        Ok(BackendKind::Cuda) => CodeType::Cubin,
        _ => CodeType::Ptx,
    };
    let mut prog = Program::new(SAXPY, ProgramOptions::new().name("saxpy.cu"))?;
    let code = prog.compile(target)?;
    let kernel = code.kernel("saxpy")?;
    let compile_ms = ms(t);

    let x: Vec<f32> = (0..elements).map(x_at).collect();
    let y: Vec<f32> = (0..elements).map(y_at).collect();
    let t = Instant::now();
    let dx = Buffer::from_slice(&stream, &x)?;
    let mut dy = Buffer::from_slice(&stream, &y)?;
    stream.synchronize()?;
    let copy_in_ms = ms(t);

    let n = u32::try_from(elements).map_err(|_| {
        CoreError::usage("anycuda demo", "more elements than the kernel's unsigned n")
    })?;
    let cfg = LaunchConfig::for_num_elems(n, 256);
    let start = stream.record(EventOptions::timing())?;
    // SAFETY: saxpy reads x[i] and writes y[i] for i < n only, and n is the length of both
    // buffers; x is passed as `&Buffer` and only read; the arguments are what its parameters
    // expect (float, two float pointers, unsigned); no host borrow of either buffer exists;
    // the stream is not capturing.
    unsafe { launch(&stream, &cfg, &kernel, (A, &dx, &mut dy, n))? };
    let end = stream.record(EventOptions::timing())?;
    end.synchronize()?;
    let kernel_ms = f64::from(start.elapsed_ms(&end)?);

    let t = Instant::now();
    let out = dy.to_vec()?;
    let copy_back_ms = ms(t);

    let mut wrong = Vec::new();
    let mut wrong_count = 0;
    for (i, &got) in out.iter().enumerate() {
        let want = A * x[i] + y[i];
        if got != want {
            wrong_count += 1;
            if wrong.len() < 5 {
                wrong.push((i, got, want));
            }
        }
    }
    if out.len() != elements {
        wrong_count += elements.abs_diff(out.len());
    }
    Ok(Ran {
        device: dev.name()?,
        arch: dev.arch()?,
        memory_mib: dev.total_memory()? >> 20,
        elements,
        code: (code_name(code.code()), code.code().len()),
        compile_ms,
        copy_in_ms,
        kernel_ms,
        copy_back_ms,
        wrong,
        wrong_count,
    })
}

/// Why `b` cannot run the kernel here: its driver library, or its device count; in full (every
/// path tried) and short (with how to get a missing driver library).
fn cannot_run(b: Backend) -> (String, String) {
    let same = |s: String| (s.clone(), s);
    match anycuda::device_count(b) {
        Ok(0) => same("its driver loads, but it sees no device".into()),
        Ok(n) => same(format!("{n} device(s), but another backend is active")),
        Err(anycuda::DeviceCountError::Call { call, error }) => same(format!(
            "its driver loads, but it sees no device ({call}: {})",
            error.code()
        )),
        Err(e) => {
            let short = match &e {
                anycuda::DeviceCountError::MissingLibrary { role, error } => {
                    missing::with_hint(*role, error)
                }
                other => other.to_string(),
            };
            (e.to_string(), short)
        }
    }
}

/// "NVRTC 13.5 (/path)", or why the compiler did not load: in full (every path tried) and
/// short, with how to get it.
fn compiler_of(b: Backend) -> Result<String, (String, String)> {
    let libs = b.libraries();
    let mut why = Vec::new();
    let mut short = Vec::new();
    // hipRTC's own version (hiprtcVersion) says 9.0 in ROCm 5.2 and 6.4 alike: name HIP's.
    let hip = libs.iter().find_map(|l| match (&l.role, &l.status) {
        (anycuda::LibraryRole::Hip, Ok(ok)) => Some(ok.version.clone()),
        _ => None,
    });
    for l in libs.iter().filter(|l| l.role.is_compiler()) {
        match (&l.status, l.role, &hip) {
            (Ok(ok), anycuda::LibraryRole::Hiprtc, Some(v)) => {
                return Ok(format!("{} of HIP {v} ({})", l.role, ok.path))
            }
            (Ok(ok), ..) => return Ok(format!("{} {} ({})", l.role, ok.version, ok.path)),
            (Err(e), ..) => {
                why.push(format!("{}: {e}", l.role));
                // The hint of the first library that failed so (HIP's, not hipRTC's).
                let first = missing::first_with(&libs, e).unwrap_or(l.role);
                short.push(missing::with_hint(first, e));
            }
        }
    }
    if why.is_empty() {
        let none = "no runtime compiler".to_string();
        return Err((none.clone(), none));
    }
    Err((why.join("; "), short.join("; ")))
}

/// The sm_XX NVRTC lists (`nvrtcGetSupportedArchs`).
fn nvrtc_archs(b: Backend) -> Result<Vec<u32>, String> {
    let mut n = 0;
    // SAFETY: valid out-pointer.
    unsafe { b.nvrtcGetNumSupportedArchs(&mut n) }
        .result()
        .map_err(|e| format!("nvrtcGetNumSupportedArchs: {e}"))?;
    let mut v = vec![0; usize::try_from(n).unwrap_or(0)];
    // SAFETY: the array holds the count NVRTC just reported.
    unsafe { b.nvrtcGetSupportedArchs(v.as_mut_ptr()) }
        .result()
        .map_err(|e| format!("nvrtcGetSupportedArchs: {e}"))?;
    Ok(v.into_iter()
        .filter_map(|a| u32::try_from(a).ok())
        .collect())
}

/// The gfx processors the loaded hipRTC compiles for (asked of comgr where it is found), or why
/// none can be used.
#[cfg(feature = "backend-hip")]
fn hip_archs(b: Backend) -> Result<&'static [&'static str], String> {
    use anycuda::native::hip::{rtc_options::supported_archs, Platform};
    let h = b.as_hip().ok_or("not the HIP backend")?;
    if h.platform() == Platform::Nvidia {
        return Err(
            "HIP's NVIDIA platform is loaded: its compiler is NVRTC, not an AMD target".into(),
        );
    }
    Ok(supported_archs(h.hip_version()))
}
#[cfg(not(feature = "backend-hip"))]
fn hip_archs(_: Backend) -> Result<&'static [&'static str], String> {
    Err("the HIP backend is not compiled in".into())
}

/// Compiles SAXPY for one target and checks the output is that target's code with the kernel.
fn compile_for(
    b: Backend,
    arch: &str,
    want: CodeType,
) -> Result<(&'static str, usize, f64), String> {
    let t = Instant::now();
    let opts = ProgramOptions::new().name("saxpy.cu").arch(arch);
    let code = Program::with_backend(b, SAXPY, opts)
        .and_then(|mut p| p.compile(want))
        .map_err(|e| e.to_string())?;
    let took = ms(t);
    let bytes = code.code();
    let machine = elf_machine(bytes);
    let expected = match (b.kind(), want) {
        (_, CodeType::Ptx) if b.kind() == BackendKind::Cuda => None,
        (BackendKind::Cuda, _) => Some(EM_CUDA),
        _ => Some(EM_AMDGPU),
    };
    if machine != expected {
        return Err(format!(
            "the compiler's output is not the expected code (ELF machine {machine:?}, expected {expected:?})"
        ));
    }
    if !bytes.windows(5).any(|w| w == b"saxpy") {
        return Err("the compiler's output has no kernel named saxpy".into());
    }
    Ok((code_name(bytes), bytes.len(), took))
}

fn vendor(kind: BackendKind) -> Vendor {
    let mut v = Vendor {
        backend: kind,
        compiler: Err(String::new()),
        compiler_short: String::new(),
        cannot_run: String::new(),
        cannot_run_short: String::new(),
        targets: Vec::new(),
    };
    let b = match Backend::load(kind) {
        Ok(b) => b,
        Err(e) => {
            v.compiler = Err(e.to_string());
            v.compiler_short = e.to_string();
            v.cannot_run = e.to_string();
            v.cannot_run_short = e.to_string();
            return v;
        }
    };
    (v.cannot_run, v.cannot_run_short) = cannot_run(b);
    match compiler_of(b) {
        Ok(c) => v.compiler = Ok(c),
        Err((full, short)) => {
            v.compiler = Err(full);
            v.compiler_short = short;
            return v;
        }
    }
    match kind {
        BackendKind::Cuda => match nvrtc_archs(b) {
            Ok(listed) => {
                let chosen: Vec<&(u32, &str)> = NVIDIA_TARGETS
                    .iter()
                    .filter(|(sm, _)| listed.contains(sm))
                    .collect();
                for (sm, who) in &chosen {
                    v.targets.push(Target {
                        target: format!("sm_{sm}"),
                        runs_on: (*who).into(),
                        result: compile_for(b, &format!("sm_{sm}"), CodeType::Cubin),
                    });
                }
                // PTX for the oldest target: the driver compiles it for any newer GPU.
                if let Some(&&(sm, _)) = chosen.first() {
                    v.targets.push(Target {
                        target: format!("compute_{sm}"),
                        runs_on: format!(
                            "any NVIDIA GPU of compute capability {}.{} or newer (the driver compiles the PTX at load)",
                            sm / 10,
                            sm % 10
                        ),
                        result: compile_for(b, &format!("compute_{sm}"), CodeType::Ptx),
                    });
                }
                if chosen.is_empty() {
                    v.compiler = Err(format!("NVRTC lists none of sm_80/90/100/120: {listed:?}"));
                }
            }
            Err(e) => v.compiler = Err(e),
        },
        _ => match hip_archs(b) {
            Ok(known) => {
                for (gfx, who) in AMD_TARGETS.iter().filter(|(g, _)| known.contains(g)) {
                    v.targets.push(Target {
                        target: (*gfx).into(),
                        runs_on: (*who).into(),
                        result: compile_for(b, gfx, CodeType::Cubin),
                    });
                }
                if v.targets.is_empty() {
                    v.compiler = Err(format!(
                        "this hipRTC knows none of {}",
                        AMD_TARGETS
                            .iter()
                            .map(|t| t.0)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            Err(e) => v.compiler = Err(e),
        },
    }
    // The compiler's own refusals (no listed target, HIP's NVIDIA platform) are short already.
    if let (Err(e), true) = (&v.compiler, v.compiler_short.is_empty()) {
        v.compiler_short = e.clone();
    }
    v
}

/// The ELF machine of compiled code, if it is an ELF file.
fn elf_machine(bytes: &[u8]) -> Option<u16> {
    (bytes.len() > 20 && bytes.starts_with(b"\x7fELF"))
        .then(|| u16::from_le_bytes([bytes[18], bytes[19]]))
}

/// What compiled code is, by its bytes: a cubin, an AMD code object, or PTX.
fn code_name(bytes: &[u8]) -> &'static str {
    match elf_machine(bytes) {
        Some(EM_CUDA) => "cubin",
        Some(EM_AMDGPU) => "code object",
        Some(_) => "ELF",
        None => "ptx",
    }
}

fn vendor_name(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::Cuda => "NVIDIA",
        _ => "AMD",
    }
}

/// Where the library searches behind a short "not found" are.
const SEARCH_LISTED: &str = "`anycuda info --verbose` lists every path tried";

fn require_gpu() -> bool {
    std::env::var("ANYCUDA_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Runs `anycuda demo`.
///
/// # Errors
/// An invalid `ANYCUDA_BACKEND`; every other failure is part of the report and of the exit
/// status.
pub fn run(as_json: bool, elements: usize) -> Result<ExitCode, String> {
    let header = "SAXPY (y = a*x + y), compiled at run time by anycuda::core";
    let selected = anycuda::backend();
    let chosen = match &selected {
        Ok(s) => {
            json!({ "backend": s.kind().to_string(), "choice": s.choice.to_string(), "reason": s.reason })
        }
        Err(e) => json!({ "error": e.to_string() }),
    };
    if let Err(e @ SelectError::InvalidChoice(_)) = selected {
        if as_json {
            println!(
                "{}",
                json!({ "anycuda": env!("CARGO_PKG_VERSION"), "active": chosen, "outcome": "failed", "ok": false })
            );
        }
        return Err(e.to_string());
    }
    let gpu = selected
        .ok()
        .filter(|s| anycuda::device_count(s.backend).is_ok_and(|n| n > 0));
    if !as_json {
        println!("anycuda {} demo: {header}", env!("CARGO_PKG_VERSION"));
        match &selected {
            Ok(s) => println!("backend: {} ({})", s.kind(), missing::selected(s)),
            Err(e) => println!("backend: none: {}", missing::select_error(e)),
        }
    }

    // A GPU with its driver but no runtime compiler (a driver-only install): nothing can
    // compile the kernel. That is the machine, not a failure, except on a GPU runner.
    if let Some(s) = gpu.filter(|s| !s.backend.compiler_loaded()) {
        let (why, short) = compiler_of(s.backend).err().unwrap_or_default();
        let ok = !require_gpu();
        if as_json {
            print_json(json!({
                "anycuda": env!("CARGO_PKG_VERSION"), "active": chosen, "mode": "run",
                "run": { "error": format!("no runtime compiler: {why}") },
                "outcome": "nothing", "ok": ok,
            }))?;
        } else {
            println!(
                "a {} GPU is here, but no runtime compiler to build the kernel: {short}",
                s.kind()
            );
            println!("{SEARCH_LISTED}");
        }
        return Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    if gpu.is_some() {
        let r = run_on_gpu(elements);
        let ok = r.as_ref().is_ok_and(|r| r.wrong_count == 0);
        if as_json {
            let run = match &r {
                Ok(r) => json!({
                    "device": r.device, "arch": r.arch, "memory_mib": r.memory_mib,
                    "elements": r.elements, "code": r.code.0, "code_bytes": r.code.1,
                    "compile_ms": r.compile_ms, "copy_in_ms": r.copy_in_ms,
                    "kernel_ms": r.kernel_ms, "copy_back_ms": r.copy_back_ms,
                    "wrong": r.wrong_count,
                    "first_wrong": r.wrong.iter().map(|(i, g, w)| json!({"index": i, "got": g, "want": w})).collect::<Vec<_>>(),
                }),
                Err(e) => json!({ "error": e.to_string() }),
            };
            print_json(json!({
                "anycuda": env!("CARGO_PKG_VERSION"), "active": chosen, "mode": "run",
                "run": run, "outcome": if ok { "ran" } else { "failed" }, "ok": ok,
            }))?;
        } else {
            match &r {
                Ok(r) => {
                    println!("device 0: {} [{}], {} MiB", r.device, r.arch, r.memory_mib);
                    println!(
                        "compile: {} bytes of {} in {:.1} ms (with the module load)",
                        r.code.1, r.code.0, r.compile_ms
                    );
                    println!(
                        "run: {} elements: copy in {:.2} ms, kernel {:.3} ms, copy back {:.2} ms",
                        r.elements, r.copy_in_ms, r.kernel_ms, r.copy_back_ms
                    );
                    if r.wrong_count == 0 {
                        println!("check: all {} elements equal a*x + y", r.elements);
                        println!(
                            "OK: anycuda ran SAXPY on {} through the {} backend",
                            r.device,
                            gpu.map_or(String::new(), |s| s.kind().to_string())
                        );
                    } else {
                        println!(
                            "check: FAILED: {} of {} elements differ from a*x + y; first: {}",
                            r.wrong_count,
                            r.elements,
                            r.wrong
                                .iter()
                                .map(|(i, g, w)| format!("[{i}] {g} (want {w})"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                    }
                }
                Err(e) => println!("FAILED: {e}"),
            }
        }
        return Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }

    // No GPU on the active backend: compile for both vendors.
    let vendors: Vec<Vendor> = [BackendKind::Cuda, BackendKind::Hip]
        .into_iter()
        .map(vendor)
        .collect();
    let failed = vendors
        .iter()
        .flat_map(|v| &v.targets)
        .any(|t| t.result.is_err());
    let compiled = vendors
        .iter()
        .flat_map(|v| &v.targets)
        .filter(|t| t.result.is_ok())
        .count();
    let required = require_gpu();
    let ok = !failed && !required;
    let outcome = if failed {
        "failed"
    } else if compiled > 0 {
        "compiled"
    } else {
        "nothing"
    };
    if as_json {
        let vs: Vec<Value> = vendors
            .iter()
            .map(|v| {
                json!({
                    "backend": v.backend.to_string(),
                    "vendor": vendor_name(v.backend),
                    "compiler": v.compiler.as_ref().ok(),
                    "compiler_error": v.compiler.as_ref().err(),
                    "cannot_run": v.cannot_run,
                    "targets": v.targets.iter().map(|t| match &t.result {
                        Ok((kind, bytes, ms)) => json!({
                            "target": t.target, "code": kind, "bytes": bytes,
                            "compile_ms": ms, "runs_on": t.runs_on,
                        }),
                        Err(e) => json!({ "target": t.target, "error": e, "runs_on": t.runs_on }),
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_json(json!({
            "anycuda": env!("CARGO_PKG_VERSION"), "active": chosen, "mode": "compile-only",
            "gpu_required": required, "vendors": vs, "outcome": outcome, "ok": ok,
        }))?;
    } else {
        println!("no GPU here, so the same kernel is compiled for both vendors instead:");
        for v in &vendors {
            println!();
            let run_here = format!(
                "to run it here: {} GPU needed ({})",
                vendor_name(v.backend),
                v.cannot_run_short
            );
            match &v.compiler {
                Ok(c) => println!("[{}] {}, {}", vendor_name(v.backend), v.backend, c),
                // One line: what is missing and how to get it; the driver library only when
                // it is not the same missing file (libamdhip64 is HIP's compiler and driver).
                Err(_) if v.cannot_run_short == v.compiler_short => println!(
                    "[{}] {}: no compiler, no driver: {}",
                    vendor_name(v.backend),
                    v.backend,
                    v.compiler_short
                ),
                Err(_) => println!(
                    "[{}] {}: no compiler: {}; {run_here}",
                    vendor_name(v.backend),
                    v.backend,
                    v.compiler_short
                ),
            }
            for t in &v.targets {
                match &t.result {
                    Ok((kind, bytes, ms)) => println!(
                        "  {:<11} {:<11} {:>6} bytes {:>7.1} ms  runs on {}",
                        t.target, kind, bytes, ms, t.runs_on
                    ),
                    Err(e) => println!(
                        "  {:<11} FAILED: {}",
                        t.target,
                        super::compile::printable(e)
                    ),
                }
            }
            if v.compiler.is_ok() {
                println!("  {run_here}");
            }
        }
        println!();
        println!(
            "{}",
            match outcome {
                "failed" => "FAILED: a compile failed (above)".to_string(),
                "compiled" => format!(
                    "OK: {compiled} targets compiled; on a machine with one of those GPUs, `anycuda demo` runs the kernel"
                ),
                _ => "nothing to compile with: the commands above get a compiler; or run on a machine with a GPU".to_string(),
            }
        );
        if vendors
            .iter()
            .any(|v| v.compiler.is_err() || v.cannot_run != v.cannot_run_short)
        {
            println!("{SEARCH_LISTED}");
        }
        if required {
            println!("FAILED: ANYCUDA_REQUIRE_GPU=1 and the active backend has no device");
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_json(v: Value) -> Result<(), String> {
    println!(
        "{}",
        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
    );
    Ok(())
}
