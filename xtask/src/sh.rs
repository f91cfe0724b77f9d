//! Running commands from the repository root, and what their exit status becomes.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// A failed command's exit status, as the shell reports it (a signal N is 128 + N).
pub type Code = i32;

fn code_of(status: ExitStatus) -> Code {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

fn command(root: &Path, argv: &[&str], env: &[(String, String)]) -> Command {
    let mut c = Command::new(argv[0]);
    c.args(&argv[1..]).current_dir(root);
    c.envs(env.iter().map(|(k, v)| (k, v)));
    c
}

fn spawn_failed(argv: &[&str], e: std::io::Error) -> Code {
    eprintln!("xtask: cannot run {}: {e}", argv[0]);
    127
}

/// Runs `argv` in `root` with `env` added, output to ours; Err(its exit status) if it fails.
pub fn run(root: &Path, argv: &[&str], env: &[(String, String)]) -> Result<(), Code> {
    let status = command(root, argv, env)
        .status()
        .map_err(|e| spawn_failed(argv, e))?;
    match code_of(status) {
        0 => Ok(()),
        code => Err(failed(argv, code)),
    }
}

/// Runs `argv` in `root` with its output thrown away (stderr kept).
pub fn run_quiet(root: &Path, argv: &[&str]) -> Result<(), Code> {
    let status = command(root, argv, &[])
        .stdout(Stdio::null())
        .status()
        .map_err(|e| spawn_failed(argv, e))?;
    match code_of(status) {
        0 => Ok(()),
        code => Err(failed(argv, code)),
    }
}

/// Runs `argv` in `root` and returns its standard output, trimmed.
pub fn output(root: &Path, argv: &[&str]) -> Result<String, Code> {
    let out = command(root, argv, &[])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| spawn_failed(argv, e))?;
    match code_of(out.status) {
        0 => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
        code => Err(failed(argv, code)),
    }
}

/// Whether `argv` runs and exits 0, every output thrown away (a probe such as `nvidia-smi -L`).
pub fn succeeds(argv: &[&str]) -> bool {
    Command::new(argv[0])
        .args(&argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Says which command failed (a script deep in `gpu pack` may fail without a word) and passes
/// its exit status on.
fn failed(argv: &[&str], code: Code) -> Code {
    eprintln!("xtask: `{}` failed (exit {code})", argv.join(" "));
    code
}
