//! CUDA's library API (`cuLibrary*`, `cuKernel*`, `cudaLibrary*`) on the HIP backend, which
//! builds it from HIP's module API (`src/adapt/library.rs`), against the installed HIP (CI:
//! Debian's ROCm 5.2.3, AMD platform, no GPU). What needs no device is checked exactly: handle
//! validation, NULL pointers, options, the refusal of NVIDIA-only images, and everything a
//! library answers from its image (kernel names, count, parameter layouts). What needs a
//! context answers CUDA's no-device code here; the `#[gpu_test]` runs the whole life of a
//! library on a GPU (ci/gpu-test.sh, HIP backend), and never passes without one.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::nvrtc::nvrtcResult;
use anycuda_api::runtime::{cudaError_t, cudaStream_t, dim3};
use anycuda_api::traits::{Api, Driver, Rtc, Runtime};
use anycuda_hip::{HipBackend, Platform};
use anycuda_test::gpu_test;
use core::ffi::{c_char, c_uint, c_void, CStr};
use core::ptr::{null, null_mut};

mod common;
use common::{amd_without_device, hip, hip_with_device};

const OK: CUresult = CUresult::CUDA_SUCCESS;
const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
const BAD_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;
const NOT_SUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;
const NO_DEVICE: CUresult = CUresult::CUDA_ERROR_NO_DEVICE;

fn nv(r: nvrtcResult) {
    assert_eq!(r, nvrtcResult::NVRTC_SUCCESS);
}

/// A kernel `k(int* p, int v)` compiled by the backend's NVRTC (hipRTC: an AMD code object on
/// AMD for `arch`; PTX on HIP's NVIDIA platform), with a trailing NUL.
fn kernel_image(b: &HipBackend, arch: &str) -> Vec<u8> {
    let src =
        c"extern \"C\" __global__ void k(int* p, int v) { p[threadIdx.x] = v + blockDim.x; }\n\
        __device__ int counter = 7;";
    let opt = std::ffi::CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let opts = [opt.as_ptr()];
    let mut prog = null_mut();
    // SAFETY: NUL-terminated strings and valid out-pointers.
    unsafe {
        nv(b.nvrtcCreateProgram(&mut prog, src.as_ptr(), c"k.cu".as_ptr(), 0, null(), null()));
        nv(b.nvrtcCompileProgram(prog, 1, opts.as_ptr()));
        let mut n = 0;
        nv(b.nvrtcGetPTXSize(prog, &mut n));
        let mut image = vec![0u8; n + 1];
        nv(b.nvrtcGetPTX(prog, image.as_mut_ptr().cast::<c_char>()));
        nv(b.nvrtcDestroyProgram(&mut prog));
        image
    }
}

/// A library handle anycuda never handed out (an ordinary heap address, and a forged tag).
fn bogus_libraries() -> [CUlibrary; 3] {
    [
        null_mut(),
        0x7777_0000_1000usize as CUlibrary,
        (0x2CB1usize << 48 | 0xFFFF_FFFF) as CUlibrary,
    ]
}

fn bogus_kernels() -> [CUkernel; 3] {
    [
        null_mut(),
        0x7777_0000_2000usize as CUkernel,
        (0x2CC1usize << 48 | 0xFFFF_FFFF) as CUkernel,
    ]
}

const NVIDIA_PTX: &CStr = c".version 8.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 p)\n{\n ret;\n}\n";

#[test]
fn null_pointers_are_invalid_values() {
    let Some(b) = hip() else { return };
    let mut lib = null_mut();
    // SAFETY: NULL pointers are what is being tested; the library calls check them first.
    unsafe {
        assert_eq!(
            b.cuLibraryLoadData(
                null_mut(),
                NVIDIA_PTX.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                null(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuLibraryLoadFromFile(
                &mut lib,
                null(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            INVALID_VALUE
        );
        assert_eq!(
            b.cudaLibraryLoadData(
                null_mut(),
                NVIDIA_PTX.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            cudaError_t::cudaErrorInvalidValue
        );
        // JIT and library option arrays: NULL with a non-zero count.
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                NVIDIA_PTX.as_ptr().cast(),
                null_mut(),
                null_mut(),
                1,
                null_mut(),
                null_mut(),
                0
            ),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                NVIDIA_PTX.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                1
            ),
            INVALID_VALUE
        );
    }
}

#[test]
fn bogus_and_null_handles_are_invalid_handles() {
    let Some(b) = hip() else { return };
    // SAFETY: the handles are never dereferenced: anycuda refuses them first.
    unsafe {
        for lib in bogus_libraries() {
            let (mut k, mut m, mut n) = (null_mut(), null_mut(), 0u32);
            let mut ks = [null_mut(); 2];
            let mut d: CUdeviceptr = 0;
            assert_eq!(b.cuLibraryUnload(lib), BAD_HANDLE, "{lib:p}");
            assert_eq!(b.cuLibraryGetKernel(&mut k, lib, c"k".as_ptr()), BAD_HANDLE);
            assert_eq!(b.cuLibraryGetModule(&mut m, lib), BAD_HANDLE);
            assert_eq!(b.cuLibraryGetKernelCount(&mut n, lib), BAD_HANDLE);
            assert_eq!(
                b.cuLibraryEnumerateKernels(ks.as_mut_ptr(), 2, lib),
                BAD_HANDLE
            );
            assert_eq!(
                b.cuLibraryGetGlobal(&mut d, null_mut(), lib, c"x".as_ptr()),
                BAD_HANDLE
            );
            assert_eq!(
                b.cuLibraryGetManaged(&mut d, null_mut(), lib, c"x".as_ptr()),
                BAD_HANDLE
            );
            assert_eq!(
                b.cudaLibraryUnload(lib),
                cudaError_t::cudaErrorInvalidResourceHandle
            );
            assert_eq!(
                b.cudaLibraryGetKernel(&mut k, lib, c"k".as_ptr()),
                cudaError_t::cudaErrorInvalidResourceHandle
            );
            assert_eq!(
                b.cudaLibraryGetKernelCount(&mut n, lib),
                cudaError_t::cudaErrorInvalidResourceHandle
            );
        }
        for k in bogus_kernels() {
            let (mut f, mut name, mut lib) = (null_mut(), null(), null_mut());
            let (mut off, mut count) = (0usize, 0usize);
            let mut v = 0;
            assert_eq!(b.cuKernelGetFunction(&mut f, k), BAD_HANDLE, "{k:p}");
            // A NULL kernel is an invalid value for cuKernelGetName, as on CUDA.
            let bad_name = if k.is_null() {
                INVALID_VALUE
            } else {
                BAD_HANDLE
            };
            assert_eq!(b.cuKernelGetName(&mut name, k), bad_name);
            assert_eq!(b.cuKernelGetLibrary(&mut lib, k), BAD_HANDLE);
            assert_eq!(
                b.cuKernelGetParamInfo(k, 0, &mut off, null_mut()),
                BAD_HANDLE
            );
            assert_eq!(b.cuKernelGetParamCount(k, &mut count), BAD_HANDLE);
            let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
            assert_eq!(b.cuKernelGetAttribute(&mut v, attr, k, 0), BAD_HANDLE);
        }
        // A forged kernel tag is never passed to HIP as a function: the launch and attribute
        // paths refuse it (a non-canonical address would otherwise crash inside HIP).
        let forged = bogus_kernels()[2];
        let mut v = 0;
        let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        assert_eq!(
            b.cuFuncGetAttribute(&mut v, attr, forged as CUfunction),
            BAD_HANDLE
        );
        assert_eq!(
            b.cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut v, forged as CUfunction, 32, 0),
            BAD_HANDLE
        );
        assert_eq!(
            b.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut v,
                forged as CUfunction,
                32,
                0,
                0
            ),
            BAD_HANDLE
        );
        let r = b.cuLaunchKernel(
            forged as CUfunction,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            null_mut(),
            null_mut(),
        );
        assert_eq!(r, BAD_HANDLE);
        let r = b.cudaLaunchKernel(
            forged.cast_const().cast(),
            dim3 { x: 1, y: 1, z: 1 },
            dim3 { x: 1, y: 1, z: 1 },
            null_mut(),
            0,
            null_mut(),
        );
        assert_eq!(r, cudaError_t::cudaErrorInvalidResourceHandle);
    }
}

#[test]
fn nvidia_only_images_are_refused_with_the_way_out() {
    let Some(b) = hip() else { return };
    if !b.amd_faithful() {
        // AMD, and HIP's NVIDIA platform in AMD-faithful mode (its default), refuse them.
        eprintln!("SKIP: ANYCUDA_HIP_AMD_FAITHFUL=0: HIP's NVIDIA platform loads NVIDIA's formats");
        return;
    }
    let mut lib = null_mut();
    // PTX is translated (when first used in a context); PTX the translator refuses is refused
    // when the library is loaded, the instruction named.
    let refused = std::ffi::CString::new(
        NVIDIA_PTX
            .to_str()
            .unwrap()
            .replace(" ret;", " wgmma.fence.sync.aligned;\n ret;"),
    )
    .unwrap();
    // SAFETY: NUL-terminated PTX; valid out-pointers.
    unsafe {
        let r = b.cuLibraryLoadData(
            &mut lib,
            NVIDIA_PTX.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, CUresult::CUDA_SUCCESS);
        assert_eq!(b.cuLibraryUnload(lib), CUresult::CUDA_SUCCESS);
        lib = null_mut();
        let r = b.cuLibraryLoadData(
            &mut lib,
            refused.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, NOT_SUPPORTED);
        let why = anycuda_hip::not_supported_reason(r).expect("the refusal's reason");
        assert!(
            why.contains("`wgmma.fence.sync.aligned`") && why.contains("line 6"),
            "{why}"
        );
        assert!(lib.is_null(), "no library on a refusal");
        assert_eq!(
            b.cudaLibraryLoadData(
                &mut lib,
                refused.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            cudaError_t::cudaErrorNotSupported
        );
        // An NVIDIA cubin: an ELF for EM_CUDA.
        let mut cubin = [0u8; 64];
        cubin[..4].copy_from_slice(b"\x7fELF");
        cubin[4] = 2;
        cubin[5] = 1;
        cubin[18..20].copy_from_slice(&anycuda_hip::EM_CUDA.to_le_bytes());
        let r = b.cuLibraryLoadData(
            &mut lib,
            cubin.as_ptr().cast(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        assert_eq!(r, NOT_SUPPORTED);
        assert!(anycuda_hip::not_supported_reason(r)
            .unwrap()
            .contains("cubin"));
        // The same refused PTX from a file.
        let dir = std::env::temp_dir().join(format!("anycuda-hip-library-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("k.ptx");
        std::fs::write(&path, refused.to_bytes()).unwrap();
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(
            b.cuLibraryLoadFromFile(
                &mut lib,
                cpath.as_ptr(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            NOT_SUPPORTED
        );
        let missing = std::ffi::CString::new(dir.join("missing.ptx").to_str().unwrap()).unwrap();
        assert_eq!(
            b.cuLibraryLoadFromFile(
                &mut lib,
                missing.as_ptr(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            CUresult::CUDA_ERROR_FILE_NOT_FOUND
        );
        assert_eq!(
            b.cudaLibraryLoadFromFile(
                &mut lib,
                missing.as_ptr(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            cudaError_t::cudaErrorFileNotFound
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn options_cuda_ignores_are_accepted_and_others_refused() {
    let Some(b) = hip() else { return };
    if b.platform() != Platform::Amd {
        eprintln!("SKIP: compiles an AMD code object");
        return;
    }
    let image = kernel_image(&b, "gfx90a");
    let code: *const c_void = image.as_ptr().cast();
    let mut lib = null_mut();
    // SAFETY: a complete code object; option arrays of the given lengths.
    unsafe {
        // An option number outside CUDA's set.
        let mut o = [CUjit_option(999)];
        let mut v = [null_mut::<c_void>()];
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                code,
                o.as_mut_ptr(),
                v.as_mut_ptr(),
                1,
                null_mut(),
                null_mut(),
                0
            ),
            INVALID_VALUE
        );
        // Symbol arrays cannot be kept past the call: refused.
        let mut o = [CUjit_option::CU_JIT_GLOBAL_SYMBOL_COUNT];
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                code,
                o.as_mut_ptr(),
                v.as_mut_ptr(),
                1,
                null_mut(),
                null_mut(),
                0
            ),
            NOT_SUPPORTED
        );
        // nvcc's host table: not supported; an unknown library option: invalid.
        let mut lo = [CUlibraryOption::CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE];
        let mut lv = [core::ptr::dangling_mut::<c_void>()];
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                code,
                null_mut(),
                null_mut(),
                0,
                lo.as_mut_ptr(),
                lv.as_mut_ptr(),
                1
            ),
            NOT_SUPPORTED
        );
        let mut lo = [CUlibraryOption(7)];
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                code,
                null_mut(),
                null_mut(),
                0,
                lo.as_mut_ptr(),
                lv.as_mut_ptr(),
                1
            ),
            INVALID_VALUE
        );
        // Hints and logs: accepted; the logs report nothing produced (no compile in the call).
        let mut log = [b'x' as c_char; 64];
        let mut o = [
            CUjit_option::CU_JIT_OPTIMIZATION_LEVEL,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CUjit_option::CU_JIT_WALL_TIME,
        ];
        let mut v = [
            3usize as *mut c_void,
            log.as_mut_ptr().cast(),
            64usize as *mut c_void,
            12345usize as *mut c_void,
        ];
        let mut lo = [CUlibraryOption::CU_LIBRARY_BINARY_IS_PRESERVED];
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                code,
                o.as_mut_ptr(),
                v.as_mut_ptr(),
                4,
                lo.as_mut_ptr(),
                lv.as_mut_ptr(),
                1
            ),
            OK
        );
        assert_eq!(log[0], 0, "empty info log");
        assert_eq!(v[2] as usize, 0, "info log size");
        assert_eq!(v[3] as usize, 0, "wall time");
        assert_eq!(v[0] as usize, 3, "an input option is left alone");
        assert_eq!(b.cuLibraryUnload(lib), OK);
    }
}

#[test]
fn a_library_answers_from_its_image_without_a_device() {
    let Some(b) = amd_without_device() else {
        return;
    };
    let image = kernel_image(&b, "gfx90a");
    let mut lib = null_mut();
    // SAFETY: a complete code object; valid out-pointers; handles from the calls themselves.
    unsafe {
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                image.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            OK
        );
        drop(image); // the library keeps its own copy
        let mut n: c_uint = 0;
        assert_eq!(b.cuLibraryGetKernelCount(&mut n, lib), OK);
        assert_eq!(n, 1);
        let mut ks = [null_mut(); 4];
        assert_eq!(b.cuLibraryEnumerateKernels(ks.as_mut_ptr(), 4, lib), OK);
        let mut k = null_mut();
        assert_eq!(b.cuLibraryGetKernel(&mut k, lib, c"k".as_ptr()), OK);
        assert_eq!(k, ks[0], "one handle per kernel");
        let mut rk = null_mut();
        assert_eq!(
            b.cudaLibraryGetKernel(&mut rk, lib, c"k".as_ptr()),
            cudaError_t::cudaSuccess
        );
        assert_eq!(rk, k);
        assert_eq!(
            b.cuLibraryGetKernel(&mut rk, lib, c"nope".as_ptr()),
            CUresult::CUDA_ERROR_NOT_FOUND
        );
        assert_eq!(
            b.cudaLibraryGetKernel(&mut rk, lib, c"nope".as_ptr()),
            cudaError_t::cudaErrorSymbolNotFound
        );
        assert_eq!(
            b.cuLibraryGetKernel(null_mut(), lib, c"k".as_ptr()),
            INVALID_VALUE
        );
        assert_eq!(b.cuLibraryGetKernel(&mut rk, lib, null()), INVALID_VALUE);
        let mut name = null();
        assert_eq!(b.cuKernelGetName(&mut name, k), OK);
        assert_eq!(CStr::from_ptr(name), c"k");
        let mut owner = null_mut();
        assert_eq!(b.cuKernelGetLibrary(&mut owner, k), OK);
        assert_eq!(owner, lib);
        let (mut count, mut off, mut size) = (0usize, 0usize, 0usize);
        // No context is current (no device here): CUDA's answer, though the image holds the
        // layout (cuda.core's test_num_args_error_handling expects the error).
        let mut ctx = null_mut();
        assert_eq!(b.cuCtxGetCurrent(&mut ctx), OK);
        assert!(ctx.is_null());
        let no_context = CUresult::CUDA_ERROR_INVALID_CONTEXT;
        assert_eq!(b.cuKernelGetParamCount(k, &mut count), no_context);
        assert_eq!(
            b.cuKernelGetParamInfo(k, 1, &mut off, &mut size),
            no_context
        );
        // Argument checks come first.
        assert_eq!(b.cuKernelGetParamCount(k, null_mut()), INVALID_VALUE);
        assert_eq!(
            b.cuKernelGetParamInfo(k, 0, null_mut(), &mut size),
            INVALID_VALUE
        );
        // A NULL kernel: an invalid value (cuda.bindings' test_cuKernelGetName_failure).
        assert_eq!(b.cuKernelGetName(&mut name, null_mut()), INVALID_VALUE);
        assert_eq!(b.cuKernelGetName(null_mut(), k), INVALID_VALUE);
        // A kernel cast to a function: cuFuncGetName answers its name.
        let mut fname = null();
        assert_eq!(b.cuFuncGetName(&mut fname, k as CUfunction), OK);
        assert_eq!(CStr::from_ptr(fname), c"k");
        // What needs a context answers CUDA's no-device code.
        let mut f = null_mut();
        assert_eq!(b.cuKernelGetFunction(&mut f, k), NO_DEVICE);
        let mut m = null_mut();
        assert_eq!(b.cuLibraryGetModule(&mut m, lib), NO_DEVICE);
        let mut d: CUdeviceptr = 0;
        assert_eq!(
            b.cuLibraryGetGlobal(&mut d, null_mut(), lib, c"counter".as_ptr()),
            NO_DEVICE
        );
        assert_eq!(
            b.cuLibraryGetManaged(&mut d, null_mut(), lib, c"counter".as_ptr()),
            NOT_SUPPORTED
        );
        let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        let mut v = 0;
        assert_eq!(
            b.cuFuncGetAttribute(&mut v, attr, k as CUfunction),
            NO_DEVICE
        );
        assert_eq!(
            b.cuLaunchKernel(
                k as CUfunction,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                null_mut()
            ),
            NO_DEVICE
        );
        let one = dim3 { x: 1, y: 1, z: 1 };
        assert_eq!(
            b.cudaLaunchKernel(
                k.cast_const().cast(),
                one,
                one,
                null_mut(),
                0,
                null_mut::<c_void>() as cudaStream_t
            ),
            cudaError_t::cudaErrorNoDevice
        );
        // Unloaded: every handle of the library is stale.
        assert_eq!(b.cuLibraryUnload(lib), OK);
        assert_eq!(b.cuLibraryUnload(lib), BAD_HANDLE);
        assert_eq!(
            b.cuLibraryGetKernel(&mut rk, lib, c"k".as_ptr()),
            BAD_HANDLE
        );
        assert_eq!(b.cuKernelGetName(&mut name, k), BAD_HANDLE);
        assert_eq!(b.cuKernelGetFunction(&mut f, k), BAD_HANDLE);
        assert_eq!(
            b.cuLaunchKernel(
                k as CUfunction,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                null_mut()
            ),
            BAD_HANDLE
        );
    }
}

#[test]
fn ptx_with_a_source_bundle_loads_as_a_library() {
    let Some(b) = amd_without_device() else {
        return;
    };
    let bundle = anycuda_rtc::rtc_bundle::Bundle {
        name: "k.cu".into(),
        source: "extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n".into(),
        producer: "test".into(),
        ..Default::default()
    };
    let mut ptx = String::from(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(\n.param .u64 k_param_0\n)\n{\n ret;\n}\n");
    ptx.push_str(&bundle.to_text().unwrap());
    ptx.push('\0');
    let mut lib = null_mut();
    // SAFETY: NUL-terminated PTX; valid out-pointers.
    unsafe {
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                ptx.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            OK,
            "accepted: the bundle is compiled when the library is first used in a context"
        );
        let mut k = null_mut();
        assert_eq!(b.cuLibraryGetKernel(&mut k, lib, c"k".as_ptr()), OK);
        let mut f = null_mut();
        assert_eq!(b.cuKernelGetFunction(&mut f, k), NO_DEVICE);
        assert_eq!(b.cuLibraryUnload(lib), OK);
    }
}

#[gpu_test(backend = "hip")]
fn library_life_on_a_device() {
    let b = hip_with_device();
    // SAFETY: valid out-pointers; the handles come from the calls themselves.
    unsafe {
        let arch = b.device_arch(0).expect("device arch");
        let mut ctx = null_mut();
        assert_eq!(b.cuDevicePrimaryCtxRetain(&mut ctx, 0), OK);
        assert_eq!(b.cuCtxSetCurrent(ctx), OK);
        let image = kernel_image(&b, &arch);
        let mut lib = null_mut();
        assert_eq!(
            b.cuLibraryLoadData(
                &mut lib,
                image.as_ptr().cast(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                null_mut(),
                0
            ),
            OK
        );
        let mut k = null_mut();
        assert_eq!(b.cuLibraryGetKernel(&mut k, lib, c"k".as_ptr()), OK);
        let mut f = null_mut();
        assert_eq!(b.cuKernelGetFunction(&mut f, k), OK);
        let mut f2 = null_mut();
        assert_eq!(b.cuKernelGetFunction(&mut f2, k), OK);
        assert_eq!(f, f2, "one function per context");
        let mut m = null_mut();
        assert_eq!(b.cuLibraryGetModule(&mut m, lib), OK);
        let mut g = null_mut();
        assert_eq!(b.cuModuleGetFunction(&mut g, m, c"k".as_ptr()), OK);
        let (mut gp, mut gs): (CUdeviceptr, usize) = (0, 0);
        assert_eq!(
            b.cuLibraryGetGlobal(&mut gp, &mut gs, lib, c"counter".as_ptr()),
            OK
        );
        assert!(gp != 0 && gs == 4, "{gp:#x} {gs}");
        let mut threads = 0;
        let attr = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        assert_eq!(b.cuKernelGetAttribute(&mut threads, attr, k, 0), OK);
        assert!(threads >= 64, "{threads}");
        let mut via_cast = 0;
        assert_eq!(
            b.cuFuncGetAttribute(&mut via_cast, attr, k as CUfunction),
            OK
        );
        assert_eq!(via_cast, threads);

        let mut d: CUdeviceptr = 0;
        assert_eq!(b.cuMemAlloc(&mut d, 64 * 4), OK);
        let check = |want: i32| {
            let mut out = [0i32; 64];
            assert_eq!(b.cuCtxSynchronize(), OK);
            assert_eq!(b.cuMemcpyDtoH(out.as_mut_ptr().cast(), d, 64 * 4), OK);
            assert!(out.iter().all(|&x| x == want), "{want}: {out:?}");
        };
        let mut p = d as usize as *mut c_void;
        // cuLaunchKernel with the CUkernel cast to a CUfunction.
        let mut v = 100i32;
        let vp: *mut i32 = &mut v;
        let mut args = [(&mut p as *mut *mut c_void).cast::<c_void>(), vp.cast()];
        assert_eq!(
            b.cuLaunchKernel(
                k as CUfunction,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                args.as_mut_ptr(),
                null_mut()
            ),
            OK
        );
        check(164);
        // cuLaunchKernelEx, as cuda.core launches.
        *vp = 200;
        let cfg = CUlaunchConfig {
            gridDimX: 1,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: 64,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: null_mut(),
            attrs: null_mut(),
            numAttrs: 0,
        };
        assert_eq!(
            b.cuLaunchKernelEx(&cfg, k as CUfunction, args.as_mut_ptr(), null_mut()),
            OK
        );
        check(264);
        // cudaLaunchKernel with the cudaKernel_t, as a runtime program launches.
        *vp = 300;
        let one = dim3 { x: 1, y: 1, z: 1 };
        let block = dim3 { x: 64, y: 1, z: 1 };
        assert_eq!(
            b.cudaLaunchKernel(
                k.cast_const().cast(),
                one,
                block,
                args.as_mut_ptr(),
                0,
                null_mut::<c_void>() as cudaStream_t
            ),
            cudaError_t::cudaSuccess
        );
        check(364);
        // Captured into a graph and instantiated with parameters, as cuda.core's graph builder
        // does (HIP before 6.2 has no hipGraphInstantiateWithParams: anycuda's fallback).
        let mut s = null_mut();
        assert_eq!(b.cuStreamCreate(&mut s, 1), OK);
        assert_eq!(
            b.cuStreamBeginCapture(s, CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            OK
        );
        *vp = 400;
        let cap = CUlaunchConfig { hStream: s, ..cfg };
        assert_eq!(
            b.cuLaunchKernelEx(&cap, k as CUfunction, args.as_mut_ptr(), null_mut()),
            OK
        );
        let mut g = null_mut();
        assert_eq!(b.cuStreamEndCapture(s, &mut g), OK);
        let mut exec = null_mut();
        let mut ip: CUDA_GRAPH_INSTANTIATE_PARAMS = core::mem::zeroed();
        ip.result_out = CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_ERROR;
        assert_eq!(b.cuGraphInstantiateWithParams(&mut exec, g, &mut ip), OK);
        assert_eq!(
            ip.result_out,
            CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS
        );
        assert_eq!(b.cuGraphLaunch(exec, s), OK);
        assert_eq!(b.cuStreamSynchronize(s), OK);
        check(464);
        assert_eq!(b.cuGraphExecDestroy(exec), OK);
        assert_eq!(b.cuGraphDestroy(g), OK);
        assert_eq!(b.cuStreamDestroy(s), OK);
        assert_eq!(b.cuMemFree(d), OK);
        assert_eq!(b.cuLibraryUnload(lib), OK);
        assert_eq!(b.cuKernelGetFunction(&mut f, k), BAD_HANDLE);
        assert_eq!(b.cuDevicePrimaryCtxRelease(0), OK);
    }
}
