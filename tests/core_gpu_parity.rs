//! GPU suite for `anycuda::core`'s cuda.core-parity additions: linker logs after link, memory
//! and event IPC across processes, and the per-thread default stream. Every test is a
//! `#[gpu_test]` (anycuda-test): ignored without a GPU, and never a pass where its need is not
//! met (`not run`, exit status 77).
//!
//! On the GPU machine, per backend:
//!   ANYCUDA_BACKEND=cuda .device/tests/core_gpu_parity --include-ignored
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so \
//!       .device/tests/core_gpu_parity --include-ignored
//!
//! The IPC test re-runs this test binary as a child process (CUDA refuses to open an IPC handle
//! in the process that made it): the child gets the handles in environment variables, talks
//! back on its stdout, and inherits the backend's environment.

mod common;

use anycuda::core::*;
use anycuda::BackendKind;
use anycuda_test::{gpu_test, serial};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

fn dev0() -> Device {
    Device::new(0).expect("this test needs a GPU")
}

fn ctx() -> Context {
    dev0().context().expect("primary context")
}

fn usage(e: &CoreError) -> bool {
    e.code() == ErrorCode::Usage
}

fn is_cuda() -> bool {
    anycuda::backend().expect("a backend").kind() == BackendKind::Cuda
}

/// A host-side gate that holds a stream: `close` queues a host function that waits (at most a
/// minute, so a failed test never hangs the GPU) until `open` is called or the gate drops.
struct Gate(Arc<AtomicBool>);

impl Gate {
    fn close(stream: &Stream) -> Gate {
        let open = Arc::new(AtomicBool::new(false));
        let o = open.clone();
        stream
            .launch_host_func(move || {
                let t = Instant::now();
                while !o.load(Ordering::Acquire) && t.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
            .unwrap();
        Gate(open)
    }
    fn open(&self) {
        self.0.store(true, Ordering::Release);
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.open();
    }
}

// ---- linker ---------------------------------------------------------------------------------

fn rdc_ptx() -> (ObjectCode, ObjectCode) {
    let rdc = ProgramOptions::new().relocatable_device_code(true);
    let lib = Program::new(
        "__device__ float twice(float x) { return 2.0f * x; }",
        rdc.clone(),
    )
    .unwrap()
    .compile(CodeType::Ptx)
    .unwrap();
    let main_src = r#"__device__ float twice(float);
extern "C" __global__ void apply(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }"#;
    let main = Program::new(main_src, rdc)
        .unwrap()
        .compile(CodeType::Ptx)
        .unwrap();
    (lib, main)
}

#[gpu_test]
fn linker_logs_are_readable_after_link() {
    let _serial = serial();
    let ctx = dev0().set_current().expect("set_current");
    let (lib, main) = rdc_ptx();
    let opts = LinkerOptions {
        verbose: true,
        ..LinkerOptions::default()
    };
    let mut linker = match Linker::new(&ctx, &opts) {
        Ok(l) => l,
        Err(e) if e.is_not_supported() && !is_cuda() => {
            anycuda_test::not_applicable(&format!("no linker on this backend: {e}"));
        }
        Err(e) => panic!("{e}"),
    };
    linker.add(&lib, "lib.ptx").unwrap();
    linker.add(&main, "main.ptx").unwrap();
    assert!(!linker.is_linked());
    let linked = linker.link().unwrap();
    assert!(linker.is_linked());
    // The linker is still here: its logs, after the link (cuda.core's get_info_log()).
    let info = linker.info_log();
    let logs = linker.logs();
    eprintln!("info log after link:\n{info}\nerror log: {:?}", logs.error);
    assert_eq!(logs.info, info);
    if is_cuda() {
        // A verbose JIT link reports what it compiled ("ptxas info ...").
        assert!(!info.trim().is_empty(), "verbose link left no info log");
    }
    // A second link or a later add is refused by the safe layer, not sent to the driver.
    assert!(usage(&linker.link().unwrap_err()));
    assert!(usage(&linker.add(&lib, "again.ptx").unwrap_err()));
    // The linked code works.
    let stream = ctx.default_stream();
    let k = linked.load(&ctx).unwrap().kernel("apply").unwrap();
    let mut x = Buffer::from_slice(&stream, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    // SAFETY: `apply` doubles x[threadIdx.x] for 4 threads; x holds 4 floats.
    unsafe { launch(&stream, &LaunchConfig::new(1u32, 4u32), &k, (&mut x,)) }.unwrap();
    stream.synchronize().unwrap();
    assert_eq!(x.to_vec().unwrap(), [2.0, 4.0, 6.0, 8.0]);
    drop(linker); // the cubin was copied out: it outlives the linker
    assert_eq!(linked.code_type(), common::linked_code_type());

    // A failed link: the error carries the log, and the linker still answers afterwards.
    let mut bad = Linker::new(&ctx, &LinkerOptions::default()).unwrap();
    bad.add(&main, "main.ptx").unwrap();
    let e = bad.link().unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
    assert!(!bad.is_linked());
    assert!(bad.error_log().contains("twice"), "{}", bad.error_log());
    // The consuming form: the error with its log on failure ...
    let mut bad = Linker::new(&ctx, &LinkerOptions::default()).unwrap();
    bad.add(&main, "main.ptx").unwrap();
    let e = bad.link_with_logs().unwrap_err();
    assert!(!usage(&e) && e.to_string().contains("twice"), "{e}");
    // ... and the cubin with the logs on success.
    let mut good = Linker::new(&ctx, &opts).unwrap();
    good.add(&lib, "lib.ptx").unwrap();
    good.add(&main, "main.ptx").unwrap();
    let (code, logs) = good.link_with_logs().unwrap();
    assert_eq!(code.code_type(), common::linked_code_type());
    if is_cuda() {
        assert!(!logs.info.trim().is_empty());
    }
}

// ---- IPC ------------------------------------------------------------------------------------

/// The child process, killed and reaped if the parent's test fails first: its mappings of the
/// parent's buffer end with it, before the buffer is freed (declared after the buffer, it
/// drops first).
struct ChildGuard(std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

const CHILD_ROLE: &str = "ANYCUDA_PARITY_IPC_CHILD";
const CHILD_MEM: &str = "ANYCUDA_PARITY_IPC_MEM";
const CHILD_EVENT: &str = "ANYCUDA_PARITY_IPC_EVENT";
const IPC_TEST: &str = "ipc_memory_and_event_cross_processes";
/// 2 MiB of `u32`: a whole number of any allocation granularity, so "past the end" is past it.
const N: usize = 1 << 19;
const FILLED: u32 = 0xC0FF_EE00;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The child's side: open both handles, check the event is pending (the parent holds its
/// stream), queue a wait on it, tell the parent, read the memory after the wait, write back.
fn ipc_child() {
    let ctx = ctx();
    let mem_h = IpcMemHandle::from_bytes(&unhex(&std::env::var(CHILD_MEM).unwrap())).unwrap();
    let ev_h = IpcEventHandle::from_bytes(&unhex(&std::env::var(CHILD_EVENT).unwrap())).unwrap();
    // SAFETY: the parent keeps its event and buffer alive until this process has exited.
    let ev = unsafe { Event::from_ipc_handle(&ctx, &ev_h) }.unwrap();
    assert!(ev.is_ipc_enabled() && !ev.is_timing_enabled());
    // SAFETY: as above.
    let mut mem = unsafe { IpcMemory::<u32>::open(&ctx, &mem_h) }.unwrap();
    assert_eq!(mem.len(), N);
    assert_eq!(mem.size_in_bytes(), N * 4);
    // Bounded copies: a wrong host length is refused.
    assert!(usage(&mem.copy_to_host(&mut [0u32; 3]).unwrap_err()));
    let done = ev.is_done().unwrap();
    let s = ctx
        .create_stream(StreamOptions::default().non_blocking(true))
        .unwrap();
    s.wait_event(&ev).unwrap();
    println!("CHILD_OPENED done={done}");
    std::io::stdout().flush().unwrap();
    // Ordered after the parent's fill by the wait on its event.
    let mut v = vec![0u32; N];
    mem.copy_to_host_on(&mut v, &s).unwrap();
    assert!(v.iter().all(|&x| x == FILLED), "child read {:#x}", v[0]);
    assert!(ev.is_done().unwrap());
    ev.synchronize().unwrap();
    // Device-to-device copies with this process's buffers.
    let mut local = Buffer::<u32>::zeroed(&s, N).unwrap();
    mem.copy_to_device(&mut local.as_view_mut(), &s).unwrap();
    s.synchronize().unwrap();
    assert!(local.to_vec().unwrap().iter().all(|&x| x == FILLED));
    let mut short = Buffer::<u32>::zeroed(&s, 3).unwrap();
    assert!(usage(
        &mem.copy_to_device(&mut short.as_view_mut(), &s)
            .unwrap_err()
    ));
    // Host writes, then a device write of the final pattern the parent checks.
    mem.copy_from_host(&vec![0u32; N]).unwrap();
    assert!(mem.to_vec().unwrap().iter().all(|&x| x == 0));
    let back: Vec<u32> = (0..N as u32).map(|i| i * 3).collect();
    let back_buf = Buffer::from_slice(&s, &back).unwrap();
    mem.copy_from_device(&back_buf, &s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(mem.to_vec().unwrap(), back);
    // Dropping waits for this process's work on the mapping, then closes it.
    drop(mem);
    // A handle claiming more than the allocation holds is refused at open (and the mapping
    // closed again). Opened only now: drivers differ on a second open of a mapped handle.
    let too_big = IpcMemHandle::from_raw_parts(mem_h.as_raw(), 0, 1 << 40);
    // SAFETY: as above (and both opens fail before anything is used).
    let e = unsafe { IpcMemory::<u32>::open(&ctx, &too_big) }.unwrap_err();
    assert!(usage(&e), "{e}");
    let past_end = IpcMemHandle::from_raw_parts(mem_h.as_raw(), N * 4, 4);
    // SAFETY: as above.
    let e = unsafe { IpcMemory::<u32>::open(&ctx, &past_end) }.unwrap_err();
    assert!(usage(&e), "{e}");
    println!("CHILD_OK");
    std::io::stdout().flush().unwrap();
}

#[gpu_test]
fn ipc_memory_and_event_cross_processes() {
    if std::env::var(CHILD_ROLE).is_ok() {
        return ipc_child();
    }
    let _serial = serial();
    let ctx = ctx();
    let stream = ctx
        .create_stream(StreamOptions::default().non_blocking(true))
        .unwrap();

    // Interprocess events need timing off; ordinary events have no IPC handle.
    let e = Event::new(&ctx, EventOptions::timing().ipc_enabled(true)).unwrap_err();
    assert!(usage(&e), "{e}");
    let plain = ctx.create_event(EventOptions::default()).unwrap();
    assert!(usage(&plain.ipc_handle().unwrap_err()));

    // Pool memory (cuMemAllocAsync) cannot be shared through cuIpcGetMemHandle: the driver's
    // error comes back.
    if DeviceMemoryResource::new(&ctx).uses_pools() {
        let pooled = Buffer::<u32>::new(&stream, 16).unwrap();
        let e = IpcMemHandle::new(&pooled).unwrap_err();
        eprintln!("pool memory: {e}");
        assert!(e.driver_code().is_some(), "{e}");
    }
    let empty = Buffer::<u32>::new(&stream, 0).unwrap();
    assert!(usage(&IpcMemHandle::new(&empty).unwrap_err()));

    // Shareable memory comes from cuMemAlloc.
    let mr = Arc::new(DeviceMemoryResource::without_pools(&ctx));
    let mut buf = Buffer::<u32>::new_in(mr, &stream, N).unwrap();
    buf.copy_from_host(&vec![1u32; N]).unwrap();
    let ev = ctx.create_event(EventOptions::ipc()).unwrap();
    assert!(ev.is_ipc_enabled());

    let mem_h = IpcMemHandle::new(&buf).unwrap();
    assert_eq!((mem_h.offset(), mem_h.size_in_bytes()), (0, N * 4));
    // A view's handle names the same allocation, with the view's place in it.
    let half = IpcMemHandle::new(&buf.view(N / 2..).unwrap()).unwrap();
    assert_eq!((half.offset(), half.size_in_bytes()), (N * 2, N * 2));
    let ev_h = ev.ipc_handle().unwrap();
    assert_eq!(IpcMemHandle::from_bytes(&mem_h.to_bytes()).unwrap(), mem_h);

    // The same process cannot open its own handle (CUDA refuses it).
    // SAFETY: `buf` outlives the attempt (and a mapping, were one made).
    match unsafe { IpcMemory::<u32>::open(&ctx, &mem_h) } {
        Err(e) => eprintln!("same-process open: {e}"),
        Ok(m) => panic!("opening our own IPC handle succeeded: {m:?}"),
    }

    // Hold the stream, queue the fill and the event behind the gate.
    let gate = Gate::close(&stream);
    buf.fill(FILLED, &stream).unwrap();
    ev.record(&stream).unwrap();

    let mut child = ChildGuard(
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                IPC_TEST,
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ROLE, "1")
            .env(CHILD_MEM, hex(&mem_h.to_bytes()))
            .env(CHILD_EVENT, hex(&ev_h.to_bytes()))
            .stdout(Stdio::piped())
            .spawn()
            .expect("re-running the test binary"),
    );
    let out = child.0.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            eprintln!("child: {line}");
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // libtest may print "test NAME ... " before the child's own output on the same line.
    let wait_for = |marker: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) => {
                    if let Some(at) = l.find(marker) {
                        return l[at..].trim_end().to_string();
                    }
                }
                Err(e) => panic!("no {marker} line from the child: {e}"),
            }
        }
    };
    let opened = wait_for("CHILD_OPENED");
    // The child saw the event pending: the parent's stream is still held.
    assert_eq!(opened, "CHILD_OPENED done=false");
    assert!(!ev.is_done().unwrap());
    gate.open();
    wait_for("CHILD_OK");
    let status = child.0.wait().unwrap();
    assert!(status.success(), "child failed: {status}");
    stream.synchronize().unwrap();
    // The child's writes are in our buffer.
    let v = buf.to_vec().unwrap();
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 * 3));
}

// ---- per-thread default stream ---------------------------------------------------------------

#[gpu_test]
fn per_thread_stream_orders_work_per_thread() {
    let _serial = serial();
    let ctx = ctx();
    let pt = ctx.per_thread_stream();
    assert!(pt.is_per_thread() && !pt.is_default());
    assert_eq!(pt.as_raw() as usize, 2);
    assert!(!ctx.default_stream().is_per_thread());
    assert_eq!(pt.context(), &ctx);
    pt.synchronize().unwrap();
    assert!(pt.is_done().unwrap());

    // Work on it runs in order: a fill then a copy, then the host sees the fill.
    let mut b = Buffer::<u32>::zeroed(&pt, N).unwrap();
    b.fill(5, &pt).unwrap();
    let src: Vec<u32> = (0..N as u32).collect();
    b.view_mut(..N / 2)
        .unwrap()
        .copy_from_host(&src[..N / 2])
        .unwrap();
    let v = b.to_vec().unwrap();
    assert_eq!(&v[..N / 2], &src[..N / 2]);
    assert!(v[N / 2..].iter().all(|&x| x == 5));

    // Another thread's per-thread stream is another stream: it runs while ours is held.
    let (ready_tx, ready_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel();
    let (end_tx, end_rx) = mpsc::channel::<()>();
    let c2 = ctx.clone();
    let other = std::thread::spawn(move || {
        let pt2 = c2.per_thread_stream();
        let mut b2 = Buffer::<u32>::zeroed(&pt2, 1024).unwrap();
        pt2.synchronize().unwrap();
        ready_tx.send(()).unwrap();
        go_rx.recv().unwrap();
        b2.fill(9, &pt2).unwrap();
        let ok = b2.to_vec().unwrap().iter().all(|&x| x == 9) && pt2.is_done().unwrap();
        done_tx.send(ok).unwrap();
        end_rx.recv().unwrap();
        drop(b2); // freed on this thread's per-thread stream, where it was used
    });
    ready_rx.recv().unwrap();
    let gate = Gate::close(&pt);
    b.fill(7, &pt).unwrap();
    go_tx.send(()).unwrap();
    let ok = done_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the other thread's per-thread stream waited for ours");
    assert!(ok);
    assert!(
        !pt.is_done().unwrap(),
        "our per-thread stream is held by the gate"
    );
    gate.open();
    pt.synchronize().unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&x| x == 7));
    end_tx.send(()).unwrap();
    other.join().unwrap();

    // Events order it like any stream.
    let ev = pt.record(EventOptions::default()).unwrap();
    let s = ctx.create_stream(StreamOptions::default()).unwrap();
    s.wait_event(&ev).unwrap();
    s.synchronize().unwrap();
    assert!(ev.is_done().unwrap());

    // Unlike the legacy default stream, it can be captured.
    assert!(usage(
        &ctx.default_stream()
            .begin_capture(CaptureMode::ThreadLocal)
            .unwrap_err()
    ));
    pt.begin_capture(CaptureMode::ThreadLocal).unwrap();
    assert!(pt.is_capturing().unwrap());
    b.fill(11, &pt).unwrap();
    let graph = pt.end_capture().unwrap();
    assert!(!pt.is_capturing().unwrap());
    let exec = graph.instantiate().unwrap();
    exec.launch(&pt).unwrap();
    pt.synchronize().unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&x| x == 11));
}
