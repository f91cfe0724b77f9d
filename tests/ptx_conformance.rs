//! The per-instruction conformance suite of the PTX translator (issue 26's first proof).
//!
//! `ptx_conformance/forms.rs` writes hand-shaped PTX: one kernel per instruction form (integer,
//! bit, f32, f64, comparison, conversion and half-precision forms, with every rounding mode,
//! `.ftz`, `.sat` and the `.approx` forms), grouped into a few modules, each kernel fed edge
//! values (NaN with payloads, ±0, denormals, infinities, extremes, INT_MIN, shift counts past
//! the width, rounding ties) and pseudo-random ones from a fixed seed.
//!
//! Without a GPU (CI): the PTX is valid (ptxas 13.0 assembles every module for sm_90), every
//! form translates (those refused on purpose are listed with the reason, and must stay
//! refused), and every translation compiles with hipRTC for gfx90a, gfx942 and gfx1100 where
//! the loaded hipRTC knows them (gfx1030 on 5.2.3) and with NVRTC. ci/rocm/test-all.sh runs it
//! on hipRTC 5.7.1 and 6.4.3 too.
//!
//! On a GPU (`translated_forms_match_native_ptx`): every form run natively and through the
//! translation, results compared bit for bit (`.approx` forms within the PTX ISA's bound).

#![cfg(all(feature = "backend-cuda", feature = "backend-hip"))]

mod common;
#[path = "ptx_conformance/forms.rs"]
mod forms;

use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::BackendKind;
use anycuda_rtc::ptx::{translate, PtxError};
use common::{code, compiler, elf_machine, elf_symbols, on_ci, repo_root, EM_AMDGPU};
use forms::{Check, Form, Module, Reg};
use std::path::PathBuf;

/// Every module's PTX and translation; a form the translator refuses fails the test, naming
/// every such form (each translated alone), not just the first.
fn translated() -> Vec<(Module, String, anycuda_rtc::ptx::Translation)> {
    let mut out = Vec::new();
    let mut refused = Vec::new();
    for m in forms::modules() {
        let ptx = forms::ptx(&m.forms);
        match translate(&ptx) {
            Ok(t) => out.push((m, ptx, t)),
            Err(e) => {
                for f in &m.forms {
                    if let Err(e) = translate(&forms::ptx(std::slice::from_ref(f))) {
                        refused.push(format!("{} ({}): {e}", f.name, m.name));
                    }
                }
                if refused.is_empty() {
                    refused.push(format!("module {}: {e}", m.name));
                }
            }
        }
    }
    assert!(
        refused.is_empty(),
        "forms the translator refuses (translate them, or list them in forms::refused with \
         the reason):\n{}",
        refused.join("\n")
    );
    out
}

#[test]
fn every_form_translates() {
    let t = translated();
    let mut names = std::collections::HashSet::new();
    let mut total = 0;
    for (m, ptx, t) in &t {
        let entries: Vec<&str> = m.forms.iter().map(|f| f.entry.as_str()).collect();
        assert_eq!(t.entries, entries, "{}", m.name);
        assert_eq!(common::ptx_entries(ptx), entries, "{}", m.name);
        for f in &m.forms {
            assert!(names.insert(f.name.clone()), "{} twice", f.name);
        }
        total += m.forms.len();
        eprintln!("{}: {} forms", m.name, m.forms.len());
    }
    eprintln!("{total} forms in {} modules", t.len());
    assert!(total > 1000, "{total} forms");
}

#[test]
fn refused_forms_stay_refused_and_are_named() {
    for r in forms::refused() {
        let ptx = forms::ptx(std::slice::from_ref(&r.form));
        let op = r.form.name.clone();
        match translate(&ptx) {
            Err(PtxError::Unsupported {
                instruction, line, ..
            }) => {
                assert!(
                    op.starts_with(&instruction) || instruction.starts_with(&op),
                    "{op}: refused as `{instruction}`"
                );
                // The form's own line (not the kernel's scaffolding).
                let at = ptx.lines().nth(line as usize - 1).unwrap_or_default();
                assert!(
                    at.trim_start().starts_with(&op),
                    "{op}: line {line} is {at:?}"
                );
            }
            Ok(_) => panic!(
                "{op} translates now (it was refused: {}): move it into the suite",
                r.why
            ),
            Err(e) => panic!("{op}: {e}"),
        }
    }
}

/// ptxas from nvcc 13.0 (`.cache/inputs/nvcc-13.0`, `ANYCUDA_REAL_NVCC`'s folder), or `None`
/// (skipped) off CI.
fn ptxas() -> Option<PathBuf> {
    let p = std::env::var_os("ANYCUDA_REAL_NVCC").map_or_else(
        || repo_root().join(".cache/inputs/nvcc-13.0/nvidia/cu13/bin/ptxas"),
        |n| PathBuf::from(n).with_file_name("ptxas"),
    );
    if p.is_file() {
        return Some(p);
    }
    assert!(
        !on_ci(),
        "{} missing (CI=true: `cargo xtask fetch` fetches nvcc 13.0)",
        p.display()
    );
    eprintln!("SKIP: {} missing", p.display());
    None
}

/// The generated PTX is PTX: NVIDIA's assembler takes every module (the refused forms too), so
/// what the GPU test loads natively is what the suite says it is.
#[test]
fn generated_ptx_assembles_with_ptxas() {
    let Some(ptxas) = ptxas() else { return };
    let dir = std::env::temp_dir().join(format!("anycuda-ptx-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let refused: Vec<Form> = forms::refused().into_iter().map(|r| r.form).collect();
    let mut all: Vec<(String, String)> = forms::modules()
        .iter()
        .map(|m| (m.name.to_owned(), forms::ptx(&m.forms)))
        .collect();
    all.push(("refused".into(), forms::ptx(&refused)));
    let failures: Vec<String> = common::par_map(&all, |(name, ptx)| {
        let file = dir.join(format!("{name}.ptx"));
        std::fs::write(&file, ptx).unwrap();
        let out = std::process::Command::new(&ptxas)
            .args(["-arch=sm_90", "-o"])
            .arg(dir.join(format!("{name}.cubin")))
            .arg(&file)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", ptxas.display()));
        (!out.status.success()).then(|| {
            // Each message with the form whose kernel holds its line.
            let lines: Vec<&str> = ptx.lines().collect();
            let log = String::from_utf8_lossy(&out.stderr);
            let named: Vec<String> = log
                .lines()
                .map(|l| {
                    let n = l
                        .split(", line ")
                        .nth(1)
                        .and_then(|r| r.split(';').next())
                        .and_then(|n| n.parse::<usize>().ok());
                    let entry = n.and_then(|n| {
                        lines[..n.min(lines.len())]
                            .iter()
                            .rev()
                            .find_map(|l| l.strip_prefix(".visible .entry "))
                    });
                    match (n, entry) {
                        (Some(n), Some(e)) => format!("{l}\n    in {e} {:?}", lines[n - 1].trim()),
                        _ => l.to_owned(),
                    }
                })
                .collect();
            format!("{name}: ptxas refused the module:\n{}", named.join("\n"))
        })
    })
    .into_iter()
    .flatten()
    .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn translations_compile_with_hiprtc() {
    let Some(hip) = compiler(BackendKind::Hip) else {
        return;
    };
    let arches = common::amd_arches(hip);
    let jobs: Vec<(String, String, Vec<String>, &str)> = translated()
        .into_iter()
        .flat_map(|(m, _, t)| {
            arches
                .iter()
                .map(move |a| (m.name.to_owned(), t.source.clone(), t.entries.clone(), *a))
                .collect::<Vec<_>>()
        })
        .collect();
    common::par_map(&jobs, |(name, source, entries, arch)| {
        let t0 = std::time::Instant::now();
        let mut p = Program::with_backend(hip, source, ProgramOptions::new().name("conf.cpp"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = p.compile_with_args(&[format!("--gpu-architecture={arch}")]) {
            panic!("{name} for {arch}: hipRTC refused the translation: {e}");
        }
        let image = code(&p, CodeType::Cubin);
        assert_eq!(elf_machine(&image), Some(EM_AMDGPU), "{name} for {arch}");
        let syms = elf_symbols(&image);
        for e in entries {
            assert!(
                syms.contains(e) && syms.contains(&format!("{e}.kd")),
                "{name} for {arch}: no {e} or {e}.kd"
            );
        }
        eprintln!("{name} for {arch}: {:.1} s", t0.elapsed().as_secs_f64());
    });
}

#[test]
fn translations_compile_with_nvrtc() {
    // HIP's NVIDIA platform compiles the same C++ with NVRTC.
    let Some(nv) = compiler(BackendKind::Cuda) else {
        return;
    };
    let all = translated();
    common::par_map(&all, |(m, _, t)| {
        let mut p =
            Program::with_backend(nv, &t.source, ProgramOptions::new().name("conf.cu")).unwrap();
        p.compile_with_args(&["--gpu-architecture=compute_90"])
            .unwrap_or_else(|e| panic!("{}: NVRTC refused the translation: {e}", m.name));
        let again = String::from_utf8(code(&p, CodeType::Ptx)).unwrap();
        assert_eq!(
            common::ptx_entries(&again).len(),
            t.entries.len(),
            "{}",
            m.name
        );
    });
}

/// An f32's bits as an integer that orders like the value (so ulps are differences).
fn ordered32(x: u32) -> i64 {
    if x >> 31 == 1 {
        -i64::from(x & 0x7fff_ffff)
    } else {
        i64::from(x)
    }
}

/// Whether a translated result `got` agrees with NVIDIA's `want` under the form's check.
fn agrees(check: Check, a: u64, b: u64, got: u64, want: u64) -> bool {
    match check {
        Check::Exact => got == want,
        Check::ExactNanF64 => {
            got == want || (f64::from_bits(got).is_nan() && f64::from_bits(want).is_nan())
        }
        Check::ApproxF32 { ulp, abs, applies } => {
            let (g, w) = (f32::from_bits(got as u32), f32::from_bits(want as u32));
            if !applies(a, b) {
                return true;
            }
            if g.is_nan() || w.is_nan() {
                return g.is_nan() && w.is_nan();
            }
            if g.is_infinite() || w.is_infinite() {
                return g == w;
            }
            ordered32(got as u32).abs_diff(ordered32(want as u32)) <= u64::from(ulp)
                || (f64::from(g) - f64::from(w)).abs() <= abs
        }
        Check::ApproxF64 { rel } => {
            let (g, w) = (f64::from_bits(got), f64::from_bits(want));
            if g.is_nan() || w.is_nan() {
                return g.is_nan() && w.is_nan();
            }
            if g.is_infinite() || w.is_infinite() || w == 0.0 {
                return g == w;
            }
            ((g - w) / w).abs() <= rel
        }
    }
}

/// What the host knows a form must give, where its semantics are plain: integer arithmetic,
/// IEEE round-to-nearest f32/f64 arithmetic (Rust's operators and `mul_add`, exact and
/// correctly rounded; an f32 NaN result is NVIDIA's canonical 0x7fffffff, an f64 NaN any NaN),
/// and comparisons. `None`: the form has no host reference.
fn host_reference(f: &Form, a: u64, b: u64, c: u64) -> Option<HostRef> {
    let parts: Vec<&str> = f.name.split('.').collect();
    let (op, ty) = (parts[0], *parts.last()?);
    if f.name.contains(' ') || f.name.contains("ftz") || f.name.contains("sat") {
        return None;
    }
    let bits = match ty {
        "s16" | "u16" | "b16" => 16,
        "s32" | "u32" | "b32" => 32,
        "s64" | "u64" | "b64" => 64,
        _ => 0,
    };
    if bits > 0 {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let sx = |v: u64| -> i128 { i128::from((v << (64 - bits)) as i64 >> (64 - bits)) };
        let signed = ty.starts_with('s');
        let val = |v: u64| -> i128 {
            if signed {
                sx(v)
            } else {
                i128::from(v & mask)
            }
        };
        let (x, y, z) = (val(a), val(b), val(c));
        let wrap = |v: i128| -> u64 { (v as u64) & mask };
        let r = match (op, parts.get(1).copied()) {
            ("add", _) if parts.len() == 2 => wrap(x + y),
            ("sub", _) if parts.len() == 2 => wrap(x - y),
            ("mul", Some("lo")) => wrap(x.wrapping_mul(y)),
            ("mul", Some("hi")) if bits == 64 && !signed => {
                ((u128::from(a) * u128::from(b)) >> 64) as u64
            }
            ("mul", Some("hi")) => wrap((x * y) >> bits),
            ("mul", Some("wide")) => {
                ((x * y) as u64) & (if bits == 32 { u64::MAX } else { 0xffff_ffff })
            }
            ("mad", Some("lo")) => wrap(x.wrapping_mul(y).wrapping_add(z)),
            ("min", _) if parts.len() == 2 => wrap(x.min(y)),
            ("max", _) if parts.len() == 2 => wrap(x.max(y)),
            ("and", _) => wrap(x & y),
            ("or", _) => wrap(x | y),
            ("xor", _) => wrap(x ^ y),
            ("not", _) => wrap(!x),
            ("setp", Some(cmp)) if parts.len() == 3 => {
                let (ux, uy) = (a & mask, b & mask);
                u64::from(match cmp {
                    "eq" => x == y,
                    "ne" => x != y,
                    "lt" => x < y,
                    "le" => x <= y,
                    "gt" => x > y,
                    "ge" => x >= y,
                    "lo" => ux < uy,
                    "ls" => ux <= uy,
                    "hi" => ux > uy,
                    "hs" => ux >= uy,
                    _ => return None,
                })
            }
            _ => return None,
        };
        return Some(HostRef::Bits(r));
    }
    let rn = parts.get(1) == Some(&"rn") && parts.len() == 3;
    match ty {
        "f32" => {
            let (x, y, z) = (
                f32::from_bits(a as u32),
                f32::from_bits(b as u32),
                f32::from_bits(c as u32),
            );
            let v = match op {
                "setp" if parts.len() == 3 => {
                    return Some(HostRef::Bits(u64::from(fcmp(parts[1], x, y)?)))
                }
                "add" if rn => x + y,
                "sub" if rn => x - y,
                "mul" if rn => x * y,
                "fma" if rn => x.mul_add(y, z),
                "div" if rn => x / y,
                "sqrt" if rn => x.sqrt(),
                _ => return None,
            };
            Some(HostRef::Bits(if v.is_nan() {
                0x7fff_ffff
            } else {
                u64::from(v.to_bits())
            }))
        }
        "f64" => {
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let v = match op {
                "setp" if parts.len() == 3 => {
                    return Some(HostRef::Bits(u64::from(fcmp(parts[1], x, y)?)))
                }
                "add" if rn => x + y,
                "sub" if rn => x - y,
                "mul" if rn => x * y,
                "fma" if rn => x.mul_add(y, z),
                "div" if rn => x / y,
                "sqrt" if rn => x.sqrt(),
                _ => return None,
            };
            Some(if v.is_nan() {
                HostRef::AnyNanF64
            } else {
                HostRef::Bits(v.to_bits())
            })
        }
        _ => None,
    }
}

/// A host reference: exact bits, or (an f64 NaN, whose payload NVIDIA does not fix) any NaN.
enum HostRef {
    Bits(u64),
    AnyNanF64,
}

/// A `setp` comparison of floats, ordered and unordered, as the PTX ISA defines it.
fn fcmp<T: PartialOrd>(cmp: &str, x: T, y: T) -> Option<bool> {
    let nan = x.partial_cmp(&y).is_none();
    Some(match cmp {
        "eq" => x == y,
        "ne" => !nan && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "equ" => nan || x == y,
        "neu" => x != y,
        "ltu" => nan || x < y,
        "leu" => nan || x <= y,
        "gtu" => nan || x > y,
        "geu" => nan || x >= y,
        "num" => !nan,
        "nan" => nan,
        _ => return None,
    })
}

/// What no kernel writes: the output buffers start with it, so a form that writes nothing is
/// seen (a 16- or 32-bit result is zero-extended and cannot equal it).
const UNWRITTEN: u64 = 0x5a5a_5a5a_5a5a_5a5a;

/// On a GPU: every form of every module, run as the native PTX (where the backend loads PTX:
/// the CUDA backend; HIP's NVIDIA platform with `ANYCUDA_HIP_AMD_FAITHFUL=0`) and as the
/// translation compiled by the backend's compiler, gives the same bits (`.approx` forms within
/// the bound each form states). Where the backend translates PTX at load (AMD; HIP's NVIDIA
/// platform in AMD-faithful mode, its default), the PTX loaded through that route is compared
/// with the translation compiled directly, and both with the host's reference bits for the
/// forms whose semantics are plain (`host_reference`); on the CUDA backend, NVIDIA's own
/// results are checked against the host reference too. Every difference of every form is
/// printed before the test fails.
#[anycuda_test::gpu_test]
fn translated_forms_match_native_ptx() {
    use anycuda::core::{launch, Buffer, Device, LaunchConfig, ObjectCode, StreamOptions};
    let dev = Device::new(0).expect("device 0");
    let ctx = dev.set_current().expect("set_current");
    let stream = ctx.create_stream(StreamOptions::default()).unwrap();
    let kind = anycuda::backend().unwrap().kind();
    // On the CUDA backend, PTX loads natively; on HIP, a PTX module goes through the backend's
    // load route (translated where AMD-faithful).
    let native_is_nvidia = kind == BackendKind::Cuda;
    eprintln!(
        "{kind} backend: comparing the translation with the PTX {}",
        if native_is_nvidia {
            "loaded natively by NVIDIA's driver"
        } else {
            "loaded through the HIP backend's module load"
        }
    );
    let cfg = LaunchConfig::for_num_elems(forms::N as u32, 256);
    let mut failures: Vec<String> = Vec::new();
    let (mut forms_run, mut host_checked) = (0usize, 0usize);
    for (m, ptx, t) in translated() {
        let mut prog = Program::new(&t.source, ProgramOptions::new().name("conf.cpp")).unwrap();
        let translated = prog
            .compile(CodeType::Ptx)
            .unwrap_or_else(|e| panic!("{}: compile: {e}", m.name));
        let loaded = ObjectCode::from_bytes(ptx.as_bytes().to_vec(), CodeType::Ptx)
            .unwrap_or_else(|e| panic!("{}: loading the PTX: {e}", m.name));
        for f in &m.forms {
            let [a, b, c] = forms::inputs(f);
            let run = |code: &ObjectCode| -> Vec<u64> {
                let (da, db, dc) = (
                    Buffer::from_slice(&stream, &a).unwrap(),
                    Buffer::from_slice(&stream, &b).unwrap(),
                    Buffer::from_slice(&stream, &c).unwrap(),
                );
                let mut o = Buffer::from_slice(&stream, &vec![UNWRITTEN; forms::N]).unwrap();
                let k = code
                    .kernel(&f.entry)
                    .unwrap_or_else(|e| panic!("{} ({}): {e}", f.name, m.name));
                // SAFETY: every suite kernel reads a, b, c [0..n] and writes out[0..n], n = N.
                unsafe { launch(&stream, &cfg, &k, (&da, &db, &dc, &mut o, forms::N as u32)) }
                    .unwrap_or_else(|e| panic!("{} ({}): launch: {e}", f.name, m.name));
                stream.synchronize().unwrap();
                o.to_vec().unwrap()
            };
            let got = run(&translated);
            let want = run(&loaded);
            forms_run += 1;
            let show = |i: usize| -> String {
                let ins: Vec<String> = [&a, &b, &c][..f.ins.len()]
                    .iter()
                    .map(|v| format!("{:#x}", v[i]))
                    .collect();
                format!("({})", ins.join(", "))
            };
            let mut diffs = Vec::new();
            for i in 0..forms::N {
                if f.out != Reg::B64 && (got[i] == UNWRITTEN || want[i] == UNWRITTEN) {
                    diffs.push(format!("{} [{i}] not written", show(i)));
                } else if !agrees(f.check, a[i], b[i], got[i], want[i]) {
                    diffs.push(format!(
                        "{} translated {:#x}, {} {:#x}",
                        show(i),
                        got[i],
                        if native_is_nvidia { "NVIDIA" } else { "loaded" },
                        want[i]
                    ));
                }
                if let Some(r) = host_reference(f, a[i], b[i], c[i]) {
                    host_checked += usize::from(i == 0);
                    for (what, v) in [("translated", got[i]), ("loaded", want[i])] {
                        let ok = match r {
                            HostRef::Bits(w) => v == w,
                            HostRef::AnyNanF64 => f64::from_bits(v).is_nan(),
                        };
                        if !ok {
                            let w = match r {
                                HostRef::Bits(w) => format!("{w:#x}"),
                                HostRef::AnyNanF64 => "a NaN".into(),
                            };
                            diffs.push(format!("{} {what} {v:#x}, host reference {w}", show(i)));
                        }
                    }
                }
            }
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} ({}, {:?}): {} of {} differ: {}",
                    f.name,
                    m.name,
                    f.check,
                    diffs.len(),
                    forms::N,
                    diffs.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
                ));
            }
        }
    }
    eprintln!("{forms_run} forms run, {host_checked} also against the host's reference");
    assert!(
        failures.is_empty(),
        "{} forms differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
