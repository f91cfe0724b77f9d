//! What docs/candle.md's section "64-lane wavefronts (CDNA): per module, on paper" rests on,
//! read from candle-kernels 0.11.1's 11 PTX modules (the fetched corpus, see
//! tests/kernels/real/SOURCES.md), so that the section cannot silently go stale:
//! - the only warp-level operation any module or its headers use is `__shfl_xor_sync`: no
//!   `warpSize`, ballot, `__activemask`, `__syncwarp`, vote or cooperative groups;
//! - every shuffle is a butterfly over offsets 16, 8, 4, 2, 1 (so it never leaves its 32-lane
//!   half of a 64-lane wavefront), and the sites are the ones the section cites;
//! - the wave-size check (`anycuda_hip::rtc_wave`) reports what the section says it reports, and
//!   a real hipRTC compile of reduce.cu carries those notes for gfx90a and none for a 32-lane
//!   target.
//!
//! The section's verdicts (right on wave64) are reasoning on paper; this file checks its inputs.
#![cfg(feature = "backend-hip")]

mod common;

use anycuda::core::{Program, ProgramOptions};
use anycuda::BackendKind;
use std::path::PathBuf;

/// candle-kernels' PTX modules (the `.cu` files cudaforge compiles with `nvcc --ptx`).
const MODULES: [&str; 11] = [
    "affine.cu",
    "binary.cu",
    "cast.cu",
    "conv.cu",
    "fill.cu",
    "indexing.cu",
    "quantized.cu",
    "reduce.cu",
    "sort.cu",
    "ternary.cu",
    "unary.cu",
];

/// The local headers those modules include.
const HEADERS: [&str; 3] = [
    "cuda_utils.cuh",
    "compatibility.cuh",
    "binary_op_macros.cuh",
];

/// Every shuffle site as docs/candle.md cites it: (file, line, width argument or `None`).
const SHUFFLES: [(&str, usize, Option<&str>); 17] = [
    ("quantized.cu", 33, Some("32")),
    ("quantized.cu", 41, Some("32")),
    ("quantized.cu", 1523, Some("32")),
    ("quantized.cu", 1652, Some("32")),
    ("quantized.cu", 1756, Some("32")),
    ("quantized.cu", 1892, Some("32")),
    ("quantized.cu", 2008, Some("32")),
    ("quantized.cu", 2118, Some("32")),
    ("reduce.cu", 165, None),
    ("reduce.cu", 177, None),
    ("reduce.cu", 186, Some("32")),
    ("reduce.cu", 187, Some("32")),
    ("reduce.cu", 195, Some("32")),
    ("reduce.cu", 325, Some("32")),
    ("reduce.cu", 340, Some("32")),
    ("reduce.cu", 969, None),
    ("reduce.cu", 979, None),
];

/// candle-kernels 0.11.1's `src/`, or `None` (skip) off CI when the corpus is not fetched.
fn kernel_dir() -> Option<PathBuf> {
    let dir = common::real_corpus()?
        .into_iter()
        .map(|(src, _)| src)
        .find(|d| d.ends_with("candle-kernels-0.11.1/src"));
    assert!(dir.is_some(), "the corpus holds no candle-kernels 0.11.1");
    dir
}

fn read(dir: &std::path::Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The code of each line (what precedes a `//` comment), numbered from 1.
fn code_lines(src: &str) -> impl Iterator<Item = (usize, &str)> {
    src.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("")))
}

/// The top-level arguments of the call that opens at byte `open` (the `(`) of `line`.
fn call_args(line: &str, open: usize) -> Vec<String> {
    let (mut depth, mut start, mut out) = (0i32, open + 1, Vec::new());
    for (j, c) in line[open..].char_indices() {
        let j = j + open;
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    out.push(line[start..j].trim().to_owned());
                    return out;
                }
            }
            ',' if depth == 1 => {
                out.push(line[start..j].trim().to_owned());
                start = j + 1;
            }
            _ => {}
        }
    }
    panic!("a call that does not close on its line: {line}");
}

#[test]
fn only_xor_shuffles_and_nothing_that_sees_the_wave_width() {
    let Some(dir) = kernel_dir() else { return };
    const ABSENT: [&str; 11] = [
        "warpSize",
        "__ballot",
        "__activemask",
        "__syncwarp",
        "__any_sync",
        "__all_sync",
        "__match_",
        "__shfl_sync",
        "__shfl_up",
        "__shfl_down",
        "cooperative_groups",
    ];
    for file in MODULES.iter().chain(&HEADERS) {
        let src = read(&dir, file);
        for (no, code) in code_lines(&src) {
            for word in ABSENT {
                assert!(
                    !code.contains(word),
                    "{file}:{no} uses {word}; docs/candle.md's wave64 section assumes none does: \
                     re-check it. {code}"
                );
            }
        }
    }
}

#[test]
fn every_shuffle_is_a_butterfly_within_32_lanes_at_the_cited_sites() {
    let Some(dir) = kernel_dir() else { return };
    let mut found = Vec::new();
    for file in MODULES.iter().chain(&HEADERS) {
        let src = read(&dir, file);
        let lines: Vec<&str> = code_lines(&src).map(|(_, c)| c).collect();
        for (i, code) in lines.iter().enumerate() {
            let Some(at) = code.find("__shfl_xor_sync(") else {
                continue;
            };
            let args = call_args(code, at + "__shfl_xor_sync".len());
            // (mask, value, lane mask[, width]): the full-warp mask, and a width of 32 or none.
            assert!(
                args.len() == 3 || args.len() == 4,
                "{file}:{}: {args:?}",
                i + 1
            );
            assert_eq!(args[0], "0xffffffff", "{file}:{}", i + 1);
            let width = args.get(3).cloned();
            assert!(
                matches!(width.as_deref(), None | Some("32")),
                "{file}:{}",
                i + 1
            );
            // The loop that drives it: starts at 16 (or WARP_SIZE / 2 with WARP_SIZE 32) and
            // halves, so every xor offset is below 32.
            let head = lines[i.saturating_sub(2)..i]
                .iter()
                .rev()
                .find(|l| l.trim_start().starts_with("for"))
                .unwrap_or_else(|| panic!("{file}:{}: no loop heads the shuffle", i + 1));
            let from_16 = head.contains("= 16;")
                || (head.contains("= WARP_SIZE / 2;") && src.contains("#define WARP_SIZE 32\n"));
            assert!(
                from_16 && head.contains(">>= 1"),
                "{file}:{}: {head}",
                i + 1
            );
            found.push((*file, i + 1, width));
        }
    }
    let want: Vec<(&str, usize, Option<String>)> = SHUFFLES
        .iter()
        .map(|&(f, l, w)| (f, l, w.map(str::to_owned)))
        .collect();
    assert_eq!(
        found, want,
        "the shuffle sites moved: update docs/candle.md's wave64 section and this list"
    );
}

#[test]
fn wave_size_notes_are_those_the_section_names() {
    let Some(dir) = kernel_dir() else { return };
    for file in MODULES {
        let found = anycuda_hip::rtc_wave::scan(&read(&dir, file));
        let (count, first) = match file {
            "quantized.cu" => (16, "line 32: a shuffle reduction starting at offset 16"),
            "reduce.cu" => (9, "line 6: a warp-size constant of 32"),
            _ => (0, ""),
        };
        assert_eq!(found.len(), count, "{file}: {found:#?}");
        if count > 0 {
            assert!(found[0].starts_with(first), "{file}: {found:#?}");
        }
    }
    for h in HEADERS {
        assert!(
            anycuda_hip::rtc_wave::scan(&read(&dir, h)).is_empty(),
            "{h}"
        );
    }
    for (arch, wave64) in [("gfx90a", true), ("gfx942", true), ("gfx1100", false)] {
        assert_eq!(anycuda_hip::rtc_wave::is_wave64(arch), wave64, "{arch}");
    }
}

/// Compiles reduce.cu with hipRTC for `arch` (no program cache, so the compile runs) and
/// returns its log.
fn reduce_log(b: anycuda::Backend, dir: &std::path::Path, arch: &str) -> String {
    let file = dir.join("reduce.cu");
    let opts = ProgramOptions::new().name("reduce.cu");
    let mut p = Program::with_backend(b, &read(dir, "reduce.cu"), opts)
        .unwrap()
        .with_cache(None);
    let inc = anycuda_rtc::rtc_include::source_folder_option(&file).unwrap();
    p.compile_with_args(&[inc.as_str(), &format!("--gpu-architecture={arch}")])
        .unwrap_or_else(|e| panic!("reduce.cu for {arch}: {e}"));
    p.log().to_owned()
}

#[test]
fn a_real_compile_of_reduce_cu_notes_64_lanes_only() {
    let Some(dir) = kernel_dir() else { return };
    let Some(b) = common::compiler(BackendKind::Hip) else {
        return;
    };
    let log = reduce_log(b, &dir, "gfx90a");
    assert!(
        log.contains("anycuda: warning: gfx90a runs 64-lane wavefronts")
            && log.contains("anycuda:   line 6: a warp-size constant of 32"),
        "{log}"
    );
    // A 32-lane target every supported hipRTC knows (5.2 has no gfx1100; gfx1030 is RDNA2, 32
    // lanes in HIP like gfx1100).
    let log = reduce_log(b, &dir, "gfx1030");
    assert!(!log.contains("64-lane"), "{log}");
}
