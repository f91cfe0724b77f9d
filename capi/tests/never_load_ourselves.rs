//! anycuda's library search refuses anycuda's own C ABI under a vendor's soname, with a clear
//! reason, and goes on: a folder of symlinks named like NVIDIA's libraries, pointing at the
//! C-ABI library (what `anycuda libdir` makes), found by path.

mod common;
use anycuda_api::error::LoadError;
use anycuda_api::loader::Search;
use common::*;

#[test]
fn a_folder_of_vendor_sonames_pointing_at_the_capi_library_is_refused() {
    let lib = library();
    let dir = std::env::temp_dir().join(format!("anycuda-capi-self-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lib64")).unwrap();
    for n in ["libcuda.so.1", "libcudart.so.13"] {
        let at = dir.join("lib64").join(n);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(&lib, &at).unwrap();
    }
    // SAFETY: set before anything in this process reads it (one test in this file).
    unsafe { std::env::set_var("ANYCUDA_CAPI_TEST_ROOT", &dir) };
    let search = Search {
        library: "CUDA driver (libcuda)",
        explicit_env: "ANYCUDA_CAPI_TEST_UNSET",
        sonames: &["libcuda.so.1", "libcudart.so.13"],
        root_envs: &["ANYCUDA_CAPI_TEST_ROOT"],
        lib_dirs: &["lib64"],
        default_roots: &[],
    };
    let err = search
        .open()
        .expect_err("anycuda's own library must be refused");
    let LoadError::NotFound { tried, .. } = &err else {
        panic!("{err}");
    };
    for n in ["libcuda.so.1", "libcudart.so.13"] {
        let p = dir.join("lib64").join(n).display().to_string();
        assert!(
            tried.iter().any(|t| t.starts_with(&p)
                && t.contains("anycuda's own C ABI")
                && t.contains("never loads itself")),
            "{p} not refused with the reason: {tried:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `anycuda libdir`'s name libraries are anycuda too (refused), while a vendor library that
/// merely depends on one of them, as HIP's NVIDIA platform depends on `libcuda.so.1`, is the
/// vendor's (accepted): the marker is reachable from both handles, and only where it is defined
/// decides. Fails if the loader goes back to "the marker resolves, so refuse".
#[test]
fn name_libraries_are_refused_and_a_vendor_library_needing_one_is_not() {
    let lib = library();
    // The CLI, in the profile folder (the library may be found in its deps/ folder).
    let exe = [
        lib.with_file_name("anycuda"),
        lib.parent().unwrap().with_file_name("anycuda"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .expect("the anycuda CLI is not built next to the C-ABI library: cargo build -p anycuda");
    let dir = std::env::temp_dir().join(format!("anycuda-capi-vendor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let capi = dir.join("libanycuda_capi.so");
    let _ = std::fs::remove_file(&capi);
    std::os::unix::fs::symlink(&lib, &capi).unwrap();
    let out = std::process::Command::new(&exe)
        .arg("libdir")
        .env("ANYCUDA_CAPI_LIBRARY", &capi)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let folder = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // A vendor library needing anycuda's libcuda.so.1 (found through its rpath).
    std::fs::write(
        dir.join("vendor.c"),
        "int cuInit(unsigned);\nint vendor_init(void) { return cuInit(0); }\n",
    )
    .unwrap();
    let vendor = dir.join("libvendor.so");
    let cc = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&vendor)
        .arg(dir.join("vendor.c"))
        .arg(folder.join("libcuda.so.1"))
        .arg(format!("-Wl,-rpath,{}", folder.display()))
        .output()
        .unwrap();
    assert!(cc.status.success(), "{cc:?}");
    let open = |path: &std::path::Path| {
        // SAFETY: set before this search reads it; each test uses its own variable.
        unsafe { std::env::set_var("ANYCUDA_CAPI_TEST_FILE", path) };
        Search {
            library: "test library",
            explicit_env: "ANYCUDA_CAPI_TEST_FILE",
            sonames: &[],
            root_envs: &[],
            lib_dirs: &[],
            default_roots: &[],
        }
        .open()
    };
    for n in ["libcuda.so.1", "libcudart.so.13", "libnvrtc.so.13"] {
        let err = open(&folder.join(n)).expect_err(n);
        assert!(
            err.to_string().contains("anycuda's own C ABI"),
            "{n}: {err}"
        );
    }
    let o =
        open(&vendor).expect("a vendor library that needs anycuda's libcuda.so.1 is not anycuda");
    assert!(!o.sym(c"vendor_init").is_null());
    let _ = std::fs::remove_dir_all(&dir);
}
