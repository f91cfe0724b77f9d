//! [`Gemm`]: GEMM and strided-batched GEMM with [`GemmConfig`] and [`StridedBatchedConfig`].
//! f32 and f64 call `cublas{S,D}gemm_v2` and `cublas{S,D}gemmStridedBatched`; f16 and bf16
//! (feature `f16`) call `cublasGemmEx`/`cublasGemmStridedBatchedEx` with f32 scalars and
//! `CUBLAS_COMPUTE_32F`, as cudarc does.

use super::{result, result::CublasError, sys};
use crate::cublas::CudaBlas;
use crate::driver::{DevicePtr, DevicePtrMut};
use core::ffi::{c_int, c_longlong};

/// The shape of one GEMM, `C = alpha * op(A) * op(B) + beta * C`, in cuBLAS's column-major
/// terms: `op(A)` is `m x k`, `op(B)` is `k x n`, `C` is `m x n`.
#[derive(Debug, Copy, Clone)]
pub struct GemmConfig<T> {
    /// `op(A)`: `CUBLAS_OP_N`, `CUBLAS_OP_T` or `CUBLAS_OP_C`.
    pub transa: sys::cublasOperation_t,
    /// `op(B)`.
    pub transb: sys::cublasOperation_t,
    /// Rows of `op(A)` and `C`.
    pub m: c_int,
    /// Columns of `op(B)` and `C`.
    pub n: c_int,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: c_int,
    /// Scales the product.
    pub alpha: T,
    /// Leading dimension of `A`.
    pub lda: c_int,
    /// Leading dimension of `B`.
    pub ldb: c_int,
    /// Scales `C`'s old value (0: `C` is only written).
    pub beta: T,
    /// Leading dimension of `C`.
    pub ldc: c_int,
}

/// `batch_size` GEMMs of one shape whose matrices lie `stride_*` elements apart.
#[derive(Debug, Copy, Clone)]
pub struct StridedBatchedConfig<T> {
    /// The shape of each GEMM.
    pub gemm: GemmConfig<T>,
    /// How many GEMMs.
    pub batch_size: c_int,
    /// Elements from one `A` to the next.
    pub stride_a: c_longlong,
    /// Elements from one `B` to the next.
    pub stride_b: c_longlong,
    /// Elements from one `C` to the next.
    pub stride_c: c_longlong,
}

/// Matrix-matrix multiplication of elements of type `T`, queued on the handle's stream.
pub trait Gemm<T> {
    /// `c = alpha * op(a) * op(b) + beta * c`.
    ///
    /// # Safety
    /// The sizes and leading dimensions in `cfg` stay inside `a`, `b` and `c` (cuBLAS reads and
    /// writes what they describe, unchecked).
    ///
    /// # Errors
    /// cuBLAS's error (`CUBLAS_STATUS_INVALID_VALUE` for a negative size or a leading dimension
    /// too small).
    unsafe fn gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        cfg: GemmConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError>;

    /// `cfg.batch_size` GEMMs, the `i`-th on the matrices `i * stride_*` elements in.
    ///
    /// # Safety
    /// Every matrix of every batch stays inside `a`, `b` and `c`.
    ///
    /// # Errors
    /// cuBLAS's error.
    unsafe fn gemm_strided_batched<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        cfg: StridedBatchedConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError>;
}

/// f32 and f64: the typed calls, with the scalars read from the config on the host.
macro_rules! typed_gemm {
    ($t:ty, $gemm:ident, $batched:ident) => {
        impl Gemm<$t> for CudaBlas {
            unsafe fn gemm<A: DevicePtr<$t>, B: DevicePtr<$t>, C: DevicePtrMut<$t>>(
                &self,
                cfg: GemmConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                self.bind();
                let (a, _record_a) = a.device_ptr(&self.stream);
                let (b, _record_b) = b.device_ptr(&self.stream);
                let (c, _record_c) = c.device_ptr_mut(&self.stream);
                // SAFETY: a live handle on the stream's (bound) context; the pointers are the
                // slices' starts, kept in order by the guards; the extents are the caller's
                // contract; the scalars live on this frame for the call.
                unsafe {
                    result::$gemm(
                        self.handle,
                        cfg.transa,
                        cfg.transb,
                        cfg.m,
                        cfg.n,
                        cfg.k,
                        &cfg.alpha,
                        a as usize as *const $t,
                        cfg.lda,
                        b as usize as *const $t,
                        cfg.ldb,
                        &cfg.beta,
                        c as usize as *mut $t,
                        cfg.ldc,
                    )
                }
            }

            unsafe fn gemm_strided_batched<
                A: DevicePtr<$t>,
                B: DevicePtr<$t>,
                C: DevicePtrMut<$t>,
            >(
                &self,
                cfg: StridedBatchedConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                self.bind();
                let (a, _record_a) = a.device_ptr(&self.stream);
                let (b, _record_b) = b.device_ptr(&self.stream);
                let (c, _record_c) = c.device_ptr_mut(&self.stream);
                let g = &cfg.gemm;
                // SAFETY: as in `gemm`.
                unsafe {
                    result::$batched(
                        self.handle,
                        g.transa,
                        g.transb,
                        g.m,
                        g.n,
                        g.k,
                        &g.alpha,
                        a as usize as *const $t,
                        g.lda,
                        cfg.stride_a,
                        b as usize as *const $t,
                        g.ldb,
                        cfg.stride_b,
                        &g.beta,
                        c as usize as *mut $t,
                        g.ldc,
                        cfg.stride_c,
                        cfg.batch_size,
                    )
                }
            }
        }
    };
}
typed_gemm!(f32, sgemm, sgemm_strided_batched);
typed_gemm!(f64, dgemm, dgemm_strided_batched);

/// f16 and bf16: `cublasGemmEx`/`cublasGemmStridedBatchedEx` with `data` for A, B and C,
/// `CUBLAS_COMPUTE_32F` and so f32 scalars, `CUBLAS_GEMM_DEFAULT` (cudarc's choice).
#[cfg(feature = "f16")]
macro_rules! half_gemm {
    ($t:ty, $data:ident) => {
        impl Gemm<$t> for CudaBlas {
            unsafe fn gemm<A: DevicePtr<$t>, B: DevicePtr<$t>, C: DevicePtrMut<$t>>(
                &self,
                cfg: GemmConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                let alpha: f32 = cfg.alpha.to_f32();
                let beta: f32 = cfg.beta.to_f32();
                let data = sys::cudaDataType_t::$data;
                self.bind();
                let (a, _record_a) = a.device_ptr(&self.stream);
                let (b, _record_b) = b.device_ptr(&self.stream);
                let (c, _record_c) = c.device_ptr_mut(&self.stream);
                // SAFETY: as for f32; the scalars are f32, what CUBLAS_COMPUTE_32F reads.
                unsafe {
                    result::gemm_ex(
                        self.handle,
                        cfg.transa,
                        cfg.transb,
                        cfg.m,
                        cfg.n,
                        cfg.k,
                        (&alpha as *const f32).cast(),
                        a as usize as *const _,
                        data,
                        cfg.lda,
                        b as usize as *const _,
                        data,
                        cfg.ldb,
                        (&beta as *const f32).cast(),
                        c as usize as *mut _,
                        data,
                        cfg.ldc,
                        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                        sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
            }

            unsafe fn gemm_strided_batched<
                A: DevicePtr<$t>,
                B: DevicePtr<$t>,
                C: DevicePtrMut<$t>,
            >(
                &self,
                cfg: StridedBatchedConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                let g = &cfg.gemm;
                let alpha: f32 = g.alpha.to_f32();
                let beta: f32 = g.beta.to_f32();
                let data = sys::cudaDataType_t::$data;
                self.bind();
                let (a, _record_a) = a.device_ptr(&self.stream);
                let (b, _record_b) = b.device_ptr(&self.stream);
                let (c, _record_c) = c.device_ptr_mut(&self.stream);
                // SAFETY: as in `gemm`.
                unsafe {
                    result::gemm_strided_batched_ex(
                        self.handle,
                        g.transa,
                        g.transb,
                        g.m,
                        g.n,
                        g.k,
                        (&alpha as *const f32).cast(),
                        a as usize as *const _,
                        data,
                        g.lda,
                        cfg.stride_a,
                        b as usize as *const _,
                        data,
                        g.ldb,
                        cfg.stride_b,
                        (&beta as *const f32).cast(),
                        c as usize as *mut _,
                        data,
                        g.ldc,
                        cfg.stride_c,
                        cfg.batch_size,
                        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                        sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
            }
        }
    };
}
#[cfg(feature = "f16")]
half_gemm!(half::f16, CUDA_R_16F);
#[cfg(feature = "f16")]
half_gemm!(half::bf16, CUDA_R_16BF);
