//! The backend-neutral traits. Every method has the CUDA C name and signature; a backend that
//! cannot serve one keeps the default body, which returns the API's not-supported error.
//!
//! `Driver` and `Runtime` are generated (every function of the pinned headers, see
//! `codegen/src/emit_traits.rs`); `Rtc` is written here.
//!
//! Methods are `unsafe` because they take raw pointers exactly as the C API does: each has the
//! contract of the CUDA function of the same name (valid pointers of the documented sizes). The
//! few that take no pointer (error strings) are `unsafe` only so that every method has one shape,
//! which lets [`api_trait!`] and [`served!`] list methods and served functions from the code.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use crate::backend::{BackendKind, LibraryReport};
use crate::driver::CUdevice;
use crate::error::DriverError;
use crate::nvrtc::{nvrtcProgram, nvrtcResult};
use core::ffi::{c_char, c_int, c_void};

/// The CUDA Driver API (`cu*`) and Runtime API (`cuda*`) traits, generated from the pinned
/// headers (`api/src/generated/traits.rs`): one method per function, CUDA signatures. Defaults
/// are the API's not-supported error, except those in `codegen/trait-defaults.txt`.
pub use crate::generated::traits::{Driver, Runtime, DRIVER_METHODS, RUNTIME_METHODS};

/// Defines a CUDA API trait whose methods all have the shape `unsafe fn name(..) -> R { default }`,
/// plus a const listing the method names (what anycuda exposes of that API).
macro_rules! api_trait {
    ($(#[$tm:meta])* pub trait $name:ident, $methods:ident {
        $($(#[$m:meta])* unsafe fn $f:ident ($($p:tt)*) -> $ret:ty $body:block)*
    }) => {
        $(#[$tm])*
        pub trait $name {
            $($(#[$m])* unsafe fn $f($($p)*) -> $ret $body)*
        }
        #[doc = concat!("Every method of [`", stringify!($name), "`]: the functions of that API anycuda exposes.")]
        pub const $methods: &[&str] = &[$(stringify!($f)),*];
    };
}
// Path-based use by the generated traits (`crate::traits::api_trait!`).
pub(crate) use api_trait;

/// Implements a CUDA API trait for a backend and lists what the impl overrides, so coverage
/// reports are derived from the code rather than kept by hand.
///
/// `served!(DRIVER_SERVED; impl Driver for MyBackend { unsafe fn cuInit(&self, ..) -> CUresult {..} })`
/// (the trait may also be named by path: `impl anycuda_api::traits::Driver for ..`).
#[macro_export]
macro_rules! served {
    ($list:ident; impl $($trait:ident)::+ for $ty:ty {
        $($(#[$m:meta])* unsafe fn $f:ident ($($p:tt)*) -> $ret:ty $body:block)*
    }) => {
        impl $($trait)::+ for $ty {
            $($(#[$m])* unsafe fn $f($($p)*) -> $ret $body)*
        }
        #[doc = concat!("The [`", stringify!($($trait)::+), "`] functions this backend serves.")]
        pub const $list: &[&str] = &[$(stringify!($f)),*];
    };
}

/// anycuda's `NVRTC_ERROR_NOT_SUPPORTED`, the default for NVRTC entry points a backend lacks.
const RTC_NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;

/// What a backend is, beyond the three CUDA APIs: its identity and its libraries.
pub trait Api: Driver + Runtime + Rtc + Send + Sync + 'static {
    /// Which backend this is.
    const KIND: BackendKind;
    /// Each library this backend uses, with its path and version or why it failed to load.
    fn libraries(&self) -> Vec<LibraryReport>;
    /// The device's compiler target: `sm_90` on CUDA, the gfx arch (`gfx90a:sramecc+:xnack-`)
    /// on AMD.
    ///
    /// # Errors
    /// The driver error of the underlying query (invalid device, no device, ...).
    fn device_arch(&self, dev: CUdevice) -> Result<String, DriverError>;
}

api_trait! {
/// NVRTC (`nvrtc*`), with NVRTC signatures and values.
    pub trait Rtc, RTC_METHODS {
    /// `nvrtcGetErrorString`: the code's name, as NVRTC returns; no compiler needed.
    unsafe fn nvrtcGetErrorString(&self, result: nvrtcResult) -> *const c_char {
        crate::strings::nvrtc_error_string(result)
    }
    /// `nvrtcVersion`.
    unsafe fn nvrtcVersion(&self, major: *mut c_int, minor: *mut c_int) -> nvrtcResult {
        let _ = (major, minor);
        RTC_NS
    }
    /// `nvrtcGetNumSupportedArchs`.
    unsafe fn nvrtcGetNumSupportedArchs(&self, numArchs: *mut c_int) -> nvrtcResult {
        let _ = numArchs;
        RTC_NS
    }
    /// `nvrtcGetSupportedArchs`.
    unsafe fn nvrtcGetSupportedArchs(&self, supportedArchs: *mut c_int) -> nvrtcResult {
        let _ = supportedArchs;
        RTC_NS
    }
    /// `nvrtcCreateProgram`.
    unsafe fn nvrtcCreateProgram(
        &self,
        prog: *mut nvrtcProgram,
        src: *const c_char,
        name: *const c_char,
        numHeaders: c_int,
        headers: *const *const c_char,
        includeNames: *const *const c_char,
    ) -> nvrtcResult {
        let _ = (prog, src, name, numHeaders, headers, includeNames);
        RTC_NS
    }
    /// `nvrtcDestroyProgram`.
    unsafe fn nvrtcDestroyProgram(&self, prog: *mut nvrtcProgram) -> nvrtcResult {
        let _ = prog;
        RTC_NS
    }
    /// `nvrtcCompileProgram`.
    unsafe fn nvrtcCompileProgram(
        &self,
        prog: nvrtcProgram,
        numOptions: c_int,
        options: *const *const c_char,
    ) -> nvrtcResult {
        let _ = (prog, numOptions, options);
        RTC_NS
    }
    /// `nvrtcGetPTXSize`. On HIP: the size of the AMD code object.
    unsafe fn nvrtcGetPTXSize(&self, prog: nvrtcProgram, ptxSizeRet: *mut usize) -> nvrtcResult {
        let _ = (prog, ptxSizeRet);
        RTC_NS
    }
    /// `nvrtcGetPTX`. On HIP: the AMD code object, loadable by `cuModuleLoadData`.
    unsafe fn nvrtcGetPTX(&self, prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult {
        let _ = (prog, ptx);
        RTC_NS
    }
    /// `nvrtcGetCUBINSize`. On HIP: the size of the AMD code object.
    unsafe fn nvrtcGetCUBINSize(&self, prog: nvrtcProgram, cubinSizeRet: *mut usize) -> nvrtcResult {
        let _ = (prog, cubinSizeRet);
        RTC_NS
    }
    /// `nvrtcGetCUBIN`. On HIP: the AMD code object (never LLVM bitcode).
    unsafe fn nvrtcGetCUBIN(&self, prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult {
        let _ = (prog, cubin);
        RTC_NS
    }
    /// `nvrtcGetLTOIRSize`. On HIP: the size of the LLVM bitcode (HIP's link-time IR).
    unsafe fn nvrtcGetLTOIRSize(&self, prog: nvrtcProgram, LTOIRSizeRet: *mut usize) -> nvrtcResult {
        let _ = (prog, LTOIRSizeRet);
        RTC_NS
    }
    /// `nvrtcGetLTOIR`. On HIP: the LLVM bitcode (compile with `-dlto`/`-rdc=true`).
    unsafe fn nvrtcGetLTOIR(&self, prog: nvrtcProgram, LTOIR: *mut c_char) -> nvrtcResult {
        let _ = (prog, LTOIR);
        RTC_NS
    }
    /// `nvrtcGetOptiXIRSize`.
    unsafe fn nvrtcGetOptiXIRSize(&self, prog: nvrtcProgram, optixirSizeRet: *mut usize) -> nvrtcResult {
        let _ = (prog, optixirSizeRet);
        RTC_NS
    }
    /// `nvrtcGetOptiXIR`.
    unsafe fn nvrtcGetOptiXIR(&self, prog: nvrtcProgram, optixir: *mut c_char) -> nvrtcResult {
        let _ = (prog, optixir);
        RTC_NS
    }
    /// `nvrtcGetProgramLogSize` (including the terminating NUL).
    unsafe fn nvrtcGetProgramLogSize(&self, prog: nvrtcProgram, logSizeRet: *mut usize) -> nvrtcResult {
        let _ = (prog, logSizeRet);
        RTC_NS
    }
    /// `nvrtcGetProgramLog`.
    unsafe fn nvrtcGetProgramLog(&self, prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult {
        let _ = (prog, log);
        RTC_NS
    }
    /// `nvrtcAddNameExpression`.
    unsafe fn nvrtcAddNameExpression(
        &self,
        prog: nvrtcProgram,
        name_expression: *const c_char,
    ) -> nvrtcResult {
        let _ = (prog, name_expression);
        RTC_NS
    }
    /// `nvrtcGetLoweredName`.
    unsafe fn nvrtcGetLoweredName(
        &self,
        prog: nvrtcProgram,
        name_expression: *const c_char,
        lowered_name: *mut *const c_char,
    ) -> nvrtcResult {
        let _ = (prog, name_expression, lowered_name);
        RTC_NS
    }
    /// `nvrtcGetPCHHeapSize`.
    unsafe fn nvrtcGetPCHHeapSize(&self, ret: *mut usize) -> nvrtcResult {
        let _ = ret;
        RTC_NS
    }
    /// `nvrtcSetPCHHeapSize`.
    unsafe fn nvrtcSetPCHHeapSize(&self, size: usize) -> nvrtcResult {
        let _ = size;
        RTC_NS
    }
    /// `nvrtcGetPCHCreateStatus`.
    unsafe fn nvrtcGetPCHCreateStatus(&self, prog: nvrtcProgram) -> nvrtcResult {
        let _ = prog;
        RTC_NS
    }
    /// `nvrtcGetPCHHeapSizeRequired`.
    unsafe fn nvrtcGetPCHHeapSizeRequired(&self, prog: nvrtcProgram, size: *mut usize) -> nvrtcResult {
        let _ = (prog, size);
        RTC_NS
    }
    /// `nvrtcSetFlowCallback`.
    unsafe fn nvrtcSetFlowCallback(
        &self,
        prog: nvrtcProgram,
        callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
        payload: *mut c_void,
    ) -> nvrtcResult {
        let _ = (prog, callback, payload);
        RTC_NS
    }
    }
}
