//! Error names and descriptions as static C strings, from the generated tables.
//!
//! CUDA hands out `const char*` that live forever. The tables hold Rust `&str`, so each string is
//! turned into a C string once and kept (interned); the set is bounded by the constants that
//! exist plus [`MAX_SYNTHESIZED`] names made up for HIP codes unknown to the tables.

use crate::driver::CUresult;
use crate::enums::CudaEnum;
use crate::hallucinated::{classify, Invented};
use crate::nvrtc::nvrtcResult;
use crate::runtime::cudaError_t;
use core::ffi::c_char;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::{Mutex, OnceLock};

/// How many names for unknown HIP codes are kept before a generic name is returned instead.
pub const MAX_SYNTHESIZED: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Name,
    Description,
}

type Key = (&'static str, i64, Kind);

#[derive(Default)]
struct Cache {
    map: HashMap<Key, &'static CStr>,
    /// Entries made up for unknown codes: the only ones that are bounded.
    synthesized: usize,
}

/// The interned string for `key`. Strings of the tables (`synthesized == false`) are always
/// kept: there are finitely many. Made-up ones stop at [`MAX_SYNTHESIZED`] (per name and
/// description), so a flood of unknown codes cannot grow memory or crowd out a real name.
fn intern(
    key: Key,
    synthesized: bool,
    make: impl FnOnce() -> Option<String>,
) -> Option<&'static CStr> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = cache.map.get(&key) {
        return Some(s);
    }
    if synthesized && cache.synthesized >= 2 * MAX_SYNTHESIZED {
        return None;
    }
    // Interior NULs cannot come from the tables; strip them rather than fail.
    let s = make()?.replace('\0', "");
    let leaked: &'static CStr = Box::leak(CString::new(s).ok()?.into_boxed_c_str());
    cache.map.insert(key, leaked);
    cache.synthesized += usize::from(synthesized);
    Some(leaked)
}

/// The name of a code: its constant's name, or for a HIP code unknown to the tables a made-up
/// name carrying the raw code (`<prefix>1234`). `None` for any other unknown value.
fn name_of<E: CudaEnum>(e: E, unknown_prefix: &str) -> Option<&'static CStr> {
    let v = e.to_i64();
    intern(
        (E::TYPE_NAME, v, Kind::Name),
        e.name().is_none(),
        || match (e.name(), classify(v)) {
            (Some(n), _) => Some(n.to_string()),
            (None, Some(Invented::Unknown(raw))) => Some(format!("{unknown_prefix}{raw}")),
            _ => None,
        },
    )
}

fn description_of<E: CudaEnum>(e: E) -> Option<&'static CStr> {
    let v = e.to_i64();
    intern(
        (E::TYPE_NAME, v, Kind::Description),
        e.info().is_none(),
        || match (e.info(), classify(v)) {
            (Some(c), _) if !c.description.is_empty() => Some(c.description.to_string()),
            (Some(c), _) => Some(c.name.to_string()),
            (None, Some(Invented::Unknown(raw))) => Some(format!(
                "HIP error code {raw}, unknown when anycuda's tables were generated"
            )),
            _ => None,
        },
    )
}

unsafe fn write_out(
    p: *mut *const c_char,
    s: Option<&'static CStr>,
    invalid: CUresult,
) -> CUresult {
    if p.is_null() {
        return invalid;
    }
    match s {
        Some(s) => {
            // SAFETY: caller passes a writable `const char**` (checked non-null above).
            unsafe { *p = s.as_ptr() };
            CUresult::CUDA_SUCCESS
        }
        None => {
            // CUDA's behaviour for an unrecognised code: NULL and CUDA_ERROR_INVALID_VALUE.
            // SAFETY: caller passes a writable `const char**` (checked non-null above).
            unsafe { *p = core::ptr::null() };
            invalid
        }
    }
}

/// `cuGetErrorName` semantics over the generated tables.
///
/// # Safety
/// `p` must be null or point to writable storage for one pointer.
pub unsafe fn error_name(e: CUresult, p: *mut *const c_char, invalid: CUresult) -> CUresult {
    // SAFETY: the caller's contract is `write_out`'s: `p` is null or writable for one pointer.
    unsafe { write_out(p, name_of(e, "CUDA_ERROR_HIP_UNKNOWN_"), invalid) }
}

/// `cuGetErrorString` semantics over the generated tables.
///
/// # Safety
/// `p` must be null or point to writable storage for one pointer.
pub unsafe fn error_string(e: CUresult, p: *mut *const c_char, invalid: CUresult) -> CUresult {
    // SAFETY: the caller's contract is `write_out`'s: `p` is null or writable for one pointer.
    unsafe { write_out(p, description_of(e), invalid) }
}

const UNRECOGNIZED: &CStr = c"unrecognized error code";

/// `cudaGetErrorName` semantics: never null.
pub fn runtime_error_name(e: cudaError_t) -> *const c_char {
    name_of(e, "cudaErrorHipUnknown")
        .unwrap_or(UNRECOGNIZED)
        .as_ptr()
}

/// `cudaGetErrorString` semantics: never null.
pub fn runtime_error_string(e: cudaError_t) -> *const c_char {
    description_of(e).unwrap_or(UNRECOGNIZED).as_ptr()
}

/// `nvrtcGetErrorString` semantics: NVRTC returns the code's name; never null.
pub fn nvrtc_error_string(e: nvrtcResult) -> *const c_char {
    name_of(e, "NVRTC_ERROR_HIP_UNKNOWN_")
        .unwrap_or(c"NVRTC_ERROR unknown")
        .as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 20,000 unknown codes used to fill the cache so that real names came back as
    /// "unrecognized error code" and `cuGetErrorName` as INVALID_VALUE with NULL.
    #[test]
    fn unknown_codes_never_crowd_out_real_names() {
        for raw in 0..20_000i64 {
            let code = crate::hallucinated::for_unknown(raw).unwrap() as u32;
            runtime_error_name(cudaError_t(code));
            runtime_error_string(cudaError_t(code));
            nvrtc_error_string(nvrtcResult(code));
            let mut p = core::ptr::null();
            // SAFETY: `p` is a local `*const c_char`, writable for one pointer.
            unsafe { error_name(CUresult(code), &mut p, CUresult::CUDA_ERROR_INVALID_VALUE) };
            // SAFETY: as above.
            unsafe { error_string(CUresult(code), &mut p, CUresult::CUDA_ERROR_INVALID_VALUE) };
        }
        // The made-up entries are bounded: late unknown codes get the generic string.
        let late = crate::hallucinated::for_unknown(19_999).unwrap() as u32;
        assert_eq!(
            // SAFETY: `runtime_error_name` returns a static NUL-terminated string, never NULL.
            unsafe { CStr::from_ptr(runtime_error_name(cudaError_t(late))) },
            c"unrecognized error code"
        );
        // SAFETY: every `p` given below is a non-NULL static C string from the tables.
        let s = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        assert_eq!(
            s(runtime_error_name(cudaError_t::cudaErrorMemoryAllocation)),
            "cudaErrorMemoryAllocation"
        );
        assert_ne!(
            s(runtime_error_string(cudaError_t::cudaErrorMemoryAllocation)),
            "unrecognized error code"
        );
        assert_eq!(
            s(nvrtc_error_string(nvrtcResult::NVRTC_ERROR_COMPILATION)),
            "NVRTC_ERROR_COMPILATION"
        );
        for e in [
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            CUresult::CUDA_ERROR_NOT_FOUND,
        ] {
            let mut p = core::ptr::null();
            // SAFETY: `p` is a local `*const c_char`, writable for one pointer.
            let r = unsafe { error_name(e, &mut p, CUresult::CUDA_ERROR_INVALID_VALUE) };
            assert_eq!(r, CUresult::CUDA_SUCCESS);
            assert_eq!(s(p), e.name().unwrap());
            // SAFETY: as above.
            let r = unsafe { error_string(e, &mut p, CUresult::CUDA_ERROR_INVALID_VALUE) };
            assert_eq!(r, CUresult::CUDA_SUCCESS);
            assert!(!p.is_null());
        }
    }
}
