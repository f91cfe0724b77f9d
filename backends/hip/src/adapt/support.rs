//! What every adaptation room uses: the loaded table, platform and layout tests, the early
//! returns for a missing library or entry point, and the Driver API's common codes.

// The Driver's common codes and the platform test are conv's (the translations use them too).
use crate::conv::ApiResult;
pub(crate) use crate::conv::{nvidia, INVALID_VALUE, NOT_SUPPORTED};
use crate::generated::table::HipTable;
use crate::hip_types::hipError_t;
use crate::HipBackend;
use anycuda_api::driver::CUresult;

/// HIP's success code (0 in every HIP version and on the NVIDIA platform).
pub(crate) const HIP_SUCCESS: hipError_t = 0;

/// `CUDA_SUCCESS`.
pub(crate) const SUCCESS: CUresult = CUresult::CUDA_SUCCESS;

/// The loaded HIP table, or the API's code for "no library".
#[inline]
pub(crate) fn table<R: ApiResult>(b: &HipBackend) -> Result<&HipTable, R> {
    b.native_hip().ok_or(R::NO_LIBRARY)
}

/// The API's code for a missing entry point (`has_library`) or a missing library.
#[cold]
pub(crate) fn unavailable<R: ApiResult>(has_library: bool) -> R {
    if has_library {
        R::NOT_SUPPORTED
    } else {
        R::NO_LIBRARY
    }
}

/// Whether the loaded HIP uses the pre-6.0 layouts (`__hip5_2` types): ROCm 5.x and HIP's
/// NVIDIA platform (built from HIP 5.2.3 headers).
pub(crate) fn pre_r0600(b: &HipBackend) -> bool {
    b.hip_version() < 60_000_000
}

/// Resolves a HIP entry point for an adaptation of either API: the function pointer, or an
/// early return with the API's code for "no library" (`CUDA_ERROR_NOT_INITIALIZED`,
/// `cudaErrorInitializationError`) or "this HIP lacks the function" (not supported).
macro_rules! hip_fn {
    ($b:expr, $f:ident) => {
        match $b.native_hip() {
            Some(t) => match t.$f {
                Some(f) => f,
                None => return $crate::adapt::support::unavailable(true),
            },
            None => return $crate::adapt::support::unavailable(false),
        }
    };
}
pub(crate) use hip_fn;

/// A Driver code as a `Result`, for adaptations built from other Driver calls.
#[inline]
pub(crate) fn code_ok(r: CUresult) -> Result<(), CUresult> {
    if r == SUCCESS {
        Ok(())
    } else {
        Err(r)
    }
}

/// The inverse of [`code_ok`]: a `Result` of Driver calls as the code an entry point returns.
#[inline]
pub(crate) fn code_of(r: Result<(), CUresult>) -> CUresult {
    r.err().unwrap_or(SUCCESS)
}

/// `?` for functions returning a bare code (`CUresult`, `cudaError_t`).
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}
pub(crate) use tri;

/// ROCm answers "no GPU" with several codes (`hipErrorNoDevice`, `hipErrorInvalidDevice`):
/// CUDA's answer is `CUDA_ERROR_NO_DEVICE` whenever there is no device at all.
pub(crate) fn no_device_or(b: &HipBackend, e: CUresult) -> CUresult {
    let Some(count) = b.native_hip().and_then(|t| t.hipGetDeviceCount) else {
        return e;
    };
    let mut n: core::ffi::c_int = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { count(&mut n) };
    if r != HIP_SUCCESS || n == 0 {
        CUresult::CUDA_ERROR_NO_DEVICE
    } else {
        e
    }
}
