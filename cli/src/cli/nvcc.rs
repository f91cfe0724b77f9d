//! `anycuda nvcc`: an nvcc-compatible front end that records each kernel's source bundle
//! ([`anycuda_rtc::rtc_bundle`]) in the PTX it writes, so that PTX built by a kernel crate
//! (bindgen_cuda, cudaforge) can be compiled for an AMD GPU when the HIP backend loads it.
//!
//! - The real nvcc runs when one is found: `ANYCUDA_REAL_NVCC`, else the first `nvcc` on `PATH`
//!   that is not this program. Every mode but `--ptx` (`-c`, `--lib`, `-M`, `--version`, ...)
//!   is passed to it unchanged; its exit code and output are this command's.
//! - For `--ptx` without a real nvcc, each `.cu` input is compiled with NVRTC through
//!   [`anycuda::core::Program`] on the CUDA backend (its cache included); `--list-gpu-code` and
//!   `--list-gpu-arch` are answered from NVRTC's supported architectures. Other modes fail
//!   with a clear message.
//! - After a successful `--ptx`, the bundle is appended to each PTX written (`-o FILE`, or
//!   `--output-directory DIR`/the working directory plus `NAME.ptx`).
//!
//! Runs as `anycuda nvcc ARGS...` or through a link named `nvcc` to the anycuda binary
//! (`NVCC=...`, or first on `PATH`). A wrapper script named `nvcc` that runs `anycuda nvcc` is
//! not recognised as itself; [`ACTIVE_ENV`] stops it from running itself in a loop.

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::{Backend, BackendKind, Rtc};
use anycuda_rtc::rtc_bundle::{self, Bundle};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The real nvcc to run, overriding the search of `PATH`.
pub const REAL_NVCC_ENV: &str = "ANYCUDA_REAL_NVCC";
/// Set for the real nvcc this front end runs: finding it set means the "real" nvcc ran this
/// front end again (a wrapper script on `PATH`), which would loop.
pub const ACTIVE_ENV: &str = "ANYCUDA_NVCC_ACTIVE";

/// nvcc options that take a value as the next argument (or after `=`), by every spelling.
const WITH_VALUE: &[&str] = &[
    "-o",
    "--output-file",
    "-odir",
    "--output-directory",
    "-I",
    "--include-path",
    "-D",
    "--define-macro",
    "-U",
    "--undefine-macro",
    "-arch",
    "--gpu-architecture",
    "-code",
    "--gpu-code",
    "-gencode",
    "--generate-code",
    "-std",
    "--std",
    "-ccbin",
    "--compiler-bindir",
    "-Xcompiler",
    "--compiler-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xlinker",
    "--linker-options",
    "-default-stream",
    "--default-stream",
    "-include",
    "--pre-include",
    "-t",
    "--threads",
    "-ftz",
    "--ftz",
    "-prec-div",
    "--prec-div",
    "-prec-sqrt",
    "--prec-sqrt",
    "-fmad",
    "--fmad",
    "-maxrregcount",
    "--maxrregcount",
    "-diag-suppress",
    "--diag-suppress",
    "-x",
    "--x",
];

/// Options without a value that only steer the host compiler or the toolchain: no effect on
/// PTX, so the NVRTC route ignores them.
const IGNORED_FLAGS: &[&str] = &[
    "-allow-unsupported-compiler",
    "--allow-unsupported-compiler",
    "-w",
    "--disable-warnings",
    "-Wno-deprecated-gpu-targets",
    "-Wno-deprecated-declarations",
    "-v",
    "--verbose",
    "-keep",
    "--keep",
    "-lineinfo",
    "--generate-line-info",
    "-Werror",
];

/// Options with a value that the NVRTC route ignores (host compiler, linker, ptxas, threads,
/// the default stream of host code).
const IGNORED_WITH_VALUE: &[&str] = &[
    "-ccbin",
    "--compiler-bindir",
    "-Xcompiler",
    "--compiler-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xlinker",
    "--linker-options",
    "-default-stream",
    "--default-stream",
    "-t",
    "--threads",
    "-maxrregcount",
    "--maxrregcount",
    "-diag-suppress",
    "--diag-suppress",
    "-x",
    "--x",
];

/// An nvcc command line, as far as the `--ptx` route needs it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NvccLine {
    /// `--ptx`/`-ptx` was given.
    pub ptx: bool,
    /// Another mode was named (`-c`, `--lib`, `-M`, `--version`, `-cubin`, ...): pass through.
    pub other_mode: bool,
    /// `--list-gpu-code` / `--list-gpu-arch`.
    pub list: Option<&'static str>,
    /// The input files.
    pub inputs: Vec<PathBuf>,
    /// `-o`.
    pub output: Option<PathBuf>,
    /// `--output-directory`/`-odir`.
    pub output_dir: Option<PathBuf>,
    /// `-I` folders in order.
    pub include_dirs: Vec<PathBuf>,
    /// The CUDA architecture (`sm_90`, `compute_90`), the last named.
    pub arch: Option<String>,
    /// Options for NVRTC (and recorded in the bundle), in order.
    pub nvrtc_options: Vec<String>,
    /// Options the NVRTC route cannot honour (reported when it is used).
    pub unsupported: Vec<String>,
}

/// Splits `--opt=value` / `-opt=value` into the option and its value.
fn split_eq(a: &str) -> (&str, Option<&str>) {
    match a.split_once('=') {
        Some((o, v)) if o.starts_with('-') => (o, Some(v)),
        _ => (a, None),
    }
}

/// The joined-value spelling `-Ifoo`, `-DX=1`, `-UX`, `-O3`: `(option, value)`.
fn split_joined(a: &str) -> Option<(&str, &str)> {
    for p in ["-I", "-D", "-U"] {
        if let Some(v) = a.strip_prefix(p).filter(|v| !v.is_empty()) {
            return Some((p, v));
        }
    }
    None
}

/// Parses nvcc's command line.
///
/// # Errors
/// An option that needs a value is last.
pub fn parse(args: &[String]) -> Result<NvccLine, String> {
    let mut l = NvccLine::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') || a == "-" {
            l.inputs.push(PathBuf::from(a));
            continue;
        }
        let (opt, value) = match split_joined(a) {
            Some((o, v)) => (o, Some(v.to_owned())),
            None => {
                let (o, v) = split_eq(a);
                if v.is_none() && WITH_VALUE.contains(&o) {
                    let v = args
                        .get(i)
                        .ok_or_else(|| format!("nvcc fatal   : No value given for {o}"))?;
                    i += 1;
                    (o, Some(v.clone()))
                } else {
                    (o, v.map(str::to_owned))
                }
            }
        };
        let v = value.clone().unwrap_or_default();
        match opt {
            "-ptx" | "--ptx" => l.ptx = true,
            "--list-gpu-code" | "-list-gpu-code" => l.list = Some("sm"),
            "--list-gpu-arch" | "-list-gpu-arch" => l.list = Some("compute"),
            "-c" | "--compile" | "-lib" | "--lib" | "-M" | "-MM" | "-MD" | "-MMD" | "-MF"
            | "-E" | "--preprocess" | "-cubin" | "--cubin" | "-fatbin" | "--fatbin" | "-dlink"
            | "--device-link" | "-link" | "--link" | "-V" | "--version" | "-h" | "--help"
            | "-run" | "--run" | "-shared" | "--shared" | "-optix-ir" | "--optix-ir" | "-dc"
            | "--device-c" | "-dw" | "--device-w" => {
                l.other_mode = true;
            }
            "-o" | "--output-file" => l.output = Some(PathBuf::from(v)),
            "-odir" | "--output-directory" => l.output_dir = Some(PathBuf::from(v)),
            "-I" | "--include-path" => l.include_dirs.push(PathBuf::from(v)),
            "-D" | "--define-macro" => l.nvrtc_options.push(format!("-D{v}")),
            "-U" | "--undefine-macro" => l.nvrtc_options.push(format!("-U{v}")),
            "-std" | "--std" => l.nvrtc_options.push(format!("-std={v}")),
            "-arch" | "--gpu-architecture" => l.arch = Some(v),
            "-gencode" | "--generate-code" => {
                // arch=compute_90,code=sm_90: the virtual arch is what PTX is for.
                if let Some(a) = v
                    .split(',')
                    .find_map(|kv| kv.strip_prefix("arch="))
                    .map(|a| a.trim_matches(['[', ']']).to_owned())
                {
                    l.arch = Some(a);
                }
            }
            "-code" | "--gpu-code" => {}
            "-use_fast_math" | "--use_fast_math" => l.nvrtc_options.push("--use_fast_math".into()),
            // nvcc-only language switches NVRTC 13.5 does not take: NVRTC (and hipRTC's clang)
            // already accept constexpr calls across host and device and lambdas in kernels'
            // arguments as far as run-time compiled code can use them.
            "-expt-relaxed-constexpr"
            | "--expt-relaxed-constexpr"
            | "-extended-lambda"
            | "--extended-lambda"
            | "-expt-extended-lambda"
            | "--expt-extended-lambda" => {}
            "-ftz" | "--ftz" | "-prec-div" | "--prec-div" | "-prec-sqrt" | "--prec-sqrt"
            | "-fmad" | "--fmad" => {
                l.nvrtc_options
                    .push(format!("--{}={v}", opt.trim_start_matches('-')));
            }
            "-G" | "--device-debug" => l.nvrtc_options.push("-G".into()),
            "-include" | "--pre-include" => l.unsupported.push(format!("{opt} {v}")),
            o if o.len() == 3 && o.starts_with("-O") => {
                // Host optimisation level: NVRTC optimises device code fully by default.
            }
            o if IGNORED_FLAGS.contains(&o) || IGNORED_WITH_VALUE.contains(&o) => {}
            _ => l.unsupported.push(a.to_owned()),
        }
    }
    Ok(l)
}

/// The nvcc this front end runs: [`REAL_NVCC_ENV`], else the first `nvcc` on `PATH` that is
/// not this program.
fn real_nvcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(REAL_NVCC_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let me = std::env::current_exe().and_then(|p| p.canonicalize()).ok();
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("nvcc"))
        .filter(|c| c.is_file())
        .find(|c| c.canonicalize().ok() != me)
}

/// The PTX files an `nvcc --ptx` command writes.
fn ptx_outputs(l: &NvccLine) -> Vec<(PathBuf, PathBuf)> {
    l.inputs
        .iter()
        .map(|input| {
            let out = match (&l.output, l.inputs.len()) {
                (Some(o), 1) => o.clone(),
                _ => {
                    let name =
                        Path::new(input.file_stem().unwrap_or_default()).with_extension("ptx");
                    l.output_dir.as_deref().unwrap_or(Path::new(".")).join(name)
                }
            };
            (input.clone(), out)
        })
        .collect()
}

/// The bundle of `input` as this command line compiles it.
fn bundle_for(l: &NvccLine, input: &Path, producer: &str) -> Result<Bundle, String> {
    let mut b = rtc_bundle::gather(input, &l.include_dirs)?;
    b.options = l.nvrtc_options.clone();
    b.include_dirs = l
        .include_dirs
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    b.arch = l.arch.clone();
    b.producer = producer.to_owned();
    Ok(b)
}

/// Appends the bundle of `input` to the PTX file `out`.
fn append_bundle(l: &NvccLine, input: &Path, out: &Path, producer: &str) -> Result<(), String> {
    let b = bundle_for(l, input, producer)?;
    let text = b
        .to_text()
        .map_err(|e| format!("{}: {e}", input.display()))?;
    let mut ptx = std::fs::read(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    if rtc_bundle::Bundle::find(&String::from_utf8_lossy(&ptx)).is_ok_and(|b| b.is_some()) {
        return Err(format!("{} already carries a source bundle", out.display()));
    }
    if !ptx.is_empty() && !ptx.ends_with(b"\n") {
        ptx.push(b'\n');
    }
    ptx.extend_from_slice(text.as_bytes());
    std::fs::write(out, ptx).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    log::info!(
        "anycuda nvcc: bundled {} with {} headers into {}",
        input.display(),
        b.headers.len(),
        out.display()
    );
    Ok(())
}

/// The CUDA backend's compiler, or why not.
fn nvrtc() -> Result<Backend, String> {
    let b = Backend::load(BackendKind::Cuda).map_err(|e| e.to_string())?;
    if !b.compiler_loaded() {
        let why: Vec<String> = b
            .libraries()
            .into_iter()
            .filter(|l| l.role.is_compiler())
            .filter_map(|l| l.status.err().map(|e| e.to_string()))
            .collect();
        return Err(format!("NVRTC is unavailable: {}", why.join("; ")));
    }
    Ok(b)
}

/// NVRTC's version as `"NVRTC major.minor"`.
fn nvrtc_name(b: Backend) -> String {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let r = unsafe { b.nvrtcVersion(&mut major, &mut minor) };
    if r == anycuda::nvrtc::nvrtcResult::NVRTC_SUCCESS {
        format!("NVRTC {major}.{minor}")
    } else {
        "NVRTC".into()
    }
}

/// `--list-gpu-code` / `--list-gpu-arch` from NVRTC's supported architectures.
fn list_archs(b: Backend, prefix: &str) -> Result<(), String> {
    let mut n = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { b.nvrtcGetNumSupportedArchs(&mut n) };
    if r != anycuda::nvrtc::nvrtcResult::NVRTC_SUCCESS || n < 0 {
        return Err(format!("nvrtcGetNumSupportedArchs failed: {r}"));
    }
    let mut archs = vec![0; n as usize];
    // SAFETY: a buffer of the reported count.
    let r = unsafe { b.nvrtcGetSupportedArchs(archs.as_mut_ptr()) };
    if r != anycuda::nvrtc::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcGetSupportedArchs failed: {r}"));
    }
    for a in archs {
        println!("{prefix}_{a}");
    }
    Ok(())
}

/// The NVRTC target for PTX from nvcc's `-arch` (`sm_90` and `compute_90` both mean PTX for
/// `compute_90`; `native`/`all` leave NVRTC's default).
fn nvrtc_arch(arch: &str) -> Option<String> {
    let n = arch
        .strip_prefix("sm_")
        .or_else(|| arch.strip_prefix("compute_"))?;
    Some(format!("--gpu-architecture=compute_{n}"))
}

/// Compiles `input` to PTX at `out` with NVRTC (the `--ptx` route without nvcc).
fn nvrtc_ptx(b: Backend, l: &NvccLine, input: &Path, out: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(input).map_err(|e| {
        format!(
            "nvcc fatal   : Could not open input file '{}': {e}",
            input.display()
        )
    })?;
    let name = input
        .file_name()
        .map_or_else(|| "input.cu".into(), |n| n.to_string_lossy().into_owned());
    let mut args: Vec<String> = Vec::new();
    if let Some(a) = l.arch.as_deref().and_then(nvrtc_arch) {
        args.push(a);
    }
    args.extend(anycuda_rtc::rtc_include::source_folder_option(input));
    args.extend(
        l.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.to_string_lossy())),
    );
    args.extend(l.nvrtc_options.iter().cloned());
    let mut p = Program::with_backend(b, &src, ProgramOptions::new().name(name))
        .map_err(|e| e.to_string())?;
    if let Err(e) = p.compile_with_args(&args) {
        // The compiler's log as nvcc prints it, then which compiler said so.
        let log = e.detail().unwrap_or_default().trim_end();
        let code = e
            .nvrtc_code()
            .map_or_else(|| e.to_string(), |c| c.to_string());
        let sep = if log.is_empty() { "" } else { "\n" };
        return Err(format!(
            "{}{sep}anycuda nvcc: NVRTC could not compile {}: {code}",
            super::compile::printable(log),
            input.display()
        ));
    }
    if !p.log().trim().is_empty() {
        eprint!("{}", super::compile::printable(p.log()));
    }
    let code = p.output(CodeType::Ptx).map_err(|e| e.to_string())?;
    let mut ptx = code.code().to_vec();
    while ptx.last() == Some(&0) {
        ptx.pop();
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(out, ptx).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// Runs the real nvcc with `args`; its exit code.
fn run_real(nvcc: &Path, args: &[OsString]) -> Result<ExitCode, String> {
    let status = std::process::Command::new(nvcc)
        .args(args)
        .env(ACTIVE_ENV, "1")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    Ok(match status.code() {
        Some(c) => ExitCode::from(c.clamp(0, 255) as u8),
        // Killed by a signal: the shell's convention.
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                ExitCode::from(128u8.wrapping_add(status.signal().unwrap_or(0) as u8))
            }
            #[cfg(not(unix))]
            {
                ExitCode::FAILURE
            }
        }
    })
}

/// `anycuda nvcc ARGS...` (also reached through a link named `nvcc`).
///
/// # Errors
/// A message for stderr (exit code 1): a bad command line, no compiler for the mode asked,
/// a failed compile (with its log), an unreadable source or unwritable output.
pub fn run(raw: Vec<OsString>) -> Result<ExitCode, String> {
    if std::env::var_os(ACTIVE_ENV).is_some() {
        return Err(format!(
            "anycuda nvcc was run by the nvcc it ran (a wrapper named nvcc on PATH?); set \
             {REAL_NVCC_ENV} to NVIDIA's nvcc, or name anycuda nvcc through a link to the \
             anycuda binary"
        ));
    }
    let args: Vec<String> = raw
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<_>>()
        .ok_or("anycuda nvcc: an argument is not UTF-8")?;
    let l = parse(&args)?;
    let real = real_nvcc();
    if !l.ptx || l.other_mode || l.list.is_some() {
        return match (real, l.list) {
            (Some(nvcc), _) => run_real(&nvcc, &raw),
            (None, Some(prefix)) => {
                list_archs(nvrtc()?, prefix)?;
                Ok(ExitCode::SUCCESS)
            }
            (None, None) => Err(format!(
                "anycuda nvcc: no real nvcc found ({REAL_NVCC_ENV} unset, none on PATH); \
                 without one only --ptx (through NVRTC) and --list-gpu-code/--list-gpu-arch \
                 are served"
            )),
        };
    }
    if l.inputs.is_empty() {
        return Err(
            "nvcc fatal   : No input files specified; use option --help for more information"
                .into(),
        );
    }
    if l.output.is_some() && l.inputs.len() > 1 {
        return Err("nvcc fatal   : A single input file is required for a non-link phase when an outputfile is specified".into());
    }
    let outputs = ptx_outputs(&l);
    let producer = match real {
        Some(nvcc) => {
            log::info!("anycuda nvcc: compiling with {}", nvcc.display());
            let code = run_real(&nvcc, &raw)?;
            if code != ExitCode::SUCCESS {
                return Ok(code);
            }
            "nvcc".to_owned()
        }
        None => {
            if !l.unsupported.is_empty() {
                return Err(format!(
                    "anycuda nvcc: no real nvcc found ({REAL_NVCC_ENV} unset, none on PATH), \
                     and the NVRTC route does not understand: {}",
                    l.unsupported.join(" ")
                ));
            }
            let b = nvrtc()?;
            let name = nvrtc_name(b);
            log::info!("anycuda nvcc: no real nvcc found; compiling --ptx with {name}");
            for (input, out) in &outputs {
                nvrtc_ptx(b, &l, input, out)?;
            }
            name
        }
    };
    for (input, out) in &outputs {
        append_bundle(&l, input, out, &producer)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> NvccLine {
        parse(&s.split_whitespace().map(str::to_owned).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn parses_bindgen_cuda_ptx_lines() {
        let l = line(
            "--gpu-architecture=sm_90 --ptx --default-stream per-thread --output-directory /o \
             --expt-relaxed-constexpr -I/a -I /b -DX=1 -std=c++17 -O3 --use_fast_math k.cu",
        );
        assert!(l.ptx && !l.other_mode);
        assert_eq!(l.arch.as_deref(), Some("sm_90"));
        assert_eq!(l.output_dir, Some(PathBuf::from("/o")));
        assert_eq!(l.include_dirs, [PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(l.nvrtc_options, ["-DX=1", "-std=c++17", "--use_fast_math"]);
        assert_eq!(l.inputs, [PathBuf::from("k.cu")]);
        assert!(l.unsupported.is_empty(), "{:?}", l.unsupported);
        assert_eq!(
            ptx_outputs(&l),
            [(PathBuf::from("k.cu"), PathBuf::from("/o/k.ptx"))]
        );
    }

    #[test]
    fn other_modes_and_values() {
        assert!(line("-c -o k.o k.cu").other_mode);
        assert!(line("--version").other_mode);
        assert_eq!(line("--list-gpu-code").list, Some("sm"));
        let l = line("-ptx -gencode arch=compute_80,code=sm_80 -o out/x.ptx k.cu");
        assert_eq!(l.arch.as_deref(), Some("compute_80"));
        assert_eq!(ptx_outputs(&l)[0].1, PathBuf::from("out/x.ptx"));
        assert_eq!(line("-ptx --frobnicate k.cu").unsupported, ["--frobnicate"]);
        assert!(parse(&["-o".to_owned()]).is_err());
        assert_eq!(
            nvrtc_arch("sm_90").as_deref(),
            Some("--gpu-architecture=compute_90")
        );
        assert_eq!(nvrtc_arch("native"), None);
        // cudaforge's spelling.
        let l = line("-gencode=arch=compute_90a,code=sm_90a --ptx --threads=4 -O3 k.cu");
        assert_eq!(l.arch.as_deref(), Some("compute_90a"));
        assert!(l.unsupported.is_empty(), "{:?}", l.unsupported);
    }
}
