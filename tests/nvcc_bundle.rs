//! `anycuda nvcc --ptx` on real kernels (candle-kernels' .cu files with their local .cuh
//! headers), without nvcc: NVRTC writes the PTX, the front end appends the source bundle, and
//! the bundle, read back from the PTX, compiles with hipRTC for gfx90a through the function the
//! HIP backend's module load calls. Real compilers only; no GPU needed. Needs both backends
//! (NVRTC writes, hipRTC reads): the single-backend builds leave the file out.
#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;

use anycuda::BackendKind;
use anycuda_rtc::rtc_bundle::Bundle;
use std::path::PathBuf;
use std::process::Command;

/// The files compiled: each includes local headers (`cuda_utils.cuh`, and through it
/// `compatibility.cuh`; binary.cu also `binary_op_macros.cuh`).
const FILES: [&str; 3] = ["affine.cu", "binary.cu", "fill.cu"];

fn kernel_dir() -> Option<PathBuf> {
    let dir = common::real_corpus()?
        .into_iter()
        .map(|(src, _)| src)
        .find(|d| d.join("affine.cu").is_file());
    assert!(
        dir.is_some(),
        "no corpus crate holds candle-kernels' affine.cu"
    );
    dir
}

#[test]
fn nvcc_front_end_bundles_real_kernels_that_hiprtc_compiles() {
    let Some(src) = kernel_dir() else { return };
    if common::compiler(BackendKind::Cuda).is_none() {
        return;
    }
    let Some(hip) = common::compiler(BackendKind::Hip) else {
        return;
    };
    let hip = hip.as_hip().expect("the HIP backend");
    let out = std::env::temp_dir().join(format!("anycuda-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let bin = common::anycuda_bin();
    for file in FILES {
        // bindgen_cuda's command line (cudaforge's differs only in -gencode=... and --threads).
        let o = Command::new(&bin)
            .args([
                "nvcc",
                "--gpu-architecture=sm_90",
                "--ptx",
                "--default-stream",
                "per-thread",
                "--output-directory",
            ])
            .arg(&out)
            .args(["--expt-relaxed-constexpr", "-std=c++17", "-O3"])
            .arg(format!("-I{}", src.display()))
            .arg(src.join(file))
            // NVRTC itself, not a cached result of an earlier run.
            .env("ANYCUDA_CACHE_DISABLE", "1")
            .env_remove("ANYCUDA_REAL_NVCC")
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let ptx_path = out.join(file.replace(".cu", ".ptx"));
        let ptx = std::fs::read_to_string(&ptx_path).unwrap();
        // Still NVRTC's PTX: its header and entries come first, untouched.
        assert!(
            ptx.contains(".version ") && ptx.contains(".target sm_90"),
            "{file}"
        );
        let want = common::ptx_entries(&ptx);
        assert!(!want.is_empty(), "{file}: NVRTC found no kernels");
        let bundle = Bundle::find(&ptx).unwrap().expect("a source bundle");
        assert_eq!(bundle.name, file);
        assert_eq!(
            bundle.source,
            std::fs::read_to_string(src.join(file)).unwrap()
        );
        let headers: Vec<&str> = bundle.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert!(headers.contains(&"cuda_utils.cuh"), "{file}: {headers:?}");
        assert!(
            headers.contains(&"compatibility.cuh"),
            "{file}: {headers:?}"
        );
        assert!(
            !headers
                .iter()
                .any(|h| h.starts_with("cuda_fp16") || h.starts_with("cuda_bf16")),
            "{file}: CUDA headers bundled: {headers:?}"
        );
        assert_eq!(bundle.arch.as_deref(), Some("sm_90"));
        assert!(bundle.options.iter().any(|o| o == "-std=c++17"));
        assert!(bundle.producer.starts_with("NVRTC"), "{}", bundle.producer);
        // The bundle compiles for AMD, every kernel NVRTC found included.
        let cold = std::time::Instant::now();
        let code = anycuda_hip::rtc_bundle::compile_bundle(hip, &bundle, Some("gfx90a"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(code.starts_with(b"\x7fELF") && u16::from_le_bytes([code[18], code[19]]) == 224);
        for k in &want {
            let sym = format!("{k}.kd\0");
            assert!(
                code.windows(sym.len()).any(|w| w == sym.as_bytes()),
                "{file}: kernel {k} missing from the code object"
            );
        }
        let cold = cold.elapsed();
        let mut warm_time = None;
        // Through anycuda's program cache (installed when the HIP backend loaded): the second
        // compile of the same bundle for the same target is served from it.
        if anycuda::core::cache::default_cache().is_some() {
            anycuda_hip::rtc_bundle::compile_bundle_cached(hip, &bundle, Some("gfx90a")).unwrap();
            let t = std::time::Instant::now();
            let warm = anycuda_hip::rtc_bundle::compile_bundle_cached(hip, &bundle, Some("gfx90a"))
                .unwrap();
            warm_time = Some(t.elapsed());
            assert!(warm.1, "{file}: the second compile was not a cache hit");
            assert!(warm.0.starts_with(b"\x7fELF"));
        }
        println!(
            "NVCC-BUNDLE {file}: {} kernels, {} headers, {} bundle lines; hipRTC {cold:.2?}, \
             from the cache {warm_time:.2?}",
            want.len(),
            bundle.headers.len(),
            ptx.lines()
                .filter(|l| l.starts_with("// anycuda-bundle:"))
                .count()
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn other_modes_without_nvcc_fail_clearly() {
    let bin = common::anycuda_bin();
    let o = Command::new(&bin)
        .args(["nvcc", "-c", "-o", "k.o", "k.cu"])
        .env_remove("ANYCUDA_REAL_NVCC")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no real nvcc found"), "{err}");
    // A real nvcc is run for them, with the arguments unchanged, and its exit code passed on.
    let dir = std::env::temp_dir().join(format!("anycuda-fake-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fake = dir.join("nvcc");
    std::fs::write(&fake, "#!/bin/sh\necho \"args: $*\"\nexit 7\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let o = Command::new(&bin)
        .args(["nvcc", "--version", "-v"])
        .env_remove("ANYCUDA_REAL_NVCC")
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "args: --version -v\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_real_nvccs_ptx_gets_the_bundle_and_a_wrapper_loop_is_stopped() {
    let bin = common::anycuda_bin();
    let dir = std::env::temp_dir().join(format!("anycuda-real-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cu"), "#include \"k.cuh\"\n").unwrap();
    std::fs::write(dir.join("k.cuh"), "#define K 1\n").unwrap();
    // A stand-in for NVIDIA's nvcc: writes PTX to the file after -o (no trailing newline).
    let fake = dir.join("fake-nvcc");
    std::fs::write(
        &fake,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n\
         printf '.version 8.0\\n.target sm_90' > \"$out\"\n",
    )
    .unwrap();
    // A wrapper named nvcc that runs the front end again.
    let wrapper = dir.join("nvcc");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec {} nvcc \"$@\"\n", bin.display()),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        for f in [&fake, &wrapper] {
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let out = dir.join("k.ptx");
    let o = Command::new(&bin)
        .args(["nvcc", "--ptx", "-arch=sm_90", "-DX=2", "-o"])
        .arg(&out)
        .arg(dir.join("k.cu"))
        .env("ANYCUDA_REAL_NVCC", &fake)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert!(ptx.starts_with(".version 8.0\n.target sm_90\n// anycuda-bundle: v1 "));
    let b = Bundle::find(&ptx).unwrap().unwrap();
    assert_eq!(b.producer, "nvcc");
    assert_eq!(
        b.headers,
        [("k.cuh".to_owned(), "#define K 1\n".to_owned())]
    );
    assert_eq!(b.options, ["-DX=2"]);
    // The nvcc on PATH is a wrapper of the front end: stopped with a message, not a loop.
    let o = Command::new(&bin)
        .args(["nvcc", "--version"])
        .env_remove("ANYCUDA_REAL_NVCC")
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ANYCUDA_REAL_NVCC"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The CUDA backend's rescue of PTX its driver refuses (backends/cuda/src/rtc_bundle.rs)
/// compiles the bundle with NVRTC into a cubin, through the same function the HIP backend
/// uses: here for sm_90 without a GPU, with the bundle's header and define both needed. The
/// load itself, on a driver that refuses the PTX, is `ptx_the_driver_refuses_loads_from_its_source_bundle`
/// in tests/gpu_suite.rs.
#[test]
fn a_bundle_compiles_into_a_cubin_with_nvrtc() {
    let Some(b) = common::compiler(BackendKind::Cuda) else {
        return;
    };
    let cuda = b.as_cuda().expect("the CUDA backend");
    let bundle = common::step_bundle();
    let target = Some("--gpu-architecture=sm_90");
    let code = anycuda_rtc::rtc_bundle::compile(cuda, &bundle, target).unwrap();
    assert!(code.starts_with(b"\x7fELF"), "not an ELF");
    assert_eq!(u16::from_le_bytes([code[18], code[19]]), 190, "not EM_CUDA");
    assert!(
        code.windows(9).any(|w| w == b"add_step\0"),
        "the kernel is missing"
    );
    let mut no_header = bundle.clone();
    no_header.headers.clear();
    let e = anycuda_rtc::rtc_bundle::compile(cuda, &no_header, target).unwrap_err();
    assert!(e.log.contains("step.cuh"), "{e}");
    let mut no_define = bundle.clone();
    no_define.options.clear();
    let e = anycuda_rtc::rtc_bundle::compile(cuda, &no_define, target).unwrap_err();
    assert!(e.log.contains("STEP"), "{e}");
}
