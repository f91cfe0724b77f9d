//! The HIP backend against a live ROCm release with no GPU: loading, version detection, the
//! per-version ABI choices, hipRTC on that release's targets, and bad input.
//!
//! Run it through `ci/rocm.sh`, which sets `ANYCUDA_ROCM_VERSION` and points anycuda at that
//! release (`bash ci/rocm.sh 6.4 -- <this test binary>`; `.ci/run` does it for 5.2, 5.7 and 6.4).
//! Without `ANYCUDA_ROCM_VERSION` it tests whatever HIP loads, with the expectations of the
//! version it finds.
#![cfg(feature = "backend-hip")]

mod common;

use anycuda::core::CodeType;
use anycuda::driver::{cuDeviceGet, cuDeviceGetCount, cuInit, CUdevice, CUresult};
use anycuda::nvrtc::nvrtcResult;
use anycuda::{Backend, BackendKind};
use common::{compiler, elf_machine, elf_symbols, on_ci, EM_AMDGPU};
use std::ffi::CStr;

/// The release ci/rocm.sh prepared, as `major.minor`, if any.
fn wanted() -> Option<String> {
    std::env::var("ANYCUDA_ROCM_VERSION").ok()
}

/// The HIP backend with hipRTC, or `None` (skip) off CI.
fn rocm_hip() -> Option<Backend> {
    let b = compiler(BackendKind::Hip)?;
    let v = b.as_hip().unwrap().hip_version();
    if v < 10_000_000 {
        assert!(
            !on_ci(),
            "CI runs this against ROCm, not HIP's NVIDIA platform"
        );
        eprintln!("SKIP: HIP's NVIDIA platform is loaded (version {v})");
        return None;
    }
    Some(b)
}

fn major_minor(v: i32) -> String {
    format!("{}.{}", v / 10_000_000, v / 100_000 % 100)
}

/// Targets each release must compile for, and ones it must refuse without aborting (its LLVM
/// does not know them; hipRTC itself would abort the process). Probed on Debian's builds.
fn expectations(mm: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match mm {
        "5.2" => (
            &["gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"],
            &[
                "gfx940", "gfx942", "gfx1100", "gfx950", "gfx1200", "gfx9999",
            ],
        ),
        "5.7" => (
            &[
                "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942", "gfx1030", "gfx1100", "gfx1151",
            ],
            &["gfx950", "gfx1152", "gfx1200", "gfx9999"],
        ),
        "6.4" => (
            &[
                "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1151", "gfx1200",
                "gfx1201",
            ],
            // Debian's 6.4.3 runs LLVM 21, which retired gfx940/gfx941.
            &["gfx940", "gfx1250", "gfx9999"],
        ),
        _ => (&["gfx90a"], &["gfx9999"]),
    }
}

#[test]
fn loads_the_requested_release_and_detects_its_version() {
    let Some(b) = rocm_hip() else { return };
    let h = b.as_hip().unwrap();
    let v = h.hip_version();
    eprintln!(
        "HIP {} ({v}) from {:?}",
        anycuda::native::hip::version_string(v),
        b.libraries()[0].status.as_ref().map(|l| l.path.clone())
    );
    if let Some(w) = wanted() {
        assert_eq!(major_minor(v), w, "ci/rocm.sh asked for ROCm {w}");
        if w != "5.2" {
            let lib = std::env::var("ANYCUDA_HIP_LIBRARY").unwrap();
            let path = b.libraries()[0].status.as_ref().unwrap().path.clone();
            assert_eq!(
                std::fs::canonicalize(&path).unwrap(),
                std::fs::canonicalize(lib).unwrap()
            );
        }
        // An explicit hipRTC file wins, even where libamdhip64 exports hipRTC too (6.4).
        if let Ok(rtc) = std::env::var("ANYCUDA_HIPRTC_LIBRARY") {
            let path = b.libraries()[1].status.as_ref().unwrap().path.clone();
            assert_eq!(
                std::fs::canonicalize(&path).unwrap(),
                std::fs::canonicalize(rtc).unwrap()
            );
        }
    }
    // The translation tables are the newest generated ones not newer than the library.
    let conv = h.conv();
    assert!(conv.hip_versions.iter().all(|&t| t <= v) || conv.hip_versions[0] <= v);
    assert!(
        conv.hip_versions[0] / 10_000_000 == v / 10_000_000,
        "tables of another major"
    );
}

#[test]
fn per_version_entry_points_match_the_abi() {
    let Some(b) = rocm_hip() else { return };
    let h = b.as_hip().unwrap();
    let t = h.native_hip().unwrap();
    let v = h.hip_version();
    // ROCm 6 changed hipDeviceProp_t (R0600) and exports it under a new name; 5.x lacks it.
    assert_eq!(
        t.hipGetDevicePropertiesR0600.is_some(),
        v >= 60_000_000,
        "R0600 on {v}"
    );
    assert!(t.hipGetDeviceProperties.is_some());
    // Graphs and 3D copies exist on every served release (their structs differ per version).
    assert!(t.hipGraphAddMemcpyNode.is_some() && t.hipDrvMemcpy3D.is_some());
    // hipRTC's bitcode entry points arrived in 5.3.
    let r = h.native_hiprtc().unwrap();
    assert_eq!(
        r.hiprtcGetBitcode.is_some(),
        v >= 50_300_000,
        "hiprtcGetBitcode on {v}"
    );
}

#[test]
fn error_tables_agree_with_the_live_library() {
    let Some(b) = rocm_hip() else { return };
    let h = b.as_hip().unwrap();
    let t = h.native_hip().unwrap();
    let name = t.hipGetErrorName.unwrap();
    let map = h.conv().CUresult;
    let mut checked = 0;
    for &(cuda_name, _, hip_name, hip_value) in map.pairs {
        // SAFETY: hipGetErrorName takes any value and returns a static string.
        let live = unsafe { CStr::from_ptr(name(hip_value as _)) }
            .to_string_lossy()
            .into_owned();
        // Codes the library does not know come back as "hipErrorUnknown"; those it knows must
        // carry the name the tables pair with the CUDA code.
        if live != "hipErrorUnknown" || hip_name == "hipErrorUnknown" {
            assert_eq!(
                live, hip_name,
                "{cuda_name}: HIP {hip_value} is {live} in the library"
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} error codes checked");
}

#[test]
fn no_device_answers_cuda_codes_without_crashing() {
    let Some(b) = rocm_hip() else { return };
    anycuda::select(anycuda::BackendChoice::Only(BackendKind::Hip)).ok();
    if anycuda::backend().map(|a| a.backend.kind()).ok() != Some(BackendKind::Hip) {
        // No other test of this binary chooses a backend, so on CI this never happens.
        assert!(!on_ci(), "another backend is active in this process");
        eprintln!("SKIP: another backend is active in this process");
        return;
    }
    let _ = b;
    // SAFETY: valid out-pointers and plain values.
    unsafe {
        assert_eq!(cuInit(0), CUresult::CUDA_ERROR_NO_DEVICE);
        let mut n = -1;
        let r = cuDeviceGetCount(&mut n);
        assert!(
            r == CUresult::CUDA_ERROR_NO_DEVICE || (r == CUresult::CUDA_SUCCESS && n == 0),
            "{r:?} {n}"
        );
        let mut d: CUdevice = 0;
        assert_ne!(cuDeviceGet(&mut d, 0), CUresult::CUDA_SUCCESS);
        assert_ne!(
            cuDeviceGet(core::ptr::null_mut(), 0),
            CUresult::CUDA_SUCCESS
        );
        assert_ne!(cuInit(12345), CUresult::CUDA_SUCCESS);
    }
}

const SAXPY: &str = r#"extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"#;

#[test]
fn hiprtc_compiles_for_the_release_targets_and_refuses_unknown_ones() {
    let Some(b) = rocm_hip() else { return };
    let v = b.as_hip().unwrap().hip_version();
    let (good, bad) = expectations(&major_minor(v));
    for arch in good {
        let mut p = common::program(b, SAXPY, "saxpy.cu", &[]);
        p.compile_with_args(&[&format!("--gpu-architecture={arch}")])
            .unwrap_or_else(|e| panic!("HIP {v}, {arch}: {e}"));
        let code = common::code(&p, CodeType::Cubin);
        assert_eq!(elf_machine(&code), Some(EM_AMDGPU), "{arch}");
        let syms = elf_symbols(&code);
        assert!(
            syms.iter().any(|s| s == "saxpy") && syms.iter().any(|s| s == "saxpy.kd"),
            "{arch}: {syms:?}"
        );
    }
    for arch in bad {
        let mut p = common::program(b, SAXPY, "saxpy.cu", &[]);
        let e = p
            .compile_with_args(&[&format!("--gpu-architecture={arch}")])
            .unwrap_err();
        assert_eq!(
            e.nvrtc_code(),
            Some(nvrtcResult::NVRTC_ERROR_INVALID_OPTION),
            "{arch}"
        );
        assert!(p.log().contains(arch), "{arch}: the log names the target");
    }
}

#[test]
fn bad_input_is_refused_with_cuda_codes() {
    let Some(b) = rocm_hip() else { return };
    let mut p = common::program(b, "this is not C++ {", "bad.cu", &[]);
    let e = p
        .compile_with_args(&["--gpu-architecture=gfx90a"])
        .unwrap_err();
    assert_eq!(e.nvrtc_code(), Some(nvrtcResult::NVRTC_ERROR_COMPILATION));
    assert!(!p.log().is_empty());
    let mut p = common::program(b, SAXPY, "saxpy.cu", &[]);
    for opts in [
        &["--no-such-option", "--gpu-architecture=gfx90a"][..],
        &["--gpu-architecture=gfx90a:xnack"],
        &["--gpu-architecture=gfx90a:"],
        &["--gpu-architecture=gfx90a:sramecc+:sramecc-"],
    ] {
        let e = p.compile_with_args(opts).unwrap_err();
        assert_eq!(
            e.nvrtc_code(),
            Some(nvrtcResult::NVRTC_ERROR_INVALID_OPTION),
            "{opts:?}"
        );
    }
    let mut p = common::program(b, SAXPY, "saxpy.cu", &["&saxpy"]);
    p.compile_with_args(&["--gpu-architecture=gfx90a"]).unwrap();
    assert_eq!(p.lowered_name("&saxpy").unwrap(), "saxpy");
    assert!(p.lowered_name("never_added").is_err());
    let mut p = common::program(b, SAXPY, "saxpy.cu", &["no_such_kernel<int>"]);
    assert!(p.compile_with_args(&["--gpu-architecture=gfx90a"]).is_err());
}
