//! The raw CUDA Driver API (`cu*`) under cudarc's `sys` names: anycuda's [`anycuda::driver`],
//! dispatched to the active backend (CUDA or HIP), with CUDA's signatures and numeric values.
//!
//! One difference from cudarc's bindgen output: C enums are `#[repr(transparent)]` newtypes
//! with associated consts (`CUresult::CUDA_ERROR_INVALID_VALUE`), not Rust enums. Paths, `==`
//! and `match` on the constants work the same; `as` casts do not (use `.0`), and flag types do
//! not implement `|` (build the value with `Type(a.0 | b.0)`).

pub use anycuda::driver::*;
