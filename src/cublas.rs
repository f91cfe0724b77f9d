//! cuBLAS (`cublas*`): cuBLAS's host API (the `_v2` handle API of `cublas_api.h`), served by the
//! active backend's BLAS library: cuBLAS on the CUDA backend, hipBLAS on the HIP backend.
//!
//! Names, signatures and values are cuBLAS's on every backend. Every function of the pinned
//! `cublas_api.h` is here, under the name libcublas exports (`cublasCreate_v2`,
//! `cublasSgemm_v2`, `cublasGemmEx`, the `_64` variants). A call with no library, or one the
//! loaded library lacks, returns [`cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED`] and
//! [`not_supported_reason`] says why. A null handle is answered
//! `CUBLAS_STATUS_NOT_INITIALIZED` before any library sees it.
//!
//! ```no_run
//! use anycuda::cublas::*;
//! let mut h: cublasHandle_t = core::ptr::null_mut();
//! unsafe { cublasCreate_v2(&mut h) }.result()?;
//! let mut v = 0;
//! unsafe { cublasGetVersion_v2(h, &mut v) }.result()?;
//! unsafe { cublasDestroy_v2(h) }.result()?;
//! # Ok::<(), anycuda::cublas::CublasError>(())
//! ```
//!
//! Library search: `ANYCUDA_CUBLAS_LIBRARY` (an exact file), else `libcublas.so.13`, then
//! `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`; on the HIP backend `ANYCUDA_HIPBLAS_LIBRARY`,
//! else `libhipblas.so.3`/`.so.2`/`.so.0`, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. A
//! library that cannot be loaded is reported by [`library`] with every path tried.
//!
//! On the HIP backend hipBLAS serves the functions of [`HIPBLAS_DECLARED`] (values translated)
//! and anycuda answers those of [`HIPBLAS_ANSWERED`]; the rest answer
//! `CUBLAS_STATUS_NOT_SUPPORTED` with a reason. See `docs/linear-algebra.md`.

pub use anycuda_api::cublas::*;

#[path = "generated/cublas.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = CUBLAS_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::cublas::library().ok();
                let version = l.map(|l| l.version).unwrap_or_default();
                LibraryInfo {
                    name: "cuBLAS",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version,
                    version_string: version_string(version),
                    entry_points: (t.loaded_count(), total),
                    abi: Abi::Cublas.describe(),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => LibraryInfo {
                name: l.name(),
                path: l.path().to_string(),
                version: l.version(),
                version_string: match l.flavor() {
                    Flavor::Cublas => version_string(l.version()),
                    Flavor::Hipblas => {
                        format!("version unknown (no query), {}", l.abi().describe())
                    }
                },
                entry_points: (l.table().loaded_count(), total),
                abi: l.abi().describe(),
            },
        }
    }
}
