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
