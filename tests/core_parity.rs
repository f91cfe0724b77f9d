//! `anycuda::core`'s cuda.core-parity additions (linker logs after link, event and memory IPC,
//! the per-thread default stream): what holds without a GPU. The GPU behaviour is in
//! core_gpu_parity.rs.

use anycuda::core::*;
use anycuda::driver::{self, CUevent_flags, CUipcEventHandle, CUipcMemHandle, CUresult};

fn assert_send_sync<T: Send + Sync>() {}
fn assert_send<T: Send>() {}
fn assert_kernel_args<A: KernelArgs>() {}

#[test]
fn the_new_types_are_thread_safe_plain_data_where_they_should_be() {
    assert_send_sync::<IpcEventHandle>();
    assert_send_sync::<IpcMemHandle>();
    assert_send_sync::<IpcMemory<f32>>();
    assert_send_sync::<LinkLogs>();
    assert_send::<Linker>();
    // Mapped IPC memory passes to a kernel as a pointer, like a Buffer.
    assert_kernel_args::<(&IpcMemory<f32>, &mut IpcMemory<u32>, u32)>();
}

#[test]
fn event_options_map_to_cuda_flags() {
    let bits = |o: EventOptions| o.raw_flags().0;
    let (dis, blk, ipc) = (
        CUevent_flags::CU_EVENT_DISABLE_TIMING.0,
        CUevent_flags::CU_EVENT_BLOCKING_SYNC.0,
        CUevent_flags::CU_EVENT_INTERPROCESS.0,
    );
    assert_eq!((dis, blk, ipc), (2, 1, 4));
    // cuda.core's default: timing off.
    assert_eq!(bits(EventOptions::default()), dis);
    assert_eq!(bits(EventOptions::timing()), 0);
    assert_eq!(bits(EventOptions::timing().blocking_sync(true)), blk);
    // An interprocess event has timing off, as CUDA requires.
    let o = EventOptions::ipc();
    assert!(o.ipc_enabled && !o.enable_timing && !o.blocking_sync);
    assert_eq!(bits(o), ipc | dis);
    assert_eq!(bits(o.blocking_sync(true)), ipc | dis | blk);
    assert_eq!(EventOptions::default().ipc_enabled(true), o);
    assert!(!EventOptions::default().ipc_enabled);
    // Timing with IPC is what the driver refuses (Event::new refuses it first).
    assert_eq!(bits(EventOptions::timing().ipc_enabled(true)), ipc);
}

#[test]
fn ipc_event_handles_round_trip_as_bytes_and_raw() {
    assert_eq!(IpcEventHandle::SIZE, 64);
    assert_eq!(IpcEventHandle::SIZE, driver::CU_IPC_HANDLE_SIZE as usize);
    let bytes: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
    let h = IpcEventHandle::from_bytes(&bytes).unwrap();
    assert_eq!(h.to_bytes().as_slice(), bytes.as_slice());
    // Bytes above 0x7f survive the trip through CUDA's c_char array.
    let raw: CUipcEventHandle = h.as_raw();
    assert_eq!(raw.reserved[0] as u8, bytes[0]);
    assert_eq!(IpcEventHandle::from_raw(raw), h);
    assert_eq!(IpcEventHandle::from_bytes(&h.to_bytes()).unwrap(), h);
    assert!(format!("{h:?}").starts_with("IpcEventHandle("));
    for n in [0, 1, 63, 65, 80] {
        let e = IpcEventHandle::from_bytes(&vec![0u8; n]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Usage, "{e}");
        assert!(e.to_string().contains("expected 64"), "{e}");
    }
}

#[test]
fn ipc_memory_handles_round_trip_with_offset_and_size() {
    assert_eq!(IpcMemHandle::SIZE, 80);
    let mut raw = CUipcMemHandle { reserved: [0; 64] };
    for (i, c) in raw.reserved.iter_mut().enumerate() {
        *c = (200u8.wrapping_add(i as u8)) as _;
    }
    let h = IpcMemHandle::from_raw_parts(raw, 4096, 1 << 40);
    assert_eq!((h.offset(), h.size_in_bytes()), (4096, 1 << 40));
    let b = h.to_bytes();
    assert_eq!(b.len(), IpcMemHandle::SIZE);
    assert_eq!(b[0], 200);
    assert_eq!(&b[64..72], &4096u64.to_le_bytes());
    assert_eq!(&b[72..80], &(1u64 << 40).to_le_bytes());
    let back = IpcMemHandle::from_bytes(&b).unwrap();
    assert_eq!(back, h);
    assert_eq!(back.as_raw().reserved, raw.reserved);
    assert!(format!("{h:?}").contains("offset 4096"));
    for n in [0, 64, 79, 81] {
        let e = IpcMemHandle::from_bytes(&vec![0u8; n]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    }
    // On 64-bit targets every u64 fits; on 32-bit ones a large size is refused, not cut.
    let mut big = b;
    big[72..80].copy_from_slice(&u64::MAX.to_le_bytes());
    let r = IpcMemHandle::from_bytes(&big);
    if usize::BITS == 64 {
        assert_eq!(r.unwrap().size_in_bytes(), usize::MAX);
    } else {
        assert_eq!(r.unwrap_err().code(), ErrorCode::Usage);
    }
}

#[test]
fn the_per_thread_stream_is_cudas_and_hips_handle_2() {
    assert_eq!(driver::CU_STREAM_PER_THREAD as usize, 2);
    assert_eq!(driver::CU_STREAM_LEGACY as usize, 1);
}

/// Devices the active backend reports, 0 when there are none (or no backend).
fn gpus() -> usize {
    anycuda::backend()
        .ok()
        .and_then(|s| anycuda::device_count(s.backend).ok())
        .map_or(0, |n| n.max(0) as usize)
}

#[test]
fn without_a_device_the_ipc_calls_answer_with_cuda_errors_not_panics() {
    if let Err(e) = anycuda::backend() {
        // CI always has a backend (its compilers load); elsewhere say why nothing ran.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and no backend: {e}"
        );
        eprintln!("SKIP: no backend: {e}");
        return;
    }
    if gpus() > 0 {
        eprintln!("SKIP: a device is present; the GPU suite covers this machine");
        return;
    }
    // The safe layer cannot get a context without a device...
    let e = Device::new(0).and_then(|d| d.context()).unwrap_err();
    assert!(e.driver_code().is_some(), "{e}");
    // ... and the raw calls under IPC answer with an error code, never success or a panic.
    let mut ev = CUipcEventHandle { reserved: [0; 64] };
    let mut mem = CUipcMemHandle { reserved: [0; 64] };
    let mut p = 0;
    let mut opened = std::ptr::null_mut();
    // SAFETY: valid out-pointers; a NULL event and a zero pointer are invalid arguments the
    // driver (or the backend, without a device) rejects without touching memory.
    let codes = unsafe {
        [
            driver::cuIpcGetEventHandle(&mut ev, std::ptr::null_mut()),
            driver::cuIpcGetMemHandle(&mut mem, 0),
            driver::cuIpcOpenMemHandle(&mut p, mem, 1),
            driver::cuIpcOpenEventHandle(&mut opened, ev),
            driver::cuIpcCloseMemHandle(0),
        ]
    };
    eprintln!(
        "backend {:?}: {codes:?}",
        anycuda::backend().map(|b| b.kind())
    );
    for c in codes {
        assert_ne!(c, CUresult::CUDA_SUCCESS);
    }
}
