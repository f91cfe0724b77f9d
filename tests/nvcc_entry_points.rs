//! nvcc's hidden Runtime entry points (`__cudaRegisterFatBinary`, `__cudaRegisterFunction`,
//! `__cudaPushCallConfiguration`, ...), called in the order nvcc's generated code calls them, on
//! a real fat binary assembled here from NVRTC's own PTX and cubin of a real kernel.
//!
//! - HIP (selected for the process, as `ANYCUDA_BACKEND=hip` would; ROCm 5.2.3 loads without a
//!   GPU): registration gives a handle, push/pop round-trip per thread, every launch or query of
//!   a kernel (or variable) of a machine-code-only fat binary answers
//!   `cudaErrorNoKernelImageForDevice` and leaves it as the last error, one with PTX answers
//!   `cudaErrorNoDevice` without a device (it would be translated for one), unregistering frees it all (the stub gets HIP's own answer again), and
//!   damaged wrappers are refused with a NULL handle, never a crash.
//! - CUDA (NVIDIA's libcudart 13.5 from PyPI, no GPU): the forwarding resolves, and NVIDIA's
//!   runtime answers (push then pop hands back the pushed configuration).
//!
//! Its own test binary: the HIP test selects the backend for the whole process.

mod common;

use anycuda::nvrtc::{nvrtcProgram, nvrtcResult};
use anycuda::runtime::{
    cudaError_t, cudaFuncAttributes, cudaKernel_t, cudaLaunchConfig_t, cudaStream_t, dim3,
};
use anycuda::{select, Backend, BackendChoice, BackendKind, Rtc, Runtime};
use core::ffi::{c_char, c_void};
use std::ffi::CString;

const SRC: &str = "extern \"C\" __global__ void scale(float *x, float a, int n) {\n\
                   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                   if (i < n) x[i] *= a;\n}\n";

/// PTX and an sm_90 cubin of [`SRC`], compiled by NVIDIA's NVRTC (the CUDA backend's).
fn nvrtc_outputs() -> Option<(Vec<u8>, Vec<u8>)> {
    let b = common::compiler(BackendKind::Cuda)?;
    let src = CString::new(SRC).unwrap();
    let name = CString::new("scale.cu").unwrap();
    let mut out = Vec::new();
    for (arch, cubin) in [("compute_90", false), ("sm_90", true)] {
        let mut p: nvrtcProgram = core::ptr::null_mut();
        let opt = CString::new(format!("-arch={arch}")).unwrap();
        let opts = [opt.as_ptr()];
        // SAFETY: valid C strings; `p` is a local out-handle; `opts` lives across the calls.
        unsafe {
            assert_eq!(
                b.nvrtcCreateProgram(
                    &mut p,
                    src.as_ptr(),
                    name.as_ptr(),
                    0,
                    core::ptr::null(),
                    core::ptr::null()
                ),
                nvrtcResult::NVRTC_SUCCESS
            );
            assert_eq!(
                b.nvrtcCompileProgram(p, 1, opts.as_ptr()),
                nvrtcResult::NVRTC_SUCCESS
            );
        }
        let mut size = 0usize;
        // SAFETY: `p` is the program created above; the buffers have the sizes NVRTC reported.
        let bytes = unsafe {
            if cubin {
                assert_eq!(
                    b.nvrtcGetCUBINSize(p, &mut size),
                    nvrtcResult::NVRTC_SUCCESS
                );
                let mut v = vec![0u8; size];
                assert_eq!(
                    b.nvrtcGetCUBIN(p, v.as_mut_ptr().cast()),
                    nvrtcResult::NVRTC_SUCCESS
                );
                v
            } else {
                assert_eq!(b.nvrtcGetPTXSize(p, &mut size), nvrtcResult::NVRTC_SUCCESS);
                let mut v = vec![0u8; size];
                assert_eq!(
                    b.nvrtcGetPTX(p, v.as_mut_ptr().cast()),
                    nvrtcResult::NVRTC_SUCCESS
                );
                v
            }
        };
        // SAFETY: `p` is the program created above, destroyed once.
        let r = unsafe { b.nvrtcDestroyProgram(&mut p) };
        assert_eq!(r, nvrtcResult::NVRTC_SUCCESS);
        out.push(bytes);
    }
    assert!(out[0].starts_with(b"//"), "PTX text");
    assert_eq!(&out[1][..4], b"\x7fELF", "cubin");
    let cubin = out.pop().unwrap();
    let ptx = out.pop().unwrap();
    Some((ptx, cubin))
}

/// A fat binary as `fatbinary` lays it out (the layout of the `.nv_fatbin` sections in NVIDIA's
/// own libraries): a 16-byte header (magic `0xBA55ED50`, version 1, header size, size of what
/// follows), then per entry a 64-byte header (kind 1 = PTX / 2 = cubin, version 0x101, header
/// size, padded payload size, payload size at 16, arch at 28) and the payload padded to 8 bytes.
/// As `u64`s, aligned as nvcc's `fatbinData` array is.
fn fatbin(entries: &[(u16, u32, &[u8])]) -> Vec<u64> {
    let mut body = Vec::new();
    for (kind, arch, payload) in entries {
        let padded = payload.len().div_ceil(8) * 8;
        let mut h = [0u8; 64];
        h[0..2].copy_from_slice(&kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x101u16.to_le_bytes());
        h[4..8].copy_from_slice(&64u32.to_le_bytes());
        h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
        h[16..20].copy_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
        h[28..32].copy_from_slice(&arch.to_le_bytes());
        body.extend_from_slice(&h);
        body.extend_from_slice(payload);
        body.resize(body.len() + padded - payload.len(), 0);
    }
    let mut v = Vec::new();
    v.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    v.extend_from_slice(&1u16.to_le_bytes());
    v.extend_from_slice(&16u16.to_le_bytes());
    v.extend_from_slice(&(body.len() as u64).to_le_bytes());
    v.extend_from_slice(&body);
    v.chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// `__fatBinC_Wrapper_t` (NVIDIA's `fatbinary_section.h`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Wrapper {
    magic: i32,
    version: i32,
    data: *const u64,
    filename_or_fatbins: *mut c_void,
}

fn wrapper(data: &[u64]) -> Wrapper {
    Wrapper {
        magic: 0x466243B1,
        version: 1,
        data: data.as_ptr(),
        filename_or_fatbins: core::ptr::null_mut(),
    }
}

/// Stand-ins for the host launch stub nvcc writes for `scale` and for a `__device__` variable's
/// host shadow: only their addresses matter to the runtime.
extern "C" fn scale_stub() {}
static mut SHADOW: [u8; 16] = [0; 16];

fn d3(x: u32, y: u32, z: u32) -> dim3 {
    dim3 { x, y, z }
}

/// A launch through the stub as `cudaLaunchKernel` (nvcc's `__NV_LEGACY_LAUNCH` path, and
/// what users write by hand).
fn launch(func: *const c_void) -> cudaError_t {
    let mut x = core::ptr::null_mut::<f32>();
    let mut a = 2.0f32;
    let mut n = 1i32;
    let mut args: [*mut c_void; 3] = [
        (&mut x as *mut *mut f32).cast(),
        (&mut a as *mut f32).cast(),
        (&mut n as *mut i32).cast(),
    ];
    // SAFETY: `args` holds pointers to the three arguments, alive for the call; the function
    // pointer is never called by the runtime unless it is a real kernel.
    unsafe {
        anycuda::runtime::cudaLaunchKernel(
            func,
            d3(1, 1, 1),
            d3(32, 1, 1),
            args.as_mut_ptr(),
            0,
            core::ptr::null_mut(),
        )
    }
}

#[test]
fn hip_registers_nvcc_modules_and_refuses_their_kernels_by_name() {
    let Some((ptx, cubin)) = nvrtc_outputs() else {
        return;
    };
    if common::compiler(BackendKind::Hip).is_none() {
        return;
    }
    select(BackendChoice::Only(BackendKind::Hip)).unwrap();
    use anycuda::runtime as rt;
    let stub = scale_stub as extern "C" fn() as *const c_void;
    let shadow = core::ptr::addr_of_mut!(SHADOW).cast::<c_char>();

    // Today's answer for an unregistered pointer (no GPU here: HIP's own error).
    let before = launch(stub);
    eprintln!("unregistered stub: {before:?}");
    assert_ne!(before, cudaError_t::cudaErrorNoKernelImageForDevice);
    // SAFETY: no arguments; clears what the launch left.
    unsafe { rt::cudaGetLastError() };

    // Machine code only first: nothing to translate, so every call is refused by name.
    let data = fatbin(&[(2, 90, &cubin)]);
    let mut w = wrapper(&data);
    let name = CString::new("scale").unwrap();
    let var = CString::new("table").unwrap();
    // What nvcc's static initialiser does.
    // SAFETY: `w` wraps a whole fat binary; the names are C strings; NULL where nvcc passes 0.
    let h = unsafe {
        let h = rt::__cudaRegisterFatBinary((&mut w as *mut Wrapper).cast());
        assert!(!h.is_null(), "a registered fat binary gets a handle");
        rt::__cudaRegisterFunction(
            h,
            stub.cast(),
            name.as_ptr().cast_mut(),
            name.as_ptr(),
            -1,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        );
        rt::__cudaRegisterVar(
            h,
            shadow,
            var.as_ptr().cast_mut(),
            var.as_ptr(),
            0,
            16,
            0,
            0,
        );
        rt::__cudaRegisterFatBinaryEnd(h);
        h
    };

    // `scale<<<4, 64, 128, s>>>(..)`: push, then the stub pops what was pushed (nested pushes,
    // as in a launch inside another launch's arguments, come back last in first out).
    let s1 = 0x10 as cudaStream_t;
    let s2 = 0x20 as cudaStream_t;
    let (mut g, mut bl, mut sh, mut st) = (d3(0, 0, 0), d3(0, 0, 0), 0usize, core::ptr::null_mut());
    // SAFETY: out-pointers are locals of the documented types.
    unsafe {
        assert_eq!(
            rt::__cudaPushCallConfiguration(d3(4, 1, 1), d3(64, 1, 1), 128, s1),
            0
        );
        assert_eq!(
            rt::__cudaPushCallConfiguration(d3(2, 2, 1), d3(8, 8, 1), 0, s2),
            0
        );
        let pop = |g: &mut dim3, bl: &mut dim3, sh: &mut usize, st: &mut cudaStream_t| {
            rt::__cudaPopCallConfiguration(g, bl, sh, (st as *mut cudaStream_t).cast())
        };
        assert_eq!(
            pop(&mut g, &mut bl, &mut sh, &mut st),
            cudaError_t::cudaSuccess
        );
        assert_eq!((g.x, g.y, bl.x, bl.y, sh, st), (2, 2, 8, 8, 0, s2));
        assert_eq!(
            pop(&mut g, &mut bl, &mut sh, &mut st),
            cudaError_t::cudaSuccess
        );
        assert_eq!((g.x, bl.x, sh, st), (4, 64, 128, s1));
        assert_eq!(
            pop(&mut g, &mut bl, &mut sh, &mut st),
            cudaError_t::cudaErrorMissingConfiguration
        );
    }
    // Per thread: a push on another thread is not popped here.
    std::thread::spawn(|| {
        // SAFETY: values only.
        let r = unsafe {
            rt::__cudaPushCallConfiguration(d3(1, 1, 1), d3(1, 1, 1), 0, core::ptr::null_mut())
        };
        assert_eq!(r, 0);
    })
    .join()
    .unwrap();
    // SAFETY: out-pointers are locals of the documented types.
    unsafe {
        assert_eq!(
            rt::__cudaPopCallConfiguration(
                &mut g,
                &mut bl,
                &mut sh,
                (&mut st as *mut cudaStream_t).cast()
            ),
            cudaError_t::cudaErrorMissingConfiguration
        );
    }

    // CUDA 13's launch path: __cudaGetKernel, then __cudaLaunchKernel with that handle.
    let nokernel = cudaError_t::cudaErrorNoKernelImageForDevice;
    let mut k: cudaKernel_t = core::ptr::null_mut();
    // SAFETY: `k` is a local out-handle; `args` is NULL (the launch is refused before use).
    unsafe {
        assert_eq!(rt::__cudaGetKernel(&mut k, stub), nokernel);
        assert_eq!(k as *const c_void, stub, "the handle names the stub");
        for ptsz in [false, true] {
            let (g1, no_args, no_stream) =
                (d3(1, 1, 1), core::ptr::null_mut(), core::ptr::null_mut());
            let r = if ptsz {
                rt::__cudaLaunchKernel_ptsz(k, g1, g1, no_args, 0, no_stream)
            } else {
                rt::__cudaLaunchKernel(k, g1, g1, no_args, 0, no_stream)
            };
            assert_eq!(r, nokernel);
            // The stub drops the result: the program sees it through the last error.
            assert_eq!(rt::cudaPeekAtLastError(), nokernel);
            assert_eq!(rt::cudaGetLastError(), nokernel);
            assert_ne!(
                rt::cudaGetLastError(),
                nokernel,
                "reset by cudaGetLastError"
            );
        }
    }
    // The legacy path and the user's own calls on the stub or the variable.
    assert_eq!(launch(stub), nokernel);
    let mut attr = core::mem::MaybeUninit::<cudaFuncAttributes>::zeroed();
    let mut dptr = core::ptr::null_mut::<c_void>();
    let src = [0u8; 16];
    // SAFETY: out-pointers are locals; `src` has the 16 bytes named; an all-zero
    // `cudaLaunchConfig_t` is valid (integers, NULL pointers, no attributes).
    unsafe {
        assert_eq!(rt::cudaFuncGetAttributes(attr.as_mut_ptr(), stub), nokernel);
        let mut cfg = core::mem::MaybeUninit::<cudaLaunchConfig_t>::zeroed().assume_init();
        (cfg.gridDim, cfg.blockDim) = (d3(1, 1, 1), d3(32, 1, 1));
        assert_eq!(
            rt::cudaLaunchKernelExC(&cfg, stub, core::ptr::null_mut()),
            nokernel
        );
        assert_eq!(
            rt::cudaLaunchCooperativeKernel(
                stub,
                d3(1, 1, 1),
                d3(1, 1, 1),
                core::ptr::null_mut(),
                0,
                core::ptr::null_mut()
            ),
            nokernel
        );
        assert_eq!(
            rt::cudaMemcpyToSymbol(
                shadow.cast(),
                src.as_ptr().cast(),
                16,
                0,
                anycuda::runtime::cudaMemcpyKind::cudaMemcpyHostToDevice
            ),
            nokernel
        );
        assert_eq!(rt::cudaGetSymbolAddress(&mut dptr, shadow.cast()), nokernel);
        assert_eq!(rt::__cudaInitModule(h), 0, "no managed variables on HIP");
        rt::cudaGetLastError();
    }

    // Unregistering frees it all: the stub is an unknown pointer again (today's answer), and a
    // second unregister of the stale handle, or a registration under it, is ignored.
    // SAFETY: `h` came from __cudaRegisterFatBinary; stale uses are what is being tested.
    unsafe {
        rt::__cudaUnregisterFatBinary(h);
        assert_eq!(launch(stub), before);
        rt::cudaGetLastError();
        rt::__cudaUnregisterFatBinary(h);
        rt::__cudaRegisterFunction(
            h,
            stub.cast(),
            name.as_ptr().cast_mut(),
            name.as_ptr(),
            -1,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        );
    }
    assert_eq!(launch(stub), before);

    // With PTX the module is translated for the device on first use; with no device here
    // (CI), the answer is CUDA's for a missing device, kept as the last error.
    let with_ptx = fatbin(&[(1, 90, &ptx), (2, 90, &cubin)]);
    let mut wp = wrapper(&with_ptx);
    // SAFETY: `wp` wraps a whole fat binary; names are C strings; `k` is a local out-handle.
    unsafe {
        let h = rt::__cudaRegisterFatBinary((&mut wp as *mut Wrapper).cast());
        assert!(!h.is_null());
        rt::__cudaRegisterFunction(
            h,
            stub.cast(),
            name.as_ptr().cast_mut(),
            name.as_ptr(),
            -1,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        );
        let mut n = 0;
        let devices = rt::cudaGetDeviceCount(&mut n) == cudaError_t::cudaSuccess && n > 0;
        rt::cudaGetLastError();
        if !devices {
            let mut k: cudaKernel_t = core::ptr::null_mut();
            assert_eq!(
                rt::__cudaGetKernel(&mut k, stub),
                cudaError_t::cudaErrorNoDevice
            );
            assert_eq!(rt::cudaGetLastError(), cudaError_t::cudaErrorNoDevice);
            assert_eq!(launch(stub), cudaError_t::cudaErrorNoDevice);
            rt::cudaGetLastError();
        }
        rt::__cudaUnregisterFatBinary(h);
    }
    assert_eq!(launch(stub), before);
    // SAFETY: no arguments.
    unsafe { rt::cudaGetLastError() };

    // Damaged wrappers: NULL handle, never a crash, and nothing registered under it.
    let mut bad_magic = Wrapper { magic: 0x1234, ..w };
    let mut no_data = Wrapper {
        data: core::ptr::null(),
        ..w
    };
    let mut bad_version = Wrapper { version: 7, ..w };
    let mut broken = data.clone();
    broken[0] ^= 0xff; // the fat binary's own magic
    let mut bad_fatbin = wrapper(&broken);
    let mut lying = data.clone();
    lying[3] = u64::MAX / 2; // the first entry's padded size runs past the end
    let mut bad_size = wrapper(&lying);
    for (what, w) in [
        ("wrapper magic", &mut bad_magic),
        ("NULL data", &mut no_data),
        ("wrapper version", &mut bad_version),
        ("fat binary magic", &mut bad_fatbin),
        ("entry size", &mut bad_size),
    ] {
        // SAFETY: each wrapper is readable; the fat binary behind it is whole (sizes aside).
        let h = unsafe { rt::__cudaRegisterFatBinary((w as *mut Wrapper).cast()) };
        assert!(h.is_null(), "{what}");
    }
    // SAFETY: NULL is refused before any read; NULL handles are ignored.
    unsafe {
        assert!(rt::__cudaRegisterFatBinary(core::ptr::null_mut()).is_null());
        rt::__cudaRegisterFunction(
            core::ptr::null_mut(),
            stub.cast(),
            name.as_ptr().cast_mut(),
            name.as_ptr(),
            -1,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        );
        rt::__cudaUnregisterFatBinary(core::ptr::null_mut());
    }
    assert_eq!(launch(stub), before);
}

#[test]
fn cuda_forwards_to_nvidias_runtime() {
    let Ok(b) = Backend::load(BackendKind::Cuda) else {
        eprintln!("SKIP: the CUDA backend is not compiled into this build");
        return;
    };
    let runtime = b
        .libraries()
        .into_iter()
        .find(|l| l.role == anycuda::LibraryRole::Runtime)
        .map(|l| l.status.is_ok());
    if runtime != Some(true) {
        assert!(
            !common::on_ci(),
            "libcudart unavailable (CI=true: `bash ci/fetch-inputs.sh` and CUDA_PATH)"
        );
        eprintln!("SKIP: libcudart unavailable");
        return;
    }
    // Every hidden entry point of the catalogue is a symbol of NVIDIA's libcudart.so.13 (its
    // name, NUL-delimited, is in the library's dynamic string table).
    let lib = std::path::PathBuf::from(std::env::var_os("CUDA_PATH").expect("CUDA_PATH"))
        .join("lib/libcudart.so.13");
    let bytes = std::fs::read(&lib).unwrap();
    let hidden: Vec<&str> = anycuda::functions::RUNTIME_FUNCTIONS
        .iter()
        .map(|f| f.name)
        .filter(|n| n.starts_with("__cuda"))
        .collect();
    assert_eq!(hidden.len(), 12, "{hidden:?}");
    for n in hidden {
        let needle = format!("\0{n}\0");
        assert!(
            bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
            "{n} is not in {}",
            lib.display()
        );
    }
    let s = 0x30 as cudaStream_t;
    let (mut g, mut bl, mut sh, mut st) = (d3(0, 0, 0), d3(0, 0, 0), 0usize, core::ptr::null_mut());
    // SAFETY: out-pointers are locals of the documented types.
    unsafe {
        // anycuda's own answers would be 1 (push) and cudaErrorNotSupported (pop): success
        // and the pushed values back can only come from NVIDIA's runtime.
        assert_eq!(
            b.__cudaPushCallConfiguration(d3(3, 1, 1), d3(96, 1, 1), 64, s),
            0
        );
        assert_eq!(
            b.__cudaPopCallConfiguration(
                &mut g,
                &mut bl,
                &mut sh,
                (&mut st as *mut cudaStream_t).cast()
            ),
            cudaError_t::cudaSuccess
        );
    }
    assert_eq!((g.x, bl.x, sh, st), (3, 96, 64, s));
}
