//! Command-line parsing and dispatch.

mod compile;
mod coverage;
mod demo;
mod elf_shim;
mod info;
mod libdir;
mod mapping;
mod missing;
pub mod nvcc;
mod run;

use anycuda::BackendKind;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Run CUDA host code unchanged on NVIDIA (CUDA) and AMD (HIP/ROCm) GPUs.
#[derive(Parser, Debug)]
#[command(name = "anycuda", version, about)]
pub struct Cli {
    /// More log output (-v: backend decisions, -vv: library search).
    #[arg(short = 'v', long = "log-verbose", action = clap::ArgAction::Count, global = true)]
    pub log_verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

/// A backend named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// NVIDIA CUDA (aliases: nvidia).
    #[value(alias = "nvidia")]
    Cuda,
    /// AMD HIP/ROCm (aliases: rocm, amd).
    #[value(alias = "rocm", alias = "amd")]
    Hip,
}

impl From<BackendArg> for BackendKind {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Cuda => BackendKind::Cuda,
            BackendArg::Hip => BackendKind::Hip,
        }
    }
}

/// What the compile command writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// A cubin for `sm_XX`, PTX for `compute_XX`, the code object on HIP.
    Auto,
    /// PTX (on HIP: the code object, as `nvrtcGetPTX` returns it).
    Ptx,
    /// A cubin (on HIP: the code object).
    Cubin,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show anycuda working: compile SAXPY at run time, run it on this machine's GPU and check
    /// every element; with no GPU, compile it for NVIDIA and AMD targets and say what is missing.
    Demo {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Elements of x and y (1 to 4294967295).
        #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u32).range(1..))]
        elements: u32,
    },
    /// Show the compiled-in backends, the libraries found (paths, versions) and the devices;
    /// for a missing library, how to get it.
    Info {
        /// Machine-readable output (with every try of the library search).
        #[arg(long)]
        json: bool,
        /// Also list every try of the library search, in order.
        #[arg(long)]
        verbose: bool,
    },
    /// Compile a CUDA source file with the backend's runtime compiler (NVRTC or hipRTC).
    Compile {
        /// The CUDA source file.
        file: PathBuf,
        /// The backend whose compiler to use (default: the active backend).
        #[arg(long, value_enum)]
        backend: Option<BackendArg>,
        /// Target arch, repeatable: sm_90 / compute_90 on CUDA, gfx90a etc. on HIP. Default:
        /// the device's arch.
        #[arg(long = "arch")]
        archs: Vec<String>,
        /// Output file (one arch) or directory (several). Default: next to FILE, named
        /// FILE.ARCH.{ptx,cubin,hsaco}.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// What to write.
        #[arg(long, value_enum, default_value_t = Emit::Auto)]
        emit: Emit,
        /// A name expression to lower (e.g. `scale<float>`), repeatable; printed after compiling.
        #[arg(long = "name-expression")]
        name_expressions: Vec<String>,
        /// Options for the compiler, as NVRTC takes them (translated on HIP).
        #[arg(last = true)]
        options: Vec<String>,
    },
    /// Show how CUDA constants map to HIP's, per enum: pairs, CUDA-only, HIP-only (hallucinated).
    Mapping {
        /// Only this enum (CUDA or HIP type name, e.g. CUresult, hipDeviceAttribute_t).
        r#enum: Option<String>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Use the tables of this HIP version (e.g. 60342134); default: the newest.
        #[arg(long)]
        hip_version: Option<i32>,
    },
    /// Print (creating it if needed) the folder whose libcuda.so.1, libcudart.so.13 (and .12,
    /// where built) and libnvrtc.so.13 are anycuda's C ABI: run C, C++ and Python programs with
    /// `LD_LIBRARY_PATH="$(anycuda libdir)"`.
    Libdir,
    /// Count the CUDA functions known, served on each backend, and not supported on HIP.
    Coverage {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// List the function names.
        #[arg(long)]
        verbose: bool,
    },
    /// Run a program so that every CUDA library it loads is anycuda's: `anycuda libdir` first
    /// on LD_LIBRARY_PATH and its libcuda.so.1 in LD_PRELOAD (which loads the runtime and
    /// NVRTC too, so cuda-python finds them already loaded); the exit status is the program's.
    Run {
        /// Set ANYCUDA_BACKEND for the program (default: as in the environment).
        #[arg(long, value_enum)]
        backend: Option<run::RunBackend>,
        /// The program and its arguments: `anycuda run -- python3 app.py`.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// An nvcc front end that records each kernel's source in the PTX it writes, so the HIP
    /// backend can compile it for AMD (docs/nvcc.md). Takes nvcc's command line.
    Nvcc {
        /// nvcc's arguments (main.rs hands them over before this parser sees them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

/// Runs a parsed command.
///
/// # Errors
/// A message for the user; the exit code is then 1.
pub fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Demo { json, elements } => demo::run(json, elements as usize),
        Command::Info { json, verbose } => info::run(json, verbose),
        Command::Compile {
            file,
            backend,
            archs,
            output,
            emit,
            name_expressions,
            options,
        } => compile::run(compile::Args {
            file,
            backend,
            archs,
            output,
            emit,
            name_expressions,
            options,
        }),
        Command::Mapping {
            r#enum,
            json,
            hip_version,
        } => mapping::run(r#enum.as_deref(), json, hip_version),
        Command::Coverage { json, verbose } => coverage::run(json, verbose),
        Command::Libdir => libdir::run(),
        Command::Nvcc { args } => nvcc::run(args),
        Command::Run { backend, command } => run::run(backend, command),
    }
}
