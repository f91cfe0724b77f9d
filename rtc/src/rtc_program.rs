//! The NVRTC program lifecycle, written once for both backends.
//!
//! Both backends serve `nvrtcCreateProgram`, `nvrtcDestroyProgram`, `nvrtcCompileProgram` and
//! `nvrtcGetProgramLog(Size)` with the same rules; only the calls into their compiler differ.
//! The rules live here, and each backend implements [`RtcBackend`] for its compiler (NVRTC, or
//! hipRTC with the HIP backend's translations):
//! - a program handle is a key into the backend's [`Handles`] table, never the compiler's
//!   pointer: a null, made-up or destroyed handle is `NVRTC_ERROR_INVALID_PROGRAM`, and a
//!   destroy waits for the calls in flight on it ([`with_program`]);
//! - null arguments are refused (`NVRTC_ERROR_INVALID_INPUT`) where NVRTC would dereference
//!   them (a null program pointer, and a null option array, with NVIDIA's codes:
//!   `NVRTC_ERROR_INVALID_PROGRAM`, `NVRTC_ERROR_INVALID_OPTION`), header arrays are checked and anycuda's built-in headers merged in
//!   ([`rtc_input::merge_headers`]);
//! - options are checked against NVRTC 13.5's option table before any compiler sees them
//!   ([`rtc_options::normalise`]): unknown options and values outside their class are
//!   `NVRTC_ERROR_INVALID_OPTION` with the reason in the log;
//! - sources nesting deeper than [`rtc_input::MAX_NESTING`] fail to compile
//!   (`NVRTC_ERROR_COMPILATION`, the reason in the log), and every compile runs on a thread
//!   with a large stack ([`rtc_input::on_compile_stack`]), so deep input is an error on every
//!   thread, never a crash;
//! - the log is anycuda's notes (refusals, option notes), then the compiler's own log, with
//!   one terminating NUL.

use crate::rtc_headers::RtcTarget;
use crate::rtc_input::{self, Headers};
use crate::rtc_options::{self, Dialect};
use anycuda_api::handles::Handles;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use core::ffi::{c_char, c_int, CStr};
use std::ffi::CString;
use std::sync::{Mutex, MutexGuard};

const INVALID_PROGRAM: nvrtcResult = nvrtcResult::NVRTC_ERROR_INVALID_PROGRAM;

/// What every program keeps, whatever its compiler.
#[derive(Debug, Default)]
pub struct ProgramBase {
    /// The deepest bracket nesting of the source and headers.
    depth: usize,
    /// anycuda's own log lines, shown before the compiler's log.
    notes: Mutex<String>,
}

impl ProgramBase {
    /// The deepest bracket nesting of the source and headers.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// anycuda's log lines for the last compile (the text stays valid if a holder panicked).
    pub fn notes(&self) -> MutexGuard<'_, String> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A backend's run-time compiler, as the shared program lifecycle drives it. Everything here is
/// called with the program held against a concurrent destroy.
pub trait RtcBackend: Sync {
    /// What an `nvrtcProgram` names on this backend: the compiler's handle and what the backend
    /// keeps with it, including a [`ProgramBase`].
    type Program: Sync;

    /// The backend's program table.
    fn programs(&self) -> &Handles<Self::Program>;

    /// The shared part of a program.
    fn base(p: &Self::Program) -> &ProgramBase;

    /// The built-in header set for this compiler.
    fn header_target(&self) -> RtcTarget;

    /// The NVRTC option dialect this compiler is given (whether HIP-only options are allowed).
    fn dialect(&self) -> Dialect;

    /// Creates the compiler's program.
    ///
    /// # Errors
    /// The compiler's error, as an NVRTC code.
    ///
    /// # Safety
    /// `src` is non-null and NUL-terminated, `name` null or NUL-terminated, and `headers`' arrays
    /// hold `headers.len()` valid NUL-terminated strings, all alive for the call.
    unsafe fn create(
        &self,
        src: *const c_char,
        name: *const c_char,
        headers: &Headers,
        base: ProgramBase,
    ) -> Result<Self::Program, nvrtcResult>;

    /// Destroys a program just taken out of the table (no call can reach it any more).
    fn destroy(&self, p: Self::Program) -> nvrtcResult;

    /// The compiler's own log of the last compile (a NUL and what follows it are dropped).
    ///
    /// # Errors
    /// The compiler's error, as an NVRTC code.
    fn compiler_log(&self, p: &Self::Program) -> Result<Vec<u8>, nvrtcResult>;

    /// Turns options that passed NVRTC's option table (one entry each) into the compiler's
    /// arguments, adding the backend's notes to `notes`.
    ///
    /// # Errors
    /// The code the compile is refused with; `notes` says why.
    fn prepare(
        &self,
        p: &Self::Program,
        opts: &[&CStr],
        notes: &mut String,
    ) -> Result<Vec<CString>, nvrtcResult>;

    /// Records that a compile was refused as a failed compilation (`NVRTC_ERROR_COMPILATION`),
    /// which NVRTC's rules about name expressions and output then follow.
    fn refused(&self, p: &Self::Program);

    /// Runs the compiler with `args` (on the large-stack compile thread).
    fn compile(&self, p: &Self::Program, args: &[CString]) -> nvrtcResult;
}

/// Runs `f` on the live program behind `prog`, held against a concurrent destroy; a null,
/// made-up or destroyed handle is `NVRTC_ERROR_INVALID_PROGRAM`.
pub fn with_program<B: RtcBackend>(
    b: &B,
    prog: nvrtcProgram,
    f: impl FnOnce(&B::Program) -> nvrtcResult,
) -> nvrtcResult {
    b.programs()
        .with(prog as usize, f)
        .unwrap_or(INVALID_PROGRAM)
}

/// `nvrtcCreateProgram`.
///
/// # Safety
/// `prog` must be null (`NVRTC_ERROR_INVALID_PROGRAM`) or writable; `src` null (refused) or
/// NUL-terminated; `name`
/// null or NUL-terminated; `headers` and `include_names` as [`rtc_input::merge_headers`]
/// requires.
pub unsafe fn create_program<B: RtcBackend>(
    b: &B,
    prog: *mut nvrtcProgram,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> nvrtcResult {
    // NVIDIA's NVRTC answers a NULL program out-pointer as an invalid program, before the
    // source (the C ABI's differential fuzzer).
    if prog.is_null() {
        return INVALID_PROGRAM;
    }
    crate::nvrtc_non_null!(src);
    // SAFETY: the caller passes `num_headers` with arrays that are null or hold that many string
    // pointers (this fn's contract, which is `merge_headers`' `# Safety`); a bad count or null
    // array is refused.
    let merged = match unsafe {
        rtc_input::merge_headers(b.header_target(), num_headers, headers, include_names)
    } {
        Ok(h) => h,
        Err(e) => return e,
    };
    // SAFETY: `src` is non-null (checked) and NUL-terminated, and the headers are NUL-terminated
    // (caller contract).
    let depth = unsafe { rtc_input::program_depth(src, &merged) };
    let base = ProgramBase {
        depth,
        notes: Mutex::new(String::new()),
    };
    // SAFETY: `src` is non-null (checked) and NUL-terminated, `name` null or NUL-terminated
    // (caller contract); `merged` holds valid strings and outlives the call.
    match unsafe { b.create(src, name, &merged, base) } {
        Ok(p) => {
            let handle = b.programs().insert(p);
            // SAFETY: `prog` is non-null (checked) and writable (caller contract).
            unsafe { *prog = handle as nvrtcProgram };
            nvrtcResult::NVRTC_SUCCESS
        }
        Err(e) => e,
    }
}

/// `nvrtcDestroyProgram`: waits for the calls in flight on the program; later calls find it
/// gone.
///
/// # Safety
/// `prog` must be null (`NVRTC_ERROR_INVALID_PROGRAM`) or point to a readable and writable
/// `nvrtcProgram` (any value: unknown handles are refused).
pub unsafe fn destroy_program<B: RtcBackend>(b: &B, prog: *mut nvrtcProgram) -> nvrtcResult {
    // NULL is no program, as NVIDIA's NVRTC answers.
    if prog.is_null() {
        return INVALID_PROGRAM;
    }
    // SAFETY: non-null (checked) and readable (caller contract).
    let handle = unsafe { *prog };
    let Some(p) = b.programs().remove(handle as usize) else {
        return INVALID_PROGRAM;
    };
    let r = b.destroy(p);
    // SAFETY: non-null (checked) and writable (caller contract); NVRTC nulls the handle it
    // destroys, so do we.
    unsafe { *prog = core::ptr::null_mut() };
    r
}

/// `nvrtcCompileProgram`: the options checked, the backend's preparation, the nesting bound,
/// then the compiler on the large-stack thread.
///
/// # Safety
/// `options` must be null or point to `num_options` pointers, each null or NUL-terminated (as
/// [`rtc_input::options`] requires). `prog` may be any value.
pub unsafe fn compile_program<B: RtcBackend>(
    b: &B,
    prog: nvrtcProgram,
    num_options: c_int,
    options: *const *const c_char,
) -> nvrtcResult {
    with_program(b, prog, |p| {
        // SAFETY: `options` is null or holds `num_options` NUL-terminated strings that outlive
        // this call (this fn's contract), which is what `options` requires; the slice is only
        // used within this call.
        let opts = match unsafe { rtc_input::options(num_options, options) } {
            Ok(o) => o,
            Err(e) => return e,
        };
        let base = B::base(p);
        let mut notes = base.notes();
        notes.clear();
        // NVRTC's option table: unknown options and values outside their class reach no
        // compiler (some abort NVRTC); two-entry spellings become one entry.
        let normal = match rtc_options::normalise(&opts, b.dialect()) {
            Ok(n) => n,
            Err(e) => {
                *notes = format!("anycuda: error: {e}\n");
                return nvrtcResult::NVRTC_ERROR_INVALID_OPTION;
            }
        };
        let opts: Vec<&CStr> = normal.iter().map(|c| c.as_c_str()).collect();
        let args = match b.prepare(p, &opts, &mut notes) {
            Ok(a) => a,
            Err(r) => return r,
        };
        if base.depth > rtc_input::MAX_NESTING {
            notes.push_str(&rtc_input::too_deep_note(base.depth));
            b.refused(p);
            return nvrtcResult::NVRTC_ERROR_COMPILATION;
        }
        drop(notes);
        match rtc_input::on_compile_stack(|| b.compile(p, &args)) {
            Ok(r) => r,
            Err(e) => {
                base.notes().push_str(&e.note());
                e.code()
            }
        }
    })
}

/// The full log: anycuda's notes, then the compiler's log, NUL-terminated.
fn full_log<B: RtcBackend>(b: &B, p: &B::Program) -> Result<Vec<u8>, nvrtcResult> {
    let mut out = B::base(p).notes().clone().into_bytes();
    let log = b.compiler_log(p)?;
    let end = log.iter().position(|&c| c == 0).unwrap_or(log.len());
    out.extend_from_slice(&log[..end]);
    out.push(0);
    Ok(out)
}

/// `nvrtcGetProgramLogSize`: the size of the full log (anycuda's notes and the compiler's log)
/// with its NUL.
///
/// # Safety
/// `size` must be null (refused) or point to a writable `usize`. `prog` may be any value.
pub unsafe fn program_log_size<B: RtcBackend>(
    b: &B,
    prog: nvrtcProgram,
    size: *mut usize,
) -> nvrtcResult {
    with_program(b, prog, |p| {
        crate::nvrtc_non_null!(size);
        match full_log(b, p) {
            // SAFETY: non-null (checked) and writable (caller contract).
            Ok(log) => unsafe { rtc_input::write_size(log.len(), size) }
                .err()
                .unwrap_or(nvrtcResult::NVRTC_SUCCESS),
            Err(e) => e,
        }
    })
}

/// `nvrtcGetProgramLog`: the full log (anycuda's notes and the compiler's log) with its NUL.
///
/// # Safety
/// `log` must be null (refused) or have room for the size `nvrtcGetProgramLogSize` reported
/// for `prog`.
pub unsafe fn program_log<B: RtcBackend>(
    b: &B,
    prog: nvrtcProgram,
    log: *mut c_char,
) -> nvrtcResult {
    with_program(b, prog, |p| {
        crate::nvrtc_non_null!(log);
        match full_log(b, p) {
            // SAFETY: non-null (checked); the caller sized it with `nvrtcGetProgramLogSize`, which
            // reports this same full log.
            Ok(text) => unsafe { rtc_input::copy_out(&text, log) }
                .err()
                .unwrap_or(nvrtcResult::NVRTC_SUCCESS),
            Err(e) => e,
        }
    })
}

/// Reads a sized output of a compiler (a log, code): `size` reports the byte count, `get`
/// fills a buffer of that size.
///
/// # Errors
/// The error of either call.
pub fn sized_output(
    size: impl FnOnce(&mut usize) -> nvrtcResult,
    get: impl FnOnce(*mut c_char) -> nvrtcResult,
) -> Result<Vec<u8>, nvrtcResult> {
    let mut n = 0usize;
    size(&mut n).result().map_err(|e| e.code())?;
    let mut buf = vec![0u8; n];
    if n > 0 {
        get(buf.as_mut_ptr().cast())
            .result()
            .map_err(|e| e.code())?;
    }
    Ok(buf)
}
