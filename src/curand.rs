//! cuRAND (`curand*`): cuRAND's host API, served by the active backend's random-number
//! library: cuRAND on the CUDA backend, hipRAND on the HIP backend (AMD's, or its NVIDIA build
//! on HIP's NVIDIA platform).
//!
//! Names, signatures and values are cuRAND's on every backend; on AMD the HIP backend
//! translates hipRAND's statuses and generator types through tables generated from both
//! headers (`CURAND_RNG_PSEUDO_DEFAULT` is 100, hipRAND's 400). Every function of the pinned
//! `curand.h` is here. One hipRAND lacks (ordering, direction vectors, scramble constants,
//! `curandGetProperty`), one the loaded library lacks, and any call with no library, returns
//! [`curandStatus_t::CURAND_STATUS_NOT_SUPPORTED`], anycuda's own code, and
//! [`not_supported_reason`] says why. A hipRAND status cuRAND has no name for is hallucinated
//! ([`curandStatus_t::CURAND_STATUS_HIPRAND_NOT_IMPLEMENTED`]).
//!
//! ```no_run
//! use anycuda::curand::*;
//! let mut v = 0;
//! unsafe { curandGetVersion(&mut v) }.result()?;
//! let mut g: curandGenerator_t = core::ptr::null_mut();
//! unsafe { curandCreateGenerator(&mut g, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT) }.result()?;
//! unsafe { curandDestroyGenerator(g) }.result()?;
//! # Ok::<(), anycuda::curand::CurandError>(())
//! ```
//!
//! Library search: `ANYCUDA_CURAND_LIBRARY` (an exact file), else `libcurand.so.10`, then
//! `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`; on AMD `ANYCUDA_HIPRAND_LIBRARY`, else
//! `libhiprand.so.1`, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm` (rocRAND, which hipRAND
//! needs, is opened first when it lies beside an explicit hipRAND file). A library that cannot
//! be loaded is reported by [`library`] with every path tried.

pub use anycuda_api::curand::*;

#[path = "generated/curand.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = CURAND_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::curand::library().ok();
                let version = l.map(|l| l.version).unwrap_or_default();
                LibraryInfo {
                    name: "cuRAND",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version,
                    version_string: version_string(Flavor::Curand, version),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => LibraryInfo {
                name: l.name(),
                path: l.path().to_string(),
                version: l.version(),
                version_string: version_string(l.flavor(), l.version()),
                entry_points: (l.table().loaded_count(), total),
            },
        }
    }
}
