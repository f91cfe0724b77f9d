//! `anycuda::core`'s program cache with the real compilers (NVRTC 13.5, hipRTC 5.2.3), no GPU:
//! hits and misses by each part of the key, damaged entries, least-recently-used eviction, two
//! processes racing on one key, `ANYCUDA_CACHE_DISABLE`, an unwritable folder, and the cold and
//! warm compile time of the kernel corpus.

mod common;

use anycuda::core::cache::{default_cache, CACHE_DIR_ENV, CACHE_DISABLE_ENV};
use anycuda::core::{
    CodeType, FileProgramCache, InMemoryProgramCache, Program, ProgramCache, ProgramOptions,
};
use anycuda::{Backend, BackendKind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const KERNEL: &str = r#"
#include "scale.h"
extern "C" __global__ void scale(float *x, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * FACTOR;
}
"#;

/// [`KERNEL`] with its factor defined inline instead of by the header.
fn inline(factor: u32) -> String {
    KERNEL.replace(
        "#include \"scale.h\"",
        &format!("#define FACTOR {factor}.0f"),
    )
}

/// Whether a child test process succeeded having run exactly one test (a misspelt test name
/// runs none and succeeds).
fn ran_one(out: &std::process::Output) -> bool {
    out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed")
}

/// A fresh, empty folder for one test.
fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("anycuda-cache-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn nvrtc() -> Option<Backend> {
    common::compiler(BackendKind::Cuda)
}

/// Compiles `src` to PTX on `b` with `cache`, the include folder `inc` and `opts` on top of
/// `sm_90`: (the PTX, whether it came from the cache).
fn compile(
    b: Backend,
    cache: &Arc<dyn ProgramCache>,
    src: &str,
    inc: &Path,
    opts: ProgramOptions,
) -> (Vec<u8>, bool) {
    let opts = opts.include_path(inc.to_str().unwrap());
    let mut p = Program::with_backend(b, src, opts)
        .unwrap()
        .with_cache(Some(cache.clone()));
    let code = p.compile(CodeType::Ptx).unwrap();
    (code.code().to_vec(), p.cache_hit())
}

fn sm90() -> ProgramOptions {
    ProgramOptions::new().arch("sm_90").name("scale.cu")
}

#[test]
fn each_part_of_the_key_decides_hit_or_miss() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("key");
    let inc = root.join("inc");
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::write(inc.join("scale.h"), "#define FACTOR 2.0f\n").unwrap();
    let store = FileProgramCache::new(root.join("cache"), 1 << 30);
    let cache: Arc<dyn ProgramCache> = Arc::new(store.clone());

    let (cold, hit) = compile(b, &cache, KERNEL, &inc, sm90());
    assert!(!hit, "an empty cache cannot hit");
    assert_eq!(store.entries().len(), 1);
    let (warm, hit) = compile(b, &cache, KERNEL, &inc, sm90());
    assert!(hit, "the same compile again must hit");
    assert_eq!(warm, cold, "a hit returns the compiler's own output");

    // The header's contents are part of the key, not only its name.
    std::fs::write(inc.join("scale.h"), "#define FACTOR 3.0f\n").unwrap();
    let (three, hit) = compile(b, &cache, KERNEL, &inc, sm90());
    assert!(!hit, "a changed header must miss");
    assert_ne!(three, cold);
    assert!(
        String::from_utf8_lossy(&three).contains("0f40400000"),
        "3.0f in the PTX"
    );
    std::fs::write(inc.join("scale.h"), "#define FACTOR 2.0f\n").unwrap();
    assert!(
        compile(b, &cache, KERNEL, &inc, sm90()).1,
        "the old header hits again"
    );

    // A header reached through another header counts too.
    std::fs::write(inc.join("scale.h"), "#include \"deep.h\"\n").unwrap();
    std::fs::write(inc.join("deep.h"), "#define FACTOR 4.0f\n").unwrap();
    assert!(!compile(b, &cache, KERNEL, &inc, sm90()).1);
    std::fs::write(inc.join("deep.h"), "#define FACTOR 5.0f\n").unwrap();
    assert!(
        !compile(b, &cache, KERNEL, &inc, sm90()).1,
        "a nested header change misses"
    );
    assert!(compile(b, &cache, KERNEL, &inc, sm90()).1);

    // Options, the target arch, the source and the program name.
    let misses = [
        ("an option", KERNEL.to_owned(), sm90().use_fast_math(true)),
        ("a macro", KERNEL.to_owned(), sm90().define("UNUSED", "1")),
        ("the arch", KERNEL.to_owned(), sm90().arch("sm_80")),
        ("the source", format!("{KERNEL}\n// changed"), sm90()),
        ("the name", KERNEL.to_owned(), sm90().name("other.cu")),
    ];
    for (what, src, opts) in misses {
        assert!(
            !compile(b, &cache, &src, &inc, opts.clone()).1,
            "changing {what} must miss"
        );
        assert!(compile(b, &cache, &src, &inc, opts).1, "{what}: then hit");
    }
    // Spellings NVRTC reads as the same option are one key: `-I dir`, `--include-path=dir` and
    // the typed options above (`--gpu-architecture=sm_90 --include-path=dir`) share the entry.
    let mut p = Program::with_backend(b, KERNEL, sm90())
        .unwrap()
        .with_cache(Some(cache.clone()));
    p.compile_with_args(&[
        "--gpu-architecture=sm_90".to_owned(),
        "-I".to_owned(),
        inc.to_str().unwrap().to_owned(),
    ])
    .unwrap();
    let first = p.cache_hit();
    let mut q = Program::with_backend(b, KERNEL, sm90())
        .unwrap()
        .with_cache(Some(cache.clone()));
    q.compile_with_args(&[
        "-arch=sm_90".to_owned(),
        format!("--include-path={}", inc.to_str().unwrap()),
    ])
    .unwrap();
    assert!(
        first && q.cache_hit(),
        "three spellings of one option list share an entry ({first}, {})",
        q.cache_hit()
    );
    assert_eq!(
        q.output(CodeType::Ptx).unwrap().code(),
        p.output(CodeType::Ptx).unwrap().code()
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_hit_serves_cubin_log_and_lowered_names() {
    let Some(b) = nvrtc() else { return };
    let cache: Arc<dyn ProgramCache> = Arc::new(InMemoryProgramCache::new(1 << 30));
    let src = "template <typename T> __global__ void twice(T *x) { x[threadIdx.x] *= 2; }\n\
               __global__ void unused_warns() { int unused; }";
    let run = || {
        let opts = ProgramOptions::new()
            .arch("sm_90")
            .name_expression("twice<float>");
        let mut p = Program::with_backend(b, src, opts)
            .unwrap()
            .with_cache(Some(cache.clone()));
        let code = p.compile(CodeType::Cubin).unwrap();
        (
            p.cache_hit(),
            code.code().to_vec(),
            code.code_type(),
            code.lowered_name("twice<float>").map(str::to_owned),
            p.log().to_owned(),
            p.output(CodeType::Ptx).unwrap().code().to_vec(),
        )
    };
    let cold = run();
    let warm = run();
    assert!(!cold.0 && warm.0);
    assert_eq!(cold.1, warm.1, "cubin");
    assert_eq!(warm.2, CodeType::Cubin);
    assert!(warm.1.starts_with(b"\x7fELF"));
    assert_eq!(cold.3, warm.3, "lowered name");
    assert!(warm.3.as_deref().is_some_and(|n| n.starts_with("_Z")));
    assert_eq!(cold.4, warm.4, "log");
    assert!(warm.4.contains("unused"), "the warning is kept: {}", warm.4);
    assert_eq!(cold.5, warm.5, "the PTX of the same compile");
    assert!(!warm.5.is_empty());
}

/// One way to damage an entry's bytes.
type Damage = fn(&mut Vec<u8>);

#[test]
fn a_damaged_entry_is_recompiled_and_replaced() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("damage");
    let store = FileProgramCache::new(root.join("cache"), 1 << 30);
    let cache: Arc<dyn ProgramCache> = Arc::new(store.clone());
    let src = format!("#include <stdint.h>\n{}", inline(2));
    let (good, hit) = compile(b, &cache, &src, &root, sm90());
    assert!(!hit);
    let entries = store.entries();
    assert_eq!(entries.len(), 1);
    let path = entries[0].0.clone();
    let intact = std::fs::read(&path).unwrap();

    let damages: [(&str, Damage); 4] = [
        ("truncated", |v| v.truncate(v.len() / 2)),
        ("a flipped payload byte", |v| *v.last_mut().unwrap() ^= 1),
        ("a flipped header byte", |v| v[3] ^= 0x20),
        ("empty", |v| v.clear()),
    ];
    for (what, damage) in damages {
        let mut bytes = intact.clone();
        damage(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let (code, hit) = compile(b, &cache, &src, &root, sm90());
        assert!(!hit, "{what}: a damaged entry is never loaded");
        assert_eq!(code, good, "{what}: compiled afresh");
        assert_eq!(std::fs::read(&path).unwrap(), intact, "{what}: replaced");
        assert!(
            compile(b, &cache, &src, &root, sm90()).1,
            "{what}: then hits"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn eviction_keeps_the_limit_and_drops_the_least_recently_used() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("evict");
    // One entry's size, measured, then a limit that holds two but not three.
    let probe = FileProgramCache::new(root.join("probe"), 1 << 30);
    let probe_arc: Arc<dyn ProgramCache> = Arc::new(probe.clone());
    let src = inline;
    compile(b, &probe_arc, &src(1), &root, sm90());
    let one = probe.entries()[0].1;
    let store = FileProgramCache::new(root.join("cache"), one * 5 / 2);
    let cache: Arc<dyn ProgramCache> = Arc::new(store.clone());
    let pause = || std::thread::sleep(Duration::from_millis(30)); // distinct modification times
    assert!(!compile(b, &cache, &src(1), &root, sm90()).1);
    pause();
    assert!(!compile(b, &cache, &src(2), &root, sm90()).1);
    pause();
    assert!(compile(b, &cache, &src(1), &root, sm90()).1, "touches 1");
    pause();
    assert!(!compile(b, &cache, &src(3), &root, sm90()).1);
    let total: u64 = store.entries().iter().map(|e| e.1).sum();
    assert!(
        total <= store.max_bytes(),
        "{total} > {}",
        store.max_bytes()
    );
    assert_eq!(store.entries().len(), 2);
    assert!(
        compile(b, &cache, &src(1), &root, sm90()).1,
        "recently used: kept"
    );
    assert!(compile(b, &cache, &src(3), &root, sm90()).1, "newest: kept");
    assert!(
        !compile(b, &cache, &src(2), &root, sm90()).1,
        "least recently used: evicted"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Child of [`two_processes_racing_one_key_both_succeed`]: compiles the race kernel into the
/// folder the parent names, many times over, as fast as it can.
#[test]
#[ignore = "run as a child process by two_processes_racing_one_key_both_succeed"]
fn child_races_one_key() {
    let dir = std::env::var_os("ANYCUDA_TEST_RACE_DIR").expect("run by the parent test");
    let b = nvrtc().expect("the parent checked the compiler");
    for i in 0..20 {
        // A fresh cache instance each time, as a new process would have.
        let cache: Arc<dyn ProgramCache> = Arc::new(FileProgramCache::new(&dir, 1 << 20));
        let (code, _) = compile(b, &cache, KERNEL, Path::new(&dir).parent().unwrap(), sm90());
        assert!(code.starts_with(b"//"), "round {i}: PTX text");
    }
}

#[test]
fn two_processes_racing_one_key_both_succeed() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("race");
    std::fs::write(root.join("scale.h"), "#define FACTOR 2.0f\n").unwrap();
    let dir = root.join("cache");
    let spawn = || {
        Command::new(std::env::current_exe().unwrap())
            .args(["--ignored", "--exact", "child_races_one_key", "--nocapture"])
            .env("ANYCUDA_TEST_RACE_DIR", &dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (c1, c2) = (spawn(), spawn());
    for c in [c1, c2] {
        let out = c.wait_with_output().unwrap();
        assert!(ran_one(&out), "a racing process failed: {out:?}");
    }
    let store = FileProgramCache::new(&dir, 1 << 20);
    let entries = store.entries();
    assert_eq!(entries.len(), 1, "one entry for one key: {entries:?}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let cache: Arc<dyn ProgramCache> = Arc::new(store);
    assert!(
        compile(b, &cache, KERNEL, &root, sm90()).1,
        "the entry is valid"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Child of [`environment_turns_the_default_cache_on_and_off`]: compiles once with the
/// process-wide default cache and checks it against `ANYCUDA_TEST_EXPECT`.
#[test]
#[ignore = "run as a child process by environment_turns_the_default_cache_on_and_off"]
fn child_uses_the_default_cache() {
    let expect = std::env::var("ANYCUDA_TEST_EXPECT").expect("run by the parent test");
    let b = nvrtc().expect("the parent checked the compiler");
    let src = inline(2);
    let mut p = Program::with_backend(b, &src, sm90()).unwrap();
    assert_eq!(p.cache().is_some(), expect != "off");
    assert_eq!(default_cache().is_some(), expect != "off");
    p.compile(CodeType::Ptx).unwrap();
    assert_eq!(p.cache_hit(), expect == "hit");
}

#[test]
fn environment_turns_the_default_cache_on_and_off() {
    let Some(_) = nvrtc() else { return };
    let root = fresh_dir("env");
    let dir = root.join("default");
    let child = |expect: &str, disable: Option<&str>| {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args(["--ignored", "--exact", "child_uses_the_default_cache"])
            .env(CACHE_DIR_ENV, &dir)
            .env("ANYCUDA_TEST_EXPECT", expect)
            .env_remove(CACHE_DISABLE_ENV);
        if let Some(v) = disable {
            c.env(CACHE_DISABLE_ENV, v);
        }
        let out = c.output().unwrap();
        assert!(ran_one(&out), "child ({expect}): {out:?}");
    };
    child("off", Some("1"));
    assert!(!dir.exists(), "a disabled cache writes nothing");
    child("miss", None);
    assert_eq!(FileProgramCache::new(&dir, 1).entries().len(), 1);
    child("hit", None);
    child("off", Some("1"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_unwritable_cache_still_compiles() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("unwritable");
    // A folder under a regular file cannot be created, even by root.
    std::fs::write(root.join("file"), "not a folder").unwrap();
    let cache: Arc<dyn ProgramCache> =
        Arc::new(FileProgramCache::new(root.join("file/cache"), 1 << 30));
    let src = inline(2);
    for _ in 0..2 {
        let (code, hit) = compile(b, &cache, &src, &root, sm90());
        assert!(!hit);
        assert!(String::from_utf8_lossy(&code).contains(".entry scale"));
    }
    assert!(cache
        .put(&anycuda::core::cache::KeyBuilder::new().finish(), b"x")
        .is_err());
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn compiles_the_key_cannot_cover_are_not_cached() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("uncacheable");
    std::fs::write(root.join("scale.h"), "#define FACTOR 2.0f\n").unwrap();
    let store = Arc::new(InMemoryProgramCache::new(1 << 30));
    let cache: Arc<dyn ProgramCache> = store.clone();
    let by_macro = KERNEL.replace("#include \"scale.h\"", "#define H \"scale.h\"\n#include H");
    for _ in 0..2 {
        let (code, hit) = compile(b, &cache, &by_macro, &root, sm90());
        assert!(!hit, "a macro include is never served from the cache");
        assert!(String::from_utf8_lossy(&code).contains(".entry scale"));
    }
    // An option that writes a file: a hit would skip the write, so every compile runs.
    let report = root.join("time.csv");
    let timed = sm90().extra_option(format!("--time={}", report.display()));
    for _ in 0..2 {
        let _ = std::fs::remove_file(&report);
        let (_, hit) = compile(b, &cache, &inline(2), &root, timed.clone());
        assert!(!hit, "--time is never served from the cache");
        assert!(report.is_file(), "NVRTC wrote its timing report");
    }
    assert!(store.is_empty(), "nothing was stored");
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_compiles_hit_too() {
    let Some(b) = common::compiler(BackendKind::Hip) else {
        return;
    };
    let root = fresh_dir("hip");
    std::fs::write(root.join("scale.h"), "#define FACTOR 2.0f\n").unwrap();
    let cache: Arc<dyn ProgramCache> = Arc::new(InMemoryProgramCache::new(1 << 30));
    let opts = ProgramOptions::new()
        .name("scale.cu")
        .extra_option("--anycuda-hip-arch=gfx90a");
    let (cold, hit) = compile(b, &cache, KERNEL, &root, opts.clone());
    assert!(!hit);
    assert_eq!(common::elf_machine(&cold), Some(common::EM_AMDGPU));
    let (warm, hit) = compile(b, &cache, KERNEL, &root, opts.clone());
    assert!(hit);
    assert_eq!(warm, cold);
    let other = opts.extra_option("--anycuda-hip-arch=gfx1030");
    assert!(
        !compile(b, &cache, KERNEL, &root, other).1,
        "another AMD target misses"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// The number to quote: every kernel of the corpus compiled cold (empty cache) and warm (a
/// fresh file cache instance over the same folder, as the next process would have).
#[test]
fn cold_and_warm_compile_time_of_the_corpus() {
    let Some(b) = nvrtc() else { return };
    let root = fresh_dir("timing");
    let kernels = common::corpus("tests/kernels");
    assert!(kernels.len() >= 10);
    let run = |cache: Arc<dyn ProgramCache>| {
        let start = Instant::now();
        let mut hits = 0;
        for k in &kernels {
            let mut opts = ProgramOptions::new()
                .arch("sm_90")
                .name(k.path.file_name().unwrap().to_string_lossy().into_owned());
            opts.name_expressions = k.name_expressions.clone();
            opts.extra_options = k.options.clone();
            let mut p = Program::with_backend(b, &k.source, opts)
                .unwrap()
                .with_cache(Some(cache.clone()));
            p.compile(CodeType::Cubin)
                .unwrap_or_else(|e| panic!("{}: {e}", k.path.display()));
            hits += usize::from(p.cache_hit());
        }
        (start.elapsed(), hits)
    };
    let (cold, cold_hits) = run(Arc::new(FileProgramCache::new(&root, 1 << 30)));
    let (warm, warm_hits) = run(Arc::new(FileProgramCache::new(&root, 1 << 30)));
    assert_eq!(cold_hits, 0);
    assert_eq!(warm_hits, kernels.len(), "every corpus kernel is cacheable");
    println!(
        "program cache, NVRTC, {} corpus kernels to sm_90 cubin: cold {:.1} ms, warm {:.1} ms \
         ({:.1}% of cold)",
        kernels.len(),
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
        100.0 * warm.as_secs_f64() / cold.as_secs_f64()
    );
    assert!(
        warm < cold / 5,
        "a warm start must be far faster: {warm:?} vs {cold:?}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}
