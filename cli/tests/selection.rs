//! Backend selection through `ANYCUDA_BACKEND` and its aliases, and loading with no libraries
//! at all, each in a fresh `anycuda` process (selection happens once per process).

// The workspace tests' one support module (real libraries only; CI fails where one is missing).
#[path = "../../tests/common/mod.rs"]
mod common;

use serde_json::Value;
use std::process::{Command, Output};

/// Every variable that points anycuda at a library: cleared, or pointed at nothing.
const LIBRARY_VARS: &[&str] = &[
    "ANYCUDA_CUDA_LIBRARY",
    "ANYCUDA_CUDART_LIBRARY",
    "ANYCUDA_NVRTC_LIBRARY",
    "ANYCUDA_HIP_LIBRARY",
    "ANYCUDA_HIPRTC_LIBRARY",
];

fn anycuda(args: &[&str], env: &[(&str, &str)]) -> Output {
    // ANYCUDA_BIN: the CLI's path when the tests run from a bundle on another machine.
    let bin =
        std::env::var("ANYCUDA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_anycuda").to_string());
    let mut c = Command::new(bin);
    c.args(args)
        .env_remove("ANYCUDA_BACKEND")
        .env_remove("RUST_LOG");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn no_panic(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(o.status.code().is_some(), "killed by a signal: {o:?}");
}

fn active_backend(env: &[(&str, &str)]) -> Value {
    let o = anycuda(&["info", "--json"], env);
    no_panic(&o);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["active"].clone()
}

/// The installed libraries this machine has: selection can only be checked for those.
fn usable(kind: anycuda::BackendKind) -> bool {
    common::compiler(kind).is_some()
}

#[test]
fn env_var_and_aliases_choose_the_backend() {
    for (value, kind) in [
        ("cuda", "cuda"),
        ("CUDA", "cuda"),
        ("nvidia", "cuda"),
        ("hip", "hip"),
        ("Hip", "hip"),
        ("rocm", "hip"),
        ("AMD", "hip"),
    ] {
        let k = if kind == "cuda" {
            anycuda::BackendKind::Cuda
        } else {
            anycuda::BackendKind::Hip
        };
        if !usable(k) {
            continue;
        }
        let active = active_backend(&[("ANYCUDA_BACKEND", value)]);
        assert_eq!(active["backend"], kind, "ANYCUDA_BACKEND={value}: {active}");
        assert!(
            active["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("ANYCUDA_BACKEND={value}")),
            "{active}"
        );
    }
}

#[test]
fn auto_without_gpu_takes_the_first_backend_whose_compiler_loads() {
    let active = active_backend(&[("ANYCUDA_BACKEND", " Auto ")]);
    let info: Value = serde_json::from_slice(&anycuda(&["info", "--json"], &[]).stdout).unwrap();
    if info["gpu_found"] == true {
        return; // on a GPU machine auto picks the device's backend; covered by the GPU suite
    }
    let expected = if usable(anycuda::BackendKind::Cuda) {
        "cuda"
    } else {
        "hip"
    };
    assert_eq!(active["backend"], expected, "{active}");
    assert!(
        active["reason"].as_str().unwrap().contains("no GPU found"),
        "{active}"
    );
}

#[test]
fn invalid_env_value_is_a_clear_error() {
    let active = active_backend(&[("ANYCUDA_BACKEND", "opencl")]);
    let e = active["error"].as_str().unwrap();
    assert!(
        e.contains("opencl") && e.contains("cuda") && e.contains("hip"),
        "{e}"
    );
    // A free function answers with CUDA's code instead of panicking.
    let o = anycuda(&["compile", "/dev/null"], &[("ANYCUDA_BACKEND", "opencl")]);
    no_panic(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("opencl"));
}

#[test]
fn no_libraries_at_all_is_a_clear_error_not_a_crash() {
    let missing = "/nonexistent/anycuda-test/lib.so";
    let mut env: Vec<(&str, &str)> = LIBRARY_VARS.iter().map(|v| (*v, missing)).collect();
    env.push(("LD_LIBRARY_PATH", ""));
    let o = anycuda(&["info", "--json"], &env);
    no_panic(&o);
    assert!(
        o.status.success(),
        "info exits 0 with no GPU and no library"
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let err = v["active"]["error"].as_str().unwrap();
    assert!(err.contains("no usable GPU backend"), "{err}");
    for b in v["backends"].as_array().unwrap() {
        if b["compiled_in"] == false {
            continue;
        }
        for l in b["libraries"].as_array().unwrap() {
            let e = l["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{l} should have failed"));
            assert!(e.contains(missing), "the error names the path tried: {e}");
        }
    }
    let src = std::env::temp_dir().join("anycuda-nolib.cu");
    std::fs::write(&src, "__global__ void k() {}").unwrap();
    for kind in [anycuda::BackendKind::Cuda, anycuda::BackendKind::Hip] {
        let backend = kind.to_string();
        let args = [
            "compile",
            src.to_str().unwrap(),
            "--backend",
            &backend,
            "--arch",
            "sm_90",
        ];
        let o = anycuda(&args, &env);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        if anycuda::compiled_in().contains(&kind) {
            assert!(
                err.contains("compiler is unavailable") && err.contains(missing),
                "{err}"
            );
        } else {
            assert!(err.contains("not compiled in"), "{err}");
        }
    }
}

#[test]
fn hip_gfx9999_exits_with_a_clear_error_not_an_abort() {
    if !usable(anycuda::BackendKind::Hip) {
        return;
    }
    let src = std::env::temp_dir().join("anycuda-gfx9999.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }",
    )
    .unwrap();
    let o = anycuda(
        &[
            "compile",
            src.to_str().unwrap(),
            "--backend",
            "hip",
            "--arch",
            "gfx9999",
        ],
        &[],
    );
    no_panic(&o);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("NVRTC_ERROR_INVALID_OPTION") && err.contains("gfx9999"),
        "{err}"
    );
}
