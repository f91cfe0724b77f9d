//! The system (cuda.core's `system`): driver and runtime versions, the devices, and which
//! backend and libraries anycuda is using.
//!
//! ```no_run
//! use anycuda::core::system;
//! print!("{}", system::backend_info()?); // backend, why it was chosen, each library
//! println!("driver {}, {} device(s)", system::driver_version()?, system::num_devices()?);
//! # Ok::<(), anycuda::core::CoreError>(())
//! ```

use super::device::Device;
use super::error::{check, check_rt, CoreError, Result};
use crate::driver::{self, CUresult};
use crate::{runtime, BackendKind, LibraryReport};
use std::ffi::c_int;
use std::fmt;

/// A library version, decoded from the integer the API returns: CUDA's `1000 * major +
/// 10 * minor` (`12040` is 12.4), or HIP's `10_000_000 * major + 100_000 * minor + patch`
/// (`50221153` is 5.2.21153), told apart by size. Plain data: `Send + Sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch (HIP's build number; 0 for CUDA, whose encoding has none).
    pub patch: u32,
    /// The integer as the API returned it.
    pub raw: i32,
}

impl Version {
    /// Decodes a version integer (negative values become 0.0).
    pub fn from_raw(raw: i32) -> Self {
        let v = raw.max(0) as u32;
        if v >= 10_000_000 {
            Self {
                major: v / 10_000_000,
                minor: (v / 100_000) % 100,
                patch: v % 100_000,
                raw,
            }
        } else {
            Self {
                major: v / 1000,
                minor: (v % 1000) / 10,
                patch: 0,
                raw,
            }
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if self.patch != 0 {
            write!(f, ".{}", self.patch)?;
        }
        Ok(())
    }
}

/// The active backend, or `CUDA_ERROR_NOT_INITIALIZED` with the reason none could be chosen.
fn selected() -> Result<&'static crate::Selected> {
    crate::backend().map_err(|e| {
        CoreError::driver("anycuda::backend", CUresult::CUDA_ERROR_NOT_INITIALIZED)
            .with_detail(e.to_string())
    })
}

/// The driver's version (`cuDriverGetVersion`): CUDA's driver API version, or on AMD the HIP
/// runtime's version.
///
/// # Errors
/// `CUDA_ERROR_NOT_INITIALIZED` without a driver library (the detail says which); the
/// driver's error.
pub fn driver_version() -> Result<Version> {
    let mut v: c_int = 0;
    // SAFETY: valid out-pointer.
    check("cuDriverGetVersion", unsafe {
        driver::cuDriverGetVersion(&mut v)
    })
    .map_err(super::device::with_backend_detail)?;
    Ok(Version::from_raw(v))
}

/// The runtime library's version (`cudaRuntimeGetVersion`).
///
/// # Errors
/// The runtime's error (e.g. no runtime library).
pub fn runtime_version() -> Result<Version> {
    let mut v: c_int = 0;
    // SAFETY: valid out-pointer.
    check_rt("cudaRuntimeGetVersion", unsafe {
        runtime::cudaRuntimeGetVersion(&mut v)
    })?;
    Ok(Version::from_raw(v))
}

/// How many devices the active backend sees ([`Device::count`]).
///
/// # Errors
/// As [`Device::count`].
pub fn num_devices() -> Result<usize> {
    Device::count()
}

/// Every device ([`Device::all`]).
///
/// # Errors
/// As [`Device::count`].
pub fn devices() -> Result<Vec<Device>> {
    Device::all()
}

/// Which backend the safe layer runs on.
///
/// # Errors
/// `CUDA_ERROR_NOT_INITIALIZED` when no backend can be used (the detail says why).
pub fn backend_kind() -> Result<BackendKind> {
    Ok(selected()?.kind())
}

/// The active backend, why it was chosen, and each of its libraries (path and version, or why
/// it could not be loaded). Plain data: `Send + Sync`.
#[derive(Clone, Debug)]
pub struct BackendInfo {
    /// CUDA or HIP.
    pub kind: BackendKind,
    /// Where the choice came from (`select()`, `ANYCUDA_BACKEND`, auto) and why.
    pub reason: String,
    /// Each library of the backend.
    pub libraries: Vec<LibraryReport>,
}

impl fmt::Display for BackendInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "backend: {} ({})", self.kind, self.reason)?;
        for l in &self.libraries {
            match &l.status {
                Ok(lib) => writeln!(f, "  {:<8} {} ({})", l.role, lib.path, lib.version)?,
                Err(e) => writeln!(f, "  {:<8} unavailable: {e}", l.role)?,
            }
        }
        Ok(())
    }
}

/// The active backend and its libraries.
///
/// # Errors
/// As [`backend_kind`].
pub fn backend_info() -> Result<BackendInfo> {
    let s = selected()?;
    Ok(BackendInfo {
        kind: s.kind(),
        reason: s.reason.clone(),
        libraries: s.backend.libraries(),
    })
}
