//! The JIT linker: several pieces of device code (PTX, cubins, fat binaries, LTO-IR) linked into
//! one cubin [`ObjectCode`].
//!
//! Without LTO-IR the link goes through the driver (`cuLink*`). LTO-IR (NVRTC's `-dlto`
//! output) cannot go through `cuLink*` since CUDA 12 (NVIDIA moved that to nvJitLink): when any
//! input is LTO-IR, by its [`CodeType`] or by its bytes ([`looks_like_ltoir`]), the whole link
//! goes through [`crate::nvjitlink`] instead, with `-lto` and `-arch=` the context's device
//! (cuda.core's `Linker` does the same). nvJitLink is optional: without it such a link fails
//! with a [`CoreError`] naming the library and every path searched.
//!
//! Where the backend has no linker, `Linker::new` returns its not-supported error. The HIP
//! backend has no nvJitLink: there LTO-IR (LLVM bitcode from hipRTC) goes to the driver's
//! linker as before (`CU_JIT_INPUT_NVVM`, which HIP 6.4+ links through `hipLinkAddData`).

use super::error::{check, CoreError, Result};
use super::module::ObjectCode;
use super::program::CodeType;
use super::Context;
use crate::driver::*;
use crate::nvjitlink::{nvJitLinkHandle, nvJitLinkInputType, nvJitLinkResult, NvJitLink};
use core::ffi::{c_char, c_uint, c_void};
use std::ffi::CString;

/// NVIDIA's LTO-IR container, as NVRTC 13.5 `-dlto` writes it: `ED 43 4E 7F` (the
/// little-endian word `0x7F4E43ED`).
const LTOIR_MAGIC: [u8; 4] = [0xED, 0x43, 0x4E, 0x7F];
/// LLVM bitcode (`BC C0 DE`), NVVM IR's own format.
const BITCODE_MAGIC: [u8; 4] = [b'B', b'C', 0xC0, 0xDE];
/// LLVM's bitcode wrapper header (`0x0B17C0DE`, little-endian).
const BITCODE_WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// Whether `code` is LTO-IR by its bytes: NVIDIA's LTO-IR container (what NVRTC `-dlto`
/// produces), or NVVM IR bitcode (bare, or in LLVM's bitcode wrapper). [`Linker::add`] sends
/// such code to nvJitLink whatever its [`CodeType`] label says.
pub fn looks_like_ltoir(code: &[u8]) -> bool {
    code.len() >= 4
        && [LTOIR_MAGIC, BITCODE_MAGIC, BITCODE_WRAPPER_MAGIC]
            .iter()
            .any(|m| code.starts_with(m))
}

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
/// With LTO-IR among the inputs (see the [module](self) notes), [`Linker::link`] links every
/// input with nvJitLink instead (`-lto`, `-arch=sm_XX` of the context's device, and the
/// [`LinkerOptions`] as nvJitLink options); the logs are then nvJitLink's.
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
    options: LinkerOptions,
    /// Every input added, for an nvJitLink link: bytes (PTX NUL-terminated), kind, name.
    inputs: Vec<(Vec<u8>, nvJitLinkInputType, CString)>,
    /// Whether an input is LTO-IR: [`Linker::link`] then uses nvJitLink.
    lto: bool,
    /// nvJitLink's logs, once an nvJitLink link ran (they replace the driver's).
    lto_logs: Option<LinkLogs>,
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
            options: options.clone(),
            inputs: Vec::new(),
            lto: false,
            lto_logs: None,
        })
    }

    /// Whether an input added so far is LTO-IR, so that [`Linker::link`] goes through
    /// nvJitLink.
    pub fn is_lto(&self) -> bool {
        self.lto
    }

    /// The raw `CUlinkState` (still owned by this `Linker`).
    pub fn as_raw(&self) -> CUlinkState {
        self.raw
    }

    /// Adds one piece of code (`cuLinkAddData`); `name` appears in the logs.
    ///
    /// LTO-IR ([`CodeType::Ltoir`], or bytes [`looks_like_ltoir`] recognises) is kept for
    /// nvJitLink, which checks it at [`Linker::link`] (on a backend without nvJitLink, HIP, it
    /// goes to the driver as `CU_JIT_INPUT_NVVM`); everything else also goes to the driver
    /// here, which checks it at once.
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
        let ltoir = (code.code_type() == CodeType::Ltoir || looks_like_ltoir(code.code()))
            && crate::nvjitlink::library().map_or(true, |l| l.is_nvjitlink());
        let (input, jit_input) = match code.code_type() {
            _ if ltoir => (
                CUjitInputType::CU_JIT_INPUT_NVVM,
                nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
            ),
            CodeType::Ptx => (
                CUjitInputType::CU_JIT_INPUT_PTX,
                nvJitLinkInputType::NVJITLINK_INPUT_PTX,
            ),
            CodeType::Cubin => (
                CUjitInputType::CU_JIT_INPUT_CUBIN,
                nvJitLinkInputType::NVJITLINK_INPUT_CUBIN,
            ),
            CodeType::Fatbin => (
                CUjitInputType::CU_JIT_INPUT_FATBINARY,
                nvJitLinkInputType::NVJITLINK_INPUT_FATBIN,
            ),
            _ => (
                CUjitInputType::CU_JIT_INPUT_NVVM,
                nvJitLinkInputType::NVJITLINK_INPUT_ANY,
            ),
        };
        let cname = CString::new(name)
            .map_err(|_| CoreError::usage("Linker::add", "the name contains a NUL byte"))?;
        // PTX goes in as a NUL-terminated string.
        let mut data = code.code().to_vec();
        if code.code_type() == CodeType::Ptx && !ltoir {
            data.push(0);
        }
        if ltoir {
            self.lto = true;
            self.inputs.push((data, jit_input, cname));
            return Ok(());
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
        r.map_err(|e| self.with_log(e))?;
        // Kept for an nvJitLink link, should LTO-IR come later.
        self.inputs.push((data, jit_input, cname));
        Ok(())
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
        if self.lto {
            return self.link_lto();
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
        // A cubin from NVIDIA's linker and an AMD code object (ELF) from the HIP backend's; on
        // HIP's NVIDIA platform the HIP backend's link is hipRTC's output, PTX: classified by
        // its bytes, as a module load would.
        ObjectCode::from_image(bytes)
    }

    /// The nvJitLink link of every input (LTO-IR among them).
    fn link_lto(&mut self) -> Result<ObjectCode> {
        let lib = crate::nvjitlink::library().map_err(|e| {
            CoreError::nvjitlink(
                "nvJitLinkCreate",
                nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED,
            )
            .with_detail(format!(
                "linking LTO-IR needs NVIDIA's nvJitLink (libnvJitLink.so.13; set \
                 ANYCUDA_NVJITLINK_LIBRARY, CUDA_PATH or CUDA_HOME to point at it): {e}"
            ))
        })?;
        let arch = self.ctx.device().arch()?;
        let o = &self.options;
        let mut args = vec![format!("-arch={arch}"), "-lto".to_string()];
        if o.debug {
            args.push("-g".into());
        }
        if o.lineinfo {
            args.push("-lineinfo".into());
        }
        if o.verbose {
            args.push("-verbose".into());
        }
        if let Some(n) = o.max_register_count {
            args.push(format!("-maxrregcount={n}"));
        }
        let cargs: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_str()))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| CoreError::usage("Linker::link", "an option contains a NUL byte"))?;
        let mut ptrs: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
        let mut h = JitLink {
            lib,
            raw: core::ptr::null_mut(),
        };
        // SAFETY: valid out-pointer; `ptrs` holds `len` NUL-terminated strings alive for the
        // call.
        let r = unsafe { lib.nvJitLinkCreate(&mut h.raw, ptrs.len() as u32, ptrs.as_mut_ptr()) };
        if r != nvJitLinkResult::NVJITLINK_SUCCESS {
            let detail = match r {
                nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED => {
                    "the active backend has no nvJitLink (LTO-IR links need NVIDIA's)".to_string()
                }
                _ => format!("options: {}", args.join(" ")),
            };
            return Err(CoreError::nvjitlink("nvJitLinkCreate", r).with_detail(detail));
        }
        for (data, kind, name) in &self.inputs {
            // SAFETY: live handle; `data` is valid for its length and `name` NUL-terminated
            // during the call (nvJitLink copies what it keeps).
            let r = unsafe {
                lib.nvJitLinkAddData(
                    h.raw,
                    *kind,
                    data.as_ptr().cast(),
                    data.len(),
                    name.as_ptr(),
                )
            };
            if r != nvJitLinkResult::NVJITLINK_SUCCESS {
                return Err(self.lto_failure(&h, "nvJitLinkAddData", r));
            }
        }
        // SAFETY: live handle.
        let r = unsafe { lib.nvJitLinkComplete(h.raw) };
        if r != nvJitLinkResult::NVJITLINK_SUCCESS {
            return Err(self.lto_failure(&h, "nvJitLinkComplete", r));
        }
        let mut size = 0usize;
        // SAFETY: live handle, valid out-pointer.
        let r = unsafe { lib.nvJitLinkGetLinkedCubinSize(h.raw, &mut size) };
        if r != nvJitLinkResult::NVJITLINK_SUCCESS {
            return Err(self.lto_failure(&h, "nvJitLinkGetLinkedCubinSize", r));
        }
        let mut cubin = vec![0u8; size];
        // SAFETY: live handle; the buffer holds the `size` bytes nvJitLink just reported.
        let r = unsafe { lib.nvJitLinkGetLinkedCubin(h.raw, cubin.as_mut_ptr().cast()) };
        if r != nvJitLinkResult::NVJITLINK_SUCCESS {
            return Err(self.lto_failure(&h, "nvJitLinkGetLinkedCubin", r));
        }
        self.lto_logs = Some(h.logs());
        if cubin.is_empty() {
            return Err(CoreError::usage(
                "Linker::link",
                "nvJitLink returned no code",
            ));
        }
        self.linked = true;
        // As the driver linker's output (above).
        ObjectCode::from_image(cubin)
    }

    /// Records nvJitLink's logs and builds the error of a failed call, with the error log.
    fn lto_failure(&mut self, h: &JitLink, call: &'static str, r: nvJitLinkResult) -> CoreError {
        let logs = h.logs();
        let e = CoreError::nvjitlink(call, r);
        let e = if logs.error.trim().is_empty() {
            e
        } else {
            e.with_detail(logs.error.clone())
        };
        self.lto_logs = Some(logs);
        e
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
        match &self.lto_logs {
            Some(l) => l.info.clone(),
            None => nul_str(&self.info),
        }
    }

    /// The linker's error log so far, before and after [`Linker::link`] (cuda.core's
    /// `Linker.get_error_log()`).
    pub fn error_log(&self) -> String {
        match &self.lto_logs {
            Some(l) => l.error.clone(),
            None => nul_str(&self.error),
        }
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
        f.debug_struct("Linker")
            .field("raw", &self.raw)
            .field("lto", &self.lto)
            .finish()
    }
}

/// An nvJitLink handle, destroyed on drop.
struct JitLink {
    lib: crate::nvjitlink::Library,
    raw: nvJitLinkHandle,
}

impl JitLink {
    /// Both logs as nvJitLink has them now (empty where it has none).
    fn logs(&self) -> LinkLogs {
        type SizeFn =
            unsafe fn(&crate::nvjitlink::Library, nvJitLinkHandle, *mut usize) -> nvJitLinkResult;
        type LogFn =
            unsafe fn(&crate::nvjitlink::Library, nvJitLinkHandle, *mut c_char) -> nvJitLinkResult;
        let read = |size_fn: SizeFn, log_fn: LogFn| -> String {
            let mut n = 0usize;
            // SAFETY: live handle, valid out-pointer.
            if unsafe { size_fn(&self.lib, self.raw, &mut n) } != nvJitLinkResult::NVJITLINK_SUCCESS
                || n == 0
            {
                return String::new();
            }
            let mut buf = vec![0u8; n + 1];
            // SAFETY: live handle; the buffer holds the reported size and one more byte.
            if unsafe { log_fn(&self.lib, self.raw, buf.as_mut_ptr().cast()) }
                != nvJitLinkResult::NVJITLINK_SUCCESS
            {
                return String::new();
            }
            nul_str(&buf)
        };
        LinkLogs {
            info: read(
                <crate::nvjitlink::Library as NvJitLink>::nvJitLinkGetInfoLogSize,
                <crate::nvjitlink::Library as NvJitLink>::nvJitLinkGetInfoLog,
            ),
            error: read(
                <crate::nvjitlink::Library as NvJitLink>::nvJitLinkGetErrorLogSize,
                <crate::nvjitlink::Library as NvJitLink>::nvJitLinkGetErrorLog,
            ),
        }
    }
}

impl Drop for JitLink {
    fn drop(&mut self) {
        if self.raw.is_null() {
            return;
        }
        // SAFETY: we own the handle; it is destroyed once.
        let r = unsafe { self.lib.nvJitLinkDestroy(&mut self.raw) };
        if r != nvJitLinkResult::NVJITLINK_SUCCESS {
            log::warn!("nvJitLinkDestroy: {}", crate::nvjitlink::NvJitLinkError(r));
        }
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
