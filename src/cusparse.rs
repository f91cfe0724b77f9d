//! cuSPARSE (`cusparse*`): cuSPARSE's host API (`cusparse.h`: the generic API of sparse and
//! dense descriptors, `cusparseSpMV`, `cusparseSpMM`, ..., and what remains of the legacy
//! API), served by the active backend's sparse library: cuSPARSE on the CUDA backend, hipSPARSE
//! on the HIP backend.
//!
//! Names, signatures and values are cuSPARSE's on every backend. Every function of the pinned
//! `cusparse.h` is here. A call with no library, or one the loaded library lacks, returns
//! [`cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED`] and [`not_supported_reason`] says why.
//!
//! ```no_run
//! use anycuda::cusparse::*;
//! let mut h: cusparseHandle_t = core::ptr::null_mut();
//! unsafe { cusparseCreate(&mut h) }.result()?;
//! unsafe { cusparseDestroy(h) }.result()?;
//! # Ok::<(), anycuda::cusparse::CusparseError>(())
//! ```
//!
//! Library search: `ANYCUDA_CUSPARSE_LIBRARY` (an exact file), else `libcusparse.so.12`, then
//! `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`; on the HIP backend
//! `ANYCUDA_HIPSPARSE_LIBRARY`, else `libhipsparse.so.4`/`.so.1`/`.so.0`, then
//! `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. A library that cannot be loaded is reported by
//! [`library`] with every path tried.
//!
//! On the HIP backend hipSPARSE serves the functions of [`HIPSPARSE_DECLARED`] (values
//! translated); the rest answer `CUSPARSE_STATUS_NOT_SUPPORTED` with a reason.

pub use anycuda_api::cusparse::*;

#[path = "generated/cusparse.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = CUSPARSE_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::cusparse::library().ok();
                let version = l.map(|l| l.version).unwrap_or_default();
                LibraryInfo {
                    name: "cuSPARSE",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version,
                    version_string: version_string(version),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => LibraryInfo {
                name: "hipSPARSE",
                path: l.path().to_string(),
                version: 0,
                version_string: "not reported (hipSPARSE's version is not cuSPARSE's)".into(),
                entry_points: (l.table().loaded_count(), total),
            },
        }
    }
}
