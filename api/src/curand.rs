//! cuRAND's vocabulary: types and values of the pinned `curand.h`, the function catalogue, the
//! function-pointer table both backends load, the [`Curand`] trait, errors, library search and
//! the "why not supported" record.
//!
//! cuRAND (NVIDIA) and hipRAND (AMD's counterpart) name things alike (`curandX`/`hiprandX`,
//! `CURAND_X`/`HIPRAND_X`); their numbers differ in places (`CURAND_RNG_PSEUDO_DEFAULT` is 100,
//! `HIPRAND_RNG_PSEUDO_DEFAULT` 400) and hipRAND has a status cuRAND lacks
//! (`HIPRAND_STATUS_NOT_IMPLEMENTED`, hallucinated here as
//! [`curandStatus_t::CURAND_STATUS_HIPRAND_NOT_IMPLEMENTED`]). The public values are always
//! cuRAND's: the HIP backend translates hipRAND's at the boundary.

use crate::enums::CudaEnum;
use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::c_int;
use std::cell::Cell;

#[path = "generated/curand.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/curand_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// `libraryPropertyType` (`curandGetProperty`'s argument) is the runtime's: one type for both.
pub use crate::runtime::libraryPropertyType;

thread_local! {
    /// The last not-supported answer on this thread and why it was given.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Records why a call answers [`curandStatus_t::CURAND_STATUS_NOT_SUPPORTED`] (logged, and
/// returned by [`not_supported_reason`] on this thread), and returns that status.
pub fn refuse(why: &'static str) -> curandStatus_t {
    log::warn!("anycuda cuRAND: {why}");
    LAST.with(|l| l.set(Some(why)));
    curandStatus_t::CURAND_STATUS_NOT_SUPPORTED
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> curandStatus_t {
    refuse("the loaded random-number library lacks this entry point")
}

/// Why the calling thread's last cuRAND call answered `code`, when `code` is
/// [`curandStatus_t::CURAND_STATUS_NOT_SUPPORTED`] and anycuda gave that answer (a function
/// hipRAND lacks, an entry point the loaded library lacks, no library at all). `None` for any
/// other code, or when no call on this thread was refused.
pub fn not_supported_reason(code: curandStatus_t) -> Option<&'static str> {
    if code != curandStatus_t::CURAND_STATUS_NOT_SUPPORTED {
        return None;
    }
    LAST.with(Cell::get)
}

/// cuRAND: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_CURAND_LIBRARY` (an exact file) overrides all of that.
pub const CURAND_SEARCH: Search = Search {
    library: "cuRAND (libcurand)",
    explicit_env: "ANYCUDA_CURAND_LIBRARY",
    sonames: &["libcurand.so.10"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// hipRAND: the soname, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`; `ANYCUDA_HIPRAND_LIBRARY`
/// (an exact file) overrides all of that.
pub const HIPRAND_SEARCH: Search = Search {
    library: "hipRAND (libhiprand)",
    explicit_env: "ANYCUDA_HIPRAND_LIBRARY",
    sonames: &["libhiprand.so.1", "libhiprand.so"],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Which library a table is loaded from: the symbols differ by prefix, the ABI does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// NVIDIA's cuRAND: `curandX`.
    Curand,
    /// AMD's hipRAND: `hiprandX` for the functions in [`HIPRAND_DECLARED`].
    Hiprand,
}

/// A version code as people write it: cuRAND `10405` -> `10.4.5`; hipRAND `201009` ->
/// `2.10.9`. hipRAND's NVIDIA build reports cuRAND's version (below 100000), written as such.
pub fn version_string(flavor: Flavor, code: i32) -> String {
    match flavor {
        Flavor::Hiprand if code >= 100_000 => {
            format!("{}.{}.{}", code / 100_000, (code / 100) % 1000, code % 100)
        }
        _ => format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100),
    }
}

/// Opens cuRAND or hipRAND, asks its version (`curandGetVersion`/`hiprandGetVersion`, which
/// need no GPU) and resolves every entry point of the catalogue by name (`curandX` for cuRAND,
/// the hipRAND twin of [`HIPRAND_DECLARED`] for hipRAND, none for the rest).
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the version query, or [`LoadError::VersionQuery`].
pub fn load(search: &Search, flavor: Flavor) -> Result<Loaded<CurandTable>, LoadError> {
    let companions = match flavor {
        Flavor::Hiprand => crate::loader::companion_beside(search, &["librocrand.so.1"]),
        Flavor::Curand => Vec::new(),
    };
    let o = search.open()?;
    let lib = search.library;
    let probe = match flavor {
        Flavor::Curand => c"curandGetVersion",
        Flavor::Hiprand => c"hiprandGetVersion",
    };
    let gv = required(&o, lib, probe)?;
    // SAFETY: curandGetVersion(int*) and hiprandGetVersion(int*) return a C-int status in every
    // release of either library.
    let gv: unsafe extern "C" fn(*mut c_int) -> curandStatus_t =
        unsafe { core::mem::transmute(gv) };
    let mut version = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { gv(&mut version) };
    let path = o.resolved_path(probe);
    if r.0 != 0 {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("{}: status {}", probe.to_string_lossy(), r.0),
        });
    }
    // SAFETY: each symbol is resolved by the name its header declares; cuRAND's and hipRAND's C
    // ABI for a function pair is the same (handles are pointers, enums C ints, the rest the
    // same scalar and pointer types), and the HIP backend translates the values.
    let table = unsafe {
        CurandTable::load(|f| {
            let sym = match flavor {
                Flavor::Curand => Some(f.symbol),
                Flavor::Hiprand => HIPRAND_DECLARED
                    .iter()
                    .find(|(c, _)| *c == f.name)
                    .map(|(_, h)| *h),
            };
            match sym.and_then(|s| std::ffi::CString::new(s).ok()) {
                Some(n) => o.sym(&n),
                None => core::ptr::null_mut(),
            }
        })
    };
    Ok(Loaded::new(table, path, version, o, companions))
}
