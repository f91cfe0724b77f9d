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
