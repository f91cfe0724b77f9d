//! One `Result` per cuRAND call, with cudarc 0.19.10's names and signatures: the generator's
//! life ([`create_generator`], [`set_seed`], ...), the per-distribution calls of [`generate`],
//! and the generic [`UniformFill`], [`NormalFill`] and [`LogNormalFill`].
//!
//! [`CurandError`] is anycuda's own: a tuple struct over `sys::curandStatus_t`, as in cudarc,
//! whose `Display` names the status.

use super::sys;

pub use anycuda::curand::CurandError;

/// A generator of cuRAND's default pseudo-random type (`CURAND_RNG_PSEUDO_DEFAULT`).
///
/// # Errors
/// cuRAND's error (`CURAND_STATUS_INITIALIZATION_FAILED` without a GPU).
pub fn create_generator() -> Result<sys::curandGenerator_t, CurandError> {
    create_generator_kind(sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT)
}

/// A generator of type `kind` (`curandCreateGenerator`), in the thread's current context.
///
/// # Errors
/// cuRAND's error (`CURAND_STATUS_TYPE_ERROR` for an unknown type).
pub fn create_generator_kind(
    kind: sys::curandRngType_t,
) -> Result<sys::curandGenerator_t, CurandError> {
    let mut g: sys::curandGenerator_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    unsafe { sys::curandCreateGenerator(&mut g, kind) }.result()?;
    Ok(g)
}

/// `curandSetPseudoRandomGeneratorSeed`.
///
/// # Safety
/// `generator` is live (created and not destroyed).
///
/// # Errors
/// cuRAND's error.
pub unsafe fn set_seed(generator: sys::curandGenerator_t, seed: u64) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetPseudoRandomGeneratorSeed(generator, seed) }.result()
}

/// `curandSetGeneratorOffset`.
///
/// # Safety
/// `generator` is live.
///
/// # Errors
/// cuRAND's error.
pub unsafe fn set_offset(
    generator: sys::curandGenerator_t,
    offset: u64,
) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetGeneratorOffset(generator, offset) }.result()
}

/// `curandSetStream`: later generation is queued on `stream`.
///
/// # Safety
/// `generator` is live and `stream` is NULL or a live stream of the generator's context.
///
/// # Errors
/// cuRAND's error.
pub unsafe fn set_stream(
    generator: sys::curandGenerator_t,
    stream: sys::cudaStream_t,
) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetStream(generator, stream) }.result()
}

/// `curandDestroyGenerator`.
///
/// # Safety
/// `generator` is live, and not used after this call.
///
/// # Errors
/// cuRAND's error.
pub unsafe fn destroy_generator(generator: sys::curandGenerator_t) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandDestroyGenerator(generator) }.result()
}

pub mod generate {
    //! One function per distribution and element type. Every one queues the generation on the
    //! generator's stream.
    //!
    //! # Safety (every function)
    //! `gen` is live, its context is current, and `out` points to `num` elements of device
    //! memory (host memory for a host generator) that nothing else uses meanwhile. Normal and
    //! log-normal values come in pairs: `num` must be even (cuRAND answers
    //! `CURAND_STATUS_LENGTH_NOT_MULTIPLE` otherwise).

    use super::{sys, CurandError};

    /// `num` `f32` values uniform in (0, 1] (`curandGenerateUniform`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn uniform_f32(
        gen: sys::curandGenerator_t,
        out: *mut f32,
        num: usize,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateUniform(gen, out, num) }.result()
    }

    /// `num` `f64` values uniform in (0, 1] (`curandGenerateUniformDouble`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn uniform_f64(
        gen: sys::curandGenerator_t,
        out: *mut f64,
        num: usize,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateUniformDouble(gen, out, num) }.result()
    }

    /// `num` raw 32-bit values (`curandGenerate`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn uniform_u32(
        gen: sys::curandGenerator_t,
        out: *mut u32,
        num: usize,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerate(gen, out, num) }.result()
    }

    /// `num` raw 64-bit values (`curandGenerateLongLong`; 64-bit quasi-random generators only,
    /// others answer `CURAND_STATUS_TYPE_ERROR`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn uniform_u64(
        gen: sys::curandGenerator_t,
        out: *mut u64,
        num: usize,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract (u64 is C's unsigned long long on every target here).
        unsafe { sys::curandGenerateLongLong(gen, out.cast(), num) }.result()
    }

    /// `num` normal `f32` values of mean `mean` and standard deviation `std`
    /// (`curandGenerateNormal`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn normal_f32(
        gen: sys::curandGenerator_t,
        out: *mut f32,
        num: usize,
        mean: f32,
        std: f32,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateNormal(gen, out, num, mean, std) }.result()
    }

    /// `num` normal `f64` values (`curandGenerateNormalDouble`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn normal_f64(
        gen: sys::curandGenerator_t,
        out: *mut f64,
        num: usize,
        mean: f64,
        std: f64,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateNormalDouble(gen, out, num, mean, std) }.result()
    }

    /// `num` log-normal `f32` values: `exp` of normal values of mean `mean` and standard
    /// deviation `std` (`curandGenerateLogNormal`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn log_normal_f32(
        gen: sys::curandGenerator_t,
        out: *mut f32,
        num: usize,
        mean: f32,
        std: f32,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateLogNormal(gen, out, num, mean, std) }.result()
    }

    /// `num` log-normal `f64` values (`curandGenerateLogNormalDouble`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn log_normal_f64(
        gen: sys::curandGenerator_t,
        out: *mut f64,
        num: usize,
        mean: f64,
        std: f64,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGenerateLogNormalDouble(gen, out, num, mean, std) }.result()
    }

    /// `num` Poisson-distributed `u32` values of mean `lambda` (`curandGeneratePoisson`).
    ///
    /// # Safety
    /// See the [module](self).
    ///
    /// # Errors
    /// cuRAND's error.
    pub unsafe fn poisson_u32(
        gen: sys::curandGenerator_t,
        out: *mut u32,
        num: usize,
        lambda: f64,
    ) -> Result<(), CurandError> {
        // SAFETY: the caller's contract.
        unsafe { sys::curandGeneratePoisson(gen, out, num, lambda) }.result()
    }
}

/// Uniform generation into `T`: `f32`, `f64` in (0, 1], `u32`, `u64` raw bits. Implemented on
/// the generator handle, as in cudarc.
pub trait UniformFill<T> {
    /// Fills `out` with `num` values.
    ///
    /// # Safety
    /// As [`generate`]'s functions.
    ///
    /// # Errors
    /// cuRAND's error.
    unsafe fn fill(self, out: *mut T, num: usize) -> Result<(), CurandError>;
}

macro_rules! uniform {
    ($($t:ty => $f:ident),*) => {$(
        impl UniformFill<$t> for sys::curandGenerator_t {
            unsafe fn fill(self, out: *mut $t, num: usize) -> Result<(), CurandError> {
                // SAFETY: the caller's contract, forwarded.
                unsafe { generate::$f(self, out, num) }
            }
        }
    )*};
}
uniform!(f32 => uniform_f32, f64 => uniform_f64, u32 => uniform_u32, u64 => uniform_u64);

/// Normal generation into `T` (`f32`, `f64`).
pub trait NormalFill<T> {
    /// Fills `o` with `n` values of mean `m` and standard deviation `s`.
    ///
    /// # Safety
    /// As [`generate`]'s functions.
    ///
    /// # Errors
    /// cuRAND's error.
    unsafe fn fill(self, o: *mut T, n: usize, m: T, s: T) -> Result<(), CurandError>;
}

/// Log-normal generation into `T` (`f32`, `f64`).
pub trait LogNormalFill<T> {
    /// Fills `o` with `n` values whose logarithms have mean `m` and standard deviation `s`.
    ///
    /// # Safety
    /// As [`generate`]'s functions.
    ///
    /// # Errors
    /// cuRAND's error.
    unsafe fn fill(self, o: *mut T, n: usize, m: T, s: T) -> Result<(), CurandError>;
}

macro_rules! normal {
    ($($t:ty => $normal:ident, $log:ident);*) => {$(
        impl NormalFill<$t> for sys::curandGenerator_t {
            unsafe fn fill(self, o: *mut $t, n: usize, m: $t, s: $t) -> Result<(), CurandError> {
                // SAFETY: the caller's contract, forwarded.
                unsafe { generate::$normal(self, o, n, m, s) }
            }
        }
        impl LogNormalFill<$t> for sys::curandGenerator_t {
            unsafe fn fill(self, o: *mut $t, n: usize, m: $t, s: $t) -> Result<(), CurandError> {
                // SAFETY: the caller's contract, forwarded.
                unsafe { generate::$log(self, o, n, m, s) }
            }
        }
    )*};
}
normal!(f32 => normal_f32, log_normal_f32; f64 => normal_f64, log_normal_f64);
