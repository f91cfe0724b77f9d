//! cuRAND's C API under its own names: anycuda's raw layer ([`anycuda::curand`]), dispatched to
//! the active backend's library.
//!
//! One difference from cudarc's bindgen output: C enums (`curandStatus_t`, `curandRngType_t`,
//! ...) are `#[repr(transparent)]` newtypes with associated consts, not Rust enums, so a value
//! the tables do not know stays representable. A `match` needs a `_` arm, and `as` casts become
//! `.0`.

pub use anycuda::curand::*;
