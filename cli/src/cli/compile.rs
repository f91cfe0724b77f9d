//! `anycuda compile`: one source, one or more arches, with the chosen backend's compiler.

use super::Emit;
use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::{Backend, BackendKind, Driver};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The compile command's arguments.
pub struct Args {
    pub file: PathBuf,
    pub backend: Option<super::BackendArg>,
    pub archs: Vec<String>,
    pub output: Option<PathBuf>,
    pub emit: Emit,
    pub name_expressions: Vec<String>,
    pub options: Vec<String>,
}

fn pick_backend(arg: Option<super::BackendArg>) -> Result<Backend, String> {
    let b = match arg {
        Some(k) => Backend::load(k.into()).map_err(|e| e.to_string())?,
        None => anycuda::backend().map_err(|e| e.to_string())?.backend,
    };
    if !b.compiler_loaded() {
        let why: Vec<String> = b
            .libraries()
            .into_iter()
            .filter(|l| l.role.is_compiler())
            .filter_map(|l| l.status.err().map(|e| e.to_string()))
            .collect();
        return Err(format!(
            "the {} backend's compiler is unavailable: {}",
            b.kind(),
            why.join("; ")
        ));
    }
    Ok(b)
}

fn device_arch(b: Backend) -> Result<String, String> {
    let mut n = 0;
    let mut dev = 0;
    // SAFETY: valid out-pointers.
    let found = unsafe {
        b.cuInit(0).result().is_ok()
            && b.cuDeviceGetCount(&mut n).result().is_ok()
            && n > 0
            && b.cuDeviceGet(&mut dev, 0).result().is_ok()
    };
    if !found {
        let example = if b.kind() == BackendKind::Cuda {
            "sm_90"
        } else {
            "gfx90a"
        };
        return Err(format!(
            "no {} device to take the arch from; name one with --arch (e.g. --arch {example})",
            b.kind()
        ));
    }
    b.device_arch(dev).map_err(|e| e.to_string())
}

/// Whether an NVRTC option asks for LTO IR instead of PTX or a cubin.
fn is_lto(opt: &str) -> bool {
    matches!(
        opt,
        "-dlto" | "--dlink-time-opt" | "-gen-opt-lto" | "--gen-opt-lto"
    )
}

/// Compiler output made safe for a terminal: NUL and other control characters (except newline
/// and tab) are shown as `\u{..}` escapes instead of being written raw.
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// What kind of code `bytes` is, as a file extension.
fn extension(bytes: &[u8]) -> &'static str {
    const EM_CUDA: u16 = 190;
    const EM_AMDGPU: u16 = 224;
    if bytes.len() > 20 && bytes.starts_with(b"\x7fELF") {
        match u16::from_le_bytes([bytes[18], bytes[19]]) {
            EM_AMDGPU => "hsaco",
            EM_CUDA => "cubin",
            _ => "elf",
        }
    } else {
        "ptx"
    }
}

fn output_path(a: &Args, arch: &str, ext: &str) -> PathBuf {
    let safe_arch: String = arch
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let stem = a
        .file
        .file_stem()
        .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
    let default_name = format!("{stem}.{safe_arch}.{ext}");
    match &a.output {
        Some(o) if a.archs.len() <= 1 => o.clone(),
        Some(dir) => dir.join(default_name),
        None => a.file.parent().unwrap_or(Path::new(".")).join(default_name),
    }
}

/// Why a `.ptx` input is not compiled on the CUDA backend.
fn ptx_on_cuda(file: &Path) -> String {
    format!(
        "{}: a .ptx input is compiled for HIP targets (--backend hip); on the CUDA backend \
         NVIDIA's driver loads PTX as it is (cuModuleLoad), and ptxas makes a cubin of it",
        file.display()
    )
}

/// A `.ptx` input for HIP targets: translated to HIP C++ (`anycuda_rtc::ptx`), which hipRTC
/// then compiles as any source, so a module's AMD code object can be checked offline.
///
/// # Errors
/// The CUDA backend (NVIDIA's driver loads PTX itself), name expressions (PTX names are already
/// lowered), and PTX the translator refuses, with the instruction and its line.
fn ptx_to_hip(a: &Args, b: Backend, ptx: &str) -> Result<anycuda_rtc::ptx::Translation, String> {
    if b.kind() != BackendKind::Hip {
        return Err(ptx_on_cuda(&a.file));
    }
    if !a.name_expressions.is_empty() {
        return Err(format!(
            "{}: --name-expression needs C++ source; PTX names are already lowered",
            a.file.display()
        ));
    }
    let t = anycuda_rtc::ptx::translate(ptx).map_err(|e| format!("{}: {e}", a.file.display()))?;
    eprintln!(
        "{}: PTX {} ({}) translated: {} entr{} ({})",
        a.file.display(),
        t.version,
        t.target.join(", "),
        t.entries.len(),
        if t.entries.len() == 1 { "y" } else { "ies" },
        t.entries.join(", ")
    );
    Ok(t)
}

/// Runs `anycuda compile`.
///
/// # Errors
/// Unreadable input, no usable compiler, unwritable output. A failed compilation prints its
/// log and returns exit code 1.
pub fn run(a: Args) -> Result<ExitCode, String> {
    let src = std::fs::read(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if let Some(at) = src.iter().position(|&b| b == 0) {
        return Err(format!(
            "{}: a NUL byte at offset {at}; NVRTC takes the source as a NUL-terminated string",
            a.file.display()
        ));
    }
    let src =
        String::from_utf8(src).map_err(|_| format!("{}: not UTF-8 text", a.file.display()))?;
    let mut name = a
        .file
        .file_name()
        .map_or_else(|| "kernel.cu".into(), |s| s.to_string_lossy().into_owned());
    let is_ptx = a
        .file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ptx"));
    if is_ptx && matches!(a.backend, Some(super::BackendArg::Cuda)) {
        // Before the compiler is looked for: a .ptx input needs none on CUDA.
        return Err(ptx_on_cuda(&a.file));
    }
    let b = pick_backend(a.backend)?;
    let (src, images) = if is_ptx {
        name.push_str(".cpp");
        let t = ptx_to_hip(&a, b, &src)?;
        (t.source, t.images)
    } else {
        (src, None)
    };
    let archs = if a.archs.is_empty() {
        vec![device_arch(b)?]
    } else {
        a.archs.clone()
    };
    // A texture or surface instruction on a GPU without image instructions: refused as a load
    // there refuses it (docs/ptx-on-amd.md), not compiled to a trap.
    if let Some((_, inst, line)) = &images {
        if let Some(arch) = archs
            .iter()
            .find(|a| !anycuda_rtc::ptx::target_has_images(a))
        {
            return Err(format!(
                "{}: PTX line {line}: `{inst}`: {arch} has no texture or image instructions (AMD's CDNA2/3 compute GPUs); textures and surfaces run on RDNA and gfx906/gfx908",
                a.file.display()
            ));
        }
    }
    if let Some(dir) = a.output.as_ref().filter(|_| archs.len() > 1) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut failed = false;
    for arch in &archs {
        let mut opts = ProgramOptions::new().name(name.as_str());
        opts.name_expressions.clone_from(&a.name_expressions);
        // A refused name expression comes back with the expression as the error's detail.
        let mut prog = Program::with_backend(b, &src, opts).map_err(|e| e.to_string())?;
        // The arch goes first: an option that takes the next one as its value (`-I`, `-D` at
        // the end of the user's list) must not swallow it. nvcc finds quoted includes next to
        // the source: its folder comes before the user's -I.
        let src_dir = anycuda_rtc::rtc_include::source_folder_option(&a.file);
        let arch_opt = format!("--gpu-architecture={arch}");
        let mut opts: Vec<&str> = vec![&arch_opt];
        opts.extend(src_dir.iter().map(String::as_str));
        opts.extend(a.options.iter().map(String::as_str));
        if let Err(e) = prog.compile_with_args(&opts) {
            eprintln!(
                "{name} [{} {arch}]: compilation failed: {}",
                b.kind(),
                printable(&e.to_string())
            );
            failed = true;
            continue;
        }
        let log = prog.log();
        if !log.trim().is_empty() {
            eprintln!(
                "{name} [{} {arch}] log:\n{}",
                b.kind(),
                printable(log.trim_end())
            );
        }
        let lto = b.kind() == BackendKind::Cuda && a.options.iter().any(|o| is_lto(o));
        let kind = match (a.emit, b.kind()) {
            (Emit::Auto, BackendKind::Cuda) if lto => CodeType::Ltoir,
            (Emit::Ptx, _) | (Emit::Auto, BackendKind::Hip) => CodeType::Ptx,
            (Emit::Cubin, _) => CodeType::Cubin,
            (Emit::Auto, BackendKind::Cuda) if arch.starts_with("sm_") => CodeType::Cubin,
            (Emit::Auto, BackendKind::Cuda) => CodeType::Ptx,
        };
        let output = prog.output(kind).map_err(|e| e.to_string())?;
        let code = output.code();
        if code.is_empty() {
            let why = if lto {
                "-dlto makes LTO IR only; use the default --emit auto to write it"
            } else if a.emit == Emit::Cubin && !arch.starts_with("sm_") {
                "a cubin needs an sm_XX arch"
            } else {
                "the options asked for another kind of output"
            };
            return Err(format!(
                "{arch}: the compiler produced no {:?} output ({why})",
                a.emit
            ));
        }
        let ext = if lto && a.emit == Emit::Auto {
            "ltoir"
        } else {
            extension(code)
        };
        let path = output_path(&a, arch, ext);
        std::fs::write(&path, code).map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "{name} [{} {arch}] -> {} ({} bytes)",
            b.kind(),
            path.display(),
            code.len()
        );
        for e in &a.name_expressions {
            match prog.lowered_name(e) {
                Ok(l) => println!("  {e} -> {l}"),
                Err(err) => println!("  {e}: {err}"),
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
