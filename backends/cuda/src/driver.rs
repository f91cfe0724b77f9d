//! `Driver` for CUDA: straight forwarding to libcuda.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::driver::{CUdevice, CUdevice_attribute, CUresult};
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::traits::Driver;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_int, c_uint};

/// No libcuda: the driver is as good as uninitialised.
const NO_LIB: CUresult = CUresult::CUDA_ERROR_NOT_INITIALIZED;
/// The installed driver predates this entry point.
const NO_FN: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;

anycuda_api::served! { DRIVER_SERVED;
impl Driver for CudaBackend {
    unsafe fn cuInit(&self, Flags: c_uint) -> CUresult {
        unsafe { call!(self.driver, NO_LIB, NO_FN, cuInit(Flags)) }
    }
    unsafe fn cuDriverGetVersion(&self, driverVersion: *mut c_int) -> CUresult {
        unsafe {
            call!(
                self.driver,
                NO_LIB,
                NO_FN,
                cuDriverGetVersion(driverVersion)
            )
        }
    }
    unsafe fn cuDeviceGetCount(&self, count: *mut c_int) -> CUresult {
        unsafe { call!(self.driver, NO_LIB, NO_FN, cuDeviceGetCount(count)) }
    }
    unsafe fn cuDeviceGet(&self, device: *mut CUdevice, ordinal: c_int) -> CUresult {
        unsafe { call!(self.driver, NO_LIB, NO_FN, cuDeviceGet(device, ordinal)) }
    }
    unsafe fn cuDeviceGetName(&self, name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
        unsafe { call!(self.driver, NO_LIB, NO_FN, cuDeviceGetName(name, len, dev)) }
    }
    unsafe fn cuDeviceGetAttribute(
        &self,
        pi: *mut c_int,
        attrib: CUdevice_attribute,
        dev: CUdevice,
    ) -> CUresult {
        unsafe {
            call!(
                self.driver,
                NO_LIB,
                NO_FN,
                cuDeviceGetAttribute(pi, attrib, dev)
            )
        }
    }
    unsafe fn cuDeviceTotalMem(&self, bytes: *mut usize, dev: CUdevice) -> CUresult {
        unsafe { call!(self.driver, NO_LIB, NO_FN, cuDeviceTotalMem(bytes, dev)) }
    }
    unsafe fn cuDeviceComputeCapability(
        &self,
        major: *mut c_int,
        minor: *mut c_int,
        dev: CUdevice,
    ) -> CUresult {
        unsafe {
            call!(
                self.driver,
                NO_LIB,
                NO_FN,
                cuDeviceComputeCapability(major, minor, dev)
            )
        }
    }
    unsafe fn cuGetErrorName(&self, error: CUresult, pStr: *mut *const c_char) -> CUresult {
        if pStr.is_null() {
            return CUresult::CUDA_ERROR_INVALID_VALUE; // the driver would dereference it
        }
        // The driver's own answer for its codes; anycuda's tables for invented ones, or when
        // there is no driver.
        if !is_reserved(error.to_i64()) {
            let r = unsafe { call!(self.driver, NO_LIB, NO_FN, cuGetErrorName(error, pStr)) };
            if r == CUresult::CUDA_SUCCESS {
                return r;
            }
        }
        unsafe { anycuda_api::strings::error_name(error, pStr, CUresult::CUDA_ERROR_INVALID_VALUE) }
    }
    unsafe fn cuGetErrorString(&self, error: CUresult, pStr: *mut *const c_char) -> CUresult {
        if pStr.is_null() {
            return CUresult::CUDA_ERROR_INVALID_VALUE;
        }
        if !is_reserved(error.to_i64()) {
            let r = unsafe { call!(self.driver, NO_LIB, NO_FN, cuGetErrorString(error, pStr)) };
            if r == CUresult::CUDA_SUCCESS {
                return r;
            }
        }
        unsafe {
            anycuda_api::strings::error_string(error, pStr, CUresult::CUDA_ERROR_INVALID_VALUE)
        }
    }
}
}
