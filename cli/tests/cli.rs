//! The `anycuda` command's reports, run as a user would.

// The workspace tests' one support module (real libraries only; CI fails where one is missing).
#[path = "../../tests/common/mod.rs"]
mod common;

#[cfg(feature = "backend-hip")]
use anycuda::{CudaEnum, Origin};
use serde_json::Value;
use std::process::{Command, Output};

fn anycuda(args: &[&str]) -> Output {
    anycuda_env(args, &[])
}

/// `anycuda ARGS` with these environment variables (and no ANYCUDA_BACKEND or
/// ANYCUDA_REQUIRE_GPU from the caller's environment).
fn anycuda_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let bin =
        std::env::var("ANYCUDA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_anycuda").to_string());
    let o = Command::new(bin)
        .args(args)
        .env_remove("ANYCUDA_BACKEND")
        .env_remove("ANYCUDA_REQUIRE_GPU")
        .envs(env.iter().copied())
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
    assert_eq!(
        v["nvrtc"]["cuda_total"],
        anycuda::functions::NVRTC_FUNCTIONS.len()
    );
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

/// A `.ptx` input for HIP targets: translated (anycuda_rtc::ptx) and compiled by hipRTC into an
/// AMD code object with every entry; refused instructions name themselves and their line; the
/// CUDA backend says why it does not take one.
#[test]
fn compile_translates_a_ptx_input_for_hip_targets() {
    let dir = std::env::temp_dir().join(format!("anycuda-cli-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("instructions.ptx");
    std::fs::copy(
        common::repo_root().join("rtc/src/ptx/testdata/instructions_sm80.ptx"),
        &ptx,
    )
    .unwrap();
    let o = anycuda(&["compile", ptx.to_str().unwrap(), "--backend", "cuda"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("a .ptx input is compiled for HIP targets"),
        "{err}"
    );
    if common::compiler(anycuda::BackendKind::Hip).is_some() {
        let out = dir.join("instructions.hsaco");
        let o = anycuda(&[
            "compile",
            ptx.to_str().unwrap(),
            "--backend",
            "hip",
            "--arch",
            "gfx90a",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // As many entries as the PTX declares kernels.
        let kernels = std::fs::read_to_string(&ptx)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with(".visible .entry") || l.starts_with(".entry"))
            .count();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            kernels >= 6 && err.contains(&format!("translated: {kernels} entries")),
            "{kernels} kernels: {err}"
        );
        let code = std::fs::read(&out).unwrap();
        assert_eq!(common::elf_machine(&code), Some(common::EM_AMDGPU));
        let symbols = common::elf_symbols(&code);
        for entry in [
            "int_math",
            "float_round",
            "predicates",
            "shared_reduce",
            "atomics",
        ] {
            assert!(
                symbols.iter().any(|s| *s == format!("{entry}.kd")),
                "{entry}: {symbols:?}"
            );
        }
        let bad = dir.join("bad.ptx");
        std::fs::write(
            &bad,
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
             .reg .b32 %r<3>;\nwgmma.fence.sync.aligned;\nret;\n}\n",
        )
        .unwrap();
        let o = anycuda(&[
            "compile",
            bad.to_str().unwrap(),
            "--backend",
            "hip",
            "--arch",
            "gfx90a",
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("line 7") && err.contains("wgmma.fence.sync.aligned"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        // A texture fetch: refused for CDNA (no image instructions), in any position of the
        // arch list; compiled for RDNA.
        let tex = dir.join("tex.ptx");
        std::fs::write(
            &tex,
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 t)\n{\n\
             .reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n.reg .f32 %f<5>;\nld.param.u64 %rd1, [t];\n\
             mov.u32 %r1, 0;\ntex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\nret;\n}\n",
        )
        .unwrap();
        let t = tex.to_str().unwrap();
        let o = anycuda(&[
            "compile",
            t,
            "--backend",
            "hip",
            "--arch",
            "gfx1030",
            "--arch",
            "gfx90a",
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("line 11") && err.contains("tex.1d.v4.f32.s32") && err.contains("gfx90a"),
            "{err}"
        );
        let out = dir.join("tex.hsaco");
        let o = anycuda(&[
            "compile",
            t,
            "--backend",
            "hip",
            "--arch",
            "gfx1030",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            common::elf_machine(&std::fs::read(&out).unwrap()),
            Some(common::EM_AMDGPU)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
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

/// A temporary source file for one test, in a folder of its own that is removed on drop (every
/// run used to leave its folders in the temp dir).
struct TempSource {
    dir: std::path::PathBuf,
    path: std::path::PathBuf,
}

impl std::ops::Deref for TempSource {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for TempSource {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_source(name: &str, bytes: &[u8]) -> TempSource {
    let dir = std::env::temp_dir().join(format!("anycuda-cli-bad-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    TempSource { dir, path }
}

/// Issue 11 item 7: the arch came after the user's options, so `-- -I` swallowed it (the PTX
/// silently targeted sm_75) and `-- -D` made "invalid macro definition: --gpu-architecture=...".
#[test]
fn user_options_cannot_swallow_the_arch() {
    if common::compiler(anycuda::BackendKind::Cuda).is_none() {
        return;
    }
    let src = temp_source("k.cu", b"extern \"C\" __global__ void k() {}");
    let out = src.with_extension("ptx");
    for trailing in ["-I", "-D"] {
        let o = anycuda(&[
            "compile",
            src.to_str().unwrap(),
            "--backend",
            "cuda",
            "--arch",
            "compute_90",
            "-o",
            out.to_str().unwrap(),
            "--",
            trailing,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !err.contains("--gpu-architecture=compute_90"),
            "{trailing}: {err}"
        );
        if o.status.success() {
            let ptx = std::fs::read_to_string(&out).unwrap();
            assert!(
                ptx.contains(".target sm_90"),
                "{trailing}: the arch was swallowed"
            );
        }
    }
}

#[test]
fn nul_bytes_and_empty_sources_get_clear_answers() {
    let nul = temp_source("nul.cu", b"__global__ void k() {}\0 junk");
    let empty = temp_source("empty.cu", b"");
    for (backend, arch) in [("cuda", "sm_90"), ("hip", "gfx90a")] {
        let kind = if backend == "cuda" {
            anycuda::BackendKind::Cuda
        } else {
            anycuda::BackendKind::Hip
        };
        if common::compiler(kind).is_none() {
            continue;
        }
        let o = anycuda(&[
            "compile",
            nul.to_str().unwrap(),
            "--backend",
            backend,
            "--arch",
            arch,
        ]);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("a NUL byte at offset 22"), "{backend}: {err}");
        // NVRTC compiles an empty source; so does the HIP backend now.
        let out = empty.with_extension(backend);
        let o = anycuda(&[
            "compile",
            empty.to_str().unwrap(),
            "--backend",
            backend,
            "--arch",
            arch,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `-dlto` makes LTO IR, no cubin; the message said "a cubin needs an sm_XX arch".
#[test]
fn dlto_writes_lto_ir() {
    if common::compiler(anycuda::BackendKind::Cuda).is_none() {
        return;
    }
    let src = temp_source(
        "lto.cu",
        b"extern \"C\" __global__ void k(float *p) { p[0] = 1; }",
    );
    let o = anycuda(&[
        "compile",
        src.to_str().unwrap(),
        "--backend",
        "cuda",
        "--arch",
        "sm_90",
        "--",
        "-dlto",
    ]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    assert!(out.contains(".ltoir"), "{out}");
    assert!(!err.contains("needs an sm_XX"), "{err}");
}

/// Control characters from a source echoed in the log are escaped, not written raw.
#[test]
fn logs_are_printed_without_raw_control_characters() {
    let src = temp_source("ctl.cu", b"__global__ void k() { int x = \x01\x1b[31m; }");
    for (backend, arch) in [("cuda", "sm_90"), ("hip", "gfx90a")] {
        let kind = if backend == "cuda" {
            anycuda::BackendKind::Cuda
        } else {
            anycuda::BackendKind::Hip
        };
        if common::compiler(kind).is_none() {
            continue;
        }
        let o = anycuda(&[
            "compile",
            src.to_str().unwrap(),
            "--backend",
            backend,
            "--arch",
            arch,
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            !o.stderr
                .iter()
                .any(|&b| b < 0x20 && b != b'\n' && b != b'\t'),
            "{backend}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[cfg(feature = "backend-hip")]
#[test]
fn mapping_refuses_a_hip_version_that_is_not_one() {
    for v in ["0", "-5", "13000"] {
        let o = anycuda(&["mapping", &format!("--hip-version={v}")]);
        assert!(!o.status.success(), "{v}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("not a HIP version"), "{v}: {err}");
    }
    assert!(anycuda(&["mapping", "--hip-version=50221153"])
        .status
        .success());
}

/// A non-UTF-8 ANYCUDA_BACKEND was silently taken as auto.
#[test]
fn non_utf8_backend_choice_is_an_error() {
    use std::os::unix::ffi::OsStrExt;
    let src = temp_source("env.cu", b"__global__ void k() {}");
    let bin =
        std::env::var("ANYCUDA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_anycuda").to_string());
    let o = Command::new(bin)
        .args(["compile", src.to_str().unwrap(), "--arch", "sm_90"])
        .env("ANYCUDA_BACKEND", std::ffi::OsStr::from_bytes(b"cuda\xff"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown backend"), "{err}");
}

/// `anycuda demo`, the README's first command, does what this machine allows. Without a GPU
/// (CI): SAXPY compiled by the real NVRTC and hipRTC (each required under CI=true) for several
/// NVIDIA and AMD targets, every output checked as that target's code; with a GPU: it ran and
/// every element was right.
#[test]
fn demo_does_the_main_job_the_machine_allows() {
    let v = json(&["demo", "--json"]);
    assert_eq!(v["ok"], true, "{v:#}");
    assert!(
        v["active"]["reason"]
            .as_str()
            .is_some_and(|r| !r.is_empty()),
        "{v:#}"
    );
    if v["mode"] == "run" {
        assert_eq!(v["outcome"], "ran");
        assert_eq!(v["run"]["elements"], 1 << 20);
        assert_eq!(v["run"]["wrong"], 0);
        return;
    }
    assert_eq!(v["mode"], "compile-only", "{v:#}");
    let vendors = v["vendors"].as_array().unwrap();
    let mut compiled = 0;
    for (kind, codes, must) in [
        (
            anycuda::BackendKind::Cuda,
            &["cubin", "ptx"][..],
            &["sm_90", "compute_80"][..],
        ),
        (
            anycuda::BackendKind::Hip,
            &["code object"][..],
            &["gfx90a"][..],
        ),
    ] {
        let vd = vendors
            .iter()
            .find(|x| x["backend"] == kind.to_string())
            .unwrap_or_else(|| panic!("no {kind} entry: {v:#}"));
        // Why it cannot run here is always said.
        assert!(
            vd["cannot_run"].as_str().is_some_and(|s| !s.is_empty()),
            "{vd:#}"
        );
        if common::compiler(kind).is_none() {
            assert!(
                vd["compiler"].is_null() && vd["compiler_error"].is_string(),
                "{vd:#}"
            );
            continue;
        }
        assert!(vd["compiler"].is_string(), "{vd:#}");
        let targets = vd["targets"].as_array().unwrap();
        for t in targets {
            assert!(t["error"].is_null(), "{t:#}");
            assert!(codes.contains(&t["code"].as_str().unwrap()), "{t:#}");
            assert!(t["bytes"].as_u64().unwrap() > 500, "{t:#}");
            assert!(t["runs_on"].as_str().is_some_and(|s| !s.is_empty()));
            compiled += 1;
        }
        for m in must {
            assert!(
                targets.iter().any(|t| t["target"] == *m),
                "{m} missing: {vd:#}"
            );
        }
    }
    assert_eq!(
        v["outcome"],
        if compiled > 0 { "compiled" } else { "nothing" }
    );
}

/// The text form names the backend and why; a GPU runner (ANYCUDA_REQUIRE_GPU=1) gets a failure
/// when there is no GPU, and an invalid ANYCUDA_BACKEND is an error, not a fallback.
#[test]
fn demo_reports_the_choice_and_fails_only_for_real() {
    let o = anycuda(&["demo"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.lines().any(|l| l.starts_with("backend: ")), "{out}");
    assert!(out.contains("\nOK: "), "{out}");
    if out.contains("no GPU here") {
        let o = anycuda_env(&["demo"], &[("ANYCUDA_REQUIRE_GPU", "1")]);
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stdout).contains("ANYCUDA_REQUIRE_GPU=1"));
    }
    let o = anycuda_env(&["demo"], &[("ANYCUDA_BACKEND", "bogus")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown backend"));
}

/// Every backend library named as an explicit file that does not exist: a machine with
/// nothing installed, whatever this one has.
fn nothing_installed() -> Vec<(&'static str, String)> {
    let dir = std::env::temp_dir().join(format!("anycuda-absent-{}", std::process::id()));
    [
        "ANYCUDA_CUDA_LIBRARY",
        "ANYCUDA_CUDART_LIBRARY",
        "ANYCUDA_NVRTC_LIBRARY",
        "ANYCUDA_HIP_LIBRARY",
        "ANYCUDA_HIPRTC_LIBRARY",
    ]
    .into_iter()
    .map(|v| (v, dir.join(format!("{v}.so")).display().to_string()))
    .collect()
}

fn anycuda_nothing(args: &[&str]) -> (Output, String, Vec<(&'static str, String)>) {
    let env = nothing_installed();
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let o = anycuda_env(args, &pairs);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    (o, out, env)
}

/// With nothing installed, `demo` is a short first impression: each backend's missing library
/// named once, with the command that gets it; no path tried (those are in `info --verbose`),
/// on stdout or stderr. `--json` keeps every path tried.
#[test]
fn demo_with_nothing_installed_is_short_and_says_how_to_get_each_library() {
    let (o, out, env) = anycuda_nothing(&["demo"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.len() < 2048, "{} bytes:\n{out}", out.len());
    assert!(err.len() < 2048, "{} bytes:\n{err}", err.len());
    for (_, path) in &env {
        assert!(!out.contains(path.as_str()), "{path}:\n{out}");
    }
    // Each compiled-in backend's missing libraries (CI also builds one backend at a time).
    let mut expected = Vec::new();
    if cfg!(feature = "backend-cuda") {
        expected.push(("NVRTC (libnvrtc)", "pip install 'nvidia-cuda-nvrtc==13.*'"));
        expected.push(("CUDA driver (libcuda)", "the machine needs NVIDIA's driver"));
    }
    if cfg!(feature = "backend-hip") {
        expected.push((
            "HIP runtime (libamdhip64)",
            "install ROCm (Debian/Ubuntu: sudo apt install libamdhip64-5 libhiprtc-builtins5",
        ));
    }
    for (name, hint) in expected {
        assert_eq!(out.matches(name).count(), 1, "{name}:\n{out}");
        assert_eq!(out.matches(hint).count(), 1, "{hint}:\n{out}");
    }
    // One line per backend says it all.
    if cfg!(feature = "backend-cuda") {
        let cuda = out
            .lines()
            .find(|l| l.starts_with("[NVIDIA] cuda: "))
            .unwrap();
        assert!(
            cuda.contains("NVRTC") && cuda.contains("NVIDIA's driver"),
            "{out}"
        );
    }
    if cfg!(feature = "backend-hip") {
        let hip = out.lines().find(|l| l.starts_with("[AMD] hip: ")).unwrap();
        assert!(hip.contains("libamdhip64") && hip.contains("ROCm"), "{out}");
    }
    assert!(
        out.contains("`anycuda info --verbose` lists every path tried"),
        "{out}"
    );

    let (o, json_out, env) = anycuda_nothing(&["demo", "--json"]);
    assert!(o.status.success(), "{json_out}");
    let v: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(v["outcome"], "nothing", "{v:#}");
    let nvrtc = &env
        .iter()
        .find(|(k, _)| *k == "ANYCUDA_NVRTC_LIBRARY")
        .unwrap()
        .1;
    if cfg!(feature = "backend-cuda") {
        assert!(
            v["vendors"][0]["compiler_error"]
                .as_str()
                .is_some_and(|e| e.contains(nvrtc.as_str())),
            "{v:#}"
        );
    }
}

/// `info` names what is missing with how to get it, without the paths tried; `info --verbose`
/// lists every try of the library search.
#[test]
fn info_is_short_and_verbose_lists_every_path_tried() {
    let (o, out, env) = anycuda_nothing(&["info"]);
    assert!(o.status.success(), "{out}");
    assert!(
        o.stderr.len() < 2048,
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.len() < 4096, "{} bytes:\n{out}", out.len());
    for (_, path) in &env {
        assert!(!out.contains(path.as_str()), "{path}:\n{out}");
    }
    let mut hints = Vec::new();
    if cfg!(feature = "backend-cuda") {
        hints.extend([
            "pip install 'nvidia-cuda-nvrtc==13.*'",
            "pip install 'nvidia-cuda-runtime==13.*'",
            "the machine needs NVIDIA's driver",
        ]);
    }
    if cfg!(feature = "backend-hip") {
        hints.push("install ROCm (");
    }
    for hint in hints {
        assert_eq!(out.matches(hint).count(), 1, "{hint}:\n{out}");
    }
    assert!(
        out.contains("`anycuda info --verbose` lists every path tried"),
        "{out}"
    );

    let (o, out, env) = anycuda_nothing(&["info", "--verbose"]);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("\nlibrary search (each try in order"), "{out}");
    // hipRTC is looked for only once HIP loaded; a backend not compiled in looks for nothing.
    let (hip_in, cuda_in) = (
        cfg!(feature = "backend-hip"),
        cfg!(feature = "backend-cuda"),
    );
    let searched = |v: &str| {
        v != "ANYCUDA_HIPRTC_LIBRARY"
            && if v == "ANYCUDA_HIP_LIBRARY" {
                hip_in
            } else {
                cuda_in
            }
    };
    for (var, path) in env.iter().filter(|(v, _)| searched(v)) {
        assert!(
            out.lines()
                .any(|l| l.contains("explicit") && l.contains(path.as_str()) && l.contains(var)),
            "{var}:\n{out}"
        );
    }
}

#[test]
fn libdir_makes_the_c_abi_folder_idempotently_and_explains_a_missing_library() {
    let dir = std::env::temp_dir().join(format!("anycuda-libdir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Not built: a clear error with the build command, exit 1.
    let missing = dir.join("libanycuda_capi.so");
    let o = anycuda_env(
        &["libdir"],
        &[("ANYCUDA_CAPI_LIBRARY", missing.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cargo build --release -p anycuda-capi"),
        "{err}"
    );
    // Built (any file stands in for it here): the folder of sonames, printed, twice the same.
    std::fs::write(&missing, b"stand-in").unwrap();
    let lib = missing.canonicalize().unwrap();
    let run = || {
        let o = anycuda_env(
            &["libdir"],
            &[("ANYCUDA_CAPI_LIBRARY", lib.to_str().unwrap())],
        );
        assert!(o.status.success(), "{o:?}");
        std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    };
    let folder = run();
    assert_eq!(folder, lib.parent().unwrap().join("anycuda-c-abi"));
    // The C-ABI library's link; a name library per soname (ELF, its own soname, needing the
    // C-ABI library); the development names link to the name libraries.
    assert_eq!(
        std::fs::read_link(folder.join("libanycuda_capi.so")).unwrap(),
        lib
    );
    let sonames = [
        "libcuda.so.1",
        "libcudart.so.13",
        "libnvrtc.so.13",
        "libcublas.so.13",
        "libcublasLt.so.13",
        "libcurand.so.10",
        "libnccl.so.2",
        "libnvJitLink.so.13",
        "libnvidia-ml.so.1",
        "libcufft.so.12",
        "libcusparse.so.12",
    ];
    for n in sonames {
        let bytes = std::fs::read(folder.join(n)).unwrap();
        assert!(bytes.starts_with(b"\x7fELF"), "{n}");
        let has = |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
        assert!(
            has(n) && has("libanycuda_capi.so\0") && has("$ORIGIN"),
            "{n}"
        );
        let dev = n.rsplit_once('.').unwrap().0;
        assert_eq!(
            std::fs::read_link(folder.join(dev)).unwrap(),
            std::path::Path::new(n)
        );
    }
    // A damaged name library is replaced; a second run changes nothing else.
    let before = std::fs::read(folder.join("libcuda.so.1")).unwrap();
    std::fs::write(folder.join("libcuda.so.1"), b"damaged").unwrap();
    assert_eq!(run(), folder);
    assert_eq!(std::fs::read(folder.join("libcuda.so.1")).unwrap(), before);
    // The C-ABI library's link, and each name library with its development name.
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        1 + 2 * sonames.len()
    );
    // No libcudart.so.12 without CUDA 12's library; with it built next to the C-ABI library,
    // `libcudart.so.12` leads to it.
    assert!(std::fs::symlink_metadata(folder.join("libcudart.so.12")).is_err());
    let cudart12 = lib.with_file_name("libanycuda_cudart12.so");
    std::fs::write(&cudart12, b"stand-in").unwrap();
    assert_eq!(run(), folder);
    assert_eq!(
        std::fs::read_link(folder.join("libanycuda_cudart12.so")).unwrap(),
        cudart12
    );
    assert_eq!(
        std::fs::read_link(folder.join("libcudart.so.12")).unwrap(),
        std::path::Path::new("libanycuda_cudart12.so")
    );
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        3 + 2 * sonames.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn libdir_name_libraries_name_their_apis_functions_for_the_linker() {
    let dir = std::env::temp_dir().join(format!("anycuda-libdir-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A library that cannot be read as one (a stand-in): every name of anycuda's export lists.
    let lib = dir.join("libanycuda_capi.so");
    std::fs::write(&lib, b"stand-in").unwrap();
    let o = anycuda_env(
        &["libdir"],
        &[("ANYCUDA_CAPI_LIBRARY", lib.to_str().unwrap())],
    );
    assert!(o.status.success(), "{o:?}");
    assert!(o.stderr.is_empty(), "{o:?}");
    let folder = std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let names = |file: &str| std::fs::read(folder.join(file)).unwrap();
    let has = |bytes: &[u8], name: &str| {
        let s = format!("\0{name}\0");
        bytes.windows(s.len()).any(|w| w == s.as_bytes())
    };
    let (cuda, cudart, nvrtc) = (
        names("libcuda.so.1"),
        names("libcudart.so.13"),
        names("libnvrtc.so.13"),
    );
    // Each API's own names (plain, versioned, per-thread, hand-written, nvcc's hidden entry
    // points), and no other API's.
    for n in [
        "cuInit",
        "cuMemAlloc_v2",
        "cuMemcpyHtoD_v2_ptds",
        "cuGetProcAddress_v2",
    ] {
        assert!(has(&cuda, n) && !has(&cudart, n) && !has(&nvrtc, n), "{n}");
    }
    for n in ["cudaMalloc", "cudaMemcpy_ptds", "__cudaRegisterFatBinary"] {
        assert!(has(&cudart, n) && !has(&cuda, n) && !has(&nvrtc, n), "{n}");
    }
    for n in ["nvrtcCompileProgram", "nvrtcVersion"] {
        assert!(has(&nvrtc, n) && !has(&cuda, n) && !has(&cudart, n), "{n}");
    }
    // The older ABIs and interop names the C ABI passes on to NVIDIA's libraries are linkable
    // too, each in its own library.
    for n in [
        "cuMemAlloc",
        "cuCtxCreate_v2",
        "cuGLInit",
        "cuProfilerStart",
    ] {
        assert!(has(&cuda, n) && !has(&cudart, n), "{n}");
    }
    assert!(has(&cudart, "cudaProfilerStart") && !has(&cuda, "cudaProfilerStart"));
    let _ = std::fs::remove_dir_all(&dir);
}
