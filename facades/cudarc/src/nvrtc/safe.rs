//! cudarc's safe NVRTC API: [`compile_ptx`] and friends.

use super::{result, sys};
use anycuda::core::{CodeType, CoreError, Program, ProgramOptions};
use core::ffi::c_char;
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

/// Compiles CUDA C++ source with NVRTC (CUDA) or hipRTC (HIP, CUDA options translated), through
/// anycuda's one compiler wrapper, [`anycuda::core::Program`], with exactly the options
/// [`CompileOptions`] stands for (nothing added, as in cudarc).
///
/// # Errors
/// [`CompileError::CreationError`] (also for a source or name containing NUL, as
/// `NVRTC_ERROR_INVALID_INPUT`), [`CompileError::CompileError`] with the log, or
/// [`CompileError::GetPtxError`]. The log is read with every compile, so
/// [`CompileError::GetLogError`] does not occur here.
pub fn compile_ptx_with_opts<S: AsRef<str>>(
    src: S,
    opts: CompileOptions,
) -> Result<Ptx, CompileError> {
    // cudarc passes a null name when none is given, for which NVRTC uses "default_program".
    let name = opts.name.as_deref().unwrap_or("default_program");
    let mut prog = Program::new(src.as_ref(), ProgramOptions::new().name(name))
        .map_err(|e| CompileError::CreationError(nvrtc_error(&e)))?;
    let options = opts.build();
    if let Err(e) = prog.compile_with_args(&options) {
        return Err(CompileError::CompileError {
            nvrtc: nvrtc_error(&e),
            options,
            // The log is cut at its first NUL, so it has none inside.
            log: CString::new(prog.log()).unwrap_or_default(),
        });
    }
    let out = prog
        .output(CodeType::Ptx)
        .map_err(|e| CompileError::GetPtxError(nvrtc_error(&e)))?;
    // As from `nvrtcGetPTX`: PTX text keeps its NUL (the driver loads it as a C string); an AMD
    // code object is binary and kept byte for byte.
    let mut image: Vec<c_char> = out.code().iter().map(|&b| b as c_char).collect();
    if out.code_type() == CodeType::Ptx {
        image.push(0);
    }
    Ok(Ptx(PtxKind::Image(image)))
}

/// The NVRTC code of a failed `core` compiler call (every such call is an NVRTC call).
fn nvrtc_error(e: &CoreError) -> result::NvrtcError {
    result::NvrtcError(
        e.nvrtc_code()
            .unwrap_or(sys::nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR),
    )
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
