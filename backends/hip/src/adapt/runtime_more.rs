//! More Runtime API adaptations (memory, launches, streams, graphs): see `mod.rs`.
//!
//! Split by area: [`mem`] (advice, prefetch, pools), [`exec`] (launches, function attributes,
//! device choice), [`stream`] (callbacks, capture), [`graph`] (edge data, node parameters,
//! instantiation, update).

#![allow(non_snake_case)]

mod exec;
mod graph;
mod mem;
mod stream;

pub(crate) use exec::*;
pub(crate) use graph::*;
pub(crate) use mem::*;
pub(crate) use stream::*;

use crate::conv::EnumMap;
use anycuda_api::runtime::{cudaError_t, cudaGraphEdgeData};

/// A CUDA enum value in HIP's words, `None` when HIP cannot express it.
pub(crate) fn enum_to_hip(map: &EnumMap, cuda: u32) -> Option<u32> {
    map.to_hip(i64::from(cuda))
        .and_then(|v| u32::try_from(v).ok())
}

/// A HIP enum value coming back, in CUDA's words (unknown values keep the table's reserved
/// "unknown" encoding; `fallback` only outside the representable range).
pub(crate) fn enum_to_cuda(map: &EnumMap, hip: u32, fallback: u32) -> u32 {
    map.to_cuda(i64::from(hip))
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(fallback)
}

/// CUDA's default edge (full completion, no ports): the only kind HIP graphs have.
pub(crate) const DEFAULT_EDGE: cudaGraphEdgeData = cudaGraphEdgeData {
    from_port: 0,
    to_port: 0,
    type_: 0,
    reserved: [0; 5],
};

/// Checks CUDA edge data on input: `Ok(())` when `data` is NULL or every edge is the default
/// one (what HIP's edge-less entry points mean), `cudaErrorNotSupported` for a programmatic or
/// ported edge, `cudaErrorInvalidValue` for non-zero reserved bytes (CUDA requires them zero).
///
/// # Safety
/// `data` is NULL or points to `n` edges.
pub(crate) unsafe fn check_default_edges(
    data: *const cudaGraphEdgeData,
    n: usize,
) -> Result<(), cudaError_t> {
    if data.is_null() || n == 0 {
        return Ok(());
    }
    // SAFETY: caller's array of `n` edges.
    let edges = unsafe { core::slice::from_raw_parts(data, n) };
    for e in edges {
        if e.reserved != [0; 5] {
            return Err(cudaError_t::cudaErrorInvalidValue);
        }
        if e.from_port != 0 || e.to_port != 0 || e.type_ != 0 {
            return Err(cudaError_t::cudaErrorNotSupported);
        }
    }
    Ok(())
}

/// Fills `n` output edges with the default edge (HIP graphs only have those).
///
/// # Safety
/// `out` is NULL or points to `n` writable edges.
pub(crate) unsafe fn fill_default_edges(out: *mut cudaGraphEdgeData, n: usize) {
    if out.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: within the caller's array.
        unsafe { out.add(i).write(DEFAULT_EDGE) };
    }
}

#[cfg(test)]
mod tests {
    use super::exec::{func_attrs_from_hip, read_launch_attrs};
    use super::graph::{kernel_params_to_hip, memset_params_to_cuda, memset_params_to_hip};
    use super::mem::{location_to_device, HIP_CPU_DEVICE_ID};
    use super::*;
    use anycuda_api::runtime::*;
    use core::ptr::null_mut;

    #[test]
    fn locations_become_device_ordinals() {
        let loc = |t, id| cudaMemLocation { type_: t, id };
        assert_eq!(
            location_to_device(&loc(cudaMemLocationType::cudaMemLocationTypeDevice, 3)),
            Ok(3)
        );
        assert_eq!(
            location_to_device(&loc(cudaMemLocationType::cudaMemLocationTypeHost, 0)),
            Ok(HIP_CPU_DEVICE_ID)
        );
        assert_eq!(
            location_to_device(&loc(cudaMemLocationType::cudaMemLocationTypeHostNuma, 0)),
            Err(cudaError_t::cudaErrorNotSupported)
        );
        assert_eq!(
            location_to_device(&loc(cudaMemLocationType::cudaMemLocationTypeInvalid, 0)),
            Err(cudaError_t::cudaErrorInvalidValue)
        );
    }

    #[test]
    fn edge_data_default_only() {
        let mut e = [DEFAULT_EDGE; 2];
        assert_eq!(unsafe { check_default_edges(e.as_ptr(), 2) }, Ok(()));
        assert_eq!(unsafe { check_default_edges(core::ptr::null(), 5) }, Ok(()));
        e[1].type_ = 1; // programmatic
        assert_eq!(
            unsafe { check_default_edges(e.as_ptr(), 2) },
            Err(cudaError_t::cudaErrorNotSupported)
        );
        e[1] = DEFAULT_EDGE;
        e[0].reserved[2] = 7;
        assert_eq!(
            unsafe { check_default_edges(e.as_ptr(), 2) },
            Err(cudaError_t::cudaErrorInvalidValue)
        );
        let mut out = [cudaGraphEdgeData {
            from_port: 9,
            to_port: 9,
            type_: 9,
            reserved: [9; 5],
        }; 3];
        unsafe { fill_default_edges(out.as_mut_ptr(), 3) };
        assert!(out
            .iter()
            .all(|x| (x.from_port, x.to_port, x.type_, x.reserved) == (0, 0, 0, [0; 5])));
    }

    #[test]
    fn memset_params_round_trip_and_validate() {
        let c = cudaMemsetParams {
            dst: 0x1000 as *mut _,
            pitch: 64,
            value: 0xab,
            elementSize: 2,
            width: 16,
            height: 4,
        };
        let h = memset_params_to_hip(&c).unwrap();
        assert_eq!(
            (h.pitch, h.value, h.elementSize, h.width, h.height),
            (64, 0xab, 2, 16, 4)
        );
        let back = memset_params_to_cuda(&h);
        assert_eq!((back.dst, back.pitch, back.width), (c.dst, 64, 16));
        let bad = cudaMemsetParams {
            elementSize: 3,
            ..c
        };
        assert_eq!(
            memset_params_to_hip(&bad).err(),
            Some(cudaError_t::cudaErrorInvalidValue)
        );
    }

    #[test]
    fn kernel_params_reordered_extra_refused() {
        let mut args = [null_mut(); 1];
        let c = cudaKernelNodeParams {
            func: 0x10 as *mut _,
            gridDim: dim3 { x: 1, y: 2, z: 3 },
            blockDim: dim3 { x: 4, y: 5, z: 6 },
            sharedMemBytes: 7,
            kernelParams: args.as_mut_ptr(),
            extra: null_mut(),
        };
        let h = kernel_params_to_hip(&c).unwrap();
        assert_eq!((h.gridDim.y, h.blockDim.z, h.sharedMemBytes), (2, 6, 7));
        assert_eq!(h.kernelParams, args.as_mut_ptr());
        let with_extra = cudaKernelNodeParams {
            extra: args.as_mut_ptr(),
            ..c
        };
        assert_eq!(
            kernel_params_to_hip(&with_extra).err(),
            Some(cudaError_t::cudaErrorNotSupported)
        );
    }

    #[test]
    fn launch_attributes_cooperative_or_not_supported() {
        let mut a: cudaLaunchAttribute = unsafe { core::mem::zeroed() };
        a.id = cudaLaunchAttributeID::cudaLaunchAttributeCooperative;
        a.val.cooperative = 1;
        let mut ign: cudaLaunchAttribute = unsafe { core::mem::zeroed() };
        ign.id = cudaLaunchAttributeID::cudaLaunchAttributeIgnore;
        let list = [ign, a];
        assert!(
            unsafe { read_launch_attrs(list.as_ptr(), 2) }
                .unwrap()
                .cooperative
        );
        let mut prio = a;
        prio.id = cudaLaunchAttributeID::cudaLaunchAttributePriority;
        assert_eq!(
            unsafe { read_launch_attrs(&prio, 1) }.err(),
            Some(cudaError_t::cudaErrorNotSupported)
        );
        assert_eq!(
            unsafe { read_launch_attrs(core::ptr::null(), 1) }.err(),
            Some(cudaError_t::cudaErrorInvalidValue)
        );
    }

    #[test]
    fn func_attributes_copied_by_name() {
        let mut h: crate::hip_types::hipFuncAttributes = unsafe { core::mem::zeroed() };
        h.numRegs = 32;
        h.sharedSizeBytes = 1024;
        h.maxThreadsPerBlock = 256;
        let c = func_attrs_from_hip(&h);
        assert_eq!(
            (c.numRegs, c.sharedSizeBytes, c.maxThreadsPerBlock),
            (32, 1024, 256)
        );
        assert_eq!(c.clusterDimMustBeSet, 0);
    }
}
