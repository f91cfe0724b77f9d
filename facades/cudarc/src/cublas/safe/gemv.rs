//! [`Gemv`]: matrix-vector multiplication with [`GemvConfig`] (`cublas{S,D}gemv_v2`).

use super::{result, result::CublasError, sys};
use crate::cublas::CudaBlas;
use crate::driver::{DevicePtr, DevicePtrMut};
use core::ffi::c_int;

/// The shape of one GEMV, `y = alpha * op(A) * x + beta * y`, column-major: `A` is `m x n`.
#[derive(Debug, Copy, Clone)]
pub struct GemvConfig<T> {
    /// `op(A)`: `CUBLAS_OP_N`, `CUBLAS_OP_T` or `CUBLAS_OP_C`.
    pub trans: sys::cublasOperation_t,
    /// Rows of `A`.
    pub m: c_int,
    /// Columns of `A`.
    pub n: c_int,
    /// Scales the product.
    pub alpha: T,
    /// Leading dimension of `A`.
    pub lda: c_int,
    /// Elements from one `x` value to the next.
    pub incx: c_int,
    /// Scales `y`'s old value.
    pub beta: T,
    /// Elements from one `y` value to the next.
    pub incy: c_int,
}

/// Matrix-vector multiplication of elements of type `T` (f32, f64), queued on the handle's
/// stream.
pub trait Gemv<T> {
    /// `y = alpha * op(a) * x + beta * y`.
    ///
    /// # Safety
    /// The sizes, leading dimension and increments in `cfg` stay inside `a`, `x` and `y`.
    ///
    /// # Errors
    /// cuBLAS's error (`CUBLAS_STATUS_INVALID_VALUE` for a negative size, a zero increment or
    /// a leading dimension too small).
    unsafe fn gemv<A: DevicePtr<T>, X: DevicePtr<T>, Y: DevicePtrMut<T>>(
        &self,
        cfg: GemvConfig<T>,
        a: &A,
        x: &X,
        y: &mut Y,
    ) -> Result<(), CublasError>;
}

macro_rules! gemv {
    ($t:ty, $f:ident) => {
        impl Gemv<$t> for CudaBlas {
            unsafe fn gemv<A: DevicePtr<$t>, X: DevicePtr<$t>, Y: DevicePtrMut<$t>>(
                &self,
                cfg: GemvConfig<$t>,
                a: &A,
                x: &X,
                y: &mut Y,
            ) -> Result<(), CublasError> {
                self.bind();
                let (a, _record_a) = a.device_ptr(&self.stream);
                let (x, _record_x) = x.device_ptr(&self.stream);
                let (y, _record_y) = y.device_ptr_mut(&self.stream);
                // SAFETY: a live handle on the stream's (bound) context; the pointers are the
                // slices' starts, kept in order by the guards; the extents are the caller's
                // contract; the scalars live on this frame for the call.
                unsafe {
                    result::$f(
                        self.handle,
                        cfg.trans,
                        cfg.m,
                        cfg.n,
                        &cfg.alpha,
                        a as usize as *const $t,
                        cfg.lda,
                        x as usize as *const $t,
                        cfg.incx,
                        &cfg.beta,
                        y as usize as *mut $t,
                        cfg.incy,
                    )
                }
            }
        }
    };
}
gemv!(f32, sgemv);
gemv!(f64, dgemv);
