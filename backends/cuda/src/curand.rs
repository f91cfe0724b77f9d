//! cuRAND on the CUDA backend: NVIDIA's library, loaded once on first use, values passed
//! unchanged. Optional: without it every call answers `CURAND_STATUS_NOT_SUPPORTED` and the
//! load error is logged once.

use anycuda_api::curand::{self, CurandTable, Flavor};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

/// cuRAND, loaded on first use (see [`anycuda_api::curand::CURAND_SEARCH`] for where it is
/// looked for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library() -> Result<&'static Loaded<CurandTable>, &'static LoadError> {
    static CURAND: OnceLock<Result<Loaded<CurandTable>, LoadError>> = OnceLock::new();
    CURAND
        .get_or_init(|| {
            let l = curand::load(&curand::CURAND_SEARCH, Flavor::Curand);
            match &l {
                Ok(l) => log::debug!(
                    "cuda curand: {} ({})",
                    l.path,
                    curand::version_string(Flavor::Curand, l.version)
                ),
                Err(e) => log::warn!("cuda curand: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
