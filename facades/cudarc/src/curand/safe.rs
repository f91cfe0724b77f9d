//! [`CudaRng`]: cudarc's safe generator, on [`anycuda::core::Rng`].

use super::{result, sys};
use crate::driver::{CudaStream, DevicePtrMut};
use anycuda::core::{CoreError, Rng, Stream};
use std::sync::Arc;

/// The facade's answer for a safe-layer error: cuRAND's status where the call was cuRAND's;
/// otherwise (the context could not be made current, a stream of another context) cuRAND
/// has no status for it, so `CURAND_STATUS_INTERNAL_ERROR`, with the reason logged.
#[cold]
fn to_curand(e: CoreError) -> result::CurandError {
    match e.curand_code() {
        Some(c) => result::CurandError(c),
        None => {
            log::warn!("anycuda-cudarc curand: {e}");
            result::CurandError(sys::curandStatus_t::CURAND_STATUS_INTERNAL_ERROR)
        }
    }
}

/// A random-number generator bound to a [`CudaStream`], filling
/// [`CudaSlice`](crate::driver::CudaSlice)s and [`CudaViewMut`](crate::driver::CudaViewMut)s
/// with uniform ([`CudaRng::fill_with_uniform`]), normal ([`CudaRng::fill_with_normal`]) and
/// log-normal ([`CudaRng::fill_with_log_normal`]) values, as in cudarc.
///
/// ```no_run
/// # extern crate anycuda_cudarc as cudarc;
/// use cudarc::{curand::CudaRng, driver::CudaContext};
/// let ctx = CudaContext::new(0)?;
/// let stream = ctx.default_stream();
/// let rng = CudaRng::new(0, stream.clone())?;
/// let mut a = stream.alloc_zeros::<f32>(10)?;
/// rng.fill_with_uniform(&mut a)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The generator is [`anycuda::core::Rng`]'s (created, seeded, moved between streams and
/// destroyed there; a failed destroy is logged, where cudarc panics). The fills pass the
/// slice's pointer to cuRAND through cudarc's [`DevicePtrMut`], so the slice's read and
/// write events order them as in cudarc. A `CudaRng` is `Send` (cudarc's is not) but not
/// `Sync`: a cuRAND generator must not be used by two threads at once.
pub struct CudaRng {
    // Declared before `stream`: the generator is destroyed while the stream it uses lives.
    rng: Rng,
    stream: Arc<CudaStream>,
}

impl std::fmt::Debug for CudaRng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaRng").field("rng", &self.rng).finish()
    }
}

/// The safe layer's view of `stream`.
fn core_stream(stream: &CudaStream) -> Stream {
    // SAFETY: `stream.cu_stream` is NULL or a live stream of `stream.ctx`; the returned
    // `Stream` never destroys it and lives inside a `CudaRng`, which also holds the
    // `Arc<CudaStream>` (dropped after it).
    unsafe { Stream::from_raw(&stream.ctx.core, stream.cu_stream) }
}

impl CudaRng {
    /// A generator of cuRAND's default pseudo-random type seeded with `seed`; every fill runs
    /// on `stream`.
    ///
    /// # Errors
    /// cuRAND's error (`CURAND_STATUS_INITIALIZATION_FAILED` without a GPU).
    pub fn new(seed: u64, stream: Arc<CudaStream>) -> Result<Self, result::CurandError> {
        let ctx = &stream.ctx;
        ctx.record_err(ctx.bind_to_thread());
        let rng = Rng::new(&core_stream(&stream), seed).map_err(to_curand)?;
        Ok(Self { rng, stream })
    }

    /// Runs later fills on `stream`.
    ///
    /// # Safety
    /// Work already queued on the old stream is not ordered before later fills: synchronize
    /// the streams where that matters (as in cudarc).
    ///
    /// # Errors
    /// cuRAND's error; `CURAND_STATUS_INTERNAL_ERROR` for a stream of another context (the
    /// generator belongs to its own; the reason is logged).
    pub unsafe fn set_stream(
        &mut self,
        stream: Arc<CudaStream>,
    ) -> Result<(), result::CurandError> {
        self.rng
            .set_stream(&core_stream(&stream))
            .map_err(to_curand)?;
        self.stream = stream;
        Ok(())
    }

    /// Re-seeds the generator; the next fill starts the new sequence.
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn set_seed(&mut self, seed: u64) -> Result<(), result::CurandError> {
        self.rng.set_seed(seed).map_err(to_curand)
    }

    /// Sets the position in the sequence.
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn set_offset(&mut self, offset: u64) -> Result<(), result::CurandError> {
        self.rng.set_offset(offset).map_err(to_curand)
    }

    /// The device address of `dst` for writing on this generator's stream (with cudarc's
    /// event guard), and its length, with the context current.
    fn target<'a, T, Dst: DevicePtrMut<T>>(
        &'a self,
        dst: &'a mut Dst,
    ) -> (*mut T, usize, crate::driver::SyncOnDrop<'a>) {
        let ctx = &self.stream.ctx;
        ctx.record_err(ctx.bind_to_thread());
        let num = dst.len();
        let (ptr, guard) = dst.device_ptr_mut(&self.stream);
        (ptr as usize as *mut T, num, guard)
    }

    /// Fills `dst` with uniform values: `f32`/`f64` in (0, 1], `u32`/`u64` raw bits.
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn fill_with_uniform<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
    ) -> Result<(), result::CurandError>
    where
        sys::curandGenerator_t: result::UniformFill<T>,
    {
        let (ptr, num, _record) = self.target(dst);
        // SAFETY: a live generator on this stream's context (bound); `ptr` is the start of the
        // slice's `num` elements, borrowed mutably, ordered by the guard's events.
        unsafe { result::UniformFill::fill(self.rng.as_raw(), ptr, num) }
    }

    /// Fills `dst` with normal values of mean `mean` and standard deviation `std`. cuRAND
    /// makes them in pairs: an odd length answers `CURAND_STATUS_LENGTH_NOT_MULTIPLE`.
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn fill_with_normal<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
        mean: T,
        std: T,
    ) -> Result<(), result::CurandError>
    where
        sys::curandGenerator_t: result::NormalFill<T>,
    {
        let (ptr, num, _record) = self.target(dst);
        // SAFETY: as fill_with_uniform.
        unsafe { result::NormalFill::fill(self.rng.as_raw(), ptr, num, mean, std) }
    }

    /// Fills `dst` with log-normal values (`exp` of normal values of mean `mean` and standard
    /// deviation `std`). An odd length answers `CURAND_STATUS_LENGTH_NOT_MULTIPLE`.
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn fill_with_log_normal<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
        mean: T,
        std: T,
    ) -> Result<(), result::CurandError>
    where
        sys::curandGenerator_t: result::LogNormalFill<T>,
    {
        let (ptr, num, _record) = self.target(dst);
        // SAFETY: as fill_with_uniform.
        unsafe { result::LogNormalFill::fill(self.rng.as_raw(), ptr, num, mean, std) }
    }
}
