//! cuBLAS on the HIP backend: hipBLAS, translated. The translation is being built: until it
//! lands, [`library`] reports that no BLAS library is served and every call through
//! [`BlasLibrary`] answers `CUBLAS_STATUS_NOT_SUPPORTED` with a reason.

use crate::Platform;
use anycuda_api::error::LoadError;

#[path = "generated/cublas.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub(crate) use anycuda_api::cublas::refuse;

/// A loaded hipBLAS (the translation is pending: nothing can be loaded yet).
#[derive(Debug)]
pub struct BlasLibrary {
    _private: (),
}

impl BlasLibrary {
    /// `"hipBLAS"`.
    pub fn name(&self) -> &'static str {
        "hipBLAS"
    }
}

/// The BLAS library for a HIP platform: hipBLAS, once its translation lands.
///
/// # Errors
/// Always, for now: the HIP backend does not serve cuBLAS yet.
pub fn library(platform: Platform) -> Result<&'static BlasLibrary, &'static LoadError> {
    static PENDING: LoadError = LoadError::NotFound {
        library: "hipBLAS (libhipblas): the HIP backend's cuBLAS translation is not built yet",
        tried: Vec::new(),
    };
    let _ = platform;
    Err(&PENDING)
}
