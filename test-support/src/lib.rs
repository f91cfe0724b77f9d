//! anycuda's test support (a dev-dependency only; `publish = false`).
//!
//! - [`gpu_test`]: a test states the hardware it needs (`#[gpu_test(gpus = 2)]`); without a
//!   GPU (CI) libtest lists it as ignored with that need as the reason, and run with
//!   `--ignored` on a machine that lacks it, it ends with [`NOT_RUN`] instead of passing.
//! - [`not_applicable`]: a test that finds its feature absent on the backend ends with
//!   [`NOT_APPLICABLE`], never as a pass.
//! - [`alloc`]: the counting allocator the hot-path tests and benchmarks install
//!   ([`count_allocations!`]).
//! - [`env`](mod@env): environment guards, and [`serial`], the lock tests take to run one at a time.
//!
//! It depends on no anycuda crate (they take it as a dev-dependency), so it counts GPUs from the
//! kernel drivers' files ([`machine`]). What the exit codes mean to ci/gpu-test.sh:
//! docs/contributing.md, "GPU tests".

#![warn(missing_docs)]

pub mod alloc;
pub mod env;
pub mod machine;
pub mod need;

use std::io::Write;

/// States what a test needs of the GPU machine: `#[gpu_test]`, `#[gpu_test(gpus = 2)]`,
/// `#[gpu_test(backend = "hip")]`, `#[gpu_test(platform = "nvidia")]`, with
/// `run_by = "ci/<script>.sh"` for the script the ignore reason names.
pub use anycuda_test_macros::gpu_test;

pub use env::serial;

/// The exit status of a test whose need is not met here (`not run: <reason>` on stdout).
pub const NOT_RUN: i32 = 77;
/// The exit status of a test whose feature is absent on this backend (`N/A: <reason>`).
pub const NOT_APPLICABLE: i32 = 78;

/// Set to `1` (ci/gpu-test.sh does) where a missing GPU is a failure, not a "not run".
pub const REQUIRE_GPU_ENV: &str = "ANYCUDA_REQUIRE_GPU";

/// Prints `not run: <reason>` and ends the process with [`NOT_RUN`].
///
/// The line goes to the process's stdout directly (libtest's capture would drop it on exit).
/// The whole process ends: run GPU tests one per process (ci/gpu-test.sh does), or the other
/// tests of that run end with it.
pub fn not_run(reason: &str) -> ! {
    exit_with("not run", reason, NOT_RUN)
}

/// Prints `N/A: <reason>` and ends the process with [`NOT_APPLICABLE`]: the feature the test
/// checks is absent on this backend, which is neither a pass nor a failure.
pub fn not_applicable(reason: &str) -> ! {
    exit_with("N/A", reason, NOT_APPLICABLE)
}

/// Passes on the outcome of a child process that ran a `#[gpu_test]` (or part of one): a child
/// that ended with [`NOT_RUN`] or [`NOT_APPLICABLE`] ends this process the same way, with the
/// child's reason line, so a test that re-runs itself in a child is "not run" or "n/a" where
/// its child is, never a failure. Returns for any other status (the caller checks it).
pub fn pass_on_child(out: &std::process::Output) {
    let (tag, code) = match out.status.code() {
        Some(NOT_RUN) => ("not run", NOT_RUN),
        Some(NOT_APPLICABLE) => ("N/A", NOT_APPLICABLE),
        _ => return,
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("{tag}: ");
    let reason = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or("(the child gave no reason)");
    exit_with(tag, &format!("{reason} (in a child process)"), code)
}

fn exit_with(tag: &str, reason: &str, code: i32) -> ! {
    let mut out = std::io::stdout().lock();
    // A line of its own even after the harness's "test NAME ... " (printed under --nocapture).
    let _ = writeln!(out, "\n{tag}: {reason}");
    let _ = out.flush();
    std::process::exit(code)
}

/// The first statement of every `#[gpu_test]`: returns when `need` is met here (the body
/// runs), ends the process with [`NOT_RUN`] when it is not, and fails the test (a panic) when
/// no GPU is found at all where `ANYCUDA_REQUIRE_GPU=1` says there is one.
#[doc(hidden)]
pub fn __check(need: need::Need, test: &str) {
    let here = machine::Machine::detect();
    if let Err(why) = here.check(&need) {
        let required = std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| v == "1");
        if required && here.nvidia + here.amd == 0 {
            panic!("{test} {why}, and {REQUIRE_GPU_ENV}=1 says this machine has one");
        }
        not_run(&format!("{why} (counted from {})", here.source));
    }
}
