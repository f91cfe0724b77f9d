//! cuRAND on the HIP backend: hipRAND, translated through tables generated from both headers
//! (statuses, generator types) plus the rules below. On HIP's NVIDIA platform that is hipRAND's
//! NVIDIA build (which forwards to cuRAND; `ci/hip-nvidia/build-math.sh` builds it), found the
//! same way (`ANYCUDA_HIPRAND_LIBRARY`, `libhiprand.so.1`, ...), so the HIP backend's cuRAND
//! layer runs through HIP's own math library on both platforms.
//!
//! Rules kept by hand:
//! - a cuRAND function whose hipRAND twin the pinned headers do not declare (ordering,
//!   direction vectors, scramble constants, `curandGetProperty`, the internal `*Method`
//!   functions) answers `CURAND_STATUS_NOT_SUPPORTED`, and
//!   [`anycuda_api::curand::not_supported_reason`] names the function;
//! - a generator type with no hipRAND counterpart (or no cuRAND meaning) answers
//!   `CURAND_STATUS_TYPE_ERROR`, as cuRAND itself does for an unknown type;
//! - on AMD, with no HIP device, `curandCreateGenerator` answers `CURAND_STATUS_INITIALIZATION_FAILED`,
//!   cuRAND's answer without a GPU, before hipRAND sees it: hipRAND 6.4 creates the generator
//!   lazily, and rocRAND then aborts the whole process when it is destroyed ("rocRAND internal
//!   error: hipErrorNoDevice in ~poisson_distribution_manager"); hipRAND 5.x fails the creation
//!   itself with an allocation error;
//! - on AMD, with no HIP device, `curandCreateGeneratorHost` answers `CURAND_STATUS_NOT_SUPPORTED` with a
//!   reason: cuRAND's host generators need no GPU, hipRAND's do (hipRAND 5.x answers
//!   `HIPRAND_STATUS_NOT_IMPLEMENTED`; 6.4 creates one whose destruction aborts the process);
//! - `curandGetVersion` reports hipRAND's own version (`HIPRAND_VERSION`, e.g. `201009` for
//!   2.10.9; hipRAND's NVIDIA build reports cuRAND's), not an invented one.

use crate::device_probe::DeviceProbe;
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

/// A loaded hipRAND (values translated) or cuRAND (values unchanged; what
/// [`RandLibrary::open`] gives for [`Flavor::Curand`]). `Send + Sync`: the table
/// holds plain function pointers and the library stays loaded while it lives.
#[derive(Debug)]
pub struct RandLibrary {
    loaded: Loaded<CurandTable>,
    flavor: Flavor,
    /// Whether hipRAND's HIP runtime sees a device (AMD only).
    probe: DeviceProbe,
}

impl RandLibrary {
    /// Opens the library `search` finds, of the given flavor (hipRAND's values differ), for a
    /// platform (on AMD the no-device rules apply).
    ///
    /// # Errors
    /// As [`anycuda_api::curand::load`].
    pub fn open(
        search: &anycuda_api::loader::Search,
        flavor: Flavor,
        platform: Platform,
    ) -> Result<Self, LoadError> {
        let loaded = curand::load(search, flavor)?;
        let probe = if flavor == Flavor::Hiprand {
            DeviceProbe::open(search, platform)
        } else {
            DeviceProbe::none()
        };
        Ok(Self {
            loaded,
            flavor,
            probe,
        })
    }
    /// Whether the HIP runtime hipRAND uses sees a device. True where anycuda does not ask (HIP's
    /// NVIDIA platform, cuRAND, or a hipRAND whose HIP runtime could not be looked up): the
    /// library answers for itself there.
    pub fn has_device(&self) -> bool {
        self.probe.has_device()
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

/// The random-number library for a HIP platform: hipRAND (`ANYCUDA_HIPRAND_LIBRARY`,
/// `libhiprand.so.1`, `ROCM_PATH`, `/opt/rocm`): AMD's on AMD, its NVIDIA build on HIP's NVIDIA
/// platform. Loaded once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library(platform: Platform) -> Result<&'static RandLibrary, &'static LoadError> {
    static AMD: OnceLock<Result<RandLibrary, LoadError>> = OnceLock::new();
    static NVIDIA: OnceLock<Result<RandLibrary, LoadError>> = OnceLock::new();
    let cell = match platform {
        Platform::Amd => &AMD,
        Platform::Nvidia => &NVIDIA,
    };
    let flavor = Flavor::Hiprand;
    cell.get_or_init(|| {
        let l = RandLibrary::open(&curand::HIPRAND_SEARCH, flavor, platform);
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
