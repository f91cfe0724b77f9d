//! cuBLAS on the CUDA backend: NVIDIA's library, loaded once on first use, values passed
//! unchanged. Optional: without it every call answers `CUBLAS_STATUS_NOT_SUPPORTED` and the
//! load error is logged once.

use anycuda_api::cublas::{self, CublasTable};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use std::sync::OnceLock;

/// cuBLAS, loaded on first use (see [`anycuda_api::cublas::CUBLAS_SEARCH`] for where it is
/// looked for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing version query.
pub fn library() -> Result<&'static Loaded<CublasTable>, &'static LoadError> {
    static CUBLAS: OnceLock<Result<Loaded<CublasTable>, LoadError>> = OnceLock::new();
    CUBLAS
        .get_or_init(|| {
            // NVIDIA's cuBLAS binds cuBLASLt's internals by version; NVIDIA's cuBLASLt goes into
            // the global scope first, for when `libcublasLt.so.13` is anycuda's name library
            // (anycuda_api::loader::make_global says why).
            if let Ok(lt) = crate::cublaslt::library() {
                if !anycuda_api::loader::make_global(&lt.path) {
                    log::debug!("cuda cublas: {} not made global", lt.path);
                }
            }
            let l = cublas::load(&cublas::CUBLAS_SEARCH, cublas::Flavor::Cublas).map(|(l, _)| l);
            match &l {
                Ok(l) => log::debug!(
                    "cuda cublas: {} ({})",
                    l.path,
                    cublas::version_string(l.version)
                ),
                Err(e) => log::warn!("cuda cublas: unavailable: {e}"),
            }
            l
        })
        .as_ref()
}
