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

use crate::{Backend, LoadError};

/// The active backend's random-number library. `Copy`: libraries load once per process and
/// are never unloaded. It implements [`Curand`] by dispatching to the backend's library.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// cuRAND, loaded by the CUDA backend.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static CurandTable),
    /// hipRAND (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP backend.
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::curand::RandLibrary),
}

/// Why no random-number library can be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    /// No GPU backend could be selected, so there is no library to choose.
    #[error("no usable GPU backend for cuRAND: {0}")]
    NoBackend(String),
    /// The backend's random-number library did not load (the error names every path tried).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// What `library()` found: which library, where and which version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// `"cuRAND"` or `"hipRAND"`.
    pub name: &'static str,
    /// The file the loader mapped.
    pub path: String,
    /// Its version code (`curandGetVersion`/`hiprandGetVersion`), e.g. `10405`.
    pub version: i32,
    /// The version as people write it (`10.4.5`, hipRAND `2.10.9`).
    pub version_string: String,
    /// Entry points resolved, of the functions the pinned `curand.h` declares.
    pub entry_points: (usize, usize),
}

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

/// The random-number library of a given backend (cuRAND for CUDA, hipRAND for HIP), loaded on
/// first use.
///
/// # Errors
/// [`LibraryError::Load`] naming every path tried.
pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(_) => anycuda_cuda::curand::library()
            .map(|l| Library::Cuda(&l.table))
            .map_err(|e| LibraryError::Load(e.clone())),
        #[cfg(feature = "backend-hip")]
        Backend::Hip(h) => anycuda_hip::curand::library(h.platform())
            .map(Library::Hip)
            .map_err(|e| LibraryError::Load(e.clone())),
    }
}

/// The active backend's random-number library (what the free functions of this module call).
///
/// # Errors
/// [`LibraryError::NoBackend`] when no backend is usable, else [`LibraryError::Load`].
#[inline]
pub fn library() -> Result<Library, LibraryError> {
    match crate::select::active() {
        Some(b) => library_of(b),
        None => Err(LibraryError::NoBackend(match crate::backend() {
            Ok(s) => format!("{s:?}"),
            Err(e) => e.to_string(),
        })),
    }
}

/// What a free function answers when no library could be loaded.
fn not_loaded() -> curandStatus_t {
    refuse("no random-number library loaded (cuRAND or hipRAND): anycuda::curand::library() says why and where it looked")
}
