//! nvJitLink (`nvJitLink*`): NVIDIA's JIT linker, which links LTO-IR (NVRTC's `-dlto` output),
//! PTX, cubins and fat binaries into a cubin, without a GPU. Optional and loaded at run time.
//!
//! Names, signatures and values are nvJitLink's. The CUDA backend serves them with NVIDIA's
//! library; the HIP backend is a linker of PTX for the AMD GPU (`anycuda_hip::nvjitlink`): PTX
//! inputs are translated and compiled by hipRTC into one code object, which
//! `nvJitLinkGetLinkedCubin` returns and the module loads take; cubins, LTO-IR and linked-PTX
//! output answer [`nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED`], the reason in the error
//! log. Without the library (CUDA), or for an entry point the loaded library lacks, a call
//! answers the same anycuda code, and the load error (every path tried) is logged once and
//! returned by [`library`].
//!
//! ```no_run
//! use anycuda::nvjitlink::*;
//! let (mut major, mut minor) = (0, 0);
//! unsafe { nvJitLinkVersion(&mut major, &mut minor) }.result()?;
//! println!("nvJitLink {major}.{minor}");
//! # Ok::<(), anycuda::nvjitlink::NvJitLinkError>(())
//! ```
//!
//! Library search: `ANYCUDA_NVJITLINK_LIBRARY` (an exact file), else `libnvJitLink.so.13`,
//! then `CUDA_PATH`/`CUDA_HOME` (`lib64`, `lib`, `targets/x86_64-linux/lib`) and
//! `/usr/local/cuda`.

pub use anycuda_api::nvjitlink::*;

#[path = "generated/nvjitlink.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

use crate::{Backend, LoadError};

/// The active backend's JIT linker. `Copy`: libraries load once per process and are never
/// unloaded. It implements [`NvJitLink`] by dispatching to the backend.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// NVIDIA's nvJitLink, loaded by the CUDA backend.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static NvJitLinkTable),
    /// The HIP backend's linker of PTX for the AMD GPU (`anycuda_hip::nvjitlink`).
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::HipBackend),
}

/// Why nvJitLink cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LibraryError {
    /// No GPU backend could be selected.
    #[error("no usable backend for nvJitLink: {0}")]
    NoBackend(String),
    /// The library did not load (the error names every path tried).
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Where `library()` found nvJitLink and which version it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// The file the loader mapped (empty on HIP, whose linker is built in).
    pub path: String,
    /// Its version, `1000 * major + 10 * minor` (`13050` for 13.5; on HIP the nvJitLink API
    /// version its linker implements).
    pub version: i32,
    /// Entry points resolved, of the functions the pinned `nvJitLink.h` declares.
    pub entry_points: (usize, usize),
}

impl Library {
    /// Whether this backend links with NVIDIA's nvJitLink: true on the CUDA backend (whether or
    /// not the library loaded), false on HIP, whose linker takes PTX only (for the AMD GPU).
    pub fn is_nvjitlink(self) -> bool {
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(_) => true,
            #[cfg(feature = "backend-hip")]
            Library::Hip(_) => false,
        }
    }

    /// Where the library was loaded from, its version and how many entry points resolved.
    pub fn info(self) -> LibraryInfo {
        let total = NVJITLINK_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => {
                let l = anycuda_cuda::nvjitlink::library().ok();
                LibraryInfo {
                    path: l.map(|l| l.path.clone()).unwrap_or_default(),
                    version: l.map(|l| l.version).unwrap_or_default(),
                    entry_points: (t.loaded_count(), total),
                }
            }
            #[cfg(feature = "backend-hip")]
            Library::Hip(_) => LibraryInfo {
                path: String::new(),
                version: {
                    let (major, minor) = anycuda_hip::nvjitlink::VERSION;
                    (1000 * major + 10 * minor) as i32
                },
                entry_points: (total, total),
            },
        }
    }
}

/// The JIT linker of a given backend: nvJitLink (loaded on first use) for CUDA, the PTX linker
/// for the AMD GPU on HIP.
///
/// # Errors
/// [`LibraryError::Load`] naming every path tried.
pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
    match b {
        #[cfg(feature = "backend-cuda")]
        Backend::Cuda(_) => anycuda_cuda::nvjitlink::library()
            .map(|l| Library::Cuda(&l.table))
            .map_err(|e| LibraryError::Load(e.clone())),
        #[cfg(feature = "backend-hip")]
        Backend::Hip(h) => Ok(Library::Hip(h)),
    }
}

/// The active backend's JIT linker (what the free functions of this module call).
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
