//! The safe layer's one error type: the CUDA code (invented HIP codes included), the call that
//! failed, and the compile log where there is one.

use crate::driver::CUresult;
use crate::nvrtc::nvrtcResult;
use crate::runtime::cudaError_t;
use crate::{DriverError, NvrtcError, RuntimeError};
use std::fmt;

/// The code of a failed call, from whichever raw API the call used.
///
/// `#[non_exhaustive]`: each raw API the safe layer gains (cuBLAS, cuRAND, ...) adds a variant;
/// match with a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A Driver API code (`CUresult`).
    Driver(CUresult),
    /// A Runtime API code (`cudaError_t`).
    Runtime(cudaError_t),
    /// An NVRTC code (`nvrtcResult`).
    Nvrtc(nvrtcResult),
    /// An NCCL code (`ncclResult_t`, NCCL's numbering on every backend).
    Nccl(crate::nccl::ncclResult_t),
    /// An nvJitLink code (`nvJitLinkResult`), from [`Linker`](super::Linker)'s LTO-IR links.
    NvJitLink(crate::nvjitlink::nvJitLinkResult),
    /// A cuRAND code (`curandStatus_t`, cuRAND's numbering on every backend), from
    /// [`Rng`](super::Rng).
    Curand(crate::curand::curandStatus_t),
    /// A cuBLAS code (`cublasStatus_t`, cuBLAS's numbering on every backend), from
    /// [`Blas`](super::Blas).
    Cublas(crate::cublas::cublasStatus_t),
    /// The safe layer refused the call before any library saw it (a wrong argument count, a
    /// buffer of another device, a size that overflows); the text says why.
    Usage,
}

/// A failed safe-layer operation.
///
/// Carries the CUDA code (hallucinated HIP codes keep their invented value and name), the raw
/// call that failed (`"cuMemAlloc"`), and for compiles the compiler's log.
#[derive(Clone, PartialEq, Eq)]
pub struct CoreError {
    code: ErrorCode,
    call: &'static str,
    detail: Option<Box<str>>,
}

/// The safe layer's `Result`.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

impl CoreError {
    /// An error from a Driver API call.
    #[cold]
    pub fn driver(call: &'static str, code: CUresult) -> Self {
        Self {
            code: ErrorCode::Driver(code),
            call,
            detail: None,
        }
    }
    /// An error from a Runtime API call.
    #[cold]
    pub fn runtime(call: &'static str, code: cudaError_t) -> Self {
        Self {
            code: ErrorCode::Runtime(code),
            call,
            detail: None,
        }
    }
    /// An error from an NCCL call.
    #[cold]
    pub fn nccl(call: &'static str, code: crate::nccl::ncclResult_t) -> Self {
        Self {
            code: ErrorCode::Nccl(code),
            call,
            detail: None,
        }
    }
    /// An error from an nvJitLink call.
    #[cold]
    pub fn nvjitlink(call: &'static str, code: crate::nvjitlink::nvJitLinkResult) -> Self {
        Self {
            code: ErrorCode::NvJitLink(code),
            call,
            detail: None,
        }
    }
    /// An error from a cuRAND call.
    #[cold]
    pub fn curand(call: &'static str, code: crate::curand::curandStatus_t) -> Self {
        Self {
            code: ErrorCode::Curand(code),
            call,
            detail: None,
        }
    }
    /// An error from a cuBLAS call.
    #[cold]
    pub fn cublas(call: &'static str, code: crate::cublas::cublasStatus_t) -> Self {
        Self {
            code: ErrorCode::Cublas(code),
            call,
            detail: None,
        }
    }
    /// An error from an NVRTC call, with the program log where there is one.
    #[cold]
    pub fn nvrtc(call: &'static str, code: nvrtcResult, log: Option<String>) -> Self {
        Self {
            code: ErrorCode::Nvrtc(code),
            call,
            detail: log.map(String::into_boxed_str),
        }
    }
    /// A misuse the safe layer caught itself, before any library call. `call` names the safe
    /// operation (`"launch"`).
    #[cold]
    pub fn usage(call: &'static str, why: impl Into<String>) -> Self {
        Self {
            code: ErrorCode::Usage,
            call,
            detail: Some(why.into().into_boxed_str()),
        }
    }
    /// Adds (or replaces) the detail text: a compile log, or what the safe layer checked.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into().into_boxed_str());
        self
    }

    /// The code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }
    /// The raw call (or safe operation) that failed.
    pub fn call(&self) -> &'static str {
        self.call
    }
    /// The compile log, or the safe layer's explanation of a refused call.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }
    /// The Driver code, if the failed call was a Driver API call.
    pub fn driver_code(&self) -> Option<CUresult> {
        match self.code {
            ErrorCode::Driver(c) => Some(c),
            _ => None,
        }
    }
    /// The NVRTC code, if the failed call was an NVRTC call.
    pub fn nvrtc_code(&self) -> Option<nvrtcResult> {
        match self.code {
            ErrorCode::Nvrtc(c) => Some(c),
            _ => None,
        }
    }
    /// The cuRAND status, if the failed call was a cuRAND call.
    pub fn curand_code(&self) -> Option<crate::curand::curandStatus_t> {
        match self.code {
            ErrorCode::Curand(c) => Some(c),
            _ => None,
        }
    }
    /// The cuBLAS status, if the failed call was a cuBLAS call.
    pub fn cublas_code(&self) -> Option<crate::cublas::cublasStatus_t> {
        match self.code {
            ErrorCode::Cublas(c) => Some(c),
            _ => None,
        }
    }
    /// Whether this is the backend's "not supported" answer, in any of the raw APIs.
    pub fn is_not_supported(&self) -> bool {
        match self.code {
            ErrorCode::Driver(c) => c == CUresult::CUDA_ERROR_NOT_SUPPORTED,
            ErrorCode::Runtime(c) => c == cudaError_t::cudaErrorNotSupported,
            ErrorCode::Nvrtc(c) => c == nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED,
            ErrorCode::Nccl(c) => c == crate::nccl::ncclResult_t::ncclNotSupported,
            ErrorCode::NvJitLink(c) => {
                c == crate::nvjitlink::nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED
            }
            ErrorCode::Curand(c) => c == crate::curand::curandStatus_t::CURAND_STATUS_NOT_SUPPORTED,
            ErrorCode::Cublas(c) => c == crate::cublas::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
            ErrorCode::Usage => false,
        }
    }
    /// The raw layer's error for this one, for code that answers in Driver API terms (the cudarc
    /// facade): the Driver code itself; `CUDA_ERROR_INVALID_VALUE` for a call the safe layer
    /// refused (what the driver answers a bad argument with); for a code of another API, which
    /// has no Driver counterpart, `CUDA_ERROR_UNKNOWN`. Keep the `CoreError` where the call,
    /// the detail or another API's code matter.
    ///
    /// A method, not `From`: a second `From` impl on [`DriverError`] would break type inference
    /// in code that relies on `?` converting into it (`Ok(())` in closures, as cudarc's users
    /// write).
    #[cold]
    pub fn into_driver_error(self) -> DriverError {
        match self.code {
            ErrorCode::Driver(c) => DriverError(c),
            ErrorCode::Usage => DriverError(CUresult::CUDA_ERROR_INVALID_VALUE),
            ErrorCode::Runtime(_)
            | ErrorCode::Nvrtc(_)
            | ErrorCode::Nccl(_)
            | ErrorCode::NvJitLink(_)
            | ErrorCode::Curand(_)
            | ErrorCode::Cublas(_) => DriverError(CUresult::CUDA_ERROR_UNKNOWN),
        }
    }
    /// For a code invented for HIP (hallucinated or unknown), the raw HIP value.
    pub fn hip_code(&self) -> Option<i64> {
        match self.code {
            ErrorCode::Driver(c) => DriverError(c).hip_code(),
            ErrorCode::Runtime(c) => RuntimeError(c).hip_code(),
            ErrorCode::Nvrtc(c) => NvrtcError(c).hip_code(),
            ErrorCode::Nccl(c) => crate::nccl::NcclError(c).rccl_code(),
            ErrorCode::Curand(c) => crate::curand::CurandError(c).hiprand_code(),
            // The raw cuBLAS layer keeps no hipBLAS code beside the status (yet): a hipBLAS
            // status is reported in cuBLAS's numbering only.
            ErrorCode::NvJitLink(_) | ErrorCode::Cublas(_) | ErrorCode::Usage => None,
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            ErrorCode::Driver(c) => write!(f, "{} failed: {}", self.call, DriverError(c))?,
            ErrorCode::Runtime(c) => write!(f, "{} failed: {}", self.call, RuntimeError(c))?,
            ErrorCode::Nvrtc(c) => write!(f, "{} failed: {}", self.call, NvrtcError(c))?,
            ErrorCode::Nccl(c) => write!(f, "{} failed: {}", self.call, crate::nccl::NcclError(c))?,
            ErrorCode::NvJitLink(c) => write!(
                f,
                "{} failed: {}",
                self.call,
                crate::nvjitlink::NvJitLinkError(c)
            )?,
            ErrorCode::Curand(c) => {
                write!(f, "{} failed: {}", self.call, crate::curand::CurandError(c))?;
            }
            ErrorCode::Cublas(c) => {
                write!(f, "{} failed: {}", self.call, crate::cublas::CublasError(c))?;
            }
            ErrorCode::Usage => write!(f, "{}: refused", self.call)?,
        }
        match &self.detail {
            Some(d) if !d.is_empty() => write!(f, "\n{d}"),
            _ => Ok(()),
        }
    }
}

impl fmt::Debug for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CoreError")
            .field("code", &self.code)
            .field("call", &self.call)
            .field("detail", &self.detail)
            .finish()
    }
}

impl std::error::Error for CoreError {}

/// `Ok(())` on success, else a [`CoreError`] naming `call`. The layer's one choke point for
/// Driver codes.
///
/// # Errors
/// Every code but `CUDA_SUCCESS`.
#[inline]
pub fn check(call: &'static str, code: CUresult) -> Result<()> {
    match code.result() {
        Ok(()) => Ok(()),
        Err(e) => Err(CoreError::driver(call, e.0)),
    }
}

/// [`check`] for Runtime codes.
///
/// # Errors
/// Every code but `cudaSuccess`.
#[inline]
pub fn check_rt(call: &'static str, code: cudaError_t) -> Result<()> {
    match code.result() {
        Ok(()) => Ok(()),
        Err(e) => Err(CoreError::runtime(call, e.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_error_from_core_error_keeps_the_driver_code() {
        let e = CoreError::driver("cuModuleGetFunction", CUresult::CUDA_ERROR_NOT_FOUND);
        assert_eq!(e.into_driver_error().0, CUresult::CUDA_ERROR_NOT_FOUND);
        let usage = CoreError::usage("ObjectCode::from_bytes", "empty code");
        assert_eq!(
            usage.into_driver_error().0,
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        let rtc = CoreError::nvrtc(
            "nvrtcCompileProgram",
            nvrtcResult::NVRTC_ERROR_COMPILATION,
            None,
        );
        assert_eq!(rtc.into_driver_error().0, CUresult::CUDA_ERROR_UNKNOWN);
    }
}
