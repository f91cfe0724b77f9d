//! `Driver` for CUDA: straight forwarding to libcuda. The impl is generated
//! (`generated/forward.rs`, one `call!` per function); this file holds what it refers to: the
//! missing-library and missing-function codes, and the hand-written overrides listed in
//! `codegen/cuda-overrides.txt`.

#![allow(non_snake_case)]

use crate::CudaBackend;
use anycuda_api::driver::CUresult;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::CudaEnum;
use core::ffi::c_char;

pub use crate::generated::forward::DRIVER_SERVED;
// Module and library loads: PTX the driver refuses is rescued from its source bundle.
pub(crate) use crate::rtc_bundle::{
    cuLibraryLoadData, cuLibraryLoadFromFile, cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx,
};

/// No libcuda: the driver is as good as uninitialised.
pub(crate) const NO_LIB: CUresult = CUresult::CUDA_ERROR_NOT_INITIALIZED;
/// The installed driver predates this entry point.
pub(crate) const NO_FN: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;

/// The signature of `cuGetErrorName`/`cuGetErrorString` (and of anycuda's table versions).
type ErrorText = unsafe extern "C" fn(CUresult, *mut *const c_char) -> CUresult;
type TableText = unsafe fn(CUresult, *mut *const c_char, CUresult) -> CUresult;

/// The driver's own answer for its codes; anycuda's tables for invented (reserved-range) ones,
/// or when there is no driver. A NULL `pStr` is refused (the driver would dereference it).
///
/// # Safety
/// `pStr` is NULL or valid for one pointer write.
unsafe fn error_text(
    driver: Option<ErrorText>,
    tables: TableText,
    error: CUresult,
    pStr: *mut *const c_char,
) -> CUresult {
    if pStr.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    if let Some(f) = driver.filter(|_| !is_reserved(error.to_i64())) {
        // SAFETY: `pStr` is non-null and valid by the caller's contract.
        if unsafe { f(error, pStr) } == CUresult::CUDA_SUCCESS {
            return CUresult::CUDA_SUCCESS;
        }
    }
    // SAFETY: as above.
    unsafe { tables(error, pStr, CUresult::CUDA_ERROR_INVALID_VALUE) }
}

/// `cuGetErrorName`: see [`error_text`].
///
/// # Safety
/// `pStr` is NULL or valid for one pointer write.
#[inline]
pub(crate) unsafe fn cuGetErrorName(
    b: &CudaBackend,
    error: CUresult,
    pStr: *mut *const c_char,
) -> CUresult {
    let driver = b.native_driver().and_then(|t| t.cuGetErrorName);
    // SAFETY: forwarded contract.
    unsafe { error_text(driver, anycuda_api::strings::error_name, error, pStr) }
}

/// `cuGetErrorString`: see [`error_text`].
///
/// # Safety
/// `pStr` is NULL or valid for one pointer write.
#[inline]
pub(crate) unsafe fn cuGetErrorString(
    b: &CudaBackend,
    error: CUresult,
    pStr: *mut *const c_char,
) -> CUresult {
    let driver = b.native_driver().and_then(|t| t.cuGetErrorString);
    // SAFETY: forwarded contract.
    unsafe { error_text(driver, anycuda_api::strings::error_string, error, pStr) }
}

/// Runs `$f` on NVIDIA's driver unless `$check` refuses the arguments
/// (`anycuda_api::arg_checks`: classes NVIDIA's driver crashes on).
macro_rules! checked {
    ($b:expr, $check:expr, $f:ident($($a:expr),* $(,)?)) => {
        match $check {
            Some(refused) => refused,
            None => crate::loader::call!($b.driver, NO_LIB, NO_FN, $f($($a),*)),
        }
    };
}

/// `cuDeviceGetName` through
/// [`arg_checks::device_get_name_with`](anycuda_api::arg_checks::device_get_name_with): a
/// refused buffer never reaches NVIDIA's driver, which still judges the device.
///
/// # Safety
/// CUDA's contract: `name` writable for `len` bytes.
pub(crate) unsafe fn cuDeviceGetName(
    b: &CudaBackend,
    name: *mut c_char,
    len: core::ffi::c_int,
    dev: anycuda_api::driver::CUdevice,
) -> CUresult {
    anycuda_api::arg_checks::device_get_name_with(name, len, |name, len| {
        // SAFETY: `name` is writable for `len` bytes: the caller's, checked, or anycuda's own.
        unsafe { crate::loader::call!(b.driver, NO_LIB, NO_FN, cuDeviceGetName(name, len, dev)) }
    })
}

/// `cuFuncSetAttribute`: [`arg_checks::func_attribute`](anycuda_api::arg_checks::func_attribute)
/// first.
///
/// # Safety
/// CUDA's contract.
pub(crate) unsafe fn cuFuncSetAttribute(
    b: &CudaBackend,
    hfunc: anycuda_api::driver::CUfunction,
    attrib: anycuda_api::driver::CUfunction_attribute,
    value: core::ffi::c_int,
) -> CUresult {
    // SAFETY: the caller's contract, passed on once the class is checked.
    unsafe {
        checked!(
            b,
            anycuda_api::arg_checks::func_attribute(attrib),
            cuFuncSetAttribute(hfunc, attrib, value)
        )
    }
}

/// `cuMemPoolSetAttribute`: a NULL value refused first.
///
/// # Safety
/// CUDA's contract: `value` points to the attribute's type.
pub(crate) unsafe fn cuMemPoolSetAttribute(
    b: &CudaBackend,
    pool: anycuda_api::driver::CUmemoryPool,
    attr: anycuda_api::driver::CUmemPool_attribute,
    value: *mut core::ffi::c_void,
) -> CUresult {
    // SAFETY: the caller's contract, passed on once the class is checked.
    unsafe {
        checked!(
            b,
            anycuda_api::arg_checks::non_null(value),
            cuMemPoolSetAttribute(pool, attr, value)
        )
    }
}

/// `cuModuleGetLoadingMode`: a NULL out-pointer refused first.
///
/// # Safety
/// CUDA's contract: `mode` writable.
pub(crate) unsafe fn cuModuleGetLoadingMode(
    b: &CudaBackend,
    mode: *mut anycuda_api::driver::CUmoduleLoadingMode,
) -> CUresult {
    // SAFETY: the caller's contract, passed on once the class is checked.
    unsafe {
        checked!(
            b,
            anycuda_api::arg_checks::non_null(mode),
            cuModuleGetLoadingMode(mode)
        )
    }
}
