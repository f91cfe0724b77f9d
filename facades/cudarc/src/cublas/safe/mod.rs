//! [`CudaBlas`], cudarc's safe cuBLAS handle, and its operations: [`Gemm`] (GEMM and
//! strided-batched GEMM), [`Gemv`], [`Asum`] and [`GroupedGemm`], each with its config struct.
//!
//! Every operation passes its slices to cuBLAS through cudarc's
//! [`DevicePtr`](crate::driver::DevicePtr)/[`DevicePtrMut`](crate::driver::DevicePtrMut) on the
//! handle's stream, so with several streams in a context the slices' read and write events
//! order the GEMM after earlier writers (and readers, for the output) and later users after it,
//! exactly as in cudarc.

use super::{result, result::CublasError, sys};
use crate::driver::CudaStream;
use std::sync::Arc;

mod asum;
mod gemm;
mod gemv;
mod grouped_gemm;

pub use asum::*;
pub use gemm::*;
pub use gemv::*;
pub use grouped_gemm::*;

/// A cuBLAS handle bound to a [`CudaStream`]: every operation is queued on that stream.
///
/// ```no_run
/// # extern crate anycuda_cudarc as cudarc;
/// use cudarc::cublas::{sys::cublasOperation_t, CudaBlas, Gemm, GemmConfig};
/// use cudarc::driver::CudaContext;
/// let ctx = CudaContext::new(0)?;
/// let stream = ctx.default_stream();
/// let blas = CudaBlas::new(stream.clone())?;
/// let a = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let b = stream.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let mut c = stream.alloc_zeros::<f32>(4)?;
/// let n = cublasOperation_t::CUBLAS_OP_N;
/// let cfg = GemmConfig { transa: n, transb: n, m: 2, n: 2, k: 2, alpha: 1.0, lda: 2, ldb: 2, beta: 0.0, ldc: 2 };
/// // SAFETY: every matrix fits in its slice (2 x 2, leading dimension 2).
/// unsafe { blas.gemm(cfg, &a, &b, &mut c) }?;
/// assert_eq!(stream.clone_dtoh(&c)?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Created by [`CudaBlas::new`] (`cublasCreate_v2` in the stream's context, then
/// `cublasSetStream_v2`); destroyed on drop. It holds the stream's `Arc`, so the stream and
/// its context outlive the handle. Each operation makes the stream's context current first
/// (cudarc leaves that to the caller; cuBLAS queues on whatever context is current, so a call
/// from a fresh thread would otherwise miss the handle's context). A failed destroy is logged,
/// where cudarc panics.
#[derive(Debug)]
pub struct CudaBlas {
    pub(crate) handle: sys::cublasHandle_t,
    pub(crate) stream: Arc<CudaStream>,
}

// SAFETY: the handle is a pointer to cuBLAS's library context, usable from any thread (cuBLAS
// documents its functions as callable from several host threads, the same handle included);
// the stream is `Send + Sync`.
unsafe impl Send for CudaBlas {}
// SAFETY: the safe methods through `&self` only read or set the handle's pointer mode, which
// cuBLAS keeps in the handle; every operation that enqueues work is `unsafe`, with the caller
// answering for concurrent use of the memory.
unsafe impl Sync for CudaBlas {}

impl CudaBlas {
    /// A handle in `stream`'s context whose operations run on `stream`.
    ///
    /// # Errors
    /// cuBLAS's error (`CUBLAS_STATUS_NOT_INITIALIZED` when cuBLAS cannot start, e.g. without a
    /// GPU; `CUBLAS_STATUS_NOT_SUPPORTED` with no BLAS library, with the reason in
    /// [`sys::not_supported_reason`]).
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CublasError> {
        let ctx = stream.context();
        ctx.record_err(ctx.bind_to_thread());
        let handle = result::create_handle()?;
        // SAFETY: the handle was just created in the stream's context (bound above), and the
        // stream is live while `stream` is.
        if let Err(e) = unsafe { result::set_stream(handle, stream.cu_stream()) } {
            // SAFETY: the handle is live and not used again (cudarc leaks it here).
            if let Err(d) = unsafe { result::destroy_handle(handle) } {
                log::warn!("anycuda-cudarc cublas: destroying a handle after {e}: {d}");
            }
            return Err(e);
        }
        Ok(Self { handle, stream })
    }

    /// The raw cuBLAS handle, for calls through [`result`] or [`sys`].
    pub fn handle(&self) -> &sys::cublasHandle_t {
        &self.handle
    }

    /// Queues later operations on `stream`.
    ///
    /// # Safety
    /// Work already queued on the old stream is not ordered before later operations:
    /// synchronize the streams where that matters (as in cudarc).
    ///
    /// # Errors
    /// cuBLAS's error; `CUBLAS_STATUS_INVALID_VALUE` for a stream of another context (the handle
    /// belongs to its own; cudarc passes it on to cuBLAS, whose later work would fail).
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CublasError> {
        if stream.ctx != self.stream.ctx {
            log::warn!("anycuda-cudarc cublas: set_stream with a stream of another context");
            return Err(CublasError(
                sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
            ));
        }
        // SAFETY: the handle is live while `self` is; the stream is live while `stream` is,
        // and belongs to the handle's context (checked above).
        unsafe { result::set_stream(self.handle, stream.cu_stream()) }?;
        self.stream = stream;
        Ok(())
    }

    /// Sets where the scalars (`alpha`, `beta`) and results (`asum`'s) live: host memory
    /// (`CUBLAS_POINTER_MODE_HOST`, the default, which [`Gemm`], [`Gemv`] and [`Asum`] use) or
    /// device memory (`CUBLAS_POINTER_MODE_DEVICE`, for calls through [`result`]
    /// with device scalars).
    ///
    /// # Errors
    /// cuBLAS's error (`CUBLAS_STATUS_INVALID_VALUE` for an unknown mode).
    pub fn set_pointer_mode(
        &self,
        pointer_mode: sys::cublasPointerMode_t,
    ) -> Result<(), CublasError> {
        // SAFETY: the handle is live while `self` is; the mode is a value cuBLAS checks.
        unsafe { sys::cublasSetPointerMode_v2(self.handle, pointer_mode) }.result()
    }

    /// The handle's pointer mode.
    ///
    /// # Errors
    /// cuBLAS's error.
    pub fn get_pointer_mode(&self) -> Result<sys::cublasPointerMode_t, CublasError> {
        let mut mode = sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        // SAFETY: the handle is live while `self` is; `mode` is a valid out-pointer.
        unsafe { sys::cublasGetPointerMode_v2(self.handle, &mut mode) }.result()?;
        Ok(mode)
    }

    /// Makes the stream's context current before work is queued (an error is recorded on the
    /// context, as cudarc records errors it cannot return).
    #[inline]
    pub(crate) fn bind(&self) {
        let ctx = &self.stream.ctx;
        ctx.record_err(ctx.bind_to_thread());
    }
}

impl Drop for CudaBlas {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if handle.is_null() {
            return;
        }
        self.bind();
        // SAFETY: the handle is live and, swapped out of `self`, never used again.
        if let Err(e) = unsafe { result::destroy_handle(handle) } {
            log::warn!("anycuda-cudarc cublas: cublasDestroy_v2 failed: {e}");
        }
    }
}
