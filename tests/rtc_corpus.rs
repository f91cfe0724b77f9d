//! The kernel corpus (tests/kernels) compiled for real with NVRTC and hipRTC through anycuda's
//! NVRTC API: PTX has each `.entry`, the cubin is a CUDA ELF, and the AMD code object is an
//! AMDGPU ELF with each kernel symbol and its `.kd` descriptor.

mod common;

use anycuda::core::{CodeType, Program};
use anycuda::nvrtc::nvrtcResult;
use anycuda::{Backend, BackendKind};
#[cfg(feature = "backend-hip")]
use common::EM_AMDGPU;
use common::{code, compiler, corpus, elf_machine, elf_symbols, program, Kernel, EM_CUDA};

#[cfg(feature = "backend-hip")]
/// The arches the issue names for Debian's hipRTC 5.2.3; the whole corpus is built for each.
const CORPUS_HIP_ARCHES: &[&str] = &["gfx908", "gfx90a", "gfx1030"];

/// Compiles one corpus entry; returns the program and every symbol name it must define.
fn build(b: Backend, k: &Kernel, arch: &str) -> (Program, Vec<String>) {
    let name = k.path.file_name().unwrap().to_string_lossy().into_owned();
    let exprs: Vec<&str> = k.name_expressions.iter().map(String::as_str).collect();
    let mut p = program(b, &k.source, &name, &exprs);
    let mut opts: Vec<&str> = k.options.iter().map(String::as_str).collect();
    let arch_opt = format!("--gpu-architecture={arch}");
    opts.push(&arch_opt);
    if let Err(e) = p.compile_with_args(&opts) {
        panic!("{name} for {arch} on {}: {e}", b.kind());
    }
    let mut symbols = k.kernels.clone();
    for e in &k.name_expressions {
        let lowered = p
            .lowered_name(e)
            .unwrap_or_else(|err| panic!("{name}: lowered name of {e}: {err}"));
        assert!(
            lowered.starts_with("_Z"),
            "{name}: {e} lowered to {lowered}"
        );
        symbols.push(lowered);
    }
    assert!(
        !symbols.is_empty(),
        "{name}: the corpus entry names no kernel"
    );
    (p, symbols)
}

#[test]
fn corpus_compiles_with_nvrtc_for_sm_90() {
    let Some(b) = compiler(BackendKind::Cuda) else {
        return;
    };
    let kernels = corpus("tests/kernels");
    assert!(
        kernels.len() >= 10,
        "the corpus must hold at least ten kernels"
    );
    for k in &kernels {
        let (p, symbols) = build(b, k, "sm_90");
        let ptx = String::from_utf8(code(&p, CodeType::Ptx)).unwrap();
        let cubin = code(&p, CodeType::Cubin);
        assert_eq!(
            elf_machine(&cubin),
            Some(EM_CUDA),
            "{}: cubin is not a CUDA ELF",
            k.path.display()
        );
        let cubin_symbols = elf_symbols(&cubin);
        for s in &symbols {
            assert!(
                ptx.contains(&format!(".entry {s}(")),
                "{}: PTX lacks .entry {s}",
                k.path.display()
            );
            assert!(
                cubin_symbols.contains(s),
                "{}: cubin lacks {s}",
                k.path.display()
            );
        }
    }
}

#[cfg(feature = "backend-hip")]
#[test]
fn corpus_compiles_with_hiprtc_for_amd_arches() {
    let Some(b) = compiler(BackendKind::Hip) else {
        return;
    };
    let hip = b.as_hip().unwrap();
    let supported = anycuda::native::hip::rtc_options::supported_archs(hip.hip_version());
    for arch in CORPUS_HIP_ARCHES {
        assert!(
            supported.contains(arch),
            "{arch} should be supported by HIP {}",
            hip.hip_version()
        );
    }
    for k in &corpus("tests/kernels") {
        for arch in CORPUS_HIP_ARCHES {
            let (p, symbols) = build(b, k, arch);
            // NVRTC's "PTX" and "CUBIN" calls both return the AMD code object on HIP.
            let image = code(&p, CodeType::Ptx);
            assert_eq!(image, code(&p, CodeType::Cubin));
            assert_eq!(
                elf_machine(&image),
                Some(EM_AMDGPU),
                "{} for {arch}: not an AMDGPU ELF",
                k.path.display()
            );
            let syms = elf_symbols(&image);
            for s in &symbols {
                assert!(
                    syms.contains(s),
                    "{} for {arch}: code object lacks {s}",
                    k.path.display()
                );
                assert!(
                    syms.contains(&format!("{s}.kd")),
                    "{} for {arch}: code object lacks {s}.kd",
                    k.path.display()
                );
            }
        }
    }
}

#[cfg(feature = "backend-hip")]
#[test]
fn saxpy_compiles_for_every_arch_the_installed_hiprtc_supports() {
    let Some(b) = compiler(BackendKind::Hip) else {
        return;
    };
    let hip = b.as_hip().unwrap();
    let k = corpus("tests/kernels")
        .into_iter()
        .find(|k| k.path.ends_with("saxpy.cu"))
        .unwrap();
    for arch in anycuda::native::hip::rtc_options::supported_archs(hip.hip_version()) {
        let (p, symbols) = build(b, &k, arch);
        let image = code(&p, CodeType::Ptx);
        assert_eq!(elf_machine(&image), Some(EM_AMDGPU), "saxpy for {arch}");
        let syms = elf_symbols(&image);
        assert!(
            symbols
                .iter()
                .all(|s| syms.contains(s) && syms.contains(&format!("{s}.kd"))),
            "saxpy for {arch}"
        );
    }
}

/// A compile error returns `NVRTC_ERROR_COMPILATION` and a log naming the problem.
fn compile_error_is_reported(kind: BackendKind, arch: &str) {
    let Some(b) = compiler(kind) else { return };
    let bad = corpus("tests/kernels/bad");
    assert!(!bad.is_empty());
    for k in &bad {
        let expected = k
            .expect_error
            .as_deref()
            .expect("bad kernels name the expected error");
        let mut p = program(b, &k.source, "bad.cu", &[]);
        let err = p
            .compile_with_args(&[format!("--gpu-architecture={arch}")])
            .unwrap_err();
        assert_eq!(
            err.nvrtc_code(),
            Some(nvrtcResult::NVRTC_ERROR_COMPILATION),
            "{kind}"
        );
        let log = err.detail().unwrap_or_default();
        assert!(
            log.contains(expected),
            "{kind}: log does not mention {expected}:\n{log}"
        );
        assert_eq!(p.log(), log);
    }
}

#[test]
fn compile_error_returns_log_and_code_on_nvrtc() {
    compile_error_is_reported(BackendKind::Cuda, "sm_90");
}

#[test]
fn compile_error_returns_log_and_code_on_hiprtc() {
    compile_error_is_reported(BackendKind::Hip, "gfx90a");
}
