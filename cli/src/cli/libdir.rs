//! `anycuda libdir`: the folder that makes anycuda's C ABI the program's `libcuda.so.1`,
//! `libcudart.so.13` and `libnvrtc.so.13`, and the CUDA libraries' `libcublas.so.13`,
//! `libcublasLt.so.13`, `libcurand.so.10`, `libcufft.so.12`, `libnccl.so.2` and `libnvJitLink.so.13`, to link
//! against (`cc app.c -L"$(anycuda libdir)" -lcuda -lcudart -lcublas`) and to run with
//! (`LD_LIBRARY_PATH="$(anycuda libdir)"`).
//!
//! Each is a name library ([`super::elf_shim`]): its own soname, NVIDIA's version
//! node where NVIDIA's library has one (`libcudart.so.13`, `libnvrtc.so.13`), a symbol for every
//! function of its API that the C-ABI library exports (for the linker; the loader passes over
//! it), and the one C-ABI library (`libanycuda_capi.so`, a symlink in the same folder) as its
//! dependency, where the loader finds every one of those functions at run time. So the
//! APIs share one anycuda while each is found under its own name, and a program linked against
//! the folder records NVIDIA's sonames and versions (`cudaMalloc@libcudart.so.13`), never
//! `libanycuda_capi.so`: the same binary runs on NVIDIA's libraries. The development names
//! (`libcuda.so`, ...) are symlinks to the name libraries, for `-lcuda`.
//!
//! Which names each carries: the C ABI's generated export lists, compiled into this binary
//! ([`exports`]), less any name the C-ABI library at hand does not define (an older build), so
//! that a program using such a name fails to link, rather than to start.
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
/// The name libraries the folder holds: (file name = soname, version node, extra needs, the
/// API whose exports it defines: `driver`, `runtime`, `nvrtc` or a library's module name
/// (`cublas`), as the export lists name them).
/// `libcuda.so.1` also needs the other two, so that loading the driver (what cuda-python does
/// first) makes `libnvrtc.so.13` and `libcudart.so.13` loaded libraries: cuda-python's
/// `cuda.pathfinder` takes an already-loaded library before it searches NVIDIA's wheels.
/// NVIDIA's `libcuda.so.1` defines no version; its `libcudart.so.13` and `libnvrtc.so.13`
/// define every export at the version named as the file.
const SHIMS: &[(&str, Option<&str>, &[&str], &str)] = &[
    ("libcudart.so.13", Some("libcudart.so.13"), &[], "runtime"),
    ("libnvrtc.so.13", Some("libnvrtc.so.13"), &[], "nvrtc"),
    (
        "libcuda.so.1",
        None,
        &["libnvrtc.so.13", "libcudart.so.13"],
        "driver",
    ),
    // The CUDA libraries (docs/c-abi.md, "The CUDA libraries"): each NVIDIA's soname and
    // version node (NCCL defines none). NVIDIA's `libcublas.so.13` needs `libcublasLt.so.13`.
    (
        "libcublasLt.so.13",
        Some("libcublasLt.so.13"),
        &[],
        "cublaslt",
    ),
    (
        "libcublas.so.13",
        Some("libcublas.so.13"),
        &["libcublasLt.so.13"],
        "cublas",
    ),
    ("libcurand.so.10", Some("libcurand.so.10"), &[], "curand"),
    ("libcufft.so.12", Some("libcufft.so.12"), &[], "cufft"),
    ("libnccl.so.2", None, &[], "nccl"),
    (
        "libnvJitLink.so.13",
        Some("libnvJitLink.so.13"),
        &[],
        "nvjitlink",
    ),
    // NVML (`libnvidia-ml.so.1`, part of NVIDIA's driver): no symbol version, as NVIDIA's
    // defines none (ci/capi-gpu/nvml-exports.sh checks that on the GPU machine).
    ("libnvidia-ml.so.1", None, &[], "nvml"),
    (
        "libcusparse.so.12",
        Some("libcusparse.so.12"),
        &[],
        "cusparse",
    ),
];
/// anycuda-capi's generated export lists (`capi/src/generated/lists.rs`), compiled in as text:
/// the anycuda crate cannot depend on anycuda-capi (that crate depends on it), and the lists
/// are plain data. [`exports`] reads them.
/// Each CUDA library's generated exports end with its list (`CUBLAS_EXPORTS`), read the same way.
const CAPI_LISTS: &[&str] = &[
    include_str!("../../../capi/src/generated/lists.rs"),
    include_str!("../../../capi/src/generated/cublas.rs"),
    include_str!("../../../capi/src/generated/cublaslt.rs"),
    include_str!("../../../capi/src/generated/curand.rs"),
    include_str!("../../../capi/src/generated/cufft.rs"),
    include_str!("../../../capi/src/generated/nccl.rs"),
    include_str!("../../../capi/src/generated/nvjitlink.rs"),
    include_str!("../../../capi/src/generated/nvml.rs"),
    include_str!("../../../capi/src/generated/cusparse.rs"),
];

/// The entries of the list `pub static NAME: &[&str] = &[...];` in [`CAPI_LISTS`], in order;
/// empty where there is no such list.
fn capi_list(name: &str) -> Vec<&'static str> {
    let head = format!("pub static {name}: &[&str] = &[");
    let Some((text, at)) = CAPI_LISTS
        .iter()
        .find_map(|t| t.find(&head).map(|at| (*t, at)))
    else {
        return Vec::new();
    };
    let body = &text[at + head.len()..];
    let body = &body[..body.find("\n];").unwrap_or(0)];
    body.lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix("\","))
        .collect()
}

/// Every function the C ABI exports for `api` (`driver`, `runtime`, `nvrtc`, `cublas`, ...): its generated
/// list (with the per-thread names), the names it passes on to NVIDIA's library (older ABIs,
/// interop, the profiler) and the extra exports (nvcc's hidden entry points) of that module.
fn exports(api: &str) -> Vec<&'static str> {
    let mut names = capi_list(&format!("{}_EXPORTS", api.to_uppercase()));
    names.extend(capi_list(&format!("{}_PASSTHROUGH", api.to_uppercase())));
    names.extend(capi_list("EXTRA_EXPORTS").into_iter().filter_map(|e| {
        let (name, module) = e.split_once(' ')?;
        (module == api).then_some(name)
    }));
    names
}

/// The development names (`-lcuda`), each a symlink to its name library.
const DEV_LINKS: &[(&str, &str)] = &[
    ("libcuda.so", "libcuda.so.1"),
    ("libcudart.so", "libcudart.so.13"),
    ("libnvrtc.so", "libnvrtc.so.13"),
    ("libcublas.so", "libcublas.so.13"),
    ("libcublasLt.so", "libcublasLt.so.13"),
    ("libcurand.so", "libcurand.so.10"),
    ("libcufft.so", "libcufft.so.12"),
    ("libnccl.so", "libnccl.so.2"),
    ("libnvJitLink.so", "libnvJitLink.so.13"),
    ("libnvidia-ml.so", "libnvidia-ml.so.1"),
    ("libcusparse.so", "libcusparse.so.12"),
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
    // What the library at hand defines; `None` where it cannot be read as a shared object.
    let defined = super::elf_shim::defined_functions(lib);
    for (name, version, extra, api) in SHIMS {
        let needed: Vec<&str> = std::iter::once(LIBRARY_FILE)
            .chain(extra.iter().copied())
            .collect();
        let (functions, missing): (Vec<&str>, Vec<&str>) = exports(api)
            .into_iter()
            .partition(|f| defined.as_ref().is_none_or(|d| d.contains(*f)));
        if !missing.is_empty() {
            const SHOWN: usize = 8;
            let more = match missing.len().saturating_sub(SHOWN) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            eprintln!(
                "anycuda libdir: {} does not define {} of the {} functions anycuda exports for {name} (an older build?), so {name} leaves them out: {}{more}",
                lib.display(),
                missing.len(),
                missing.len() + functions.len(),
                missing[..missing.len().min(SHOWN)].join(", ")
            );
        }
        let bytes = super::elf_shim::build(&super::elf_shim::Shim {
            soname: name,
            needed: &needed,
            runpath: Some("$ORIGIN"),
            version: *version,
            functions: &functions,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The compiled-in lists are read whole: each API's count as docs/c-abi.md gives it (at
    /// least), its plain, versioned and per-thread names, no name of another API.
    #[test]
    fn the_export_lists_are_read_for_each_api() {
        let driver = exports("driver");
        let runtime = exports("runtime");
        let nvrtc = exports("nvrtc");
        assert!(driver.len() >= 586, "{}", driver.len());
        assert!(runtime.len() >= 411, "{}", runtime.len());
        assert!(nvrtc.len() >= 29, "{}", nvrtc.len());
        for n in [
            "cuInit",
            "cuMemAlloc_v2",
            "cuMemcpyHtoD_v2_ptds",
            "cuGetProcAddress",
        ] {
            assert!(driver.contains(&n), "{n}");
        }
        for n in ["cudaMalloc", "cudaMemcpy_ptds", "__cudaRegisterFatBinary"] {
            assert!(runtime.contains(&n), "{n}");
        }
        assert!(nvrtc.contains(&"nvrtcCompileProgram"));
        let ident = |n: &&str| n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        assert!(driver.iter().all(|n| ident(n) && !n.starts_with("cuda")));
        assert!(runtime
            .iter()
            .all(|n| ident(n) && n.trim_start_matches('_').starts_with("cuda")));
        assert!(nvrtc.iter().all(|n| ident(n) && n.starts_with("nvrtc")));
        // The CUDA libraries, each from its own generated file, each only its own prefix.
        for (api, prefix, at_least, has) in [
            ("cublas", "cublas", 500, "cublasSgemm_v2"),
            ("cublaslt", "cublasLt", 50, "cublasLtMatmul"),
            ("curand", "curand", 25, "curandGenerateUniform"),
            ("cufft", "cufft", 30, "cufftExecC2C"),
            ("nccl", "nccl", 60, "ncclAllReduce"),
            ("nvjitlink", "nvJitLink", 12, "nvJitLinkCreate"),
            ("cusparse", "cusparse", 200, "cusparseSpMV"),
        ] {
            let names = exports(api);
            assert!(names.len() >= at_least, "{api}: {}", names.len());
            assert!(names.contains(&has), "{api}: {has}");
            assert!(
                // nvJitLink's versioned names (`__nvJitLinkCreate_13_5`) included.
                names
                    .iter()
                    .all(|n| ident(n) && n.trim_start_matches('_').starts_with(prefix)),
                "{api}"
            );
        }
        assert!(!exports("cublas").iter().any(|n| n.starts_with("cublasLt")));
        assert!(exports("nothing").is_empty());
    }

    /// NVML's name library carries the NVML catalogue (tests/nvml/exports.txt), nothing else.
    #[test]
    fn nvml_s_list_is_read() {
        let nvml = exports("nvml");
        assert!(nvml.len() >= 400, "{}", nvml.len());
        for n in [
            "nvmlInit_v2",
            "nvmlInit",
            "nvmlDeviceGetPciInfo_v3",
            "nvmlErrorString",
        ] {
            assert!(nvml.contains(&n), "{n}");
        }
        assert!(nvml.iter().all(|n| n.starts_with("nvml")));
        assert!(SHIMS
            .iter()
            .any(|s| s.0 == "libnvidia-ml.so.1" && s.1.is_none()));
    }
}
