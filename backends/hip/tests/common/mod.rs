//! What the HIP backend's integration tests share: the backend loaded against the installed HIP
//! (CI: Debian's ROCm 5.2.3, no GPU; `bash ci/test.sh` installs it). Each test file takes it with
//! `mod common;` (one copy of the rule, not one per file).

#![allow(dead_code)] // each test file uses what it needs

use anycuda_api::backend::LibraryRole;
use anycuda_api::driver::CUresult;
use anycuda_api::traits::{Api, Driver};
use anycuda_hip::{HipBackend, Platform};

/// Whether this HIP backend loaded libamdhip64.
fn loaded(b: &HipBackend) -> bool {
    b.libraries()
        .iter()
        .any(|l| l.role == LibraryRole::Hip && l.status.is_ok())
}

/// The HIP backend, or `None` (the test says SKIP and returns) where libamdhip64 is missing off
/// CI. On CI (`CI=true`) a missing libamdhip64 fails the test: it never passes silently there.
pub fn hip() -> Option<HipBackend> {
    let b = HipBackend::load();
    if !loaded(&b) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "libamdhip64 must load on CI (bash ci/test.sh installs it)"
        );
        eprintln!("SKIP: libamdhip64 not found");
        return None;
    }
    Some(b)
}

/// The HIP backend, which must load everywhere (a missing libamdhip64 fails the test).
pub fn hip_required() -> HipBackend {
    let b = HipBackend::load();
    assert!(loaded(&b), "libamdhip64 must load (CI installs ROCm 5.2.3)");
    b
}

/// Whether HIP sees a device (then the no-device expectations do not apply).
pub fn has_device(b: &HipBackend) -> bool {
    let mut n = 0;
    // SAFETY: a local out-pointer.
    (unsafe { b.cuDeviceGetCount(&mut n) }) == CUresult::CUDA_SUCCESS && n > 0
}

/// The backend on AMD without a device (CI's machine), where the no-device answers are
/// checked; `None` elsewhere (a GPU, or HIP's NVIDIA platform), where those checks do not
/// apply. On CI a missing libamdhip64 fails (as [`hip`]).
pub fn amd_without_device() -> Option<HipBackend> {
    let b = hip()?;
    if b.platform() != Platform::Amd || has_device(&b) {
        eprintln!("SKIP: these checks are for AMD without a device");
        return None;
    }
    Some(b)
}

/// The HIP backend with a device, for the `#[gpu_test(backend = "hip")]` tests (ci/gpu-test.sh
/// runs them on the HIP backend; on its NVIDIA machine HIP's NVIDIA platform, named by
/// ANYCUDA_HIP_LIBRARY). Run where their need is met, they fail, never skip, when HIP or its
/// device is missing.
pub fn hip_with_device() -> HipBackend {
    let b = HipBackend::load();
    for l in b.libraries() {
        if let (LibraryRole::Hip, Err(e)) = (l.role, &l.status) {
            panic!("this test needs a GPU with HIP: libamdhip64 did not load ({e}); ANYCUDA_HIP_LIBRARY names the file");
        }
    }
    let mut n = 0;
    // SAFETY: a local out-pointer.
    let r = unsafe { (b.cuInit(0), b.cuDeviceGetCount(&mut n)) };
    assert!(
        r == (CUresult::CUDA_SUCCESS, CUresult::CUDA_SUCCESS) && n > 0,
        "this test needs a GPU: HIP sees none ({r:?}, {n} devices)"
    );
    b
}
