//! nvJitLink on the CUDA backend: NVIDIA's library, loaded once on first use, values passed
//! unchanged. Optional: without it every call answers `NVJITLINK_ERROR_NOT_SUPPORTED` and the
//! load error is logged once.

use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use anycuda_api::nvjitlink::{self, NvJitLinkTable};
use std::sync::OnceLock;

/// nvJitLink, loaded on first use (see [`anycuda_api::nvjitlink::NVJITLINK_SEARCH`] for where
/// it is looked for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, a missing entry point or a too-old version.
pub fn library() -> Result<&'static Loaded<NvJitLinkTable>, &'static LoadError> {
    static NVJITLINK: OnceLock<Result<Loaded<NvJitLinkTable>, LoadError>> = OnceLock::new();
    NVJITLINK
        .get_or_init(|| {
            let l = nvjitlink::load(&nvjitlink::NVJITLINK_SEARCH);
            match &l {
                Ok(l) => log::debug!(
                    "cuda nvjitlink: {} ({})",
                    l.path,
                    nvjitlink::version_string(l.version)
                ),
                Err(e) => log::warn!("cuda nvjitlink: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
