//! Compiling the source bundle of a PTX module ([`anycuda_api::rtc_bundle`], written by
//! `anycuda nvcc`) with hipRTC, which is how such PTX loads on an AMD GPU: `cuModuleLoadData`,
//! `cuModuleLoadDataEx` and `cuModuleLoad` on HIP call [`compile_bundle`] for PTX that carries
//! a bundle, then load the code object (`adapt/image.rs`); PTX without one keeps the
//! not-supported error.
//!
//! The compile goes through this backend's NVRTC API over hipRTC (`rtc.rs`), so the bundle's
//! CUDA options are translated as for any run-time compile, the built-in headers apply, and
//! the AMD target is the current device's unless one is named.
//!
//! Loads go through [`compile_bundle_cached`]: the code is looked up in the process's
//! [`anycuda_api::rtc_bundle::code_cache`] (anycuda installs its persistent program cache
//! there) under the bundle, the AMD target, the hipRTC library's identity (path, version, size,
//! modification time), this crate's version (its built-in headers) and whether the built-in
//! headers are on; without an installed cache every load compiles.

use crate::HipBackend;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::rtc_bundle::Bundle;
use anycuda_api::traits::Rtc;
use core::ffi::{c_char, c_int};
use std::ffi::CString;

/// Why a bundle did not compile: hipRTC's (NVRTC-named) code and the compile log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleCompileError {
    /// The NVRTC-named result of the failing call.
    pub code: nvrtcResult,
    /// The call that failed.
    pub call: &'static str,
    /// The compile log (anycuda's notes first), empty when none was made.
    pub log: String,
}

impl std::fmt::Display for BundleCompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {}", self.call, self.code)?;
        if !self.log.is_empty() {
            write!(f, "\n{}", self.log)?;
        }
        Ok(())
    }
}

impl std::error::Error for BundleCompileError {}

/// A string for hipRTC, or the invalid-input error naming `what`.
fn c_string(what: &'static str, s: &str) -> Result<CString, BundleCompileError> {
    CString::new(s).map_err(|_| BundleCompileError {
        code: nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
        call: what,
        log: "the source bundle holds a NUL byte".into(),
    })
}

/// Destroys the program when dropped (every way out of [`compile_bundle`]).
struct Guard<'a>(&'a HipBackend, nvrtcProgram);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        // SAFETY: a program this module created and still owns.
        unsafe { self.0.nvrtcDestroyProgram(&mut self.1) };
    }
}

/// Compiles `bundle` with hipRTC and returns the AMD code object.
///
/// `target` names the AMD target (`gfx90a`, ...); `None` takes the current device's, as
/// every run-time compile on this backend does. The bundle's options are passed as NVRTC
/// options, translated by the backend.
///
/// # Errors
/// A [`BundleCompileError`]: hipRTC is not loaded (`NVRTC_ERROR_NOT_SUPPORTED`), a NUL inside
/// the bundle, an option the translation refuses, no AMD target (no device and none named), or
/// the compile failed (`NVRTC_ERROR_COMPILATION`, with the log).
pub fn compile_bundle(
    b: &HipBackend,
    bundle: &Bundle,
    target: Option<&str>,
) -> Result<Vec<u8>, BundleCompileError> {
    let fail = |call, code, log: String| BundleCompileError { code, call, log };
    let src = c_string("nvrtcCreateProgram", &bundle.source)?;
    let name = c_string("nvrtcCreateProgram", &bundle.name)?;
    let mut header_names = Vec::with_capacity(bundle.headers.len());
    let mut header_texts = Vec::with_capacity(bundle.headers.len());
    for (n, t) in &bundle.headers {
        header_names.push(c_string("nvrtcCreateProgram", n)?);
        header_texts.push(c_string("nvrtcCreateProgram", t)?);
    }
    let names: Vec<*const c_char> = header_names.iter().map(|s| s.as_ptr()).collect();
    let texts: Vec<*const c_char> = header_texts.iter().map(|s| s.as_ptr()).collect();
    let count = c_int::try_from(names.len()).map_err(|_| {
        fail(
            "nvrtcCreateProgram",
            nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
            "too many headers".into(),
        )
    })?;
    let mut opts: Vec<CString> = Vec::with_capacity(bundle.options.len() + 1);
    if let Some(t) = target {
        // On HIP's NVIDIA platform hipRTC is NVRTC, which takes CUDA's option (the target there
        // is the device's `sm_XY`); anycuda's own option is for AMD targets.
        let opt = if crate::conv::nvidia(b) {
            format!("--gpu-architecture={t}")
        } else {
            format!("--anycuda-hip-arch={t}")
        };
        opts.push(c_string("nvrtcCompileProgram", &opt)?);
    }
    for o in &bundle.options {
        opts.push(c_string("nvrtcCompileProgram", o)?);
    }
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|s| s.as_ptr()).collect();
    let mut prog: nvrtcProgram = core::ptr::null_mut();
    // SAFETY: valid out-pointer; NUL-terminated strings and `count`-long arrays that outlive
    // the call.
    let r = unsafe {
        b.nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            count,
            texts.as_ptr(),
            names.as_ptr(),
        )
    };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcCreateProgram", r, String::new()));
    }
    let guard = Guard(b, prog);
    // SAFETY: a live program; `opt_ptrs` holds `opts.len()` NUL-terminated strings.
    let r = unsafe { b.nvrtcCompileProgram(guard.1, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcCompileProgram", r, program_log(b, guard.1)));
    }
    let mut size = 0usize;
    // SAFETY: a live, compiled program; valid out-pointer.
    let r = unsafe { b.nvrtcGetCUBINSize(guard.1, &mut size) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBINSize", r, String::new()));
    }
    let mut code = vec![0u8; size];
    // SAFETY: a buffer of the size the previous call reported.
    let r = unsafe { b.nvrtcGetCUBIN(guard.1, code.as_mut_ptr().cast()) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBIN", r, String::new()));
    }
    Ok(code)
}

/// What produced the code and for what: the cache key's fields besides the bundle, or `None`
/// when the compiler cannot be identified (then nothing is cached).
fn key_fields(b: &HipBackend, target: &str) -> Option<Vec<Vec<u8>>> {
    let lib = b.rtc.as_ref().ok()?;
    let meta = std::fs::metadata(&lib.path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(vec![
        b"anycuda-hip bundle code 2".to_vec(),
        env!("CARGO_PKG_VERSION").as_bytes().to_vec(),
        vec![u8::from(anycuda_api::rtc_input::builtins_enabled())],
        builtin_header_texts().to_vec(),
        target.as_bytes().to_vec(),
        lib.path.as_bytes().to_vec(),
        lib.version.to_le_bytes().to_vec(),
        meta.len().to_le_bytes().to_vec(),
        mtime.as_nanos().to_le_bytes().to_vec(),
    ])
}

/// Every built-in header the compile may use, names and texts: part of the key, because they
/// are compiled into anycuda and change between its builds without a version change (the cache
/// hashes the key, so only a different text matters).
fn builtin_header_texts() -> &'static [u8] {
    static TEXTS: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        use anycuda_api::rtc_headers::{builtin_headers, RtcTarget};
        let mut v = Vec::new();
        for t in [RtcTarget::Hiprtc, RtcTarget::Nvrtc] {
            for (name, text) in builtin_headers(t) {
                for part in [name.as_bytes(), text.as_bytes()] {
                    v.extend_from_slice(&part.len().to_le_bytes());
                    v.extend_from_slice(part);
                }
            }
        }
        v
    })
}

/// [`compile_bundle`] through the installed code cache (see the module docs): the code, and
/// whether it came from the cache. `target` `None` is the current device's target; with no
/// device and no target nothing is cached and the compile reports the missing target.
///
/// # Errors
/// As [`compile_bundle`].
pub fn compile_bundle_cached(
    b: &HipBackend,
    bundle: &Bundle,
    target: Option<&str>,
) -> Result<(Vec<u8>, bool), BundleCompileError> {
    let arch = target.map(str::to_owned).or_else(|| b.current_arch());
    let cache = anycuda_api::rtc_bundle::code_cache();
    let key = match (cache, arch.as_deref(), bundle.to_text()) {
        (Some(_), Some(a), Ok(text)) => key_fields(b, a).map(|mut f| {
            f.push(text.into_bytes());
            f
        }),
        _ => None,
    };
    let fields: Option<Vec<&[u8]>> = key.as_ref().map(|k| k.iter().map(Vec::as_slice).collect());
    if let (Some(c), Some(f)) = (cache, &fields) {
        // Only what a compile writes stands for one (an AMD code object, or PTX on HIP's NVIDIA
        // platform); anything else is a miss.
        if let Some(code) = c.get(f).filter(|c| plausible_code(c)) {
            return Ok((code, true));
        }
    }
    // The target found for the key is the one compiled for, even if the device changes.
    let code = compile_bundle(b, bundle, arch.as_deref())?;
    if let (Some(c), Some(f)) = (cache, &fields) {
        c.put(f, &code);
    }
    Ok((code, false))
}

/// Whether `code` is what a bundle compile writes: an ELF code object, or PTX text (hipRTC's
/// output on HIP's NVIDIA platform: a `//` comment header, then `.version` and `.target`).
fn plausible_code(code: &[u8]) -> bool {
    code.starts_with(b"\x7fELF")
        || (code.starts_with(b"//")
            && code.windows(9).any(|w| w == b".version ")
            && code.windows(8).any(|w| w == b".target "))
}

/// The program's log, or an empty text when it cannot be read.
fn program_log(b: &HipBackend, prog: nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: a live program; valid out-pointer.
    if unsafe { b.nvrtcGetProgramLogSize(prog, &mut size) } != nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: a buffer of the reported size.
    if unsafe { b.nvrtcGetProgramLog(prog, buf.as_mut_ptr().cast()) } != nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::image::{self, code_from_bundle};
    use anycuda_api::driver::CUresult;

    /// The backend with hipRTC loaded; `None` (skip) off CI when it is missing.
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

    fn bundle() -> Bundle {
        Bundle {
            name: "scale.cu".into(),
            source: "#include \"scale.cuh\"\n\
                     extern \"C\" __global__ void scale(float* x, float a) {\n\
                     x[threadIdx.x] = mul(x[threadIdx.x], a * FACTOR);\n}\n"
                .into(),
            headers: vec![(
                "scale.cuh".into(),
                "__device__ inline float mul(float x, float a) { return x * a; }\n".into(),
            )],
            options: vec!["-DFACTOR=2.0f".into(), "-std=c++17".into()],
            producer: "test".into(),
            ..Bundle::default()
        }
    }

    #[test]
    fn a_bundle_compiles_to_an_amd_code_object() {
        let Some(b) = hiprtc() else { return };
        let code = compile_bundle(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(code.starts_with(b"\x7fELF"), "not an ELF");
        assert_eq!(u16::from_le_bytes([code[18], code[19]]), image::EM_AMDGPU);
        let has = |s: &[u8]| code.windows(s.len()).any(|w| w == s);
        assert!(
            has(b"scale\0") && has(b"scale.kd\0"),
            "kernel symbols missing"
        );
        // Without the header or the define the source does not compile: both were used.
        let mut no_header = bundle();
        no_header.headers.clear();
        let e = compile_bundle(&b, &no_header, Some("gfx90a")).unwrap_err();
        assert_eq!(e.code, nvrtcResult::NVRTC_ERROR_COMPILATION);
        assert!(e.log.contains("scale.cuh"), "{}", e.log);
        let mut no_define = bundle();
        no_define.options.clear();
        let e = compile_bundle(&b, &no_define, Some("gfx90a")).unwrap_err();
        assert!(e.log.contains("FACTOR"), "{}", e.log);
    }

    /// A code cache in memory that counts its hits, for the one test that installs it.
    #[derive(Default)]
    struct Counting {
        map: std::sync::Mutex<std::collections::HashMap<Vec<Vec<u8>>, Vec<u8>>>,
        hits: std::sync::atomic::AtomicUsize,
    }

    impl anycuda_api::rtc_bundle::CodeCache for &'static Counting {
        fn get(&self, fields: &[&[u8]]) -> Option<Vec<u8>> {
            let key: Vec<Vec<u8>> = fields.iter().map(|f| f.to_vec()).collect();
            let got = self.map.lock().unwrap().get(&key).cloned();
            if got.is_some() {
                self.hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            got
        }
        fn put(&self, fields: &[&[u8]], code: &[u8]) {
            let key = fields.iter().map(|f| f.to_vec()).collect();
            self.map.lock().unwrap().insert(key, code.to_vec());
        }
    }

    #[test]
    fn loads_go_through_the_installed_code_cache() {
        let Some(b) = hiprtc() else { return };
        let counting: &'static Counting = Box::leak(Box::default());
        assert!(anycuda_api::rtc_bundle::install_code_cache(Box::new(
            counting
        )));
        let (first, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(!hit && first.starts_with(b"\x7fELF"));
        let (second, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(hit && second == first);
        assert_eq!(counting.hits.load(std::sync::atomic::Ordering::SeqCst), 1);
        // Another bundle or another target is another key.
        let mut other = bundle();
        other.options.push("-DEXTRA=1".into());
        assert!(!compile_bundle_cached(&b, &other, Some("gfx90a")).unwrap().1);
        assert!(
            !compile_bundle_cached(&b, &bundle(), Some("gfx908"))
                .unwrap()
                .1
        );
        // An entry that is not a code object is a miss, and is replaced.
        for v in counting.map.lock().unwrap().values_mut() {
            *v = b"junk".to_vec();
        }
        let (again, hit) = compile_bundle_cached(&b, &bundle(), Some("gfx90a")).unwrap();
        assert!(!hit && again.starts_with(b"\x7fELF"));
    }

    #[test]
    fn the_load_path_takes_the_bundle() {
        let Some(b) = hiprtc() else { return };
        let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
        // No bundle: the load goes on to the PTX refusal, as before.
        assert!(code_from_bundle(&b, ptx.as_bytes()).is_none());
        // A damaged bundle: not supported, with the damage as the reason.
        let text = bundle().to_text().unwrap();
        let damaged = format!("{ptx}{}", &text[..text.len() / 2]);
        let r = code_from_bundle(&b, damaged.as_bytes()).unwrap();
        assert_eq!(r, Err(CUresult::CUDA_ERROR_NOT_SUPPORTED));
        assert_eq!(
            image::not_supported_reason(CUresult::CUDA_ERROR_NOT_SUPPORTED),
            Some(image::DAMAGED_BUNDLE_ON_AMD)
        );
        // A whole bundle is compiled for the current device; this machine has none, so the
        // compile (not the PTX refusal) fails, as the load's CUDA_ERROR_INVALID_PTX. With a
        // device it is a_bundle_compiles_to_an_amd_code_object's compile.
        let whole = format!("{ptx}{text}");
        let r = code_from_bundle(&b, whole.as_bytes()).unwrap();
        let mut n = 0;
        // SAFETY: valid out-pointer.
        let has_device = unsafe {
            anycuda_api::traits::Driver::cuDeviceGetCount(&b, &mut n) == CUresult::CUDA_SUCCESS
                && n > 0
        };
        if has_device {
            assert!(r.is_ok_and(|c| c.starts_with(b"\x7fELF")));
        } else {
            assert_eq!(r, Err(CUresult::CUDA_ERROR_INVALID_PTX));
        }
    }

    #[test]
    fn only_compiler_output_counts_as_a_cache_hit() {
        assert!(plausible_code(b"\x7fELF\x02\x01"));
        assert!(plausible_code(
            b"//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_90\n"
        ));
        assert!(!plausible_code(b""));
        assert!(!plausible_code(b"garbage"));
        assert!(!plausible_code(b"// a comment, no PTX"));
        assert!(!plausible_code(b".version 8.8\n.target sm_90\n"));
    }
}
