//! cuBLASLt (`cublasLt*`): cuBLASLt's host API, served by the active backend's matmul library:
//! cuBLASLt on the CUDA backend, hipBLASLt on the HIP backend on AMD.
//!
//! Names, signatures and values are cuBLASLt's on every backend; on AMD the HIP backend
//! translates hipBLASLt's statuses, compute and data types, attribute ids and enum-valued
//! attribute values through tables generated from both headers, and repacks the algorithm struct
//! (64 bytes in cuBLASLt, 24 in hipBLASLt) and the heuristic results that contain it. Every
//! function of the pinned `cublasLt.h` is here. One hipBLASLt lacks, an attribute or value it has
//! no counterpart of, one the loaded library lacks, and any call with no library, answers
//! [`cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED`], and [`not_supported_reason`] says why.
//! Errors are cuBLAS's ([`CublasError`], through [`cublasStatus_t::result`]).
//!
//! hipBLASLt has no NVIDIA build: on HIP's NVIDIA platform every call answers
//! `CUBLAS_STATUS_NOT_SUPPORTED` with a reason saying so (use the CUDA backend there). On AMD the
//! layer's proof depth is CI (hipBLASLt 7.1.1 loads and resolves without a GPU) and paper.
//!
//! ```no_run
//! use anycuda::cublaslt::*;
//! println!("cuBLASLt {}", unsafe { cublasLtGetVersion() });
//! let mut h: cublasLtHandle_t = core::ptr::null_mut();
//! unsafe { cublasLtCreate(&mut h) }.result()?;
//! let mut desc: cublasLtMatmulDesc_t = core::ptr::null_mut();
//! unsafe {
//!     cublasLtMatmulDescCreate(
//!         &mut desc,
//!         cublasComputeType_t::CUBLAS_COMPUTE_32F,
//!         cudaDataType::CUDA_R_32F,
//!     )
//! }
//! .result()?;
//! unsafe { cublasLtMatmulDescDestroy(desc) }.result()?;
//! unsafe { cublasLtDestroy(h) }.result()?;
//! # Ok::<(), anycuda::cublaslt::CublasError>(())
//! ```
//!
//! Library search: `ANYCUDA_CUBLASLT_LIBRARY` (an exact file), else `libcublasLt.so.13`, then
//! `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`; on AMD `ANYCUDA_HIPBLASLT_LIBRARY`, else
//! `libhipblaslt.so.1`, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. A library that cannot be
//! loaded is reported by [`library`] with every path tried.

pub use anycuda_api::cublaslt::*;

#[path = "generated/cublaslt.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = CUBLASLT_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::cublaslt::library().ok();
                let version = l.map(|l| l.version).unwrap_or_default();
                LibraryInfo {
                    name: "cuBLASLt",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version,
                    version_string: version_string(Flavor::CublasLt, version),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => match l.table() {
                Some(t) => LibraryInfo {
                    name: "hipBLASLt",
                    path: l.path().unwrap_or_default().to_string(),
                    version: l.version(),
                    version_string: version_string(Flavor::HipblasLt, l.version()),
                    entry_points: (t.loaded_count(), total),
                },
                None => LibraryInfo {
                    name: "none",
                    path: String::new(),
                    version: 0,
                    version_string: "hipBLASLt has no build for HIP's NVIDIA platform".into(),
                    entry_points: (0, total),
                },
            },
        }
    }
}
