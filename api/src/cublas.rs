//! cuBLAS's vocabulary: types and values of the pinned `cublas_api.h`, the function catalogue,
//! the function-pointer table, the [`Cublas`] trait, errors, library search and the "why not
//! supported" record.
//!
//! The catalogue holds every function `cublas_api.h` declares, under the names libcublas
//! exports: the `_v2` names (`cublasCreate_v2`; `cublas_v2.h` maps the plain names onto them
//! with macros) and the functions that never had a legacy twin (`cublasGemmEx`,
//! `cublasSgemmStridedBatched`, the `_64` variants). The legacy API of `cublas.h` (handle-less
//! `cublasSgemm(char, ...)`) is not part of it. The public values are always cuBLAS's.

use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::c_int;
use core::fmt;
use std::cell::Cell;

#[path = "generated/cublas.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/cublas_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// Types `cublas_api.h` takes from `library_types.h` are the runtime's: one type for both.
pub use crate::runtime::{
    cudaDataType, cudaDataType_t, cudaEmulationMantissaControl, cudaEmulationSpecialValuesSupport,
    libraryPropertyType,
};

/// `cublasDataType_t`: `cublas_api.h`'s name for the runtime's `cudaDataType`.
#[allow(non_camel_case_types)]
pub type cublasDataType_t = cudaDataType;

/// A failed cuBLAS call (`cublasStatus_t` other than `CUBLAS_STATUS_SUCCESS`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CublasError(pub cublasStatus_t);

impl CublasError {
    /// The code carried by this error.
    pub fn code(self) -> cublasStatus_t {
        self.0
    }
}

impl fmt::Display for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::enums::CudaEnum;
        let v = self.0.to_i64();
        match self.0.info() {
            Some(c) if c.description.is_empty() => write!(f, "{} ({v})", c.name),
            Some(c) => write!(f, "{} ({v}): {}", c.name, c.description),
            None => write!(f, "cublasStatus_t({v}): unknown status"),
        }
    }
}
impl fmt::Debug for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CublasError({:?})", self.0)
    }
}
impl std::error::Error for CublasError {}

impl cublasStatus_t {
    /// `Ok(())` for `CUBLAS_STATUS_SUCCESS`, else the error.
    ///
    /// # Errors
    /// Every status but `CUBLAS_STATUS_SUCCESS`.
    #[inline]
    pub fn result(self) -> Result<(), CublasError> {
        if self == Self::CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(CublasError(self))
        }
    }
}

thread_local! {
    /// The last not-supported answer on this thread and why it was given.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Records why a call answers [`cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED`] (logged, and
/// returned by [`not_supported_reason`] on this thread), and returns that status.
pub fn refuse(why: &'static str) -> cublasStatus_t {
    log::warn!("anycuda cuBLAS: {why}");
    LAST.with(|l| l.set(Some(why)));
    cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> cublasStatus_t {
    refuse("the loaded BLAS library lacks this entry point")
}

/// Why the calling thread's last cuBLAS call answered `code`, when `code` is
/// [`cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED`] and anycuda gave that answer (an entry point
/// the loaded library lacks, no library at all). `None` for any other code, or when no call on
/// this thread was refused by anycuda (cuBLAS itself answers `CUBLAS_STATUS_NOT_SUPPORTED` too).
pub fn not_supported_reason(code: cublasStatus_t) -> Option<&'static str> {
    if code != cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED {
        return None;
    }
    LAST.with(Cell::get)
}

/// cuBLAS: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_CUBLAS_LIBRARY` (an exact file) overrides all of that. libcublas needs
/// libcublasLt, which the dynamic loader finds beside it through libcublas's own search
/// (`$ORIGIN` in the PyPI wheel and the toolkit).
pub const CUBLAS_SEARCH: Search = Search {
    library: "cuBLAS (libcublas)",
    explicit_env: "ANYCUDA_CUBLAS_LIBRARY",
    sonames: &["libcublas.so.13"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// A cuBLAS version code as people write it: `131000` -> `13.10.0` (`CUBLAS_VERSION` is
/// major * 10000 + minor * 100 + patch).
pub fn version_string(code: i32) -> String {
    format!("{}.{}.{}", code / 10_000, (code / 100) % 100, code % 100)
}

/// Opens cuBLAS, asks its version (`cublasGetVersion_v2` with a null handle, which needs no
/// GPU) and resolves every entry point of the catalogue by name.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the version query, or [`LoadError::VersionQuery`].
pub fn load(search: &Search) -> Result<Loaded<CublasTable>, LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let probe = c"cublasGetVersion_v2";
    let gv = required(&o, lib, probe)?;
    // SAFETY: cublasGetVersion_v2(cublasHandle_t, int*) -> cublasStatus_t (a C int) in every
    // cuBLAS with the v2 API; the handle is not read (NVIDIA documents a null one as fine).
    let gv: unsafe extern "C" fn(cublasHandle_t, *mut c_int) -> cublasStatus_t =
        unsafe { core::mem::transmute(gv) };
    let mut version = 0;
    // SAFETY: valid out-pointer; a null handle, which cublasGetVersion_v2 accepts.
    let r = unsafe { gv(core::ptr::null_mut(), &mut version) };
    let path = o.resolved_path(probe);
    if r.0 != 0 {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("cublasGetVersion_v2: status {}", r.0),
        });
    }
    // SAFETY: each symbol is resolved by the name the pinned cublas_api.h declares it under,
    // with that declaration's ABI.
    let table = unsafe {
        CublasTable::load(|f| match std::ffi::CString::new(f.symbol) {
            Ok(n) => o.sym(&n),
            Err(_) => core::ptr::null_mut(),
        })
    };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned libcublas (CUDA_PATH) loads without a GPU, reports a 13.x version and exports
    /// every function of the pinned header; a null handle is refused before the library sees it.
    #[test]
    fn pinned_cublas_loads_and_resolves_everything() {
        let l = match load(&CUBLAS_SEARCH) {
            Ok(l) => l,
            Err(e) if std::env::var_os("CI").is_none() => {
                eprintln!("skipped (set CI=true to fail instead): {e}");
                return;
            }
            Err(e) => panic!("cuBLAS did not load: {e}"),
        };
        assert_eq!(l.version / 10_000, 13, "{}", version_string(l.version));
        assert_eq!(l.table.loaded_count(), CUBLAS_FUNCTIONS.len());
        let mut s: cudaStream_t = core::ptr::null_mut();
        // SAFETY: a valid out-pointer; the null handle is answered by anycuda's guard.
        let r = unsafe { l.table.cublasGetStream_v2(core::ptr::null_mut(), &mut s) };
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    }
}
