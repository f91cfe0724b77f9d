//! `Rtc` for CUDA: forwarding to libnvrtc, with the argument checks NVRTC itself skips (a null or
//! destroyed program, null arrays) so bad input gets an error instead of a crash.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::nvrtc_non_null as non_null;
use anycuda_api::rtc_headers::RtcTarget;
use anycuda_api::rtc_input;
use anycuda_api::traits::Rtc;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_int, c_void};

/// No libnvrtc, or one that predates the entry point.
const NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;
const INVALID_PROGRAM: nvrtcResult = nvrtcResult::NVRTC_ERROR_INVALID_PROGRAM;

/// Returns early with `NVRTC_ERROR_INVALID_PROGRAM` unless `prog` is a live program.
macro_rules! live {
    ($self:ident, $prog:expr) => {
        if !$self.programs.contains($prog as usize) {
            return INVALID_PROGRAM;
        }
    };
}

anycuda_api::served! { RTC_SERVED;
impl Rtc for CudaBackend {
    unsafe fn nvrtcGetErrorString(&self, result: nvrtcResult) -> *const c_char {
        match self.native_nvrtc().and_then(|t| t.nvrtcGetErrorString) {
            // SAFETY: takes a value, returns a static string.
            Some(f) if !is_reserved(result.to_i64()) && result.name().is_some() => unsafe {
                f(result)
            },
            _ => anycuda_api::strings::nvrtc_error_string(result),
        }
    }
    unsafe fn nvrtcVersion(&self, major: *mut c_int, minor: *mut c_int) -> nvrtcResult {
        non_null!(major, minor);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcVersion(major, minor)) }
    }
    unsafe fn nvrtcGetNumSupportedArchs(&self, numArchs: *mut c_int) -> nvrtcResult {
        non_null!(numArchs);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetNumSupportedArchs(numArchs)) }
    }
    unsafe fn nvrtcGetSupportedArchs(&self, supportedArchs: *mut c_int) -> nvrtcResult {
        non_null!(supportedArchs);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetSupportedArchs(supportedArchs)) }
    }
    unsafe fn nvrtcCreateProgram(
        &self,
        prog: *mut nvrtcProgram,
        src: *const c_char,
        name: *const c_char,
        numHeaders: c_int,
        headers: *const *const c_char,
        includeNames: *const *const c_char,
    ) -> nvrtcResult {
        non_null!(prog, src);
        let merged = match unsafe {
            rtc_input::merge_headers(RtcTarget::Nvrtc, numHeaders, headers, includeNames)
        } {
            Ok(h) => h,
            Err(e) => return e,
        };
        let r = unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcCreateProgram(
                    prog,
                    src,
                    name,
                    merged.len(),
                    merged.sources_ptr(),
                    merged.names_ptr()
                )
            )
        };
        if r == nvrtcResult::NVRTC_SUCCESS {
            // SAFETY: NVRTC wrote the new handle through the (non-null) pointer.
            self.programs.insert(unsafe { *prog } as usize);
        }
        r
    }
    unsafe fn nvrtcDestroyProgram(&self, prog: *mut nvrtcProgram) -> nvrtcResult {
        non_null!(prog);
        // SAFETY: non-null pointer to a handle (caller contract).
        let handle = unsafe { *prog };
        if !self.programs.remove(handle as usize) {
            return INVALID_PROGRAM;
        }
        unsafe { call!(self.nvrtc, NS, NS, nvrtcDestroyProgram(prog)) }
    }
    unsafe fn nvrtcCompileProgram(
        &self,
        prog: nvrtcProgram,
        numOptions: c_int,
        options: *const *const c_char,
    ) -> nvrtcResult {
        live!(self, prog);
        let opts = match unsafe { rtc_input::options(numOptions, options) } {
            Ok(o) => o,
            Err(e) => return e,
        };
        let (kept, notes) = anycuda_api::rtc_options::filter(&opts);
        for n in &notes {
            log::debug!("nvrtcCompileProgram: {n}");
        }
        let ptrs: Vec<*const c_char> = kept.iter().map(|o| o.as_ptr()).collect();
        let n = ptrs.len() as c_int; // at most numOptions
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcCompileProgram(prog, n, ptrs.as_ptr())
            )
        }
    }
    unsafe fn nvrtcGetPTXSize(&self, prog: nvrtcProgram, ptxSizeRet: *mut usize) -> nvrtcResult {
        live!(self, prog);
        non_null!(ptxSizeRet);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetPTXSize(prog, ptxSizeRet)) }
    }
    unsafe fn nvrtcGetPTX(&self, prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult {
        live!(self, prog);
        non_null!(ptx);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetPTX(prog, ptx)) }
    }
    unsafe fn nvrtcGetCUBINSize(
        &self,
        prog: nvrtcProgram,
        cubinSizeRet: *mut usize,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(cubinSizeRet);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetCUBINSize(prog, cubinSizeRet)) }
    }
    unsafe fn nvrtcGetCUBIN(&self, prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult {
        live!(self, prog);
        non_null!(cubin);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetCUBIN(prog, cubin)) }
    }
    unsafe fn nvrtcGetLTOIRSize(
        &self,
        prog: nvrtcProgram,
        LTOIRSizeRet: *mut usize,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(LTOIRSizeRet);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetLTOIRSize(prog, LTOIRSizeRet)) }
    }
    unsafe fn nvrtcGetLTOIR(&self, prog: nvrtcProgram, LTOIR: *mut c_char) -> nvrtcResult {
        live!(self, prog);
        non_null!(LTOIR);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetLTOIR(prog, LTOIR)) }
    }
    unsafe fn nvrtcGetOptiXIRSize(
        &self,
        prog: nvrtcProgram,
        optixirSizeRet: *mut usize,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(optixirSizeRet);
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcGetOptiXIRSize(prog, optixirSizeRet)
            )
        }
    }
    unsafe fn nvrtcGetOptiXIR(&self, prog: nvrtcProgram, optixir: *mut c_char) -> nvrtcResult {
        live!(self, prog);
        non_null!(optixir);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetOptiXIR(prog, optixir)) }
    }
    unsafe fn nvrtcGetProgramLogSize(
        &self,
        prog: nvrtcProgram,
        logSizeRet: *mut usize,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(logSizeRet);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetProgramLogSize(prog, logSizeRet)) }
    }
    unsafe fn nvrtcGetProgramLog(&self, prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult {
        live!(self, prog);
        non_null!(log);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetProgramLog(prog, log)) }
    }
    unsafe fn nvrtcAddNameExpression(
        &self,
        prog: nvrtcProgram,
        name_expression: *const c_char,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(name_expression);
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcAddNameExpression(prog, name_expression)
            )
        }
    }
    unsafe fn nvrtcGetLoweredName(
        &self,
        prog: nvrtcProgram,
        name_expression: *const c_char,
        lowered_name: *mut *const c_char,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(name_expression, lowered_name);
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcGetLoweredName(prog, name_expression, lowered_name)
            )
        }
    }
    unsafe fn nvrtcGetPCHHeapSize(&self, ret: *mut usize) -> nvrtcResult {
        non_null!(ret);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetPCHHeapSize(ret)) }
    }
    unsafe fn nvrtcSetPCHHeapSize(&self, size: usize) -> nvrtcResult {
        unsafe { call!(self.nvrtc, NS, NS, nvrtcSetPCHHeapSize(size)) }
    }
    unsafe fn nvrtcGetPCHCreateStatus(&self, prog: nvrtcProgram) -> nvrtcResult {
        live!(self, prog);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetPCHCreateStatus(prog)) }
    }
    unsafe fn nvrtcGetPCHHeapSizeRequired(
        &self,
        prog: nvrtcProgram,
        size: *mut usize,
    ) -> nvrtcResult {
        live!(self, prog);
        non_null!(size);
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetPCHHeapSizeRequired(prog, size)) }
    }
    unsafe fn nvrtcSetFlowCallback(
        &self,
        prog: nvrtcProgram,
        callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
        payload: *mut c_void,
    ) -> nvrtcResult {
        live!(self, prog);
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcSetFlowCallback(prog, callback, payload)
            )
        }
    }
}
}
