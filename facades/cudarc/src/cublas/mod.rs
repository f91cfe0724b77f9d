//! cudarc's `cublas` module: [`CudaBlas`] (in [`safe`]) runs cuBLAS's GEMM ([`Gemm`]),
//! strided-batched GEMM, GEMV ([`Gemv`]), ASUM ([`Asum`]) and grouped GEMM ([`GroupedGemm`])
//! on [`CudaSlice`](crate::driver::CudaSlice)s and views; [`result`] has cudarc's one-call
//! wrappers (`sgemm`, `gemm_strided_batched_ex`, ...) and [`CublasError`](result::CublasError);
//! [`sys`] is anycuda's raw cuBLAS API under cuBLAS's names.
//!
//! cuBLAS on the CUDA backend, hipBLAS on the HIP backend, with cuBLAS's names and values on
//! both (the translation is the HIP backend's). f32 and f64 everywhere; `half`'s f16 and bf16
//! with the `f16` feature, as in cudarc.

pub mod result;
pub mod safe;
pub mod sys;

pub use safe::*;
