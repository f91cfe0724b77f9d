//! cudarc's `cublaslt` module: [`CudaBlasLT`] (in [`safe`]) runs cuBLASLt's matmul ([`Matmul`])
//! with an optional fused bias and activation ([`Activation`]) on
//! [`CudaSlice`](crate::driver::CudaSlice)s and views; [`result`] has cudarc's one-call
//! wrappers (descriptors, layouts, preferences, the heuristic, `matmul`); [`sys`] is anycuda's
//! raw cuBLASLt API under cuBLASLt's names.
//!
//! cuBLASLt on the CUDA backend, hipBLASLt on the HIP backend on AMD, with cuBLASLt's names and
//! values on both (the translation is the HIP backend's). f32 everywhere; `half`'s f16 and bf16
//! with the `f16` feature, as in cudarc.

pub mod result;
pub mod safe;
pub mod sys;

pub use safe::*;
