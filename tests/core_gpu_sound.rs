//! GPU tests of the safe layer's soundness fixes, one per finding that safe code could turn into
//! undefined behaviour or a wrong result, on whichever backend `ANYCUDA_BACKEND` selects (CUDA,
//! or HIP through HIP's NVIDIA platform):
//!
//! 1. a host function captured into a graph ran its freed `FnOnce` on every graph launch;
//! 2. a graph kept a buffer's address but not the buffer (a dropped buffer's memory, reused by
//!    the next allocation, was written by the graph), and mutated managed memory behind a live
//!    host slice;
//! 3. a kernel could be handed anything (now `launch` is `unsafe`: the compile-fail doctests of
//!    `anycuda::core` show it; nothing to run here);
//! 4. a buffer used on a second stream and dropped was freed on its allocation stream and
//!    reused while the second stream's work still ran.
//!
//! Each test is built so that, without the fix, it fails (a wrong value, a refused check, a
//! crash), not merely passes by luck.
//!
//! Every test is a `#[gpu_test]` (anycuda-test): ci/gpu-test.sh runs them on a GPU machine, one
//! process each. Where a need is not met they end `not run` (exit status 77), never as a pass. They take one
//! process-wide lock: the reuse tests depend on what the allocator hands out next, which a
//! concurrent test would disturb.
//!
//!   ANYCUDA_BACKEND=cuda .device/tests/core_gpu_sound --include-ignored --test-threads=1
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so \
//!       .device/tests/core_gpu_sound --include-ignored --test-threads=1

use anycuda::core::{
    launch, Buffer, CaptureMode, CodeType, Context, Device, DeviceMemoryResource, ErrorCode,
    GraphBuilder, Kernel, LaunchConfig, ManagedMemoryResource, MemoryResource, ObjectCode,
    PinnedBuffer, Program, ProgramOptions, Stream, StreamOptions,
};
use anycuda::driver::CUdevice_attribute;
use anycuda_test::{gpu_test, serial};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KERNELS: &str = r#"
// Spins for `cycles` clock cycles, then writes `value` into p[0..n).
extern "C" __global__ void delayed_fill(unsigned *p, unsigned n, unsigned value, long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) { }
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = value;
}
"#;

/// A pattern no test writes on purpose into a fresh buffer.
const STALE: u32 = 0xDEAD_BEEF;
/// Elements per test buffer (4 MiB): large enough that the pool hands back the same block.
const N: usize = 1 << 20;

struct Gpu {
    ctx: Context,
    stream: Stream,
    code: ObjectCode,
    /// Clock cycles in about 200 ms.
    slow: i64,
}

/// Whether the active backend is CUDA, which has every feature these tests use: there a
/// not-supported answer is a failure. On another backend the test ends with
/// `anycuda_test::not_applicable` (an `N/A: ` line, exit status 78), which ci/gpu-test.sh
/// records as "n/a", not as a pass.
fn on_cuda() -> bool {
    anycuda::backend().is_ok_and(|s| s.kind() == anycuda::BackendKind::Cuda)
}

/// Device 0 current, a stream, and the kernels compiled for it. Panics without a device.
fn gpu() -> Gpu {
    let dev = Device::new(0).expect("these tests need a GPU (device 0)");
    let ctx = dev.set_current().expect("set_current");
    let stream = ctx.create_stream(StreamOptions::default()).expect("stream");
    let mut prog = Program::new(KERNELS, ProgramOptions::new().name("sound.cu")).expect("program");
    let code = prog
        .compile(CodeType::Ptx)
        .unwrap_or_else(|e| panic!("compile: {e}"));
    let khz = dev
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
        .ok()
        .filter(|&k| k > 0)
        .unwrap_or(1_500_000);
    Gpu {
        ctx,
        stream,
        code,
        slow: i64::from(khz) * 200,
    }
}

fn kernel(g: &Gpu, name: &str) -> Kernel {
    g.code
        .kernel(name)
        .unwrap_or_else(|e| panic!("kernel {name}: {e}"))
}

fn is_usage(e: &anycuda::core::CoreError) -> bool {
    e.code() == ErrorCode::Usage
}

/// One block of 256 threads: slow, and small enough that the spin dominates.
fn one_block() -> LaunchConfig {
    LaunchConfig::new(1u32, 256u32)
}

// ---------------------------------------------------------------------------------------------
// Finding 1: host functions and graphs
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn captured_host_fn_runs_on_every_launch_and_is_freed_once() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    let runs = Arc::new(AtomicUsize::new(0));
    let token = Arc::new(()); // counts the closure's copies: freed once means back to 1
    s.begin_capture(CaptureMode::ThreadLocal).unwrap();
    // The one-shot variant is refused while capturing (a graph would replay it) ...
    let e = s.launch_host_func(|| ()).unwrap_err();
    assert!(is_usage(&e), "{e}");
    // ... the repeatable one is owned by the graph.
    let (r, t) = (runs.clone(), token.clone());
    let queued = s.launch_host_fn(move || {
        let _keep = &t;
        r.fetch_add(1, Ordering::SeqCst);
    });
    if let Err(e) = &queued {
        // HIP before 5.3 has no hipLaunchHostFunc; the backend queues host functions with
        // hipStreamAddCallback, which no capture accepts (HIP's NVIDIA platform forwards it to
        // cudaStreamAddCallback). That is the honest answer there, not a pass.
        let unsupported = e.driver_code()
            == Some(anycuda::driver::CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        assert!(!on_cuda() && unsupported, "{e}");
        let _ = s.end_capture(); // the failed call invalidated the capture: end it
        assert_eq!(Arc::strong_count(&token), 1, "a refused closure is dropped");
        anycuda_test::not_applicable(&format!(
            "host functions cannot be captured on this backend: {e}"
        ));
    }
    let graph = s.end_capture().unwrap();
    assert_eq!(graph.node_count().unwrap(), 1);
    assert_eq!(Arc::strong_count(&token), 2, "the graph owns the closure");
    let exec = graph.instantiate().unwrap();
    drop(graph); // the executable keeps the closure on its own
                 // An executable cannot be launched into a capture (the new graph would not own it).
    let s3 = g.ctx.create_stream(StreamOptions::default()).unwrap();
    s3.begin_capture(CaptureMode::ThreadLocal).unwrap();
    assert!(is_usage(&exec.launch(&s3).unwrap_err()));
    drop(s3.end_capture().unwrap());
    const LAUNCHES: usize = 7;
    for _ in 0..LAUNCHES {
        exec.launch(s).unwrap();
    }
    s.synchronize().unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), LAUNCHES);
    assert_eq!(Arc::strong_count(&token), 2);
    drop(exec);
    assert_eq!(
        Arc::strong_count(&token),
        1,
        "closure dropped once, with the graph"
    );
    assert_eq!(runs.load(Ordering::SeqCst), LAUNCHES);

    // Outside a capture both variants run once.
    let r = runs.clone();
    s.launch_host_func(move || {
        r.fetch_add(100, Ordering::SeqCst);
    })
    .unwrap();
    let r = runs.clone();
    s.launch_host_fn(move || {
        r.fetch_add(1000, Ordering::SeqCst);
    })
    .unwrap();
    s.synchronize().unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), LAUNCHES + 1100);
    assert_eq!(
        Arc::strong_count(&runs),
        1,
        "both closures freed after running"
    );
}

#[gpu_test]
fn graph_host_node_runs_per_launch_and_is_freed_once() {
    let _l = serial();
    let g = gpu();
    let runs = Arc::new(AtomicUsize::new(0));
    let mut b = GraphBuilder::new(&g.ctx).unwrap();
    let r = runs.clone();
    let first = match b.host(&[], move || {
        r.fetch_add(1, Ordering::SeqCst);
    }) {
        Ok(n) => n,
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!(
                "host nodes are not supported on this backend: {e}"
            ));
        }
        Err(e) => panic!("{e}"),
    };
    let r = runs.clone();
    b.host(&[first], move || {
        r.fetch_add(10, Ordering::SeqCst);
    })
    .unwrap();
    let exec = b.build().instantiate().unwrap();
    for _ in 0..5 {
        exec.launch(&g.stream).unwrap();
    }
    g.stream.synchronize().unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 55);
    drop(exec);
    assert_eq!(Arc::strong_count(&runs), 1);
}

// ---------------------------------------------------------------------------------------------
// Finding 2: graphs own what they reference; no host borrow behind a graph
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn a_graph_keeps_a_dropped_buffer_alive_and_spares_the_next_allocation() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    let mut a = Buffer::<u32>::zeroed(s, N).unwrap();
    let mut out = Buffer::<u32>::zeroed(s, N).unwrap();
    let mut b = GraphBuilder::new(&g.ctx).unwrap();
    let set = match b.memset(&[], &mut a, STALE) {
        Ok(n) => n,
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!(
                "memset nodes are not supported on this backend: {e}"
            ));
        }
        Err(e) => panic!("{e}"),
    };
    b.memcpy(&[set], &mut out, &a).unwrap();
    let exec = b.build().instantiate().unwrap();
    let old = a.as_raw();
    drop(a); // the graph's memory now lives only in the executable
    s.synchronize().unwrap();
    let mut fresh = Buffer::<u32>::new(s, N).unwrap();
    // A live allocation is never handed out twice: without the fix the pool returned `old`.
    assert_ne!(
        fresh.as_raw(),
        old,
        "the graph's memory was reused while it holds it"
    );
    fresh.fill(1, s).unwrap();
    exec.launch(s).unwrap();
    s.synchronize().unwrap();
    assert!(
        fresh.to_vec().unwrap().iter().all(|&v| v == 1),
        "the graph wrote a buffer allocated after its own was dropped"
    );
    assert!(
        out.to_vec().unwrap().iter().all(|&v| v == STALE),
        "the graph still writes (and reads) its own, kept-alive memory"
    );
}

#[gpu_test]
fn host_slices_are_refused_while_a_graph_holds_the_memory() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    // Managed memory, as in the finding (memset nodes on mapped pinned memory are not
    // something every driver accepts; the rule is the same for both).
    let resources: [Arc<dyn MemoryResource>; 1] = [Arc::new(ManagedMemoryResource::new(&g.ctx))];
    for mr in resources {
        let mut m = Buffer::<u32>::new_in(mr, s, 4096).unwrap();
        let mut b = GraphBuilder::new(&g.ctx).unwrap();
        match b.memset(&[], &mut m, 5u32) {
            Ok(_) => {}
            Err(e) if e.is_not_supported() && !on_cuda() => {
                anycuda_test::not_applicable(&format!(
                    "memset nodes are not supported on this backend: {e}"
                ));
            }
            Err(e) => panic!("{e}"),
        }
        let graph = b.build();
        // Without the fix the slice was handed out and a graph launch wrote behind it.
        assert!(is_usage(&m.as_host_slice().unwrap_err()));
        assert!(is_usage(&m.as_host_slice_mut().unwrap_err()));
        let exec = graph.instantiate().unwrap();
        drop(graph);
        assert!(
            is_usage(&m.as_host_slice().unwrap_err()),
            "the exec holds it"
        );
        exec.launch(s).unwrap();
        drop(exec); // waits for its launch
        assert!(m.as_host_slice().unwrap().iter().all(|&v| v == 5));

        // A capture in progress holds what it captured, too.
        s.begin_capture(CaptureMode::ThreadLocal).unwrap();
        m.fill(9, s).unwrap();
        assert!(is_usage(&m.as_host_slice().unwrap_err()), "capturing");
        let graph = s.end_capture().unwrap();
        assert!(is_usage(&m.as_host_slice().unwrap_err()), "captured");
        drop(graph);
        // Never launched: the capture ran nothing.
        assert!(m.as_host_slice().unwrap().iter().all(|&v| v == 5));
    }
}

// ---------------------------------------------------------------------------------------------
// Finding 4: frees are ordered after uses on other streams
// ---------------------------------------------------------------------------------------------

/// Queues ~200 ms of spinning on `s2`, then `use_a` (which writes STALE into `a` on `s2`), drops
/// `a`, allocates `fresh` of the same size on `a`'s stream and fills it with 1, then waits for
/// everything: `fresh` must hold 1s. Without the ordering, `a`'s memory was freed and handed to
/// `fresh` at once, and the late write on `s2` landed in it.
fn check_free_after_foreign_use(
    g: &Gpu,
    what: &str,
    use_a: impl FnOnce(&mut Buffer<u32>, &Stream),
) {
    let pooled = |s: &Stream| Buffer::<u32>::new(s, N).unwrap();
    check_free_after_foreign_use_in(g, what, &pooled, use_a);
}

/// [`check_free_after_foreign_use`] with buffers from `alloc`.
fn check_free_after_foreign_use_in(
    g: &Gpu,
    what: &str,
    alloc: &dyn Fn(&Stream) -> Buffer<u32>,
    use_a: impl FnOnce(&mut Buffer<u32>, &Stream),
) {
    let s1 = &g.stream;
    let s2 = g.ctx.create_stream(StreamOptions::default()).unwrap();
    let spin = kernel(g, "delayed_fill");
    let mut scratch = Buffer::<u32>::zeroed(&s2, 256).unwrap();
    let mut a = alloc(s1);
    a.zero(s1).unwrap();
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    // SAFETY: delayed_fill writes scratch[i] for i < 256 (its length) only; no host borrow.
    unsafe {
        launch(
            &s2,
            &one_block(),
            &spin,
            (&mut scratch, 256u32, 0u32, g.slow),
        )
    }
    .unwrap();
    use_a(&mut a, &s2);
    let old = a.as_raw();
    drop(a);
    let mut fresh = alloc(s1);
    let reused = fresh.as_raw() == old;
    fresh.fill(1, s1).unwrap();
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    let v = fresh.to_vec().unwrap();
    let bad = v.iter().filter(|&&x| x != 1).count();
    println!("{what}: the new buffer reused the old address: {reused}; wrong elements: {bad}");
    assert_eq!(
        bad, 0,
        "{what}: work on a second stream wrote a freed buffer's memory after its reuse"
    );
}

#[gpu_test]
fn a_free_waits_for_a_fill_on_another_stream() {
    let _l = serial();
    let g = gpu();
    check_free_after_foreign_use(&g, "fill", |a, s2| a.fill(STALE, s2).unwrap());
}

#[gpu_test]
fn a_free_without_pools_waits_for_a_fill_on_another_stream() {
    let _l = serial();
    let g = gpu();
    let mr: Arc<dyn MemoryResource> = Arc::new(DeviceMemoryResource::without_pools(&g.ctx));
    let plain = move |s: &Stream| Buffer::<u32>::new_in(mr.clone(), s, N).unwrap();
    check_free_after_foreign_use_in(&g, "fill, cuMemFree", &plain, |a, s2| {
        a.fill(STALE, s2).unwrap()
    });
}

#[gpu_test]
fn a_free_waits_for_a_copy_on_another_stream() {
    let _l = serial();
    let g = gpu();
    let src = Buffer::from_slice(&g.stream, &vec![STALE; N]).unwrap();
    check_free_after_foreign_use(&g, "copy_from", |a, s2| a.copy_from(&src, s2).unwrap());
    // The source of the copy is covered the same way: drop it right after a foreign copy.
    let s2 = g.ctx.create_stream(StreamOptions::default()).unwrap();
    let mut dst = Buffer::<u32>::zeroed(&s2, N).unwrap();
    s2.synchronize().unwrap();
    dst.copy_from(&src, &s2).unwrap();
    drop(src);
    s2.synchronize().unwrap();
    assert!(dst.to_vec().unwrap().iter().all(|&v| v == STALE));
}

#[gpu_test]
fn a_free_waits_for_a_kernel_on_another_stream() {
    let _l = serial();
    let g = gpu();
    let k = kernel(&g, "delayed_fill");
    let slow = g.slow;
    check_free_after_foreign_use(&g, "kernel", |a, s2| {
        // SAFETY: delayed_fill writes a[i] for i < N (a's length) only; no host borrow; the
        // checked launch records the use on s2 for a's free.
        unsafe {
            launch(
                s2,
                &LaunchConfig::new(64u32, 256u32),
                &k,
                (&mut *a, N as u32, STALE, slow),
            )
        }
        .unwrap()
    });
}

#[gpu_test]
fn a_free_on_the_per_thread_stream_waits_for_another_threads_use() {
    // One `Stream` value from `per_thread_stream` names a different stream on each thread.
    // A buffer allocated on it here and filled from another thread (so on that thread's
    // stream, behind a slow kernel) must not be freed here before that fill has run.
    //
    // The other thread stays alive, its work pending, until this one has checked: the buffer
    // travels back by channel rather than by ending the thread. (A first version joined the
    // thread with its per-thread stream still busy, and hung in the join on the H100 under
    // both backends; under compute-sanitizer it passed.)
    let _l = serial();
    let g = gpu();
    let spin = kernel(&g, "delayed_fill");
    let p = g.ctx.per_thread_stream();
    let mut a = Buffer::<u32>::new(&p, N).unwrap();
    a.zero(&p).unwrap();
    p.synchronize().unwrap();
    // Slowed down by a kernel on another (created) stream's memory, so only the per-thread
    // streams differ between the threads.
    let mut scratch = Buffer::<u32>::zeroed(&g.stream, 256).unwrap();
    g.stream.synchronize().unwrap();
    let (give_back, back) = std::sync::mpsc::channel();
    let done = std::sync::Barrier::new(2);
    std::thread::scope(|sc| {
        let (p, spin, done, slow, scratch) = (&p, &spin, &done, g.slow, &mut scratch);
        sc.spawn(move || {
            // SAFETY: delayed_fill writes scratch[i] for i < 256 (its length) only; no host
            // borrow of it exists; the checked launch records the use for scratch's free.
            unsafe { launch(p, &one_block(), spin, (&mut *scratch, 256u32, 0u32, slow)) }.unwrap();
            // Queued on this thread's per-thread stream, after the slow kernel.
            a.fill(STALE, p).unwrap();
            eprintln!("per-thread: other thread: slow kernel and fill queued");
            give_back.send(a).unwrap();
            // Keep this thread (and its stream's pending work) until the check is done.
            done.wait();
            p.synchronize().unwrap();
        });
        let a = back.recv().unwrap();
        let old = a.as_raw();
        drop(a); // on this thread's per-thread stream: must wait for the other thread's fill
        let mut fresh = Buffer::<u32>::new(p, N).unwrap();
        let reused = fresh.as_raw() == old;
        fresh.fill(1, p).unwrap();
        eprintln!("per-thread: freed, reallocated and filled here");
        // Everything, the other thread's stream included (it waits at the barrier).
        g.ctx.synchronize().unwrap();
        let bad = fresh.to_vec().unwrap().iter().filter(|&&x| x != 1).count();
        println!("per-thread stream: address reused: {reused}; wrong elements: {bad}");
        done.wait();
        assert_eq!(
            bad, 0,
            "another thread's fill wrote a freed buffer after its reuse"
        );
    });
    g.ctx.synchronize().unwrap();
}

#[gpu_test]
fn an_executable_graph_waits_for_its_launches_before_releasing_memory() {
    let _l = serial();
    let g = gpu();
    let k = kernel(&g, "delayed_fill");
    let s1 = &g.stream;
    let s2 = g.ctx.create_stream(StreamOptions::default()).unwrap();
    let mut a = Buffer::<u32>::zeroed(s1, N).unwrap();
    s1.synchronize().unwrap();
    let mut b = GraphBuilder::new(&g.ctx).unwrap();
    // SAFETY: delayed_fill writes a[i] for i < N only; the graph keeps `a` alive; no host
    // borrow of it exists.
    let node = unsafe {
        b.kernel(
            &[],
            &LaunchConfig::new(64u32, 256u32),
            &k,
            (&mut a, N as u32, STALE, g.slow),
        )
    };
    match node {
        Ok(_) => {}
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!(
                "kernel nodes are not supported on this backend: {e}"
            ));
        }
        Err(e) => panic!("{e}"),
    }
    let exec = b.build().instantiate().unwrap();
    let old = a.as_raw();
    drop(a);
    exec.launch(&s2).unwrap();
    let t = Instant::now();
    drop(exec); // waits for the launch, then releases `a`'s memory (freed on s1)
    let waited = t.elapsed();
    let mut fresh = Buffer::<u32>::new(s1, N).unwrap();
    let reused = fresh.as_raw() == old;
    fresh.fill(1, s1).unwrap();
    s1.synchronize().unwrap();
    s2.synchronize().unwrap();
    println!("exec drop waited {waited:?}; address reused: {reused}");
    assert!(waited > Duration::from_millis(20), "{waited:?}");
    assert!(fresh.to_vec().unwrap().iter().all(|&v| v == 1));
}

// ---------------------------------------------------------------------------------------------
// Captures keep what they reference alive
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn a_captured_pinned_copy_keeps_the_pinned_buffer_alive() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    let src = PinnedBuffer::from_slice(&g.ctx, &vec![3u32; N]).unwrap();
    let mut d = Buffer::<u32>::zeroed(s, N).unwrap();
    let mut back = PinnedBuffer::<u32>::new(&g.ctx, N).unwrap();
    s.synchronize().unwrap();
    s.begin_capture(CaptureMode::ThreadLocal).unwrap();
    d.copy_from_pinned(&src, s).unwrap();
    d.copy_to_pinned(&mut back, s).unwrap();
    let graph = s.end_capture().unwrap();
    assert!(src.is_held_by_graph() && back.is_held_by_graph());
    // Host slices are refused while the graph may write (or read) the memory.
    assert!(is_usage(&back.as_slice().unwrap_err()));
    assert!(is_usage(&back.as_mut_slice().unwrap_err()));
    let old = src.as_ptr();
    drop(src); // the graph keeps it
               // Without the fix the host allocator may hand the same pages to this buffer of 9s, and the
               // graph then copies 9s.
    let other = PinnedBuffer::from_slice(&g.ctx, &vec![9u32; N]).unwrap();
    assert_ne!(other.as_ptr(), old);
    let exec = graph.instantiate().unwrap();
    drop(graph);
    exec.launch(s).unwrap();
    exec.launch(s).unwrap();
    s.synchronize().unwrap();
    assert!(d.to_vec().unwrap().iter().all(|&v| v == 3));
    drop(exec);
    assert!(!back.is_held_by_graph());
    assert!(back.as_slice().unwrap().iter().all(|&v| v == 3));
    assert!(other.as_slice().unwrap().iter().all(|&v| v == 9));
}

#[gpu_test]
fn a_captured_copy_keeps_a_dropped_device_buffer_alive() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    let src = Buffer::from_slice(s, &vec![4u32; N]).unwrap();
    let mut dst = Buffer::<u32>::zeroed(s, N).unwrap();
    s.synchronize().unwrap();
    s.begin_capture(CaptureMode::ThreadLocal).unwrap();
    dst.copy_from(&src, s).unwrap();
    // Synchronous copies cannot be captured: refused, and the capture goes on.
    assert!(is_usage(&src.to_vec().unwrap_err()));
    // Nor can a pool allocation (it would be a graph memory node, not memory a buffer owns).
    if g.ctx.device().memory_pools_supported() {
        assert!(is_usage(&Buffer::<u32>::new(s, 16).unwrap_err()));
    }
    let graph = s.end_capture().unwrap();
    let old = src.as_raw();
    drop(src);
    let mut fresh = Buffer::<u32>::new(s, N).unwrap();
    assert_ne!(fresh.as_raw(), old);
    fresh.fill(8, s).unwrap();
    let exec = graph.instantiate().unwrap();
    exec.launch(s).unwrap();
    s.synchronize().unwrap();
    assert!(dst.to_vec().unwrap().iter().all(|&v| v == 4));
    assert!(fresh.to_vec().unwrap().iter().all(|&v| v == 8));
}

// ---------------------------------------------------------------------------------------------
// cuda.core parity
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn from_handle_wraps_foreign_memory_without_freeing_it() {
    let _l = serial();
    let g = gpu();
    let s = &g.stream;
    let owner = Buffer::from_slice(s, &[1u32, 2, 3, 4]).unwrap();
    {
        // SAFETY: `owner`'s memory is device memory of this context holding 4 u32 values,
        // alive (owner outlives this scope) and not used elsewhere meanwhile.
        let mut view = unsafe { Buffer::<u32>::from_handle(owner.as_raw(), 4, s) }.unwrap();
        assert_eq!(view.to_vec().unwrap(), [1, 2, 3, 4]);
        view.view_mut(2..).unwrap().fill(9, s).unwrap();
        assert!(!view.is_host_accessible());
        // Dropped here: nothing is freed.
    }
    s.synchronize().unwrap();
    assert_eq!(owner.to_vec().unwrap(), [1, 2, 9, 9]);
    // Non-blocking by default, as cuda.core's streams.
    assert!(s.is_non_blocking().unwrap());
}
