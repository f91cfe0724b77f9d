//! `anycuda::core` devices, streams, events and memory: what holds without a GPU (options,
//! versions, marker traits, thread-safety, and the errors a call with no device returns on the
//! backend `auto` picks). The per-backend answers are in core_mem_cuda.rs / core_mem_hip.rs;
//! the GPU behaviour in core_gpu_mem.rs.

use anycuda::core::system::{self, Version};
use anycuda::core::*;
use anycuda::driver::CUresult;

fn assert_send_sync<T: Send + Sync>() {}
fn assert_device_copy<T: DeviceCopy>() {}

#[test]
fn every_safe_type_is_send_and_sync() {
    assert_send_sync::<Device>();
    assert_send_sync::<Context>();
    assert_send_sync::<Stream>();
    assert_send_sync::<Event>();
    assert_send_sync::<Buffer<f32>>();
    assert_send_sync::<BufferView<'static, u8>>();
    assert_send_sync::<BufferViewMut<'static, u8>>();
    assert_send_sync::<PinnedBuffer<u64>>();
    assert_send_sync::<DeviceMemoryResource>();
    assert_send_sync::<PinnedMemoryResource>();
    assert_send_sync::<ManagedMemoryResource>();
    assert_send_sync::<std::sync::Arc<dyn MemoryResource>>();
    assert_send_sync::<CoreError>();
}

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Particle {
    pos: [f32; 3],
    id: u32,
}
// SAFETY: repr(C), DeviceCopy fields, no padding, every bit pattern valid.
unsafe impl DeviceCopy for Particle {}

#[test]
fn device_copy_covers_plain_data_and_user_types() {
    assert_device_copy::<u8>();
    assert_device_copy::<i128>();
    assert_device_copy::<usize>();
    assert_device_copy::<f64>();
    assert_device_copy::<()>();
    assert_device_copy::<[f32; 4]>();
    assert_device_copy::<[[u16; 2]; 8]>();
    assert_device_copy::<Particle>();
    assert_device_copy::<[Particle; 2]>();
}

#[test]
fn stream_options_build_and_default() {
    // Non-blocking by default, as cuda.core's StreamOptions.
    let d = StreamOptions::default();
    assert!(d.non_blocking);
    assert_eq!(d.priority, None);
    let o = StreamOptions::default().non_blocking(false).priority(-2);
    assert!(!o.non_blocking);
    assert_eq!(o.priority, Some(-2));
    assert_ne!(o, d);
}

#[test]
fn event_options_default_to_no_timing_like_cuda_core() {
    let d = EventOptions::default();
    assert!(!d.enable_timing && !d.blocking_sync);
    let t = EventOptions::timing().blocking_sync(true);
    assert!(t.enable_timing && t.blocking_sync);
}

#[test]
fn versions_decode_cuda_and_hip_encodings() {
    let c = Version::from_raw(12040);
    assert_eq!((c.major, c.minor, c.patch, c.raw), (12, 4, 0, 12040));
    assert_eq!(c.to_string(), "12.4");
    assert_eq!(Version::from_raw(13000).to_string(), "13.0");
    let h = Version::from_raw(50221153);
    assert_eq!((h.major, h.minor, h.patch), (5, 2, 21153));
    assert_eq!(h.to_string(), "5.2.21153");
    let h6 = Version::from_raw(60443483);
    assert_eq!((h6.major, h6.minor, h6.patch), (6, 4, 43483));
    assert_eq!(Version::from_raw(-1).to_string(), "0.0");
    assert!(Version::from_raw(12080) > Version::from_raw(12040));
}

#[test]
fn uuid_prints_like_nvidia_smi() {
    let u = Uuid([
        0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd,
        0xef,
    ]);
    assert_eq!(u.to_string(), "12345678-9abc-def0-0123-456789abcdef");
}

/// Devices the active backend reports, 0 when there are none (or no backend).
fn gpus() -> usize {
    anycuda::backend()
        .ok()
        .and_then(|s| anycuda::device_count(s.backend).ok())
        .map_or(0, |n| n.max(0) as usize)
}

#[test]
fn without_a_device_calls_answer_with_cuda_errors_not_panics() {
    let n = gpus();
    if n > 0 {
        // A GPU machine: the same calls must succeed, and past-the-end ordinals fail cleanly.
        assert_eq!(Device::count().unwrap(), n);
        assert_eq!(Device::all().unwrap().len(), n);
        let e = Device::new(n).unwrap_err();
        assert_eq!(
            e.driver_code(),
            Some(CUresult::CUDA_ERROR_INVALID_DEVICE),
            "{e}"
        );
        return;
    }
    let e = Device::count().unwrap_err();
    let code = e.driver_code().expect("a driver code");
    assert!(
        code == CUresult::CUDA_ERROR_NO_DEVICE || code == CUresult::CUDA_ERROR_NOT_INITIALIZED,
        "{e}"
    );
    assert_eq!(e.call(), "cuInit");
    assert!(e.detail().is_some_and(|d| d.contains("backend")), "{e:?}");
    // Every entry point agrees, and none of them panics.
    for r in [
        Device::new(0).map(|_| ()),
        Device::new(usize::MAX).map(|_| ()),
        Device::all().map(|_| ()),
        system::num_devices().map(|_| ()),
        system::devices().map(|_| ()),
    ] {
        assert_eq!(r.unwrap_err().driver_code(), Some(code));
    }
}

#[test]
fn system_reports_the_backend_and_its_libraries() {
    let Ok(sel) = anycuda::backend() else {
        let e = system::backend_kind().unwrap_err();
        assert_eq!(e.driver_code(), Some(CUresult::CUDA_ERROR_NOT_INITIALIZED));
        return;
    };
    assert_eq!(system::backend_kind().unwrap(), sel.kind());
    let info = system::backend_info().unwrap();
    assert_eq!(info.kind, sel.kind());
    assert_eq!(info.reason, sel.reason);
    assert!(!info.libraries.is_empty());
    let text = info.to_string();
    assert!(
        text.starts_with(&format!("backend: {}", sel.kind())),
        "{text}"
    );
    for l in &info.libraries {
        assert!(text.contains(&l.role.to_string()), "{text}");
    }
}
