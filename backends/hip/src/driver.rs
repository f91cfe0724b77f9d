//! `Driver` for HIP: CUDA signatures and values over libamdhip64.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::HipBackend;
use anycuda_api::driver::{CUdevice, CUdevice_attribute, CUresult};
use anycuda_api::traits::Driver;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_int, c_uint};

/// No libamdhip64: the driver is as good as uninitialised.
const NO_LIB: CUresult = CUresult::CUDA_ERROR_NOT_INITIALIZED;
/// The installed HIP lacks this entry point.
const NO_FN: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;

anycuda_api::served! { DRIVER_SERVED;
impl Driver for HipBackend {
    unsafe fn cuInit(&self, Flags: c_uint) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipInit(Flags)) }
    }
    unsafe fn cuDriverGetVersion(&self, driverVersion: *mut c_int) -> CUresult {
        // HIP's own version number (e.g. 50221153): there is no CUDA driver to report.
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDriverGetVersion(driverVersion)) }
    }
    unsafe fn cuDeviceGetCount(&self, count: *mut c_int) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipGetDeviceCount(count)) }
    }
    unsafe fn cuDeviceGet(&self, device: *mut CUdevice, ordinal: c_int) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDeviceGet(device, ordinal)) }
    }
    unsafe fn cuDeviceGetName(&self, name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDeviceGetName(name, len, dev)) }
    }
    unsafe fn cuDeviceGetAttribute(&self, pi: *mut c_int, attrib: CUdevice_attribute, dev: CUdevice) -> CUresult {
        let hip_attr = match self.conv.CUdevice_attribute.to_hip(attrib.to_i64()) {
            Some(a) => a as crate::hip_types::hipDeviceAttribute_t,
            // A CUDA attribute HIP lacks is not supported (never a made-up value); a value that
            // is not a CUDA attribute at all is invalid, as on CUDA.
            None if attrib.name().is_some() => return CUresult::CUDA_ERROR_NOT_SUPPORTED,
            None => return CUresult::CUDA_ERROR_INVALID_VALUE,
        };
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDeviceGetAttribute(pi, hip_attr, dev)) }
    }
    unsafe fn cuDeviceTotalMem(&self, bytes: *mut usize, dev: CUdevice) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDeviceTotalMem(bytes, dev)) }
    }
    unsafe fn cuDeviceComputeCapability(&self, major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
        unsafe { call!(self.hip, NO_LIB, NO_FN, |e| self.cu(e), hipDeviceComputeCapability(major, minor, dev)) }
    }
}
}
