//! The `anycuda` command: a demonstration (SAXPY on this machine's GPU, or compiled for both
//! vendors without one), what is installed, compile kernels, show the CUDA↔HIP mapping and the
//! API coverage.

mod cli;

use clap::Parser;
use std::process::ExitCode;

/// Restores the default SIGPIPE action, so `anycuda mapping | head` ends quietly as C tools do
/// instead of failing on the closed pipe (Rust ignores SIGPIPE by default).
#[cfg(unix)]
fn default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: called first thing in main, before any thread exists.
    unsafe { signal(SIGPIPE, SIG_DFL) };
}

fn main() -> ExitCode {
    #[cfg(unix)]
    default_sigpipe();
    // `anycuda nvcc ...`, or this binary run through a link named `nvcc`: nvcc's command line,
    // which clap must not parse (nvcc's `-v`, `-h`, `--version` are not anycuda's).
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_default();
    let called_nvcc = std::path::Path::new(&argv0)
        .file_name()
        .is_some_and(|n| n == "nvcc");
    let rest: Vec<std::ffi::OsString> = argv.collect();
    if called_nvcc || rest.first().is_some_and(|a| a == "nvcc") {
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
            .format_timestamp(None)
            .init();
        let args = if called_nvcc {
            rest
        } else {
            rest[1..].to_vec()
        };
        return match cli::nvcc::run(args) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    let args = cli::Cli::parse();
    let level = match args.log_verbose {
        // `demo` and `info` report every library they looked for, and the backend choice,
        // themselves (the paths tried in `info --verbose`): the same failures logged as
        // warnings would repeat every path tried on stderr. `-v` or RUST_LOG shows them.
        0 if matches!(
            args.command,
            cli::Command::Demo { .. } | cli::Command::Info { .. }
        ) =>
        {
            "error,anycuda::select=off"
        }
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .format_timestamp(None)
        .init();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
