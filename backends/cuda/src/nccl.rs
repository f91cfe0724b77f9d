//! NCCL on the CUDA backend: NVIDIA's library, loaded once, values passed unchanged.

use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use anycuda_api::nccl::{self, NcclTable};
use std::sync::OnceLock;

/// NCCL, loaded on first use (see [`anycuda_api::nccl::NCCL_SEARCH`] for where it is looked
/// for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, a missing entry point or a too-old version.
pub fn library() -> Result<&'static Loaded<NcclTable>, &'static LoadError> {
    static NCCL: OnceLock<Result<Loaded<NcclTable>, LoadError>> = OnceLock::new();
    NCCL.get_or_init(|| {
        let l = nccl::load(&nccl::NCCL_SEARCH);
        match &l {
            Ok(l) => log::debug!(
                "cuda nccl: {} ({})",
                l.path,
                nccl::version_string(l.version)
            ),
            Err(e) => log::debug!("cuda nccl: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
