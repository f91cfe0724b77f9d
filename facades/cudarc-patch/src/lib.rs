//! `cudarc` 0.19.10 by name, anycuda-cudarc inside: the package `[patch.crates-io]` points at.
//! Everything is the facade's; see `anycuda_cudarc`'s documentation.

pub use anycuda_cudarc::*;
