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

use crate::{Backend, LoadError};

/// The active backend's BLAS library. `Copy`: libraries load once per process and are never
/// unloaded. It implements [`Cublas`] by dispatching to the backend's library.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// cuBLAS, loaded by the CUDA backend.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static CublasTable),
    /// hipBLAS (AMD's, or its NVIDIA build on HIP's NVIDIA platform), loaded by the HIP backend.
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::cublas::BlasLibrary),
}

/// Why no BLAS library can be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LibraryError {
    /// No GPU backend could be selected, so there is no library to choose.
    #[error("no usable GPU backend for cuBLAS: {0}")]
    NoBackend(String),
    /// The backend's BLAS library did not load (the error names every path tried).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// What `library()` found: which library, where and which version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// `"cuBLAS"` or `"hipBLAS"`.
    pub name: &'static str,
    /// The file the loader mapped.
    pub path: String,
    /// Its version code (`cublasGetVersion_v2`), e.g. `131000`; 0 for hipBLAS, which has no
    /// version query.
    pub version: i32,
    /// The version as people write it (`13.10.0`; for hipBLAS, that it is unknown).
    pub version_string: String,
    /// Entry points resolved, of the functions the pinned `cublas_api.h` declares.
    pub entry_points: (usize, usize),
    /// How the library takes the mixed-precision functions' data and compute types
    /// ([`Abi::describe`]): read from hipBLAS's exports, `"cuBLAS"` for cuBLAS.
    pub abi: &'static str,
}

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

/// The BLAS library of a given backend (cuBLAS for CUDA, hipBLAS for HIP), loaded on first use.
///
/// # Errors
/// [`LibraryError::Load`] naming every path tried.
pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(_) => anycuda_cuda::cublas::library()
            .map(|l| Library::Cuda(&l.table))
            .map_err(|e| LibraryError::Load(e.clone())),
        #[cfg(feature = "backend-hip")]
        Backend::Hip(h) => anycuda_hip::cublas::library(h.platform())
            .map(Library::Hip)
            .map_err(|e| LibraryError::Load(e.clone())),
    }
}

/// The active backend's BLAS library (what the free functions of this module call).
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
fn not_loaded() -> cublasStatus_t {
    refuse("no BLAS library loaded (cuBLAS or hipBLAS): anycuda::cublas::library() says why and where it looked")
}
