//! NVML's vocabulary: types and values of the pinned `nvml.h`, the function catalogue, the
//! function-pointer table, the [`Nvml`] trait, errors and library search.
//!
//! NVML (`libnvidia-ml.so.1`) is NVIDIA's management library, part of the driver: frameworks
//! and schedulers find, name and mask GPUs through it. It is optional and loaded at run time.
//! Every status is a member of NVIDIA's `nvmlReturn_t`: a process without the library gets
//! [`nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND`] from every call (NVML's own code for it, so
//! anycuda invents none), an entry point the loaded library lacks
//! [`nvmlReturn_t::NVML_ERROR_FUNCTION_NOT_FOUND`] (NVML's code for an older library).
//!
//! Names: the catalogue holds every function of `nvml.h` under the name libnvidia-ml exports,
//! the versioned ones (`nvmlInit_v2`, `nvmlDeviceGetPciInfo_v3`, which the header's plain names
//! are `#define`d to) and the older ABIs' (`nvmlInit`, `nvmlDeviceGetCount`).

use crate::enums::CudaEnum;
use crate::error::LoadError;
use crate::loader::{required, Loaded, Search};
use core::ffi::{c_char, CStr};
use std::cell::Cell;
use std::ffi::CString;
use std::sync::OnceLock;

#[path = "generated/nvml.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/nvml_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// The text [`nvmlErrorString`](Nvml::nvmlErrorString) answers where anycuda answers it (the
/// HIP backend; no library): the description `nvml.h` gives the code (its doc comment), or
/// `"Unknown Error"` for a code the header does not name. A static, NUL-terminated string: never
/// null, whatever the code. NVIDIA's library, where it answers, has its own shorter wording.
pub fn error_string(result: nvmlReturn_t) -> *const c_char {
    static TEXTS: OnceLock<Vec<(i64, CString)>> = OnceLock::new();
    static UNKNOWN: &CStr = c"Unknown Error";
    let texts = TEXTS.get_or_init(|| {
        nvmlReturn_t::CONSTANTS
            .iter()
            .filter_map(|c| {
                // The header's trailing comments (`//!< ...`) keep their marker.
                let d = c.description.trim_start_matches("!<").trim();
                let text = if d.is_empty() { c.name } else { d };
                Some((c.value, CString::new(text.replace('\0', " ")).ok()?))
            })
            .collect()
    });
    let v = result.to_i64();
    texts
        .iter()
        .find(|(k, _)| *k == v)
        .map_or(UNKNOWN.as_ptr(), |(_, s)| s.as_ptr())
}

thread_local! {
    /// Why the calling thread's last NVML call answered `NVML_ERROR_NOT_SUPPORTED` from anycuda.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Records `why` as the calling thread's reason and answers `NVML_ERROR_NOT_SUPPORTED` (what a
/// backend returns for a function it does not serve; logged at debug level, since schedulers
/// probe many functions).
pub fn refuse(why: &'static str) -> nvmlReturn_t {
    log::debug!("anycuda NVML: {why}");
    LAST.with(|l| l.set(Some(why)));
    nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED
}

/// Why the calling thread's last NVML call answered `code`, when `code` is
/// [`nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED`] and anycuda gave that answer (a function the HIP
/// backend does not serve). `None` for any other code, or when no call on this thread was
/// refused by anycuda.
pub fn not_supported_reason(code: nvmlReturn_t) -> Option<&'static str> {
    if code != nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED {
        return None;
    }
    LAST.with(Cell::get)
}

/// NVIDIA's NVML: `ANYCUDA_NVML_LIBRARY` (an exact file), else the soname through the loader
/// (it is the driver's library: no wheel or toolkit root ships a working one; the toolkit's
/// `stubs/libnvidia-ml.so` only links).
pub const NVML_SEARCH: Search = Search {
    library: "NVML (libnvidia-ml)",
    explicit_env: "ANYCUDA_NVML_LIBRARY",
    sonames: &["libnvidia-ml.so.1"],
    root_envs: &[],
    lib_dirs: &[],
    default_roots: &[],
};

/// AMD's rocm-smi, NVML's counterpart on the HIP backend: `ANYCUDA_ROCM_SMI_LIBRARY` (an exact
/// file), else the sonames, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`. `librocm_smi64.so.1`
/// (ROCm 5.x, Debian's packages) is the one tested; the later sonames declare the same entry
/// points anycuda uses.
pub const ROCM_SMI_SEARCH: Search = Search {
    library: "rocm-smi (librocm_smi64)",
    explicit_env: "ANYCUDA_ROCM_SMI_LIBRARY",
    sonames: &[
        "librocm_smi64.so.1",
        "librocm_smi64.so.7",
        "librocm_smi64.so.6",
        "librocm_smi64.so",
    ],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// Opens NVIDIA's NVML and resolves every entry point of the catalogue by name. Nothing is
/// called: `nvmlInit` is the caller's (NVML counts initialisations), so the version is left 0.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// `nvmlInit_v2` (no NVML of the pinned header's generation).
pub fn load(search: &Search) -> Result<Loaded<NvmlTable>, LoadError> {
    let o = search.open()?;
    required(&o, search.library, c"nvmlInit_v2")?;
    let path = o.resolved_path(c"nvmlInit_v2");
    // SAFETY: each symbol is resolved by the name `nvml.h` declares it under (with
    // NVML_NO_UNVERSIONED_FUNC_DEFS), whose ABI is the header's.
    let table = unsafe {
        NvmlTable::load(|f| match CString::new(f.symbol) {
            Ok(n) => o.sym(&n),
            Err(_) => core::ptr::null_mut(),
        })
    };
    Ok(Loaded::new(table, path, 0, o, Vec::new()))
}
