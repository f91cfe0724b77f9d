//! `Runtime` for CUDA: straight forwarding to libcudart. The impl is generated
//! (`generated/forward.rs`, one `call!` per function); this file holds what it refers to: the
//! missing-library and missing-function codes, and the hand-written overrides listed in
//! `codegen/cuda-overrides.txt`.

#![allow(non_snake_case)]

use crate::CudaBackend;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::runtime::cudaError_t;
use anycuda_api::CudaEnum;
use core::ffi::c_char;

pub use crate::generated::forward::RUNTIME_SERVED;

/// No libcudart: initialisation cannot happen.
pub(crate) const NO_LIB: cudaError_t = cudaError_t::cudaErrorInitializationError;
/// The installed runtime predates this entry point.
pub(crate) const NO_FN: cudaError_t = cudaError_t::cudaErrorNotSupported;

/// `cudaGetErrorName`: the runtime's own answer for its codes; anycuda's tables for invented
/// (reserved-range) ones, or when there is no runtime.
///
/// # Safety
/// None beyond the trait's shape: takes a value, returns a static string.
#[inline]
pub(crate) unsafe fn cudaGetErrorName(b: &CudaBackend, error: cudaError_t) -> *const c_char {
    match b.native_runtime().and_then(|t| t.cudaGetErrorName) {
        // SAFETY: takes a value, returns a static string.
        Some(f) if !is_reserved(error.to_i64()) => unsafe { f(error) },
        _ => anycuda_api::strings::runtime_error_name(error),
    }
}

/// `cudaGetErrorString`: as [`cudaGetErrorName`], for the description.
///
/// # Safety
/// None beyond the trait's shape: takes a value, returns a static string.
#[inline]
pub(crate) unsafe fn cudaGetErrorString(b: &CudaBackend, error: cudaError_t) -> *const c_char {
    match b.native_runtime().and_then(|t| t.cudaGetErrorString) {
        // SAFETY: takes a value, returns a static string.
        Some(f) if !is_reserved(error.to_i64()) => unsafe { f(error) },
        _ => anycuda_api::strings::runtime_error_string(error),
    }
}
