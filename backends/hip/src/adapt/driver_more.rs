//! More Driver API adaptations (memory, modules, streams, graphs, occupancy): see `mod.rs`.
//!
//! Split by area: `copy` (plain and peer copies, prefetch/advise), `stream` (wait values,
//! capture, callbacks, stream contexts), `graph` (edge data, exec update, memset/memcpy/free
//! nodes, instantiate parameters), `module` (JIT options, linker, function settings, occupancy),
//! `mem` (allocation and pool properties per HIP layout), `legacy` (deprecated execution
//! control over `cuLaunchKernel`, `cuDeviceGetProperties`), `texref` (texture-reference modes,
//! 1D linear width).

#![allow(non_snake_case)]
// CUDA signatures dictate the arity.
#![allow(clippy::too_many_arguments)]

mod copy;
mod graph;
mod legacy;
mod mem;
mod module;
mod stream;
mod texref;

pub(crate) use copy::*;
pub(crate) use graph::*;
pub(crate) use legacy::*;
pub(crate) use mem::*;
pub(crate) use module::*;
pub(crate) use stream::*;
pub(crate) use texref::*;

use crate::conv::EnumMap;
use anycuda_api::driver::CUresult;

pub(crate) const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
pub(crate) const NOT_SUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;
pub(crate) const SUCCESS: CUresult = CUresult::CUDA_SUCCESS;

/// A CUDA enum value in HIP's words; a value HIP cannot express is `err`.
pub(crate) fn enum_to_hip(map: &EnumMap, cuda: u32, err: CUresult) -> Result<u32, CUresult> {
    map.to_hip(i64::from(cuda)).map(|v| v as u32).ok_or(err)
}

/// A HIP enum value coming back, in CUDA's words (hallucinated value for an unknown one).
pub(crate) fn enum_to_cuda(map: &EnumMap, hip: u32) -> u32 {
    map.to_cuda(i64::from(hip)).map_or(u32::MAX, |v| v as u32)
}

/// `?` for functions returning `CUresult`.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}
pub(crate) use tri;

#[cfg(test)]
mod tests;
