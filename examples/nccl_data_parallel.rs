//! A data-parallel training step on every GPU: each rank computes the gradient of a linear
//! model's mean squared error on its shard of the data (an NVRTC kernel), the ranks all-reduce
//! the gradients with NCCL (RCCL on AMD), and every rank checks the summed gradient against a
//! CPU reference over the whole data set, then takes the same SGD step and checks the loss fell.
//!
//! ```text
//! nccl_data_parallel                 one process, one thread per GPU (ncclCommInitRankConfig)
//! nccl_data_parallel --all           one process, one thread, ncclCommInitAll + group calls
//! nccl_data_parallel --processes     one process per GPU over NCCL's socket transport on
//!                                    loopback (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
//!                                    NCCL_SOCKET_IFNAME=lo), unique id shared over TCP
//! ```
//! `--ranks N` runs N ranks (default: every GPU, at least 2; ranks share GPUs round-robin only
//! with `--processes`). Prints "skipped: ..." and exits 0 without a GPU (unless
//! `ANYCUDA_REQUIRE_GPU=1`), and without 2 GPUs or a collective library (unless
//! `ANYCUDA_REQUIRE_NCCL=1`, which ci/nccl-gpu-test.sh sets). Every process sets
//! `NCCL_NVLS_ENABLE=0` (shared hosts: NVLink multicast stays off).

use anycuda::core::comm::{self, Communicator, InitOptions, ReduceOp, UniqueId};
use anycuda::core::{Buffer, Device, Stream, StreamOptions};
use anycuda::driver::*;
use anycuda::nvrtc::*;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::time::Duration;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SAMPLES: usize = 4096;
const DIM: usize = 256;
const LR: f32 = 0.05;

const KERNEL: &str = r#"
extern "C" __global__ void grad(const float *x, const float *t, const float *w, float *g,
                                int n, int d, float scale)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
        float p = 0.0f;
        for (int k = 0; k < d; ++k) p += w[k] * x[i * d + k];
        acc += (p - t[i]) * x[i * d + j];
    }
    g[j] = scale * acc;
}
"#;

/// Deterministic data: sample i, feature j in [-1, 1); targets from a hidden weight vector.
fn sample(i: usize, j: usize) -> f32 {
    let mut h =
        (i as u64).wrapping_mul(6364136223846793005) ^ (j as u64).wrapping_mul(1442695040888963407);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58476d1ce4e5b9);
    h ^= h >> 32;
    (h % 2000) as f32 / 1000.0 - 1.0
}
fn data() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..SAMPLES * DIM)
        .map(|k| sample(k / DIM, k % DIM))
        .collect();
    let hidden: Vec<f32> = (0..DIM).map(|j| sample(1 << 30, j)).collect();
    let t: Vec<f32> = (0..SAMPLES)
        .map(|i| (0..DIM).map(|k| hidden[k] * x[i * DIM + k]).sum())
        .collect();
    let w = vec![0.0f32; DIM];
    (x, t, w)
}
/// The full-data gradient and loss, in f64.
fn reference(x: &[f32], t: &[f32], w: &[f32]) -> (Vec<f64>, f64) {
    let mut g = vec![0.0f64; DIM];
    let mut loss = 0.0;
    for i in 0..SAMPLES {
        let p: f64 = (0..DIM).map(|k| w[k] as f64 * x[i * DIM + k] as f64).sum();
        let r = p - t[i] as f64;
        loss += r * r;
        for j in 0..DIM {
            g[j] += 2.0 * r * x[i * DIM + j] as f64 / SAMPLES as f64;
        }
    }
    (g, loss / SAMPLES as f64)
}

fn compile(arch: &str) -> Res<Vec<u8>> {
    let src = CString::new(KERNEL)?;
    let arch = CString::new(format!("--gpu-architecture={arch}"))?;
    let opts = [arch.as_ptr()];
    // SAFETY: NVRTC's contract: valid strings, a program destroyed once.
    unsafe {
        let mut prog: nvrtcProgram = null_mut();
        nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            c"grad.cu".as_ptr(),
            0,
            null(),
            null(),
        )
        .result()?;
        let r = nvrtcCompileProgram(prog, 1, opts.as_ptr());
        if r != nvrtcResult::NVRTC_SUCCESS {
            let mut n = 0;
            nvrtcGetProgramLogSize(prog, &mut n).result()?;
            let mut log = vec![0u8; n.max(1)];
            nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()).result()?;
            return Err(format!("compile: {r}: {}", String::from_utf8_lossy(&log)).into());
        }
        let mut n = 0;
        nvrtcGetPTXSize(prog, &mut n).result()?;
        let mut code = vec![0u8; n];
        nvrtcGetPTX(prog, code.as_mut_ptr().cast()).result()?;
        nvrtcDestroyProgram(&mut prog).result()?;
        Ok(code)
    }
}

/// One rank's part: its shard on its device, the gradient kernel, the buffers.
struct Rank {
    stream: Stream,
    func: CUfunction,
    _module: CUmodule,
    x: Buffer<f32>,
    t: Buffer<f32>,
    w: Buffer<f32>,
    g: Buffer<f32>,
    n: usize,
}
// SAFETY: the function and module handles are driver objects usable from any thread.
unsafe impl Send for Rank {}

impl Rank {
    fn new(dev: Device, rank: usize, nranks: usize, x: &[f32], t: &[f32], w: &[f32]) -> Res<Rank> {
        let ctx = dev.set_current()?;
        let stream = ctx.create_stream(StreamOptions::default())?;
        let code = compile(&dev.arch()?)?;
        let mut module: CUmodule = null_mut();
        let mut func: CUfunction = null_mut();
        // SAFETY: the code image is NUL-terminated PTX or a code object; names are C strings.
        unsafe {
            cuModuleLoadData(&mut module, code.as_ptr().cast()).result()?;
            cuModuleGetFunction(&mut func, module, c"grad".as_ptr()).result()?;
        }
        let per = SAMPLES / nranks;
        let (lo, hi) = (
            rank * per,
            if rank + 1 == nranks {
                SAMPLES
            } else {
                (rank + 1) * per
            },
        );
        Ok(Rank {
            x: Buffer::from_slice(&stream, &x[lo * DIM..hi * DIM])?,
            t: Buffer::from_slice(&stream, &t[lo..hi])?,
            w: Buffer::from_slice(&stream, w)?,
            g: Buffer::zeroed(&stream, DIM)?,
            n: hi - lo,
            stream,
            func,
            _module: module,
        })
    }
    /// Launches the shard's gradient (already scaled by 2/N for the whole data set).
    fn launch_grad(&mut self) -> Res<()> {
        // One thread may drive several devices (--all): the launch needs this rank's context.
        self.stream.context().bind()?;
        let (mut xp, mut tp, mut wp, mut gp) = (
            self.x.as_raw(),
            self.t.as_raw(),
            self.w.as_raw(),
            self.g.as_raw(),
        );
        let (mut n, mut d, mut scale) = (self.n as i32, DIM as i32, 2.0f32 / SAMPLES as f32);
        let mut params: [*mut c_void; 7] = [
            (&mut xp as *mut CUdeviceptr).cast(),
            (&mut tp as *mut CUdeviceptr).cast(),
            (&mut wp as *mut CUdeviceptr).cast(),
            (&mut gp as *mut CUdeviceptr).cast(),
            (&mut n as *mut i32).cast(),
            (&mut d as *mut i32).cast(),
            (&mut scale as *mut f32).cast(),
        ];
        // SAFETY: the parameters match the kernel's signature; the buffers live past the sync.
        unsafe {
            cuLaunchKernel(
                self.func,
                DIM.div_ceil(128) as u32,
                1,
                1,
                128,
                1,
                1,
                0,
                self.stream.as_raw(),
                params.as_mut_ptr(),
                null_mut(),
            )
            .result()?;
        }
        Ok(())
    }
}

/// Checks a rank's all-reduced gradient against the reference, takes the SGD step and returns
/// the new loss (computed on the CPU from the updated weights).
fn check(rank: usize, g: &[f32], x: &[f32], t: &[f32], w: &[f32]) -> Res<f64> {
    let (want, loss0) = reference(x, t, w);
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (j, (a, b)) in g.iter().zip(&want).enumerate() {
        if (*a as f64 - b).abs() > 1e-4 * scale.max(1.0) {
            return Err(format!("rank {rank}: gradient[{j}] = {a}, reference {b}").into());
        }
    }
    let w1: Vec<f32> = w.iter().zip(g).map(|(w, g)| w - LR * g).collect();
    let (_, loss1) = reference(x, t, &w1);
    if loss1 >= loss0 {
        return Err(format!("rank {rank}: loss did not fall: {loss0} -> {loss1}").into());
    }
    Ok(loss1)
}

fn step_thread(dev: Device, id: UniqueId, rank: usize, nranks: usize) -> Res<f64> {
    let (x, t, w) = data();
    let mut r = Rank::new(dev, rank, nranks, &x, &t, &w)?;
    let mut comm = Communicator::init_rank(
        &dev,
        &id,
        nranks,
        rank,
        InitOptions {
            timeout: Some(Duration::from_secs(120)),
        },
    )?;
    r.launch_grad()?;
    comm.all_reduce_in_place(&mut r.g, ReduceOp::Sum, &r.stream)?;
    comm.synchronize(&r.stream)?;
    let g = r.g.to_vec()?;
    check(rank, &g, &x, &t, &w)
}

fn run_threads(devs: &[Device]) -> Res<()> {
    let id = UniqueId::new()?;
    let n = devs.len();
    let hs: Vec<_> = devs
        .iter()
        .enumerate()
        .map(|(rank, d)| {
            let d = *d;
            std::thread::spawn(move || step_thread(d, id, rank, n))
        })
        .collect();
    for (rank, h) in hs.into_iter().enumerate() {
        let loss = h.join().map_err(|_| "a rank panicked")??;
        println!("rank {rank}: gradient matches the reference; loss after the step {loss:.6}");
    }
    Ok(())
}

fn run_all(devs: &[Device]) -> Res<()> {
    let (x, t, w) = data();
    let n = devs.len();
    let mut ranks: Vec<Rank> = devs
        .iter()
        .enumerate()
        .map(|(i, d)| Rank::new(*d, i, n, &x, &t, &w))
        .collect::<Res<_>>()?;
    let mut comms = Communicator::init_all(devs)?;
    for r in &mut ranks {
        r.launch_grad()?;
    }
    comm::group(|| {
        for (c, r) in comms.iter_mut().zip(ranks.iter_mut()) {
            c.all_reduce_in_place(&mut r.g, ReduceOp::Sum, &r.stream)?;
        }
        Ok(())
    })?;
    for (rank, (c, r)) in comms.iter_mut().zip(&ranks).enumerate() {
        c.set_timeout(Some(Duration::from_secs(120)));
        c.synchronize(&r.stream)?;
        let loss = check(rank, &r.g.to_vec()?, &x, &t, &w)?;
        println!("rank {rank}: gradient matches the reference; loss after the step {loss:.6}");
    }
    Ok(())
}

fn run_processes(nranks: usize) -> Res<()> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let exe = std::env::current_exe()?;
    let mut kids = Vec::new();
    for rank in 0..nranks {
        let c = std::process::Command::new(&exe)
            .args(["--child", &rank.to_string(), &nranks.to_string(), &addr])
            // Every child gets the safety setting and the socket transport explicitly.
            .env("NCCL_NVLS_ENABLE", "0")
            .env("NCCL_P2P_DISABLE", "1")
            .env("NCCL_SHM_DISABLE", "1")
            .env("NCCL_SOCKET_IFNAME", "lo")
            .spawn()?;
        kids.push(c);
    }
    let mut failed = 0;
    for (rank, mut k) in kids.into_iter().enumerate() {
        let st = k.wait()?;
        if !st.success() {
            eprintln!("rank {rank} process: {st}");
            failed += 1;
        }
    }
    if failed > 0 {
        return Err(format!("{failed} of {nranks} rank processes failed").into());
    }
    println!("{nranks} processes over the socket transport: every rank's gradient matches");
    Ok(())
}

fn child(rank: usize, nranks: usize, addr: &str) -> Res<()> {
    let ndev = Device::count()?;
    let dev = Device::new(rank % ndev)?;
    let id = comm::tcp_rendezvous(addr, rank, nranks, Duration::from_secs(60))?;
    let loss = step_thread(dev, id, rank, nranks)?;
    println!("rank {rank} (pid {}, device {}): gradient matches the reference; loss after the step {loss:.6}", std::process::id(), dev.ordinal());
    Ok(())
}

fn main() {
    // Shared hosts: NVLink multicast off in this process before NCCL loads (children get it too).
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let res = if args.first().map(String::as_str) == Some("--child") {
        let (r, n) = (args[1].parse().unwrap_or(0), args[2].parse().unwrap_or(0));
        child(r, n, &args[3])
    } else {
        run(&args)
    };
    if let Err(e) = res {
        eprintln!("nccl_data_parallel: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Res<()> {
    let flag = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    let skip = |var: &str, why: String| -> Res<()> {
        if flag(var) {
            Err(format!("{var}=1 but {why}").into())
        } else {
            println!("skipped: {why}");
            Ok(())
        }
    };
    let ndev = match Device::count() {
        Ok(n) => n,
        Err(e) => return skip("ANYCUDA_REQUIRE_GPU", format!("no GPU: {e}")),
    };
    let lib = match anycuda::nccl::library() {
        Ok(l) => l.info(),
        Err(e) => {
            return skip(
                "ANYCUDA_REQUIRE_NCCL",
                format!("no collective library: {e}"),
            )
        }
    };
    println!(
        "backend: {}, {} {} ({})",
        anycuda::backend()
            .map(|s| s.kind().to_string())
            .unwrap_or_default(),
        lib.name,
        anycuda::nccl::version_string(lib.version),
        lib.path
    );
    let ranks = args
        .windows(2)
        .find(|w| w[0] == "--ranks")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(ndev.max(2));
    if args.iter().any(|a| a == "--processes") {
        if ndev < 1 {
            return skip("ANYCUDA_REQUIRE_GPU", "no GPU: 0 devices".into());
        }
        return run_processes(ranks);
    }
    if ndev < 2 {
        return skip(
            "ANYCUDA_REQUIRE_NCCL",
            format!("needs 2 GPUs, found {ndev}"),
        );
    }
    let devs: Vec<Device> = (0..ranks.min(ndev))
        .map(Device::new)
        .collect::<Result<_, _>>()?;
    if args.iter().any(|a| a == "--all") {
        run_all(&devs)
    } else {
        run_threads(&devs)
    }
}
