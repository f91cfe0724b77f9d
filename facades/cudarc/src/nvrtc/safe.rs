//! cudarc's safe NVRTC API: [`compile_ptx`] and friends.

use super::{result, sys};
use core::ffi::{c_char, CStr};
use std::ffi::CString;
use std::path::PathBuf;

/// Compiled (or loadable) device code, as in cudarc: compiler output, PTX text, a `.ptx` file or
/// a binary (cubin). Pass it to `CudaContext::load_module`.
///
/// On HIP, [`compile_ptx`]'s output is an AMD code object (binary), not PTX text. PTX text and
/// cubins cannot load on an AMD GPU: `load_module` returns `CUDA_ERROR_NOT_SUPPORTED` saying to
/// compile the `.cu` source with [`compile_ptx`] instead.
#[derive(Debug, Clone)]
pub struct Ptx(pub(crate) PtxKind);

/// What a [`Ptx`] holds.
#[derive(Debug, Clone)]
pub(crate) enum PtxKind {
    /// Compiler output, NUL-terminated for text (CUDA) or a code object (HIP).
    Image(Vec<c_char>),
    /// PTX source text.
    Src(String),
    /// A file to load with `cuModuleLoad`.
    File(PathBuf),
    /// A binary image (cubin, fatbin, or an AMD code object).
    Binary(Vec<u8>),
}

impl Ptx {
    /// A PTX file, loaded when the module is.
    pub fn from_file<P: Into<PathBuf>>(path: P) -> Self {
        Self(PtxKind::File(path.into()))
    }

    /// PTX source text.
    pub fn from_src<S: Into<String>>(src: S) -> Self {
        Self(PtxKind::Src(src.into()))
    }

    /// A binary image: a cubin on CUDA, an AMD code object on HIP.
    pub fn from_binary(data: Vec<u8>) -> Self {
        Self(PtxKind::Binary(data))
    }

    /// The PTX text. For compiler output on HIP (a binary code object) and for binaries this is
    /// not PTX: the bytes up to the first NUL, converted lossily (cudarc panics there; use
    /// [`Ptx::as_bytes`] for binaries). An unreadable file gives an empty string.
    pub fn to_src(&self) -> String {
        match &self.0 {
            PtxKind::Image(chars) => {
                let bytes = image_bytes(chars);
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                String::from_utf8_lossy(&bytes[..end]).into_owned()
            }
            PtxKind::Src(src) => src.clone(),
            PtxKind::File(path) => std::fs::read_to_string(path).unwrap_or_default(),
            PtxKind::Binary(data) => {
                let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
                String::from_utf8_lossy(&data[..end]).into_owned()
            }
        }
    }

    /// The compiler output's bytes (only for [`compile_ptx`] output, as in cudarc).
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            PtxKind::Image(chars) => Some(image_bytes(chars)),
            _ => None,
        }
    }
}

fn image_bytes(chars: &[c_char]) -> &[u8] {
    // c_char and u8 have the same size and alignment.
    // SAFETY: `c_char` and `u8` have the same size and alignment, and the slice covers exactly
    // `chars`, borrowed for the result's lifetime.
    unsafe { std::slice::from_raw_parts(chars.as_ptr().cast(), chars.len()) }
}

impl<S: Into<String>> From<S> for Ptx {
    fn from(value: S) -> Self {
        Self::from_src(value)
    }
}

/// Compiles CUDA C++ source with default options (see [`compile_ptx_with_opts`]).
///
/// # Errors
/// See [`compile_ptx_with_opts`].
pub fn compile_ptx<S: AsRef<str>>(src: S) -> Result<Ptx, CompileError> {
    compile_ptx_with_opts(src, Default::default())
}

/// Compiles CUDA C++ source with NVRTC (CUDA) or hipRTC (HIP, CUDA options translated).
///
/// # Errors
/// [`CompileError::CreationError`] (also for a source or name containing NUL, as
/// `NVRTC_ERROR_INVALID_INPUT`), [`CompileError::CompileError`] with the log, or
/// [`CompileError::GetPtxError`].
pub fn compile_ptx_with_opts<S: AsRef<str>>(
    src: S,
    opts: CompileOptions,
) -> Result<Ptx, CompileError> {
    let prog = Program::create(src, opts.name.as_deref())?;
    prog.compile(opts)
}

/// An NVRTC program, destroyed on drop.
pub(crate) struct Program {
    prog: sys::nvrtcProgram,
    // NVRTC may read these until the program is destroyed.
    _src: CString,
    _name: Option<CString>,
}

impl Program {
    pub(crate) fn create<S: AsRef<str>>(src: S, name: Option<&str>) -> Result<Self, CompileError> {
        let invalid = || {
            CompileError::CreationError(result::NvrtcError(
                sys::nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
            ))
        };
        let src = CString::new(src.as_ref()).map_err(|_| invalid())?;
        let name = name.map(CString::new).transpose().map_err(|_| invalid())?;
        let prog =
            result::create_program(&src, name.as_deref()).map_err(CompileError::CreationError)?;
        Ok(Self {
            prog,
            _src: src,
            _name: name,
        })
    }

    pub(crate) fn compile(self, opts: CompileOptions) -> Result<Ptx, CompileError> {
        let options = opts.build();
        // SAFETY: `self.prog` was created by `Program::create` and is destroyed only by `Drop`, so
        // it is live; its source and name are owned by `self`.
        if let Err(nvrtc) = unsafe { result::compile_program(self.prog, &options) } {
            let log =
                // SAFETY: `self.prog` is live (as above).
                unsafe { result::get_program_log(self.prog) }.map_err(CompileError::GetLogError)?;
            // SAFETY: `get_program_log`'s buffer is zero-filled, at least one byte, and the
            // compiler writes a log whose size (the one asked for) counts its NUL: it ends in NUL.
            let log = unsafe { CStr::from_ptr(log.as_ptr()) }.to_owned();
            return Err(CompileError::CompileError {
                nvrtc,
                options,
                log,
            });
        }
        // SAFETY: `self.prog` is live and compiled successfully just above.
        let image = unsafe { result::get_ptx(self.prog) }.map_err(CompileError::GetPtxError)?;
        Ok(Ptx(PtxKind::Image(image)))
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let prog = std::mem::replace(&mut self.prog, std::ptr::null_mut());
        if !prog.is_null() {
            // Nothing to report to from drop; a failed destroy only leaks the program.
            // SAFETY: `prog` was created by `Program::create`, is live, and was just taken out of
            // `self`, so it is destroyed exactly once.
            let _ = unsafe { result::destroy_program(prog) };
        }
    }
}

/// Why [`compile_ptx`] failed, as in cudarc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// `nvrtcCreateProgram` failed.
    CreationError(result::NvrtcError),
    /// `nvrtcCompileProgram` failed: the code, the options given and the compile log.
    CompileError {
        /// NVRTC's code.
        nvrtc: result::NvrtcError,
        /// The options passed to the compiler.
        options: Vec<String>,
        /// The compiler's log.
        log: CString,
    },
    /// `nvrtcGetProgramLog` failed.
    GetLogError(result::NvrtcError),
    /// `nvrtcGetPTX` failed.
    GetPtxError(result::NvrtcError),
    /// `nvrtcDestroyProgram` failed.
    DestroyError(result::NvrtcError),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CompileError {}

/// NVRTC options, as in cudarc. On HIP they are translated (see anycuda's docs/nvrtc-on-hip.md); add
/// `--anycuda-hip-arch=gfxNNN` to `options` to compile for AMD with no device present.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq)]
pub struct CompileOptions {
    /// `--ftz`.
    pub ftz: Option<bool>,
    /// `--prec-sqrt`.
    pub prec_sqrt: Option<bool>,
    /// `--prec-div`.
    pub prec_div: Option<bool>,
    /// `--fmad`.
    pub fmad: Option<bool>,
    /// Extra options, passed as given.
    pub options: Vec<String>,
    /// `--use_fast_math` (cudarc emits `--fmad=true` for it; so does this crate).
    pub use_fast_math: Option<bool>,
    /// `--maxrregcount`.
    pub maxrregcount: Option<usize>,
    /// `--include-path`, one per entry.
    pub include_paths: Vec<String>,
    /// `--gpu-architecture` (e.g. `"sm_80"`; on HIP, mapped to the device's target).
    pub arch: Option<&'static str>,
    /// The program's name (for the log).
    pub name: Option<String>,
}

impl CompileOptions {
    /// The option strings, in cudarc's order.
    pub(crate) fn build(self) -> Vec<String> {
        let mut out = Vec::new();
        let flag = |name: &str, v: Option<bool>| v.map(|v| format!("--{name}={v}"));
        out.extend(flag("ftz", self.ftz));
        out.extend(flag("prec-sqrt", self.prec_sqrt));
        out.extend(flag("prec-div", self.prec_div));
        out.extend(flag("fmad", self.fmad));
        if self.use_fast_math == Some(true) {
            out.push("--fmad=true".to_owned());
        }
        out.extend(self.maxrregcount.map(|n| format!("--maxrregcount={n}")));
        out.extend(
            self.include_paths
                .iter()
                .map(|p| format!("--include-path={p}")),
        );
        out.extend(self.arch.map(|a| format!("--gpu-architecture={a}")));
        out.extend(self.options);
        out
    }
}
