//! The raw CUDA Driver API (`cu*`) under cudarc's `sys` names: anycuda's [`anycuda::driver`],
//! dispatched to the active backend (CUDA or HIP), with CUDA's signatures and numeric values.
//!
//! One difference from cudarc's bindgen output: C enums are `#[repr(transparent)]` newtypes
//! with associated consts (`CUresult::CUDA_ERROR_INVALID_VALUE`), not Rust enums. Paths, `==`
//! and `match` on the constants work the same, but a `match` needs a `_` arm, `as` casts do not
//! compile (use `.0`), and flag types do not implement `|` (build `Type(a.0 | b.0)`). The enums
//! code is known to match exhaustively are cudarc-shaped here: [`CUfunc_cache`].

#![allow(non_camel_case_types, non_snake_case)]

pub use anycuda::driver::*;

// ---- Enums cudarc exposes as Rust enums that code matches exhaustively ----------------------
// anycuda's newtypes cannot be matched without a wildcard arm, so these few are cudarc-shaped
// enums here, with the functions that take them wrapped (the value is checked, never
// transmuted: an unknown code from the driver is CUDA_ERROR_INVALID_VALUE, not UB).

/// Cache preference (cudarc's Rust enum; matches exhaustively).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUfunc_cache_enum {
    /// No preference.
    CU_FUNC_CACHE_PREFER_NONE = 0,
    /// Prefer larger shared memory.
    CU_FUNC_CACHE_PREFER_SHARED = 1,
    /// Prefer larger L1 cache.
    CU_FUNC_CACHE_PREFER_L1 = 2,
    /// Equal L1 and shared memory.
    CU_FUNC_CACHE_PREFER_EQUAL = 3,
}
/// Cache preference (cudarc's name).
pub type CUfunc_cache = CUfunc_cache_enum;

impl From<CUfunc_cache_enum> for anycuda::driver::CUfunc_cache {
    fn from(v: CUfunc_cache_enum) -> Self {
        anycuda::driver::CUfunc_cache(v as u32)
    }
}

impl TryFrom<anycuda::driver::CUfunc_cache> for CUfunc_cache_enum {
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
    let r = unsafe { anycuda::driver::cuCtxGetCacheConfig(&mut raw) };
    if r != CUresult::CUDA_SUCCESS {
        return r;
    }
    match CUfunc_cache::try_from(raw) {
        Ok(v) => {
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
    unsafe { anycuda::driver::cuCtxSetCacheConfig(config.into()) }
}

/// `cuFuncSetCacheConfig` with cudarc's enum.
///
/// # Safety
/// `hfunc` is a live function.
pub unsafe fn cuFuncSetCacheConfig(hfunc: CUfunction, config: CUfunc_cache) -> CUresult {
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
    unsafe { anycuda::driver::cuKernelSetCacheConfig(kernel, config.into(), dev) }
}
