//! What NVIDIA's own test suites (cuda.core, cuda.bindings, numba-cuda), run through anycuda's
//! C ABI on the HIP backend, expect of it: every device attribute answered, CUDA 13's context
//! creation with parameters, and (on HIP's NVIDIA platform) only the code formats AMD can load.
//! docs/hip-conformance.md is the prose; these tests hold it to the code.
//!
//! On CI (Debian's ROCm 5.2.3, no GPU) the checks anycuda makes before HIP are exact, and every
//! answer that needs a device is the answer for a bad ordinal. The `#[gpu_test]`s need a
//! GPU (ci/gpu-test.sh runs them on HIP's NVIDIA platform).

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::runtime::{cudaDeviceAttr, cudaDeviceProp, cudaError_t};
use anycuda_api::traits::{Driver, Runtime};
use anycuda_api::{CudaEnum, Origin};
use anycuda_hip::HipBackend;
use anycuda_test::gpu_test;
use core::ffi::c_int;
use core::ptr::{null, null_mut};

mod common;
use common::hip;

/// The number of devices HIP shows (0 on CI).
fn devices(b: &HipBackend) -> c_int {
    let mut n = 0;
    // SAFETY: a local out-pointer.
    if unsafe { b.cuDeviceGetCount(&mut n) } == CUresult::CUDA_SUCCESS {
        n
    } else {
        0
    }
}

/// Every attribute CUDA 13.5's `CUdevice_attribute` declares (the count sentinel aside).
fn cuda_attributes() -> Vec<(&'static str, CUdevice_attribute)> {
    CUdevice_attribute::CONSTANTS
        .iter()
        .filter(|c| c.origin == Origin::Cuda && c.name != "CU_DEVICE_ATTRIBUTE_MAX")
        .map(|c| (c.name, CUdevice_attribute::from_i64(c.value)))
        .collect()
}

// ------------------------------------------------------------------ device attributes

#[test]
fn every_attribute_is_answered_or_the_ordinal_is_bad() {
    let Some(b) = hip() else { return };
    let n = devices(&b);
    for (name, a) in cuda_attributes() {
        let mut v: c_int = -12345;
        // SAFETY: a local out-pointer.
        let r = unsafe { b.cuDeviceGetAttribute(&mut v, a, 0) };
        if n > 0 {
            assert_eq!(r, CUresult::CUDA_SUCCESS, "{name}");
        } else {
            assert_eq!(r, CUresult::CUDA_ERROR_INVALID_DEVICE, "{name}");
        }
        for bad in [-1, n, 4096] {
            // SAFETY: a local out-pointer.
            let r = unsafe { b.cuDeviceGetAttribute(&mut v, a, bad) };
            assert_eq!(r, CUresult::CUDA_ERROR_INVALID_DEVICE, "{name} on {bad}");
        }
        // SAFETY: NULL is refused before anything is written.
        let r = unsafe { b.cuDeviceGetAttribute(null_mut(), a, 0) };
        assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE, "{name} NULL");
    }
}

#[test]
fn values_outside_the_enum_are_invalid_values() {
    let Some(b) = hip() else { return };
    let mut v: c_int = 0;
    for raw in [0, CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX.0, 99_999] {
        // SAFETY: a local out-pointer.
        let r = unsafe { b.cuDeviceGetAttribute(&mut v, CUdevice_attribute(raw), 0) };
        assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE, "{raw}");
    }
    for raw in [0, cudaDeviceAttr::cudaDevAttrMax.0, 99_999] {
        // SAFETY: a local out-pointer.
        let r = unsafe { b.cudaDeviceGetAttribute(&mut v, cudaDeviceAttr(raw), 0) };
        assert_eq!(r, cudaError_t::cudaErrorInvalidValue, "{raw}");
    }
}

#[test]
fn the_runtime_answers_its_attributes_as_the_driver() {
    let Some(b) = hip() else { return };
    let n = devices(&b);
    for c in cudaDeviceAttr::CONSTANTS
        .iter()
        .filter(|c| c.origin == Origin::Cuda && c.name != "cudaDevAttrMax")
    {
        let mut v: c_int = -1;
        // SAFETY: a local out-pointer.
        let r = unsafe { b.cudaDeviceGetAttribute(&mut v, cudaDeviceAttr::from_i64(c.value), 0) };
        let want = if n > 0 {
            cudaError_t::cudaSuccess
        } else {
            cudaError_t::cudaErrorInvalidDevice
        };
        assert_eq!(r, want, "{}", c.name);
    }
    // The one the C-ABI run found answered cudaErrorInvalidValue.
    let mut v: c_int = -1;
    // SAFETY: a local out-pointer.
    let r = unsafe { b.cudaDeviceGetAttribute(&mut v, cudaDeviceAttr::cudaDevAttrGpuOverlap, -1) };
    assert_eq!(r, cudaError_t::cudaErrorInvalidDevice);
}

#[test]
fn each_attribute_has_a_described_rule() {
    for (name, a) in cuda_attributes() {
        let d = anycuda_hip::device_attribute_rule(a).unwrap_or_else(|| panic!("{name}"));
        assert!(!d.starts_with("HIP's answer"), "{name}: {d}");
    }
    assert!(
        anycuda_hip::device_attribute_rule(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX).is_none()
    );
}

/// HIP's attribute paired with `a` and the first supported HIP release whose tables pair it
/// (`None` when no release does).
fn hip_pair(a: CUdevice_attribute) -> Option<(&'static str, String)> {
    use anycuda_hip::conv::{HIP_VERSIONS, TABLES};
    let (i, t) = TABLES
        .iter()
        .enumerate()
        .find(|(_, t)| t.CUdevice_attribute.to_hip(a.to_i64()).is_some())?;
    let name = t
        .CUdevice_attribute
        .pairs
        .iter()
        .find(|p| p.1 == a.to_i64())
        .map(|p| p.2)?;
    let v = HIP_VERSIONS[i];
    Some((name, format!("{}.{}", v / 10_000_000, v / 100_000 % 100)))
}

/// The attribute table of docs/hip-conformance.md: one row per attribute value, its names
/// (aliases after the first), HIP's attribute and the first HIP release that has it, and the
/// answer when HIP gives none (the rule in words).
fn attribute_table() -> String {
    let mut rows = String::new();
    let mut seen = std::collections::BTreeMap::<i64, Vec<&str>>::new();
    for c in CUdevice_attribute::CONSTANTS
        .iter()
        .filter(|c| c.origin == Origin::Cuda && c.name != "CU_DEVICE_ATTRIBUTE_MAX")
    {
        seen.entry(c.value).or_default().push(c.name);
    }
    rows.push_str("| Value | `CU_DEVICE_ATTRIBUTE_` | HIP attribute (from HIP) | Otherwise |\n");
    rows.push_str("|---|---|---|---|\n");
    for (v, names) in seen {
        let a = CUdevice_attribute::from_i64(v);
        let rule = anycuda_hip::device_attribute_rule(a).expect("every attribute has a rule");
        let rule = rule.strip_prefix("HIP's attribute; else ").unwrap_or(&rule);
        let names: Vec<String> = names
            .iter()
            .map(|n| format!("`{}`", n.trim_start_matches("CU_DEVICE_ATTRIBUTE_")))
            .collect();
        let hip = hip_pair(a).map_or("none".to_string(), |(n, since)| format!("`{n}` ({since})"));
        rows.push_str(&format!(
            "| {v} | {} | {hip} | {} |\n",
            names.join(", "),
            rule.replace('|', "\\|")
        ));
    }
    rows
}

/// The document lists every attribute with the rule the code has: regenerate its table with
/// `cargo test -p anycuda-hip --test conformance -- --ignored print_attribute_table --nocapture`.
#[test]
fn the_document_lists_every_attribute_rule() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/hip-conformance.md");
    let doc = std::fs::read_to_string(path).expect("docs/hip-conformance.md");
    for row in attribute_table().lines() {
        assert!(
            doc.contains(row),
            "docs/hip-conformance.md lacks or differs in the row\n{row}\n(regenerate: see this test's doc)"
        );
    }
}

#[test]
#[ignore = "prints docs/hip-conformance.md's attribute table"]
fn print_attribute_table() {
    print!("{}", attribute_table());
}

#[gpu_test(backend = "hip")]
fn on_a_gpu_every_attribute_and_property_is_answered() {
    let Some(b) = hip() else { return };
    assert!(devices(&b) > 0, "no device");
    for (name, a) in cuda_attributes() {
        let mut v: c_int = -12345;
        // SAFETY: a local out-pointer.
        let r = unsafe { b.cuDeviceGetAttribute(&mut v, a, 0) };
        assert_eq!(r, CUresult::CUDA_SUCCESS, "{name}");
        println!("  {name} = {v}");
    }
    // SAFETY: plain data; all-zero is valid.
    let mut p: cudaDeviceProp = unsafe { core::mem::zeroed() };
    assert_eq!(
        // SAFETY: a local out-pointer.
        unsafe { b.cudaGetDeviceProperties(&mut p, 0) },
        cudaError_t::cudaSuccess
    );
    assert!(p.multiProcessorCount > 0 && p.warpSize > 0);
    assert!(p.hostNumaId >= -1 && p.deviceNumaId == -1);
    // Every attribute with a field answers what the field says.
    let mut optin = 0;
    // SAFETY: a local out-pointer.
    unsafe {
        b.cuDeviceGetAttribute(
            &mut optin,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            0,
        )
    };
    assert_eq!(optin as usize, p.sharedMemPerBlockOptin);
    assert!(p.sharedMemPerBlockOptin >= p.sharedMemPerBlock);
}

// ------------------------------------------------------------------ context creation

/// CUDA 13's `cuCtxCreate` (`cuCtxCreate_v4`) with parameters that ask for a plain context
/// goes on exactly as with NULL parameters; what HIP cannot honour gets CUDA's code for it.
#[test]
fn ctx_create_takes_parameters_that_ask_for_a_plain_context() {
    let Some(b) = hip() else { return };
    let mut c: CUcontext = null_mut();
    let mut affinity = [CUexecAffinityParam {
        type_: CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT,
        param: CUexecAffinityParam_st__bindgen_ty_1 {
            smCount: CUexecAffinitySmCount { val: 8 },
        },
    }];
    // SAFETY: local out-pointers and parameter structs; bad input is refused first.
    unsafe {
        let r_null = b.cuCtxCreate(&mut c, null_mut(), 0, 0);
        if r_null == CUresult::CUDA_SUCCESS {
            assert_eq!(b.cuCtxDestroy(c), CUresult::CUDA_SUCCESS);
        }
        for (n, ptr) in [(0, null_mut()), (0, affinity.as_mut_ptr())] {
            let mut p = CUctxCreateParams {
                execAffinityParams: ptr,
                numExecAffinityParams: n,
                cigParams: null_mut(),
            };
            let r = b.cuCtxCreate(&mut c, &mut p, 0, 0);
            assert_eq!(r, r_null, "a plain context asked for through parameters");
            if r == CUresult::CUDA_SUCCESS {
                assert_eq!(b.cuCtxDestroy(c), CUresult::CUDA_SUCCESS);
            }
        }
        let mut p = CUctxCreateParams {
            execAffinityParams: affinity.as_mut_ptr(),
            numExecAffinityParams: 1,
            cigParams: null_mut(),
        };
        assert_eq!(
            b.cuCtxCreate(&mut c, &mut p, 0, 0),
            CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY
        );
        p.execAffinityParams = null_mut();
        assert_eq!(
            b.cuCtxCreate(&mut c, &mut p, 0, 0),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[gpu_test(backend = "hip")]
fn on_a_gpu_ctx_create_with_plain_parameters_makes_a_current_context() {
    let Some(b) = hip() else { return };
    assert!(devices(&b) > 0, "no device");
    let mut c: CUcontext = null_mut();
    let mut p = CUctxCreateParams {
        execAffinityParams: null_mut(),
        numExecAffinityParams: 0,
        cigParams: null_mut(),
    };
    // SAFETY: local out-pointers and parameter structs.
    unsafe {
        assert_eq!(b.cuCtxCreate(&mut c, &mut p, 0, 0), CUresult::CUDA_SUCCESS);
        let mut cur: CUcontext = null_mut();
        assert_eq!(b.cuCtxGetCurrent(&mut cur), CUresult::CUDA_SUCCESS);
        assert_eq!(cur, c);
        assert_eq!(b.cuCtxDestroy(c), CUresult::CUDA_SUCCESS);
    }
}

// ------------------------------------------------------------------ AMD-faithful mode

/// hipRTC's output for `src` through the backend's NVRTC API (PTX with hipRTC's mark on HIP's
/// NVIDIA platform).
fn hiprtc_code(b: &HipBackend, src: &str) -> Vec<u8> {
    use anycuda_api::nvrtc::{nvrtcProgram, nvrtcResult};
    use anycuda_api::traits::Rtc;
    let src = std::ffi::CString::new(src).unwrap();
    let mut prog: nvrtcProgram = null_mut();
    // SAFETY: a NUL-terminated source, local out-pointers, a buffer of the size reported.
    unsafe {
        assert_eq!(
            b.nvrtcCreateProgram(&mut prog, src.as_ptr(), c"k.cu".as_ptr(), 0, null(), null()),
            nvrtcResult::NVRTC_SUCCESS
        );
        assert_eq!(
            b.nvrtcCompileProgram(prog, 0, null()),
            nvrtcResult::NVRTC_SUCCESS
        );
        let mut n = 0;
        assert_eq!(b.nvrtcGetPTXSize(prog, &mut n), nvrtcResult::NVRTC_SUCCESS);
        let mut code = vec![0u8; n];
        assert_eq!(
            b.nvrtcGetPTX(prog, code.as_mut_ptr().cast()),
            nvrtcResult::NVRTC_SUCCESS
        );
        assert_eq!(b.nvrtcDestroyProgram(&mut prog), nvrtcResult::NVRTC_SUCCESS);
        code
    }
}

/// Makes device 0's primary context current.
fn primary_context(b: &HipBackend) -> CUcontext {
    let mut c: CUcontext = null_mut();
    // SAFETY: local out-pointers.
    unsafe {
        assert_eq!(b.cuInit(0), CUresult::CUDA_SUCCESS);
        assert_eq!(
            b.cuDevicePrimaryCtxRetain(&mut c, 0),
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(b.cuCtxSetCurrent(c), CUresult::CUDA_SUCCESS);
    }
    c
}

const NVCC_PTX: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\
    .visible .entry k()\n{\n\tret;\n}\n\0";

/// On HIP's NVIDIA platform, by default: hipRTC's output loads, PTX from elsewhere is translated
/// and compiled by hipRTC as on AMD (an instruction the translator refuses fails the load), a
/// cubin is refused; with `ANYCUDA_HIP_AMD_FAITHFUL=0` the PTX loads natively.
#[gpu_test(platform = "nvidia")]
fn on_hips_nvidia_platform_only_what_amd_loads_loads() {
    let Some(b) = hip() else { return };
    if b.platform() != anycuda_hip::Platform::Nvidia {
        eprintln!("SKIP: not HIP's NVIDIA platform");
        return;
    }
    assert!(std::env::var_os(anycuda_hip::AMD_FAITHFUL_ENV).is_none());
    assert!(b.amd_faithful(), "on by default on HIP's NVIDIA platform");
    let _ctx = primary_context(&b);
    let code = hiprtc_code(
        &b,
        "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }",
    );
    assert!(anycuda_hip::is_hiprtc_output(&code[..code.len() - 1]));
    let mut m: CUmodule = null_mut();
    // SAFETY: NUL-terminated PTX texts, local out-pointers.
    unsafe {
        assert_eq!(
            b.cuModuleLoadData(&mut m, code.as_ptr().cast()),
            CUresult::CUDA_SUCCESS
        );
        let mut f: CUfunction = null_mut();
        assert_eq!(
            b.cuModuleGetFunction(&mut f, m, c"k".as_ptr()),
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(b.cuModuleUnload(m), CUresult::CUDA_SUCCESS);
        // nvcc's PTX is translated and compiled by hipRTC, as on AMD: it loads.
        assert_eq!(
            b.cuModuleLoadData(&mut m, NVCC_PTX.as_ptr().cast()),
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(b.cuModuleUnload(m), CUresult::CUDA_SUCCESS);
        // An instruction the translator refuses fails the load, named.
        let refused = NVCC_PTX.replace("ret;", "wgmma.fence.sync.aligned;\n\tret;");
        let r = b.cuModuleLoadData(&mut m, refused.as_ptr().cast());
        assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert!(anycuda_hip::not_supported_reason(r)
            .is_some_and(|w| w.contains("`wgmma.fence.sync.aligned`")));
        // A cubin stays refused, with the way out.
        let mut cubin = vec![0u8; 256];
        cubin[..4].copy_from_slice(b"\x7fELF");
        cubin[4] = 2;
        cubin[5] = 1;
        cubin[18..20].copy_from_slice(&anycuda_hip::EM_CUDA.to_le_bytes());
        let r = b.cuModuleLoadData(&mut m, cubin.as_ptr().cast());
        assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert!(anycuda_hip::not_supported_reason(r).is_some_and(|w| w.contains("PTX")));
    }
    // The switch, read when the backend loads.
    let off = {
        let _switch = anycuda_test::env::EnvVar::set(anycuda_hip::AMD_FAITHFUL_ENV, "0");
        HipBackend::load()
    };
    assert!(!off.amd_faithful());
    // SAFETY: a NUL-terminated PTX text, a local out-pointer.
    unsafe {
        assert_eq!(
            off.cuModuleLoadData(&mut m, NVCC_PTX.as_ptr().cast()),
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(off.cuModuleUnload(m), CUresult::CUDA_SUCCESS);
    }
}

/// Occupancy queries with a NULL count or a block size below 1 are invalid values before HIP
/// sees them: HIP's NVIDIA platform crashed on a block size of 0 (the C ABI's differential
/// fuzzer on an H200), where NVIDIA's libraries answer the invalid-value code.
#[test]
fn occupancy_queries_refuse_bad_block_sizes_before_hip() {
    let Some(b) = hip() else { return };
    let mut n: c_int = -7;
    for block in [0, -1, c_int::MIN] {
        // SAFETY: `n` is writable; the function handle is never read for these arguments.
        let r =
            unsafe { b.cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, null(), block, 0) };
        assert_eq!(
            r,
            cudaError_t::cudaErrorInvalidValue,
            "runtime, block {block}"
        );
        // SAFETY: as above.
        let r =
            unsafe { b.cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, null_mut(), block, 0) };
        assert_eq!(
            r,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            "driver, block {block}"
        );
    }
    // SAFETY: a NULL count is refused before anything is written.
    let r = unsafe { b.cudaOccupancyMaxActiveBlocksPerMultiprocessor(null_mut(), null(), 32, 0) };
    assert_eq!(r, cudaError_t::cudaErrorInvalidValue);
    assert_eq!(n, -7, "nothing written");
}

/// `cuGraphUpload` names an executable graph: NULL is an invalid value on every HIP, before HIP
/// is asked (where HIP has no `hipGraphUpload`, a named graph's upload succeeds: left to the first
/// launch; that needs a device).
#[test]
fn graph_upload_of_no_graph_is_an_invalid_value() {
    let Some(b) = hip() else { return };
    // SAFETY: NULL handles are refused before use.
    let r = unsafe { b.cuGraphUpload(null_mut(), null_mut()) };
    assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE);
    // SAFETY: as above.
    let r = unsafe { b.cudaGraphUpload(null_mut(), null_mut()) };
    assert_eq!(r, cudaError_t::cudaErrorInvalidValue);
}

/// Two `HipBackend`s in one process compile at the same time: hipRTC 5.2.3 is not thread-safe
/// for the whole library (two concurrent `hiprtcCompileProgram` calls corrupted the heap inside
/// comgr's LLVM when each backend had a lock of its own), so the backend serialises every hipRTC
/// call in the process. Without that lock this test aborted the process in one run of five (8
/// rounds each, 2-core CI machine); 16 rounds make that likelier.
#[test]
fn two_backends_compile_concurrently_without_corrupting_the_process() {
    use anycuda_api::nvrtc::nvrtcResult;
    use anycuda_api::traits::Rtc;
    let Some(first) = hip() else { return };
    let Some(second) = hip() else { return };
    let compile = |b: &HipBackend| {
        let src = c"extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }";
        let opts = [c"--gpu-architecture=gfx90a".as_ptr()];
        for _ in 0..16 {
            let mut prog = null_mut();
            // SAFETY: NUL-terminated strings, valid out-pointers, a program of this backend.
            unsafe {
                assert_eq!(
                    b.nvrtcCreateProgram(
                        &mut prog,
                        src.as_ptr(),
                        c"k.cu".as_ptr(),
                        0,
                        null(),
                        null()
                    ),
                    nvrtcResult::NVRTC_SUCCESS
                );
                assert_eq!(
                    b.nvrtcCompileProgram(prog, 1, opts.as_ptr()),
                    nvrtcResult::NVRTC_SUCCESS
                );
                assert_eq!(b.nvrtcDestroyProgram(&mut prog), nvrtcResult::NVRTC_SUCCESS);
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| compile(&first));
        s.spawn(|| compile(&second));
    });
}

/// `cuDeviceGetName` never hands HIP a NULL buffer or a length below 1 (NVIDIA's driver, behind
/// HIP's NVIDIA platform, crashed on length 0), on any device ordinal: a NULL buffer is an
/// invalid value; for a zero length the device is judged first: what a good buffer gets for that
/// ordinal when it is about the device (a bad ordinal, no device), else an invalid value.
#[test]
fn device_name_refuses_bad_buffers_first() {
    let Some(b) = hip() else { return };
    let mut buf = [0 as core::ffi::c_char; 8];
    for dev in [0, 1 << 20] {
        // SAFETY: a writable buffer of 8 bytes, or NULL / a zero length, never passed on.
        unsafe {
            let good = b.cuDeviceGetName(buf.as_mut_ptr(), 8, dev);
            let want = match good {
                CUresult::CUDA_ERROR_INVALID_DEVICE
                | CUresult::CUDA_ERROR_NOT_INITIALIZED
                | CUresult::CUDA_ERROR_NO_DEVICE => good,
                _ => CUresult::CUDA_ERROR_INVALID_VALUE,
            };
            assert_eq!(
                b.cuDeviceGetName(buf.as_mut_ptr(), 0, dev),
                want,
                "dev {dev}"
            );
            let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
            assert_eq!(b.cuDeviceGetName(null_mut(), 8, dev), invalid, "dev {dev}");
        }
    }
}
