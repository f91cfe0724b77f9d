//! cuSPARSE on the HIP backend: hipSPARSE, translated through tables generated from both
//! headers (statuses, and every enum a served function takes or writes: operations, index
//! types and bases, formats, algorithms, data types as `hipDataType`, ...). On HIP's NVIDIA
//! platform that is hipSPARSE's NVIDIA build, found the same way (`ANYCUDA_HIPSPARSE_LIBRARY`,
//! `libhipsparse.so.*`).
//!
//! Rules kept by hand:
//! - a cuSPARSE function whose hipSPARSE twin the pinned hipSPARSE 5.3.3 header does not
//!   declare, declares with another ABI, or that takes an enum hipSPARSE has no type of, answers
//!   `CUSPARSE_STATUS_NOT_SUPPORTED`, and [`anycuda_api::cusparse::not_supported_reason`]
//!   names the function (the `cusparseCreateConst*` descriptors of CUDA 12, for one);
//! - a value cuSPARSE declares that hipSPARSE has no counterpart of (a data type hipSPARSE
//!   5.3.3's `hipDataType` lacks, `CUDA_R_16BF` for one) answers
//!   `CUSPARSE_STATUS_NOT_SUPPORTED` with a reason; a value cuSPARSE does not declare answers
//!   `CUSPARSE_STATUS_INVALID_VALUE`;
//! - a null handle answers `CUSPARSE_STATUS_INVALID_VALUE` (the pinned libcusparse's answer,
//!   measured) before hipSPARSE sees it;
//! - `cusparseGetVersion` answers `CUSPARSE_STATUS_NOT_SUPPORTED`: hipSPARSE's version is not
//!   cuSPARSE's, and anycuda does not invent one;
//! - `cusparseGetErrorName`/`cusparseGetErrorString` answer cuSPARSE's name of the status;
//! - on AMD, with no HIP device, `cusparseCreate` answers `CUSPARSE_STATUS_NOT_INITIALIZED`
//!   (the pinned libcusparse's answer without a GPU, measured) before hipSPARSE sees it.

use crate::device_probe::DeviceProbe;
use crate::Platform;
use anycuda_api::cusparse::{self, CusparseTable, Flavor};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

#[path = "generated/cusparse.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub use tables::*;

pub(crate) use anycuda_api::cusparse::{no_counterpart, refuse};

/// A loaded hipSPARSE, values translated. `Send + Sync`: the table holds plain function
/// pointers and the library stays loaded while it lives.
#[derive(Debug)]
pub struct SparseLibrary {
    loaded: Loaded<CusparseTable>,
    /// Whether hipSPARSE's HIP runtime sees a device (AMD only).
    probe: DeviceProbe,
}

impl SparseLibrary {
    /// Opens the hipSPARSE `search` finds, for a platform (on AMD the no-device rule applies).
    ///
    /// # Errors
    /// As [`anycuda_api::cusparse::load`].
    pub fn open(
        search: &anycuda_api::loader::Search,
        platform: Platform,
    ) -> Result<Self, LoadError> {
        let loaded = cusparse::load(search, Flavor::Hipsparse)?;
        Ok(Self {
            loaded,
            probe: DeviceProbe::open(search, platform),
        })
    }
    /// Whether the HIP runtime hipSPARSE uses sees a device. True where anycuda does not ask
    /// (HIP's NVIDIA platform, or a hipSPARSE whose HIP runtime could not be looked up).
    pub fn has_device(&self) -> bool {
        self.probe.has_device()
    }
    /// The raw entry points (hipSPARSE's own values).
    #[inline]
    pub fn table(&self) -> &CusparseTable {
        &self.loaded.table
    }
    /// The file the loader mapped.
    pub fn path(&self) -> &str {
        &self.loaded.path
    }
}

/// hipSPARSE for a HIP platform (`ANYCUDA_HIPSPARSE_LIBRARY`, `libhipsparse.so.*`,
/// `ROCM_PATH`, `/opt/rocm`): AMD's on AMD, its NVIDIA build on HIP's NVIDIA platform. Loaded
/// once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing `hipsparseCreate`.
pub fn library(platform: Platform) -> Result<&'static SparseLibrary, &'static LoadError> {
    static AMD: OnceLock<Result<SparseLibrary, LoadError>> = OnceLock::new();
    static NVIDIA: OnceLock<Result<SparseLibrary, LoadError>> = OnceLock::new();
    let cell = match platform {
        Platform::Amd => &AMD,
        Platform::Nvidia => &NVIDIA,
    };
    cell.get_or_init(|| {
        let l = SparseLibrary::open(&cusparse::HIPSPARSE_SEARCH, platform);
        match &l {
            Ok(l) => log::debug!("hip hipSPARSE: {}", l.path()),
            Err(e) => log::warn!("hip sparse library: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
