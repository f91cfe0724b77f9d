//! `anycuda run -- CMD [ARGS]`: runs a program so that every CUDA library it loads is anycuda's.
//!
//! The program gets `anycuda libdir` first on `LD_LIBRARY_PATH` (what it links or `dlopen`s by
//! soname: `libcuda.so.1`, `libcudart.so.13`, `libnvrtc.so.13`) and that folder's
//! `libcuda.so.1` in `LD_PRELOAD`. Preloading matters for Python: cuda-python's
//! `cuda.pathfinder` takes a library that is already loaded before it searches NVIDIA's pip
//! wheels, and only falls back to the loader's path (where `LD_LIBRARY_PATH` would count) after
//! them; the preloaded `libcuda.so.1` brings `libnvrtc.so.13` and `libcudart.so.13` with it
//! (they are its dependencies), so every one of them is loaded before the program starts, and
//! pathfinder finds anycuda's. anycuda itself, inside the program, still finds NVIDIA's real
//! libraries where cuda.pathfinder would (the wheels of the program's Python, conda, ...):
//! docs/choosing-a-backend.md, "Library search".
//!
//! The command replaces this process (`execvp`): its exit status is the program's.

use clap::ValueEnum;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `--backend`: the value `ANYCUDA_BACKEND` gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunBackend {
    /// NVIDIA CUDA (aliases: nvidia).
    #[value(alias = "nvidia")]
    Cuda,
    /// AMD HIP/ROCm (aliases: rocm, amd).
    #[value(alias = "rocm", alias = "amd")]
    Hip,
    /// The first backend that loads and has a device, CUDA first.
    Auto,
}

impl RunBackend {
    fn env_value(self) -> &'static str {
        match self {
            RunBackend::Cuda => "cuda",
            RunBackend::Hip => "hip",
            RunBackend::Auto => "auto",
        }
    }
}

/// The C-ABI library's file name as cargo builds it.
const LIBRARY_FILE: &str = "libanycuda_capi.so";
/// The name library preloaded: the driver, which needs the runtime and NVRTC.
const PRELOAD: &str = "libcuda.so.1";

/// The built C-ABI library, found as `anycuda libdir` finds it: `ANYCUDA_CAPI_LIBRARY`, else
/// next to this executable.
fn capi_library() -> Result<PathBuf, String> {
    let p = match std::env::var_os(super::libdir::LIBRARY_ENV).filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => {
            let exe =
                std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
            exe.parent()
                .ok_or("this executable has no folder")?
                .join(LIBRARY_FILE)
        }
    };
    if !p.is_file() {
        return Err(format!(
            "anycuda's C-ABI library is not built: {} does not exist (build it: cargo build --release -p anycuda-capi; or set {} to the library)",
            p.display(),
            super::libdir::LIBRARY_ENV
        ));
    }
    p.canonicalize()
        .map_err(|e| format!("resolving {}: {e}", p.display()))
}

/// `first`, then the entries of `old` (split on `seps`) other than `first` and empty ones,
/// joined with `:`: `first` leads exactly once however often `anycuda run` nests.
fn prepend(first: &Path, old: Option<&OsStr>, seps: &[u8]) -> OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let first = first.as_os_str().as_bytes();
    let mut out = first.to_vec();
    if let Some(old) = old {
        for e in old.as_bytes().split(|b| seps.contains(b)) {
            if !e.is_empty() && e != first {
                out.push(b':');
                out.extend_from_slice(e);
            }
        }
    }
    OsString::from_vec(out)
}

/// Runs `anycuda run`: execs `command` with anycuda's C ABI first. Returns only when the
/// program could not be started (127: not found, 126: found but not runnable, as shells say).
///
/// # Errors
/// The C-ABI library is not built, or its folder cannot be made.
pub fn run(backend: Option<RunBackend>, command: Vec<OsString>) -> Result<ExitCode, String> {
    let Some((program, args)) = command.split_first() else {
        return Err("anycuda run: no command given (anycuda run -- CMD [ARGS])".into());
    };
    let lib = capi_library()?;
    let dir = super::libdir::make(&lib)?;
    let ld_path = prepend(&dir, std::env::var_os("LD_LIBRARY_PATH").as_deref(), b":");
    // glibc splits LD_PRELOAD on spaces and colons.
    let preload = prepend(
        &dir.join(PRELOAD),
        std::env::var_os("LD_PRELOAD").as_deref(),
        b": ",
    );
    let mut cmd = std::process::Command::new(program);
    cmd.args(args)
        .env("LD_LIBRARY_PATH", &ld_path)
        .env("LD_PRELOAD", &preload);
    if let Some(b) = backend {
        cmd.env("ANYCUDA_BACKEND", b.env_value());
    }
    log::info!(
        "anycuda run: {} with LD_LIBRARY_PATH={} LD_PRELOAD={}",
        Path::new(program).display(),
        ld_path.to_string_lossy(),
        preload.to_string_lossy()
    );
    let e = cmd.exec();
    eprintln!("anycuda run: {}: {e}", Path::new(program).display());
    let code = if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    };
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::prepend;
    use std::ffi::OsStr;
    use std::path::Path;

    #[test]
    fn the_folder_leads_once() {
        let d = Path::new("/x/anycuda-c-abi");
        assert_eq!(prepend(d, None, b":"), "/x/anycuda-c-abi");
        assert_eq!(prepend(d, Some(OsStr::new("")), b":"), "/x/anycuda-c-abi");
        assert_eq!(
            prepend(d, Some(OsStr::new("/a::/x/anycuda-c-abi:/b")), b":"),
            "/x/anycuda-c-abi:/a:/b"
        );
        assert_eq!(
            prepend(d, Some(OsStr::new("/p/liba.so /p/libb.so")), b": "),
            "/x/anycuda-c-abi:/p/liba.so:/p/libb.so"
        );
    }
}
