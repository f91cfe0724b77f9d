//! `anycuda::core` programs, object code and launch arguments without a GPU: real NVRTC 13.0
//! and real hipRTC 5.2.3 (AMD code objects for gfx90a), options, logs, name expressions,
//! `ObjectCode` from bytes and files, argument packing (no heap), and what the device-side
//! calls answer when there is no device.

mod common;

use anycuda::core::{
    CodeType, CoreError, Dim3, ErrorCode, KernelArgs, LaunchConfig, ObjectCode, ParamInfo, Program,
    ProgramOptions,
};
use anycuda::nvrtc::nvrtcResult;
use anycuda::{Backend, BackendKind};
#[cfg(feature = "backend-hip")]
use common::EM_AMDGPU;
use common::{compiler, elf_machine, elf_symbols, EM_CUDA};

// Counts the heap allocations of each thread, to show the hot paths make none.
anycuda_test::count_allocations!();

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

const TEMPLATES: &str = r#"
template <typename T>
__global__ void scale(T *data, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
"#;

fn nvrtc() -> Option<Backend> {
    compiler(BackendKind::Cuda)
}

#[cfg(feature = "backend-hip")]
fn hiprtc() -> Option<Backend> {
    compiler(BackendKind::Hip)
}

fn nvrtc_code(e: &CoreError) -> nvrtcResult {
    match e.code() {
        ErrorCode::Nvrtc(c) => c,
        other => panic!("expected an NVRTC error, got {other:?}: {e}"),
    }
}

#[test]
fn options_become_nvrtc_options() {
    let mut o = ProgramOptions::new()
        .name("k.cu")
        .arch("sm_90")
        .std("c++17")
        .define("N", "4")
        .define_flag("FAST")
        .include_path("/opt/inc")
        .use_fast_math(true)
        .debug(true)
        .lineinfo(true)
        .fma(false)
        .relocatable_device_code(true)
        .name_expression("scale<float>")
        .extra_option("-w");
    o.undefine_macro.push("OLD".into());
    o.pre_include.push("pre.h".into());
    o.ftz = Some(true);
    o.prec_div = Some(false);
    o.prec_sqrt = Some(true);
    o.max_register_count = Some(32);
    o.disable_warnings = true;
    o.link_time_optimization = true;
    o.ptxas_options.push("-v".into());
    o.extra_device_vectorization = true;
    assert_eq!(
        o.to_args(),
        [
            "--gpu-architecture=sm_90",
            "--std=c++17",
            "--define-macro=N=4",
            "--define-macro=FAST",
            "--undefine-macro=OLD",
            "--include-path=/opt/inc",
            "--pre-include=pre.h",
            "--use_fast_math",
            "--device-debug",
            "--generate-line-info",
            "--relocatable-device-code=true",
            "-dlto",
            "--ftz=true",
            "--prec-sqrt=true",
            "--prec-div=false",
            "--fmad=false",
            "--maxrregcount=32",
            "--disable-warnings",
            "--ptxas-options=-v",
            "--extra-device-vectorization",
            "-w",
        ]
    );
    // Name expressions are not options, and nothing is added by default.
    assert!(ProgramOptions::new().to_args().is_empty());
}

#[test]
fn nvrtc_compiles_ptx_cubin_and_ltoir() {
    let Some(b) = nvrtc() else { return };
    let opts = ProgramOptions::new().arch("sm_90").name("saxpy.cu");
    let mut p = Program::with_backend(b, SAXPY, opts).unwrap();
    assert_eq!(p.log(), "", "no log before the first compile");

    let ptx = p.compile(CodeType::Ptx).unwrap();
    assert_eq!(ptx.code_type(), CodeType::Ptx);
    let text = std::str::from_utf8(ptx.code()).unwrap();
    assert!(text.contains(".entry saxpy("), "{text}");
    assert!(text.contains(".target sm_90"), "{text}");
    assert_ne!(ptx.code().last(), Some(&0), "PTX is kept without its NUL");

    let cubin = p.compile(CodeType::Cubin).unwrap();
    assert_eq!(cubin.code_type(), CodeType::Cubin);
    assert_eq!(elf_machine(cubin.code()), Some(EM_CUDA));
    assert!(elf_symbols(cubin.code()).contains(&"saxpy".to_string()));

    let lto = p.compile(CodeType::Ltoir).unwrap();
    assert_eq!(lto.code_type(), CodeType::Ltoir);
    assert!(!lto.code().is_empty());
    assert_ne!(lto.code(), cubin.code());
    assert!(p
        .compile_args(CodeType::Ltoir)
        .contains(&"-dlto".to_string()));
    assert!(!p
        .compile_args(CodeType::Cubin)
        .contains(&"-dlto".to_string()));
}

#[test]
fn nvrtc_refuses_what_it_cannot_make() {
    let Some(b) = nvrtc() else { return };
    // A compute_XX target makes PTX only: asking for a cubin is an error, not empty code.
    let mut p = Program::with_backend(b, SAXPY, ProgramOptions::new().arch("compute_90")).unwrap();
    assert!(p.compile(CodeType::Ptx).is_ok());
    let e = p.compile(CodeType::Cubin).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    assert!(e.to_string().contains("sm_XX"), "{e}");
    let e = p.compile(CodeType::Fatbin).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
}

#[test]
fn nvrtc_log_in_the_error_and_on_success() {
    let Some(b) = nvrtc() else { return };
    let bad = r#"extern "C" __global__ void k(float *x) { x[0] = undefined_thing; }"#;
    let mut p = Program::with_backend(b, bad, ProgramOptions::new().arch("sm_90")).unwrap();
    let e = p.compile(CodeType::Ptx).unwrap_err();
    assert_eq!(nvrtc_code(&e), nvrtcResult::NVRTC_ERROR_COMPILATION);
    assert_eq!(e.call(), "nvrtcCompileProgram");
    let log = e.detail().expect("the compile log");
    assert!(log.contains("undefined_thing"), "{log}");
    assert!(e.to_string().contains("undefined_thing"), "{e}");
    assert_eq!(p.log(), log, "the log also stays on the program");

    // A warning only: the compile succeeds and the log says why.
    let warn = r#"extern "C" __global__ void k(float *x) { int unused_var; x[0] = 1.0f; }"#;
    let mut p = Program::with_backend(b, warn, ProgramOptions::new().arch("sm_90")).unwrap();
    p.compile(CodeType::Ptx).unwrap();
    assert!(p.log().contains("unused_var"), "log: {:?}", p.log());
}

#[test]
fn nvrtc_bad_input_is_an_error() {
    let Some(b) = nvrtc() else { return };
    let e = Program::with_backend(b, "a\0b", ProgramOptions::new()).unwrap_err();
    assert_eq!(nvrtc_code(&e), nvrtcResult::NVRTC_ERROR_INVALID_INPUT);
    let opts = ProgramOptions::new()
        .arch("sm_90")
        .extra_option("--no-such-option");
    let mut p = Program::with_backend(b, SAXPY, opts).unwrap();
    let e = p.compile(CodeType::Ptx).unwrap_err();
    assert_eq!(nvrtc_code(&e), nvrtcResult::NVRTC_ERROR_INVALID_OPTION);
    let bad_expr = ProgramOptions::new()
        .arch("sm_90")
        .name_expression("no_such<int>");
    let mut p = Program::with_backend(b, TEMPLATES, bad_expr).unwrap();
    assert!(p.compile(CodeType::Ptx).is_err());
}

#[test]
fn nvrtc_name_expressions_and_lowered_names() {
    let Some(b) = nvrtc() else { return };
    let opts = ProgramOptions::new()
        .arch("sm_90")
        .name_expression("scale<float>")
        .name_expression("scale<double>");
    let mut p = Program::with_backend(b, TEMPLATES, opts).unwrap();
    let code = p.compile(CodeType::Cubin).unwrap();
    let f = code.lowered_name("scale<float>").unwrap().to_owned();
    let d = code.lowered_name("scale<double>").unwrap().to_owned();
    assert!(
        f.starts_with("_Z") && d.starts_with("_Z") && f != d,
        "{f} {d}"
    );
    assert_eq!(code.lowered_name("scale<int>"), None);
    let names: Vec<_> = code.lowered_names().map(|(e, _)| e).collect();
    assert_eq!(names, ["scale<float>", "scale<double>"]);
    let syms = elf_symbols(code.code());
    assert!(syms.contains(&f) && syms.contains(&d), "{syms:?}");
}

#[test]
fn object_code_from_bytes_and_files() {
    let Some(b) = nvrtc() else { return };
    let mut p = Program::with_backend(b, SAXPY, ProgramOptions::new().arch("sm_90")).unwrap();
    let cubin = p.compile(CodeType::Cubin).unwrap();

    let from_bytes = ObjectCode::from_bytes(cubin.code(), CodeType::Cubin).unwrap();
    assert_eq!(from_bytes.code(), cubin.code());
    assert_eq!(from_bytes.code_type(), CodeType::Cubin);
    let c = ObjectCode::from_cubin(cubin.code()).unwrap();
    assert_eq!((c.code(), c.code_type()), (cubin.code(), CodeType::Cubin));
    let ptx = p.compile(CodeType::Ptx).unwrap();
    let mut with_nul = ptx.code().to_vec();
    with_nul.push(0);
    let c = ObjectCode::from_ptx(with_nul).unwrap();
    assert_eq!((c.code(), c.code_type()), (ptx.code(), CodeType::Ptx));
    assert_eq!(
        ObjectCode::from_ltoir(b"x".to_vec()).unwrap().code_type(),
        CodeType::Ltoir
    );
    assert_eq!(
        ObjectCode::from_fatbin(b"x".to_vec()).unwrap().code_type(),
        CodeType::Fatbin
    );
    assert!(
        ObjectCode::from_ptx(b"\0".to_vec()).is_err(),
        "only a NUL is empty PTX"
    );

    let dir = std::env::temp_dir().join(format!("anycuda-core-prog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("saxpy.cubin");
    std::fs::write(&file, cubin.code()).unwrap();
    let from_file = ObjectCode::from_file(&file, CodeType::Cubin).unwrap();
    assert_eq!(from_file.code(), cubin.code());

    let missing = dir.join("missing.cubin");
    let e = ObjectCode::from_file(&missing, CodeType::Cubin).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(e.to_string().contains("missing.cubin"), "{e}");
    let empty = dir.join("empty.ptx");
    std::fs::write(&empty, b"").unwrap();
    assert!(ObjectCode::from_file(&empty, CodeType::Ptx).is_err());
    assert!(ObjectCode::from_bytes(Vec::new(), CodeType::Ptx).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_compiles_amd_code_objects_for_gfx90a() {
    let Some(b) = hiprtc() else { return };
    let opts = ProgramOptions::new()
        .arch("gfx90a")
        .std("c++17")
        .define("UNUSED", "1")
        .use_fast_math(true)
        .name_expression("scale<float>");
    for target in [CodeType::Cubin, CodeType::Ptx] {
        let mut p = Program::with_backend(b, TEMPLATES, opts.clone()).unwrap();
        let code = p.compile(target).unwrap();
        // Both give the AMD code object, labelled as the native binary it is.
        assert_eq!(code.code_type(), CodeType::Cubin);
        assert_eq!(elf_machine(code.code()), Some(EM_AMDGPU));
        let lowered = code.lowered_name("scale<float>").unwrap();
        assert!(lowered.starts_with("_Z"), "{lowered}");
        let syms = elf_symbols(code.code());
        assert!(syms.contains(&lowered.to_string()), "{syms:?}");
        assert!(syms.contains(&format!("{lowered}.kd")), "{syms:?}");
    }
    let mut p = Program::with_backend(b, SAXPY, ProgramOptions::new().arch("gfx90a")).unwrap();
    // LLVM bitcode where hipRTC makes it; hipRTC 5.2.3 has no such call: not-supported.
    match p.compile(CodeType::Ltoir) {
        Ok(lto) => {
            assert_eq!(lto.code_type(), CodeType::Ltoir);
            assert!(lto.code().starts_with(b"BC"), "LLVM bitcode expected");
        }
        Err(e) => assert!(e.is_not_supported(), "{e}"),
    }
    // A second compile of the same program works, as on NVRTC (the backend remakes the hipRTC
    // program, which compiles once).
    let code = p.compile(CodeType::Cubin).unwrap();
    assert_eq!(code.code_type(), CodeType::Cubin);
    assert_eq!(elf_machine(code.code()), Some(EM_AMDGPU));
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_log_and_untranslatable_options() {
    let Some(b) = hiprtc() else { return };
    let bad = r#"extern "C" __global__ void k(float *x) { x[0] = undefined_thing; }"#;
    let mut p = Program::with_backend(b, bad, ProgramOptions::new().arch("gfx90a")).unwrap();
    let e = p.compile(CodeType::Cubin).unwrap_err();
    assert_eq!(nvrtc_code(&e), nvrtcResult::NVRTC_ERROR_COMPILATION);
    assert!(e.detail().unwrap_or("").contains("undefined_thing"), "{e}");

    // A CUDA option with no AMD meaning compiles, with a note in the log.
    let mut o = ProgramOptions::new().arch("gfx90a");
    o.max_register_count = Some(32);
    let mut p = Program::with_backend(b, SAXPY, o).unwrap();
    p.compile(CodeType::Cubin).unwrap();
    assert!(p.log().contains("maxrregcount"), "log: {:?}", p.log());

    // An unknown target is refused before hipRTC sees it (hipRTC 5.2.3 would abort).
    let mut p = Program::with_backend(b, SAXPY, ProgramOptions::new().arch("gfx9999")).unwrap();
    assert!(p.compile(CodeType::Cubin).is_err());
}

#[test]
fn device_side_calls_without_a_device_are_errors() {
    if anycuda::backend()
        .ok()
        .is_some_and(|s| anycuda::device_count(s.backend).is_ok_and(|n| n > 0))
    {
        eprintln!("a device is present: this test is about machines without one");
        return;
    }
    let Some(b) = nvrtc() else { return };
    let mut p = Program::with_backend(b, SAXPY, ProgramOptions::new().arch("sm_90")).unwrap();
    let code = p.compile(CodeType::Cubin).unwrap();
    let e = code.kernel("saxpy").unwrap_err();
    eprintln!("kernel() with no device: {e}");
    assert!(anycuda::core::Device::new(0).is_err());
    let lto = ObjectCode::from_bytes(b"BC\xc0\xde".to_vec(), CodeType::Ltoir).unwrap();
    assert!(lto.kernel("k").is_err());
}

#[test]
fn kernel_args_pack_on_the_stack() {
    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct Pair {
        a: u32,
        b: f32,
    }
    // SAFETY: two 4-byte plain fields, no padding.
    unsafe impl anycuda::core::DeviceCopy for Pair {}

    let args = (2.5f32, 7u32, -3i64, Pair { a: 1, b: 2.0 }, 9u8);
    let before = anycuda_test::alloc::thread_allocations();
    let mut values = args.values();
    let ptrs = <(f32, u32, i64, Pair, u8) as KernelArgs>::pointers(&mut values);
    // SAFETY: each pointer points at the value of that type in `values`, alive here.
    let read = unsafe {
        (
            *ptrs[0].cast::<f32>(),
            *ptrs[1].cast::<u32>(),
            *ptrs[2].cast::<i64>(),
            *ptrs[3].cast::<Pair>(),
            *ptrs[4].cast::<u8>(),
        )
    };
    let ok = args
        .check(
            Some(&[
                ParamInfo { offset: 0, size: 4 },
                ParamInfo { offset: 4, size: 4 },
                ParamInfo { offset: 8, size: 8 },
                ParamInfo {
                    offset: 16,
                    size: 8,
                },
                ParamInfo {
                    offset: 24,
                    size: 1,
                },
            ]),
            std::ptr::null_mut(),
        )
        .is_ok();
    let no_info = args.check(None, std::ptr::null_mut()).is_ok();
    assert_eq!(
        anycuda_test::alloc::thread_allocations() - before,
        0,
        "packing and checking allocated"
    );
    assert_eq!(read, args);
    assert_eq!(<(f32, u32, i64, Pair, u8) as KernelArgs>::COUNT, 5);
    assert!(ok && no_info);

    let four = [ParamInfo { offset: 0, size: 4 }; 4];
    let e = args.check(Some(&four), std::ptr::null_mut()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(e.to_string().contains("takes 4 arguments, 5 given"), "{e}");
    let sizes = [
        ParamInfo { offset: 0, size: 4 },
        ParamInfo { offset: 4, size: 4 },
        ParamInfo { offset: 8, size: 4 }, // an int where an i64 is given
        ParamInfo {
            offset: 16,
            size: 8,
        },
        ParamInfo {
            offset: 24,
            size: 1,
        },
    ];
    let e = args.check(Some(&sizes), std::ptr::null_mut()).unwrap_err();
    assert!(e.to_string().contains("argument 2 is 8 bytes"), "{e}");
    assert!(().check(Some(&[]), std::ptr::null_mut()).is_ok());
    assert!(().check(Some(&four), std::ptr::null_mut()).is_err());
}

#[test]
fn launch_config_shapes() {
    let c = LaunchConfig::for_num_elems(1000, 256);
    assert_eq!(
        (c.grid, c.block),
        (Dim3::new(4, 1, 1), Dim3::new(256, 1, 1))
    );
    assert_eq!(LaunchConfig::for_num_elems(0, 256).grid.x, 1);
    let c = LaunchConfig::new((2, 3), (4, 5, 6))
        .shared_mem(128)
        .cluster(2u32)
        .cooperative(true);
    assert_eq!(c.grid, Dim3::new(2, 3, 1));
    assert_eq!(c.block.volume(), Some(120));
    assert_eq!(c.shared_mem_bytes, 128);
    assert_eq!(c.cluster, Some(Dim3::new(2, 1, 1)));
    // With a cluster the grid counts clusters (cuda.core): 2x3 clusters of 2 blocks.
    assert_eq!(c.blocks(), Some(Dim3::new(4, 3, 1)));
    assert_eq!(
        LaunchConfig::new(7u32, 1u32).blocks(),
        Some(Dim3::new(7, 1, 1))
    );
    assert_eq!(
        LaunchConfig::new((u32::MAX, 1), 1u32)
            .cluster(2u32)
            .blocks(),
        None
    );
    assert!(c.cooperative);
    assert_eq!(Dim3::new(u32::MAX, u32::MAX, u32::MAX).volume(), None);
}

#[test]
fn program_is_send() {
    fn send<T: Send>() {}
    send::<Program>();
    send::<ObjectCode>();
    fn sync<T: Sync>() {}
    sync::<ObjectCode>();
}

/// Every typed option, set at once, as both compilers take it (NVRTC rejects an option it does
/// not know; anycuda's hipRTC translation maps or notes each one).
fn every_option(arch: &str) -> ProgramOptions {
    let dir = std::env::temp_dir().to_string_lossy().into_owned();
    let mut o = ProgramOptions::new()
        .arch(arch)
        .std("c++17")
        .define("N", "4")
        .define_flag("FLAG")
        .include_path(dir)
        .use_fast_math(true)
        .lineinfo(true)
        .fma(true)
        .relocatable_device_code(true);
    o.undefine_macro.push("OLD".into());
    o.ftz = Some(true);
    o.prec_div = Some(false);
    o.prec_sqrt = Some(false);
    o.max_register_count = Some(64);
    o.disable_warnings = true;
    o.ptxas_options.push("-O3".into());
    o.extra_device_vectorization = true;
    o
}

const USES_MACROS: &str = r#"
#if !defined(FLAG) || N != 4
#error the defines did not arrive
#endif
extern "C" __global__ void k(float *x) { x[threadIdx.x] *= N; }
"#;

#[test]
fn nvrtc_accepts_every_typed_option() {
    let Some(b) = nvrtc() else { return };
    let mut p = Program::with_backend(b, USES_MACROS, every_option("sm_90")).unwrap();
    let code = p
        .compile(CodeType::Ptx)
        .unwrap_or_else(|e| panic!("{e}\nargs: {:?}", p.compile_args(CodeType::Ptx)));
    assert!(std::str::from_utf8(code.code())
        .unwrap()
        .contains(".entry k("));
    // Device debug, without the ptxas optimisation level it contradicts.
    let mut debug = every_option("sm_90").debug(true);
    debug.ptxas_options.clear();
    let mut p = Program::with_backend(b, USES_MACROS, debug).unwrap();
    p.compile(CodeType::Ptx).unwrap();
    let mut p = Program::with_backend(b, USES_MACROS, ProgramOptions::new().arch("sm_90")).unwrap();
    let e = p.compile(CodeType::Ptx).unwrap_err();
    assert!(
        e.detail()
            .unwrap_or("")
            .contains("the defines did not arrive"),
        "{e}"
    );
}

#[cfg(feature = "backend-hip")]
#[test]
fn hiprtc_accepts_every_typed_option() {
    let Some(b) = hiprtc() else { return };
    let mut p = Program::with_backend(b, USES_MACROS, every_option("gfx90a")).unwrap();
    let code = p
        .compile(CodeType::Cubin)
        .unwrap_or_else(|e| panic!("{e}\nargs: {:?}", p.compile_args(CodeType::Cubin)));
    assert_eq!(elf_machine(code.code()), Some(EM_AMDGPU));
    // Options with no AMD meaning are noted in the log, not dropped silently.
    assert!(p.log().contains("maxrregcount"), "log: {}", p.log());
    let mut p =
        Program::with_backend(b, USES_MACROS, ProgramOptions::new().arch("gfx90a")).unwrap();
    let e = p.compile(CodeType::Cubin).unwrap_err();
    assert!(
        e.detail()
            .unwrap_or("")
            .contains("the defines did not arrive"),
        "{e}"
    );
}

/// `Program`'s NVRTC-level calls on both compilers: `compile_with_args` passes exactly the
/// options given, `output` hands out each kind of the last compile (empty before one),
/// `lowered_name` answers for the expressions given, and `set_options` adds name expressions
/// only while the compiler accepts them.
fn nvrtc_level_calls(b: Backend, arch: &str, want_ptx: CodeType) {
    let kind = b.kind();
    let opts = ProgramOptions::new()
        .name("t.cu")
        .name_expression("scale<float>");
    let mut p = Program::with_backend(b, TEMPLATES, opts).unwrap();
    // Before a compile: no code of any kind, as NVRTC.
    for k in [CodeType::Ptx, CodeType::Cubin] {
        assert!(p.output(k).unwrap().code().is_empty(), "{kind}: {k:?}");
    }
    assert!(p.output(CodeType::Fatbin).is_err(), "{kind}");
    assert!(p.lowered_name("scale<float>").is_err(), "{kind}");
    // Before the first compile a new expression is added to the compiler.
    let more = p.options().clone().name_expression("scale<double>");
    p.set_options(more).unwrap();
    p.compile_with_args(&[format!("--gpu-architecture={arch}")])
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
    let ptx = p.output(CodeType::Ptx).unwrap();
    assert_eq!(ptx.code_type(), want_ptx, "{kind}");
    assert!(!ptx.code().is_empty(), "{kind}");
    if want_ptx == CodeType::Ptx {
        assert_ne!(ptx.code().last(), Some(&0), "PTX comes without its NUL");
    }
    assert_eq!(
        p.output(CodeType::Cubin).unwrap().code_type(),
        CodeType::Cubin
    );
    for (e, prefix) in [
        ("scale<float>", "_Z5scaleIfE"),
        ("scale<double>", "_Z5scaleIdE"),
    ] {
        let lowered = p.lowered_name(e).unwrap();
        assert!(lowered.starts_with(prefix), "{kind}: {e} -> {lowered}");
    }
    let e = p.lowered_name("scale<int>").unwrap_err();
    assert_eq!(e.detail(), Some("scale<int>"), "{kind}");
    // After a compile NVRTC takes no more name expressions; the options stay as they were.
    let late = p.options().clone().name_expression("scale<int>");
    let e = p.set_options(late).unwrap_err();
    assert_eq!(
        e.nvrtc_code(),
        Some(nvrtcResult::NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION),
        "{kind}: {e}"
    );
    assert_eq!(p.options().name_expressions.len(), 2, "{kind}");
    // Nothing is added to the options given: a compute_XX-only NVRTC compile makes no cubin,
    // which `compile` refuses and `compile_with_args` leaves to the caller. (A fresh program:
    // NVRTC keeps an earlier compile's cubin when a later compute_XX compile makes none.)
    if kind == BackendKind::Cuda {
        let mut p = Program::with_backend(b, TEMPLATES, ProgramOptions::new()).unwrap();
        p.compile_with_args(&["--gpu-architecture=compute_90"])
            .unwrap();
        assert!(p.output(CodeType::Cubin).unwrap().code().is_empty());
        assert!(!p.output(CodeType::Ptx).unwrap().code().is_empty());
    }
}

#[test]
fn nvrtc_level_calls_nvrtc() {
    let Some(b) = nvrtc() else { return };
    nvrtc_level_calls(b, "sm_90", CodeType::Ptx);
}

#[cfg(feature = "backend-hip")]
#[test]
fn nvrtc_level_calls_hiprtc() {
    let Some(b) = hiprtc() else { return };
    // On AMD, "PTX" is the AMD code object: labelled by its content.
    nvrtc_level_calls(b, "gfx90a", CodeType::Cubin);
}
