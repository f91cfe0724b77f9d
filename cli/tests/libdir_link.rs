//! Linking against `anycuda libdir` alone (docs/c-abi.md, "Linking against the libdir"): a C
//! program built against NVIDIA's headers is linked with `cc -L"$(anycuda libdir)" -lcuda
//! -lcudart -lnvrtc` by GNU ld (and by gold and lld where they are installed), records NVIDIA's
//! sonames and symbol versions and nothing of anycuda's, and runs: on the HIP backend with every
//! answer anycuda's (`tests/libdir_link.c` says what it checks), and with NVIDIA's own
//! `libcudart.so.13` and `libnvrtc.so.13` in their place, unchanged.
//!
//! Needs the built C-ABI library next to the `anycuda` executable (`cargo build -p
//! anycuda-capi`; ci/test.sh builds it), NVIDIA's headers and libraries from PyPI (`CUDA_PATH`,
//! ci/fetch-inputs.sh), ROCm 5.2.3 and a C compiler. Under `CI=true` a missing one fails the
//! test; elsewhere it is skipped with a notice.

// The workspace tests' one support module (real libraries only; CI fails where one is missing).
#[path = "../../tests/common/mod.rs"]
mod common;

use anycuda::{CudaEnum, Origin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root (the folder above this package's).
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Skips (`None`) off CI, fails on CI: `what` is missing.
fn missing<T>(what: &str) -> Option<T> {
    assert!(
        !common::on_ci(),
        "CI=true and {what} (ci/test.sh builds and fetches everything)"
    );
    eprintln!("SKIP: {what}");
    None
}

/// The `anycuda` executable under test.
fn anycuda_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_anycuda"))
}

/// The C-ABI library `anycuda libdir` uses (next to the executable), refused when older than
/// its crate's sources: cargo does not rebuild it for this package's tests.
fn capi_library() -> Option<PathBuf> {
    let lib = anycuda_bin().with_file_name("libanycuda_capi.so");
    if !lib.is_file() {
        return missing(&format!(
            "{} is not built (cargo build -p anycuda-capi)",
            lib.display()
        ));
    }
    let built = std::fs::metadata(&lib).and_then(|m| m.modified()).unwrap();
    let mut stack = vec![root().join("capi/src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
                assert!(
                    m <= built,
                    "{} is newer than {}: cargo build -p anycuda-capi first",
                    p.display(),
                    lib.display()
                );
            }
        }
    }
    Some(lib)
}

/// `CUDA_PATH`: NVIDIA's CUDA 13 headers and libraries from PyPI (ci/fetch-inputs.sh).
fn cuda_path() -> Option<PathBuf> {
    let p = std::env::var_os("CUDA_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".cache/inputs/cuda/nvidia/cu13"));
    let wanted = [
        "include/cuda.h",
        "lib/libcudart.so.13",
        "lib/libnvrtc.so.13",
    ];
    if wanted.iter().all(|f| p.join(f).is_file()) {
        return Some(p);
    }
    missing(&format!(
        "no CUDA 13 headers and libraries under {} (run ci/fetch-inputs.sh, set CUDA_PATH)",
        p.display()
    ))
}

fn run(cmd: &mut Command) -> Output {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        o.status.success(),
        "{cmd:?} failed: {}\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The folder `anycuda libdir` prints, for the library next to the executable.
fn libdir() -> PathBuf {
    let o = run(Command::new(anycuda_bin())
        .arg("libdir")
        .env_remove("ANYCUDA_CAPI_LIBRARY"));
    PathBuf::from(text(&o).trim())
}

/// Whether `cc -fuse-ld=NAME` links here (with `extra` flags): the optional linkers.
fn linker_works(work: &Path, name: &str, extra: &[String]) -> bool {
    let src = work.join(format!("probe-{name}.c"));
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(work.join(format!("probe-{name}")))
        .arg(format!("-fuse-ld={name}"))
        .args(extra)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The `-B` folder of the Rust toolchain's `ld.lld` (`rustc --print sysroot`), if there is one.
fn rust_lld_dir() -> Option<PathBuf> {
    let o = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let lib = sysroot.join("lib/rustlib");
    std::fs::read_dir(lib)
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin/gcc-ld"))
        .find(|d| d.join("ld.lld").is_file())
}

/// What the dynamic section and symbol table of the linked program say: its `NEEDED` entries,
/// and its undefined dynamic symbols with their versions (`nm -D`).
fn needed_and_refs(app: &Path) -> (Vec<String>, Vec<String>) {
    let d = text(&run(Command::new("readelf").arg("-dW").arg(app)));
    let needed = d
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split('[').nth(1)?.trim_end_matches(']').to_string()))
        .collect();
    let s = text(&run(Command::new("nm")
        .args(["-D", "--undefined-only"])
        .arg(app)));
    let refs = s
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(String::from))
        .collect();
    (needed, refs)
}

/// A CUresult that only anycuda names (a HIP error with no CUDA counterpart), and its name.
fn hallucinated_code() -> (i64, &'static str) {
    anycuda::driver::CUresult::CONSTANTS
        .iter()
        .find(|c| matches!(c.origin, Origin::Hallucinated { .. }))
        .map(|c| (c.value, c.name))
        .expect("CUresult has hallucinated constants")
}

/// Runs the linked program; fails on its failed checks and on any complaint of the loader.
fn run_app(app: &Path, args: &[&str], ld_library_path: Option<&str>) -> String {
    let mut cmd = Command::new(app);
    cmd.args(args)
        .env("ANYCUDA_BACKEND", "hip")
        .env("ANYCUDA_CACHE_DISABLE", "1")
        .env_remove("ANYCUDA_LOG")
        .env_remove("ANYCUDA_REQUIRE_GPU")
        // cargo puts its own folders on the library path: the program's own run path decides.
        .env_remove("LD_LIBRARY_PATH");
    if let Some(p) = ld_library_path {
        cmd.env("LD_LIBRARY_PATH", p);
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", app.display()));
    let (out, err) = (text(&o), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(
        o.status.success() && !out.contains("FAIL "),
        "{} {args:?}: {}\n{out}{err}",
        app.display(),
        o.status
    );
    for complaint in [
        "no version information",
        "Inconsistency detected",
        "symbol lookup error",
    ] {
        assert!(
            !err.contains(complaint),
            "{} {args:?}: {err}",
            app.display()
        );
    }
    out
}

#[test]
fn a_c_program_links_against_the_libdir_alone_and_runs_on_anycuda_and_on_nvidia() {
    let Some(_) = capi_library() else { return };
    let Some(cuda) = cuda_path() else { return };
    // The C-ABI library runs the program on HIP (ROCm 5.2.3: hipRTC compiles without a GPU).
    let Some(_) = common::compiler(anycuda::BackendKind::Hip) else {
        return;
    };
    let work = std::env::temp_dir().join(format!("anycuda-libdir-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let dir = libdir();

    // GNU ld (cc's default) always; gold and lld where this machine has them.
    let mut linkers: Vec<(&str, Vec<String>)> = vec![("bfd", vec![])];
    if linker_works(&work, "gold", &[]) {
        linkers.push(("gold", vec![]));
    } else {
        eprintln!("note: no gold here (cc -fuse-ld=gold): not linked with it");
    }
    match rust_lld_dir() {
        Some(b) if linker_works(&work, "lld", &[format!("-B{}", b.display())]) => {
            linkers.push(("lld", vec![format!("-B{}", b.display())]));
        }
        _ => eprintln!("note: no lld here (the Rust toolchain's gcc-ld): not linked with it"),
    }
    let (code, name) = hallucinated_code();
    let code = code.to_string();
    let mut apps = Vec::new();
    for (linker, extra) in &linkers {
        let app = work.join(format!("app-{linker}"));
        run(Command::new("cc")
            .args(["-Wall", "-Werror", "-O1"])
            .arg(format!("-I{}", cuda.join("include").display()))
            // NVIDIA's runtime wheel lacks crt/host_defines.h (it ships with nvcc): codegen's.
            .arg(format!("-I{}", root().join("codegen/shim").display()))
            .arg(root().join("tests/libdir_link.c"))
            .arg("-o")
            .arg(&app)
            .arg(format!("-L{}", dir.display()))
            .args(["-lcuda", "-lcudart", "-lnvrtc"])
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg(format!("-fuse-ld={linker}"))
            .args(extra));

        // NVIDIA's sonames only, and NVIDIA's versions on the runtime's and NVRTC's names.
        let (needed, refs) = needed_and_refs(&app);
        let mut libs = needed.clone();
        libs.sort();
        assert_eq!(
            libs,
            [
                "libc.so.6",
                "libcuda.so.1",
                "libcudart.so.13",
                "libnvrtc.so.13"
            ],
            "{linker}: NEEDED {needed:?}"
        );
        for want in [
            "cuInit",
            "cuMemAlloc_v2",
            "cudaGetDeviceCount@libcudart.so.13",
            "cudaMalloc@libcudart.so.13",
            "nvrtcVersion@libnvrtc.so.13",
            "nvrtcCompileProgram@libnvrtc.so.13",
        ] {
            assert!(
                refs.iter().any(|r| r == want),
                "{linker}: no {want} in {refs:?}"
            );
        }
        assert!(
            refs.iter()
                .filter(|r| r.starts_with("cu") && !r.starts_with("cuda"))
                .all(|r| !r.contains('@')),
            "{linker}: libcuda.so.1 is unversioned, as NVIDIA's: {refs:?}"
        );

        // Every answer anycuda's, on the HIP backend (no GPU here).
        let out = run_app(&app, &["anycuda", &code, name], None);
        assert!(out.contains("AMD GPU code object"), "{linker}: {out}");
        apps.push(app);
    }

    // The same binary on NVIDIA's libcudart.so.13 and libnvrtc.so.13 (PyPI's; no driver here,
    // so libcuda.so.1 stays anycuda's): its versioned references bind to NVIDIA's files.
    let mix = work.join("mix");
    std::fs::create_dir_all(&mix).unwrap();
    std::fs::copy(dir.join("libcuda.so.1"), mix.join("libcuda.so.1")).unwrap();
    std::os::unix::fs::symlink(
        std::fs::canonicalize(dir.join("libanycuda_capi.so")).unwrap(),
        mix.join("libanycuda_capi.so"),
    )
    .unwrap();
    let path = format!("{}:{}", cuda.join("lib").display(), mix.display());
    let out = run_app(&apps[0], &["nvidia"], Some(&path));
    assert!(out.contains("PTX with the entry twice"), "{out}");
    std::fs::remove_dir_all(&work).unwrap();
}

/// A C-ABI library that lacks some of the exports anycuda's lists name (an older build, named
/// by `ANYCUDA_CAPI_LIBRARY`): the name libraries leave those names out, and say so, so a
/// program using one fails to link instead of failing to start.
#[test]
fn the_name_libraries_leave_out_what_the_library_does_not_define() {
    let has_cc = Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_cc {
        let _: Option<()> = missing("no C compiler (cc)");
        return;
    }
    let work = std::env::temp_dir().join(format!("anycuda-libdir-older-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let src = work.join("older.c");
    std::fs::write(
        &src,
        "int cuInit(unsigned f) { return (int)f; }\nint cudaMalloc(void **p, unsigned long n) { return 0; }\nint nvrtcVersion(int *a, int *b) { return 0; }\n",
    )
    .unwrap();
    let lib = work.join("libanycuda_capi.so");
    run(Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src));
    let o = run(Command::new(anycuda_bin())
        .arg("libdir")
        .env("ANYCUDA_CAPI_LIBRARY", &lib));
    let dir = PathBuf::from(text(&o).trim());
    assert_eq!(dir, work.join("anycuda-c-abi"));
    let err = String::from_utf8_lossy(&o.stderr);
    for lib in ["libcuda.so.1", "libcudart.so.13", "libnvrtc.so.13"] {
        assert!(err.contains(&format!("{lib} leaves them out")), "{err}");
    }
    let defined = |f: &str| {
        let s = text(&run(Command::new("nm")
            .args(["-D", "--defined-only"])
            .arg(dir.join(f))));
        s.lines()
            .filter_map(|l| l.split_whitespace().last())
            .map(|n| n.split('@').next().unwrap_or(n).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(defined("libcuda.so.1"), ["cuInit"]);
    assert_eq!(defined("libcudart.so.13"), ["cudaMalloc"]);
    assert_eq!(defined("libnvrtc.so.13"), ["nvrtcVersion"]);
    std::fs::remove_dir_all(&work).unwrap();
}
