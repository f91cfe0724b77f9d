//! Hand-written adaptations: CUDA functions whose HIP counterpart differs in more than type
//! names, enum values and flags (descriptor structs with other layouts, launch `extra` markers,
//! context-stack semantics, device properties, pointer attributes).
//!
//! The generated `serve.rs` calls `crate::adapt::<cuda name>(backend, <CUDA arguments>)` for every
//! name listed in `codegen/hip-adapted.txt`; everything else is forwarded mechanically. Each
//! function here has exactly the CUDA C parameters and return type, and a doc line saying what it
//! does beyond plain forwarding.
//!
//! Two platforms matter:
//! - AMD (ROCm 5.2 to 7.x): HIP's own values and layouts, per version (`__hip5_2` types before
//!   6.0).
//! - HIP's NVIDIA platform (`Platform::Nvidia`, HIP 5.2.3 `nvidia_detail` headers over CUDA):
//!   there several HIP types *are* CUDA types (`hip_Memcpy2D` is `CUDA_MEMCPY2D`, `HIP_MEMCPY3D`
//!   is `CUDA_MEMCPY3D`, `hipMemcpy3DParms` is `cudaMemcpy3DParms`, `hipPointer_attribute` is
//!   `CUpointer_attribute`, `HIP_LAUNCH_PARAM_END` is `CU_LAUNCH_PARAM_END`, context flags are
//!   CUDA's), so CUDA values and structs go through unchanged, while `hipDeviceProp_t`,
//!   `hipPointerAttribute_t`, `hipMemoryType` and `hipError_t` keep HIP 5.2.3's.
//!
//! Rules kept by every function: CUDA's cheap validation first (NULL out-pointer or descriptor →
//! `CUDA_ERROR_INVALID_VALUE`, an enum value outside CUDA's set → invalid value, a CUDA request
//! HIP cannot express → not supported), no panics, no heap allocation on the launch and copy
//! paths, HIP errors translated through the tables.

#![allow(non_snake_case)]

mod ctx;
mod driver_more;
mod launch;
mod memcpy;
mod memset;
mod pointer;
mod props;
mod runtime_more;

#[cfg(test)]
mod tests;

pub(crate) use ctx::*;
pub(crate) use driver_more::*;
pub(crate) use launch::*;
pub(crate) use memcpy::*;
pub(crate) use memset::*;
pub(crate) use pointer::*;
pub(crate) use props::*;
pub(crate) use runtime_more::*;

use crate::generated::table::HipTable;
use crate::hip_types::hipError_t;
use crate::{HipBackend, Platform};
use anycuda_api::driver::CUresult;
use anycuda_api::runtime::cudaError_t;

/// HIP's success code (0 in every HIP version and on the NVIDIA platform).
pub(crate) const HIP_SUCCESS: hipError_t = 0;

/// The loaded HIP table, or the Driver API's code for "no library".
#[inline]
fn drv_table(b: &HipBackend) -> Result<&HipTable, CUresult> {
    b.native_hip().ok_or(CUresult::CUDA_ERROR_NOT_INITIALIZED)
}

/// The loaded HIP table, or the Runtime API's code for "no library".
#[inline]
fn rt_table(b: &HipBackend) -> Result<&HipTable, cudaError_t> {
    b.native_hip()
        .ok_or(cudaError_t::cudaErrorInitializationError)
}

/// A HIP error in the Runtime API's vocabulary.
fn rt(b: &HipBackend, e: hipError_t) -> cudaError_t {
    crate::translate(
        b.conv().cudaError_t,
        e as i64,
        cudaError_t::cudaErrorUnknown,
    )
}

/// Whether the loaded HIP uses the pre-6.0 layouts (`__hip5_2` types): ROCm 5.x and HIP's
/// NVIDIA platform (built from HIP 5.2.3 headers).
fn pre_r0600(b: &HipBackend) -> bool {
    b.hip_version() < 60_000_000
}

/// Whether HIP's NVIDIA platform is loaded (CUDA structs and values pass through).
#[inline]
fn nvidia(b: &HipBackend) -> bool {
    b.platform() == Platform::Nvidia
}

/// Resolves a HIP entry point for a Driver API adaptation: the function pointer, or an early
/// return with `CUDA_ERROR_NOT_INITIALIZED` (no library) / `CUDA_ERROR_NOT_SUPPORTED` (this
/// HIP lacks the function).
macro_rules! drv_fn {
    ($b:expr, $f:ident) => {
        match $crate::adapt::drv_table($b) {
            Ok(t) => match t.$f {
                Some(f) => f,
                None => return ::anycuda_api::driver::CUresult::CUDA_ERROR_NOT_SUPPORTED,
            },
            Err(e) => return e,
        }
    };
}
pub(crate) use drv_fn;

/// [`drv_fn!`] for Runtime API adaptations (`cudaErrorInitializationError` /
/// `cudaErrorNotSupported`).
macro_rules! rt_fn {
    ($b:expr, $f:ident) => {
        match $crate::adapt::rt_table($b) {
            Ok(t) => match t.$f {
                Some(f) => f,
                None => return ::anycuda_api::runtime::cudaError_t::cudaErrorNotSupported,
            },
            Err(e) => return e,
        }
    };
}
pub(crate) use rt_fn;
