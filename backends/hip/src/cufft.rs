//! cuFFT on the HIP backend: hipFFT, translated through tables generated from both headers
//! (results, transform types) plus the rules below. AMD only: hipFFT's NVIDIA build (a
//! `hipfftHandle` that is an `int`, forwarding to cuFFT) is not built by `ci/hip-nvidia`, so on
//! HIP's NVIDIA platform the library does not load and every call answers
//! `CUFFT_NOT_SUPPORTED` with the reason.
//!
//! Rules kept by hand:
//! - plan handles: cuFFT's [`cufftHandle`](anycuda_api::cufft::cufftHandle) is an `int`,
//!   hipFFT's a pointer. [`plans`] maps one to the other: a plan created through anycuda gets
//!   the next free positive `int`; a handle it never gave out (or already destroyed) answers
//!   `CUFFT_INVALID_PLAN` before hipFFT sees it, as cuFFT answers an unknown handle
//!   (`cufftDestroy(CUFFT_PLAN_NULL)` succeeds, as in cuFFT);
//! - a cuFFT function whose hipFFT twin the pinned headers do not declare (the plan properties:
//!   `cufftSetPlanPropertyInt64`, `cufftGetPlanPropertyInt64`, `cufftResetPlanProperty`)
//!   answers `CUFFT_NOT_SUPPORTED`, and [`anycuda_api::cufft::not_supported_reason`] names it;
//! - a transform type with no hipFFT counterpart answers `CUFFT_INVALID_TYPE`;
//! - on AMD, with no HIP device, every function but `cufftGetVersion`, `cufftGetProperty` and
//!   `cufftDestroy` answers `CUFFT_INTERNAL_ERROR`, cuFFT's answer without a GPU (its plans,
//!   estimates and even `cufftCreate` answer so), before hipFFT sees it;
//! - `cufftGetVersion` reports hipFFT's own version (`10027`, 1.0.27, for trixie's 6.1.2), not an invented
//!   one.

use crate::device_probe::DeviceProbe;
use crate::Platform;
use anycuda_api::cufft;
use anycuda_api::error::LoadError;
use anycuda_api::loader::{Loaded, Opened, Search};
use core::ffi::{c_int, c_void};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

#[path = "generated/cufft.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub use tables::*;

/// hipFFT's plans by cuFFT handle: what the HIP backend's `Cufft` impl looks every handle up in.
#[derive(Debug, Default)]
pub struct Plans {
    inner: Mutex<PlanMap>,
}

#[derive(Debug, Default)]
struct PlanMap {
    /// cuFFT handle -> hipFFT plan (its address).
    by_handle: HashMap<c_int, usize>,
    /// The last handle given out.
    last: c_int,
}

impl Plans {
    fn map(&self) -> std::sync::MutexGuard<'_, PlanMap> {
        // A panic elsewhere while the lock was held leaves the map consistent (every update is
        // one insert or remove): keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
    /// Registers a hipFFT plan and returns its cuFFT handle: the next positive `int` not in use.
    pub fn insert(&self, plan: *mut c_void) -> c_int {
        let mut m = self.map();
        loop {
            m.last = if m.last == c_int::MAX { 1 } else { m.last + 1 };
            let h = m.last;
            if let std::collections::hash_map::Entry::Vacant(e) = m.by_handle.entry(h) {
                e.insert(plan as usize);
                return h;
            }
        }
    }
    /// The hipFFT plan of a handle this table gave out, `None` for any other.
    pub fn get(&self, handle: c_int) -> Option<*mut c_void> {
        self.map().by_handle.get(&handle).map(|p| *p as *mut c_void)
    }
    /// Takes a handle out of the table and returns its hipFFT plan, `None` for an unknown one.
    pub fn remove(&self, handle: c_int) -> Option<*mut c_void> {
        self.map()
            .by_handle
            .remove(&handle)
            .map(|p| p as *mut c_void)
    }
    /// How many plans are registered.
    pub fn len(&self) -> usize {
        self.map().by_handle.len()
    }
    /// Whether no plan is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The process's plan table (one per process: handles are process-wide in cuFFT too).
pub fn plans() -> &'static Plans {
    static PLANS: OnceLock<Plans> = OnceLock::new();
    PLANS.get_or_init(Plans::default)
}

pub(crate) use anycuda_api::cufft::{missing_entry_point as not_loaded, refuse};

/// A loaded hipFFT. `Send + Sync`: the table holds plain function pointers and the library
/// stays loaded while it lives.
#[derive(Debug)]
pub struct FftLibrary {
    loaded: Loaded<HipfftTable>,
    /// Whether hipFFT's HIP runtime sees a device (AMD only).
    probe: DeviceProbe,
}

impl FftLibrary {
    /// Opens the hipFFT `search` finds, for a platform (on AMD the no-device rules apply).
    ///
    /// # Errors
    /// As [`anycuda_api::cufft::query_version`], or [`LoadError::NotFound`]; on HIP's NVIDIA
    /// platform always [`LoadError::NotFound`] (hipFFT's NVIDIA build has another ABI).
    pub fn open(search: &Search, platform: Platform) -> Result<Self, LoadError> {
        if platform == Platform::Nvidia {
            return Err(LoadError::NotFound {
                library: search.library,
                tried: vec!["hipFFT on HIP's NVIDIA platform: not served (its NVIDIA build's plan handle is an int, and ci/hip-nvidia does not build it)".into()],
            });
        }
        let o: Opened = search.open()?;
        let (version, path) = cufft::query_version(&o, search.library, c"hipfftGetVersion")?;
        // SAFETY: each symbol is resolved by the name hipfft.h declares; the table's field has
        // that declaration's ABI (codegen checks the pairs' shapes).
        let table = unsafe {
            HipfftTable::load(
                |sym| match std::ffi::CStr::from_bytes_with_nul(sym.as_bytes()) {
                    Ok(n) => o.sym(n),
                    Err(_) => core::ptr::null_mut(),
                },
            )
        };
        let probe = DeviceProbe::open(search, platform);
        Ok(Self {
            loaded: Loaded::new(table, path, version, o, Vec::new()),
            probe,
        })
    }
    /// Whether the HIP runtime hipFFT uses sees a device. True where anycuda does not ask (a
    /// hipFFT whose HIP runtime could not be looked up): the library answers for itself there.
    pub fn has_device(&self) -> bool {
        self.probe.has_device()
    }
    /// The raw entry points (hipFFT's own values and handles).
    #[inline]
    pub fn table(&self) -> &HipfftTable {
        &self.loaded.table
    }
    /// The file the loader mapped.
    pub fn path(&self) -> &str {
        &self.loaded.path
    }
    /// The version code hipFFT reported (`hipfftGetVersion`).
    pub fn version(&self) -> i32 {
        self.loaded.version
    }
}

/// The FFT library for a HIP platform: hipFFT (`ANYCUDA_HIPFFT_LIBRARY`, `libhipfft.so.0`,
/// `ROCM_PATH`, `/opt/rocm`) on AMD; none on HIP's NVIDIA platform. Loaded once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library(platform: Platform) -> Result<&'static FftLibrary, &'static LoadError> {
    static AMD: OnceLock<Result<FftLibrary, LoadError>> = OnceLock::new();
    static NVIDIA: OnceLock<Result<FftLibrary, LoadError>> = OnceLock::new();
    let cell = match platform {
        Platform::Amd => &AMD,
        Platform::Nvidia => &NVIDIA,
    };
    cell.get_or_init(|| {
        let l = FftLibrary::open(&cufft::HIPFFT_SEARCH, platform);
        match &l {
            Ok(l) => log::debug!(
                "hip hipFFT: {} ({})",
                l.path(),
                cufft::version_string(true, l.version())
            ),
            Err(e) => log::warn!("hip FFT library: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
