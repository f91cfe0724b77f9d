//! The `anycuda` command's reports, run as a user would.

mod common;

#[cfg(feature = "backend-hip")]
use anycuda::{CudaEnum, Origin};
use serde_json::Value;
use std::process::{Command, Output};

fn anycuda(args: &[&str]) -> Output {
    let bin =
        std::env::var("ANYCUDA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_anycuda").to_string());
    let o = Command::new(bin)
        .args(args)
        .env_remove("ANYCUDA_BACKEND")
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panicked"),
        "{o:?}"
    );
    o
}

fn json(args: &[&str]) -> Value {
    let o = anycuda(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[cfg(feature = "backend-hip")]
#[test]
fn mapping_json_lists_pairs_cuda_only_and_hallucinated_hip_only() {
    let v = json(&["mapping", "--json"]);
    let enums = v["enums"].as_array().unwrap();
    assert!(enums.len() > 100, "every mapped enum pair is reported");
    let cu = enums.iter().find(|e| e["cuda_type"] == "CUresult").unwrap();
    assert_eq!(cu["hip_type"], "hipError_t");
    let pairs = cu["pairs"].as_array().unwrap();
    assert!(pairs
        .iter()
        .any(|p| p["cuda_name"] == "CUDA_ERROR_INVALID_VALUE"
            && p["hip_name"] == "hipErrorInvalidValue"));
    assert!(!cu["cuda_only"].as_array().unwrap().is_empty());
    // Every HIP-only constant is a real hallucinated constant on CUresult, by name and value.
    for h in cu["hip_only"].as_array().unwrap() {
        let name = h["hallucinated_name"].as_str().unwrap();
        let c = anycuda::driver::CUresult::from_name(name)
            .unwrap_or_else(|| panic!("{name} is not a CUresult constant"));
        assert_eq!(c.to_i64(), h["hallucinated_value"].as_i64().unwrap());
        assert!(matches!(
            c.info().unwrap().origin,
            Origin::Hallucinated { .. }
        ));
    }
    // The launch end marker differs: CUDA 0, HIP 3.
    let launch = v["flags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["group"] == "cu_launch_params")
        .unwrap();
    let end = launch["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["cuda_name"] == "CU_LAUNCH_PARAM_END")
        .unwrap();
    assert_eq!(
        (end["cuda_value"].as_i64(), end["hip_value"].as_i64()),
        (Some(0), Some(3))
    );
}

#[cfg(feature = "backend-hip")]
#[test]
fn mapping_filters_by_enum_and_rejects_unknown_names() {
    let v = json(&[
        "mapping",
        "hipDeviceAttribute_t",
        "--json",
        "--hip-version",
        "50221153",
    ]);
    let enums = v["enums"].as_array().unwrap();
    assert!(
        !enums.is_empty()
            && enums
                .iter()
                .all(|e| e["hip_type"] == "hipDeviceAttribute_t")
    );
    assert_eq!(v["hip_versions"][0], "5.2.21153");
    let o = anycuda(&["mapping", "NoSuchEnum"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("CUresult"),
        "the error lists known names"
    );
    let text = anycuda(&["mapping", "CUresult"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("CUDA_ERROR_HIP_RUNTIME_MEMORY"));
}

#[test]
fn coverage_json_has_the_documented_keys_and_consistent_counts() {
    let v = json(&["coverage", "--json"]);
    for api in ["driver", "runtime", "nvrtc"] {
        let a = &v[api];
        let total = a["cuda_total"].as_u64().unwrap();
        let exposed = a["exposed"].as_u64().unwrap();
        assert!(total > 0 && exposed <= total, "{api}: {a}");
        if cfg!(feature = "backend-cuda") {
            assert!(a["cuda_backend"].as_u64().unwrap() <= exposed);
        }
        if cfg!(feature = "backend-hip") {
            let (hip, unsupported) = (
                a["hip_backend"].as_u64().unwrap(),
                a["hip_unsupported"].as_u64().unwrap(),
            );
            assert_eq!(
                hip + unsupported,
                exposed,
                "{api}: served + not supported = exposed"
            );
        }
    }
    assert_eq!(v["nvrtc"]["cuda_total"], 24);
    let verbose = json(&["coverage", "--json", "--verbose"]);
    let key = if cfg!(feature = "backend-cuda") {
        "cuda_backend"
    } else {
        "hip_backend"
    };
    assert!(verbose["nvrtc"]["names"][key]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "nvrtcCompileProgram"));
}

#[test]
fn compile_writes_ptx_cubin_and_code_objects() {
    let dir = std::env::temp_dir().join(format!("anycuda-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = common::repo_root().join("tests/kernels/templates.cu");
    let src = src.to_str().unwrap();
    if common::compiler(anycuda::BackendKind::Cuda).is_some() {
        let out = dir.join("cuda");
        let o = anycuda(&[
            "compile",
            src,
            "--backend",
            "cuda",
            "--arch",
            "sm_90",
            "--arch",
            "compute_90",
            "-o",
            out.to_str().unwrap(),
            "--name-expression",
            "scale<float>",
            "--",
            "--std=c++17",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("scale<float> -> _Z5scaleIfEvPT_S0_i"));
        let cubin = std::fs::read(out.join("templates.sm_90.cubin")).unwrap();
        assert_eq!(common::elf_machine(&cubin), Some(common::EM_CUDA));
        let ptx = std::fs::read_to_string(out.join("templates.compute_90.ptx")).unwrap();
        assert!(ptx.contains(".entry _Z5scaleIfEvPT_S0_i("));
    }
    if common::compiler(anycuda::BackendKind::Hip).is_some() {
        let out = dir.join("hip.hsaco");
        let o = anycuda(&[
            "compile",
            src,
            "--backend",
            "hip",
            "--arch",
            "gfx1030",
            "-o",
            out.to_str().unwrap(),
            "--name-expression",
            "scale<float>",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let code = std::fs::read(&out).unwrap();
        assert_eq!(common::elf_machine(&code), Some(common::EM_AMDGPU));
        assert!(common::elf_symbols(&code)
            .iter()
            .any(|s| s == "_Z5scaleIfEvPT_S0_i.kd"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compile_error_exits_non_zero_with_the_log() {
    let src = common::repo_root().join("tests/kernels/bad/compile_error.cu");
    for (backend, arch) in [
        (anycuda::BackendKind::Cuda, "sm_90"),
        (anycuda::BackendKind::Hip, "gfx90a"),
    ] {
        if common::compiler(backend).is_none() {
            continue;
        }
        let o = anycuda(&[
            "compile",
            src.to_str().unwrap(),
            "--backend",
            &backend.to_string(),
            "--arch",
            arch,
            "-o",
            "/dev/null",
        ]);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("NVRTC_ERROR_COMPILATION") && err.contains("undeclared_value"),
            "{err}"
        );
    }
}
