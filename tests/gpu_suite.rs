//! The GPU test suite: Driver and Runtime API calls on a real device, written against CUDA's C
//! API and run unchanged on either backend (`ANYCUDA_BACKEND=cuda|hip`; each test prints which).
//!
//! Gating: every test is a `#[gpu_test]` (anycuda-test), so `cargo test` on a machine without a
//! GPU (CI) reports them as ignored, with their need, not passed. `ci/gpu-test.sh` runs them with
//! `--ignored`, one process each; run that way where the need is not met, a test ends `not run`
//! (exit status 77), and with no device under `ANYCUDA_REQUIRE_GPU=1` it fails.
//!
//! Tests take one process-wide lock, so they run one at a time even under libtest's threads: the
//! double-free test must not race another test's allocation (a freed address may be handed out
//! again), and stream capture must not see another thread's work.
//!
//! Expected errors are CUDA's values, found on CUDA 13.0 with driver 580 (H200) by
//! `ci/bench/probe_errors.cu`. The HIP backend must produce the same CUDA value; where it cannot,
//! that is a bug in the backend, not something this suite papers over.

// `cudaStream_t` and `CUstream` are one C type (`struct CUstream_st *`), but anycuda's runtime and
// driver modules each declare their own `CUstream_st`, so mixing the APIs needs `as` casts here.

mod common;

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::driver::*;
use anycuda::runtime::*;
use anycuda::{Backend, BackendKind};
use anycuda_test::gpu_test;
use std::ffi::{c_void, CStr};
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::{MutexGuard, OnceLock};

// ---------------------------------------------------------------------------------------------
// Support
// ---------------------------------------------------------------------------------------------

/// Panics with the call and CUDA's error when a Driver or Runtime call fails.
macro_rules! ck {
    ($e:expr) => {
        if let Err(err) = $e.result() {
            panic!("{} failed: {err}", stringify!($e));
        }
    };
}

/// Asserts that a call fails with exactly the given CUDA code.
macro_rules! expect_code {
    ($e:expr, $want:expr) => {{
        let got = $e;
        let want = $want;
        println!("  {} -> {got:?}", stringify!($e));
        assert_eq!(
            got,
            want,
            "{} returned {got:?}, CUDA returns {want:?}",
            stringify!($e)
        );
    }};
}

const KERNELS: &str = r#"
extern "C" __global__ void add_one(int *p, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void index3d(unsigned *out, unsigned nx, unsigned ny, unsigned nz)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = (z << 20) | (y << 10) | x;
}

extern "C" __global__ void reverse_block(int *d)
{
    extern __shared__ int s[];
    unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
    s[t] = d[base + t];
    __syncthreads();
    d[base + t] = s[blockDim.x - 1 - t];
}

__device__ int g_value;
__constant__ int c_add;

extern "C" __global__ void bump_global()
{
    if (blockIdx.x == 0 && threadIdx.x == 0) g_value += c_add;
}
"#;

/// What the process found: a device and its primary context, or why there is none.
enum Found {
    Ready {
        backend: Backend,
        dev: CUdevice,
        /// The primary context (a raw pointer, kept as an address so the static is `Sync`).
        ctx: usize,
        arch: String,
        count: i32,
    },
    NoGpu(String),
}

fn find() -> Found {
    let sel = match anycuda::backend() {
        Ok(s) => s,
        Err(e) => return Found::NoGpu(e.to_string()),
    };
    let count = match anycuda::device_count(sel.backend) {
        Ok(n) if n > 0 => n,
        Ok(_) => return Found::NoGpu(format!("the {} backend reports 0 devices", sel.kind())),
        Err(e) => return Found::NoGpu(format!("{} backend: {e}", sel.kind())),
    };
    let mut dev = 0;
    let mut ctx: CUcontext = null_mut();
    // SAFETY: valid out-pointers.
    unsafe {
        ck!(cuDeviceGet(&mut dev, 0));
        ck!(cuDevicePrimaryCtxRetain(&mut ctx, dev));
    }
    let arch = sel
        .backend
        .device_arch(dev)
        .unwrap_or_else(|e| panic!("device_arch: {e}"));
    eprintln!(
        "gpu_suite: {} backend ({}), {count} device(s), device 0 is {arch}",
        sel.kind(),
        sel.reason
    );
    Found::Ready {
        backend: sel.backend,
        dev,
        ctx: ctx as usize,
        arch,
        count,
    }
}

/// One test's hold on the GPU: the primary context is current on this thread.
struct Gpu {
    backend: Backend,
    dev: CUdevice,
    ctx: CUcontext,
    arch: String,
    count: i32,
    _serial: MutexGuard<'static, ()>,
}

/// The device for one test. A test runs only when asked for (`--ignored`), so no device is a
/// failure; `Option` keeps the tests' `let Some(g) = gpu(..) else { return }` shape.
fn gpu(test: &str) -> Option<Gpu> {
    static FOUND: OnceLock<Found> = OnceLock::new();
    let serial = anycuda_test::serial();
    match FOUND.get_or_init(find) {
        Found::NoGpu(reason) => panic!("{test} needs a GPU: {reason}"),
        &Found::Ready {
            backend,
            dev,
            ctx,
            ref arch,
            count,
        } => {
            let ctx = ctx as CUcontext;
            // SAFETY: the primary context retained by `find`, never released.
            unsafe { ck!(cuCtxSetCurrent(ctx)) };
            println!("[{}] {test} on device 0 ({arch})", backend.kind());
            Some(Gpu {
                backend,
                dev,
                ctx,
                arch: arch.clone(),
                count,
                _serial: serial,
            })
        }
    }
}

/// The suite's kernels compiled once for the device: (PTX or code object NUL-terminated, cubin).
fn code(g: &Gpu) -> &'static (Vec<u8>, Vec<u8>) {
    static CODE: OnceLock<(Vec<u8>, Vec<u8>)> = OnceLock::new();
    CODE.get_or_init(|| {
        let opts = ProgramOptions::new().name("gpu_suite.cu");
        let mut p = Program::with_backend(g.backend, KERNELS, opts).unwrap();
        p.compile_with_args(&[&format!("--gpu-architecture={}", g.arch)])
            .unwrap_or_else(|e| panic!("compile for {}: {e}", g.arch));
        // core hands PTX text back without its NUL; the raw cuModuleLoadData below needs it.
        // HIP's NVIDIA platform answers the "cubin" request with PTX too, so the label decides.
        let output = |kind| {
            let code = p.output(kind).unwrap();
            let mut bytes = code.code().to_vec();
            if code.code_type() == CodeType::Ptx {
                bytes.push(0);
            }
            bytes
        };
        (output(CodeType::Ptx), output(CodeType::Cubin))
    })
}

/// A module loaded into the current context; unloaded on drop.
struct Module(CUmodule);

impl Module {
    fn load(image: &[u8]) -> Module {
        let mut m = null_mut();
        // SAFETY: a complete PTX string (NUL-terminated) or cubin / code object.
        unsafe { ck!(cuModuleLoadData(&mut m, image.as_ptr().cast())) };
        Module(m)
    }
    fn func(&self, name: &CStr) -> CUfunction {
        let mut f = null_mut();
        // SAFETY: live module, NUL-terminated name.
        unsafe { ck!(cuModuleGetFunction(&mut f, self.0, name.as_ptr())) };
        f
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by us, unloaded once.
        let r = unsafe { cuModuleUnload(self.0) };
        if r != CUresult::CUDA_SUCCESS && !std::thread::panicking() {
            panic!("cuModuleUnload: {r:?}");
        }
    }
}

impl Gpu {
    fn module(&self) -> Module {
        Module::load(&code(self).0)
    }
}

/// A pointer to a kernel argument, for the `kernelParams` array.
fn arg<T>(v: &mut T) -> *mut c_void {
    (v as *mut T).cast()
}

/// Launches `f` with a 1-D grid covering `n` threads of `block` each.
///
/// # Safety
/// `f` is a live function and `args` has one pointer per parameter, to a live value of its type.
unsafe fn launch_1d(f: CUfunction, n: u32, block: u32, stream: CUstream, args: &mut [*mut c_void]) {
    // SAFETY: the caller's contract: `f` is live and `args` matches its parameters.
    ck!(unsafe {
        cuLaunchKernel(
            f,
            n.div_ceil(block),
            1,
            1,
            block,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            null_mut(),
        )
    });
}

/// Reads `n` values of `T` from the device.
///
/// # Safety
/// `src` holds at least `n` `T`s.
unsafe fn dtoh<T: Copy + Default>(src: CUdeviceptr, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    // SAFETY: `v` is writable for `n` `T`s and `src` holds as many (the caller's contract).
    ck!(unsafe { cuMemcpyDtoH(v.as_mut_ptr().cast(), src, n * size_of::<T>()) });
    v
}

// ---------------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn memory_device() {
    let Some(_g) = gpu("memory_device") else {
        return;
    };
    const N: usize = 1 << 18;
    let bytes = N * 4;
    let src: Vec<u32> = (0..N as u32).map(|i| i ^ 0x5a5a_5a5a).collect();
    // SAFETY: (memory_device) the raw API on the current context of `gpu()`: host pointers are
    // `src`/`back` slices of `bytes` bytes, device pointers are this block's allocations of
    // `bytes`, each freed once at the end.
    unsafe {
        let (mut free, mut total) = (0usize, 0usize);
        ck!(cuMemGetInfo(&mut free, &mut total));
        assert!(
            total > 0 && free <= total,
            "cuMemGetInfo: {free} of {total}"
        );

        let (mut a, mut b) = (0, 0);
        ck!(cuMemAlloc(&mut a, bytes));
        ck!(cuMemAlloc(&mut b, bytes));
        let (mut base, mut size) = (0, 0usize);
        ck!(cuMemGetAddressRange(&mut base, &mut size, a + 100));
        assert_eq!((base, size >= bytes), (a, true), "cuMemGetAddressRange");
        ck!(cuMemcpyHtoD(a, src.as_ptr().cast(), bytes));
        ck!(cuMemcpyDtoD(b, a, bytes));
        assert!(dtoh::<u32>(b, N) == src, "driver H2D, D2D, D2H round trip");
        ck!(cuMemFree(a));
        ck!(cuMemFree(b));

        // The Runtime API on the same (primary) context.
        let (mut ra, mut rb): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        ck!(cudaMalloc(&mut ra, bytes));
        ck!(cudaMalloc(&mut rb, bytes));
        ck!(cudaMemcpy(
            ra,
            src.as_ptr().cast(),
            bytes,
            cudaMemcpyKind::cudaMemcpyHostToDevice
        ));
        ck!(cudaMemcpy(
            rb,
            ra,
            bytes,
            cudaMemcpyKind::cudaMemcpyDeviceToDevice
        ));
        let mut back = vec![0u32; N];
        ck!(cudaMemcpy(
            back.as_mut_ptr().cast(),
            rb,
            bytes,
            cudaMemcpyKind::cudaMemcpyDeviceToHost
        ));
        assert!(back == src, "runtime H2D, D2D, D2H round trip");
        // Runtime pointers are driver pointers.
        assert!(dtoh::<u32>(ra as CUdeviceptr, 4) == src[..4]);
        ck!(cudaFree(ra));
        ck!(cudaFree(rb));
    }
}

#[gpu_test]
fn memory_pinned() {
    let Some(_g) = gpu("memory_pinned") else {
        return;
    };
    const N: usize = 1 << 16;
    let bytes = N * 4;
    // SAFETY: (memory_pinned) host pointers come from cuMemHostAlloc/cudaMallocHost in this block,
    // of the sizes copied, freed once after the stream is synchronized; device allocations
    // likewise.
    unsafe {
        let (mut hin, mut hout): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        ck!(cuMemHostAlloc(&mut hin, bytes, CU_MEMHOSTALLOC_PORTABLE));
        ck!(cuMemAllocHost(&mut hout, bytes));
        let input = std::slice::from_raw_parts_mut(hin.cast::<u32>(), N);
        for (i, v) in input.iter_mut().enumerate() {
            *v = (i as u32).wrapping_mul(0x9e37_79b9);
        }
        let mut s: CUstream = null_mut();
        ck!(cuStreamCreate(
            &mut s,
            CUstream_flags::CU_STREAM_NON_BLOCKING.0
        ));
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, bytes));
        ck!(cuMemcpyHtoDAsync(d, hin, bytes, s));
        ck!(cuMemcpyDtoHAsync(hout, d, bytes, s));
        ck!(cuStreamSynchronize(s));
        let output = std::slice::from_raw_parts(hout.cast::<u32>(), N);
        assert!(output == &input[..], "pinned round trip (driver)");
        ck!(cuMemFreeHost(hin));
        ck!(cuMemFreeHost(hout));

        // Runtime: cudaHostAlloc / cudaMallocHost.
        let (mut rin, mut rout): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        ck!(cudaHostAlloc(&mut rin, bytes, cudaHostAllocDefault));
        ck!(cudaMallocHost(&mut rout, bytes));
        std::slice::from_raw_parts_mut(rin.cast::<u8>(), bytes).fill(0xab);
        ck!(cudaMemcpyAsync(
            d as *mut c_void,
            rin,
            bytes,
            cudaMemcpyKind::cudaMemcpyHostToDevice,
            s as cudaStream_t
        ));
        ck!(cudaMemcpyAsync(
            rout,
            d as *const c_void,
            bytes,
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
            s as cudaStream_t
        ));
        ck!(cudaStreamSynchronize(s as cudaStream_t));
        assert!(
            std::slice::from_raw_parts(rout.cast::<u8>(), bytes)
                .iter()
                .all(|&b| b == 0xab),
            "pinned round trip (runtime)"
        );
        ck!(cudaFreeHost(rin));
        ck!(cudaFreeHost(rout));
        ck!(cuMemFree(d));
        ck!(cuStreamDestroy(s));
    }
}

#[gpu_test]
fn memory_managed() {
    let Some(g) = gpu("memory_managed") else {
        return;
    };
    let mut managed = 0;
    // SAFETY: (memory_managed) managed allocations of the sizes used, touched by the host only
    // after the synchronize that follows each kernel, freed once.
    unsafe {
        ck!(cuDeviceGetAttribute(
            &mut managed,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY,
            g.dev
        ));
    }
    if managed == 0 {
        anycuda_test::not_applicable("the device does not support managed memory");
    }
    const N: u32 = 1024; // small: managed memory is taken from the whole card
    let m = g.module();
    let add_one = m.func(c"add_one");
    // SAFETY: (memory_managed) as above: every pointer is an allocation made here of the size used,
    // freed once after synchronizing.
    unsafe {
        let mut d: CUdeviceptr = 0;
        ck!(cuMemAllocManaged(
            &mut d,
            N as usize * 4,
            CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL.0
        ));
        let host = std::slice::from_raw_parts_mut(d as *mut i32, N as usize);
        for (i, v) in host.iter_mut().enumerate() {
            *v = i as i32;
        }
        let (mut p, mut n) = (d, N);
        launch_1d(add_one, N, 128, null_mut(), &mut [arg(&mut p), arg(&mut n)]);
        ck!(cuCtxSynchronize());
        assert!(
            host.iter().enumerate().all(|(i, &v)| v == i as i32 + 1),
            "cuMemAllocManaged: host sees the kernel's writes"
        );
        ck!(cuMemFree(d));

        let mut r: *mut c_void = null_mut();
        ck!(cudaMallocManaged(
            &mut r,
            N as usize * 4,
            cudaMemAttachGlobal
        ));
        let host = std::slice::from_raw_parts_mut(r.cast::<i32>(), N as usize);
        host.fill(41);
        let (mut p, mut n) = (r as CUdeviceptr, N);
        launch_1d(add_one, N, 128, null_mut(), &mut [arg(&mut p), arg(&mut n)]);
        ck!(cudaDeviceSynchronize());
        assert!(host.iter().all(|&v| v == 42), "cudaMallocManaged");
        ck!(cudaFree(r));
    }
}

#[gpu_test]
fn memset_variants() {
    let Some(_g) = gpu("memset_variants") else {
        return;
    };
    const N: usize = 4096;
    // SAFETY: (memset_variants) each memset stays inside its allocation of `bytes` (element counts
    // derived from it), and the read-back slices are that large.
    unsafe {
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, N * 4));
        ck!(cuMemsetD8(d, 0x11, N * 4));
        assert!(
            dtoh::<u8>(d, N * 4).iter().all(|&b| b == 0x11),
            "cuMemsetD8"
        );
        ck!(cuMemsetD16(d, 0xbeef, N * 2));
        assert!(
            dtoh::<u16>(d, N * 2).iter().all(|&v| v == 0xbeef),
            "cuMemsetD16"
        );
        ck!(cuMemsetD32(d, 0xdead_beef, N));
        assert!(
            dtoh::<u32>(d, N).iter().all(|&v| v == 0xdead_beef),
            "cuMemsetD32"
        );
        // Partial ranges: only [16, 32) changes.
        ck!(cuMemsetD32(d + 64, 7, 16));
        let v = dtoh::<u32>(d, N);
        assert!(v[..16].iter().all(|&x| x == 0xdead_beef) && v[16..32].iter().all(|&x| x == 7));
        assert!(
            v[32..].iter().all(|&x| x == 0xdead_beef),
            "cuMemsetD32 on a sub-range"
        );

        let mut s: CUstream = null_mut();
        ck!(cuStreamCreate(&mut s, 0));
        ck!(cuMemsetD8Async(d, 0x22, N * 4, s));
        ck!(cuMemsetD32Async(d, 0x0102_0304, N / 2, s));
        ck!(cuStreamSynchronize(s));
        let v = dtoh::<u32>(d, N);
        assert!(
            v[..N / 2].iter().all(|&x| x == 0x0102_0304),
            "cuMemsetD32Async"
        );
        assert!(
            v[N / 2..].iter().all(|&x| x == 0x2222_2222),
            "cuMemsetD8Async"
        );

        ck!(cudaMemset(d as *mut c_void, 0x33, N * 4));
        assert!(
            dtoh::<u8>(d, N * 4).iter().all(|&b| b == 0x33),
            "cudaMemset"
        );
        ck!(cudaMemsetAsync(
            d as *mut c_void,
            0,
            N * 4,
            s as cudaStream_t
        ));
        ck!(cudaStreamSynchronize(s as cudaStream_t));
        assert!(
            dtoh::<u8>(d, N * 4).iter().all(|&b| b == 0),
            "cudaMemsetAsync"
        );
        ck!(cuStreamDestroy(s));
        ck!(cuMemFree(d));
    }
}

#[gpu_test]
fn memset_2d() {
    let Some(_g) = gpu("memset_2d") else { return };
    // SAFETY: (memset_2d) the pitched allocation covers `height` rows of `pitch` bytes, and every
    // 2D memset and copy stays inside its width and height.
    unsafe {
        // 2-D memsets on pitched memory: only the W x H rectangle changes, not the padding.
        let (w, h) = (100usize, 33usize);
        let (mut p, mut pitch) = (0, 0usize);
        ck!(cuMemAllocPitch(&mut p, &mut pitch, w * 4, h, 4));
        assert!(pitch >= w * 4, "pitch {pitch}");
        ck!(cuMemsetD8(p, 0xee, pitch * h));
        ck!(cuMemsetD2D8(p, pitch, 0x5a, 40, h));
        ck!(cudaMemset2D(p as *mut c_void, pitch, 0x77, 3, h));
        let v = dtoh::<u8>(p, pitch * h);
        for row in 0..h {
            let r = &v[row * pitch..(row + 1) * pitch];
            assert!(r[..3].iter().all(|&b| b == 0x77), "cudaMemset2D row {row}");
            assert!(
                r[3..40].iter().all(|&b| b == 0x5a),
                "cuMemsetD2D8 row {row}"
            );
            assert!(
                r[40..].iter().all(|&b| b == 0xee),
                "cuMemsetD2D8 beyond its width, row {row}"
            );
        }
        ck!(cuMemsetD2D16(p, pitch, 0xa1b2, w, h));
        let v = dtoh::<u8>(p, pitch * h);
        for row in 0..h {
            let r = &v[row * pitch..(row + 1) * pitch];
            assert!(
                r[..w * 2].chunks(2).all(|c| c == [0xb2, 0xa1]),
                "cuMemsetD2D16 row {row}"
            );
            assert!(
                r[w * 2..].iter().all(|&b| b == 0xee),
                "cuMemsetD2D16 beyond its width, row {row}"
            );
        }
        ck!(cuMemsetD2D32(p, pitch, 0x1234_5678, w, h));
        let v = dtoh::<u8>(p, pitch * h);
        for row in 0..h {
            let r = &v[row * pitch..(row + 1) * pitch];
            assert!(
                r[..w * 4]
                    .chunks(4)
                    .all(|c| c == 0x1234_5678u32.to_le_bytes()),
                "cuMemsetD2D32 row {row}"
            );
            assert!(
                r[w * 4..].iter().all(|&b| b == 0xee),
                "cuMemsetD2D32 wrote padding, row {row}"
            );
        }
        ck!(cuMemFree(p));
    }
}

#[gpu_test]
fn copy_2d() {
    let Some(_g) = gpu("copy_2d") else { return };
    let (w, h) = (123usize, 45usize); // elements of u32
    let host: Vec<u32> = (0..(w * h) as u32).map(|i| i * 3 + 1).collect();
    // SAFETY: (copy_2d) the descriptors' host and device pointers cover `pitch * height` bytes
    // each, with widths no larger than the pitches.
    unsafe {
        let (mut d, mut pitch) = (0, 0usize);
        ck!(cuMemAllocPitch(&mut d, &mut pitch, w * 4, h, 4));
        assert!(pitch >= w * 4);
        let mut c: CUDA_MEMCPY2D = std::mem::zeroed();
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.srcHost = host.as_ptr().cast();
        c.srcPitch = w * 4;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.dstDevice = d;
        c.dstPitch = pitch;
        c.WidthInBytes = w * 4;
        c.Height = h;
        ck!(cuMemcpy2D(&c));

        let mut back = vec![0u32; w * h];
        let mut c: CUDA_MEMCPY2D = std::mem::zeroed();
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.srcDevice = d;
        c.srcPitch = pitch;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = back.as_mut_ptr().cast();
        c.dstPitch = w * 4;
        c.WidthInBytes = w * 4;
        c.Height = h;
        ck!(cuMemcpy2D(&c));
        assert!(back == host, "cuMemcpy2D host -> pitched -> host");

        ck!(cuMemFree(d));

        // Runtime: cudaMallocPitch + cudaMemcpy2D.
        let (mut rd, mut rpitch): (*mut c_void, usize) = (null_mut(), 0);
        ck!(cudaMallocPitch(&mut rd, &mut rpitch, w * 4, h));
        ck!(cudaMemcpy2D(
            rd,
            rpitch,
            host.as_ptr().cast(),
            w * 4,
            w * 4,
            h,
            cudaMemcpyKind::cudaMemcpyHostToDevice
        ));
        let mut back = vec![0u32; w * h];
        ck!(cudaMemcpy2D(
            back.as_mut_ptr().cast(),
            w * 4,
            rd,
            rpitch,
            w * 4,
            h,
            cudaMemcpyKind::cudaMemcpyDeviceToHost
        ));
        assert!(back == host, "cudaMemcpy2D round trip");
        ck!(cudaFree(rd));
    }
}

#[gpu_test]
fn copy_2d_unaligned_subrect() {
    let Some(_g) = gpu("copy_2d_unaligned_subrect") else {
        return;
    };
    let (w, h) = (123usize, 45usize);
    let host: Vec<u32> = (0..(w * h) as u32).map(|i| i * 3 + 1).collect();
    // SAFETY: (copy_2d_unaligned_subrect) the sub-rectangle (offsets plus extent) lies inside both
    // the host buffer and the pitched allocation.
    unsafe {
        let (mut d, mut pitch) = (0, 0usize);
        ck!(cuMemAllocPitch(&mut d, &mut pitch, w * 4, h, 4));
        ck!(cuMemcpy2D(&CUDA_MEMCPY2D {
            srcMemoryType: CUmemorytype::CU_MEMORYTYPE_HOST,
            srcHost: host.as_ptr().cast(),
            srcPitch: w * 4,
            dstMemoryType: CUmemorytype::CU_MEMORYTYPE_DEVICE,
            dstDevice: d,
            dstPitch: pitch,
            WidthInBytes: w * 4,
            Height: h,
            ..std::mem::zeroed()
        }));
        // A sub-rectangle: columns [5, 25), rows [7, 17) of the device image.
        let (x0, y0, sw, sh) = (5usize, 7usize, 20usize, 10usize);
        let mut sub = vec![0u32; sw * sh];
        let mut c: CUDA_MEMCPY2D = std::mem::zeroed();
        c.srcXInBytes = x0 * 4;
        c.srcY = y0;
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.srcDevice = d;
        c.srcPitch = pitch;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = sub.as_mut_ptr().cast();
        c.dstPitch = sw * 4;
        c.WidthInBytes = sw * 4;
        c.Height = sh;
        ck!(cuMemcpy2DUnaligned(&c));
        for r in 0..sh {
            assert_eq!(
                sub[r * sw..(r + 1) * sw],
                host[(y0 + r) * w + x0..(y0 + r) * w + x0 + sw]
            );
        }

        ck!(cuMemFree(d));
    }
}

#[gpu_test]
fn copy_3d() {
    let Some(_g) = gpu("copy_3d") else { return };
    let (w, h, depth) = (37usize, 11usize, 6usize); // u32 elements
    let host: Vec<u32> = (0..(w * h * depth) as u32)
        .map(|i| i.wrapping_mul(7) + 5)
        .collect();
    // SAFETY: (copy_3d) the 3D extents and offsets lie inside the arrays and pitched allocations
    // made here, and the host buffers are that large.
    unsafe {
        // Runtime: cudaMalloc3D + cudaMemcpy3D.
        let extent = cudaExtent {
            width: w * 4,
            height: h,
            depth,
        };
        let mut dev_ptr: cudaPitchedPtr = std::mem::zeroed();
        ck!(cudaMalloc3D(&mut dev_ptr, extent));
        assert!(
            dev_ptr.pitch >= w * 4,
            "cudaMalloc3D pitch {}",
            dev_ptr.pitch
        );
        let mut p: cudaMemcpy3DParms = std::mem::zeroed();
        p.srcPtr = cudaPitchedPtr {
            ptr: host.as_ptr() as *mut c_void,
            pitch: w * 4,
            xsize: w,
            ysize: h,
        };
        p.dstPtr = dev_ptr;
        p.extent = extent;
        p.kind = cudaMemcpyKind::cudaMemcpyHostToDevice;
        ck!(cudaMemcpy3D(&p));
        let mut back = vec![0u32; w * h * depth];
        let mut p: cudaMemcpy3DParms = std::mem::zeroed();
        p.srcPtr = dev_ptr;
        p.dstPtr = cudaPitchedPtr {
            ptr: back.as_mut_ptr().cast(),
            pitch: w * 4,
            xsize: w,
            ysize: h,
        };
        p.extent = extent;
        p.kind = cudaMemcpyKind::cudaMemcpyDeviceToHost;
        ck!(cudaMemcpy3D(&p));
        assert!(back == host, "cudaMemcpy3D round trip");
        // Row (y=3, z=4) sits at pitch * (4 * h + 3).
        let row = dtoh::<u32>(
            dev_ptr.ptr as CUdeviceptr + (dev_ptr.pitch * (4 * h + 3)) as u64,
            w,
        );
        assert_eq!(
            row,
            host[(4 * h + 3) * w..(4 * h + 4) * w],
            "cudaMalloc3D layout"
        );
        ck!(cudaFree(dev_ptr.ptr));

        // Driver: cuMemcpy3D into linear device memory with a padded pitch.
        let pitch = (w * 4).next_multiple_of(256);
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, pitch * h * depth));
        let mut c: CUDA_MEMCPY3D = std::mem::zeroed();
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.srcHost = host.as_ptr().cast();
        c.srcPitch = w * 4;
        c.srcHeight = h;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.dstDevice = d;
        c.dstPitch = pitch;
        c.dstHeight = h;
        c.WidthInBytes = w * 4;
        c.Height = h;
        c.Depth = depth;
        ck!(cuMemcpy3D(&c));
        let mut back = vec![0u32; w * h * depth];
        let mut c: CUDA_MEMCPY3D = std::mem::zeroed();
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.srcDevice = d;
        c.srcPitch = pitch;
        c.srcHeight = h;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = back.as_mut_ptr().cast();
        c.dstPitch = w * 4;
        c.dstHeight = h;
        c.WidthInBytes = w * 4;
        c.Height = h;
        c.Depth = depth;
        ck!(cuMemcpy3D(&c));
        assert!(back == host, "cuMemcpy3D round trip");
        let row = dtoh::<u32>(d + (pitch * (2 * h + 5)) as u64, w);
        assert_eq!(
            row,
            host[(2 * h + 5) * w..(2 * h + 6) * w],
            "cuMemcpy3D layout"
        );
        ck!(cuMemFree(d));
    }
}

// ---------------------------------------------------------------------------------------------
// Streams, events, modules, launches
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn streams_and_events() {
    let Some(g) = gpu("streams_and_events") else {
        return;
    };
    let m = g.module();
    let add_one = m.func(c"add_one");
    const N: u32 = 1 << 20;
    // SAFETY: (streams_and_events) streams and events are created here, used while live and
    // destroyed once; copies stay inside `d` and the host buffers.
    unsafe {
        let (mut s1, mut s2): (CUstream, CUstream) = (null_mut(), null_mut());
        ck!(cuStreamCreate(
            &mut s1,
            CUstream_flags::CU_STREAM_NON_BLOCKING.0
        ));
        ck!(cuStreamCreate(
            &mut s2,
            CUstream_flags::CU_STREAM_NON_BLOCKING.0
        ));
        let (mut e0, mut e1): (CUevent, CUevent) = (null_mut(), null_mut());
        ck!(cuEventCreate(&mut e0, CUevent_flags::CU_EVENT_DEFAULT.0));
        ck!(cuEventCreate(&mut e1, CUevent_flags::CU_EVENT_DEFAULT.0));
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, N as usize * 4));

        // s1: set to 5, add one; s2 waits for s1's event, adds one more, copies back.
        ck!(cuEventRecord(e0, s1));
        ck!(cuMemsetD32Async(d, 5, N as usize, s1));
        let (mut p, mut n) = (d, N);
        launch_1d(add_one, N, 256, s1, &mut [arg(&mut p), arg(&mut n)]);
        ck!(cuEventRecord(e1, s1));
        ck!(cuStreamWaitEvent(s2, e1, 0));
        launch_1d(add_one, N, 256, s2, &mut [arg(&mut p), arg(&mut n)]);
        let mut back = vec![0i32; N as usize];
        ck!(cuMemcpyDtoHAsync(
            back.as_mut_ptr().cast(),
            d,
            N as usize * 4,
            s2
        ));
        ck!(cuStreamSynchronize(s2));
        assert!(
            back.iter().all(|&v| v == 7),
            "cross-stream ordering through an event"
        );

        ck!(cuEventSynchronize(e1));
        expect_code!(cuEventQuery(e1), CUresult::CUDA_SUCCESS);
        expect_code!(cuStreamQuery(s1), CUresult::CUDA_SUCCESS);
        let mut ms = -1.0f32;
        ck!(cuEventElapsedTime(&mut ms, e0, e1));
        println!("  cuEventElapsedTime: {ms} ms");
        assert!(
            ms.is_finite() && (0.0..10_000.0).contains(&ms),
            "elapsed {ms} ms"
        );

        // Runtime events on a runtime stream.
        let mut rs: cudaStream_t = null_mut();
        ck!(cudaStreamCreateWithFlags(&mut rs, cudaStreamNonBlocking));
        let (mut r0, mut r1): (cudaEvent_t, cudaEvent_t) = (null_mut(), null_mut());
        ck!(cudaEventCreate(&mut r0));
        ck!(cudaEventCreate(&mut r1));
        ck!(cudaEventRecord(r0, rs));
        launch_1d(
            add_one,
            N,
            256,
            rs as CUstream,
            &mut [arg(&mut p), arg(&mut n)],
        );
        ck!(cudaEventRecord(r1, rs));
        ck!(cudaEventSynchronize(r1));
        let mut rms = -1.0f32;
        ck!(cudaEventElapsedTime(&mut rms, r0, r1));
        println!("  cudaEventElapsedTime: {rms} ms");
        assert!(rms.is_finite() && rms >= 0.0);
        assert!(dtoh::<i32>(d, 4) == [8, 8, 8, 8]);
        ck!(cudaEventDestroy(r0));
        ck!(cudaEventDestroy(r1));
        ck!(cudaStreamDestroy(rs));

        ck!(cuEventDestroy(e0));
        ck!(cuEventDestroy(e1));
        ck!(cuStreamDestroy(s1));
        ck!(cuStreamDestroy(s2));
        ck!(cuMemFree(d));
    }
}

/// Sets the module's globals, runs `bump_global`, reads `g_value` back.
///
/// # Safety
/// `m` is a live module of the suite's kernels, in the current context.
unsafe fn check_globals(m: &Module, what: &str) {
    // SAFETY: `m.0` is a live module (the caller's contract); the globals are 4-byte `int`s
    // (sizes asserted) written from 4-byte locals, and `bump_global` takes no arguments.
    unsafe {
        let (mut g, mut gsize, mut c, mut csize) = (0, 0usize, 0, 0usize);
        ck!(cuModuleGetGlobal(
            &mut g,
            &mut gsize,
            m.0,
            c"g_value".as_ptr()
        ));
        ck!(cuModuleGetGlobal(
            &mut c,
            &mut csize,
            m.0,
            c"c_add".as_ptr()
        ));
        assert_eq!((gsize, csize), (4, 4), "{what}: global sizes");
        let (init, add) = (40i32, 2i32);
        ck!(cuMemcpyHtoD(g, (&init as *const i32).cast(), 4));
        ck!(cuMemcpyHtoD(c, (&add as *const i32).cast(), 4));
        let f = m.func(c"bump_global");
        for _ in 0..2 {
            ck!(cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                null_mut()
            ));
        }
        ck!(cuCtxSynchronize());
        let got = dtoh::<i32>(g, 1)[0];
        assert_eq!(got, 44, "{what}: g_value after two bump_global launches");
    }
}

#[gpu_test]
fn modules_ptx_cubin_globals() {
    let Some(g) = gpu("modules_ptx_cubin_globals") else {
        return;
    };
    let (ptx, cubin) = code(&g);
    let kind = if ptx.starts_with(b"\x7fELF") {
        "code object"
    } else {
        "PTX"
    };
    println!(
        "  'PTX': {} bytes of {kind}; cubin: {} bytes",
        ptx.len(),
        cubin.len()
    );
    assert!(!cubin.is_empty(), "no cubin for {}", g.arch);
    if g.backend.kind() == BackendKind::Cuda {
        assert!(ptx.starts_with(b"//") && cubin.starts_with(b"\x7fELF"));
    }
    // SAFETY: (modules_ptx_cubin_globals) the images are complete compiler outputs alive for the
    // load; modules are unloaded once, after `check_globals` used them.
    unsafe {
        check_globals(&Module::load(ptx), "module from PTX");
        check_globals(&Module::load(cubin), "module from cubin");
        // Each module has its own copy of the globals.
        let (a, b) = (Module::load(ptx), Module::load(cubin));
        let (mut ga, mut gb, mut sz) = (0, 0, 0usize);
        ck!(cuModuleGetGlobal(
            &mut ga,
            &mut sz,
            a.0,
            c"g_value".as_ptr()
        ));
        ck!(cuModuleGetGlobal(
            &mut gb,
            &mut sz,
            b.0,
            c"g_value".as_ptr()
        ));
        assert_ne!(ga, gb, "two modules share g_value");
        let mut m = null_mut();
        ck!(cuModuleLoadDataEx(
            &mut m,
            ptx.as_ptr().cast(),
            0,
            null_mut(),
            null_mut()
        ));
        check_globals(&Module(m), "cuModuleLoadDataEx");
    }
}

/// PTX the driver refuses (here a PTX ISA version newer than any driver's) loads from the
/// source bundle `anycuda nvcc` records in it: the CUDA backend compiles the bundle with NVRTC
/// into a cubin for the device (backends/cuda/src/rtc_bundle.rs). Through `cuModuleLoadData`,
/// `cuModuleLoadDataEx`, `cuModuleLoad` and `cuLibraryLoadData`; the kernel computes with the
/// bundle's header and define. The same PTX without a bundle keeps the driver's refusal.
#[cfg(feature = "backend-cuda")] // the CUDA backend's rescue, and NVIDIA's driver asked directly
#[gpu_test]
fn ptx_the_driver_refuses_loads_from_its_source_bundle() {
    let Some(g) = gpu("ptx_the_driver_refuses_loads_from_its_source_bundle") else {
        return;
    };
    let Some(cuda) = g.backend.as_cuda() else {
        anycuda_test::not_applicable(
            "on HIP's NVIDIA platform PTX loads as PTX unless ANYCUDA_HIP_BUNDLES=always \
             (ci/capi-gpu.sh's bundled_ptx takes that route); on AMD every bundle is compiled",
        );
    };
    let bundle = common::step_bundle();
    // No driver takes PTX ISA 99.9, and its body is never read: only the bundle can help.
    let head = ".version 99.9\n.target sm_52\n.address_size 64\n";
    let bare = format!("{head}\0");
    let bundled = format!("{head}{}\0", bundle.to_text().unwrap());
    let native = cuda.native_driver().unwrap().cuModuleLoadData.unwrap();
    let mut m = null_mut();
    // SAFETY: NUL-terminated PTX text; valid out-pointer.
    let refused = unsafe { native(&mut m, bundled.as_ptr().cast()) };
    println!("  NVIDIA's driver itself: {refused:?}");
    // CUDA's answer for PTX newer than the driver is UNSUPPORTED_PTX_VERSION; INVALID_PTX, a
    // refusal the rescue also covers, is taken too (the line above prints which came).
    assert!(
        matches!(
            refused,
            CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION | CUresult::CUDA_ERROR_INVALID_PTX
        ),
        "the driver took or refused PTX 99.9 otherwise: {refused:?}"
    );
    // SAFETY: as above.
    let bare_load = unsafe { cuModuleLoadData(&mut m, bare.as_ptr().cast()) };
    expect_code!(bare_load, refused);
    let n = 1000u32;
    let run = |f: CUfunction| {
        let start: Vec<i32> = (0..n as i32).collect();
        let mut d: CUdeviceptr = 0;
        // SAFETY: a fresh allocation of n ints, filled, used by one launch of `f` (which touches
        // p[i] for i < n), read back and freed.
        unsafe {
            ck!(cuMemAlloc(&mut d, n as usize * 4));
            ck!(cuMemcpyHtoD(d, start.as_ptr().cast(), n as usize * 4));
            let (mut p, mut len) = (d, n);
            launch_1d(f, n, 128, null_mut(), &mut [arg(&mut p), arg(&mut len)]);
            ck!(cuCtxSynchronize());
            let got: Vec<i32> = dtoh(d, n as usize);
            ck!(cuMemFree(d));
            assert!(
                got.iter().zip(&start).all(|(g, s)| *g == s + 3),
                "add_step computed wrong"
            );
        }
    };
    let from_data = Module::load(bundled.as_bytes());
    run(from_data.func(c"add_step"));
    // SAFETY: as above; no JIT options.
    unsafe {
        ck!(cuModuleLoadDataEx(
            &mut m,
            bundled.as_ptr().cast(),
            0,
            null_mut(),
            null_mut()
        ));
    }
    let from_ex = Module(m);
    run(from_ex.func(c"add_step"));
    let path = std::env::temp_dir().join(format!("anycuda-refused-{}.ptx", std::process::id()));
    std::fs::write(&path, &bundled.as_bytes()[..bundled.len() - 1]).unwrap();
    let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path of a PTX file.
    unsafe { ck!(cuModuleLoad(&mut m, cpath.as_ptr())) };
    let _ = std::fs::remove_file(&path);
    let from_file = Module(m);
    run(from_file.func(c"add_step"));
    let mut lib: CUlibrary = null_mut();
    let mut kernel: CUkernel = null_mut();
    // SAFETY: NUL-terminated PTX text, no options; the library is unloaded once below.
    unsafe {
        ck!(cuLibraryLoadData(
            &mut lib,
            bundled.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0
        ));
        ck!(cuLibraryGetKernel(&mut kernel, lib, c"add_step".as_ptr()));
        // A CUkernel is accepted wherever a CUfunction is (CUDA 12.0 on).
        run(kernel.cast());
        ck!(cuLibraryUnload(lib));
    }
}

#[gpu_test]
fn launch_1d_3d_dynamic_shared() {
    let Some(g) = gpu("launch_1d_3d_dynamic_shared") else {
        return;
    };
    let m = g.module();
    // SAFETY: (launch_1d_3d_dynamic_shared) every kernel gets argument pointers to live locals of
    // its parameter types, grids that cover only the allocated elements, and dynamic shared memory
    // within the device limit.
    unsafe {
        // 1-D: a grid that does not divide evenly.
        let n = 10_007u32;
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, n as usize * 4));
        ck!(cuMemsetD32(d, 9, n as usize));
        let (mut p, mut nn) = (d, n);
        launch_1d(
            m.func(c"add_one"),
            n,
            96,
            null_mut(),
            &mut [arg(&mut p), arg(&mut nn)],
        );
        ck!(cuCtxSynchronize());
        assert!(
            dtoh::<i32>(d, n as usize).iter().all(|&v| v == 10),
            "1-D launch"
        );
        ck!(cuMemFree(d));

        // 3-D grid of 3-D blocks.
        let (nx, ny, nz) = (37u32, 19u32, 5u32);
        let (bx, by, bz) = (8u32, 4u32, 2u32);
        let total = (nx * ny * nz) as usize;
        let mut out = 0;
        ck!(cuMemAlloc(&mut out, total * 4));
        ck!(cuMemsetD32(out, 0xffff_ffff, total));
        let (mut o, mut x, mut y, mut z) = (out, nx, ny, nz);
        let mut args = [arg(&mut o), arg(&mut x), arg(&mut y), arg(&mut z)];
        ck!(cuLaunchKernel(
            m.func(c"index3d"),
            nx.div_ceil(bx),
            ny.div_ceil(by),
            nz.div_ceil(bz),
            bx,
            by,
            bz,
            0,
            null_mut(),
            args.as_mut_ptr(),
            null_mut()
        ));
        ck!(cuCtxSynchronize());
        let v = dtoh::<u32>(out, total);
        for zz in 0..nz {
            for yy in 0..ny {
                for xx in 0..nx {
                    let i = ((zz * ny + yy) * nx + xx) as usize;
                    assert_eq!(
                        v[i],
                        (zz << 20) | (yy << 10) | xx,
                        "3-D launch at ({xx},{yy},{zz})"
                    );
                }
            }
        }
        ck!(cuMemFree(out));

        // Dynamic shared memory: each block reverses its slice through `extern __shared__`.
        let (blocks, threads) = (4u32, 256u32);
        let total = (blocks * threads) as usize;
        let input: Vec<i32> = (0..total as i32).collect();
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, total * 4));
        ck!(cuMemcpyHtoD(d, input.as_ptr().cast(), total * 4));
        let mut p = d;
        let mut args = [arg(&mut p)];
        ck!(cuLaunchKernel(
            m.func(c"reverse_block"),
            blocks,
            1,
            1,
            threads,
            1,
            1,
            threads * 4,
            null_mut(),
            args.as_mut_ptr(),
            null_mut()
        ));
        ck!(cuCtxSynchronize());
        let v = dtoh::<i32>(d, total);
        for b in 0..blocks as usize {
            for t in 0..threads as usize {
                let want = input[b * threads as usize + (threads as usize - 1 - t)];
                assert_eq!(
                    v[b * threads as usize + t],
                    want,
                    "reverse_block b={b} t={t}"
                );
            }
        }
        ck!(cuMemFree(d));
    }
}

#[gpu_test]
fn occupancy() {
    let Some(g) = gpu("occupancy") else { return };
    let m = g.module();
    let add_one = m.func(c"add_one");
    let reverse = m.func(c"reverse_block");
    // SAFETY: (occupancy) queries on a live function with locals as out-parameters; the launched
    // kernels get live arguments and in-bounds grids.
    unsafe {
        let mut sms = 0;
        ck!(cuDeviceGetAttribute(
            &mut sms,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            g.dev
        ));
        let mut blocks = 0;
        ck!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            add_one,
            256,
            0
        ));
        println!("  add_one, 256 threads: {blocks} blocks per SM");
        assert!(blocks >= 1, "add_one: {blocks} blocks per SM");
        let mut with_smem = 0;
        ck!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut with_smem,
            reverse,
            256,
            1024
        ));
        assert!(with_smem >= 1 && with_smem <= blocks.max(with_smem));

        let mut max_threads = 0;
        ck!(cuFuncGetAttribute(
            &mut max_threads,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            add_one
        ));
        // cudaOccupancyMaxPotentialBlockSize is a C++ template in cuda_runtime.h (not an exported
        // function), so there is nothing of that name to call; the driver's is its basis.
        let mut rt_blocks = 0;
        let r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut rt_blocks,
            add_one as *const c_void,
            256,
            0,
        );
        println!(
            "  cudaOccupancyMaxActiveBlocksPerMultiprocessor(CUfunction) -> {r:?}, {rt_blocks}"
        );
        // CUDA 13 accepts a driver CUfunction here and agrees with the driver.
        if r == cudaError_t::cudaSuccess {
            assert_eq!(rt_blocks, blocks, "runtime vs driver occupancy");
        }
        let (mut min_grid, mut block) = (0, 0);
        ck!(cuOccupancyMaxPotentialBlockSize(
            &mut min_grid,
            &mut block,
            add_one,
            None,
            0,
            0
        ));
        println!(
            "  cuOccupancyMaxPotentialBlockSize: block {block}, min grid {min_grid} ({sms} SMs)"
        );
        assert!((32..=1024).contains(&block), "block size {block}");
        assert!(min_grid >= sms, "min grid {min_grid} < {sms} SMs");
        assert!(
            max_threads >= block,
            "function max threads {max_threads} < {block}"
        );

        // With a block-size -> shared-memory callback (HIP has none; anycuda searches HIP's
        // per-size occupancy). A constant callback answers as no callback does.
        extern "C" fn no_smem(_block: std::ffi::c_int) -> usize {
            0
        }
        let (mut cb_grid, mut cb_block) = (0, 0);
        ck!(cuOccupancyMaxPotentialBlockSize(
            &mut cb_grid,
            &mut cb_block,
            add_one,
            Some(no_smem),
            0,
            0
        ));
        assert_eq!((cb_grid, cb_block), (min_grid, block), "constant callback");
        // Shared memory that grows with the block: the answer is the best block size there is.
        extern "C" fn growing_smem(block: std::ffi::c_int) -> usize {
            block as usize * 32
        }
        let (mut v_grid, mut v_block) = (0, 0);
        ck!(cuOccupancyMaxPotentialBlockSizeWithFlags(
            &mut v_grid,
            &mut v_block,
            reverse,
            Some(growing_smem),
            0,
            0,
            0
        ));
        println!("  growing shared memory: block {v_block}, min grid {v_grid}");
        let occ = |b: i32| {
            let mut n = 0;
            ck!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                reverse,
                b,
                growing_smem(b)
            ));
            n
        };
        let mut rev_max = 0;
        ck!(cuFuncGetAttribute(
            &mut rev_max,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            reverse
        ));
        let best = occ(v_block) * v_block;
        assert!(v_block > 0 && best > 0, "block {v_block}, {best} threads");
        assert_eq!(v_grid, occ(v_block) * sms, "min grid = blocks per SM x SMs");
        for b in (32..=rev_max).step_by(32) {
            assert!(
                occ(b) * b <= best,
                "block {b} keeps {} threads resident, more than the answer {v_block} ({best})",
                occ(b) * b
            );
        }
    }
}

#[gpu_test]
fn graph_capture_replay() {
    let Some(g) = gpu("graph_capture_replay") else {
        return;
    };
    let m = g.module();
    let add_one = m.func(c"add_one");
    const N: u32 = 4096;
    // SAFETY: (graph_capture_replay) the captured kernels' arguments are locals that outlive every
    // replay, and the graph and its executable are destroyed once, after the last replay is
    // synchronized.
    unsafe {
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, N as usize * 4));
        ck!(cuMemsetD32(d, 0, N as usize));
        let mut s: CUstream = null_mut();
        ck!(cuStreamCreate(
            &mut s,
            CUstream_flags::CU_STREAM_NON_BLOCKING.0
        ));

        ck!(cuStreamBeginCapture(
            s,
            CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        ));
        let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        ck!(cuStreamIsCapturing(s, &mut status));
        assert_eq!(
            status,
            CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
        );
        let (mut p, mut n) = (d, N);
        launch_1d(add_one, N, 256, s, &mut [arg(&mut p), arg(&mut n)]);
        launch_1d(add_one, N, 256, s, &mut [arg(&mut p), arg(&mut n)]);
        let mut graph: CUgraph = null_mut();
        ck!(cuStreamEndCapture(s, &mut graph));
        assert!(!graph.is_null());
        ck!(cuStreamIsCapturing(s, &mut status));
        assert_eq!(status, CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE);
        let mut nodes = 0usize;
        ck!(cuGraphGetNodes(graph, null_mut(), &mut nodes));
        assert_eq!(nodes, 2, "captured nodes");
        // Capturing ran nothing.
        assert!(
            dtoh::<i32>(d, N as usize).iter().all(|&v| v == 0),
            "capture executed work"
        );

        let mut exec: CUgraphExec = null_mut();
        // CUDA 12+: cuGraphInstantiate is cuGraphInstantiateWithFlags(exec, graph, flags).
        println!("  captured {nodes} nodes; cuGraphInstantiate");
        ck!(cuGraphInstantiate(&mut exec, graph, 0));
        for _ in 0..3 {
            ck!(cuGraphLaunch(exec, s));
        }
        ck!(cuStreamSynchronize(s));
        let v = dtoh::<i32>(d, N as usize);
        assert!(
            v.iter().all(|&x| x == 6),
            "3 replays of 2 launches: got {}",
            v[0]
        );
        ck!(cuGraphExecDestroy(exec));
        ck!(cuGraphDestroy(graph));
        ck!(cuStreamDestroy(s));
        ck!(cuMemFree(d));
    }
}

#[gpu_test]
fn peer_queries() {
    let Some(g) = gpu("peer_queries") else { return };
    // SAFETY: (peer_queries) only queries: out-parameters are locals, device handles come from
    // cuDeviceGet.
    unsafe {
        let mut count = 0;
        ck!(cuDeviceGetCount(&mut count));
        assert_eq!(count, g.count);
        let mut rt_count = 0;
        ck!(cudaGetDeviceCount(&mut rt_count));
        assert_eq!(rt_count, count, "driver and runtime device counts");
        println!("  {count} device(s)");
        for i in 0..count {
            for j in 0..count {
                if i == j {
                    continue;
                }
                let (mut di, mut dj) = (0, 0);
                ck!(cuDeviceGet(&mut di, i));
                ck!(cuDeviceGet(&mut dj, j));
                let (mut can, mut rt_can) = (-1, -1);
                ck!(cuDeviceCanAccessPeer(&mut can, di, dj));
                ck!(cudaDeviceCanAccessPeer(&mut rt_can, i, j));
                println!("  {i} -> {j}: {can}");
                assert!(can == 0 || can == 1);
                assert_eq!(can, rt_can, "peer {i}->{j}: driver vs runtime");
            }
        }
        if count >= 2 {
            // A peer copy works with or without direct access (staged through the host if not).
            let n = 1 << 16;
            let src: Vec<u32> = (0..n as u32).collect();
            let (mut a, mut b): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
            ck!(cudaSetDevice(0));
            ck!(cudaMalloc(&mut a, n * 4));
            ck!(cudaMemcpy(
                a,
                src.as_ptr().cast(),
                n * 4,
                cudaMemcpyKind::cudaMemcpyHostToDevice
            ));
            ck!(cudaSetDevice(1));
            ck!(cudaMalloc(&mut b, n * 4));
            ck!(cudaMemcpyPeer(b, 1, a, 0, n * 4));
            let mut back = vec![0u32; n];
            ck!(cudaMemcpy(
                back.as_mut_ptr().cast(),
                b,
                n * 4,
                cudaMemcpyKind::cudaMemcpyDeviceToHost
            ));
            assert!(back == src, "cudaMemcpyPeer 0 -> 1");
            ck!(cudaFree(b));
            ck!(cudaSetDevice(0));
            ck!(cudaFree(a));
            ck!(cuCtxSetCurrent(g.ctx));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Wrong use: the CUDA error each must give (values from CUDA 13.0, driver 580)
// ---------------------------------------------------------------------------------------------

#[gpu_test]
fn error_invalid_device_pointer() {
    let Some(_g) = gpu("error_invalid_device_pointer") else {
        return;
    };
    let mut host = [0u8; 64];
    // SAFETY: (error_invalid_device_pointer) the driver validates device pointers against its
    // allocations and refuses the bogus ones before touching memory; every host buffer is as large
    // as the byte count passed.
    unsafe {
        expect_code!(
            cuMemcpyDtoH(host.as_mut_ptr().cast(), 0xdead_0000_0000, 64),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        expect_code!(
            cuMemcpyDtoH(host.as_mut_ptr().cast(), 0, 64),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // Past the end of a real allocation.
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, 4096));
        let mut big = vec![0u8; 8192];
        expect_code!(
            cuMemcpyDtoH(big.as_mut_ptr().cast(), d, 8192),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        ck!(cuMemFree(d));
        expect_code!(
            cudaMemcpy(
                host.as_mut_ptr().cast(),
                0xdead_0000_0000usize as *const c_void,
                64,
                cudaMemcpyKind::cudaMemcpyDeviceToHost
            ),
            cudaError_t::cudaErrorInvalidValue
        );
        // Not sticky: the context still works.
        ck!(cuCtxSynchronize());
    }
}

#[gpu_test]
fn error_device_out_of_range() {
    let Some(_g) = gpu("error_device_out_of_range") else {
        return;
    };
    // SAFETY: (error_device_out_of_range) only out-of-range ordinals, which the driver refuses;
    // out-parameters are locals.
    unsafe {
        let mut d: CUdevice = 0;
        expect_code!(
            cuDeviceGet(&mut d, 999),
            CUresult::CUDA_ERROR_INVALID_DEVICE
        );
        expect_code!(cuDeviceGet(&mut d, -1), CUresult::CUDA_ERROR_INVALID_DEVICE);
        let mut v = 0;
        expect_code!(
            cudaDeviceGetAttribute(&mut v, cudaDeviceAttr::cudaDevAttrMultiProcessorCount, 999),
            cudaError_t::cudaErrorInvalidDevice
        );
        expect_code!(cudaSetDevice(999), cudaError_t::cudaErrorInvalidDevice);
    }
}

#[gpu_test]
fn error_block_too_large() {
    let Some(g) = gpu("error_block_too_large") else {
        return;
    };
    let m = g.module();
    let f = m.func(c"add_one");
    // SAFETY: (error_block_too_large) the over-large block is refused at launch, before the kernel
    // runs; its arguments are live locals anyway.
    unsafe {
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, 4096 * 4));
        let (mut p, mut n) = (d, 4096u32);
        let mut args = [arg(&mut p), arg(&mut n)];
        expect_code!(
            cuLaunchKernel(
                f,
                1,
                1,
                1,
                2048,
                1,
                1,
                0,
                null_mut(),
                args.as_mut_ptr(),
                null_mut()
            ),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        // Not sticky: a valid launch right after works.
        ck!(cuMemsetD32(d, 1, 4096));
        launch_1d(f, 4096, 1024, null_mut(), &mut args);
        ck!(cuCtxSynchronize());
        assert!(dtoh::<i32>(d, 4096).iter().all(|&v| v == 2));
        ck!(cuMemFree(d));
    }
}

/// A launch on a destroyed stream is undefined behaviour in CUDA: on CUDA 13.0 / driver 580 it
/// segfaults inside libcuda (so do a destroyed event and a stream whose context was destroyed;
/// see ci/bench/probe_errors.cu). anycuda passes handles through untouched, so it cannot be
/// tested safely. The nearest safe equivalents: a live stream of another context, and a null
/// function; CUDA answers both with CUDA_ERROR_INVALID_HANDLE.
#[gpu_test]
fn error_stream_of_other_context() {
    let Some(g) = gpu("error_stream_of_other_context") else {
        return;
    };
    let m = g.module();
    let f = m.func(c"add_one");
    // SAFETY: (error_stream_of_other_context) the launch on the other context's stream is refused
    // before the kernel runs; both contexts and the stream are live and destroyed once.
    unsafe {
        let mut other: CUcontext = null_mut();
        ck!(cuCtxCreate(&mut other, null_mut(), 0, g.dev)); // now current
        let mut s2: CUstream = null_mut();
        ck!(cuStreamCreate(
            &mut s2,
            CUstream_flags::CU_STREAM_NON_BLOCKING.0
        ));
        ck!(cuCtxSetCurrent(g.ctx));
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, 1024));
        let (mut p, mut n) = (d, 256u32);
        let mut args = [arg(&mut p), arg(&mut n)];
        expect_code!(
            cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s2, args.as_mut_ptr(), null_mut()),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        expect_code!(
            cuLaunchKernel(
                null_mut(),
                1,
                1,
                1,
                256,
                1,
                1,
                0,
                null_mut(),
                args.as_mut_ptr(),
                null_mut()
            ),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        ck!(cuCtxSynchronize());
        ck!(cuMemFree(d));
        ck!(cuCtxSetCurrent(other));
        ck!(cuStreamDestroy(s2));
        ck!(cuCtxDestroy(other));
        ck!(cuCtxSetCurrent(g.ctx));
    }
}

#[gpu_test]
fn error_unrecorded_events() {
    let Some(_g) = gpu("error_unrecorded_events") else {
        return;
    };
    // SAFETY: (error_unrecorded_events) both events are live; the unrecorded pair is refused; each
    // is destroyed once.
    unsafe {
        let (mut e0, mut e1): (CUevent, CUevent) = (null_mut(), null_mut());
        ck!(cuEventCreate(&mut e0, 0));
        ck!(cuEventCreate(&mut e1, 0));
        let mut ms = 0f32;
        expect_code!(
            cuEventElapsedTime(&mut ms, e0, e1),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        ck!(cuEventDestroy(e0));
        ck!(cuEventDestroy(e1));
    }
}

#[gpu_test]
fn error_double_free() {
    let Some(_g) = gpu("error_double_free") else {
        return;
    };
    // SAFETY: (error_double_free) the suite is serialised, so nothing can be handed this address
    // between the two frees: the second free meets the driver's check, not another allocation.
    unsafe {
        // Safe only because the suite is serialised: nothing can be handed this address between
        // the two frees.
        let mut d = 0;
        ck!(cuMemAlloc(&mut d, 4096));
        expect_code!(cuMemFree(d), CUresult::CUDA_SUCCESS);
        expect_code!(cuMemFree(d), CUresult::CUDA_ERROR_INVALID_VALUE);
        expect_code!(cuMemFree(0), CUresult::CUDA_SUCCESS);
        let mut r: *mut c_void = null_mut();
        ck!(cudaMalloc(&mut r, 4096));
        expect_code!(cudaFree(r), cudaError_t::cudaSuccess);
        expect_code!(cudaFree(r), cudaError_t::cudaErrorInvalidValue);
    }
}

#[gpu_test]
fn error_unknown_symbol() {
    let Some(g) = gpu("error_unknown_symbol") else {
        return;
    };
    let m = g.module();
    // SAFETY: (error_unknown_symbol) `m.0` is a live module and the names are C string literals;
    // out-parameters are locals.
    unsafe {
        let mut f: CUfunction = null_mut();
        expect_code!(
            cuModuleGetFunction(&mut f, m.0, c"nope".as_ptr()),
            CUresult::CUDA_ERROR_NOT_FOUND
        );
        let (mut p, mut size) = (0, 0usize);
        expect_code!(
            cuModuleGetGlobal(&mut p, &mut size, m.0, c"nope".as_ptr()),
            CUresult::CUDA_ERROR_NOT_FOUND
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------------

/// Several threads, each with its own stream and buffers; even threads share the primary context
/// (made current on each thread with cuCtxSetCurrent), odd ones create their own context.
#[gpu_test]
fn threads_with_own_streams() {
    let Some(g) = gpu("threads_with_own_streams") else {
        return;
    };
    let image = &code(&g).0;
    let (primary, dev) = (g.ctx as usize, g.dev);
    const N: u32 = 1 << 18;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..6)
            .map(|t| {
                // SAFETY: (threads_with_own_streams) each thread makes a context current before use
                // (the primary one, alive for the scope, or its own), creates and destroys its own
                // stream and allocations, and launches with live locals as arguments.
                scope.spawn(move || unsafe {
                    let mut own: CUcontext = null_mut();
                    if t % 2 == 0 {
                        ck!(cuCtxSetCurrent(primary as CUcontext));
                    } else {
                        ck!(cuCtxCreate(&mut own, null_mut(), 0, dev));
                        ck!(cuCtxSetCurrent(own));
                    }
                    let mut cur: CUcontext = null_mut();
                    ck!(cuCtxGetCurrent(&mut cur));
                    assert_eq!(
                        cur,
                        if t % 2 == 0 {
                            primary as CUcontext
                        } else {
                            own
                        }
                    );
                    let m = Module::load(image);
                    let f = m.func(c"saxpy");
                    let mut s: CUstream = null_mut();
                    ck!(cuStreamCreate(
                        &mut s,
                        CUstream_flags::CU_STREAM_NON_BLOCKING.0
                    ));
                    let x: Vec<f32> = (0..N).map(|i| (i % 1000) as f32).collect();
                    let y: Vec<f32> = (0..N).map(|i| (t * 1000 + i % 7) as f32).collect();
                    let (mut dx, mut dy) = (0, 0);
                    ck!(cuMemAlloc(&mut dx, N as usize * 4));
                    ck!(cuMemAlloc(&mut dy, N as usize * 4));
                    ck!(cuMemcpyHtoDAsync(dx, x.as_ptr().cast(), N as usize * 4, s));
                    ck!(cuMemcpyHtoDAsync(dy, y.as_ptr().cast(), N as usize * 4, s));
                    let mut a = (t + 1) as f32;
                    let mut n = N;
                    for _ in 0..10 {
                        launch_1d(
                            f,
                            N,
                            256,
                            s,
                            &mut [arg(&mut a), arg(&mut dx), arg(&mut dy), arg(&mut n)],
                        );
                    }
                    let mut out = vec![0f32; N as usize];
                    ck!(cuMemcpyDtoHAsync(
                        out.as_mut_ptr().cast(),
                        dy,
                        N as usize * 4,
                        s
                    ));
                    ck!(cuStreamSynchronize(s));
                    for i in 0..N as usize {
                        // Small integers: exact in f32 whatever the contraction.
                        let want = y[i] + 10.0 * a * x[i];
                        assert_eq!(out[i], want, "thread {t} element {i}");
                    }
                    ck!(cuMemFree(dx));
                    ck!(cuMemFree(dy));
                    ck!(cuStreamDestroy(s));
                    drop(m);
                    if !own.is_null() {
                        ck!(cuCtxDestroy(own));
                    }
                    t
                })
            })
            .collect();
        for w in workers {
            let t = w.join().expect("worker panicked");
            println!("  thread {t}: OK");
        }
    });
    // The scope's threads leave this thread's context alone.
    // SAFETY: (threads_with_own_streams) a query into a local.
    unsafe {
        let mut cur: CUcontext = null_mut();
        ck!(cuCtxGetCurrent(&mut cur));
        assert_eq!(cur, g.ctx);
    }
}

// ---------------------------------------------------------------------------------------------
// HIP behaviour rules kept by the backend (backends/hip: adapt/memcpy.rs, adapt/image.rs)
// ---------------------------------------------------------------------------------------------

/// CUDA's contract for pageable host memory in asynchronous 1D copies, kept on every backend
/// without any wait above the raw layer (on HIP: `pageable_copy_needs_wait`): when the call
/// returns, a pageable source may be overwritten and a pageable destination holds the data.
/// Each copy is queued behind ~100 kernel launches, so one that returned early would be caught.
#[gpu_test]
fn pageable_copies_keep_cudas_contract() {
    let Some(g) = gpu("pageable_copies_keep_cudas_contract") else {
        return;
    };
    const N: usize = 1024; // 4 KiB of u32
    const BUSY: u32 = 1 << 22;
    let m = g.module();
    let add_one = m.func(c"add_one");
    // SAFETY: (pageable_copies_keep_cudas_contract) the pageable buffers are Vecs of the byte
    // counts copied, alive until after the final synchronize; the queued kernels get live locals as
    // arguments.
    unsafe {
        let mut s: CUstream = null_mut();
        ck!(cuStreamCreate(&mut s, 0));
        let (mut busy, mut d) = (0, 0);
        ck!(cuMemAlloc(&mut busy, BUSY as usize * 4));
        ck!(cuMemAlloc(&mut d, N * 4));
        let keep_busy = |s: CUstream| {
            let (mut p, mut n) = (busy, BUSY);
            for _ in 0..100 {
                launch_1d(add_one, BUSY, 256, s, &mut [arg(&mut p), arg(&mut n)]);
            }
        };
        for (way, round) in [
            "cuMemcpy{HtoD,DtoH}Async",
            "cuMemcpyAsync",
            "cudaMemcpyAsync",
        ]
        .iter()
        .zip(0u32..)
        {
            let want: Vec<u32> = (0..N as u32)
                .map(|i| i.wrapping_mul(2654435761) ^ round)
                .collect();
            let mut src = want.clone();
            keep_busy(s);
            match round {
                0 => ck!(cuMemcpyHtoDAsync(d, src.as_ptr().cast(), N * 4, s)),
                1 => ck!(cuMemcpyAsync(d, src.as_ptr() as CUdeviceptr, N * 4, s)),
                _ => ck!(cudaMemcpyAsync(
                    d as *mut c_void,
                    src.as_ptr().cast(),
                    N * 4,
                    cudaMemcpyKind::cudaMemcpyHostToDevice,
                    s as cudaStream_t
                )),
            }
            src.fill(u32::MAX); // reused at once, as CUDA allows
            ck!(cuStreamSynchronize(s));
            assert_eq!(
                dtoh::<u32>(d, N),
                want,
                "{way}: the pageable source was read late"
            );
            let mut dst = vec![0u32; N];
            keep_busy(s);
            match round {
                0 => ck!(cuMemcpyDtoHAsync(dst.as_mut_ptr().cast(), d, N * 4, s)),
                1 => ck!(cuMemcpyAsync(dst.as_mut_ptr() as CUdeviceptr, d, N * 4, s)),
                _ => ck!(cudaMemcpyAsync(
                    dst.as_mut_ptr().cast(),
                    d as *const c_void,
                    N * 4,
                    cudaMemcpyKind::cudaMemcpyDeviceToHost,
                    s as cudaStream_t
                )),
            }
            // No synchronize: the copy into pageable memory has completed on return.
            assert_eq!(
                dst, want,
                "{way}: returned before the copy into pageable memory"
            );
            println!("  {way}: pageable source reusable and destination complete on return");
            ck!(cuStreamSynchronize(s));
        }
        #[cfg(feature = "backend-hip")]
        if let Some(h) = g.backend.as_hip() {
            let rule =
                anycuda::native::hip::pageable_copy_needs_wait(h.platform(), h.hip_version());
            println!(
                "  HIP {:?} {}: rule {rule:?}",
                h.platform(),
                h.hip_version()
            );
        }
        ck!(cuMemFree(busy));
        ck!(cuMemFree(d));
        ck!(cuStreamDestroy(s));
    }
}

/// PTX text loads everywhere: natively on CUDA (and on HIP's NVIDIA platform with
/// `ANYCUDA_HIP_AMD_FAITHFUL=0`), translated to HIP C++ and compiled by hipRTC on AMD and in
/// AMD-faithful mode (HIP's NVIDIA platform's default). The kernel runs and writes what the PTX
/// says. There, PTX with an instruction the translator refuses fails with
/// CUDA_ERROR_NOT_SUPPORTED, the instruction named (`anycuda::not_supported_reason`).
#[gpu_test]
fn ptx_loads_everywhere() {
    let Some(g) = gpu("ptx_loads_everywhere") else {
        return;
    };
    const PTX: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n\
        ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
        mul.lo.s32 %r2, %r1, 3;\nadd.s32 %r3, %r2, 7;\nmul.wide.u32 %rd1, %r1, 4;\n\
        add.s64 %rd2, %rd2, %rd1;\nst.global.u32 [%rd2], %r3;\nret;\n}\n\0";
    #[cfg(feature = "backend-hip")]
    let amd = g.backend.as_hip().is_some_and(|h| h.amd_faithful());
    #[cfg(not(feature = "backend-hip"))]
    let amd = {
        let _ = &g;
        false
    };
    let m = Module::load(PTX.as_bytes());
    println!("  cuModuleLoadData(PTX) loaded (translated: {amd})");
    let f = m.func(c"k");
    let n = 64u32;
    let mut d: CUdeviceptr = 0;
    // SAFETY: the whole block: live allocations of `n` u32, one argument for `k`.
    unsafe {
        ck!(cuMemAlloc(&mut d, n as usize * 4));
        launch_1d(f, n, n, null_mut(), &mut [arg(&mut d)]);
        ck!(cuCtxSynchronize());
    }
    let mut host = vec![0u32; n as usize];
    // SAFETY: `n` u32 on both sides.
    unsafe {
        ck!(cuMemcpyDtoH(host.as_mut_ptr().cast(), d, n as usize * 4));
        ck!(cuMemFree(d));
    }
    let want: Vec<u32> = (0..n).map(|i| i * 3 + 7).collect();
    assert_eq!(host, want);
    drop(m);
    if amd {
        let refused = PTX.replace("ret;", "wgmma.fence.sync.aligned;\nret;");
        let mut m2 = null_mut();
        // SAFETY: a NUL-terminated PTX text.
        let r = unsafe { cuModuleLoadData(&mut m2, refused.as_ptr().cast()) };
        assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED);
        let why = anycuda::not_supported_reason(r).expect("reason recorded");
        assert!(why.contains("`wgmma.fence.sync.aligned`"), "{why}");
    }
}
