//! What the HIP backend's integration tests share: the backend loaded against the installed HIP
//! (CI: Debian's ROCm 5.2.3, no GPU; `bash ci/test.sh` installs it). Each test file takes it with
//! `mod common;` (one copy of the rule, not one per file).

#![allow(dead_code)] // each test file uses what it needs

use anycuda_api::backend::LibraryRole;
use anycuda_api::traits::Api;
use anycuda_hip::HipBackend;

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
