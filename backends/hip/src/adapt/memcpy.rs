//! Copies described by structs: `CUDA_MEMCPY2D`, `CUDA_MEMCPY3D`, `cudaMemcpy3DParms`.
//!
//! AMD: the memory types are renumbered (`CUmemorytype` host 1 is `hipMemoryTypeHost` 0 in HIP
//! 5.x, 1 in 6.x; array 3 is 2 or 10) and HIP 5.2's `HIP_MEMCPY3D` has 32-bit fields and no
//! `reserved` pointers, so each descriptor is rebuilt on the stack, field by field.
//! HIP's NVIDIA platform: `hip_Memcpy2D` is `CUDA_MEMCPY2D`, `HIP_MEMCPY3D` is `CUDA_MEMCPY3D`
//! and `hipMemcpy3DParms` is `cudaMemcpy3DParms`, so the caller's struct goes through as is.

use super::context::cuCtxGetDevice_v2;
use super::support::{hip_fn, nvidia, pre_r0600, table, tri, INVALID_VALUE};
use crate::conv::memcpy::{
    memcpy2d_to_hip, memcpy2d_to_hip52, memcpy3d_parms_to_hip, memcpy3d_to_hip, memcpy3d_to_hip52,
    peer_to_3d,
};
use crate::conv::{devptr_to_hip, stream_to_hip};
use crate::hip_types::{hipMemcpy3DParms, hipStream_t, hip_Memcpy2D__hip5_2, HIP_MEMCPY3D__hip5_2};
use crate::HipBackend;
use anycuda_api::driver::{
    CUcontext, CUdevice, CUdeviceptr, CUresult, CUstream, CUDA_MEMCPY2D, CUDA_MEMCPY3D,
    CUDA_MEMCPY3D_PEER,
};
use anycuda_api::runtime::{cudaError_t, cudaMemcpy3DParms, cudaMemcpyKind, cudaStream_t};
use core::ffi::c_void;

/// Which 2D entry point.
#[derive(Clone, Copy)]
enum Copy2D {
    Sync,
    Async(hipStream_t),
    Unaligned,
}

/// Calls the 2D entry point `how` names, of one HIP layout (`$sync`, `$async_`, `$unaligned`),
/// with the descriptor `$p`. HIP's NVIDIA layer lacks the unaligned copy: the aligned one then
/// serves, which at worst refuses a pitch.
macro_rules! copy2d {
    ($b:expr, $how:expr, $p:expr, $sync:ident, $async_:ident, $unaligned:ident) => {
        match $how {
            Copy2D::Sync => hip_fn!($b, $sync)($p),
            Copy2D::Async(s) => hip_fn!($b, $async_)($p, s),
            Copy2D::Unaligned => match table::<CUresult>($b).ok().and_then(|t| t.$unaligned) {
                Some(f) => f($p),
                None => hip_fn!($b, $sync)($p),
            },
        }
    };
}

unsafe fn memcpy2d(b: &HipBackend, pCopy: *const CUDA_MEMCPY2D, how: Copy2D) -> CUresult {
    if pCopy.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-NULL descriptor from the caller (CUDA's contract).
    let c = unsafe { &*pCopy };
    let map = b.conv().CUmemorytype;
    if nvidia(b) {
        // `hip_Memcpy2D` is `CUDA_MEMCPY2D` there: the caller's struct goes through.
        let p = pCopy.cast::<hip_Memcpy2D__hip5_2>();
        // SAFETY: same struct on that platform.
        return b.cu(unsafe {
            copy2d!(
                b,
                how,
                p,
                hipMemcpyParam2D__hip5_2,
                hipMemcpyParam2DAsync__hip5_2,
                hipDrvMemcpy2DUnaligned__hip5_2
            )
        });
    }
    if pre_r0600(b) {
        let h = tri!(memcpy2d_to_hip52(map, c));
        // SAFETY: `h` lives on the stack for the call; pointers inside are the caller's.
        b.cu(unsafe {
            copy2d!(
                b,
                how,
                &h,
                hipMemcpyParam2D__hip5_2,
                hipMemcpyParam2DAsync__hip5_2,
                hipDrvMemcpy2DUnaligned__hip5_2
            )
        })
    } else {
        let h = tri!(memcpy2d_to_hip(map, c));
        // SAFETY: as above.
        b.cu(unsafe {
            copy2d!(
                b,
                how,
                &h,
                hipMemcpyParam2D,
                hipMemcpyParam2DAsync,
                hipDrvMemcpy2DUnaligned
            )
        })
    }
}

/// `cuMemcpy2D` → `hipMemcpyParam2D`, the descriptor rebuilt for HIP (memory types renumbered).
pub(crate) unsafe fn cuMemcpy2D(b: &HipBackend, pCopy: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memcpy2d(b, pCopy, Copy2D::Sync) }
}

/// `cuMemcpy2DAsync` → `hipMemcpyParam2DAsync`, descriptor rebuilt, `CU_STREAM_LEGACY`
/// translated.
pub(crate) unsafe fn cuMemcpy2DAsync(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY2D,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe {
        memcpy2d(
            b,
            pCopy,
            Copy2D::Async(stream_to_hip(b.platform(), hStream)),
        )
    }
}

/// `cuMemcpy2DUnaligned` → `hipDrvMemcpy2DUnaligned`, descriptor rebuilt; where the HIP library
/// lacks that entry point (HIP's NVIDIA layer), `hipMemcpyParam2D`, which may refuse a pitch the
/// unaligned copy accepts, with CUDA's error rather than a wrong copy.
pub(crate) unsafe fn cuMemcpy2DUnaligned(b: &HipBackend, pCopy: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memcpy2d(b, pCopy, Copy2D::Unaligned) }
}

unsafe fn memcpy3d(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D,
    s: Option<hipStream_t>,
) -> CUresult {
    if pCopy.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-NULL descriptor from the caller.
    let c = unsafe { &*pCopy };
    let map = b.conv().CUmemorytype;
    if nvidia(b) {
        // `HIP_MEMCPY3D` is `CUDA_MEMCPY3D` there (the 5.2 field type is only a placeholder).
        let p = pCopy.cast::<HIP_MEMCPY3D__hip5_2>();
        // SAFETY: same struct on that platform.
        return b.cu(unsafe {
            match s {
                None => hip_fn!(b, hipDrvMemcpy3D__hip5_2)(p),
                Some(s) => hip_fn!(b, hipDrvMemcpy3DAsync__hip5_2)(p, s),
            }
        });
    }
    if pre_r0600(b) {
        let h = match memcpy3d_to_hip52(map, c) {
            Ok(h) => h,
            Err(e) => return e,
        };
        // SAFETY: `h` lives for the call.
        b.cu(unsafe {
            match s {
                None => hip_fn!(b, hipDrvMemcpy3D__hip5_2)(&h),
                Some(s) => hip_fn!(b, hipDrvMemcpy3DAsync__hip5_2)(&h, s),
            }
        })
    } else {
        let h = match memcpy3d_to_hip(map, c) {
            Ok(h) => h,
            Err(e) => return e,
        };
        // SAFETY: `h` lives for the call.
        b.cu(unsafe {
            match s {
                None => hip_fn!(b, hipDrvMemcpy3D)(&h),
                Some(s) => hip_fn!(b, hipDrvMemcpy3DAsync)(&h, s),
            }
        })
    }
}

/// `cuMemcpy3D` → `hipDrvMemcpy3D`: descriptor rebuilt for the loaded HIP's layout (32-bit
/// fields before HIP 6, no `reserved` pointers), memory types renumbered.
pub(crate) unsafe fn cuMemcpy3D(b: &HipBackend, pCopy: *const CUDA_MEMCPY3D) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memcpy3d(b, pCopy, None) }
}

/// `cuMemcpy3DAsync` → `hipDrvMemcpy3DAsync`: as [`cuMemcpy3D`], `CU_STREAM_LEGACY` translated.
pub(crate) unsafe fn cuMemcpy3DAsync(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memcpy3d(b, pCopy, Some(stream_to_hip(b.platform(), hStream))) }
}

unsafe fn memcpy3d_rt(
    b: &HipBackend,
    p: *const cudaMemcpy3DParms,
    s: Option<hipStream_t>,
) -> cudaError_t {
    if p.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let c = unsafe { &*p };
    if c.kind.0 > cudaMemcpyKind::cudaMemcpyDefault.0
        && anycuda_api::CudaEnum::name(c.kind).is_none()
    {
        return cudaError_t::cudaErrorInvalidMemcpyDirection;
    }
    let h = if nvidia(b) {
        // `hipMemcpy3DParms` is `cudaMemcpy3DParms` there.
        // SAFETY: same struct on that platform.
        unsafe { *p.cast::<hipMemcpy3DParms>() }
    } else {
        match memcpy3d_parms_to_hip(b.conv().cudaMemcpyKind, c) {
            Ok(h) => h,
            Err(e) => return e,
        }
    };
    // SAFETY: `h` lives for the call; pointers inside are the caller's.
    let e = unsafe {
        match s {
            None => hip_fn!(b, hipMemcpy3D)(&h),
            Some(s) => hip_fn!(b, hipMemcpy3DAsync)(&h, s),
        }
    };
    b.rt(e)
}

/// `cudaMemcpy3D` → `hipMemcpy3D`: the parameters rebuilt with the kind through the table.
pub(crate) unsafe fn cudaMemcpy3D(b: &HipBackend, p: *const cudaMemcpy3DParms) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { memcpy3d_rt(b, p, None) }
}

/// `cudaMemcpy3DAsync` → `hipMemcpy3DAsync`: as [`cudaMemcpy3D`], `cudaStreamLegacy` translated.
pub(crate) unsafe fn cudaMemcpy3DAsync(
    b: &HipBackend,
    p: *const cudaMemcpy3DParms,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { memcpy3d_rt(b, p, Some(stream_to_hip(b.platform(), stream.cast()))) }
}

// ------------------------------------------------ pageable host memory in asynchronous copies

/// What anycuda must add to HIP's asynchronous 1D copies (`cuMemcpyHtoDAsync`,
/// `cuMemcpyDtoHAsync`, `cuMemcpyAsync`, `cudaMemcpyAsync`) when the host side is pageable, so
/// that they keep CUDA's contract: on return, a pageable source may be reused (it has been
/// copied or staged) and a pageable destination holds the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageableWait {
    /// Nothing: the loaded HIP keeps CUDA's contract itself.
    Nothing,
    /// Synchronise the copy's stream before returning when the host memory is pageable.
    SyncStream,
}

/// The rule for pageable host memory in asynchronous 1D copies, per platform and HIP release:
/// the one place that decides it, so raw, `core`, cudarc-facade and C-ABI users get the same
/// behaviour. Pure (`hip_version` is `hipRuntimeGetVersion`'s value).
///
/// Every release anycuda supports keeps CUDA's contract by itself, so the answer is
/// [`PageableWait::Nothing`] (overridable with [`PAGEABLE_WAIT_ENV`]) and no layer above waits (a wait costs a stream synchronisation:
/// 8.2 µs instead of 2.4 µs for a 4 KiB copy on an H100 through HIP's NVIDIA platform):
///
/// - HIP's NVIDIA platform: `hipMemcpyHtoDAsync`, `hipMemcpyDtoHAsync` and `hipMemcpyAsync`
///   are inline wrappers of `cuMemcpyHtoDAsync`, `cuMemcpyDtoHAsync` and `cudaMemcpyAsync`
///   (`hip/nvidia_detail/nvidia_hip_runtime_api.h`, HIP 5.2.3), so CUDA's own semantics apply:
///   a pageable source is staged before the call returns, and a copy into pageable memory
///   returns once complete.
/// - AMD, ROCm 5.0 to 6.2 (`ihipMemcpy` in hipamd `src/hip_memory.cpp`, clr
///   `hipamd/src/hip_memory.cpp`): when either side is host memory HIP does not know (no
///   `amd::Memory` object: pageable), `isAsync`/`isHostAsync` is forced to false and the call
///   waits for the copy (`awaitCompletion`, later `queue()->finish()`); the header documents
///   it for `hipMemcpyAsync`: "If host or dest are not pinned, the memory copy will be
///   performed synchronously" (HIP 5.2.3 to 7.x).
/// - AMD, ROCm 6.3 and later (clr commit 29cc678, SWDEV-483586, "Unblock staging H2D
///   transfers"): a pageable host-to-device copy up to the staging size, with direct dispatch
///   (the Linux default), returns once the source has been copied into HIP's pinned staging
///   buffer (CUDA's exact behaviour); device-to-host still waits. Since 2025 the wait is kept
///   "in the lower copy layers" and the top level skips it only under direct dispatch.
///
/// Not covered: 2D/3D copies (`cuMemcpy2DAsync`, `cuMemcpy3DAsync`) with pageable host memory;
/// AMD's `ihipMemcpyParam3D` enqueues them without that wait, which is safe under direct
/// dispatch (staged in the calling thread) but not with `AMD_DIRECT_DISPATCH=0`.
pub fn pageable_copy_needs_wait(platform: crate::Platform, hip_version: i32) -> PageableWait {
    match platform {
        crate::Platform::Nvidia => PageableWait::Nothing,
        // ROCm 5.0 (50_000_000) onwards: see above. Older releases are not supported by
        // anycuda; they had the same forced synchronous path.
        crate::Platform::Amd => {
            let _ = hip_version;
            PageableWait::Nothing
        }
    }
}

/// The environment variable that overrides [`pageable_copy_needs_wait`]: `1`/`sync` makes every
/// asynchronous 1D copy with a host side wait for its stream before returning (for a HIP
/// release that breaks the contract, and to measure what the wait costs); `0`/`none` never
/// waits. Read once, when the backend loads.
pub const PAGEABLE_WAIT_ENV: &str = "ANYCUDA_HIP_PAGEABLE_WAIT";

/// The rule in force: the override's value (see [`PAGEABLE_WAIT_ENV`]) if it is one, else
/// [`pageable_copy_needs_wait`]. Pure.
pub fn pageable_rule(
    platform: crate::Platform,
    hip_version: i32,
    env_override: Option<&str>,
) -> PageableWait {
    match env_override
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("1" | "sync" | "yes" | "true") => PageableWait::SyncStream,
        Some("0" | "none" | "no" | "false") => PageableWait::Nothing,
        Some(other) => {
            log::warn!("{PAGEABLE_WAIT_ENV}={other:?} is not 0/1/none/sync: ignored");
            pageable_copy_needs_wait(platform, hip_version)
        }
        None => pageable_copy_needs_wait(platform, hip_version),
    }
}

/// After an asynchronous copy with a host side was queued: waits for `stream` when the rule in
/// force says so (never by default; see [`pageable_copy_needs_wait`]). With the wait forced it
/// applies to pinned memory too: asking HIP whether memory is pageable would set HIP's sticky
/// last error for pageable memory, which `cudaGetLastError` would then report.
#[inline]
fn after_host_copy(
    b: &HipBackend,
    e: crate::hip_types::hipError_t,
    stream: hipStream_t,
) -> crate::hip_types::hipError_t {
    if e != super::support::HIP_SUCCESS || b.pageable_wait() == PageableWait::Nothing {
        return e;
    }
    wait_for(b, stream)
}

#[cold]
fn wait_for(b: &HipBackend, stream: hipStream_t) -> crate::hip_types::hipError_t {
    match b.native_hip().and_then(|t| t.hipStreamSynchronize) {
        // SAFETY: the stream the copy was just queued on (valid: HIP accepted it).
        Some(f) => unsafe { f(stream) },
        None => super::support::HIP_SUCCESS,
    }
}

/// `cuMemcpyHtoDAsync` → `hipMemcpyHtoDAsync`; legacy stream handle translated; the pageable
/// rule ([`pageable_copy_needs_wait`]) applied.
pub(crate) unsafe fn cuMemcpyHtoDAsync(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    srcHost: *const c_void,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpyHtoDAsync);
    let s = stream_to_hip(b.platform(), hStream);
    // SAFETY: caller's pointers and stream; HIP validates them.
    let e = unsafe { f(devptr_to_hip(dstDevice), srcHost.cast_mut(), ByteCount, s) };
    b.cu(after_host_copy(b, e, s))
}

/// `cuMemcpyDtoHAsync` → `hipMemcpyDtoHAsync`; legacy stream handle translated; the pageable
/// rule ([`pageable_copy_needs_wait`]) applied.
pub(crate) unsafe fn cuMemcpyDtoHAsync(
    b: &HipBackend,
    dstHost: *mut c_void,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpyDtoHAsync);
    let s = stream_to_hip(b.platform(), hStream);
    // SAFETY: caller's pointers and stream; HIP validates them.
    let e = unsafe { f(dstHost, devptr_to_hip(srcDevice), ByteCount, s) };
    b.cu(after_host_copy(b, e, s))
}

/// `cudaMemcpyAsync` → `hipMemcpyAsync`: the kind through the table (an unknown one is
/// `cudaErrorInvalidMemcpyDirection`), `cudaStreamLegacy` translated; the pageable rule
/// ([`pageable_copy_needs_wait`]) applied to copies with a host side (host-to-device,
/// device-to-host, and `cudaMemcpyDefault`, whose sides HIP infers).
pub(crate) unsafe fn cudaMemcpyAsync(
    b: &HipBackend,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: cudaMemcpyKind,
    stream: cudaStream_t,
) -> cudaError_t {
    let f = hip_fn!(b, hipMemcpyAsync);
    let Ok(h_kind) = crate::conv::enum_arg(b.conv().cudaMemcpyKind, kind) else {
        return cudaError_t::cudaErrorInvalidMemcpyDirection;
    };
    let s = stream_to_hip(b.platform(), stream.cast());
    // SAFETY: caller's pointers and stream; HIP validates them.
    let e = unsafe { f(dst, src, count, h_kind as _, s) };
    let host_side = matches!(
        kind,
        cudaMemcpyKind::cudaMemcpyHostToDevice
            | cudaMemcpyKind::cudaMemcpyDeviceToHost
            | cudaMemcpyKind::cudaMemcpyDefault
    );
    if host_side {
        b.rt(after_host_copy(b, e, s))
    } else {
        b.rt(e)
    }
}

// ------------------------------------------------------------ plain and peer copies (Driver)

/// `hipMemcpyDefault` (4 in every HIP version, and `cudaMemcpyDefault` on HIP's NVIDIA
/// platform): the direction is inferred from the pointers, as CUDA's unified addressing does.
const HIP_MEMCPY_DEFAULT: u32 = 4;

/// `cuMemcpy` → `hipMemcpy` with kind Default (CUDA's unified-addressing copy has no kind).
pub(crate) unsafe fn cuMemcpy(
    b: &HipBackend,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpy);
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe {
        f(
            devptr_to_hip(dst),
            devptr_to_hip(src),
            ByteCount,
            HIP_MEMCPY_DEFAULT as _,
        )
    })
}

/// `cuMemcpyAsync` → `hipMemcpyAsync` with kind Default; legacy stream handle translated; the
/// pageable rule ([`pageable_copy_needs_wait`]) applied.
pub(crate) unsafe fn cuMemcpyAsync(
    b: &HipBackend,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpyAsync);
    let s = stream_to_hip(b.platform(), hStream);
    // SAFETY: caller's pointers and stream; HIP validates them.
    let e = unsafe {
        f(
            devptr_to_hip(dst),
            devptr_to_hip(src),
            ByteCount,
            HIP_MEMCPY_DEFAULT as _,
            s,
        )
    };
    // Either side may be pageable host memory (unified addressing): the pageable rule.
    b.cu(after_host_copy(b, e, s))
}

/// The device of a peer-copy context (NULL is not a context here, as on CUDA).
unsafe fn ctx_device(b: &HipBackend, ctx: CUcontext) -> Result<CUdevice, CUresult> {
    if ctx.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
    }
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer; the context adaptation validates the handle.
    let e = unsafe { cuCtxGetDevice_v2(b, &mut dev, ctx) };
    if e != CUresult::CUDA_SUCCESS {
        return Err(e);
    }
    Ok(dev)
}

/// `cuMemcpyPeer` → `hipMemcpyPeer`: CUDA names contexts, HIP device ordinals, so each
/// context is mapped to its device (through anycuda's context bookkeeping on AMD).
pub(crate) unsafe fn cuMemcpyPeer(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpyPeer);
    // SAFETY: forwarded contract.
    let dd = tri!(unsafe { ctx_device(b, dstContext) });
    // SAFETY: forwarded contract.
    let sd = tri!(unsafe { ctx_device(b, srcContext) });
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe {
        f(
            devptr_to_hip(dstDevice),
            dd,
            devptr_to_hip(srcDevice),
            sd,
            ByteCount,
        )
    })
}

/// `cuMemcpyPeerAsync` → `hipMemcpyPeerAsync`: contexts mapped to devices, legacy stream
/// handle translated.
pub(crate) unsafe fn cuMemcpyPeerAsync(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = hip_fn!(b, hipMemcpyPeerAsync);
    // SAFETY: forwarded contract.
    let dd = tri!(unsafe { ctx_device(b, dstContext) });
    // SAFETY: forwarded contract.
    let sd = tri!(unsafe { ctx_device(b, srcContext) });
    let s = stream_to_hip(b.platform(), hStream);
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe {
        f(
            devptr_to_hip(dstDevice),
            dd,
            devptr_to_hip(srcDevice),
            sd,
            ByteCount,
            s,
        )
    })
}

unsafe fn peer3d(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D_PEER,
    s: Option<CUstream>,
) -> CUresult {
    if pCopy.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL descriptor from the caller.
    let p = unsafe { &*pCopy };
    // The contexts must be valid, as CUDA checks them (NULL allowed for host memory).
    for ctx in [p.srcContext, p.dstContext] {
        if !ctx.is_null() {
            // SAFETY: forwarded contract.
            tri!(unsafe { ctx_device(b, ctx) });
        }
    }
    let c = peer_to_3d(p);
    // SAFETY: `c` lives for the call.
    unsafe {
        match s {
            None => cuMemcpy3D(b, &c),
            Some(s) => cuMemcpy3DAsync(b, &c, s),
        }
    }
}

/// `cuMemcpy3DPeer`: rebuilt as the `CUDA_MEMCPY3D` it describes (contexts validated, then
/// unified addressing identifies the memory) and copied like `cuMemcpy3D`.
pub(crate) unsafe fn cuMemcpy3DPeer(b: &HipBackend, pCopy: *const CUDA_MEMCPY3D_PEER) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { peer3d(b, pCopy, None) }
}

/// `cuMemcpy3DPeerAsync`: as `cuMemcpy3DPeer`, on a stream.
pub(crate) unsafe fn cuMemcpy3DPeerAsync(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D_PEER,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { peer3d(b, pCopy, Some(hStream)) }
}
