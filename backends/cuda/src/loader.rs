//! Finding NVIDIA's libraries and resolving their entry points once.
//!
//! The files it opens are trusted: see `anycuda_api::loader` ("Trust").

use crate::generated::table::{DriverTable, NvrtcTable, RuntimeTable};
use anycuda_api::driver::CUresult;
use anycuda_api::error::LoadError;
use anycuda_api::loader::{required, Loaded, Opened, Search};
use anycuda_api::nvrtc::nvrtcResult;
use anycuda_api::runtime::cudaError_t;
use core::ffi::{c_char, c_int, c_void, CStr};

/// Oldest driver served: `cuGetProcAddress_v2`, which versioned resolution needs, came in 12.0.
const MIN_DRIVER: i32 = 12000;
/// Oldest runtime served: the runtime structs (`cudaDeviceProp`, ...) are laid out as in the
/// pinned 13.x headers, and 12.x's differ.
const MIN_RUNTIME: i32 = 13000;
/// Oldest NVRTC served: its C API has been ABI-stable since 12.0.
const MIN_NVRTC: i32 = 12000;

const LIB_DIRS: &[&str] = &["lib64", "lib", "targets/x86_64-linux/lib"];
const ROOTS: &[&str] = &["CUDA_PATH", "CUDA_HOME"];

const DRIVER: Search = Search {
    library: "CUDA driver (libcuda)",
    explicit_env: "ANYCUDA_CUDA_LIBRARY",
    sonames: &["libcuda.so.1", "libcuda.so"],
    root_envs: &[],
    lib_dirs: &[],
    default_roots: &[],
};
const RUNTIME: Search = Search {
    library: "CUDA runtime (libcudart)",
    explicit_env: "ANYCUDA_CUDART_LIBRARY",
    sonames: &["libcudart.so.13", "libcudart.so"],
    root_envs: ROOTS,
    lib_dirs: LIB_DIRS,
    default_roots: &["/usr/local/cuda"],
};
const NVRTC: Search = Search {
    library: "NVRTC (libnvrtc)",
    explicit_env: "ANYCUDA_NVRTC_LIBRARY",
    sonames: &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"],
    root_envs: ROOTS,
    lib_dirs: LIB_DIRS,
    default_roots: &["/usr/local/cuda"],
};

fn too_old(library: &'static str, path: String, found: i32, needed: i32) -> LoadError {
    LoadError::TooOld {
        library,
        path,
        found: version_string(found),
        needed: version_string(needed),
    }
}

type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> CUresult;
type GetVersion<R> = unsafe extern "C" fn(*mut c_int) -> R;

/// Loads libcuda and resolves every driver entry point through `cuGetProcAddress`.
pub fn load_driver() -> Result<Loaded<DriverTable>, LoadError> {
    let o = DRIVER.open()?;
    let lib = DRIVER.library;
    let get_version = required(&o, lib, c"cuDriverGetVersion")?;
    let gpa = required(&o, lib, c"cuGetProcAddress_v2")
        .map_err(|_| too_old(lib, o.path.clone(), 0, MIN_DRIVER))?;
    // SAFETY: the symbols have these C signatures in every driver that exports them.
    let (get_version, gpa) = unsafe {
        (
            core::mem::transmute::<*mut c_void, GetVersion<CUresult>>(get_version),
            core::mem::transmute::<*mut c_void, GetProcAddress>(gpa),
        )
    };
    let mut version = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { get_version(&mut version) };
    let path = o.resolved_path(c"cuDriverGetVersion");
    if r != CUresult::CUDA_SUCCESS {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("cuDriverGetVersion: {r}"),
        });
    }
    if version < MIN_DRIVER {
        return Err(too_old(lib, path, version, MIN_DRIVER));
    }
    // SAFETY: cuGetProcAddress at the version the header's PFN typedef names returns exactly
    // that ABI, or fails (null) when the driver is older.
    let table = unsafe {
        DriverTable::load(|f| {
            // cuGetProcAddress takes the base name of the symbol the header maps the name to
            // (cuGraphInstantiate is cuGraphInstantiateWithFlags); the version selects the ABI.
            let Ok(name) = std::ffi::CString::new(base_name(f.symbol)) else {
                return core::ptr::null_mut();
            };
            let mut p = core::ptr::null_mut();
            let mut status = 0;
            let flags = 0; // CU_GET_PROC_ADDRESS_DEFAULT
            let r = gpa(
                name.as_ptr(),
                &mut p,
                f.version as c_int,
                flags,
                &mut status,
            );
            if r == CUresult::CUDA_SUCCESS {
                p
            } else {
                core::ptr::null_mut()
            }
        })
    };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}

/// `cuStreamGetCtx_v2` → `cuStreamGetCtx`: the name `cuGetProcAddress` expects.
fn base_name(name: &str) -> &str {
    match name.rsplit_once("_v") {
        Some((base, v)) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Opens a library whose entry points are plain exported symbols, checks its version, and
/// resolves its table.
fn load_plain<T, R: PartialEq + core::fmt::Display>(
    search: &Search,
    companion_prefix: Option<&str>,
    version_symbol: &CStr,
    success: R,
    min: i32,
    query: impl FnOnce(GetVersion<R>, &mut i32) -> R,
    load: impl FnOnce(&Opened) -> T,
) -> Result<Loaded<T>, LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let f = required(&o, lib, version_symbol)?;
    // SAFETY: the version entry point takes one `int*` (or is adapted by `query`).
    let f = unsafe { core::mem::transmute::<*mut c_void, GetVersion<R>>(f) };
    let mut version = 0;
    let r = query(f, &mut version);
    let path = o.resolved_path(version_symbol);
    if r != success {
        let detail = format!("{}: {r}", version_symbol.to_string_lossy());
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail,
        });
    }
    if version < min {
        return Err(too_old(lib, path, version, min));
    }
    let table = load(&o);
    let companions = companions(&path, companion_prefix);
    Ok(Loaded::new(table, path, version, o, companions))
}

/// Loads libcudart and resolves every runtime entry point by its exact (versioned) symbol.
pub fn load_runtime() -> Result<Loaded<RuntimeTable>, LoadError> {
    load_plain(
        &RUNTIME,
        None,
        c"cudaRuntimeGetVersion",
        cudaError_t::cudaSuccess,
        MIN_RUNTIME,
        // SAFETY: valid out-pointer.
        |f, v| unsafe { f(v) },
        // SAFETY: exported symbols have the pinned headers' signatures (major version checked).
        |o| unsafe { RuntimeTable::load(|f| sym(o, f.symbol)) },
    )
}

/// Loads libnvrtc and resolves every NVRTC entry point.
pub fn load_nvrtc() -> Result<Loaded<NvrtcTable>, LoadError> {
    type Version = unsafe extern "C" fn(*mut c_int, *mut c_int) -> nvrtcResult;
    load_plain(
        &NVRTC,
        Some("libnvrtc-builtins"),
        c"nvrtcVersion",
        nvrtcResult::NVRTC_SUCCESS,
        MIN_NVRTC,
        |f, v| {
            // SAFETY: nvrtcVersion takes (int*, int*); re-type the pointer accordingly.
            let f = unsafe { core::mem::transmute::<GetVersion<nvrtcResult>, Version>(f) };
            let (mut major, mut minor) = (0, 0);
            // SAFETY: valid out-pointers.
            let r = unsafe { f(&mut major, &mut minor) };
            *v = major * 1000 + minor * 10;
            r
        },
        // SAFETY: NVRTC's exported symbols have the pinned header's signatures.
        |o| unsafe { NvrtcTable::load(|f| sym(o, f.symbol)) },
    )
}

/// Opens the companion libraries (`prefix*.so.*`) that sit beside `path`.
///
/// NVRTC opens `libnvrtc-builtins.so.X.Y` by soname at compile time, which fails when NVRTC came
/// from a folder the system loader does not search (a pip wheel, `CUDA_PATH`). Loading the
/// builtins from NVRTC's own folder first makes that soname lookup find them.
fn companions(path: &str, prefix: Option<&str>) -> Vec<Opened> {
    let (Some(prefix), Some(dir)) = (prefix, std::path::Path::new(path).parent()) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with(prefix) && n.contains(".so.") && !n.contains(".alt."))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let p = dir.join(&n).to_string_lossy().into_owned();
            if let Err(why) = anycuda_api::loader::check_library_file(std::path::Path::new(&p)) {
                log::debug!("companion {p}: {why}");
                return None;
            }
            // SAFETY: a vendor library beside the one already loaded.
            match unsafe { libloading::Library::new(&p) } {
                Ok(lib) => Some(Opened { lib, path: p }),
                Err(e) => {
                    log::debug!("companion {p}: {e}");
                    None
                }
            }
        })
        .collect()
}

fn sym(o: &Opened, symbol: &str) -> *mut c_void {
    match std::ffi::CString::new(symbol) {
        Ok(s) => o.sym(&s),
        Err(_) => core::ptr::null_mut(),
    }
}

/// Calls an entry point of a loaded table: `lib_missing` when the library did not load,
/// `fn_missing` when the installed library lacks the function.
macro_rules! call {
    ($lib:expr, $lib_missing:expr, $fn_missing:expr, $f:ident($($a:expr),* $(,)?)) => {
        match &$lib {
            Ok(l) => match l.table.$f {
                Some(f) => f($($a),*),
                None => $fn_missing,
            },
            Err(_) => $lib_missing,
        }
    };
}
pub(crate) use call;

/// `13000` → `13.0`, `12040` → `12.4` (CUDA encodes versions as `1000 * major + 10 * minor`).
pub fn version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// The CUDA backend's rule before cuBLAS loads (its generated loader runs it first): NVIDIA's
/// cuBLAS binds cuBLASLt's internals by version, so NVIDIA's cuBLASLt goes into the global scope
/// first, for when `libcublasLt.so.13` is anycuda's name library
/// (anycuda_api::loader::make_global says why).
pub(crate) fn cublaslt_global() {
    if let Ok(lt) = crate::cublaslt::library() {
        if !anycuda_api::loader::make_global(&lt.path) {
            log::debug!("cuda cublas: {} not made global", lt.path);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base_names_for_cu_get_proc_address() {
        assert_eq!(super::base_name("cuStreamGetCtx_v2"), "cuStreamGetCtx");
        assert_eq!(super::base_name("cuMemAlloc"), "cuMemAlloc");
        assert_eq!(
            super::base_name("cuGraphInstantiateWithParams"),
            "cuGraphInstantiateWithParams"
        );
        assert_eq!(super::base_name("cuFoo_vx"), "cuFoo_vx");
    }
}
