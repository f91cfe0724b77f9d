//! The anycuda-only compile options: removed before a compiler that does not take them sees the
//! list, so one option list works on both backends.
//!
//! `--anycuda-hip-arch=...` and `--anycuda-hip-option=...` steer the HIP backend's compiler and
//! mean nothing to NVRTC, which would reject them. Everything else goes to NVRTC after
//! [`validate`], which refuses the few spellings that make NVRTC 13.0 abort the process; NVRTC
//! validates the rest itself and reports `NVRTC_ERROR_INVALID_OPTION`.

use std::ffi::CStr;

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

/// Options whose empty or whitespace-only `=value` makes NVRTC 13.0 throw `std::out_of_range`
/// out of `nvrtcCompileProgram`, which aborts the process. Found by probing every value-taking
/// option with the values `""`, `" "`, `"\t"`, `"\n"`, `"\r"`, `"\x0b"`, `"\x0c"`, `","` and
/// `"x"` in child processes; only these five spellings abort, and only on blank values
/// (`--Xnvvm=`, `--nvvm-options=`, `-Xptxas -v` as two options and all other options are fine).
const ABORT_ON_BLANK_VALUE: &[&[u8]] = &[
    b"--ptxas-options=",
    b"-Xptxas=",
    b"-dopt=",
    b"--dopt=",
    b"-Xnvvm=",
];

/// An option refused before the compiler sees it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option {index} '{option}': {reason}")]
pub struct InvalidOption {
    /// Its position in the option list.
    pub index: usize,
    /// The option, lossily decoded.
    pub option: String,
    /// Why it is refused.
    pub reason: &'static str,
}

/// Checks options that would crash a compiler instead of being reported by it; both backends
/// call it before anything else looks at the list (the HIP backend may run NVRTC underneath,
/// on HIP's NVIDIA platform).
///
/// # Errors
/// The first [`InvalidOption`]; the caller returns `NVRTC_ERROR_INVALID_OPTION`.
pub fn validate(options: &[&CStr]) -> Result<(), InvalidOption> {
    for (index, opt) in options.iter().enumerate() {
        let bytes = opt.to_bytes();
        let blank = ABORT_ON_BLANK_VALUE.iter().any(|p| {
            bytes
                .strip_prefix(*p)
                .is_some_and(|v| v.iter().all(|b| b.is_ascii_whitespace() || *b == 0x0b))
        });
        if blank {
            return Err(InvalidOption {
                index,
                option: opt.to_string_lossy().into_owned(),
                reason: "expects a value",
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_values_of_the_aborting_options_are_refused() {
        for bad in [
            c"--ptxas-options=",
            c"-Xptxas=",
            c"--ptxas-options= ",
            c"-dopt=",
            c"--dopt=\t",
            c"-Xnvvm=",
            c"-Xnvvm=\x0b\x0c\r\n",
        ] {
            let e = validate(&[c"-arch=sm_90", bad]).unwrap_err();
            assert_eq!(e.index, 1, "{bad:?}");
            assert!(e.to_string().contains("expects a value"), "{e}");
        }
        for good in [
            c"--ptxas-options=-v",
            c"-Xptxas= -v",
            c"-dopt=on",
            c"-Xnvvm=x",
            c"-Xptxas",
            c"--Xnvvm=",
            c"-D=",
            c"",
        ] {
            assert_eq!(validate(&[good]), Ok(()), "{good:?}");
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
    fn empty_and_non_utf8_pass_through() {
        let (kept, notes) = filter(&[]);
        assert!(kept.is_empty() && notes.is_empty());
        let odd = c"-D\xffX";
        let (kept, notes) = filter(&[odd]);
        assert_eq!(kept, [odd]);
        assert!(notes.is_empty());
    }
}
