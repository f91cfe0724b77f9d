//! cuSPARSE's vocabulary: types and values of the pinned `cusparse.h`, the function catalogue,
//! the function-pointer table, the [`Cusparse`] trait, errors, library search and the "why not
//! supported" record.
//!
//! The catalogue holds every function `cusparse.h` declares, under the names libcusparse
//! exports. The public values are always cuSPARSE's.
//!
//! hipSPARSE (AMD's counterpart) names its functions alike (`cusparseSpMV` <->
//! `hipsparseSpMV`) but numbers some values differently (`CUSPARSE_OPERATION_NON_TRANSPOSE` is
//! 0, `HIPSPARSE_OPERATION_NON_TRANSPOSE` 111). The table is loaded from either ([`Flavor`]);
//! the HIP backend translates hipSPARSE's values at the boundary, and [`HIPSPARSE_DECLARED`]
//! lists what it serves.

use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::c_int;
use std::cell::Cell;

#[path = "generated/cusparse.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/cusparse_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// Types `cusparse.h` takes from `library_types.h` are the runtime's: one type for both.
pub use crate::runtime::{cudaDataType, cudaDataType_t, libraryPropertyType};

thread_local! {
    /// The last not-supported answer on this thread and why it was given.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Records why a call answers [`cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED`] (logged, and
/// returned by [`not_supported_reason`] on this thread), and returns that status.
pub fn refuse(why: &'static str) -> cusparseStatus_t {
    log::warn!("anycuda cuSPARSE: {why}");
    LAST.with(|l| l.set(Some(why)));
    cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED
}

/// What a translating backend answers for an enum argument it cannot pass on: cuSPARSE's
/// `CUSPARSE_STATUS_INVALID_VALUE` for a value cuSPARSE itself does not declare (`declared`
/// false), else `CUSPARSE_STATUS_NOT_SUPPORTED` with `why` (a value cuSPARSE knows and the
/// other library has no counterpart of).
pub fn no_counterpart(declared: bool, why: &'static str) -> cusparseStatus_t {
    if declared {
        refuse(why)
    } else {
        cusparseStatus_t::CUSPARSE_STATUS_INVALID_VALUE
    }
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> cusparseStatus_t {
    refuse("the loaded sparse library lacks this entry point")
}

/// Why the calling thread's last cuSPARSE call answered `code`, when `code` is
/// [`cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED`] and anycuda gave that answer (an entry
/// point the loaded library lacks, no library at all). `None` for any other code, or when no
/// call on this thread was refused by anycuda (cuSPARSE itself answers
/// `CUSPARSE_STATUS_NOT_SUPPORTED` too). On the HIP backend: a function hipSPARSE lacks or
/// declares with another ABI, a value it has no counterpart of, or `cusparseGetVersion`.
pub fn not_supported_reason(code: cusparseStatus_t) -> Option<&'static str> {
    if code != cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED {
        return None;
    }
    LAST.with(Cell::get)
}

/// cuSPARSE: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_CUSPARSE_LIBRARY` (an exact file) overrides all of that.
pub const CUSPARSE_SEARCH: Search = Search {
    library: "cuSPARSE (libcusparse)",
    explicit_env: "ANYCUDA_CUSPARSE_LIBRARY",
    sonames: &["libcusparse.so.12"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// hipSPARSE: `libhipsparse.so.4` (ROCm 7), `.so.1` (ROCm 6), `.so.0` (ROCm 5), then
/// `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`; `ANYCUDA_HIPSPARSE_LIBRARY` (an exact file)
/// overrides all of that. On HIP's NVIDIA platform the same names find hipSPARSE's NVIDIA build.
pub const HIPSPARSE_SEARCH: Search = Search {
    library: "hipSPARSE (libhipsparse)",
    explicit_env: "ANYCUDA_HIPSPARSE_LIBRARY",
    sonames: &[
        "libhipsparse.so.4",
        "libhipsparse.so.1",
        "libhipsparse.so.0",
        "libhipsparse.so",
    ],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Which library a table is loaded from: the symbols differ by prefix, the C ABI of each
/// served pair does not (checked by the codegen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// NVIDIA's cuSPARSE: `cusparseX` as the catalogue names it.
    Cusparse,
    /// AMD's hipSPARSE (or its NVIDIA build): the twins of [`HIPSPARSE_DECLARED`].
    Hipsparse,
}

/// A cuSPARSE version code as people write it: `12904` -> `12.9.4` (`CUSPARSE_VERSION` is
/// major * 1000 + minor * 100 + patch).
pub fn version_string(code: i32) -> String {
    format!("{}.{}.{}", code / 1000, (code / 100) % 10, code % 100)
}

/// rocSPARSE's sonames, the companion hipSPARSE needs.
const ROCSPARSE: [&str; 3] = [
    "librocsparse.so.0",
    "librocsparse.so.1",
    "librocsparse.so.4",
];

/// Opens cuSPARSE or hipSPARSE and resolves every entry point of the catalogue by name:
/// `cusparseX` for cuSPARSE; for hipSPARSE the twin of [`HIPSPARSE_DECLARED`], none for the
/// rest. cuSPARSE's version is asked (`cusparseGetProperty`, which needs no GPU); hipSPARSE's
/// is reported as 0 (anycuda does not present hipSPARSE's version as cuSPARSE's) and
/// `hipsparseCreate` is the symbol that must exist.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the probe symbol, or [`LoadError::VersionQuery`].
pub fn load(search: &Search, flavor: Flavor) -> Result<Loaded<CusparseTable>, LoadError> {
    let companions = match flavor {
        // rocSPARSE: ROCm 5's soname, then ROCm 6's and 7's.
        Flavor::Hipsparse => crate::loader::companion_beside(search, &ROCSPARSE),
        Flavor::Cusparse => Vec::new(),
    };
    let o = search.open()?;
    let lib = search.library;
    let (probe, version) = match flavor {
        Flavor::Cusparse => {
            let probe = c"cusparseGetProperty";
            let gp = required(&o, lib, probe)?;
            // SAFETY: cusparseGetProperty(libraryPropertyType, int*) -> cusparseStatus_t (C
            // ints) in every cuSPARSE since CUDA 8; it reads no device state.
            let gp: unsafe extern "C" fn(libraryPropertyType, *mut c_int) -> cusparseStatus_t =
                unsafe { core::mem::transmute(gp) };
            let mut parts = [0; 3];
            for (i, p) in parts.iter_mut().enumerate() {
                // SAFETY: a valid out-pointer; MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL.
                let r = unsafe { gp(libraryPropertyType(i as _), p) };
                if r.0 != 0 {
                    return Err(LoadError::VersionQuery {
                        library: lib,
                        path: o.resolved_path(probe),
                        detail: format!("cusparseGetProperty({i}): status {}", r.0),
                    });
                }
            }
            (probe, parts[0] * 1000 + parts[1] * 100 + parts[2])
        }
        Flavor::Hipsparse => {
            let probe = c"hipsparseCreate";
            required(&o, lib, probe)?;
            (probe, 0)
        }
    };
    let path = o.resolved_path(probe);
    // SAFETY: each symbol is resolved by the name its header declares; for hipSPARSE only the
    // twins whose ABI the codegen checked against cuSPARSE's, argument by argument.
    let table = unsafe {
        CusparseTable::load(|f| {
            let sym = match flavor {
                Flavor::Cusparse => Some(f.symbol),
                Flavor::Hipsparse => HIPSPARSE_DECLARED
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned libcusparse (CUDA_PATH) loads without a GPU, reports a 12.x version and
    /// exports every function of the pinned header but the 37 it no longer exports (the C ABI
    /// leaves the same ones out; tests/cusparse_raw.rs names them).
    #[test]
    fn pinned_cusparse_loads_and_resolves_everything() {
        let l = match load(&CUSPARSE_SEARCH, Flavor::Cusparse) {
            Ok(l) => l,
            Err(e) if std::env::var_os("CI").is_none() => {
                eprintln!("skipped (set CI=true to fail instead): {e}");
                return;
            }
            Err(e) => panic!("cuSPARSE did not load: {e}"),
        };
        assert_eq!(l.version / 1000, 12, "{}", version_string(l.version));
        assert_eq!(l.table.loaded_count(), CUSPARSE_FUNCTIONS.len() - 37);
    }

    #[test]
    fn version_strings() {
        assert_eq!(version_string(12904), "12.9.4");
        assert_eq!(version_string(12010), "12.0.10");
    }
}
