//! cuBLAS's C API under its own names: anycuda's raw layer ([`anycuda::cublas`]), dispatched to
//! the active backend's library (cuBLAS, or hipBLAS on AMD), with cuBLAS's signatures and values.
//!
//! The functions carry the names libcublas exports, as in cudarc's bindings: `cublasCreate_v2`,
//! `cublasSgemm_v2`, `cublasGemmEx`, `cublasSgemmStridedBatched`, the `_64` variants. The C++-only
//! half-precision ones that cudarc loads by hand (`cublasHgemm`, `cublasHgemmStridedBatched`)
//! are here too, taking [`__half`].
//!
//! Differences from cudarc's bindgen output:
//! - C enums (`cublasStatus_t`, `cublasOperation_t`, `cublasComputeType_t`, `cudaDataType_t`,
//!   ...) are `#[repr(transparent)]` newtypes with associated consts, not Rust enums, so a value
//!   the tables do not know stays representable. Paths and `==` work the same; a `match` needs a
//!   `_` arm, and `as` casts become `.0`.
//! - `culib()` (cudarc's `&'static libloading::Library`) does not exist: anycuda loads the
//!   library itself. [`anycuda::cublas::library`] says which one and from where, and
//!   [`is_culib_present`] answers as cudarc's does.

#![allow(non_camel_case_types)]

pub use anycuda::cublas::*;
/// The `_t` spellings cudarc's bindings also export (the same types).
pub use anycuda::runtime::{
    cudaEmulationMantissaControl_t, cudaEmulationSpecialValuesSupport_t, libraryPropertyType_t,
};

/// Whether a BLAS library (cuBLAS, or hipBLAS on the HIP backend) loads, as cudarc's
/// `is_culib_present` answers for libcublas. Loading happens once; later calls are cheap.
///
/// # Safety
/// None needed here: the function is `unsafe` only because cudarc's is. Loading runs the
/// library's initialisers, as any first cuBLAS call would.
pub unsafe fn is_culib_present() -> bool {
    anycuda::cublas::library().is_ok()
}
