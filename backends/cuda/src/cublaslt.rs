//! cuBLASLt on the CUDA backend: NVIDIA's library, loaded once on first use, values passed
//! unchanged. Optional: without it every call answers `CUBLAS_STATUS_NOT_SUPPORTED` and the load
//! error is logged once.

use anycuda_api::cublaslt::{self, CublasLtTable, Flavor};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

/// cuBLASLt, loaded on first use (see [`anycuda_api::cublaslt::CUBLASLT_SEARCH`] for where it is
/// looked for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library() -> Result<&'static Loaded<CublasLtTable>, &'static LoadError> {
    static CUBLASLT: OnceLock<Result<Loaded<CublasLtTable>, LoadError>> = OnceLock::new();
    CUBLASLT
        .get_or_init(|| {
            let l = cublaslt::load(&cublaslt::CUBLASLT_SEARCH, Flavor::CublasLt);
            match &l {
                Ok(l) => log::debug!(
                    "cuda cublaslt: {} ({})",
                    l.path,
                    cublaslt::version_string(Flavor::CublasLt, l.version)
                ),
                Err(e) => log::warn!("cuda cublaslt: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
