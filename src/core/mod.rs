//! `anycuda::core`: the safe layer, in the concepts of NVIDIA's `cuda.core`.
//!
//! Written only on anycuda's own public raw layer ([`crate::driver`], [`crate::runtime`],
//! [`crate::nvrtc`]), so it runs on every backend without a line of backend code.
//!
//! | cuda.core | anycuda::core |
//! |---|---|
//! | `CUDAError` | [`CoreError`] |
//!
//! Every safe type hands out its raw handle (`as_raw`) so the layers can be mixed.

pub mod error;

pub use error::{CoreError, ErrorCode, Result};
