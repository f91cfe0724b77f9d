//! What a backend lacks, said once and short, with how to get it.
//!
//! A library that was not found carries every path tried ([`LoadError::NotFound`]): dozens of
//! paths, which `demo` and `info` used to print once per mention. Here a missing library is one
//! phrase (`NVRTC (libnvrtc) not found (24 places tried)`) and one way to get it; the paths are
//! in `anycuda info --verbose` (and `--json`).

use anycuda::{LibraryReport, LibraryRole, LoadError, SelectError, Selected};

/// The PyPI packages the project's CUDA inputs come from (`ci/fetch-inputs.sh` pins 13.5.37);
/// major 13, whose `nvidia/cu13/lib/*.so.13` the library search finds in site-packages.
const NVRTC_WHEEL: &str = "nvidia-cuda-nvrtc==13.*";
const RUNTIME_WHEEL: &str = "nvidia-cuda-runtime==13.*";

/// `e` in one short phrase: for a library that was not found, its name and how many places
/// were tried; any other load error as it is (those name one file and are short).
pub fn short(e: &LoadError) -> String {
    match e {
        LoadError::NotFound { library, tried } => match tried.len() {
            1 => format!("{library} not found (1 place tried)"),
            n => format!("{library} not found ({n} places tried)"),
        },
        other => other.to_string(),
    }
}

/// `pip install PACKAGE`, in a form whose result the `anycuda` command finds: it searches the
/// site-packages of `VIRTUAL_ENV` and `CONDA_PREFIX` (and `ANYCUDA_SITE_PACKAGES`), not the
/// user's or the system's, so outside an environment the command makes one first.
fn pip(package: &str) -> String {
    let in_env = ["VIRTUAL_ENV", "CONDA_PREFIX", "ANYCUDA_SITE_PACKAGES"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if in_env {
        format!("pip install '{package}'")
    } else {
        format!("python3 -m venv .venv && . .venv/bin/activate && pip install '{package}'")
    }
}

/// How to get the library of `role` when it was not found: the command, or what the machine
/// needs when no command can get it (NVIDIA's driver).
pub fn hint(role: LibraryRole) -> String {
    match role {
        LibraryRole::Driver => {
            "the machine needs NVIDIA's driver (libcuda.so.1 comes with it, not with pip or the CUDA toolkit) and an NVIDIA GPU".into()
        }
        LibraryRole::Runtime => pip(RUNTIME_WHEEL),
        LibraryRole::Nvrtc => pip(NVRTC_WHEEL),
        LibraryRole::Hip => {
            "install ROCm (Debian/Ubuntu: sudo apt install libamdhip64-5 libhiprtc-builtins5; or AMD's ROCm packages)".into()
        }
        LibraryRole::Hiprtc => {
            "install ROCm's hipRTC (Debian's libhiprtc6 libhiprtc-builtins6 for ROCm 6, or AMD's ROCm packages)".into()
        }
    }
}

/// `short(e)`, followed by how to get the library when it was not found.
pub fn with_hint(role: LibraryRole, e: &LoadError) -> String {
    match e {
        LoadError::NotFound { .. } => format!("{}: {}", short(e), hint(role)),
        _ => short(e),
    }
}

/// The first of a backend's libraries that failed with `e`: hipRTC inside a libamdhip64 that
/// is missing fails with libamdhip64's error, whose hint is HIP's, not hipRTC's.
pub fn first_with(libs: &[LibraryReport], e: &LoadError) -> Option<LibraryRole> {
    libs.iter()
        .find(|l| l.status.as_ref().err() == Some(e))
        .map(|l| l.role)
}

/// [`with_hint`] for one of a backend's libraries, `libs[i]`; one that failed with an earlier
/// library's error says so instead of repeating the hint.
pub fn library_line(libs: &[LibraryReport], i: usize, e: &LoadError) -> String {
    match first_with(libs, e) {
        Some(first) if libs.get(i).is_some_and(|l| l.role != first) => {
            format!("{} (as {first} above)", short(e))
        }
        _ => with_hint(libs[i].role, e),
    }
}

/// The active backend's choice without the library searches the reason may hold: the auto
/// choice without a GPU names each backend's failure (every path tried) in its reason, and the
/// demo and `info` say those per backend, once.
pub fn selected(s: &Selected) -> String {
    let r = &s.reason;
    if let (Some((source, _)), Some(i)) = (r.split_once(": no GPU found ("), r.rfind("); ")) {
        return format!("{source}: no GPU found; {}", &r[i + 3..]);
    }
    r.clone()
}

/// A selection error without the library searches: which backends could not be used; each
/// backend's own report says why.
pub fn select_error(e: &SelectError) -> String {
    match e {
        SelectError::NothingUsable(list) => {
            let kinds: Vec<String> = list.iter().map(|(k, _)| k.to_string()).collect();
            format!("no usable GPU backend ({}: see below)", kinds.join(", "))
        }
        other => other.to_string(),
    }
}
