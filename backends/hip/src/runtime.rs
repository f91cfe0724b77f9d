//! `Runtime` for HIP: CUDA signatures and values over libamdhip64.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::HipBackend;
use anycuda_api::runtime::{cudaDeviceAttr, cudaError_t};
use anycuda_api::traits::Runtime;
use anycuda_api::CudaEnum;
use core::ffi::c_int;

/// No libamdhip64: initialisation cannot happen.
const NO_LIB: cudaError_t = cudaError_t::cudaErrorInitializationError;
/// The installed HIP lacks this entry point.
const NO_FN: cudaError_t = cudaError_t::cudaErrorNotSupported;

impl HipBackend {
    /// Translates a HIP error into the CUDA Runtime API's code.
    fn rt(&self, e: crate::hip_types::hipError_t) -> cudaError_t {
        crate::translate(
            self.conv.cudaError_t,
            e as i64,
            cudaError_t::cudaErrorUnknown,
        )
    }
}

anycuda_api::served! { RUNTIME_SERVED;
impl Runtime for HipBackend {
    unsafe fn cudaDriverGetVersion(&self, driverVersion: *mut c_int) -> cudaError_t {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipDriverGetVersion(driverVersion)) }
    }
    unsafe fn cudaRuntimeGetVersion(&self, runtimeVersion: *mut c_int) -> cudaError_t {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipRuntimeGetVersion(runtimeVersion)) }
    }
    unsafe fn cudaGetDeviceCount(&self, count: *mut c_int) -> cudaError_t {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipGetDeviceCount(count)) }
    }
    unsafe fn cudaGetDevice(&self, device: *mut c_int) -> cudaError_t {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipGetDevice(device)) }
    }
    unsafe fn cudaSetDevice(&self, device: c_int) -> cudaError_t {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipSetDevice(device)) }
    }
    unsafe fn cudaDeviceGetAttribute(&self, value: *mut c_int, attr: cudaDeviceAttr, device: c_int) -> cudaError_t {
        let hip_attr = match self.conv.cudaDeviceAttr.to_hip(attr.to_i64()) {
            Some(a) => a as crate::hip_types::hipDeviceAttribute_t,
            None if attr.name().is_some() => return cudaError_t::cudaErrorNotSupported,
            None => return cudaError_t::cudaErrorInvalidValue,
        };
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.rt(e), hipDeviceGetAttribute(value, hip_attr, device)) }
    }
}
}
