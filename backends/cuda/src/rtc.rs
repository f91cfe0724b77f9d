//! `Rtc` for CUDA: libnvrtc behind the NVRTC program lifecycle both backends share
//! ([`anycuda_rtc::rtc_program`]: handle table, NULL checks, NVRTC 13.5's option table, the
//! nesting bound, the large-stack compile thread, anycuda's notes in the log). What is NVRTC's
//! own is here: the calls into libnvrtc, the `-restrict` note, and name expressions refused
//! after a compile anycuda refused. The functions whose only rules are the handle lookup and
//! NULL checks are written by the generator (`codegen/cuda-nvrtc-checked.txt`).

#![allow(non_snake_case)]

use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::handles::Handles;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::CudaEnum;
use anycuda_rtc::nvrtc_non_null as non_null;
use anycuda_rtc::rtc_headers::RtcTarget;
use anycuda_rtc::rtc_input::Headers;
use anycuda_rtc::rtc_options::{self, Dialect};
use anycuda_rtc::rtc_program::{self, with_program, ProgramBase, RtcBackend};
use core::ffi::{c_char, c_int, CStr};
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};

/// No libnvrtc, or one that predates the entry point.
const NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;
/// No libnvrtc (generated forwarding).
pub(crate) const NO_LIB: nvrtcResult = NS;
/// An entry point this libnvrtc lacks (generated forwarding).
pub(crate) const NO_FN: nvrtcResult = NS;

pub use crate::generated::forward::RTC_SERVED;
const RESTRICT_NOTE: &str = "anycuda: warning: NVRTC 13.0 keeps '-restrict' for every later \
     program of this process (kernels compiled afterwards get __restrict__ pointers)\n";

/// NVRTC's own program handle; NVRTC programs may be used from any thread.
#[derive(Debug, Clone, Copy)]
struct Raw(nvrtcProgram);
// SAFETY: NVRTC is thread-safe; the handle is only passed to NVRTC.
unsafe impl Send for Raw {}
// SAFETY: as above.
unsafe impl Sync for Raw {}

/// What an `nvrtcProgram` names on CUDA.
#[derive(Debug)]
pub struct NvProgram {
    raw: Raw,
    /// Nesting depth and anycuda's notes.
    base: ProgramBase,
    /// Whether a compile was refused as NVRTC refuses a failed compilation (no more name
    /// expressions then).
    refused: AtomicBool,
}

impl NvProgram {
    /// NVRTC's own handle, live while the program is held (`with_program`).
    pub(crate) fn raw(&self) -> nvrtcProgram {
        self.raw.0
    }
}

/// The program table of the CUDA backend.
pub type Programs = Handles<NvProgram>;

impl CudaBackend {
    /// Native escape hatch: NVRTC's own handle behind an anycuda `nvrtcProgram`, for calling
    /// libnvrtc directly (it stays valid until the anycuda handle is destroyed).
    pub fn native_program(&self, prog: nvrtcProgram) -> Option<nvrtcProgram> {
        self.programs.with(prog as usize, |p| p.raw.0)
    }
}

impl RtcBackend for CudaBackend {
    type Program = NvProgram;

    fn programs(&self) -> &Handles<NvProgram> {
        &self.programs
    }

    fn base(p: &NvProgram) -> &ProgramBase {
        &p.base
    }

    fn header_target(&self) -> RtcTarget {
        RtcTarget::Nvrtc
    }

    fn dialect(&self) -> Dialect {
        Dialect::Nvrtc
    }

    unsafe fn create(
        &self,
        src: *const c_char,
        name: *const c_char,
        headers: &Headers,
        base: ProgramBase,
    ) -> Result<NvProgram, nvrtcResult> {
        let mut raw: nvrtcProgram = core::ptr::null_mut();
        // SAFETY: `raw` is a live local for the new handle; `src` is NUL-terminated, `name` null
        // (NVRTC allows it) or NUL-terminated, and `headers`' arrays hold `headers.len()` valid
        // strings alive for the call (this fn's contract).
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcCreateProgram(
                    &mut raw,
                    src,
                    name,
                    headers.len(),
                    headers.sources_ptr(),
                    headers.names_ptr()
                )
            )
        }
        .result()
        .map_err(|e| e.code())?;
        Ok(NvProgram {
            raw: Raw(raw),
            base,
            refused: AtomicBool::new(false),
        })
    }

    fn destroy(&self, p: NvProgram) -> nvrtcResult {
        let mut raw = p.raw.0;
        // SAFETY: `raw` is NVRTC's handle of a program just taken out of the table, so nothing
        // else can use it; NVRTC destroys it through the pointer to this local.
        unsafe { call!(self.nvrtc, NS, NS, nvrtcDestroyProgram(&mut raw)) }
    }

    fn compiler_log(&self, p: &NvProgram) -> Result<Vec<u8>, nvrtcResult> {
        rtc_program::sized_output(
            // SAFETY: a live program (held by the caller), a live out-pointer.
            |n| unsafe { call!(self.nvrtc, NS, NS, nvrtcGetProgramLogSize(p.raw.0, n)) },
            // SAFETY: a live program; the buffer has the size NVRTC just reported.
            |buf| unsafe { call!(self.nvrtc, NS, NS, nvrtcGetProgramLog(p.raw.0, buf)) },
        )
    }

    fn prepare(
        &self,
        _p: &NvProgram,
        opts: &[&CStr],
        notes: &mut String,
    ) -> Result<Vec<CString>, nvrtcResult> {
        if opts
            .iter()
            .any(|o| matches!(o.to_bytes(), b"-restrict" | b"--restrict"))
        {
            // An NVRTC 13.0 bug (tests/rtc_restrict.rs): say so where the user looks.
            notes.push_str(RESTRICT_NOTE);
            log::warn!("{}", RESTRICT_NOTE.trim_end());
        }
        let (kept, filtered) = rtc_options::filter(opts);
        for n in &filtered {
            log::debug!("nvrtcCompileProgram: {n}");
        }
        Ok(kept.into_iter().map(CStr::to_owned).collect())
    }

    fn refused(&self, p: &NvProgram) {
        p.refused.store(true, Ordering::Release);
    }

    fn compile(&self, p: &NvProgram, args: &[CString]) -> nvrtcResult {
        let ptrs: Vec<*const c_char> = args.iter().map(|o| o.as_ptr()).collect();
        let n = ptrs.len() as c_int; // at most the caller's numOptions
                                     // SAFETY: a live program (held by the caller) and `n` option strings owned by `args`.
        unsafe {
            call!(
                self.nvrtc,
                NS,
                NS,
                nvrtcCompileProgram(p.raw.0, n, ptrs.as_ptr())
            )
        }
    }
}

/// `nvrtcGetErrorString` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// None beyond NVRTC's: `result` may be any value (unknown ones get anycuda's string); the returned
/// pointer is a static NUL-terminated string.
pub(crate) unsafe fn nvrtcGetErrorString(b: &CudaBackend, result: nvrtcResult) -> *const c_char {
    match b.native_nvrtc().and_then(|t| t.nvrtcGetErrorString) {
        // SAFETY: takes a value, returns a static string.
        Some(f) if !is_reserved(result.to_i64()) && result.name().is_some() => unsafe { f(result) },
        _ => anycuda_api::strings::nvrtc_error_string(result),
    }
}
/// `nvrtcCreateProgram` on NVRTC (listed in codegen/cuda-overrides.txt): the shared lifecycle.
///
/// # Safety
/// As [`rtc_program::create_program`].
pub(crate) unsafe fn nvrtcCreateProgram(
    b: &CudaBackend,
    prog: *mut nvrtcProgram,
    src: *const c_char,
    name: *const c_char,
    numHeaders: c_int,
    headers: *const *const c_char,
    includeNames: *const *const c_char,
) -> nvrtcResult {
    // SAFETY: the caller's contract is `create_program`'s.
    unsafe { rtc_program::create_program(b, prog, src, name, numHeaders, headers, includeNames) }
}
/// `nvrtcDestroyProgram` on NVRTC (listed in codegen/cuda-overrides.txt): the shared lifecycle.
///
/// # Safety
/// As [`rtc_program::destroy_program`].
pub(crate) unsafe fn nvrtcDestroyProgram(b: &CudaBackend, prog: *mut nvrtcProgram) -> nvrtcResult {
    // SAFETY: the caller's contract is `destroy_program`'s.
    unsafe { rtc_program::destroy_program(b, prog) }
}
/// `nvrtcCompileProgram` on NVRTC (listed in codegen/cuda-overrides.txt): the shared lifecycle.
///
/// # Safety
/// As [`rtc_program::compile_program`].
pub(crate) unsafe fn nvrtcCompileProgram(
    b: &CudaBackend,
    prog: nvrtcProgram,
    numOptions: c_int,
    options: *const *const c_char,
) -> nvrtcResult {
    // SAFETY: the caller's contract is `compile_program`'s.
    unsafe { rtc_program::compile_program(b, prog, numOptions, options) }
}
/// `nvrtcGetProgramLogSize` on NVRTC (listed in codegen/cuda-overrides.txt): the shared
/// lifecycle (anycuda's notes before NVRTC's log).
///
/// # Safety
/// As [`rtc_program::program_log_size`].
pub(crate) unsafe fn nvrtcGetProgramLogSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    logSizeRet: *mut usize,
) -> nvrtcResult {
    // SAFETY: the caller's contract is `program_log_size`'s.
    unsafe { rtc_program::program_log_size(b, prog, logSizeRet) }
}
/// `nvrtcGetProgramLog` on NVRTC (listed in codegen/cuda-overrides.txt): the shared lifecycle.
///
/// # Safety
/// As [`rtc_program::program_log`].
pub(crate) unsafe fn nvrtcGetProgramLog(
    b: &CudaBackend,
    prog: nvrtcProgram,
    log: *mut c_char,
) -> nvrtcResult {
    // SAFETY: the caller's contract is `program_log`'s.
    unsafe { rtc_program::program_log(b, prog, log) }
}
/// `nvrtcAddNameExpression` on NVRTC (listed in codegen/cuda-overrides.txt): refused after a
/// compile anycuda refused, as NVRTC refuses after a failed compile.
///
/// # Safety
/// `name_expression` must be null (refused) or NUL-terminated. `prog` may be any value.
pub(crate) unsafe fn nvrtcAddNameExpression(
    b: &CudaBackend,
    prog: nvrtcProgram,
    name_expression: *const c_char,
) -> nvrtcResult {
    with_program(b, prog, |p| {
        non_null!(name_expression);
        if p.refused.load(Ordering::Acquire) {
            return nvrtcResult::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
        }
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `name_expression` is
        // non-null (checked) and NUL-terminated (caller contract); NVRTC copies it.
        unsafe {
            call!(
                b.nvrtc,
                NS,
                NS,
                nvrtcAddNameExpression(p.raw.0, name_expression)
            )
        }
    })
}
