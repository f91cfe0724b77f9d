//! `Rtc` for CUDA: forwarding to libnvrtc, with the checks NVRTC itself skips so bad input gets
//! an error instead of a crash:
//! - a handle is a key into [`Handles`], never NVRTC's pointer: a null, made-up or destroyed
//!   handle is `NVRTC_ERROR_INVALID_PROGRAM`, and a destroy waits for calls in flight;
//! - null arrays are refused, and options are checked against NVRTC 13.5's option table
//!   (`rtc_options`): unknown options and values outside their class never reach NVRTC;
//! - compiles run on a thread with a large stack (and are refused with
//!   `NVRTC_ERROR_OUT_OF_MEMORY` when it cannot be created, never run on the caller's), and
//!   sources whose expressions, brackets or macros nest deeper than
//!   [`rtc_input::MAX_NESTING`] are refused, so deep input is an error on every thread.

#![allow(non_snake_case)]

use crate::loader::call;
use crate::CudaBackend;
use anycuda_api::hallucinated::is_reserved;
use anycuda_api::handles::Handles;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::nvrtc_non_null as non_null;
use anycuda_api::rtc_headers::RtcTarget;
use anycuda_api::rtc_input::{self, AssertSend};
use anycuda_api::rtc_options::{self, Dialect};
use anycuda_api::CudaEnum;
use core::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// No libnvrtc, or one that predates the entry point.
const NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;
/// No libnvrtc (generated forwarding).
pub(crate) const NO_LIB: nvrtcResult = NS;
/// An entry point this libnvrtc lacks (generated forwarding).
pub(crate) const NO_FN: nvrtcResult = NS;

pub use crate::generated::forward::RTC_SERVED;
const INVALID_PROGRAM: nvrtcResult = nvrtcResult::NVRTC_ERROR_INVALID_PROGRAM;
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
    /// The deepest bracket nesting of the source and headers.
    depth: usize,
    /// anycuda's own log lines (a refused compile), shown before NVRTC's log.
    notes: Mutex<String>,
    /// Whether a compile was refused as NVRTC refuses a failed compilation (no more name
    /// expressions then).
    refused: AtomicBool,
}

/// The program table of the CUDA backend.
pub type Programs = Handles<NvProgram>;

impl CudaBackend {
    /// Native escape hatch: NVRTC's own handle behind an anycuda `nvrtcProgram`, for calling
    /// libnvrtc directly (it stays valid until the anycuda handle is destroyed).
    pub fn native_program(&self, prog: nvrtcProgram) -> Option<nvrtcProgram> {
        self.programs.with(prog as usize, |p| p.raw.0)
    }

    /// Runs `f` on the live program behind `prog`, held against a concurrent destroy.
    fn with_program(
        &self,
        prog: nvrtcProgram,
        f: impl FnOnce(&NvProgram) -> nvrtcResult,
    ) -> nvrtcResult {
        self.programs
            .with(prog as usize, f)
            .unwrap_or(INVALID_PROGRAM)
    }

    /// anycuda's notes, then NVRTC's log, NUL-terminated.
    fn full_log(&self, p: &NvProgram) -> Result<Vec<u8>, nvrtcResult> {
        let mut out = p
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .into_bytes();
        let mut n = 0usize;
        // SAFETY: `p.raw.0` is NVRTC's handle of a program held alive by `with_program` (a destroy
        // waits for us); `n` is a live local that NVRTC writes the size to.
        unsafe { call!(self.nvrtc, NS, NS, nvrtcGetProgramLogSize(p.raw.0, &mut n)) }
            .result()
            .map_err(|e| e.code())?;
        if n > 0 {
            let mut buf = vec![0u8; n];
            // SAFETY: `buf` has the `n` bytes NVRTC just reported for this program's log, and the
            // program is still held alive by `with_program`.
            unsafe {
                call!(
                    self.nvrtc,
                    NS,
                    NS,
                    nvrtcGetProgramLog(p.raw.0, buf.as_mut_ptr().cast())
                )
            }
            .result()
            .map_err(|e| e.code())?;
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            out.extend_from_slice(&buf[..end]);
        }
        out.push(0);
        Ok(out)
    }
}

/// `return` the body of `with_program`: the program behind `$prog`, or INVALID_PROGRAM.
macro_rules! with {
    ($b:ident, $prog:expr, |$p:ident| $body:expr) => {
        return $b.with_program($prog, |$p| $body)
    };
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
/// `nvrtcVersion` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `major` and `minor` must each be null (refused) or point to a writable `c_int`.
pub(crate) unsafe fn nvrtcVersion(
    b: &CudaBackend,
    major: *mut c_int,
    minor: *mut c_int,
) -> nvrtcResult {
    non_null!(major, minor);
    // SAFETY: `major` and `minor` are non-null (checked) and writable (caller contract of
    // `nvrtcVersion`); NVRTC only writes one `c_int` through each.
    unsafe { call!(b.nvrtc, NS, NS, nvrtcVersion(major, minor)) }
}
/// `nvrtcGetNumSupportedArchs` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `numArchs` must be null (refused) or point to a writable `c_int`.
pub(crate) unsafe fn nvrtcGetNumSupportedArchs(
    b: &CudaBackend,
    numArchs: *mut c_int,
) -> nvrtcResult {
    non_null!(numArchs);
    // SAFETY: `numArchs` is non-null (checked) and points to a writable `c_int` (caller contract).
    unsafe { call!(b.nvrtc, NS, NS, nvrtcGetNumSupportedArchs(numArchs)) }
}
/// `nvrtcGetSupportedArchs` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `supportedArchs` must be null (refused) or have room for the count `nvrtcGetNumSupportedArchs`
/// reports.
pub(crate) unsafe fn nvrtcGetSupportedArchs(
    b: &CudaBackend,
    supportedArchs: *mut c_int,
) -> nvrtcResult {
    non_null!(supportedArchs);
    // SAFETY: `supportedArchs` is non-null (checked) and has room for the count
    // `nvrtcGetNumSupportedArchs` reported (caller contract).
    unsafe { call!(b.nvrtc, NS, NS, nvrtcGetSupportedArchs(supportedArchs)) }
}
/// `nvrtcCreateProgram` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `prog` must be null (refused) or writable; `src` null (refused) or NUL-terminated; `name` null
/// or NUL-terminated; `headers` and `includeNames` as [`rtc_input::merge_headers`] requires.
pub(crate) unsafe fn nvrtcCreateProgram(
    b: &CudaBackend,
    prog: *mut nvrtcProgram,
    src: *const c_char,
    name: *const c_char,
    numHeaders: c_int,
    headers: *const *const c_char,
    includeNames: *const *const c_char,
) -> nvrtcResult {
    non_null!(prog, src);
    // SAFETY: the caller passes `numHeaders` with arrays that are null or hold that many string
    // pointers (the C API's contract, which is `merge_headers`' `# Safety`); a bad count or null
    // array is refused.
    let merged = match unsafe {
        rtc_input::merge_headers(RtcTarget::Nvrtc, numHeaders, headers, includeNames)
    } {
        Ok(h) => h,
        Err(e) => return e,
    };
    // SAFETY: `prog` and `src` are non-null (checked) and `src` NUL-terminated (caller contract);
    // `name` is null or NUL-terminated (NVRTC allows null); `merged`'s arrays hold `merged.len()`
    // valid strings owned by `merged` or the caller, and it lives past the call.
    let r = unsafe {
        call!(
            b.nvrtc,
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
        // SAFETY: NVRTC wrote the new handle through the (non-null) pointer; src and the
        // headers are NUL-terminated (caller contract, NVRTC read them too).
        let (raw, depth) = unsafe { (*prog, rtc_input::program_depth(src, &merged)) };
        let handle = b.programs.insert(NvProgram {
            raw: Raw(raw),
            depth,
            notes: Mutex::new(String::new()),
            refused: AtomicBool::new(false),
        });
        // SAFETY: non-null out-pointer (checked).
        unsafe { *prog = handle as nvrtcProgram };
    }
    r
}
/// `nvrtcDestroyProgram` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `prog` must be null (refused) or point to a readable and writable `nvrtcProgram` (any value:
/// unknown handles are refused).
pub(crate) unsafe fn nvrtcDestroyProgram(b: &CudaBackend, prog: *mut nvrtcProgram) -> nvrtcResult {
    non_null!(prog);
    // SAFETY: non-null pointer to a handle (caller contract).
    let handle = unsafe { *prog };
    // Waits for calls in flight on this program; later calls find it gone.
    let Some(p) = b.programs.remove(handle as usize) else {
        return INVALID_PROGRAM;
    };
    let mut raw = p.raw.0;
    // SAFETY: `raw` is NVRTC's handle, just taken out of the table so nothing else can use it;
    // NVRTC destroys it through the pointer to this local.
    let r = unsafe { call!(b.nvrtc, NS, NS, nvrtcDestroyProgram(&mut raw)) };
    // SAFETY: non-null (checked); NVRTC nulls the handle it destroys, so do we.
    unsafe { *prog = core::ptr::null_mut() };
    r
}
/// `nvrtcCompileProgram` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `options` must be null or point to `numOptions` pointers, each null or NUL-terminated (as
/// [`rtc_input::options`] requires). `prog` may be any value.
pub(crate) unsafe fn nvrtcCompileProgram(
    b: &CudaBackend,
    prog: nvrtcProgram,
    numOptions: c_int,
    options: *const *const c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        // SAFETY: `options` is null or holds `numOptions` NUL-terminated strings that outlive this
        // call (caller contract of `nvrtcCompileProgram`), which is what `options` requires; the
        // slice is only used within this call.
        let opts = match unsafe { rtc_input::options(numOptions, options) } {
            Ok(o) => o,
            Err(e) => return e,
        };
        let mut notes = p.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes.clear();
        // NVRTC's option table: unknown options and values outside their class never reach
        // NVRTC (some abort it); two-entry spellings become one entry.
        let normal = match rtc_options::normalise(&opts, Dialect::Nvrtc) {
            Ok(n) => n,
            Err(e) => {
                *notes = format!("anycuda: error: {e}\n");
                return nvrtcResult::NVRTC_ERROR_INVALID_OPTION;
            }
        };
        let opts: Vec<&core::ffi::CStr> = normal.iter().map(|c| c.as_c_str()).collect();
        if p.depth > rtc_input::MAX_NESTING {
            *notes = rtc_input::too_deep_note(p.depth);
            p.refused.store(true, Ordering::Release);
            return nvrtcResult::NVRTC_ERROR_COMPILATION;
        }
        if opts
            .iter()
            .any(|o| matches!(o.to_bytes(), b"-restrict" | b"--restrict"))
        {
            // An NVRTC 13.0 bug (tests/rtc_restrict.rs): say so where the user looks.
            notes.push_str(RESTRICT_NOTE);
            log::warn!("{}", RESTRICT_NOTE.trim_end());
        }
        drop(notes);
        let (kept, filtered) = rtc_options::filter(&opts);
        for n in &filtered {
            log::debug!("nvrtcCompileProgram: {n}");
        }
        let ptrs: Vec<*const c_char> = kept.iter().map(|o| o.as_ptr()).collect();
        let n = ptrs.len() as c_int; // at most numOptions
        let args = AssertSend((p.raw, ptrs));
        let r = rtc_input::on_compile_stack(|| {
            let (raw, ptrs) = args.into_inner();
            // SAFETY: a live program and `n` option strings that outlive the joined thread.
            unsafe {
                call!(
                    b.nvrtc,
                    NS,
                    NS,
                    nvrtcCompileProgram(raw.0, n, ptrs.as_ptr())
                )
            }
        });
        match r {
            Ok(r) => r,
            Err(e) => {
                let mut notes = p.notes.lock().unwrap_or_else(|e| e.into_inner());
                notes.push_str(&e.note());
                e.code()
            }
        }
    })
}
/// `nvrtcGetPTXSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `ptxSizeRet` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetPTXSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    ptxSizeRet: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(ptxSizeRet);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `ptxSizeRet` is
        // non-null (checked) and writable (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetPTXSize(p.raw.0, ptxSizeRet)) }
    })
}
/// `nvrtcGetPTX` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `ptx` must be null (refused) or have room for the size `nvrtcGetPTXSize` reported for `prog`.
pub(crate) unsafe fn nvrtcGetPTX(
    b: &CudaBackend,
    prog: nvrtcProgram,
    ptx: *mut c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(ptx);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `ptx` is non-null
        // (checked) and sized by `nvrtcGetPTXSize` (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetPTX(p.raw.0, ptx)) }
    })
}
/// `nvrtcGetCUBINSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `cubinSizeRet` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetCUBINSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    cubinSizeRet: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(cubinSizeRet);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `cubinSizeRet` is
        // non-null (checked) and writable (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetCUBINSize(p.raw.0, cubinSizeRet)) }
    })
}
/// `nvrtcGetCUBIN` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `cubin` must be null (refused) or have room for the size `nvrtcGetCUBINSize` reported for
/// `prog`.
pub(crate) unsafe fn nvrtcGetCUBIN(
    b: &CudaBackend,
    prog: nvrtcProgram,
    cubin: *mut c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(cubin);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `cubin` is non-null
        // (checked) and sized by `nvrtcGetCUBINSize` (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetCUBIN(p.raw.0, cubin)) }
    })
}
/// `nvrtcGetLTOIRSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `LTOIRSizeRet` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetLTOIRSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    LTOIRSizeRet: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(LTOIRSizeRet);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `LTOIRSizeRet` is
        // non-null (checked) and writable (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetLTOIRSize(p.raw.0, LTOIRSizeRet)) }
    })
}
/// `nvrtcGetLTOIR` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `LTOIR` must be null (refused) or have room for the size `nvrtcGetLTOIRSize` reported for
/// `prog`.
pub(crate) unsafe fn nvrtcGetLTOIR(
    b: &CudaBackend,
    prog: nvrtcProgram,
    LTOIR: *mut c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(LTOIR);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `LTOIR` is non-null
        // (checked) and sized by `nvrtcGetLTOIRSize` (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetLTOIR(p.raw.0, LTOIR)) }
    })
}
/// `nvrtcGetOptiXIRSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `optixirSizeRet` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetOptiXIRSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    optixirSizeRet: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(optixirSizeRet);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `optixirSizeRet` is
        // non-null (checked) and writable (caller contract).
        unsafe {
            call!(
                b.nvrtc,
                NS,
                NS,
                nvrtcGetOptiXIRSize(p.raw.0, optixirSizeRet)
            )
        }
    })
}
/// `nvrtcGetOptiXIR` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `optixir` must be null (refused) or have room for the size `nvrtcGetOptiXIRSize` reported for
/// `prog`.
pub(crate) unsafe fn nvrtcGetOptiXIR(
    b: &CudaBackend,
    prog: nvrtcProgram,
    optixir: *mut c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(optixir);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `optixir` is non-null
        // (checked) and sized by `nvrtcGetOptiXIRSize` (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetOptiXIR(p.raw.0, optixir)) }
    })
}
/// `nvrtcGetProgramLogSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `logSizeRet` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetProgramLogSize(
    b: &CudaBackend,
    prog: nvrtcProgram,
    logSizeRet: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(logSizeRet);
        match b.full_log(p) {
            // SAFETY: non-null (checked) and writable (caller contract).
            Ok(log) => unsafe { rtc_input::write_size(log.len(), logSizeRet) }
                .err()
                .unwrap_or(nvrtcResult::NVRTC_SUCCESS),
            Err(e) => e,
        }
    })
}
/// `nvrtcGetProgramLog` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `log` must be null (refused) or have room for the size `nvrtcGetProgramLogSize` reported for
/// `prog`.
pub(crate) unsafe fn nvrtcGetProgramLog(
    b: &CudaBackend,
    prog: nvrtcProgram,
    log: *mut c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(log);
        match b.full_log(p) {
            // SAFETY: the caller sized `log` with nvrtcGetProgramLogSize.
            Ok(text) => unsafe { rtc_input::copy_out(&text, log) }
                .err()
                .unwrap_or(nvrtcResult::NVRTC_SUCCESS),
            Err(e) => e,
        }
    })
}
/// `nvrtcAddNameExpression` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `name_expression` must be null (refused) or NUL-terminated. `prog` may be any value.
pub(crate) unsafe fn nvrtcAddNameExpression(
    b: &CudaBackend,
    prog: nvrtcProgram,
    name_expression: *const c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
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
/// `nvrtcGetLoweredName` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `name_expression` must be null (refused) or NUL-terminated; `lowered_name` null (refused) or
/// writable. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetLoweredName(
    b: &CudaBackend,
    prog: nvrtcProgram,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(name_expression, lowered_name);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `name_expression` is
        // non-null (checked) and NUL-terminated, `lowered_name` non-null (checked) and writable
        // (caller contract).
        unsafe {
            call!(
                b.nvrtc,
                NS,
                NS,
                nvrtcGetLoweredName(p.raw.0, name_expression, lowered_name)
            )
        }
    })
}
/// `nvrtcGetPCHHeapSize` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `ret` must be null (refused) or point to a writable `usize`.
pub(crate) unsafe fn nvrtcGetPCHHeapSize(b: &CudaBackend, ret: *mut usize) -> nvrtcResult {
    non_null!(ret);
    // SAFETY: `ret` is non-null (checked) and points to a writable `usize` (caller contract).
    unsafe { call!(b.nvrtc, NS, NS, nvrtcGetPCHHeapSize(ret)) }
}
/// `nvrtcGetPCHCreateStatus` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// None beyond NVRTC's: `prog` may be any value (unknown handles are refused).
pub(crate) unsafe fn nvrtcGetPCHCreateStatus(b: &CudaBackend, prog: nvrtcProgram) -> nvrtcResult {
    // SAFETY: `p.raw.0` is a live NVRTC program, held by `with_program` against a concurrent
    // destroy; the call takes nothing else.
    with!(b, prog, |p| unsafe {
        call!(b.nvrtc, NS, NS, nvrtcGetPCHCreateStatus(p.raw.0))
    })
}
/// `nvrtcGetPCHHeapSizeRequired` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `size` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub(crate) unsafe fn nvrtcGetPCHHeapSizeRequired(
    b: &CudaBackend,
    prog: nvrtcProgram,
    size: *mut usize,
) -> nvrtcResult {
    with!(b, prog, |p| {
        non_null!(size);
        // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `size` is non-null
        // (checked) and writable (caller contract).
        unsafe { call!(b.nvrtc, NS, NS, nvrtcGetPCHHeapSizeRequired(p.raw.0, size)) }
    })
}
/// `nvrtcSetFlowCallback` on NVRTC (listed in codegen/cuda-overrides.txt).
///
/// # Safety
/// `callback` and `payload` must satisfy NVRTC's contract for them (the callback is called with
/// `payload` during a compile). `prog` may be any value.
pub(crate) unsafe fn nvrtcSetFlowCallback(
    b: &CudaBackend,
    prog: nvrtcProgram,
    callback: Option<unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int>,
    payload: *mut c_void,
) -> nvrtcResult {
    // SAFETY: `p.raw.0` is a live NVRTC program (held by `with_program`); `callback` and `payload`
    // are the caller's, passed on unchanged under NVRTC's own contract for them.
    with!(b, prog, |p| unsafe {
        call!(
            b.nvrtc,
            NS,
            NS,
            nvrtcSetFlowCallback(p.raw.0, callback, payload)
        )
    })
}
