//! cuFFT (`cufft*`): cuFFT's host API (`cufft.h`), served by the active backend's FFT library:
//! cuFFT on the CUDA backend, hipFFT on the HIP backend on AMD.
//!
//! Names, signatures, values and plan handles are cuFFT's on every backend. On AMD the HIP
//! backend translates hipFFT's results and transform types through tables generated from both
//! headers, and keeps a plan table: cuFFT's plan handle is an `int`, hipFFT's a pointer, so each
//! plan created there gets an `int` handle, and one never given out answers
//! [`cufftResult::CUFFT_INVALID_PLAN`]. Every function of the pinned `cufft.h` is here. One
//! hipFFT lacks (the plan properties), one the loaded library lacks, and any call with no
//! library, returns [`cufftResult::CUFFT_NOT_SUPPORTED`] (cuFFT's own code), and
//! [`not_supported_reason`] says why. A hipFFT result cuFFT has no name for is hallucinated
//! (`CUFFT_HIPFFT_*`). HIP's NVIDIA platform has no hipFFT here (its NVIDIA build has another
//! handle type and is not built): calls answer `CUFFT_NOT_SUPPORTED` there.
//!
//! ```no_run
//! use anycuda::cufft::*;
//! let mut plan: cufftHandle = 0;
//! unsafe { cufftPlan1d(&mut plan, 1024, cufftType::CUFFT_C2C, 1) }.result()?;
//! unsafe { cufftDestroy(plan) }.result()?;
//! # Ok::<(), anycuda::cufft::CufftError>(())
//! ```
//!
//! Library search: `ANYCUDA_CUFFT_LIBRARY` (an exact file), else `libcufft.so.12`, then
//! `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`; on AMD `ANYCUDA_HIPFFT_LIBRARY`, else
//! `libhipfft.so.0`, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. A library that cannot be
//! loaded is reported by [`library`] with every path tried.

pub use anycuda_api::cufft::*;

#[path = "generated/cufft.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = CUFFT_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::cufft::library().ok();
                let version = l.map(|l| l.version).unwrap_or_default();
                LibraryInfo {
                    name: "cuFFT",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version,
                    version_string: version_string(false, version),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => LibraryInfo {
                name: "hipFFT",
                path: l.path().to_string(),
                version: l.version(),
                version_string: version_string(true, l.version()),
                entry_points: (l.table().loaded_count(), total),
            },
        }
    }
}
