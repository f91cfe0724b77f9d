//! The PTX translator (`anycuda_rtc::ptx`, issue 26's first slice) on real compilers: NVRTC 13.5
//! writes PTX for compute_80 and compute_90 from the kernel corpus (tests/kernels) and the
//! translator's own kernels (tests/kernels/ptx), the translator turns it into HIP C++, and
//! hipRTC compiles that for AMD arches; the code object must hold every entry and its `.kd`.
//! ci/rocm/test-all.sh runs it again on hipRTC 5.7.1 and 6.4.3 (gfx90a, gfx942 and gfx1100).
//! On a GPU, a translated kernel runs and is compared with the same PTX loaded natively.
//!
//! Every test needs both compilers (NVRTC writes the PTX, hipRTC compiles the translation), so
//! the file is empty in a build with one backend.

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::{Backend, BackendKind};
use anycuda_rtc::ptx::{translate, translate_all, PtxError};
use common::{code, compiler, corpus, elf_machine, elf_symbols, repo_root, EM_AMDGPU};

/// The translator's own kernels: one per area of the translated instruction set.
fn own_kernels() -> String {
    std::fs::read_to_string(repo_root().join("tests/kernels/ptx/instructions.cu")).unwrap()
}

/// Corpus kernels that must translate (warp shuffles, votes, cooperative groups' tiles and
/// half precision included); any other must fail with `Unsupported`, never a syntax error.
const CORPUS_TRANSLATED: &[&str] = &[
    "atomics.cu",
    "bf16_math.cu",
    "cg_tiled_reduce.cu",
    "half_math.cu",
    "histogram_shared.cu",
    "int_types.cu",
    "reduce_shared.cu",
    "reduce_warp_shuffle.cu",
    "saxpy.cu",
    "scan_inclusive.cu",
    "softmax_fast_math.cu",
    "stencil_constant.cu",
    "templates.cu",
    "transpose_tiled.cu",
];

/// PTX from NVRTC for `arch` (`compute_80`, ...).
fn ptx_of(nv: Backend, src: &str, name: &str, options: &[String], arch: &str) -> String {
    let mut p = Program::with_backend(nv, src, ProgramOptions::new().name(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut opts: Vec<String> = options.to_vec();
    opts.push(format!("--gpu-architecture={arch}"));
    p.compile_with_args(&opts)
        .unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
    String::from_utf8(code(&p, CodeType::Ptx)).unwrap()
}

/// Compiles a translation with hipRTC for `arch`; checks every entry and its descriptor.
fn hip_compile(hip: Backend, what: &str, source: &str, entries: &[String], arch: &str) {
    let mut p = Program::with_backend(hip, source, ProgramOptions::new().name("translated.cpp"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Err(e) = p.compile_with_args(&[format!("--gpu-architecture={arch}")]) {
        panic!("{what} for {arch}: hipRTC refused the translation: {e}");
    }
    let image = code(&p, CodeType::Cubin);
    assert_eq!(elf_machine(&image), Some(EM_AMDGPU), "{what} for {arch}");
    let syms = elf_symbols(&image);
    for e in entries {
        assert!(syms.contains(e), "{what} for {arch}: no {e}");
        assert!(
            syms.contains(&format!("{e}.kd")),
            "{what} for {arch}: no {e}.kd"
        );
    }
}

#[test]
fn corpus_ptx_translates_and_compiles_with_hiprtc() {
    let Some(nv) = compiler(BackendKind::Cuda) else {
        return;
    };
    let Some(hip) = compiler(BackendKind::Hip) else {
        return;
    };
    let arches = common::amd_arches(hip);
    let mut sources: Vec<(String, String, Vec<String>)> =
        vec![("ptx/instructions.cu".into(), own_kernels(), Vec::new())];
    for k in corpus("tests/kernels") {
        let name = k.path.file_name().unwrap().to_string_lossy().into_owned();
        sources.push((name, k.source, k.options));
    }
    let mut translated = Vec::new();
    for (name, src, options) in &sources {
        for arch in ["compute_80", "compute_90"] {
            let ptx = ptx_of(nv, src, name, options, arch);
            match translate(&ptx) {
                Ok(t) => {
                    assert_eq!(t.entries, common::ptx_entries(&ptx), "{name}");
                    translated.push((name.clone(), arch, t));
                }
                Err(e @ PtxError::Unsupported { .. }) => {
                    assert!(
                        !CORPUS_TRANSLATED.contains(&name.as_str())
                            && name != "ptx/instructions.cu",
                        "{name} ({arch}) must translate: {e}"
                    );
                    eprintln!("{name} ({arch}): refused, as expected in this slice: {e}");
                }
                Err(e) => panic!("{name} ({arch}): {e}"),
            }
        }
    }
    for must in CORPUS_TRANSLATED {
        assert!(
            translated.iter().any(|(n, ..)| n == must),
            "{must} was not translated"
        );
    }
    for (name, arch, t) in &translated {
        // Both AMD arches for compute_90's PTX; gfx90a for compute_80's (hipRTC is slow).
        for amd in arches
            .iter()
            .filter(|a| *arch == "compute_90" || **a == "gfx90a")
        {
            hip_compile(hip, &format!("{name} ({arch})"), &t.source, &t.entries, amd);
        }
    }
}

#[test]
fn translation_also_compiles_with_nvrtc() {
    // HIP's NVIDIA platform compiles the same C++ with NVRTC: the support header must hold there.
    let Some(nv) = compiler(BackendKind::Cuda) else {
        return;
    };
    let ptx = ptx_of(nv, &own_kernels(), "instructions.cu", &[], "compute_90");
    let t = translate(&ptx).unwrap();
    let mut p =
        Program::with_backend(nv, &t.source, ProgramOptions::new().name("translated.cu")).unwrap();
    p.compile_with_args(&["--gpu-architecture=compute_90"])
        .unwrap_or_else(|e| panic!("NVRTC refused the translation: {e}"));
    let again = String::from_utf8(code(&p, CodeType::Ptx)).unwrap();
    for e in &t.entries {
        assert!(common::ptx_entries(&again).contains(e), "{e}");
    }
}

/// Two modules NVRTC compiles separately (`-rdc=true`), as `cuLink*` would link them: a
/// function and a variable each module defines for the other, and a `static` function of the
/// same name in both.
const LINK_A: &str = r#"
extern __device__ int helper(int x);
static __device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ int counter;
extern "C" __global__ void ka(int* o) { int t = threadIdx.x; o[t] = twice(helper(t)); atomicAdd(&counter, 1); }
"#;
const LINK_B: &str = r#"
extern __device__ int counter;
static __device__ __noinline__ int twice(int x) { return x + 2; }
__device__ int helper(int x) { return twice(x) * 3 + counter; }
extern "C" __global__ void kb(int* o) { o[threadIdx.x] = helper(o[threadIdx.x]); }
"#;

#[test]
fn linked_modules_translate_and_compile() {
    let Some(nv) = compiler(BackendKind::Cuda) else {
        return;
    };
    let Some(hip) = compiler(BackendKind::Hip) else {
        return;
    };
    let rdc = ["-rdc=true".to_owned()];
    let a = ptx_of(nv, LINK_A, "a.cu", &rdc, "compute_90");
    let b = ptx_of(nv, LINK_B, "b.cu", &rdc, "compute_90");
    assert!(a.contains(".extern .func") && b.contains(".extern .global"));
    // NVRTC gives each module's `static` functions names of their own; another compiler may
    // not: B's `twice` takes A's name, which must stay apart.
    let internal = |ptx: &str| -> String {
        let line = ptx.lines().find(|l| l.starts_with(".func")).unwrap();
        let name = line
            .split_whitespace()
            .find(|w| w.contains("twice"))
            .unwrap();
        name.trim_end_matches('(').to_owned()
    };
    let b = b.replace(&internal(&b), &internal(&a));
    let t = translate_all(&[&a, &b]).unwrap_or_else(|(k, e)| panic!("module {k}: {e}"));
    assert_eq!(t.entries, ["ka", "kb"]);
    assert!(t.source.contains("ptx_m0_") && t.source.contains("ptx_m1_"));
    for arch in common::amd_arches(hip) {
        hip_compile(hip, "linked modules", &t.source, &t.entries, arch);
    }
    let mut p =
        Program::with_backend(nv, &t.source, ProgramOptions::new().name("linked.cu")).unwrap();
    p.compile_with_args(&["--gpu-architecture=compute_90"])
        .unwrap_or_else(|e| panic!("NVRTC refused the linked translation: {e}"));
    // Either module alone names what only the other defines.
    assert!(matches!(translate(&a), Err(PtxError::Unsupported { .. })));
    assert!(matches!(translate(&b), Err(PtxError::Unsupported { .. })));
}

#[test]
fn unsupported_instructions_are_named_with_their_line() {
    let ptx = |inst: &str| {
        format!(
            ".version 8.5\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\tmov.u32 %r1, %tid.x;\n\t{inst}\n\tret;\n}}\n"
        )
    };
    for (inst, name) in [
        ("shfl.sync.bfly.b16 %r2, %r1, 16, 31, -1;", "shfl.sync.bfly.b16"),
        ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%r1, %r2}, %rd1, %rd2, 1, 1, 1, 0, 0;", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"),
        ("redux.sync.add.f32 %r2, %r1, -1;", "redux.sync.add.f32"),
        ("tcgen05.fence::before_thread_sync;", "tcgen05.fence::before_thread_sync"),
    ] {
        let err = translate(&ptx(inst)).unwrap_err();
        match &err {
            PtxError::Unsupported { instruction, line, .. } => {
                assert_eq!(instruction, name);
                assert_eq!(*line, 12, "{inst}");
            }
            other => panic!("{inst}: {other}"),
        }
        let msg = err.to_string();
        assert!(msg.contains(name) && msg.contains("line 12"), "{msg}");
    }
}

/// xorshift32: the GPU test's inputs, the same on every run.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// An f32: often an edge (NaN, +-0, denormal, FLT_MAX, infinity, 1), else random bits.
    fn f32(&mut self) -> f32 {
        const EDGE: [u32; 12] = [
            0,
            0x8000_0000,
            1,
            0x807f_ffff,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x3f80_0000,
            0xbf80_0001,
            0x4b00_0001,
            0x3380_0000,
        ];
        let r = self.next();
        match r % 4 {
            0 => f32::from_bits(EDGE[(r >> 8) as usize % EDGE.len()]),
            1 => f32::from_bits((r >> 2) & 0x807f_ffff | 0x3f00_0000),
            _ => f32::from_bits(self.next()),
        }
    }
}

/// On a GPU: the translator's kernels, translated and compiled by the active backend's
/// compiler (hipRTC on AMD, NVRTC on HIP's NVIDIA platform and on CUDA), give the same bits as
/// the same PTX loaded natively, where the backend loads PTX (the CUDA backend; HIP's NVIDIA
/// platform outside AMD-faithful mode); where it does not, the plain columns are checked
/// against the host. The PTX is compiled with `--fmad=false`, so `ptxas` fuses nothing and the
/// comparison is exact; the `.approx` column (`o[15]` of `float_round`) and the order-dependent
/// atomics (`atomicExch`, `atomicCAS`) are left out.
#[anycuda_test::gpu_test]
fn translated_kernels_match_native_ptx() {
    use anycuda::core::{launch, Buffer, Device, LaunchConfig, ObjectCode, StreamOptions};
    let nv = compiler(BackendKind::Cuda).expect("NVRTC writes the PTX");
    let ptx = ptx_of(
        nv,
        &own_kernels(),
        "instructions.cu",
        &["--fmad=false".into()],
        "compute_80",
    );
    let t = translate(&ptx).unwrap();
    let dev = Device::new(0).expect("device 0");
    let ctx = dev.set_current().expect("set_current");
    let stream = ctx.create_stream(StreamOptions::default()).unwrap();
    let mut prog = Program::new(&t.source, ProgramOptions::new().name("translated.cpp")).unwrap();
    let translated = prog
        .compile(CodeType::Ptx)
        .unwrap_or_else(|e| panic!("compile: {e}"));
    let native = ObjectCode::from_bytes(ptx.as_bytes().to_vec(), CodeType::Ptx)
        .ok()
        .and_then(|c| c.kernel("int_math").ok().map(|_| c));
    let n = 2048usize;
    let mut rng = Rng(0x2545_f491);
    let mut a: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    let mut b: Vec<i32> = (0..n).map(|_| rng.next() as i32).collect();
    a[..8].copy_from_slice(&[0, -1, i32::MIN, i32::MAX, 1, -7, 31, 32]);
    b[..8].copy_from_slice(&[0, -1, -1, i32::MIN, 0, 3, 33, -32]);
    let fa: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let fb: Vec<f32> = (0..n).map(|_| rng.f32()).collect();
    let da: Vec<f64> = (0..n)
        .map(|i| f64::from(fa[i]) * 1.000_000_1 + f64::from(rng.next()))
        .collect();
    let db: Vec<f64> = (0..n).map(|i| f64::from(fb[i]) / 3.0).collect();
    // Every lane's input differs (and a few repeat, for match).
    let warp_in: Vec<u32> = (0..WARP_THREADS)
        .map(|i| match i % 11 {
            3 => 0x1234_5678,
            7 => 0,
            _ => rng.next(),
        })
        .collect();
    let (mma_in, mma_din) = mma_inputs(&mut rng);
    let cfg = LaunchConfig::for_num_elems(n as u32, 128);
    let up = |v: &[i32]| Buffer::from_slice(&stream, v).unwrap();
    // Every output of every kernel, as bit patterns.
    let run = |code: &ObjectCode| -> Vec<(&'static str, Vec<u64>)> {
        let mut out = Vec::new();
        let (dai, dbi) = (up(&a), up(&b));
        let mut o = Buffer::<i32>::zeroed(&stream, n * 10).unwrap();
        let mut u = Buffer::<u32>::zeroed(&stream, n).unwrap();
        let mut l = Buffer::<i64>::zeroed(&stream, n * 3).unwrap();
        let k = code.kernel("int_math").unwrap();
        // SAFETY: int_math reads a[0..n], b[0..n], writes out[0..10n], uout[0..n], lout[0..3n].
        unsafe {
            launch(
                &stream,
                &cfg,
                &k,
                (&dai, &dbi, &mut o, &mut u, &mut l, n as i32),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push((
            "int_math out",
            o.to_vec()
                .unwrap()
                .iter()
                .map(|v| *v as u32 as u64)
                .collect(),
        ));
        out.push((
            "int_math uout",
            u.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
        ));
        out.push((
            "int_math lout",
            l.to_vec().unwrap().iter().map(|v| *v as u64).collect(),
        ));
        let (dfa, dfb) = (
            Buffer::from_slice(&stream, &fa).unwrap(),
            Buffer::from_slice(&stream, &fb).unwrap(),
        );
        let (dda, ddb) = (
            Buffer::from_slice(&stream, &da).unwrap(),
            Buffer::from_slice(&stream, &db).unwrap(),
        );
        let mut fo = Buffer::<f32>::zeroed(&stream, n * 16).unwrap();
        let mut dout = Buffer::<f64>::zeroed(&stream, n * 10).unwrap();
        let mut io = Buffer::<i32>::zeroed(&stream, n * 6).unwrap();
        let k = code.kernel("float_round").unwrap();
        // SAFETY: float_round reads a, b, da, db [0..n], writes out[0..16n], dout[0..10n], iout[0..6n].
        unsafe {
            launch(
                &stream,
                &cfg,
                &k,
                (
                    &dfa, &dfb, &mut fo, &dda, &ddb, &mut dout, &mut io, n as i32,
                ),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        let fo: Vec<u64> = fo
            .to_vec()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 16 != 15)
            .map(|(_, v)| u64::from(v.to_bits()))
            .collect();
        out.push(("float_round out", fo));
        out.push((
            "float_round dout",
            dout.to_vec().unwrap().iter().map(|v| v.to_bits()).collect(),
        ));
        out.push((
            "float_round iout",
            io.to_vec()
                .unwrap()
                .iter()
                .map(|v| *v as u32 as u64)
                .collect(),
        ));
        let mut po = Buffer::<i32>::zeroed(&stream, n).unwrap();
        let k = code.kernel("predicates").unwrap();
        // SAFETY: predicates reads a, b, c [0..n], writes out[0..n].
        unsafe { launch(&stream, &cfg, &k, (&dfa, &dfb, &dai, &mut po, n as i32)) }.unwrap();
        stream.synchronize().unwrap();
        out.push((
            "predicates",
            po.to_vec()
                .unwrap()
                .iter()
                .map(|v| *v as u32 as u64)
                .collect(),
        ));
        let blocks = n / 256;
        let mut ro = Buffer::<f32>::zeroed(&stream, blocks).unwrap();
        let k = code.kernel("shared_reduce").unwrap();
        // SAFETY: shared_reduce reads in[0..blocks*256], writes out[0..blocks].
        unsafe {
            launch(
                &stream,
                &LaunchConfig::new(blocks as u32, 256u32),
                &k,
                (&dfa, &mut ro),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push((
            "shared_reduce",
            ro.to_vec()
                .unwrap()
                .iter()
                .map(|v| u64::from(v.to_bits()))
                .collect(),
        ));
        let mut ci = Buffer::from_slice(&stream, &[0i32, i32::MAX, i32::MIN]).unwrap();
        let mut cu = Buffer::from_slice(
            &stream,
            &[0u32, 0, u32::MAX, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        )
        .unwrap();
        let mut cl = Buffer::<u64>::zeroed(&stream, 2).unwrap();
        let mut cf = Buffer::<f32>::zeroed(&stream, 1).unwrap();
        let k = code.kernel("atomics").unwrap();
        // SAFETY: atomics updates ci[0..3], cu[0..16], cl[0..2], cf[0..1] and reads in[0..n].
        unsafe {
            launch(
                &stream,
                &cfg,
                &k,
                (&mut ci, &mut cu, &mut cl, &mut cf, &dai, n as i32),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push((
            "atomics ci",
            ci.to_vec()
                .unwrap()
                .iter()
                .map(|v| *v as u32 as u64)
                .collect(),
        ));
        let cu: Vec<u64> = cu
            .to_vec()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 5 && *i != 6)
            .map(|(_, v)| u64::from(*v))
            .collect();
        out.push(("atomics cu", cu));
        out.push(("atomics cl", cl.to_vec().unwrap()));
        out.push((
            "atomics cf",
            cf.to_vec()
                .unwrap()
                .iter()
                .map(|v| u64::from(v.to_bits()))
                .collect(),
        ));
        let mut so = Buffer::<u32>::zeroed(&stream, 2 * 3 * 64 * 2).unwrap();
        let mut sf = Buffer::<f32>::zeroed(&stream, 64 * 2).unwrap();
        let k = code.kernel("specials").unwrap();
        // SAFETY: specials writes out[0..blocks*threads] (6 blocks of 128) and fout[0..128].
        unsafe {
            launch(
                &stream,
                &LaunchConfig::new((2u32, 3u32, 1u32), (32u32, 2u32, 2u32)),
                &k,
                (&mut so, &mut sf),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push((
            "specials",
            so.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
        ));
        out.push((
            "specials fout",
            sf.to_vec()
                .unwrap()
                .iter()
                .map(|v| u64::from(v.to_bits()))
                .collect(),
        ));
        // Half precision: bits in, bits out (NaN, infinities, subnormals among the inputs).
        let mut ho = Buffer::<u32>::zeroed(&stream, n * 24).unwrap();
        let k = code.kernel("half_ops").unwrap();
        // SAFETY: half_ops reads in[0..n] and fin[0..n], writes out[0..24n].
        unsafe { launch(&stream, &cfg, &k, (&dai, &dfa, &mut ho, n as i32)) }.unwrap();
        stream.synchronize().unwrap();
        out.push((
            "half_ops",
            ho.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
        ));
        // Carry chains, copysign, rsqrt.approx.f64 (its top 44 bits), bar.red.
        let mut mo = Buffer::<u32>::zeroed(&stream, n * 12).unwrap();
        let k = code.kernel("misc_ops").unwrap();
        // SAFETY: misc_ops reads in[0..n] and din[0..n], writes out[0..12n]; every thread of
        // each block reaches its bar.red (n is a multiple of the block size).
        unsafe { launch(&stream, &cfg, &k, (&dai, &dda, &mut mo, n as i32)) }.unwrap();
        stream.synchronize().unwrap();
        out.push((
            "misc_ops",
            mo.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
        ));
        // The warp kernels, in blocks of 64 and of 96 threads (two warps per wave64, and a
        // wave64 holding one warp in its lower half).
        let dw = Buffer::from_slice(&stream, &warp_in).unwrap();
        for (kernel, name, cols, threads) in WARP_RUNS {
            let mut wo = Buffer::<u32>::zeroed(&stream, WARP_THREADS * cols).unwrap();
            let k = code.kernel(kernel).unwrap();
            let blocks = (WARP_THREADS as u32) / threads;
            // SAFETY: each warp kernel reads in[0..blocks*threads] and writes
            // out[0..blocks*threads*cols], cols being its column count.
            unsafe {
                launch(
                    &stream,
                    &LaunchConfig::new(blocks, threads),
                    &k,
                    (&dw, &mut wo),
                )
            }
            .unwrap();
            stream.synchronize().unwrap();
            out.push((
                name,
                wo.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
            ));
        }
        // The matrix kernels (cp.async, ldmatrix, mma.sync), in blocks of 64 and 96 threads.
        let (dmi, dmd) = (
            Buffer::from_slice(&stream, &mma_in).unwrap(),
            Buffer::from_slice(&stream, &mma_din).unwrap(),
        );
        for (threads, load_name, int_name, float_name) in MATRIX_RUNS {
            let blocks = (WARP_THREADS as u32) / threads;
            let mut lo = Buffer::<u32>::zeroed(&stream, WARP_THREADS * MATRIX_COLS).unwrap();
            let k = code.kernel("matrix_load").unwrap();
            // SAFETY: matrix_load reads in[0..4 * blocks * threads] (the warp's 512 bytes each)
            // and writes out[0..blocks * threads * MATRIX_COLS]; blocks are whole warps.
            unsafe {
                launch(
                    &stream,
                    &LaunchConfig::new(blocks, threads),
                    &k,
                    (&dmi, &mut lo),
                )
            }
            .unwrap();
            let mut mo = Buffer::<u32>::zeroed(&stream, WARP_THREADS * MMA_COLS).unwrap();
            let k = code.kernel("mma_ops").unwrap();
            // SAFETY: mma_ops reads in[0..MMA_IN * blocks * threads] and din[0..4 * blocks *
            // threads], writes out[0..MMA_COLS * blocks * threads]; every warp is whole.
            unsafe {
                launch(
                    &stream,
                    &LaunchConfig::new(blocks, threads),
                    &k,
                    (&dmi, &dmd, &mut mo),
                )
            }
            .unwrap();
            stream.synchronize().unwrap();
            out.push((
                load_name,
                lo.to_vec().unwrap().iter().map(|v| u64::from(*v)).collect(),
            ));
            let mo = mo.to_vec().unwrap();
            let (ints, floats): (Vec<_>, Vec<_>) = mo
                .iter()
                .enumerate()
                .partition(|(i, _)| (MMA_INT_COLS).contains(&(i % MMA_COLS)));
            out.push((int_name, ints.iter().map(|(_, v)| u64::from(**v)).collect()));
            out.push((
                float_name,
                floats.iter().map(|(_, v)| u64::from(**v)).collect(),
            ));
        }
        out
    };
    let got = run(&translated);
    // The host's reference for the columns whose C semantics are plain.
    let o = &got[0].1;
    let u = &got[1].1;
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let col = |k: usize| o[i * 10 + k] as u32 as i32;
        assert_eq!(col(0), x.wrapping_div(y | 1), "div, element {i}");
        assert_eq!(col(1), x.wrapping_rem(y | 1), "rem, element {i}");
        assert_eq!(
            col(2),
            ((i64::from(x) * i64::from(y)) >> 32) as i32,
            "mulhi, element {i}"
        );
        assert_eq!(col(3), x.min(y) ^ x.max(y), "min/max, element {i}");
        assert_eq!(
            col(5),
            x.wrapping_mul(3).wrapping_sub(y >> 2),
            "call, element {i}"
        );
        let (ux, uy) = (x as u32, y as u32);
        let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
        let want = (((u64::from(ux) * u64::from(uy)) >> 32) as u32)
            .wrapping_add(ux / (uy | 1))
            .wrapping_add(ffs);
        assert_eq!(u[i], u64::from(want), "uout, element {i}");
    }
    let sum: i64 = a.iter().map(|v| i64::from(*v)).sum();
    assert_eq!(got[8].1[0] as u32 as i32, sum as i32, "atomicAdd");
    check_warps_on_host(&got, &warp_in);
    check_matrices_on_host(&got, &mma_in, &mma_din);
    match native {
        Some(native) => {
            let want = run(&native);
            // Every buffer compared before failing, so one run shows every difference.
            let mut failures = Vec::new();
            for (threads, _, _, float_name) in MATRIX_RUNS {
                let find = |v: &[(&'static str, Vec<u64>)]| {
                    v.iter().find(|(n, _)| *n == float_name).unwrap().1.clone()
                };
                failures.extend(mma_floats_within_bound(
                    threads,
                    &find(&want),
                    &mma_in,
                    &mma_din,
                ));
            }
            for ((name, g), (_, w)) in got
                .iter()
                .zip(&want)
                .filter(|((name, _), _)| !name.starts_with("mma_ops float"))
            {
                let diff: Vec<String> = g
                    .iter()
                    .zip(w)
                    .enumerate()
                    .filter(|(_, (x, y))| x != y)
                    .take(8)
                    .map(|(i, (x, y))| format!("[{i}] {x:#x} != {y:#x}"))
                    .collect();
                if !diff.is_empty() {
                    failures.push(format!(
                        "{name}: translated differs from native PTX: {}",
                        diff.join(", ")
                    ));
                }
            }
            assert!(failures.is_empty(), "{}", failures.join("\n"));
        }
        None => eprintln!(
            "the {} backend does not load PTX here: compared with the host only",
            anycuda::backend().unwrap().kind()
        ),
    }
}

/// Threads the warp kernels run (6 blocks of 64, 4 blocks of 96).
const WARP_THREADS: usize = 384;

/// The warp kernels: kernel, name of its output, columns per thread, threads per block.
const WARP_RUNS: [(&str, &str, usize, u32); 6] = [
    ("warp_shuffle", "warp_shuffle, blocks of 64", 26, 64),
    ("warp_shuffle", "warp_shuffle, blocks of 96", 26, 96),
    ("warp_vote", "warp_vote, blocks of 64", 14, 64),
    ("warp_vote", "warp_vote, blocks of 96", 14, 96),
    ("warp_match_redux", "warp_match_redux, blocks of 64", 14, 64),
    ("warp_match_redux", "warp_match_redux, blocks of 96", 14, 96),
];

/// `shfl.sync` as the PTX ISA defines it, on the host: the value and the predicate for the
/// thread at `lane` of the warp whose inputs are `warp`.
fn shfl_model(warp: &[u32], lane: u32, mode: u32, b: u32, c: u32) -> (u32, bool) {
    let (lane, bval, cval, seg) = (
        lane as i32,
        (b & 31) as i32,
        (c & 31) as i32,
        ((c >> 8) & 31) as i32,
    );
    let maxl = (lane & seg) | (cval & !seg);
    let minl = lane & seg;
    let (j, ok) = match mode {
        0 => (lane - bval, lane - bval >= maxl),
        1 => (lane + bval, lane + bval <= maxl),
        2 => (lane ^ bval, (lane ^ bval) <= maxl),
        _ => (minl | (bval & !seg), (minl | (bval & !seg)) <= maxl),
    };
    let j = if ok { j } else { lane };
    (warp[j as usize], ok)
}

/// The warp kernels' plain columns against the host (the translation on any backend, AMD's
/// wave64 and wave32 included, must give CUDA's 32-lane answers).
fn check_warps_on_host(got: &[(&'static str, Vec<u64>)], input: &[u32]) {
    let find = |name: &str| &got.iter().find(|(n, _)| *n == name).unwrap().1;
    for threads in [64, 96] {
        let sh = find(&format!("warp_shuffle, blocks of {threads}"));
        let vo = find(&format!("warp_vote, blocks of {threads}"));
        let mr = find(&format!("warp_match_redux, blocks of {threads}"));
        for (i, &v) in input.iter().enumerate() {
            let lane = (i % 32) as u32;
            let warp = &input[i - lane as usize..i - lane as usize + 32];
            let mut want = Vec::new();
            for width in [32u32, 16, 8] {
                let seg = (32 - width) << 8;
                want.push(shfl_model(warp, lane, 3, v % 37, seg | 0x1f).0);
                want.push(shfl_model(warp, lane, 0, 3, seg).0);
                want.push(shfl_model(warp, lane, 1, 5, seg | 0x1f).0);
                want.push(shfl_model(warp, lane, 2, 6, seg | 0x1f).0);
            }
            want.push(shfl_model(warp, lane, 0, v & 15, 0).0);
            want.push(shfl_model(warp, lane, 1, (v >> 4) & 31, 0x101f).0);
            want.push(shfl_model(warp, lane, 2, (v >> 9) & 31, 0x1f).0);
            want.push(shfl_model(warp, lane, 3, 40 + (v & 7), 0x1f).0);
            for (mode, c) in [0x1005u32, 0x0c17, 0x181a, 0x0817].into_iter().enumerate() {
                let (r, p) = shfl_model(warp, lane, mode as u32, (v >> (3 * mode)) & 31, c);
                want.push(r);
                want.push(u32::from(p));
            }
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    sh[i * 26 + k],
                    u64::from(*w),
                    "warp_shuffle (blocks of {threads}), thread {i}, column {k}"
                );
            }
            let ballot = |f: &dyn Fn(u32) -> bool| -> u32 {
                (0..32).filter(|&l| f(warp[l])).map(|l| 1u32 << l).sum()
            };
            let lt = (1u32 << lane) - 1;
            let vote = [
                (0usize, ballot(&|x| x & 1 != 0)),
                (6, (ballot(&|x| x & 2 != 0) & lt).count_ones()),
                (7, u32::MAX),
                (10, i as u32 % threads),
                (13, ballot(&|x| x & 128 == 0)),
            ];
            for (k, w) in vote {
                assert_eq!(
                    vo[i * 14 + k],
                    u64::from(w),
                    "warp_vote (blocks of {threads}), thread {i}, column {k}"
                );
            }
            let same = ballot(&|x| x & 3 == v & 3);
            let sum = warp.iter().fold(0u32, |s, x| s.wrapping_add(*x));
            let smin = warp.iter().map(|x| *x as i32).min().unwrap() as u32;
            let umax = *warp.iter().max().unwrap();
            let xor = warp.iter().fold(0, |s, x| s ^ x);
            for (k, w) in [(0usize, same), (5, sum), (6, smin), (7, umax), (10, xor)] {
                assert_eq!(
                    mr[i * 14 + k],
                    u64::from(w),
                    "warp_match_redux (blocks of {threads}), thread {i}, column {k}"
                );
            }
        }
    }
}

/// Columns per thread of `matrix_load` (ldmatrix x4, x4.trans, x2, x2.trans, x1, x1.trans, then
/// the 8 bytes cp.async copied with its zero-fill).
const MATRIX_COLS: usize = 16;
/// Input words per thread of `mma_ops`, and its result columns.
const MMA_IN: usize = 32;
const MMA_COLS: usize = 52;
/// `mma_ops`'s integer columns (compared bit for bit with the native PTX); the others are
/// floats (compared within [`mma_floats_within_bound`]'s bound).
const MMA_INT_COLS: std::ops::Range<usize> = 28..48;

/// The matrix kernels' runs: threads per block, and the names of `matrix_load`'s output and of
/// `mma_ops`'s integer and float columns.
const MATRIX_RUNS: [(u32, &str, &str, &str); 2] = [
    (
        64,
        "matrix_load, blocks of 64",
        "mma_ops int, blocks of 64",
        "mma_ops float, blocks of 64",
    ),
    (
        96,
        "matrix_load, blocks of 96",
        "mma_ops int, blocks of 96",
        "mma_ops float, blocks of 96",
    ),
];

/// `mma_ops`'s inputs, per thread: f16 A (4 words) and B (2), f32 C (4), bf16 A (4) and B (2),
/// tf32 A (4) and B (2), 8-bit A (4) and B (2), s32 C (4, a third near the limits), and f64
/// A, B, C (4 doubles). Floats are normal with magnitudes in [2^-6, 2^6) (a sixteenth of them
/// zero), so every form's exact result `c + sum a_k b_k` is exact in f64; tf32 values have their
/// low 13 bits clear (what `cvt.rna.tf32.f32` gives).
fn mma_inputs(rng: &mut Rng) -> (Vec<u32>, Vec<f64>) {
    // A random element of `kind`'s bits (f16 and bf16 in the low 16 bits).
    let float = |rng: &mut Rng, kind: &str| -> u32 {
        let r = rng.next();
        let (s, e, m) = (r >> 31, (r >> 20) % 12, rng.next());
        let zero = r % 16 == 0;
        match kind {
            "f16" if zero => s << 15,
            "f16" => s << 15 | (e + 9) << 10 | (m & 0x3ff),
            "bf16" if zero => s << 15,
            "bf16" => s << 15 | (e + 121) << 7 | (m & 0x7f),
            _ if zero => s << 31,
            "tf32" => s << 31 | (e + 121) << 23 | (m & 0x7f_e000),
            _ => s << 31 | (e + 121) << 23 | (m & 0x7f_ffff),
        }
    };
    let mut words = Vec::with_capacity(WARP_THREADS * MMA_IN);
    for _ in 0..WARP_THREADS {
        let mut w = [0u32; MMA_IN];
        for x in &mut w[0..6] {
            *x = float(rng, "f16") | float(rng, "f16") << 16;
        }
        for x in &mut w[6..10] {
            *x = float(rng, "f32");
        }
        for x in &mut w[10..16] {
            *x = float(rng, "bf16") | float(rng, "bf16") << 16;
        }
        for x in &mut w[16..22] {
            *x = float(rng, "tf32");
        }
        for x in &mut w[22..28] {
            *x = rng.next();
        }
        for x in &mut w[28..32] {
            let r = rng.next();
            *x = match r % 6 {
                0 => 0x7fff_0000 | (rng.next() & 0xffff),
                1 => 0x8000_0000 | (rng.next() & 0xffff),
                _ => rng.next(),
            };
        }
        words.extend_from_slice(&w);
    }
    let din = (0..WARP_THREADS * 4)
        .map(|_| f64::from(rng.next() as i32) / f64::from(rng.next() | 1))
        .collect();
    (words, din)
}

/// An `mma_ops` form: its first result column, shape (k; elements per register; A's and B's
/// register counts), element kinds (0 f16, 1 bf16, 2 tf32, 3 s8, 4 u8), result kind (0 f32,
/// 1 f16 pairs, 2 s32, 3 s32 `.satfinite`) and its registers' first input words.
struct MmaCase {
    col: usize,
    k: usize,
    e: usize,
    na: usize,
    nb: usize,
    ak: u32,
    bk: u32,
    dk: u32,
    a: usize,
    b: usize,
    c: usize,
}

#[rustfmt::skip]
const MMA_CASES: [MmaCase; 13] = [
    MmaCase { col: 0, k: 16, e: 2, na: 4, nb: 2, ak: 0, bk: 0, dk: 0, a: 0, b: 4, c: 6 },
    MmaCase { col: 4, k: 16, e: 2, na: 4, nb: 2, ak: 0, bk: 0, dk: 1, a: 0, b: 4, c: 4 },
    MmaCase { col: 6, k: 8, e: 2, na: 2, nb: 1, ak: 0, bk: 0, dk: 0, a: 0, b: 4, c: 6 },
    MmaCase { col: 10, k: 8, e: 2, na: 2, nb: 1, ak: 0, bk: 0, dk: 1, a: 0, b: 4, c: 4 },
    MmaCase { col: 12, k: 16, e: 2, na: 4, nb: 2, ak: 1, bk: 1, dk: 0, a: 10, b: 14, c: 6 },
    MmaCase { col: 16, k: 8, e: 2, na: 2, nb: 1, ak: 1, bk: 1, dk: 0, a: 10, b: 14, c: 6 },
    MmaCase { col: 20, k: 8, e: 1, na: 4, nb: 2, ak: 2, bk: 2, dk: 0, a: 16, b: 20, c: 6 },
    MmaCase { col: 24, k: 4, e: 1, na: 2, nb: 1, ak: 2, bk: 2, dk: 0, a: 16, b: 20, c: 6 },
    MmaCase { col: 28, k: 32, e: 4, na: 4, nb: 2, ak: 3, bk: 3, dk: 2, a: 22, b: 26, c: 28 },
    MmaCase { col: 32, k: 32, e: 4, na: 4, nb: 2, ak: 4, bk: 3, dk: 2, a: 22, b: 26, c: 28 },
    MmaCase { col: 36, k: 32, e: 4, na: 4, nb: 2, ak: 3, bk: 4, dk: 3, a: 22, b: 26, c: 28 },
    MmaCase { col: 40, k: 16, e: 4, na: 2, nb: 1, ak: 4, bk: 4, dk: 2, a: 22, b: 26, c: 28 },
    MmaCase { col: 44, k: 16, e: 4, na: 2, nb: 1, ak: 3, bk: 3, dk: 3, a: 22, b: 26, c: 28 },
];

/// The value of element `i` of a lane's registers `regs` of kind `kind`.
fn mma_elem(kind: u32, e: usize, regs: &[u32], i: usize) -> f64 {
    let bits = 32 / e;
    let w = regs[i / e];
    let v = if bits == 32 {
        w
    } else {
        (w >> (bits * (i % e))) & ((1 << bits) - 1)
    };
    match kind {
        0 => f16_value(v as u16),
        1 => f64::from(f32::from_bits(v << 16)),
        2 => f64::from(f32::from_bits(v & 0xffff_e000)),
        3 => f64::from(v as u8 as i8),
        _ => f64::from(v as u8),
    }
}

fn f16_value(h: u16) -> f64 {
    let (s, e, m) = (h >> 15, (h >> 10) & 31, f64::from(h & 0x3ff));
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(i32::from(e) - 25),
    };
    if s == 1 {
        -v
    } else {
        v
    }
}

/// `x` rounded to f16 (to nearest, ties to even), as bits; finite, non-NaN `x` only.
fn f16_bits(x: f64) -> u16 {
    let s = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a >= 65520.0 {
        return s | 0x7c00;
    }
    let e = if a < 2f64.powi(-14) {
        -14
    } else {
        a.log2().floor() as i32
    };
    // log2 may be off by one near powers of two: settle e so that 2^e <= a < 2^(e+1).
    let e = if a >= 2f64.powi(e + 1) {
        e + 1
    } else if e > -14 && a < 2f64.powi(e) {
        e - 1
    } else {
        e
    };
    let q = 2f64.powi(e - 10);
    let n = (a / q).round_ties_even();
    let v = n * q;
    if v < 2f64.powi(-14) {
        return s | (v / 2f64.powi(-24)) as u16;
    }
    let (e, m) = if n >= 2048.0 {
        (e + 1, 0.0)
    } else {
        (e, n - 1024.0)
    };
    s | ((e + 15) as u16) << 10 | m as u16
}

/// The PTX ISA's fragment tables: where element `i` of lane (g, t)'s A and B registers sits
/// (row, column); C's and D's element `i` is at (g + 8 (i >= 2), 2t + (i & 1)).
fn mma_a_at(c: &MmaCase, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (c.e, c.k) {
        (2, 16) => (
            g + 8 * usize::from(matches!(i, 2 | 3 | 6 | 7)),
            2 * t + (i & 1) + 8 * usize::from(i >= 4),
        ),
        (2, _) => (g + 8 * usize::from(i >= 2), 2 * t + (i & 1)),
        (1, 8) => (
            g + 8 * usize::from(i == 1 || i == 3),
            t + 4 * usize::from(i >= 2),
        ),
        (1, _) => (g + 8 * usize::from(i == 1), t),
        (_, 16) => (g + 8 * usize::from(i >= 4), 4 * t + (i & 3)),
        _ => (
            g + 8 * usize::from((4..8).contains(&i) || i >= 12),
            4 * t + (i & 3) + 16 * usize::from(i >= 8),
        ),
    }
}
fn mma_b_at(c: &MmaCase, g: usize, t: usize, i: usize) -> (usize, usize) {
    let row = match (c.e, c.k) {
        (2, 16) => 2 * t + (i & 1) + 8 * usize::from(i >= 2),
        (2, _) => 2 * t + i,
        (1, 8) => t + 4 * usize::from(i >= 1),
        (1, _) => t,
        (_, 16) => 4 * t + i,
        _ => 4 * t + (i & 3) + 16 * usize::from(i >= 4),
    };
    (row, g)
}

/// The host's `mma_ops` results for thread `i` of `input`: per column, the expected bits and,
/// for float columns, the magnitude sum `|c| + sum |a_k b_k|` (0 for integers).
fn mma_model(input: &[u32], din: &[f64], i: usize) -> Vec<(u64, f64)> {
    let (base, lane) = (i - i % 32, i % 32);
    let (g, t) = (lane / 4, lane % 4);
    let regs =
        |thread: usize, at: usize, n: usize| &input[thread * MMA_IN + at..thread * MMA_IN + at + n];
    let mut out = vec![(0u64, 0f64); MMA_COLS];
    for c in &MMA_CASES {
        let (mut a, mut b) = ([[0f64; 32]; 16], [[0f64; 8]; 32]);
        for l in 0..32 {
            let (lg, lt) = (l / 4, l % 4);
            for e in 0..c.na * c.e {
                let (r, k) = mma_a_at(c, lg, lt, e);
                a[r][k] = mma_elem(c.ak, c.e, regs(base + l, c.a, c.na), e);
            }
            for e in 0..c.nb * c.e {
                let (k, n) = mma_b_at(c, lg, lt, e);
                b[k][n] = mma_elem(c.bk, c.e, regs(base + l, c.b, c.nb), e);
            }
        }
        let mut d = [(0u64, 0f64); 4];
        for (e, slot) in d.iter_mut().enumerate() {
            let (r, n) = (g + 8 * (e / 2), 2 * t + (e & 1));
            let cw = input[i * MMA_IN + c.c + if c.dk == 1 { e / 2 } else { e }];
            let cv = match c.dk {
                0 => f64::from(f32::from_bits(cw)),
                1 => f16_value((cw >> (16 * (e & 1))) as u16),
                _ => f64::from(cw as i32),
            };
            let (mut s, mut mag) = (cv, cv.abs());
            for k in 0..c.k {
                s += a[r][k] * b[k][n]; // exact: the inputs' ranges keep every sum in f64
                mag += (a[r][k] * b[k][n]).abs();
            }
            *slot = match c.dk {
                0 => (u64::from((s as f32).to_bits()), mag),
                1 => (u64::from(f16_bits(s)), mag),
                2 => (u64::from(s as i64 as u32), 0.0),
                _ => (
                    u64::from(s.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32),
                    0.0,
                ),
            };
        }
        if c.dk == 1 {
            out[c.col] = (d[0].0 | d[1].0 << 16, d[0].1.max(d[1].1));
            out[c.col + 1] = (d[2].0 | d[3].0 << 16, d[2].1.max(d[3].1));
        } else {
            out[c.col..c.col + 4].copy_from_slice(&d);
        }
    }
    // f64 m8n8k4: lane (g, t) holds A[g][t] (din[0]), B[t][g] (din[1]); D[g][2t + j] from C
    // din[2 + j], an fma per k in k order.
    for j in 0..2 {
        let mut s = din[i * 4 + 2 + j];
        let mut mag = s.abs();
        for k in 0..4 {
            let (x, y) = (
                din[(base + 4 * g + k) * 4],
                din[(base + 4 * (2 * t + j) + k) * 4 + 1],
            );
            s = x.mul_add(y, s);
            mag += (x * y).abs();
        }
        let bits = s.to_bits();
        out[48 + 2 * j] = (bits & 0xffff_ffff, mag);
        out[48 + 2 * j + 1] = (bits >> 32, mag);
    }
    out
}

/// The matrix kernels' results against the host: `matrix_load` (ldmatrix from the tile the warp
/// filled with cp.async; the zero-filled copy) and every `mma_ops` column, bit for bit (the
/// translation computes the exact result rounded once; the inputs make it exact in f64).
fn check_matrices_on_host(got: &[(&'static str, Vec<u64>)], input: &[u32], din: &[f64]) {
    let find = |name: &str| &got.iter().find(|(n, _)| *n == name).unwrap().1;
    for (threads, load_name, int_name, float_name) in MATRIX_RUNS {
        let (lo, ints, floats) = (find(load_name), find(int_name), find(float_name));
        for i in 0..WARP_THREADS {
            let (base, lane) = (i - i % 32, i % 32);
            // The warp's tile: row k is the 16 bytes at input word 4 (base + k); the row
            // address of lane l is tile row 5l mod 32; matrix m's row r is lane 8m + r's.
            let elem = |m: usize, r: usize, c: usize| -> u32 {
                let row = (5 * (8 * m + r)) % 32;
                (input[4 * (base + row) + c / 2] >> (16 * (c % 2))) & 0xffff
            };
            let (r, c) = (lane / 4, 2 * (lane % 4));
            let frag = |m: usize, trans: bool| -> u32 {
                if trans {
                    elem(m, c, r) | elem(m, c + 1, r) << 16
                } else {
                    elem(m, r, c) | elem(m, r, c + 1) << 16
                }
            };
            let mut want = Vec::new();
            for (n, trans) in [
                (4, false),
                (4, true),
                (2, false),
                (2, true),
                (1, false),
                (1, true),
            ] {
                want.extend((0..n).map(|m| frag(m, trans)));
            }
            // cp.async of 8 bytes with src_size lane % 9: the rest zero.
            let src = &input[4 * base + 2 * lane..4 * base + 2 * lane + 2];
            let bytes: Vec<u8> = src.iter().flat_map(|w| w.to_le_bytes()).collect();
            let kept: Vec<u8> = (0..8)
                .map(|k| if k < lane % 9 { bytes[k] } else { 0 })
                .collect();
            want.push(u32::from_le_bytes(kept[..4].try_into().unwrap()));
            want.push(u32::from_le_bytes(kept[4..].try_into().unwrap()));
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    lo[i * MATRIX_COLS + k],
                    u64::from(*w),
                    "matrix_load (blocks of {threads}), thread {i}, column {k}"
                );
            }
            let model = mma_model(input, din, i);
            let (mut fi, mut ii) = (0, 0);
            for (col, (w, _)) in model.iter().enumerate() {
                let got = if MMA_INT_COLS.contains(&col) {
                    ii += 1;
                    ints[i * MMA_INT_COLS.len() + ii - 1]
                } else {
                    fi += 1;
                    floats[i * (MMA_COLS - MMA_INT_COLS.len()) + fi - 1]
                };
                assert_eq!(
                    got, *w,
                    "mma_ops (blocks of {threads}), thread {i}, column {col}: translated {got:#x}, host {w:#x}"
                );
            }
        }
    }
}

/// The native PTX's float `mma` results against the exact ones: NVIDIA does not specify its
/// tensor cores' accumulation order and internal precision (they align and truncate the partial
/// sums), so a native result may differ from the exactly rounded one, which the translation
/// gives. Bound: `2^-17 (|c| + sum |a_k b_k|)` for f32 results (about 64 units in the last place
/// of that magnitude sum), `2^-9 (...)` for f16 results (two units), `2^-50 (...)` for f64.
fn mma_floats_within_bound(
    threads: u32,
    native: &[u64],
    input: &[u32],
    din: &[f64],
) -> Vec<String> {
    let nf = MMA_COLS - MMA_INT_COLS.len();
    let mut bad = Vec::new();
    for i in 0..WARP_THREADS {
        let model = mma_model(input, din, i);
        let cols = (0..MMA_COLS).filter(|c| !MMA_INT_COLS.contains(c));
        for (fi, col) in cols.enumerate() {
            let (w, mag) = model[col];
            let n = native[i * nf + fi];
            let (nv, wv, bound): (Vec<f64>, Vec<f64>, f64) = if col >= 48 {
                // An f64 is two columns: compare when its high word is reached.
                if col % 2 == 0 {
                    continue;
                }
                let nb = native[i * nf + fi - 1] | n << 32;
                let wb = model[col - 1].0 | w << 32;
                (
                    vec![f64::from_bits(nb)],
                    vec![f64::from_bits(wb)],
                    mag * 2f64.powi(-50),
                )
            } else if matches!(col, 4 | 5 | 10 | 11) {
                let halves = |v: u64| vec![f16_value(v as u16), f16_value((v >> 16) as u16)];
                (halves(n), halves(w), mag * 2f64.powi(-9))
            } else {
                (
                    vec![f64::from(f32::from_bits(n as u32))],
                    vec![f64::from(f32::from_bits(w as u32))],
                    mag * 2f64.powi(-17),
                )
            };
            for (x, y) in nv.iter().zip(&wv) {
                // NaN (a native NaN where none is due) fails too.
                let within = x == y || (x - y).abs() <= bound; // == : equal infinities
                if !within && bad.len() < 16 {
                    bad.push(format!(
                        "mma_ops (blocks of {threads}), thread {i}, column {col}: native {x:e}, exact {y:e}, bound {bound:e}"
                    ));
                }
            }
        }
    }
    bad
}

/// The texture and surface kernels (`tests/kernels/ptx/textures.cu`).
fn texture_kernels() -> String {
    std::fs::read_to_string(repo_root().join("tests/kernels/ptx/textures.cu")).unwrap()
}

/// The texture and surface instructions of a PTX text, with their modifiers, sorted.
fn texture_opcodes(ptx: &str) -> Vec<String> {
    let mut v: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| {
            ["tex.", "tld4.", "suld.", "sust."]
                .iter()
                .any(|p| w.starts_with(p))
        })
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

/// NVRTC's PTX of the texture and surface kernels (every geometry, levels, gradients, gathers,
/// integer results, 8- to 64-bit and vector surface accesses, zero and trap modes) translates;
/// hipRTC compiles the translation for the AMD targets (on gfx90a and gfx942, which have no
/// image instructions, to traps); NVRTC compiles it back into the very same texture and
/// surface instructions, so on NVIDIA the translation samples exactly as the PTX did.
#[test]
fn texture_objects_translate_and_compile() {
    let Some(nv) = compiler(BackendKind::Cuda) else {
        return;
    };
    let Some(hip) = compiler(BackendKind::Hip) else {
        return;
    };
    let ptx = ptx_of(nv, &texture_kernels(), "textures.cu", &[], "compute_90");
    let ops = texture_opcodes(&ptx);
    assert!(ops.len() >= 40, "{ops:?}");
    let t = translate(&ptx).unwrap_or_else(|e| panic!("textures.cu: {e}"));
    assert_eq!(t.entries, common::ptx_entries(&ptx));
    for arch in common::amd_arches(hip) {
        hip_compile(hip, "textures.cu", &t.source, &t.entries, arch);
    }
    let mut p =
        Program::with_backend(nv, &t.source, ProgramOptions::new().name("textures.cu")).unwrap();
    p.compile_with_args(&["--gpu-architecture=compute_90"])
        .unwrap_or_else(|e| panic!("NVRTC refused the texture translation: {e}"));
    let again = String::from_utf8(code(&p, CodeType::Ptx)).unwrap();
    assert_eq!(
        texture_opcodes(&again),
        ops,
        "NVRTC's instructions from the translation"
    );
}

/// Texels of the 2D float4 array the texture kernels sample (16 x 8).
const TEX_W: usize = 16;
const TEX_H: usize = 8;
/// Points sampled, elements of the linear buffers.
const TEX_POINTS: usize = 256;
const TEX_LINEAR: usize = 64;

fn texel(x: usize, y: usize) -> [f32; 4] {
    [
        (x + TEX_W * y) as f32,
        x as f32 * 0.25 - y as f32,
        ((x * 7 + y * 3) % 11) as f32 / 8.0,
        1.0 + y as f32 / 16.0,
    ]
}

/// On a GPU: the texture and surface kernels, translated and compiled by the active backend's
/// compiler, against the same PTX loaded natively, bit for bit: a 2D float4 CUDA array sampled
/// with point and linear filtering, unnormalised (clamp) and normalised (wrap) coordinates,
/// `tex2D`, `tex2DLod` and `tex2Dgather` of each channel; `tex1Dfetch` of linear float4 and
/// float buffers, past both ends too; 2D float4 surfaces read (trap and zero modes) and
/// written, a 1D u32 surface read and written. Linear filtering's weights are NVIDIA's 8-bit
/// fractions on both columns (HIP's NVIDIA platform samples on the same hardware); AMD's
/// filtering precision differs and is not proven here. Point sampling, the fetches and the
/// surfaces are also checked against the host, so a run where the PTX does not load natively
/// (the HIP backend in AMD-faithful mode) is checked too. The CUDA column leaves its native
/// results in the temporary directory; the HIP column, run after it, compares its translated
/// results with them bit for bit.
#[anycuda_test::gpu_test]
fn translated_textures_match_native_ptx() {
    use anycuda::core::{launch, Buffer, Device, LaunchConfig, ObjectCode, StreamOptions};
    use anycuda::driver::*;
    let nv = compiler(BackendKind::Cuda).expect("NVRTC writes the PTX");
    let ptx = ptx_of(nv, &texture_kernels(), "textures.cu", &[], "compute_80");
    let t = translate(&ptx).unwrap();
    let dev = Device::new(0).expect("device 0");
    let ctx = dev.set_current().expect("set_current");
    let stream = ctx.create_stream(StreamOptions::default()).unwrap();
    let mut prog = Program::new(&t.source, ProgramOptions::new().name("textures.cpp")).unwrap();
    let translated = prog
        .compile(CodeType::Ptx)
        .unwrap_or_else(|e| panic!("compile: {e}"));
    let native = ObjectCode::from_bytes(ptx.as_bytes().to_vec(), CodeType::Ptx)
        .ok()
        .and_then(|c| c.kernel("tex_sample2d").ok().map(|_| c));
    let ck = |r: CUresult, what: &str| assert_eq!(r, CUresult::CUDA_SUCCESS, "{what}");
    let mut rng = Rng(0x1f2e_3d4c);
    // Unnormalised points: texel centres, edges and random points, past every side.
    let mut xy = Vec::with_capacity(2 * TEX_POINTS);
    for p in 0..TEX_POINTS {
        let (x, y) = match p % 4 {
            0 => (
                (p / 4 % TEX_W) as f32 + 0.5,
                (p / 4 / TEX_W % TEX_H) as f32 + 0.5,
            ),
            1 => ((p / 4 % (TEX_W + 1)) as f32, (p / 4 % (TEX_H + 1)) as f32),
            _ => (
                (rng.next() % 22_000) as f32 / 1000.0 - 3.0,
                (rng.next() % 14_000) as f32 / 1000.0 - 3.0,
            ),
        };
        xy.extend([x, y]);
    }
    let xy_norm: Vec<f32> = xy
        .chunks(2)
        .flat_map(|c| [c[0] / TEX_W as f32, c[1] / TEX_H as f32])
        .collect();
    let texels: Vec<f32> = (0..TEX_H)
        .flat_map(|y| (0..TEX_W).flat_map(move |x| texel(x, y)))
        .collect();
    let lin4: Vec<f32> = (0..4 * TEX_LINEAR).map(|i| i as f32 * 1.5 - 7.0).collect();
    let lin1: Vec<f32> = (0..TEX_LINEAR).map(|i| (i * i) as f32 / 3.0).collect();
    let idx: Vec<i32> = (0..TEX_LINEAR as i32 + 8).map(|i| i - 4).collect();
    let words: Vec<u32> = (0..TEX_W).map(|_| rng.next()).collect();
    // A CUDA array (2D when `h` > 0) of `ch` channels of `format`, surface-capable, filled.
    let array = |w: usize, h: usize, format: CUarray_format, ch: u32, bytes: &[u8]| -> CUarray {
        let d = CUDA_ARRAY3D_DESCRIPTOR {
            Width: w,
            Height: h,
            Depth: 0,
            Format: format,
            NumChannels: ch,
            Flags: CUDA_ARRAY3D_SURFACE_LDST,
        };
        let mut a: CUarray = std::ptr::null_mut();
        // SAFETY: a valid descriptor and out-pointer.
        ck(unsafe { cuArray3DCreate(&mut a, &d) }, "cuArray3DCreate");
        let row = bytes.len() / h.max(1);
        // SAFETY: all-zero bytes are a valid CUDA_MEMCPY2D (plain data).
        let mut c: CUDA_MEMCPY2D = unsafe { std::mem::zeroed() };
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.srcHost = bytes.as_ptr().cast();
        c.srcPitch = row;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
        c.WidthInBytes = row;
        c.Height = h.max(1);
        // SAFETY: `bytes` holds Height rows of WidthInBytes; the array is that large.
        ck(unsafe { cuMemcpy2D(&c) }, "cuMemcpy2D to the array");
        a
    };
    let read_array = |a: CUarray, row: usize, h: usize| -> Vec<u8> {
        let mut out = vec![0u8; row * h];
        // SAFETY: all-zero bytes are a valid CUDA_MEMCPY2D (plain data).
        let mut c: CUDA_MEMCPY2D = unsafe { std::mem::zeroed() };
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = out.as_mut_ptr().cast();
        c.dstPitch = row;
        c.WidthInBytes = row;
        c.Height = h;
        // SAFETY: `out` holds Height rows of WidthInBytes; the array is that large.
        ck(unsafe { cuMemcpy2D(&c) }, "cuMemcpy2D from the array");
        out
    };
    let bytes_f32 = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_le_bytes()).collect() };
    let bits = |v: &[u8]| -> Vec<u64> {
        v.chunks(4)
            .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect()
    };
    let f32_bits = |v: Vec<f32>| -> Vec<u64> { v.iter().map(|f| u64::from(f.to_bits())).collect() };
    // (filter, normalised, address mode) of the four sampled textures.
    let configs = [
        (
            "point, unnormalised, clamp",
            CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            false,
            CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
        ),
        (
            "linear, unnormalised, clamp",
            CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
            false,
            CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
        ),
        (
            "point, normalised, wrap",
            CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            true,
            CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
        ),
        (
            "linear, normalised, wrap",
            CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
            true,
            CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
        ),
    ];
    let run = |code: &ObjectCode| -> Vec<(String, Vec<u64>)> {
        let mut out = Vec::new();
        let tex_array = array(
            TEX_W,
            TEX_H,
            CUarray_format::CU_AD_FORMAT_FLOAT,
            4,
            &bytes_f32(&texels),
        );
        let k = code.kernel("tex_sample2d").unwrap();
        let (dxy, dxyn) = (
            Buffer::from_slice(&stream, &xy).unwrap(),
            Buffer::from_slice(&stream, &xy_norm).unwrap(),
        );
        for (name, filter, normalised, address) in configs {
            // SAFETY: all-zero bytes are valid descriptors (plain data).
            let mut r: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
            r.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
            r.res.array.hArray = tex_array;
            // SAFETY: as above.
            let mut d: CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
            d.addressMode = [address; 3];
            d.filterMode = filter;
            d.flags = if normalised {
                CU_TRSF_NORMALIZED_COORDINATES
            } else {
                0
            };
            let mut tex: CUtexObject = 0;
            // SAFETY: valid descriptors and out-pointer; the array outlives the object.
            ck(
                unsafe { cuTexObjectCreate(&mut tex, &r, &d, std::ptr::null()) },
                name,
            );
            let mut o = Buffer::<f32>::zeroed(&stream, TEX_POINTS * 6 * 4).unwrap();
            let coords = if normalised { &dxyn } else { &dxy };
            // SAFETY: tex_sample2d reads xy[0..2n] and writes out[0..6n] float4s.
            unsafe {
                launch(
                    &stream,
                    &LaunchConfig::for_num_elems(TEX_POINTS as u32, 64),
                    &k,
                    (tex, coords, &mut o, TEX_POINTS as i32),
                )
            }
            .unwrap();
            stream.synchronize().unwrap();
            out.push((
                format!("tex_sample2d, {name}"),
                f32_bits(o.to_vec().unwrap()),
            ));
            // SAFETY: the object created above, no longer used.
            ck(unsafe { cuTexObjectDestroy(tex) }, "cuTexObjectDestroy");
        }
        // Linear memory: float4 and one-channel float.
        let (d4, d1, didx) = (
            Buffer::from_slice(&stream, &lin4).unwrap(),
            Buffer::from_slice(&stream, &lin1).unwrap(),
            Buffer::from_slice(&stream, &idx).unwrap(),
        );
        let linear = |b: &Buffer<f32>, ch: u32| -> CUtexObject {
            // SAFETY: all-zero bytes are valid descriptors (plain data).
            let mut r: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
            r.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
            r.res.linear.devPtr = b.as_raw();
            r.res.linear.format = CUarray_format::CU_AD_FORMAT_FLOAT;
            r.res.linear.numChannels = ch;
            r.res.linear.sizeInBytes = b.len() * 4;
            // SAFETY: as above.
            let d: CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
            let mut tex: CUtexObject = 0;
            // SAFETY: valid descriptors and out-pointer; the buffer outlives the object.
            ck(
                unsafe { cuTexObjectCreate(&mut tex, &r, &d, std::ptr::null()) },
                "linear texture",
            );
            tex
        };
        let (t4, t1) = (linear(&d4, 4), linear(&d1, 1));
        let mut o4 = Buffer::<f32>::zeroed(&stream, idx.len() * 4).unwrap();
        let mut o1 = Buffer::<f32>::zeroed(&stream, idx.len()).unwrap();
        let k = code.kernel("tex_fetch1d").unwrap();
        // SAFETY: tex_fetch1d reads idx[0..n], writes out4[0..n] float4s and out1[0..n].
        unsafe {
            launch(
                &stream,
                &LaunchConfig::for_num_elems(idx.len() as u32, 64),
                &k,
                (t4, t1, &didx, &mut o4, &mut o1, idx.len() as i32),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push(("tex_fetch1d float4".into(), f32_bits(o4.to_vec().unwrap())));
        out.push(("tex_fetch1d float".into(), f32_bits(o1.to_vec().unwrap())));
        // SAFETY: the objects created above, no longer used.
        unsafe {
            ck(cuTexObjectDestroy(t4), "cuTexObjectDestroy");
            ck(cuTexObjectDestroy(t1), "cuTexObjectDestroy");
        }
        // Surfaces: the array above as the source, a zeroed one as the destination, a u32 row.
        let dst = array(
            TEX_W,
            TEX_H,
            CUarray_format::CU_AD_FORMAT_FLOAT,
            4,
            &vec![0u8; texels.len() * 4],
        );
        let row: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let u = array(
            TEX_W,
            0,
            CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32,
            1,
            &row,
        );
        let surface = |a: CUarray| -> CUsurfObject {
            // SAFETY: all-zero bytes are a valid descriptor (plain data).
            let mut r: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
            r.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
            r.res.array.hArray = a;
            let mut s: CUsurfObject = 0;
            // SAFETY: a valid descriptor and out-pointer; the array outlives the object.
            ck(
                unsafe { cuSurfObjectCreate(&mut s, &r) },
                "cuSurfObjectCreate",
            );
            s
        };
        let (ss, sd, su) = (surface(tex_array), surface(dst), surface(u));
        let mut so = Buffer::<f32>::zeroed(&stream, TEX_W * TEX_H * 2 * 4).unwrap();
        let k = code.kernel("surf_ops").unwrap();
        // SAFETY: surf_ops reads and writes the surfaces inside their w x h elements (and reads
        // past the right edge in zero mode), writes out[0..2wh] float4s.
        unsafe {
            launch(
                &stream,
                &LaunchConfig::new((1u32, TEX_H as u32, 1u32), TEX_W as u32),
                &k,
                (ss, sd, su, &mut so, TEX_W as i32, TEX_H as i32),
            )
        }
        .unwrap();
        stream.synchronize().unwrap();
        out.push(("surf_ops reads".into(), f32_bits(so.to_vec().unwrap())));
        out.push((
            "surf_ops 2D writes".into(),
            bits(&read_array(dst, TEX_W * 16, TEX_H)),
        ));
        out.push(("surf_ops 1D u32".into(), bits(&read_array(u, TEX_W * 4, 1))));
        // SAFETY: the objects and arrays created above, no longer used.
        unsafe {
            for s in [ss, sd, su] {
                ck(cuSurfObjectDestroy(s), "cuSurfObjectDestroy");
            }
            for a in [tex_array, dst, u] {
                ck(cuArrayDestroy(a), "cuArrayDestroy");
            }
        }
        out
    };
    let got = run(&translated);
    // The host: point sampling with clamp, the fetches inside the buffers, the surfaces.
    let find =
        |v: &[(String, Vec<u64>)], n: &str| v.iter().find(|(k, _)| k == n).unwrap().1.clone();
    let point = find(&got, "tex_sample2d, point, unnormalised, clamp");
    for p in 0..TEX_POINTS {
        let cl = |v: f32, n: usize| (v.floor().max(0.0) as usize).min(n - 1);
        let want = texel(cl(xy[2 * p], TEX_W), cl(xy[2 * p + 1], TEX_H));
        for c in 0..4 {
            assert_eq!(
                point[p * 24 + c],
                u64::from(want[c].to_bits()),
                "tex2D point at ({}, {}) channel {c}",
                xy[2 * p],
                xy[2 * p + 1]
            );
            assert_eq!(
                point[p * 24 + 4 + c],
                u64::from(want[c].to_bits()),
                "tex2DLod point at ({}, {})",
                xy[2 * p],
                xy[2 * p + 1]
            );
        }
    }
    let (f4, f1) = (
        find(&got, "tex_fetch1d float4"),
        find(&got, "tex_fetch1d float"),
    );
    for (k, &i) in idx
        .iter()
        .enumerate()
        .filter(|(_, i)| (0..TEX_LINEAR as i32).contains(*i))
    {
        let i = i as usize;
        for c in 0..4 {
            assert_eq!(
                f4[4 * k + c],
                u64::from(lin4[4 * i + c].to_bits()),
                "tex1Dfetch float4 [{i}]"
            );
        }
        assert_eq!(
            f1[k],
            u64::from(lin1[i].to_bits()),
            "tex1Dfetch float [{i}]"
        );
    }
    let (reads, writes, us) = (
        find(&got, "surf_ops reads"),
        find(&got, "surf_ops 2D writes"),
        find(&got, "surf_ops 1D u32"),
    );
    for y in 0..TEX_H {
        for x in 0..TEX_W {
            let e = y * TEX_W + x;
            let v = texel(x, y);
            let w = [v[0] + 1.0, v[1] * 2.0, -v[2], v[3]];
            for c in 0..4 {
                assert_eq!(
                    reads[8 * e + c],
                    u64::from(v[c].to_bits()),
                    "suld ({x}, {y})"
                );
                assert_eq!(
                    reads[8 * e + 4 + c],
                    0,
                    "suld .zero past the edge ({x}, {y})"
                );
                assert_eq!(
                    writes[4 * e + c],
                    u64::from(w[c].to_bits()),
                    "sust ({x}, {y})"
                );
            }
        }
    }
    for (x, w) in words.iter().enumerate() {
        assert_eq!(
            us[x],
            u64::from(w.wrapping_mul(2_654_435_761).wrapping_add(1)),
            "1D u32 surface [{x}]"
        );
    }
    // The CUDA column's native results, left for the HIP column (same PTX, same inputs).
    let kind = anycuda::backend().unwrap().kind();
    let reference = std::env::temp_dir().join(format!(
        "anycuda-ptx-textures-{:016x}.txt",
        ptx.bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b))
                .wrapping_mul(0x100_0000_01b3))
    ));
    let text = |v: &[(String, Vec<u64>)]| -> String {
        v.iter()
            .map(|(n, b)| {
                format!(
                    "{n}: {}\n",
                    b.iter()
                        .map(|x| format!("{x:x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            })
            .collect()
    };
    let compare = |want: &[(String, Vec<u64>)], what: &str| {
        let mut failures = Vec::new();
        for ((name, g), (_, w)) in got.iter().zip(want) {
            let diff: Vec<String> = g
                .iter()
                .zip(w)
                .enumerate()
                .filter(|(_, (x, y))| x != y)
                .take(8)
                .map(|(i, (x, y))| format!("[{i}] {x:#x} != {y:#x}"))
                .collect();
            if !diff.is_empty() || g.len() != w.len() {
                failures.push(format!(
                    "{name}: translated differs from {what}: {}",
                    diff.join(", ")
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    };
    match (native, kind) {
        (Some(native), BackendKind::Cuda) => {
            let want = run(&native);
            std::fs::write(&reference, text(&want)).unwrap();
            compare(&want, "the native PTX");
        }
        (Some(native), _) => compare(&run(&native), "the PTX loaded by the backend"),
        (None, _) => eprintln!("the {kind} backend does not load PTX here: compared with the host"),
    }
    if kind != BackendKind::Cuda {
        match std::fs::read_to_string(&reference) {
            Ok(s) => {
                let want: Vec<(String, Vec<u64>)> = s
                    .lines()
                    .filter_map(|l| l.split_once(": "))
                    .map(|(n, b)| (n.to_owned(), b.split(' ').map(|x| u64::from_str_radix(x, 16).unwrap()).collect()))
                    .collect();
                assert_eq!(want.len(), got.len(), "{}", reference.display());
                compare(&want, "the CUDA backend's native PTX");
                eprintln!("bit for bit equal to the CUDA backend's native run ({})", reference.display());
            }
            Err(_) => eprintln!(
                "no CUDA-backend reference at {} (run the test on the CUDA backend first): compared with the host only",
                reference.display()
            ),
        }
    }
}
