//! Kernel parameter layouts read from real compiler output (no GPU): NVRTC's PTX and cubin,
//! hipRTC's AMD code objects (and the same wrapped in a clang offload bundle). The cubin's
//! `EIATTR_KPARAM_INFO` is what the CUDA driver reports through `cuFuncGetParamInfo`; the PTX
//! and AMD layouts must agree with it. These layouts are what the HIP backend answers
//! `cuFuncGetParamInfo`/`cuFuncGetParamCount` with, and what `core` counts parameters by on
//! CUDA drivers before 13.2.

mod common;

use anycuda::core::{CodeType, Program};
use anycuda::params::{image_len, kernel_params, KernelParams, ParamsError};
use anycuda::BackendKind;

#[path = "common/param_kernels.rs"]
mod param_kernels;
use param_kernels::{expected, SCALE, SOURCE};

fn check(what: &str, got: &[KernelParams]) {
    for (name, params) in expected() {
        let k = got
            .iter()
            .find(|k| k.name == name)
            .unwrap_or_else(|| panic!("{what}: no kernel {name} in {got:?}"));
        assert_eq!(k.params, params, "{what}: {name}");
    }
}

fn compile(kind: BackendKind, arch: &str) -> Option<Program> {
    let b = common::compiler(kind)?;
    let mut prog = common::program(b, SOURCE, "params.cu", &["scale<double>"]);
    prog.compile_with_args(&[&format!("--gpu-architecture={arch}")])
        .unwrap_or_else(|e| panic!("{kind} {arch}: {e}"));
    assert_eq!(prog.lowered_name("scale<double>").unwrap(), SCALE);
    Some(prog)
}

/// `image_len` of the bytes, through the raw pointer as the HIP backend sees them.
fn len_of(image: &[u8]) -> Option<usize> {
    // SAFETY: a complete image in memory (text images get their NUL from the caller).
    unsafe { image_len(image.as_ptr().cast()) }
}

#[test]
fn nvrtc_ptx_and_cubin_agree_with_the_expected_layout() {
    let Some(prog) = compile(BackendKind::Cuda, "sm_90") else {
        return;
    };
    let cubin = common::code(&prog, CodeType::Cubin);
    check("cubin", &kernel_params(&cubin).unwrap());
    let mut ptx = common::code(&prog, CodeType::Ptx);
    check("PTX", &kernel_params(&ptx).unwrap());
    assert!(len_of(&cubin).is_some_and(|n| n <= cubin.len() && n > cubin.len() / 2));
    check(
        "cubin by image_len",
        &kernel_params(&cubin[..len_of(&cubin).unwrap()]).unwrap(),
    );
    if ptx.last() != Some(&0) {
        ptx.push(0);
    }
    assert_eq!(len_of(&ptx), Some(ptx.len() - 1));
    // Older architectures lay parameters out the same way.
    for arch in ["sm_75", "sm_80", "sm_120"] {
        let prog = compile(BackendKind::Cuda, arch).unwrap();
        check(
            arch,
            &kernel_params(&common::code(&prog, CodeType::Cubin)).unwrap(),
        );
    }
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_code_objects_agree_with_the_cuda_layout() {
    let Some(b) = common::compiler(BackendKind::Hip) else {
        return;
    };
    let hip = b.as_hip().unwrap();
    let supported = anycuda::native::hip::rtc_options::supported_archs(hip.hip_version());
    let mut checked = Vec::new();
    for arch in [
        "gfx908", "gfx90a", "gfx1030", "gfx942", "gfx1100", "gfx1200",
    ] {
        // hipRTC 5.2.3 aborts the process on an architecture it does not know.
        if !supported.contains(&arch) {
            continue;
        }
        let prog = compile(BackendKind::Hip, arch).unwrap();
        let code = common::code(&prog, CodeType::Cubin);
        // Newer code objects list hidden arguments (left out, as CUDA has none).
        let hidden = code.windows(7).any(|w| w == b"hidden_");
        checked.push(format!(
            "{arch}{}",
            if hidden { " (hidden args)" } else { "" }
        ));
        let got = kernel_params(&code).unwrap();
        check(arch, &got);
        let n = len_of(&code).unwrap();
        assert!(n <= code.len(), "{arch}: image_len {n} > {}", code.len());
        assert_eq!(kernel_params(&code[..n]).unwrap(), got, "{arch}");
        // The same object in a clang offload bundle, beside a host entry.
        let bundle = offload_bundle(&[
            ("host-x86_64-unknown-linux-gnu", &[][..]),
            (&format!("hipv4-amdgcn-amd-amdhsa--{arch}"), &code),
        ]);
        assert_eq!(len_of(&bundle), Some(bundle.len()), "{arch} bundle");
        assert_eq!(kernel_params(&bundle).unwrap(), got, "{arch} bundle");
    }
    assert!(!checked.is_empty(), "no AMD architecture to check");
    eprintln!("HIP {}: checked {}", hip.hip_version(), checked.join(", "));
}

/// A clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`, entry count, then offset/size/id of
/// each entry, then the entries) as clang-offload-bundler writes it.
fn offload_bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut head = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    head.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let table: usize = entries.iter().map(|(id, _)| 24 + id.len()).sum();
    let mut at = (head.len() + table).next_multiple_of(4096);
    let mut body = Vec::new();
    for (id, code) in entries {
        head.extend_from_slice(&(at as u64).to_le_bytes());
        head.extend_from_slice(&(code.len() as u64).to_le_bytes());
        head.extend_from_slice(&(id.len() as u64).to_le_bytes());
        head.extend_from_slice(id.as_bytes());
        body.push((at, *code));
        at = (at + code.len()).next_multiple_of(4096);
    }
    let mut out = head;
    for (off, code) in body {
        out.resize(off, 0);
        out.extend_from_slice(code);
    }
    out
}

#[test]
fn refused_formats_say_so() {
    // Compressed bundles, NVIDIA fat binaries, ELF for other machines, text that is no PTX.
    let unsupported = |b: &[u8]| {
        assert!(
            matches!(kernel_params(b), Err(ParamsError::Unsupported(_))),
            "{:?}",
            kernel_params(b)
        )
    };
    unsupported(b"CCOB\x01\x00\x02\x00");
    unsupported(&[0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    unsupported(b"int main() { return 0; }");
    let mut elf = vec![0u8; 64];
    elf[..7].copy_from_slice(b"\x7fELF\x02\x01\x01");
    elf[18] = 62; // x86-64
    unsupported(&elf);
    unsupported(&offload_bundle(&[("host-x86_64-unknown-linux-gnu", b"x")]));
    // The HIP backend gets no length for formats it cannot read.
    assert_eq!(len_of(b"CCOB\x01\x00\x02\x00"), None);
}

/// Real images cut short or with bytes changed: an error or some answer, never a panic.
#[test]
fn damaged_real_images_never_panic() {
    let mut images = Vec::new();
    if let Some(prog) = compile(BackendKind::Cuda, "sm_90") {
        images.push(common::code(&prog, CodeType::Cubin));
        images.push(common::code(&prog, CodeType::Ptx));
    }
    #[cfg(feature = "backend-hip")]
    if let Some(prog) = compile(BackendKind::Hip, "gfx90a") {
        images.push(common::code(&prog, CodeType::Cubin));
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for img in &images {
        for n in (0..img.len()).step_by(7) {
            let _ = kernel_params(&img[..n]);
        }
        for _ in 0..3000 {
            let mut d = img.clone();
            for _ in 0..1 + next() % 4 {
                let r = next();
                // Mostly the headers and metadata, where the structure is.
                let i = if r & 1 == 0 {
                    (r >> 8) as usize % d.len().min(256)
                } else {
                    (r >> 8) as usize % d.len()
                };
                d[i] = (r >> 40) as u8;
            }
            let _ = kernel_params(&d);
        }
    }
}

/// The real-world corpus (tests/kernels/real/SOURCES.md, fetched into .cache/inputs): every
/// kernel's layout read from NVRTC's PTX equals the cubin's (what the CUDA driver reports), and
/// hipRTC's code object (gfx90a) gives the same for every kernel it holds. Minutes of compiling:
/// runs with `ANYCUDA_REAL_CORPUS=1`.
#[test]
fn real_corpus_layouts_agree_across_ptx_cubin_and_amd() {
    if std::env::var_os("ANYCUDA_REAL_CORPUS").is_none() {
        eprintln!("SKIP: the real-world kernel corpus runs with ANYCUDA_REAL_CORPUS=1");
        return;
    }
    let Some(cuda) = common::compiler(BackendKind::Cuda) else {
        return;
    };
    #[cfg(feature = "backend-hip")]
    let hip = common::compiler(BackendKind::Hip);
    let root = common::repo_root().join(".cache/inputs/real-kernels");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|lib| {
            std::fs::read_dir(lib.path().join("src"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    let compile = |b: anycuda::Backend, file: &std::path::Path, arch: &str| {
        let src = std::fs::read_to_string(file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let mut p = common::program(b, &src, &name, &[]);
        let inc = anycuda_api::rtc_include::source_folder_option(file).unwrap();
        p.compile_with_args(&[&inc, &format!("--gpu-architecture={arch}")])
            .ok()
            .map(|_| p)
    };
    let mut kernels = 0;
    // Counted only where the HIP backend is compiled in.
    #[cfg_attr(not(feature = "backend-hip"), allow(unused_mut))]
    let mut amd_kernels = 0;
    // Compiled on every core (each compile is single-threaded), checked in file order.
    let compiled = common::par_map(&files, |f| {
        let nv = compile(cuda, f, "sm_90").map(|p| {
            (
                common::code(&p, CodeType::Ptx),
                common::code(&p, CodeType::Cubin),
            )
        });
        #[cfg(feature = "backend-hip")]
        let amd = nv
            .as_ref()
            .and(hip)
            .and_then(|h| compile(h, f, "gfx90a"))
            .map(|p| common::code(&p, CodeType::Cubin));
        #[cfg(not(feature = "backend-hip"))]
        let amd: Option<Vec<u8>> = None;
        (nv, amd)
    });
    #[cfg_attr(not(feature = "backend-hip"), allow(unused_variables))]
    for (f, (nv, amd)) in files.iter().zip(compiled) {
        let Some((ptx, cubin)) = nv else {
            continue;
        };
        let from_ptx = kernel_params(&ptx).unwrap();
        let mut from_cubin = kernel_params(&cubin).unwrap();
        let mut sorted_ptx = from_ptx.clone();
        sorted_ptx.sort_by(|a, b| a.name.cmp(&b.name));
        from_cubin.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(sorted_ptx, from_cubin, "{}", f.display());
        kernels += from_ptx.len();
        #[cfg(feature = "backend-hip")]
        if let Some(code) = amd {
            for k in kernel_params(&code).unwrap() {
                if let Some(c) = from_ptx.iter().find(|c| c.name == k.name) {
                    assert_eq!(k.params, c.params, "{}: {}", f.display(), k.name);
                    amd_kernels += 1;
                }
            }
        }
    }
    eprintln!(
        "{} files: {kernels} kernels agree between PTX and cubin, {amd_kernels} of them also with \
         hipRTC's code object",
        files.len()
    );
    assert!(kernels > 100, "only {kernels} kernels compiled");
}
