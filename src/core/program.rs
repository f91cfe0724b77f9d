//! Run-time compilation: [`Program`] (NVRTC, or hipRTC on HIP) with typed [`ProgramOptions`],
//! compiled to an [`ObjectCode`] of a chosen [`CodeType`].
//!
//! On HIP the compiler is hipRTC behind the same NVRTC calls: CUDA options are translated (see
//! the README, "NVRTC on HIP"), and both [`CodeType::Ptx`] and [`CodeType::Cubin`] yield the AMD
//! code object, which comes back labelled [`CodeType::Cubin`] (it is the backend's native binary).

use super::error::{CoreError, Result};
use super::module::ObjectCode;
use crate::driver::{CUcontext, CUdevice, CUresult};
use crate::nvrtc::{nvrtcProgram, nvrtcResult};
use crate::{Backend, Driver, Rtc};
use core::ffi::{c_char, c_int};
use std::ffi::{CStr, CString};

/// What a compile produces, or what kind of code an [`ObjectCode`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodeType {
    /// PTX text (NVIDIA's virtual ISA), JIT-compiled by the driver when loaded.
    Ptx,
    /// A device binary: a CUDA cubin, or on HIP the AMD code object (an AMDGPU ELF).
    Cubin,
    /// LTO-IR for link-time optimisation (NVIDIA); on HIP, LLVM bitcode. Not loadable by itself:
    /// link it with a [`Linker`](super::Linker).
    Ltoir,
    /// A fat binary (several cubins and/or PTX), as `nvcc -fatbin` writes it.
    Fatbin,
}

impl CodeType {
    /// The lower-case name cuda.core uses (`"ptx"`, `"cubin"`, `"ltoir"`, `"fatbin"`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Ptx => "ptx",
            Self::Cubin => "cubin",
            Self::Ltoir => "ltoir",
            Self::Fatbin => "fatbin",
        }
    }
}

/// Compiler options, typed. Field names follow cuda.core's `ProgramOptions`; every field maps
/// to one NVRTC option (see [`ProgramOptions::to_args`]); `extra_options` is the escape hatch
/// for anything else, passed unchanged (on HIP through anycuda's option translation, where
/// `--anycuda-hip-option=<clang option>` reaches hipRTC untouched).
///
/// ```no_run
/// use anycuda::core::{CodeType, Program, ProgramOptions};
/// let opts = ProgramOptions::new()
///     .arch("sm_90")
///     .std("c++17")
///     .define("N", "256")
///     .use_fast_math(true)
///     .name_expression("scale<float>");
/// let src = "template <typename T> __global__ void scale(T *x) { x[threadIdx.x] *= 2; }";
/// let mut prog = Program::new(src, opts)?;
/// let code = prog.compile(CodeType::Cubin)?;
/// println!("log: {}", prog.log());
/// assert!(code.lowered_name("scale<float>").is_some());
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramOptions {
    /// The program's name in the compiler's messages (NVRTC's `name`); `"program.cu"` if
    /// unset.
    pub name: Option<String>,
    /// Target: `sm_90` (cubin), `compute_90` (PTX only), or an AMD target such as `gfx90a` on
    /// HIP. Unset: the current context's device (when a context is current), else the
    /// compiler's default (on HIP with no device that is an error: name a gfx target).
    pub arch: Option<String>,
    /// C++ dialect: `c++03`, `c++11`, `c++14`, `c++17`, `c++20` (`--std=`).
    pub std: Option<String>,
    /// Macros to define: `(name, None)` is `-D name`, `(name, Some(v))` is `-D name=v`.
    pub define_macro: Vec<(String, Option<String>)>,
    /// Macros to undefine (`-U name`).
    pub undefine_macro: Vec<String>,
    /// Include directories (`-I dir`).
    pub include_path: Vec<String>,
    /// Headers included before the source (`--pre-include=`).
    pub pre_include: Vec<String>,
    /// CUDA's fast math (`--use_fast_math`): flush to zero, approximate division and square
    /// root, fused multiply-add.
    pub use_fast_math: bool,
    /// Device debug information (`-G`).
    pub debug: bool,
    /// Line information for profilers (`-lineinfo`).
    pub lineinfo: bool,
    /// Relocatable device code for separate linking (`-rdc=true`).
    pub relocatable_device_code: bool,
    /// Emit LTO-IR (`-dlto`); set by [`Program::compile`] for [`CodeType::Ltoir`] anyway.
    pub link_time_optimization: bool,
    /// Flush denormals to zero (`--ftz=`), unset: the compiler's default.
    pub ftz: Option<bool>,
    /// IEEE-rounded square root (`--prec-sqrt=`).
    pub prec_sqrt: Option<bool>,
    /// IEEE-rounded division (`--prec-div=`).
    pub prec_div: Option<bool>,
    /// Contract multiply and add into FMA (`--fmad=`).
    pub fma: Option<bool>,
    /// Register limit per thread (`--maxrregcount=`).
    pub max_register_count: Option<u32>,
    /// Suppress warnings (`-w`).
    pub disable_warnings: bool,
    /// Options for ptxas, the PTX assembler (`--ptxas-options=`, one each).
    pub ptxas_options: Vec<String>,
    /// More aggressive vectorisation of device code (`--extra-device-vectorization`).
    pub extra_device_vectorization: bool,
    /// C++ names whose mangled (lowered) names the compile should report, e.g.
    /// `"scale<float>"`; read them with [`ObjectCode::lowered_name`], or pass the expression
    /// itself to [`ObjectCode::kernel`].
    pub name_expressions: Vec<String>,
    /// Raw compiler options, appended after the typed ones, unchanged.
    pub extra_options: Vec<String>,
}

impl ProgramOptions {
    /// No options: the compiler's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets [`name`](Self::name).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Sets [`arch`](Self::arch).
    #[must_use]
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = Some(arch.into());
        self
    }
    /// Sets [`std`](Self::std).
    #[must_use]
    pub fn std(mut self, std: impl Into<String>) -> Self {
        self.std = Some(std.into());
        self
    }
    /// Adds `-D name=value`.
    #[must_use]
    pub fn define(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.define_macro.push((name.into(), Some(value.into())));
        self
    }
    /// Adds `-D name`.
    #[must_use]
    pub fn define_flag(mut self, name: impl Into<String>) -> Self {
        self.define_macro.push((name.into(), None));
        self
    }
    /// Adds `-I dir`.
    #[must_use]
    pub fn include_path(mut self, dir: impl Into<String>) -> Self {
        self.include_path.push(dir.into());
        self
    }
    /// Sets [`use_fast_math`](Self::use_fast_math).
    #[must_use]
    pub fn use_fast_math(mut self, on: bool) -> Self {
        self.use_fast_math = on;
        self
    }
    /// Sets [`debug`](Self::debug).
    #[must_use]
    pub fn debug(mut self, on: bool) -> Self {
        self.debug = on;
        self
    }
    /// Sets [`lineinfo`](Self::lineinfo).
    #[must_use]
    pub fn lineinfo(mut self, on: bool) -> Self {
        self.lineinfo = on;
        self
    }
    /// Sets [`fma`](Self::fma).
    #[must_use]
    pub fn fma(mut self, on: bool) -> Self {
        self.fma = Some(on);
        self
    }
    /// Sets [`relocatable_device_code`](Self::relocatable_device_code).
    #[must_use]
    pub fn relocatable_device_code(mut self, on: bool) -> Self {
        self.relocatable_device_code = on;
        self
    }
    /// Adds a name expression (see [`name_expressions`](Self::name_expressions)).
    #[must_use]
    pub fn name_expression(mut self, expr: impl Into<String>) -> Self {
        self.name_expressions.push(expr.into());
        self
    }
    /// Adds a raw option (see [`extra_options`](Self::extra_options)).
    #[must_use]
    pub fn extra_option(mut self, opt: impl Into<String>) -> Self {
        self.extra_options.push(opt.into());
        self
    }

    /// The NVRTC command line these options stand for (without the name expressions, which
    /// are not options). The arch is included only when set.
    pub fn to_args(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(a) = &self.arch {
            v.push(format!("--gpu-architecture={a}"));
        }
        if let Some(s) = &self.std {
            v.push(format!("--std={s}"));
        }
        for (name, value) in &self.define_macro {
            v.push(match value {
                Some(val) => format!("--define-macro={name}={val}"),
                None => format!("--define-macro={name}"),
            });
        }
        for name in &self.undefine_macro {
            v.push(format!("--undefine-macro={name}"));
        }
        for dir in &self.include_path {
            v.push(format!("--include-path={dir}"));
        }
        for h in &self.pre_include {
            v.push(format!("--pre-include={h}"));
        }
        if self.use_fast_math {
            v.push("--use_fast_math".into());
        }
        if self.debug {
            v.push("--device-debug".into());
        }
        if self.lineinfo {
            v.push("--generate-line-info".into());
        }
        if self.relocatable_device_code {
            v.push("--relocatable-device-code=true".into());
        }
        if self.link_time_optimization {
            v.push("-dlto".into());
        }
        let flag = |v: &mut Vec<String>, name: &str, b: Option<bool>| {
            if let Some(b) = b {
                v.push(format!("--{name}={b}"));
            }
        };
        flag(&mut v, "ftz", self.ftz);
        flag(&mut v, "prec-sqrt", self.prec_sqrt);
        flag(&mut v, "prec-div", self.prec_div);
        flag(&mut v, "fmad", self.fma);
        if let Some(n) = self.max_register_count {
            v.push(format!("--maxrregcount={n}"));
        }
        if self.disable_warnings {
            v.push("--disable-warnings".into());
        }
        for o in &self.ptxas_options {
            v.push(format!("--ptxas-options={o}"));
        }
        if self.extra_device_vectorization {
            v.push("--extra-device-vectorization".into());
        }
        v.extend(self.extra_options.iter().cloned());
        v
    }
}

/// A source program for the run-time compiler (`nvrtcProgram`); destroyed on drop.
///
/// `Send` but not `Sync`: an `nvrtcProgram` may move between threads but must not be used by
/// two at once (hipRTC 5.2 is not even thread-safe across programs; the backend serialises
/// that).
///
/// ```no_run
/// use anycuda::core::{CodeType, Program, ProgramOptions};
/// let src = r#"extern "C" __global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }"#;
/// let mut prog = Program::new(src, ProgramOptions::new().arch("sm_90"))?;
/// let ptx = prog.compile(CodeType::Ptx)?;
/// assert_eq!(ptx.code_type(), CodeType::Ptx);
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct Program {
    backend: Backend,
    raw: nvrtcProgram,
    options: ProgramOptions,
    log: String,
}

// SAFETY: an nvrtcProgram is not tied to the thread that created it; every use goes through
// `&self`/`&mut self` of this non-`Sync` owner, so no two threads use it at once.
unsafe impl Send for Program {}

fn nul_free(call: &'static str, what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| {
        CoreError::nvrtc(
            call,
            nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
            Some(format!("{what} contains a NUL byte")),
        )
    })
}

fn rtc_check(call: &'static str, r: nvrtcResult) -> Result<()> {
    if r == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(CoreError::nvrtc(call, r, None))
    }
}

impl Program {
    /// Creates a program from C++ source on the active backend's compiler.
    ///
    /// # Errors
    /// `NVRTC_ERROR_NOT_SUPPORTED` (with the reason) when no backend is usable;
    /// `NVRTC_ERROR_INVALID_INPUT` for a NUL inside the source, name or a name expression; the
    /// compiler's error from `nvrtcCreateProgram` or `nvrtcAddNameExpression`.
    pub fn new(code: &str, options: ProgramOptions) -> Result<Program> {
        let backend = crate::backend().map_err(|e| {
            CoreError::nvrtc(
                "nvrtcCreateProgram",
                nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED,
                Some(e.to_string()),
            )
        })?;
        Self::with_backend(backend.backend, code, options)
    }

    /// [`Program::new`] on a given backend's compiler (e.g. compile for AMD on a machine
    /// whose active backend is CUDA). Such code is for that backend: load it there.
    ///
    /// # Errors
    /// As [`Program::new`]; `NVRTC_ERROR_NOT_SUPPORTED` when that backend's compiler did not
    /// load.
    pub fn with_backend(backend: Backend, code: &str, options: ProgramOptions) -> Result<Program> {
        let src = nul_free("nvrtcCreateProgram", "the source", code)?;
        let name = nul_free(
            "nvrtcCreateProgram",
            "the program name",
            options.name.as_deref().unwrap_or("program.cu"),
        )?;
        let mut raw: nvrtcProgram = core::ptr::null_mut();
        // SAFETY: valid out-pointer and NUL-terminated strings; no headers (count 0, nulls).
        let r = unsafe {
            backend.nvrtcCreateProgram(
                &mut raw,
                src.as_ptr(),
                name.as_ptr(),
                0,
                core::ptr::null(),
                core::ptr::null(),
            )
        };
        rtc_check("nvrtcCreateProgram", r)?;
        let prog = Program {
            backend,
            raw,
            options,
            log: String::new(),
        };
        for e in &prog.options.name_expressions {
            prog.add_name_expression(e)?;
        }
        Ok(prog)
    }

    /// The raw `nvrtcProgram`, to mix with [`crate::nvrtc`] calls. It stays owned by `self`.
    pub fn as_raw(&self) -> nvrtcProgram {
        self.raw
    }

    /// The backend whose compiler this program uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The options given at creation.
    pub fn options(&self) -> &ProgramOptions {
        &self.options
    }

    /// The log of the last compile (warnings, notes; on HIP also the options anycuda could
    /// not map). Empty before the first compile.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The options a compile for `target` passes to the compiler: [`ProgramOptions::to_args`],
    /// the current device's arch when none is set, and `-dlto` for [`CodeType::Ltoir`].
    pub fn compile_args(&self, target: CodeType) -> Vec<String> {
        let mut args = self.options.to_args();
        if self.options.arch.is_none() {
            if let Some(arch) = current_device_arch(self.backend) {
                args.insert(0, format!("--gpu-architecture={arch}"));
            }
        }
        if target == CodeType::Ltoir && !self.options.link_time_optimization {
            args.push("-dlto".into());
        }
        args
    }

    /// Compiles to `target`. On success the log is in [`Program::log`]; the returned code
    /// carries the lowered names of the options' name expressions.
    ///
    /// A program compiles again for another target on every backend (the HIP backend remakes
    /// the hipRTC program, which compiles once, as NVRTC would). The returned code is labelled
    /// by its content, not by `target`: PTX text is [`CodeType::Ptx`] even when a cubin was
    /// asked for (HIP's NVIDIA platform), an ELF is [`CodeType::Cubin`]. hipRTC 5.2 makes no
    /// LTO-IR ([`CodeType::Ltoir`] answers not-supported there).
    ///
    /// # Errors
    /// `nvrtcCompileProgram`'s error with the compile log as the detail
    /// ([`CoreError::detail`]); a usage error for [`CodeType::Fatbin`] (NVRTC does not make
    /// fat binaries) and when NVRTC produced no cubin (a `compute_XX` arch); the error of
    /// fetching the code or a lowered name.
    pub fn compile(&mut self, target: CodeType) -> Result<ObjectCode> {
        if target == CodeType::Fatbin {
            return Err(fatbin_refused());
        }
        let args = self.compile_args(target);
        self.compile_with_args(&args)?;
        let (code, kind) = self.fetch_code(target)?;
        if code.is_empty() {
            return Err(CoreError::usage(
                "Program::compile",
                format!(
                    "the compiler produced no {}: a cubin needs an sm_XX arch (not compute_XX)",
                    target.name()
                ),
            ));
        }
        let mut lowered = Vec::with_capacity(self.options.name_expressions.len());
        for e in &self.options.name_expressions {
            lowered.push((e.clone(), self.lowered_name(e)?));
        }
        Ok(ObjectCode::from_compiler(code, kind, lowered))
    }

    /// Compiles with exactly these compiler options: nothing is added (no arch from the current
    /// device, no `-dlto`), so this is NVRTC's own `nvrtcCompileProgram` for callers that
    /// speak its command line (a CLI, cudarc's `compile_ptx`). Read the result with
    /// [`Program::output`] and [`Program::lowered_name`], the log with [`Program::log`].
    /// Compiling again replaces the previous output, on every backend, with one NVRTC
    /// exception: a compile for a `compute_XX` target makes no cubin and leaves an earlier
    /// compile's cubin in place.
    ///
    /// # Errors
    /// `NVRTC_ERROR_INVALID_OPTION` for an option containing a NUL byte;
    /// `nvrtcCompileProgram`'s error with the compile log as the detail
    /// ([`CoreError::detail`]).
    pub fn compile_with_args<S: AsRef<str>>(&mut self, args: &[S]) -> Result<()> {
        let cargs: Vec<CString> = args
            .iter()
            .map(|a| {
                CString::new(a.as_ref()).map_err(|_| {
                    CoreError::nvrtc(
                        "nvrtcCompileProgram",
                        nvrtcResult::NVRTC_ERROR_INVALID_OPTION,
                        Some("an option contains a NUL byte".into()),
                    )
                })
            })
            .collect::<Result<_>>()?;
        let ptrs: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
        let n = c_int::try_from(ptrs.len())
            .map_err(|_| CoreError::usage("Program::compile", "more options than NVRTC accepts"))?;
        // SAFETY: live program; `ptrs` holds `n` NUL-terminated strings alive for the call.
        let r = unsafe { self.backend.nvrtcCompileProgram(self.raw, n, ptrs.as_ptr()) };
        self.log = self.fetch_log().unwrap_or_default();
        if r != nvrtcResult::NVRTC_SUCCESS {
            return Err(CoreError::nvrtc(
                "nvrtcCompileProgram",
                r,
                Some(self.log.clone()),
            ));
        }
        Ok(())
    }

    /// The last compile's output of kind `kind` (`nvrtcGetPTX`, `nvrtcGetCUBIN` or
    /// `nvrtcGetLTOIR`), labelled by its content as [`Program::compile`] labels it, PTX text
    /// without NVRTC's trailing NUL. The code is empty when the compiler made none of that kind
    /// (no successful compile yet, a cubin for a `compute_XX` arch, LTO-IR without `-dlto`);
    /// it carries no lowered names (ask [`Program::lowered_name`]).
    ///
    /// # Errors
    /// A usage error for [`CodeType::Fatbin`]; the compiler's error fetching the code.
    pub fn output(&self, kind: CodeType) -> Result<ObjectCode> {
        if kind == CodeType::Fatbin {
            return Err(fatbin_refused());
        }
        let (code, kind) = self.fetch_code(kind)?;
        Ok(ObjectCode::from_compiler(code, kind, Vec::new()))
    }

    /// Replaces the options later compiles use ([`Program::compile`]); name expressions not
    /// given before are added to the program (`nvrtcAddNameExpression`), which NVRTC allows
    /// only before the first compile.
    ///
    /// # Errors
    /// `NVRTC_ERROR_INVALID_INPUT` for a NUL in a new name expression; the compiler's error
    /// adding it (e.g. `NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION`). The options are
    /// replaced only on success.
    pub fn set_options(&mut self, options: ProgramOptions) -> Result<()> {
        for e in &options.name_expressions {
            if !self.options.name_expressions.contains(e) {
                self.add_name_expression(e)?;
            }
        }
        self.options = options;
        Ok(())
    }

    fn add_name_expression(&self, expr: &str) -> Result<()> {
        let c = nul_free("nvrtcAddNameExpression", "a name expression", expr)?;
        // SAFETY: live program, NUL-terminated string.
        let r = unsafe { self.backend.nvrtcAddNameExpression(self.raw, c.as_ptr()) };
        rtc_check("nvrtcAddNameExpression", r).map_err(|err| err.with_detail(expr.to_owned()))
    }

    /// The code of `target` the last compile made and what it is by content, PTX's NUL
    /// removed.
    fn fetch_code(&self, target: CodeType) -> Result<(Vec<u8>, CodeType)> {
        let (mut code, kind) = match target {
            CodeType::Ptx => (
                self.fetch("nvrtcGetPTX", Rtc::nvrtcGetPTXSize, Rtc::nvrtcGetPTX)?,
                CodeType::Ptx,
            ),
            CodeType::Cubin => (
                self.fetch("nvrtcGetCUBIN", Rtc::nvrtcGetCUBINSize, Rtc::nvrtcGetCUBIN)?,
                CodeType::Cubin,
            ),
            _ => (
                self.fetch("nvrtcGetLTOIR", Rtc::nvrtcGetLTOIRSize, Rtc::nvrtcGetLTOIR)?,
                CodeType::Ltoir,
            ),
        };
        // Label what the bytes are, never what was asked for: on HIP "PTX" is the AMD code
        // object, and on HIP's NVIDIA platform "CUBIN" is PTX text.
        let kind = label_by_content(&code, kind);
        if kind == CodeType::Ptx && code.last() == Some(&0) {
            code.pop(); // PTX is text; NVRTC's size counts the NUL
        }
        Ok((code, kind))
    }

    /// `nvrtcGetLoweredName`: the mangled name of a name expression given in the options,
    /// after a successful compile.
    ///
    /// # Errors
    /// `NVRTC_ERROR_INVALID_INPUT` for a NUL in `expr`; the compiler's error (e.g.
    /// `NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID` for an expression never added,
    /// `NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION`), with `expr` as the detail.
    pub fn lowered_name(&self, expr: &str) -> Result<String> {
        let e = nul_free("nvrtcGetLoweredName", "a name expression", expr)?;
        let mut out: *const c_char = core::ptr::null();
        // SAFETY: live program, valid out-pointer.
        let r = unsafe {
            self.backend
                .nvrtcGetLoweredName(self.raw, e.as_ptr(), &mut out)
        };
        rtc_check("nvrtcGetLoweredName", r).map_err(|err| err.with_detail(expr.to_owned()))?;
        if out.is_null() {
            return Err(CoreError::nvrtc(
                "nvrtcGetLoweredName",
                nvrtcResult::NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
                Some(expr.to_owned()),
            ));
        }
        // SAFETY: the compiler returns a NUL-terminated string owned by the live program.
        Ok(unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned())
    }

    fn fetch_log(&self) -> Result<String> {
        let bytes = self.fetch(
            "nvrtcGetProgramLog",
            Rtc::nvrtcGetProgramLogSize,
            Rtc::nvrtcGetProgramLog,
        )?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    fn fetch(
        &self,
        call: &'static str,
        size: unsafe fn(&Backend, nvrtcProgram, *mut usize) -> nvrtcResult,
        get: unsafe fn(&Backend, nvrtcProgram, *mut c_char) -> nvrtcResult,
    ) -> Result<Vec<u8>> {
        let mut n = 0usize;
        // SAFETY: live program, valid out-pointer.
        rtc_check(call, unsafe { size(&self.backend, self.raw, &mut n) })?;
        let mut buf = vec![0u8; n];
        if n > 0 {
            // SAFETY: the buffer has the size the compiler reported.
            rtc_check(call, unsafe {
                get(&self.backend, self.raw, buf.as_mut_ptr().cast())
            })?;
        }
        Ok(buf)
    }
}

/// NVRTC makes no fat binaries: the usage error for asking it for one.
fn fatbin_refused() -> CoreError {
    CoreError::usage(
        "Program::compile",
        "NVRTC produces PTX, cubin or LTO-IR, not fat binaries",
    )
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("backend", &self.backend.kind())
            .field("raw", &self.raw)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: we own the handle and destroy it once.
        let r = unsafe { self.backend.nvrtcDestroyProgram(&mut self.raw) };
        if r != nvrtcResult::NVRTC_SUCCESS {
            log::warn!("nvrtcDestroyProgram: {r:?}");
        }
    }
}

/// What compiled `code` is, by its content: an ELF (`\x7fELF`) or a clang offload bundle is a
/// device binary (a cubin, or the AMD code object), a fat binary by its magic, LLVM bitcode is LTO IR; anything else asked
/// for as PTX or CUBIN is PTX text. `asked` decides only between LTO IR (NVIDIA's own format has
/// no magic anycuda relies on) and PTX.
pub(crate) fn label_by_content(code: &[u8], asked: CodeType) -> CodeType {
    const FATBIN: [u8; 4] = 0xba55_ed50u32.to_le_bytes();
    // A clang offload bundle (hipRTC's output on some ROCm releases) holds AMD code objects.
    if code.starts_with(b"\x7fELF") || code.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
        CodeType::Cubin
    } else if code.starts_with(&FATBIN) {
        CodeType::Fatbin
    } else if code.starts_with(b"BC\xc0\xde")
        || code.starts_with(&[0xde, 0xc0, 0x17, 0x0b])
        || asked == CodeType::Ltoir
    {
        CodeType::Ltoir
    } else {
        CodeType::Ptx
    }
}

/// The arch of the device whose context is current on this thread on `backend`, if any. Asks
/// nothing that would initialise the driver: with no current context the answer is `None`.
fn current_device_arch(backend: Backend) -> Option<String> {
    let mut ctx: CUcontext = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { backend.cuCtxGetCurrent(&mut ctx) };
    if r != CUresult::CUDA_SUCCESS || ctx.is_null() {
        return None;
    }
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer.
    if unsafe { backend.cuCtxGetDevice(&mut dev) } != CUresult::CUDA_SUCCESS {
        return None;
    }
    // On HIP a full target ID ("gfx90a:sramecc+:xnack-"): the option translation accepts it.
    backend.device_arch(dev).ok()
}

#[cfg(test)]
mod label_tests {
    use super::*;

    #[test]
    fn output_is_labelled_by_its_content() {
        let ptx = b".version 8.0\n.target sm_90\n\0";
        // HIP on NVIDIA: CUBIN asked, PTX made.
        assert_eq!(label_by_content(ptx, CodeType::Cubin), CodeType::Ptx);
        assert_eq!(label_by_content(ptx, CodeType::Ptx), CodeType::Ptx);
        // HIP on AMD: PTX asked, a code object made.
        assert_eq!(
            label_by_content(b"\x7fELF\x02\x01", CodeType::Ptx),
            CodeType::Cubin
        );
        assert_eq!(
            label_by_content(b"\x7fELF\x02\x01", CodeType::Cubin),
            CodeType::Cubin
        );
        assert_eq!(
            label_by_content(b"BC\xc0\xde..", CodeType::Ptx),
            CodeType::Ltoir
        );
        assert_eq!(
            label_by_content(&[0x50, 0xed, 0x55, 0xba, 1], CodeType::Cubin),
            CodeType::Fatbin
        );
        assert_eq!(
            label_by_content(b"\x12\x34", CodeType::Ltoir),
            CodeType::Ltoir
        );
    }
}
