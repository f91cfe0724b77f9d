//! candle-kernels' PTX as candle's own build wrote it: `ci/candle-ci.sh` checks candle-core
//! 0.11.1 with `--features cuda` on the facade, `anycuda nvcc` (over NVIDIA's nvcc 13.0) as
//! `NVCC`, and names candle-kernels' build output folder in `ANYCUDA_CANDLE_PTX_DIR`. Ignored in
//! a plain `cargo test` (the build takes minutes; the step that makes it runs these tests with
//! `--include-ignored`), and failing when run without that folder.
//!
//! - Every PTX module in that folder is one of the corpus files tests/rocm_real_corpus.rs
//!   compiles (candle-kernels 0.11.1's PTX modules, fetched by ci/rocm/fetch-kernels.sh), and
//!   every corpus file has its module: the 11 modules.
//! - Each module is nvcc's PTX (kernels, `.version`, `.target`) and carries a source bundle,
//!   read back with anycuda's reader ([`Bundle::find`]), written after the real nvcc ran
//!   (producer `nvcc`), whose source and every header are byte for byte the corpus's files. So
//!   the corpus test's hipRTC compiles (5.2.3, 5.7.1 and 6.4.3; gfx90a, gfx942, gfx1100) are
//!   compiles of exactly what these bundles carry.
//! - Each bundle equals what the current front end's gatherer ([`rtc_bundle::gather`]) makes of
//!   the same file: PTX written by an older front end (a stale build cache) fails here.
//! - With the HIP backend, the smallest bundle compiles for gfx90a through the function a module
//!   load of such PTX calls (`compile_bundle_cached`), every kernel of the PTX in the code object.

mod common;

use anycuda_rtc::rtc_bundle::{self, Bundle};
use std::path::{Path, PathBuf};

/// Why the tests are ignored in a plain `cargo test`: they read what candle's build wrote.
const NEEDS: &str =
    "reads candle's PTX from ANYCUDA_CANDLE_PTX_DIR: run by ci/candle-ci.sh (--include-ignored)";

/// The folder named by `ANYCUDA_CANDLE_PTX_DIR`. The tests are `#[ignore]`d, so they run only
/// when asked for; asked for without the folder, they fail rather than pass having read nothing.
fn ptx_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("ANYCUDA_CANDLE_PTX_DIR").expect(NEEDS))
}

/// candle-kernels' folder and PTX-module files in the real-world corpus.
fn corpus() -> (PathBuf, Vec<PathBuf>) {
    common::real_corpus()
        .expect("the real-world kernel corpus (bash ci/rocm/fetch-kernels.sh)")
        .into_iter()
        .find(|(src, _)| {
            src.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n.to_string_lossy().starts_with("candle-kernels-"))
        })
        .expect("candle-kernels in tests/kernels/real/crates.txt")
}

/// One module: its corpus file, PTX text and bundle.
struct Module {
    file: PathBuf,
    ptx: String,
    bundle: Bundle,
}

/// Every `.ptx` file in `dir` with its bundle, after checking the set against the corpus.
fn modules(dir: &Path) -> Vec<Module> {
    let (src, files) = corpus();
    let mut ptx: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    ptx.sort();
    let stems = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        stems(&ptx),
        stems(&files),
        "the PTX modules in {} are not the corpus's files in {}",
        dir.display(),
        src.display()
    );
    assert_eq!(ptx.len(), 11, "candle-kernels 0.11.1 has 11 PTX modules");
    ptx.iter()
        .zip(files)
        .map(|(p, file)| {
            let text = std::fs::read_to_string(p).unwrap();
            let bundle = Bundle::find(&text)
                .unwrap_or_else(|e| panic!("{}: bad source bundle: {e}", p.display()))
                .unwrap_or_else(|| panic!("{}: no source bundle", p.display()));
            Module {
                file,
                ptx: text,
                bundle,
            }
        })
        .collect()
}

#[test]
#[ignore = "reads candle's PTX from ANYCUDA_CANDLE_PTX_DIR: run by ci/candle-ci.sh (--include-ignored)"]
fn every_candle_ptx_module_carries_the_corpus_file_as_its_bundle() {
    let dir = ptx_dir();
    let mods = modules(&dir);
    let src = corpus().0;
    for m in &mods {
        let name = m.file.file_name().unwrap().to_string_lossy().into_owned();
        let b = &m.bundle;
        // nvcc's PTX, the bundle after it.
        assert!(m.ptx.starts_with("//") || m.ptx.starts_with('.'), "{name}");
        assert!(
            m.ptx.contains("\n.version ") && m.ptx.contains("\n.target sm_"),
            "{name}"
        );
        let kernels = common::ptx_entries(&m.ptx);
        assert!(!kernels.is_empty(), "{name}: no kernels in the PTX");
        assert_eq!(
            b.producer, "nvcc",
            "{name}: not written after the real nvcc"
        );
        assert_eq!(b.name, name);
        assert!(
            b.options.iter().any(|o| o == "-std=c++17"),
            "{name}: {:?}",
            b.options
        );
        // The corpus's files, byte for byte.
        let want = std::fs::read_to_string(&m.file).unwrap();
        assert!(
            b.source == want,
            "{name}: the bundled source differs from {}",
            m.file.display()
        );
        for (h, text) in &b.headers {
            let file = src.join(h);
            let want = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{name}: bundled header {h}: {}: {e}", file.display()));
            assert!(
                *text == want,
                "{name}: bundled {h} differs from {}",
                file.display()
            );
        }
        // What the current front end bundles for the same file.
        let include_dirs: Vec<PathBuf> = b.include_dirs.iter().map(PathBuf::from).collect();
        let now = rtc_bundle::gather(&m.file, &include_dirs).unwrap();
        assert_eq!(
            (&now.name, &now.source, &now.headers),
            (&b.name, &b.source, &b.headers),
            "{name}: the PTX's bundle is not what this front end bundles (a stale build?)"
        );
        let headers: Vec<&str> = b.headers.iter().map(|(h, _)| h.as_str()).collect();
        println!(
            "CANDLE-PTX {name}: {} kernels, bundle = corpus file + {headers:?}, arch {:?}",
            kernels.len(),
            b.arch
        );
    }
    // The local headers most modules include (quantized.cu includes none).
    let with_utils = mods
        .iter()
        .filter(|m| m.bundle.headers.iter().any(|(h, _)| h == "cuda_utils.cuh"))
        .count();
    assert!(
        with_utils >= 9,
        "cuda_utils.cuh bundled in only {with_utils} modules"
    );
    let kernels: usize = mods.iter().map(|m| common::ptx_entries(&m.ptx).len()).sum();
    println!(
        "CANDLE-PTX {} modules ({kernels} kernels) from {}: every one bundled, equal to the corpus",
        mods.len(),
        dir.display()
    );
}

#[cfg(feature = "backend-hip")]
#[test]
#[ignore = "reads candle's PTX from ANYCUDA_CANDLE_PTX_DIR: run by ci/candle-ci.sh (--include-ignored)"]
fn a_candle_bundle_compiles_through_the_module_load_function() {
    let dir = ptx_dir();
    let Some(hip) = common::compiler(anycuda::BackendKind::Hip) else {
        return;
    };
    let hip = hip.as_hip().expect("the HIP backend");
    // The smallest (the corpus test compiles all of them, for every target).
    let m = modules(&dir)
        .into_iter()
        .min_by_key(|m| m.bundle.to_text().unwrap().len())
        .unwrap();
    let (code, _) = anycuda_hip::rtc_bundle::compile_bundle_cached(hip, &m.bundle, Some("gfx90a"))
        .unwrap_or_else(|e| panic!("{}: {e}", m.bundle.name));
    assert_eq!(common::elf_machine(&code), Some(common::EM_AMDGPU));
    let syms = common::elf_symbols(&code);
    let kernels = common::ptx_entries(&m.ptx);
    for k in &kernels {
        assert!(
            syms.contains(k) && syms.contains(&format!("{k}.kd")),
            "{}: kernel {k} missing from the code object",
            m.bundle.name
        );
    }
    println!(
        "CANDLE-PTX {}: bundle compiled by hipRTC {} for gfx90a, {} kernels",
        m.bundle.name,
        anycuda::native::hip::version_string(hip.hip_version()),
        kernels.len()
    );
}

/// The modules [`candle_ptx_translates_and_compiles_for_amd`] compiles by default: all but
/// quantized.ptx (its bundle's name, quantized.cu, names it here), whose translation (6 MB of PTX, 142 kernels) takes hipRTC 5.2.3 about 6.5
/// minutes for one target on the 2-core CI machine (2026-11-29). `ANYCUDA_CANDLE_PTX_COMPILE=all`
/// compiles it too; its translation is checked either way, and it runs on the GPU machine.
#[cfg(feature = "backend-hip")]
const SLOW_TO_COMPILE: &[&str] = &["quantized.cu"];

/// candle-kernels' PTX through the PTX route, not its bundles: every module translates (the
/// bundle's comment lines are not PTX and are skipped), the translation has every kernel of the
/// PTX, and hipRTC compiles it for the AMD targets in `ANYCUDA_CANDLE_PTX_ARCHES` (comma-separated,
/// default `gfx90a`), the code object holding every kernel and its `.kd`. Compiles go through a
/// program cache in `ANYCUDA_CANDLE_PTX_CACHE` when set (ci/candle-ci.sh: in its cache folder),
/// keyed by the translated source, the hipRTC library and the target, so an unchanged
/// translation is compiled once; without it every run compiles.
#[cfg(feature = "backend-hip")]
#[test]
#[ignore = "reads candle's PTX from ANYCUDA_CANDLE_PTX_DIR: run by ci/candle-ci.sh (--include-ignored)"]
fn candle_ptx_translates_and_compiles_for_amd() {
    use anycuda::core::{cache::FileProgramCache, CodeType, Program, ProgramOptions};
    use std::sync::Arc;
    let dir = ptx_dir();
    let hip = common::compiler(anycuda::BackendKind::Hip).expect("hipRTC (the HIP backend)");
    let archs: Vec<String> = std::env::var("ANYCUDA_CANDLE_PTX_ARCHES")
        .unwrap_or_else(|_| "gfx90a".into())
        .split(',')
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty())
        .collect();
    assert!(
        !archs.is_empty(),
        "ANYCUDA_CANDLE_PTX_ARCHES names no target"
    );
    let all = std::env::var("ANYCUDA_CANDLE_PTX_COMPILE").is_ok_and(|v| v == "all");
    let cache = std::env::var_os("ANYCUDA_CANDLE_PTX_CACHE").map(|d| {
        Arc::new(FileProgramCache::new(PathBuf::from(d), 256 << 20))
            as Arc<dyn anycuda::core::cache::ProgramCache>
    });
    let mut kernels_total = 0;
    // Translate every module, then compile (module, target) pairs on every core.
    let mut jobs = Vec::new();
    for m in modules(&dir) {
        let name = m.bundle.name.clone();
        let t0 = std::time::Instant::now();
        let t = anycuda_rtc::ptx::translate(&m.ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut want = common::ptx_entries(&m.ptx);
        want.sort();
        let mut got = t.entries.clone();
        got.sort();
        assert_eq!(got, want, "{name}: the translation's kernels");
        kernels_total += want.len();
        println!(
            "CANDLE-PTX {name}: translated in {:.0?}: {} kernels, {} KiB of C++",
            t0.elapsed(),
            want.len(),
            t.source.len() / 1024
        );
        if !all && SLOW_TO_COMPILE.contains(&name.as_str()) {
            println!("CANDLE-PTX {name}: not compiled here (ANYCUDA_CANDLE_PTX_COMPILE=all does)");
            continue;
        }
        let source = Arc::new(t.source);
        for arch in &archs {
            jobs.push((name.clone(), source.clone(), want.clone(), arch.clone()));
        }
    }
    common::par_map(&jobs, |(name, source, want, arch)| {
        let t1 = std::time::Instant::now();
        let mut p = Program::with_backend(hip, source.as_str(), ProgramOptions::new().name(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .with_cache(cache.clone());
        p.compile_with_args(&[format!("--gpu-architecture={arch}")])
            .unwrap_or_else(|e| panic!("{name} for {arch}: hipRTC refused the translation: {e}"));
        let code = common::code(&p, CodeType::Cubin);
        assert_eq!(
            common::elf_machine(&code),
            Some(common::EM_AMDGPU),
            "{name} {arch}"
        );
        let syms = common::elf_symbols(&code);
        for k in want {
            assert!(
                syms.contains(k) && syms.contains(&format!("{k}.kd")),
                "{name} for {arch}: kernel {k} missing from the code object"
            );
        }
        println!(
            "CANDLE-PTX {name}: hipRTC {} for {arch} in {:.0?}{}",
            anycuda::native::hip::version_string(hip.as_hip().unwrap().hip_version()),
            t1.elapsed(),
            if p.cache_hit() {
                " (program cache)"
            } else {
                ""
            }
        );
    });
    println!("CANDLE-PTX every module translated ({kernels_total} kernels)");
}
