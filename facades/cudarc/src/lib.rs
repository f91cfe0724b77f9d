//! cudarc's API on anycuda: code written against [cudarc](https://docs.rs/cudarc/0.19.10)
//! 0.19.10's driver, NVRTC, cuBLAS, cuBLASLt and cuRAND modules runs unchanged on NVIDIA (CUDA)
//! and AMD (HIP/ROCm) GPUs.
//!
//! Depend on it under cudarc's name and recompile:
//! `cudarc = { package = "anycuda-cudarc", version = "0.1" }`. For cudarc reached through
//! another crate, patch it: `[patch.crates-io] cudarc = { path = ".../facades/cudarc-patch" }`.
//!
//! The layering is cudarc's: [`driver::sys`] (anycuda's raw Driver API under CUDA's names) ->
//! [`driver::result`] (one `Result` per call) -> the safe types in [`driver`]. The same for
//! [`nvrtc`]. The backend (CUDA or HIP) is anycuda's choice: `ANYCUDA_BACKEND=cuda|hip|auto`.
//!
//! # Cargo features
//! Every feature name of cudarc 0.19.10 is accepted so downstream manifests resolve:
//! - `driver`, `nvrtc`: the modules served here. `runtime`: `runtime::sys` (anycuda's raw
//!   Runtime API); cudarc's runtime `result`/`safe` layers are not re-created.
//! - `f16`, `f8`, `f4`: [`driver::DeviceRepr`]/[`driver::ValidAsZeroBits`] and
//!   [`types::CudaTypeName`] for `half`, `float8` and `float4` types, as in cudarc.
//! - `cuda-XXXXX`, `cuda-version-from-build-system`: ignored. anycuda resolves the installed
//!   driver's entry points at run time, so one build serves every CUDA version; the API offered is
//!   the union of cudarc's per-version APIs.
//! - `dynamic-loading`, `fallback-dynamic-loading`, `fallback-latest`, `dynamic-linking`,
//!   `static-linking`: ignored. anycuda always loads the libraries at run time; a missing library
//!   is a `DriverError`, never a panic.
//! - `std`, `no-std`: ignored; this crate always uses `std`.
//! - `curand`: [`curand`] (`CudaRng`, `result`, `sys`), on cuRAND or hipRAND.
//! - `cublas`: [`cublas`] (`CudaBlas`, `Gemm`, `Gemv`, `Asum`, `GroupedGemm`, `result`, `sys`),
//!   on cuBLAS or hipBLAS.
//! - `cublaslt`: [`cublaslt`] (`CudaBlasLT`, `Matmul`, `Workspace`, `result`, `sys`), on
//!   cuBLASLt or hipBLASLt.
//! - `cudnn*`, `cufft`, `cusparse`, `cusolver`, `cusolvermg`,
//!   `cutensor*`, `cupti`, `cufile`, `nvtx`, `nccl*`: accepted, but the modules do not exist yet.
//!   Code that uses them fails to compile with "could not find `cublas` in `cudarc`", and the
//!   build script prints a warning naming each such module (`ANYCUDA_CUDARC_QUIET=1` silences it).
//!
//! # Where cudarc's semantics cannot hold on HIP
//! The call returns `DriverError(CUDA_ERROR_NOT_SUPPORTED)`, never a panic. The main case: PTX
//! text (from nvcc or a `.ptx` file) cannot load on AMD GPUs; compile the `.cu` source at run time
//! with [`nvrtc::compile_ptx`], whose output on HIP is an AMD code object. The refusal is the
//! HIP backend's rule (every anycuda layer gets it); its advice is printed to stderr once,
//! logged, and returned by [`driver::result::not_supported_reason`].
//!
//! This crate holds no backend-specific branch: HIP's behaviour rules (module formats, pageable
//! host memory in copies) live in anycuda's HIP backend.

#![warn(missing_docs)]

#[cfg(feature = "cublas")]
pub mod cublas;
#[cfg(feature = "cublaslt")]
pub mod cublaslt;
#[cfg(feature = "curand")]
pub mod curand;
pub mod driver;
pub mod nvrtc;
#[cfg(feature = "runtime")]
pub mod runtime;
pub mod types;

/// The cudarc release whose API this crate re-creates.
pub const CUDARC_VERSION: &str = "0.19.10";
