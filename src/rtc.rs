//! A small safe layer over NVRTC for the common case: compile one source, get its log and code.
//!
//! It works the same on both backends: on HIP, "PTX" and "CUBIN" are the AMD code object.

pub use anycuda_api::rtc_input::{nesting_depth, COMPILE_STACK, MAX_NESTING};
/// NVRTC 13.5's option table and the validator both backends run before their compiler.
pub use anycuda_api::rtc_options as options;

use crate::nvrtc::{nvrtcProgram, nvrtcResult};
use crate::{Backend, NvrtcError, Rtc};
use core::ffi::{c_char, c_int};
use std::ffi::{CStr, CString};

/// A failed compilation: the code and the compiler's log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error}{}", if log.trim().is_empty() { String::new() } else { format!("\n{}", log.trim_end()) })]
pub struct CompileError {
    /// The NVRTC result.
    pub error: NvrtcError,
    /// The program log (empty if none could be read).
    pub log: String,
}

impl From<NvrtcError> for CompileError {
    fn from(error: NvrtcError) -> Self {
        Self {
            error,
            log: String::new(),
        }
    }
}

fn cstring(s: &str) -> Result<CString, NvrtcError> {
    CString::new(s).map_err(|_| NvrtcError(nvrtcResult::NVRTC_ERROR_INVALID_INPUT))
}

/// An NVRTC program on a given backend; destroyed on drop.
#[derive(Debug)]
pub struct Program {
    backend: Backend,
    raw: nvrtcProgram,
}

// SAFETY: NVRTC and hipRTC programs may be used from any thread, one call at a time; `&mut self`
// on every mutating method keeps it so.
unsafe impl Send for Program {}

impl Program {
    /// `nvrtcCreateProgram` with extra headers (`(include name, source)`).
    ///
    /// # Errors
    /// The NVRTC error, or `NVRTC_ERROR_INVALID_INPUT` for strings with interior NULs.
    pub fn new(
        backend: Backend,
        src: &str,
        name: &str,
        headers: &[(&str, &str)],
    ) -> Result<Self, NvrtcError> {
        let src = cstring(src)?;
        let name = cstring(name)?;
        let names: Vec<CString> = headers
            .iter()
            .map(|(n, _)| cstring(n))
            .collect::<Result<_, _>>()?;
        let srcs: Vec<CString> = headers
            .iter()
            .map(|(_, s)| cstring(s))
            .collect::<Result<_, _>>()?;
        let name_ptrs: Vec<*const c_char> = names.iter().map(|s| s.as_ptr()).collect();
        let src_ptrs: Vec<*const c_char> = srcs.iter().map(|s| s.as_ptr()).collect();
        let mut raw = core::ptr::null_mut();
        // SAFETY: all pointers are live for the call; counts match the arrays.
        unsafe {
            backend
                .nvrtcCreateProgram(
                    &mut raw,
                    src.as_ptr(),
                    name.as_ptr(),
                    headers.len() as c_int,
                    src_ptrs.as_ptr(),
                    name_ptrs.as_ptr(),
                )
                .result()?;
        }
        Ok(Self { backend, raw })
    }

    /// The raw handle, for calls this layer does not wrap.
    pub fn as_raw(&self) -> nvrtcProgram {
        self.raw
    }

    /// `nvrtcAddNameExpression`.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn add_name_expression(&mut self, expr: &str) -> Result<(), NvrtcError> {
        let e = cstring(expr)?;
        // SAFETY: live program, NUL-terminated string.
        unsafe {
            self.backend
                .nvrtcAddNameExpression(self.raw, e.as_ptr())
                .result()
        }
    }

    /// `nvrtcCompileProgram`. It may be called again (other options, another target): each
    /// compile replaces the previous output on both backends, as on NVRTC.
    ///
    /// # Errors
    /// The NVRTC error with the program log.
    pub fn compile(&mut self, options: &[&str]) -> Result<(), CompileError> {
        let opts: Vec<CString> = options
            .iter()
            .map(|o| cstring(o))
            .collect::<Result<_, _>>()?;
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: live program; `ptrs` holds `ptrs.len()` NUL-terminated strings.
        let r = unsafe {
            self.backend
                .nvrtcCompileProgram(self.raw, ptrs.len() as c_int, ptrs.as_ptr())
        };
        r.result().map_err(|error| CompileError {
            error,
            log: self.log().unwrap_or_default(),
        })
    }

    /// The program log (`nvrtcGetProgramLog`), without its trailing NUL.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn log(&self) -> Result<String, NvrtcError> {
        let bytes = self.fetch(Rtc::nvrtcGetProgramLogSize, Rtc::nvrtcGetProgramLog)?;
        Ok(String::from_utf8_lossy(strip_nul(&bytes)).into_owned())
    }

    /// `nvrtcGetPTX` without the trailing NUL. On HIP: the AMD code object.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn ptx(&self) -> Result<Vec<u8>, NvrtcError> {
        let mut v = self.fetch(Rtc::nvrtcGetPTXSize, Rtc::nvrtcGetPTX)?;
        // PTX is text and its size counts the NUL (NVRTC, and hipRTC on HIP's NVIDIA platform,
        // which is NVRTC); an AMD code object (ELF, or a clang offload bundle) is binary and
        // keeps every byte. Judged by the bytes, not the backend, so both HIP platforms are
        // right (HIP's NVIDIA platform used to keep PTX's NUL).
        let binary = v.starts_with(b"\x7fELF") || v.starts_with(b"__CLANG_OFFLOAD_BUNDLE__");
        if v.last() == Some(&0) && !binary {
            v.pop();
        }
        Ok(v)
    }

    /// `nvrtcGetCUBIN` (empty when NVRTC made none, e.g. for a `compute_XX` target). On HIP:
    /// the AMD code object.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn cubin(&self) -> Result<Vec<u8>, NvrtcError> {
        self.fetch(Rtc::nvrtcGetCUBINSize, Rtc::nvrtcGetCUBIN)
    }

    /// `nvrtcGetLTOIR`: the LTO IR of a `-dlto` compile (empty otherwise). On HIP: LLVM
    /// bitcode.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn ltoir(&self) -> Result<Vec<u8>, NvrtcError> {
        self.fetch(Rtc::nvrtcGetLTOIRSize, Rtc::nvrtcGetLTOIR)
    }

    /// `nvrtcGetLoweredName`.
    ///
    /// # Errors
    /// The NVRTC error.
    pub fn lowered_name(&self, expr: &str) -> Result<String, NvrtcError> {
        let e = cstring(expr)?;
        let mut out: *const c_char = core::ptr::null();
        // SAFETY: live program, valid out-pointer.
        unsafe {
            self.backend
                .nvrtcGetLoweredName(self.raw, e.as_ptr(), &mut out)
                .result()?
        };
        if out.is_null() {
            return Err(NvrtcError(
                nvrtcResult::NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
            ));
        }
        // SAFETY: the compiler returns a NUL-terminated string owned by the program.
        Ok(unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned())
    }

    fn fetch(
        &self,
        size: unsafe fn(&Backend, nvrtcProgram, *mut usize) -> nvrtcResult,
        get: unsafe fn(&Backend, nvrtcProgram, *mut c_char) -> nvrtcResult,
    ) -> Result<Vec<u8>, NvrtcError> {
        let mut n = 0usize;
        // SAFETY: live program, valid out-pointer.
        unsafe { size(&self.backend, self.raw, &mut n).result()? };
        let mut buf = vec![0u8; n];
        if n > 0 {
            // SAFETY: the buffer has the size the compiler asked for.
            unsafe { get(&self.backend, self.raw, buf.as_mut_ptr().cast()).result()? };
        }
        Ok(buf)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: we own the handle; the registry makes a double destroy an error, not UB.
        let r = unsafe { self.backend.nvrtcDestroyProgram(&mut self.raw) };
        if r != nvrtcResult::NVRTC_SUCCESS {
            log::warn!("nvrtcDestroyProgram: {r}");
        }
    }
}

fn strip_nul(b: &[u8]) -> &[u8] {
    b.strip_suffix(&[0]).unwrap_or(b)
}
