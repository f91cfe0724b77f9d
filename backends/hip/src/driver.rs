//! `Driver` for HIP: CUDA signatures and values over libamdhip64.
//!
//! The impl is generated (`generated/serve.rs`, see `codegen/src/emit_hip_serve.rs`): each
//! function forwards to its HIP counterpart with every argument translated, or calls the
//! hand-written adaptation in `crate::adapt`; the rest answer `CUDA_ERROR_NOT_SUPPORTED`
//! (`DRIVER_NOT_SERVED` says why).

pub use crate::generated::serve::{DRIVER_NOT_SERVED, DRIVER_SERVED};
