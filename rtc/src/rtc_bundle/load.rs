//! The loading side of source bundles: compiling a bundle through a backend's NVRTC API, and
//! the process's store for the code ([`CodeCache`]), so a module's load does not compile it
//! again every start. Used by both backends (the HIP backend for PTX on AMD, the CUDA backend
//! for PTX its driver refuses).

use super::Bundle;
use crate::cache::BundleCodeCache;
use crate::rtc_headers::{builtin_headers, RtcTarget};
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::traits::Rtc;
use core::ffi::{c_char, c_int};
use std::ffi::CString;
use std::fmt;
use std::sync::OnceLock;

/// A store for code compiled from bundles, kept across processes so a module's load does not
/// compile it again every start.
///
/// A backend that compiles a bundle asks [`code_cache`] first and stores what it made. The key
/// is given as fields (everything that decides the output: the bundle, the target, the
/// compiler's identity), which the cache digests.
pub trait CodeCache: Send + Sync {
    /// The code stored under the key made of `fields`, if any. A damaged entry is a miss.
    fn get(&self, fields: &[&[u8]]) -> Option<Vec<u8>>;
    /// Stores `code` under the key made of `fields`; a failure to store is the cache's to log,
    /// never the compile's.
    fn put(&self, fields: &[&[u8]], code: &[u8]);
}

static CODE_CACHE: OnceLock<Box<dyn CodeCache>> = OnceLock::new();

/// What [`code_cache`] answers while none is installed: the persistent program cache, looked up
/// at each use.
static DEFAULT_CODE_CACHE: BundleCodeCache = BundleCodeCache::default_cache();

/// Installs the process's [`CodeCache`] in place of the default one; `false` (and `cache`
/// dropped) when one is installed already.
pub fn install_code_cache(cache: Box<dyn CodeCache>) -> bool {
    CODE_CACHE.set(cache).is_ok()
}

/// The process's [`CodeCache`]: the installed one, else the default,
/// [`BundleCodeCache::default_cache`]: the persistent program cache ([`crate::cache`]) that the
/// environment configures (`ANYCUDA_CACHE_DIR`, `ANYCUDA_CACHE_MAX_BYTES`;
/// `ANYCUDA_CACHE_DISABLE=1` turns it off, and then nothing is cached).
///
/// The default is answered here, in the crate that owns both the bundles and the cache, so that
/// every user of a backend (the `anycuda` crate, or a backend crate on its own) gets it without
/// a layer above the backends reaching down to install it. Answering it does not install it: a
/// program may still install its own cache later, and from then on that one is used.
pub fn code_cache() -> &'static dyn CodeCache {
    match CODE_CACHE.get() {
        Some(c) => c.as_ref(),
        None => &DEFAULT_CODE_CACHE,
    }
}

/// Why a bundle did not compile: the compiler's (NVRTC-named) code and the compile log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleCompileError {
    /// The NVRTC-named result of the failing call.
    pub code: nvrtcResult,
    /// The call that failed.
    pub call: &'static str,
    /// The compile log (anycuda's notes first), empty when none was made.
    pub log: String,
}

impl fmt::Display for BundleCompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.call, self.code)?;
        if !self.log.is_empty() {
            write!(f, "\n{}", self.log)?;
        }
        Ok(())
    }
}

impl std::error::Error for BundleCompileError {}

/// A string for the compiler, or the invalid-input error naming `call`.
fn c_string(call: &'static str, s: &str) -> Result<CString, BundleCompileError> {
    CString::new(s).map_err(|_| BundleCompileError {
        code: nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
        call,
        log: "the source bundle holds a NUL byte".into(),
    })
}

/// Destroys the program when dropped (every way out of [`compile`]).
struct ProgramGuard<'a, R: Rtc + ?Sized>(&'a R, nvrtcProgram);

impl<R: Rtc + ?Sized> Drop for ProgramGuard<'_, R> {
    fn drop(&mut self) {
        // SAFETY: a program `compile` created and still owns.
        unsafe { self.0.nvrtcDestroyProgram(&mut self.1) };
    }
}

/// Compiles `bundle` through a backend's NVRTC API (NVRTC on CUDA, hipRTC on HIP, each with
/// its own option translation and built-in headers) and returns what `nvrtcGetCUBIN` gives:
/// a cubin, an AMD code object, or PTX on HIP's NVIDIA platform. `target_option` (the
/// backend's spelling of the target) goes first, then the bundle's own options.
///
/// # Errors
/// A [`BundleCompileError`]: the compiler is not loaded (`NVRTC_ERROR_NOT_SUPPORTED`), a NUL
/// inside the bundle, an option the backend refuses, no target (none named and no device), or
/// the compile failed (`NVRTC_ERROR_COMPILATION`, with the log).
pub fn compile<R: Rtc + ?Sized>(
    rtc: &R,
    bundle: &Bundle,
    target_option: Option<&str>,
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
    if let Some(t) = target_option {
        opts.push(c_string("nvrtcCompileProgram", t)?);
    }
    for o in &bundle.options {
        opts.push(c_string("nvrtcCompileProgram", o)?);
    }
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|s| s.as_ptr()).collect();
    let n_opts = c_int::try_from(opt_ptrs.len()).map_err(|_| {
        fail(
            "nvrtcCompileProgram",
            nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
            "too many options".into(),
        )
    })?;
    let mut prog: nvrtcProgram = core::ptr::null_mut();
    // SAFETY: valid out-pointer; NUL-terminated strings and `count`-long arrays that outlive
    // the call.
    let r = unsafe {
        rtc.nvrtcCreateProgram(
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
    let guard = ProgramGuard(rtc, prog);
    // SAFETY: a live program; `opt_ptrs` holds `n_opts` NUL-terminated strings.
    let r = unsafe { rtc.nvrtcCompileProgram(guard.1, n_opts, opt_ptrs.as_ptr()) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcCompileProgram", r, program_log(rtc, guard.1)));
    }
    let mut size = 0usize;
    // SAFETY: a live, compiled program; valid out-pointer.
    let r = unsafe { rtc.nvrtcGetCUBINSize(guard.1, &mut size) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBINSize", r, String::new()));
    }
    let mut code = vec![0u8; size];
    // SAFETY: a buffer of the size the previous call reported.
    let r = unsafe { rtc.nvrtcGetCUBIN(guard.1, code.as_mut_ptr().cast()) };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBIN", r, String::new()));
    }
    Ok(code)
}

/// The program's log, or an empty text when it cannot be read.
fn program_log<R: Rtc + ?Sized>(rtc: &R, prog: nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: a live program; valid out-pointer.
    if unsafe { rtc.nvrtcGetProgramLogSize(prog, &mut size) } != nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: a buffer of the reported size.
    if unsafe { rtc.nvrtcGetProgramLog(prog, buf.as_mut_ptr().cast()) }
        != nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The fields of a bundle compile's cache key besides the bundle: what the code is (`what`,
/// e.g. `"anycuda-hip bundle code"`), the target, the compiler library's identity (path,
/// version, size, modification time) and anycuda's own (its version, whether built-in headers
/// are on, and their texts, which change between builds without a version change). `None`
/// when the library cannot be identified: then nothing is cached.
pub fn key_fields(
    what: &str,
    target: &str,
    lib_path: &str,
    lib_version: i32,
) -> Option<Vec<Vec<u8>>> {
    let meta = std::fs::metadata(lib_path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(vec![
        what.as_bytes().to_vec(),
        env!("CARGO_PKG_VERSION").as_bytes().to_vec(),
        crate::rtc_input::builtins_key().to_vec(),
        builtin_header_texts().to_vec(),
        target.as_bytes().to_vec(),
        lib_path.as_bytes().to_vec(),
        lib_version.to_le_bytes().to_vec(),
        meta.len().to_le_bytes().to_vec(),
        mtime.as_nanos().to_le_bytes().to_vec(),
    ])
}

/// Every built-in header a compile may use, names and texts (both compilers'), for the key.
fn builtin_header_texts() -> &'static [u8] {
    static TEXTS: OnceLock<Vec<u8>> = OnceLock::new();
    TEXTS.get_or_init(|| {
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

/// A bundle's code through the process's [`CodeCache`]: looked up under `key` (from
/// [`key_fields`]) plus the bundle's text, taken only when `plausible` says it is what the
/// compiler writes (anything else is a miss and is replaced), else `compile`d and stored. The
/// code, and whether it came from the cache. With no key, `compile` alone.
///
/// # Errors
/// `compile`'s.
pub fn cached(
    key: Option<Vec<Vec<u8>>>,
    bundle: &Bundle,
    plausible: fn(&[u8]) -> bool,
    compile: impl FnOnce() -> Result<Vec<u8>, BundleCompileError>,
) -> Result<(Vec<u8>, bool), BundleCompileError> {
    let cache = code_cache();
    let key = match (key, bundle.to_text()) {
        (Some(mut f), Ok(text)) => {
            f.push(text.into_bytes());
            Some(f)
        }
        _ => None,
    };
    let fields: Option<Vec<&[u8]>> = key.as_ref().map(|k| k.iter().map(Vec::as_slice).collect());
    if let Some(f) = &fields {
        if let Some(code) = cache.get(f).filter(|c| plausible(c)) {
            return Ok((code, true));
        }
    }
    let code = compile()?;
    if let Some(f) = &fields {
        cache.put(f, &code);
    }
    Ok((code, false))
}
