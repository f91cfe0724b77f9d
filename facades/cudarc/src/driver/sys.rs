//! The raw CUDA Driver API (`cu*`) under cudarc's `sys` names: anycuda's [`anycuda::driver`],
//! dispatched to the active backend (CUDA or HIP), with CUDA's signatures and numeric values.
//!
//! One difference from cudarc's bindgen output: C enums are `#[repr(transparent)]` newtypes
//! with associated consts (`CUresult::CUDA_ERROR_INVALID_VALUE`), not Rust enums. Paths, `==`
//! and `match` on the constants work the same, but a `match` needs a `_` arm, `as` casts do not
//! compile (use `.0`), and most flag types do not implement `|` (build `Type(a.0 | b.0)`). The enums
//! code is known to match exhaustively are cudarc-shaped here: [`CUfunc_cache`]; and
//! [`CUgraphInstantiate_flags`] is cudarc's bit field with `|`, as in cudarc.

#![allow(non_camel_case_types, non_snake_case)]

pub use anycuda::driver::*;

// ---- Enums cudarc exposes as Rust enums that code matches exhaustively ----------------------
// anycuda's newtypes cannot be matched without a wildcard arm, so these few are cudarc-shaped
// enums here, with the functions that take them wrapped (the value is checked, never
// transmuted: an unknown code from the driver is CUDA_ERROR_INVALID_VALUE, not UB).

/// Cache preference (cudarc's Rust enum; matches exhaustively).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUfunc_cache {
    /// No preference.
    CU_FUNC_CACHE_PREFER_NONE = 0,
    /// Prefer larger shared memory.
    CU_FUNC_CACHE_PREFER_SHARED = 1,
    /// Prefer larger L1 cache.
    CU_FUNC_CACHE_PREFER_L1 = 2,
    /// Equal L1 and shared memory.
    CU_FUNC_CACHE_PREFER_EQUAL = 3,
}
/// Cache preference (the C enum's name).
pub type CUfunc_cache_enum = CUfunc_cache;

impl From<CUfunc_cache> for anycuda::driver::CUfunc_cache {
    fn from(v: CUfunc_cache) -> Self {
        anycuda::driver::CUfunc_cache(v as u32)
    }
}

impl TryFrom<anycuda::driver::CUfunc_cache> for CUfunc_cache {
    type Error = CUresult;
    fn try_from(v: anycuda::driver::CUfunc_cache) -> Result<Self, CUresult> {
        Ok(match v.0 {
            0 => Self::CU_FUNC_CACHE_PREFER_NONE,
            1 => Self::CU_FUNC_CACHE_PREFER_SHARED,
            2 => Self::CU_FUNC_CACHE_PREFER_L1,
            3 => Self::CU_FUNC_CACHE_PREFER_EQUAL,
            _ => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
        })
    }
}

/// `cuCtxGetCacheConfig` with cudarc's enum.
///
/// # Safety
/// `pconfig` is valid for a write.
pub unsafe fn cuCtxGetCacheConfig(pconfig: *mut CUfunc_cache) -> CUresult {
    if pconfig.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let mut raw = anycuda::driver::CUfunc_cache(0);
    // SAFETY: `raw` is a local `CUfunc_cache`, writable for the one value the driver stores.
    let r = unsafe { anycuda::driver::cuCtxGetCacheConfig(&mut raw) };
    if r != CUresult::CUDA_SUCCESS {
        return r;
    }
    match CUfunc_cache::try_from(raw) {
        Ok(v) => {
            // SAFETY: `pconfig` is not null (checked above) and valid for a write: this fn's `#
            // Safety`.
            unsafe { pconfig.write(v) };
            CUresult::CUDA_SUCCESS
        }
        Err(e) => e,
    }
}

/// `cuCtxSetCacheConfig` with cudarc's enum.
///
/// # Safety
/// As CUDA's (none beyond a current context).
pub unsafe fn cuCtxSetCacheConfig(config: CUfunc_cache) -> CUresult {
    // SAFETY: `cuCtxSetCacheConfig` takes a value, no pointers; the caller's contract (a current
    // context) is CUDA's.
    unsafe { anycuda::driver::cuCtxSetCacheConfig(config.into()) }
}

/// `cuFuncSetCacheConfig` with cudarc's enum.
///
/// # Safety
/// `hfunc` is a live function.
pub unsafe fn cuFuncSetCacheConfig(hfunc: CUfunction, config: CUfunc_cache) -> CUresult {
    // SAFETY: `hfunc` is a live function: this fn's `# Safety`.
    unsafe { anycuda::driver::cuFuncSetCacheConfig(hfunc, config.into()) }
}

/// `cuKernelSetCacheConfig` with cudarc's enum.
///
/// # Safety
/// `kernel` is a live kernel.
pub unsafe fn cuKernelSetCacheConfig(
    kernel: CUkernel,
    config: CUfunc_cache,
    dev: CUdevice,
) -> CUresult {
    // SAFETY: `kernel` is a live kernel: this fn's `# Safety`; `dev` is a value the driver checks.
    unsafe { anycuda::driver::cuKernelSetCacheConfig(kernel, config.into(), dev) }
}

/// Graph instantiation flags, a bit field as in cudarc (combine with `|`). No anycuda function
/// takes this type (`cuGraphInstantiateWithFlags` takes the integer), so it can be cudarc's.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CUgraphInstantiate_flags(pub core::ffi::c_uint);
/// Graph instantiation flags (the C enum's name). The struct carries the other name so that
/// `CUgraphInstantiate_flags(0)` builds this type, not the glob-imported one.
pub type CUgraphInstantiate_flags_enum = CUgraphInstantiate_flags;

impl CUgraphInstantiate_flags {
    /// Free memory allocated in the graph before relaunching it.
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH: Self = Self(
        anycuda::driver::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
            .0,
    );
    /// Upload the graph as part of instantiation.
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: Self =
        Self(anycuda::driver::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD.0);
    /// Instantiate for launch from the device.
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: Self = Self(
        anycuda::driver::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH.0,
    );
    /// Launch nodes in priority order.
    pub const CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY: Self = Self(
        anycuda::driver::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY.0,
    );
}

impl core::ops::BitOr for CUgraphInstantiate_flags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}
impl core::ops::BitOrAssign for CUgraphInstantiate_flags {
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}
impl core::ops::BitAnd for CUgraphInstantiate_flags {
    type Output = Self;
    fn bitand(self, rhs: Self) -> Self {
        Self(self.0 & rhs.0)
    }
}
impl core::ops::BitAndAssign for CUgraphInstantiate_flags {
    fn bitand_assign(&mut self, rhs: Self) {
        self.0 &= rhs.0;
    }
}
