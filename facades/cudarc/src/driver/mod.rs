//! cudarc's `driver` module: the safe types ([`CudaContext`], [`CudaStream`], [`CudaSlice`],
//! [`LaunchConfig`], ...), [`result`] (one `Result` per driver call) and [`sys`] (the raw Driver
//! API under CUDA's names), on anycuda's dispatched Driver API.

mod generated;
pub mod result;
pub mod safe;
pub mod sys;

pub use safe::*;
