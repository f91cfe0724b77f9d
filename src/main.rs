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
    let args = cli::Cli::parse();
    let level = match args.log_verbose {
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
