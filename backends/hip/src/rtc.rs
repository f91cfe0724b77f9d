//! `Rtc` for HIP: NVRTC's API over hipRTC.
//!
//! - CUDA options are translated (`rtc_options`); every option without a HIP meaning is noted
//!   at the top of the program log, and the target is validated before hipRTC sees it (hipRTC
//!   5.2.3 aborts the process on an unknown target).
//! - `nvrtcGetPTX`/`nvrtcGetCUBIN` return the AMD code object (`hiprtcGetCode`), which
//!   `cuModuleLoadData` on HIP accepts; `nvrtcGetLTOIR` returns the LLVM bitcode.
//! - An `nvrtcProgram` is a key into [`Handles`] (never reused, never a pointer), so a null,
//!   foreign or destroyed handle gets `NVRTC_ERROR_INVALID_PROGRAM` instead of undefined
//!   behaviour, and a destroy waits for calls in flight.
//! - NVRTC's rules are kept where hipRTC differs: an empty source compiles; an empty name
//!   expression is accepted and then fails the compile; before a successful compile the code
//!   is empty (PTX: one NUL byte, CUBIN and LTO IR: 0 bytes) and lowered names are
//!   `NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION` (probed on NVRTC 13.0).
//! - Compiles run on a large-stack thread after the shared checks (NVRTC 13.5's option table,
//!   `anycuda_api::rtc_options`, which also joins NVRTC's two-entry spellings such as `-I`,
//!   `/dir` into one entry hipRTC takes; the expression-depth bound
//!   [`rtc_input::MAX_NESTING`]), like the CUDA backend's; no thread, no compile
//!   (`NVRTC_ERROR_OUT_OF_MEMORY`).
//! - hipRTC compiles a program once; NVRTC any number of times. A repeated compile runs on a
//!   fresh hipRTC program made from the same source, headers and name expressions, and its
//!   output replaces the previous one, as on NVRTC. (As on NVRTC, one program must not be used
//!   by two threads at once.)

#![allow(non_snake_case)]

use crate::hip_types::{_hiprtcProgram, hiprtcProgram, hiprtcResult};
use crate::loader::call;
use crate::rtc_options::{self, ArchContext};
use crate::{HipBackend, Platform};
use anycuda_api::handles::Handles;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::nvrtc_non_null as non_null;
use anycuda_api::rtc_headers::RtcTarget;
use anycuda_api::rtc_input::{self, AssertSend};
use anycuda_api::rtc_options::Dialect;
use anycuda_api::traits::{Api, Rtc};
use core::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};
use std::sync::Mutex;

const NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;
const INVALID_PROGRAM: nvrtcResult = nvrtcResult::NVRTC_ERROR_INVALID_PROGRAM;

/// Compile states, as NVRTC's name-expression and code rules see them.
const FRESH: u8 = 0;
/// A compile ran and failed (`NVRTC_ERROR_COMPILATION`): no code, no more name expressions.
const FAILED: u8 = 1;
/// A compile succeeded.
const COMPILED: u8 = 2;

/// What an `nvrtcProgram` names on HIP.
#[derive(Debug)]
pub struct Program {
    /// The hipRTC program; replaced by a fresh one for every compile after the first.
    raw: AtomicPtr<_hiprtcProgram>,
    /// What a fresh hipRTC program is made of: hipRTC compiles a program once, NVRTC any number
    /// of times (each compile replacing the output), so a second compile runs on a new hipRTC
    /// program made from these.
    recipe: Recipe,
    /// The deepest bracket nesting of the source and headers.
    depth: usize,
    /// anycuda's notes (option translation), shown before hipRTC's own log.
    notes: Mutex<String>,
    /// [`FRESH`], [`FAILED`] or [`COMPILED`].
    state: AtomicU8,
    /// Whether a blank name expression was added: NVRTC accepts it, then fails the compile.
    blank_name: AtomicBool,
}

// SAFETY: the hipRTC handle is used only under the backend's hipRTC lock (`rtc!`).
unsafe impl Send for Program {}
// SAFETY: as above; the other fields are thread-safe.
unsafe impl Sync for Program {}

/// The inputs of `nvrtcCreateProgram` and the name expressions added since, kept to remake
/// the hipRTC program for a repeated compile.
#[derive(Debug, Default)]
struct Recipe {
    src: std::ffi::CString,
    name: std::ffi::CString,
    /// `(include name, source)` of every header hipRTC was given (built-ins included).
    headers: Vec<(std::ffi::CString, std::ffi::CString)>,
    names: Mutex<Vec<std::ffi::CString>>,
    /// Whether a compile ran (the next one needs a fresh hipRTC program).
    compiled_once: AtomicBool,
}

/// The program table of the HIP backend.
pub type Programs = Handles<Program>;

impl Program {
    /// The hipRTC program handle (native escape hatch).
    pub fn raw(&self) -> hiprtcProgram {
        self.raw.load(Ordering::Acquire)
    }
    fn compiled(&self) -> bool {
        self.state.load(Ordering::Acquire) == COMPILED
    }
}

/// Calls a hipRTC entry point under the backend's hipRTC lock, translating the result.
///
/// hipRTC 5.2.3 is not thread-safe: concurrent calls on different programs crash inside
/// `hiprtcAddNameExpression` (seen in this repository's tests). NVRTC is thread-safe, so the CUDA
/// backend takes no lock. Compilation dominates the cost, so serialising costs nothing that
/// matters.
macro_rules! rtc {
    ($self:ident, $f:ident($($a:expr),* $(,)?)) => {{
        let _serial = $self.rtc_lock.lock().unwrap_or_else(|e| e.into_inner());
        call!($self.rtc, NS, NS, |r| $self.nv(r), $f($($a),*))
    }};
}

impl HipBackend {
    /// Translates a hipRTC result into NVRTC's code.
    fn nv(&self, r: hiprtcResult) -> nvrtcResult {
        crate::translate(
            self.conv.nvrtcResult,
            r as i64,
            nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR,
        )
    }

    /// Native escape hatch: the hipRTC program behind an anycuda `nvrtcProgram` (valid until
    /// the anycuda handle is destroyed; hipRTC 5.2.3 is not thread-safe, see `rtc!`).
    pub fn native_program(&self, prog: nvrtcProgram) -> Option<hiprtcProgram> {
        self.programs.with(prog as usize, |p| p.raw())
    }

    /// Runs `f` on the live program behind `prog`, held against a concurrent destroy.
    fn with_program(
        &self,
        prog: nvrtcProgram,
        f: impl FnOnce(&Program) -> nvrtcResult,
    ) -> nvrtcResult {
        self.programs
            .with(prog as usize, f)
            .unwrap_or(INVALID_PROGRAM)
    }

    /// NVRTC's answer for code asked of a program without a successful compile: empty PTX (one
    /// NUL byte), empty CUBIN and LTO IR.
    fn empty_code(
        &self,
        p: &Program,
        nul: bool,
        size: *mut usize,
        out: *mut c_char,
    ) -> Option<nvrtcResult> {
        if p.compiled() {
            return None;
        }
        let data: &[u8] = if nul { &[0] } else { &[] };
        // SAFETY: caller-checked non-null pointers, sized by the matching *Size call.
        let r = unsafe {
            if size.is_null() {
                rtc_input::copy_out(data, out)
            } else {
                rtc_input::write_size(data.len(), size)
            }
        };
        Some(r.err().unwrap_or(nvrtcResult::NVRTC_SUCCESS))
    }

    /// The header set for this platform's compiler (hipRTC is NVRTC on HIP's NVIDIA platform).
    fn header_target(&self) -> RtcTarget {
        match self.platform {
            Platform::Amd => RtcTarget::Hiprtc,
            Platform::Nvidia => RtcTarget::Nvrtc,
        }
    }

    /// The current device's target, if there is a device.
    fn current_arch(&self) -> Option<String> {
        let t = self.native_hip()?;
        let mut dev = 0;
        // SAFETY: valid out-pointer.
        if unsafe { t.hipGetDevice?(&mut dev) } != 0 {
            return None;
        }
        self.device_arch(dev).ok()
    }

    /// The full log: anycuda's notes, then hipRTC's log, NUL-terminated.
    fn full_log(&self, p: &Program) -> Result<Vec<u8>, nvrtcResult> {
        let mut out = p
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .into_bytes();
        let mut n = 0usize;
        // SAFETY: `p.raw()` is hipRTC's handle of a program held alive by the caller's
        // `with_program`; `n` is a live local that hipRTC writes the size to.
        let r = unsafe { rtc!(self, hiprtcGetProgramLogSize(p.raw(), &mut n)) };
        r.result().map_err(|e| e.code())?;
        if n > 0 {
            let mut buf = vec![0u8; n];
            // SAFETY: `buf` has the `n` bytes hipRTC just reported for this program's log, and the
            // program is still held alive by the caller's `with_program`.
            let r = unsafe { rtc!(self, hiprtcGetProgramLog(p.raw(), buf.as_mut_ptr().cast())) };
            r.result().map_err(|e| e.code())?;
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            out.extend_from_slice(&buf[..end]);
        }
        out.push(0);
        Ok(out)
    }

    /// Replaces `p`'s hipRTC program with a fresh one made from its recipe (source, name,
    /// headers, name expressions), as NVRTC compiles one program any number of times.
    fn renew(&self, p: &Program) -> Result<(), nvrtcResult> {
        let r = &p.recipe;
        let names: Vec<*const c_char> = r.headers.iter().map(|h| h.0.as_ptr()).collect();
        let srcs: Vec<*const c_char> = r.headers.iter().map(|h| h.1.as_ptr()).collect();
        let n = names.len() as c_int; // the count it was created with
        let mut fresh: hiprtcProgram = core::ptr::null_mut();
        let ptr = |v: &Vec<*const c_char>| {
            if v.is_empty() {
                core::ptr::null_mut()
            } else {
                v.as_ptr().cast_mut()
            }
        };
        // SAFETY: owned NUL-terminated strings alive for the call; counts match the arrays.
        unsafe {
            rtc!(
                self,
                hiprtcCreateProgram(
                    &mut fresh,
                    r.src.as_ptr(),
                    r.name.as_ptr(),
                    n,
                    ptr(&srcs),
                    ptr(&names)
                )
            )
        }
        .result()
        .map_err(|e| e.code())?;
        for e in r.names.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            // SAFETY: a live fresh program and an owned NUL-terminated string.
            let rr = unsafe { rtc!(self, hiprtcAddNameExpression(fresh, e.as_ptr())) };
            if rr != nvrtcResult::NVRTC_SUCCESS {
                // SAFETY: the fresh program is ours and unused.
                unsafe { rtc!(self, hiprtcDestroyProgram(&mut fresh)) };
                return Err(rr);
            }
        }
        let mut old = p.raw.swap(fresh, Ordering::AcqRel);
        crate::rtc_wave::forget(old as usize);
        crate::rtc_wave::remember(fresh as usize, &r.src.to_string_lossy());
        // SAFETY: the old program is ours; `with_program` holds this one against a destroy.
        unsafe { rtc!(self, hiprtcDestroyProgram(&mut old)) };
        p.state.store(FRESH, Ordering::Release);
        Ok(())
    }

    /// The CUDA compute capabilities HIP devices of the supported targets report
    /// (gfx90a → 9.0 → 90, gfx1030 → 10.3 → 103), sorted and unique.
    fn supported_ccs(&self) -> Vec<c_int> {
        let mut v: Vec<c_int> = rtc_options::supported_archs(self.hip_version())
            .iter()
            .filter_map(|a| cc_of_gfx(a))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// `gfxMMms` → `MM * 10 + m` (the last two characters are minor and stepping, in hex).
fn cc_of_gfx(arch: &str) -> Option<c_int> {
    let digits = arch.strip_prefix("gfx")?.split(':').next()?;
    if digits.len() < 3 {
        return None;
    }
    let (major, rest) = digits.split_at(digits.len() - 2);
    let major: c_int = major.parse().ok()?;
    let minor = rest.chars().next()?.to_digit(16)? as c_int;
    Some(major * 10 + minor)
}

anycuda_api::served! { RTC_SERVED;
impl Rtc for HipBackend {
    unsafe fn nvrtcVersion(&self, major: *mut c_int, minor: *mut c_int) -> nvrtcResult {
        non_null!(major, minor);
        // SAFETY: `major` and `minor` are non-null (checked) and point to writable `c_int`s (caller
        // contract of `nvrtcVersion`).
        unsafe { rtc!(self, hiprtcVersion(major, minor)) }
    }
    unsafe fn nvrtcGetNumSupportedArchs(&self, numArchs: *mut c_int) -> nvrtcResult {
        non_null!(numArchs);
        if self.platform == Platform::Nvidia || self.rtc.is_err() {
            return NS;
        }
        // SAFETY: `numArchs` is non-null (checked) and points to a writable `c_int` (caller
        // contract).
        unsafe { *numArchs = self.supported_ccs().len() as c_int };
        nvrtcResult::NVRTC_SUCCESS
    }
    unsafe fn nvrtcGetSupportedArchs(&self, supportedArchs: *mut c_int) -> nvrtcResult {
        non_null!(supportedArchs);
        if self.platform == Platform::Nvidia || self.rtc.is_err() {
            return NS;
        }
        let v = self.supported_ccs();
        // SAFETY: the caller sized the array with nvrtcGetNumSupportedArchs.
        unsafe { core::ptr::copy_nonoverlapping(v.as_ptr(), supportedArchs, v.len()) };
        nvrtcResult::NVRTC_SUCCESS
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
        // SAFETY: the caller passes `numHeaders` with arrays that are null or hold that many string
        // pointers (the C API's contract, which is `merge_headers`' `# Safety`); a bad count or
        // null array is refused.
        let merged = match unsafe { rtc_input::merge_headers(self.header_target(), numHeaders, headers, includeNames) } {
            Ok(h) => h,
            Err(e) => return e,
        };
        // NVRTC's name for an unnamed program; hipRTC needs one.
        let name = if name.is_null() { c"default_program".as_ptr() } else { name };
        // NVRTC compiles an empty source; hipRTC refuses to create one.
        // SAFETY: non-null and NUL-terminated (caller contract).
        let src = if unsafe { *src } == 0 { c"\n".as_ptr() } else { src };
        let mut raw: hiprtcProgram = core::ptr::null_mut();
        // SAFETY: `raw` is a live local for the new handle; `src` and `name` are non-null
        // NUL-terminated strings (the caller's, checked above, or static literals); `merged`'s
        // arrays hold `merged.len()` valid strings and outlive the call; the `*mut` casts only
        // match the binding of hiprtc.h's `const char**`, which hipRTC reads and never writes.
        let r = unsafe {
            rtc!(self, hiprtcCreateProgram(&mut raw, src, name, merged.len(), merged.sources_ptr().cast_mut(), merged.names_ptr().cast_mut()))
        };
        if r != nvrtcResult::NVRTC_SUCCESS {
            return r;
        }
        // SAFETY: NUL-terminated source and headers (caller contract).
        let depth = unsafe { rtc_input::program_depth(src, &merged) };
        // SAFETY: non-null NUL-terminated source (checked; caller contract).
        let text = unsafe { core::ffi::CStr::from_ptr(src) }.to_string_lossy();
        crate::rtc_wave::remember(raw as usize, &text);
        // SAFETY: NUL-terminated strings (caller contract; hipRTC read them too).
        let cstr = |p: *const c_char| unsafe { core::ffi::CStr::from_ptr(p) }.to_owned();
        let recipe = Recipe {
            src: cstr(src),
            name: cstr(name),
            headers: merged.names.iter().zip(&merged.sources).map(|(n, s)| (cstr(*n), cstr(*s))).collect(),
            ..Recipe::default()
        };
        let handle = self.programs.insert(Program {
            raw: AtomicPtr::new(raw),
            recipe,
            depth,
            notes: Mutex::new(String::new()),
            state: AtomicU8::new(FRESH),
            blank_name: AtomicBool::new(false),
        });
        // SAFETY: non-null out-pointer (checked).
        unsafe { *prog = handle as nvrtcProgram };
        r
    }
    unsafe fn nvrtcDestroyProgram(&self, prog: *mut nvrtcProgram) -> nvrtcResult {
        non_null!(prog);
        // SAFETY: non-null pointer to a handle (caller contract).
        let handle = unsafe { *prog };
        // Waits for calls in flight on this program; later calls find it gone.
        let Some(mut p) = self.programs.remove(handle as usize) else {
            return INVALID_PROGRAM;
        };
        let mut raw = p.raw.get_mut().to_owned();
        crate::rtc_wave::forget(raw as usize);
        // SAFETY: `raw` is hipRTC's handle, just taken out of the table (and `rtc_wave`) so nothing
        // else can use it; hipRTC destroys it through the pointer to this local.
        let r = unsafe { rtc!(self, hiprtcDestroyProgram(&mut raw)) };
        // SAFETY: `prog` is non-null (checked) and writable (caller contract); NVRTC nulls the
        // handle it destroys, so we do too.
        unsafe { *prog = core::ptr::null_mut() };
        r
    }
    unsafe fn nvrtcCompileProgram(&self, prog: nvrtcProgram, numOptions: c_int, options: *const *const c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            // SAFETY: `options` is null or holds `numOptions` NUL-terminated strings that outlive
            // this call (caller contract of `nvrtcCompileProgram`), which is what `options`
            // requires; the slice is only used within this call.
            let opts = match unsafe { rtc_input::options(numOptions, options) } {
                Ok(o) => o,
                Err(e) => return e,
            };
            let mut notes = p.notes.lock().unwrap_or_else(|e| e.into_inner());
            notes.clear();
            // NVRTC's option table first (both platforms), then one entry per option: hipRTC
            // takes none of NVRTC's two-entry spellings (`-I`, `/dir`; `-arch`, `sm_90`).
            let dialect = if self.platform == Platform::Nvidia { Dialect::Nvrtc } else { Dialect::Hip };
            let normal = match anycuda_api::rtc_options::normalise(&opts, dialect) {
                Ok(n) => n,
                Err(e) => {
                    *notes = format!("anycuda: error: {e}\n");
                    return nvrtcResult::NVRTC_ERROR_INVALID_OPTION;
                }
            };
            let opts: Vec<&core::ffi::CStr> = normal.iter().map(|c| c.as_c_str()).collect();
            let (args, lines) = if self.platform == Platform::Nvidia {
                // hipRTC is NVRTC here: CUDA options mean what they say; only anycuda's own go.
                let (kept, lines) = anycuda_api::rtc_options::filter(&opts);
                (kept.into_iter().map(|o| o.to_owned()).collect::<Vec<_>>(), lines)
            } else {
                let arch = self.current_arch();
                let ctx = ArchContext { device_arch: arch.as_deref(), hip_version: self.hip_version() };
                match rtc_options::translate(&opts, &ctx) {
                    // Quoted includes resolve in the working directory, as on NVRTC (rtc_include).
                    Ok(mut t) => {
                        t.args.extend(anycuda_api::rtc_include::hiprtc_search_options());
                        (t.args, t.notes)
                    }
                    Err(e) => {
                        *notes = format!("anycuda: {e}\n");
                        return nvrtcResult::NVRTC_ERROR_INVALID_OPTION;
                    }
                }
            };
            *notes = lines.iter().map(|l| format!("anycuda: {l}\n")).collect();
            if p.recipe.compiled_once.load(Ordering::Acquire) {
                if let Err(r) = self.renew(p) {
                    notes.push_str("anycuda: error: could not remake the hipRTC program for a repeated compile\n");
                    return r;
                }
            }
            notes.push_str(&crate::rtc_wave::notes(p.raw() as usize, &args));
            // NVRTC's failures that hipRTC would not report the same way.
            if p.depth > rtc_input::MAX_NESTING {
                notes.push_str(&rtc_input::too_deep_note(p.depth));
                p.state.store(FAILED, Ordering::Release);
                return nvrtcResult::NVRTC_ERROR_COMPILATION;
            }
            if p.blank_name.load(Ordering::Acquire) {
                notes.push_str("anycuda: error: Error in parsing name expression for lowered name lookup. Input name expression was blank\n");
                p.state.store(FAILED, Ordering::Release);
                return nvrtcResult::NVRTC_ERROR_COMPILATION;
            }
            drop(notes);
            let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
            let call = AssertSend((p.raw(), ptrs));
            p.recipe.compiled_once.store(true, Ordering::Release);
            let r = rtc_input::on_compile_stack(|| {
                let (raw, ptrs) = call.into_inner();
                // SAFETY: a live program; the option strings outlive the joined thread.
                unsafe { rtc!(self, hiprtcCompileProgram(raw, ptrs.len() as c_int, ptrs.as_ptr().cast_mut())) }
            });
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    p.notes.lock().unwrap_or_else(|e| e.into_inner()).push_str(&e.note());
                    return e.code();
                }
            };
            match r {
                nvrtcResult::NVRTC_SUCCESS => p.state.store(COMPILED, Ordering::Release),
                nvrtcResult::NVRTC_ERROR_COMPILATION => p.state.store(FAILED, Ordering::Release),
                _ => {}
            }
            r
        })
    }
    unsafe fn nvrtcGetPTXSize(&self, prog: nvrtcProgram, ptxSizeRet: *mut usize) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(ptxSizeRet);
            if let Some(r) = self.empty_code(p, true, ptxSizeRet, core::ptr::null_mut()) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `ptxSizeRet` is
            // non-null (checked) and writable (caller contract).
            unsafe { rtc!(self, hiprtcGetCodeSize(p.raw(), ptxSizeRet)) }
        })
    }
    unsafe fn nvrtcGetPTX(&self, prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(ptx);
            if let Some(r) = self.empty_code(p, true, core::ptr::null_mut(), ptx) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `ptx` is non-null
            // (checked) and sized by `nvrtcGetPTXSize` (caller contract).
            unsafe { rtc!(self, hiprtcGetCode(p.raw(), ptx)) }
        })
    }
    unsafe fn nvrtcGetCUBINSize(&self, prog: nvrtcProgram, cubinSizeRet: *mut usize) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(cubinSizeRet);
            if let Some(r) = self.empty_code(p, false, cubinSizeRet, core::ptr::null_mut()) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `cubinSizeRet` is
            // non-null (checked) and writable (caller contract).
            unsafe { rtc!(self, hiprtcGetCodeSize(p.raw(), cubinSizeRet)) }
        })
    }
    unsafe fn nvrtcGetCUBIN(&self, prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(cubin);
            if let Some(r) = self.empty_code(p, false, core::ptr::null_mut(), cubin) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `cubin` is non-null
            // (checked) and sized by `nvrtcGetCUBINSize` (caller contract).
            unsafe { rtc!(self, hiprtcGetCode(p.raw(), cubin)) }
        })
    }
    unsafe fn nvrtcGetLTOIRSize(&self, prog: nvrtcProgram, LTOIRSizeRet: *mut usize) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(LTOIRSizeRet);
            if let Some(r) = self.empty_code(p, false, LTOIRSizeRet, core::ptr::null_mut()) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `LTOIRSizeRet` is
            // non-null (checked) and writable (caller contract).
            unsafe { rtc!(self, hiprtcGetBitcodeSize(p.raw(), LTOIRSizeRet)) }
        })
    }
    unsafe fn nvrtcGetLTOIR(&self, prog: nvrtcProgram, LTOIR: *mut c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(LTOIR);
            if let Some(r) = self.empty_code(p, false, core::ptr::null_mut(), LTOIR) {
                return r;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (else `empty_code` answered); `LTOIR` is non-null
            // (checked) and sized by `nvrtcGetLTOIRSize` (caller contract).
            unsafe { rtc!(self, hiprtcGetBitcode(p.raw(), LTOIR)) }
        })
    }
    unsafe fn nvrtcGetProgramLogSize(&self, prog: nvrtcProgram, logSizeRet: *mut usize) -> nvrtcResult {
        self.with_program(prog, |p| {
            let log = match self.full_log(p) {
                Ok(l) => l,
                Err(e) => return e,
            };
            // SAFETY: `logSizeRet` is null, which `write_size` refuses without writing, or writable
            // (caller contract of `nvrtcGetProgramLogSize`).
            match unsafe { rtc_input::write_size(log.len(), logSizeRet) } {
                Ok(()) => nvrtcResult::NVRTC_SUCCESS,
                Err(e) => e,
            }
        })
    }
    unsafe fn nvrtcGetProgramLog(&self, prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            let text = match self.full_log(p) {
                Ok(l) => l,
                Err(e) => return e,
            };
            // SAFETY: `log` is null, which `copy_out` refuses, or has room for `text.len()` bytes:
            // the caller sized it with `nvrtcGetProgramLogSize`, which reports this same full log.
            match unsafe { rtc_input::copy_out(&text, log) } {
                Ok(()) => nvrtcResult::NVRTC_SUCCESS,
                Err(e) => e,
            }
        })
    }
    unsafe fn nvrtcAddNameExpression(&self, prog: nvrtcProgram, name_expression: *const c_char) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(name_expression);
            if p.state.load(Ordering::Acquire) != FRESH {
                return nvrtcResult::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
            }
            // SAFETY: non-null and NUL-terminated (caller contract).
            let text = unsafe { core::ffi::CStr::from_ptr(name_expression) }.to_bytes();
            if text.iter().all(|b| b.is_ascii_whitespace()) {
                // NVRTC accepts it here and fails the compile; hipRTC refuses it here.
                p.blank_name.store(true, Ordering::Release);
                return nvrtcResult::NVRTC_SUCCESS;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy; `name_expression` is non-null (checked) and NUL-terminated
            // (caller contract), and hipRTC copies it.
            let r = unsafe { rtc!(self, hiprtcAddNameExpression(p.raw(), name_expression)) };
            if r == nvrtcResult::NVRTC_SUCCESS {
                // SAFETY: non-null and NUL-terminated (caller contract).
                let e = unsafe { core::ffi::CStr::from_ptr(name_expression) }.to_owned();
                p.recipe.names.lock().unwrap_or_else(|e| e.into_inner()).push(e);
            }
            r
        })
    }
    unsafe fn nvrtcGetLoweredName(
        &self,
        prog: nvrtcProgram,
        name_expression: *const c_char,
        lowered_name: *mut *const c_char,
    ) -> nvrtcResult {
        self.with_program(prog, |p| {
            non_null!(name_expression, lowered_name);
            if !p.compiled() {
                return nvrtcResult::NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
            }
            // SAFETY: `p.raw()` is a live hipRTC program, held by `with_program` against a
            // concurrent destroy and compiled (checked); `name_expression` is non-null (checked)
            // and NUL-terminated, `lowered_name` non-null (checked) and writable (caller contract).
            unsafe {
                rtc!(self, hiprtcGetLoweredName(p.raw(), name_expression, lowered_name))
            }
        })
    }
}
}
