//! Hand-written adaptations: CUDA functions whose HIP counterpart differs in more than type
//! names, enum values and flags (descriptor structs with other layouts, launch `extra` markers,
//! context-stack semantics, device properties, pointer attributes).
//!
//! The generated `serve.rs` calls `crate::adapt::<room>::<cuda name>(backend, <CUDA arguments>)`
//! for every name listed in `codegen/hip-adapted.txt`, which names each one's room (file); everything else is forwarded mechanically. Each
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
//!
//! One room per area, each holding its Driver and Runtime adaptations: [`context`], [`errors`] (error strings), [`memory`],
//! [`memcpy`], [`memset`], [`stream`], [`graph`], [`module`], [`library`] (the library API over modules), [`link`] (the linker, PTX inputs translated), [`image`], [`launch`], [`launch_legacy`],
//! [`texture`], [`user_object`] (user objects kept by anycuda), [`properties`], [`pointer`], [`nvcc`] (nvcc-built programs), [`export_tables`] (the driver's private tables, for NVIDIA's statically linked runtime). The rooms use [`support`] (table lookup, platform
//! tests, early-return macros) and `crate::conv` (every CUDA↔HIP translation rule, scalar and
//! struct, each beside its inverse, in the room of the same area): a room here holds behaviour
//! only (calling HIP, waiting, checking, choosing per platform and version). Rooms may use each
//! other's helpers, never this file.

#![allow(non_snake_case)]
// CUDA signatures dictate the arity.
#![allow(clippy::too_many_arguments)]

pub(crate) mod context;
pub(crate) mod errors;
pub(crate) mod export_tables;
pub(crate) mod graph;
pub(crate) mod graph_nodes;
pub(crate) mod image;
pub(crate) mod launch;
pub(crate) mod launch_legacy;
pub(crate) mod library;
pub(crate) mod link;
pub(crate) mod memcpy;
pub(crate) mod memory;
pub(crate) mod memset;
pub(crate) mod module;
pub(crate) mod module_params;
pub(crate) mod nvcc;
pub(crate) mod pointer;
pub(crate) mod properties;
pub(crate) mod stream;
pub(crate) mod support;
pub(crate) mod texture;
pub(crate) mod user_object;
