//! [`Rng`]: a cuRAND generator (hipRAND on the HIP backend) bound to a [`Stream`], filling
//! [`Buffer`]s and [`BufferViewMut`]s with random numbers.
//!
//! Written on [`crate::curand`] only, so it is the same code on every backend. The checks that
//! keep a safe call inside its buffer live here: the output length is the view's, a normal or
//! log-normal fill needs an even count and an output aligned for a pair (cuRAND writes those
//! values two at a time), and the buffer must belong to the generator's context. A fill on the
//! generator's stream is a use of the buffer on that stream, tracked like a copy or a launch:
//! the buffer's memory is freed only after it (see [`super::memory`]).
//!
//! ```no_run
//! use anycuda::core::{Device, Rng};
//! let stream = Device::new(0)?.create_stream(Default::default())?;
//! let mut buf = stream.alloc::<f32>(1 << 20)?;
//! let rng = Rng::new(&stream, 1234)?;
//! rng.fill_normal(&mut buf, 0.0, 1.0)?;
//! let host = buf.to_vec()?;
//! # let _ = host;
//! # Ok::<(), anycuda::core::CoreError>(())
//! ```

use super::error::{CoreError, Result};
use super::memory::{Buffer, BufferViewMut, DeviceCopy};
use super::stream::Stream;
use super::track;
use crate::curand::{self as raw, curandGenerator_t, curandRngType_t, curandStatus_t};
use std::fmt;
use std::mem::size_of;

/// A cuRAND status as the safe layer's error, naming the call.
#[inline]
fn check(call: &'static str, code: curandStatus_t) -> Result<()> {
    match code.result() {
        Ok(()) => Ok(()),
        Err(e) => Err(CoreError::curand(call, e.0)),
    }
}

/// Whether `ty` is a pseudo-random generator type (cuRAND numbers them 100..200): the ones
/// that take a seed.
fn is_pseudo(ty: curandRngType_t) -> bool {
    (100..200).contains(&ty.0)
}

/// The output of a fill: a [`Buffer`] or a [`BufferViewMut`] of `T`, borrowed mutably.
pub trait RngOutput<T: DeviceCopy> {
    /// The whole range as a mutable view.
    ///
    /// # Errors
    /// Never for the implementations of this crate (a full-range view is always in bounds).
    fn rng_view(&mut self) -> Result<BufferViewMut<'_, T>>;
}
impl<T: DeviceCopy> RngOutput<T> for Buffer<T> {
    #[inline]
    fn rng_view(&mut self) -> Result<BufferViewMut<'_, T>> {
        Ok(self.as_view_mut())
    }
}
impl<T: DeviceCopy> RngOutput<T> for BufferViewMut<'_, T> {
    #[inline]
    fn rng_view(&mut self) -> Result<BufferViewMut<'_, T>> {
        self.view_mut(..)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for u32 {}
}

/// An element type cuRAND fills with uniform values: `f32` (`curandGenerateUniform`), `f64`
/// (`curandGenerateUniformDouble`), in (0, 1]; `u32` (`curandGenerate`), raw 32-bit values.
pub trait UniformValue: DeviceCopy + sealed::Sealed {
    /// The cuRAND call's name.
    const CALL: &'static str;
    /// Queues the fill.
    ///
    /// # Safety
    /// `g` is a live generator whose context is current; `out` holds `n` elements.
    #[doc(hidden)]
    unsafe fn generate(g: curandGenerator_t, out: *mut Self, n: usize) -> curandStatus_t;
}

/// An element type cuRAND fills with normal and log-normal values: `f32` and `f64`.
pub trait NormalValue: DeviceCopy + sealed::Sealed {
    /// The normal fill's cuRAND call.
    const NORMAL: &'static str;
    /// The log-normal fill's cuRAND call.
    const LOG_NORMAL: &'static str;
    /// Queues a normal (`log == false`) or log-normal fill.
    ///
    /// # Safety
    /// `g` is a live generator whose context is current; `out` holds `n` elements, `n` even,
    /// `out` aligned to two elements.
    #[doc(hidden)]
    unsafe fn generate(
        g: curandGenerator_t,
        out: *mut Self,
        n: usize,
        mean: Self,
        std: Self,
        log: bool,
    ) -> curandStatus_t;
}

impl UniformValue for f32 {
    const CALL: &'static str = "curandGenerateUniform";
    #[inline]
    unsafe fn generate(g: curandGenerator_t, out: *mut f32, n: usize) -> curandStatus_t {
        // SAFETY: the caller's contract.
        unsafe { raw::curandGenerateUniform(g, out, n) }
    }
}
impl UniformValue for f64 {
    const CALL: &'static str = "curandGenerateUniformDouble";
    #[inline]
    unsafe fn generate(g: curandGenerator_t, out: *mut f64, n: usize) -> curandStatus_t {
        // SAFETY: the caller's contract.
        unsafe { raw::curandGenerateUniformDouble(g, out, n) }
    }
}
impl UniformValue for u32 {
    const CALL: &'static str = "curandGenerate";
    #[inline]
    unsafe fn generate(g: curandGenerator_t, out: *mut u32, n: usize) -> curandStatus_t {
        // SAFETY: the caller's contract.
        unsafe { raw::curandGenerate(g, out, n) }
    }
}
impl NormalValue for f32 {
    const NORMAL: &'static str = "curandGenerateNormal";
    const LOG_NORMAL: &'static str = "curandGenerateLogNormal";
    #[inline]
    unsafe fn generate(
        g: curandGenerator_t,
        out: *mut f32,
        n: usize,
        mean: f32,
        std: f32,
        log: bool,
    ) -> curandStatus_t {
        // SAFETY: the caller's contract.
        unsafe {
            if log {
                raw::curandGenerateLogNormal(g, out, n, mean, std)
            } else {
                raw::curandGenerateNormal(g, out, n, mean, std)
            }
        }
    }
}
impl NormalValue for f64 {
    const NORMAL: &'static str = "curandGenerateNormalDouble";
    const LOG_NORMAL: &'static str = "curandGenerateLogNormalDouble";
    #[inline]
    unsafe fn generate(
        g: curandGenerator_t,
        out: *mut f64,
        n: usize,
        mean: f64,
        std: f64,
        log: bool,
    ) -> curandStatus_t {
        // SAFETY: the caller's contract.
        unsafe {
            if log {
                raw::curandGenerateLogNormalDouble(g, out, n, mean, std)
            } else {
                raw::curandGenerateNormalDouble(g, out, n, mean, std)
            }
        }
    }
}

/// Refuses a normal or log-normal fill cuRAND would not do within the output: cuRAND produces
/// those values in pairs (Box-Muller), so it needs an even count and an output aligned for a
/// pair. Rounding the count up would write past the end, so an odd count is an error.
fn check_pairs(call: &'static str, len: usize, addr: u64, elem: usize) -> Result<()> {
    if len % 2 != 0 {
        return Err(CoreError::usage(
            call,
            format!(
                "{len} elements: normal and log-normal fills need an even count (cuRAND \
                 generates them in pairs); fill one element more or one less"
            ),
        ));
    }
    let pair = 2 * elem as u64;
    if addr % pair != 0 {
        return Err(CoreError::usage(
            call,
            format!(
                "the output at {addr:#x} is not aligned to a pair of elements ({pair} bytes), \
                 which cuRAND writes at once: start the view at an even element"
            ),
        ));
    }
    Ok(())
}

/// A random-number generator (`curandGenerator_t`) bound to a [`Stream`]: every fill is queued
/// on that stream. cuRAND's generator on the CUDA backend, hipRAND's on the HIP backend.
///
/// The generator is destroyed on drop. It is `Send` but not `Sync`: a cuRAND generator is not
/// safe to use from two threads at once, and fills take `&self` (as cudarc's `CudaRng` does).
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<anycuda::core::Rng>(); // a generator is not Sync
/// ```
/// ```
/// fn moved_to_a_thread<T: Send>() {}
/// moved_to_a_thread::<anycuda::core::Rng>();
/// ```
pub struct Rng {
    raw: curandGenerator_t,
    stream: Stream,
    kind: curandRngType_t,
}

// SAFETY: the generator is an opaque handle usable from any thread while its context is
// current (every call binds it first); `Rng` is not `Sync`, so two threads never use it at once.
unsafe impl Send for Rng {}

impl fmt::Debug for Rng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rng")
            .field("raw", &self.raw)
            .field("kind", &self.kind)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Rng {
    /// A pseudo-random generator of cuRAND's default type (`CURAND_RNG_PSEUDO_DEFAULT`,
    /// XORWOW) on `stream`, seeded with `seed`, at offset 0.
    ///
    /// # Errors
    /// As [`Rng::with_type`].
    pub fn new(stream: &Stream, seed: u64) -> Result<Rng> {
        Self::with_type(stream, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT, seed, 0)
    }

    /// A generator of type `kind` on `stream` (`curandCreateGenerator`, `curandSetStream`),
    /// seeded with `seed` when it is a pseudo-random type (quasi-random types take no seed, and
    /// `seed` is ignored for them), at `offset` (`curandSetGeneratorOffset`).
    ///
    /// # Errors
    /// cuRAND's error: `CURAND_STATUS_TYPE_ERROR` for a type the library lacks,
    /// `CURAND_STATUS_INITIALIZATION_FAILED` without a GPU, `CURAND_STATUS_NOT_SUPPORTED` when
    /// no random-number library loads (`anycuda::curand::not_supported_reason` says why); the
    /// driver's error when the stream's context cannot be made current.
    pub fn with_type(
        stream: &Stream,
        kind: curandRngType_t,
        seed: u64,
        offset: u64,
    ) -> Result<Rng> {
        stream.context().bind()?;
        let mut g: curandGenerator_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the stream's context is current, so the generator
        // belongs to it.
        check("curandCreateGenerator", unsafe {
            raw::curandCreateGenerator(&mut g, kind)
        })?;
        if g.is_null() {
            return Err(CoreError::curand(
                "curandCreateGenerator",
                curandStatus_t::CURAND_STATUS_INTERNAL_ERROR,
            )
            .with_detail("the library reported success but returned no generator"));
        }
        // From here on, drop destroys the generator on every error path.
        let mut rng = Rng {
            raw: g,
            stream: stream.clone(),
            kind,
        };
        rng.attach(stream)?;
        if is_pseudo(kind) {
            rng.set_seed(seed)?;
        }
        rng.set_offset(offset)?;
        Ok(rng)
    }

    /// `curandSetStream` to `stream` (whose context is made current).
    fn attach(&mut self, stream: &Stream) -> Result<()> {
        stream.context().bind()?;
        // SAFETY: a live generator of this context; the stream is alive (held by `self`
        // once this returns) and the handle types are the same driver stream.
        check("curandSetStream", unsafe {
            raw::curandSetStream(self.raw, stream.as_raw().cast())
        })
    }

    /// The raw generator, for the raw layer ([`crate::curand`]). It stays owned by `self`.
    pub fn as_raw(&self) -> curandGenerator_t {
        self.raw
    }

    /// The generator's type.
    pub fn kind(&self) -> curandRngType_t {
        self.kind
    }

    /// The stream every fill is queued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Queues later fills on `stream` instead. Work already queued on the old stream is not
    /// ordered before them by this call: make `stream` wait for the old one where it matters
    /// ([`Stream::wait`]).
    ///
    /// # Errors
    /// A usage error for a stream of another context (the generator belongs to its own);
    /// cuRAND's error.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        if stream.context() != self.stream.context() {
            return Err(CoreError::usage(
                "Rng::set_stream",
                "the stream belongs to another context than the generator",
            ));
        }
        self.attach(stream)?;
        self.stream = stream.clone();
        Ok(())
    }

    /// Re-seeds the generator (`curandSetPseudoRandomGeneratorSeed`); the next fill starts
    /// the new sequence.
    ///
    /// # Errors
    /// cuRAND's error (`CURAND_STATUS_TYPE_ERROR` for a quasi-random generator).
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        self.stream.context().bind()?;
        // SAFETY: a live generator whose context is current.
        check("curandSetPseudoRandomGeneratorSeed", unsafe {
            raw::curandSetPseudoRandomGeneratorSeed(self.raw, seed)
        })
    }

    /// Sets the position in the sequence (`curandSetGeneratorOffset`).
    ///
    /// # Errors
    /// cuRAND's error.
    pub fn set_offset(&mut self, offset: u64) -> Result<()> {
        self.stream.context().bind()?;
        // SAFETY: a live generator whose context is current.
        check("curandSetGeneratorOffset", unsafe {
            raw::curandSetGeneratorOffset(self.raw, offset)
        })
    }

    /// Checks `dst` against the generator's context, makes it current, holds the capture state
    /// over `fill` (given the output's address and length) and records the use on the stream.
    fn queue<T: DeviceCopy>(
        &self,
        op: &'static str,
        dst: &mut BufferViewMut<'_, T>,
        pairs: bool,
        fill: impl FnOnce(*mut T, usize) -> Result<()>,
    ) -> Result<()> {
        if dst.context() != self.stream.context() {
            return Err(CoreError::usage(
                op,
                "the buffer belongs to another context (device) than the generator",
            ));
        }
        let (ptr, len) = (dst.as_raw(), dst.len());
        if pairs {
            check_pairs(op, len, ptr, size_of::<T>())?;
        }
        if len == 0 {
            return Ok(());
        }
        self.stream.context().bind()?;
        let cap = track::capture_state(&self.stream)?;
        fill(ptr as usize as *mut T, len)?;
        dst.arc().used_on(&self.stream, cap.id)
    }

    /// Fills `dst` with uniform values: `f32`/`f64` in (0, 1] (`curandGenerateUniform`,
    /// `curandGenerateUniformDouble`), `u32` with raw 32-bit values (`curandGenerate`).
    /// Queued on [`Rng::stream`].
    ///
    /// # Errors
    /// A usage error for a buffer of another context; cuRAND's error (for a quasi-random
    /// generator, `CURAND_STATUS_LENGTH_NOT_MULTIPLE` for a length that is not a multiple of
    /// its dimensions).
    pub fn fill_uniform<T: UniformValue>(&self, dst: &mut impl RngOutput<T>) -> Result<()> {
        let mut v = dst.rng_view()?;
        self.queue(T::CALL, &mut v, false, |p, n| {
            // SAFETY: a live generator whose context is current; `p` is the start of the
            // view's `n` elements, borrowed mutably for the call.
            check(T::CALL, unsafe { T::generate(self.raw, p, n) })
        })
    }

    /// Fills `dst` with raw 32-bit values (`curandGenerate`), as [`Rng::fill_uniform`] does
    /// for `u32`.
    ///
    /// # Errors
    /// As [`Rng::fill_uniform`].
    pub fn fill_u32(&self, dst: &mut impl RngOutput<u32>) -> Result<()> {
        self.fill_uniform(dst)
    }

    /// Fills `dst` with normally distributed values of mean `mean` and standard deviation
    /// `std` (`curandGenerateNormal`, `curandGenerateNormalDouble`).
    ///
    /// # Errors
    /// A usage error for an odd length (cuRAND generates pairs; rounding up would write past
    /// the end), for an output not aligned to two elements, or for a buffer of another
    /// context; cuRAND's error.
    pub fn fill_normal<T: NormalValue>(
        &self,
        dst: &mut impl RngOutput<T>,
        mean: T,
        std: T,
    ) -> Result<()> {
        let mut v = dst.rng_view()?;
        self.queue(T::NORMAL, &mut v, true, |p, n| {
            // SAFETY: a live generator whose context is current; `p` is the start of the
            // view's `n` elements (even, pair-aligned: checked), borrowed mutably.
            check(T::NORMAL, unsafe {
                T::generate(self.raw, p, n, mean, std, false)
            })
        })
    }

    /// Fills `dst` with log-normal values: `exp` of normal values of mean `mean` and standard
    /// deviation `std` (`curandGenerateLogNormal`, `curandGenerateLogNormalDouble`).
    ///
    /// # Errors
    /// As [`Rng::fill_normal`].
    pub fn fill_log_normal<T: NormalValue>(
        &self,
        dst: &mut impl RngOutput<T>,
        mean: T,
        std: T,
    ) -> Result<()> {
        let mut v = dst.rng_view()?;
        self.queue(T::LOG_NORMAL, &mut v, true, |p, n| {
            // SAFETY: as fill_normal.
            check(T::LOG_NORMAL, unsafe {
                T::generate(self.raw, p, n, mean, std, true)
            })
        })
    }
}

impl Drop for Rng {
    fn drop(&mut self) {
        if let Err(e) = self.stream.context().bind() {
            log::warn!("anycuda::core: binding the context to destroy an Rng: {e}");
        }
        // SAFETY: the generator is live and owned by `self`; it is destroyed once.
        let r = unsafe { raw::curandDestroyGenerator(self.raw) };
        if let Err(e) = check("curandDestroyGenerator", r) {
            log::warn!("anycuda::core: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ErrorCode;

    #[test]
    fn odd_counts_are_refused_not_rounded_up() {
        for n in [1usize, 3, 1001] {
            let e = check_pairs("curandGenerateNormal", n, 0x1000, 4).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Usage);
            assert_eq!(e.call(), "curandGenerateNormal");
            assert!(e.detail().unwrap().contains("even count"), "{e}");
        }
        for n in [0usize, 2, 1000] {
            check_pairs("curandGenerateNormal", n, 0x1000, 4).unwrap();
        }
    }

    #[test]
    fn outputs_not_aligned_to_a_pair_are_refused() {
        // f32 view starting at an odd element: 4-byte aligned, not 8.
        let e = check_pairs("curandGenerateNormal", 2, 0x1004, 4).unwrap_err();
        assert!(e.detail().unwrap().contains("8 bytes"), "{e}");
        // f64 at an odd element: 8-byte aligned, not 16.
        let e = check_pairs("curandGenerateNormalDouble", 2, 0x1008, 8).unwrap_err();
        assert!(e.detail().unwrap().contains("16 bytes"), "{e}");
        check_pairs("curandGenerateNormalDouble", 2, 0x1010, 8).unwrap();
    }

    #[test]
    fn pseudo_types_take_a_seed_and_quasi_types_do_not() {
        use curandRngType_t as T;
        for t in [
            T::CURAND_RNG_PSEUDO_DEFAULT,
            T::CURAND_RNG_PSEUDO_XORWOW,
            T::CURAND_RNG_PSEUDO_MRG32K3A,
            T::CURAND_RNG_PSEUDO_MTGP32,
            T::CURAND_RNG_PSEUDO_MT19937,
            T::CURAND_RNG_PSEUDO_PHILOX4_32_10,
        ] {
            assert!(is_pseudo(t), "{t:?}");
        }
        for t in [
            T::CURAND_RNG_QUASI_DEFAULT,
            T::CURAND_RNG_QUASI_SOBOL32,
            T::CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
            T::CURAND_RNG_TEST,
        ] {
            assert!(!is_pseudo(t), "{t:?}");
        }
    }

    #[test]
    fn curand_errors_keep_the_status() {
        let e = CoreError::curand(
            "curandGenerateNormal",
            curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE,
        );
        assert_eq!(
            e.curand_code(),
            Some(curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE)
        );
        assert_eq!(
            e.code(),
            ErrorCode::Curand(curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE)
        );
        let text = e.to_string();
        assert!(
            text.starts_with("curandGenerateNormal failed: CURAND_STATUS_LENGTH_NOT_MULTIPLE"),
            "{text}"
        );
        assert!(!e.is_not_supported());
        let ns = CoreError::curand(
            "curandCreateGenerator",
            curandStatus_t::CURAND_STATUS_NOT_SUPPORTED,
        );
        assert!(ns.is_not_supported());
        assert_eq!(ns.hip_code(), None);
        let hip = CoreError::curand(
            "curandCreateGenerator",
            curandStatus_t::CURAND_STATUS_HIPRAND_NOT_IMPLEMENTED,
        );
        assert!(
            hip.hip_code().is_some(),
            "a hallucinated status keeps hipRAND's raw code"
        );
    }
}
