//! A downstream workload through the cudarc facade: candle's own CUDA kernels (the
//! `candle-kernels` crate from crates.io, fetched at test time by ci/cudarc-workload.sh), compiled
//! at run time with `compile_ptx_with_opts`, launched with `launch_builder`, checked against a CPU
//! reference. Written as cudarc code (`use cudarc::...`).
//!
//!   candle_kernels <candle-kernels/src> [CUDA include dir]
//!
//! candle builds these files with nvcc and a full CUDA toolkit; NVRTC has no C library, so the
//! program passes three small headers of its own (`math.h` and `cmath` with the two constants
//! candle uses, `stdint.h`) and the CUDA toolkit's include folder (for `cuda_fp16.h`). The kernel
//! files themselves are used unchanged.
//!
//! With no GPU it still compiles the kernels (NVRTC on CUDA) and prints `SKIP` for the launches;
//! `ANYCUDA_REQUIRE_GPU=1` turns that into a failure.

use anycuda_cudarc as cudarc;
use cudarc::driver::{
    CudaContext, CudaModule, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions, Ptx};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SHIM_MATH: &str = "#pragma once\n#define M_2_SQRTPI 1.12837916709551257390\n#define M_SQRT1_2 0.70710678118654752440\n";
const SHIM_STDINT: &str =
    "#pragma once\ntypedef signed char int8_t; typedef short int16_t; typedef int int32_t;\n\
typedef long long int64_t; typedef unsigned char uint8_t; typedef unsigned short uint16_t;\n\
typedef unsigned int uint32_t; typedef unsigned long long uint64_t;\n\
typedef long long intptr_t; typedef unsigned long long uintptr_t;\n";

fn shim_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("candle-shim-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    std::fs::write(d.join("math.h"), SHIM_MATH).unwrap();
    std::fs::write(d.join("cmath"), "#pragma once\n#include \"math.h\"\n").unwrap();
    std::fs::write(d.join("stdint.h"), SHIM_STDINT).unwrap();
    d
}

fn compile(dir: &Path, include: &[String], file: &str, arch: &'static str) -> Result<Ptx, String> {
    let src = std::fs::read_to_string(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    let opts = CompileOptions {
        include_paths: include.to_vec(),
        arch: Some(arch),
        name: Some(file.to_owned()),
        ..Default::default()
    };
    compile_ptx_with_opts(src, opts).map_err(|e| match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => {
            format!(
                "{file}: {}",
                log.to_string_lossy()
                    .lines()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }
        other => format!("{file}: {other:?}"),
    })
}

fn close(a: &[f32], b: &[f32], tol: f32) -> Result<(), String> {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if (x - y).abs() > tol * (1.0 + y.abs()) {
            return Err(format!("element {i}: gpu {x} cpu {y}"));
        }
    }
    if a.len() != b.len() {
        return Err(format!("length {} vs {}", a.len(), b.len()));
    }
    Ok(())
}

type Check = Result<(), String>;

fn affine(stream: &Arc<CudaStream>, m: &Arc<CudaModule>) -> Result<Check, DriverError> {
    let f = m.load_function("affine_f32")?;
    let (rows, cols) = (300usize, 257usize);
    let n = rows * cols;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25 - 7.0).collect();
    let inp = stream.clone_htod(&x)?;
    let mut out = stream.alloc_zeros::<f32>(n)?;
    // The transposed view: dims (cols, rows), strides (1, cols): the strided path of the kernel.
    let info = stream.clone_htod(&[cols, rows, 1usize, cols])?;
    let (numel, nd, mul, add) = (n, 2usize, 1.5f32, -0.5f32);
    let mut b = stream.launch_builder(&f);
    b.arg(&numel)
        .arg(&nd)
        .arg(&info)
        .arg(&inp)
        .arg(&mut out)
        .arg(&mul)
        .arg(&add);
    // SAFETY: candle's `affine_f32(numel, num_dims, info, inp, out, mul, add)`: the arguments
    // match that signature; `info` holds the 2 dims and 2 strides it reads, `inp` and `out` hold
    // `n` f32 each, and one thread per element never indexes past `numel`.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (c, r) = (i / rows, i % rows);
            x[r * cols + c] * mul + add
        })
        .collect();
    Ok(close(&got, &want, 1e-6))
}

fn unary(
    stream: &Arc<CudaStream>,
    m: &Arc<CudaModule>,
    name: &str,
    cpu: fn(f32) -> f32,
) -> Result<Check, DriverError> {
    let f = m.load_function(name)?;
    let n = 10_000usize;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 / n as f32) * 8.0 - 4.0).collect();
    let inp = stream.clone_htod(&x)?;
    let mut out = stream.alloc_zeros::<f32>(n)?;
    let (numel, nd, null) = (n, 1usize, 0u64); // null info: the contiguous path
    let mut b = stream.launch_builder(&f);
    b.arg(&numel).arg(&nd).arg(&null).arg(&inp).arg(&mut out);
    // SAFETY: candle's unary `(numel, num_dims, info, inp, out)`: a null `info` selects the
    // contiguous path, `inp` and `out` hold `n` f32 each, and no thread goes past `numel`.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<f32> = x.iter().map(|&v| cpu(v)).collect();
    Ok(close(&got, &want, 1e-5))
}

fn badd_broadcast(stream: &Arc<CudaStream>, m: &Arc<CudaModule>) -> Result<Check, DriverError> {
    let f = m.load_function("badd_f32")?;
    let (rows, cols) = (64usize, 129usize);
    let n = rows * cols;
    let l: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let r: Vec<f32> = (0..cols).map(|j| -(j as f32)).collect();
    let (lhs, rhs) = (stream.clone_htod(&l)?, stream.clone_htod(&r)?);
    let mut out = stream.alloc_zeros::<f32>(n)?;
    // dims, lhs strides, rhs strides (rhs broadcast over rows).
    let info = stream.clone_htod(&[rows, cols, cols, 1, 0, 1usize])?;
    let (numel, nd) = (n, 2usize);
    let mut b = stream.launch_builder(&f);
    b.arg(&numel)
        .arg(&nd)
        .arg(&info)
        .arg(&lhs)
        .arg(&rhs)
        .arg(&mut out);
    // SAFETY: candle's `badd_f32(numel, num_dims, info, lhs, rhs, out)`: `info` holds the 2
    // dims and both 2 strides it reads (rhs stride 0 over rows stays inside its `cols` values),
    // `lhs` and `out` hold `n` f32, and no thread goes past `numel`.
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<f32> = (0..n).map(|i| l[i] + r[i % cols]).collect();
    Ok(close(&got, &want, 0.0))
}

fn gelu(x: f32) -> f32 {
    let k = (2.0f32 / std::f32::consts::PI).sqrt();
    0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: candle_kernels <candle-kernels/src> [CUDA include dir]");
        std::process::exit(2);
    };
    let cuda_inc = args
        .next()
        .or_else(|| {
            std::env::var("CUDA_PATH")
                .ok()
                .map(|p| format!("{p}/include"))
        })
        .unwrap_or_else(|| "/usr/local/cuda/include".into());
    // candle expects the toolkit's full cuda_fp16.h/cuda_bf16.h, not anycuda's minimal built-ins.
    std::env::set_var("ANYCUDA_BUILTIN_HEADERS", "0");
    let shim = shim_dir();
    let include = vec![
        shim.display().to_string(),
        cuda_inc,
        dir.display().to_string(),
    ];
    let require_gpu = std::env::var_os("ANYCUDA_REQUIRE_GPU").is_some();

    let ctx = CudaContext::new(0);
    let arch: &'static str = match &ctx {
        Ok(c) => {
            let (maj, min) = c.compute_capability().unwrap_or((9, 0));
            Box::leak(format!("sm_{maj}{min}").into_boxed_str())
        }
        Err(_) => "sm_90",
    };
    let mut failed = 0;
    let mut modules = Vec::new();
    for file in ["affine.cu", "unary.cu", "binary.cu"] {
        match compile(&dir, &include, file, arch) {
            Ok(p) => {
                println!("PASS compile {file} ({arch})");
                modules.push(p);
            }
            Err(e) => {
                println!("FAIL compile {e}");
                failed += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&shim);
    let ctx = match ctx {
        Ok(c) if failed == 0 => c,
        Ok(_) => std::process::exit(1),
        Err(e) => {
            println!("SKIP launches: no GPU ({e})");
            std::process::exit(if require_gpu || failed > 0 { 1 } else { 0 });
        }
    };
    let stream = ctx.default_stream();
    let run = || -> Result<Vec<(&str, Check)>, DriverError> {
        let mut it = modules.into_iter();
        let aff = ctx.load_module(it.next().unwrap())?;
        let una = ctx.load_module(it.next().unwrap())?;
        let bin = ctx.load_module(it.next().unwrap())?;
        Ok(vec![
            ("affine_f32 (strided)", affine(&stream, &aff)?),
            ("uexp_f32", unary(&stream, &una, "uexp_f32", f32::exp)?),
            ("ugelu_f32", unary(&stream, &una, "ugelu_f32", gelu)?),
            ("usqr_f32", unary(&stream, &una, "usqr_f32", |x| x * x)?),
            ("badd_f32 (broadcast)", badd_broadcast(&stream, &bin)?),
        ])
    };
    match run() {
        Ok(results) => {
            for (name, r) in results {
                match r {
                    Ok(()) => println!("PASS {name}"),
                    Err(e) => {
                        println!("FAIL {name}: {e}");
                        failed += 1;
                    }
                }
            }
        }
        Err(e) => {
            println!("FAIL driver: {e}");
            failed += 1;
        }
    }
    std::process::exit(i32::from(failed > 0));
}
