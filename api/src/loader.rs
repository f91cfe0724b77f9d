//! Finding and opening the vendor libraries: sonames first, then the environment's install dirs.
//!
//! Loading never panics: every failure becomes a [`LoadError`] naming what was tried.
//!
//! # Trust
//! A library named by the environment (`ANYCUDA_*_LIBRARY`, `CUDA_PATH`/`CUDA_HOME`,
//! `ROCM_PATH`/`HIP_PATH`) or found on the loader's path is **trusted**: loading it runs its
//! initialisers, and its entry points are called with CUDA's or HIP's ABI on the caller's
//! pointers. anycuda checks that the symbols exist and the version is new enough, nothing
//! more; whoever can set those variables can run code in the process, as with `LD_PRELOAD`.

use crate::error::LoadError;
use libloading::Library;
use std::ffi::{c_void, CStr};
use std::path::PathBuf;

/// An opened library and the path (or soname) it was opened by.
#[derive(Debug)]
pub struct Opened {
    /// The open handle; entry points resolved from it stay valid while it lives.
    pub lib: Library,
    /// The candidate that opened, as given to the dynamic loader.
    pub path: String,
}

impl Opened {
    /// Resolves a symbol, or null when it is absent.
    pub fn sym(&self, name: &CStr) -> *mut c_void {
        // SAFETY: we only read the address; callers transmute it to the header's signature.
        unsafe {
            self.lib
                .get::<*mut c_void>(name.to_bytes_with_nul())
                .map(|s| *s)
                .unwrap_or(std::ptr::null_mut())
        }
    }

    /// The absolute path of the file the loader actually mapped, when it can be found.
    pub fn resolved_path(&self, probe: &CStr) -> String {
        let addr = self.sym(probe);
        if addr.is_null() {
            return self.path.clone();
        }
        let mut info: libc_dl::DlInfo = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads `addr` and fills `info`.
        let ok = unsafe { libc_dl::dladdr(addr, &mut info) };
        if ok != 0 && !info.dli_fname.is_null() {
            // SAFETY: dladdr returns a NUL-terminated path owned by the loader.
            let p = unsafe { CStr::from_ptr(info.dli_fname) };
            return p.to_string_lossy().into_owned();
        }
        self.path.clone()
    }
}

mod libc_dl {
    use std::ffi::{c_char, c_int, c_void};
    #[repr(C)]
    pub struct DlInfo {
        pub dli_fname: *const c_char,
        pub dli_fbase: *mut c_void,
        pub dli_sname: *const c_char,
        pub dli_saddr: *mut c_void,
    }
    extern "C" {
        pub fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    }
}

/// A library, its resolved function table and the version it reported.
#[derive(Debug)]
pub struct Loaded<T> {
    /// The resolved entry points (valid while this value lives: it keeps the library open).
    pub table: T,
    /// The file the dynamic loader mapped.
    pub path: String,
    /// The version it reported, in the vendor's encoding (`13000`, `50221153`).
    pub version: i32,
    _lib: Opened,
    /// Libraries preloaded for this one (e.g. NVRTC's builtins), kept open as long as it is.
    _companions: Vec<Opened>,
}

impl<T> Loaded<T> {
    /// Bundles a table with the libraries its pointers come from.
    pub fn new(table: T, path: String, version: i32, lib: Opened, companions: Vec<Opened>) -> Self {
        Self {
            table,
            path,
            version,
            _lib: lib,
            _companions: companions,
        }
    }
}

/// Resolves a symbol a backend cannot work without.
///
/// # Errors
/// [`LoadError::MissingSymbol`] naming the library, file and symbol.
pub fn required(o: &Opened, library: &'static str, name: &CStr) -> Result<*mut c_void, LoadError> {
    let p = o.sym(name);
    if p.is_null() {
        return Err(LoadError::MissingSymbol {
            library,
            path: o.path.clone(),
            symbol: name.to_string_lossy().into_owned(),
        });
    }
    Ok(p)
}

/// Where to look for one library.
#[derive(Clone, Debug)]
pub struct Search {
    /// Human name for errors, e.g. `NVRTC (libnvrtc)`.
    pub library: &'static str,
    /// An environment variable naming an exact file; when set, it is the only candidate.
    pub explicit_env: &'static str,
    /// Sonames tried through the system loader, in order.
    pub sonames: &'static [&'static str],
    /// Environment variables naming install roots (e.g. `CUDA_PATH`), tried after the sonames.
    pub root_envs: &'static [&'static str],
    /// Subdirectories of each root holding the library.
    pub lib_dirs: &'static [&'static str],
    /// Fixed install roots tried last (e.g. `/opt/rocm`).
    pub default_roots: &'static [&'static str],
}

impl Search {
    /// Every candidate in search order.
    pub fn candidates(&self) -> Vec<String> {
        if let Some(p) = std::env::var_os(self.explicit_env).filter(|p| !p.is_empty()) {
            return vec![p.to_string_lossy().into_owned()];
        }
        let mut out: Vec<String> = self.sonames.iter().map(|s| s.to_string()).collect();
        let roots = self
            .root_envs
            .iter()
            .filter_map(|e| {
                std::env::var_os(e)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .chain(self.default_roots.iter().map(PathBuf::from));
        for root in roots {
            for dir in self.lib_dirs {
                for so in self.sonames {
                    let p = root.join(dir).join(so).to_string_lossy().into_owned();
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    /// Opens the first candidate that loads.
    ///
    /// # Errors
    /// [`LoadError::NotFound`] listing every candidate and why it failed.
    pub fn open(&self) -> Result<Opened, LoadError> {
        let mut tried = Vec::new();
        for c in self.candidates() {
            // SAFETY: opening a vendor library runs its initialisers; that is what using it means.
            match unsafe { Library::new(&c) } {
                Ok(lib) => {
                    log::debug!("{}: opened {c}", self.library);
                    return Ok(Opened { lib, path: c });
                }
                Err(e) => tried.push(format!("{c} ({})", short_reason(&e))),
            }
        }
        Err(LoadError::NotFound {
            library: self.library,
            tried,
        })
    }
}

/// The loader's message without the repeated file name.
fn short_reason(e: &libloading::Error) -> String {
    let s = e.to_string();
    match s.rsplit_once(": ") {
        Some((_, tail)) if !tail.is_empty() => tail.to_string(),
        _ => s,
    }
}
