//! The driver's linker (`cuLink*`) on the HIP backend with PTX inputs (`src/adapt/link.rs`),
//! against the installed HIP (CI: Debian's ROCm 5.2.3, AMD platform, no GPU). What needs no
//! device is checked exactly: handle validation, NULL pointers, input types, the refusal of
//! cubins and of mixed inputs, and the translation itself (a link whose PTX translates reaches
//! the compile and stops there for want of a device, `CUDA_ERROR_NO_DEVICE`; a refused
//! instruction is named with its line and input in the error log before any device is needed).
//! The `#[gpu_test]` links two PTX modules (one calling the other's `.extern .func`), loads the
//! code and runs it (ci/gpu-test.sh, HIP backend), and never passes without a GPU.

use anycuda_api::driver::*;
use anycuda_api::traits::Driver;
use anycuda_hip::HipBackend;
use anycuda_test::gpu_test;
use core::ffi::{c_char, c_void, CStr};
use core::ptr::{null, null_mut};

mod common;
use common::{amd_without_device, hip_with_device};

const OK: CUresult = CUresult::CUDA_SUCCESS;
const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
const BAD_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;
const NOT_SUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;
const PTX_INPUT: CUjitInputType = CUjitInputType::CU_JIT_INPUT_PTX;

/// Defines `twice(x) = 2 * x`, seen by every module of a link (`.visible`).
const LIB_PTX: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\n\
.visible .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)\n{\n\
\t.reg .b32 %r<3>;\n\
\tld.param.u32 %r1, [twice_param_0];\n\
\tshl.b32 %r2, %r1, 1;\n\
\tst.param.b32 [func_retval0], %r2;\n\
\tret;\n}\n";

/// `apply(x)`: `x[tid] = twice(x[tid]) + 1`, `twice` declared `.extern` (the other module's).
const MAIN_PTX: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\n\
.extern .func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);\n\n\
.visible .entry apply(.param .u64 apply_param_0)\n{\n\
\t.reg .b32 %r<5>;\n\
\t.reg .b64 %rd<5>;\n\
\tld.param.u64 %rd1, [apply_param_0];\n\
\tcvta.to.global.u64 %rd2, %rd1;\n\
\tmov.u32 %r1, %tid.x;\n\
\tmul.wide.u32 %rd3, %r1, 4;\n\
\tadd.s64 %rd4, %rd2, %rd3;\n\
\tld.global.u32 %r2, [%rd4];\n\
\t{\n\
\t.param .b32 param0;\n\
\tst.param.b32 [param0], %r2;\n\
\t.param .b32 retval0;\n\
\tcall.uni (retval0), twice, (param0);\n\
\tld.param.b32 %r3, [retval0];\n\
\t}\n\
\tadd.s32 %r4, %r3, 1;\n\
\tst.global.u32 [%rd4], %r4;\n\
\tret;\n}\n";

/// `MAIN_PTX` with an instruction outside the translated set on its line 24 (the `add.s32`).
fn refused_ptx() -> String {
    let p = MAIN_PTX.replace("\tadd.s32 %r4, %r3, 1;", "\twgmma.fence.sync.aligned;");
    assert_eq!(
        p.lines().position(|l| l.contains("wgmma")),
        Some(23),
        "line 24"
    );
    p
}

/// A link state with error and info logs and the wall time, as `anycuda::core::Linker` and
/// cuda-python make one. Boxed so the arrays and buffers keep their addresses for the state's
/// life (CUDA's contract for output options).
struct Logged {
    state: CUlinkState,
    error: Box<[u8; 1024]>,
    info: Box<[u8; 1024]>,
    _options: Box<[CUjit_option; 5]>,
    values: Box<[*mut c_void; 5]>,
}

impl Logged {
    fn new(b: &HipBackend) -> Logged {
        let mut error = Box::new([0xaau8; 1024]);
        let mut info = Box::new([0xaau8; 1024]);
        let mut options = Box::new([
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CUjit_option::CU_JIT_WALL_TIME,
        ]);
        let mut values = Box::new([
            error.as_mut_ptr().cast::<c_void>(),
            1024usize as *mut c_void,
            info.as_mut_ptr().cast::<c_void>(),
            1024usize as *mut c_void,
            null_mut(),
        ]);
        let mut state = null_mut();
        // SAFETY: five options and values, alive (boxed) as long as the state.
        let r = unsafe { b.cuLinkCreate(5, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) };
        assert_eq!(r, OK);
        assert!(!state.is_null());
        Logged {
            state,
            error,
            info,
            _options: options,
            values,
        }
    }

    /// The error log as written, and the size the state reported (bytes with the NUL).
    fn error_log(&self) -> (String, usize) {
        (nul_str(&self.error[..]), self.values[1] as usize)
    }

    fn info_log(&self) -> (String, usize) {
        (nul_str(&self.info[..]), self.values[3] as usize)
    }

    /// Adds PTX text (NUL-terminated, as CUDA reads PTX) named `name`.
    /// `cuLinkAddFile` of a PTX file.
    fn add_ptx_file(&self, b: &HipBackend, path: &CStr) -> CUresult {
        // SAFETY: a live state, a NUL-terminated path.
        unsafe {
            b.cuLinkAddFile(
                self.state,
                PTX_INPUT,
                path.as_ptr(),
                0,
                null_mut(),
                null_mut(),
            )
        }
    }

    fn add_ptx(&self, b: &HipBackend, ptx: &str, name: &CStr) -> CUresult {
        let mut data = ptx.as_bytes().to_vec();
        data.push(0);
        // SAFETY: a live state; `data` holds `len` bytes for the call.
        unsafe {
            b.cuLinkAddData(
                self.state,
                PTX_INPUT,
                data.as_mut_ptr().cast(),
                data.len(),
                name.as_ptr(),
                0,
                null_mut(),
                null_mut(),
            )
        }
    }

    fn add_bytes(&self, b: &HipBackend, t: CUjitInputType, mut data: Vec<u8>) -> CUresult {
        // SAFETY: a live state; `data` holds `len` bytes for the call.
        unsafe {
            b.cuLinkAddData(
                self.state,
                t,
                data.as_mut_ptr().cast(),
                data.len(),
                c"input".as_ptr(),
                0,
                null_mut(),
                null_mut(),
            )
        }
    }

    fn complete(&self, b: &HipBackend) -> (CUresult, *mut c_void, usize) {
        let (mut out, mut size) = (null_mut(), 0usize);
        // SAFETY: a live state, local out-pointers.
        let r = unsafe { b.cuLinkComplete(self.state, &mut out, &mut size) };
        (r, out, size)
    }

    fn destroy(self, b: &HipBackend) {
        // SAFETY: a live state, destroyed once here.
        assert_eq!(unsafe { b.cuLinkDestroy(self.state) }, OK);
        // Destroyed: the handle means nothing any more.
        // SAFETY: a stale handle is only looked up.
        assert_eq!(unsafe { b.cuLinkDestroy(self.state) }, BAD_HANDLE);
    }
}

fn nul_str(buf: &[u8]) -> String {
    let end = buf.iter().position(|&c| c == 0).expect("NUL-terminated");
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// A cubin's first bytes (ELF, machine `EM_CUDA`).
fn cubin() -> Vec<u8> {
    let mut v = vec![0u8; 256];
    v[..4].copy_from_slice(b"\x7fELF");
    v[4] = 2;
    v[5] = 1;
    v[18..20].copy_from_slice(&anycuda_hip::EM_CUDA.to_le_bytes());
    v
}

/// A file under the temporary directory holding `text`, removed on drop.
struct TempFile(std::path::PathBuf, std::ffi::CString);

impl TempFile {
    fn new(tag: &str, text: &[u8]) -> TempFile {
        let p = std::env::temp_dir().join(format!("anycuda-link-{}-{tag}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        TempFile(p, c)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn bad_arguments_and_handles_are_refused_without_touching_memory() {
    let Some(b) = amd_without_device() else {
        return;
    };
    let mut st: CUlinkState = null_mut();
    let (mut out, mut size) = (null_mut(), 0usize);
    let mut ptx = format!("{LIB_PTX}\0").into_bytes();
    // SAFETY: NULL and made-up handles are only looked up; local buffers.
    unsafe {
        assert_eq!(
            b.cuLinkCreate(0, null_mut(), null_mut(), null_mut()),
            INVALID_VALUE
        );
        // Options named but no arrays: invalid, as cuModuleLoadDataEx.
        assert_eq!(
            b.cuLinkCreate(1, null_mut(), null_mut(), &mut st),
            INVALID_VALUE
        );
        // An option number outside CUDA's set.
        let mut bad = [CUjit_option(9999)];
        let mut vals = [null_mut::<c_void>()];
        assert_eq!(
            b.cuLinkCreate(1, bad.as_mut_ptr(), vals.as_mut_ptr(), &mut st),
            INVALID_VALUE
        );
        for h in [
            null_mut(),
            16usize as CUlinkState,
            0x7f00_dead_b000 as CUlinkState,
        ] {
            let add = b.cuLinkAddData(
                h,
                PTX_INPUT,
                ptx.as_mut_ptr().cast(),
                ptx.len(),
                null(),
                0,
                null_mut(),
                null_mut(),
            );
            assert_eq!(add, BAD_HANDLE, "{h:p}");
            let file = b.cuLinkAddFile(
                h,
                PTX_INPUT,
                c"/nonexistent".as_ptr(),
                0,
                null_mut(),
                null_mut(),
            );
            assert_eq!(file, BAD_HANDLE, "{h:p}");
            assert_eq!(b.cuLinkComplete(h, &mut out, &mut size), BAD_HANDLE);
            assert_eq!(b.cuLinkDestroy(h), BAD_HANDLE, "{h:p}");
        }
        assert_eq!(b.cuLinkCreate(0, null_mut(), null_mut(), &mut st), OK);
        // NULL data, size 0, an input type outside CUDA's set, a NULL path, a NULL cubinOut.
        let add = |data: *mut c_void, n: usize, t: CUjitInputType| {
            b.cuLinkAddData(st, t, data, n, null(), 0, null_mut(), null_mut())
        };
        assert_eq!(add(null_mut(), 10, PTX_INPUT), INVALID_VALUE);
        assert_eq!(add(ptx.as_mut_ptr().cast(), 0, PTX_INPUT), INVALID_VALUE);
        let p = ptx.as_mut_ptr().cast();
        assert_eq!(add(p, ptx.len(), CUjitInputType(6)), INVALID_VALUE);
        assert_eq!(add(p, ptx.len(), CUjitInputType(u32::MAX)), INVALID_VALUE);
        assert_eq!(
            b.cuLinkAddFile(st, PTX_INPUT, null(), 0, null_mut(), null_mut()),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuLinkAddFile(
                st,
                PTX_INPUT,
                c"/nonexistent/a.ptx".as_ptr(),
                0,
                null_mut(),
                null_mut()
            ),
            CUresult::CUDA_ERROR_FILE_NOT_FOUND
        );
        assert_eq!(b.cuLinkComplete(st, null_mut(), &mut size), INVALID_VALUE);
        // Nothing added: nothing to link.
        assert_eq!(b.cuLinkComplete(st, &mut out, &mut size), INVALID_VALUE);
        assert!(anycuda_hip::not_supported_reason(INVALID_VALUE)
            .is_some_and(|w| w.contains("no inputs")));
        assert_eq!(b.cuLinkDestroy(st), OK);
        assert_eq!(b.cuLinkDestroy(st), BAD_HANDLE);
        assert_eq!(b.cuLinkComplete(st, &mut out, &mut size), BAD_HANDLE);
    }
}

#[test]
fn ptx_inputs_link_up_to_the_device_and_the_rest_is_refused_with_a_reason() {
    let Some(b) = amd_without_device() else {
        return;
    };
    // Two modules, one calling the other's `.extern .func`, one added as data and one from a
    // file: both translate together, so the link stops only for want of a device.
    let l = Logged::new(&b);
    assert_eq!(l.add_ptx(&b, MAIN_PTX, c"main.ptx"), OK);
    let lib = TempFile::new("lib.ptx", LIB_PTX.as_bytes());
    assert_eq!(l.add_ptx_file(&b, &lib.1), OK);
    // A cubin is refused with the way out, in the error log.
    assert_eq!(
        l.add_bytes(&b, CUjitInputType::CU_JIT_INPUT_CUBIN, cubin()),
        NOT_SUPPORTED
    );
    let (log, n) = l.error_log();
    assert!(log.contains("cubin") && log.contains("PTX"), "{log}");
    assert_eq!(n, log.len() + 1);
    // LLVM bitcode (HIP's linker's input) does not mix with PTX.
    let bc = b"BC\xC0\xDE\x35\x14\0\0\x05\0\0\0\x62\x0c\x30\x24".to_vec();
    assert_eq!(
        l.add_bytes(&b, CUjitInputType::CU_JIT_INPUT_NVVM, bc.clone()),
        NOT_SUPPORTED
    );
    let (log, _) = l.error_log();
    assert!(
        log.contains("cannot also take inputs for HIP's linker"),
        "{log}"
    );
    // The input is declared PTX but is not text.
    assert_eq!(
        l.add_bytes(&b, PTX_INPUT, bc.clone()),
        CUresult::CUDA_ERROR_INVALID_PTX
    );
    let (r, out, _) = l.complete(&b);
    assert_eq!(r, CUresult::CUDA_ERROR_NO_DEVICE, "{}", l.error_log().0);
    assert!(out.is_null());
    let (log, _) = l.error_log();
    assert!(log.contains("no current device"), "{log}");
    l.destroy(&b);

    // The calling module alone: `twice` is defined nowhere, refused at its call, named.
    let l = Logged::new(&b);
    assert_eq!(l.add_ptx(&b, MAIN_PTX, c"main.ptx"), OK);
    assert_eq!(l.complete(&b).0, NOT_SUPPORTED);
    let (log, _) = l.error_log();
    assert!(log.contains("twice") && log.contains("main.ptx"), "{log}");
    l.destroy(&b);

    // Bitcode first: it goes to HIP's linker, which ROCm 5.2.3 does not have.
    let l = Logged::new(&b);
    let has_linker = b.native_hip().is_some_and(|t| t.hipLinkCreate.is_some());
    let r = l.add_bytes(&b, CUjitInputType::CU_JIT_INPUT_NVVM, bc);
    if !has_linker {
        assert_eq!(r, NOT_SUPPORTED);
        let (log, _) = l.error_log();
        assert!(log.contains("hipLinkCreate is HIP 6.4+"), "{log}");
    } else if r == OK {
        // A HIP link: PTX no longer mixes in.
        assert_eq!(l.add_ptx(&b, LIB_PTX, c"lib.ptx"), NOT_SUPPORTED);
    }
    l.destroy(&b);
}

#[test]
fn a_refused_instruction_is_named_with_its_line_and_input_in_the_error_log() {
    let Some(b) = amd_without_device() else {
        return;
    };
    let l = Logged::new(&b);
    assert_eq!(l.add_ptx(&b, LIB_PTX, c"lib.ptx"), OK);
    assert_eq!(l.add_ptx(&b, &refused_ptx(), c"main.ptx"), OK);
    let (r, out, _) = l.complete(&b);
    assert_eq!(r, NOT_SUPPORTED);
    assert!(out.is_null());
    let (log, n) = l.error_log();
    assert!(
        log.contains("`wgmma.fence.sync.aligned`")
            && log.contains("line 24")
            && log.contains("main.ptx")
            && log.contains("input 2"),
        "{log}"
    );
    assert_eq!(n, log.len() + 1);
    let why = anycuda_hip::not_supported_reason(r).unwrap();
    assert!(
        why.contains("wgmma") && why.contains("cuLinkComplete"),
        "{why}"
    );
    // Nothing compiled: the info log is empty.
    assert_eq!(l.info_log(), (String::new(), 0));
    l.destroy(&b);

    // A small error log gets the start of the message, NUL-terminated, and the bytes written.
    let mut small = [0xaau8; 16];
    let mut options = [
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [small.as_mut_ptr().cast::<c_void>(), 16usize as *mut c_void];
    let mut st = null_mut();
    let mut data = format!("{}\0", refused_ptx()).into_bytes();
    let (mut out, mut size) = (null_mut(), 0usize);
    // SAFETY: the arrays and buffer outlive the state; `data` holds `len` bytes.
    unsafe {
        assert_eq!(
            b.cuLinkCreate(2, options.as_mut_ptr(), values.as_mut_ptr(), &mut st),
            OK
        );
        let add = b.cuLinkAddData(
            st,
            PTX_INPUT,
            data.as_mut_ptr().cast(),
            data.len(),
            null(),
            0,
            null_mut(),
            null_mut(),
        );
        assert_eq!(add, OK);
        assert_eq!(b.cuLinkComplete(st, &mut out, &mut size), NOT_SUPPORTED);
        assert_eq!(b.cuLinkDestroy(st), OK);
    }
    assert_eq!(values[1] as usize, 16);
    assert_eq!(small[15], 0);
    assert!(nul_str(&small).starts_with("cuLinkComplete"), "{:?}", small);
}

/// Two PTX modules, one calling the other's `.extern .func`, linked with `cuLinkAddData` and
/// `cuLinkAddFile`, completed (translated together, compiled by hipRTC for the device), the
/// code loaded with `cuModuleLoadData` and run: every element `2x + 1`. Then a refused
/// instruction named in the error log. On HIP's NVIDIA platform this runs in AMD-faithful mode
/// (the default), so the code is what AMD would load.
#[gpu_test(backend = "hip")]
fn linked_ptx_modules_run() {
    let b = hip_with_device();
    let mut c: CUcontext = null_mut();
    // SAFETY: local out-pointers.
    unsafe {
        assert_eq!(b.cuDevicePrimaryCtxRetain(&mut c, 0), OK);
        assert_eq!(b.cuCtxSetCurrent(c), OK);
    }
    assert!(b.amd_faithful(), "the test proves the AMD route");
    let l = Logged::new(&b);
    assert_eq!(l.add_ptx(&b, MAIN_PTX, c"main.ptx"), OK);
    let lib = TempFile::new("gpu-lib.ptx", LIB_PTX.as_bytes());
    assert_eq!(l.add_ptx_file(&b, &lib.1), OK);
    let (r, code, size) = l.complete(&b);
    assert_eq!(r, OK, "{}", l.error_log().0);
    assert!(!code.is_null() && size > 0);
    let (info, n) = l.info_log();
    assert!(
        info.contains("2 PTX input(s) (main.ptx, ")
            && info.contains("translated and compiled by hipRTC for "),
        "{info}"
    );
    assert_eq!(n, info.len() + 1);
    let wall = f32::from_bits(l.values[4] as usize as u32);
    assert!(wall > 0.0, "wall time {wall}");
    // A second completion hands out the same code.
    let (r2, code2, size2) = l.complete(&b);
    assert_eq!((r2, code2, size2), (OK, code, size));
    let n_el = 64usize;
    let host: Vec<u32> = (0..n_el as u32).map(|i| i * 7 + 3).collect();
    let mut back = vec![0u32; n_el];
    // SAFETY: the code lives until cuLinkDestroy (below); device buffers of `n_el` u32; the
    // kernel writes `n_el` elements (one block of `n_el` threads).
    unsafe {
        let mut m: CUmodule = null_mut();
        assert_eq!(b.cuModuleLoadData(&mut m, code), OK);
        let mut f: CUfunction = null_mut();
        assert_eq!(b.cuModuleGetFunction(&mut f, m, c"apply".as_ptr()), OK);
        let mut d: CUdeviceptr = 0;
        assert_eq!(b.cuMemAlloc(&mut d, n_el * 4), OK);
        assert_eq!(b.cuMemcpyHtoD(d, host.as_ptr().cast(), n_el * 4), OK);
        let mut args = [(&mut d as *mut CUdeviceptr).cast::<c_void>()];
        let r = b.cuLaunchKernel(
            f,
            1,
            1,
            1,
            n_el as u32,
            1,
            1,
            0,
            null_mut(),
            args.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(r, OK);
        assert_eq!(b.cuMemcpyDtoH(back.as_mut_ptr().cast(), d, n_el * 4), OK);
        assert_eq!(b.cuMemFree(d), OK);
        assert_eq!(b.cuModuleUnload(m), OK);
    }
    let want: Vec<u32> = host.iter().map(|x| 2 * x + 1).collect();
    assert_eq!(back, want);
    l.destroy(&b);

    // A refused instruction: the link fails, named in the error log; nothing is handed out.
    let l = Logged::new(&b);
    assert_eq!(l.add_ptx(&b, LIB_PTX, c"lib.ptx"), OK);
    assert_eq!(l.add_ptx(&b, &refused_ptx(), c"main.ptx"), OK);
    let (r, out, _) = l.complete(&b);
    assert_eq!(r, NOT_SUPPORTED);
    assert!(out.is_null());
    let (log, _) = l.error_log();
    assert!(
        log.contains("`wgmma.fence.sync.aligned`")
            && log.contains("line 24")
            && log.contains("main.ptx"),
        "{log}"
    );
    l.destroy(&b);
    // SAFETY: the primary context retained above.
    unsafe { assert_eq!(b.cuDevicePrimaryCtxRelease(0), OK) };
}

/// `cuLinkAddData`'s name is optional, and a name is read only up to its NUL.
#[test]
fn names_are_optional() {
    let Some(b) = amd_without_device() else {
        return;
    };
    let l = Logged::new(&b);
    let mut data = format!("{LIB_PTX}\0").into_bytes();
    // SAFETY: a live state; `data` holds `len` bytes.
    let r = unsafe {
        b.cuLinkAddData(
            l.state,
            PTX_INPUT,
            data.as_mut_ptr().cast(),
            data.len(),
            null::<c_char>(),
            0,
            null_mut(),
            null_mut(),
        )
    };
    assert_eq!(r, OK);
    l.destroy(&b);
}
