//! cudarc's `runtime` module, raw layer only: [`sys`] is anycuda's Runtime API (`cuda*`) under
//! CUDA's names, dispatched to the active backend. cudarc's runtime `result`/`safe` layers are
//! not re-created (use the driver module's safe types).

/// The CUDA Runtime API (`cuda*`), CUDA's names, signatures and values.
pub mod sys {
    pub use anycuda::runtime::*;
}
