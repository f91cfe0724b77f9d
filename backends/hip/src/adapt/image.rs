//! Module images on the HIP backend: what AMD loads, what is translated first, and what is
//! refused with advice: the one place for that rule, so raw, `core`, cudarc-facade and C-ABI
//! users all get it.
//!
//! On an AMD GPU, HIP loads AMD code objects (ELF, machine `EM_AMDGPU` = 224) and clang offload
//! bundles of them. PTX text and NVIDIA cubins (ELF, machine `EM_CUDA` = 190) are NVIDIA's
//! formats; `hipModuleLoadData` would fail on them with an error that names no way out.
//!
//! **PTX is translated** ([`crate::ptx_code`]): every module and library load that meets PTX
//! (`cuModuleLoad`, `cuModuleLoadData`, `cuModuleLoadDataEx`, `cuLibraryLoadData`/`FromFile`,
//! `cudaLibraryLoad*`) hands it to the PTX translator (`anycuda_rtc::ptx`), compiles the HIP C++
//! with hipRTC for the current device, and loads that code object ([`code_for_ptx`]). PTX the
//! translator refuses fails the load with `CUDA_ERROR_NOT_SUPPORTED` (an instruction outside the
//! translated set) or `CUDA_ERROR_INVALID_PTX` (malformed), the message naming the instruction
//! and its line: logged, kept for the calling thread ([`not_supported_reason`]) and written into
//! `cuModuleLoadDataEx`'s error log. A library checks the translation when it is loaded and
//! compiles it when first used in a context.
//!
//! PTX that carries an anycuda source bundle (`anycuda nvcc` writes one:
//! [`anycuda_rtc::rtc_bundle`]) has its bundle compiled instead ([`code_from_bundle`]): the
//! source is the better input. A damaged bundle is refused with `CUDA_ERROR_NOT_SUPPORTED` and
//! the damage named; a bundle that does not compile fails the load with
//! `CUDA_ERROR_INVALID_PTX` (what CUDA's driver returns when its PTX compile fails), the compile
//! log logged.
//!
//! NVIDIA cubins, and fat binaries without PTX, are refused before HIP sees them, with `CUDA_ERROR_NOT_SUPPORTED` and the way out, logged once per process and kept for
//! the calling thread ([`not_supported_reason`]). Why `CUDA_ERROR_NOT_SUPPORTED` (801,
//! "operation not supported on the current system or device"): the image is well-formed and
//! loads on an NVIDIA device, so `INVALID_PTX`, `INVALID_IMAGE` or `INVALID_SOURCE` would call a
//! good input broken; `NO_BINARY_FOR_GPU` would send the user to recompile for another `sm_XX`,
//! which cannot help; and the project's rule for a CUDA request the other side cannot express is
//! the not-supported error.
//!
//! On HIP's NVIDIA platform `hipModuleLoadData` is `cuModuleLoadData`, which loads PTX and
//! cubins; AMD cannot. That platform exists here to prove the HIP backend on an NVIDIA GPU, so
//! by default it runs in **AMD-faithful mode** ([`amd_faithful_mode`]; `ANYCUDA_HIP_AMD_FAITHFUL=0`
//! turns it off): every load entry treats images as on AMD (PTX translated and compiled by
//! hipRTC, which is NVRTC there, NVIDIA's formats refused with AMD's code and advice) and takes
//! only what AMD would load ([`amd_faithful_verdict`]): AMD code objects, clang offload bundles,
//! and hipRTC's own output, which is PTX there and carries [`HIPRTC_OUTPUT_MARK`] (`rtc.rs`
//! appends it). Anything else (an ELF that is not an AMD code object, LLVM bitcode, an image of
//! no known format) is `CUDA_ERROR_INVALID_IMAGE` in that mode: not a code object AMD could
//! load. A refusal is logged (`log::warn`) with the format and the switch.
//!
//! The linker (`cuLink*`, `adapt/link.rs`) takes PTX the same way, on AMD and in that mode
//! alike: PTX inputs and fat binaries' PTX are translated together at `cuLinkComplete` and
//! compiled by hipRTC; cubins are refused with [`CUBIN_ON_AMD`]; LLVM bitcode, the AMD linker's
//! input, goes on to HIP's linker (HIP 6.4+).

use super::support::{nvidia, NOT_SUPPORTED};
use crate::{HipBackend, Platform};
use anycuda_api::driver::CUresult;
use core::ffi::{c_char, c_void, CStr};
use std::cell::Cell;

/// What a module image is, judged from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// An ELF file for AMD GPUs (`e_machine` 224, `EM_AMDGPU`): what hipRTC and hipcc produce.
    AmdCodeObject,
    /// An ELF file for NVIDIA GPUs (`e_machine` 190, `EM_CUDA`): a cubin.
    NvidiaCubin,
    /// Another ELF file (left to HIP to judge).
    OtherElf,
    /// An NVIDIA fat binary (`fatbinary` magic `0xBA55ED50`, or its wrapper `0x466243B1`).
    NvidiaFatbin,
    /// A clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`, or `CCOB` compressed), HIP's fat
    /// binary.
    ClangOffloadBundle,
    /// Text: PTX (NVIDIA's assembly, which only NVIDIA's driver compiles).
    Text,
    /// LLVM bitcode (`BC\xC0\xDE`, or its wrapper `0x0B17C0DE`), e.g. hipRTC's `-fgpu-rdc`
    /// output: not NVIDIA's, left to HIP to judge.
    LlvmBitcode,
    /// Binary of no known format: left to HIP to judge.
    Unknown,
}

/// `EM_CUDA`: the ELF machine of NVIDIA cubins.
pub const EM_CUDA: u16 = 190;
/// `EM_AMDGPU`: the ELF machine of AMD code objects.
pub const EM_AMDGPU: u16 = 224;

/// Judges an image from its first bytes (as many as are available, up to 20; fewer for a short
/// text). Pure, so it can be tested without a device.
pub fn image_kind(head: &[u8]) -> ImageKind {
    if head.starts_with(b"\x7fELF") {
        return match head.get(18..20) {
            Some(&[lo, hi]) => match u16::from_le_bytes([lo, hi]) {
                EM_CUDA => ImageKind::NvidiaCubin,
                EM_AMDGPU => ImageKind::AmdCodeObject,
                _ => ImageKind::OtherElf,
            },
            _ => ImageKind::OtherElf,
        };
    }
    // `__CLANG_OFFLOAD_BUNDLE__` (its first 19 bytes fit the head), or a compressed bundle.
    if head.starts_with(b"__CLANG_OFFLOAD_BUN") || head.starts_with(b"CCOB") {
        return ImageKind::ClangOffloadBundle;
    }
    if let Some(&[a, b, c, d]) = head.get(..4) {
        let magic = u32::from_le_bytes([a, b, c, d]);
        if magic == 0xBA55_ED50 || magic == 0x4662_43B1 {
            return ImageKind::NvidiaFatbin;
        }
        if head.starts_with(b"BC\xC0\xDE") || magic == 0x0B17_C0DE {
            return ImageKind::LlvmBitcode;
        }
    }
    // Text up to its NUL (or the end of what was read): PTX, as far as a loader can tell.
    let text = head.iter().take_while(|&&c| c != 0);
    if text
        .clone()
        .all(|&c| c.is_ascii_graphic() || c.is_ascii_whitespace())
    {
        ImageKind::Text
    } else {
        ImageKind::Unknown
    }
}

/// Why PTX cannot load on an AMD GPU as it is, and what to do instead: every entry that takes
/// PTX translates it ([`crate::ptx_code`]), so this is the answer only for PTX that reaches
/// HIP's loader by another road.
pub const PTX_ON_AMD: &str = "PTX cannot load on an AMD GPU as it is; load it with \
    cuModuleLoadData or cuLibraryLoadData, or link it with cuLinkAddData or nvJitLink, which \
    translate it for the AMD GPU, or compile the .cu source at run time with NVRTC \
    (nvrtcCompileProgram; anycuda::core::Program; cudarc's compile_ptx), whose output loads on \
    both backends";

/// Why an NVIDIA cubin cannot load on an AMD GPU, and what to do instead.
pub const CUBIN_ON_AMD: &str = "an NVIDIA cubin (machine code for NVIDIA GPUs) cannot load on \
    an AMD GPU; load the PTX instead (nvcc -ptx, or a fat binary built with \
    `-gencode arch=compute_XX,code=compute_XX`), which anycuda translates for the AMD GPU, or \
    compile the .cu source at run time with NVRTC (nvrtcCompileProgram; anycuda::core::Program; \
    cudarc's compile_ptx), whose output loads on both backends";

/// Why an NVIDIA fat binary cannot load on an AMD GPU, and what to do instead.
pub const FATBIN_ON_AMD: &str = "an NVIDIA fat binary cannot load on an AMD GPU; load its PTX \
    instead (nvcc -ptx, or rebuild with `-gencode arch=compute_XX,code=compute_XX`), which \
    anycuda translates for the AMD GPU, or compile the .cu source at run time with NVRTC \
    (nvrtcCompileProgram; anycuda::core::Program; cudarc's compile_ptx), whose output loads on \
    both backends";

/// Why an image that is no AMD code object (nor an offload bundle, nor PTX anycuda compiles)
/// cannot load on an AMD GPU: AMD-faithful mode's answer (`CUDA_ERROR_INVALID_IMAGE`).
pub const NOT_A_CODE_OBJECT: &str = "the image is neither an AMD code object (ELF machine \
    EM_AMDGPU) nor a clang offload bundle of them, the only images HIP loads on an AMD GPU";

/// `ANYCUDA_HIP_AMD_FAITHFUL`: `0` lets HIP's NVIDIA platform load the NVIDIA formats AMD
/// cannot load; `1` (the default there) refuses them ([`amd_faithful_mode`]).
pub const AMD_FAITHFUL_ENV: &str = "ANYCUDA_HIP_AMD_FAITHFUL";

/// The line `rtc.rs` appends to hipRTC's output on HIP's NVIDIA platform (PTX there, from
/// NVRTC underneath), by which AMD-faithful mode knows hipRTC's output from other PTX: on AMD
/// the same compile gives an AMD code object, which loads. A PTX comment: NVIDIA's driver
/// ignores it.
pub const HIPRTC_OUTPUT_MARK: &str = "\n// anycuda: hipRTC output on HIP's NVIDIA platform\n";

/// Whether `text` (a PTX text, up to its NUL) is hipRTC's output on HIP's NVIDIA platform: it
/// has [`HIPRTC_OUTPUT_MARK`]'s line as a line of its own (looked for at the end, where
/// `rtc.rs` puts it, then everywhere). Pure.
pub fn is_hiprtc_output(text: &[u8]) -> bool {
    let line = HIPRTC_OUTPUT_MARK.trim().as_bytes();
    let is_mark = |l: &[u8]| l.strip_suffix(b"\r").unwrap_or(l) == line;
    let tail = &text[text.len().saturating_sub(line.len() + 8)..];
    tail.split(|&c| c == b'\n').any(is_mark) || text.split(|&c| c == b'\n').any(is_mark)
}

/// Whether AMD-faithful mode is on, from the platform and `ANYCUDA_HIP_AMD_FAITHFUL`'s value,
/// and a note for a value that changes nothing or is not understood. Pure.
///
/// On by default on HIP's NVIDIA platform; `0`/`off`/`false`/`no` turns it off there,
/// `1`/`on`/`true`/`yes` on. On AMD the value changes nothing (HIP itself loads only AMD code
/// objects there; [`HipBackend::amd_faithful`] is always true).
pub fn amd_faithful_mode(platform: Platform, value: Option<&str>) -> (bool, Option<String>) {
    const ON: [&str; 4] = ["1", "on", "true", "yes"];
    const OFF: [&str; 4] = ["0", "off", "false", "no"];
    let default = true;
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return (default, None);
    };
    let on = if ON.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        true
    } else if OFF.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        false
    } else {
        return (
            default,
            Some(format!(
                "{AMD_FAITHFUL_ENV}={v:?} is neither 0 nor 1; AMD-faithful mode stays on"
            )),
        );
    };
    let note = (platform == Platform::Amd && !on).then(|| {
        format!(
            "{AMD_FAITHFUL_ENV}={v} changes nothing on AMD: HIP loads only AMD code objects there"
        )
    });
    (on, note)
}

/// What AMD-faithful mode answers for `image` (its bytes: a text up to its NUL, a binary at
/// least its first 20 bytes): `None` for what AMD loads (an AMD code object, a clang offload
/// bundle, hipRTC's marked output), else the code and the advice: `CUDA_ERROR_NOT_SUPPORTED`
/// for PTX, NVIDIA cubins and fat binaries (as on AMD, [`refusal_on_amd`]),
/// `CUDA_ERROR_INVALID_IMAGE` for anything else. PTX carrying an anycuda source bundle never
/// gets here: it is compiled first. Pure.
pub fn amd_faithful_verdict(image: &[u8]) -> Option<(CUresult, &'static str)> {
    let kind = image_kind(&image[..image.len().min(20)]);
    verdict(kind, image)
}

/// [`amd_faithful_verdict`] for an image already judged to be `kind`; `text` is the image
/// (read only for text).
fn verdict(kind: ImageKind, text: &[u8]) -> Option<(CUresult, &'static str)> {
    match kind {
        ImageKind::AmdCodeObject | ImageKind::ClangOffloadBundle => None,
        ImageKind::Text if is_hiprtc_output(text) => None,
        ImageKind::Text | ImageKind::NvidiaCubin | ImageKind::NvidiaFatbin => {
            refusal_on_amd(kind).map(|why| (NOT_SUPPORTED, why))
        }
        ImageKind::OtherElf | ImageKind::LlvmBitcode | ImageKind::Unknown => {
            Some((CUresult::CUDA_ERROR_INVALID_IMAGE, NOT_A_CODE_OBJECT))
        }
    }
}

/// The format's name, for the log.
fn format_name(kind: ImageKind) -> &'static str {
    match kind {
        ImageKind::AmdCodeObject => "an AMD code object",
        ImageKind::NvidiaCubin => "an NVIDIA cubin (ELF machine EM_CUDA)",
        ImageKind::OtherElf => "an ELF file that is no GPU code object",
        ImageKind::NvidiaFatbin => "an NVIDIA fat binary",
        ImageKind::ClangOffloadBundle => "a clang offload bundle",
        ImageKind::Text => "PTX",
        ImageKind::LlvmBitcode => "LLVM bitcode",
        ImageKind::Unknown => "an image of no known format",
    }
}

/// Whether images are held to what AMD loads here: on AMD, and in AMD-faithful mode on HIP's
/// NVIDIA platform.
pub(crate) fn held_to_amd(b: &HipBackend) -> bool {
    b.amd_faithful()
}

/// Refuses an image of `kind` with `code` and `why` ([`refuse`]); on HIP's NVIDIA platform
/// (AMD-faithful mode) also logs which format was refused and how to let it load there.
fn refuse_image(b: &HipBackend, kind: ImageKind, code: CUresult, why: &'static str) -> CUresult {
    if nvidia(b) {
        log::warn!(
            "anycuda (HIP): AMD-faithful mode: {} refused ({code:?}): AMD cannot load it. \
             {AMD_FAITHFUL_ENV}=0 lets HIP's NVIDIA platform load it",
            format_name(kind)
        );
    }
    refuse(code, why)
}

/// Why PTX whose anycuda source bundle is damaged cannot load on an AMD GPU.
pub const DAMAGED_BUNDLE_ON_AMD: &str = "the PTX carries an anycuda source bundle that cannot \
    be read (damaged, truncated or of a newer version; the log names which), and PTX itself \
    cannot load on an AMD GPU; rebuild it with `anycuda nvcc`";

/// Why PTX whose anycuda source bundle did not compile fails to load on an AMD GPU.
pub const BUNDLE_COMPILE_FAILED: &str = "hipRTC could not compile the anycuda source bundle \
    of this PTX for the AMD GPU (the compile log is logged)";

/// The advice for an image HIP on an AMD GPU cannot load, `None` for one it may load. Pure.
pub fn refusal_on_amd(kind: ImageKind) -> Option<&'static str> {
    match kind {
        ImageKind::Text => Some(PTX_ON_AMD),
        ImageKind::NvidiaCubin => Some(CUBIN_ON_AMD),
        ImageKind::NvidiaFatbin => Some(FATBIN_ON_AMD),
        ImageKind::AmdCodeObject
        | ImageKind::OtherElf
        | ImageKind::ClangOffloadBundle
        | ImageKind::LlvmBitcode
        | ImageKind::Unknown => None,
    }
}

thread_local! {
    /// The last refusal of this backend on this thread: its code and its advice.
    static LAST: Cell<Option<(CUresult, &'static str)>> = const { Cell::new(None) };
}

/// Records and logs a refusal (printed to stderr once per process, because the code alone
/// cannot say what to do instead), and returns its code.
pub(crate) fn refuse(code: CUresult, why: &'static str) -> CUresult {
    static ONCE: std::sync::Once = std::sync::Once::new();
    log::error!("anycuda (HIP): {why}");
    ONCE.call_once(|| eprintln!("anycuda (HIP): {why}"));
    LAST.with(|l| l.set(Some((code, why))));
    code
}

/// [`refuse`] for a message made at run time (a PTX translation's refusal, naming the
/// instruction and its line): kept for the process so [`not_supported_reason`] can hand out a
/// `&'static str`. Equal messages are kept once, and at most [`MAX_MESSAGES`] distinct ones;
/// past that a refusal's message is logged but the reason recorded is the generic
/// [`MESSAGES_FULL`].
pub(crate) fn refuse_owned(code: CUresult, why: String) -> CUresult {
    refuse(code, intern(why))
}

/// The most distinct run-time refusal messages kept (see [`refuse_owned`]).
pub const MAX_MESSAGES: usize = 1024;

/// The reason recorded once [`MAX_MESSAGES`] distinct messages are kept.
pub const MESSAGES_FULL: &str = "the module was refused (the log has the message: anycuda keeps \
    at most 1024 distinct refusal messages per process)";

/// `why` as a `&'static str`: the kept copy of an equal message, or a new one (see
/// [`refuse_owned`]).
fn intern(why: String) -> &'static str {
    use std::collections::HashSet;
    static KEPT: std::sync::Mutex<Option<HashSet<&'static str>>> = std::sync::Mutex::new(None);
    let mut kept = KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let set = kept.get_or_insert_with(HashSet::new);
    if let Some(&s) = set.get(why.as_str()) {
        return s;
    }
    if set.len() >= MAX_MESSAGES {
        log::error!("anycuda (HIP): {why}");
        return MESSAGES_FULL;
    }
    let s: &'static str = Box::leak(why.into_boxed_str());
    set.insert(s);
    s
}

/// Why the HIP backend refused the calling thread's last operation that returned `code` (the
/// way out, e.g. "compile the .cu source with NVRTC"), if the last refusal had that code.
pub fn not_supported_reason(code: CUresult) -> Option<&'static str> {
    LAST.with(|l| match l.get() {
        Some((c, why)) if c == code => Some(why),
        _ => None,
    })
}

/// The code object for PTX `text` that carries an anycuda source bundle, compiled by hipRTC
/// for the current device: `None` when `text` has no bundle (the caller goes on as before),
/// else the code or the load's error (recorded and logged).
pub fn code_from_bundle(b: &HipBackend, text: &[u8]) -> Option<Result<Vec<u8>, CUresult>> {
    use anycuda_rtc::rtc_bundle::Bundle;
    // PTX is ASCII; text that is not UTF-8 carries no bundle this module wrote.
    let text = std::str::from_utf8(text).ok()?;
    let bundle = match Bundle::find(text) {
        Ok(None) => return None,
        Ok(Some(bundle)) => bundle,
        Err(e) => {
            log::error!("anycuda (HIP): {e}");
            return Some(Err(refuse(NOT_SUPPORTED, DAMAGED_BUNDLE_ON_AMD)));
        }
    };
    let start = std::time::Instant::now();
    match crate::rtc_bundle::compile_bundle_cached(b, &bundle, None) {
        Ok((mut code, hit)) => {
            // On HIP's NVIDIA platform hipRTC's code is PTX, which the driver reads as a C
            // string: make sure it ends with its NUL.
            if !code.starts_with(b"\x7fELF") && code.last() != Some(&0) {
                code.push(0);
            }
            log::info!(
                "anycuda (HIP): the source bundle of {} ({} headers): {} in {:.0?}",
                bundle.name,
                bundle.headers.len(),
                if hit {
                    "cached code"
                } else {
                    "compiled with hipRTC"
                },
                start.elapsed()
            );
            Some(Ok(code))
        }
        Err(e) => {
            log::error!(
                "anycuda (HIP): compiling the source bundle of {}: {e}",
                bundle.name
            );
            Some(Err(refuse(
                CUresult::CUDA_ERROR_INVALID_PTX,
                BUNDLE_COMPILE_FAILED,
            )))
        }
    }
}

/// The code object to load for PTX `text` (up to its NUL) where images are held to what AMD
/// loads, else `None` (the caller loads the image as it is):
/// - hipRTC's own output on HIP's NVIDIA platform (marked): `None`, it loads as it is;
/// - PTX carrying an anycuda source bundle: the bundle compiled ([`code_from_bundle`]);
///   wherever bundles are compiled ([`compile_bundles_here`]);
/// - any other PTX: translated and compiled ([`crate::ptx_code::ptx_module_code`]); where
///   images are held to what AMD loads ([`held_to_amd`]) only.
///
/// `what` names the input for the log. An error is recorded with its message.
pub(crate) fn code_for_ptx(
    b: &HipBackend,
    text: &[u8],
    what: &str,
) -> Option<Result<Vec<u8>, CUresult>> {
    if nvidia(b) && is_hiprtc_output(text) {
        return None;
    }
    if compile_bundles_here(b) {
        if let Some(code) = code_from_bundle(b, text) {
            return Some(code);
        }
    }
    if !held_to_amd(b) {
        return None;
    }
    Some(match core::str::from_utf8(text) {
        Ok(ptx) => crate::ptx_code::ptx_module_code(b, &[ptx], what),
        Err(e) => Err(refuse_owned(
            CUresult::CUDA_ERROR_INVALID_PTX,
            format!(
                "{what}: not PTX: the text is not ASCII (byte {})",
                e.valid_up_to()
            ),
        )),
    })
}

/// What `ANYCUDA_HIP_BUNDLES` asks of PTX that carries an anycuda source bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BundlesMode {
    /// `auto` (the default): the bundle is compiled wherever images are held to what AMD loads.
    Auto,
    /// `always`: on HIP's NVIDIA platform with AMD-faithful mode off too.
    Always,
    /// `never`: the bundle is ignored, so the PTX itself is translated (where images are held to
    /// what AMD loads), as for PTX from any other compiler: how the PTX route is proven on
    /// programs built with `anycuda nvcc` (candle's HIP column with its PTX translated).
    Never,
}

/// Whether source bundles are compiled here: on an AMD device and in AMD-faithful mode on HIP's
/// NVIDIA platform (the default: the AMD route, bundle read back, compiled by hipRTC, code
/// loaded, proven on an NVIDIA GPU, the only GPU this project's test machines have); with the
/// mode off (`ANYCUDA_HIP_AMD_FAITHFUL=0`) only with `ANYCUDA_HIP_BUNDLES=always`, else PTX
/// loads as PTX there, as NVIDIA's driver would load it. Never with `ANYCUDA_HIP_BUNDLES=never`.
/// Read once.
fn compile_bundles_here(b: &HipBackend) -> bool {
    static MODE: std::sync::OnceLock<BundlesMode> = std::sync::OnceLock::new();
    let mode = *MODE.get_or_init(|| {
        let v = std::env::var("ANYCUDA_HIP_BUNDLES").ok();
        let (mode, note) = bundles_mode(v.as_deref());
        if let Some(note) = note {
            log::warn!("anycuda (HIP): {note}");
        }
        match mode {
            BundlesMode::Always => log::info!(
                "anycuda (HIP): ANYCUDA_HIP_BUNDLES=always: source bundles are compiled by \
                 hipRTC on HIP's NVIDIA platform too"
            ),
            BundlesMode::Never => log::info!(
                "anycuda (HIP): ANYCUDA_HIP_BUNDLES=never: source bundles are ignored; PTX is \
                 translated where images are held to what AMD loads"
            ),
            BundlesMode::Auto => {}
        }
        mode
    });
    match mode {
        BundlesMode::Never => false,
        BundlesMode::Always => true,
        BundlesMode::Auto => held_to_amd(b),
    }
}

/// `ANYCUDA_HIP_BUNDLES`'s value read: the mode, and a note for a value that is none of `auto`,
/// `always` and `never` (then `auto`). Pure.
fn bundles_mode(value: Option<&str>) -> (BundlesMode, Option<String>) {
    match value.map(str::trim) {
        None | Some("") => (BundlesMode::Auto, None),
        Some(v) if v.eq_ignore_ascii_case("auto") => (BundlesMode::Auto, None),
        Some(v) if v.eq_ignore_ascii_case("always") => (BundlesMode::Always, None),
        Some(v) if v.eq_ignore_ascii_case("never") => (BundlesMode::Never, None),
        Some(other) => (
            BundlesMode::Auto,
            Some(format!(
                "ANYCUDA_HIP_BUNDLES={other:?} is none of `auto`, `always` and `never`; using `auto`"
            )),
        ),
    }
}

/// [`code_for_ptx`] for an in-memory image: `None` for a NULL image and for anything but text
/// (and where [`code_for_ptx`] says the text loads as it is).
///
/// # Safety
/// As [`head_of`] when `image` is non-NULL; a text image is NUL-terminated (CUDA's contract
/// for PTX).
pub(crate) unsafe fn own_code(
    b: &HipBackend,
    image: *const c_void,
    what: &str,
) -> Option<Result<Vec<u8>, CUresult>> {
    if image.is_null() || !(compile_bundles_here(b) || held_to_amd(b)) {
        return None;
    }
    // SAFETY: forwarded contract.
    let (head, n) = unsafe { head_of(image) };
    match image_kind(&head[..n]) {
        ImageKind::Text => {
            // SAFETY: a text image is NUL-terminated (the caller's contract).
            let text = unsafe { CStr::from_ptr(image.cast::<c_char>()) };
            code_for_ptx(b, text.to_bytes(), what)
        }
        // SAFETY: a fat binary (or its wrapper) of the size its header declares (CUDA's
        // contract for a fat binary image).
        ImageKind::NvidiaFatbin if held_to_amd(b) => Some(unsafe { fatbin_code(b, image, what) }),
        _ => None,
    }
}

/// The code object for the PTX in an NVIDIA fat binary (or its `__fatBinC_Wrapper_t`): its
/// best PTX entry ([`anycuda_rtc::fatbin::best_ptx`]: the highest architecture, decompressed)
/// translated and compiled as [`code_for_ptx`] does. A fat binary without PTX is refused with
/// the way out (rebuild with a `compute_XX` code); a damaged one is `CUDA_ERROR_INVALID_IMAGE`.
///
/// # Safety
/// `image` points to a fat binary, or its wrapper, of the size its header declares.
unsafe fn fatbin_code(
    b: &HipBackend,
    image: *const c_void,
    what: &str,
) -> Result<Vec<u8>, CUresult> {
    // SAFETY: forwarded contract.
    let bytes = unsafe { fatbin_image_bytes(image, what) }?;
    fatbin_bytes_code(b, bytes, what)
}

/// The fat binary an image is or wraps (nvcc's `__fatBinC_Wrapper_t`), measured from its own
/// header: what a library keeps a copy of (`adapt/library.rs`), since a fat binary's size is in
/// its header and a wrapper points into the program. `None` for any other image or a damaged one.
///
/// # Safety
/// As [`head_of`]; a fat binary (or the one a wrapper points to) of the size its header
/// declares.
pub(crate) unsafe fn fatbin_of<'a>(image: *const c_void) -> Option<&'a [u8]> {
    // SAFETY: forwarded contract.
    let (head, n) = unsafe { head_of(image) };
    if image_kind(&head[..n]) != ImageKind::NvidiaFatbin {
        return None;
    }
    // SAFETY: forwarded contract.
    unsafe { fatbin_image_bytes(image, "cuLibraryLoadData") }.ok()
}

/// The fat binary an image holds: the image itself, or what its `__fatBinC_Wrapper_t` points
/// to; `CUDA_ERROR_INVALID_IMAGE` (recorded) when it cannot be read.
///
/// # Safety
/// `image` points to a fat binary, or its wrapper, of the size its header declares.
unsafe fn fatbin_image_bytes<'a>(image: *const c_void, what: &str) -> Result<&'a [u8], CUresult> {
    use anycuda_rtc::fatbin;
    // SAFETY: forwarded contract (the first 4 bytes are the magic, read by `head_of` already).
    let wrapped = unsafe { image.cast::<u32>().read_unaligned() } == fatbin::WRAPPER_MAGIC;
    let bytes = if wrapped {
        // SAFETY: forwarded contract (a wrapper whose data pointer is a fat binary).
        unsafe { fatbin::wrapped_fatbin(image) }.map(|(_, b)| b)
    } else {
        // SAFETY: forwarded contract (a fat binary of the size its header declares).
        unsafe { fatbin::fatbin_at(image.cast()) }
    };
    bytes.map_err(|e| {
        refuse_owned(
            CUresult::CUDA_ERROR_INVALID_IMAGE,
            format!("{what}: the NVIDIA fat binary cannot be read: {e}"),
        )
    })
}

/// [`fatbin_code`] for a fat binary's bytes (bounds-checked: a truncated one is damaged).
fn fatbin_bytes_code(b: &HipBackend, bytes: &[u8], what: &str) -> Result<Vec<u8>, CUresult> {
    let ptx = fatbin_ptx(bytes, what)?;
    match code_for_ptx(b, ptx.as_bytes(), what) {
        Some(r) => r,
        None => Err(refuse(NOT_SUPPORTED, FATBIN_ON_AMD)),
    }
}

/// The best PTX of a fat binary's bytes ([`anycuda_rtc::fatbin::best_ptx`]: the highest
/// architecture, decompressed), for a module load ([`fatbin_code`]) and a linker input
/// (`adapt/link.rs`) alike. `what` names the input for the messages.
///
/// # Errors
/// Recorded with the message ([`not_supported_reason`]): `CUDA_ERROR_INVALID_IMAGE` for a fat
/// binary that cannot be read; `CUDA_ERROR_NOT_SUPPORTED` with [`no_ptx_advice`] for one
/// without PTX.
pub(crate) fn fatbin_ptx(bytes: &[u8], what: &str) -> Result<String, CUresult> {
    use anycuda_rtc::fatbin::{self, FatBinary};
    let fb = match FatBinary::parse(bytes) {
        Ok(fb) => fb,
        Err(e) => {
            return Err(refuse_owned(
                CUresult::CUDA_ERROR_INVALID_IMAGE,
                format!("{what}: the NVIDIA fat binary cannot be read: {e}"),
            ))
        }
    };
    match fatbin::best_ptx(&fb) {
        Some((arch, ptx)) => {
            log::info!(
                "anycuda (HIP): {what}: fat binary ({}): translating its compute_{arch} PTX",
                fb.describe()
            );
            Ok(ptx)
        }
        None => {
            let advice = format!("{what}: {}", no_ptx_advice(&fb));
            Err(refuse_owned(NOT_SUPPORTED, advice))
        }
    }
}

/// Why a fat binary without PTX cannot run on an AMD GPU, and the way out: machine code only,
/// so rebuild with `-gencode arch=compute_XX,code=compute_XX` (its highest cubin's number).
/// The one wording for module loads and nvcc-registered fat binaries (`adapt/nvcc.rs`).
pub(crate) fn no_ptx_advice(fb: &anycuda_rtc::fatbin::FatBinary<'_>) -> String {
    match fb.cubin_archs().iter().max() {
        Some(a) => format!(
            "the NVIDIA fat binary holds machine code only ({}), which an AMD GPU cannot run, \
             and no PTX to translate: rebuild with `-gencode arch=compute_{a},code=compute_{a}` \
             so it carries PTX (anycuda translates it), or run it on an NVIDIA GPU",
            fb.describe()
        ),
        None => format!(
            "the NVIDIA fat binary holds no PTX to translate for the AMD GPU ({}): build it \
             with a `compute_XX` code, or compile the .cu source at run time with NVRTC",
            fb.describe()
        ),
    }
}

/// [`own_code`] for the image in file `fname` (`cuModuleLoad`); `None` also when the file
/// cannot be read (HIP then reports it as CUDA does).
///
/// # Safety
/// `fname` is non-NULL and NUL-terminated.
pub(crate) unsafe fn own_file_code(
    b: &HipBackend,
    fname: *const c_char,
) -> Option<Result<Vec<u8>, CUresult>> {
    if fname.is_null() || !(compile_bundles_here(b) || held_to_amd(b)) {
        return None;
    }
    // SAFETY: the caller's contract.
    let name = unsafe { CStr::from_ptr(fname) };
    let kind = file_kind(name)?;
    if kind != ImageKind::Text && !(kind == ImageKind::NvidiaFatbin && held_to_amd(b)) {
        return None;
    }
    let bytes = std::fs::read(path_of(name)?).ok()?;
    if kind == ImageKind::NvidiaFatbin {
        // A `.fatbin` file: its best PTX, as for an in-memory fat binary (read as a slice, so
        // a truncated file is damaged, never read past).
        return Some(fatbin_bytes_code(b, &bytes, &name.to_string_lossy()));
    }
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    code_for_ptx(b, &bytes[..end], &name.to_string_lossy())
}

/// The path a C file name names.
fn path_of(name: &CStr) -> Option<std::path::PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(std::path::PathBuf::from(std::ffi::OsStr::from_bytes(
            name.to_bytes(),
        )))
    }
    #[cfg(not(unix))]
    {
        Some(std::path::PathBuf::from(name.to_str().ok()?))
    }
}

/// Up to 20 leading bytes of a NUL-terminated text or an ELF/fat-binary image, never reading
/// past a text's NUL.
///
/// # Safety
/// `image` is non-NULL and points to a NUL-terminated text or to a binary image of at least
/// 20 bytes, as `cuModuleLoadData` requires.
unsafe fn head_of(image: *const c_void) -> ([u8; 20], usize) {
    let p = image.cast::<u8>();
    let mut head = [0u8; 20];
    let mut n = 0;
    while n < head.len() {
        // SAFETY: byte `n` exists: either the text has not reached its NUL yet (a text stops
        // below), or the image is binary and has at least 20 bytes.
        let b = unsafe { *p.add(n) };
        head[n] = b;
        n += 1;
        // Stop at a NUL only in text: binaries (ELF, fat binaries) contain NULs early.
        if b == 0 && !is_binary_start(&head[..n]) {
            break;
        }
    }
    (head, n)
}

/// Whether the bytes so far begin a binary format (ELF, a fat binary, an offload bundle).
fn is_binary_start(seen: &[u8]) -> bool {
    const STARTS: [&[u8]; 6] = [
        b"\x7fELF",
        &[0x50, 0xED, 0x55, 0xBA],
        &[0xB1, 0x43, 0x62, 0x46],
        b"__CL",
        b"BC\xC0\xDE",
        &[0xDE, 0xC0, 0x17, 0x0B],
    ];
    let k = seen.len().min(4);
    STARTS.iter().any(|s| s[..k] == seen[..k])
}

/// `Err` (recorded, with advice) for an image AMD cannot load where images are held to what AMD
/// loads ([`held_to_amd`]): on AMD, `CUDA_ERROR_NOT_SUPPORTED` for NVIDIA's formats (HIP judges
/// the rest); in AMD-faithful mode on HIP's NVIDIA platform, [`amd_faithful_verdict`]. `Ok`
/// otherwise.
///
/// # Safety
/// As [`head_of`] when `image` is non-NULL; a text image is NUL-terminated (CUDA's contract).
pub(crate) unsafe fn check_loadable(b: &HipBackend, image: *const c_void) -> Result<(), CUresult> {
    if image.is_null() || !held_to_amd(b) {
        return Ok(());
    }
    // SAFETY: forwarded contract.
    let (head, n) = unsafe { head_of(image) };
    let kind = image_kind(&head[..n]);
    if !nvidia(b) {
        return match refusal_on_amd(kind) {
            Some(why) => Err(refuse(NOT_SUPPORTED, why)),
            None => Ok(()),
        };
    }
    let text = if kind == ImageKind::Text {
        // SAFETY: a text image is NUL-terminated (the caller's contract).
        unsafe { CStr::from_ptr(image.cast::<c_char>()) }.to_bytes()
    } else {
        &head[..n]
    };
    match verdict(kind, text) {
        Some((code, why)) => Err(refuse_image(b, kind, code, why)),
        None => Ok(()),
    }
}

/// Whether an in-memory image is text (PTX), judged as [`image_kind`] judges it.
///
/// # Safety
/// As [`head_of`].
pub(crate) unsafe fn is_text_image(image: *const c_void) -> bool {
    // SAFETY: forwarded contract.
    let (head, n) = unsafe { head_of(image) };
    image_kind(&head[..n]) == ImageKind::Text
}

/// [`check_loadable`] for an image a library keeps to load later (`adapt/library.rs`): where
/// images are held to what AMD loads, PTX is accepted only when it carries a readable anycuda
/// source bundle (compiled when the library is first used in a context) or, on HIP's NVIDIA
/// platform, is hipRTC's output, so an image AMD cannot load is refused when the library is
/// loaded, with the same advice as for modules.
///
/// # Safety
/// As [`head_of`] when `image` is non-NULL; a text image is NUL-terminated.
pub(crate) unsafe fn check_library_image(
    b: &HipBackend,
    image: *const c_void,
) -> Result<(), CUresult> {
    if image.is_null() || !held_to_amd(b) {
        return Ok(());
    }
    // SAFETY: forwarded contract.
    let (head, n) = unsafe { head_of(image) };
    let kind = image_kind(&head[..n]);
    if kind == ImageKind::NvidiaFatbin {
        // A fat binary (nvcc's wrapper, as NVIDIA's statically linked runtime passes it): its
        // best PTX is translated when the library is first used in a context (`fatbin_code`);
        // one without PTX, or whose PTX the translator refuses, is refused now.
        // SAFETY: forwarded contract (a fat binary or its wrapper, CUDA's contract).
        let bytes = unsafe { fatbin_image_bytes(image, "cuLibraryLoadData") }?;
        let ptx = fatbin_ptx(bytes, "cuLibraryLoadData")?;
        return translates(&ptx);
    }
    if kind != ImageKind::Text {
        // SAFETY: forwarded contract.
        return unsafe { check_loadable(b, image) };
    }
    // SAFETY: a text image is NUL-terminated (the caller's contract).
    let text = unsafe { CStr::from_ptr(image.cast::<c_char>()) };
    if nvidia(b) && is_hiprtc_output(text.to_bytes()) {
        return Ok(());
    }
    let Ok(text) = core::str::from_utf8(text.to_bytes()) else {
        return Err(refuse(CUresult::CUDA_ERROR_INVALID_PTX, NOT_ASCII_PTX));
    };
    match anycuda_rtc::rtc_bundle::Bundle::find(text) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => translates(text),
        Err(e) => {
            log::error!("anycuda (HIP): {e}");
            Err(refuse(NOT_SUPPORTED, DAMAGED_BUNDLE_ON_AMD))
        }
    }
}

/// `Ok` when the translator accepts `ptx` (it is translated and compiled when the library is
/// first used in a context); else the refusal, as CUDA's driver refuses PTX it cannot compile
/// when the library is loaded.
fn translates(ptx: &str) -> Result<(), CUresult> {
    match anycuda_rtc::ptx::translate(ptx) {
        Ok(_) => Ok(()),
        Err(e) => {
            let e = crate::ptx_code::PtxCodeError::Translate {
                module: 0,
                error: e,
            };
            Err(refuse_owned(e.code(), format!("cuLibraryLoadData: {e}")))
        }
    }
}

/// Why a text image that is not ASCII is no PTX.
pub const NOT_ASCII_PTX: &str = "the image is text but not ASCII, so not PTX";

/// As [`check_loadable`] for the image in file `fname` (`cuModuleLoad`), whose first bytes
/// are read to judge it (all of it, for text in AMD-faithful mode); an unreadable file is left
/// to HIP, which reports it as CUDA does.
///
/// # Safety
/// `fname` is non-NULL and NUL-terminated.
pub(crate) unsafe fn check_file(b: &HipBackend, fname: *const c_char) -> Result<(), CUresult> {
    if fname.is_null() || !held_to_amd(b) {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    let name = unsafe { CStr::from_ptr(fname) };
    let Some(kind) = file_kind(name) else {
        return Ok(());
    };
    if !nvidia(b) {
        return match refusal_on_amd(kind) {
            Some(why) => Err(refuse(NOT_SUPPORTED, why)),
            None => Ok(()),
        };
    }
    let text = if kind == ImageKind::Text {
        file_text(name).unwrap_or_default()
    } else {
        Vec::new()
    };
    match verdict(kind, &text) {
        Some((code, why)) => Err(refuse_image(b, kind, code, why)),
        None => Ok(()),
    }
}

/// The text in file `name`, up to its first NUL; `None` when it cannot be read.
fn file_text(name: &CStr) -> Option<Vec<u8>> {
    let mut bytes = std::fs::read(path_of(name)?).ok()?;
    if let Some(end) = bytes.iter().position(|&c| c == 0) {
        bytes.truncate(end);
    }
    Some(bytes)
}

/// The kind of the image in file `name`, from its first 20 bytes; `None` when it cannot be
/// read or is empty.
fn file_kind(name: &CStr) -> Option<ImageKind> {
    use std::io::Read;
    let path = path_of(name)?;
    let mut f = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 20];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    (n > 0).then(|| image_kind(&head[..n]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16) -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(b"\x7fELF");
        v[18..20].copy_from_slice(&machine.to_le_bytes());
        v
    }

    #[test]
    fn kinds() {
        assert_eq!(image_kind(&elf(EM_CUDA)), ImageKind::NvidiaCubin);
        assert_eq!(image_kind(&elf(EM_AMDGPU)), ImageKind::AmdCodeObject);
        assert_eq!(image_kind(&elf(62)), ImageKind::OtherElf);
        assert_eq!(image_kind(b"\x7fELF"), ImageKind::OtherElf);
        assert_eq!(
            image_kind(b"//\n.version 8.0\n.target sm_90"),
            ImageKind::Text
        );
        assert_eq!(image_kind(b""), ImageKind::Text);
        assert_eq!(
            image_kind(b"BC\xC0\xDE\x35\x14\0\0"),
            ImageKind::LlvmBitcode
        );
        assert_eq!(
            image_kind(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]),
            ImageKind::LlvmBitcode
        );
        assert_eq!(image_kind(&[1, 2, 0xff, 0x80]), ImageKind::Unknown);
        assert_eq!(
            image_kind(&[0x50, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0]),
            ImageKind::NvidiaFatbin
        );
        assert_eq!(
            image_kind(b"__CLANG_OFFLOAD_BUNDLE__\x02\0\0\0"),
            ImageKind::ClangOffloadBundle
        );
    }

    #[test]
    fn refusals_name_the_way_out() {
        for k in [
            ImageKind::Text,
            ImageKind::NvidiaCubin,
            ImageKind::NvidiaFatbin,
        ] {
            let why = refusal_on_amd(k).expect("refused");
            assert!(why.contains("AMD") && why.contains("compile_ptx"), "{why}");
            assert!(why.contains("NVRTC"), "{why}");
        }
        for k in [
            ImageKind::AmdCodeObject,
            ImageKind::OtherElf,
            ImageKind::ClangOffloadBundle,
            ImageKind::LlvmBitcode,
            ImageKind::Unknown,
        ] {
            assert_eq!(refusal_on_amd(k), None);
        }
    }

    #[test]
    fn head_stops_at_a_short_text() {
        let text = b"ab\0";
        // SAFETY: a NUL-terminated text.
        let (head, n) = unsafe { head_of(text.as_ptr().cast()) };
        assert_eq!(&head[..n], b"ab\0");
        let cubin = elf(EM_CUDA);
        // SAFETY: 64 bytes.
        let (head, n) = unsafe { head_of(cubin.as_ptr().cast()) };
        assert_eq!(n, 20);
        assert_eq!(image_kind(&head[..n]), ImageKind::NvidiaCubin);
    }

    #[test]
    fn reason_is_per_code_and_thread() {
        use super::super::support::INVALID_VALUE;
        assert_eq!(refuse(NOT_SUPPORTED, PTX_ON_AMD), NOT_SUPPORTED);
        assert_eq!(not_supported_reason(NOT_SUPPORTED), Some(PTX_ON_AMD));
        assert_eq!(not_supported_reason(INVALID_VALUE), None);
        std::thread::spawn(|| assert_eq!(not_supported_reason(NOT_SUPPORTED), None))
            .join()
            .unwrap();
    }

    fn fatbin() -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
        v
    }

    /// A fat binary of one uncompressed entry of `kind` (1 PTX, 2 cubin) for `arch`.
    fn fatbin_with(kind: u16, arch: u32, payload: &[u8]) -> Vec<u8> {
        let padded = payload.len().div_ceil(8) * 8;
        let mut e = vec![0u8; 64];
        e[..2].copy_from_slice(&kind.to_le_bytes());
        e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
        e[4..8].copy_from_slice(&64u32.to_le_bytes());
        e[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        e[28..32].copy_from_slice(&arch.to_le_bytes());
        e[40..48].copy_from_slice(&0x11u64.to_le_bytes());
        e.extend_from_slice(payload);
        e.resize(64 + padded, 0);
        let mut v = Vec::new();
        v.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&16u16.to_le_bytes());
        v.extend_from_slice(&(e.len() as u64).to_le_bytes());
        v.extend_from_slice(&e);
        v
    }

    fn wrapper() -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(&0x4662_43B1u32.to_le_bytes());
        v
    }

    const PTX: &[u8] = b"//\n.version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k()\n{\n\tret;\n}\n";

    fn marked_ptx() -> Vec<u8> {
        let mut v = PTX.to_vec();
        v.extend_from_slice(HIPRTC_OUTPUT_MARK.as_bytes());
        v
    }

    #[test]
    fn amd_faithful_verdicts_per_format() {
        use CUresult as R;
        let ns = Some(R::CUDA_ERROR_NOT_SUPPORTED);
        let ii = Some(R::CUDA_ERROR_INVALID_IMAGE);
        let code = |img: &[u8]| amd_faithful_verdict(img).map(|v| v.0);
        assert_eq!(code(PTX), ns);
        assert_eq!(amd_faithful_verdict(PTX).unwrap().1, PTX_ON_AMD);
        assert_eq!(code(&elf(EM_CUDA)), ns);
        assert_eq!(amd_faithful_verdict(&elf(EM_CUDA)).unwrap().1, CUBIN_ON_AMD);
        assert_eq!(code(&fatbin()), ns);
        assert_eq!(code(&wrapper()), ns);
        assert_eq!(amd_faithful_verdict(&wrapper()).unwrap().1, FATBIN_ON_AMD);
        // What AMD loads.
        assert_eq!(code(&elf(EM_AMDGPU)), None);
        assert_eq!(code(b"__CLANG_OFFLOAD_BUNDLE__\x02\0\0\0"), None);
        assert_eq!(code(b"CCOB\x01\0\x02\0"), None);
        assert_eq!(code(&marked_ptx()), None);
        // Not a code object at all.
        assert_eq!(code(&elf(62)), ii);
        assert_eq!(code(b"BC\xC0\xDE\x35\x14\0\0"), ii);
        assert_eq!(code(&[1, 2, 0xff, 0x80]), ii);
        assert_eq!(amd_faithful_verdict(&elf(62)).unwrap().1, NOT_A_CODE_OBJECT);
    }

    #[test]
    fn the_mark_is_hipRTCs_line_not_any_mention() {
        assert!(is_hiprtc_output(&marked_ptx()));
        assert!(!is_hiprtc_output(PTX));
        // A line of its own: a mention inside a line is not the mark.
        assert!(!is_hiprtc_output(
            b"x // anycuda: hipRTC output on HIP's NVIDIA platform\n"
        ));
        assert!(!is_hiprtc_output(
            b"// anycuda: hipRTC output on HIP's NVIDIA platform, or not\n"
        ));
        // Wherever it is, CRLF too.
        let mut v = marked_ptx();
        v.extend_from_slice(b"// more\n");
        assert!(is_hiprtc_output(&v));
        assert!(is_hiprtc_output(
            b".version 8.0\r\n// anycuda: hipRTC output on HIP's NVIDIA platform\r\n"
        ));
    }

    #[test]
    fn amd_faithful_mode_is_on_by_default_and_reads_its_switch() {
        use Platform::{Amd, Nvidia};
        for p in [Nvidia, Amd] {
            assert_eq!(amd_faithful_mode(p, None), (true, None));
            assert_eq!(amd_faithful_mode(p, Some(" ")), (true, None));
            for v in ["1", "on", "TRUE", " yes\n"] {
                assert_eq!(amd_faithful_mode(p, Some(v)), (true, None), "{v:?}");
            }
        }
        for v in ["0", "off", "False", "no"] {
            assert_eq!(amd_faithful_mode(Nvidia, Some(v)), (false, None), "{v:?}");
            let (on, note) = amd_faithful_mode(Amd, Some(v));
            assert!(
                !on && note.unwrap().contains("changes nothing on AMD"),
                "{v:?}"
            );
        }
        let (on, note) = amd_faithful_mode(Nvidia, Some("maybe"));
        assert!(on && note.unwrap().contains("stays on"));
    }

    /// The backend loaded here (CI: ROCm 5.2.3, AMD), as if it were HIP's NVIDIA platform in
    /// AMD-faithful mode `faithful`: the checks before HIP are the platform's, whatever the
    /// library underneath. `None` (skip) without libamdhip64.
    fn as_nvidia(faithful: bool) -> Option<HipBackend> {
        let b = HipBackend::load();
        if b.native_hip().is_none() {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "libamdhip64 must load under CI=true"
            );
            eprintln!("SKIP: libamdhip64 not found");
            return None;
        }
        Some(HipBackend {
            platform: Platform::Nvidia,
            amd_faithful: faithful,
            ..b
        })
    }

    #[test]
    fn amd_faithful_entry_points_refuse_before_hip() {
        use anycuda_api::driver::{CUjit_option, CUlibrary, CUmodule};
        use anycuda_api::traits::{Driver, Runtime};
        use core::ptr::null_mut;
        let Some(b) = as_nvidia(true) else { return };
        assert!(b.amd_faithful());
        let ptx = [PTX, b"\0"].concat();
        // PTX the translator refuses (an instruction outside its set) fails with its message.
        let refused = [
            &PTX[..PTX.len() - 7],
            b"\twgmma.fence.sync.aligned;\n\tret;\n}\n\0",
        ]
        .concat();
        let mut m: CUmodule = null_mut();
        // SAFETY: local images, out-pointers and option arrays, for the whole block.
        unsafe {
            // PTX is translated; with no device (CI) there is no target to compile for.
            assert_eq!(
                b.cuModuleLoadData(&mut m, ptx.as_ptr().cast()),
                CUresult::CUDA_ERROR_NO_DEVICE
            );
            assert_eq!(
                b.cuModuleLoadData(&mut m, refused.as_ptr().cast()),
                NOT_SUPPORTED
            );
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(
                why.contains("wgmma.fence.sync.aligned") && why.contains("line 7"),
                "{why}"
            );
            assert_eq!(
                b.cuModuleLoadData(&mut m, elf(EM_CUDA).as_ptr().cast()),
                NOT_SUPPORTED
            );
            // A wrapper whose data pointer is NULL is damaged.
            assert_eq!(
                b.cuModuleLoadFatBinary(&mut m, wrapper().as_ptr().cast()),
                CUresult::CUDA_ERROR_INVALID_IMAGE
            );
            // A fat binary's PTX is translated: a refused instruction is named, a cubin-only
            // fat binary gets the way out.
            let fb = fatbin_with(1, 90, &refused);
            assert_eq!(
                b.cuModuleLoadData(&mut m, fb.as_ptr().cast()),
                NOT_SUPPORTED
            );
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(why.contains("wgmma.fence.sync.aligned"), "{why}");
            let fb = fatbin_with(1, 90, &ptx);
            assert_eq!(
                b.cuModuleLoadFatBinary(&mut m, fb.as_ptr().cast()),
                CUresult::CUDA_ERROR_NO_DEVICE
            );
            let fb = fatbin_with(2, 86, &elf(EM_CUDA));
            assert_eq!(
                b.cuModuleLoadData(&mut m, fb.as_ptr().cast()),
                NOT_SUPPORTED
            );
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(why.contains("arch=compute_86,code=compute_86"), "{why}");
            assert_eq!(
                b.cuModuleLoadData(&mut m, elf(62).as_ptr().cast()),
                CUresult::CUDA_ERROR_INVALID_IMAGE
            );
            assert!(m.is_null());

            // cuLibraryLoadData on a fat binary and on nvcc's wrapper of one (what NVIDIA's
            // statically linked runtime passes): kept, its PTX translated when the library is
            // first used in a context; a cubin-only one and refused PTX are refused at once.
            let fb = fatbin_with(1, 90, &ptx);
            let mut w = vec![0u8; 24];
            w[..4].copy_from_slice(&0x4662_43B1u32.to_le_bytes());
            w[4..8].copy_from_slice(&1u32.to_le_bytes());
            w[8..16].copy_from_slice(&(fb.as_ptr() as u64).to_le_bytes());
            let load = |image: &[u8], lib: &mut CUlibrary| {
                b.cuLibraryLoadData(
                    lib,
                    image.as_ptr().cast(),
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0,
                )
            };
            for image in [&fb, &w] {
                let mut lib: CUlibrary = null_mut();
                assert_eq!(load(image, &mut lib), CUresult::CUDA_SUCCESS);
                assert!(!lib.is_null());
                assert_eq!(b.cuLibraryUnload(lib), CUresult::CUDA_SUCCESS);
            }
            let mut lib: CUlibrary = null_mut();
            assert_eq!(
                load(&fatbin_with(2, 86, &elf(EM_CUDA)), &mut lib),
                NOT_SUPPORTED
            );
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(why.contains("arch=compute_86,code=compute_86"), "{why}");
            assert_eq!(load(&fatbin_with(1, 90, &refused), &mut lib), NOT_SUPPORTED);
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(why.contains("wgmma.fence.sync.aligned"), "{why}");
            assert!(lib.is_null());

            // cuModuleLoadDataEx: the advice in the caller's JIT error log.
            let mut log = [0x55u8; 64];
            let mut opts = [
                CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
                CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            ];
            let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), 64usize as *mut c_void];
            assert_eq!(
                b.cuModuleLoadDataEx(
                    &mut m,
                    refused.as_ptr().cast(),
                    2,
                    opts.as_mut_ptr(),
                    vals.as_mut_ptr()
                ),
                NOT_SUPPORTED
            );
            let written = vals[1] as usize;
            assert_eq!(written, 64);
            assert_eq!(log[63], 0);
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(
                why.starts_with("cuModuleLoadDataEx: PTX translation"),
                "{why}"
            );
            assert_eq!(&log[..63], &why.as_bytes()[..63]);
            // The message names the instruction; a long log buffer gets all of it.
            let mut long = [0x55u8; 512];
            vals = [long.as_mut_ptr().cast(), 512usize as *mut c_void];
            assert_eq!(
                b.cuModuleLoadDataEx(
                    &mut m,
                    refused.as_ptr().cast(),
                    2,
                    opts.as_mut_ptr(),
                    vals.as_mut_ptr()
                ),
                NOT_SUPPORTED
            );
            let n = vals[1] as usize;
            let text = std::str::from_utf8(&long[..n - 1]).unwrap();
            assert!(
                text.contains("`wgmma.fence.sync.aligned`") && text.contains("line 7"),
                "{text}"
            );

            // Files: cuModuleLoad judges the file's bytes.
            let dir = std::env::temp_dir().join(format!("anycuda-faithful-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("k.ptx");
            std::fs::write(&file, PTX).unwrap();
            let name = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
            assert_eq!(
                b.cuModuleLoad(&mut m, name.as_ptr()),
                CUresult::CUDA_ERROR_NO_DEVICE
            );
            let bad = dir.join("bad.ptx");
            std::fs::write(&bad, &refused[..refused.len() - 1]).unwrap();
            let bad_name = std::ffi::CString::new(bad.to_str().unwrap()).unwrap();
            assert_eq!(b.cuModuleLoad(&mut m, bad_name.as_ptr()), NOT_SUPPORTED);
            let why = not_supported_reason(NOT_SUPPORTED).unwrap();
            assert!(why.contains("bad.ptx") && why.contains("wgmma"), "{why}");
            // A `.fatbin` file: its PTX translated; a truncated one is damaged.
            let fbf = dir.join("k.fatbin");
            std::fs::write(&fbf, fatbin_with(1, 90, &refused)).unwrap();
            let fb_name = std::ffi::CString::new(fbf.to_str().unwrap()).unwrap();
            assert_eq!(b.cuModuleLoad(&mut m, fb_name.as_ptr()), NOT_SUPPORTED);
            assert!(not_supported_reason(NOT_SUPPORTED)
                .unwrap()
                .contains("wgmma"));
            let whole = fatbin_with(1, 90, &ptx);
            std::fs::write(&fbf, &whole[..whole.len() - 9]).unwrap();
            assert_eq!(
                b.cuModuleLoad(&mut m, fb_name.as_ptr()),
                CUresult::CUDA_ERROR_INVALID_IMAGE
            );
            let cubin = dir.join("k.cubin");
            std::fs::write(&cubin, elf(EM_CUDA)).unwrap();
            let name = std::ffi::CString::new(cubin.to_str().unwrap()).unwrap();
            assert_eq!(b.cuModuleLoad(&mut m, name.as_ptr()), NOT_SUPPORTED);
            let name = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
            assert_eq!(check_file(&b, name.as_ptr()), Err(NOT_SUPPORTED));
            std::fs::write(&file, marked_ptx()).unwrap();
            assert_eq!(check_file(&b, name.as_ptr()), Ok(()));
            std::fs::remove_dir_all(&dir).ok();

            // Libraries: PTX the translator takes is kept (compiled when first used in a
            // context), PTX it refuses is refused when loaded; hipRTC's marked output is kept
            // (no device needed).
            let mut l: CUlibrary = null_mut();
            assert_eq!(
                b.cuLibraryLoadData(
                    &mut l,
                    ptx.as_ptr().cast(),
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0
                ),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(b.cuLibraryUnload(l), CUresult::CUDA_SUCCESS);
            assert_eq!(
                b.cuLibraryLoadData(
                    &mut l,
                    refused.as_ptr().cast(),
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0
                ),
                NOT_SUPPORTED
            );
            let mut rl = null_mut();
            assert_eq!(
                b.cudaLibraryLoadData(
                    &mut rl,
                    refused.as_ptr().cast(),
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0
                ),
                anycuda_api::runtime::cudaError_t::cudaErrorNotSupported
            );
            let marked = [marked_ptx(), vec![0]].concat();
            assert_eq!(
                b.cuLibraryLoadData(
                    &mut l,
                    marked.as_ptr().cast(),
                    null_mut(),
                    null_mut(),
                    0,
                    null_mut(),
                    null_mut(),
                    0
                ),
                CUresult::CUDA_SUCCESS
            );
            assert_eq!(b.cuLibraryUnload(l), CUresult::CUDA_SUCCESS);

            // The checks every other entry shares.
            assert_eq!(check_loadable(&b, marked.as_ptr().cast()), Ok(()));
            assert_eq!(check_loadable(&b, elf(EM_AMDGPU).as_ptr().cast()), Ok(()));
        }
    }

    #[test]
    fn with_the_mode_off_hips_nvidia_platform_judges() {
        let Some(b) = as_nvidia(false) else { return };
        assert!(!b.amd_faithful());
        let ptx = [PTX, b"\0"].concat();
        // SAFETY: local images.
        unsafe {
            assert_eq!(check_loadable(&b, ptx.as_ptr().cast()), Ok(()));
            assert_eq!(check_loadable(&b, elf(EM_CUDA).as_ptr().cast()), Ok(()));
            assert_eq!(check_library_image(&b, ptx.as_ptr().cast()), Ok(()));
        }
    }

    #[test]
    fn on_amd_nvidia_formats_are_refused_and_the_rest_left_to_hip() {
        let b = HipBackend::load();
        if b.platform() != Platform::Amd || b.native_hip().is_none() {
            return;
        }
        assert!(b.amd_faithful());
        let ptx = [PTX, b"\0"].concat();
        // SAFETY: local images.
        unsafe {
            assert_eq!(check_loadable(&b, ptx.as_ptr().cast()), Err(NOT_SUPPORTED));
            assert_eq!(
                check_loadable(&b, fatbin().as_ptr().cast()),
                Err(NOT_SUPPORTED)
            );
            // hipRTC's mark means nothing on AMD, where its output is a code object.
            let marked = [marked_ptx(), vec![0]].concat();
            assert_eq!(
                check_loadable(&b, marked.as_ptr().cast()),
                Err(NOT_SUPPORTED)
            );
            assert_eq!(check_loadable(&b, elf(62).as_ptr().cast()), Ok(()));
            assert_eq!(check_loadable(&b, elf(EM_AMDGPU).as_ptr().cast()), Ok(()));
        }
    }

    #[test]
    fn bundles_mode_reads_auto_always_never_and_notes_the_rest() {
        for v in [None, Some(""), Some("auto"), Some(" AUTO ")] {
            assert_eq!(bundles_mode(v), (BundlesMode::Auto, None), "{v:?}");
        }
        for v in ["always", "Always", " always\n"] {
            assert_eq!(bundles_mode(Some(v)), (BundlesMode::Always, None), "{v:?}");
        }
        for v in ["never", "NEVER", " never "] {
            assert_eq!(bundles_mode(Some(v)), (BundlesMode::Never, None), "{v:?}");
        }
        for v in ["1", "yes", "alway", "always,auto", "0"] {
            let (mode, note) = bundles_mode(Some(v));
            assert_eq!(mode, BundlesMode::Auto, "{v:?}");
            assert!(note.unwrap().contains("using `auto`"), "{v:?}");
        }
    }
}
