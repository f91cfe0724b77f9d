//! Fuzzing the include resolver, bounded and deterministic (a fixed-seed generator, so a failure
//! reproduces; any case that ever fails is added to `REGRESSIONS`).
//!
//! - `rtc_include::resolve` and `rtc_include::includes` on 20,000 generated names and sources:
//!   no panic, and every answer checked against the rule (the first existing file in nvcc's
//!   order).
//! - Both compilers on generated `#include` lines (200 per compiler, or
//!   `ANYCUDA_INCLUDE_FUZZ_CASES`: `ci/rocm/test-all.sh` runs fewer on the other ROCm releases,
//!   the first ones of the same sequence): the answer is success or a compile error, never a
//!   crash or another code.

mod common;

use anycuda::nvrtc::nvrtcResult;
use anycuda::BackendKind;
use anycuda_rtc::rtc_include::{includes, resolve, SearchPath, MAX_INCLUDE_NAME};
use common::compiler;
use std::path::{Path, PathBuf};

/// xorshift64*: enough for generating cases, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces include names are made of: real names, path syntax, and hostile bytes.
const PIECES: &[&str] = &[
    "a.h",
    "b.h",
    "sub",
    "x.cuh",
    "..",
    ".",
    "/",
    "//",
    "\\",
    " ",
    "\0",
    "é",
    "%s",
    "*",
    "?",
    "a.h/",
    "sub/",
    "missing.h",
    "\t",
    "\"",
    ">",
    "<",
    "\n",
    "/etc",
    "con",
    "~",
];

/// Names that once misbehaved (none yet); kept so they are tested on every run.
const REGRESSIONS: &[&str] = &["", "..", "/", "a.h\0", "sub/../a.h"];

fn gen_name(r: &mut Rng) -> String {
    const REAL: &[&str] = &[
        "a.h",
        "b.h",
        "x.cuh",
        "sub/b.h",
        "../a.h",
        "sub/../a.h",
        "./a.h",
        "../inc/x.cuh",
    ];
    if r.below(3) == 0 {
        return REAL[r.below(REAL.len())].to_owned();
    }
    if r.below(50) == 0 {
        return "x".repeat(MAX_INCLUDE_NAME + r.below(3));
    }
    (0..1 + r.below(5))
        .map(|_| PIECES[r.below(PIECES.len())])
        .collect()
}

/// A tree (one per test, by tag): root/{a.h, sub/{b.h, a.h}, inc/{x.cuh, a.h}}, and a symlink loop where supported.
fn tree(tag: &str) -> (PathBuf, Vec<PathBuf>) {
    let root = std::env::temp_dir().join(format!("anycuda-inc-fuzz-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dirs = vec![root.clone(), root.join("sub"), root.join("inc")];
    for d in &dirs {
        std::fs::create_dir_all(d).unwrap();
    }
    for f in ["a.h", "sub/b.h", "sub/a.h", "inc/x.cuh", "inc/a.h"] {
        std::fs::write(root.join(f), "#pragma once\n").unwrap();
    }
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink(root.join("loop"), root.join("loop"));
    }
    (root, dirs)
}

/// The rule, written independently: quoted names try the includer's, source's and working
/// folders, then (both forms) the -I folders; the first regular file wins.
fn expected(name: &str, quoted: bool, inc: Option<&Path>, s: &SearchPath) -> Option<PathBuf> {
    if name.is_empty() || name.len() > MAX_INCLUDE_NAME || name.contains('\0') {
        return None;
    }
    if Path::new(name).is_absolute() {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    if name
        .split('/')
        .all(|c| c.is_empty() || c == "." || c == "..")
    {
        return None;
    }
    let mut dirs: Vec<&Path> = Vec::new();
    if quoted {
        dirs.extend(inc);
        dirs.extend(s.source_dir.as_deref());
        dirs.extend(s.cwd.as_deref());
    }
    dirs.extend(s.include_dirs.iter().map(PathBuf::as_path));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

#[test]
fn resolver_follows_the_rule_on_generated_names() {
    let (root, dirs) = tree("resolve");
    let mut r = Rng(0x5eed_1234_abcd_0001);
    let mut found = 0;
    let cases = 20_000;
    for case in 0..cases + REGRESSIONS.len() {
        let name = match case.checked_sub(cases) {
            Some(i) => REGRESSIONS[i].to_owned(),
            None => gen_name(&mut r),
        };
        let pick = |r: &mut Rng| (r.below(4) > 0).then(|| dirs[r.below(dirs.len())].clone());
        let s = SearchPath {
            source_dir: pick(&mut r),
            cwd: pick(&mut r),
            include_dirs: (0..r.below(3))
                .map(|_| dirs[r.below(dirs.len())].clone())
                .collect(),
        };
        let inc = pick(&mut r);
        let quoted = r.below(2) == 0;
        let got = resolve(&name, quoted, inc.as_deref(), &s);
        assert_eq!(
            got,
            expected(&name, quoted, inc.as_deref(), &s),
            "case {case}: {name:?}"
        );
        if let Some(p) = &got {
            assert!(
                p.is_file() && p.starts_with(&root),
                "{name:?} -> {}",
                p.display()
            );
            found += 1;
        }
    }
    assert!(
        found > 500,
        "the generator should hit real files often ({found})"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn directive_scanner_survives_generated_sources() {
    let mut r = Rng(0x5eed_1234_abcd_0002);
    const BITS: &[&str] = &[
        "#",
        "include",
        " ",
        "\"",
        "<",
        ">",
        "\n",
        "a.h",
        "#include \"x.h\"\n",
        "\\\n",
        "é",
        "\0",
        "//",
        "/*",
        "*/",
        "\t",
        "#  include <y>",
        "\r\n",
    ];
    for case in 0..10_000 {
        let src: String = (0..r.below(24))
            .map(|_| BITS[r.below(BITS.len())])
            .collect();
        for (name, quoted) in includes(&src) {
            let close = if quoted { '"' } else { '>' };
            assert!(
                !name.contains(close) && !name.contains('\n'),
                "case {case}: {src:?}"
            );
            assert!(src.contains(&name), "case {case}: {name:?} not in {src:?}");
        }
    }
}

/// Generated include lines through a real compiler: success or a compile error, nothing else.
fn compilers_survive(kind: BackendKind, arch: &str) {
    let Some(b) = compiler(kind) else { return };
    let (root, _) = tree(arch);
    let mut r = Rng(0x5eed_1234_abcd_0003);
    let inc = format!("-I{}", root.join("inc").display());
    let cases: u32 = std::env::var("ANYCUDA_INCLUDE_FUZZ_CASES")
        .ok()
        .map_or(200, |v| {
            v.parse().expect("ANYCUDA_INCLUDE_FUZZ_CASES: a count")
        });
    assert!(cases > 0, "ANYCUDA_INCLUDE_FUZZ_CASES: at least one case");
    for case in 0..cases {
        let name: String = gen_name(&mut r)
            .chars()
            .filter(|&c| c != '\0')
            .take(300)
            .collect();
        let (open, close) = if r.below(2) == 0 {
            ('"', '"')
        } else {
            ('<', '>')
        };
        let src = format!("#include {open}{name}{close}\nextern \"C\" __global__ void k() {{}}\n");
        let mut p = common::program(b, &src, "fuzz.cu", &[]);
        let arch_opt = format!("--gpu-architecture={arch}");
        if let Err(e) = p.compile_with_args(&[&inc, &arch_opt]) {
            assert_eq!(
                e.nvrtc_code(),
                Some(nvrtcResult::NVRTC_ERROR_COMPILATION),
                "case {case}: {src:?}"
            );
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn nvrtc_survives_generated_includes() {
    compilers_survive(BackendKind::Cuda, "sm_90");
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_survives_generated_includes() {
    compilers_survive(BackendKind::Hip, "gfx90a");
}
