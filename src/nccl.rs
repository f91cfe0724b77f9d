//! NCCL (`nccl*`): NCCL's types and functions, served by the active backend's collective
//! library: NCCL on the CUDA backend and on HIP's NVIDIA platform, RCCL on AMD.
//!
//! Names, signatures and values are NCCL's on every backend; on AMD the HIP backend translates
//! RCCL's data types, operations and results through tables generated from both headers. Every
//! function of the pinned `nccl.h` is here; one the loaded library lacks (or any call with no
//! library) returns [`ncclResult_t::ncclNotSupported`], anycuda's own code.
//!
//! ```no_run
//! use anycuda::nccl::*;
//! let mut v = 0;
//! unsafe { ncclGetVersion(&mut v) }.result()?;
//! println!("NCCL {}", version_string(v));
//! # Ok::<(), anycuda::nccl::NcclError>(())
//! ```
//!
//! Library search: `ANYCUDA_NCCL_LIBRARY` (an exact file), else `libnccl.so.2`, then
//! `NCCL_HOME`/`NCCL_ROOT`/`CUDA_PATH`/`CUDA_HOME`; on AMD `ANYCUDA_RCCL_LIBRARY`, else
//! `librccl.so.1`, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. A library that cannot be loaded
//! is reported by [`library`] with every path tried.

pub use anycuda_api::nccl::*;

#[path = "generated/nccl.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Which library this is, where it was loaded from and its version.
    pub fn info(self) -> LibraryInfo {
        let total = NCCL_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::nccl::library().ok();
                LibraryInfo {
                    name: "NCCL",
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version: l.map(|l| l.version).unwrap_or_default(),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(l) => LibraryInfo {
                name: l.name(),
                path: l.path().to_string(),
                version: l.version(),
                entry_points: (l.table().loaded_count(), total),
            },
        }
    }
}
