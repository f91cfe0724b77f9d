//! Run-time compilation: [`Program`] (NVRTC, or hipRTC on HIP) with typed [`ProgramOptions`],
//! compiled to an [`ObjectCode`] of a chosen [`CodeType`].
//!
//! On HIP the compiler is hipRTC behind the same NVRTC calls: CUDA options are translated (see
//! the README, "NVRTC on HIP"), and both [`CodeType::Ptx`] and [`CodeType::Cubin`] yield the AMD
//! code object, which comes back labelled [`CodeType::Cubin`] (it is the backend's native binary).

use super::cache::{self, CacheKey, KeyBuilder, ProgramCache};
use super::error::{CoreError, Result};
use super::module::ObjectCode;
use crate::driver::{CUcontext, CUdevice, CUresult};
use crate::nvrtc::{nvrtcProgram, nvrtcResult};
use crate::{Backend, Driver, Rtc};
use core::ffi::{c_char, c_int};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
///
/// # Cache
///
/// A compile is first looked up in the program's [`ProgramCache`] (the process-wide
/// [`cache::default_cache`] unless [`Program::set_cache`] says otherwise), and a successful
/// compile is stored there, so the next process that compiles the same program skips the
/// compiler. The key is a SHA-256 digest of: a schema version; anycuda's version and its
/// built-in headers (and whether they are on); the backend and its compiler's identity (NVRTC or
/// hipRTC, its version, and the loaded file's path, size and modification time); the program's
/// name, source and name expressions; the options, parsed as the compiler sees them (two-entry
/// and glued spellings made one), which include the target arch (the current device's when none
/// is set); and the path and contents of every header the compile can reach through its
/// `#include` lines and `--pre-include` options, in every folder of the search order. The
/// entry holds what the compiler answers for every kind of code (PTX, cubin, LTO-IR, or the
/// error of fetching one), so the [`CodeType`] asked for needs no part of the key (`-dlto`,
/// which LTO-IR needs, is an option).
///
/// A compile is not cached (it simply runs) when a header cannot be known from the text: an
/// `#include` whose name comes from a macro, `#include_next`, `__has_include`, or an include
/// found neither among the built-in headers nor on disk (the compiler may find it somewhere
/// anycuda does not look); an option that reads or writes other files (`--time`,
/// `--fdevice-time-trace`, the precompiled-header options) or a raw hipRTC option that changes
/// the header search (`--anycuda-hip-option=-I...`); also when the compiler's file cannot be
/// identified. Failed compiles are never cached. A hit leaves the raw program (see [`Program::as_raw`]) uncompiled: code
/// that reads the output through raw NVRTC calls should [`set_cache(None)`](Program::set_cache).
pub struct Program {
    backend: Backend,
    raw: nvrtcProgram,
    options: ProgramOptions,
    log: String,
    source: String,
    cache: Option<Arc<dyn ProgramCache>>,
    /// What the last compile found in the cache, which then stands for the compiler's output.
    hit: Option<CachedOutput>,
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
            source: code.to_owned(),
            cache: cache::default_cache(),
            hit: None,
        };
        for e in &prog.options.name_expressions {
            prog.add_name_expression(e)?;
        }
        Ok(prog)
    }

    /// Uses `cache` for later compiles, or no cache (`None`): every compile runs the compiler.
    pub fn set_cache(&mut self, cache: Option<Arc<dyn ProgramCache>>) {
        self.cache = cache;
    }

    /// [`Program::set_cache`], by value.
    #[must_use]
    pub fn with_cache(mut self, cache: Option<Arc<dyn ProgramCache>>) -> Self {
        self.set_cache(cache);
        self
    }

    /// The cache later compiles use, if any.
    pub fn cache(&self) -> Option<&Arc<dyn ProgramCache>> {
        self.cache.as_ref()
    }

    /// Whether the last successful compile was served from the cache (the compiler did not run).
    pub fn cache_hit(&self) -> bool {
        self.hit.is_some()
    }

    /// The raw `nvrtcProgram`, to mix with [`crate::nvrtc`] calls. It stays owned by `self`.
    /// After a cache hit ([`Program::cache_hit`]) it has not been compiled.
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
        self.hit = None;
        let key = match &self.cache {
            Some(_) => self.cache_key(&cargs),
            None => None,
        };
        if let (Some(c), Some(key)) = (&self.cache, &key) {
            if let Some(bytes) = c.get(key) {
                match CachedOutput::decode(&bytes) {
                    Some(out) => {
                        self.log = out.log.clone();
                        self.hit = Some(out);
                        return Ok(());
                    }
                    None => log::warn!("program cache: entry {key:?} does not decode; compiling"),
                }
            }
        }
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
        if let (Some(c), Some(key)) = (&self.cache, &key) {
            match self.collect_output() {
                Some(out) => {
                    if let Err(e) = c.put(key, &out.encode()) {
                        log::warn!("program cache: cannot store {key:?}: {e}; compiled anyway");
                    }
                }
                None => log::debug!("program cache: the output could not be read back whole"),
            }
        }
        Ok(())
    }

    /// Everything the compile just made, to store: what the compiler answers for each kind of
    /// code (the code, or its error code, which a hit replays), the log and the lowered names.
    /// `None` when a lowered name cannot be read.
    fn collect_output(&self) -> Option<CachedOutput> {
        let mut codes = Vec::new();
        for asked in [CodeType::Ptx, CodeType::Cubin, CodeType::Ltoir] {
            let answer = match self.fetch_compiled(asked) {
                Ok((code, label)) => Ok((label, code)),
                Err(e) => Err(e.nvrtc_code()?.0),
            };
            codes.push((asked, answer));
        }
        let mut lowered = Vec::new();
        for e in &self.options.name_expressions {
            lowered.push((e.clone(), self.lowered_name(e).ok()?));
        }
        Some(CachedOutput {
            log: self.log.clone(),
            codes,
            lowered,
        })
    }

    /// The cache key of a compile with `args`, or `None` when the compile cannot be cached
    /// (see the type's "Cache" section; the reason is logged at debug level).
    fn cache_key(&self, args: &[CString]) -> Option<CacheKey> {
        match self.try_cache_key(args) {
            Ok(k) => Some(k),
            Err(why) => {
                log::debug!("program cache: not caching this compile: {why}");
                None
            }
        }
    }

    fn try_cache_key(&self, args: &[CString]) -> std::result::Result<CacheKey, String> {
        use anycuda_rtc::rtc_options::{self, Dialect};
        let mut k = KeyBuilder::new();
        k.field(KEY_SCHEMA.to_le_bytes());
        k.field(env!("CARGO_PKG_VERSION"));
        k.field(builtin_headers_digest());
        k.field(anycuda_rtc::rtc_input::builtins_key());
        let builtins = anycuda_rtc::rtc_input::builtins_enabled(self.backend.rtc_target());
        k.field(self.backend.kind().to_string());
        let compiler = self
            .backend
            .libraries()
            .into_iter()
            .find(|l| l.role.is_compiler() && l.status.is_ok())
            .ok_or("the compiler did not load")?;
        let lib = compiler.status.as_ref().map_err(|e| e.to_string())?;
        let meta = std::fs::metadata(&lib.path)
            .map_err(|e| format!("cannot identify the compiler file {}: {e}", lib.path))?;
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .ok_or("the compiler file has no modification time")?;
        k.field(compiler.role.to_string())
            .field(&lib.version)
            .field(&lib.path)
            .field(meta.len().to_le_bytes())
            .field(mtime.as_nanos().to_le_bytes());
        k.field(self.options.name.as_deref().unwrap_or("program.cu"));
        k.field(&self.source);
        k.field((self.options.name_expressions.len() as u64).to_le_bytes());
        for e in &self.options.name_expressions {
            k.field(e);
        }
        // The superset dialect: an option the backend refuses fails the compile, which is
        // never stored.
        let opts: Vec<&CStr> = args.iter().map(CString::as_c_str).collect();
        let parsed = rtc_options::parse(&opts, Dialect::Hip).map_err(|e| e.to_string())?;
        k.field((parsed.len() as u64).to_le_bytes());
        let mut include_dirs = Vec::new();
        let mut pre_includes = Vec::new();
        for p in &parsed {
            k.field(p.spec.long).field(p.value.unwrap_or(b"\0none"));
            let value = || String::from_utf8_lossy(p.value.unwrap_or_default()).into_owned();
            match p.spec.long {
                "--include-path" => include_dirs.push(PathBuf::from(value())),
                "--pre-include" => pre_includes.push(value()),
                long if FILE_OPTIONS.contains(&long) => {
                    return Err(format!("`{long}` reads or writes files besides headers"));
                }
                "--anycuda-hip-option" if hidden_search_option(&value()) => {
                    return Err(format!("`{}` changes the header search", value()));
                }
                _ => {}
            }
        }
        let mut headers = HeaderScan::new(include_dirs, builtins);
        for name in &pre_includes {
            headers.include(name, true, None)?;
        }
        headers.scan_text(&self.source, None)?;
        for (path, contents) in &headers.found {
            k.field(path.as_os_str().as_encoded_bytes()).field(contents);
        }
        Ok(k.finish())
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
                if self.hit.is_some() {
                    // Compiled from the cache: the compiler did not run, but NVRTC's rule that
                    // a compiled program takes no more name expressions holds.
                    return Err(CoreError::nvrtc(
                        "nvrtcAddNameExpression",
                        nvrtcResult::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,
                        Some(e.clone()),
                    ));
                }
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
        if let Some(hit) = &self.hit {
            return match hit.codes.iter().find(|c| c.0 == target).map(|c| &c.1) {
                Some(Ok((label, code))) => Ok((code.clone(), *label)),
                Some(Err(code)) => Err(CoreError::nvrtc(
                    fetch_call(target),
                    nvrtcResult(*code),
                    None,
                )),
                None => Ok((Vec::new(), target)),
            };
        }
        self.fetch_compiled(target)
    }

    /// [`Program::fetch_code`] from the compiler itself.
    fn fetch_compiled(&self, target: CodeType) -> Result<(Vec<u8>, CodeType)> {
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
        if let Some(hit) = &self.hit {
            return hit
                .lowered
                .iter()
                .find(|l| l.0 == expr)
                .map(|l| l.1.clone())
                .ok_or_else(|| {
                    CoreError::nvrtc(
                        "nvrtcGetLoweredName",
                        nvrtcResult::NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
                        Some(expr.to_owned()),
                    )
                });
        }
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

/// The version of the cache key's layout: bump it when what goes into the key changes.
const KEY_SCHEMA: u32 = 1;

/// The digest of anycuda's built-in headers for both compilers (their text decides what an
/// `#include` of one of them compiles), computed once.
fn builtin_headers_digest() -> [u8; 32] {
    use anycuda_rtc::rtc_headers::{builtin_headers, RtcTarget};
    static DIGEST: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    *DIGEST.get_or_init(|| {
        let mut k = KeyBuilder::new();
        for t in [RtcTarget::Nvrtc, RtcTarget::Hiprtc] {
            for (name, text) in builtin_headers(t) {
                k.field(name).field(text);
            }
        }
        *k.finish().as_bytes()
    })
}

/// Whether `name` is one of anycuda's built-in headers (for either compiler: the on-disk
/// candidates are hashed as well, so a name built in for one compiler only is still covered).
fn is_builtin_header(name: &str) -> bool {
    use anycuda_rtc::rtc_headers::{builtin_headers, RtcTarget};
    [RtcTarget::Nvrtc, RtcTarget::Hiprtc]
        .into_iter()
        .any(|t| builtin_headers(t).iter().any(|(n, _)| *n == name))
}

/// Options whose compile reads or writes files other than headers (precompiled headers,
/// timing reports): a hit would skip the writing, and the key cannot cover what is read.
const FILE_OPTIONS: &[&str] = &[
    "--time",
    "--fdevice-time-trace",
    "--pch",
    "--create-pch",
    "--use-pch",
    "--pch-dir",
];

/// Whether a raw clang option passed to hipRTC changes where headers are found (`-I`,
/// `-isystem`, `-iquote`, `-include`, ...): the key would not know those folders.
fn hidden_search_option(opt: &str) -> bool {
    [
        "-I",
        "-i",
        "--include",
        "--system-header",
        "-F",
        "--sysroot",
        "-nostdinc",
    ]
    .iter()
    .any(|p| opt.starts_with(p))
}

/// The most header files one compile's key reads; a program reaching more is not cached.
const MAX_KEY_HEADERS: usize = 4096;
/// The most header bytes one compile's key reads.
const MAX_KEY_HEADER_BYTES: usize = 256 << 20;

/// The headers a compile can reach, found by following `#include` lines from the source.
///
/// Conservative by design: every candidate file of an include, in every folder of the search
/// order (next to the includer and the working directory for quoted includes, then each `-I`
/// folder), is read and followed, not only the one the compiler picks, so the key covers the
/// compiler's choice whatever its exact order. Includes inside `#if` blocks or comments are
/// followed too. What cannot be known from the text is an error: the compile is not cached.
struct HeaderScan {
    include_dirs: Vec<PathBuf>,
    cwd: Option<PathBuf>,
    builtins: bool,
    found: Vec<(PathBuf, Vec<u8>)>,
    seen: std::collections::HashSet<PathBuf>,
    bytes: usize,
}

impl HeaderScan {
    fn new(include_dirs: Vec<PathBuf>, builtins: bool) -> Self {
        let cwd = std::env::current_dir().ok();
        let include_dirs = include_dirs
            .into_iter()
            .map(|d| match &cwd {
                Some(c) if d.is_relative() => c.join(d),
                _ => d,
            })
            .collect();
        Self {
            include_dirs,
            cwd,
            builtins,
            found: Vec::new(),
            seen: Default::default(),
            bytes: 0,
        }
    }

    /// Follows the includes of `text`, a file in `dir` (`None` for the main source).
    fn scan_text(&mut self, text: &str, dir: Option<&Path>) -> std::result::Result<(), String> {
        if text.contains("__has_include") {
            return Err("`__has_include` depends on files the text does not name".into());
        }
        for d in include_directives(text) {
            match d {
                Directive::Include(name, quoted) => self.include(&name, quoted, dir)?,
                Directive::Unknown(line) => {
                    return Err(format!("cannot tell which file `{line}` includes"))
                }
            }
        }
        Ok(())
    }

    /// Reads and follows every candidate file of one include.
    fn include(
        &mut self,
        name: &str,
        quoted: bool,
        dir: Option<&Path>,
    ) -> std::result::Result<(), String> {
        let mut any = self.builtins && is_builtin_header(name);
        let rel = Path::new(name);
        let candidates: Vec<PathBuf> = if rel.is_absolute() {
            vec![rel.to_path_buf()]
        } else {
            let quoted_dirs = [dir, self.cwd.as_deref()];
            quoted_dirs
                .into_iter()
                .filter(|_| quoted)
                .flatten()
                .chain(self.include_dirs.iter().map(PathBuf::as_path))
                .map(|d| d.join(rel))
                .collect()
        };
        for c in candidates {
            if !c.is_file() {
                continue;
            }
            any = true;
            if !self.seen.insert(c.clone()) {
                continue;
            }
            if self.seen.len() > MAX_KEY_HEADERS {
                return Err(format!("more than {MAX_KEY_HEADERS} headers"));
            }
            let bytes = std::fs::read(&c).map_err(|e| format!("{}: {e}", c.display()))?;
            self.bytes += bytes.len();
            if self.bytes > MAX_KEY_HEADER_BYTES {
                return Err("the headers are too large to hash".into());
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            self.found.push((c.clone(), bytes));
            self.scan_text(&text, c.parent())?;
        }
        if any {
            Ok(())
        } else {
            Err(format!(
                "`{name}` is neither built in nor on disk (the compiler may find it elsewhere)"
            ))
        }
    }
}

/// One `#include`-like directive of a text.
#[derive(Debug, PartialEq, Eq)]
enum Directive {
    /// `#include "name"` (quoted) or `#include <name>`.
    Include(String, bool),
    /// An include whose file the text does not name (a macro, `#include_next`, unterminated).
    Unknown(String),
}

/// The include directives of `text`, continued lines joined.
fn include_directives(text: &str) -> Vec<Directive> {
    let joined = text.replace("\\\r\n", "").replace("\\\n", "");
    let mut out = Vec::new();
    for line in joined.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(after) = rest.strip_prefix("include") else {
            continue;
        };
        if after.starts_with("_next") {
            out.push(Directive::Unknown(line.trim().to_owned()));
            continue;
        }
        let after = after.trim_start();
        let close = match after.chars().next() {
            Some('"') => '"',
            Some('<') => '>',
            _ => {
                out.push(Directive::Unknown(line.trim().to_owned()));
                continue;
            }
        };
        match after[1..].find(close) {
            Some(end) => out.push(Directive::Include(
                after[1..1 + end].to_owned(),
                close == '"',
            )),
            None => out.push(Directive::Unknown(line.trim().to_owned())),
        }
    }
    out
}

/// What the compiler answered when asked for one kind of code: the code and its label, or
/// the error code of fetching it.
type CodeAnswer = std::result::Result<(CodeType, Vec<u8>), u32>;

/// What a compile made, as the cache stores it: the answer for each kind of code, the log and
/// the lowered names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CachedOutput {
    log: String,
    codes: Vec<(CodeType, CodeAnswer)>,
    lowered: Vec<(String, String)>,
}

/// The NVRTC call that fetches code of kind `t` (the call an error names).
fn fetch_call(t: CodeType) -> &'static str {
    match t {
        CodeType::Ptx => "nvrtcGetPTX",
        CodeType::Cubin => "nvrtcGetCUBIN",
        _ => "nvrtcGetLTOIR",
    }
}

fn code_type_byte(t: CodeType) -> u8 {
    match t {
        CodeType::Ptx => 0,
        CodeType::Cubin => 1,
        CodeType::Ltoir => 2,
        CodeType::Fatbin => 3,
    }
}

fn code_type_of(b: u8) -> Option<CodeType> {
    Some(match b {
        0 => CodeType::Ptx,
        1 => CodeType::Cubin,
        2 => CodeType::Ltoir,
        3 => CodeType::Fatbin,
        _ => return None,
    })
}

impl CachedOutput {
    fn encode(&self) -> Vec<u8> {
        fn bytes(out: &mut Vec<u8>, b: &[u8]) {
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
        let mut out = Vec::new();
        bytes(&mut out, self.log.as_bytes());
        out.extend_from_slice(&(self.codes.len() as u32).to_le_bytes());
        for (asked, answer) in &self.codes {
            out.push(code_type_byte(*asked));
            match answer {
                Ok((label, code)) => {
                    out.push(0);
                    out.push(code_type_byte(*label));
                    bytes(&mut out, code);
                }
                Err(e) => {
                    out.push(1);
                    out.extend_from_slice(&e.to_le_bytes());
                }
            }
        }
        out.extend_from_slice(&(self.lowered.len() as u32).to_le_bytes());
        for (e, l) in &self.lowered {
            bytes(&mut out, e.as_bytes());
            bytes(&mut out, l.as_bytes());
        }
        out
    }

    /// The output `data` encodes; `None` for anything malformed (never trusted further).
    fn decode(data: &[u8]) -> Option<Self> {
        struct R<'a>(&'a [u8]);
        impl<'a> R<'a> {
            fn take(&mut self, n: usize) -> Option<&'a [u8]> {
                if n > self.0.len() {
                    return None;
                }
                let (a, b) = self.0.split_at(n);
                self.0 = b;
                Some(a)
            }
            fn u32(&mut self) -> Option<u32> {
                Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
            }
            fn bytes(&mut self) -> Option<&'a [u8]> {
                let n = u64::from_le_bytes(self.take(8)?.try_into().ok()?);
                self.take(usize::try_from(n).ok()?)
            }
            fn string(&mut self) -> Option<String> {
                String::from_utf8(self.bytes()?.to_vec()).ok()
            }
        }
        let mut r = R(data);
        let log = r.string()?;
        let mut codes = Vec::new();
        for _ in 0..r.u32()? {
            let asked = code_type_of(r.take(1)?[0])?;
            let answer = match r.take(1)?[0] {
                0 => Ok((code_type_of(r.take(1)?[0])?, r.bytes()?.to_vec())),
                1 => Err(u32::from_le_bytes(r.take(4)?.try_into().ok()?)),
                _ => return None,
            };
            codes.push((asked, answer));
        }
        let mut lowered = Vec::new();
        for _ in 0..r.u32()? {
            lowered.push((r.string()?, r.string()?));
        }
        r.0.is_empty().then_some(Self {
            log,
            codes,
            lowered,
        })
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

    #[test]
    fn include_directives_are_read_or_refused() {
        let text = "#include \"a.h\"\n  #  include <b/c.h>\n#include MACRO\n#include_next <d.h>\n\
                    #define X\n#include \"open\n#inc\\\nlude <e.h>\n";
        assert_eq!(
            include_directives(text),
            vec![
                Directive::Include("a.h".into(), true),
                Directive::Include("b/c.h".into(), false),
                Directive::Unknown("#include MACRO".into()),
                Directive::Unknown("#include_next <d.h>".into()),
                Directive::Unknown("#include \"open".into()),
                Directive::Include("e.h".into(), false),
            ]
        );
    }

    #[test]
    fn cached_output_round_trips_and_refuses_damage() {
        let out = CachedOutput {
            log: "warning: x".into(),
            codes: vec![
                (CodeType::Ptx, Ok((CodeType::Ptx, b".version 9.0".to_vec()))),
                (
                    CodeType::Cubin,
                    Ok((CodeType::Cubin, b"\x7fELF....".to_vec())),
                ),
                (CodeType::Ltoir, Err(6)),
            ],
            lowered: vec![("scale<float>".into(), "_Z5scaleIfEvPT_".into())],
        };
        let bytes = out.encode();
        assert_eq!(CachedOutput::decode(&bytes), Some(out));
        for cut in 0..bytes.len() {
            assert_eq!(CachedOutput::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(CachedOutput::decode(&longer), None);
    }
}
