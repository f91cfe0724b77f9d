//! Error strings: `cuGetErrorString` and `cudaGetErrorString` answered with HIP's own short
//! strings, the one rule for both APIs.
//!
//! NVIDIA's driver and runtime answer short phrases ("no error", "invalid device ordinal"),
//! which Python layers print beside their own long explanations (cuda.core checks the two
//! differ). anycuda's tables hold the headers' long doc comments, so the trait default (no
//! backend at all) answers those; the HIP backend asks HIP instead: the code is translated to
//! its HIP value through the tables and `hipGetErrorString` answers. HIP's strings are CUDA's
//! runtime strings (ROCm copies them; on HIP's NVIDIA platform `hipGetErrorString` is
//! `cudaGetErrorString` of the converted code).
//!
//! A code HIP has no value for (a CUDA-only code such as `CUDA_ERROR_INVALID_CLUSTER_SIZE`),
//! or no description of (ROCm 5.x's `hipGetErrorString` answers the name, "hipSuccess"; HIP's
//! NVIDIA platform answers "unknown error" for codes its conversion does not list), gets its
//! constant's name in words ("invalid cluster size"): short, honest, never NULL. A
//! value that is no constant at all is answered as NVIDIA answers it: `cuGetErrorString` gives
//! `CUDA_ERROR_INVALID_VALUE` and NULL, `cudaGetErrorString` "unrecognized error code".

use super::support::INVALID_VALUE;
use crate::conv::EnumMap;
use crate::hip_types::hipError_t;
use crate::HipBackend;
use anycuda_api::driver::CUresult;
use anycuda_api::hallucinated::{classify, Invented};
use anycuda_api::runtime::cudaError_t;
use anycuda_api::CudaEnum;
use core::ffi::{c_char, CStr};
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Mutex, OnceLock};

/// What CUDA's runtime answers for a value that is no error code.
const UNRECOGNIZED: &CStr = c"unrecognized error code";

/// The short string of one CUDA code `e` (of the enum whose table is `map`), or `None` when
/// `e` is no code at all (neither a constant nor an anycuda-reserved unknown HIP code).
fn short_string<E: CudaEnum>(b: &HipBackend, map: &EnumMap, e: E) -> Option<*const c_char> {
    let v = e.to_i64();
    let unknown_hip = matches!(classify(v), Some(Invented::Unknown(_)));
    if e.name().is_none() && !unknown_hip {
        return None;
    }
    // HIP's answer for the code's HIP value (an unknown HIP code carries its raw value).
    let hip = map
        .to_hip(v)
        .and_then(|h| hipError_t::try_from(h).ok())
        .zip(b.native_hip());
    if let Some((h, t)) = hip {
        let text = |code| hip_text(t.hipGetErrorString, code);
        // ROCm 5.x answers hipGetErrorString with the code's name ("hipSuccess"): no
        // description, so the CUDA name's words serve better.
        let described = text(h).filter(|&s| hip_text(t.hipGetErrorName, h) != Some(s));
        if let Some(s) = described {
            // HIP's catch-all ("unknown error") for a code that is not HIP's unknown error
            // says nothing true about it: HIP's NVIDIA platform converts only the codes its
            // switch lists and answers every other one as cudaErrorUnknown.
            let unknown = map
                .hip_value("hipErrorUnknown")
                .and_then(|u| hipError_t::try_from(u).ok())
                .filter(|&u| u != h)
                .and_then(text);
            if unknown != Some(s) {
                return Some(s.as_ptr());
            }
        }
    }
    Some(match e.name() {
        Some(n) => in_words(n).as_ptr(),
        // An unknown HIP code HIP itself did not answer: the tables' made-up description.
        None => anycuda_api::strings::runtime_error_string(cudaError_t(v as u32)),
    })
}

/// What one of HIP's string functions (`hipGetErrorString`, `hipGetErrorName`) answers for
/// `code`, when it is there and answers a non-empty string.
fn hip_text(
    f: Option<unsafe extern "C" fn(hipError_t) -> *const c_char>,
    code: hipError_t,
) -> Option<&'static CStr> {
    // SAFETY: both functions take any code and return NULL or a static NUL-terminated string.
    let p = unsafe { f?(code) };
    // SAFETY: non-NULL (checked): a static NUL-terminated string of the library, which stays
    // loaded for the life of the process.
    (!p.is_null())
        .then(|| unsafe { CStr::from_ptr(p) })
        .filter(|s| !s.is_empty())
}

/// `name` as a lower-case phrase, interned for the life of the process: the set is bounded by
/// the enums' constants (only named codes come here).
fn in_words(name: &'static str) -> &'static CStr {
    static WORDS: OnceLock<Mutex<HashMap<&'static str, &'static CStr>>> = OnceLock::new();
    let mut m = WORDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    m.entry(name).or_insert_with(|| {
        let s = CString::new(words_of(name)).unwrap_or_default();
        Box::leak(s.into_boxed_c_str())
    })
}

/// A constant's name as words: the API prefix dropped, then `SNAKE_CASE` or `camelCase` split
/// into lower-case words (`CUDA_ERROR_INVALID_CLUSTER_SIZE`, `cudaErrorInvalidClusterSize` →
/// "invalid cluster size"). Interior NULs cannot occur in a C identifier.
pub(crate) fn words_of(name: &str) -> String {
    let rest = ["CUDA_ERROR_", "CUDA_", "cudaError", "cuda"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .unwrap_or(name);
    let mut out = String::with_capacity(rest.len() + 4);
    let mut prev_lower = false;
    for c in rest.chars() {
        if c == '_' {
            prev_lower = false;
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !out.ends_with(' ') {
            out.push(' ');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_lowercase());
    }
    let out = out.trim().to_string();
    if out.is_empty() {
        name.to_string()
    } else {
        out
    }
}

/// `cuGetErrorString`: HIP's short string for the code (see the module's notes); NULL
/// `pStr` or a value that is no code → `CUDA_ERROR_INVALID_VALUE` (with `*pStr` NULL).
pub(crate) unsafe fn cuGetErrorString(
    b: &HipBackend,
    error: CUresult,
    pStr: *mut *const c_char,
) -> CUresult {
    if pStr.is_null() {
        return INVALID_VALUE;
    }
    let s = short_string(b, b.conv().CUresult, error);
    // SAFETY: a non-NULL out-pointer from the caller, writable for one pointer.
    unsafe { *pStr = s.unwrap_or(core::ptr::null()) };
    if s.is_some() {
        CUresult::CUDA_SUCCESS
    } else {
        INVALID_VALUE
    }
}

/// `cudaGetErrorString`: HIP's short string for the code (see the module's notes); never
/// NULL: a value that is no code is "unrecognized error code", as CUDA's runtime answers.
pub(crate) unsafe fn cudaGetErrorString(b: &HipBackend, error: cudaError_t) -> *const c_char {
    short_string(b, b.conv().cudaError_t, error).unwrap_or(UNRECOGNIZED.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::words_of;

    #[test]
    fn names_become_short_phrases() {
        assert_eq!(
            words_of("CUDA_ERROR_INVALID_CLUSTER_SIZE"),
            "invalid cluster size"
        );
        assert_eq!(
            words_of("cudaErrorInvalidClusterSize"),
            "invalid cluster size"
        );
        assert_eq!(words_of("CUDA_SUCCESS"), "success");
        assert_eq!(words_of("cudaSuccess"), "success");
        assert_eq!(
            words_of("CUDA_ERROR_NVLINK_UNCORRECTABLE"),
            "nvlink uncorrectable"
        );
        assert_eq!(words_of("cudaErrorMpsRpcFailure"), "mps rpc failure");
        // Nothing but a prefix: the name itself, never an empty string.
        assert_eq!(words_of("CUDA_ERROR_"), "CUDA_ERROR_");
    }
}
