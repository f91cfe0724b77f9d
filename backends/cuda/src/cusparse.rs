//! cuSPARSE on the CUDA backend: NVIDIA's library, loaded once on first use, values passed
//! unchanged. Optional: without it every call answers `CUSPARSE_STATUS_NOT_SUPPORTED` and the
//! load error is logged once.

use anycuda_api::cusparse::{self, CusparseTable};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

/// cuSPARSE, loaded on first use (see [`anycuda_api::cusparse::CUSPARSE_SEARCH`] for where it
/// is looked for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a failed version query.
pub fn library() -> Result<&'static Loaded<CusparseTable>, &'static LoadError> {
    static CUSPARSE: OnceLock<Result<Loaded<CusparseTable>, LoadError>> = OnceLock::new();
    CUSPARSE
        .get_or_init(|| {
            let l = cusparse::load(&cusparse::CUSPARSE_SEARCH, cusparse::Flavor::Cusparse);
            match &l {
                Ok(l) => log::debug!(
                    "cuda cusparse: {} ({})",
                    l.path,
                    cusparse::version_string(l.version)
                ),
                Err(e) => log::warn!("cuda cusparse: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
