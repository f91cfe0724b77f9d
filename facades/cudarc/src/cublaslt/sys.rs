//! cuBLASLt's C API under its own names: anycuda's raw layer ([`anycuda::cublaslt`]), dispatched
//! to the active backend's library (cuBLASLt, or hipBLASLt on AMD), with cuBLASLt's signatures
//! and values.
//!
//! Every function of the pinned `cublasLt.h` is here (`cublasLtCreate`, `cublasLtMatmul`,
//! `cublasLtMatmulAlgoGetHeuristic`, the descriptor and logger functions, ...), as in cudarc's
//! bindings.
//!
//! Differences from cudarc's bindgen output:
//! - C enums (`cublasStatus_t`, `cublasLtMatmulDescAttributes_t`, `cublasLtEpilogue_t`,
//!   `cudaDataType_t`, ...) are `#[repr(transparent)]` newtypes with associated consts, not Rust
//!   enums, so a value the tables do not know stays representable. Paths and `==` work the same;
//!   a `match` needs a `_` arm, and `as` casts become `.0`.
//! - The types `cublasLt.h` shares with `cublas_api.h` (`cublasStatus_t`, `cublasComputeType_t`,
//!   `cudaDataType`) are the same Rust types as in [`crate::cublas::sys`], and so is
//!   [`CublasError`]: one Rust type per C type.
//! - `culib()` does not exist: anycuda loads the library itself. [`anycuda::cublaslt::library`]
//!   says which one and from where, and [`is_culib_present`] answers as cudarc's does.

#![allow(non_camel_case_types)]

pub use anycuda::cublaslt::*;

/// Whether a matmul library (cuBLASLt, or hipBLASLt on the HIP backend) loads, as cudarc's
/// `is_culib_present` answers for libcublasLt. Loading happens once; later calls are cheap.
///
/// # Safety
/// None needed here: the function is `unsafe` only because cudarc's is. Loading runs the
/// library's initialisers, as any first cuBLASLt call would.
pub unsafe fn is_culib_present() -> bool {
    anycuda::cublaslt::library().is_ok()
}
