//! The raw nvJitLink layer without a GPU: the real nvJitLink 13.5 (PyPI `nvidia-nvjitlink`)
//! loads; NVRTC 13.5 `-dlto` compiles two relocatable units to LTO-IR; nvJitLink links them
//! into an sm_90 cubin (nvJitLink needs no device); bad input (garbage, empty input, no input,
//! unknown or mismatched arch, LTO-IR without `-lto`) gives errors and logs, never a crash; a
//! missing library answers `NVJITLINK_ERROR_NOT_SUPPORTED` with every path tried; the HIP
//! backend's linker takes NVRTC's PTX (and refuses LTO-IR with the reason in its log).
//!
//! Under `CI=true` a missing nvJitLink or NVRTC fails the tests instead of skipping them.

mod common;

use anycuda::core::linker::looks_like_ltoir;
use anycuda::core::{CodeType, Program, ProgramOptions};
use anycuda::nvjitlink::*;
use anycuda::{Backend, BackendKind, CudaEnum};
use common::{compiler, elf_machine, elf_symbols, on_ci, repo_root, EM_CUDA};
use core::ffi::c_char;
use std::ffi::CString;
use std::sync::Once;

const LIB: &str = "__device__ float twice(float x) { return 2.0f * x; }";
const MAIN: &str = r#"__device__ float twice(float);
extern "C" __global__ void k(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }"#;

/// Points `ANYCUDA_NVJITLINK_LIBRARY` at the wheel's library unless the caller chose one (or
/// `CUDA_PATH` finds it), and returns nvJitLink on the CUDA backend; `None` (after printing
/// why) when it does not load and CI does not require it.
fn setup() -> Option<Library> {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let wheel = repo_root().join(".cache/inputs/cuda/nvidia/cu13/lib/libnvJitLink.so.13");
        anycuda_test::env::default_library("ANYCUDA_NVJITLINK_LIBRARY", &wheel);
    });
    let b = Backend::load(BackendKind::Cuda).ok()?;
    match library_of(b) {
        Ok(l) => Some(l),
        Err(e) if on_ci() => {
            panic!("CI=true and nvJitLink does not load (run bash ci/fetch-inputs.sh): {e}")
        }
        Err(e) => {
            eprintln!("SKIP: nvJitLink does not load: {e}");
            None
        }
    }
}

/// Two relocatable units (`twice` and the kernel `k` calling it), compiled to LTO-IR for sm_90.
fn ltoir_units() -> Option<(Vec<u8>, Vec<u8>)> {
    let b = compiler(BackendKind::Cuda)?;
    let opts = ProgramOptions::new()
        .arch("sm_90")
        .relocatable_device_code(true);
    let one = |name: &str, src: &str| {
        let mut p = Program::with_backend(b, src, opts.clone().name(name)).unwrap();
        let code = p.compile(CodeType::Ltoir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(code.code_type(), CodeType::Ltoir);
        code.code().to_vec()
    };
    Some((one("lib.cu", LIB), one("main.cu", MAIN)))
}

/// The outcome of a link: each call's result, the cubin when there is one, and both logs.
#[derive(Debug, Default)]
struct Outcome {
    create: Option<nvJitLinkResult>,
    adds: Vec<nvJitLinkResult>,
    complete: Option<nvJitLinkResult>,
    cubin: Option<Vec<u8>>,
    info: String,
    error: String,
}

fn read_log(
    l: Library,
    h: nvJitLinkHandle,
    size: unsafe fn(&Library, nvJitLinkHandle, *mut usize) -> nvJitLinkResult,
    log: unsafe fn(&Library, nvJitLinkHandle, *mut c_char) -> nvJitLinkResult,
) -> String {
    let mut n = 0usize;
    // SAFETY: live handle, valid out-pointer.
    unsafe { size(&l, h, &mut n) }.result().unwrap();
    let mut buf = vec![0u8; n + 1];
    // SAFETY: the buffer holds the reported size and one more byte.
    unsafe { log(&l, h, buf.as_mut_ptr().cast()) }
        .result()
        .unwrap();
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Links `inputs` with `options` through the raw layer.
fn link(l: Library, options: &[&str], inputs: &[(nvJitLinkInputType, &[u8])]) -> Outcome {
    let mut out = Outcome::default();
    let opts: Vec<CString> = options.iter().map(|o| CString::new(*o).unwrap()).collect();
    let mut ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut h: nvJitLinkHandle = core::ptr::null_mut();
    // SAFETY: valid out-pointer and option strings.
    let r = unsafe { l.nvJitLinkCreate(&mut h, ptrs.len() as u32, ptrs.as_mut_ptr()) };
    out.create = Some(r);
    if r != nvJitLinkResult::NVJITLINK_SUCCESS {
        return out;
    }
    for (i, (kind, data)) in inputs.iter().enumerate() {
        let name = CString::new(format!("input{i}")).unwrap();
        // SAFETY: live handle; `data` valid for its length.
        out.adds.push(unsafe {
            l.nvJitLinkAddData(h, *kind, data.as_ptr().cast(), data.len(), name.as_ptr())
        });
    }
    // SAFETY: live handle.
    let r = unsafe { l.nvJitLinkComplete(h) };
    out.complete = Some(r);
    if r == nvJitLinkResult::NVJITLINK_SUCCESS {
        let mut n = 0usize;
        // SAFETY: live handle, valid out-pointer.
        unsafe { l.nvJitLinkGetLinkedCubinSize(h, &mut n) }
            .result()
            .unwrap();
        let mut cubin = vec![0u8; n];
        // SAFETY: the buffer holds the reported size.
        unsafe { l.nvJitLinkGetLinkedCubin(h, cubin.as_mut_ptr().cast()) }
            .result()
            .unwrap();
        out.cubin = Some(cubin);
    }
    out.info = read_log(
        l,
        h,
        <Library as NvJitLink>::nvJitLinkGetInfoLogSize,
        <Library as NvJitLink>::nvJitLinkGetInfoLog,
    );
    out.error = read_log(
        l,
        h,
        <Library as NvJitLink>::nvJitLinkGetErrorLogSize,
        <Library as NvJitLink>::nvJitLinkGetErrorLog,
    );
    // SAFETY: our handle, destroyed once.
    unsafe { l.nvJitLinkDestroy(&mut h) }.result().unwrap();
    assert!(h.is_null(), "nvJitLinkDestroy clears the handle");
    out
}

const LTOIR: nvJitLinkInputType = nvJitLinkInputType::NVJITLINK_INPUT_LTOIR;

#[test]
fn nvjitlink_loads_from_the_pinned_wheel() {
    let Some(l) = setup() else { return };
    let info = l.info();
    assert!(info.path.contains("libnvJitLink.so.13"), "{info:?}");
    assert_eq!(info.version, 13050, "{info:?}");
    assert_eq!(info.entry_points.0, info.entry_points.1, "{info:?}");
    assert_eq!(info.entry_points.1, NVJITLINK_FUNCTIONS.len());
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    unsafe { l.nvJitLinkVersion(&mut major, &mut minor) }
        .result()
        .unwrap();
    assert_eq!((major, minor), (13, 5));
}

#[test]
fn nvrtc_dlto_compiles_relocatable_units_to_ltoir() {
    let Some((a, k)) = ltoir_units() else { return };
    for u in [&a, &k] {
        // NVRTC 13.5 wraps LTO-IR in NVIDIA's container: ED 43 4E 7F.
        assert_eq!(&u[..4], &[0xED, 0x43, 0x4E, 0x7F], "{:02x?}", &u[..16]);
        assert!(looks_like_ltoir(u));
        assert_eq!(elf_machine(u), None);
    }
    assert!(!looks_like_ltoir(b"\x7fELF\x02\x01\x01"));
    assert!(!looks_like_ltoir(b".version 9.0\n.target sm_90\n"));
    assert!(!looks_like_ltoir(b""));
    assert!(looks_like_ltoir(b"BC\xC0\xDE\x35\x14"));
}

#[test]
fn nvjitlink_links_ltoir_into_an_sm90_cubin_without_a_gpu() {
    let Some(l) = setup() else { return };
    let Some((a, k)) = ltoir_units() else { return };
    let out = link(l, &["-arch=sm_90", "-lto"], &[(LTOIR, &a), (LTOIR, &k)]);
    assert_eq!(out.create, Some(nvJitLinkResult::NVJITLINK_SUCCESS));
    assert!(
        out.adds
            .iter()
            .all(|r| *r == nvJitLinkResult::NVJITLINK_SUCCESS),
        "{out:?}"
    );
    assert_eq!(
        out.complete,
        Some(nvJitLinkResult::NVJITLINK_SUCCESS),
        "{out:?}"
    );
    let cubin = out.cubin.expect("a cubin");
    assert!(cubin.starts_with(b"\x7fELF"));
    assert_eq!(elf_machine(&cubin), Some(EM_CUDA));
    let syms = elf_symbols(&cubin);
    assert!(syms.iter().any(|s| s == "k"), "{syms:?}");
    // `twice` was inlined by link-time optimisation: no function of that name is left.
    assert!(!syms.iter().any(|s| s.contains("twice")), "{syms:?}");
    assert!(out.error.is_empty(), "{}", out.error);

    // -verbose fills the info log with ptxas's report.
    let out = link(
        l,
        &["-arch=sm_90", "-lto", "-verbose"],
        &[(LTOIR, &a), (LTOIR, &k)],
    );
    assert!(out.cubin.is_some());
    assert!(
        out.info.contains("Compiling entry function 'k'"),
        "{}",
        out.info
    );
}

#[test]
fn bad_input_gives_errors_never_a_crash() {
    let Some(l) = setup() else { return };
    let Some((a, k)) = ltoir_units() else { return };
    use nvJitLinkResult as R;
    let lto = ["-arch=sm_90", "-lto"];

    // Garbage bytes: refused at add, the link fails with a log naming the input type.
    let out = link(l, &lto, &[(LTOIR, b"garbage bytes, not LTO-IR")]);
    assert_eq!(out.adds, [R::NVJITLINK_ERROR_INCORRECT_INPUT_TYPE]);
    assert_ne!(out.complete, Some(R::NVJITLINK_SUCCESS));
    assert!(out.cubin.is_none());
    assert!(out.error.contains("NVJITLINK_INPUT_LTOIR"), "{}", out.error);

    // Empty input, and no input at all.
    let out = link(l, &lto, &[(LTOIR, b"")]);
    assert_eq!(out.adds, [R::NVJITLINK_ERROR_INVALID_INPUT]);
    assert_ne!(out.complete, Some(R::NVJITLINK_SUCCESS));
    let out = link(l, &lto, &[]);
    assert_ne!(out.complete, Some(R::NVJITLINK_SUCCESS));
    assert!(!out.error.is_empty());

    // Unknown, malformed and missing arch: refused at create.
    let out = link(l, &["-arch=sm_9999", "-lto"], &[]);
    assert_eq!(out.create, Some(R::NVJITLINK_ERROR_UNSUPPORTED_ARCH));
    let out = link(l, &["-arch=banana", "-lto"], &[]);
    assert_eq!(out.create, Some(R::NVJITLINK_ERROR_UNRECOGNIZED_OPTION));
    let out = link(l, &["-lto"], &[]);
    assert_eq!(out.create, Some(R::NVJITLINK_ERROR_MISSING_ARCH));

    // LTO-IR for sm_90 linked for sm_80: an arch mismatch, with the log saying so.
    let out = link(l, &["-arch=sm_80", "-lto"], &[(LTOIR, &a), (LTOIR, &k)]);
    assert_eq!(out.adds, [R::NVJITLINK_ERROR_ARCH_MISMATCH; 2]);
    assert!(out.cubin.is_none());
    assert!(out.error.contains("arch"), "{}", out.error);

    // LTO-IR without -lto.
    let out = link(l, &["-arch=sm_90"], &[(LTOIR, &a), (LTOIR, &k)]);
    assert_eq!(out.adds, [R::NVJITLINK_ERROR_LTO_NOT_ENABLED; 2]);
    assert!(out.error.contains("-lto"), "{}", out.error);
}

#[test]
fn result_codes_have_names_and_anycudas_own_code() {
    let e = nvJitLinkResult::NVJITLINK_ERROR_ARCH_MISMATCH
        .result()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "NVJITLINK_ERROR_ARCH_MISMATCH (13): Arch Mismatch"
    );
    let ns = nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED;
    assert!(anycuda::hallucinated::is_reserved(ns.to_i64()));
    assert!(ns
        .result()
        .unwrap_err()
        .to_string()
        .contains("anycuda: not supported"));
    assert!(nvJitLinkResult::NVJITLINK_SUCCESS.result().is_ok());
}

/// Run in a child process (the library loads once per process): a missing library.
#[test]
fn missing_library_answers_not_supported() {
    const CHILD: &str = "ANYCUDA_TEST_NVJITLINK_MISSING_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let Ok(b) = Backend::load(BackendKind::Cuda) else {
            return;
        };
        let e = library_of(b).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("nvJitLink (libnvJitLink) not found"),
            "{text}"
        );
        assert!(text.contains("/nonexistent/libnvJitLink.so.13"), "{text}");
        // The free functions (on the CUDA backend) answer anycuda's own code.
        if anycuda::backend().map(|s| s.kind()) == Ok(BackendKind::Cuda) {
            let (mut major, mut minor) = (0, 0);
            // SAFETY: valid out-pointers.
            let r = unsafe { nvJitLinkVersion(&mut major, &mut minor) };
            assert_eq!(r, nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED);
        }
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "missing_library_answers_not_supported",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env(
            "ANYCUDA_NVJITLINK_LIBRARY",
            "/nonexistent/libnvJitLink.so.13",
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The HIP backend's linker over NVIDIA's (the pinned wheel, a host library): LTO-IR and PTX
/// are taken; in AMD-faithful mode (CI: AMD platform) completing links the LTO-IR to PTX with
/// NVIDIA's linker and translates it for the AMD GPU, which without a device (CI) stops at the
/// target question, after the LTO-IR became PTX and the PTX translated.
#[cfg(all(feature = "backend-hip", feature = "backend-cuda"))]
#[test]
fn hip_backend_links_ltoir_and_ptx_for_amd() {
    let Ok(b) = Backend::load(BackendKind::Hip) else {
        return;
    };
    // NVIDIA's library where the CUDA tests find it.
    setup();
    let l = library_of(b).unwrap();
    assert!(matches!(l, Library::Hip(_)) && !l.is_nvjitlink());
    assert_eq!(
        l.info().entry_points,
        (NVJITLINK_FUNCTIONS.len(), NVJITLINK_FUNCTIONS.len())
    );
    let Some((lib_unit, main_unit)) = ltoir_units() else {
        return;
    };
    let nv = compiler(BackendKind::Cuda).expect("NVRTC (checked by ltoir_units)");
    let src = "extern \"C\" __global__ void k2(float *x) { x[threadIdx.x] *= 2.0f; }";
    let mut p = Program::with_backend(
        nv,
        src,
        ProgramOptions::new().arch("compute_80").name("k.cu"),
    )
    .unwrap();
    let mut ptx = p.compile(CodeType::Ptx).unwrap().code().to_vec();
    if ptx.last() != Some(&0) {
        ptx.push(0);
    }
    let (mut major, mut minor) = (0, 0);
    let mut h: nvJitLinkHandle = core::ptr::null_mut();
    let mut opts = [c"-arch=sm_90".as_ptr(), c"-lto".as_ptr()];
    let ok = nvJitLinkResult::NVJITLINK_SUCCESS;
    // SAFETY: live handle, options and inputs for the whole block.
    unsafe {
        assert_eq!(l.nvJitLinkVersion(&mut major, &mut minor), ok);
        assert_eq!(major, 13);
        assert_eq!(l.nvJitLinkCreate(&mut h, 2, opts.as_mut_ptr()), ok);
        for (unit, name) in [(&lib_unit, c"lib.ltoir"), (&main_unit, c"main.ltoir")] {
            assert_eq!(
                l.nvJitLinkAddData(
                    h,
                    nvJitLinkInputType::NVJITLINK_INPUT_LTOIR,
                    unit.as_ptr().cast(),
                    unit.len(),
                    name.as_ptr()
                ),
                ok
            );
        }
        assert_eq!(
            l.nvJitLinkAddData(
                h,
                nvJitLinkInputType::NVJITLINK_INPUT_PTX,
                ptx.as_ptr().cast(),
                ptx.len(),
                c"k2.ptx".as_ptr()
            ),
            ok
        );
        let r = l.nvJitLinkComplete(h);
        let mut n = 0usize;
        assert_eq!(l.nvJitLinkGetErrorLogSize(h, &mut n), ok);
        let mut log = vec![0u8; n];
        assert_eq!(l.nvJitLinkGetErrorLog(h, log.as_mut_ptr().cast()), ok);
        let log = String::from_utf8_lossy(&log[..n - 1]).into_owned();
        let hip = b.as_hip().unwrap();
        if !hip.amd_faithful() {
            // HIP's NVIDIA platform with the mode off: NVIDIA's cubin.
            assert_eq!(r, ok, "{log}");
        } else if hip.current_arch().is_some() {
            assert_eq!(r, ok, "{log}");
            assert_eq!(l.nvJitLinkGetLinkedCubinSize(h, &mut n), ok);
            let mut code = vec![0u8; n];
            assert_eq!(l.nvJitLinkGetLinkedCubin(h, code.as_mut_ptr().cast()), ok);
            let has = |s: &[u8]| code.windows(s.len()).any(|w| w == s);
            assert!(has(b"k2") && has(b"k"), "both kernels in the AMD code");
        } else {
            assert_eq!(r, nvJitLinkResult::NVJITLINK_ERROR_INVALID_INPUT, "{log}");
            assert!(log.contains("no current device"), "{log}");
        }
        assert_eq!(l.nvJitLinkDestroy(&mut h), ok);
    }
}
