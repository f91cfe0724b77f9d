//! `Runtime` for CUDA: straight forwarding to libcudart.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::runtime::{cudaDeviceAttr, cudaError_t};
use anycuda_api::traits::Runtime;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_int};

/// No libcudart: initialisation cannot happen.
const NO_LIB: cudaError_t = cudaError_t::cudaErrorInitializationError;
/// The installed runtime predates this entry point.
const NO_FN: cudaError_t = cudaError_t::cudaErrorNotSupported;

anycuda_api::served! { RUNTIME_SERVED;
impl Runtime for CudaBackend {
    unsafe fn cudaDriverGetVersion(&self, driverVersion: *mut c_int) -> cudaError_t {
        unsafe {
            call!(
                self.runtime,
                NO_LIB,
                NO_FN,
                cudaDriverGetVersion(driverVersion)
            )
        }
    }
    unsafe fn cudaRuntimeGetVersion(&self, runtimeVersion: *mut c_int) -> cudaError_t {
        unsafe {
            call!(
                self.runtime,
                NO_LIB,
                NO_FN,
                cudaRuntimeGetVersion(runtimeVersion)
            )
        }
    }
    unsafe fn cudaGetDeviceCount(&self, count: *mut c_int) -> cudaError_t {
        unsafe { call!(self.runtime, NO_LIB, NO_FN, cudaGetDeviceCount(count)) }
    }
    unsafe fn cudaGetDevice(&self, device: *mut c_int) -> cudaError_t {
        unsafe { call!(self.runtime, NO_LIB, NO_FN, cudaGetDevice(device)) }
    }
    unsafe fn cudaSetDevice(&self, device: c_int) -> cudaError_t {
        unsafe { call!(self.runtime, NO_LIB, NO_FN, cudaSetDevice(device)) }
    }
    unsafe fn cudaDeviceGetAttribute(
        &self,
        value: *mut c_int,
        attr: cudaDeviceAttr,
        device: c_int,
    ) -> cudaError_t {
        unsafe {
            call!(
                self.runtime,
                NO_LIB,
                NO_FN,
                cudaDeviceGetAttribute(value, attr, device)
            )
        }
    }
    unsafe fn cudaGetErrorName(&self, error: cudaError_t) -> *const c_char {
        // The runtime's own answer for its codes; anycuda's tables for invented ones.
        match self.native_runtime().and_then(|t| t.cudaGetErrorName) {
            // SAFETY: takes a value, returns a static string.
            Some(f) if !is_reserved(error.to_i64()) => unsafe { f(error) },
            _ => anycuda_api::strings::runtime_error_name(error),
        }
    }
    unsafe fn cudaGetErrorString(&self, error: cudaError_t) -> *const c_char {
        match self.native_runtime().and_then(|t| t.cudaGetErrorString) {
            // SAFETY: takes a value, returns a static string.
            Some(f) if !is_reserved(error.to_i64()) => unsafe { f(error) },
            _ => anycuda_api::strings::runtime_error_string(error),
        }
    }
}
}
