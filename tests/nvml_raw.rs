//! The raw NVML layer: the catalogue (every function of the pinned `nvml.h` under the names
//! libnvidia-ml exports; the C ABI's export list, `tests/nvml/exports.txt`), error strings, and the answers
//! without a GPU on both backends:
//! - HIP: rocm-smi 5.2.3 (Debian bookworm, `ci/rocm-smi-fetch.sh`) loads; every call before
//!   `nvmlInit` answers `NVML_ERROR_UNINITIALIZED`; `nvmlInit` answers
//!   `NVML_ERROR_DRIVER_NOT_LOADED` without an AMD GPU driver (and with a driver but no AMD GPU,
//!   unless `NVML_INIT_FLAG_NO_GPUS`, which then gives no device); null pointers, indices out
//!   of range and forged handles are `NVML_ERROR_INVALID_ARGUMENT`, never a crash;
//! - CUDA: without NVIDIA's libnvidia-ml (a machine without the driver) the load error names
//!   the soname; with it (the GPU machine), NVIDIA's own answers to the same bad input.
//!
//! Under `CI=true` a rocm-smi that does not load fails the tests instead of skipping them.

mod common;

use anycuda::nvml::*;
use anycuda::{Backend, BackendKind};
use common::{on_ci, repo_root};
use core::ffi::{c_char, CStr};
use std::collections::BTreeSet;
use std::sync::{Mutex, Once};

/// NVML's state is the process's: the tests that init and shut down take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The HIP backend's NVML, rocm-smi pointed at the fetched one unless the caller chose one;
/// `None` (after saying why) when rocm-smi does not load and CI does not require it.
fn hip() -> Option<Library> {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let lib = repo_root().join(".cache/inputs/rocm-smi/usr/lib/librocm_smi64.so.1");
        anycuda_test::env::default_library("ANYCUDA_ROCM_SMI_LIBRARY", &lib);
    });
    let b = match Backend::load(BackendKind::Hip) {
        Ok(b) => b,
        Err(e) if on_ci() => panic!("CI=true and the HIP backend does not load: {e}"),
        Err(e) => {
            eprintln!("SKIP: the HIP backend does not load: {e}");
            return None;
        }
    };
    let l = library_of(b).expect("the HIP backend always has its NVML");
    let (path, served, total) = l.info();
    assert!(!l.is_nvidia());
    assert!(served > 20 && served < total, "{served} of {total}");
    if path.is_empty() {
        if on_ci() {
            panic!("CI=true and rocm-smi does not load (run bash ci/fetch-inputs.sh)");
        }
        eprintln!("SKIP: rocm-smi does not load");
        return None;
    }
    Some(l)
}

fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: NVML's error strings are static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[test]
fn the_catalogue_is_nvml_h_under_the_exported_names() {
    let names: Vec<&str> = NVML_FUNCTIONS.iter().map(|f| f.name).collect();
    let set: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(set.len(), names.len(), "duplicate names");
    assert!(names.len() > 400, "{}", names.len());
    // The define map's targets and the older ABIs both.
    for n in [
        "nvmlInit_v2",
        "nvmlInit",
        "nvmlInitWithFlags",
        "nvmlShutdown",
        "nvmlErrorString",
        "nvmlDeviceGetCount_v2",
        "nvmlDeviceGetCount",
        "nvmlDeviceGetHandleByIndex_v2",
        "nvmlDeviceGetHandleByPciBusId_v2",
        "nvmlDeviceGetPciInfo_v3",
        "nvmlDeviceGetPciInfo",
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlEventSetWait_v2",
        "nvmlDeviceGetMemoryInfo_v2",
        "nvmlSystemGetCudaDriverVersion_v2",
    ] {
        assert!(set.contains(n), "{n}");
    }
    for f in NVML_FUNCTIONS {
        assert_eq!(f.name, f.symbol);
    }
    // The list the GPU machine checks against NVIDIA's libnvidia-ml.so.1.
    let file = std::fs::read_to_string(repo_root().join("tests/nvml/exports.txt")).unwrap();
    let listed: Vec<&str> = file
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    // The catalogue, then the define map's renamed plain names NVIDIA's library still exports.
    let mut want = names.clone();
    want.extend([
        "nvmlGetBlacklistDeviceCount",
        "nvmlGetBlacklistDeviceInfoByIndex",
    ]);
    assert_eq!(
        listed, want,
        "tests/nvml/exports.txt is not the export list"
    );
    // ... which is the C ABI's generated list, the one `anycuda libdir` reads.
    // (Its order: each function, then its older names.)
    let lists = std::fs::read_to_string(repo_root().join("capi/src/generated/nvml.rs")).unwrap();
    let at = lists.find("pub static NVML_EXPORTS").expect("NVML_EXPORTS");
    let body = &lists[at..];
    let body = &body[..body.find("\n];").unwrap()];
    let mut generated: Vec<&str> = body
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix("\","))
        .collect();
    generated.sort_unstable();
    let mut sorted = want.clone();
    sorted.sort_unstable();
    assert_eq!(generated, sorted);
    #[cfg(feature = "backend-hip")]
    for s in anycuda::native::hip::nvml::NVML_HIP_SERVED {
        assert!(set.contains(s), "{s}");
    }
}

#[test]
fn error_strings_are_never_null() {
    for r in [
        nvmlReturn_t::NVML_SUCCESS,
        nvmlReturn_t::NVML_ERROR_UNINITIALIZED,
        nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED,
        nvmlReturn_t::NVML_ERROR_UNKNOWN,
        nvmlReturn_t(12345),
    ] {
        let s = text(error_string(r));
        assert!(!s.is_empty(), "{r:?}");
    }
    assert_eq!(text(error_string(nvmlReturn_t(12345))), "Unknown Error");
    if let Some(l) = hip() {
        // Before any nvmlInit, as NVIDIA's library answers it.
        // SAFETY: no pointers.
        let s = text(unsafe { l.nvmlErrorString(nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT) });
        assert!(s.to_lowercase().contains("invalid"), "{s}");
        // SAFETY: no pointers.
        let s = text(unsafe { l.nvmlErrorString(nvmlReturn_t(54321)) });
        assert_eq!(s, "Unknown Error");
    }
    let e = nvmlReturn_t::NVML_ERROR_NOT_FOUND.result().unwrap_err();
    assert!(e.to_string().contains("NVML_ERROR_NOT_FOUND"), "{e}");
}

/// Calls that need initialisation, each with valid-looking arguments.
fn uninitialized_answers(l: Library) -> Vec<(&'static str, nvmlReturn_t)> {
    let mut n = 0u32;
    let mut d: nvmlDevice_t = core::ptr::null_mut();
    let mut buf = [0 as c_char; 96];
    let mut v = 0;
    // SAFETY: valid out-pointers and buffers.
    unsafe {
        vec![
            ("nvmlDeviceGetCount_v2", l.nvmlDeviceGetCount_v2(&mut n)),
            (
                "nvmlDeviceGetHandleByIndex_v2",
                l.nvmlDeviceGetHandleByIndex_v2(0, &mut d),
            ),
            (
                "nvmlSystemGetDriverVersion",
                l.nvmlSystemGetDriverVersion(buf.as_mut_ptr(), 96),
            ),
            (
                "nvmlSystemGetCudaDriverVersion_v2",
                l.nvmlSystemGetCudaDriverVersion_v2(&mut v),
            ),
            ("nvmlShutdown", l.nvmlShutdown()),
            // Not served on HIP: still the initialisation answer first.
            ("nvmlUnitGetCount", l.nvmlUnitGetCount(&mut n)),
        ]
    }
}

#[test]
fn hip_without_an_amd_gpu() {
    let Some(l) = hip() else { return };
    let _s = serial();
    for (f, r) in uninitialized_answers(l) {
        assert_eq!(r, nvmlReturn_t::NVML_ERROR_UNINITIALIZED, "{f}");
    }
    let drm = std::path::Path::new("/sys/class/drm").exists();
    // SAFETY: no pointers.
    let r = unsafe { l.nvmlInit_v2() };
    if r == nvmlReturn_t::NVML_SUCCESS {
        // An AMD GPU: the GPU tests' business; leave NVML as found.
        // SAFETY: initialised above.
        assert_eq!(unsafe { l.nvmlShutdown() }, nvmlReturn_t::NVML_SUCCESS);
        eprintln!("SKIP: rocm-smi sees an AMD GPU");
        return;
    }
    assert_eq!(r, nvmlReturn_t::NVML_ERROR_DRIVER_NOT_LOADED);
    // SAFETY: no pointers.
    let r = unsafe { l.nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS) };
    if !drm {
        // rocm-smi cannot start without the DRM sysfs tree (this CI machine): no driver.
        assert_eq!(r, nvmlReturn_t::NVML_ERROR_DRIVER_NOT_LOADED);
        return;
    }
    assert_eq!(r, nvmlReturn_t::NVML_SUCCESS);
    let mut n = 99u32;
    let mut d: nvmlDevice_t = core::ptr::null_mut();
    let forged = 0x1234usize as nvmlDevice_t;
    let mut mem = core::mem::MaybeUninit::<nvmlMemory_t>::zeroed();
    let mut buf = [0 as c_char; 96];
    // SAFETY: valid pointers, or null / forged on purpose (refused without being read).
    unsafe {
        assert_eq!(l.nvmlDeviceGetCount_v2(&mut n), nvmlReturn_t::NVML_SUCCESS);
        assert_eq!(n, 0);
        assert_eq!(
            l.nvmlDeviceGetCount_v2(core::ptr::null_mut()),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByIndex_v2(0, &mut d),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetMemoryInfo(forged, mem.as_mut_ptr()),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetName(core::ptr::null_mut(), buf.as_mut_ptr(), 96),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByPciBusId_v2(c"00000000:65:00.0".as_ptr(), &mut d),
            nvmlReturn_t::NVML_ERROR_NOT_FOUND
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByPciBusId_v2(c"not a bus id".as_ptr(), &mut d),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByUUID(core::ptr::null(), &mut d),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlSystemGetDriverVersion(buf.as_mut_ptr(), 1),
            nvmlReturn_t::NVML_ERROR_INSUFFICIENT_SIZE
        );
        let r = l.nvmlUnitGetCount(&mut n);
        assert_eq!(r, nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED);
        assert!(not_supported_reason(r).is_some());
        // Reference counted, as NVIDIA's.
        assert_eq!(l.nvmlInit_v2(), nvmlReturn_t::NVML_SUCCESS);
        assert_eq!(l.nvmlShutdown(), nvmlReturn_t::NVML_SUCCESS);
        assert_eq!(l.nvmlShutdown(), nvmlReturn_t::NVML_SUCCESS);
        assert_eq!(l.nvmlShutdown(), nvmlReturn_t::NVML_ERROR_UNINITIALIZED);
    }
}

#[test]
fn cuda_with_or_without_nvidia_s_library() {
    let Ok(b) = Backend::load(BackendKind::Cuda) else {
        eprintln!("SKIP: no CUDA backend compiled in");
        return;
    };
    let l = match library_of(b) {
        Ok(l) => l,
        Err(e) => {
            // No NVIDIA driver here: the error names what was looked for.
            let m = e.to_string();
            assert!(m.contains("libnvidia-ml.so.1"), "{m}");
            return;
        }
    };
    let _s = serial();
    assert!(l.is_nvidia());
    // NVIDIA's own answers: before init, then bad input after it.
    let mut n = 0u32;
    let mut d: nvmlDevice_t = core::ptr::null_mut();
    let mut buf = [0 as c_char; 96];
    // SAFETY: valid pointers, or null on purpose (NVML checks them).
    unsafe {
        assert_eq!(
            l.nvmlDeviceGetCount_v2(&mut n),
            nvmlReturn_t::NVML_ERROR_UNINITIALIZED
        );
        assert_eq!(l.nvmlInit_v2(), nvmlReturn_t::NVML_SUCCESS);
        assert_eq!(l.nvmlDeviceGetCount_v2(&mut n), nvmlReturn_t::NVML_SUCCESS);
        assert!(n >= 1);
        assert_eq!(
            l.nvmlDeviceGetCount_v2(core::ptr::null_mut()),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByIndex_v2(n, &mut d),
            nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            l.nvmlDeviceGetHandleByIndex_v2(0, &mut d),
            nvmlReturn_t::NVML_SUCCESS
        );
        assert_eq!(
            l.nvmlDeviceGetName(d, buf.as_mut_ptr(), 1),
            nvmlReturn_t::NVML_ERROR_INSUFFICIENT_SIZE
        );
        assert_eq!(
            l.nvmlDeviceGetUUID(d, buf.as_mut_ptr(), 96),
            nvmlReturn_t::NVML_SUCCESS
        );
        assert!(text(buf.as_ptr()).starts_with("GPU-"));
        assert_eq!(l.nvmlShutdown(), nvmlReturn_t::NVML_SUCCESS);
    }
}
