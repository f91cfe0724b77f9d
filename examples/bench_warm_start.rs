//! Cold and warm start of a set of kernel modules through anycuda's program cache: each `.cu`
//! file compiled once into an empty cache (cold: the compiler runs), then again as a new
//! program with the same inputs (warm: the cache answers). The figure the candle issue asks
//! for: the warm start of all modules against the cold compile, in percent (target: under 5%).
//!
//! ```text
//! cargo run --release --example bench_warm_start -- --backend hip --arch gfx90a DIR_OR_FILES...
//! cargo run --release --example bench_warm_start -- --bundles --arch gfx90a DIR_OR_FILES...
//! ```
//!
//! `--bundles` (HIP): the route of kernels built by `anycuda nvcc` (candle-kernels'): each file's
//! source bundle (the file and its local headers, `-std=c++17` as candle's build passes) compiled
//! by `anycuda_hip::rtc_bundle::compile_bundle_cached`, the function a module load calls, through
//! the persistent cache anycuda installs (`ANYCUDA_CACHE_DIR`, set here to the fresh folder).
//!
//! Each file compiles as `anycuda compile` compiles it (its folder on the include path, so local
//! headers resolve), for `--arch` (default: sm_90 on CUDA, gfx90a on HIP; no GPU needed). The
//! cache is a fresh folder under the system's temporary folder, removed at the end. Prints one
//! line per file and a `RESULT` line with the totals. Exits 1 if a cold compile was a cache hit
//! or a warm output differs from the cold one; a file the cache does not take (a header its text
//! names cannot be resolved) is marked and counted as compiled twice.

use anycuda::core::{CodeType, FileProgramCache, Program, ProgramCache, ProgramOptions};
use anycuda::BackendKind;
use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn Error>> {
    let mut kind = BackendKind::Cuda;
    let mut arch: Option<String> = None;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut bundles = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--backend" => {
                kind = match args.next().as_deref() {
                    Some("cuda") => BackendKind::Cuda,
                    Some("hip") => BackendKind::Hip,
                    other => return Err(format!("--backend cuda|hip, not {other:?}").into()),
                }
            }
            "--arch" => arch = Some(args.next().ok_or("--arch needs a target")?),
            "--bundles" => {
                bundles = true;
                kind = BackendKind::Hip;
            }
            path => {
                let p = PathBuf::from(path);
                if p.is_dir() {
                    let mut cu: Vec<PathBuf> = std::fs::read_dir(&p)?
                        .flatten()
                        .map(|e| e.path())
                        .filter(|f| f.extension().is_some_and(|e| e == "cu"))
                        .collect();
                    cu.sort();
                    files.extend(cu);
                } else {
                    files.push(p);
                }
            }
        }
    }
    if files.is_empty() {
        eprintln!(
            "usage: bench_warm_start [--backend cuda|hip] [--arch ARCH] DIR_OR_FILE.cu...\n\
             (no files given: nothing measured)"
        );
        return Ok(());
    }
    let arch = arch.unwrap_or_else(|| {
        match kind {
            BackendKind::Cuda => "sm_90",
            _ => "gfx90a",
        }
        .to_owned()
    });
    let dir = std::env::temp_dir().join(format!("anycuda-warm-start-{}", std::process::id()));
    if bundles {
        // The bundle route's cache is the one anycuda installs when the HIP backend loads.
        std::env::set_var("ANYCUDA_CACHE_DIR", &dir);
        std::env::remove_var("ANYCUDA_CACHE_DISABLE");
    }
    let backend = anycuda::Backend::load(kind)?;
    let cache: Arc<dyn ProgramCache> = Arc::new(FileProgramCache::new(&dir, 1 << 30));
    let arch_opt = format!("--gpu-architecture={arch}");
    let (mut cold_total, mut warm_total) = (Duration::ZERO, Duration::ZERO);
    let mut failed = false;
    let route = if bundles {
        "source bundles"
    } else {
        "programs"
    };
    println!("{kind} {arch}, {route}: file, cold (compiler), warm (cache), warm/cold");
    for f in &files {
        let src = std::fs::read_to_string(f)?;
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let inc = anycuda_rtc::rtc_include::source_folder_option(f)
            .ok_or_else(|| format!("{}: no folder", f.display()))?;
        let run = || -> Result<(Duration, bool, Vec<u8>), Box<dyn Error>> {
            let t = Instant::now();
            if bundles {
                let (code, hit) = bundle_compile(backend, f, &arch)?;
                return Ok((t.elapsed(), hit, code));
            }
            let mut p = Program::with_backend(backend, &src, ProgramOptions::new().name(&name))?
                .with_cache(Some(cache.clone()));
            p.compile_with_args(&[inc.as_str(), arch_opt.as_str()])?;
            let code = p.output(CodeType::Cubin)?.code().to_vec();
            Ok((t.elapsed(), p.cache_hit(), code))
        };
        let (cold, cold_hit, cold_code) = run()?;
        let (warm, warm_hit, warm_code) = run()?;
        if cold_hit || cold_code != warm_code {
            eprintln!(
                "{name}: cold hit {cold_hit}, same code {}",
                cold_code == warm_code
            );
            failed = true;
        }
        // A compile whose headers cannot all be known from the text (an `#include` nothing on
        // the search path resolves, say under a preprocessor branch) is never cached: it runs.
        let note = if warm_hit {
            ""
        } else {
            " (not cached: a header its text names cannot be resolved, so the compile runs)"
        };
        println!(
            "{name}: {:.3} s, {:.2} ms, {:.2}%{note}",
            cold.as_secs_f64(),
            warm.as_secs_f64() * 1e3,
            100.0 * warm.as_secs_f64() / cold.as_secs_f64()
        );
        cold_total += cold;
        warm_total += warm;
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "RESULT {kind} {arch} {route} files={} cold_s={:.3} warm_s={:.4} warm_pct={:.2}",
        files.len(),
        cold_total.as_secs_f64(),
        warm_total.as_secs_f64(),
        100.0 * warm_total.as_secs_f64() / cold_total.as_secs_f64()
    );
    if failed {
        std::process::exit(1);
    }
    Ok(())
}

/// One file's source bundle (its local headers, `-std=c++17`) compiled for `arch` by the HIP
/// backend's bundle route, through the installed cache: the code, and whether it was a hit.
#[cfg(feature = "backend-hip")]
fn bundle_compile(
    backend: anycuda::Backend,
    f: &std::path::Path,
    arch: &str,
) -> Result<(Vec<u8>, bool), Box<dyn Error>> {
    let hip = backend.as_hip().ok_or("--bundles needs the HIP backend")?;
    let folder = f.parent().map(PathBuf::from).unwrap_or_default();
    let mut b = anycuda_rtc::rtc_bundle::gather(f, &[folder])?;
    b.options = vec!["-std=c++17".to_owned()];
    Ok(
        anycuda_hip::rtc_bundle::compile_bundle_cached(hip, &b, Some(arch))
            .map_err(|e| e.to_string())?,
    )
}

/// Without the HIP backend compiled in there is no bundle route.
#[cfg(not(feature = "backend-hip"))]
fn bundle_compile(
    _backend: anycuda::Backend,
    _f: &std::path::Path,
    _arch: &str,
) -> Result<(Vec<u8>, bool), Box<dyn Error>> {
    Err("--bundles needs the HIP backend (the `backend-hip` feature)".into())
}
