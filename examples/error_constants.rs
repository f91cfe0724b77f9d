//! CUDA error constants, as in AMD's HIP Python interop guide: seventeen `cudaError_t` kinds
//! compared against `cudaSuccess`, each printed with `cudaGetErrorName` and `cudaGetErrorString`
//! from whichever backend is active (or anycuda's own tables when none loads). Needs no GPU.
//!
//! It then shows how a HIP code with no CUDA counterpart surfaces. AMD's Python layer gives every
//! such "hallucinated" constant the same value and cannot print one; anycuda gives each a distinct,
//! stable value (`0x4000_0000 + HIP value`) with a name and a description, and maps a raw HIP code
//! unknown when the tables were generated to `0x5000_0000 + raw`, printable and recoverable.
//! Exits 1 if any of that does not hold.
//!
//! `cargo run --release --example error_constants`

use anycuda::hallucinated;
use anycuda::runtime::*;
use anycuda::{CudaEnum, Origin, RuntimeError};
use std::ffi::{c_char, CStr};

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "<null>".into();
    }
    // SAFETY: cudaGetErrorName/String return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn main() {
    match anycuda::backend() {
        Ok(s) => println!("backend: {} ({})\n", s.kind(), s.reason),
        Err(e) => println!("no backend loads ({e}); names come from anycuda's tables\n"),
    }
    let mut failures = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            eprintln!("MISMATCH: {what}");
            failures.push(what);
        }
    };

    let kinds: [(&str, cudaError_t); 17] = [
        (
            "cudaErrorInitializationError",
            cudaError_t::cudaErrorInitializationError,
        ),
        (
            "cudaErrorInsufficientDriver",
            cudaError_t::cudaErrorInsufficientDriver,
        ),
        (
            "cudaErrorInvalidDeviceFunction",
            cudaError_t::cudaErrorInvalidDeviceFunction,
        ),
        (
            "cudaErrorInvalidDevice",
            cudaError_t::cudaErrorInvalidDevice,
        ),
        (
            "cudaErrorStartupFailure",
            cudaError_t::cudaErrorStartupFailure,
        ),
        (
            "cudaErrorInvalidKernelImage",
            cudaError_t::cudaErrorInvalidKernelImage,
        ),
        (
            "cudaErrorAlreadyAcquired",
            cudaError_t::cudaErrorAlreadyAcquired,
        ),
        (
            "cudaErrorOperatingSystem",
            cudaError_t::cudaErrorOperatingSystem,
        ),
        ("cudaErrorNotPermitted", cudaError_t::cudaErrorNotPermitted),
        ("cudaErrorNotSupported", cudaError_t::cudaErrorNotSupported),
        (
            "cudaErrorSystemNotReady",
            cudaError_t::cudaErrorSystemNotReady,
        ),
        (
            "cudaErrorSystemDriverMismatch",
            cudaError_t::cudaErrorSystemDriverMismatch,
        ),
        (
            "cudaErrorCompatNotSupportedOnDevice",
            cudaError_t::cudaErrorCompatNotSupportedOnDevice,
        ),
        (
            "cudaErrorDeviceUninitialized",
            cudaError_t::cudaErrorDeviceUninitialized,
        ),
        ("cudaErrorTimeout", cudaError_t::cudaErrorTimeout),
        ("cudaErrorUnknown", cudaError_t::cudaErrorUnknown),
        (
            "cudaErrorApiFailureBase",
            cudaError_t::cudaErrorApiFailureBase,
        ),
    ];
    println!(
        "{:<38} {:>6}  {:<12} description",
        "cudaError_t", "value", "!= success"
    );
    for (expected, err) in kinds {
        let name = text(cudaGetErrorName(err));
        let desc = text(cudaGetErrorString(err));
        let differs = err != cudaError_t::cudaSuccess;
        println!("{name:<38} {:>6}  {differs:<12} {desc}", err.0);
        check(differs, format!("{expected} == cudaSuccess"));
        check(err.result().is_err(), format!("{expected}.result() is Ok"));
        // cudaErrorApiFailureBase is a marker, not a code the runtime names: CUDA's own
        // cudaGetErrorName answers "unrecognized error code" for it.
        if expected != "cudaErrorApiFailureBase" {
            check(
                name == expected,
                format!("cudaGetErrorName({expected}) = {name}"),
            );
        }
        check(
            err.name() == Some(expected),
            format!("{expected}: table name {:?}", err.name()),
        );
    }
    let mut values: Vec<u32> = kinds.iter().map(|(_, e)| e.0).collect();
    values.sort_unstable();
    values.dedup();
    check(
        values.len() == kinds.len(),
        "the seventeen values are not distinct".into(),
    );

    // A HIP-only code: hipErrorRuntimeMemory has no CUDA counterpart.
    println!("\nHIP codes with no CUDA counterpart:");
    let hip_only = [
        cudaError_t::cudaErrorHipRuntimeMemory,
        cudaError_t::cudaErrorHipRuntimeOther,
    ];
    for e in hip_only {
        let info = e.info();
        let hip_name = match info.map(|c| c.origin) {
            Some(Origin::Hallucinated { hip_name }) => hip_name,
            _ => "?",
        };
        let raw = RuntimeError(e).hip_code();
        let name = text(cudaGetErrorName(e));
        println!(
            "  {name} = {:#x} (HIP {hip_name} = {raw:?}): {}",
            e.0,
            text(cudaGetErrorString(e))
        );
        check(
            hip_name != "?",
            format!("{name} is not marked hallucinated"),
        );
        check(
            raw.is_some_and(|r| i64::from(e.0) == hallucinated::NAMED_BASE + r),
            format!("{name}: value is not NAMED_BASE + HIP value"),
        );
        check(
            Some(name.as_str()) == e.name(),
            format!("cudaGetErrorName gives {name}, table {:?}", e.name()),
        );
        check(
            kinds.iter().all(|(_, k)| *k != e) && e != cudaError_t::cudaSuccess,
            format!("{name} collides with a CUDA value"),
        );
    }
    check(
        hip_only[0] != hip_only[1],
        "two hallucinated constants share a value".into(),
    );

    // A raw HIP code no table knows (say a newer ROCm's): mapped, printable, recoverable.
    let raw = 1234;
    match hallucinated::for_unknown(raw) {
        Some(v) => {
            let e = cudaError_t::from_i64(v);
            let name = text(cudaGetErrorName(e));
            let err = e.result().unwrap_err();
            println!(
                "  unknown HIP code {raw} -> {:#x}: {name}; as a Rust error: {err}",
                e.0
            );
            check(
                err.hip_code() == Some(raw),
                format!("hip_code() = {:?}", err.hip_code()),
            );
            check(
                name == format!("cudaErrorHipUnknown{raw}"),
                format!("name {name}"),
            );
        }
        None => check(false, format!("for_unknown({raw}) = None")),
    }

    if failures.is_empty() {
        println!("\nerror_constants: OK");
    } else {
        eprintln!("error_constants: {} check(s) failed", failures.len());
        std::process::exit(1);
    }
}
