//! The C ABI returns only members of each API's C enum. anycuda's Rust API keeps invented
//! codes (hallucinated HIP codes, anycuda's own such as `NVRTC_ERROR_NOT_SUPPORTED`, unknown HIP
//! codes): they are distinct and printable there (design notes, "Vocabulary"). A C or Python
//! caller knows only the header's enum: a `switch` has no case for them, and cuda.bindings, which
//! turns every status into its `IntEnum`, raised `ValueError: 805306368 is not a valid
//! nvrtcResult` in 327 numba-cuda tests on the HIP backend. So every generated export passes its
//! status through [`member`]: a code in anycuda's reserved ranges becomes the enum's stand-in,
//! the code a CUDA library uses for a failure it has no closer code for, and the invented code is
//! logged (`ANYCUDA_LOG=debug`) so it is not lost.

use anycuda::cublas::cublasStatus_t;
use anycuda::cufft::cufftResult;
use anycuda::curand::curandStatus_t;
use anycuda::cusparse::cusparseStatus_t;
use anycuda::driver::CUresult;
use anycuda::nccl::ncclResult_t;
use anycuda::nvjitlink::nvJitLinkResult;
use anycuda::nvml::nvmlReturn_t;
use anycuda::nvrtc::nvrtcResult;
use anycuda::runtime::cudaError_t;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::CudaEnum;

/// A status type of the C ABI and the member it answers for an invented code.
pub trait Member: CudaEnum {
    /// The stand-in for an invented code.
    const STAND_IN: Self;

    /// The stand-in for `invented`: [`Member::STAND_IN`] unless the type knows a closer member.
    fn stand_in_for(invented: Self) -> Self {
        let _ = invented;
        Self::STAND_IN
    }
}

impl Member for CUresult {
    const STAND_IN: Self = CUresult::CUDA_ERROR_UNKNOWN;
}

impl Member for cudaError_t {
    const STAND_IN: Self = cudaError_t::cudaErrorUnknown;
}

impl Member for nvrtcResult {
    /// NVRTC's enum has no "unknown" or "not supported"; an internal error is what NVRTC itself
    /// answers for a failure that is none of the caller's doing.
    const STAND_IN: Self = nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR;
}

impl Member for nvJitLinkResult {
    /// nvJitLink's enum has no "not supported"; an internal error is what nvJitLink answers for
    /// a failure that is none of the caller's doing (the error log says what it was).
    const STAND_IN: Self = nvJitLinkResult::NVJITLINK_ERROR_INTERNAL;
}

impl Member for cublasStatus_t {
    /// cuBLAS's own "not supported", for anycuda's codes cuBLAS has no member for. (cuBLAS
    /// and cuBLASLt share this status type.)
    const STAND_IN: Self = cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED;

    /// hipBLAS's statuses cuBLAS lacks, as cuBLAS answers the same faults: a null handle is
    /// `NOT_INITIALIZED`, an enum out of range `INVALID_VALUE`, hipBLAS's unknown an internal
    /// error.
    fn stand_in_for(invented: Self) -> Self {
        match invented {
            cublasStatus_t::CUBLAS_STATUS_HIPBLAS_HANDLE_IS_NULLPTR => {
                cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED
            }
            cublasStatus_t::CUBLAS_STATUS_HIPBLAS_INVALID_ENUM => {
                cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
            }
            cublasStatus_t::CUBLAS_STATUS_HIPBLAS_UNKNOWN => {
                cublasStatus_t::CUBLAS_STATUS_INTERNAL_ERROR
            }
            _ => Self::STAND_IN,
        }
    }
}

impl Member for cufftResult {
    /// cuFFT's own code for a failure none of the caller's doing: anycuda's refusals already
    /// use cuFFT's `CUFFT_NOT_SUPPORTED`, so only hipFFT's results cuFFT lacks and unknown ones
    /// reach here.
    const STAND_IN: Self = cufftResult::CUFFT_INTERNAL_ERROR;

    /// hipFFT's results cuFFT 12 lacks, as cuFFT answers the same faults: a missing parameter
    /// is `INVALID_VALUE`; hipFFT's plan database error stays an internal error.
    fn stand_in_for(invented: Self) -> Self {
        match invented {
            cufftResult::CUFFT_HIPFFT_INCOMPLETE_PARAMETER_LIST => cufftResult::CUFFT_INVALID_VALUE,
            _ => Self::STAND_IN,
        }
    }
}

impl Member for curandStatus_t {
    /// cuRAND's enum has no "not supported"; an internal error is what cuRAND answers for a
    /// failure that is none of the caller's doing (`ANYCUDA_LOG=debug` says which code it was).
    const STAND_IN: Self = curandStatus_t::CURAND_STATUS_INTERNAL_ERROR;
}

impl Member for cusparseStatus_t {
    /// cuSPARSE's own "not supported", for anycuda's codes cuSPARSE has no member for.
    const STAND_IN: Self = cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED;
}

impl Member for ncclResult_t {
    /// NCCL's enum has no "not supported"; `ncclInternalError` is NCCL's answer for a failure
    /// that is none of the caller's doing (`ncclGetLastError` and the log say which).
    const STAND_IN: Self = ncclResult_t::ncclInternalError;
}

impl Member for nvmlReturn_t {
    /// anycuda invents no NVML code; a vendor call-back with no NVIDIA NVML to reach answers
    /// what NVML answers for a library it cannot load.
    const STAND_IN: Self = nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND;
}

/// `status`, or the stand-in when it is an invented code (one compare on the way out).
#[inline(always)]
pub fn member<T: Member>(status: T) -> T {
    if is_reserved(status.to_i64()) {
        stand_in(status)
    } else {
        status
    }
}

/// [`member`] for the export `name`: a failing call (any status but 0, every API's success)
/// is logged at debug level with its name and status, so `ANYCUDA_LOG=anycuda_capi=debug` shows
/// which call a program's error came from (a statically linked runtime hides it behind its own
/// code). One compare when the call succeeds.
#[inline(always)]
pub fn member_of<T: Member>(name: &'static str, status: T) -> T {
    if status.to_i64() != 0 {
        failed(name, &status);
    }
    member(status)
}

#[cold]
#[inline(never)]
fn failed<T: Member>(name: &'static str, status: &T) {
    log::debug!(
        "anycuda C ABI: {name} answered {status:?} ({})",
        status.to_i64()
    );
}

#[cold]
#[inline(never)]
fn stand_in<T: Member>(status: T) -> T {
    log::debug!(
        "anycuda C ABI: {} {:?} ({}) has no member in NVIDIA's enum: answered {:?}",
        T::TYPE_NAME,
        status,
        status.to_i64(),
        T::stand_in_for(status)
    );
    T::stand_in_for(status)
}
