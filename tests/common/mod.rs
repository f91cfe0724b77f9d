//! Shared test support: real libraries only. A missing library fails the test under `CI=true`
//! (CI installs them all) and is skipped with a notice elsewhere.

#![allow(dead_code)]

use anycuda::{Backend, BackendKind};
use std::path::{Path, PathBuf};

/// Whether we run under CI, where every library must be present.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The backend with its runtime compiler loaded, or `None` (skip) off CI.
///
/// # Panics
/// Under `CI=true` when the compiler library is missing, naming every path tried.
pub fn compiler(kind: BackendKind) -> Option<Backend> {
    let Ok(b) = Backend::load(kind) else {
        eprintln!("SKIP: the {kind} backend is not compiled into this build");
        return None;
    };
    if b.compiler_loaded() {
        return Some(b);
    }
    let why: Vec<String> = b
        .libraries()
        .into_iter()
        .filter_map(|l| l.status.err().map(|e| format!("{}: {e}", l.role)))
        .collect();
    let msg = format!("{kind} compiler unavailable: {}", why.join("; "));
    assert!(
        !on_ci(),
        "{msg} (CI=true: install it with `bash ci/fetch-inputs.sh`)"
    );
    eprintln!("SKIP: {msg}");
    None
}

/// One kernel source of the corpus and what it must produce.
#[derive(Debug)]
pub struct Kernel {
    pub path: PathBuf,
    pub source: String,
    pub kernels: Vec<String>,
    pub name_expressions: Vec<String>,
    pub options: Vec<String>,
    pub expect_error: Option<String>,
}

fn parse(path: &Path) -> Kernel {
    let source = std::fs::read_to_string(path).unwrap();
    let field = |key: &str| -> Vec<String> {
        source
            .lines()
            .filter_map(|l| {
                l.strip_prefix(&format!("// anycuda-{key}:"))
                    .map(|v| v.trim().to_string())
            })
            .collect()
    };
    Kernel {
        path: path.to_path_buf(),
        kernels: field("kernel"),
        name_expressions: field("name-expression"),
        options: field("options"),
        expect_error: field("expect-error").into_iter().next(),
        source,
    }
}

/// The repository root: `ANYCUDA_REPO_ROOT` when the tests run from a bundle on another machine
/// (ci/bundle-for-gpu.sh), else where they were built.
pub fn repo_root() -> PathBuf {
    // The folder holding Cargo.lock above the package under test: the root package's tests and
    // the command's (cli/tests, which include this module) both find the workspace root.
    std::env::var_os("ANYCUDA_REPO_ROOT").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .find(|d| d.join("Cargo.lock").is_file())
                .unwrap_or(Path::new(env!("CARGO_MANIFEST_DIR")))
                .to_path_buf()
        },
        PathBuf::from,
    )
}

/// The real-world kernel corpus (tests/kernels/real/crates.txt, fetched by
/// `ci/rocm/fetch-kernels.sh` into .cache/inputs/real-kernels): each pinned crate's `src/`
/// folder and its PTX-module `.cu` files, sorted; `None` (skip) when not fetched, which fails on
/// CI. Only the pinned versions count, whatever else the shared cache holds.
#[allow(dead_code)] // not every test file that includes this module reads the corpus
pub fn real_corpus() -> Option<Vec<(PathBuf, Vec<PathBuf>)>> {
    let list = std::fs::read_to_string(repo_root().join("tests/kernels/real/crates.txt"))
        .expect("tests/kernels/real/crates.txt");
    let mut out = Vec::new();
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            panic!("tests/kernels/real/crates.txt: `{line}` is not `name version [file...]`");
        };
        let skip: Vec<&str> = words.collect();
        let src = repo_root().join(format!(".cache/inputs/real-kernels/{name}-{version}/src"));
        let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .filter(|p| !skip.iter().any(|s| p.file_name().is_some_and(|f| f == *s)))
            .collect();
        if files.is_empty() {
            let msg = format!(
                "the real-world kernel corpus ({name} {version}) is not fetched: \
                 bash ci/rocm/fetch-kernels.sh"
            );
            assert!(!on_ci(), "{msg}");
            eprintln!("SKIP: {msg}");
            return None;
        }
        files.sort();
        out.push((src, files));
    }
    Some(out)
}

/// Every `.cu` file directly in `dir` (relative to the repository root), sorted.
pub fn corpus(dir: &str) -> Vec<Kernel> {
    let dir = repo_root().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    files.iter().map(|p| parse(p)).collect()
}

/// `e_machine` of an ELF file, if it is one.
pub fn elf_machine(b: &[u8]) -> Option<u16> {
    (b.len() > 64 && b.starts_with(b"\x7fELF")).then(|| u16::from_le_bytes([b[18], b[19]]))
}

/// The names in an ELF64 file's symbol tables (`.symtab` and `.dynsym`).
pub fn elf_symbols(b: &[u8]) -> Vec<String> {
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
    let section = |i: usize| shoff + i * shentsize;
    let mut out = Vec::new();
    for i in 0..shnum {
        let sh = section(i);
        let kind = u32_at(sh + 4);
        if kind != 2 && kind != 11 {
            continue; // SHT_SYMTAB, SHT_DYNSYM
        }
        let (off, size, link, entsize) = (
            u64_at(sh + 0x18),
            u64_at(sh + 0x20),
            u32_at(sh + 0x28),
            u64_at(sh + 0x38),
        );
        let str_off = u64_at(section(link) + 0x18);
        for s in (off..off + size).step_by(entsize.max(1)) {
            let name = str_off + u32_at(s);
            let end = b[name..]
                .iter()
                .position(|&c| c == 0)
                .map_or(b.len(), |e| name + e);
            let n = String::from_utf8_lossy(&b[name..end]).into_owned();
            if !n.is_empty() && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// ELF machine numbers.
pub const EM_AMDGPU: u16 = 224;
pub const EM_CUDA: u16 = 190;

/// The bytes of `p`'s last compile output of `kind`, as [`Program::output`] gives them (labelled
/// by content, PTX without its NUL; empty when the compiler made none).
///
/// # Panics
/// When the compiler refuses to hand the output over.
pub fn code(p: &anycuda::core::Program, kind: anycuda::core::CodeType) -> Vec<u8> {
    p.output(kind)
        .unwrap_or_else(|e| panic!("{kind:?} output: {e}"))
        .code()
        .to_vec()
}

/// A program on `b`'s compiler named `name`, with these name expressions.
///
/// # Panics
/// When the compiler refuses to create it.
pub fn program(b: Backend, src: &str, name: &str, exprs: &[&str]) -> anycuda::core::Program {
    let mut opts = anycuda::core::ProgramOptions::new().name(name);
    opts.name_expressions = exprs.iter().map(|e| (*e).to_owned()).collect();
    anycuda::core::Program::with_backend(b, src, opts)
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", b.kind()))
}

/// `f` over `items` on every core (`std::thread::available_parallelism`), results in `items`'
/// order; a panic in `f` fails the test as it would serially. The corpus tests compile one file
/// per call: NVRTC compiles run side by side, and overlap the hipRTC ones, which the HIP backend
/// serialises (hipRTC 5.2.3 is not thread-safe), so only NVRTC's share of the time shrinks.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// The `.entry` names of a PTX text (kernels, in the order the PTX declares them).
pub fn ptx_entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim();
            l.strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))
        })
        .map(|l| l.split('(').next().unwrap_or(l).trim().to_owned())
        .collect()
}

/// A source bundle whose kernel needs both its bundled header and its define: `add_step(p, n)`
/// adds 3 to each of `p[0..n]` (the CUDA backend's rescue of refused PTX is tested with it, in
/// CI and on the GPU).
pub fn step_bundle() -> anycuda_rtc::rtc_bundle::Bundle {
    anycuda_rtc::rtc_bundle::Bundle {
        name: "step.cu".into(),
        source: "#include \"step.cuh\"\n\
                 extern \"C\" __global__ void add_step(int* p, unsigned n) {\n\
                 unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 if (i < n) p[i] = step(p[i]);\n}\n"
            .into(),
        headers: vec![(
            "step.cuh".into(),
            "__device__ inline int step(int v) { return v + STEP; }\n".into(),
        )],
        options: vec!["-DSTEP=3".into()],
        producer: "anycuda tests".into(),
        ..Default::default()
    }
}

/// The `anycuda` command (package `anycuda-cli`) for the root package's tests that check what
/// it prints: `ANYCUDA_BIN` when set (a GPU bundle names its copy), else the one cargo built
/// beside this test binary (`target/<profile>/anycuda`; `ci/test.sh` builds it first).
///
/// # Panics
/// When neither exists, naming the command that builds it.
pub fn anycuda_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("ANYCUDA_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/<test>-<hash> → target/<profile>/anycuda
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("anycuda"))
        .expect("the test binary sits in target/<profile>/deps");
    assert!(
        bin.is_file(),
        "{} is not built: `cargo build -p anycuda-cli` (same profile) builds it, or set ANYCUDA_BIN",
        bin.display()
    );
    bin
}

/// The code type a link gives on the active backend: a cubin on CUDA, and on AMD (an AMD code
/// object is ELF too); PTX on HIP's NVIDIA platform, whose hipRTC (NVRTC) writes PTX, which the
/// HIP backend's linker returns as it is (the module load takes it).
pub fn linked_code_type() -> anycuda::core::CodeType {
    #[cfg(feature = "backend-hip")]
    if let Some(h) = anycuda::backend().ok().and_then(|b| b.backend.as_hip()) {
        if h.platform() == anycuda::native::hip::Platform::Nvidia {
            return anycuda::core::CodeType::Ptx;
        }
    }
    anycuda::core::CodeType::Cubin
}

/// The AMD targets the PTX tests compile for: gfx90a (CDNA2, wave64), gfx942 (CDNA3) and
/// gfx1100 (RDNA3, wave32) where the loaded hipRTC knows them, else gfx1030 (RDNA2, wave32) for
/// the missing RDNA3 (hipRTC 5.2.3 knows neither gfx942 nor gfx1100). Asked before compiling:
/// hipRTC 5.2.3 aborts the process on an arch it does not know.
#[cfg(feature = "backend-hip")]
pub fn amd_arches(hip: Backend) -> Vec<&'static str> {
    let v = hip.as_hip().expect("the HIP backend").hip_version();
    let supported = anycuda::native::hip::rtc_options::supported_archs(v);
    let mut out: Vec<&str> = ["gfx90a", "gfx942", "gfx1100"]
        .into_iter()
        .filter(|a| supported.contains(a))
        .collect();
    if !out.contains(&"gfx1100") {
        out.push("gfx1030");
    }
    for a in &out {
        assert!(supported.contains(a), "{a} unknown to HIP {v}");
    }
    eprintln!("hipRTC of HIP {v}: compiling for {out:?}");
    out
}
