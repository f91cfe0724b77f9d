//! nvJitLink's vocabulary: types and values of the pinned `nvJitLink.h`, the function catalogue,
//! the function-pointer table, the [`NvJitLink`] trait, errors and library search.
//!
//! nvJitLink is NVIDIA's JIT linker: it links LTO-IR (NVRTC's `-dlto` output), PTX, cubins and
//! fat binaries into a cubin, without a GPU. It is optional and loaded at run time; a process
//! without it gets [`nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED`] (anycuda's own code) from
//! every call.
//!
//! Why not `NVJITLINK_ERROR_INTERNAL`: NVIDIA's code means a fault inside the library, which
//! sends the reader looking for a bug where there is only a missing file; an own code with its
//! own name says "unavailable" and is recognisable ([`crate::hallucinated::ANYCUDA_BASE`]), as
//! `ncclNotSupported` and `NVRTC_ERROR_NOT_SUPPORTED` are for NCCL and NVRTC.

use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::c_uint;

#[path = "generated/nvjitlink.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/nvjitlink_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// nvJitLink: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_NVJITLINK_LIBRARY` (an exact file) overrides all of that.
pub const NVJITLINK_SEARCH: Search = Search {
    library: "nvJitLink (libnvJitLink)",
    explicit_env: "ANYCUDA_NVJITLINK_LIBRARY",
    sonames: &["libnvJitLink.so.13"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// Oldest library served: the pinned header's ABI is that of the 13.x soname (12.x's options
/// and versioned symbols differ; its soname is another).
pub const MIN_VERSION: i32 = 13000;

/// `13050` -> `13.5`.
pub fn version_string(code: i32) -> String {
    format!("{}.{}", code / 1000, (code % 1000) / 10)
}

/// Opens nvJitLink, asks its version (`nvJitLinkVersion`, which needs no GPU) and resolves
/// every entry point of the catalogue by name.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// `nvJitLinkVersion`, [`LoadError::VersionQuery`] or [`LoadError::TooOld`].
pub fn load(search: &Search) -> Result<Loaded<NvJitLinkTable>, LoadError> {
    let o = search.open()?;
    let lib = search.library;
    let gv = required(&o, lib, c"nvJitLinkVersion")?;
    // SAFETY: nvJitLinkVersion(unsigned*, unsigned*) -> nvJitLinkResult in every nvJitLink.
    let gv: unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> nvJitLinkResult =
        unsafe { core::mem::transmute(gv) };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    let r = unsafe { gv(&mut major, &mut minor) };
    let path = o.resolved_path(c"nvJitLinkVersion");
    if r != nvJitLinkResult::NVJITLINK_SUCCESS {
        return Err(LoadError::VersionQuery {
            library: lib,
            path,
            detail: format!("nvJitLinkVersion: {r}"),
        });
    }
    let version = (major as i32) * 1000 + (minor as i32) * 10;
    if version < MIN_VERSION {
        return Err(LoadError::TooOld {
            library: lib,
            path,
            found: version_string(version),
            needed: version_string(MIN_VERSION),
        });
    }
    // SAFETY: each symbol is resolved by the plain name the header declares (with
    // NVJITLINK_NO_INLINE), whose ABI is the header's.
    let table = unsafe {
        NvJitLinkTable::load(|f| match std::ffi::CString::new(f.symbol) {
            Ok(n) => o.sym(&n),
            Err(_) => core::ptr::null_mut(),
        })
    };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}
