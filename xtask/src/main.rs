//! `cargo xtask`: the repository's tasks, one entry for each (the alias is in `.cargo/config.toml`).
//!
//! ```text
//! cargo xtask ci [STEP...] [--list]   CI's steps in order (.ci/run), or the steps named
//! cargo xtask fetch                   the pinned inputs (ci/fetch-inputs.sh)
//! cargo xtask test [ARGS...]          the test command: the test libraries, then every test
//! cargo xtask gpu pack                the GPU bundle, .gpu/bundle.tar.xz
//! cargo xtask gpu run PART...         here, on a GPU: pack, then ci/gpu-all.sh PART...
//! cargo xtask bench [NAME...]         the benchmarks
//! ```
//!
//! The work itself stays in the shell scripts of `ci/` where shell is the natural tool (apt, pip,
//! nvcc, tar); this crate holds the order, the names and the one entry. It depends on nothing but
//! std, so it builds in a few seconds. Exit status: 0, the failing command's status, or 2 for a
//! usage error.

mod ci;
mod gpu;
mod sh;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `cargo xtask help` prints.
const USAGE: &str = "\
usage: cargo xtask <task> [args]

  ci [STEP...] [--list]  CI's steps in order (what .ci/run runs), or only the steps named;
                         --list prints every step's name and what it runs
  fetch                  the pinned inputs: apt, PyPI, crates.io (ci/fetch-inputs.sh)
  test [ARGS...]         the test command: installs the test libraries, then runs every test
                         (ci/test.sh; ARGS go to `cargo test --workspace`)
  gpu pack               builds the GPU bundle, .gpu/bundle.tar.xz, for a GPU machine without Rust
                         (there: bash ci/gpu-all.sh PART...)
  gpu run PART...        on this machine's GPU: packs, then runs the bundle's parts
                         (ci/gpu-all.sh); `gpu run --list` prints the parts
  bench [NAME...]        the benchmarks (default: capi, and dispatch and blas where there is a GPU);
                         `bench --list` prints them
  help                   this text
";

/// A task, parsed from the command line.
#[derive(Debug, PartialEq, Eq)]
enum Task {
    Help,
    /// `--list`, or the steps to run (none: all of them).
    Ci {
        steps: Vec<String>,
        list: bool,
    },
    Fetch,
    Test(Vec<String>),
    GpuPack,
    GpuRun(Vec<String>),
    GpuList,
    Bench(Vec<String>),
    BenchList,
}

/// A command line that names no task or a task wrongly: exit status 2.
#[derive(Debug, PartialEq, Eq)]
struct UsageError(String);

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

fn is_help(a: &str) -> bool {
    matches!(a, "-h" | "--help" | "help")
}

/// Checks that every name is one of `known`, in the words of `what`.
fn check_names(names: &[String], known: &[&str], what: &str) -> Result<(), UsageError> {
    for n in names {
        if n.starts_with('-') {
            return Err(usage(format!("unknown option {n}")));
        }
        if !known.contains(&n.as_str()) {
            return Err(usage(format!(
                "unknown {what} `{n}`; {what}s: {}",
                known.join(" ")
            )));
        }
    }
    Ok(())
}

fn parse(args: &[String]) -> Result<Task, UsageError> {
    let Some((task, rest)) = args.split_first() else {
        return Ok(Task::Help);
    };
    let rest = rest.to_vec();
    if rest.iter().any(|a| matches!(a.as_str(), "-h" | "--help")) && task != "test" {
        return Ok(Task::Help);
    }
    match task.as_str() {
        t if is_help(t) => Ok(Task::Help),
        "ci" => {
            let list = rest.iter().any(|a| a == "--list");
            let steps: Vec<String> = rest.into_iter().filter(|a| a != "--list").collect();
            if list && !steps.is_empty() {
                return Err(usage("ci --list takes no step names"));
            }
            check_names(&steps, &ci::names(), "step")?;
            Ok(Task::Ci { steps, list })
        }
        "fetch" if rest.is_empty() => Ok(Task::Fetch),
        "fetch" => Err(usage("fetch takes no arguments")),
        "test" => Ok(Task::Test(rest)),
        "gpu" => match rest.split_first() {
            Some((sub, more)) if sub == "pack" && more.is_empty() => Ok(Task::GpuPack),
            Some((sub, _)) if sub == "pack" => Err(usage("gpu pack takes no arguments")),
            Some((sub, more)) if sub == "run" => {
                if more.len() == 1 && more[0] == "--list" {
                    return Ok(Task::GpuList);
                }
                if more.is_empty() {
                    return Err(usage(format!(
                        "gpu run needs at least one part; parts: {}",
                        gpu::part_names().join(" ")
                    )));
                }
                check_names(more, &gpu::part_names(), "part")?;
                Ok(Task::GpuRun(more.to_vec()))
            }
            Some((sub, _)) => Err(usage(format!(
                "unknown gpu task `{sub}`; gpu tasks: pack run"
            ))),
            None => Err(usage("gpu needs a task: pack or run")),
        },
        "bench" => {
            if rest.len() == 1 && rest[0] == "--list" {
                return Ok(Task::BenchList);
            }
            check_names(&rest, &gpu::bench_names(), "benchmark")?;
            Ok(Task::Bench(rest))
        }
        other => Err(usage(format!("unknown task `{other}`"))),
    }
}

/// The repository root: this package's parent folder.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent")
        .to_path_buf()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = match parse(&args) {
        Ok(t) => t,
        Err(UsageError(msg)) => {
            eprintln!("xtask: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = repo_root();
    let result = match task {
        Task::Help => {
            print!("{USAGE}");
            Ok(())
        }
        Task::Ci { list: true, .. } => {
            print!("{}", ci::listing());
            Ok(())
        }
        Task::Ci { steps, .. } => ci::run(&root, &steps),
        Task::Fetch => sh::run(&root, &ci::argv(ci::FETCH), &[]),
        Task::Test(args) => {
            let mut argv = ci::argv(ci::TEST);
            argv.extend(args.iter().map(String::as_str));
            sh::run(&root, &argv, &[])
        }
        Task::GpuPack => gpu::pack(&root),
        Task::GpuRun(parts) => gpu::run(&root, &parts),
        Task::GpuList => {
            print!("{}", gpu::part_listing());
            Ok(())
        }
        Task::Bench(names) => gpu::bench(&root, &names),
        Task::BenchList => {
            print!("{}", gpu::bench_listing());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => ExitCode::from(u8::try_from(code).unwrap_or(1).max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Task, UsageError> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn no_task_and_help_print_usage() {
        assert_eq!(p(&[]), Ok(Task::Help));
        assert_eq!(p(&["help"]), Ok(Task::Help));
        assert_eq!(p(&["--help"]), Ok(Task::Help));
        assert_eq!(p(&["ci", "-h"]), Ok(Task::Help));
    }

    #[test]
    fn ci_all_list_and_named_steps() {
        assert_eq!(
            p(&["ci"]),
            Ok(Task::Ci {
                steps: vec![],
                list: false
            })
        );
        assert_eq!(
            p(&["ci", "--list"]),
            Ok(Task::Ci {
                steps: vec![],
                list: true
            })
        );
        assert_eq!(
            p(&["ci", "rustfmt", "import-picture"]),
            Ok(Task::Ci {
                steps: vec!["rustfmt".into(), "import-picture".into()],
                list: false
            })
        );
    }

    #[test]
    fn unknown_step_is_a_usage_error_naming_the_steps() {
        let Err(UsageError(msg)) = p(&["ci", "rustfmt", "nope"]) else {
            panic!("accepted")
        };
        assert!(msg.contains("unknown step `nope`"), "{msg}");
        assert!(msg.contains("rustfmt") && msg.contains("wheel"), "{msg}");
        assert!(p(&["ci", "--list", "rustfmt"]).is_err());
        assert!(p(&["ci", "--frobnicate"]).is_err());
    }

    #[test]
    fn other_tasks() {
        assert_eq!(p(&["fetch"]), Ok(Task::Fetch));
        assert!(p(&["fetch", "x"]).is_err());
        assert_eq!(p(&["test"]), Ok(Task::Test(vec![])));
        // Everything after `test` is cargo test's, options included.
        assert_eq!(
            p(&["test", "--test", "cli"]),
            Ok(Task::Test(vec!["--test".into(), "cli".into()]))
        );
        assert_eq!(p(&["gpu", "pack"]), Ok(Task::GpuPack));
        assert!(p(&["gpu", "pack", "test"]).is_err());
        assert_eq!(
            p(&["gpu", "run", "test", "bench"]),
            Ok(Task::GpuRun(vec!["test".into(), "bench".into()]))
        );
        assert_eq!(p(&["gpu", "run", "--list"]), Ok(Task::GpuList));
        assert!(p(&["gpu", "run"]).is_err());
        assert!(p(&["gpu", "run", "tset"]).is_err());
        assert!(p(&["gpu"]).is_err());
        assert!(p(&["gpu", "unpack"]).is_err());
        assert_eq!(p(&["bench"]), Ok(Task::Bench(vec![])));
        assert_eq!(p(&["bench", "capi"]), Ok(Task::Bench(vec!["capi".into()])));
        assert_eq!(p(&["bench", "--list"]), Ok(Task::BenchList));
        assert!(p(&["bench", "nope"]).is_err());
        assert!(p(&["frobnicate"]).is_err());
    }
}
