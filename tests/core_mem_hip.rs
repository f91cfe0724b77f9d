//! `anycuda::core` on the HIP backend, chosen with `select()` (its own test binary). Debian's
//! ROCm 5.2.3 loads without a GPU and `hipInit` reports no device: every device call answers
//! `CUDA_ERROR_NO_DEVICE`, and the versions are HIP's, decoded.

mod common;

use anycuda::core::system::{self, Version};
use anycuda::core::Device;
use anycuda::driver::CUresult;
use anycuda::{BackendChoice, BackendKind};

/// Selects HIP; `None` (skip) where its libraries are absent off CI.
fn select_hip() -> Option<anycuda::Backend> {
    let b = common::compiler(BackendKind::Hip)?;
    anycuda::select(BackendChoice::Only(BackendKind::Hip)).unwrap();
    assert_eq!(anycuda::backend().unwrap().kind(), BackendKind::Hip);
    Some(b)
}

#[test]
fn no_device_is_cuda_error_no_device() {
    let Some(b) = select_hip() else { return };
    if anycuda::device_count(b).is_ok_and(|n| n > 0) {
        let n = Device::count().unwrap();
        assert_eq!(
            Device::new(n).unwrap_err().driver_code(),
            Some(CUresult::CUDA_ERROR_INVALID_DEVICE)
        );
        return;
    }
    for e in [
        Device::count().unwrap_err(),
        Device::new(0).unwrap_err(),
        Device::all().unwrap_err(),
    ] {
        assert_eq!(e.driver_code(), Some(CUresult::CUDA_ERROR_NO_DEVICE), "{e}");
        assert_eq!(e.call(), "cuInit");
        assert!(e.detail().unwrap().contains("hip backend"), "{e:?}");
        assert!(!e.is_not_supported());
    }
}

#[test]
fn versions_are_hips_decoded() {
    let Some(_) = select_hip() else { return };
    assert_eq!(system::backend_kind().unwrap(), BackendKind::Hip);
    let d = system::driver_version().unwrap();
    let r = system::runtime_version().unwrap();
    // HIP's encoding (ROCm 5.2.3 here: 50221153); on HIP's NVIDIA platform, CUDA's.
    assert!(d.major >= 5, "{d:?}");
    assert_eq!(d, Version::from_raw(d.raw));
    assert!(r.major >= 5, "{r:?}");
    let roles: Vec<_> = system::backend_info()
        .unwrap()
        .libraries
        .iter()
        .map(|l| l.role.to_string())
        .collect();
    assert_eq!(roles, ["hip", "hiprtc"]);
}
