//! GPU suite for the collective layer (2 GPUs): every collective for every data type (the
//! integers, f32, f64, f16, bf16; not the fp8 types) and reduction operation against a CPU reference, for both ways to start (ncclCommInitAll and
//! ncclCommInitRankConfig) and for one process per GPU over NCCL's socket transport; and wrong
//! use: buffers of another device, local length mismatches, ranks and roots out of range,
//! counts that differ across ranks, and a peer process killed mid-run, each an error within the
//! configured timeout.
//!
//! Every test is a `#[gpu_test]` (anycuda-test), ignored without a GPU (`ci/nccl-gpu-test.sh`
//! runs them); run on a machine with fewer GPUs than it needs, it ends `not run` (exit status
//! 77), never as a pass. Every process sets
//! `NCCL_NVLS_ENABLE=0` before NCCL loads, and child processes get it in their environment.

use anycuda::core::comm::{Bf16, Communicator, InitOptions, NcclType, ReduceOp, UniqueId, F16};
use anycuda::core::{Buffer, Device, ErrorCode, Stream, StreamOptions};
use anycuda_test::gpu_test;
use std::fmt::Debug;
use std::time::{Duration, Instant};

fn setup() {
    // Before any NCCL call of this process.
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
}

fn two_devices() -> [Device; 2] {
    setup();
    let n = Device::count().expect("a GPU backend with a device");
    assert!(n >= 2, "these tests need 2 GPUs, found {n}");
    [Device::new(0).unwrap(), Device::new(1).unwrap()]
}

fn stream(d: Device) -> Stream {
    d.set_current()
        .unwrap()
        .create_stream(StreamOptions::default())
        .unwrap()
}

/// An element type with an exact CPU reference (small integers: exact in every type).
trait Val: NcclType + PartialEq + Debug + Send {
    fn of(v: i64) -> Self;
    /// NCCL's average: the sum divided by the rank count (integer division for integers).
    fn avg(sum: i64, n: i64) -> Self;
}
macro_rules! int_val { ($($t:ty),*) => {$(impl Val for $t {
    fn of(v: i64) -> Self { v as $t }
    fn avg(sum: i64, n: i64) -> Self { (sum / n) as $t }
})*}; }
int_val!(i8, u8, i32, u32, i64, u64);
macro_rules! float_val { ($($t:ty),*) => {$(impl Val for $t {
    fn of(v: i64) -> Self { v as $t }
    fn avg(sum: i64, n: i64) -> Self { (sum as f64 / n as f64) as $t }
})*}; }
float_val!(f32, f64);
// Half types: the small integers and halves used here are exact in both.
macro_rules! half_val { ($($t:ident),*) => {$(impl Val for $t {
    fn of(v: i64) -> Self { $t::from_f32(v as f32) }
    fn avg(sum: i64, n: i64) -> Self { $t::from_f32(sum as f32 / n as f32) }
})*}; }
half_val!(F16, Bf16);

/// Rank r's element i: 1..=5, so sums and products of 2 ranks fit even in i8.
fn input(r: usize, i: usize) -> i64 {
    ((i * 7 + r * 3) % 5 + 1) as i64
}

fn reduce_ref<T: Val>(op: ReduceOp, n: usize, i: usize) -> T {
    let vals: Vec<i64> = (0..n).map(|r| input(r, i)).collect();
    match op {
        ReduceOp::Sum => T::of(vals.iter().sum()),
        ReduceOp::Prod => T::of(vals.iter().product()),
        ReduceOp::Max => T::of(*vals.iter().max().unwrap()),
        ReduceOp::Min => T::of(*vals.iter().min().unwrap()),
        ReduceOp::Avg => T::avg(vals.iter().sum(), n as i64),
    }
}

fn host<T: Val>(r: usize, len: usize) -> Vec<T> {
    (0..len).map(|i| T::of(input(r, i))).collect()
}

/// Every collective for one type, on one rank; every rank runs the same sequence.
fn suite_for<T: Val>(c: &mut Communicator, s: &Stream, what: &str) {
    let (r, n) = (c.rank(), c.size());
    let len = 1000 + 24; // not a multiple of anything NCCL chunks by
    let send = Buffer::from_slice(s, &host::<T>(r, len)).unwrap();
    for op in ReduceOp::ALL {
        let mut recv = Buffer::<T>::zeroed(s, len).unwrap();
        c.all_reduce(&send, &mut recv, op, s).unwrap();
        c.synchronize(s).unwrap();
        let got = recv.to_vec().unwrap();
        for (i, g) in got.iter().enumerate() {
            assert_eq!(
                *g,
                reduce_ref::<T>(op, n, i),
                "{what} all_reduce {op:?} rank {r} [{i}]"
            );
        }
        let mut inplace = Buffer::from_slice(s, &host::<T>(r, len)).unwrap();
        c.all_reduce_in_place(&mut inplace, op, s).unwrap();
        c.synchronize(s).unwrap();
        assert_eq!(
            inplace.to_vec().unwrap(),
            got,
            "{what} in-place all_reduce {op:?}"
        );

        for root in 0..n {
            let mut recv = Buffer::<T>::zeroed(s, len).unwrap();
            c.reduce(&send, &mut recv, op, root, s).unwrap();
            c.synchronize(s).unwrap();
            if r == root {
                let got = recv.to_vec().unwrap();
                for (i, g) in got.iter().enumerate() {
                    assert_eq!(
                        *g,
                        reduce_ref::<T>(op, n, i),
                        "{what} reduce {op:?} root {root} [{i}]"
                    );
                }
            }
        }
        let block = 256;
        let big = Buffer::from_slice(s, &host::<T>(r, block * n)).unwrap();
        let mut part = Buffer::<T>::zeroed(s, block).unwrap();
        c.reduce_scatter(&big, &mut part, op, s).unwrap();
        c.synchronize(s).unwrap();
        for (i, g) in part.to_vec().unwrap().iter().enumerate() {
            assert_eq!(
                *g,
                reduce_ref::<T>(op, n, r * block + i),
                "{what} reduce_scatter {op:?} [{i}]"
            );
        }
    }
    for root in 0..n {
        let mut recv = Buffer::<T>::zeroed(s, len).unwrap();
        c.broadcast(&send, &mut recv, root, s).unwrap();
        c.synchronize(s).unwrap();
        assert_eq!(
            recv.to_vec().unwrap(),
            host::<T>(root, len),
            "{what} broadcast root {root}"
        );
    }
    let mut all = Buffer::<T>::zeroed(s, len * n).unwrap();
    c.all_gather(&send, &mut all, s).unwrap();
    c.synchronize(s).unwrap();
    let got = all.to_vec().unwrap();
    for q in 0..n {
        assert_eq!(
            got[q * len..(q + 1) * len],
            host::<T>(q, len)[..],
            "{what} all_gather block {q}"
        );
    }
    // Ring exchange: send to the next rank, receive from the previous, in one group.
    let mut from_prev = Buffer::<T>::zeroed(s, len).unwrap();
    anycuda::core::comm::group(|| {
        c.send(&send, (r + 1) % n, s)?;
        c.recv(&mut from_prev, (r + n - 1) % n, s)
    })
    .unwrap();
    c.synchronize(s).unwrap();
    assert_eq!(
        from_prev.to_vec().unwrap(),
        host::<T>((r + n - 1) % n, len),
        "{what} send/recv"
    );
}

fn suite(c: &mut Communicator, s: &Stream) {
    suite_for::<i8>(c, s, "i8");
    suite_for::<u8>(c, s, "u8");
    suite_for::<i32>(c, s, "i32");
    suite_for::<u32>(c, s, "u32");
    suite_for::<i64>(c, s, "i64");
    suite_for::<u64>(c, s, "u64");
    suite_for::<f32>(c, s, "f32");
    suite_for::<f64>(c, s, "f64");
    suite_for::<F16>(c, s, "f16");
    suite_for::<Bf16>(c, s, "bf16");
}

/// Runs `f` for each communicator on its own thread (one thread per rank, as NCCL allows).
fn per_rank(comms: Vec<Communicator>, f: fn(&mut Communicator, &Stream)) {
    let hs: Vec<_> = comms
        .into_iter()
        .map(|mut c| {
            std::thread::spawn(move || {
                let s = stream(c.device());
                c.set_timeout(Some(Duration::from_secs(120)));
                f(&mut c, &s);
            })
        })
        .collect();
    for h in hs {
        h.join().expect("a rank failed");
    }
}

#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn every_collective_dtype_op_init_all() {
    let devs = two_devices();
    let comms = Communicator::init_all(&devs).unwrap();
    assert_eq!(
        (comms[0].rank(), comms[1].rank(), comms[0].size()),
        (0, 1, 2)
    );
    per_rank(comms, suite);
}

#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn every_collective_dtype_op_init_rank() {
    let devs = two_devices();
    let id = UniqueId::new().unwrap();
    // The id travels as hex, as it would through an environment variable.
    let hex = id.to_hex();
    let hs: Vec<_> = devs
        .iter()
        .enumerate()
        .map(|(rank, d)| {
            let (d, hex) = (*d, hex.clone());
            std::thread::spawn(move || {
                let id = UniqueId::from_hex(&hex).unwrap();
                Communicator::init_rank(&d, &id, 2, rank, InitOptions::default()).unwrap()
            })
        })
        .collect();
    let comms: Vec<Communicator> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    per_rank(comms, suite);
}

/// One GPU, one rank: the whole suite through both ways to start, so the collective layer runs
/// against the real library on a real GPU even where no second GPU is lent. With one rank every
/// reduction is the identity and send/recv goes to itself; what this proves is the wiring
/// (library, types, streams, buffers, groups), not the transport.
#[gpu_test(run_by = "ci/nccl-gpu-test.sh")]
fn one_gpu_every_collective_one_rank() {
    setup();
    let n = Device::count().expect("a GPU backend with a device");
    assert!(n >= 1, "this test needs a GPU, found none");
    let d = Device::new(0).unwrap();
    let comms = Communicator::init_all(&[d]).unwrap();
    assert_eq!((comms[0].rank(), comms[0].size()), (0, 1));
    per_rank(comms, suite);
    let id = UniqueId::new().unwrap();
    let id = UniqueId::from_hex(&id.to_hex()).unwrap();
    let c = Communicator::init_rank(&d, &id, 1, 0, InitOptions::default()).unwrap();
    per_rank(vec![c], suite);
    // Abort ends the communicator; later calls are errors, not hangs or crashes.
    let mut c = Communicator::init_all(&[d]).unwrap().pop().unwrap();
    let s = stream(d);
    let send = Buffer::from_slice(&s, &[1.0f32; 16]).unwrap();
    let mut recv = Buffer::<f32>::zeroed(&s, 16).unwrap();
    c.abort();
    assert!(c.is_aborted());
    assert!(c.all_reduce(&send, &mut recv, ReduceOp::Sum, &s).is_err());
}

/// One GPU, one rank, a non-blocking communicator (`init_rank`): `group` returns only once
/// NCCL has enqueued the group's work (`ncclGroupEnd` answers `ncclInProgress` there and
/// enqueues later), so the buffers it borrowed may be dropped right away: the communicator is
/// no longer in progress when `group` returns, and the results are right after each send
/// buffer was freed straight after the group. Nested groups wait at the outermost one.
#[gpu_test(run_by = "ci/nccl-gpu-test.sh")]
fn one_gpu_nonblocking_group_keeps_borrows_until_enqueued() {
    use anycuda::core::comm::group;
    use anycuda::nccl::{ncclCommGetAsyncError, ncclResult_t};
    setup();
    let d = Device::new(0).expect("this test needs a GPU");
    let id = UniqueId::new().unwrap();
    let mut c = Communicator::init_rank(&d, &id, 1, 0, InitOptions::default()).unwrap();
    let s = stream(d);
    let state = |c: &Communicator| {
        let mut st = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        let r = unsafe { ncclCommGetAsyncError(c.as_raw(), &mut st) };
        assert_eq!(r, ncclResult_t::ncclSuccess);
        st
    };
    const N: usize = 1 << 20;
    for round in 0..40 {
        let mut out = Buffer::<f32>::zeroed(&s, N).unwrap();
        let mut out2 = Buffer::<f32>::zeroed(&s, N).unwrap();
        {
            let send = Buffer::from_slice(&s, &vec![round as f32; N]).unwrap();
            let send2 = Buffer::from_slice(&s, &vec![-(round as f32); N]).unwrap();
            group(|| {
                c.all_reduce(&send, &mut out, ReduceOp::Sum, &s)?;
                // Nested: the inner group must not wait or end the outer one's tracking.
                group(|| c.all_reduce(&send2, &mut out2, ReduceOp::Sum, &s))
            })
            .unwrap();
            assert_eq!(
                state(&c),
                ncclResult_t::ncclSuccess,
                "round {round}: group returned while the communicator was still in progress"
            );
            // `send` and `send2` are freed here, right after the group.
        }
        c.synchronize(&s).unwrap();
        assert!(
            out.to_vec().unwrap().iter().all(|&v| v == round as f32),
            "round {round}"
        );
        assert!(
            out2.to_vec().unwrap().iter().all(|&v| v == -(round as f32)),
            "round {round}"
        );
    }
    // An error inside the group still ends it and waits: the communicator stays usable.
    let send = Buffer::from_slice(&s, &[1.0f32; 16]).unwrap();
    let mut out = Buffer::<f32>::zeroed(&s, 16).unwrap();
    let e = group(|| {
        c.all_reduce(&send, &mut out, ReduceOp::Sum, &s)?;
        c.broadcast(&send, &mut out, 5, &s) // root out of range: refused before NCCL
    })
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    c.synchronize(&s).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1.0f32; 16]);
}

/// Parent: starts 2 processes of this test binary on the socket transport. Child (with
/// ANYCUDA_NCCL_CHILD set): one rank, the whole suite, or the killed-peer scenario.
#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn socket_transport_processes() {
    if let Ok(spec) = std::env::var("ANYCUDA_NCCL_CHILD") {
        return child(&spec);
    }
    two_devices();
    let out = spawn_ranks("suite", Duration::from_secs(600), |_, _| {});
    for (rank, (ok, log)) in out.iter().enumerate() {
        assert!(ok, "rank {rank} process failed:\n{log}");
        assert!(log.contains("SUITE OK"), "rank {rank}:\n{log}");
    }
}

#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn killed_peer_is_an_error_within_the_timeout() {
    if std::env::var("ANYCUDA_NCCL_CHILD").is_ok() {
        return; // children run socket_transport_processes' entry
    }
    two_devices();
    let out = spawn_ranks("kill", Duration::from_secs(180), |rank, child| {
        if rank == 1 {
            child.kill().expect("kill rank 1");
        }
    });
    let (ok, log) = &out[0];
    assert!(ok, "rank 0 did not get its error in time:\n{log}");
    assert!(log.contains("PEER ERROR"), "rank 0:\n{log}");
}

/// Spawns 2 rank processes (`mode` = "suite" | "kill"); `after_ready(rank, child)` runs once a
/// rank printed READY (its communicator is up). Returns (success, output) per rank.
fn spawn_ranks(
    mode: &str,
    limit: Duration,
    after_ready: impl Fn(usize, &mut std::process::Child),
) -> Vec<(bool, String)> {
    use std::io::{BufRead, BufReader};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let exe = std::env::current_exe().unwrap();
    let mut kids: Vec<std::process::Child> = (0..2)
        .map(|rank| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "socket_transport_processes",
                    "--include-ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(
                    "ANYCUDA_NCCL_CHILD",
                    format!("{mode} {rank} 2 127.0.0.1:{port}"),
                )
                .env("NCCL_NVLS_ENABLE", "0")
                .env("NCCL_P2P_DISABLE", "1")
                .env("NCCL_SHM_DISABLE", "1")
                .env("NCCL_SOCKET_IFNAME", "lo")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut logs = Vec::new();
    let readers: Vec<_> = kids
        .iter_mut()
        .map(|k| {
            let out = k.stdout.take().unwrap();
            let (tx, rx) = std::sync::mpsc::channel::<String>();
            std::thread::spawn(move || {
                for l in BufReader::new(out).lines().map_while(Result::ok) {
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            });
            rx
        })
        .collect();
    let start = Instant::now();
    let mut ready = [false; 2];
    let mut text = [String::new(), String::new()];
    let mut done: [Option<bool>; 2] = [None, None];
    while done.iter().any(Option::is_none) {
        for r in 0..2 {
            while let Ok(l) = readers[r].try_recv() {
                if l.contains("READY") && !ready[r] {
                    ready[r] = true;
                    after_ready(r, &mut kids[r]);
                }
                text[r].push_str(&l);
                text[r].push('\n');
            }
            if done[r].is_none() {
                if let Ok(Some(st)) = kids[r].try_wait() {
                    done[r] = Some(st.success());
                }
            }
        }
        if start.elapsed() > limit {
            for k in &mut kids {
                let _ = k.kill();
            }
            panic!(
                "rank processes still running after {limit:?} (a hang):\n{}\n{}",
                text[0], text[1]
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for r in 0..2 {
        while let Ok(l) = readers[r].try_recv() {
            text[r].push_str(&l);
            text[r].push('\n');
        }
        let mut err = String::new();
        if let Some(mut e) = kids[r].stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        logs.push((done[r].unwrap(), format!("{}{err}", text[r])));
    }
    logs
}

fn child(spec: &str) {
    setup();
    let f: Vec<&str> = spec.split_whitespace().collect();
    let (mode, rank, n, addr) = (
        f[0],
        f[1].parse::<usize>().unwrap(),
        f[2].parse::<usize>().unwrap(),
        f[3],
    );
    let dev = Device::new(rank % Device::count().unwrap()).unwrap();
    let id = anycuda::core::comm::tcp_rendezvous(addr, rank, n, Duration::from_secs(60)).unwrap();
    let mut c = Communicator::init_rank(
        &dev,
        &id,
        n,
        rank,
        InitOptions {
            timeout: Some(Duration::from_secs(60)),
        },
    )
    .unwrap();
    let s = stream(dev);
    // One collective so the transport's connections exist before anyone is killed.
    let mut warm = Buffer::from_slice(&s, &[1.0f32; 1024]).unwrap();
    c.all_reduce_in_place(&mut warm, ReduceOp::Sum, &s).unwrap();
    c.synchronize(&s).unwrap();
    assert_eq!(warm.to_vec().unwrap(), vec![n as f32; 1024]);
    println!("READY rank {rank}");
    match mode {
        "suite" => {
            suite(&mut c, &s);
            println!("SUITE OK rank {rank}");
        }
        "kill" if rank == 1 => std::thread::sleep(Duration::from_secs(600)), // killed by the parent
        "kill" => {
            std::thread::sleep(Duration::from_secs(2)); // the parent kills rank 1 meanwhile
            let timeout = Duration::from_secs(30);
            c.set_timeout(Some(timeout));
            let mut buf = Buffer::from_slice(&s, &vec![1.0f32; 1 << 20]).unwrap();
            let t0 = Instant::now();
            let r = c
                .all_reduce_in_place(&mut buf, ReduceOp::Sum, &s)
                .and_then(|_| c.synchronize(&s));
            let e = r.expect_err("an all-reduce with a dead peer must fail");
            assert!(
                t0.elapsed() < timeout + Duration::from_secs(10),
                "took {:?}",
                t0.elapsed()
            );
            assert!(matches!(e.code(), ErrorCode::Nccl(_)), "{e}");
            assert!(c.is_aborted());
            println!("PEER ERROR after {:?}: {e}", t0.elapsed());
            // The stream is usable again only after the abort stopped NCCL's kernels.
            s.synchronize().unwrap();
        }
        other => panic!("unknown child mode {other}"),
    }
}

#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn wrong_use_is_refused_before_nccl_sees_it() {
    let devs = two_devices();
    let mut comms = Communicator::init_all(&devs).unwrap();
    let (s0, s1) = (stream(devs[0]), stream(devs[1]));
    let on0 = Buffer::<f32>::zeroed(&s0, 64).unwrap();
    let mut on1 = Buffer::<f32>::zeroed(&s1, 64).unwrap();
    let mut short0 = Buffer::<f32>::zeroed(&s0, 32).unwrap();
    let c0 = &mut comms[0];
    let usage = |e: anycuda::core::CoreError, needle: &str| {
        assert_eq!(e.code(), ErrorCode::Usage, "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    };
    // A buffer of another device.
    usage(
        c0.all_reduce(&on0, &mut on1, ReduceOp::Sum, &s0)
            .unwrap_err(),
        "receive buffer is on device 1",
    );
    // A stream of another device.
    usage(
        c0.all_reduce_in_place(&mut short0, ReduceOp::Sum, &s1)
            .unwrap_err(),
        "the stream is on device 1",
    );
    // Lengths that differ on this rank.
    usage(
        c0.all_reduce(&on0, &mut short0, ReduceOp::Sum, &s0)
            .unwrap_err(),
        "receive buffer has 32 elements, 64 needed",
    );
    usage(
        c0.all_gather(&on0, &mut short0, &s0).unwrap_err(),
        "128 needed",
    );
    usage(
        c0.reduce_scatter(
            &short0.as_view(),
            &mut Buffer::<f32>::zeroed(&s0, 32).unwrap(),
            ReduceOp::Sum,
            &s0,
        )
        .unwrap_err(),
        "2 ranks × 32",
    );
    // Ranks, roots and peers out of range.
    usage(
        c0.broadcast(&on0, &mut Buffer::<f32>::zeroed(&s0, 64).unwrap(), 2, &s0)
            .unwrap_err(),
        "root 2 is out of range for 2 ranks",
    );
    usage(c0.send(&on0, 7, &s0).unwrap_err(), "peer 7 is out of range");
    let id = UniqueId::new().unwrap();
    usage(
        Communicator::init_rank(&devs[0], &id, 2, 2, InitOptions::default()).unwrap_err(),
        "rank 2 is out of range for 2 ranks",
    );
    // Init with a duplicated device.
    usage(
        Communicator::init_all(&[devs[0], devs[0]]).unwrap_err(),
        "appears twice",
    );
    // An aborted communicator refuses every call.
    c0.abort();
    assert!(c0.is_aborted());
    usage(
        c0.all_reduce_in_place(&mut short0, ReduceOp::Sum, &s0)
            .unwrap_err(),
        "aborted",
    );
}

#[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]
fn counts_that_differ_across_ranks_end_in_an_error_not_a_hang() {
    let devs = two_devices();
    let id = UniqueId::new().unwrap();
    let timeout = Duration::from_secs(15);
    let hs: Vec<_> = devs
        .iter()
        .enumerate()
        .map(|(rank, d)| {
            let d = *d;
            std::thread::spawn(move || {
                let mut c = Communicator::init_rank(
                    &d,
                    &id,
                    2,
                    rank,
                    InitOptions {
                        timeout: Some(timeout),
                    },
                )
                .unwrap();
                let s = stream(d);
                // Rank 0 reduces 64 Ki elements, rank 1 16 Mi: rank 1 waits for data that never comes.
                let len = if rank == 0 { 1 << 16 } else { 1 << 24 };
                let mut b = Buffer::<f32>::zeroed(&s, len).unwrap();
                let t0 = Instant::now();
                let r = c
                    .all_reduce_in_place(&mut b, ReduceOp::Sum, &s)
                    .and_then(|_| c.synchronize(&s));
                (r.map_err(|e| e.to_string()), t0.elapsed())
            })
        })
        .collect();
    let res: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    for (r, t) in &res {
        assert!(
            *t < timeout + Duration::from_secs(10),
            "a rank took {t:?}: {r:?}"
        );
    }
    assert!(
        res.iter().any(|(r, _)| r.is_err()),
        "no rank reported the mismatch: {res:?}"
    );
    let e = res.iter().find_map(|(r, _)| r.as_ref().err()).unwrap();
    assert!(e.contains("ncclTimeout") || e.contains("nccl"), "{e}");
}
