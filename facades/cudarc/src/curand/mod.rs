//! cudarc's `curand` module: [`CudaRng`] (in [`safe`]) fills [`CudaSlice`](crate::driver::CudaSlice)s
//! and [`CudaViewMut`](crate::driver::CudaViewMut)s with random numbers; [`result`] has one
//! `Result` per cuRAND call; [`sys`] is anycuda's raw cuRAND API under cuRAND's names.
//!
//! cuRAND on the CUDA backend, hipRAND on the HIP backend (AMD's, or its NVIDIA build on HIP's
//! NVIDIA platform), with cuRAND's values on both. The generator's lifetime, seed, offset and
//! stream are [`anycuda::core::Rng`]'s; the fills keep cudarc's event tracking of the slice.

pub mod result;
pub mod safe;
pub mod sys;

pub use safe::*;
