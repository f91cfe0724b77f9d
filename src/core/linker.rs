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
    /// A usage error for a name with a NUL; the driver's error with the error log.
    pub fn add(&mut self, code: &ObjectCode, name: &str) -> Result<()> {
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

    /// Completes the link (`cuLinkComplete`) and returns the linked cubin.
    ///
    /// # Errors
    /// The driver's error with the error log.
    pub fn link(self) -> Result<ObjectCode> {
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
        // SAFETY: the driver owns `size` bytes at `out` until the state is destroyed (at
        // the end of this function); copy them out first.
        let bytes = unsafe { core::slice::from_raw_parts(out.cast::<u8>(), size) }.to_vec();
        ObjectCode::from_bytes(bytes, CodeType::Cubin)
    }

    /// The linker's information log so far (with [`LinkerOptions::verbose`], the details).
    pub fn info_log(&self) -> String {
        nul_str(&self.info)
    }

    /// The linker's error log so far.
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
