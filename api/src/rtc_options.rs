//! The anycuda-only compile options: removed before a compiler that does not take them sees the
//! list, so one option list works on both backends.
//!
//! `--anycuda-hip-arch=...` and `--anycuda-hip-option=...` steer the HIP backend's compiler and
//! mean nothing to NVRTC, which would reject them. Everything else goes to NVRTC untouched:
//! NVRTC validates its own options and reports `NVRTC_ERROR_INVALID_OPTION` itself.

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

#[cfg(test)]
mod tests {
    use super::*;

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
