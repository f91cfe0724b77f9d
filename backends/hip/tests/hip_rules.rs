//! The HIP behaviour rules that live in this backend, so that every layer above gets them:
//! NVIDIA module formats refused on AMD with advice, and the pageable-copy rule. Live calls
//! against the installed HIP (CI: Debian's ROCm 5.2.3, AMD platform, no GPU): the refusals
//! happen before HIP is called, so they are exact even without a device.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::traits::Driver;
use anycuda_hip::{
    image_kind, not_supported_reason, pageable_copy_needs_wait, pageable_rule, ImageKind,
    PageableWait, Platform,
};
use core::ptr::null_mut;

mod common;
use common::hip;

const PTX: &str = "//\n.version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k()\n{\n\tret;\n}\n\0";

fn elf(machine: u16) -> Vec<u8> {
    let mut v = vec![0u8; 256];
    v[..4].copy_from_slice(b"\x7fELF");
    v[4] = 2; // 64-bit
    v[5] = 1; // little-endian
    v[18..20].copy_from_slice(&machine.to_le_bytes());
    v
}

fn assert_refused(r: CUresult, what: &str) {
    assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED, "{what}: {r:?}");
    let why = not_supported_reason(r).expect("a reason is recorded");
    assert!(
        why.contains("AMD")
            && why.contains("NVRTC")
            && why.contains(what.split(',').next().unwrap()),
        "{what}: {why}"
    );
}

#[test]
fn nvidia_formats_refused_on_amd_with_advice() {
    let Some(b) = hip() else { return };
    if !b.amd_faithful() {
        // AMD, and HIP's NVIDIA platform in AMD-faithful mode (its default), refuse them.
        eprintln!("SKIP: ANYCUDA_HIP_AMD_FAITHFUL=0: HIP's NVIDIA platform loads NVIDIA's formats");
        return;
    }
    let mut m: CUmodule = null_mut();
    let cubin = elf(anycuda_hip::EM_CUDA);
    let fatbin = [
        0x50u8, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    // PTX is translated for AMD; with a device it loads, without one (CI) the load needs the
    // device's target. PTX the translator refuses fails with the instruction named.
    let translated = if b.current_arch().is_some() {
        CUresult::CUDA_SUCCESS
    } else {
        CUresult::CUDA_ERROR_NO_DEVICE
    };
    let refused = PTX.replace("\tret;", "\ttcgen05.fence::before_thread_sync;\n\tret;");
    // SAFETY: valid out-pointer; NUL-terminated text or images of at least 20 bytes.
    unsafe {
        assert_eq!(b.cuModuleLoadData(&mut m, PTX.as_ptr().cast()), translated);
        assert_refused_ptx(b.cuModuleLoadData(&mut m, refused.as_ptr().cast()), "PTX");
        assert_refused(b.cuModuleLoadData(&mut m, cubin.as_ptr().cast()), "cubin");
        assert_refused(
            b.cuModuleLoadData(&mut m, fatbin.as_ptr().cast()),
            "fat binary",
        );
        assert_refused_ptx(
            b.cuModuleLoadDataEx(&mut m, refused.as_ptr().cast(), 0, null_mut(), null_mut()),
            "PTX, Ex",
        );
        assert_refused(
            b.cuModuleLoadFatBinary(&mut m, fatbin.as_ptr().cast()),
            "fat binary, FatBinary",
        );
        // A short text is read only up to its NUL: empty PTX is malformed.
        assert_eq!(
            b.cuModuleLoadData(&mut m, c"".as_ptr().cast()),
            CUresult::CUDA_ERROR_INVALID_PTX
        );
    }
    if translated != CUresult::CUDA_SUCCESS {
        assert!(m.is_null(), "no module on refusal");
    }
    // A file of PTX the same way (its first bytes are judged).
    let dir = std::env::temp_dir().join(format!("anycuda-hip-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("k.ptx");
    std::fs::write(&f, &refused[..refused.len() - 1]).unwrap();
    let name = std::ffi::CString::new(f.to_str().unwrap()).unwrap();
    // SAFETY: valid out-pointer, NUL-terminated name.
    assert_refused_ptx(unsafe { b.cuModuleLoad(&mut m, name.as_ptr()) }, "PTX file");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PTX module the translator refuses: not supported, the instruction and its line named.
fn assert_refused_ptx(r: CUresult, what: &str) {
    assert_eq!(r, CUresult::CUDA_ERROR_NOT_SUPPORTED, "{what}: {r:?}");
    let why = not_supported_reason(r).expect("a reason is recorded");
    assert!(
        why.contains("`tcgen05.fence::before_thread_sync`") && why.contains("line 7"),
        "{what}: {why}"
    );
}

#[test]
fn amd_images_reach_hip() {
    let Some(b) = hip() else { return };
    let mut m: CUmodule = null_mut();
    let obj = elf(anycuda_hip::EM_AMDGPU);
    // SAFETY: valid out-pointer; a 256-byte (truncated) image: HIP refuses it, never anycuda.
    let r = unsafe { b.cuModuleLoadData(&mut m, obj.as_ptr().cast()) };
    assert_ne!(r, CUresult::CUDA_SUCCESS);
    assert_ne!(
        r,
        CUresult::CUDA_ERROR_NOT_SUPPORTED,
        "an AMD code object is HIP's to judge"
    );
    // Argument checks come first, as on CUDA.
    // SAFETY: NULL pointers are refused before any read.
    unsafe {
        assert_eq!(
            b.cuModuleLoadData(null_mut(), obj.as_ptr().cast()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cuModuleLoadData(&mut m, core::ptr::null()),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn image_kinds() {
    assert_eq!(image_kind(PTX.as_bytes()), ImageKind::Text);
    assert_eq!(image_kind(&elf(190)), ImageKind::NvidiaCubin);
    assert_eq!(image_kind(&elf(224)), ImageKind::AmdCodeObject);
}

/// Every supported release keeps CUDA's pageable-copy contract itself (see the rule's doc in
/// `adapt/memcpy.rs`), so no layer waits: a change of this table is a deliberate decision.
#[test]
fn pageable_rule_per_release() {
    for v in [50_221_151, 50_731_921, 60_243_483, 60_443_483, 70_051_831] {
        assert_eq!(
            pageable_copy_needs_wait(Platform::Amd, v),
            PageableWait::Nothing,
            "{v}"
        );
    }
    // HIP's NVIDIA platform reports the CUDA version.
    for v in [12_080, 13_000] {
        assert_eq!(
            pageable_copy_needs_wait(Platform::Nvidia, v),
            PageableWait::Nothing
        );
    }
    if let Some(b) = hip() {
        assert_eq!(
            pageable_copy_needs_wait(b.platform(), b.hip_version()),
            PageableWait::Nothing
        );
    }
}

/// `ANYCUDA_HIP_PAGEABLE_WAIT` overrides the table (read once at load); anything else is ignored.
#[test]
fn pageable_override() {
    let v = 50_221_151;
    for on in ["1", "sync", " SYNC ", "true"] {
        assert_eq!(
            pageable_rule(Platform::Amd, v, Some(on)),
            PageableWait::SyncStream,
            "{on:?}"
        );
    }
    for off in ["0", "none", "false"] {
        assert_eq!(
            pageable_rule(Platform::Nvidia, 12_080, Some(off)),
            PageableWait::Nothing
        );
    }
    assert_eq!(
        pageable_rule(Platform::Amd, v, Some("maybe")),
        pageable_copy_needs_wait(Platform::Amd, v)
    );
    assert_eq!(
        pageable_rule(Platform::Amd, v, None),
        pageable_copy_needs_wait(Platform::Amd, v)
    );
    if let Some(b) = hip() {
        let env = std::env::var(anycuda_hip::PAGEABLE_WAIT_ENV).ok();
        assert_eq!(
            b.pageable_wait(),
            pageable_rule(b.platform(), b.hip_version(), env.as_deref())
        );
    }
}

/// The adapted copies keep CUDA's argument handling without a device: an unknown
/// `cudaMemcpyKind` is an invalid direction, and nothing crashes with the wait forced or not.
#[test]
fn adapted_copies_without_a_device() {
    let Some(b) = hip() else { return };
    use anycuda_api::runtime::{cudaError_t, cudaMemcpyKind};
    use anycuda_api::traits::Runtime;
    let mut host = [0u8; 16];
    // SAFETY: a 16-byte host buffer; HIP reports the missing device before touching memory.
    unsafe {
        assert_eq!(
            b.cudaMemcpyAsync(
                host.as_mut_ptr().cast(),
                host.as_ptr().cast(),
                16,
                cudaMemcpyKind(77),
                null_mut()
            ),
            cudaError_t::cudaErrorInvalidMemcpyDirection
        );
        let r = b.cuMemcpyHtoDAsync(0x1000, host.as_ptr().cast(), 16, null_mut());
        assert_ne!(r, CUresult::CUDA_SUCCESS);
        let r = b.cuMemcpyDtoHAsync(host.as_mut_ptr().cast(), 0x1000, 16, null_mut());
        assert_ne!(r, CUresult::CUDA_SUCCESS);
    }
}
