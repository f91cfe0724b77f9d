//! Kernel parameter layouts read from real compiler output (no GPU): NVRTC's PTX and cubin,
//! hipRTC's AMD code objects (and the same wrapped in a clang offload bundle). The cubin's
//! `EIATTR_KPARAM_INFO` is what the CUDA driver reports through `cuFuncGetParamInfo`; the PTX
//! and AMD layouts must agree with it. These layouts are what the HIP backend answers
//! `cuFuncGetParamInfo`/`cuFuncGetParamCount` with, and what `core` counts parameters by on
//! CUDA drivers before 13.2. The real-world corpus's layouts are checked where it is compiled:
//! tests/rocm_real_corpus.rs.

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
