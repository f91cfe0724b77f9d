//! NVRTC's compile options as data, and the validator derived from them.
//!
//! [`NVRTC_13_5`] lists every option of NVRTC 13.5 (the pinned compiler) with the class of its
//! value. [`validate`] parses an option list with NVRTC's own grammar and refuses, with
//! `NVRTC_ERROR_INVALID_OPTION`, every option the table does not know and every value outside
//! its class, so the compiler only ever sees values of a class it parses without crashing
//! (NVRTC 13.5 aborts the process on `--split-compile=-`, `-jtd=99999999999`, `--Ofast-compile=`,
//! `-Xptxas=`, `-dopt=`: an uncaught `std::invalid_argument`/`std::out_of_range`).
//!
//! # Source of the table
//! NVRTC 13.5's documented options ("Supported Compile Options" of the NVRTC guide), checked
//! against the option strings of `libnvrtc.so.13` (13.5, the PyPI wheel `nvidia-cuda-nvrtc`:
//! `strings -n 2 libnvrtc.so.13` lists them between `--no_pch_verbose` and `-opt-arch=sm_`) and
//! probed option by option in child processes. The probe fixed the grammar:
//! - an option is spelled exactly `--long` or `-short` (`--arch`, `-gpu-architecture`,
//!   `--dc` are unrecognized);
//! - a value follows `=`; for most value options it may instead be the next entry of the list
//!   (`-arch`, `sm_90`; `--maxrregcount`, `32`) and is then taken whatever it looks like
//!   (`-D`, `-w` defines a macro `-w`); the options marked `eq_only` take `=` only (`--std`,
//!   `c++17` is "unrecognized option --std");
//! - `-D`, `-U` and `-I` also take a glued value: `-DX`, `-D X`, `-D=X`;
//! - a flag given a value (`-G=1`) is "does not accept any argument".
//!
//! Undocumented options that NVRTC 13.5 accepts (`-Xcudafe`, `--uumn`, the `--tile-*` family,
//! `-Wreorder`, ...) are not in the table and are refused: they reach internal components
//! unchecked. `-Xnvvm` is the exception (widely used to pass NVVM options; its value is text).
//!
//! `--anycuda-hip-arch=...` and `--anycuda-hip-option=...` steer the HIP backend's compiler
//! and mean nothing to NVRTC: [`filter`] removes them (with a note) before NVRTC sees the list.

use std::ffi::CStr;

/// The class of an option's value; every class is checked by [`check_value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// No value (`-G`).
    Flag,
    /// `true` or `false`.
    Bool,
    /// A decimal integer (optional `-`, digits only) in `min..=max`.
    Int {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
    /// A comma-separated list of decimal integers in `min..=max` (no empty items).
    IntList {
        /// The smallest item.
        min: i64,
        /// The largest item.
        max: i64,
    },
    /// One of the listed words.
    Enum(&'static [&'static str]),
    /// A comma-separated list of the listed words (no empty items).
    EnumList(&'static [&'static str]),
    /// A target: `sm_NN[a|f]`, `compute_NN[a|f]`, `lto_NN[a|f]`, or an AMD target ID
    /// `gfxNNN[:feature±]...` (meaningful to the HIP backend; NVRTC reports it invalid).
    Arch,
    /// A file or directory name: not blank, no control characters.
    Path,
    /// A macro (`-D`, `-U`): not blank, no control characters other than tab.
    Macro,
    /// Free text handed to a sub-tool (`-Xptxas`): not blank.
    Text,
    /// `MAJOR.MINOR`, each 1 to 4 digits.
    Version,
}

/// One option of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The long spelling, with its dashes (`--gpu-architecture`).
    pub long: &'static str,
    /// The short spelling, with its dash (`-arch`), if any.
    pub short: Option<&'static str>,
    /// The class of its value.
    pub value: Value,
    /// Whether the value must follow `=` (it may not be the next entry of the list).
    pub eq_only: bool,
    /// Whether the short spelling also takes a glued value (`-DX`, `-I/dir`).
    pub glued: bool,
}

const fn o(long: &'static str, short: Option<&'static str>, value: Value) -> Spec {
    Spec {
        long,
        short,
        value,
        eq_only: false,
        glued: false,
    }
}
const fn eq(long: &'static str, short: &'static str, value: Value) -> Spec {
    Spec {
        long,
        short: Some(short),
        value,
        eq_only: true,
        glued: false,
    }
}
const fn glued(long: &'static str, short: &'static str, value: Value) -> Spec {
    Spec {
        long,
        short: Some(short),
        value,
        eq_only: false,
        glued: true,
    }
}

const I32_MAX: i64 = i32::MAX as i64;
/// The C++ dialects NVRTC 13.5 takes (`--std=c++23` is accepted; `c++98` is not).
const STDS: &[&str] = &["c++03", "c++11", "c++14", "c++17", "c++20", "c++23"];
/// `--warning-as-error` words (NVRTC's own message lists them).
const WERROR: &[&str] = &[
    "all-warnings",
    "reorder",
    "deprecated-declarations",
    "conversion",
];

use Value::{Arch, Bool, Enum, EnumList, Flag, Int, IntList, Macro, Path, Text, Version};

/// NVRTC 13.5's options (see the module docs for where this comes from). Ranges: the ones
/// NVRTC documents or reports (`-jtd` 0..=101, `--split-compile` non-negative, `--fmax-errors`
/// and diagnostic numbers positive), always within `i32`, which NVRTC parses with `stoi` and
/// aborts beyond; `--maxrregcount` (NVRTC takes anything, ptxas clamps) is 0..=`i32::MAX`.
pub const NVRTC_13_5: &[Spec] = &[
    // Targets and code generation.
    o("--gpu-architecture", Some("-arch"), Arch),
    o("--device-c", Some("-dc"), Flag),
    o("--device-w", Some("-dw"), Flag),
    o("--relocatable-device-code", Some("-rdc"), Bool),
    o("--extensible-whole-program", Some("-ewp"), Flag),
    o("--device-debug", Some("-G"), Flag),
    o("--generate-line-info", Some("-lineinfo"), Flag),
    o("--no-lineinfo-inlined-at", Some("-no-lineinfo-ia"), Flag),
    o("--dopt", Some("-dopt"), Enum(&["on"])),
    o(
        "--Ofast-compile",
        Some("-Ofc"),
        Enum(&["0", "min", "mid", "max"]),
    ),
    o("--ptxas-options", Some("-Xptxas"), Text),
    o("-Xnvvm", None, Text),
    o(
        "--maxrregcount",
        Some("-maxrregcount"),
        Int {
            min: 0,
            max: I32_MAX,
        },
    ),
    o("--ftz", Some("-ftz"), Bool),
    o("--prec-sqrt", Some("-prec-sqrt"), Bool),
    o("--prec-div", Some("-prec-div"), Bool),
    o("--fmad", Some("-fmad"), Bool),
    o("--use_fast_math", Some("-use_fast_math"), Flag),
    o(
        "--extra-device-vectorization",
        Some("-extra-device-vectorization"),
        Flag,
    ),
    o("--modify-stack-limit", Some("-modify-stack-limit"), Bool),
    o("--dlink-time-opt", Some("-dlto"), Flag),
    o("--gen-opt-lto", Some("-gen-opt-lto"), Flag),
    o("--optix-ir", Some("-optix-ir"), Flag),
    o(
        "--jump-table-density",
        Some("-jtd"),
        Int { min: 0, max: 101 },
    ),
    o(
        "--device-stack-protector",
        Some("-device-stack-protector"),
        Bool,
    ),
    o("--no-cache", Some("-no-cache"), Flag),
    eq("--frandom-seed", "-frandom-seed", Text),
    o(
        "--split-compile",
        Some("-split-compile"),
        Int {
            min: 0,
            max: I32_MAX,
        },
    ),
    eq("--time", "-time", Path),
    eq("--fdevice-time-trace", "-fdevice-time-trace", Path),
    o("--fdevice-syntax-only", Some("-fdevice-syntax-only"), Flag),
    o("--minimal", Some("-minimal"), Flag),
    o("--device-int128", Some("-device-int128"), Flag),
    o("--device-float128", Some("-device-float128"), Flag),
    o("--numba-debug", Some("-numba-debug"), Flag),
    // Preprocessing.
    glued("--define-macro", "-D", Macro),
    glued("--undefine-macro", "-U", Macro),
    glued("--include-path", "-I", Path),
    o("--pre-include", Some("-include"), Path),
    o("--no-source-include", Some("-no-source-include"), Flag),
    // Language dialect.
    eq("--std", "-std", Enum(STDS)),
    o(
        "--builtin-move-forward",
        Some("-builtin-move-forward"),
        Bool,
    ),
    o(
        "--builtin-initializer-list",
        Some("-builtin-initializer-list"),
        Bool,
    ),
    // Precompiled headers.
    o("--pch", Some("-pch"), Flag),
    eq("--create-pch", "-create-pch", Path),
    eq("--use-pch", "-use-pch", Path),
    eq("--pch-dir", "-pch-dir", Path),
    o("--pch-verbose", Some("-pch-verbose"), Bool),
    o("--pch-messages", Some("-pch-messages"), Bool),
    o(
        "--instantiate-templates-in-pch",
        Some("-instantiate-templates-in-pch"),
        Bool,
    ),
    // Diagnostics and miscellany.
    o("--disable-warnings", Some("-w"), Flag),
    o("--warning-as-error", Some("-Werror"), EnumList(WERROR)),
    o("--restrict", Some("-restrict"), Flag),
    o(
        "--device-as-default-execution-space",
        Some("-default-device"),
        Flag,
    ),
    eq("--optimization-info", "-opt-info", Enum(&["inline"])),
    o("--display-error-number", Some("-err-no"), Flag),
    o("--no-display-error-number", Some("-no-err-no"), Flag),
    o(
        "--diag-error",
        Some("-diag-error"),
        IntList {
            min: 1,
            max: I32_MAX,
        },
    ),
    o(
        "--diag-suppress",
        Some("-diag-suppress"),
        IntList {
            min: 1,
            max: I32_MAX,
        },
    ),
    o(
        "--diag-warn",
        Some("-diag-warn"),
        IntList {
            min: 1,
            max: I32_MAX,
        },
    ),
    o("--brief-diagnostics", Some("-brief-diag"), Bool),
    o(
        "--fmax-errors",
        Some("-fmax-errors"),
        Int {
            min: 1,
            max: I32_MAX,
        },
    ),
    eq("--cuda-api-version", "-cuda-api-version", Version),
];

/// The options only the HIP backend knows, accepted there on top of [`NVRTC_13_5`]
/// (`--offload-arch=` is clang's spelling of the target).
pub const HIP_EXTRA: &[Spec] = &[
    eq("--anycuda-hip-arch", "--anycuda-hip-arch", Arch),
    eq("--anycuda-hip-option", "--anycuda-hip-option", Text),
    eq("--offload-arch", "--offload-arch", Arch),
];

/// Which compiler an option list is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// NVRTC (the CUDA backend, and hipRTC on HIP's NVIDIA platform): [`NVRTC_13_5`]; the
    /// `--anycuda-hip-*` options are accepted too, and [`filter`] removes them.
    Nvrtc,
    /// hipRTC on AMD: [`NVRTC_13_5`] and [`HIP_EXTRA`].
    Hip,
}

/// Prefixes of the options only the HIP backend understands.
const HIP_ONLY_PREFIXES: &[&[u8]] = &[b"--anycuda-hip-arch=", b"--anycuda-hip-option="];

/// Splits `options` into those for NVRTC (in order) and notes for the program log, one per
/// removed option.
pub fn filter<'a>(options: &[&'a CStr]) -> (Vec<&'a CStr>, Vec<String>) {
    let mut kept = Vec::with_capacity(options.len());
    let mut notes = Vec::new();
    for &opt in options {
        let bytes = opt.to_bytes();
        if HIP_ONLY_PREFIXES.iter().any(|p| bytes.starts_with(p)) {
            notes.push(format!(
                "ignoring '{}': it only applies to the HIP backend",
                opt.to_string_lossy()
            ));
        } else {
            kept.push(opt);
        }
    }
    (kept, notes)
}

/// An option refused before the compiler sees it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option {index} '{option}': {reason}")]
pub struct InvalidOption {
    /// Its position in the option list.
    pub index: usize,
    /// The option, lossily decoded.
    pub option: String,
    /// Why it is refused.
    pub reason: String,
}

/// One option of a parsed list: its spec and its value, from one entry or two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// The position of its (first) entry in the list.
    pub index: usize,
    /// Its table entry.
    pub spec: &'static Spec,
    /// The spelling used (`-arch`, `--gpu-architecture`).
    pub name: &'static str,
    /// Its value (`None` for a flag).
    pub value: Option<&'a [u8]>,
    /// How many entries of the list it took (2 for `-arch`, `sm_90`).
    pub entries: usize,
}

impl Parsed<'_> {
    /// The option as one entry, `name=value` (or the bare flag): the spelling every compiler
    /// takes, used to normalise the two-entry and glued forms before hipRTC.
    pub fn joined(&self) -> Vec<u8> {
        let mut v = self.name.as_bytes().to_vec();
        if let Some(val) = self.value {
            v.push(b'=');
            v.extend_from_slice(val);
        }
        v
    }
}

fn table(dialect: Dialect) -> impl Iterator<Item = &'static Spec> {
    let extra: &'static [Spec] = match dialect {
        Dialect::Nvrtc => &HIP_EXTRA[..2],
        Dialect::Hip => HIP_EXTRA,
    };
    NVRTC_13_5.iter().chain(extra)
}

/// Parses `options` with NVRTC's grammar against the table of `dialect` and checks every
/// value against its class.
///
/// # Errors
/// The first [`InvalidOption`]: an option the table does not know, a flag with a value, a
/// missing value, or a value outside its class. The caller returns
/// `NVRTC_ERROR_INVALID_OPTION` (NVRTC's own code for all of these) with the reason in the log.
pub fn parse<'a>(options: &[&'a CStr], dialect: Dialect) -> Result<Vec<Parsed<'a>>, InvalidOption> {
    let mut out = Vec::with_capacity(options.len());
    let mut i = 0;
    while i < options.len() {
        let bytes = options[i].to_bytes();
        let fail = |reason: String| InvalidOption {
            index: i,
            option: String::from_utf8_lossy(bytes).into_owned(),
            reason,
        };
        let (spec, name, value, entries) =
            split(bytes, options.get(i + 1).map(|c| c.to_bytes()), dialect)
                .ok_or_else(|| fail("unrecognized option".into()))?;
        match (spec.value, value) {
            (Flag, Some(_)) => return Err(fail(format!("{name} does not accept any argument"))),
            (Flag, None) => {}
            (_, None) => return Err(fail(format!("{name} expects a value"))),
            (class, Some(v)) => {
                check_value(class, v).map_err(|why| fail(format!("{name}: {why}")))?;
            }
        }
        out.push(Parsed {
            index: i,
            spec,
            name,
            value,
            entries,
        });
        i += entries;
    }
    Ok(out)
}

/// Finds the spec of one entry: `(spec, spelling, value, entries taken)`.
fn split<'a>(
    bytes: &'a [u8],
    next: Option<&'a [u8]>,
    dialect: Dialect,
) -> Option<(&'static Spec, &'static str, Option<&'a [u8]>, usize)> {
    for spec in table(dialect) {
        for name in core::iter::once(spec.long).chain(spec.short) {
            let Some(rest) = bytes.strip_prefix(name.as_bytes()) else {
                continue;
            };
            if rest.is_empty() {
                // Bare: a flag, or a value in the next entry.
                return Some(match spec.value {
                    Flag => (spec, name, None, 1),
                    _ if spec.eq_only => return None, // NVRTC: "unrecognized option"
                    _ => match next {
                        Some(v) => (spec, name, Some(v), 2),
                        None => (spec, name, None, 1),
                    },
                });
            }
            if let Some(v) = rest.strip_prefix(b"=") {
                return Some((spec, name, Some(v), 1));
            }
            if spec.glued && Some(name) == spec.short {
                let v = trim_start(rest);
                return Some((spec, name, Some(v), 1));
            }
        }
    }
    None
}

fn trim_start(v: &[u8]) -> &[u8] {
    let n = v.iter().take_while(|b| **b == b' ').count();
    &v[n..]
}

fn is_blank(v: &[u8]) -> bool {
    v.iter().all(|b| b.is_ascii_whitespace() || *b == 0x0b)
}

fn int(v: &[u8], min: i64, max: i64) -> Result<i64, String> {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "expects a decimal integer, got '{}'",
            String::from_utf8_lossy(v)
        ));
    }
    // At most 18 digits: fits i64.
    let n: i64 = std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(i64::MAX);
    if n < min || n > max {
        return Err(format!("{n} is outside {min}..={max}"));
    }
    Ok(n)
}

/// Checks one value against its class.
///
/// # Errors
/// Why the value is refused.
pub fn check_value(class: Value, v: &[u8]) -> Result<(), String> {
    let text = || String::from_utf8_lossy(v).into_owned();
    match class {
        Flag => Err("takes no value".into()),
        Bool => match v {
            b"true" | b"false" => Ok(()),
            _ => Err(format!("expects true or false, got '{}'", text())),
        },
        Int { min, max } => int(v, min, max).map(|_| ()),
        IntList { min, max } => {
            for item in v.split(|b| *b == b',') {
                int(item, min, max)?;
            }
            Ok(())
        }
        Enum(words) => {
            if words.iter().any(|w| w.as_bytes() == v) {
                Ok(())
            } else {
                Err(format!(
                    "expects one of {}, got '{}'",
                    words.join(", "),
                    text()
                ))
            }
        }
        EnumList(words) => {
            for item in v.split(|b| *b == b',') {
                if !words.iter().any(|w| w.as_bytes() == item) {
                    return Err(format!(
                        "expects a comma-separated list of {}, got '{}'",
                        words.join(", "),
                        text()
                    ));
                }
            }
            Ok(())
        }
        Arch => {
            if is_arch(v) {
                Ok(())
            } else {
                Err(format!(
                    "expects sm_NN, compute_NN, lto_NN (with an optional a or f) or an AMD \
                     gfx target, got '{}'",
                    text()
                ))
            }
        }
        Path => {
            if is_blank(v) {
                Err("expects a file or directory name".into())
            } else if v.iter().any(u8::is_ascii_control) {
                Err("a file name with control characters".into())
            } else {
                Ok(())
            }
        }
        Macro => {
            if is_blank(v) {
                Err("expects a macro name".into())
            } else if v.iter().any(|b| b.is_ascii_control() && *b != b'\t') {
                Err("a macro with control characters".into())
            } else {
                Ok(())
            }
        }
        Text => {
            if is_blank(v) {
                Err("expects a value".into())
            } else {
                Ok(())
            }
        }
        Version => {
            let ok = v.split(|b| *b == b'.').count() == 2
                && v.split(|b| *b == b'.')
                    .all(|p| (1..=4).contains(&p.len()) && p.iter().all(u8::is_ascii_digit));
            if ok {
                Ok(())
            } else {
                Err(format!("expects MAJOR.MINOR, got '{}'", text()))
            }
        }
    }
}

/// `sm_90`, `compute_100f`, `lto_90a`, `gfx90a`, `gfx90a:sramecc+:xnack-`.
fn is_arch(v: &[u8]) -> bool {
    for p in [&b"sm_"[..], b"compute_", b"lto_"] {
        if let Some(num) = v.strip_prefix(p) {
            let digits = num
                .strip_suffix(b"a")
                .or_else(|| num.strip_suffix(b"f"))
                .unwrap_or(num);
            return (2..=4).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit);
        }
    }
    let Some(rest) = v.strip_prefix(b"gfx") else {
        return false;
    };
    let mut parts = rest.split(|b| *b == b':');
    let proc_ok = parts
        .next()
        .is_some_and(|p| (3..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_alphanumeric));
    proc_ok
        && parts.all(|f| {
            f.len() >= 2
                && matches!(f.last(), Some(b'+' | b'-'))
                && f[..f.len() - 1].iter().all(u8::is_ascii_lowercase)
        })
}

/// Checks `options` against the table of `dialect` ([`parse`] without the parse).
///
/// # Errors
/// As [`parse`].
pub fn validate(options: &[&CStr], dialect: Dialect) -> Result<(), InvalidOption> {
    parse(options, dialect).map(|_| ())
}

/// The option list with every option as one entry (`name=value`): NVRTC's two-entry and glued
/// spellings (`-I`, `/dir`; `-D X`; `--maxrregcount`, `32`; `-arch`, `sm_90`) become the
/// one-entry spelling hipRTC and anycuda's option translation understand.
///
/// # Errors
/// As [`parse`].
pub fn normalise(
    options: &[&CStr],
    dialect: Dialect,
) -> Result<Vec<std::ffi::CString>, InvalidOption> {
    Ok(parse(options, dialect)?
        .iter()
        .map(|p| {
            let mut v = p.joined();
            v.retain(|b| *b != 0); // came from C strings: none
            std::ffi::CString::new(v).unwrap_or_default()
        })
        .collect())
}

/// Values of `class` the validator accepts, for tests and fuzzing (each is also accepted by
/// NVRTC 13.5 for every option of that class in [`NVRTC_13_5`]; `tests/rtc_bad_input.rs`
/// checks it against the library).
pub fn valid_samples(spec: &Spec) -> Vec<String> {
    match spec.value {
        Flag => vec![String::new()],
        Bool => vec!["true".into(), "false".into()],
        Int { min, max } => {
            let mut v = vec![
                min.to_string(),
                max.to_string(),
                ((min + max.min(101)) / 2).to_string(),
            ];
            v.dedup();
            v
        }
        IntList { min, .. } => vec![format!("{}", min.max(1) + 19), format!("{},{}", 20, 550)],
        Enum(words) => words.iter().map(|w| (*w).to_owned()).collect(),
        EnumList(words) => vec![words[0].to_owned(), words[1..].join(",")],
        Arch => vec!["sm_90".into(), "compute_90".into()],
        Path => vec!["/tmp".into()],
        Macro => vec!["ANYCUDA_X".into(), "ANYCUDA_Y=2".into()],
        Text => vec!["-O3".into()],
        Version => vec!["13.5".into()],
    }
}

/// Values of `class` the validator refuses (blank values, out-of-range and non-decimal
/// integers, unknown words), for tests and fuzzing.
pub fn invalid_samples(spec: &Spec) -> Vec<String> {
    let mut v: Vec<String> = vec!["".into(), " ".into(), "\t".into()];
    match spec.value {
        Flag => v = vec!["1".into(), "x".into(), "".into()],
        Bool => v.extend(["1", "yes", "TRUE", "-"].map(String::from)),
        Int { min, max } => {
            v.extend([
                "-".into(),
                "+1".into(),
                "0x10".into(),
                "1x".into(),
                " 1".into(),
                (min - 1).to_string(),
                (max + 1).to_string(),
                "99999999999999999999".into(),
                "-2147483649".into(),
            ]);
        }
        IntList { .. } => {
            v.extend(["1,", ",1", "1,,2", "0", "99999999999", "-1"].map(String::from))
        }
        Enum(_) | EnumList(_) => v.extend(["x", "on,", "ON", "c++98"].map(String::from)),
        Arch => v.extend(
            [
                "sm_",
                "sm_9",
                "native",
                "gfx",
                "gfx90a:",
                "gfx90a:xnack",
                "sm_90 ",
            ]
            .map(String::from),
        ),
        Path | Macro | Text => {}
        Version => v.extend(["13", "13.", ".5", "13.5.1", "x.y", "99999.1"].map(String::from)),
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn list(opts: &[&str]) -> Vec<CString> {
        opts.iter().map(|o| CString::new(*o).unwrap()).collect()
    }
    fn run(opts: &[&str], d: Dialect) -> Result<Vec<Vec<u8>>, InvalidOption> {
        let owned = list(opts);
        let refs: Vec<&CStr> = owned.iter().map(CString::as_c_str).collect();
        parse(&refs, d).map(|v| v.iter().map(Parsed::joined).collect())
    }

    #[test]
    fn the_values_that_abort_nvrtc_13_5_are_refused() {
        for bad in [
            &["--split-compile=-"][..],
            &["-split-compile=2147483648"],
            &["-jtd=99999999999"],
            &["-jtd", "-"],
            &["--split-compile", "-"],
            &["--Ofast-compile="],
            &["-Ofc= "],
            &["-Xptxas="],
            &["--ptxas-options= "],
            &["-dopt="],
            &["-Xnvvm=\x0b\x0c\r\n"],
            &["--maxrregcount=2147483648"],
            &["--diag-error=99999999999"],
        ] {
            let e = run(bad, Dialect::Nvrtc).unwrap_err();
            assert_eq!(e.index, 0, "{bad:?}");
        }
    }

    #[test]
    fn unknown_options_and_spellings_are_refused() {
        for bad in [
            "--bogus",
            "--arch=sm_90",
            "-gpu-architecture=sm_90",
            "--dc",
            "-arch sm_90",
            "-Xptxas -v",
            "--Xnvvm=x",
            "-Xcudafe",
            "--offload-arch=gfx90a",
            "-O3",
            "",
        ] {
            let e = run(&[bad], Dialect::Nvrtc).unwrap_err();
            assert!(e.reason.contains("unrecognized"), "{bad:?}: {e}");
        }
        assert!(run(&["--offload-arch=gfx90a"], Dialect::Hip).is_ok());
        // `=`-only options do not take the next entry.
        assert!(run(&["--std", "c++17"], Dialect::Nvrtc).is_err());
        assert!(run(&["-G=1"], Dialect::Nvrtc)
            .unwrap_err()
            .reason
            .contains("does not accept"));
        assert!(run(&["-arch"], Dialect::Nvrtc)
            .unwrap_err()
            .reason
            .contains("expects a value"));
    }

    #[test]
    fn two_entry_and_glued_spellings_are_joined() {
        let got = run(
            &[
                "-arch",
                "sm_90",
                "-I",
                "/dir",
                "-D X",
                "-DY=1",
                "-D=Z",
                "--maxrregcount",
                "32",
                "-D",
                "-w",
                "-I  /x",
                "--std=c++17",
                "-G",
            ],
            Dialect::Nvrtc,
        )
        .unwrap();
        let got: Vec<String> = got
            .into_iter()
            .map(|v| String::from_utf8(v).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "-arch=sm_90",
                "-I=/dir",
                "-D=X",
                "-D=Y=1",
                "-D=Z",
                "--maxrregcount=32",
                "-D=-w",
                "-I=/x",
                "--std=c++17",
                "-G"
            ]
        );
    }

    #[test]
    fn every_class_accepts_its_samples_and_refuses_the_bad_ones() {
        for spec in NVRTC_13_5.iter().chain(HIP_EXTRA) {
            for name in core::iter::once(spec.long).chain(spec.short) {
                for v in valid_samples(spec) {
                    let opt = if spec.value == Flag {
                        name.to_owned()
                    } else {
                        format!("{name}={v}")
                    };
                    assert!(run(&[&opt], Dialect::Hip).is_ok(), "{opt}");
                }
                for v in invalid_samples(spec) {
                    let opt = format!("{name}={v}");
                    assert!(
                        run(&[&opt], Dialect::Hip).is_err(),
                        "{opt:?} must be refused"
                    );
                }
            }
        }
    }

    #[test]
    fn removes_only_anycuda_hip_options() {
        let opts = [
            c"-arch=sm_90",
            c"--anycuda-hip-arch=gfx90a",
            c"-DX=1",
            c"--anycuda-hip-option=-mcumode",
            c"--anycuda-hip-archer", // not ours: NVRTC will judge it
        ];
        let (kept, notes) = filter(&opts);
        assert_eq!(kept, [c"-arch=sm_90", c"-DX=1", c"--anycuda-hip-archer"]);
        assert_eq!(notes.len(), 2);
        assert!(notes[0].contains("--anycuda-hip-arch=gfx90a"));
        assert!(notes[1].contains("-mcumode"));
    }

    #[test]
    fn empty_and_non_utf8() {
        let (kept, notes) = filter(&[]);
        assert!(kept.is_empty() && notes.is_empty());
        assert_eq!(validate(&[], Dialect::Nvrtc), Ok(()));
        // A non-UTF-8 macro is the compiler's to judge; a non-UTF-8 option name is unknown.
        assert_eq!(validate(&[c"-D\xffX"], Dialect::Nvrtc), Ok(()));
        assert!(validate(&[c"-\xff"], Dialect::Nvrtc).is_err());
    }
}
