//! The driver's JIT linker (`cuLink*`): several pieces of device code (PTX, cubins, fat
//! binaries) linked into one cubin [`ObjectCode`].
//!
//! Where the backend has no linker, `Linker::new` returns its not-supported error. LTO-IR from
//! NVRTC 12+ cannot go through `cuLink*` (NVIDIA moved that to nvJitLink); the driver then
//! answers with its own error, passed through.

use super::error::{check, CoreError, Result};
use super::module::ObjectCode;
use super::program::CodeType;
use super::Context;
use crate::driver::*;
use core::ffi::{c_uint, c_void};
use std::ffi::CString;

const LOG_BYTES: usize = 16 * 1024;

/// Options of a [`Linker`] (a subset of the driver's JIT options, named as in cuda.core's
/// `LinkerOptions`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkerOptions {
    /// Generate debug information (`CU_JIT_GENERATE_DEBUG_INFO`).
    pub debug: bool,
    /// Generate line information (`CU_JIT_GENERATE_LINE_INFO`).
    pub lineinfo: bool,
    /// Verbose log (`CU_JIT_LOG_VERBOSE`); read it with [`Linker::info_log`].
    pub verbose: bool,
    /// Register limit per thread (`CU_JIT_MAX_REGISTERS`).
    pub max_register_count: Option<u32>,
}

/// The linker's two logs, taken together ([`Linker::logs`], [`Linker::link_with_logs`]).
/// Plain data: `Send + Sync`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkLogs {
    /// The information log ([`Linker::info_log`]).
    pub info: String,
    /// The error log ([`Linker::error_log`]).
    pub error: String,
}

/// A link in progress (`CUlinkState`); destroyed on drop.
///
/// `Send` but not `Sync`: the driver's link state is not meant for two threads at once.
///
/// ```no_run
/// use anycuda::core::{CodeType, Device, Linker, LinkerOptions, Program, ProgramOptions};
/// let ctx = Device::new(0)?.set_current()?;
/// let rdc = ProgramOptions::new().relocatable_device_code(true);
/// let lib = Program::new("__device__ float twice(float x) { return 2 * x; }", rdc.clone())?
///     .compile(CodeType::Ptx)?;
/// let main = Program::new(
///     r#"__device__ float twice(float); extern "C" __global__ void k(float *x) { *x = twice(*x); }"#,
///     rdc,
/// )?
/// .compile(CodeType::Ptx)?;
/// let mut linker = Linker::new(&ctx, &LinkerOptions::default())?;
/// linker.add(&lib, "lib.ptx")?;
/// linker.add(&main, "main.ptx")?;
/// let linked = linker.link()?;
/// let _k = linked.load(&ctx)?.kernel("k")?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct Linker {
    raw: CUlinkState,
    ctx: Context,
    /// Set once `cuLinkComplete` succeeded: the state takes no more input and links no more.
    linked: bool,
    // The driver writes the logs here until the state is destroyed: stable heap addresses.
    info: Box<[u8]>,
    error: Box<[u8]>,
    _opts: Box<[CUjit_option]>,
    _vals: Box<[*mut c_void]>,
}

// SAFETY: the link state is usable from any thread with its context current (each call binds
// it), one thread at a time (not `Sync`).
unsafe impl Send for Linker {}

fn nul_str(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

impl Linker {
    /// Starts a link in `ctx` (`cuLinkCreate`).
    ///
    /// # Errors
    /// The driver's error; the backend's not-supported error where it has no linker.
    pub fn new(ctx: &Context, options: &LinkerOptions) -> Result<Linker> {
        let mut info = vec![0u8; LOG_BYTES].into_boxed_slice();
        let mut error = vec![0u8; LOG_BYTES].into_boxed_slice();
        let mut opts = vec![
            CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Scalar option values travel in the pointer itself, as the driver API defines.
        let mut vals: Vec<*mut c_void> = vec![
            info.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
            error.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
        ];
        let mut flag = |o: CUjit_option, v: usize| {
            opts.push(o);
            vals.push(v as *mut c_void);
        };
        if options.debug {
            flag(CUjit_option::CU_JIT_GENERATE_DEBUG_INFO, 1);
        }
        if options.lineinfo {
            flag(CUjit_option::CU_JIT_GENERATE_LINE_INFO, 1);
        }
        if options.verbose {
            flag(CUjit_option::CU_JIT_LOG_VERBOSE, 1);
        }
        if let Some(n) = options.max_register_count {
            flag(CUjit_option::CU_JIT_MAX_REGISTERS, n as usize);
        }
        let mut opts = opts.into_boxed_slice();
        let mut vals = vals.into_boxed_slice();
        ctx.bind()?;
        let mut raw: CUlinkState = core::ptr::null_mut();
        // SAFETY: `opts` and `vals` have the same length and, with the log buffers, live as
        // long as the state (they are moved into the Linker, heap addresses unchanged).
        check("cuLinkCreate", unsafe {
            cuLinkCreate(
                opts.len() as c_uint,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
                &mut raw,
            )
        })?;
        Ok(Linker {
            raw,
            ctx: ctx.clone(),
            linked: false,
            info,
            error,
            _opts: opts,
            _vals: vals,
        })
    }

    /// The raw `CUlinkState` (still owned by this `Linker`).
    pub fn as_raw(&self) -> CUlinkState {
        self.raw
    }

    /// Adds one piece of code (`cuLinkAddData`); `name` appears in the logs.
    ///
    /// # Errors
    /// A usage error for a name with a NUL or after a successful [`Linker::link`]; the
    /// driver's error with the error log.
    pub fn add(&mut self, code: &ObjectCode, name: &str) -> Result<()> {
        if self.linked {
            return Err(CoreError::usage(
                "Linker::add",
                "the link is complete: start a new Linker",
            ));
        }
        let input = match code.code_type() {
            CodeType::Ptx => CUjitInputType::CU_JIT_INPUT_PTX,
            CodeType::Cubin => CUjitInputType::CU_JIT_INPUT_CUBIN,
            CodeType::Fatbin => CUjitInputType::CU_JIT_INPUT_FATBINARY,
            _ => CUjitInputType::CU_JIT_INPUT_NVVM,
        };
        let cname = CString::new(name)
            .map_err(|_| CoreError::usage("Linker::add", "the name contains a NUL byte"))?;
        // PTX goes in as a NUL-terminated string.
        let mut data = code.code().to_vec();
        if code.code_type() == CodeType::Ptx {
            data.push(0);
        }
        self.ctx.bind()?;
        // SAFETY: live state; `data` is valid for `len` bytes during the call (the driver
        // copies what it keeps); no per-input options.
        let r = check("cuLinkAddData", unsafe {
            cuLinkAddData(
                self.raw,
                input,
                data.as_mut_ptr().cast(),
                data.len(),
                cname.as_ptr(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        });
        r.map_err(|e| self.with_log(e))
    }

    /// Completes the link (`cuLinkComplete`) and returns a copy of the linked cubin.
    ///
    /// The linker stays alive (it borrows, not consumes), so its logs can be read afterwards,
    /// as with cuda.core's `Linker.get_info_log()` / `get_error_log()` after `link()`:
    /// [`Linker::info_log`] has what the driver reported (with [`LinkerOptions::verbose`], the
    /// register and memory use per kernel), [`Linker::error_log`] why a link failed. Code that
    /// wants the logs with the result in one value calls [`Linker::link_with_logs`].
    ///
    /// Migration: `link` used to take `self`. A call on a `mut` binding (which [`Linker::add`]
    /// already needs) or on a temporary compiles unchanged; a `Linker` moved into a function
    /// needs a `mut` parameter there, or [`Linker::link_with_logs`], which still consumes it.
    ///
    /// ```no_run
    /// # use anycuda::core::{Device, Linker, LinkerOptions, ObjectCode};
    /// # fn f(code: &ObjectCode) -> anycuda::core::Result<()> {
    /// let ctx = Device::new(0)?.set_current()?;
    /// let opts = LinkerOptions { verbose: true, ..LinkerOptions::default() };
    /// let mut linker = Linker::new(&ctx, &opts)?;
    /// linker.add(code, "main.ptx")?;
    /// let cubin = linker.link()?;
    /// println!("{}", linker.info_log()); // still readable: the linker was borrowed
    /// # let _ = cubin; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// The driver's error with the error log (which [`Linker::error_log`] still returns
    /// afterwards); a usage error for a second call after a successful one (the driver's
    /// state links once).
    pub fn link(&mut self) -> Result<ObjectCode> {
        if self.linked {
            return Err(CoreError::usage(
                "Linker::link",
                "the link is already complete: keep the ObjectCode the first call returned",
            ));
        }
        self.ctx.bind()?;
        let mut out: *mut c_void = core::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: live state, valid out-pointers.
        check("cuLinkComplete", unsafe {
            cuLinkComplete(self.raw, &mut out, &mut size)
        })
        .map_err(|e| self.with_log(e))?;
        if out.is_null() || size == 0 {
            return Err(CoreError::usage(
                "Linker::link",
                "the driver returned no code",
            ));
        }
        self.linked = true;
        // SAFETY: the driver owns `size` bytes at `out` until the state is destroyed (when
        // this Linker drops, after this borrow ends); copy them out now.
        let bytes = unsafe { core::slice::from_raw_parts(out.cast::<u8>(), size) }.to_vec();
        ObjectCode::from_bytes(bytes, CodeType::Cubin)
    }

    /// Completes the link like [`Linker::link`] and consumes the linker, returning the cubin
    /// with both logs ([`LinkLogs`]). `?`-friendly; to read the logs after a failed link too,
    /// use [`Linker::link`] and the log methods.
    ///
    /// # Errors
    /// As [`Linker::link`] (the error carries the error log).
    pub fn link_with_logs(mut self) -> Result<(ObjectCode, LinkLogs)> {
        let code = self.link()?;
        Ok((code, self.logs()))
    }

    /// Whether [`Linker::link`] has completed successfully.
    pub fn is_linked(&self) -> bool {
        self.linked
    }

    /// Both logs as they are now.
    pub fn logs(&self) -> LinkLogs {
        LinkLogs {
            info: self.info_log(),
            error: self.error_log(),
        }
    }

    /// The linker's information log so far (with [`LinkerOptions::verbose`], the details),
    /// before and after [`Linker::link`] (cuda.core's `Linker.get_info_log()`). Empty where
    /// the driver wrote nothing; at most 16 KiB (longer logs are cut by the driver).
    pub fn info_log(&self) -> String {
        nul_str(&self.info)
    }

    /// The linker's error log so far, before and after [`Linker::link`] (cuda.core's
    /// `Linker.get_error_log()`).
    pub fn error_log(&self) -> String {
        nul_str(&self.error)
    }

    fn with_log(&self, e: CoreError) -> CoreError {
        let log = self.error_log();
        if log.trim().is_empty() {
            e
        } else {
            e.with_detail(log)
        }
    }
}

impl std::fmt::Debug for Linker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linker").field("raw", &self.raw).finish()
    }
}

impl Drop for Linker {
    fn drop(&mut self) {
        // SAFETY: we own the state; it is destroyed once.
        if let Err(e) = check("cuLinkDestroy", unsafe { cuLinkDestroy(self.raw) }) {
            log::warn!("{e}");
        }
    }
}
