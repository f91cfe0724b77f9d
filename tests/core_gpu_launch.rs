//! GPU tests of `anycuda::core` programs, kernels, launches, graphs and the linker, on whichever
//! backend `ANYCUDA_BACKEND` selects (CUDA, or HIP through HIP's NVIDIA platform).
//!
//! Every test is a `#[gpu_test]` (anycuda-test): ci/gpu-test.sh runs them on a GPU machine, one
//! process each. Where a need is not met they end `not run` (exit status 77), never as a pass.

mod common;

use anycuda::core::{
    launch, launch_unchecked, Buffer, CaptureMode, CodeType, Context, Device, ErrorCode,
    GraphBuilder, Kernel, LaunchConfig, Linker, LinkerOptions, ObjectCode, Program, ProgramOptions,
    Stream, StreamOptions,
};
use anycuda::BackendKind;
use anycuda_test::gpu_test;

#[path = "common/param_kernels.rs"]
mod param_kernels;

// Counts the heap allocations of each thread, to show the hot paths make none.
anycuda_test::count_allocations!();

const KERNELS: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void empty() {}

extern "C" __global__ void index3d(unsigned *out)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y;
    out[(z * ny + y) * nx + x] = x + 1000u * y + 1000000u * z;
}

// Reverses each block's slice through dynamic shared memory.
extern "C" __global__ void reverse_block(const int *in, int *out)
{
    extern __shared__ int tile[];
    unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[blockDim.x - 1 - t];
}

struct Pair { int a; float b; };

extern "C" __global__ void many(signed char c, short s, int i, long long l, float f, double d,
                                Pair p, unsigned char u, double *out)
{
    out[0] = c; out[1] = s; out[2] = i; out[3] = (double)l; out[4] = f; out[5] = d;
    out[6] = p.a; out[7] = p.b; out[8] = u;
}
"#;

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Pair {
    a: i32,
    b: f32,
}
// SAFETY: two 4-byte plain fields, no padding; any bit pattern is valid.
unsafe impl anycuda::core::DeviceCopy for Pair {}

struct Gpu {
    ctx: Context,
    stream: Stream,
    code: ObjectCode,
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
    let stream = ctx
        .create_stream(StreamOptions::default().non_blocking(true))
        .expect("stream");
    let mut prog =
        Program::new(KERNELS, ProgramOptions::new().name("kernels.cu")).expect("program");
    let code = prog
        .compile(CodeType::Ptx)
        .unwrap_or_else(|e| panic!("compile: {e}"));
    Gpu { ctx, stream, code }
}

fn kernel(g: &Gpu, name: &str) -> Kernel {
    g.code
        .kernel(name)
        .unwrap_or_else(|e| panic!("kernel {name}: {e}"))
}

fn is_usage(e: &anycuda::core::CoreError) -> bool {
    e.code() == ErrorCode::Usage
}

#[gpu_test]
fn saxpy_1d_and_parameter_info() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    match k.num_arguments() {
        Some(n) => {
            assert_eq!(n, 4);
            let sizes: Vec<usize> = k.arguments_info().unwrap().iter().map(|p| p.size).collect();
            assert_eq!(sizes, [4, 8, 8, 4]);
        }
        None => {
            // The CUDA backend on a 12.4+ driver must report it, and the HIP backend reads it
            // from the PTX; elsewhere it is optional.
            let kind = anycuda::backend().unwrap().kind();
            assert_ne!(
                kind,
                anycuda::BackendKind::Hip,
                "HIP reads PTX parameter layouts"
            );
            let driver = anycuda::core::system::driver_version().map_or(0, |v| v.raw);
            assert!(
                kind != anycuda::BackendKind::Cuda || driver < 12040,
                "no parameter info from the CUDA driver {driver}"
            );
            eprintln!("no parameter info on {kind} (driver {driver}): count checks skipped");
        }
    }
    let n = 100_003usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (2 * i) as f32).collect();
    let dx = Buffer::from_slice(&g.stream, &x).unwrap();
    let mut dy = Buffer::from_slice(&g.stream, &y).unwrap();
    let cfg = LaunchConfig::for_num_elems(n as u32, 256);
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &cfg, &k, (3.0f32, &dx, &mut dy, n as u32)) }.unwrap();
    g.stream.synchronize().unwrap();
    let out = dy.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(out[i], 3.0 * x[i] + y[i], "element {i}");
    }
    // Views pass their own address and length.
    let mut tail = dy.view_mut(n - 3..).unwrap();
    let head = dx.view(..3).unwrap();
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe {
        launch(
            &g.stream,
            &LaunchConfig::new(1u32, 32u32),
            &k,
            (1.0f32, head, &mut tail, 3u32),
        )
    }
    .unwrap();
    g.stream.synchronize().unwrap();
    let out = dy.to_vec().unwrap();
    for j in 0..3 {
        let i = n - 3 + j;
        assert_eq!(out[i], 3.0 * x[i] + y[i] + x[j], "view element {j}");
    }
}

#[gpu_test]
fn launch_3d() {
    let g = gpu();
    let k = kernel(&g, "index3d");
    let (grid, block) = ((4u32, 3u32, 2u32), (8u32, 4u32, 2u32));
    let (nx, ny, nz) = (32usize, 12usize, 4usize);
    let mut out = Buffer::<u32>::zeroed(&g.stream, nx * ny * nz).unwrap();
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &LaunchConfig::new(grid, block), &k, (&mut out,)) }.unwrap();
    g.stream.synchronize().unwrap();
    let v = out.to_vec().unwrap();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let want = (x + 1000 * y + 1_000_000 * z) as u32;
                assert_eq!(v[(z * ny + y) * nx + x], want, "({x},{y},{z})");
            }
        }
    }
}

#[gpu_test]
fn dynamic_shared_memory() {
    let g = gpu();
    let k = kernel(&g, "reverse_block");
    let block = 256u32;
    let blocks = 64u32;
    let n = (block * blocks) as usize;
    let input: Vec<i32> = (0..n as i32).collect();
    let din = Buffer::from_slice(&g.stream, &input).unwrap();
    let mut dout = Buffer::<i32>::zeroed(&g.stream, n).unwrap();
    let cfg = LaunchConfig::new(blocks, block).shared_mem(block * 4);
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &cfg, &k, (&din, &mut dout)) }.unwrap();
    g.stream.synchronize().unwrap();
    let out = dout.to_vec().unwrap();
    for b in 0..blocks as usize {
        for t in 0..block as usize {
            let base = b * block as usize;
            assert_eq!(out[base + t], input[base + block as usize - 1 - t]);
        }
    }
    // Above 48 KiB needs the attribute; where the device has that much, it works.
    let big = 64 * 1024u32;
    match k.set_max_dynamic_shared_memory(big as usize) {
        Ok(()) => {
            assert!(k.attributes().max_dynamic_shared_size_bytes().unwrap() >= big as usize);
            let cfg = LaunchConfig::new(blocks, block).shared_mem(big);
            // SAFETY: the kernel touches only its buffer arguments, within the length it is
            // given (which matches them); no host borrow of them is alive.
            unsafe { launch(&g.stream, &cfg, &k, (&din, &mut dout)) }.unwrap();
            g.stream.synchronize().unwrap();
        }
        Err(e) => eprintln!("64 KiB of dynamic shared memory refused here: {e}"),
    }
}

#[gpu_test]
fn many_argument_types() {
    let g = gpu();
    let k = kernel(&g, "many");
    let mut out = Buffer::<f64>::zeroed(&g.stream, 9).unwrap();
    let args = (
        -5i8,
        -300i16,
        123_456i32,
        -9_876_543_210i64,
        1.5f32,
        -2.25f64,
        Pair { a: 77, b: 0.5 },
        250u8,
        &mut out,
    );
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &LaunchConfig::new(1u32, 1u32), &k, args) }.unwrap();
    g.stream.synchronize().unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        [
            -5.0,
            -300.0,
            123_456.0,
            -9_876_543_210.0,
            1.5,
            -2.25,
            77.0,
            0.5,
            250.0
        ]
    );
}

/// Parameters of many kinds (1/2/8-byte scalars, aligned structs, arrays, a 100-byte struct, a
/// template instance), from PTX and from a cubin: `Kernel::arguments_info` matches the layout
/// NVRTC's cubin records, on CUDA (12.4+ driver: `cuFuncGetParamInfo`, counted by
/// `cuFuncGetParamCount` on 13.2+, else from the image) and on HIP (read from the image at
/// load); the raw driver API gives the same, and an index past the end is invalid value.
#[gpu_test]
fn parameter_info_of_many_kinds() {
    use anycuda::driver::{cuFuncGetParamCount, cuFuncGetParamInfo, CUresult};
    let _g = gpu(); // the device's context, current
    let kind = anycuda::backend().unwrap().kind();
    let driver = anycuda::core::system::driver_version().map_or(0, |v| v.raw);
    for code_type in [CodeType::Ptx, CodeType::Cubin] {
        let opts = ProgramOptions::new()
            .name("params.cu")
            .name_expression("scale<double>");
        let code = Program::new(param_kernels::SOURCE, opts)
            .unwrap()
            .compile(code_type)
            .unwrap_or_else(|e| panic!("{code_type:?}: {e}"));
        for (name, params) in param_kernels::expected() {
            let k = code
                .kernel(name)
                .unwrap_or_else(|e| panic!("{code_type:?} {name}: {e}"));
            let Some(info) = k.arguments_info() else {
                assert!(
                    kind == BackendKind::Cuda && driver < 12040,
                    "{kind} {code_type:?} {name}: no parameter info (driver {driver})"
                );
                continue;
            };
            let got: Vec<(usize, usize)> = info.iter().map(|p| (p.offset, p.size)).collect();
            let want: Vec<(usize, usize)> = params.iter().map(|p| (p.offset, p.size)).collect();
            assert_eq!(got, want, "{kind} {code_type:?} {name}");
            assert_eq!(k.num_arguments(), Some(want.len()));
            let (mut off, mut size, mut n) = (0usize, 0usize, 0usize);
            // SAFETY: live function, valid out-pointers.
            unsafe {
                let r = cuFuncGetParamCount(k.as_raw(), &mut n);
                if r != CUresult::CUDA_ERROR_NOT_SUPPORTED {
                    assert_eq!(r, CUresult::CUDA_SUCCESS, "{kind} {name}");
                    assert_eq!(n, want.len(), "{kind} {name}");
                }
                assert_eq!(
                    cuFuncGetParamInfo(k.as_raw(), want.len(), &mut off, &mut size),
                    CUresult::CUDA_ERROR_INVALID_VALUE,
                    "{kind} {name}: index past the end"
                );
            }
        }
    }
}

#[gpu_test]
fn wrong_arguments_are_errors() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let x = Buffer::<f32>::zeroed(&g.stream, 16).unwrap();
    let mut y = Buffer::<f32>::zeroed(&g.stream, 16).unwrap();
    let cfg = LaunchConfig::new(1u32, 16u32);
    if k.num_arguments().is_none() {
        // CUDA reports parameters from driver 12.4 (cuFuncGetParamInfo); the HIP backend
        // reads them from the module's image (saxpy_1d_and_parameter_info checks both).
        let mut v = 0;
        // SAFETY: valid out-pointer.
        unsafe { anycuda::driver::cuDriverGetVersion(&mut v) };
        assert!(
            !on_cuda() || v < 12040,
            "CUDA driver {v} reports no parameter info"
        );
        assert!(
            on_cuda(),
            "the HIP backend reads parameter layouts from the image"
        );
        anycuda_test::not_applicable(&format!(
            "no parameter info on this backend (driver {v}): no count/size checks"
        ));
    }
    // Too few, too many.
    // SAFETY: the checks refuse this launch before anything runs (this test
    // returns early where there is no parameter info); nothing is touched.
    let e = unsafe { launch(&g.stream, &cfg, &k, (2.0f32, &x, &mut y)) }.unwrap_err();
    assert!(
        is_usage(&e) && e.to_string().contains("takes 4 arguments, 3 given"),
        "{e}"
    );
    // SAFETY: the checks refuse this launch before anything runs (this test
    // returns early where there is no parameter info); nothing is touched.
    let e = unsafe { launch(&g.stream, &cfg, &k, (2.0f32, &x, &mut y, 16u32, 0u32)) }.unwrap_err();
    assert!(is_usage(&e), "{e}");
    // A double where the kernel takes a float.
    // SAFETY: the checks refuse this launch before anything runs (this test
    // returns early where there is no parameter info); nothing is touched.
    let e = unsafe { launch(&g.stream, &cfg, &k, (2.0f64, &x, &mut y, 16u32)) }.unwrap_err();
    assert!(is_usage(&e) && e.to_string().contains("argument 0"), "{e}");
    // Nothing ran: y is still zero.
    g.stream.synchronize().unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 0.0));
    // The unchecked launch with the right arguments works.
    // SAFETY: the arguments match saxpy's parameters and live in the stream's context.
    unsafe { launch_unchecked(&g.stream, &cfg, &k, (2.0f32, &x, &mut y, 16u32)) }.unwrap();
    g.stream.synchronize().unwrap();
}

#[gpu_test]
fn launches_beyond_the_limits_are_errors() {
    let g = gpu();
    let k = kernel(&g, "empty");
    for cfg in [
        LaunchConfig::new(1u32, 4096u32),              // block too large
        LaunchConfig::new(1u32, (32u32, 32u32, 2u32)), // 2048 threads
        LaunchConfig::new(1u32, (1u32, 1u32, 128u32)), // block.z above 64
        LaunchConfig::new((1u32, 1u32 << 20), 1u32),   // grid.y above 65535
        LaunchConfig::new(0u32, 32u32),                // empty grid
        LaunchConfig::new(1u32, 0u32),                 // empty block
    ] {
        // SAFETY: the limit checks refuse every one of these configurations before
        // anything runs (no parameter info is needed for them).
        let e = unsafe { launch(&g.stream, &cfg, &k, ()) }.unwrap_err();
        assert!(is_usage(&e), "{cfg:?}: {e}");
    }
    // The driver's own check behind the unchecked launch: an error, no crash.
    // SAFETY: `empty` takes no arguments.
    let r = unsafe { launch_unchecked(&g.stream, &LaunchConfig::new(1u32, 4096u32), &k, ()) };
    assert!(r.is_err());
    // The context is still usable.
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &LaunchConfig::new(1u32, 1u32), &k, ()) }.unwrap();
    g.stream.synchronize().unwrap();
}

/// Needs 2 devices (`gpus = 2`): with fewer it ends `not run` (exit status 77), which
/// ci/gpu-test.sh records as "not run (needs 2 GPUs, found 1)", not a failure.
#[gpu_test(gpus = 2)]
fn two_gpus_memory_and_kernels_of_another_device_are_errors() {
    let g = gpu();
    let n = Device::count().unwrap();
    assert!(n >= 2, "this test needs 2 GPUs; {n} found");
    let ctx1 = Device::new(1).unwrap().context().unwrap();
    let s1 = ctx1.create_stream(StreamOptions::default()).unwrap();
    let other = Buffer::<f32>::zeroed(&s1, 16).unwrap();
    g.ctx.bind().unwrap();
    let k = kernel(&g, "saxpy");
    let mut y = Buffer::<f32>::zeroed(&g.stream, 16).unwrap();
    let cfg = LaunchConfig::new(1u32, 16u32);
    // SAFETY: the context check refuses the foreign buffer before anything runs
    // (it needs no parameter info).
    let e = unsafe { launch(&g.stream, &cfg, &k, (1.0f32, &other, &mut y, 16u32)) }.unwrap_err();
    assert!(
        is_usage(&e) && e.to_string().contains("another context"),
        "{e}"
    );
    // A kernel of device 0 on a stream of device 1.
    let x = Buffer::<f32>::zeroed(&g.stream, 16).unwrap();
    // SAFETY: the context check refuses the kernel of another context before
    // anything runs.
    let e = unsafe { launch(&s1, &cfg, &k, (1.0f32, &x, &mut y, 16u32)) }.unwrap_err();
    assert!(is_usage(&e), "{e}");
}

#[gpu_test]
fn attributes_and_occupancy() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let a = k.attributes();
    let max = a.max_threads_per_block().unwrap();
    assert!((32..=1024).contains(&max), "{max}");
    assert!(a.num_regs().unwrap() > 0);
    let _ = a.local_size_bytes().unwrap();
    let _ = a.shared_size_bytes().unwrap();
    let occ = k.occupancy();
    let blocks = occ.max_active_blocks_per_multiprocessor(256, 0).unwrap();
    assert!(blocks >= 1, "{blocks}");
    let (min_grid, block) = occ.max_potential_block_size(0, 0).unwrap();
    assert!(
        min_grid >= 1 && block >= 32 && block <= max && block % 32 == 0,
        "{min_grid} {block}"
    );
    let (_, limited) = occ.max_potential_block_size(0, 128).unwrap();
    assert!(limited <= 128, "{limited}");
    match occ.available_dynamic_shared_memory_per_block(1, 256) {
        Ok(bytes) => assert!(bytes > 0),
        Err(e) => assert!(e.is_not_supported(), "{e}"),
    }
}

#[gpu_test]
fn object_code_loads_once_per_context_and_kernels_keep_modules() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let m = g.code.load(&g.ctx).unwrap();
    assert_eq!(m.as_raw(), k.module().as_raw(), "one module per context");
    assert_eq!(k.context().as_raw(), g.ctx.as_raw());
    // The same code through bytes, then dropped: the kernel keeps its module loaded.
    let copy = ObjectCode::from_bytes(g.code.code(), g.code.code_type()).unwrap();
    let k2 = copy.kernel("saxpy").unwrap();
    drop(copy);
    let x = Buffer::<f32>::from_slice(&g.stream, &[1.0; 64]).unwrap();
    let mut y = Buffer::<f32>::from_slice(&g.stream, &[1.0; 64]).unwrap();
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe {
        launch(
            &g.stream,
            &LaunchConfig::new(1u32, 64u32),
            &k2,
            (1.0f32, &x, &mut y, 64u32),
        )
    }
    .unwrap();
    g.stream.synchronize().unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 2.0));
    assert!(g.code.kernel("no_such_kernel").is_err());
    assert!(g.code.kernel("sa\0xpy").is_err());
    let lto = ObjectCode::from_bytes(b"BC\xc0\xde".to_vec(), CodeType::Ltoir).unwrap();
    assert!(is_usage(&lto.load(&g.ctx).unwrap_err()));
    let junk = ObjectCode::from_bytes(b"not a module".to_vec(), CodeType::Cubin).unwrap();
    assert!(junk.load(&g.ctx).is_err());
}

#[gpu_test]
fn launches_allocate_nothing() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let e = kernel(&g, "empty");
    let x = Buffer::<f32>::zeroed(&g.stream, 1024).unwrap();
    let mut y = Buffer::<f32>::zeroed(&g.stream, 1024).unwrap();
    let cfg = LaunchConfig::new(4u32, 256u32);
    let one = LaunchConfig::new(1u32, 1u32);
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &cfg, &k, (1.0f32, &x, &mut y, 1024u32)) }.unwrap();
    let before = anycuda_test::alloc::thread_allocations();
    for _ in 0..1000 {
        // SAFETY: the kernel touches only its buffer arguments, within the length it is
        // given (which matches them); no host borrow of them is alive.
        unsafe { launch(&g.stream, &cfg, &k, (1.0f32, &x, &mut y, 1024u32)) }.unwrap();
        // SAFETY: the kernel touches only its buffer arguments, within the length it is
        // given (which matches them); no host borrow of them is alive.
        unsafe { launch(&g.stream, &one, &e, ()) }.unwrap();
    }
    let n = anycuda_test::alloc::thread_allocations() - before;
    g.stream.synchronize().unwrap();
    assert_eq!(n, 0, "heap allocations in 2000 launches");
}

#[gpu_test]
fn graph_capture_and_replay() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let n = 4096usize;
    let x = Buffer::from_slice(&g.stream, &vec![1.0f32; n]).unwrap();
    let mut y = Buffer::from_slice(&g.stream, &vec![0.0f32; n]).unwrap();
    g.stream.synchronize().unwrap();
    g.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
    assert!(g.stream.is_capturing().unwrap());
    let cfg = LaunchConfig::for_num_elems(n as u32, 256);
    // SAFETY: saxpy touches x[i], y[i] for i < n only; x, y, k and its module outlive
    // the graph and its executable (dropped first, at the end of this test).
    unsafe { launch(&g.stream, &cfg, &k, (2.0f32, &x, &mut y, n as u32)) }.unwrap();
    // SAFETY: as above.
    unsafe { launch(&g.stream, &cfg, &k, (0.5f32, &x, &mut y, n as u32)) }.unwrap();
    let graph = g.stream.end_capture().unwrap();
    assert!(!g.stream.is_capturing().unwrap());
    assert_eq!(graph.node_count().unwrap(), 2);
    // Nothing ran during the capture.
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 0.0));
    let exec = graph.instantiate().unwrap();
    match exec.upload(&g.stream) {
        // Only HIP may lack cuGraphUpload (HIP 5.x on its NVIDIA platform); CUDA has it.
        Err(e)
            if e.is_not_supported() && anycuda::backend().unwrap().kind() == BackendKind::Hip =>
        {
            println!("upload not supported on this HIP: {e}")
        }
        r => r.unwrap(),
    }
    for _ in 0..3 {
        exec.launch(&g.stream).unwrap();
    }
    g.stream.synchronize().unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 7.5));
    // Ending a capture that never began is an error.
    assert!(g.stream.end_capture().is_err());
    assert!(g
        .ctx
        .default_stream()
        .begin_capture(CaptureMode::Global)
        .is_err());
}

#[gpu_test]
fn graph_builder_nodes() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let n = 1000usize;
    let mut x = Buffer::<f32>::zeroed(&g.stream, n).unwrap();
    let mut y = Buffer::<f32>::zeroed(&g.stream, n).unwrap();
    let mut z = Buffer::<f32>::zeroed(&g.stream, n).unwrap();
    g.stream.synchronize().unwrap();
    let mut b = GraphBuilder::new(&g.ctx).unwrap();
    let set_x = match b.memset(&[], &mut x, 1.5f32) {
        Ok(node) => node,
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!(
                "memset nodes are not supported on this backend: {e}"
            ));
        }
        Err(e) => panic!("{e}"),
    };
    let set_y = b.memset(&[], &mut y, 1.0f32).unwrap();
    let cfg = LaunchConfig::for_num_elems(n as u32, 128);
    // SAFETY: saxpy touches x[i], y[i] for i < n only (both lengths); the graph keeps x, y and
    // k alive; no host borrow of them is taken while the executable runs.
    let run = match unsafe { b.kernel(&[set_x, set_y], &cfg, &k, (2.0f32, &x, &mut y, n as u32)) } {
        Ok(node) => node,
        // HIP's kernel-node descriptor differs from CUDA's: the HIP backend answers
        // not-supported, which must come through as such.
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!(
                "kernel nodes are not supported on this backend: {e}"
            ));
        }
        Err(e) => panic!("{e}"),
    };
    let copy = b.memcpy(&[run], &mut z, &y).unwrap();
    let join = b.empty(&[]).unwrap();
    b.depend(copy, join).unwrap();
    // A wrong argument list is refused when the node is added, where parameter info exists.
    if k.num_arguments().is_some() {
        // SAFETY: refused by the argument-count check (parameter info exists here).
        assert!(unsafe { b.kernel(&[], &cfg, &k, (2.0f32, &x)) }.is_err());
    }
    let mut wide = Buffer::<u64>::zeroed(&g.stream, 4).unwrap();
    let bad = b.memset(&[], &mut wide, 1u64).unwrap_err();
    assert!(is_usage(&bad), "{bad}");
    let graph = b.build();
    assert_eq!(graph.node_count().unwrap(), 5);
    let exec = graph.instantiate().unwrap();
    exec.launch(&g.stream).unwrap();
    g.stream.synchronize().unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&v| v == 4.0), "2 * 1.5 + 1");
}

#[gpu_test]
fn linker_joins_relocatable_ptx() {
    let g = gpu();
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
    let mut linker = match Linker::new(&g.ctx, &LinkerOptions::default()) {
        Ok(l) => l,
        Err(e) if e.is_not_supported() && !on_cuda() => {
            anycuda_test::not_applicable(&format!("no linker on this backend: {e}"));
        }
        Err(e) => panic!("{e}"),
    };
    linker.add(&lib, "lib.ptx").unwrap();
    linker.add(&main, "main.ptx").unwrap();
    let linked = linker.link().unwrap();
    assert_eq!(linked.code_type(), common::linked_code_type());
    let k = linked.load(&g.ctx).unwrap().kernel("apply").unwrap();
    let mut x = Buffer::from_slice(&g.stream, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    unsafe { launch(&g.stream, &LaunchConfig::new(1u32, 4u32), &k, (&mut x,)) }.unwrap();
    g.stream.synchronize().unwrap();
    assert_eq!(x.to_vec().unwrap(), [2.0, 4.0, 6.0, 8.0]);
    // An unresolved symbol is an error with the linker's log.
    let mut l = Linker::new(&g.ctx, &LinkerOptions::default()).unwrap();
    l.add(&main, "main.ptx").unwrap();
    let e = l.link().unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
}

#[gpu_test]
fn cooperative_and_cluster_launches() {
    let g = gpu();
    let k = kernel(&g, "saxpy");
    let n = 2048usize;
    let x = Buffer::from_slice(&g.stream, &vec![1.0f32; n]).unwrap();
    let mut y = Buffer::<f32>::zeroed(&g.stream, n).unwrap();
    let cuda = anycuda::backend().unwrap().kind() == anycuda::BackendKind::Cuda;
    let (major, _) = g.ctx.device().compute_capability().unwrap();

    // Cooperative: every block resident at once (8 blocks of 256 fit on any GPU).
    let coop = LaunchConfig::new(8u32, 256u32).cooperative(true);
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    match unsafe { launch(&g.stream, &coop, &k, (1.0f32, &x, &mut y, n as u32)) } {
        Ok(()) => {
            g.stream.synchronize().unwrap();
            assert!(y.to_vec().unwrap().iter().all(|&v| v == 1.0));
        }
        Err(e) => {
            assert!(!cuda && e.is_not_supported(), "cooperative launch: {e}");
            eprintln!("cooperative launch not supported here: {e}");
        }
    }

    // Four clusters of two blocks (sm_90+), through cuLaunchKernelEx: with a cluster the grid
    // counts clusters, as in cuda.core, so this is the 8 blocks of 256 threads above.
    let cl = LaunchConfig::new(4u32, 256u32).cluster(2u32);
    assert_eq!(cl.blocks(), Some(anycuda::core::Dim3::new(8, 1, 1)));
    // SAFETY: the kernel touches only its buffer arguments, within the length it is
    // given (which matches them); no host borrow of them is alive.
    match unsafe { launch(&g.stream, &cl, &k, (1.0f32, &x, &mut y, n as u32)) } {
        Ok(()) => {
            g.stream.synchronize().unwrap();
            assert!(y.to_vec().unwrap().iter().all(|&v| v == 2.0));
        }
        Err(e) => {
            assert!(!(cuda && major >= 9), "cluster launch on sm_{major}x: {e}");
            eprintln!("cluster launch refused here: {e}");
        }
    }
    // An empty cluster, and clusters whose blocks overflow u32, are refused before the driver.
    for bad in [
        LaunchConfig::new(3u32, 32u32).cluster((2u32, 0u32, 1u32)),
        LaunchConfig::new(u32::MAX, 32u32).cluster(2u32),
    ] {
        // SAFETY: the limit checks refuse this configuration before anything runs;
        // nothing is touched.
        let e = unsafe { launch(&g.stream, &bad, &k, (1.0f32, &x, &mut y, n as u32)) }.unwrap_err();
        assert!(is_usage(&e), "{e}");
    }
}

/// A context created outside core (`cuCtxCreate`) and borrowed with
/// `Context::from_raw_borrowed`: code loads and kernels launch in it, the primary-context
/// registry is untouched, and dropping the borrowed `Context` leaves the context for its owner
/// to destroy (the cudarc facade's `new_non_primary` path).
#[gpu_test]
fn borrowed_non_primary_context() {
    use anycuda::driver::{cuCtxCreate, cuCtxDestroy, CUcontext, CUresult};
    let g = gpu();
    let dev = g.ctx.device();
    let mut raw: CUcontext = std::ptr::null_mut();
    // SAFETY: valid out-pointer; null creation parameters are the plain create; the device
    // handle came from cuDeviceGet.
    let r = unsafe { cuCtxCreate(&mut raw, std::ptr::null_mut(), 0, dev.as_raw()) };
    if r != CUresult::CUDA_SUCCESS && !on_cuda() {
        anycuda_test::not_applicable(&format!(
            "cuCtxCreate on this backend: {}",
            anycuda::DriverError(r)
        ));
    }
    assert_eq!(r, CUresult::CUDA_SUCCESS, "cuCtxCreate");
    {
        // SAFETY: `raw` is a live context of `dev`, destroyed below only after this scope has
        // dropped the borrowed Context and everything made from it.
        let ctx = unsafe { Context::from_raw_borrowed(raw, dev) };
        assert_eq!(ctx.as_raw(), raw);
        assert_ne!(ctx, g.ctx);
        assert_eq!(
            dev.context().unwrap(),
            g.ctx,
            "the registry still gives the primary"
        );
        let stream = ctx
            .create_stream(StreamOptions::default().non_blocking(true))
            .unwrap();
        // Its own ObjectCode (whose module cache is dropped in this scope), not `g.code`'s,
        // which outlives the context.
        let code = ObjectCode::from_ptx(g.code.code().to_vec()).unwrap();
        let module = code.load(&ctx).unwrap();
        drop(code);
        assert_eq!(module.context().as_raw(), raw);
        let k = module.kernel("saxpy").unwrap();
        // Another reference is alive (`module`): unloading a clone only drops it.
        module.clone().unload().unwrap();
        let n = 1000usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let dx = Buffer::from_slice(&stream, &x).unwrap();
        let mut dy = Buffer::from_slice(&stream, &x).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32, 128);
        // SAFETY: the kernel touches only its buffer arguments, within the length it is
        // given (which matches them); no host borrow of them is alive.
        unsafe { launch(&stream, &cfg, &k, (2.0f32, &dx, &mut dy, n as u32)) }.unwrap();
        stream.synchronize().unwrap();
        let out = dy.to_vec().unwrap();
        for i in 0..n {
            assert_eq!(out[i], 3.0 * x[i], "element {i}");
        }
        drop(k);
        // The last reference: unloaded now, with the driver's answer returned.
        module.unload().unwrap();
    }
    // SAFETY: every object made from `raw` was dropped with the scope above; the borrowed
    // Context destroyed nothing, so `raw` is still live and ours to destroy, once.
    let r = unsafe { cuCtxDestroy(raw) };
    assert_eq!(r, CUresult::CUDA_SUCCESS, "cuCtxDestroy after the borrow");
    // The primary context still works after the borrowed one is gone.
    g.ctx.bind().unwrap();
    g.stream.synchronize().unwrap();
}
