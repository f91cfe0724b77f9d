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
