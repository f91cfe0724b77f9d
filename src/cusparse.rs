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

use crate::{Backend, LoadError};

/// The active backend's sparse library. `Copy`: libraries load once per process and are never
/// unloaded. It implements [`Cusparse`] by dispatching to the backend's library.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// cuSPARSE, loaded by the CUDA backend.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static CusparseTable),
    /// hipSPARSE (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP
    /// backend.
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::cusparse::SparseLibrary),
}

/// Why no sparse library can be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    /// No GPU backend could be selected, so there is no library to choose.
    #[error("no usable GPU backend for cuSPARSE: {0}")]
    NoBackend(String),
    /// The backend's sparse library did not load (the error names every path tried).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// What `library()` found: which library, where and which version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// `"cuSPARSE"` or `"hipSPARSE"`.
    pub name: &'static str,
    /// The file the loader mapped.
    pub path: String,
    /// Its version code (`cusparseGetProperty`), e.g. `12904`; 0 for hipSPARSE.
    pub version: i32,
    /// The version as people write it (`12.9.4`; for hipSPARSE, that it is not reported).
    pub version_string: String,
    /// Entry points resolved, of the functions the pinned `cusparse.h` declares.
    pub entry_points: (usize, usize),
}

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

/// The sparse library of a given backend (cuSPARSE for CUDA, hipSPARSE for HIP), loaded on
/// first use.
///
/// # Errors
/// [`LibraryError::Load`] naming every path tried.
pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(_) => anycuda_cuda::cusparse::library()
            .map(|l| Library::Cuda(&l.table))
            .map_err(|e| LibraryError::Load(e.clone())),
        #[cfg(feature = "backend-hip")]
        Backend::Hip(h) => anycuda_hip::cusparse::library(h.platform())
            .map(Library::Hip)
            .map_err(|e| LibraryError::Load(e.clone())),
    }
}

/// The active backend's sparse library (what the free functions of this module call).
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
fn not_loaded() -> cusparseStatus_t {
    refuse("no sparse library loaded (cuSPARSE or hipSPARSE): anycuda::cusparse::library() says why and where it looked")
}
