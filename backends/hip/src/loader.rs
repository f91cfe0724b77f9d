//! Finding AMD's libraries and resolving their entry points once.
//!
//! The files it opens are trusted: see `anycuda_api::loader` ("Trust").

use crate::generated::table::{HipTable, HiprtcTable};
use crate::hip_types::{hipError_t, hiprtcResult};
use anycuda_api::error::LoadError;
use anycuda_api::loader::{required, Loaded, Opened, Search};
use core::ffi::{c_int, c_void, CStr};

/// HIP versions are `major * 10_000_000 + minor * 100_000 + patch`; anything smaller is a CUDA
/// version, which is what HIP's NVIDIA platform reports.
pub const FIRST_HIP_VERSION_ENCODING: i32 = 10_000_000;
/// Oldest HIP served: 5.2, the oldest version whose headers the tables were generated from.
const MIN_HIP: i32 = 50_200_000;

const ROOTS: &[&str] = &["ROCM_PATH", "HIP_PATH"];
const LIB_DIRS: &[&str] = &["lib", "lib64"];

const HIP: Search = Search {
    library: "HIP runtime (libamdhip64)",
    explicit_env: "ANYCUDA_HIP_LIBRARY",
    sonames: &[
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
        "libamdhip64.so",
    ],
    root_envs: ROOTS,
    lib_dirs: LIB_DIRS,
    default_roots: &["/opt/rocm"],
};
const HIPRTC: Search = Search {
    library: "hipRTC (libhiprtc)",
    explicit_env: "ANYCUDA_HIPRTC_LIBRARY",
    sonames: &["libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so"],
    root_envs: ROOTS,
    lib_dirs: LIB_DIRS,
    default_roots: &["/opt/rocm"],
};

/// Loads libamdhip64, checks its version and resolves every `hip*` entry point by name.
pub fn load_hip() -> Result<Loaded<HipTable>, LoadError> {
    let o = HIP.open()?;
    let lib = HIP.library;
    for s in [c"hipInit", c"hipGetDeviceCount"] {
        required(&o, lib, s)?;
    }
    let f = required(&o, lib, c"hipRuntimeGetVersion")?;
    // SAFETY: hipRuntimeGetVersion(int*) in every HIP version.
    let f = unsafe {
        core::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_int) -> hipError_t>(f)
    };
    let mut version = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { f(&mut version) };
    let path = o.resolved_path(c"hipRuntimeGetVersion");
    if r != 0 {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("hipRuntimeGetVersion returned HIP error {r}"),
        });
    }
    if (FIRST_HIP_VERSION_ENCODING..MIN_HIP).contains(&version) {
        return Err(LoadError::TooOld {
            library: lib,
            path,
            found: version_string(version),
            needed: version_string(MIN_HIP),
        });
    }
    // SAFETY: exported symbols have the generated signatures; fields whose ABI changed between
    // versions are separate, and the backend calls only the one matching `version`.
    let table = unsafe { HipTable::load(|name| o.sym(name)) };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}

/// Loads hipRTC: from libamdhip64 itself when it exports `hiprtcCreateProgram` (ROCm 5.x and
/// HIP's NVIDIA platform), else from the separate libhiprtc (ROCm 6+).
pub fn load_hiprtc(
    hip: &Result<Loaded<HipTable>, LoadError>,
) -> Result<Loaded<HiprtcTable>, LoadError> {
    let hip = hip.as_ref().map_err(Clone::clone)?;
    // An explicit ANYCUDA_HIPRTC_LIBRARY wins, even where libamdhip64 exports hipRTC too
    // (Debian's HIP 6.4 does).
    let explicit = std::env::var_os(HIPRTC.explicit_env).is_some();
    let inside = (!explicit)
        .then(|| reopen(&hip.path))
        .flatten()
        .filter(|o| !o.sym(c"hiprtcCreateProgram").is_null());
    let o = match inside {
        Some(o) => o,
        None => HIPRTC.open()?,
    };
    let lib = HIPRTC.library;
    required(&o, lib, c"hiprtcCreateProgram")?;
    let f = required(&o, lib, c"hiprtcVersion")?;
    // SAFETY: hiprtcVersion(int*, int*) in every HIP version.
    let f = unsafe {
        core::mem::transmute::<
            *mut c_void,
            unsafe extern "C" fn(*mut c_int, *mut c_int) -> hiprtcResult,
        >(f)
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let r = unsafe { f(&mut major, &mut minor) };
    let path = o.resolved_path(c"hiprtcCreateProgram");
    if r != 0 {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("hiprtcVersion returned {r}"),
        });
    }
    // SAFETY: exported symbols have the generated signatures.
    let table = unsafe { HiprtcTable::load(|name: &CStr| o.sym(name)) };
    Ok(Loaded::new(
        table,
        path,
        major * 1000 + minor,
        o,
        Vec::new(),
    ))
}

/// A second handle to an already loaded file (refcounted by the dynamic loader).
fn reopen(path: &str) -> Option<Opened> {
    // SAFETY: the file is already loaded; this only takes another reference.
    match unsafe { libloading::Library::new(path) } {
        Ok(lib) => Some(Opened {
            lib,
            path: path.to_string(),
        }),
        Err(e) => {
            log::debug!("reopening {path}: {e}");
            None
        }
    }
}

/// Calls an entry point of a loaded table: `lib_missing` when the library did not load,
/// `fn_missing` when the installed library lacks the function; the HIP result goes through
/// `map` into the CUDA vocabulary.
macro_rules! call {
    ($lib:expr, $lib_missing:expr, $fn_missing:expr, $map:expr, $f:ident($($a:expr),* $(,)?)) => {
        match &$lib {
            Ok(l) => match l.table.$f {
                Some(f) => $map(f($($a),*)),
                None => $fn_missing,
            },
            Err(_) => $lib_missing,
        }
    };
}
pub(crate) use call;

/// `50221153` → `5.2.21153` (HIP encodes `major * 10_000_000 + minor * 100_000 + patch`); a
/// CUDA version (HIP's NVIDIA platform) is shown as CUDA writes it.
pub fn version_string(v: i32) -> String {
    if v < FIRST_HIP_VERSION_ENCODING {
        return format!("CUDA {}.{}", v / 1000, (v % 1000) / 10);
    }
    format!("{}.{}.{}", v / 10_000_000, (v / 100_000) % 100, v % 100_000)
}
