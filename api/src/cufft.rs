//! cuFFT's vocabulary: types and values of the pinned `cufft.h`, the function catalogue, the
//! function-pointer table the CUDA backend loads, the [`Cufft`] trait, errors, library search
//! and the "why not supported" record.
//!
//! cuFFT (NVIDIA) and hipFFT (AMD's counterpart) name things alike (`cufftX`/`hipfftX`,
//! `CUFFT_X`/`HIPFFT_X`) and mostly number them alike; hipFFT has results cuFFT 12 lacks
//! (`HIPFFT_INCOMPLETE_PARAMETER_LIST`, `HIPFFT_PARSE_ERROR`, hallucinated here as
//! `CUFFT_HIPFFT_*`), and its plan handle is a pointer where cuFFT's ([`cufftHandle`]) is an
//! `int`. The public values and handles are always cuFFT's: the HIP backend translates at the
//! boundary and keeps a table of plans.

use crate::enums::CudaEnum;
use crate::error::LoadError;
use crate::loader::{required, Loaded, Opened, Search};
use core::ffi::c_int;
use std::cell::Cell;

#[path = "generated/cufft.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod types;
#[path = "generated/cufft_fns.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod fns;

pub use fns::*;
pub use types::*;

/// `libraryPropertyType` (`cufftGetProperty`'s argument) is the runtime's: one type for both.
pub use crate::runtime::libraryPropertyType;

thread_local! {
    /// The last not-supported answer on this thread and why it was given.
    static LAST: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Records why a call answers [`cufftResult::CUFFT_NOT_SUPPORTED`] (logged, and returned by
/// [`not_supported_reason`] on this thread), and returns that result.
pub fn refuse(why: &'static str) -> cufftResult {
    log::warn!("anycuda cuFFT: {why}");
    LAST.with(|l| l.set(Some(why)));
    cufftResult::CUFFT_NOT_SUPPORTED
}

/// What a table answers for an entry point the loaded library lacks (the HIP backend's
/// hipFFT table answers the same).
pub fn missing_entry_point() -> cufftResult {
    refuse("the loaded FFT library lacks this entry point")
}

/// What the table answers for an entry point the loaded library lacks.
pub(crate) fn not_loaded() -> cufftResult {
    missing_entry_point()
}

/// Why the calling thread's last cuFFT call answered `code`, when `code` is
/// [`cufftResult::CUFFT_NOT_SUPPORTED`] and anycuda gave that answer (a function hipFFT lacks,
/// an entry point the loaded library lacks, no library at all). `None` for any other code, or
/// when no call on this thread was refused.
pub fn not_supported_reason(code: cufftResult) -> Option<&'static str> {
    if code != cufftResult::CUFFT_NOT_SUPPORTED {
        return None;
    }
    LAST.with(Cell::get)
}

/// cuFFT: the soname, then `CUDA_PATH`/`CUDA_HOME` and `/usr/local/cuda`;
/// `ANYCUDA_CUFFT_LIBRARY` (an exact file) overrides all of that.
pub const CUFFT_SEARCH: Search = Search {
    library: "cuFFT (libcufft)",
    explicit_env: "ANYCUDA_CUFFT_LIBRARY",
    sonames: &["libcufft.so.12"],
    root_envs: &["CUDA_PATH", "CUDA_HOME"],
    lib_dirs: &["lib64", "lib", "targets/x86_64-linux/lib"],
    default_roots: &["/usr/local/cuda"],
};

/// hipFFT: the soname, then `ROCM_PATH`/`HIP_PATH` and `/opt/rocm`; `ANYCUDA_HIPFFT_LIBRARY`
/// (an exact file) overrides all of that.
pub const HIPFFT_SEARCH: Search = Search {
    library: "hipFFT (libhipfft)",
    explicit_env: "ANYCUDA_HIPFFT_LIBRARY",
    sonames: &["libhipfft.so.0", "libhipfft.so"],
    root_envs: &["ROCM_PATH", "HIP_PATH"],
    lib_dirs: &["lib", "lib64", "lib/x86_64-linux-gnu"],
    default_roots: &["/opt/rocm"],
};

/// A version code as people write it: cuFFT `12500` -> `12.5.0`; hipFFT (`hipfftGetVersion`,
/// major * 10000 + minor * 100 + patch) `10027` -> `1.0.27` (trixie's hipFFT 6.1.2).
pub fn version_string(hipfft: bool, code: i32) -> String {
    if hipfft {
        format!("{}.{}.{}", code / 10_000, (code / 100) % 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

/// Asks `probe` (`cufftGetVersion`/`hipfftGetVersion`: `int*` in, a C-int result out, no GPU
/// needed) of an opened library for its version: what both backends' loaders ask first.
///
/// # Errors
/// [`LoadError::MissingSymbol`] without `probe`, [`LoadError::VersionQuery`] when it fails.
pub fn query_version(
    o: &Opened,
    library: &'static str,
    probe: &core::ffi::CStr,
) -> Result<(i32, String), LoadError> {
    let gv = required(o, library, probe)?;
    // SAFETY: cufftGetVersion(int*) and hipfftGetVersion(int*) return a C-int result in every
    // release of either library.
    let gv: unsafe extern "C" fn(*mut c_int) -> cufftResult = unsafe { core::mem::transmute(gv) };
    let mut version = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { gv(&mut version) };
    let path = o.resolved_path(probe);
    if r.0 != 0 {
        return Err(LoadError::VersionQuery {
            library,
            path,
            detail: format!("{}: result {}", probe.to_string_lossy(), r.0),
        });
    }
    Ok((version, path))
}

/// Opens cuFFT, asks its version (`cufftGetVersion`, which needs no GPU) and resolves every
/// entry point of the catalogue by name.
///
/// # Errors
/// [`LoadError::NotFound`] naming every candidate tried, [`LoadError::MissingSymbol`] without
/// the version query, or [`LoadError::VersionQuery`].
pub fn load(search: &Search) -> Result<Loaded<CufftTable>, LoadError> {
    let o = search.open()?;
    let (version, path) = query_version(&o, search.library, c"cufftGetVersion")?;
    // SAFETY: each symbol is resolved by the name cufft.h declares, whose ABI the table's
    // field has.
    let table = unsafe {
        CufftTable::load(|f| match std::ffi::CString::new(f.symbol) {
            Ok(n) => o.sym(&n),
            Err(_) => core::ptr::null_mut(),
        })
    };
    Ok(Loaded::new(table, path, version, o, Vec::new()))
}
