//! Accessors for the anonymous unions CUDA 13.x headers put into structs that were plain before
//! (`CUmemLocation`'s `id`, `cudaKernelNodeParamsV2`'s `func`), so code reads them in one place.
//! Every member of each union is plain data of the same size, so any bit pattern is valid.

use crate::driver::{CUmemLocationType, CUmemLocation_st, CUmemLocation_st__bindgen_ty_1};
use crate::runtime::{
    cudaKernelNodeParamsV2, cudaMemLocation, cudaMemLocationType, cudaMemLocation__bindgen_ty_1,
};
use core::ffi::{c_int, c_void};

impl CUmemLocation_st {
    /// A location of `type_` with identifier `id` (a device ordinal, a NUMA node).
    pub fn new(type_: CUmemLocationType, id: c_int) -> Self {
        Self {
            type_,
            __bindgen_anon_1: CUmemLocation_st__bindgen_ty_1 { id },
        }
    }
    /// The identifier (`id`), whatever union member was written.
    pub fn id(&self) -> c_int {
        // SAFETY: every member of the union is 4 bytes of plain integers.
        unsafe { self.__bindgen_anon_1.id }
    }
}

impl cudaMemLocation {
    /// A location of `type_` with identifier `id`.
    pub fn new(type_: cudaMemLocationType, id: c_int) -> Self {
        Self {
            type_,
            __bindgen_anon_1: cudaMemLocation__bindgen_ty_1 { id },
        }
    }
    /// The identifier (`id`), whatever union member was written.
    pub fn id(&self) -> c_int {
        // SAFETY: every member of the union is 4 bytes of plain integers.
        unsafe { self.__bindgen_anon_1.id }
    }
}

impl cudaKernelNodeParamsV2 {
    /// The kernel as a device-function pointer (`func`; the union's other members, `kern` and
    /// `cuFunc`, are handles of the same size).
    pub fn func(&self) -> *mut c_void {
        // SAFETY: every member of the union is one pointer-sized handle.
        unsafe { self.__bindgen_anon_1.func }
    }
}
