//! NVML on the CUDA backend: NVIDIA's `libnvidia-ml.so.1` (part of the driver), loaded once on
//! first use, every call forwarded with its values unchanged. Optional: without it every call
//! answers `NVML_ERROR_LIBRARY_NOT_FOUND` and the load error is logged once.
//!
//! Devices are NVML's own: like NVIDIA's library, this lists every GPU of the machine and
//! ignores `CUDA_VISIBLE_DEVICES` (which only masks what the CUDA driver enumerates).

use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use anycuda_api::nvml::{self, NvmlTable};
use std::sync::OnceLock;

/// NVML, loaded on first use (see [`anycuda_api::nvml::NVML_SEARCH`] for where it is looked
/// for), or why it could not be.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing `nvmlInit_v2`.
pub fn library() -> Result<&'static Loaded<NvmlTable>, &'static LoadError> {
    static NVML: OnceLock<Result<Loaded<NvmlTable>, LoadError>> = OnceLock::new();
    NVML.get_or_init(|| {
        let l = nvml::load(&nvml::NVML_SEARCH);
        match &l {
            Ok(l) => log::debug!(
                "cuda nvml: {} ({} of {} entry points)",
                l.path,
                l.table.loaded_count(),
                nvml::NVML_FUNCTIONS.len()
            ),
            Err(e) => log::warn!("cuda nvml: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
