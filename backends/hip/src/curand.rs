//! cuRAND on the HIP backend: hipRAND on AMD, translated through tables generated from both
//! headers (statuses, generator types) plus the rules below; cuRAND itself on HIP's NVIDIA
//! platform, as hipRAND's own NVIDIA build does there.
//!
//! Rules kept by hand:
//! - a cuRAND function whose hipRAND twin the pinned headers do not declare (ordering,
//!   direction vectors, scramble constants, `curandGetProperty`, the internal `*Method`
//!   functions) answers `CURAND_STATUS_NOT_SUPPORTED`, and
//!   [`anycuda_api::curand::not_supported_reason`] names the function;
//! - a generator type with no hipRAND counterpart (or no cuRAND meaning) answers
//!   `CURAND_STATUS_TYPE_ERROR`, as cuRAND itself does for an unknown type;
//! - `curandGetVersion` reports hipRAND's own version (`HIPRAND_VERSION`, e.g. `201009` for
//!   2.10.9), not a cuRAND one: anycuda does not invent a version.

use crate::Platform;
use anycuda_api::curand::{self, CurandTable, Flavor};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

#[path = "generated/curand.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub use tables::*;

pub(crate) use anycuda_api::curand::refuse;

/// A loaded hipRAND (values translated) or cuRAND (values unchanged). `Send + Sync`: the table
/// holds plain function pointers and the library stays loaded while it lives.
#[derive(Debug)]
pub struct RandLibrary {
    loaded: Loaded<CurandTable>,
    flavor: Flavor,
}

impl RandLibrary {
    /// Opens the library `search` finds, of the given flavor (hipRAND's values differ).
    ///
    /// # Errors
    /// As [`anycuda_api::curand::load`].
    pub fn open(search: &anycuda_api::loader::Search, flavor: Flavor) -> Result<Self, LoadError> {
        Ok(Self {
            loaded: curand::load(search, flavor)?,
            flavor,
        })
    }
    /// The raw entry points (the library's own values).
    #[inline]
    pub fn table(&self) -> &CurandTable {
        &self.loaded.table
    }
    /// Whether values are translated (hipRAND on AMD).
    #[inline]
    pub fn translates(&self) -> bool {
        self.flavor == Flavor::Hiprand
    }
    /// The file the loader mapped.
    pub fn path(&self) -> &str {
        &self.loaded.path
    }
    /// The version code the library reported (`hiprandGetVersion` or `curandGetVersion`).
    pub fn version(&self) -> i32 {
        self.loaded.version
    }
    /// Which library this is.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }
    /// `"hipRAND"` or `"cuRAND"`.
    pub fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::Hiprand => "hipRAND",
            Flavor::Curand => "cuRAND",
        }
    }
}

/// The random-number library for a HIP platform: hipRAND on AMD (`ANYCUDA_HIPRAND_LIBRARY`,
/// `libhiprand.so.1`, `ROCM_PATH`, `/opt/rocm`), cuRAND on HIP's NVIDIA platform (as the CUDA
/// backend finds it). Loaded once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library(platform: Platform) -> Result<&'static RandLibrary, &'static LoadError> {
    static HIPRAND: OnceLock<Result<RandLibrary, LoadError>> = OnceLock::new();
    static CURAND: OnceLock<Result<RandLibrary, LoadError>> = OnceLock::new();
    let (cell, search, flavor) = match platform {
        Platform::Amd => (&HIPRAND, &curand::HIPRAND_SEARCH, Flavor::Hiprand),
        Platform::Nvidia => (&CURAND, &curand::CURAND_SEARCH, Flavor::Curand),
    };
    cell.get_or_init(|| {
        let l = RandLibrary::open(search, flavor);
        match &l {
            Ok(l) => log::debug!(
                "hip {}: {} ({})",
                l.name(),
                l.path(),
                curand::version_string(flavor, l.version())
            ),
            Err(e) => log::warn!("hip random-number library: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
