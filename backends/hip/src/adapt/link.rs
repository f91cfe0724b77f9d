//! The driver's linker (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`, `cuLinkComplete`,
//! `cuLinkDestroy`) on the HIP backend.
//!
//! A `CUlinkState` is anycuda's own: a key of a handle table ([`anycuda_api::handles`], the
//! table the NVRTC program handles use), never a pointer, so a NULL, made-up, stale or
//! destroyed state is `CUDA_ERROR_INVALID_HANDLE` without touching memory.
//!
//! **PTX is linked here** wherever images are held to what AMD loads (on AMD, and in
//! AMD-faithful mode on HIP's NVIDIA platform: `adapt/image.rs`): PTX inputs (`CU_JIT_INPUT_PTX`,
//! or any input that is PTX text) and the best PTX of NVIDIA fat binaries are copied into the
//! state; `cuLinkComplete` translates them together (`.extern` functions and variables resolved
//! across the inputs, as `-rdc` code links) and compiles the translation with hipRTC for the
//! current device ([`crate::ptx_code::compile_ptx`], the rule nvJitLink's PTX links use too).
//! The code object it returns is owned by the state until `cuLinkDestroy`, as CUDA's cubin is.
//! PTX that carries an anycuda source bundle is linked as PTX (its translation): a bundle is a
//! whole program of its own and cannot be linked with other modules' code.
//!
//! NVIDIA cubins are refused with the way out, as module loads refuse them; a fat binary with
//! machine code only with the `-gencode` advice. Other inputs (LLVM bitcode, hipRTC's `-fgpu-rdc`
//! output, and what else HIP's linker takes) go to HIP's linker (`hipLink*`, HIP 6.4+; made
//! when the first such input arrives); a link cannot mix the two (the PTX route compiles source,
//! HIP's linker links bitcode): the input that would mix them is `CUDA_ERROR_NOT_SUPPORTED`.
//!
//! Logs: `CU_JIT_ERROR_LOG_BUFFER`/`CU_JIT_INFO_LOG_BUFFER` (with their sizes) and
//! `CU_JIT_WALL_TIME` given to `cuLinkCreate` accumulate until the state is destroyed, as CUDA
//! says: a refusal's message (the instruction and its line, for a translation) is written into
//! the error log (cut to its size, NUL-terminated, the size option set to the bytes written),
//! logged and kept for [`super::image::not_supported_reason`]; `cuLinkComplete` writes a line
//! saying what was translated and compiled for which AMD target into the info log. The other
//! options are checked as `cuModuleLoadDataEx` checks them and change nothing: the PTX fixes
//! the semantics the translation keeps.
//!
//! Where images are not held to AMD (HIP's NVIDIA platform with `ANYCUDA_HIP_AMD_FAITHFUL=0`)
//! every call goes to HIP's linker as it did before this route existed (HIP 5.2.3's NVIDIA
//! platform has none: `CUDA_ERROR_NOT_SUPPORTED`).

use super::image::{self, ImageKind};
use super::module::{copy_back, jit_log, ErrorLog};
use super::support::{unavailable, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::conv::module::{input_type, jit_options, JitOptions};
use crate::hip_types::hipLinkState_t;
use crate::HipBackend;
use anycuda_api::driver::{CUjitInputType, CUjit_option, CUlinkState, CUresult};
use anycuda_api::handles::Handles;
use core::ffi::{c_char, c_uint, c_void, CStr};
use std::sync::{Mutex, OnceLock, PoisonError};

const INVALID_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;

/// Why a link takes no more inputs of the other kind (PTX with HIP's linker inputs).
pub const MIXED_INPUTS: &str = "a link of PTX inputs (translated and compiled by hipRTC for \
    the AMD GPU) cannot also take inputs for HIP's linker (LLVM bitcode, code objects), nor \
    the other way round: link the PTX in a link of its own, or compile every input to the \
    same kind";

/// Why an input other than PTX cannot be linked where HIP has no linker.
pub const NO_HIP_LINKER: &str = "this HIP has no linker (hipLinkCreate is HIP 6.4+), so only \
    PTX inputs (translated for the AMD GPU) and NVIDIA fat binaries carrying PTX link here";

/// Why a link with no input cannot complete.
pub const NO_INPUTS: &str = "cuLinkComplete: no inputs were added to the link";

/// Where an input to HIP's linker comes from.
#[derive(Clone, Copy)]
enum HipInput {
    /// `cuLinkAddData`'s data, size and name.
    Data(*mut c_void, usize, *const c_char),
    /// `cuLinkAddFile`'s path.
    File(*const c_char),
}

/// The per-input JIT options of one `cuLinkAddData`/`cuLinkAddFile` call.
#[derive(Clone, Copy)]
struct CallOptions {
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
}

/// One link in progress (or completed).
struct Link {
    /// The caller's `optionValues` of `cuLinkCreate` (valid for the state's life when output
    /// options are used: CUDA's contract); null without options.
    values: *mut *mut c_void,
    /// `cuLinkCreate`'s option numbers, copied (CUDA keeps no reference to the array).
    options: Vec<CUjit_option>,
    /// `cuLinkCreate`'s option values, copied, for HIP's linker when it is made later.
    option_values: Vec<*mut c_void>,
    /// The caller's error log, if it gave one.
    error_log: Option<ErrorLog>,
    /// The caller's info log, if it gave one.
    info_log: Option<ErrorLog>,
    /// The index of `CU_JIT_WALL_TIME` among the options.
    wall_at: Option<usize>,
    /// `CU_JIT_LOG_VERBOSE` was given non-zero: each input added is named in the info log.
    verbose: bool,
    /// The error log so far (accumulated until the state is destroyed, as CUDA's).
    error: String,
    /// The info log so far.
    info: String,
    /// Milliseconds spent linking so far (`CU_JIT_WALL_TIME`).
    wall_ms: f32,
    /// Whether PTX is linked here (images held to what AMD loads); else every input goes to
    /// HIP's linker.
    translate: bool,
    /// The PTX inputs in the order added: their names and texts.
    ptx: Vec<(String, String)>,
    /// HIP's link state and the options it was made with (kept: HIP writes the log sizes into
    /// the values it was given, until the state is destroyed).
    hip: Option<(hipLinkState_t, JitOptions)>,
    /// Every code object completed, the last one current; each lives until `cuLinkDestroy`
    /// (CUDA's contract for the pointer `cuLinkComplete` returns).
    outputs: Vec<Vec<u8>>,
    /// An input was added since the last completion.
    dirty: bool,
}

// SAFETY: the raw pointers are the caller's buffers and HIP's link state, which CUDA's contract
// lets any thread use (one at a time: the `Mutex` around each link).
unsafe impl Send for Link {}

/// Every live link, by handle.
fn links() -> &'static Handles<Mutex<Link>> {
    static LINKS: OnceLock<Handles<Mutex<Link>>> = OnceLock::new();
    LINKS.get_or_init(Handles::new)
}

/// Runs `f` on the link `state` names; `CUDA_ERROR_INVALID_HANDLE` for any other value.
fn with_link(state: CUlinkState, f: impl FnOnce(&mut Link) -> CUresult) -> CUresult {
    if state.is_null() {
        return INVALID_HANDLE;
    }
    links()
        .with(state as usize, |l| {
            // A link whose user panicked is still a consistent link: each update is a field
            // write.
            f(&mut l.lock().unwrap_or_else(PoisonError::into_inner))
        })
        .unwrap_or(INVALID_HANDLE)
}

/// The name of an input for the logs: the caller's, else `fallback`.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
unsafe fn input_name(name: *const c_char, fallback: &str) -> String {
    if name.is_null() {
        return fallback.to_owned();
    }
    // SAFETY: the caller's contract.
    let n = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    if n.is_empty() {
        fallback.to_owned()
    } else {
        n.into_owned()
    }
}

impl Link {
    /// Records a refusal already recorded by `adapt/image.rs` under `code`: its message into
    /// the error log, and the logs written out. Returns `code`.
    fn fail(&mut self, code: CUresult) -> CUresult {
        let why = image::not_supported_reason(code).unwrap_or("the input was refused");
        self.error.push_str(why);
        self.error.push('\n');
        // SAFETY: the caller's log buffers and values array, valid for the state's life.
        unsafe { self.write_logs() };
        code
    }

    /// Writes the logs and the wall time into the caller's outputs.
    ///
    /// # Safety
    /// `values` and the log buffers are the caller's, valid for the state's life (CUDA's
    /// contract when output options are used).
    unsafe fn write_logs(&self) {
        if self.values.is_null() {
            return;
        }
        for (log, text) in [(&self.error_log, &self.error), (&self.info_log, &self.info)] {
            if let Some(log) = log {
                // SAFETY: forwarded contract.
                unsafe {
                    if text.is_empty() {
                        log.clear(self.values);
                    } else {
                        log.write(text, self.values);
                    }
                }
            }
        }
        if let Some(i) = self.wall_at {
            // SAFETY: CUDA passes the float in the pointer-sized slot itself: the slot zeroed,
            // the float written at its start.
            unsafe {
                *self.values.add(i) = core::ptr::null_mut();
                self.values
                    .add(i)
                    .cast::<f32>()
                    .write_unaligned(self.wall_ms);
            }
        }
    }

    /// HIP's link state, made from `cuLinkCreate`'s options if it is not made yet.
    fn hip_state(&mut self, b: &HipBackend) -> Result<hipLinkState_t, CUresult> {
        if let Some((s, _)) = &self.hip {
            return Ok(*s);
        }
        let Some(f) = b.native_hip().and_then(|t| t.hipLinkCreate) else {
            return Err(image::refuse(NOT_SUPPORTED, NO_HIP_LINKER));
        };
        let n = self.options.len() as c_uint;
        // SAFETY: the copied arrays, `n` entries each.
        let mut j = unsafe {
            jit_options(
                b,
                false,
                n,
                self.options.as_ptr(),
                self.option_values.as_ptr(),
            )
        }
        .map_err(|e| image::refuse_owned(e, format!("hipLinkCreate: the link's options: {e:?}")))?;
        let mut s: hipLinkState_t = core::ptr::null_mut();
        // SAFETY: arrays kept in this link until it is destroyed (HIP may write log sizes into
        // the values later), a valid out-pointer.
        let e = unsafe {
            f(
                j.keys.len() as c_uint,
                j.keys.as_mut_ptr(),
                j.values.as_mut_ptr(),
                &mut s,
            )
        };
        if e != HIP_SUCCESS {
            let code = b.cu(e);
            return Err(image::refuse_owned(
                code,
                format!("hipLinkCreate failed ({code:?})"),
            ));
        }
        self.hip = Some((s, j));
        // SAFETY: the copied option numbers; the caller's values array (CUDA's contract).
        unsafe { self.copy_back_hip() };
        Ok(s)
    }

    /// Copies the outputs HIP wrote (log sizes, wall time) into the caller's values.
    ///
    /// # Safety
    /// `values` is the caller's, valid for the state's life.
    unsafe fn copy_back_hip(&self) {
        if let (Some((_, j)), false) = (&self.hip, self.values.is_null()) {
            // SAFETY: the copied option numbers, `options.len()` entries as the caller's values.
            unsafe {
                copy_back(
                    j,
                    self.options.len() as c_uint,
                    self.options.as_ptr(),
                    self.values,
                )
            };
        }
    }

    /// Gives one input to HIP's linker (made now if needed).
    ///
    /// # Safety
    /// The input is the caller's (CUDA's contract); `opts` as `cuLinkAddData`'s.
    unsafe fn add_hip(
        &mut self,
        b: &HipBackend,
        type_: CUjitInputType,
        input: HipInput,
        opts: CallOptions,
    ) -> CUresult {
        let s = match self.hip_state(b) {
            Ok(s) => s,
            Err(e) => return self.fail(e),
        };
        // A CUDA input type (checked against CUDA's set already) this HIP has no number for.
        let Ok(t) = input_type(b, type_) else {
            return self.fail(image::refuse_owned(
                NOT_SUPPORTED,
                format!("HIP's linker takes no input of CUDA's type {}", type_.0),
            ));
        };
        // SAFETY: forwarded contract.
        let mut j = match unsafe { jit_options(b, false, opts.n, opts.options, opts.values) } {
            Ok(j) => j,
            Err(e) => return e,
        };
        let t_hip = b.native_hip();
        let e = match input {
            HipInput::Data(data, size, name) => {
                let Some(f) = t_hip.and_then(|t| t.hipLinkAddData) else {
                    return self.fail(image::refuse(NOT_SUPPORTED, NO_HIP_LINKER));
                };
                // SAFETY: the caller's data; arrays living for the call.
                unsafe {
                    f(
                        s,
                        t as _,
                        data,
                        size,
                        name,
                        j.keys.len() as c_uint,
                        j.keys.as_mut_ptr(),
                        j.values.as_mut_ptr(),
                    )
                }
            }
            HipInput::File(path) => {
                let Some(f) = t_hip.and_then(|t| t.hipLinkAddFile) else {
                    return self.fail(image::refuse(NOT_SUPPORTED, NO_HIP_LINKER));
                };
                // SAFETY: the caller's path; arrays living for the call.
                unsafe {
                    f(
                        s,
                        t as _,
                        path,
                        j.keys.len() as c_uint,
                        j.keys.as_mut_ptr(),
                        j.values.as_mut_ptr(),
                    )
                }
            }
        };
        if opts.n > 0 {
            // SAFETY: the caller's arrays of this call.
            unsafe { copy_back(&j, opts.n, opts.options, opts.values) };
        }
        // SAFETY: the caller's values of `cuLinkCreate`.
        unsafe { self.copy_back_hip() };
        self.dirty = true;
        b.cu(e)
    }

    /// Takes PTX `text` (bytes up to their NUL) named `name` into the link.
    fn add_ptx(&mut self, text: &[u8], name: &str) -> CUresult {
        if self.hip.is_some() {
            return self.fail(image::refuse_owned(
                NOT_SUPPORTED,
                format!("cuLinkAddData ({name}): {MIXED_INPUTS}"),
            ));
        }
        let Ok(text) = core::str::from_utf8(text) else {
            return self.fail(image::refuse_owned(
                CUresult::CUDA_ERROR_INVALID_PTX,
                format!("cuLinkAddData ({name}): {}", image::NOT_ASCII_PTX),
            ));
        };
        if self.verbose {
            self.info.push_str(&format!(
                "anycuda (HIP): PTX input {name} ({} bytes) added, to be translated for the \
                 AMD GPU\n",
                text.len()
            ));
            // SAFETY: the caller's log buffers and values array.
            unsafe { self.write_logs() };
        }
        self.ptx.push((name.to_owned(), text.to_owned()));
        self.dirty = true;
        SUCCESS
    }

    /// One input (`bytes`, the whole input) where PTX is linked here: PTX, a fat binary's PTX,
    /// a cubin refused, the rest to HIP's linker.
    ///
    /// # Safety
    /// As [`Link::add_hip`].
    unsafe fn add(
        &mut self,
        b: &HipBackend,
        type_: CUjitInputType,
        bytes: &[u8],
        name: &str,
        input: HipInput,
        opts: CallOptions,
    ) -> CUresult {
        if !self.translate {
            // SAFETY: forwarded contract.
            return unsafe { self.add_hip(b, type_, input, opts) };
        }
        let kind = image::image_kind(&bytes[..bytes.len().min(20)]);
        match kind {
            ImageKind::Text => {
                let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
                self.add_ptx(&bytes[..end], name)
            }
            ImageKind::NvidiaFatbin => match image::fatbin_ptx(bytes, name) {
                Ok(ptx) => self.add_ptx(ptx.as_bytes(), name),
                Err(e) => self.fail(e),
            },
            ImageKind::NvidiaCubin => self.fail(image::refuse(NOT_SUPPORTED, image::CUBIN_ON_AMD)),
            _ if type_ == CUjitInputType::CU_JIT_INPUT_PTX => self.fail(image::refuse_owned(
                CUresult::CUDA_ERROR_INVALID_PTX,
                format!("cuLinkAddData ({name}): the input is declared PTX but is not text"),
            )),
            _ if !self.ptx.is_empty() => self.fail(image::refuse_owned(
                NOT_SUPPORTED,
                format!("cuLinkAddData ({name}): {MIXED_INPUTS}"),
            )),
            // SAFETY: forwarded contract.
            _ => unsafe { self.add_hip(b, type_, input, opts) },
        }
    }

    /// Completes the link: HIP's linker's, or the PTX translated and compiled.
    ///
    /// # Safety
    /// `cubin_out` is writable; `size_out` is NULL or writable.
    unsafe fn complete(
        &mut self,
        b: &HipBackend,
        cubin_out: *mut *mut c_void,
        size_out: *mut usize,
    ) -> CUresult {
        if let Some((s, _)) = &self.hip {
            let Some(f) = b.native_hip().and_then(|t| t.hipLinkComplete) else {
                return unavailable(true);
            };
            // SAFETY: HIP's live state; the caller's out-pointers (HIP's size is optional too).
            let e = unsafe { f(*s, cubin_out, size_out) };
            // SAFETY: the caller's values of `cuLinkCreate`.
            unsafe { self.copy_back_hip() };
            return b.cu(e);
        }
        if !self.dirty {
            if let Some(code) = self.outputs.last() {
                // SAFETY: the caller's out-pointers; the code lives until `cuLinkDestroy`.
                unsafe { put_code(code, cubin_out, size_out) };
                return SUCCESS;
            }
        }
        if self.ptx.is_empty() {
            return self.fail(image::refuse(INVALID_VALUE, NO_INPUTS));
        }
        let start = std::time::Instant::now();
        let arch = b.current_arch();
        let texts: Vec<&str> = self.ptx.iter().map(|(_, t)| t.as_str()).collect();
        let result = crate::ptx_code::compile_ptx(b, &texts, arch.as_deref());
        self.wall_ms += start.elapsed().as_secs_f32() * 1000.0;
        match result {
            Ok((code, hit)) => {
                let names: Vec<&str> = self.ptx.iter().map(|(n, _)| n.as_str()).collect();
                self.info.push_str(&format!(
                    "anycuda (HIP): {} PTX input(s) ({}) {} for {} in {:.1} ms\n",
                    texts.len(),
                    names.join(", "),
                    if hit {
                        "translated and compiled by hipRTC (from the code cache)"
                    } else {
                        "translated and compiled by hipRTC"
                    },
                    arch.as_deref().unwrap_or("the current device"),
                    self.wall_ms
                ));
                log::info!("{}", self.info.lines().last().unwrap_or_default());
                self.outputs.push(code);
                self.dirty = false;
                // SAFETY: the caller's log buffers and values array.
                unsafe { self.write_logs() };
                let code = self.outputs.last().map_or(&[][..], Vec::as_slice);
                // SAFETY: the caller's out-pointers; the code lives until `cuLinkDestroy`.
                unsafe { put_code(code, cubin_out, size_out) };
                SUCCESS
            }
            Err(e) => {
                let what = match &e {
                    crate::ptx_code::PtxCodeError::Translate { module, .. } => {
                        let name = self.ptx.get(*module).map_or("", |(n, _)| n.as_str());
                        format!("cuLinkComplete ({name})")
                    }
                    _ => "cuLinkComplete".to_owned(),
                };
                let code = crate::ptx_code::record_failure(&e, &what);
                self.fail(code)
            }
        }
    }
}

/// Hands out a completed code object.
///
/// # Safety
/// `cubin_out` is writable; `size_out` is NULL or writable.
unsafe fn put_code(code: &[u8], cubin_out: *mut *mut c_void, size_out: *mut usize) {
    // SAFETY: the caller's contract.
    unsafe {
        *cubin_out = code.as_ptr().cast_mut().cast();
        if !size_out.is_null() {
            *size_out = code.len();
        }
    }
}

/// `cuLinkCreate`: an anycuda link state (see the [module](self) notes); JIT options checked
/// as for `cuModuleLoadDataEx`, the log buffers and wall time kept. Where images are not held
/// to AMD, HIP's linker is made now, as before (HIP 6.4+).
pub(crate) unsafe fn cuLinkCreate(
    b: &HipBackend,
    numOptions: c_uint,
    options: *mut CUjit_option,
    optionValues: *mut *mut c_void,
    stateOut: *mut CUlinkState,
) -> CUresult {
    if stateOut.is_null() {
        return INVALID_VALUE;
    }
    if b.native_hip().is_none() {
        return unavailable(false);
    }
    // SAFETY: forwarded contract (checks the option numbers and values).
    if let Err(e) = unsafe { jit_options(b, false, numOptions, options, optionValues) } {
        return e;
    }
    let n = if options.is_null() || optionValues.is_null() {
        0
    } else {
        numOptions as usize
    };
    // SAFETY: the caller's arrays of `numOptions` entries (checked non-NULL above when n > 0).
    let (opts, vals) = unsafe {
        if n == 0 {
            (Vec::new(), Vec::new())
        } else {
            (
                core::slice::from_raw_parts(options, n).to_vec(),
                core::slice::from_raw_parts(optionValues, n).to_vec(),
            )
        }
    };
    let log = |buf, size| {
        // SAFETY: the caller's arrays, `n` entries each.
        unsafe { jit_log(n as c_uint, options, optionValues, buf, size) }
    };
    let mut link = Link {
        values: if n == 0 {
            core::ptr::null_mut()
        } else {
            optionValues
        },
        error_log: log(
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ),
        info_log: log(
            CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        ),
        wall_at: opts
            .iter()
            .position(|&o| o == CUjit_option::CU_JIT_WALL_TIME),
        verbose: opts
            .iter()
            .zip(&vals)
            .any(|(&o, &v)| o == CUjit_option::CU_JIT_LOG_VERBOSE && !v.is_null()),
        options: opts,
        option_values: vals,
        error: String::new(),
        info: String::new(),
        wall_ms: 0.0,
        translate: image::held_to_amd(b),
        ptx: Vec::new(),
        hip: None,
        outputs: Vec::new(),
        dirty: false,
    };
    if !link.translate {
        // As before this route: HIP's linker from the start.
        if let Err(e) = link.hip_state(b) {
            return e;
        }
    }
    let h = links().insert(Mutex::new(link));
    // SAFETY: non-NULL out-pointer from the caller.
    unsafe { *stateOut = h as CUlinkState };
    SUCCESS
}

/// `cuLinkAddData`: the input copied (PTX, a fat binary's PTX) or given to HIP's linker (see
/// the [module](self) notes); cubins refused with the way out.
pub(crate) unsafe fn cuLinkAddData(
    b: &HipBackend,
    state: CUlinkState,
    type_: CUjitInputType,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    numOptions: c_uint,
    options: *mut CUjit_option,
    optionValues: *mut *mut c_void,
) -> CUresult {
    if data.is_null() || size == 0 || type_.0 >= CUjitInputType::CU_JIT_NUM_INPUT_TYPES.0 {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract (checks the per-input options).
    if let Err(e) = unsafe { jit_options(b, false, numOptions, options, optionValues) } {
        return e;
    }
    // SAFETY: `name` is NULL or NUL-terminated (CUDA's contract).
    let label = unsafe { input_name(name, "cuLinkAddData input") };
    // SAFETY: `size` bytes at `data` (CUDA's contract); copied before the call returns.
    let bytes = unsafe { core::slice::from_raw_parts(data.cast::<u8>(), size) };
    let opts = CallOptions {
        n: numOptions,
        options,
        values: optionValues,
    };
    with_link(state, |l| {
        // SAFETY: forwarded contract.
        unsafe {
            l.add(
                b,
                type_,
                bytes,
                &label,
                HipInput::Data(data, size, name),
                opts,
            )
        }
    })
}

/// `cuLinkAddFile`: the file read and taken as [`cuLinkAddData`] takes its data (a file HIP's
/// linker takes goes to it by its path); a file that cannot be read is
/// `CUDA_ERROR_FILE_NOT_FOUND`.
pub(crate) unsafe fn cuLinkAddFile(
    b: &HipBackend,
    state: CUlinkState,
    type_: CUjitInputType,
    path: *const c_char,
    numOptions: c_uint,
    options: *mut CUjit_option,
    optionValues: *mut *mut c_void,
) -> CUresult {
    if path.is_null() || type_.0 >= CUjitInputType::CU_JIT_NUM_INPUT_TYPES.0 {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract (checks the per-input options).
    if let Err(e) = unsafe { jit_options(b, false, numOptions, options, optionValues) } {
        return e;
    }
    // SAFETY: `path` is NUL-terminated (CUDA's contract).
    let name = unsafe { CStr::from_ptr(path) };
    let label = name.to_string_lossy().into_owned();
    let opts = CallOptions {
        n: numOptions,
        options,
        values: optionValues,
    };
    with_link(state, |l| {
        if !l.translate {
            // SAFETY: forwarded contract.
            return unsafe { l.add_hip(b, type_, HipInput::File(path), opts) };
        }
        let bytes = {
            use std::os::unix::ffi::OsStrExt;
            std::fs::read(std::ffi::OsStr::from_bytes(name.to_bytes()))
        };
        match bytes {
            Ok(bytes) if !bytes.is_empty() => {
                // SAFETY: forwarded contract.
                unsafe { l.add(b, type_, &bytes, &label, HipInput::File(path), opts) }
            }
            Ok(_) => INVALID_VALUE,
            Err(e) => {
                log::error!("anycuda (HIP): cuLinkAddFile: {label}: {e}");
                CUresult::CUDA_ERROR_FILE_NOT_FOUND
            }
        }
    })
}

/// `cuLinkComplete`: the PTX inputs translated together and compiled by hipRTC for the current
/// device (the code object owned by the state until `cuLinkDestroy`), or HIP's linker's
/// output; a refusal's message in the error log.
pub(crate) unsafe fn cuLinkComplete(
    b: &HipBackend,
    state: CUlinkState,
    cubinOut: *mut *mut c_void,
    sizeOut: *mut usize,
) -> CUresult {
    if cubinOut.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's out-pointers.
    with_link(state, |l| unsafe { l.complete(b, cubinOut, sizeOut) })
}

/// `cuLinkDestroy`: the state and its code freed (HIP's linker destroyed with it); a NULL,
/// unknown or already destroyed state is `CUDA_ERROR_INVALID_HANDLE`.
pub(crate) unsafe fn cuLinkDestroy(b: &HipBackend, state: CUlinkState) -> CUresult {
    if state.is_null() {
        return INVALID_HANDLE;
    }
    let Some(link) = links().remove(state as usize) else {
        return INVALID_HANDLE;
    };
    let link = link.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some((s, _)) = link.hip {
        if let Some(f) = b.native_hip().and_then(|t| t.hipLinkDestroy) {
            // SAFETY: HIP's live state, destroyed once (the handle is gone from the table).
            return b.cu(unsafe { f(s) });
        }
    }
    SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_names_fall_back_for_null_and_empty() {
        // SAFETY: NULL, and NUL-terminated literals.
        unsafe {
            assert_eq!(input_name(core::ptr::null(), "x"), "x");
            assert_eq!(input_name(c"".as_ptr(), "x"), "x");
            assert_eq!(input_name(c"a.ptx".as_ptr(), "x"), "a.ptx");
        }
    }

    /// With AMD-faithful mode off on HIP's NVIDIA platform, the link is HIP's from the start,
    /// as before this route: where HIP has no linker (ROCm 5.2.3, and HIP 5.2.3's NVIDIA
    /// platform), `cuLinkCreate` is not supported and hands out no state.
    #[test]
    fn where_images_are_not_held_to_amd_the_link_is_hips() {
        let b = HipBackend::load();
        let Some(has_linker) = b.native_hip().map(|t| t.hipLinkCreate.is_some()) else {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "libamdhip64 must load under CI=true"
            );
            return;
        };
        let b = HipBackend {
            platform: crate::Platform::Nvidia,
            amd_faithful: false,
            ..b
        };
        let mut st: CUlinkState = core::ptr::null_mut();
        // SAFETY: no options; a local out-pointer.
        let r =
            unsafe { cuLinkCreate(&b, 0, core::ptr::null_mut(), core::ptr::null_mut(), &mut st) };
        if has_linker {
            assert_eq!(r, SUCCESS);
            // SAFETY: the state just made, destroyed once.
            assert_eq!(unsafe { cuLinkDestroy(&b, st) }, SUCCESS);
        } else {
            assert_eq!(r, NOT_SUPPORTED);
            assert!(st.is_null());
            assert!(image::not_supported_reason(r).is_some_and(|w| w.contains("hipLinkCreate")));
        }
    }

    #[test]
    fn unknown_handles_are_invalid_without_a_lookup_hit() {
        // Made-up values, NULL and a pointer-looking value: none names a link.
        for h in [0usize, 16, 0x7fff_0000_1230, usize::MAX] {
            let r = with_link(h as CUlinkState, |_| SUCCESS);
            assert_eq!(r, INVALID_HANDLE, "{h:#x}");
        }
    }
}
