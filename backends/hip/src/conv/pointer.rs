//! Pointer attributes: HIP's memory types renumbered and folded onto CUDA's meanings.

use crate::conv::EnumMap;
use anycuda_api::driver::{CUmemorytype, CUpointer_attribute, CUresult};
use anycuda_api::runtime::cudaMemoryType;
use anycuda_api::CudaEnum;

/// What a HIP memory type (raw, for the loaded version) means in CUDA's pointer-attribute
/// vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PtrKind {
    /// Not known to HIP (HIP 6+ `hipMemoryTypeUnregistered`).
    Unregistered,
    /// Host memory (pinned / registered).
    Host,
    /// Device memory.
    Device,
    /// Managed / unified memory (HIP 6+ `hipMemoryTypeManaged`, `hipMemoryTypeUnified`).
    Managed,
    /// A HIP array (CUDA reports arrays through other calls).
    Array,
    /// A value these tables do not know: kept, in its CUDA form.
    Other(i64),
}

/// Classifies a raw `hipMemoryType` by its name in the `CUmemorytype` table of the loaded
/// version (HIP 5: host 0, device 1, array 2, unified 3; HIP 6+: unregistered 0, host 1,
/// device 2, managed 3, array 10, unified 11).
pub(crate) fn ptr_kind(map: &EnumMap, raw: i64) -> PtrKind {
    match map.hip_name(raw) {
        Some("hipMemoryTypeUnregistered") => PtrKind::Unregistered,
        Some("hipMemoryTypeHost") => PtrKind::Host,
        Some("hipMemoryTypeDevice") => PtrKind::Device,
        Some("hipMemoryTypeManaged" | "hipMemoryTypeUnified") => PtrKind::Managed,
        Some("hipMemoryTypeArray") => PtrKind::Array,
        _ => PtrKind::Other(map.to_cuda(raw).unwrap_or(raw)),
    }
}

/// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` as CUDA reports it: host, device (managed memory is
/// device memory there, with `IS_MANAGED` set) or array; an unregistered pointer is
/// `CUDA_ERROR_INVALID_VALUE`, as on CUDA.
pub(crate) fn cu_memtype(k: PtrKind) -> Result<CUmemorytype, CUresult> {
    Ok(match k {
        PtrKind::Unregistered => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
        PtrKind::Host => CUmemorytype::CU_MEMORYTYPE_HOST,
        PtrKind::Device | PtrKind::Managed => CUmemorytype::CU_MEMORYTYPE_DEVICE,
        PtrKind::Array => CUmemorytype::CU_MEMORYTYPE_ARRAY,
        PtrKind::Other(v) => CUmemorytype::from_i64(v),
    })
}

/// `cudaPointerAttributes::type` as CUDA reports it (arrays are device memory).
pub(crate) fn cuda_memtype(k: PtrKind, is_managed: bool) -> cudaMemoryType {
    match k {
        PtrKind::Unregistered => cudaMemoryType::cudaMemoryTypeUnregistered,
        PtrKind::Host => cudaMemoryType::cudaMemoryTypeHost,
        _ if is_managed => cudaMemoryType::cudaMemoryTypeManaged,
        PtrKind::Managed => cudaMemoryType::cudaMemoryTypeManaged,
        PtrKind::Device | PtrKind::Array => cudaMemoryType::cudaMemoryTypeDevice,
        PtrKind::Other(v) => cudaMemoryType::from_i64(v),
    }
}

/// The size CUDA writes for an attribute (the zero-fill of `cuPointerGetAttributes`); `None`
/// for a value that is not a CUDA pointer attribute.
pub(crate) fn attribute_size(a: CUpointer_attribute) -> Option<usize> {
    use CUpointer_attribute as A;
    Some(match a {
        A::CU_POINTER_ATTRIBUTE_P2P_TOKENS => 16,
        A::CU_POINTER_ATTRIBUTE_CONTEXT
        | A::CU_POINTER_ATTRIBUTE_DEVICE_POINTER
        | A::CU_POINTER_ATTRIBUTE_HOST_POINTER
        | A::CU_POINTER_ATTRIBUTE_BUFFER_ID
        | A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
        | A::CU_POINTER_ATTRIBUTE_RANGE_SIZE
        | A::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
        | A::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
        | A::CU_POINTER_ATTRIBUTE_MAPPING_SIZE
        | A::CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR
        | A::CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => 8,
        _ if a.name().is_some() => 4,
        _ => return None,
    })
}
