//! `Rtc` for HIP: NVRTC's API over hipRTC.
//!
//! The program lifecycle (handle table, NULL checks, NVRTC 13.5's option table, the nesting
//! bound, the large-stack compile thread, anycuda's notes in the log) is the one both backends
//! share, [`anycuda_rtc::rtc_program`]; this file holds what is hipRTC's:
//!
//! - CUDA options are translated (`rtc_options`); every option without a HIP meaning is noted
//!   at the top of the program log, and the target is validated before hipRTC sees it (hipRTC
//!   5.2.3 aborts the process on an unknown target).
//! - `nvrtcGetPTX`/`nvrtcGetCUBIN` return the AMD code object (`hiprtcGetCode`), which
//!   `cuModuleLoadData` on HIP accepts; `nvrtcGetLTOIR` returns the LLVM bitcode. On HIP's
//!   NVIDIA platform the code is PTX, ending with a comment line that marks it as hipRTC's
//!   output (`HIPRTC_OUTPUT_MARK`): AMD-faithful mode loads it, as AMD loads hipRTC's code
//!   objects, and refuses other PTX.
//! - NVRTC's rules are kept where hipRTC differs: an empty source compiles; an empty name
//!   expression is accepted and then fails the compile; before a successful compile the code
//!   is empty (PTX: one NUL byte, CUBIN and LTO IR: 0 bytes) and lowered names are
//!   `NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION` (probed on NVRTC 13.0).
//! - The shared option check also joins NVRTC's two-entry spellings such as `-I`, `/dir` into
//!   the one entry hipRTC takes.
//! - hipRTC compiles a program once; NVRTC any number of times. A repeated compile runs on a
//!   fresh hipRTC program made from the same source, headers and name expressions, and its
//!   output replaces the previous one, as on NVRTC. (As on NVRTC, one program must not be used
//!   by two threads at once.)

#![allow(non_snake_case)]

use crate::adapt::image::HIPRTC_OUTPUT_MARK;
use crate::hip_types::{_hiprtcProgram, hiprtcProgram, hiprtcResult};
use crate::loader::call;
use crate::rtc_options::{self, ArchContext};
use crate::{HipBackend, Platform};
use anycuda_api::handles::Handles;
use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda_api::traits::{Api, Rtc};
use anycuda_rtc::nvrtc_non_null as non_null;
use anycuda_rtc::rtc_headers::RtcTarget;
use anycuda_rtc::rtc_input::{self, Headers};
use anycuda_rtc::rtc_options::Dialect;
use anycuda_rtc::rtc_program::{self, with_program, ProgramBase, RtcBackend};
use core::ffi::{c_char, c_int, CStr};
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};
use std::sync::Mutex;

const NS: nvrtcResult = nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED;

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
    /// Nesting depth and anycuda's notes (option translation), shown before hipRTC's own log.
    base: ProgramBase,
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
    src: CString,
    name: CString,
    /// `(include name, source)` of every header hipRTC was given (built-ins included).
    headers: Vec<(CString, CString)>,
    names: Mutex<Vec<CString>>,
    /// Whether a compile ran (the next one needs a fresh hipRTC program).
    compiled_once: AtomicBool,
}

/// Where a code call (`nvrtcGetPTX` and its kin) puts its answer.
#[derive(Clone, Copy)]
enum Out {
    /// A `…Size` call: the byte count.
    Size(*mut usize),
    /// The code itself, into a buffer the matching `…Size` call sized.
    Buf(*mut c_char),
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

/// Serialises every hipRTC call in the process. hipRTC 5.2.3 is not thread-safe: concurrent
/// calls on different programs crash inside `hiprtcAddNameExpression`, and two concurrent
/// `hiprtcCompileProgram` calls corrupt the heap inside comgr's LLVM, whose command-line option
/// registry is global (`llvm::cl::Option::removeArgument`, caught under gdb in this repository's
/// tests). The state is the library's, not a backend's: two `HipBackend`s in one process (the
/// crate's tests make one each; a Rust user may too) share it, so the lock is the process's.
/// NVRTC is thread-safe, so the CUDA backend takes no lock. Compilation dominates the cost, so
/// serialising costs nothing that matters.
static RTC_LOCK: Mutex<()> = Mutex::new(());

/// Calls a hipRTC entry point under [`RTC_LOCK`], translating the result.
macro_rules! rtc {
    ($self:ident, $f:ident($($a:expr),* $(,)?)) => {{
        let _serial = RTC_LOCK.lock().unwrap_or_else(|e| e.into_inner());
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

    /// `nvrtcGet{PTX,CUBIN,LTOIR}[Size]`: the program looked up and the out-pointer checked;
    /// after a successful compile hipRTC's answer (`native`, given hipRTC's program), before one
    /// NVRTC's: empty code (PTX: one NUL byte, `nul`; CUBIN and LTO IR: 0 bytes).
    fn code(
        &self,
        prog: nvrtcProgram,
        out: Out,
        nul: bool,
        native: impl FnOnce(hiprtcProgram) -> nvrtcResult,
    ) -> nvrtcResult {
        with_program(self, prog, |p| {
            let empty: &[u8] = if nul { &[0] } else { &[] };
            let r = match out {
                Out::Size(n) if n.is_null() => return nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
                Out::Buf(b) if b.is_null() => return nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
                _ if p.compiled() => return native(p.raw()),
                // SAFETY: non-null (checked) and writable (the caller's contract).
                Out::Size(n) => unsafe { rtc_input::write_size(empty.len(), n) },
                // SAFETY: non-null (checked) and sized by the matching `Size` call, which
                // reported this same empty code (the caller's contract).
                Out::Buf(b) => unsafe { rtc_input::copy_out(empty, b) },
            };
            r.err().unwrap_or(nvrtcResult::NVRTC_SUCCESS)
        })
    }

    /// `hiprtcGetCodeSize`; on HIP's NVIDIA platform, whose hipRTC gives PTX, counting the
    /// [`HIPRTC_OUTPUT_MARK`] line [`code_into`](Self::code_into) appends.
    ///
    /// # Safety
    /// `raw` is a live, compiled hipRTC program; `size` is writable.
    unsafe fn code_size(&self, raw: hiprtcProgram, size: *mut usize) -> nvrtcResult {
        // SAFETY: the caller's contract.
        let r = unsafe { rtc!(self, hiprtcGetCodeSize(raw, size)) };
        if r == nvrtcResult::NVRTC_SUCCESS && self.platform == Platform::Nvidia {
            // SAFETY: written by hipRTC just now.
            unsafe { *size += HIPRTC_OUTPUT_MARK.len() };
        }
        r
    }

    /// `hiprtcGetCode`; on HIP's NVIDIA platform the PTX (NVRTC's, underneath) ends with the
    /// [`HIPRTC_OUTPUT_MARK`] comment line, by which AMD-faithful mode knows hipRTC's output
    /// from other PTX (`adapt/image.rs`): on AMD this compile gives a code object that loads.
    ///
    /// # Safety
    /// `raw` is a live, compiled hipRTC program; `buf` holds what
    /// [`code_size`](Self::code_size) reported.
    unsafe fn code_into(&self, raw: hiprtcProgram, buf: *mut c_char) -> nvrtcResult {
        if self.platform != Platform::Nvidia {
            // SAFETY: the caller's contract.
            return unsafe { rtc!(self, hiprtcGetCode(raw, buf)) };
        }
        let mut n = 0usize;
        // SAFETY: the caller's contract; a local out-pointer.
        let r = unsafe { rtc!(self, hiprtcGetCodeSize(raw, &mut n)) };
        if r != nvrtcResult::NVRTC_SUCCESS {
            return r;
        }
        // SAFETY: the caller's buffer holds `n` plus the mark's length.
        let r = unsafe { rtc!(self, hiprtcGetCode(raw, buf)) };
        if r != nvrtcResult::NVRTC_SUCCESS {
            return r;
        }
        // SAFETY: the `n + mark` bytes the size call reported (the caller's contract), of
        // which hipRTC wrote the first `n`.
        let all = unsafe {
            core::slice::from_raw_parts_mut(buf.cast::<u8>(), n + HIPRTC_OUTPUT_MARK.len())
        };
        mark_code(all, n);
        r
    }

    /// The current device's target, if there is a device.
    pub fn current_arch(&self) -> Option<String> {
        let t = self.native_hip()?;
        let mut dev = 0;
        // SAFETY: valid out-pointer.
        if unsafe { t.hipGetDevice?(&mut dev) } != 0 {
            return None;
        }
        self.device_arch(dev).ok()
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
    /// (gfx90a → 9.0 → 90, gfx1030 → 10.3 → 103), sorted and unique. On HIP's NVIDIA platform,
    /// where hipRTC is NVRTC and HIP declares no query of its architectures, the compute
    /// capabilities that NVRTC there accepts ([`Self::nvrtc_ccs`]: NVRTC 13.0 compiles for 7.5
    /// to 12.x, older devices included; numba-cuda picks its target from this list).
    fn supported_ccs(&self) -> Vec<c_int> {
        let mut v: Vec<c_int> = if self.platform == Platform::Nvidia {
            let probed = self.nvrtc_ccs();
            if probed.is_empty() {
                // The compiler refused even an empty program for every candidate: the devices'
                // capabilities are the best remaining guess of what it is asked for.
                log::warn!("anycuda-hip: hipRTC accepted no candidate architecture");
                self.device_ccs()
            } else {
                probed
            }
        } else {
            rtc_options::supported_archs(self.hip_version())
                .iter()
                .filter_map(|a| cc_of_gfx(a))
                .collect()
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The compute capabilities hipRTC on HIP's NVIDIA platform (NVIDIA's NVRTC) accepts: an
    /// empty program compiled to PTX for each of [`CUDA_CCS`], once per process (about a
    /// millisecond each; the answer cannot change while the library stays loaded).
    fn nvrtc_ccs(&self) -> Vec<c_int> {
        static PROBED: std::sync::OnceLock<Vec<c_int>> = std::sync::OnceLock::new();
        PROBED
            .get_or_init(|| {
                CUDA_CCS
                    .iter()
                    .copied()
                    .filter(|&cc| self.compiles_for(cc))
                    .collect()
            })
            .clone()
    }

    /// Whether hipRTC compiles an empty program for compute capability `cc` (an architecture
    /// it does not know is `NVRTC_ERROR_INVALID_OPTION`).
    fn compiles_for(&self, cc: c_int) -> bool {
        let Ok(opt) = CString::new(format!("--gpu-architecture=compute_{cc}")) else {
            return false;
        };
        let mut p: hiprtcProgram = core::ptr::null_mut();
        let null = core::ptr::null_mut();
        // SAFETY: static NUL-terminated strings; no headers.
        let r = unsafe {
            rtc!(
                self,
                hiprtcCreateProgram(&mut p, c"".as_ptr(), c"probe.cu".as_ptr(), 0, null, null)
            )
        };
        if r != nvrtcResult::NVRTC_SUCCESS || p.is_null() {
            return false;
        }
        let opts = [opt.as_ptr()];
        // SAFETY: a live program and one owned NUL-terminated option.
        let ok = unsafe { rtc!(self, hiprtcCompileProgram(p, 1, opts.as_ptr().cast_mut())) }
            == nvrtcResult::NVRTC_SUCCESS;
        // SAFETY: the program is ours and no longer used.
        unsafe { rtc!(self, hiprtcDestroyProgram(&mut p)) };
        ok
    }

    /// `10 * major + minor` of each device's compute capability (none without a device).
    fn device_ccs(&self) -> Vec<c_int> {
        use anycuda_api::driver::CUdevice_attribute as A;
        use anycuda_api::traits::Driver;
        let mut n = 0;
        // SAFETY: a valid out-pointer.
        if unsafe { self.cuDeviceGetCount(&mut n) } != anycuda_api::driver::CUresult::CUDA_SUCCESS {
            return Vec::new();
        }
        (0..n)
            .filter_map(|dev| {
                let (mut major, mut minor) = (0, 0);
                // SAFETY: valid out-pointers, an ordinal below the count.
                let ok = unsafe {
                    self.cuDeviceGetAttribute(
                        &mut major,
                        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        dev,
                    ) == anycuda_api::driver::CUresult::CUDA_SUCCESS
                        && self.cuDeviceGetAttribute(
                            &mut minor,
                            A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                            dev,
                        ) == anycuda_api::driver::CUresult::CUDA_SUCCESS
                };
                ok.then_some(10 * major + minor)
            })
            .collect()
    }
}

/// Every compute capability CUDA has named (`10 * major + minor`), the candidates asked of
/// NVRTC on HIP's NVIDIA platform ([`HipBackend::nvrtc_ccs`]); an NVRTC keeps a contiguous
/// window of them (13.0: 75 to 121), which the probe finds without a table per release.
const CUDA_CCS: [c_int; 25] = [
    30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110,
    120, 121,
];

/// Appends [`HIPRTC_OUTPUT_MARK`] to the `n` bytes of code at the start of `buf` (which has
/// room for the mark): over the final NUL, which moves after it, or after the code when it has
/// no NUL.
fn mark_code(buf: &mut [u8], n: usize) {
    let mark = HIPRTC_OUTPUT_MARK.as_bytes();
    let nul = n > 0 && buf[n - 1] == 0;
    let at = if nul { n - 1 } else { n };
    buf[at..at + mark.len()].copy_from_slice(mark);
    if nul {
        buf[at + mark.len()] = 0;
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

impl RtcBackend for HipBackend {
    type Program = Program;

    fn programs(&self) -> &Handles<Program> {
        &self.programs
    }

    fn base(p: &Program) -> &ProgramBase {
        &p.base
    }

    /// hipRTC is NVRTC on HIP's NVIDIA platform: NVRTC's built-in headers there.
    fn header_target(&self) -> RtcTarget {
        match self.platform {
            Platform::Amd => RtcTarget::Hiprtc,
            Platform::Nvidia => RtcTarget::Nvrtc,
        }
    }

    /// HIP-only options (`--anycuda-hip-*`) are allowed where hipRTC is AMD's.
    fn dialect(&self) -> Dialect {
        match self.platform {
            Platform::Amd => Dialect::Hip,
            Platform::Nvidia => Dialect::Nvrtc,
        }
    }

    unsafe fn create(
        &self,
        src: *const c_char,
        name: *const c_char,
        headers: &Headers,
        base: ProgramBase,
    ) -> Result<Program, nvrtcResult> {
        // NVRTC's name for an unnamed program; hipRTC needs one.
        let name = if name.is_null() {
            c"default_program".as_ptr()
        } else {
            name
        };
        // NVRTC compiles an empty source; hipRTC refuses to create one.
        // SAFETY: non-null and NUL-terminated (this fn's contract).
        let src = if unsafe { *src } == 0 {
            c"\n".as_ptr()
        } else {
            src
        };
        let mut raw: hiprtcProgram = core::ptr::null_mut();
        // SAFETY: `raw` is a live local for the new handle; `src` and `name` are non-null
        // NUL-terminated strings (the caller's or static literals); `headers`' arrays hold
        // `headers.len()` valid strings and outlive the call; the `*mut` casts only match the
        // binding of hiprtc.h's `const char**`, which hipRTC reads and never writes.
        let r = unsafe {
            rtc!(
                self,
                hiprtcCreateProgram(
                    &mut raw,
                    src,
                    name,
                    headers.len(),
                    headers.sources_ptr().cast_mut(),
                    headers.names_ptr().cast_mut()
                )
            )
        };
        r.result().map_err(|e| e.code())?;
        // SAFETY: non-null NUL-terminated source (as above).
        let text = unsafe { CStr::from_ptr(src) }.to_string_lossy();
        crate::rtc_wave::remember(raw as usize, &text);
        // SAFETY: NUL-terminated strings (this fn's contract; hipRTC read them too).
        let cstr = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_owned();
        let recipe = Recipe {
            src: cstr(src),
            name: cstr(name),
            headers: headers
                .names
                .iter()
                .zip(&headers.sources)
                .map(|(n, s)| (cstr(*n), cstr(*s)))
                .collect(),
            ..Recipe::default()
        };
        Ok(Program {
            raw: AtomicPtr::new(raw),
            recipe,
            base,
            state: AtomicU8::new(FRESH),
            blank_name: AtomicBool::new(false),
        })
    }

    fn destroy(&self, mut p: Program) -> nvrtcResult {
        let mut raw = *p.raw.get_mut();
        crate::rtc_wave::forget(raw as usize);
        // SAFETY: `raw` is hipRTC's handle of a program just taken out of the table (and
        // `rtc_wave`) so nothing else can use it; hipRTC destroys it through this local.
        unsafe { rtc!(self, hiprtcDestroyProgram(&mut raw)) }
    }

    fn compiler_log(&self, p: &Program) -> Result<Vec<u8>, nvrtcResult> {
        rtc_program::sized_output(
            // SAFETY: a live program (held by the caller), a live out-pointer.
            |n| unsafe { rtc!(self, hiprtcGetProgramLogSize(p.raw(), n)) },
            // SAFETY: a live program; the buffer has the size hipRTC just reported.
            |buf| unsafe { rtc!(self, hiprtcGetProgramLog(p.raw(), buf)) },
        )
    }

    fn prepare(
        &self,
        p: &Program,
        opts: &[&CStr],
        notes: &mut String,
    ) -> Result<Vec<CString>, nvrtcResult> {
        let (args, lines) = if self.platform == Platform::Nvidia {
            // hipRTC is NVRTC here: CUDA options mean what they say; only anycuda's own go.
            let (kept, lines) = anycuda_rtc::rtc_options::filter(opts);
            (
                kept.into_iter().map(CStr::to_owned).collect::<Vec<_>>(),
                lines,
            )
        } else {
            let arch = self.current_arch();
            let ctx = ArchContext {
                device_arch: arch.as_deref(),
                hip_version: self.hip_version(),
            };
            match rtc_options::translate(opts, &ctx) {
                // Quoted includes resolve in the working directory, as on NVRTC (rtc_include).
                Ok(mut t) => {
                    t.args
                        .extend(anycuda_rtc::rtc_include::hiprtc_search_options());
                    (t.args, t.notes)
                }
                Err(e) => {
                    notes.push_str(&format!("anycuda: {e}\n"));
                    return Err(nvrtcResult::NVRTC_ERROR_INVALID_OPTION);
                }
            }
        };
        notes.extend(lines.iter().map(|l| format!("anycuda: {l}\n")));
        if p.recipe.compiled_once.load(Ordering::Acquire) {
            if let Err(r) = self.renew(p) {
                notes.push_str(
                    "anycuda: error: could not remake the hipRTC program for a repeated compile\n",
                );
                return Err(r);
            }
        }
        notes.push_str(&crate::rtc_wave::notes(p.raw() as usize, &args));
        Ok(args)
    }

    fn refused(&self, p: &Program) {
        p.state.store(FAILED, Ordering::Release);
    }

    fn compile(&self, p: &Program, args: &[CString]) -> nvrtcResult {
        if p.blank_name.load(Ordering::Acquire) {
            // NVRTC accepts a blank name expression, then fails the compile with this line.
            p.base.notes().push_str("anycuda: error: Error in parsing name expression for lowered name lookup. Input name expression was blank\n");
            p.state.store(FAILED, Ordering::Release);
            return nvrtcResult::NVRTC_ERROR_COMPILATION;
        }
        let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        p.recipe.compiled_once.store(true, Ordering::Release);
        // SAFETY: a live program (held by the caller); the option strings are owned by `args`.
        let r = unsafe {
            rtc!(
                self,
                hiprtcCompileProgram(p.raw(), ptrs.len() as c_int, ptrs.as_ptr().cast_mut())
            )
        };
        match r {
            nvrtcResult::NVRTC_SUCCESS => p.state.store(COMPILED, Ordering::Release),
            nvrtcResult::NVRTC_ERROR_COMPILATION => p.state.store(FAILED, Ordering::Release),
            _ => {}
        }
        r
    }
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
        if self.rtc.is_err() {
            return NS;
        }
        // SAFETY: `numArchs` is non-null (checked) and points to a writable `c_int` (caller
        // contract).
        unsafe { *numArchs = self.supported_ccs().len() as c_int };
        nvrtcResult::NVRTC_SUCCESS
    }
    unsafe fn nvrtcGetSupportedArchs(&self, supportedArchs: *mut c_int) -> nvrtcResult {
        non_null!(supportedArchs);
        if self.rtc.is_err() {
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
        // SAFETY: the caller's contract (NVRTC's) is `create_program`'s.
        unsafe { rtc_program::create_program(self, prog, src, name, numHeaders, headers, includeNames) }
    }
    unsafe fn nvrtcDestroyProgram(&self, prog: *mut nvrtcProgram) -> nvrtcResult {
        // SAFETY: the caller's contract (NVRTC's) is `destroy_program`'s.
        unsafe { rtc_program::destroy_program(self, prog) }
    }
    unsafe fn nvrtcCompileProgram(&self, prog: nvrtcProgram, numOptions: c_int, options: *const *const c_char) -> nvrtcResult {
        // SAFETY: the caller's contract (NVRTC's) is `compile_program`'s.
        unsafe { rtc_program::compile_program(self, prog, numOptions, options) }
    }
    unsafe fn nvrtcGetPTXSize(&self, prog: nvrtcProgram, ptxSizeRet: *mut usize) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `ptxSizeRet`
        // is non-null (checked by `code`) and writable (caller contract).
        self.code(prog, Out::Size(ptxSizeRet), true, |raw| unsafe { self.code_size(raw, ptxSizeRet) })
    }
    unsafe fn nvrtcGetPTX(&self, prog: nvrtcProgram, ptx: *mut c_char) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `ptx`
        // is non-null (checked by `code`) and sized by `nvrtcGetPTXSize` (caller contract).
        self.code(prog, Out::Buf(ptx), true, |raw| unsafe { self.code_into(raw, ptx) })
    }
    unsafe fn nvrtcGetCUBINSize(&self, prog: nvrtcProgram, cubinSizeRet: *mut usize) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `cubinSizeRet`
        // is non-null (checked by `code`) and writable (caller contract).
        self.code(prog, Out::Size(cubinSizeRet), false, |raw| unsafe { self.code_size(raw, cubinSizeRet) })
    }
    unsafe fn nvrtcGetCUBIN(&self, prog: nvrtcProgram, cubin: *mut c_char) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `cubin`
        // is non-null (checked by `code`) and sized by `nvrtcGetCUBINSize` (caller contract).
        self.code(prog, Out::Buf(cubin), false, |raw| unsafe { self.code_into(raw, cubin) })
    }
    unsafe fn nvrtcGetLTOIRSize(&self, prog: nvrtcProgram, LTOIRSizeRet: *mut usize) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `LTOIRSizeRet`
        // is non-null (checked by `code`) and writable (caller contract).
        self.code(prog, Out::Size(LTOIRSizeRet), false, |raw| unsafe { rtc!(self, hiprtcGetBitcodeSize(raw, LTOIRSizeRet)) })
    }
    unsafe fn nvrtcGetLTOIR(&self, prog: nvrtcProgram, LTOIR: *mut c_char) -> nvrtcResult {
        // SAFETY: `raw` is a live, compiled hipRTC program (held and checked by `code`); `LTOIR`
        // is non-null (checked by `code`) and sized by `nvrtcGetLTOIRSize` (caller contract).
        self.code(prog, Out::Buf(LTOIR), false, |raw| unsafe { rtc!(self, hiprtcGetBitcode(raw, LTOIR)) })
    }
    unsafe fn nvrtcGetProgramLogSize(&self, prog: nvrtcProgram, logSizeRet: *mut usize) -> nvrtcResult {
        // SAFETY: the caller's contract (NVRTC's) is `program_log_size`'s.
        unsafe { rtc_program::program_log_size(self, prog, logSizeRet) }
    }
    unsafe fn nvrtcGetProgramLog(&self, prog: nvrtcProgram, log: *mut c_char) -> nvrtcResult {
        // SAFETY: the caller's contract (NVRTC's) is `program_log`'s.
        unsafe { rtc_program::program_log(self, prog, log) }
    }
    unsafe fn nvrtcAddNameExpression(&self, prog: nvrtcProgram, name_expression: *const c_char) -> nvrtcResult {
        with_program(self, prog, |p| {
            non_null!(name_expression);
            if p.state.load(Ordering::Acquire) != FRESH {
                return nvrtcResult::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
            }
            // SAFETY: non-null and NUL-terminated (caller contract).
            let text = unsafe { CStr::from_ptr(name_expression) }.to_bytes();
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
                let e = unsafe { CStr::from_ptr(name_expression) }.to_owned();
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
        with_program(self, prog, |p| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapt::image::is_hiprtc_output;

    /// The probe's candidates are sorted and unique (so the answer is, as NVRTC's is), and
    /// hold the capabilities numba-cuda asks about (7.5 for its linker tests, 9.0 for H100/H200).
    #[test]
    fn candidate_capabilities_are_sorted_and_known() {
        assert!(CUDA_CCS.windows(2).all(|w| w[0] < w[1]));
        for cc in [75, 80, 90, 100, 120] {
            assert!(CUDA_CCS.contains(&cc), "{cc}");
        }
    }

    #[test]
    fn the_mark_goes_over_the_nul_and_keeps_it() {
        let ptx = b".version 8.8\n.target sm_90\n\0";
        let n = ptx.len();
        let mut buf = vec![0xAAu8; n + HIPRTC_OUTPUT_MARK.len()];
        buf[..n].copy_from_slice(ptx);
        mark_code(&mut buf, n);
        assert_eq!(*buf.last().unwrap(), 0);
        let text = &buf[..buf.len() - 1];
        assert!(text.starts_with(&ptx[..n - 1]));
        assert!(text.ends_with(HIPRTC_OUTPUT_MARK.as_bytes()));
        assert!(!text.contains(&0));
        assert!(is_hiprtc_output(text));
        assert!(!is_hiprtc_output(&ptx[..n - 1]));
    }

    #[test]
    fn code_without_a_nul_gets_the_mark_after_it() {
        let code = b"abc";
        let mut buf = vec![0u8; 3 + HIPRTC_OUTPUT_MARK.len()];
        buf[..3].copy_from_slice(code);
        mark_code(&mut buf, 3);
        assert!(buf.starts_with(b"abc\n// anycuda"));
        assert!(buf.ends_with(HIPRTC_OUTPUT_MARK.as_bytes()));
    }
}
