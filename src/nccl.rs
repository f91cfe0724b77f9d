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

use crate::{Backend, LoadError};

/// The active backend's collective library. `Copy`: libraries load once per process and are
/// never unloaded. It implements [`Nccl`] by dispatching to the backend's library.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// NCCL, loaded by the CUDA backend.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static NcclTable),
    /// RCCL (AMD) or NCCL (HIP's NVIDIA platform), loaded by the HIP backend.
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::nccl::CollectiveLibrary),
}

/// Why no collective library can be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    /// No GPU backend could be selected, so there is no library to choose.
    #[error("no usable GPU backend for NCCL: {0}")]
    NoBackend(String),
    /// The backend's collective library did not load (the error names every path tried).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// What `library()` found: which library, where and which version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// `"NCCL"` or `"RCCL"`.
    pub name: &'static str,
    /// The file the loader mapped.
    pub path: String,
    /// Its version code (`ncclGetVersion`), e.g. `23203`.
    pub version: i32,
    /// Entry points resolved, of the functions the pinned `nccl.h` declares.
    pub entry_points: (usize, usize),
}

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

/// The collective library of a given backend (NCCL for CUDA; RCCL or NCCL for HIP, by
/// platform), loaded on first use.
///
/// # Errors
/// [`LibraryError::Load`] naming every path tried.
pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(_) => anycuda_cuda::nccl::library()
            .map(|l| Library::Cuda(&l.table))
            .map_err(|e| LibraryError::Load(e.clone())),
        #[cfg(feature = "backend-hip")]
        Backend::Hip(h) => anycuda_hip::nccl::library(h.platform())
            .map(Library::Hip)
            .map_err(|e| LibraryError::Load(e.clone())),
    }
}

/// The active backend's collective library (what the free functions of this module call).
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
