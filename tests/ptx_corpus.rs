//! The PTX translator (`anycuda_rtc::ptx`) on a corpus of PTX that other compilers wrote:
//! numba-cuda 0.30.4's, from anycuda's own numba kernels (tests/kernels/numba/corpus.py),
//! compiled to PTX by numba through NVVM with no GPU (tests/kernels/numba/compile.py, in the
//! pinned environment of `ci/numba-fetch.sh`). Each PTX (sm_90 and sm_80) is translated; an
//! sm_90 translation is compiled by hipRTC for the AMD arches the loaded hipRTC knows (gfx90a,
//! gfx942, gfx1100; gfx1030 where hipRTC 5.2.3 knows no RDNA3) and the code object must hold
//! every entry and its `.kd`. A PTX
//! the translator refuses must be refused as `Unsupported` (never a syntax error); the test
//! prints a table of every kernel and, for each refused one, every instruction that blocks it
//! (the refused line removed and the rest translated again, until it translates), and ranks
//! the refused instructions by how many kernels they block: the translator's gap list.
//!
//! The PTX comes from `ANYCUDA_NUMBA_PTX` (a folder compile.py wrote: ci/rocm/test-all.sh
//! writes it once for every ROCm release), else the test runs compile.py itself with the
//! environment's python (`ANYCUDA_NUMBA_PYTHON`, else `.cache/numba-venv/bin/python`). Under
//! `CI=true` a missing environment fails the test.
//!
//! Only hipRTC is needed (numba's NVVM writes the PTX, not NVRTC), so the file is empty in a
//! build without the HIP backend.

#![cfg(feature = "backend-hip")]

mod common;

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::{Backend, BackendKind};
use anycuda_rtc::ptx::{translate, PtxError, Translation};
use common::{code, compiler, elf_machine, elf_symbols, on_ci, repo_root, EM_AMDGPU};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The floor: how many of the corpus's PTX files (kernels x cc, sm_90 and sm_80) must
/// translate. Measured: 116 of 164 (82 kernels x 2 cc) with the first translator (5761f86);
/// 154 with warp instructions, float16, linking, carry chains, copysign, bar.red,
/// `%dynamic_smem_size` and debug sections skipped (translator version 4). The 10 refused are
/// listed with what blocks them in the gap list the test prints (vprintf, cudadevrt's grid sync,
/// and the float16 kernels whose C++ helpers the corpus leaves unlinked). Raise it when the translator
/// learns more; a drop fails.
const NUMBA_TRANSLATED_AT_LEAST: usize = 154;

/// One line of compile.py's manifest.tsv.
struct Entry {
    name: String,
    cc: String,
    /// The kernel's PTX, then any PTX numba links with it.
    ptx: Vec<PathBuf>,
    /// What numba links in that is not PTX here (`lib:...`, `unlinked:...`).
    other: Vec<String>,
    /// Why numba refused to compile the kernel, if it did.
    failed: Option<String>,
}

/// The python of the pinned numba environment, or `None` (skip) off CI.
fn numba_python() -> Option<PathBuf> {
    let python = std::env::var_os("ANYCUDA_NUMBA_PYTHON").map_or_else(
        || repo_root().join(".cache/numba-venv/bin/python"),
        PathBuf::from,
    );
    if python.is_file() {
        return Some(python);
    }
    let msg = format!(
        "the numba-cuda environment is missing ({}): bash ci/numba-fetch.sh",
        python.display()
    );
    assert!(!on_ci(), "{msg} (CI=true: a missing input fails)");
    eprintln!("SKIP: {msg}");
    None
}

/// The folder holding the corpus's PTX and manifest.tsv: `ANYCUDA_NUMBA_PTX`, else written
/// now by compile.py.
fn numba_ptx() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ANYCUDA_NUMBA_PTX") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join("manifest.tsv").is_file(),
            "ANYCUDA_NUMBA_PTX={}: no manifest.tsv",
            dir.display()
        );
        return Some(dir);
    }
    let python = numba_python()?;
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("numba-ptx");
    let _ = std::fs::remove_dir_all(&out);
    let script = repo_root().join("tests/kernels/numba/compile.py");
    let status = std::process::Command::new(&python)
        .arg(&script)
        .arg(&out)
        .args(["--cc", "9.0", "--cc", "8.0"])
        .status()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        status.success(),
        "{} {}: {status}",
        python.display(),
        script.display()
    );
    Some(out)
}

fn manifest(dir: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "manifest.tsv: `{l}`");
            let (mut ptx, mut other) = (Vec::new(), Vec::new());
            let failed = (f[2] != "ok").then(|| f[3].to_owned());
            if failed.is_none() {
                for w in f[3].split_whitespace() {
                    if w.contains(':') {
                        other.push(w.to_owned());
                    } else {
                        ptx.push(dir.join(w));
                    }
                }
            }
            Entry {
                name: f[0].to_owned(),
                cc: f[1].to_owned(),
                ptx,
                other,
                failed,
            }
        })
        .collect()
}

/// Translates `ptx`; when refused, every refused instruction (`instruction` with its modifiers),
/// found by blanking each refused line and translating again.
fn translate_all(what: &str, ptx: &str) -> Result<Translation, Vec<String>> {
    let mut lines: Vec<String> = ptx.lines().map(str::to_owned).collect();
    let mut refused = Vec::new();
    loop {
        let err = match translate(&lines.join("\n")) {
            Ok(t) if refused.is_empty() => return Ok(t),
            Ok(_) => return Err(refused),
            Err(e) => e,
        };
        match err {
            _ if refused.len() >= 256 => return Err(refused),
            PtxError::Unsupported {
                instruction, line, ..
            } => {
                // The statement: from its line to the `;` (a call spans lines).
                let first = line as usize - 1;
                let last = (first..lines.len())
                    .find(|&i| lines[i].contains(';'))
                    .unwrap_or(first);
                let text = lines[first..=last].join(" ");
                refused.push(gap_name(&instruction, &text, ptx));
                for l in &mut lines[first..=last] {
                    l.clear();
                }
            }
            PtxError::Syntax { .. } if refused.is_empty() => {
                panic!("{what}: the translator misread numba's PTX: {err}")
            }
            // A later syntax error only comes from blanking a line the rest needed.
            _ => {
                refused.push(format!("(then: {err})"));
                return Err(refused);
            }
        }
    }
}

/// The gap list's name of a refused statement: the instruction with its modifiers, plus the
/// special register a `mov` reads and what a `call` calls (a `.func` of the module, or an
/// `.extern` one numba links in: vprintf, cudadevrt's grid sync, the float16 helpers).
fn gap_name(instruction: &str, text: &str, ptx: &str) -> String {
    if instruction.starts_with("mov") {
        if let Some(sreg) = text
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .find(|w| {
                w.starts_with('%') && w[1..].chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
        {
            return format!("{instruction} {sreg}");
        }
    }
    if instruction.starts_with("call") {
        let callee = text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .skip(1)
            .find(|w| !w.starts_with('('))
            .unwrap_or("?");
        let external = ptx
            .lines()
            .any(|l| l.starts_with(".extern .func") && l.trim_end().ends_with(callee));
        return match (external, callee) {
            (false, _) => format!("{instruction} (a .func of the module)"),
            (true, "vprintf") => format!("{instruction} extern vprintf (print)"),
            (true, c) if c.starts_with("cudaCG") => {
                format!("{instruction} extern cudaCG* (cudadevrt: grid sync)")
            }
            (true, c) if c.contains("half") => {
                format!("{instruction} extern float16 helper (numba's C++ shim, unlinked)")
            }
            (true, c) => format!("{instruction} extern {c}"),
        };
    }
    instruction.to_owned()
}

/// Compiles a translation with hipRTC for `arch`; checks every entry and its descriptor.
fn hip_compile(hip: Backend, what: &str, t: &Translation, arch: &str) -> Result<(), String> {
    let mut p = Program::with_backend(hip, &t.source, ProgramOptions::new().name("numba.cpp"))
        .map_err(|e| e.to_string())?;
    p.compile_with_args(&[format!("--gpu-architecture={arch}")])
        .map_err(|e| format!("hipRTC refused the translation for {arch}: {e}"))?;
    let image = code(&p, CodeType::Cubin);
    assert_eq!(elf_machine(&image), Some(EM_AMDGPU), "{what} for {arch}");
    let syms = elf_symbols(&image);
    for e in &t.entries {
        assert!(syms.contains(e), "{what} for {arch}: no {e}");
        assert!(
            syms.contains(&format!("{e}.kd")),
            "{what} for {arch}: no {e}.kd"
        );
    }
    Ok(())
}

#[test]
fn numba_corpus_translates_and_compiles_with_hiprtc() {
    let Some(hip) = compiler(BackendKind::Hip) else {
        return;
    };
    let Some(dir) = numba_ptx() else {
        return;
    };
    let arches = common::amd_arches(hip);
    let entries = manifest(&dir);
    assert!(
        entries.len() >= 100,
        "manifest.tsv: {} lines",
        entries.len()
    );
    let started = std::time::Instant::now();
    // name, cc, outcome (translated, or the refused instructions)
    let mut table: Vec<(String, String, Result<(), Vec<String>>)> = Vec::new();
    let mut translated: Vec<(String, Translation)> = Vec::new();
    let mut numba_failed = Vec::new();
    for e in &entries {
        if let Some(why) = &e.failed {
            numba_failed.push(format!("{} ({}): {why}", e.name, e.cc));
            continue;
        }
        let what = format!("{} ({})", e.name, e.cc);
        let mut outcome = Ok(());
        for p in &e.ptx {
            let ptx = std::fs::read_to_string(p).unwrap();
            match translate_all(&what, &ptx) {
                Ok(t) => {
                    assert_eq!(t.entries, common::ptx_entries(&ptx), "{what}");
                    translated.push((what.clone(), t));
                }
                Err(r) => outcome = Err(r),
            }
        }
        if let (Ok(()), false) = (&outcome, e.other.is_empty()) {
            outcome = Err(e.other.clone());
        }
        table.push((e.name.clone(), e.cc.clone(), outcome));
    }
    let translate_s = started.elapsed().as_secs_f64();

    // hipRTC compiles sm_90's translations for every arch; sm_80's (nearly the same PTX) are
    // translated and counted only: hipRTC's time is most of the test's (about 0.3 s a compile).
    let mut hip_failed = Vec::new();
    for (what, t) in translated.iter().filter(|(w, _)| w.ends_with("(sm_90)")) {
        for arch in &arches {
            if let Err(e) = hip_compile(hip, what, t, arch) {
                hip_failed.push(format!("{what}: {e}"));
            }
        }
    }

    // The table and the gap list.
    let ok = table.iter().filter(|r| r.2.is_ok()).count();
    eprintln!("\nnumba corpus (numba-cuda 0.30.4, NVVM 13.0): PTX translated and compiled");
    eprintln!("{:<28} {:<6} outcome", "kernel", "cc");
    let mut gaps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, cc, outcome) in &table {
        match outcome {
            Ok(()) => eprintln!("{name:<28} {cc:<6} translated"),
            Err(refused) => {
                let mut uniq: Vec<&String> = refused.iter().collect();
                uniq.sort();
                uniq.dedup();
                eprintln!(
                    "{name:<28} {cc:<6} refused: {}",
                    uniq.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                for i in uniq {
                    gaps.entry(i.clone())
                        .or_default()
                        .push(format!("{name} ({cc})"));
                }
            }
        }
    }
    let mut ranked: Vec<(&String, &Vec<String>)> = gaps.iter().collect();
    ranked.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    eprintln!("\ngap list: refused instruction -> PTX files (kernel x cc) it blocks");
    for (inst, kernels) in &ranked {
        eprintln!("  {:>3}  {inst}", kernels.len());
    }
    for f in &numba_failed {
        eprintln!("numba refused: {f}");
    }
    eprintln!(
        "\nNUMBA-CORPUS: {ok} of {} PTX translated ({} refused, {} not compiled by numba); \
         {} translations (sm_90) compiled by hipRTC for {arches:?}; translate {translate_s:.1} s, \
         all {:.1} s",
        table.len(),
        table.len() - ok,
        numba_failed.len(),
        translated
            .iter()
            .filter(|(w, _)| w.ends_with("(sm_90)"))
            .count(),
        started.elapsed().as_secs_f64()
    );
    assert!(hip_failed.is_empty(), "hipRTC:\n{}", hip_failed.join("\n"));
    assert!(
        ok >= NUMBA_TRANSLATED_AT_LEAST,
        "{ok} numba PTX files translate, fewer than the floor {NUMBA_TRANSLATED_AT_LEAST}"
    );
}
