//! `anycuda run -- CMD`: the program runs with anycuda's C ABI first on the library path and
//! preloaded, with its own exit status, and a Python program that loads NVIDIA's sonames gets
//! anycuda's (docs/cli.md, "run").

// The workspace tests' one support module (real libraries only; CI fails where one is missing).
#[path = "../../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> String {
    std::env::var("ANYCUDA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_anycuda").to_string())
}

/// `anycuda libdir`, or `None` (skip) off CI when the C-ABI library is not built next to the
/// binary (`cargo build -p anycuda-capi`; ci/test.sh builds it).
fn libdir() -> Option<PathBuf> {
    let o = Command::new(bin()).arg("libdir").output().unwrap();
    if !o.status.success() {
        let why = String::from_utf8_lossy(&o.stderr);
        assert!(!common::on_ci(), "anycuda libdir failed on CI: {why}");
        eprintln!("SKIP: {why}");
        return None;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
}

/// `anycuda run ARGS` with these variables set and these removed.
fn run(args: &[&str], set: &[(&str, &str)], unset: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.arg("run").args(args);
    for u in unset {
        c.env_remove(u);
    }
    let o = c.envs(set.iter().copied()).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("panicked"),
        "{o:?}"
    );
    o
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_c_abi_folder_leads_the_library_path_and_is_preloaded() {
    let Some(dir) = libdir() else { return };
    let dir = dir.to_string_lossy().into_owned();
    let o = run(
        &[
            "--",
            "sh",
            "-c",
            "echo \"$LD_LIBRARY_PATH\"; echo \"$LD_PRELOAD\"",
        ],
        &[("LD_LIBRARY_PATH", "/somewhere/else"), ("LD_PRELOAD", "")],
        &[],
    );
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{dir}:/somewhere/else").as_str())
    );
    assert_eq!(lines.next(), Some(format!("{dir}/libcuda.so.1").as_str()));
    // Nested runs (a program under `anycuda run` starting another) keep one copy of each.
    let o = run(
        &[
            "--",
            &bin(),
            "run",
            "--",
            "sh",
            "-c",
            "echo \"$LD_LIBRARY_PATH\"; echo \"$LD_PRELOAD\"",
        ],
        &[],
        &["LD_LIBRARY_PATH", "LD_PRELOAD"],
    );
    assert_eq!(stdout(&o), format!("{dir}\n{dir}/libcuda.so.1\n"), "{o:?}");
}

#[test]
fn the_exit_status_is_the_programs_and_the_backend_is_passed_on() {
    if libdir().is_none() {
        return;
    }
    let o = run(&["--", "sh", "-c", "exit 7"], &[], &[]);
    assert_eq!(o.status.code(), Some(7), "{o:?}");
    // ANYCUDA_BACKEND as the user set it, unless --backend says otherwise.
    let show = ["sh", "-c", "echo \"${ANYCUDA_BACKEND-unset}\""];
    let o = run(
        &[&["--"], &show[..]].concat(),
        &[("ANYCUDA_BACKEND", "hip")],
        &[],
    );
    assert_eq!(stdout(&o), "hip\n");
    let o = run(&[&["--"], &show[..]].concat(), &[], &["ANYCUDA_BACKEND"]);
    assert_eq!(stdout(&o), "unset\n");
    for (arg, want) in [
        ("cuda", "cuda"),
        ("nvidia", "cuda"),
        ("amd", "hip"),
        ("auto", "auto"),
    ] {
        let o = run(
            &[&["--backend", arg, "--"], &show[..]].concat(),
            &[("ANYCUDA_BACKEND", "hip")],
            &[],
        );
        assert_eq!(stdout(&o), format!("{want}\n"), "--backend {arg}: {o:?}");
    }
    // A program that is not there: the shell's 127 and a message.
    let o = run(&["--", "anycuda-no-such-program"], &[], &[]);
    assert_eq!(o.status.code(), Some(127), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("anycuda-no-such-program"));
}

/// Python that opens NVIDIA's NVRTC by soname, as cuda-python does, and asks its version.
const PY: &str = r#"
import ctypes
lib = ctypes.CDLL("libnvrtc.so.13")
major, minor = ctypes.c_int(), ctypes.c_int()
rc = lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
files = {l.split()[-1] for l in open("/proc/self/maps") if l.split()[-1].startswith("/")}
print("capi", any(f.endswith("/libanycuda_capi.so") for f in files))
print("vendor-nvrtc", any(f.endswith("/nvidia/cu13/lib/libnvrtc.so.13") for f in files))
print("version", rc, major.value, minor.value)
"#;

fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .arg("-c")
        .arg("pass")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(!common::on_ci(), "python3 is missing on CI");
        eprintln!("SKIP: no python3");
        return None;
    }
    Some("python3")
}

#[test]
fn python_loading_nvrtc_by_soname_gets_anycudas_c_abi() {
    if libdir().is_none() {
        return;
    }
    let Some(py) = python() else { return };
    let o = run(
        &["--backend", "cuda", "--", py, "-c", PY],
        &[],
        &["VIRTUAL_ENV", "CONDA_PREFIX", "ANYCUDA_SITE_PACKAGES"],
    );
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).contains("capi True"), "{o:?}");
}

/// The whole story: under `anycuda run`, Python's `libnvrtc.so.13` is anycuda's, and anycuda
/// (the CUDA backend inside the C ABI) finds NVIDIA's real NVRTC in the virtual environment's
/// wheel, past its own name library that is already loaded under that soname.
#[test]
fn anycuda_inside_python_finds_nvidias_nvrtc_in_the_virtual_environment() {
    if libdir().is_none() {
        return;
    }
    let Some(py) = python() else { return };
    let real = common::repo_root().join(".cache/inputs/cuda/nvidia/cu13/lib");
    if !real.join("libnvrtc.so.13").is_file() {
        assert!(!common::on_ci(), "no NVRTC in {}", real.display());
        eprintln!("SKIP: no NVRTC in {}", real.display());
        return;
    }
    let venv = std::env::temp_dir().join(format!("anycuda-run-venv-{}", std::process::id()));
    let lib = venv.join("lib/python3.11/site-packages/nvidia/cu13/lib");
    std::fs::create_dir_all(&lib).unwrap();
    for e in std::fs::read_dir(&real).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("libnvrtc") {
            let _ = std::fs::remove_file(lib.join(&n));
            std::os::unix::fs::symlink(e.path(), lib.join(&n)).unwrap();
        }
    }
    let o = run(
        &["--backend", "cuda", "--", py, "-c", PY],
        &[("VIRTUAL_ENV", venv.to_str().unwrap())],
        &[
            "CONDA_PREFIX",
            "ANYCUDA_SITE_PACKAGES",
            "ANYCUDA_NVRTC_LIBRARY",
            "CUDA_PATH",
            "CUDA_HOME",
        ],
    );
    let _ = std::fs::remove_dir_all(&venv);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(out.contains("capi True"), "{out}");
    assert!(out.contains("version 0 13 "), "{out}");
    // The symlink resolves to the unpacked wheel's file, whose path ends the same way.
    assert!(out.contains("vendor-nvrtc True"), "{out}");
}
