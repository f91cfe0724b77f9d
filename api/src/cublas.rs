//! cuBLAS's vocabulary: types and values of the pinned `cublas_api.h`, the function catalogue,
//! the function-pointer table, the [`Cublas`] trait, errors, library search and the "why not
//! supported" record.
//!
//! The catalogue holds every function `cublas_api.h` declares, under the names libcublas
//! exports: the `_v2` names (`cublasCreate_v2`; `cublas_v2.h` maps the plain names onto them
//! with macros) and the functions that never had a legacy twin (`cublasGemmEx`,
//! `cublasSgemmStridedBatched`, the `_64` variants). The legacy API of `cublas.h` (handle-less
//! `cublasSgemm(char, ...)`) is not part of it. The public values are always cuBLAS's.
//!
//! hipBLAS (AMD's counterpart) names its functions alike (`cublasSgemm_v2` <-> `hipblasSgemm`)
//! but numbers most values differently (statuses: only 0, 1 and 8 agree; `CUBLAS_OP_N` is 0,
//! `HIPBLAS_OP_N` 111). The table is loaded from either ([`Flavor`]); the HIP backend translates
//! hipBLAS's values at the boundary, and [`HIPBLAS_DECLARED`] lists what it serves.

use crate::error::LoadError;
use crate::loader::{required, Loaded, Opened, Search};
use core::ffi::c_int;
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

/// What a translating backend answers for an enum argument it cannot pass on: cuBLAS's
/// `CUBLAS_STATUS_INVALID_VALUE` for a value cuBLAS itself does not declare (`declared` false),
/// else `CUBLAS_STATUS_NOT_SUPPORTED` with `why` (a value cuBLAS knows and the other library
/// has no counterpart of).
pub fn no_counterpart(declared: bool, why: &'static str) -> cublasStatus_t {
    if declared {
        refuse(why)
    } else {
        cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    }
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> cublasStatus_t {
    refuse("the loaded BLAS library lacks this entry point")
}

/// Why the calling thread's last cuBLAS call answered `code`, when `code` is
/// [`cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED`] and anycuda gave that answer (an entry point
/// the loaded library lacks, no library at all). `None` for any other code, or when no call on
/// this thread was refused by anycuda (cuBLAS itself answers `CUBLAS_STATUS_NOT_SUPPORTED` too).
/// On the HIP backend: a function hipBLAS lacks or declares with another ABI, a value it has no
/// counterpart of, or `cublasGetVersion_v2`/`cublasGetProperty` (hipBLAS has no version query).
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

/// hipBLAS: `libhipblas.so.0` (0.x/1.x, ROCm 5), `.so.2` (2.x, ROCm 6), `.so.3` (3.x, ROCm 7),
/// then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`; `ANYCUDA_HIPBLAS_LIBRARY` (an exact file)
/// overrides all of that. On HIP's NVIDIA platform the same names find hipBLAS's NVIDIA build.
pub const HIPBLAS_SEARCH: Search = Search {
    library: "hipBLAS (libhipblas)",
    explicit_env: "ANYCUDA_HIPBLAS_LIBRARY",
    sonames: &[
        "libhipblas.so.3",
        "libhipblas.so.2",
        "libhipblas.so.0",
        "libhipblas.so",
    ],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Which library a table is loaded from: the symbols differ by prefix, the C ABI of each
/// served pair does not (checked by the codegen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// NVIDIA's cuBLAS: `cublasX` as the catalogue names it.
    Cublas,
    /// AMD's hipBLAS (or its NVIDIA build): the twins of [`HIPBLAS_DECLARED`].
    Hipblas,
}

/// How a loaded library takes the data and compute types of its mixed-precision functions
/// (the GEMM-Ex family, `AxpyEx`, `DotEx`, ...; [`HIPBLAS_NEW_TYPES`]).
///
/// hipBLAS changed these signatures twice and has no run-time version query, so the ABI is
/// read from what the library exports, at load ([`hipblas_abi`]):
/// - `hipblasGemmEx_v2` exported: hipBLAS 1.x/2.x, whose `hipblasXEx_v2` functions take
///   `hipDataType` (CUDA's values) and `hipblasComputeType_t` (their plain names keep the old
///   `hipblasDatatype_t`, deprecated): [`Abi::HipblasV2`], the `_v2` symbols are called;
/// - no `_v2`, but `hipblasSgemm_64` exported: hipBLAS 3.x, which removed the `_v2` names and
///   takes the new types under the plain names (the 64-bit API appeared in 2.1, so a library
///   with it and without `_v2` is 3.x or later): [`Abi::HipblasV3`];
/// - neither: hipBLAS 0.x (ROCm 5.x), `hipblasDatatype_t` (150..) for data and compute types
///   alike: [`Abi::HipblasDatatype`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    /// cuBLAS: its own types.
    Cublas,
    /// hipBLAS 0.x: `hipblasDatatype_t` for data and compute types.
    HipblasDatatype,
    /// hipBLAS 1.x/2.x: `hipDataType` and `hipblasComputeType_t` through `hipblasXEx_v2`.
    HipblasV2,
    /// hipBLAS 3.x: `hipDataType` and `hipblasComputeType_t` under the plain names.
    HipblasV3,
}

impl Abi {
    /// Whether data types are CUDA's values (`hipDataType`) and compute types
    /// `hipblasComputeType_t`, rather than `hipblasDatatype_t` for both.
    pub fn new_types(self) -> bool {
        matches!(self, Abi::Cublas | Abi::HipblasV2 | Abi::HipblasV3)
    }
    /// How `anycuda info` names it.
    pub fn describe(self) -> &'static str {
        match self {
            Abi::Cublas => "cuBLAS",
            Abi::HipblasDatatype => "hipBLAS 0.x ABI (hipblasDatatype_t)",
            Abi::HipblasV2 => "hipBLAS 1.x/2.x ABI (hipDataType through the _v2 symbols)",
            Abi::HipblasV3 => "hipBLAS 3.x ABI (hipDataType under the plain names)",
        }
    }
}

/// The ABI of an opened hipBLAS, from its exports (see [`Abi`]).
pub fn hipblas_abi(o: &Opened) -> Abi {
    if !o.sym(c"hipblasGemmEx_v2").is_null() {
        Abi::HipblasV2
    } else if !o.sym(c"hipblasSgemm_64").is_null() {
        Abi::HipblasV3
    } else {
        Abi::HipblasDatatype
    }
}

/// A cuBLAS version code as people write it: `131000` -> `13.10.0` (`CUBLAS_VERSION` is
/// major * 10000 + minor * 100 + patch).
pub fn version_string(code: i32) -> String {
    format!("{}.{}.{}", code / 10_000, (code / 100) % 100, code % 100)
}

/// Opens cuBLAS or hipBLAS and resolves every entry point of the catalogue by name:
/// `cublasX` for cuBLAS; for hipBLAS the twin of [`HIPBLAS_DECLARED`] (its `_v2` symbol for
/// [`HIPBLAS_NEW_TYPES`] on [`Abi::HipblasV2`]), none for the rest. cuBLAS's version is asked
/// (`cublasGetVersion_v2` with a null handle, which needs no GPU); hipBLAS has no version
/// query, so its version is reported as 0 and `hipblasCreate` is the symbol that must exist.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the probe symbol, or [`LoadError::VersionQuery`].
pub fn load(search: &Search, flavor: Flavor) -> Result<(Loaded<CublasTable>, Abi), LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let (probe, abi, version) = match flavor {
        Flavor::Cublas => {
            let probe = c"cublasGetVersion_v2";
            let gv = required(&o, lib, probe)?;
            // SAFETY: cublasGetVersion_v2(cublasHandle_t, int*) -> cublasStatus_t (a C int) in
            // every cuBLAS with the v2 API; the handle is not read (NVIDIA documents a null one
            // as fine).
            let gv: unsafe extern "C" fn(cublasHandle_t, *mut c_int) -> cublasStatus_t =
                unsafe { core::mem::transmute(gv) };
            let mut version = 0;
            // SAFETY: valid out-pointer; a null handle, which cublasGetVersion_v2 accepts.
            let r = unsafe { gv(core::ptr::null_mut(), &mut version) };
            if r.0 != 0 {
                return Err(LoadError::VersionQuery {
                    library: lib,
                    path: o.resolved_path(probe),
                    detail: format!("cublasGetVersion_v2: status {}", r.0),
                });
            }
            (probe, Abi::Cublas, version)
        }
        Flavor::Hipblas => {
            let probe = c"hipblasCreate";
            required(&o, lib, probe)?;
            (probe, hipblas_abi(&o), 0)
        }
    };
    let path = o.resolved_path(probe);
    // SAFETY: each symbol is resolved by the name its header declares; for hipBLAS only the
    // twins whose ABI the codegen checked against cuBLAS's (argument by argument), and the `_v2`
    // twin of a data-type function exactly where the ABI says it takes the new types.
    let table = unsafe {
        CublasTable::load(|f| {
            let sym = match flavor {
                Flavor::Cublas => Some(f.symbol.to_string()),
                Flavor::Hipblas => {
                    HIPBLAS_DECLARED
                        .iter()
                        .find(|(c, _)| *c == f.name)
                        .map(|(c, h)| {
                            if abi == Abi::HipblasV2 && HIPBLAS_NEW_TYPES.contains(c) {
                                format!("{h}_v2")
                            } else {
                                h.to_string()
                            }
                        })
                }
            };
            match sym.and_then(|s| std::ffi::CString::new(s).ok()) {
                Some(n) => o.sym(&n),
                None => core::ptr::null_mut(),
            }
        })
    };
    Ok((Loaded::new(table, path, version, o, Vec::new()), abi))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned libcublas (CUDA_PATH) loads without a GPU, reports a 13.x version and exports
    /// every function of the pinned header; a null handle is refused before the library sees it.
    #[test]
    fn pinned_cublas_loads_and_resolves_everything() {
        let l = match load(&CUBLAS_SEARCH, Flavor::Cublas) {
            Ok((l, abi)) => {
                assert_eq!(abi, Abi::Cublas);
                l
            }
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
