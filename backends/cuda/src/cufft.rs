//! cuFFT on the CUDA backend: NVIDIA's library, loaded once on first use, values and plan
//! handles passed unchanged. Optional: without it every call answers `CUFFT_NOT_SUPPORTED` and
//! the load error is logged once.

use anycuda_api::cufft::{self, CufftTable};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

/// cuFFT, loaded on first use (see [`anycuda_api::cufft::CUFFT_SEARCH`] for where it is looked
/// for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library() -> Result<&'static Loaded<CufftTable>, &'static LoadError> {
    static CUFFT: OnceLock<Result<Loaded<CufftTable>, LoadError>> = OnceLock::new();
    CUFFT
        .get_or_init(|| {
            let l = cufft::load(&cufft::CUFFT_SEARCH);
            match &l {
                Ok(l) => log::debug!(
                    "cuda cufft: {} ({})",
                    l.path,
                    cufft::version_string(false, l.version)
                ),
                Err(e) => log::warn!("cuda cufft: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
