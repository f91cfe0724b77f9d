//! CI: the steps, in order, and how they run (`cargo xtask ci`, which `.ci/run` runs).
//!
//! CI runs on a machine like the developers' (2 cores, no GPU). Each step prints its start and
//! the seconds since CI began, so a slow step shows in the log; a failing command ends CI with
//! its exit status.

use std::path::Path;
use std::time::Instant;

use crate::sh::{self, Code};

/// The inputs: apt, PyPI and crates.io, pinned (`cargo xtask fetch`, CI's `inputs` step).
pub const FETCH: &str = "bash ci/fetch-inputs.sh";
/// The test command (`cargo xtask test`, CI's `test` step): the test libraries, then every test.
pub const TEST: &str = "bash ci/test.sh";

/// The environment of every step. Line tables only (file and line in backtraces, no variables or
/// types): CI links some sixty test binaries, twice over for the single-backend steps, and full
/// debug info is most of what the linker writes; the build is otherwise the developers' own.
/// Every step runs the compilers for real, never a replay from the default program cache
/// (ci/test.sh says why); tests/program_cache.rs uses caches of its own.
pub const ENV: &[(&str, &str)] = &[
    ("CI", "true"),
    ("CARGO_TERM_COLOR", "never"),
    ("CARGO_PROFILE_DEV_DEBUG", "line-tables-only"),
    ("ANYCUDA_CACHE_DISABLE", "1"),
];

/// Where the steps marked `cuda_path` find NVRTC and libcudart: the PyPI wheels the inputs step
/// unpacks (relative to the repository root).
pub const CUDA_PATH: &str = ".cache/inputs/cuda/nvidia/cu13";

/// One step of CI.
pub struct Step {
    /// What `cargo xtask ci NAME` runs it by.
    pub name: &'static str,
    /// What the log says at its start.
    pub title: &'static str,
    /// Its commands, in order, from the repository root; arguments split at white space (none
    /// holds any).
    pub cmds: &'static [&'static str],
    /// Variables it sets unless the environment already has them.
    pub env_default: &'static [(&'static str, &'static str)],
    /// Variables it sets.
    pub env: &'static [(&'static str, &'static str)],
    /// Whether CUDA_PATH points at the unpacked CUDA libraries ([`CUDA_PATH`]).
    pub cuda_path: bool,
}

const NO_ENV: &[(&str, &str)] = &[];

const fn step(
    name: &'static str,
    title: &'static str,
    cmds: &'static [&'static str],
    cuda_path: bool,
) -> Step {
    Step {
        name,
        title,
        cmds,
        env_default: NO_ENV,
        env: NO_ENV,
        cuda_path,
    }
}

/// One backend compiled in: clippy checks every target (each test file must build and lint clean
/// with one backend), and the tests that exercise selection, errors, the CLI and the safe layer
/// run. The whole suite runs in the `test` step with both backends; running it again per
/// configuration doubled CI's time and tested nothing more (the other tests name their backend).
/// The library and the command (anycuda-cli, whose backend features forward to the library's)
/// are checked together.
macro_rules! single_backend {
    ($features:literal) => {
        &[
            concat!(
                "cargo clippy -p anycuda -p anycuda-cli --all-targets --locked --no-default-features",
                " --features ",
                $features,
                " -- -D warnings"
            ),
            concat!(
                "cargo test -p anycuda -p anycuda-cli --locked --no-default-features --features ",
                $features,
                " --lib --bins --test selection --test select_override --test errors --test cli",
                " --test api_surface --test core_prog --test core_parity"
            ),
        ]
    };
}

/// CI's steps, in the order CI runs them.
pub const STEPS: &[Step] = &[
    step("rustfmt", "cargo fmt --check", &["cargo fmt --all -- --check"], false),
    step("inputs", "inputs (apt + PyPI + crates.io, pinned)", &[FETCH], false),
    step(
        "codegen",
        "generated code is fresh",
        &["cargo run --quiet --locked -p anycuda-codegen -- --check"],
        false,
    ),
    // With anycuda's `half` feature (core::Blas's f16/bf16 GEMMs, their GPU tests); the
    // single-backend steps lint every target without it.
    step(
        "clippy",
        "clippy -D warnings (anycuda/half on)",
        &["cargo clippy --workspace --all-targets --locked --features anycuda/half -- -D warnings"],
        false,
    ),
    Step {
        env: &[("RUSTDOCFLAGS", "-D warnings")],
        ..step(
            "rustdoc",
            "rustdoc -D warnings (broken intra-doc links included); README and docs/ links resolve",
            &[
                "cargo doc --workspace --no-deps --locked --features anycuda/half",
                "bash ci/doc-links.sh",
            ],
            false,
        )
    },
    step(
        "import-picture",
        "import picture (layers only use the ones below)",
        &["bash ci/import-picture.sh"],
        false,
    ),
    step(
        "single-cuda",
        "single backend: backend-cuda (clippy on every target; selection, errors, CLI, core tests)",
        single_backend!("backend-cuda"),
        true,
    ),
    step(
        "single-hip",
        "single backend: backend-hip (clippy on every target; selection, errors, CLI, core tests)",
        single_backend!("backend-hip"),
        true,
    ),
    step("test", "tests (both backends): the test command, cargo xtask test", &[TEST], true),
    step(
        "capi",
        "C ABI (libcuda/libcudart/libnvrtc from C, both backends)",
        &["bash ci/capi-test.sh"],
        true,
    ),
    step(
        "fuzz-capi",
        "C ABI under a differential fuzzer (both backends, no device; every code a member of its enum)",
        &["bash ci/fuzz-capi/run-ci.sh"],
        true,
    ),
    // CI's share of the fuzzer: 4000 cases per compiler (the seed is fixed, so every run replays
    // the same cases). A deeper run is one variable away: ANYCUDA_FUZZ_CASES=15000 bash ci/fuzz-rtc.sh 6.4
    Step {
        env_default: &[("ANYCUDA_FUZZ_CASES", "4000"), ("ANYCUDA_FUZZ_ROCM_CASES", "2000")],
        ..step(
            "fuzz-rtc",
            "fuzz: NVRTC API on NVRTC 13.5 + hipRTC 5.2.3 (4000 cases each), then hipRTC 6.4.3 (2000), in child processes",
            &["bash ci/fuzz-rtc.sh 6.4"],
            true,
        )
    },
    step("cudarc", "cudarc facade", &["bash ci/cudarc-ci.sh"], true),
    step(
        "rocm",
        "HIP tests on ROCm 5.7.1 and 6.4.3 (5.2.3, the system ROCm, ran in the test step)",
        &["bash ci/rocm/test-all.sh"],
        true,
    ),
    // After the HIP tests, whose build of the anycuda binary and library this step reuses.
    step(
        "candle",
        "candle 0.11.1 (cuda) checked on the facade, anycuda nvcc over nvcc 13.0; its PTX's bundles = the corpus compiled above",
        &["bash ci/candle-ci.sh"],
        true,
    ),
    step(
        "rccl",
        "RCCL 2.13 loaded live (trixie's glibc through ci/rocm.sh 5.7)",
        &["bash ci/nccl-rccl-test.sh"],
        true,
    ),
    // After the candle step, whose release build of the anycuda binary the wheel's maturin build
    // reuses.
    step(
        "wheel",
        "pip install anycuda: the wheel (maturin) built, installed in a fresh venv and run",
        &["bash python/test-wheel.sh"],
        true,
    ),
];

/// Every step's name, in order.
pub fn names() -> Vec<&'static str> {
    STEPS.iter().map(|s| s.name).collect()
}

/// `cargo xtask ci --list`: one line per step, its name then its commands.
pub fn listing() -> String {
    let width = STEPS.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for s in STEPS {
        out.push_str(&format!("{:width$}  {}\n", s.name, s.cmds.join(" && ")));
    }
    out
}

/// The environment of `s`'s commands: [`ENV`], CUDA_PATH, the step's own.
fn env_of(root: &Path, s: &Step) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = ENV
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    if s.cuda_path {
        env.push((
            "CUDA_PATH".into(),
            root.join(CUDA_PATH).display().to_string(),
        ));
    }
    for (k, v) in s.env_default {
        if std::env::var_os(k).is_none() {
            env.push((k.to_string(), v.to_string()));
        }
    }
    env.extend(s.env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    env
}

/// A command line's arguments.
pub fn argv(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Runs the steps named (none: every step), in the order given, stopping at the first failure.
pub fn run(root: &Path, names: &[String]) -> Result<(), Code> {
    let start = Instant::now();
    let secs = || start.elapsed().as_secs();
    let steps: Vec<&Step> = if names.is_empty() {
        STEPS.iter().collect()
    } else {
        names
            .iter()
            .filter_map(|n| STEPS.iter().find(|s| s.name == n))
            .collect()
    };
    let mut result = Ok(());
    'steps: for s in steps {
        println!("\n==== [{} s] {}: {}", secs(), s.name, s.title);
        let env = env_of(root, s);
        for cmd in s.cmds {
            if let Err(code) = sh::run(root, &argv(cmd), &env) {
                result = Err(code);
                break 'steps;
            }
        }
    }
    println!(
        "\n==== [{} s] end (exit {})",
        secs(),
        result.err().unwrap_or(0)
    );
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_listed_in_order() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "duplicate step names");
        let listing = listing();
        let listed: Vec<&str> = listing.lines().map(|l| argv(l)[0]).collect();
        assert_eq!(listed, names);
        assert_eq!(names.first(), Some(&"rustfmt"));
        assert_eq!(names.last(), Some(&"wheel"));
    }

    #[test]
    fn the_test_and_inputs_steps_are_the_test_and_fetch_commands() {
        let find = |n: &str| STEPS.iter().find(|s| s.name == n).unwrap();
        assert_eq!(find("test").cmds, &[TEST]);
        assert_eq!(find("inputs").cmds, &[FETCH]);
    }

    #[test]
    fn every_script_a_step_runs_exists() {
        let root = crate::repo_root();
        for s in STEPS {
            for cmd in s.cmds.iter().map(|c| argv(c)) {
                if cmd[0] == "bash" {
                    assert!(
                        root.join(cmd[1]).is_file(),
                        "step {}: {} missing",
                        s.name,
                        cmd[1]
                    );
                }
            }
        }
    }

    #[test]
    fn cuda_path_from_the_single_backend_steps_on() {
        // As before: the steps from the single-backend builds on find CUDA through CUDA_PATH.
        let first = STEPS.iter().position(|s| s.cuda_path).unwrap();
        assert_eq!(STEPS[first].name, "single-cuda");
        assert!(STEPS[first..].iter().all(|s| s.cuda_path));
    }

    #[test]
    fn every_step_gets_ci_s_environment() {
        let root = crate::repo_root();
        for s in STEPS {
            let env = env_of(&root, s);
            let get = |k: &str| {
                env.iter()
                    .rev()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.as_str())
            };
            assert_eq!(get("CI"), Some("true"), "{}", s.name);
            assert_eq!(
                get("CARGO_PROFILE_DEV_DEBUG"),
                Some("line-tables-only"),
                "{}",
                s.name
            );
            assert_eq!(get("ANYCUDA_CACHE_DISABLE"), Some("1"), "{}", s.name);
            let cuda = get("CUDA_PATH").map(|p| p.ends_with(CUDA_PATH));
            assert_eq!(cuda, s.cuda_path.then_some(true), "{}", s.name);
        }
        let rustdoc = STEPS.iter().find(|s| s.name == "rustdoc").unwrap();
        assert!(env_of(&root, rustdoc).contains(&("RUSTDOCFLAGS".into(), "-D warnings".into())));
    }

    #[test]
    fn dot_ci_run_is_the_entry() {
        let run = std::fs::read_to_string(crate::repo_root().join(".ci/run")).unwrap();
        assert!(
            run.contains("exec cargo xtask ci"),
            ".ci/run no longer runs cargo xtask ci"
        );
    }
}
