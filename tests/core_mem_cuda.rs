//! `anycuda::core` on the CUDA backend, chosen with `select()` (its own test binary: the
//! backend is fixed per process). Without libcuda (this CI machine) every device call answers
//! `CUDA_ERROR_NOT_INITIALIZED` naming the missing library; with a GPU the calls work.

mod common;

use anycuda::core::system;
use anycuda::core::Device;
use anycuda::driver::CUresult;
use anycuda::{BackendChoice, BackendKind};

/// Selects CUDA; `None` (skip) where its libraries are absent off CI.
fn cuda() -> Option<anycuda::Backend> {
    let b = common::compiler(BackendKind::Cuda)?;
    anycuda::select(BackendChoice::Only(BackendKind::Cuda)).unwrap();
    assert_eq!(anycuda::backend().unwrap().kind(), BackendKind::Cuda);
    Some(b)
}

fn driver_missing(b: anycuda::Backend) -> bool {
    b.libraries()
        .iter()
        .any(|l| l.role.to_string() == "driver" && l.status.is_err())
}

#[test]
fn device_calls_without_libcuda_name_the_missing_library() {
    let Some(b) = cuda() else { return };
    if !driver_missing(b) {
        // A machine with a driver: the calls work (or report no device as CUDA does).
        match Device::count() {
            Ok(n) => assert_eq!(
                Device::new(n).unwrap_err().driver_code(),
                Some(CUresult::CUDA_ERROR_INVALID_DEVICE)
            ),
            Err(e) => assert_eq!(e.driver_code(), Some(CUresult::CUDA_ERROR_NO_DEVICE), "{e}"),
        }
        return;
    }
    for e in [
        Device::count().unwrap_err(),
        Device::new(0).unwrap_err(),
        Device::new(7).unwrap_err(),
    ] {
        assert_eq!(
            e.driver_code(),
            Some(CUresult::CUDA_ERROR_NOT_INITIALIZED),
            "{e}"
        );
        assert_eq!(e.call(), "cuInit");
        let d = e.detail().unwrap();
        assert!(d.contains("cuda backend") && d.contains("libcuda"), "{d}");
        let text = e.to_string();
        assert!(
            text.starts_with("cuInit failed: CUDA_ERROR_NOT_INITIALIZED"),
            "{text}"
        );
    }
    let e = system::driver_version().unwrap_err();
    assert_eq!(e.driver_code(), Some(CUresult::CUDA_ERROR_NOT_INITIALIZED));
    assert!(e.detail().unwrap().contains("libcuda"), "{e}");
}

#[test]
fn system_reports_cuda_and_the_runtime_version() {
    let Some(b) = cuda() else { return };
    assert_eq!(system::backend_kind().unwrap(), BackendKind::Cuda);
    let info = system::backend_info().unwrap();
    let roles: Vec<_> = info.libraries.iter().map(|l| l.role.to_string()).collect();
    assert_eq!(roles, ["driver", "runtime", "nvrtc"]);
    let runtime_loaded = b
        .libraries()
        .iter()
        .any(|l| l.role.to_string() == "runtime" && l.status.is_ok());
    if runtime_loaded {
        // The runtime answers without a driver: its own version (CI pins 13.0).
        let v = system::runtime_version().unwrap();
        assert!(v.major >= 12, "{v:?}");
        assert_eq!(v.patch, 0);
    }
}
