//! cuBLASLt's vocabulary: types and values of the pinned `cublasLt.h`, the function catalogue,
//! the function-pointer table both backends load, the [`CublasLt`] trait and library search.
//!
//! cuBLASLt returns `cublasStatus_t`: its errors are cuBLAS's ([`CublasError`], through
//! [`cublasStatus_t::result`]), and so is the "why not supported" record
//! ([`not_supported_reason`]). The types `cublasLt.h` takes from `cublas_api.h` and
//! `library_types.h` (`cublasStatus_t`, `cublasComputeType_t`, `cublasOperation_t`,
//! `cudaDataType`) are [`crate::cublas`]'s: one Rust type per C type.
//!
//! cuBLASLt (NVIDIA) and hipBLASLt (AMD's counterpart) name things alike
//! (`cublasLtX`/`hipblasLtX`, `CUBLASLT_X`/`HIPBLASLT_X`); their numbers differ (the attribute
//! ids, statuses, compute types, operations) and so do their structs (`cublasLtMatmulAlgo_t` is
//! 64 bytes, hipBLASLt's 24). The public values are always cuBLASLt's: the HIP backend translates
//! at the boundary.

use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};

#[path = "generated/cublaslt.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/cublaslt_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// cuBLASLt's errors and refusals are cuBLAS's: one status type, one error type, one record.
pub use crate::cublas::{not_supported_reason, refuse, CublasError};

/// C's `FILE` (the stream `cublasLtLoggerSetFile` logs to), opaque: anycuda passes the pointer
/// through and never looks inside; obtain one from the C library (`fopen`, `fdopen`).
#[repr(C)]
pub struct FILE {
    _opaque: [u8; 0],
    // Neither `Send`, `Sync` nor `Unpin`: a C object behind a pointer.
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> cublasStatus_t {
    refuse("the loaded cuBLASLt library lacks this entry point")
}

/// cuBLASLt: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_CUBLASLT_LIBRARY` (an exact file) overrides all of that.
pub const CUBLASLT_SEARCH: Search = Search {
    library: "cuBLASLt (libcublasLt)",
    explicit_env: "ANYCUDA_CUBLASLT_LIBRARY",
    sonames: &["libcublasLt.so.13"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// hipBLASLt: the soname, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`;
/// `ANYCUDA_HIPBLASLT_LIBRARY` (an exact file) overrides all of that. Only soname major 1
/// (hipBLASLt 1.x, ROCm 7; Debian sid's 7.1.1 package): the structs the HIP backend repacks
/// (`hipblasLtMatmulAlgo_t`, `hipblasLtMatmulHeuristicResult_t`) are the pinned header's, and a
/// library of another major is not assumed to share them.
pub const HIPBLASLT_SEARCH: Search = Search {
    library: "hipBLASLt (libhipblaslt)",
    explicit_env: "ANYCUDA_HIPBLASLT_LIBRARY",
    sonames: &["libhipblaslt.so.1"],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Which library a table is loaded from: the symbols differ by prefix; the values and the
/// algorithm structs differ too, which the HIP backend translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// NVIDIA's cuBLASLt: `cublasLtX`.
    CublasLt,
    /// AMD's hipBLASLt: `hipblasLtX` for the functions in [`HIPBLASLT_DECLARED`].
    HipblasLt,
}

/// A version code as people write it: cuBLASLt `131000` -> `13.10.0` (major * 10000 + minor *
/// 100 + patch, as `CUBLAS_VERSION`); hipBLASLt `100100` -> `1.1.0` (major * 100000 + minor *
/// 100 + patch, as `hipblasLtGetVersion` encodes it); `0`: unknown.
pub fn version_string(flavor: Flavor, code: i32) -> String {
    match (flavor, code) {
        (_, 0) => "unknown".into(),
        (Flavor::CublasLt, c) => format!("{}.{}.{}", c / 10_000, (c / 100) % 100, c % 100),
        (Flavor::HipblasLt, c) => format!("{}.{}.{}", c / 100_000, (c / 100) % 1000, c % 100),
    }
}

/// Opens cuBLASLt or hipBLASLt and resolves every entry point of the catalogue by name
/// (`cublasLtX` for cuBLASLt, the hipBLASLt twin of [`HIPBLASLT_DECLARED`] for hipBLASLt, none
/// for the rest). cuBLASLt is asked its version (`cublasLtGetVersion`, which needs no GPU);
/// hipBLASLt's `hipblasLtGetVersion` needs a handle, hence a device, so its version is left 0
/// here (the HIP backend asks it when a device is present) and `hipblasLtCreate` is the symbol
/// that must exist.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the probe symbol, or [`LoadError::VersionQuery`].
pub fn load(search: &Search, flavor: Flavor) -> Result<Loaded<CublasLtTable>, LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let (probe, version) = match flavor {
        Flavor::CublasLt => {
            let probe = c"cublasLtGetVersion";
            let gv = required(&o, lib, probe)?;
            // SAFETY: size_t cublasLtGetVersion(void) in every cuBLASLt.
            let gv: unsafe extern "C" fn() -> usize = unsafe { core::mem::transmute(gv) };
            // SAFETY: no arguments; it reads a constant.
            let v = unsafe { gv() };
            let v = i32::try_from(v).map_err(|_| LoadError::VersionQuery {
                library: lib,
                path: o.resolved_path(probe),
                detail: format!("cublasLtGetVersion: {v} is out of range"),
            })?;
            (probe, v)
        }
        Flavor::HipblasLt => {
            let probe = c"hipblasLtCreate";
            required(&o, lib, probe)?;
            (probe, 0)
        }
    };
    let path = o.resolved_path(probe);
    // SAFETY: each symbol is resolved by the name its header declares; for a pair in
    // HIPBLASLT_DECLARED the C ABI is the same (handles and descriptors are pointers, enums C
    // ints, the rest the same scalar and pointer types; the two structs that differ are passed by
    // pointer and repacked by the HIP backend, which also translates the values).
    let table = unsafe {
        CublasLtTable::load(|f| {
            let sym = match flavor {
                Flavor::CublasLt => Some(f.symbol),
                Flavor::HipblasLt => HIPBLASLT_DECLARED
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
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}
