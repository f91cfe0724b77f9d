//! The collective library on the HIP backend: RCCL on AMD, translated through tables generated
//! from both headers; NCCL itself on HIP's NVIDIA platform, as AMD's own stack does there.

use crate::Platform;
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use anycuda_api::nccl::{self, NcclTable};
use std::sync::OnceLock;

#[path = "generated/nccl.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub use tables::*;

pub(crate) use anycuda_api::nccl::error_string as own_error_string;

/// A loaded RCCL (values translated) or NCCL (values unchanged). `Send + Sync`: the table
/// holds plain function pointers and the library stays loaded while it lives.
#[derive(Debug)]
pub struct CollectiveLibrary {
    loaded: Loaded<NcclTable>,
    translates: bool,
}

impl CollectiveLibrary {
    /// Opens the library `search` finds; `translates`: it is RCCL, whose values differ.
    ///
    /// # Errors
    /// As [`anycuda_api::nccl::load`].
    pub fn open(search: &anycuda_api::loader::Search, translates: bool) -> Result<Self, LoadError> {
        Ok(Self {
            loaded: nccl::load(search)?,
            translates,
        })
    }
    /// The raw entry points (the library's own values).
    #[inline]
    pub fn table(&self) -> &NcclTable {
        &self.loaded.table
    }
    /// Whether values are translated (RCCL on AMD).
    #[inline]
    pub fn translates(&self) -> bool {
        self.translates
    }
    /// The file the loader mapped.
    pub fn path(&self) -> &str {
        &self.loaded.path
    }
    /// The version code the library reported (`ncclGetVersion`).
    pub fn version(&self) -> i32 {
        self.loaded.version
    }
    /// `"RCCL"` or `"NCCL"`.
    pub fn name(&self) -> &'static str {
        if self.translates {
            "RCCL"
        } else {
            "NCCL"
        }
    }
}

/// The collective library for a HIP platform: RCCL on AMD (`ANYCUDA_RCCL_LIBRARY`, `librccl.so.1`,
/// `ROCM_PATH`, `/opt/rocm`), NCCL on HIP's NVIDIA platform (as the CUDA backend finds it).
/// Loaded once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, a missing entry point or a too-old version.
pub fn library(platform: Platform) -> Result<&'static CollectiveLibrary, &'static LoadError> {
    static RCCL: OnceLock<Result<CollectiveLibrary, LoadError>> = OnceLock::new();
    static NCCL: OnceLock<Result<CollectiveLibrary, LoadError>> = OnceLock::new();
    let (cell, search, translates) = match platform {
        Platform::Amd => (&RCCL, &nccl::RCCL_SEARCH, true),
        Platform::Nvidia => (&NCCL, &nccl::NCCL_SEARCH, false),
    };
    cell.get_or_init(|| {
        let l = CollectiveLibrary::open(search, translates);
        match &l {
            Ok(l) => log::debug!(
                "hip {}: {} ({})",
                l.name(),
                l.path(),
                nccl::version_string(l.version())
            ),
            Err(e) => log::debug!("hip collective library: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
