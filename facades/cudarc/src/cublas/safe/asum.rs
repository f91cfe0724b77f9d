//! [`Asum`]: the sum of absolute values with [`AsumConfig`] (`cublas{S,D}asum_v2`).

use super::{result, result::CublasError};
use crate::cublas::CudaBlas;
use crate::driver::DevicePtr;
use core::ffi::c_int;

/// Which elements [`Asum`] adds: `n` of them, `incx` apart.
#[derive(Debug, Copy, Clone)]
pub struct AsumConfig {
    /// How many elements.
    pub n: c_int,
    /// Elements from one to the next.
    pub incx: c_int,
}

/// The sum of absolute values of elements of type `T` (f32, f64).
pub trait Asum<T> {
    /// Writes `sum(|x[i * incx]|)` for `i < n` to `result`. In the default pointer mode
    /// (`CUBLAS_POINTER_MODE_HOST`) cuBLAS returns once `result` is written.
    ///
    /// # Safety
    /// `1 + (n - 1) * incx` elements lie inside `x`, and the handle's pointer mode is
    /// `CUBLAS_POINTER_MODE_HOST` (`result` is host memory).
    ///
    /// # Errors
    /// cuBLAS's error.
    unsafe fn asum<X: DevicePtr<T>>(
        &self,
        cfg: AsumConfig,
        x: &X,
        result: &mut T,
    ) -> Result<(), CublasError>;
}

macro_rules! asum {
    ($t:ty, $f:ident) => {
        impl Asum<$t> for CudaBlas {
            unsafe fn asum<X: DevicePtr<$t>>(
                &self,
                cfg: AsumConfig,
                x: &X,
                result: &mut $t,
            ) -> Result<(), CublasError> {
                self.bind();
                let (x, _record_x) = x.device_ptr(&self.stream);
                // SAFETY: a live handle on the stream's (bound) context; `x` is the slice's
                // start, kept in order by its guard; the extent and the pointer mode are the
                // caller's contract; `result` is a live exclusive reference.
                unsafe {
                    result::$f(
                        self.handle,
                        cfg.n,
                        x as usize as *const $t,
                        cfg.incx,
                        result,
                    )
                }
            }
        }
    };
}
asum!(f32, sasum);
asum!(f64, dasum);
