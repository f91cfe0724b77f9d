//! `anycuda libdir`: the folder that makes anycuda's C ABI the program's `libcuda.so.1`,
//! `libcudart.so.13` and `libnvrtc.so.13` (`LD_LIBRARY_PATH="$(anycuda libdir)"`).
//!
//! Each of the three is a name library ([`super::elf_shim`]): no code, its own soname, and a
//! dependency on the one C-ABI library (`libanycuda_capi.so`, a symlink in the same folder), so
//! the three APIs share one anycuda while each is found under its own name, and NVIDIA's version
//! nodes (`libcudart.so.13`, `libnvrtc.so.13`) are defined where programs linked against NVIDIA's
//! libraries look for them. The development names (`libcuda.so`, ...) are symlinks to them, for
//! linking with `-lcuda`.
//!
//! `libcudart.so.12` is no name library but a symlink to `libanycuda_cudart12.so` (crate
//! `anycuda-cudart12`, built next to the C-ABI library): CUDA 12's runtime ABI differs from 13's,
//! so its exports are a library of their own, which defines NVIDIA's version node itself and
//! calls into the C-ABI library (docs/c-abi.md, "CUDA 12 programs").

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The environment variable naming the C-ABI library explicitly.
pub const LIBRARY_ENV: &str = "ANYCUDA_CAPI_LIBRARY";
/// The C-ABI library's file name as cargo builds it.
const LIBRARY_FILE: &str = "libanycuda_capi.so";
/// The CUDA 12 runtime library's file name as cargo builds it (next to the C-ABI library).
const CUDART12_FILE: &str = "libanycuda_cudart12.so";
/// The soname it serves.
const CUDART12_SONAME: &str = "libcudart.so.12";
/// The folder's name, next to the library.
const FOLDER: &str = "anycuda-c-abi";
/// The name libraries the folder holds: (file name = soname, version node, extra needs).
/// `libcuda.so.1` also needs the other two, so that loading the driver (what cuda-python does
/// first) makes `libnvrtc.so.13` and `libcudart.so.13` loaded libraries: cuda-python's
/// `cuda.pathfinder` takes an already-loaded library before it searches NVIDIA's wheels.
const SHIMS: &[(&str, Option<&str>, &[&str])] = &[
    ("libcudart.so.13", Some("libcudart.so.13"), &[]),
    ("libnvrtc.so.13", Some("libnvrtc.so.13"), &[]),
    ("libcuda.so.1", None, &["libnvrtc.so.13", "libcudart.so.13"]),
];
/// The development names (`-lcuda`), each a symlink to its name library.
const DEV_LINKS: &[(&str, &str)] = &[
    ("libcuda.so", "libcuda.so.1"),
    ("libcudart.so", "libcudart.so.13"),
    ("libnvrtc.so", "libnvrtc.so.13"),
];

/// The built C-ABI library: `ANYCUDA_CAPI_LIBRARY`, else next to this executable (cargo puts
/// `target/<profile>/libanycuda_capi.so` beside `target/<profile>/anycuda`).
fn library() -> Result<PathBuf, String> {
    let p = match std::env::var_os(LIBRARY_ENV).filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => {
            let exe =
                std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
            let dir = exe.parent().ok_or("this executable has no folder")?;
            dir.join(LIBRARY_FILE)
        }
    };
    if !p.is_file() {
        return Err(format!(
            "anycuda's C-ABI library is not built: {} does not exist (build it: cargo build --release -p anycuda-capi; or set {LIBRARY_ENV} to the library)",
            p.display()
        ));
    }
    p.canonicalize()
        .map_err(|e| format!("resolving {}: {e}", p.display()))
}

/// Makes `dir/name` a symlink to `target`, atomically (a temporary link renamed over it), and
/// leaves a link that is already right alone.
fn link(dir: &Path, name: &str, target: &Path) -> Result<(), String> {
    let at = dir.join(name);
    if std::fs::read_link(&at).is_ok_and(|t| t == target) {
        return Ok(());
    }
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)
        .map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &at).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("creating {}: {e}", at.display())
    })
}

/// Writes `dir/name` with `bytes`, atomically (a temporary file renamed over it), and leaves a
/// file that already holds them alone.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let at = dir.join(name);
    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_file())
        && std::fs::read(&at).is_ok_and(|b| b == bytes)
    {
        return Ok(());
    }
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &at).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("creating {}: {e}", at.display())
    })
}

/// Fills `dir`: the C-ABI library's link, the name libraries, the development links.
fn fill(dir: &Path, lib: &Path) -> Result<(), String> {
    link(dir, LIBRARY_FILE, lib)?;
    for (name, version, extra) in SHIMS {
        let needed: Vec<&str> = std::iter::once(LIBRARY_FILE)
            .chain(extra.iter().copied())
            .collect();
        let bytes = super::elf_shim::build(&super::elf_shim::Shim {
            soname: name,
            needed: &needed,
            runpath: Some("$ORIGIN"),
            version: *version,
        });
        write(dir, name, &bytes)?;
    }
    for (name, to) in DEV_LINKS {
        link(dir, name, Path::new(to))?;
    }
    // CUDA 12's runtime, where it was built (`cargo build -p anycuda-cudart12`).
    let cudart12 = lib.with_file_name(CUDART12_FILE);
    if cudart12.is_file() {
        link(dir, CUDART12_FILE, &cudart12)?;
        link(dir, CUDART12_SONAME, Path::new(CUDART12_FILE))?;
    }
    Ok(())
}

/// Creates (idempotently) the folder for `lib` and returns it: next to the library, or, where
/// that folder is not writable, in the user's cache folder.
pub fn make(lib: &Path) -> Result<PathBuf, String> {
    let beside = lib.parent().map(|d| d.join(FOLDER));
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|c| c.join("anycuda").join(FOLDER));
    let mut errors = Vec::new();
    for dir in beside.into_iter().chain(cache) {
        let made = std::fs::create_dir_all(&dir)
            .map_err(|e| format!("creating {}: {e}", dir.display()))
            .and_then(|()| fill(&dir, lib));
        match made {
            Ok(()) => return Ok(dir),
            Err(e) => errors.push(e),
        }
    }
    Err(errors.join("; "))
}

/// Runs `anycuda libdir`.
///
/// # Errors
/// The library is not built, or no folder could be written.
pub fn run() -> Result<ExitCode, String> {
    let lib = library()?;
    let dir = make(&lib)?;
    println!("{}", dir.display());
    Ok(ExitCode::SUCCESS)
}
