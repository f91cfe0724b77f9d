//! Profiler control. `cuProfilerStart`/`cuProfilerStop` live in `cudaProfiler.h`, which
//! anycuda's raw layer does not cover yet, so both return `CUDA_ERROR_NOT_SUPPORTED` (with the
//! reason in the error's `Display`); profiling through nsys/rocprof without them still works.

use crate::driver::{result, sys};

const NO_PROFILER_API: &str = "cuProfilerStart/cuProfilerStop (cudaProfiler.h) are not in \
    anycuda's raw Driver API yet; profile the whole run with nsys or rocprof instead";

/// Starts the profiler on creation and stops it on drop.
#[derive(Default)]
pub struct Profiler;

impl Profiler {
    /// Starts the profiler.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_SUPPORTED` (see the module documentation).
    pub fn new() -> Result<Self, result::DriverError> {
        profiler_start()?;
        Ok(Self)
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        // Nowhere to report an error from drop.
        let _ = profiler_stop();
    }
}

/// `cuProfilerStart`.
///
/// # Errors
/// `CUDA_ERROR_NOT_SUPPORTED` (see the module documentation).
pub fn profiler_start() -> Result<(), result::DriverError> {
    Err(result::refuse(
        sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
        NO_PROFILER_API,
    ))
}

/// `cuProfilerStop`.
///
/// # Errors
/// `CUDA_ERROR_NOT_SUPPORTED` (see the module documentation).
pub fn profiler_stop() -> Result<(), result::DriverError> {
    Err(result::refuse(
        sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
        NO_PROFILER_API,
    ))
}
