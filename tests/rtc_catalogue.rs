//! NVRTC is generated like the Driver and Runtime APIs: the `Rtc` trait, the CUDA backend's
//! forwarding and the facade's free functions come from the function catalogue. These tests tie
//! the methods to the catalogue and, independently of codegen, to the text of the pinned
//! `nvrtc.h`.

mod common;

use anycuda::functions::NVRTC_FUNCTIONS;
use anycuda::nvrtc::nvrtcResult;
use anycuda::{served_by, BackendKind, CudaApi};
use anycuda_api::traits::RTC_METHODS;
use std::collections::BTreeSet;

fn set<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    names.into_iter().collect()
}

#[test]
fn rtc_methods_are_the_catalogue() {
    let catalogue = set(NVRTC_FUNCTIONS.iter().map(|f| f.name));
    assert_eq!(set(RTC_METHODS.iter().copied()), catalogue);
    assert_eq!(RTC_METHODS.len(), NVRTC_FUNCTIONS.len(), "each name once");
    assert_eq!(CudaApi::Nvrtc.exposed(), RTC_METHODS);
}

/// Read without codegen's parser: every `nvrtcResult nvrtcX(` / `const char *nvrtcX(` of the
/// header, less `nvrtcGetTypeName` (an inline C++ template in the header, not a library symbol).
#[test]
fn rtc_methods_are_the_header_functions() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cache/inputs/cuda/nvidia/cu13/include/nvrtc.h");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            !common::on_ci(),
            "{} missing (run ci/fetch-inputs.sh)",
            path.display()
        );
        eprintln!("SKIP: {} missing", path.display());
        return;
    };
    let mut declared = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim_start();
        let rest = l
            .strip_prefix("nvrtcResult ")
            .or_else(|| l.strip_prefix("const char *"))
            .or_else(|| l.strip_prefix("const char* "));
        let Some(rest) = rest else { continue };
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if rest.starts_with("nvrtc") && rest[end..].trim_start().starts_with('(') {
            declared.insert(rest[..end].to_string());
        }
    }
    assert!(
        declared.remove("nvrtcGetTypeName"),
        "the header changed shape"
    );
    let methods: BTreeSet<String> = RTC_METHODS.iter().map(|s| s.to_string()).collect();
    assert_eq!(methods, declared);
}

/// The CUDA backend serves every NVRTC function (generated forwarding plus the hand-written
/// overrides); the HIP backend serves its hand-written adaptations, and the rest get the
/// trait's default, NVRTC_ERROR_NOT_SUPPORTED.
#[test]
fn backends_serve_the_catalogue() {
    if let Some(cuda) = served_by(BackendKind::Cuda, CudaApi::Nvrtc) {
        assert_eq!(set(cuda.iter().copied()), set(RTC_METHODS.iter().copied()));
    }
    if let Some(hip) = served_by(BackendKind::Hip, CudaApi::Nvrtc) {
        let all = set(RTC_METHODS.iter().copied());
        assert!(set(hip.iter().copied()).is_subset(&all));
        assert!(hip.contains(&"nvrtcCompileProgram") && !hip.contains(&"nvrtcGetOptiXIR"));
        if let Some(b) = common::compiler(BackendKind::Hip) {
            use anycuda::Rtc;
            let mut n = 0usize;
            // An unserved method is the generated default.
            // SAFETY: `n` is a live local `usize`; the unserved default only returns
            // `NVRTC_ERROR_NOT_SUPPORTED` and writes nothing.
            let r = unsafe { b.nvrtcGetPCHHeapSize(&mut n) };
            assert!(!hip.contains(&"nvrtcGetPCHHeapSize"));
            assert_eq!(r, nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED);
        }
    }
    // The facade's free function for a `const char*` API is safe and answers from the tables.
    let s = anycuda::nvrtc::nvrtcGetErrorString(nvrtcResult::NVRTC_ERROR_COMPILATION);
    assert_eq!(
        // SAFETY: `nvrtcGetErrorString` returns a pointer to a static NUL-terminated string from
        // anycuda's tables.
        unsafe { std::ffi::CStr::from_ptr(s) }.to_str(),
        Ok("NVRTC_ERROR_COMPILATION")
    );
}
