//! GPU suite for `anycuda::core` devices, contexts, streams, events and memory. Every test is
//! a `#[gpu_test]` (anycuda-test): ignored without a GPU, and never a pass where its need is
//! not met (`not run`, exit status 77; a failure under `ANYCUDA_REQUIRE_GPU=1` with no GPU).
//!
//! On the GPU machine, per backend:
//!   ANYCUDA_BACKEND=cuda .device/tests/core_gpu_mem --include-ignored
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so \
//!       .device/tests/core_gpu_mem --include-ignored

use anycuda::core::system;
use anycuda::core::*;
use anycuda::driver::{CUdevice_attribute, CUresult};
use anycuda_test::gpu_test;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

// Counts the heap allocations of each thread, to show the hot paths make none.
anycuda_test::count_allocations!();

fn dev0() -> Device {
    Device::new(0).expect("this test needs a GPU")
}

fn ctx() -> Context {
    dev0().context().expect("primary context")
}

fn usage(e: &CoreError) -> bool {
    e.code() == ErrorCode::Usage
}

#[gpu_test]
fn device_properties_are_typed_and_consistent() {
    let n = Device::count().unwrap();
    assert!(n >= 1);
    assert_eq!(system::num_devices().unwrap(), n);
    let all = system::devices().unwrap();
    assert_eq!(all.len(), n);
    for (i, d) in all.iter().enumerate() {
        assert_eq!(d.ordinal(), i);
        assert_eq!(*d, Device::new(i).unwrap());
    }
    let d = dev0();
    let name = d.name().unwrap();
    assert!(!name.is_empty());
    let mem = d.total_memory().unwrap();
    assert!(mem > (256 << 20), "{mem}");
    let (major, minor) = d.compute_capability().unwrap();
    assert!(major >= 3, "{major}.{minor}");
    let arch = d.arch().unwrap();
    assert!(arch.starts_with("sm_") || arch.starts_with("gfx"), "{arch}");
    if arch.starts_with("sm_") {
        assert_eq!(arch, format!("sm_{major}{minor}"));
    }
    let bus = d.pci_bus_id().unwrap();
    assert_eq!(bus.matches(':').count(), 2, "{bus}");
    assert!(bus.contains('.'), "{bus}");
    let uuid = d.uuid().unwrap();
    assert_ne!(uuid.0, [0; 16]);
    assert_eq!(uuid.to_string().len(), 36);
    let p = d.properties().unwrap();
    assert_eq!(p.name, name);
    assert_eq!(p.total_memory, mem);
    assert_eq!(p.compute_capability, (major, minor));
    assert_eq!(
        p.multiprocessor_count,
        d.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .unwrap()
    );
    assert!(p.max_threads_per_block >= 256);
    assert!(p.warp_size == 32 || p.warp_size == 64);
    assert!(
        p.unified_addressing,
        "64-bit CUDA and HIP platforms have unified addressing"
    );
    let v = system::driver_version().unwrap();
    assert!(v.major >= 5, "{v}");
    println!(
        "{name} ({arch}), {} MiB, bus {bus}, uuid {uuid}, driver {v}, pools {}",
        mem >> 20,
        p.memory_pools_supported
    );
}

#[gpu_test]
fn out_of_range_devices_and_attributes_are_errors() {
    let n = Device::count().unwrap();
    for bad in [n, n + 1, 1 << 20, usize::MAX] {
        let e = Device::new(bad).unwrap_err();
        assert_eq!(
            e.driver_code(),
            Some(CUresult::CUDA_ERROR_INVALID_DEVICE),
            "{bad}: {e}"
        );
    }
    let e = dev0()
        .attribute(CUdevice_attribute(0x7fff_0000))
        .unwrap_err();
    assert!(e.driver_code().is_some(), "{e}");
    dev0().can_access_peer(&dev0()).unwrap(); // answered, whatever the value
}

#[gpu_test]
fn primary_context_is_shared_retained_and_bound_per_thread() {
    let a = ctx();
    let b = dev0().context().unwrap();
    assert_eq!(a, b);
    assert!(a.strong_count() >= 2);
    assert_eq!(a.device(), dev0());
    assert!(!a.as_raw().is_null());
    let c = dev0().set_current().unwrap();
    assert!(c.is_current().unwrap());
    c.bind().unwrap(); // already current: cheap, still Ok
    c.synchronize().unwrap();
    dev0().synchronize().unwrap();
    let (free, total) = c.memory_info().unwrap();
    assert!(free <= total && total > 0);

    // A new thread has no current context until the safe layer binds one.
    let ctx = a.clone();
    let out = std::thread::spawn(move || {
        let before = ctx.is_current().unwrap();
        let s = ctx.default_stream();
        let buf = s.clone_from_host(&[1u32, 2, 3]).unwrap();
        let after = ctx.is_current().unwrap();
        (before, after, buf.to_vec().unwrap())
    })
    .join()
    .unwrap();
    // No current context on a new thread, as in CUDA (the HIP backend keeps CUDA's per-thread
    // stack on AMD, and HIP's NVIDIA platform is CUDA's).
    assert_eq!(out, (false, true, vec![1, 2, 3]));

    // Many threads share one context and allocate, copy and free concurrently.
    let handles: Vec<_> = (0..8u32)
        .map(|t| {
            let ctx = a.clone();
            std::thread::spawn(move || {
                let s = ctx.create_stream(StreamOptions::default()).unwrap();
                let host: Vec<u32> = (0..4096).map(|i| i * t).collect();
                let buf = s.clone_from_host(&host).unwrap();
                assert_eq!(buf.to_vec().unwrap(), host);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[gpu_test]
fn a_buffer_keeps_its_context_alive() {
    let buf = {
        let ctx = ctx();
        ctx.default_stream().clone_from_host(&[7u64; 100]).unwrap()
        // every Context handle of this scope drops here; the buffer holds its own
    };
    assert_eq!(buf.to_vec().unwrap(), vec![7u64; 100]);
    assert!(buf.context().strong_count() >= 1);
}

#[gpu_test]
fn streams_options_wait_query_and_priority() {
    let ctx = ctx();
    let (least, greatest) = ctx.stream_priority_range().unwrap();
    assert!(greatest <= least);
    let hi = ctx
        .create_stream(
            StreamOptions::default()
                .non_blocking(true)
                .priority(greatest),
        )
        .unwrap();
    assert!(hi.is_non_blocking().unwrap());
    assert_eq!(hi.priority().unwrap(), greatest);
    assert!(!hi.is_default());
    let lo = ctx
        .create_stream(StreamOptions::default().non_blocking(false))
        .unwrap();
    assert!(!lo.is_non_blocking().unwrap());
    // The default is non-blocking, as cuda.core's.
    let nb = ctx.create_stream(StreamOptions::default()).unwrap();
    assert!(nb.is_non_blocking().unwrap());
    let def = ctx.default_stream();
    assert!(def.is_default() && def.as_raw().is_null());

    // lo fills, hi waits for lo, then copies: the copy sees the fill.
    let n = 1 << 20;
    let mut a = lo.alloc::<u32>(n).unwrap();
    lo.synchronize().unwrap();
    let mut b = hi.alloc::<u32>(n).unwrap();
    hi.synchronize().unwrap();
    for v in 1..=20u32 {
        a.fill(v, &lo).unwrap();
    }
    hi.wait(&lo).unwrap();
    b.copy_from(&a, &hi).unwrap();
    hi.synchronize().unwrap();
    assert!(hi.is_done().unwrap());
    let out = b.to_vec().unwrap();
    assert!(out.iter().all(|&x| x == 20));

    // Device-level conveniences go through the primary context.
    let ds = dev0().create_stream(StreamOptions::default()).unwrap();
    assert_eq!(*ds.context(), ctx);
    assert!(dev0().default_stream().unwrap().is_default());
    let de = dev0().create_event(EventOptions::timing()).unwrap();
    de.record(&ds).unwrap();
    let mr = dev0().memory_resource().unwrap();
    assert_eq!(mr.uses_pools(), dev0().memory_pools_supported());

    // A stream made through the raw layer, used by the safe one.
    let mut raw: anycuda::driver::CUstream = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the context is current (bound by the calls above).
    unsafe { anycuda::driver::cuStreamCreate(&mut raw, 0) }
        .result()
        .unwrap();
    {
        // SAFETY: `raw` is a live stream of `ctx`, destroyed only after this scope, whose
        // buffer is dropped (and synchronized) inside it.
        let wrapped = unsafe { Stream::from_raw(&ctx, raw) };
        assert!(!wrapped.is_default());
        let buf = wrapped.clone_from_host(&[4u16; 64]).unwrap();
        assert_eq!(buf.to_vec().unwrap(), vec![4u16; 64]);
        drop(buf);
        wrapped.synchronize().unwrap();
    }
    // SAFETY: no safe-layer object refers to it any more.
    unsafe { anycuda::driver::cuStreamDestroy(raw) }
        .result()
        .unwrap();

    // wait_event works the same way; waiting on itself is a no-op.
    let ev = lo.record(EventOptions::default()).unwrap();
    hi.wait_event(&ev).unwrap();
    hi.wait(&hi).unwrap();
    hi.synchronize().unwrap();
    assert!(ev.is_done().unwrap());
}

#[gpu_test]
fn host_callbacks_run_in_order_and_panics_are_contained() {
    let ctx = ctx();
    let s = ctx
        .create_stream(StreamOptions::default().non_blocking(true))
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let count = Arc::new(AtomicUsize::new(0));
    for i in 0..5 {
        let tx = tx.clone();
        let count = count.clone();
        s.launch_host_func(move || {
            count.fetch_add(1, Ordering::SeqCst);
            tx.send(i).unwrap();
        })
        .unwrap();
    }
    s.launch_host_func(|| panic!("caught by anycuda::core"))
        .unwrap();
    let c2 = count.clone();
    s.launch_host_func(move || {
        c2.fetch_add(100, Ordering::SeqCst);
    })
    .unwrap();
    s.synchronize().unwrap();
    let got: Vec<i32> = rx.try_iter().collect();
    assert_eq!(got, [0, 1, 2, 3, 4]);
    assert_eq!(count.load(Ordering::SeqCst), 105);

    // The callback runs after the stream's earlier work.
    let mut buf = s.alloc::<u32>(1 << 20).unwrap();
    buf.fill(9, &s).unwrap();
    let (tx, rx) = mpsc::channel();
    s.launch_host_func(move || tx.send(()).unwrap()).unwrap();
    rx.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(buf.to_vec().unwrap().iter().all(|&x| x == 9));
}

#[gpu_test]
fn events_time_work_and_refuse_misuse() {
    let ctx = ctx();
    let s = ctx.create_stream(StreamOptions::default()).unwrap();
    let start = ctx.create_event(EventOptions::timing()).unwrap();
    let end = ctx
        .create_event(EventOptions::timing().blocking_sync(true))
        .unwrap();
    assert!(start.is_timing_enabled());
    let mut buf = s.alloc::<u32>(16 << 20).unwrap();
    start.record(&s).unwrap();
    for v in 0..10 {
        buf.fill(v, &s).unwrap();
    }
    end.record(&s).unwrap();
    end.synchronize().unwrap();
    assert!(end.is_done().unwrap() && start.is_done().unwrap());
    let ms = start.elapsed_ms(&end).unwrap();
    assert!(ms > 0.0 && ms < 10_000.0, "{ms}");
    assert!(start.elapsed_time(&end).unwrap() > Duration::ZERO);

    let plain = ctx.create_event(EventOptions::default()).unwrap();
    plain.record(&s).unwrap();
    assert!(usage(&start.elapsed_ms(&plain).unwrap_err()));
    // Never recorded: the driver's error, not a crash.
    let never = ctx.create_event(EventOptions::timing()).unwrap();
    let e = never.elapsed_ms(&end).unwrap_err();
    assert!(e.driver_code().is_some(), "{e}");
    s.synchronize().unwrap();
}

#[gpu_test]
fn device_memory_resources_with_and_without_pools() {
    let ctx = ctx();
    let s = ctx.create_stream(StreamOptions::default()).unwrap();
    let pooled = DeviceMemoryResource::new(&ctx);
    assert_eq!(pooled.uses_pools(), ctx.device().memory_pools_supported());
    let plain = DeviceMemoryResource::without_pools(&ctx);
    assert!(!plain.uses_pools());
    for mr in [pooled, plain] {
        assert!(mr.is_device_accessible() && !mr.is_host_accessible());
        assert_eq!(mr.device_id(), 0);
        let mr: Arc<dyn MemoryResource> = Arc::new(mr);
        let host: Vec<f32> = (0..10_000).map(|i| i as f32 * 0.5).collect();
        let mut b = Buffer::<f32>::new_in(mr.clone(), &s, host.len()).unwrap();
        b.copy_from_host(&host).unwrap();
        assert_eq!(b.to_vec().unwrap(), host);
        assert!(!b.is_host_accessible());
        assert!(usage(&b.as_host_slice().unwrap_err()));
        // Raw use of the trait: allocate and free one block.
        let p = mr.allocate(4096, &s).unwrap();
        assert_ne!(p, 0);
        // SAFETY: just allocated by this resource with this size, unused.
        unsafe { mr.deallocate(p, 4096, &s).unwrap() };
    }
    s.synchronize().unwrap();
}

#[gpu_test]
fn pinned_and_managed_resources_are_host_accessible() {
    let ctx = ctx();
    let s = ctx.create_stream(StreamOptions::default()).unwrap();
    let resources: [Arc<dyn MemoryResource>; 2] = [
        Arc::new(PinnedMemoryResource::new(&ctx)),
        Arc::new(ManagedMemoryResource::new(&ctx)),
    ];
    for mr in resources {
        assert!(mr.is_host_accessible() && mr.is_device_accessible());
        let mut b = Buffer::<u32>::new_in(mr, &s, 1000).unwrap();
        assert!(b.is_host_accessible());
        assert!(b.as_host_slice().unwrap().iter().all(|&x| x == 0));
        for (i, x) in b.as_host_slice_mut().unwrap().iter_mut().enumerate() {
            *x = i as u32;
        }
        assert_eq!(b.to_vec().unwrap()[999], 999);
        b.view_mut(500..).unwrap().fill(7, &s).unwrap();
        // The host slice waits for the fill.
        let h = b.as_host_slice().unwrap();
        assert_eq!((h[0], h[499], h[500], h[999]), (0, 499, 7, 7));
    }
}

#[gpu_test]
fn copies_sync_pinned_async_and_unsafe_async() {
    let ctx = ctx();
    let s = ctx
        .create_stream(StreamOptions::default().non_blocking(true))
        .unwrap();
    let n = 1 << 20;
    let host: Vec<u32> = (0..n as u32).collect();

    // Synchronous.
    let mut d = s.alloc::<u32>(n).unwrap();
    d.copy_from_host(&host).unwrap();
    let mut back = vec![0u32; n];
    d.copy_to_host(&mut back).unwrap();
    assert_eq!(back, host);

    // Stream-ordered through pinned memory: the host slice waits for the copy.
    let src = PinnedBuffer::from_slice(&ctx, &host).unwrap();
    let mut dst = PinnedBuffer::<u32>::new(&ctx, n).unwrap();
    let mut d2 = s.alloc_zeros::<u32>(n).unwrap();
    d2.copy_from_pinned(&src, &s).unwrap();
    d2.copy_to_pinned(&mut dst, &s).unwrap();
    assert!(dst.is_pending());
    assert_eq!(dst.as_slice().unwrap(), &host[..]);

    // Across two streams: the second copy is ordered after the first through the event.
    let s2 = ctx.create_stream(StreamOptions::default()).unwrap();
    let mut d3 = s2.alloc::<u32>(n).unwrap();
    s2.synchronize().unwrap();
    d3.fill(5, &s2).unwrap();
    s.wait(&s2).unwrap();
    d3.copy_to_pinned(&mut dst, &s).unwrap();
    d.copy_to_pinned(&mut dst, &s2).unwrap();
    assert_eq!(dst.as_slice().unwrap(), &host[..]);
    dst.as_mut_slice().unwrap()[0] = 42;
    assert!(!dst.is_pending());

    // The unsafe variant with raw host slices.
    let mut raw = vec![0u32; n];
    // SAFETY: `raw` is not touched until the stream is synchronized below.
    unsafe { d.copy_to_host_async(&mut raw, &s).unwrap() };
    s.synchronize().unwrap();
    assert_eq!(raw, host);
    let ones = vec![1u32; n];
    // SAFETY: `ones` outlives the synchronize below and is not written.
    unsafe { d.copy_from_host_async(&ones, &s).unwrap() };
    s.synchronize().unwrap();
    assert_eq!(d.to_vec().unwrap(), ones);

    // Length mismatches are refused before any copy.
    assert!(usage(&d.copy_from_host(&host[1..]).unwrap_err()));
    assert!(usage(&d.copy_to_host(&mut back[..10]).unwrap_err()));
    let mut small = PinnedBuffer::<u32>::new(&ctx, 3).unwrap();
    assert!(usage(&d.copy_to_pinned(&mut small, &s).unwrap_err()));

    // Too large: the driver's out-of-memory error; overflowing sizes are refused first.
    let e = s.alloc::<u8>(1 << 60).unwrap_err();
    assert!(
        matches!(
            e.driver_code(),
            Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY | CUresult::CUDA_ERROR_INVALID_VALUE)
        ),
        "{e}"
    );
    assert!(usage(&s.alloc::<u64>(usize::MAX).unwrap_err()));
    assert!(usage(
        &PinnedBuffer::<u64>::new(&ctx, usize::MAX).unwrap_err()
    ));

    // Empty buffers are fine everywhere.
    let mut e = s.alloc::<u32>(0).unwrap();
    assert!(e.is_empty() && e.as_raw() == 0);
    e.copy_from_host(&[]).unwrap();
    assert_eq!(e.to_vec().unwrap(), Vec::<u32>::new());
    e.fill(1, &s).unwrap();
}

#[gpu_test]
fn fills_by_element_size_and_zero() {
    let ctx = ctx();
    let s = ctx.default_stream();
    let mut a = s.alloc::<u8>(1001).unwrap();
    a.fill(0xab, &s).unwrap();
    assert!(a.to_vec().unwrap().iter().all(|&x| x == 0xab));
    let mut b = s.alloc::<i16>(1001).unwrap();
    b.fill(-2, &s).unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&x| x == -2));
    let mut c = s.alloc::<f32>(1001).unwrap();
    c.fill(1.5, &s).unwrap();
    assert!(c.to_vec().unwrap().iter().all(|&x| x == 1.5));
    let mut d = s.alloc::<[u8; 2]>(10).unwrap();
    d.fill([1, 2], &s).unwrap();
    assert!(d.to_vec().unwrap().iter().all(|&x| x == [1, 2]));
    let mut f = s.alloc::<f64>(1001).unwrap();
    assert!(usage(&f.fill(1.0, &s).unwrap_err()));
    f.copy_from_host(&vec![3.0; 1001]).unwrap();
    f.view_mut(1..1000).unwrap().zero(&s).unwrap();
    let v = f.to_vec().unwrap();
    assert_eq!((v[0], v[1], v[999], v[1000]), (3.0, 0.0, 0.0, 3.0));
    let z = s.alloc_zeros::<u64>(77).unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&x| x == 0));
}

#[gpu_test]
fn views_are_bounds_checked_and_copy() {
    let ctx = ctx();
    let s = ctx.default_stream();
    let host: Vec<u32> = (0..100).collect();
    let mut b = s.clone_from_host(&host).unwrap();
    let v = b.view(10..20).unwrap();
    assert_eq!(v.len(), 10);
    assert_eq!(v.as_raw(), b.as_raw() + 40);
    assert_eq!(v.to_vec().unwrap(), &host[10..20]);
    let vv = v.view(2..=3).unwrap();
    assert_eq!(vv.to_vec().unwrap(), [12, 13]);
    assert_eq!(b.view(..).unwrap().len(), 100);
    assert_eq!(b.view(100..).unwrap().len(), 0);
    // Out of range: Err, never a panic.
    #[allow(clippy::reversed_empty_ranges)]
    for r in [
        b.view(0..101).map(|_| ()),
        b.view(101..).map(|_| ()),
        b.view(50..40).map(|_| ()),
        b.view(..=100).map(|_| ()),
        b.view(..=usize::MAX).map(|_| ()),
        b.view(usize::MAX..).map(|_| ()),
        v.view(5..11).map(|_| ()),
    ] {
        assert!(usage(&r.unwrap_err()));
    }
    assert!(usage(&b.view_mut(90..=100).unwrap_err()));
    // Device-to-device between views of two buffers, and inside one mutable view.
    let src = s.clone_from_host(&[9u32; 5]).unwrap();
    b.view_mut(0..5)
        .unwrap()
        .copy_from(&src.view(..).unwrap(), &s)
        .unwrap();
    let mut w = b.view_mut(50..60).unwrap();
    w.view_mut(0..5).unwrap().copy_from(&src, &s).unwrap();
    assert!(usage(&w.view_mut(0..11).unwrap_err()));
    w.copy_from_host(&[1; 10]).unwrap();
    let out = b.to_vec().unwrap();
    assert_eq!(&out[0..6], &[9, 9, 9, 9, 9, 5]);
    assert_eq!(&out[50..60], &[1; 10]);
    assert!(usage(&b.copy_from(&src, &s).unwrap_err())); // length mismatch
}

#[gpu_test]
fn peer_copy_on_one_device() {
    let c0 = ctx();
    let s0 = c0.default_stream();
    let a = s0.clone_from_host(&[1u32, 2, 3, 4]).unwrap();
    // Same device through the peer path.
    let mut same = s0.alloc::<u32>(4).unwrap();
    same.copy_from_peer(&a, &s0).unwrap();
    assert_eq!(same.to_vec().unwrap(), [1, 2, 3, 4]);
}

/// Needs 2 devices (`gpus = 2`): with fewer it ends `not run` (exit status 77), which
/// ci/gpu-test.sh records as "not run (needs 2 GPUs, found 1)", not a failure.
#[gpu_test(gpus = 2)]
fn two_gpus_peer_copies_and_buffers_of_another_device() {
    let n = Device::count().unwrap();
    assert!(n >= 2, "this test needs 2 GPUs; {n} found");
    let c0 = ctx();
    let s0 = c0.default_stream();
    let a = s0.clone_from_host(&[1u32, 2, 3, 4]).unwrap();
    let d1 = Device::new(1).unwrap();
    let c1 = d1.context().unwrap();
    assert_ne!(c0, c1);
    let s1 = c1.create_stream(StreamOptions::default()).unwrap();
    let mut b = s1.alloc_zeros::<u32>(4).unwrap();
    if dev0().can_access_peer(&d1).unwrap() {
        c1.enable_peer_access(&c0).unwrap();
        c1.enable_peer_access(&c0).unwrap(); // twice is fine
    }
    b.copy_from_peer(&a, &s1).unwrap();
    s1.synchronize().unwrap();
    assert_eq!(b.to_vec().unwrap(), [1, 2, 3, 4]);
    // Misuse: device-to-device across contexts, streams of the other device, events too.
    assert!(usage(&b.copy_from(&a, &s1).unwrap_err()));
    assert!(usage(&b.fill(1, &s0).unwrap_err()));
    // A peer copy runs on a stream of the destination's context.
    assert!(usage(&b.copy_from_peer(&a, &s0).unwrap_err()));
    let mut host = [0u32; 4];
    assert!(usage(
        // SAFETY: the copy is refused (usage error) before any copy is queued, so `host` is never
        // written asynchronously.
        &unsafe { b.copy_to_host_async(&mut host, &s0) }.unwrap_err()
    ));
    let ev = c0.create_event(EventOptions::default()).unwrap();
    assert!(usage(&ev.record(&s1).unwrap_err()));
    let p0 = PinnedBuffer::<u32>::new(&c0, 4).unwrap();
    assert!(usage(&b.copy_from_pinned(&p0, &s1).unwrap_err()));
    let mr: Arc<dyn MemoryResource> = Arc::new(DeviceMemoryResource::new(&c0));
    assert!(usage(&Buffer::<u32>::new_in(mr, &s1, 4).unwrap_err()));
    // Cross-device waits are allowed, as in CUDA.
    s1.wait_event(&c0.default_stream().record(EventOptions::default()).unwrap())
        .unwrap();
    s1.synchronize().unwrap();
}

#[gpu_test]
fn hot_paths_allocate_nothing() {
    let ctx = ctx();
    let s = ctx.create_stream(StreamOptions::default()).unwrap();
    let ev = ctx.create_event(EventOptions::timing()).unwrap();
    let mut d = s.alloc::<u32>(4096).unwrap();
    let mut pinned = PinnedBuffer::<u32>::new(&ctx, 4096).unwrap();
    let mut host = vec![3u32; 4096];
    // Warm up (first calls may initialise driver-side state).
    d.copy_from_host(&host).unwrap();
    d.copy_to_pinned(&mut pinned, &s).unwrap();
    let n = anycuda_test::alloc::allocations_in(|| {
        for _ in 0..100 {
            ctx.bind().unwrap();
            d.copy_from_host(&host).unwrap();
            d.copy_to_host(&mut host).unwrap();
            d.fill(5, &s).unwrap();
            d.view_mut(10..20).unwrap().zero(&s).unwrap();
            d.copy_to_pinned(&mut pinned, &s).unwrap();
            d.copy_from_pinned(&pinned, &s).unwrap();
            let _ = pinned.as_slice().unwrap()[0];
            ev.record(&s).unwrap();
            let _ = ev.is_done().unwrap();
            let _ = s.is_done().unwrap();
            s.synchronize().unwrap();
            let _ = ctx.default_stream();
            let _ = d.device().ordinal();
        }
    });
    assert_eq!(n, 0, "heap allocations on the hot paths");
}
