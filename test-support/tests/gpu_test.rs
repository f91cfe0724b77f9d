//! `#[gpu_test]` itself: the reasons it writes, and what a test whose need is not met does when
//! it is run (`--ignored`): a `not run:` line and exit status 77, never "ok".

use anycuda_test::need::{Backend, Need, Platform};
use anycuda_test::{gpu_test, NOT_APPLICABLE, NOT_RUN};
use std::process::Command;

fn need(pairs: &[(&str, &str)]) -> Need {
    let mut n = Need::default();
    for (k, v) in pairs {
        n.set(k, v).unwrap_or_else(|e| panic!("{k} = {v}: {e}"));
    }
    n
}

#[test]
fn reasons_name_the_need_and_the_script() {
    let r = |n: Need| n.ignore_reason("ci/gpu-test.sh");
    assert_eq!(
        r(Need::default()),
        "needs a GPU: ci/gpu-test.sh runs it (by hand: --ignored on such a machine)"
    );
    assert!(r(need(&[("gpus", "2")])).starts_with("needs 2 GPUs: "));
    assert!(r(need(&[("backend", "hip")])).starts_with("needs a GPU, HIP backend: "));
    assert!(r(need(&[("backend", "cuda")])).starts_with("needs a GPU, CUDA backend: "));
    assert!(r(need(&[("platform", "nvidia")]))
        .starts_with("needs a GPU, HIP backend on HIP's NVIDIA platform: "));
    assert!(need(&[("gpus", "2")])
        .ignore_reason("ci/nccl-gpu-test.sh")
        .contains(": ci/nccl-gpu-test.sh runs it"));
}

#[test]
fn the_parser_takes_only_what_it_knows() {
    let n = need(&[("gpus", "2"), ("backend", "hip"), ("platform", "nvidia")]);
    assert_eq!(
        n,
        Need {
            gpus: 2,
            backend: Some(Backend::Hip),
            platform: Some(Platform::Nvidia)
        }
    );
    let mut n = Need::default();
    assert!(n.set("gpus", "0").unwrap_err().contains("at least 1"));
    assert!(n.set("gpus", "two").is_err());
    assert!(n
        .set("backend", "vulkan")
        .unwrap_err()
        .contains("\"cuda\" or \"hip\""));
    assert!(n.set("platform", "intel").is_err());
    assert!(n.set("gpu", "1").unwrap_err().contains("unknown key `gpu`"));
    let mut n = need(&[("backend", "cuda")]);
    assert!(n
        .set("platform", "nvidia")
        .unwrap_err()
        .contains("HIP backend's"));
}

#[test]
fn anycuda_backend_values_and_aliases() {
    for (v, want) in [
        ("cuda", Some(Backend::Cuda)),
        ("NVIDIA", Some(Backend::Cuda)),
        ("Hip", Some(Backend::Hip)),
        ("rocm", Some(Backend::Hip)),
        ("amd", Some(Backend::Hip)),
        ("auto", None),
        ("", None),
    ] {
        assert_eq!(Backend::from_env_value(v), want, "{v:?}");
    }
}

// The tests the child processes below run. Ignored here like every #[gpu_test].

#[gpu_test(gpus = 999)]
fn needs_more_gpus_than_any_machine() {
    panic!("the prologue must end the process before the body runs");
}

#[gpu_test(backend = "hip")]
fn needs_the_hip_backend() {}

#[test]
#[ignore = "run as a child process by a_feature_absent_ends_78_with_its_reason"]
fn reports_not_applicable() {
    anycuda_test::not_applicable("this feature is absent here");
}

/// Runs one ignored test of this binary in a child process, as ci/gpu-test.sh does.
fn run_alone(test: &str, env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--ignored",
        "--exact",
        test,
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd.env_remove("ANYCUDA_REQUIRE_GPU")
        .env_remove("ANYCUDA_BACKEND");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn an_unmet_need_ends_77_with_a_not_run_line() {
    let (code, out) = run_alone("needs_more_gpus_than_any_machine", &[]);
    assert_eq!(code, Some(NOT_RUN), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("not run: needs 999 GPUs, found ")),
        "{out}"
    );
    assert!(!out.contains("test result: ok"), "{out}");
    assert!(!out.contains("must end the process"), "{out}");
}

#[test]
fn the_wrong_backend_ends_77_naming_it() {
    let (code, out) = run_alone(
        "needs_the_hip_backend",
        &[("ANYCUDA_BACKEND", "cuda"), ("ANYCUDA_TEST_GPUS", "1")],
    );
    assert_eq!(code, Some(NOT_RUN), "{out}");
    assert!(
        out.contains("not run: needs a GPU, HIP backend; ANYCUDA_BACKEND=cuda"),
        "{out}"
    );
    // Met (one GPU counted, HIP chosen): the test runs and passes.
    let (code, out) = run_alone(
        "needs_the_hip_backend",
        &[("ANYCUDA_BACKEND", "hip"), ("ANYCUDA_TEST_GPUS", "1")],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("test result: ok. 1 passed"), "{out}");
}

#[test]
fn no_gpu_where_one_is_required_is_a_failure() {
    let (code, out) = run_alone(
        "needs_the_hip_backend",
        &[("ANYCUDA_REQUIRE_GPU", "1"), ("ANYCUDA_TEST_GPUS", "0")],
    );
    assert_eq!(code, Some(101), "{out}");
    assert!(
        out.contains("ANYCUDA_REQUIRE_GPU=1 says this machine has one"),
        "{out}"
    );
}

#[test]
fn a_feature_absent_ends_78_with_its_reason() {
    let (code, out) = run_alone("reports_not_applicable", &[]);
    assert_eq!(code, Some(NOT_APPLICABLE), "{out}");
    assert!(
        out.lines().any(|l| l == "N/A: this feature is absent here"),
        "{out}"
    );
}

#[test]
#[ignore = "run as a child process by a_childs_outcome_is_passed_on"]
fn passes_on_its_childs_outcome() {
    // The pattern of GPU tests that re-run themselves in a child: the child is N/A here.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "reports_not_applicable",
            "--nocapture",
        ])
        .output()
        .unwrap();
    anycuda_test::pass_on_child(&out);
    panic!(
        "pass_on_child returned for a child that ended {:?}",
        out.status
    );
}

#[test]
fn a_childs_outcome_is_passed_on() {
    let (code, out) = run_alone("passes_on_its_childs_outcome", &[]);
    assert_eq!(code, Some(NOT_APPLICABLE), "{out}");
    assert!(
        out.lines()
            .any(|l| l == "N/A: this feature is absent here (in a child process)"),
        "{out}"
    );
    // Any other status is the caller's to check: pass_on_child returns.
    let ok = Command::new("true").output().unwrap();
    anycuda_test::pass_on_child(&ok);
}
