//! Texture references (deprecated in CUDA, still served): address and filter modes (their
//! translations: `conv::texture`), and the 1D linear texture width; mipmapped arrays, texture
//! objects and surface objects of both APIs, their descriptors rebuilt for the loaded HIP
//! release (`conv::texture`).

use super::support::{
    hip_fn, nvidia, table, tri, unavailable, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED,
};
use crate::conv::texture::{
    address_mode_to_cuda, address_mode_to_hip, array3d_desc_to_hip, array_flags_to_hip,
    channel_desc, filter_mode_to_cuda, filter_mode_to_hip, resource_desc_from_hip52,
    resource_desc_to_cuda, resource_desc_to_hip, resource_desc_to_hip52, resource_desc_to_runtime,
    rt_channel_desc_to_hip, rt_resource_desc_from_hip52, rt_resource_desc_to_cuda,
    rt_resource_desc_to_hip, rt_resource_desc_to_hip52, rt_texture_desc_to_cuda,
    rt_texture_desc_to_hip, rt_view_desc_to_cuda, rt_view_desc_to_hip, texture_desc_to_cuda,
    texture_desc_to_hip, view_desc_to_cuda, view_desc_to_hip,
};
use crate::conv::{ApiResult, Refusal};
use crate::generated::table::HipTable;
use crate::hip_types::{
    hipChannelFormatDesc, hipError_t, hipExtent, hipResourceDesc, hipResourceDesc__hip5_2,
    hipResourceViewDesc, hipSurfaceObject_t, hipTextureDesc, hipTextureFilterMode,
    hipTextureObject_t, textureReference, HIP_RESOURCE_DESC__hip5_2, HIP_ARRAY3D_DESCRIPTOR,
    HIP_RESOURCE_DESC, HIP_RESOURCE_VIEW_DESC, HIP_TEXTURE_DESC,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUaddress_mode, CUarray, CUarray_format, CUdevice, CUfilter_mode, CUmipmappedArray,
    CUresourcetype, CUresult, CUsurfObject, CUtexObject, CUtexref, CUDA_ARRAY3D_DESCRIPTOR,
    CUDA_RESOURCE_DESC, CUDA_RESOURCE_VIEW_DESC, CUDA_TEXTURE_DESC,
};
use anycuda_api::runtime::{
    cudaArray_t, cudaChannelFormatDesc, cudaError_t, cudaExtent, cudaMipmappedArray_const_t,
    cudaMipmappedArray_t, cudaResourceDesc, cudaResourceType, cudaResourceViewDesc,
    cudaSurfaceObject_t, cudaTextureDesc, cudaTextureObject_t,
};
use core::ffi::{c_int, c_uint, c_void, CStr};

fn tex(t: CUtexref) -> *mut textureReference {
    t.cast()
}

/// `cuTexRefSetAddressMode` → `hipTexRefSetAddressMode`: the mode translated; `dim` 0..=2.
pub(crate) unsafe fn cuTexRefSetAddressMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    dim: c_int,
    am: CUaddress_mode,
) -> CUresult {
    if hTexRef.is_null() || !(0..3).contains(&dim) {
        return INVALID_VALUE;
    }
    let m = tri!(address_mode_to_hip(b.conv().CUaddress_mode, am));
    let f = hip_fn!(b, hipTexRefSetAddressMode);
    // SAFETY: caller's texture reference.
    b.cu(unsafe { f(tex(hTexRef), dim, m as _) })
}

/// `cuTexRefGetAddressMode` → `hipTexRefGetAddressMode`: the mode translated back.
pub(crate) unsafe fn cuTexRefGetAddressMode(
    b: &HipBackend,
    pam: *mut CUaddress_mode,
    hTexRef: CUtexref,
    dim: c_int,
) -> CUresult {
    if pam.is_null() || hTexRef.is_null() || !(0..3).contains(&dim) {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexRefGetAddressMode);
    let mut m = 0;
    // SAFETY: valid out-pointer, caller's texture reference.
    let e = unsafe { f(&mut m, tex(hTexRef), dim) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pam = address_mode_to_cuda(b.conv().CUaddress_mode, m) };
    }
    b.cu(e)
}

/// A HIP setter of a texture reference's filter mode (plain or mipmap: one signature).
type SetFilter = unsafe extern "C" fn(*mut textureReference, hipTextureFilterMode) -> hipError_t;
/// A HIP getter of a texture reference's filter mode (plain or mipmap: one signature).
type GetFilter =
    unsafe extern "C" fn(*mut hipTextureFilterMode, *const textureReference) -> hipError_t;

/// The entry point `pick` chooses from the loaded HIP, or the Driver's code for its absence.
fn entry<F>(b: &HipBackend, pick: fn(&HipTable) -> Option<F>) -> Result<F, CUresult> {
    let t = table::<CUresult>(b)?;
    pick(t).ok_or_else(|| unavailable(true))
}

/// The one rule of both filter-mode setters: the mode translated, set through `pick`'s setter.
///
/// # Safety
/// `hTexRef` is NULL or the caller's texture reference.
unsafe fn set_filter(
    b: &HipBackend,
    hTexRef: CUtexref,
    fm: CUfilter_mode,
    pick: fn(&HipTable) -> Option<SetFilter>,
) -> CUresult {
    if hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let m = tri!(filter_mode_to_hip(b.conv().CUfilter_mode, fm));
    let f = tri!(entry(b, pick));
    // SAFETY: caller's texture reference.
    b.cu(unsafe { f(tex(hTexRef), m as _) })
}

/// The one rule of both filter-mode getters: read through `pick`'s getter, translated back.
///
/// # Safety
/// `pfm` is NULL or valid for one write; `hTexRef` is NULL or the caller's texture reference.
unsafe fn get_filter(
    b: &HipBackend,
    pfm: *mut CUfilter_mode,
    hTexRef: CUtexref,
    pick: fn(&HipTable) -> Option<GetFilter>,
) -> CUresult {
    if pfm.is_null() || hTexRef.is_null() {
        return INVALID_VALUE;
    }
    let f = tri!(entry(b, pick));
    let mut m = 0;
    // SAFETY: valid out-pointer, caller's texture reference.
    let e = unsafe { f(&mut m, tex(hTexRef)) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pfm = filter_mode_to_cuda(b.conv().CUfilter_mode, m) };
    }
    b.cu(e)
}

/// `cuTexRefSetFilterMode` → `hipTexRefSetFilterMode`: the mode translated.
pub(crate) unsafe fn cuTexRefSetFilterMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    fm: CUfilter_mode,
) -> CUresult {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_filter(b, hTexRef, fm, |t| t.hipTexRefSetFilterMode) }
}

/// `cuTexRefGetFilterMode` → `hipTexRefGetFilterMode`: the mode translated back.
pub(crate) unsafe fn cuTexRefGetFilterMode(
    b: &HipBackend,
    pfm: *mut CUfilter_mode,
    hTexRef: CUtexref,
) -> CUresult {
    // SAFETY: the caller's contract, passed on.
    unsafe { get_filter(b, pfm, hTexRef, |t| t.hipTexRefGetFilterMode) }
}

/// `cuTexRefSetMipmapFilterMode` → `hipTexRefSetMipmapFilterMode`: the mode translated.
pub(crate) unsafe fn cuTexRefSetMipmapFilterMode(
    b: &HipBackend,
    hTexRef: CUtexref,
    fm: CUfilter_mode,
) -> CUresult {
    // SAFETY: the caller's contract, passed on.
    unsafe { set_filter(b, hTexRef, fm, |t| t.hipTexRefSetMipmapFilterMode) }
}

/// `cuTexRefGetMipmapFilterMode` → `hipTexRefGetMipmapFilterMode`: translated back.
pub(crate) unsafe fn cuTexRefGetMipmapFilterMode(
    b: &HipBackend,
    pfm: *mut CUfilter_mode,
    hTexRef: CUtexref,
) -> CUresult {
    // SAFETY: the caller's contract, passed on.
    unsafe { get_filter(b, pfm, hTexRef, |t| t.hipTexRefGetMipmapFilterMode) }
}

/// `cuDeviceGetTexture1DLinearMaxWidth` → `hipDeviceGetTexture1DLinearMaxWidth`: CUDA's
/// format and channel count become HIP's channel descriptor (HIP 7.0+; not supported before).
pub(crate) unsafe fn cuDeviceGetTexture1DLinearMaxWidth(
    b: &HipBackend,
    maxWidthInElements: *mut usize,
    format: CUarray_format,
    numChannels: c_uint,
    dev: CUdevice,
) -> CUresult {
    if maxWidthInElements.is_null() {
        return INVALID_VALUE;
    }
    let d = tri!(channel_desc(format, numChannels));
    // Only HIP 7.0+ declares it with this ABI (6.4's declaration has another signature).
    if b.hip_abi_version() < 70_051_831 {
        return NOT_SUPPORTED;
    }
    let f = hip_fn!(b, hipDeviceGetTexture1DLinearMaxWidth);
    // SAFETY: valid pointers; HIP validates the device.
    b.cu(unsafe { f(maxWidthInElements, &d, dev) })
}

// ------------------------------------------------------------ mipmapped arrays, texture and
// surface objects
//
// HIP 5.2 has every call these need, with older declarations: its resource descriptor's
// mipmapped-array handle points to another type (the `__hip5_2` entry points of the table), so
// the generated forwarding refuses them below 6.2. Here the descriptors are rebuilt for the HIP
// release actually loaded (`conv::texture`), and the matching entry point is called. On HIP's
// NVIDIA platform (built from HIP 5.2.3's headers, so its entry points are the `__hip5_2` ones)
// HIP's structs are CUDA's: the Driver's for the `hipTexObject*`/`hipMipmappedArray*` calls,
// the Runtime's for `hipCreateTextureObject`/`hipCreateSurfaceObject`; CUDA's go through as is.

/// HIP 6.2.41134 in `hipRuntimeGetVersion`'s encoding: the first release whose mipmap and
/// texture-object declarations the table's plain (not `__hip5_2`) fields hold.
const HIP_6_2: i32 = 60_241_134;

/// Whether the loaded HIP takes 6.2's declarations (else 5.2's: ROCm 5.x and HIP's NVIDIA
/// platform).
fn hip62(b: &HipBackend) -> bool {
    b.hip_abi_version() >= HIP_6_2
}

/// Calls the entry point the loaded HIP's declarations name: `$new` (HIP 6.2+) or `$old`
/// (`__hip5_2`), as `|f| call`; returns the API's not-supported code (or no-library code) when
/// the loaded HIP lacks it. The call is written once and type-checked against each signature;
/// the `// SAFETY:` comment above each use says why its call is sound.
macro_rules! per_release {
    ($b:expr, $R:ty, $new:ident, $old:ident, |$f:ident| $call:expr) => {{
        let t = tri!(table::<$R>($b));
        if hip62($b) {
            let Some($f) = t.$new else {
                return <$R as ApiResult>::NOT_SUPPORTED;
            };
            // SAFETY: stated at the use (the arguments' validity for either declaration).
            unsafe { $call }
        } else {
            let Some($f) = t.$old else {
                return <$R as ApiResult>::NOT_SUPPORTED;
            };
            // SAFETY: stated at the use (the arguments' validity for either declaration).
            unsafe { $call }
        }
    }};
}

/// `cuMipmappedArrayCreate` → `hipMipmappedArrayCreate` (HIP 6.2+, or 5.2's declaration): the
/// descriptor rebuilt with its format and flags in HIP's words (on HIP's NVIDIA platform, where
/// HIP's descriptor is CUDA's, copied as is).
pub(crate) unsafe fn cuMipmappedArrayCreate(
    b: &HipBackend,
    pHandle: *mut CUmipmappedArray,
    pMipmappedArrayDesc: *const CUDA_ARRAY3D_DESCRIPTOR,
    numMipmapLevels: c_uint,
) -> CUresult {
    if pHandle.is_null() || pMipmappedArrayDesc.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL; CUDA's contract makes it a readable descriptor.
    let d = unsafe { &*pMipmappedArrayDesc };
    // HIP declares the descriptor mutable, so it always gets anycuda's own copy.
    let mut h = if nvidia(b) {
        HIP_ARRAY3D_DESCRIPTOR {
            Width: d.Width,
            Height: d.Height,
            Depth: d.Depth,
            Format: d.Format.0,
            NumChannels: d.NumChannels,
            Flags: d.Flags,
        }
    } else {
        tri!(array3d_desc_to_hip(b.conv(), d).map_err(CUresult::from))
    };
    // SAFETY: valid out-pointer (the handle types are both pointers) and a local descriptor.
    let e = per_release!(
        b,
        CUresult,
        hipMipmappedArrayCreate,
        hipMipmappedArrayCreate__hip5_2,
        |f| f(pHandle.cast(), &mut h, numMipmapLevels)
    );
    b.cu(e)
}

/// `cuMipmappedArrayDestroy` → `hipMipmappedArrayDestroy` (HIP 6.2+, or 5.2's declaration); a
/// NULL handle is invalid (never given to HIP).
pub(crate) unsafe fn cuMipmappedArrayDestroy(
    b: &HipBackend,
    hMipmappedArray: CUmipmappedArray,
) -> CUresult {
    if hMipmappedArray.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's handle.
    let e = per_release!(
        b,
        CUresult,
        hipMipmappedArrayDestroy,
        hipMipmappedArrayDestroy__hip5_2,
        |f| f(hMipmappedArray.cast())
    );
    b.cu(e)
}

/// `cuMipmappedArrayGetLevel` → `hipMipmappedArrayGetLevel` (HIP 6.2+, or 5.2's
/// declaration); a NULL out-pointer or handle is invalid.
pub(crate) unsafe fn cuMipmappedArrayGetLevel(
    b: &HipBackend,
    pLevelArray: *mut CUarray,
    hMipmappedArray: CUmipmappedArray,
    level: c_uint,
) -> CUresult {
    if pLevelArray.is_null() || hMipmappedArray.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: valid out-pointer (array handles are pointers on both sides), caller's handle.
    let e = per_release!(
        b,
        CUresult,
        hipMipmappedArrayGetLevel,
        hipMipmappedArrayGetLevel__hip5_2,
        |f| f(pLevelArray.cast(), hMipmappedArray.cast(), level)
    );
    b.cu(e)
}

/// `cuTexRefSetMipmappedArray` → `hipTexRefSetMipmappedArray` (HIP 6.2+, or 5.2's
/// declaration): only the handle's declared type differs.
pub(crate) unsafe fn cuTexRefSetMipmappedArray(
    b: &HipBackend,
    hTexRef: CUtexref,
    hMipmappedArray: CUmipmappedArray,
    Flags: c_uint,
) -> CUresult {
    if hTexRef.is_null() || hMipmappedArray.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's texture reference and mipmapped array.
    let e = per_release!(
        b,
        CUresult,
        hipTexRefSetMipmappedArray,
        hipTexRefSetMipmappedArray__hip5_2,
        |f| f(tex(hTexRef), hMipmappedArray.cast(), Flags)
    );
    b.cu(e)
}

/// `cuTexObjectCreate` → `hipTexObjectCreate` (HIP 6.2+, or 5.2's declaration): resource,
/// texture and view descriptors rebuilt in the loaded HIP's layout with every enum in HIP's
/// words (on HIP's NVIDIA platform CUDA's descriptors go through). The view is optional, as in
/// CUDA.
pub(crate) unsafe fn cuTexObjectCreate(
    b: &HipBackend,
    pTexObject: *mut CUtexObject,
    pResDesc: *const CUDA_RESOURCE_DESC,
    pTexDesc: *const CUDA_TEXTURE_DESC,
    pResViewDesc: *const CUDA_RESOURCE_VIEW_DESC,
) -> CUresult {
    if pTexObject.is_null() || pResDesc.is_null() || pTexDesc.is_null() {
        return INVALID_VALUE;
    }
    let out = pTexObject.cast::<hipTextureObject_t>();
    if nvidia(b) {
        // SAFETY: CUDA's own descriptors for the NVIDIA platform's CUDA-typed declarations.
        let e = per_release!(
            b,
            CUresult,
            hipTexObjectCreate,
            hipTexObjectCreate__hip5_2,
            |f| f(out, pResDesc.cast(), pTexDesc.cast(), pResViewDesc.cast())
        );
        return b.cu(e);
    }
    let t = b.conv();
    // SAFETY: non-NULL; CUDA's contract makes them readable descriptors.
    let (r, tx) = unsafe { (&*pResDesc, &*pTexDesc) };
    let r = tri!(resource_desc_to_hip(t, r).map_err(CUresult::from));
    let tx = tri!(texture_desc_to_hip(t, tx).map_err(CUresult::from));
    // SAFETY: NULL or CUDA's readable view descriptor.
    let v = match unsafe { pResViewDesc.as_ref() } {
        Some(v) => Some(tri!(view_desc_to_hip(t, v).map_err(CUresult::from))),
        None => None,
    };
    let vp = v
        .as_ref()
        .map_or(core::ptr::null(), |v| v as *const HIP_RESOURCE_VIEW_DESC);
    let t = tri!(table::<CUresult>(b));
    // SAFETY: local descriptors living for the call; valid out-pointer.
    let e = unsafe {
        match (hip62(b), t.hipTexObjectCreate, t.hipTexObjectCreate__hip5_2) {
            (true, Some(f), _) => f(out, &r, &tx, vp),
            (false, _, Some(f)) => f(out, &resource_desc_to_hip52(&r), &tx, vp),
            _ => return NOT_SUPPORTED,
        }
    };
    b.cu(e)
}

/// `cuTexObjectGetResourceDesc` → `hipTexObjectGetResourceDesc` (HIP 6.2+, or 5.2's
/// declaration): HIP's descriptor read back into CUDA's words (NVIDIA platform: CUDA's struct
/// filled directly).
pub(crate) unsafe fn cuTexObjectGetResourceDesc(
    b: &HipBackend,
    pResDesc: *mut CUDA_RESOURCE_DESC,
    texObject: CUtexObject,
) -> CUresult {
    if pResDesc.is_null() || texObject == 0 {
        return INVALID_VALUE;
    }
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        let e = per_release!(
            b,
            CUresult,
            hipTexObjectGetResourceDesc,
            hipTexObjectGetResourceDesc__hip5_2,
            |f| f(pResDesc.cast(), o)
        );
        return b.cu(e);
    }
    let t = tri!(table::<CUresult>(b));
    // SAFETY: zeroed plain-data out-structs filled by HIP; caller's object.
    let (e, h) = unsafe {
        match (
            hip62(b),
            t.hipTexObjectGetResourceDesc,
            t.hipTexObjectGetResourceDesc__hip5_2,
        ) {
            (true, Some(f), _) => {
                let mut h: HIP_RESOURCE_DESC = core::mem::zeroed();
                (f(&mut h, o), h)
            }
            (false, _, Some(f)) => {
                let mut h: HIP_RESOURCE_DESC__hip5_2 = core::mem::zeroed();
                (f(&mut h, o), resource_desc_from_hip52(&h))
            }
            _ => return NOT_SUPPORTED,
        }
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pResDesc.write(resource_desc_to_cuda(b.conv(), &h)) };
    }
    b.cu(e)
}

/// `cuTexObjectGetTextureDesc` → `hipTexObjectGetTextureDesc`: modes and flags read back into
/// CUDA's words (NVIDIA platform: CUDA's struct filled directly).
pub(crate) unsafe fn cuTexObjectGetTextureDesc(
    b: &HipBackend,
    pTexDesc: *mut CUDA_TEXTURE_DESC,
    texObject: CUtexObject,
) -> CUresult {
    if pTexDesc.is_null() || texObject == 0 {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexObjectGetTextureDesc);
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        return b.cu(unsafe { f(pTexDesc.cast(), o) });
    }
    // SAFETY: zeroed plain-data out-struct filled by HIP; caller's object.
    let (e, h) = unsafe {
        let mut h: HIP_TEXTURE_DESC = core::mem::zeroed();
        (f(&mut h, o), h)
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pTexDesc.write(texture_desc_to_cuda(b.conv(), &h)) };
    }
    b.cu(e)
}

/// `cuTexObjectGetResourceViewDesc` → `hipTexObjectGetResourceViewDesc`: the format read back
/// into CUDA's words (NVIDIA platform: CUDA's struct filled directly).
pub(crate) unsafe fn cuTexObjectGetResourceViewDesc(
    b: &HipBackend,
    pResViewDesc: *mut CUDA_RESOURCE_VIEW_DESC,
    texObject: CUtexObject,
) -> CUresult {
    if pResViewDesc.is_null() || texObject == 0 {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipTexObjectGetResourceViewDesc);
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        return b.cu(unsafe { f(pResViewDesc.cast(), o) });
    }
    // SAFETY: zeroed plain-data out-struct filled by HIP; caller's object.
    let (e, h) = unsafe {
        let mut h: HIP_RESOURCE_VIEW_DESC = core::mem::zeroed();
        (f(&mut h, o), h)
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pResViewDesc.write(view_desc_to_cuda(b.conv(), &h)) };
    }
    b.cu(e)
}

/// `cuSurfObjectCreate` → `hipCreateSurfaceObject` (HIP has no `hipSurfObjectCreate`; its one
/// surface call takes the Runtime's descriptor): CUDA's Driver descriptor in the Runtime's
/// words, then as `cudaCreateSurfaceObject`.
pub(crate) unsafe fn cuSurfObjectCreate(
    b: &HipBackend,
    pSurfObject: *mut CUsurfObject,
    pResDesc: *const CUDA_RESOURCE_DESC,
) -> CUresult {
    if pSurfObject.is_null() || pResDesc.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL; CUDA's contract makes it a readable descriptor.
    let d = unsafe { &*pResDesc };
    // Surfaces are made from arrays only (CUDA answers invalid value for other resources).
    if d.resType != CUresourcetype::CU_RESOURCE_TYPE_ARRAY {
        return INVALID_VALUE;
    }
    let r = tri!(resource_desc_to_runtime(d).map_err(CUresult::from));
    // SAFETY: valid out-pointer (a 64-bit handle on both sides); a local descriptor.
    unsafe { create_surface(b, pSurfObject.cast(), &r) }
}

/// `cudaCreateSurfaceObject` → `hipCreateSurfaceObject`: the descriptor rebuilt as HIP's
/// (which has no `flags`); NVIDIA platform: CUDA's struct as is.
pub(crate) unsafe fn cudaCreateSurfaceObject(
    b: &HipBackend,
    pSurfObject: *mut cudaSurfaceObject_t,
    pResDesc: *const cudaResourceDesc,
) -> cudaError_t {
    if pSurfObject.is_null() || pResDesc.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL; CUDA's contract makes it a readable descriptor; valid out-pointer.
    unsafe { create_surface(b, pSurfObject.cast(), &*pResDesc) }
}

/// The surface rule for both APIs: only array resources (CUDA's rule, checked before HIP sees
/// the descriptor), the descriptor in HIP's words on AMD and as is on HIP's NVIDIA platform.
///
/// # Safety
/// `out` is a writable handle slot.
unsafe fn create_surface<R: ApiResult>(
    b: &HipBackend,
    out: *mut hipSurfaceObject_t,
    d: &cudaResourceDesc,
) -> R {
    if d.resType != cudaResourceType::cudaResourceTypeArray {
        return Refusal::InvalidValue.into();
    }
    let Some(f) = surface_fn(b, |t| t.hipCreateSurfaceObject, CREATE_SURFACE_CXX) else {
        return unavailable(b.native_hip().is_some());
    };
    if nvidia(b) {
        // SAFETY: there `hipResourceDesc` is CUDA's `cudaResourceDesc`; valid out-pointer.
        return R::from_hip(b.conv(), unsafe {
            f(out, (d as *const cudaResourceDesc).cast())
        });
    }
    let h = match rt_resource_desc_to_hip(b.conv(), d) {
        Ok(h) => h,
        Err(r) => return r.into(),
    };
    // An array resource has the same bytes in HIP 5.2's and 6.2's `hipResourceDesc`, and the
    // table declares `hipCreateSurfaceObject` once, so `h` serves every release.
    // SAFETY: a local descriptor living for the call; valid out-pointer.
    R::from_hip(b.conv(), unsafe { f(out, &h) })
}

/// HIP 5.2's `hipCreateSurfaceObject`, which ROCm 5.2 exports with C++ linkage only (its
/// header declares it outside `extern "C"`; ROCm 5.7 and 6.x export the C name, and so does
/// HIP's NVIDIA platform as anycuda builds it).
const CREATE_SURFACE_CXX: &CStr = c"_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc";
/// HIP 5.2's `hipDestroySurfaceObject`, C++ linkage as [`CREATE_SURFACE_CXX`].
const DESTROY_SURFACE_CXX: &CStr = c"_Z23hipDestroySurfaceObjectP13__hip_surface";

/// A surface entry point: the table's (C linkage), else the C++-linkage symbol `cxx` of HIP 5.2
/// looked up by name. The lookup runs only on ROCm 5.2, only for surface creation and
/// destruction (no hot path), which is why it is not cached in the table.
fn surface_fn<F: Copy>(
    b: &HipBackend,
    from_table: impl FnOnce(&HipTable) -> Option<F>,
    cxx: &CStr,
) -> Option<F> {
    let l = b.hip.as_ref().ok()?;
    if let Some(f) = from_table(&l.table) {
        return Some(f);
    }
    let p = l.sym(cxx);
    if p.is_null() || core::mem::size_of::<F>() != core::mem::size_of::<*mut c_void>() {
        return None;
    }
    // SAFETY: `F` is the table's field type for the same function, a C function pointer (size
    // checked); HIP 5.2 declares it with the same parameters (pointers, a handle) and result,
    // and C++ linkage changes only the symbol's name, not the calling convention on x86-64 and
    // AArch64.
    Some(unsafe { core::mem::transmute_copy::<*mut c_void, F>(&p) })
}

/// The destroy rule for both APIs: a 0 handle is invalid (never given to HIP), else
/// `hipDestroySurfaceObject`.
fn destroy_surface<R: ApiResult>(b: &HipBackend, s: u64) -> R {
    if s == 0 {
        return Refusal::InvalidValue.into();
    }
    let Some(f) = surface_fn(b, |t| t.hipDestroySurfaceObject, DESTROY_SURFACE_CXX) else {
        return unavailable(b.native_hip().is_some());
    };
    // SAFETY: the caller's surface object (a 64-bit handle on both sides).
    R::from_hip(b.conv(), unsafe { f(s as usize as hipSurfaceObject_t) })
}

/// `cuSurfObjectDestroy` → `hipDestroySurfaceObject` (HIP has no `hipSurfObjectDestroy`).
pub(crate) unsafe fn cuSurfObjectDestroy(b: &HipBackend, surfObject: CUsurfObject) -> CUresult {
    destroy_surface(b, surfObject)
}

/// `cudaDestroySurfaceObject` → `hipDestroySurfaceObject` (found under its C++ name on ROCm
/// 5.2).
pub(crate) unsafe fn cudaDestroySurfaceObject(
    b: &HipBackend,
    surfObject: cudaSurfaceObject_t,
) -> cudaError_t {
    destroy_surface(b, surfObject)
}

/// `cudaCreateTextureObject` → `hipCreateTextureObject` (HIP 6.2+, or 5.2's declaration):
/// HIP's smaller structs rebuilt (resource without `flags`, texture without the trilinear hint,
/// view without reserved words), enums through the tables; NVIDIA platform: CUDA's structs.
pub(crate) unsafe fn cudaCreateTextureObject(
    b: &HipBackend,
    pTexObject: *mut cudaTextureObject_t,
    pResDesc: *const cudaResourceDesc,
    pTexDesc: *const cudaTextureDesc,
    pResViewDesc: *const cudaResourceViewDesc,
) -> cudaError_t {
    if pTexObject.is_null() || pResDesc.is_null() || pTexDesc.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let out = pTexObject.cast::<hipTextureObject_t>();
    if nvidia(b) {
        // SAFETY: CUDA's own structs for the NVIDIA platform's CUDA-typed declarations.
        let e = per_release!(
            b,
            cudaError_t,
            hipCreateTextureObject,
            hipCreateTextureObject__hip5_2,
            |f| f(out, pResDesc.cast(), pTexDesc.cast(), pResViewDesc.cast())
        );
        return b.rt(e);
    }
    let t = b.conv();
    // SAFETY: non-NULL; CUDA's contract makes them readable descriptors.
    let (r, tx) = unsafe { (&*pResDesc, &*pTexDesc) };
    let r = tri!(rt_resource_desc_to_hip(t, r).map_err(cudaError_t::from));
    let tx = tri!(rt_texture_desc_to_hip(t, tx).map_err(cudaError_t::from));
    // SAFETY: NULL or CUDA's readable view descriptor.
    let v = match unsafe { pResViewDesc.as_ref() } {
        Some(v) => Some(tri!(rt_view_desc_to_hip(t, v).map_err(cudaError_t::from))),
        None => None,
    };
    let vp = v
        .as_ref()
        .map_or(core::ptr::null(), |v| v as *const hipResourceViewDesc);
    let t = tri!(table::<cudaError_t>(b));
    // SAFETY: local structs living for the call; valid out-pointer.
    let e = unsafe {
        match (
            hip62(b),
            t.hipCreateTextureObject,
            t.hipCreateTextureObject__hip5_2,
        ) {
            (true, Some(f), _) => f(out, &r, &tx, vp),
            (false, _, Some(f)) => f(out, &rt_resource_desc_to_hip52(&r), &tx, vp),
            _ => return cudaError_t::cudaErrorNotSupported,
        }
    };
    b.rt(e)
}

/// `cudaGetTextureObjectResourceDesc` → `hipGetTextureObjectResourceDesc` (HIP 6.2+, or 5.2's
/// declaration): HIP's struct read back into the Runtime's (NVIDIA platform: filled directly).
pub(crate) unsafe fn cudaGetTextureObjectResourceDesc(
    b: &HipBackend,
    pResDesc: *mut cudaResourceDesc,
    texObject: cudaTextureObject_t,
) -> cudaError_t {
    if pResDesc.is_null() || texObject == 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        let e = per_release!(
            b,
            cudaError_t,
            hipGetTextureObjectResourceDesc,
            hipGetTextureObjectResourceDesc__hip5_2,
            |f| f(pResDesc.cast(), o)
        );
        return b.rt(e);
    }
    let t = tri!(table::<cudaError_t>(b));
    // SAFETY: zeroed plain-data out-structs filled by HIP; caller's object.
    let (e, h) = unsafe {
        match (
            hip62(b),
            t.hipGetTextureObjectResourceDesc,
            t.hipGetTextureObjectResourceDesc__hip5_2,
        ) {
            (true, Some(f), _) => {
                let mut h: hipResourceDesc = core::mem::zeroed();
                (f(&mut h, o), h)
            }
            (false, _, Some(f)) => {
                let mut h: hipResourceDesc__hip5_2 = core::mem::zeroed();
                (f(&mut h, o), rt_resource_desc_from_hip52(&h))
            }
            _ => return cudaError_t::cudaErrorNotSupported,
        }
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pResDesc.write(rt_resource_desc_to_cuda(b.conv(), &h)) };
    }
    b.rt(e)
}

/// `cudaGetTextureObjectTextureDesc` → `hipGetTextureObjectTextureDesc`: HIP's smaller struct
/// read back into the Runtime's (NVIDIA platform: filled directly).
pub(crate) unsafe fn cudaGetTextureObjectTextureDesc(
    b: &HipBackend,
    pTexDesc: *mut cudaTextureDesc,
    texObject: cudaTextureObject_t,
) -> cudaError_t {
    if pTexDesc.is_null() || texObject == 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let f = hip_fn!(b, hipGetTextureObjectTextureDesc);
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        return b.rt(unsafe { f(pTexDesc.cast(), o) });
    }
    // SAFETY: zeroed plain-data out-struct filled by HIP; caller's object.
    let (e, h) = unsafe {
        let mut h: hipTextureDesc = core::mem::zeroed();
        (f(&mut h, o), h)
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pTexDesc.write(rt_texture_desc_to_cuda(b.conv(), &h)) };
    }
    b.rt(e)
}

/// `cudaGetTextureObjectResourceViewDesc` → `hipGetTextureObjectResourceViewDesc`: HIP's
/// struct (no reserved words) read back into the Runtime's (NVIDIA platform: filled directly).
pub(crate) unsafe fn cudaGetTextureObjectResourceViewDesc(
    b: &HipBackend,
    pResViewDesc: *mut cudaResourceViewDesc,
    texObject: cudaTextureObject_t,
) -> cudaError_t {
    if pResViewDesc.is_null() || texObject == 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let f = hip_fn!(b, hipGetTextureObjectResourceViewDesc);
    let o = texObject as usize as hipTextureObject_t;
    if nvidia(b) {
        // SAFETY: the caller's writable CUDA struct is HIP's there; caller's object.
        return b.rt(unsafe { f(pResViewDesc.cast(), o) });
    }
    // SAFETY: zeroed plain-data out-struct filled by HIP; caller's object.
    let (e, h) = unsafe {
        let mut h: hipResourceViewDesc = core::mem::zeroed();
        (f(&mut h, o), h)
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { pResViewDesc.write(rt_view_desc_to_cuda(b.conv(), &h)) };
    }
    b.rt(e)
}

/// `cudaMallocMipmappedArray` → `hipMallocMipmappedArray` (HIP 6.2+, or 5.2's declaration):
/// the channel kind through the table and the flags through the array-flag rule (NVIDIA
/// platform: CUDA's descriptor as is).
pub(crate) unsafe fn cudaMallocMipmappedArray(
    b: &HipBackend,
    mipmappedArray: *mut cudaMipmappedArray_t,
    desc: *const cudaChannelFormatDesc,
    extent: cudaExtent,
    numLevels: c_uint,
    flags: c_uint,
) -> cudaError_t {
    if mipmappedArray.is_null() || desc.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL; CUDA's contract makes it readable.
    let d = unsafe { &*desc };
    let (h, flags) = if nvidia(b) {
        (
            hipChannelFormatDesc {
                x: d.x,
                y: d.y,
                z: d.z,
                w: d.w,
                f: d.f.0,
            },
            flags,
        )
    } else {
        (
            tri!(rt_channel_desc_to_hip(b.conv(), d).map_err(cudaError_t::from)),
            tri!(array_flags_to_hip(flags).map_err(cudaError_t::from)),
        )
    };
    let x = hipExtent {
        width: extent.width,
        height: extent.height,
        depth: extent.depth,
    };
    // SAFETY: valid out-pointer (handles are pointers on both sides); a local descriptor.
    let e = per_release!(
        b,
        cudaError_t,
        hipMallocMipmappedArray,
        hipMallocMipmappedArray__hip5_2,
        |f| f(mipmappedArray.cast(), &h, x, numLevels, flags)
    );
    b.rt(e)
}

/// `cudaFreeMipmappedArray` → `hipFreeMipmappedArray` (HIP 6.2+, or 5.2's declaration); a NULL
/// handle is invalid (never given to HIP).
pub(crate) unsafe fn cudaFreeMipmappedArray(
    b: &HipBackend,
    mipmappedArray: cudaMipmappedArray_t,
) -> cudaError_t {
    if mipmappedArray.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: the caller's handle.
    let e = per_release!(
        b,
        cudaError_t,
        hipFreeMipmappedArray,
        hipFreeMipmappedArray__hip5_2,
        |f| f(mipmappedArray.cast())
    );
    b.rt(e)
}

/// `cudaGetMipmappedArrayLevel` → `hipGetMipmappedArrayLevel` (HIP 6.2+, or 5.2's
/// declaration); a NULL out-pointer or handle is invalid.
pub(crate) unsafe fn cudaGetMipmappedArrayLevel(
    b: &HipBackend,
    levelArray: *mut cudaArray_t,
    mipmappedArray: cudaMipmappedArray_const_t,
    level: c_uint,
) -> cudaError_t {
    if levelArray.is_null() || mipmappedArray.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: valid out-pointer (array handles are pointers on both sides); caller's handle.
    let e = per_release!(
        b,
        cudaError_t,
        hipGetMipmappedArrayLevel,
        hipGetMipmappedArrayLevel__hip5_2,
        |f| f(levelArray.cast(), mipmappedArray.cast(), level)
    );
    b.rt(e)
}
