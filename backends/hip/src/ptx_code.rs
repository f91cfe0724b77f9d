//! PTX on AMD: translated to HIP C++ ([`anycuda_rtc::ptx`]), compiled by hipRTC for the
//! current device, and kept in the program cache. Every load entry that meets PTX where images
//! are held to what AMD loads (on AMD, and in AMD-faithful mode on HIP's NVIDIA platform) comes
//! here: `cuModuleLoad*`, `cuLibraryLoad*`/`cudaLibraryLoad*`, the linker's PTX inputs
//! (`cuLink*`, `adapt/link.rs`; nvJitLink, `nvjitlink.rs`) and the PTX entries of NVIDIA fat
//! binaries (`adapt/image.rs`, `adapt/module.rs`, `adapt/library.rs`).
//!
//! The cache key is the translator's version ([`anycuda_rtc::ptx::TRANSLATOR_VERSION`]), the
//! hipRTC library's identity (path, version, size, modification time), this crate's version and
//! built-in headers, the AMD target, and the PTX texts themselves: a warm load neither
//! translates nor compiles. `ANYCUDA_CACHE_DISABLE=1` turns the cache off, as for every compile.
//!
//! A module the translator refuses fails its load, never runs wrongly: an instruction outside
//! the translated set is `CUDA_ERROR_NOT_SUPPORTED`, malformed PTX `CUDA_ERROR_INVALID_PTX`,
//! and the message (the instruction and its line) is logged, recorded for
//! [`crate::not_supported_reason`] and written into `cuModuleLoadDataEx`'s error log. A
//! translation hipRTC does not compile is a translator defect: `CUDA_ERROR_INVALID_PTX`, the
//! compile log logged.

use crate::HipBackend;
use anycuda_api::driver::CUresult;
use anycuda_rtc::ptx::{self, PtxError};
use anycuda_rtc::rtc_bundle::{Bundle, BundleCompileError};

/// Why PTX did not become a code object.
#[derive(Debug, Clone)]
pub enum PtxCodeError {
    /// The translator refused module `module` (its index in the inputs).
    Translate {
        /// Index of the refused module among the inputs.
        module: usize,
        /// What the translator said.
        error: PtxError,
    },
    /// No current device, so no AMD target to compile for (a load needs a device, as in CUDA).
    NoDevice,
    /// hipRTC did not compile the translation (a translator defect, or no hipRTC).
    Compile(BundleCompileError),
}

impl PtxCodeError {
    /// The CUDA error a load answers: `CUDA_ERROR_NOT_SUPPORTED` for an instruction outside the
    /// translated set, `CUDA_ERROR_INVALID_PTX` for malformed PTX or a failed compile.
    pub fn code(&self) -> CUresult {
        match self {
            PtxCodeError::Translate {
                error: PtxError::Unsupported { .. },
                ..
            } => CUresult::CUDA_ERROR_NOT_SUPPORTED,
            PtxCodeError::NoDevice => CUresult::CUDA_ERROR_NO_DEVICE,
            _ => CUresult::CUDA_ERROR_INVALID_PTX,
        }
    }
}

impl std::fmt::Display for PtxCodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PtxCodeError::Translate { module, error } => {
                write!(f, "PTX translation for AMD")?;
                if *module > 0 {
                    write!(f, " (input {})", module + 1)?;
                }
                write!(f, ": {error}")
            }
            PtxCodeError::NoDevice => write!(
                f,
                "no current device: the PTX translates, but there is no AMD target to compile \
                 it for"
            ),
            PtxCodeError::Compile(e) => write!(
                f,
                "hipRTC did not compile the translation of the PTX (an anycuda translator \
                 defect; please report it): {e}"
            ),
        }
    }
}

impl std::error::Error for PtxCodeError {}

/// What produced the code and for what: the cache key's fields besides the PTX, or `None` when
/// hipRTC cannot be identified (then nothing is cached).
fn key_fields(b: &HipBackend, target: &str) -> Option<Vec<Vec<u8>>> {
    let lib = b.rtc.as_ref().ok()?;
    let what = format!(
        "anycuda-hip ptx code, translator {}",
        ptx::TRANSLATOR_VERSION
    );
    anycuda_rtc::rtc_bundle::key_fields(&what, target, &lib.path, lib.version)
}

/// The code object for the PTX `modules` linked together (one module for a module load),
/// translated and compiled by hipRTC for `target` (`None`: the current device's), through the
/// process's code cache: the code, and whether it came from the cache. On HIP's NVIDIA platform
/// the code is hipRTC's output there (PTX carrying [`crate::HIPRTC_OUTPUT_MARK`], NUL-terminated).
///
/// # Errors
/// [`PtxCodeError::Translate`] for a module the translator refuses, [`PtxCodeError::NoDevice`]
/// without a target (none named, no current device), [`PtxCodeError::Compile`] when hipRTC
/// does not compile the translation (or is missing).
pub fn compile_ptx(
    b: &HipBackend,
    modules: &[&str],
    target: Option<&str>,
) -> Result<(Vec<u8>, bool), PtxCodeError> {
    let arch = target.map(str::to_owned).or_else(|| b.current_arch());
    let key = arch.as_deref().and_then(|a| key_fields(b, a)).map(|mut k| {
        k.push((modules.len() as u64).to_le_bytes().to_vec());
        k.extend(modules.iter().map(|m| m.as_bytes().to_vec()));
        k
    });
    let cache = anycuda_rtc::rtc_bundle::code_cache();
    let fields: Option<Vec<&[u8]>> = key.as_ref().map(|k| k.iter().map(Vec::as_slice).collect());
    if let Some(f) = &fields {
        if let Some(code) = cache.get(f).filter(|c| plausible_code(c)) {
            return Ok((code, true));
        }
    }
    // Translated first, so a refusal is reported even without a device.
    let t = ptx::translate_all(modules)
        .map_err(|(module, error)| PtxCodeError::Translate { module, error })?;
    let Some(target) = arch.as_deref() else {
        return Err(PtxCodeError::NoDevice);
    };
    if let Some((module, instruction, line)) = t.images.filter(|_| !ptx::target_has_images(target))
    {
        return Err(PtxCodeError::Translate {
            module,
            error: PtxError::Unsupported {
                instruction,
                line,
                reason: format!(
                    "{target} has no texture or image instructions (AMD's CDNA2/3 compute GPUs); \
                     textures and surfaces run on RDNA and on gfx906/gfx908"
                ),
            },
        });
    }
    let bundle = Bundle {
        name: "anycuda-ptx-translation.cpp".into(),
        source: t.source,
        producer: format!("anycuda PTX translator {}", ptx::TRANSLATOR_VERSION),
        ..Bundle::default()
    };
    let mut code = crate::rtc_bundle::compile_bundle(b, &bundle, arch.as_deref())
        .map_err(PtxCodeError::Compile)?;
    // On HIP's NVIDIA platform hipRTC's code is PTX, which the driver reads as a C string.
    if !code.starts_with(b"\x7fELF") && code.last() != Some(&0) {
        code.push(0);
    }
    if let Some(f) = &fields {
        cache.put(f, &code);
    }
    Ok((code, false))
}

/// Whether `code` is what [`compile_ptx`] writes: an ELF code object, or hipRTC's PTX output on
/// HIP's NVIDIA platform (with its mark).
fn plausible_code(code: &[u8]) -> bool {
    code.starts_with(b"\x7fELF")
        || (code.windows(8).any(|w| w == b".target ")
            && crate::is_hiprtc_output(&code[..code.len() - usize::from(code.last() == Some(&0))]))
}

/// [`compile_ptx`] for a load entry: the code, or the load's error with its message logged and
/// recorded (for [`crate::not_supported_reason`] and the JIT error log). `what` names the
/// input for the log (`cuModuleLoadData`, a file name, ...).
///
/// # Errors
/// [`PtxCodeError::code`] of the failure.
pub fn ptx_module_code(b: &HipBackend, modules: &[&str], what: &str) -> Result<Vec<u8>, CUresult> {
    let start = std::time::Instant::now();
    match compile_ptx(b, modules, None) {
        Ok((code, hit)) => {
            log::info!(
                "anycuda (HIP): {what}: PTX ({} module{}) {} in {:.0?}",
                modules.len(),
                if modules.len() == 1 { "" } else { "s" },
                if hit {
                    "from the code cache"
                } else {
                    "translated and compiled with hipRTC"
                },
                start.elapsed()
            );
            Ok(code)
        }
        Err(e) => Err(record_failure(&e, what)),
    }
}

/// Records a failure of [`compile_ptx`] for a load or link entry named `what`: the message
/// (`what: error`) logged and kept for [`crate::not_supported_reason`] (and so for the JIT
/// error log), hipRTC's compile log logged; returns [`PtxCodeError::code`].
pub(crate) fn record_failure(e: &PtxCodeError, what: &str) -> CUresult {
    if let PtxCodeError::Compile(c) = e {
        log::error!("anycuda (HIP): {what}: hipRTC log:\n{}", c.log);
    }
    crate::adapt::image::refuse_owned(e.code(), format!("{what}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry add1(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
        ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nld.global.u32 %r1, [%rd2];\n\
        add.s32 %r2, %r1, 1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";

    /// The backend with hipRTC on AMD's platform (CI: ROCm 5.2.3); `None` (skip) off CI.
    fn hiprtc() -> Option<HipBackend> {
        let b = HipBackend::load();
        if b.native_hiprtc().is_some() && b.platform() == crate::Platform::Amd {
            return Some(b);
        }
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "hipRTC (AMD platform) must load under CI=true"
        );
        eprintln!("SKIP: hipRTC is not loaded");
        None
    }

    #[test]
    fn ptx_becomes_an_amd_code_object() {
        let Some(b) = hiprtc() else { return };
        let (code, _) = compile_ptx(&b, &[PTX], Some("gfx90a")).unwrap();
        assert!(code.starts_with(b"\x7fELF"));
        assert_eq!(u16::from_le_bytes([code[18], code[19]]), crate::EM_AMDGPU);
        let has = |s: &[u8]| code.windows(s.len()).any(|w| w == s);
        assert!(has(b"add1\0") && has(b"add1.kd\0"));
    }

    #[test]
    fn refusals_name_the_instruction_and_line_with_cudas_codes() {
        let Some(b) = hiprtc() else { return };
        let bad = PTX.replace("add.s32 %r2, %r1, 1;", "wgmma.fence.sync.aligned;");
        let e = compile_ptx(&b, &[&bad], Some("gfx90a")).unwrap_err();
        assert_eq!(e.code(), CUresult::CUDA_ERROR_NOT_SUPPORTED);
        let msg = e.to_string();
        assert!(msg.contains("wgmma") && msg.contains("line 11"), "{msg}");
        let broken = PTX.replace("ret;", "ret");
        let e = compile_ptx(&b, &[PTX, &broken], Some("gfx90a")).unwrap_err();
        assert_eq!(e.code(), CUresult::CUDA_ERROR_INVALID_PTX);
        let msg = e.to_string();
        assert!(
            msg.contains("syntax error") && msg.contains("input 2"),
            "{msg}"
        );
        // The load entry records the message for the thread.
        assert_eq!(
            ptx_module_code(&b, &[&bad], "test"),
            Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
        );
        let why = crate::not_supported_reason(CUresult::CUDA_ERROR_NOT_SUPPORTED).unwrap();
        assert!(why.starts_with("test: ") && why.contains("wgmma"), "{why}");
    }

    /// A texture fetch: refused for CDNA (no image instructions; hipRTC 5.2.3 would abort the
    /// process on it), named with its line; compiled for RDNA, which samples.
    #[test]
    fn textures_are_refused_where_the_gpu_has_no_images() {
        let Some(b) = hiprtc() else { return };
        let tex = PTX
            .replace("add1", "fetch1")
            .replace(".reg .b32 %r<3>;", ".reg .b32 %r<3>;\n.reg .f32 %f<5>;")
            .replace(
                "add.s32 %r2, %r1, 1;",
                "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\nadd.s32 %r2, %r1, 1;",
            );
        for cdna in ["gfx90a", "gfx942", "gfx90a:sramecc+:xnack-"] {
            let e = compile_ptx(&b, &[PTX, &tex], Some(cdna)).unwrap_err();
            assert_eq!(e.code(), CUresult::CUDA_ERROR_NOT_SUPPORTED, "{cdna}");
            let msg = e.to_string();
            assert!(
                msg.contains("tex.1d.v4.f32.s32")
                    && msg.contains("line 12")
                    && msg.contains("input 2")
                    && msg.contains("no texture"),
                "{cdna}: {msg}"
            );
        }
        let (code, _) = compile_ptx(&b, &[&tex], Some("gfx1030")).unwrap();
        assert!(code.starts_with(b"\x7fELF"));
    }
}
