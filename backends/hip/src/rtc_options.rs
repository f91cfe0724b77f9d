//! Translation of NVRTC compile options into hipRTC (clang) options.
//!
//! [`translate`] takes the option strings a CUDA program passes to `nvrtcCompileProgram` and
//! returns the argument list for `hiprtcCompileProgram`, plus notes for the program log. It is
//! pure: it reads no environment variable and touches no device; the caller supplies the device
//! architecture and the HIP version through [`ArchContext`].
//!
//! # Option mapping
//!
//! The shared option table (`anycuda_rtc::rtc_options`, NVRTC 13.5) runs first and joins
//! NVRTC's two-entry spellings (`-arch`, `sm_90`) into one entry. NVRTC's spellings are accepted
//! exactly as NVRTC 13.0 accepts them (probed): long options take
//! `--name=value`; `-D`, `-U` and `-I` also take `-DX`, `-D=X` and `-D X`. Anything NVRTC rejects
//! (including `-O0`..`-O3`, `-include X`, `-arch sm_90` with a space) is an
//! [`OptionError::Invalid`], which the caller reports as `NVRTC_ERROR_INVALID_OPTION`.
//!
//! | NVRTC | hipRTC |
//! |---|---|
//! | `--gpu-architecture=`/`-arch=` `sm_XX[a\|f]`, `compute_XX[a\|f]`, `lto_XX` | the AMD target (see below); the CUDA arch is noted |
//! | `--gpu-architecture=gfxNNN[:feat±]`, `-arch=gfxNNN`, `--offload-arch=gfxNNN` | that target |
//! | `-D`/`--define-macro`, `-U`/`--undefine-macro`, `-I`/`--include-path` | `-D`, `-U`, `-I` |
//! | `-include=`/`--pre-include=` | `-include X` |
//! | `-std=`/`--std=` `c++03\|11\|14\|17\|20` | `-std=` (default `-std=c++17`, NVRTC's default) |
//! | `-G`/`--device-debug` | `-g -O0` (`-dopt=on` keeps optimisation) |
//! | `-lineinfo`/`--generate-line-info` | `-gline-tables-only` |
//! | `--fmad=true\|false` | `-ffp-contract=fast\|off` |
//! | `--ftz=true\|false` | `-f[no-]gpu-flush-denormals-to-zero` |
//! | `-use_fast_math` | `-ffp-contract=fast -fgpu-flush-denormals-to-zero -fapprox-func` |
//! | `--prec-div=`, `--prec-sqrt=` | note: hipRTC keeps both correctly rounded (`-fno-hip-fp32-correctly-rounded-divide-sqrt` is ignored by hipRTC 5.2.3) |
//! | `-rdc=true`/`-dc` | `-fgpu-rdc` (ROCm >= 5.3, which has `hiprtcLink*`); on 5.2 a note |
//! | `-w`/`--disable-warnings` | `-w` |
//! | `--maxrregcount=`, `-default-device`, `-restrict`, `--extra-device-vectorization`, `--device-int128`, `-dlto`, `-ewp`, `--ptxas-options=`, `--diag-*=`, PCH and timing options, ... | note only |
//! | `--anycuda-hip-arch=gfxNNN[:feat±]` | selects the AMD target |
//! | `--anycuda-hip-option=<raw>` | `<raw>`, verbatim and unvalidated (escape hatch) |
//!
//! Every accepted option without a HIP meaning produces a note; nothing is dropped silently.
//!
//! # Target selection
//!
//! A CUDA architecture means nothing to an AMD compiler, so the AMD target is, in order: a gfx
//! target named in the options (`--anycuda-hip-arch=`, `--offload-arch=` or a gfx value of
//! `-arch=`; the last one wins), else the current device's `gcnArchName`, else
//! [`OptionError::NoArch`]. An explicit target beats the device so one can compile for another
//! GPU; a note records when they differ. The target is validated *before* hipRTC sees it, because
//! hipRTC 5.2.3 aborts the whole process on a target it does not know.
//!
//! # Supported targets and how they were found
//!
//! ROCm 5.x ([`supported_archs`] for `hip_version < 60000000`): probed against Debian's hipRTC
//! 5.2.3 (`libamdhip64.so.5.2.21153`, clang 15.0.7). Method: for every processor of LLVM's AMDGPU
//! table (gfx600..gfx1103, plus gfx941, gfx942, gfx1150, gfx1200, gfx9999 and the legacy names
//! `tahiti`, `fiji`) and for feature combinations, a *child process* compiled
//! `extern "C" __global__ void k(float*)` with `--offload-arch=<target>`; success means
//! `hiprtcCompileProgram` returned 0 and produced an ELF with `e_machine == EM_AMDGPU (224)`.
//! Result: gfx600-602, gfx700-705, gfx801-803, gfx805, gfx810, gfx900, gfx902, gfx904, gfx906,
//! gfx908, gfx909, gfx90a, gfx90c, gfx1010-1013 and gfx1030-1036 compile; gfx940, gfx941, gfx942,
//! gfx1100-1103, gfx1150, gfx1200, gfx9999, `tahiti` and `fiji` abort the process
//! (`munmap_chunk(): invalid pointer`, SIGABRT). Features: `xnack±` works exactly on the
//! processors LLVM lists with xnack (gfx801, gfx810, gfx900-gfx90c, gfx1010-gfx1013) and
//! `sramecc±` on gfx906, gfx908, gfx90a; an unsupported feature (gfx803:xnack+, gfx900:sramecc+,
//! gfx1030:xnack+, gfx1036:xnack-, gfx1010:sramecc+), a feature without sign (`gfx90a:xnack`) or a
//! trailing colon aborts too; a repeated feature (`gfx90a:sramecc+:sramecc-`) is a clean error.
//! Feature order does not matter.
//!
//! gfx6 and gfx7 (gfx600-gfx705) are nevertheless left out of every list: compiling the kernel
//! corpus showed that any warp shuffle there (`__shfl*`, cooperative-group tiles) makes LLVM stop
//! with "Cannot select: intrinsic %llvm.amdgcn.ds.bpermute" and abort the process, which a library
//! cannot catch; ROCm never ran on those GPUs anyway.
//!
//! ROCm 6.x and 7.x: the lists below come from documentation (LLVM's AMDGPU processor table for
//! the LLVM each ROCm line ships, and AMD's ROCm compiler target lists), not from probing.

use std::ffi::{CStr, CString};
use std::fmt;

/// What the translation needs to know about the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchContext<'a> {
    /// The current HIP device's `gcnArchName` (e.g. `"gfx90a:sramecc+:xnack-"`), or `None` when
    /// there is no device.
    pub device_arch: Option<&'a str>,
    /// `hipRuntimeGetVersion`'s value (e.g. `50221153` for ROCm 5.2.3).
    pub hip_version: i32,
}

/// The result of [`translate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    /// Arguments for `hiprtcCompileProgram`, in order; the first is `--offload-arch=<arch>`.
    pub args: Vec<CString>,
    /// Lines for the program log: every option without a HIP meaning, and every decision the
    /// user might not expect.
    pub notes: Vec<String>,
    /// The AMD target compiled for, with its feature suffixes (e.g. `gfx90a:xnack-`).
    pub arch: String,
}

/// Why options could not be translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// Option number `index` is not UTF-8.
    NotUtf8 {
        /// Position in the option list.
        index: usize,
    },
    /// An option NVRTC would reject (`NVRTC_ERROR_INVALID_OPTION`): unknown or malformed.
    Invalid {
        /// The option as given.
        option: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No AMD target: no gfx target in the options and no device to take one from.
    NoArch {
        /// The CUDA architecture the options named, if any.
        cuda_arch: Option<String>,
    },
    /// The AMD target is not one this hipRTC can compile for.
    UnsupportedArch {
        /// The target as given.
        arch: String,
        /// What is wrong with it.
        reason: String,
        /// The HIP version the decision was made for.
        hip_version: i32,
        /// The processors supported at that version.
        supported: &'static [&'static str],
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotUtf8 { index } => write!(f, "option {index} is not valid UTF-8"),
            Self::Invalid { option, reason } => write!(f, "invalid option '{option}': {reason}"),
            Self::NoArch { cuda_arch } => {
                let given = cuda_arch.as_deref().map_or(String::new(), |a| {
                    format!(" (the CUDA architecture {a} has no AMD meaning)")
                });
                write!(
                    f,
                    "no AMD GPU target: no HIP device found{given}; pass \
                     --anycuda-hip-arch=gfxNNN (e.g. gfx90a) to compile without a device"
                )
            }
            Self::UnsupportedArch {
                arch,
                reason,
                hip_version,
                supported,
            } => write!(
                f,
                "unsupported AMD GPU target '{arch}' for HIP {}.{}: {reason}; supported: {}",
                hip_version / 10_000_000,
                hip_version / 100_000 % 100,
                supported.join(", ")
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// Processors Debian's hipRTC 5.2.3 compiles for (probed; see the module docs).
const ROCM5_ARCHS: &[&str] = &[
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
];

/// ROCm 6.0-6.1 (LLVM 17): from documentation, not probed.
const ROCM6_0_ARCHS: &[&str] = &[
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1011",
    "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
    "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151",
];

/// ROCm 6.2-6.4 (LLVM 18/19): from documentation, not probed.
const ROCM6_2_ARCHS: &[&str] = &[
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1011",
    "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
    "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152",
    "gfx1200", "gfx1201",
];

/// ROCm 7.x (LLVM 20+; gfx940/gfx941 retired, gfx950 added): from documentation, not probed.
const ROCM7_ARCHS: &[&str] = &[
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012",
    "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
    "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
    "gfx1200", "gfx1201",
];

/// Processors with the `xnack` target feature (LLVM's AMDGPU processor table).
const XNACK_ARCHS: &[&str] = &[
    "gfx801", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90a",
    "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012", "gfx1013",
];

/// Processors with the `sramecc` target feature (LLVM's AMDGPU processor table).
const SRAMECC_ARCHS: &[&str] = &[
    "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950",
];

/// The AMD processors hipRTC of `hip_version` (`hipRuntimeGetVersion`) compiles for.
///
/// When the backend loaded hipRTC of `hip_version` on ROCm, this is comgr's own ISA list
/// (`rtc_isa`). Otherwise: ROCm 5.x is probed (Debian 5.2.3); 6.x and 7.x come from
/// documentation. Versions before 5.x get the 5.x list, versions after 7.x the 7.x list.
pub fn supported_archs(hip_version: i32) -> &'static [&'static str] {
    if let Some(probed) = crate::rtc_isa::probed(hip_version) {
        return probed;
    }
    match hip_version {
        v if v < 60_000_000 => ROCM5_ARCHS,
        v if v < 60_200_000 => ROCM6_0_ARCHS,
        v if v < 70_000_000 => ROCM6_2_ARCHS,
        _ => ROCM7_ARCHS,
    }
}

/// Checks an AMD target ID (`gfx90a`, `gfx90a:sramecc+:xnack-`) against what hipRTC of
/// `hip_version` accepts, so an unknown target never reaches hipRTC (5.2.3 aborts on one).
///
/// # Errors
/// [`OptionError::UnsupportedArch`] for an unknown processor, an unknown, unsigned, repeated or
/// unsupported feature, or an empty component.
pub fn validate_arch(target_id: &str, hip_version: i32) -> Result<(), OptionError> {
    let supported = supported_archs(hip_version);
    let fail = |reason: String| OptionError::UnsupportedArch {
        arch: target_id.to_owned(),
        reason,
        hip_version,
        supported,
    };
    let mut parts = target_id.split(':');
    let processor = parts.next().unwrap_or_default();
    if !supported.contains(&processor) {
        return Err(fail(format!("unknown processor '{processor}'")));
    }
    let mut seen: Vec<&str> = Vec::new();
    for feature in parts {
        let (name, sign) = match feature.as_bytes().last() {
            Some(b'+' | b'-') => feature.split_at(feature.len() - 1),
            _ => return Err(fail(format!("feature '{feature}' needs a '+' or '-' sign"))),
        };
        let _ = sign;
        let table = match name {
            "xnack" => XNACK_ARCHS,
            "sramecc" => SRAMECC_ARCHS,
            _ => return Err(fail(format!("unknown target feature '{feature}'"))),
        };
        if !table.contains(&processor) {
            return Err(fail(format!("{processor} has no '{name}' feature")));
        }
        if seen.contains(&name) {
            return Err(fail(format!("feature '{name}' given twice")));
        }
        seen.push(name);
    }
    Ok(())
}

/// Options whose value is `true` or `false`.
#[derive(Clone, Copy)]
enum Flag {
    Fmad,
    Ftz,
    PrecDiv,
    PrecSqrt,
    Rdc,
}

/// Accepted NVRTC options that have no HIP meaning: (spellings, takes a value, note).
const NOTE_ONLY: &[(&[&str], bool, &str)] = &[
    (
        &["--maxrregcount", "-maxrregcount"],
        true,
        "AMD has no per-kernel register cap; use __launch_bounds__",
    ),
    (
        &["--device-as-default-execution-space", "-default-device"],
        false,
        "unannotated functions stay host-only under hipRTC; mark device functions __device__",
    ),
    (
        &["--restrict", "-restrict"],
        false,
        "kernel pointers are not assumed __restrict__; write __restrict__ in the source",
    ),
    (
        &[
            "--extra-device-vectorization",
            "-extra-device-vectorization",
        ],
        false,
        "clang vectorizes by default",
    ),
    (
        &["--device-int128", "-device-int128"],
        false,
        "__int128 is always available on AMD GPUs",
    ),
    (
        &["--no-device-int128", "-no-device-int128"],
        false,
        "__int128 stays available on AMD GPUs",
    ),
    (
        &[
            "--device-float128",
            "-device-float128",
            "--no-device-float128",
            "-no-device-float128",
        ],
        false,
        "AMD GPUs have no __float128",
    ),
    (
        &["--dlink-time-opt", "-dlto", "--gen-opt-lto", "-gen-opt-lto"],
        false,
        "link-time optimisation IR is NVIDIA-specific; a code object is produced",
    ),
    (
        &["--extensible-whole-program", "-ewp"],
        false,
        "no extensible whole-program mode in hipRTC",
    ),
    (
        &["--ptxas-options", "-Xptxas"],
        true,
        "PTX assembler options have no AMD meaning",
    ),
    (
        &[
            "--diag-suppress",
            "-diag-suppress",
            "--diag-error",
            "-diag-error",
            "--diag-warn",
            "-diag-warn",
        ],
        true,
        "NVRTC diagnostic numbers do not apply to clang",
    ),
    (
        &[
            "--display-error-number",
            "-err-no",
            "--no-display-error-number",
            "-no-err-no",
        ],
        false,
        "clang diagnostics carry flag names, not numbers",
    ),
    (
        &[
            "--builtin-move-forward",
            "-builtin-move-forward",
            "--builtin-initializer-list",
            "-builtin-initializer-list",
        ],
        true,
        "clang always has std::move/forward and initializer_list built in",
    ),
    (
        &["--optimization-info", "-opt-info"],
        true,
        "no optimisation report from hipRTC",
    ),
    (
        &["--no-source-include", "-no-source-include"],
        false,
        "the source's directory is never searched by hipRTC",
    ),
    (
        &["--device-stack-protector", "-device-stack-protector"],
        true,
        "no device stack protector on AMD",
    ),
    (
        &["--modify-stack-limit", "-modify-stack-limit"],
        true,
        "the stack limit is managed by the HIP runtime",
    ),
    (
        &[
            "--time",
            "-time",
            "--fdevice-time-trace",
            "-fdevice-time-trace",
        ],
        true,
        "no compile-time report from hipRTC",
    ),
    (
        &["--split-compile", "-split-compile"],
        true,
        "hipRTC compiles in one thread",
    ),
    (
        &["--minimal", "-minimal"],
        false,
        "hipRTC always pre-includes its full runtime header",
    ),
    (
        &["--pch", "-pch"],
        false,
        "hipRTC has no precompiled headers",
    ),
    (
        &[
            "--create-pch",
            "-create-pch",
            "--use-pch",
            "-use-pch",
            "--pch-dir",
            "-pch-dir",
            "--pch-verbose",
            "-pch-verbose",
            "--pch-messages",
            "-pch-messages",
            "--instantiate-templates-in-pch",
            "-instantiate-templates-in-pch",
        ],
        true,
        "hipRTC has no precompiled headers",
    ),
    (
        &["--fdevice-syntax-only", "-fdevice-syntax-only"],
        false,
        "hipRTC always generates code",
    ),
];

/// Translates NVRTC options into hipRTC arguments for `ctx`'s machine; see the module docs for
/// the mapping and the target selection.
///
/// # Errors
/// [`OptionError::NotUtf8`] or [`OptionError::Invalid`] for an option NVRTC would reject,
/// [`OptionError::NoArch`] when no AMD target can be chosen, and
/// [`OptionError::UnsupportedArch`] when the chosen target is not supported at
/// `ctx.hip_version`.
pub fn translate(options: &[&CStr], ctx: &ArchContext) -> Result<Translated, OptionError> {
    let mut args: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut explicit_arch: Option<String> = None;
    let mut cuda_arch: Option<String> = None;
    let mut std: Option<String> = None;
    let mut debug = false;
    let mut dopt = false;
    let mut fmad = true;
    let mut ftz: Option<bool> = None;
    let mut prec_div = true;
    let mut prec_sqrt = true;
    let mut fast_math = false;
    let mut rdc = false;

    for (index, raw) in options.iter().enumerate() {
        let opt = raw.to_str().map_err(|_| OptionError::NotUtf8 { index })?;
        let invalid = |reason: &str| OptionError::Invalid {
            option: opt.to_owned(),
            reason: reason.to_owned(),
        };

        if let Some(raw_opt) = opt.strip_prefix("--anycuda-hip-option=") {
            if raw_opt.is_empty() {
                return Err(invalid("empty value"));
            }
            args.push(raw_opt.to_owned());
            notes.push(format!("passing '{raw_opt}' to hipRTC unchanged"));
        } else if let Some(arch) = opt.strip_prefix("--anycuda-hip-arch=") {
            if !arch.starts_with("gfx") {
                return Err(invalid("expects an AMD target such as gfx90a"));
            }
            explicit_arch = Some(arch.to_owned());
        } else if let Some(v) = long_value(opt, &["--gpu-architecture", "-arch", "--offload-arch"])
        {
            if v.starts_with("gfx") {
                explicit_arch = Some(v.to_owned());
            } else if is_cuda_arch(v) && !opt.starts_with("--offload-arch") {
                cuda_arch = Some(v.to_owned());
            } else {
                return Err(invalid(
                    "expects sm_XX, compute_XX, lto_XX or an AMD gfx target",
                ));
            }
        } else if let Some(v) = short_value(opt, "-D", "--define-macro")
            .transpose()
            .map_err(&invalid)?
        {
            args.push(format!("-D{v}"));
        } else if let Some(v) = short_value(opt, "-U", "--undefine-macro")
            .transpose()
            .map_err(&invalid)?
        {
            args.push(format!("-U{v}"));
        } else if let Some(v) = short_value(opt, "-I", "--include-path")
            .transpose()
            .map_err(&invalid)?
        {
            args.push(format!("-I{v}"));
        } else if let Some(v) = long_value(opt, &["--pre-include", "-include"]) {
            if v.is_empty() {
                return Err(invalid("empty file name"));
            }
            args.push("-include".to_owned());
            args.push(v.to_owned());
        } else if let Some(v) = long_value(opt, &["--std", "-std"]) {
            match v {
                "c++03" | "c++11" | "c++14" | "c++17" | "c++20" => std = Some(v.to_owned()),
                // clang 15 (ROCm 5.x) knows C++23 only as c++2b; later clangs take both.
                "c++23" => std = Some("c++2b".to_owned()),
                _ => {
                    return Err(invalid(
                        "expects c++03, c++11, c++14, c++17, c++20 or c++23",
                    ))
                }
            }
        } else if matches!(opt, "-G" | "--device-debug") {
            debug = true;
        } else if let Some(v) = long_value(opt, &["--dopt", "-dopt"]) {
            if v != "on" {
                return Err(invalid("expects 'on'"));
            }
            dopt = true;
        } else if matches!(opt, "-lineinfo" | "--generate-line-info") {
            args.push("-gline-tables-only".to_owned());
        } else if matches!(opt, "-use_fast_math" | "--use_fast_math") {
            fast_math = true;
        } else if matches!(opt, "-w" | "--disable-warnings") {
            args.push("-w".to_owned());
        } else if matches!(opt, "-dc" | "--device-c") {
            rdc = true;
        } else if let Some((flag, value)) = bool_flag(opt).transpose().map_err(&invalid)? {
            match flag {
                Flag::Fmad => fmad = value,
                Flag::Ftz => ftz = Some(value),
                Flag::PrecDiv => prec_div = value,
                Flag::PrecSqrt => prec_sqrt = value,
                Flag::Rdc => rdc = value,
            }
        } else if let Some(note) = note_only(opt).transpose().map_err(&invalid)? {
            notes.push(format!("ignoring '{opt}': {note}"));
        } else if anycuda_rtc::rtc_options::validate(
            &[raw],
            anycuda_rtc::rtc_options::Dialect::Nvrtc,
        )
        .is_ok()
        {
            // In NVRTC 13.5's option table but without a hipRTC meaning.
            notes.push(format!(
                "ignoring '{opt}': NVRTC-only, no hipRTC equivalent"
            ));
        } else {
            return Err(invalid("unrecognized option"));
        }
    }

    // Target: explicit gfx, else the device's, else nothing to compile for.
    let arch = match (explicit_arch, ctx.device_arch) {
        (Some(a), Some(d)) => {
            if a != d {
                notes.push(format!(
                    "compiling for {a} although the current device is {d}"
                ));
            }
            a
        }
        (Some(a), None) => a,
        (None, Some(d)) => d.to_owned(),
        (None, None) => return Err(OptionError::NoArch { cuda_arch }),
    };
    validate_arch(&arch, ctx.hip_version)?;
    if let Some(c) = cuda_arch {
        notes.push(format!(
            "CUDA architecture {c} has no AMD meaning; compiling for {arch}"
        ));
    }

    let mut out = vec![format!("--offload-arch={arch}")];
    out.push(format!("-std={}", std.as_deref().unwrap_or("c++17")));
    if debug {
        out.push("-g".to_owned());
        if !dopt {
            out.push("-O0".to_owned());
        }
    } else if dopt {
        notes.push("'-dopt=on' without '-G' changes nothing".to_owned());
    }
    if fast_math {
        // CUDA's fast math: fmad, flush-to-zero, approximate division/sqrt and intrinsics; it
        // does not assume the absence of NaN or infinity, so clang's -ffast-math would be wrong.
        out.extend(
            [
                "-ffp-contract=fast",
                "-fgpu-flush-denormals-to-zero",
                "-fapprox-func",
            ]
            .map(String::from),
        );
        if ftz == Some(false) || !fmad {
            notes.push("-use_fast_math overrides --ftz=false and --fmad=false".to_owned());
        }
    } else {
        out.push(
            if fmad {
                "-ffp-contract=fast"
            } else {
                "-ffp-contract=off"
            }
            .to_owned(),
        );
        match ftz {
            Some(true) => out.push("-fgpu-flush-denormals-to-zero".to_owned()),
            Some(false) => out.push("-fno-gpu-flush-denormals-to-zero".to_owned()),
            None => {}
        }
        if !prec_div || !prec_sqrt {
            notes.push(
                "--prec-div=false/--prec-sqrt=false: hipRTC keeps f32 division and square root \
                 correctly rounded (more precise than asked)"
                    .to_owned(),
            );
        }
    }
    if rdc {
        if ctx.hip_version >= 50_300_000 {
            out.push("-fgpu-rdc".to_owned());
        } else {
            notes.push(
                "relocatable device code needs hiprtcLink (ROCm 5.3+); compiling whole-program"
                    .to_owned(),
            );
        }
    }
    out.extend(args);

    let args = out
        .into_iter()
        .map(|a| {
            CString::new(a).map_err(|e| OptionError::Invalid {
                option: String::from_utf8_lossy(&e.into_vec()).into_owned(),
                reason: "contains NUL".to_owned(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Translated { args, notes, arch })
}

/// `--name=value` for any of `names`; `None` when the option is not one of them.
fn long_value<'o>(opt: &'o str, names: &[&str]) -> Option<&'o str> {
    names
        .iter()
        .find_map(|n| opt.strip_prefix(n)?.strip_prefix('='))
}

/// `-Xv`, `-X=v`, `-X v` or `--long=v`; `Some(Err)` for a recognised option without a value.
fn short_value<'o>(opt: &'o str, short: &str, long: &str) -> Option<Result<&'o str, &'static str>> {
    let v = if let Some(v) = long_value(opt, &[long]) {
        v
    } else if let Some(rest) = opt.strip_prefix(short) {
        rest.strip_prefix('=')
            .unwrap_or(rest)
            .trim_start_matches(' ')
    } else if opt == long {
        ""
    } else {
        return None;
    };
    Some(if v.is_empty() {
        Err("expects a value")
    } else {
        Ok(v)
    })
}

/// `sm_90`, `sm_90a`, `sm_100f`, `compute_75`, `lto_90`, ...
fn is_cuda_arch(v: &str) -> bool {
    let Some(num) = ["sm_", "compute_", "lto_"]
        .iter()
        .find_map(|p| v.strip_prefix(p))
    else {
        return false;
    };
    let digits = num.strip_suffix(['a', 'f']).unwrap_or(num);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The true/false options; `Some(Err)` for a recognised option with another value.
fn bool_flag(opt: &str) -> Option<Result<(Flag, bool), &'static str>> {
    const FLAGS: &[(&[&str], Flag)] = &[
        (&["--fmad", "-fmad"], Flag::Fmad),
        (&["--ftz", "-ftz"], Flag::Ftz),
        (&["--prec-div", "-prec-div"], Flag::PrecDiv),
        (&["--prec-sqrt", "-prec-sqrt"], Flag::PrecSqrt),
        (&["--relocatable-device-code", "-rdc"], Flag::Rdc),
    ];
    FLAGS.iter().find_map(|(names, flag)| {
        if names.contains(&opt) {
            return Some(Err("expects true or false"));
        }
        let v = long_value(opt, names)?;
        Some(match v {
            "true" => Ok((*flag, true)),
            "false" => Ok((*flag, false)),
            _ => Err("expects true or false"),
        })
    })
}

/// The note for an accepted option without a HIP meaning; `Some(Err)` for a malformed one.
fn note_only(opt: &str) -> Option<Result<&'static str, &'static str>> {
    NOTE_ONLY.iter().find_map(|(names, takes_value, note)| {
        if *takes_value {
            if names.contains(&opt) {
                return Some(Err("expects a value"));
            }
            let v = long_value(opt, names)?;
            Some(if v.is_empty() {
                Err("expects a value")
            } else {
                Ok(*note)
            })
        } else if names.contains(&opt) {
            Some(Ok(*note))
        } else if long_value(opt, names).is_some() {
            Some(Err("takes no value"))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROCM_5_2_3: i32 = 50_221_153;
    const NO_DEVICE: ArchContext<'static> = ArchContext {
        device_arch: None,
        hip_version: ROCM_5_2_3,
    };

    fn cstrs(opts: &[&str]) -> Vec<CString> {
        opts.iter().map(|o| CString::new(*o).unwrap()).collect()
    }

    fn run(opts: &[&str], ctx: &ArchContext) -> Result<Translated, OptionError> {
        let owned = cstrs(opts);
        let refs: Vec<&CStr> = owned.iter().map(CString::as_c_str).collect();
        translate(&refs, ctx)
    }

    fn args(t: &Translated) -> Vec<&str> {
        t.args.iter().map(|a| a.to_str().unwrap()).collect()
    }

    #[test]
    fn cuda_arch_with_anycuda_arch() {
        let t = run(&["-arch=sm_90", "--anycuda-hip-arch=gfx90a"], &NO_DEVICE).unwrap();
        assert_eq!(t.arch, "gfx90a");
        assert_eq!(
            args(&t),
            ["--offload-arch=gfx90a", "-std=c++17", "-ffp-contract=fast"]
        );
        assert!(t
            .notes
            .iter()
            .any(|n| n.contains("sm_90") && n.contains("gfx90a")));
    }

    #[test]
    fn device_arch_is_used_and_explicit_arch_wins() {
        let dev = ArchContext {
            device_arch: Some("gfx90a:sramecc+:xnack-"),
            hip_version: ROCM_5_2_3,
        };
        let t = run(&["--gpu-architecture=compute_90"], &dev).unwrap();
        assert_eq!(t.arch, "gfx90a:sramecc+:xnack-");
        assert_eq!(args(&t)[0], "--offload-arch=gfx90a:sramecc+:xnack-");

        let t = run(&["--offload-arch=gfx1030"], &dev).unwrap();
        assert_eq!(t.arch, "gfx1030");
        assert!(t
            .notes
            .iter()
            .any(|n| n.contains("current device is gfx90a")));

        // The last arch option wins, as with NVRTC's -arch.
        let t = run(&["-arch=gfx906", "-arch=gfx908:xnack+"], &NO_DEVICE).unwrap();
        assert_eq!(t.arch, "gfx908:xnack+");
    }

    #[test]
    fn no_arch_without_device() {
        let e = run(&["-arch=sm_80"], &NO_DEVICE).unwrap_err();
        assert_eq!(
            e,
            OptionError::NoArch {
                cuda_arch: Some("sm_80".into())
            }
        );
        assert!(e.to_string().contains("--anycuda-hip-arch="));
        assert_eq!(
            run(&[], &NO_DEVICE).unwrap_err(),
            OptionError::NoArch { cuda_arch: None }
        );
    }

    #[test]
    fn arches_that_abort_hiprtc_5_2_are_rejected() {
        for arch in [
            "gfx600",
            "gfx705",
            "gfx940",
            "gfx942",
            "gfx1100",
            "gfx1103",
            "gfx1200",
            "gfx9999",
            "gfx90a:",
            "gfx90a:xnack",
        ] {
            let e = run(&[&format!("--anycuda-hip-arch={arch}")], &NO_DEVICE).unwrap_err();
            let OptionError::UnsupportedArch { supported, .. } = &e else {
                panic!("{arch}: {e:?}")
            };
            assert!(supported.contains(&"gfx90a"));
            assert!(e.to_string().contains("HIP 5.2"), "{e}");
        }
        // A device reporting such an arch is rejected too.
        let dev = ArchContext {
            device_arch: Some("gfx1100"),
            hip_version: ROCM_5_2_3,
        };
        assert!(matches!(
            run(&[], &dev),
            Err(OptionError::UnsupportedArch { .. })
        ));
        // ROCm 6 knows them (documented list).
        let dev = ArchContext {
            device_arch: Some("gfx942:sramecc+:xnack-"),
            hip_version: 60_032_830,
        };
        assert_eq!(run(&[], &dev).unwrap().arch, "gfx942:sramecc+:xnack-");
        assert!(supported_archs(70_000_000).contains(&"gfx950"));
        assert!(!supported_archs(ROCM_5_2_3).contains(&"gfx940"));
        // gfx6/gfx7: LLVM aborts on warp shuffles there, on every ROCm.
        assert!(!supported_archs(70_000_000).contains(&"gfx700"));
    }

    #[test]
    fn target_features_follow_the_probe() {
        for ok in [
            "gfx90a:xnack+",
            "gfx90a:sramecc-:xnack+",
            "gfx90a:xnack+:sramecc-",
            "gfx906:sramecc+",
            "gfx900:xnack+",
            "gfx1010:xnack-",
            "gfx801:xnack+",
        ] {
            assert_eq!(validate_arch(ok, ROCM_5_2_3), Ok(()), "{ok}");
        }
        for bad in [
            "gfx803:xnack+",
            "gfx900:sramecc+",
            "gfx1030:xnack+",
            "gfx1036:xnack-",
            "gfx1010:sramecc+",
            "gfx90a:sramecc+:sramecc-",
            "gfx90a:foo+",
            "",
            "tahiti",
            "fiji",
        ] {
            assert!(validate_arch(bad, ROCM_5_2_3).is_err(), "{bad}");
        }
    }

    #[test]
    fn macro_include_and_path_spellings() {
        let t = run(
            &[
                "-DA",
                "-D=B=2",
                "-D C",
                "--define-macro=D",
                "-UE",
                "-U=F",
                "--undefine-macro=G",
                "-I/x",
                "-I=/y",
                "-I /z",
                "--include-path=/w",
                "-include=a.h",
                "--pre-include=b.h",
                "--anycuda-hip-arch=gfx90a",
            ],
            &NO_DEVICE,
        )
        .unwrap();
        assert_eq!(
            &args(&t)[3..],
            [
                "-DA", "-DB=2", "-DC", "-DD", "-UE", "-UF", "-UG", "-I/x", "-I/y", "-I/z", "-I/w",
                "-include", "a.h", "-include", "b.h"
            ]
        );
    }

    #[test]
    fn options_nvrtc_rejects_are_invalid() {
        for bad in [
            "-O3",
            "-O0",
            "-include k.h",
            "-arch sm_90",
            "--define-macro FOO",
            "-D",
            "-I",
            "--fmad",
            "-fmad=0",
            "-std=c++98",
            "-dopt=off",
            "-default-device=true",
            "-maxrregcount",
            "-arch=native",
            "-use-fast-math",
            "--bogus",
            "plain",
            "--anycuda-hip-arch=sm_90",
            "--anycuda-hip-option=",
        ] {
            let e = run(&[bad, "--anycuda-hip-arch=gfx90a"], &NO_DEVICE).unwrap_err();
            assert!(
                matches!(e, OptionError::Invalid { ref option, .. } if option == bad),
                "{bad}: {e:?}"
            );
        }
    }

    #[test]
    fn non_utf8_is_reported_with_its_index() {
        let odd = c"-D\xff";
        let e = translate(&[c"-arch=sm_90", odd], &NO_DEVICE).unwrap_err();
        assert_eq!(e, OptionError::NotUtf8 { index: 1 });
    }

    #[test]
    fn math_options() {
        let gfx = "--anycuda-hip-arch=gfx90a";
        let t = run(&[gfx, "-use_fast_math"], &NO_DEVICE).unwrap();
        assert_eq!(
            &args(&t)[2..],
            [
                "-ffp-contract=fast",
                "-fgpu-flush-denormals-to-zero",
                "-fapprox-func"
            ]
        );
        let t = run(&[gfx, "--fmad=false", "--ftz=true"], &NO_DEVICE).unwrap();
        assert_eq!(
            &args(&t)[2..],
            ["-ffp-contract=off", "-fgpu-flush-denormals-to-zero"]
        );
        let t = run(
            &[gfx, "-ftz=false", "--prec-div=false", "-prec-sqrt=true"],
            &NO_DEVICE,
        )
        .unwrap();
        assert_eq!(
            &args(&t)[2..],
            ["-ffp-contract=fast", "-fno-gpu-flush-denormals-to-zero"]
        );
        assert!(t.notes.iter().any(|n| n.contains("prec-div")));
    }

    #[test]
    fn debug_std_rdc_and_warnings() {
        let gfx = "--anycuda-hip-arch=gfx90a";
        let t = run(&[gfx, "-G", "-lineinfo", "-w", "--std=c++20"], &NO_DEVICE).unwrap();
        assert_eq!(
            args(&t),
            [
                "--offload-arch=gfx90a",
                "-std=c++20",
                "-g",
                "-O0",
                "-ffp-contract=fast",
                "-gline-tables-only",
                "-w"
            ]
        );
        let t = run(&[gfx, "--device-debug", "-dopt=on"], &NO_DEVICE).unwrap();
        assert!(args(&t).contains(&"-g") && !args(&t).contains(&"-O0"));

        let t = run(&[gfx, "-rdc=true"], &NO_DEVICE).unwrap();
        assert!(!args(&t).contains(&"-fgpu-rdc"));
        assert!(t.notes.iter().any(|n| n.contains("hiprtcLink")));
        let rocm6 = ArchContext {
            device_arch: None,
            hip_version: 60_000_000,
        };
        assert!(args(&run(&[gfx, "-dc"], &rocm6).unwrap()).contains(&"-fgpu-rdc"));
        assert!(
            !args(&run(&[gfx, "--relocatable-device-code=false"], &rocm6).unwrap())
                .contains(&"-fgpu-rdc")
        );
    }

    #[test]
    fn every_note_only_option_is_noted_never_dropped() {
        for (names, takes_value, _) in NOTE_ONLY {
            for name in *names {
                let opt = if *takes_value {
                    format!("{name}=1")
                } else {
                    (*name).to_owned()
                };
                let t = run(&[&opt, "--anycuda-hip-arch=gfx90a"], &NO_DEVICE).unwrap();
                assert_eq!(args(&t).len(), 3, "{opt} must not reach hipRTC");
                assert!(
                    t.notes.iter().any(|n| n.contains(&opt)),
                    "{opt} has no note"
                );
            }
        }
    }

    /// Every option of NVRTC 13.5's table, with every valid sample value, is accepted on HIP
    /// once normalised (translated, or noted as having no hipRTC meaning): a list NVRTC takes
    /// never fails as an option list on HIP.
    #[test]
    fn every_nvrtc_table_option_is_translated_or_noted() {
        use anycuda_rtc::rtc_options::{normalise, valid_samples, Dialect, Value, NVRTC_13_5};
        for spec in NVRTC_13_5 {
            for name in core::iter::once(spec.long).chain(spec.short) {
                for v in valid_samples(spec) {
                    let opt = if spec.value == Value::Flag {
                        name.to_owned()
                    } else if spec.value == Value::Arch {
                        format!("{name}=gfx90a")
                    } else {
                        format!("{name}={v}")
                    };
                    let owned = cstrs(&[&opt, "--anycuda-hip-arch=gfx90a"]);
                    let refs: Vec<&CStr> = owned.iter().map(CString::as_c_str).collect();
                    let normal = normalise(&refs, Dialect::Hip).unwrap();
                    let refs: Vec<&CStr> = normal.iter().map(CString::as_c_str).collect();
                    let t = translate(&refs, &NO_DEVICE);
                    assert!(t.is_ok(), "{opt}: {:?}", t.unwrap_err());
                }
            }
        }
    }

    #[test]
    fn escape_hatch_is_verbatim() {
        let t = run(
            &[
                "--anycuda-hip-arch=gfx90a",
                "--anycuda-hip-option=-mcumode",
                "--anycuda-hip-option=-Rpass=inline",
            ],
            &NO_DEVICE,
        )
        .unwrap();
        assert_eq!(&args(&t)[3..], ["-mcumode", "-Rpass=inline"]);
    }

    #[test]
    fn errors_display() {
        let e = validate_arch("gfx1100", ROCM_5_2_3).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("gfx1100") && s.contains("gfx1036") && s.contains("unknown processor"),
            "{s}"
        );
        let e: Box<dyn std::error::Error> = Box::new(e);
        assert!(!e.to_string().is_empty());
    }
}
