//! The CUDA libraries' C drop-ins (`libcublas.so.13`, `libcublasLt.so.13`, `libcurand.so.10`,
//! `libcufft.so.12`, `libnccl.so.2`, `libnvJitLink.so.13`): the C-ABI library's exports against NVIDIA's real
//! libraries (the pinned wheels) and headers, and `anycuda libdir`'s name libraries for them
//! against NVIDIA's sonames and symbol versions.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One library: its soname, its exports' prefix (and a longer prefix that is another
/// library's), the header a C program includes, the include folders it needs (codegen's
/// shims stand in for NVIDIA's C++-only headers) and the defines.
struct Lib {
    soname: &'static str,
    prefix: &'static str,
    not_prefix: Option<&'static str>,
    header: &'static str,
    includes: Vec<PathBuf>,
    defines: &'static [&'static str],
    /// NVIDIA's library defines this version node (NCCL none).
    versioned: bool,
    /// Names a header declares and NVIDIA's library exports that the C ABI leaves out, each
    /// with the reason (codegen: `CExports::leave_out`).
    left_out: &'static [&'static str],
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// NCCL's wheel (ci/nccl-fetch.sh).
fn nccl_root() -> PathBuf {
    let p = repo().join(".cache/inputs/nccl/nvidia/nccl");
    assert!(
        p.join("include/nccl.h").is_file(),
        "no NCCL wheel under {} (run ci/fetch-inputs.sh)",
        p.display()
    );
    p
}

fn libs() -> Vec<(Lib, PathBuf)> {
    let cuda = cuda_path();
    let inc = cuda.join("include");
    let shim = repo().join("codegen/shim");
    let nccl = nccl_root();
    vec![
        (
            Lib {
                soname: "libcublas.so.13",
                prefix: "cublas",
                not_prefix: Some("cublasLt"),
                header: "cublas_api.h",
                includes: vec![shim.join("cublas"), shim.join("curand"), inc.clone()],
                defines: &[],
                versioned: true,
                left_out: &[],
            },
            cuda.join("lib/libcublas.so.13"),
        ),
        (
            Lib {
                soname: "libcublasLt.so.13",
                prefix: "cublasLt",
                not_prefix: None,
                header: "cublasLt.h",
                includes: vec![shim.join("cublas"), inc.clone()],
                defines: &[],
                versioned: true,
                left_out: &[],
            },
            cuda.join("lib/libcublasLt.so.13"),
        ),
        (
            Lib {
                soname: "libcurand.so.10",
                prefix: "curand",
                not_prefix: None,
                header: "curand.h",
                includes: vec![shim.join("curand"), inc.clone()],
                defines: &[],
                versioned: true,
                left_out: &[],
            },
            cuda.join("lib/libcurand.so.10"),
        ),
        (
            Lib {
                soname: "libcufft.so.12",
                prefix: "cufft",
                not_prefix: None,
                header: "cufft.h",
                includes: vec![shim.join("curand"), inc.clone()],
                defines: &[],
                versioned: true,
                left_out: &[],
            },
            cuda.join("lib/libcufft.so.12"),
        ),
        (
            Lib {
                soname: "libnccl.so.2",
                prefix: "nccl",
                not_prefix: None,
                header: "nccl.h",
                includes: vec![nccl.join("include"), shim.join("nccl"), inc.clone()],
                defines: &[],
                versioned: false,
                left_out: &[],
            },
            nccl.join("lib/libnccl.so.2"),
        ),
        (
            Lib {
                soname: "libnvJitLink.so.13",
                prefix: "nvJitLink",
                not_prefix: None,
                header: "nvJitLink.h",
                includes: vec![inc.clone()],
                defines: &["NVJITLINK_NO_INLINE"],
                versioned: true,
                // Not in NVIDIA's 13.0 library: cuda.bindings' tests probe for them and expect
                // what that library shows (codegen/src/nvjitlink.rs).
                left_out: &["nvJitLinkGetLinkedLTOIR", "nvJitLinkGetLinkedLTOIRSize"],
            },
            cuda.join("lib/libnvJitLink.so.13"),
        ),
        (
            Lib {
                soname: "libcusparse.so.12",
                prefix: "cusparse",
                not_prefix: None,
                header: "cusparse.h",
                includes: vec![inc.clone()],
                defines: &[],
                versioned: true,
                left_out: &[],
            },
            cuda.join("lib/libcusparse.so.12"),
        ),
    ]
}

/// `name` with nvJitLink's header-version suffix (`__nvJitLinkCreate_13_5`) taken off, so the
/// versioned names count as the function they stand for.
fn plain(name: &str) -> String {
    match name.strip_prefix("__").and_then(|n| n.rsplit_once("_13_")) {
        Some((n, v)) if v.parse::<u32>().is_ok() => n.to_string(),
        _ => name.to_string(),
    }
}

fn of(lib: &Lib, names: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    names
        .into_iter()
        .filter(|n| {
            let p = plain(n);
            p.starts_with(lib.prefix) && lib.not_prefix.is_none_or(|q| !p.starts_with(q))
        })
        .collect()
}

/// Every export is a name NVIDIA's library exports, and every function NVIDIA's library exports
/// that its header declares is exported (less the named leave-outs): what a C program built
/// against NVIDIA's headers calls, it finds.
#[test]
fn each_librarys_exports_are_nvidias_public_functions() {
    let ours_all = defined_symbols(&library());
    for (lib, real_path) in libs() {
        let ours = of(&lib, ours_all.iter().cloned());
        let real = of(&lib, defined_symbols(&real_path));
        assert!(ours.len() >= 10, "{}: {} exports", lib.soname, ours.len());
        let foreign: Vec<_> = ours.difference(&real).collect();
        assert!(
            foreign.is_empty(),
            "{}: exported but not in NVIDIA's {}: {foreign:?}",
            lib.soname,
            real_path.display()
        );
        let includes: Vec<&Path> = lib.includes.iter().map(PathBuf::as_path).collect();
        let declared = of(
            &lib,
            declared_functions_with(&includes, lib.header, lib.defines),
        );
        assert!(
            declared.len() >= 10,
            "{}: {} declared",
            lib.soname,
            declared.len()
        );
        let missing: BTreeSet<&String> = declared
            .intersection(&real)
            .filter(|n| !ours.contains(*n))
            .collect();
        let expected: BTreeSet<&String> = missing
            .iter()
            .copied()
            .filter(|n| lib.left_out.contains(&plain(n).as_str()))
            .collect();
        assert_eq!(
            missing, expected,
            "{}: declared by {} and exported by NVIDIA, not by anycuda",
            lib.soname, lib.header
        );
        for n in lib.left_out {
            assert!(!ours.contains(*n), "{}: {n} is exported", lib.soname);
        }
        eprintln!(
            "{}: {} exports; NVIDIA's {}: {} names, {} declared by {}",
            lib.soname,
            ours.len(),
            real_path.display(),
            real.len(),
            declared.len(),
            lib.header
        );
    }
}

/// cuBLAS's legacy API (`cublas.h`, no handle; deprecated since CUDA 4) is the one declared
/// family NVIDIA's library exports that anycuda does not serve: named here by class (the
/// names `cublas.h` declares beyond `cublas_api.h`), so a gap of another kind fails above.
#[test]
fn the_legacy_cublas_api_is_the_cublas_gap() {
    let (lib, real_path) = libs().remove(0);
    let includes: Vec<&Path> = lib.includes.iter().map(PathBuf::as_path).collect();
    let legacy: BTreeSet<String> = of(&lib, declared_functions_with(&includes, "cublas.h", &[]))
        .difference(&of(
            &lib,
            declared_functions_with(&includes, "cublas_api.h", &[]),
        ))
        .cloned()
        .collect();
    let ours = of(&lib, defined_symbols(&library()));
    let real = of(&lib, defined_symbols(&real_path));
    assert!(legacy.len() > 100, "{} legacy names", legacy.len());
    assert!(legacy.contains("cublasSgemm") && legacy.contains("cublasInit"));
    assert!(legacy.iter().all(|n| real.contains(n) && !ours.contains(n)));
}

/// `anycuda libdir`'s name library of each: NVIDIA's soname, its version node on every
/// function (none for NCCL, as NVIDIA's), the C-ABI library as its dependency, and the
/// development name (`libcublas.so`) pointing at it.
#[test]
fn name_libraries_carry_nvidias_sonames_and_versions() {
    let lib = library();
    let exe = [
        lib.with_file_name("anycuda"),
        lib.parent().unwrap().with_file_name("anycuda"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .expect("the anycuda CLI is not built next to the C-ABI library: cargo build -p anycuda-cli");
    let dir = std::env::temp_dir().join(format!("anycuda-capi-libs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let capi = dir.join("libanycuda_capi.so");
    let _ = std::fs::remove_file(&capi);
    std::os::unix::fs::symlink(&lib, &capi).unwrap();
    let out = Command::new(&exe)
        .arg("libdir")
        .env("ANYCUDA_CAPI_LIBRARY", &capi)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let folder = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let ours = defined_symbols(&lib);
    for (l, real_path) in libs() {
        let shim = folder.join(l.soname);
        let d = Command::new("readelf")
            .arg("-d")
            .arg(&shim)
            .output()
            .unwrap();
        let d = String::from_utf8_lossy(&d.stdout);
        assert!(
            d.contains(&format!("Library soname: [{}]", l.soname)),
            "{d}"
        );
        assert!(d.contains("Shared library: [libanycuda_capi.so]"), "{d}");
        let nm = Command::new("nm")
            .args(["-D", "--defined-only"])
            .arg(&shim)
            .output()
            .unwrap();
        let nm = String::from_utf8_lossy(&nm.stdout);
        let mut names = BTreeSet::new();
        for sym in nm.lines().filter_map(|x| x.split_whitespace().nth(2)) {
            let (name, version) = sym.split_once("@@").unwrap_or((sym, ""));
            if name == l.soname {
                continue; // the version node's own symbol
            }
            let want = if l.versioned { l.soname } else { "" };
            assert_eq!(version, want, "{}: {sym}", l.soname);
            names.insert(name.to_string());
        }
        assert_eq!(names, of(&l, ours.iter().cloned()), "{}", l.soname);
        // NVIDIA's library versions the same way.
        let real = Command::new("nm")
            .args(["-D", "--defined-only"])
            .arg(&real_path)
            .output()
            .unwrap();
        let real = String::from_utf8_lossy(&real.stdout);
        let sample = names.iter().next().unwrap();
        let tail = if l.versioned {
            format!(" {sample}@@{}", l.soname)
        } else {
            format!(" {sample}")
        };
        assert!(
            real.lines().any(|x| x.ends_with(&tail)),
            "{}: NVIDIA's {sample} is not `{tail}`",
            l.soname
        );
        let dev = folder.join(l.soname.rsplit_once(".so").unwrap().0.to_string() + ".so");
        assert_eq!(
            std::fs::canonicalize(&dev).unwrap(),
            std::fs::canonicalize(&shim).unwrap(),
            "{}",
            dev.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
