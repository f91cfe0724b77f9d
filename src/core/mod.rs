//! `anycuda::core`: the safe layer, in the concepts of NVIDIA's `cuda.core`.
//!
//! Written only on anycuda's own public raw layer ([`crate::driver`], [`crate::runtime`],
//! [`crate::nvrtc`]), so it runs on every backend without a line of backend code.
//!
//! | cuda.core | anycuda::core |
//! |---|---|
//! | `CUDAError` | [`CoreError`] |
//! | `Device` | [`Device`] ([`DeviceProperties`], [`Uuid`]) |
//! | `Device.set_current()` / primary context | [`Device::set_current`] → [`Context`] |
//! | `Stream`, `StreamOptions` | [`Stream`], [`StreamOptions`] |
//! | `Event`, `EventOptions` | [`Event`], [`EventOptions`] |
//! | `MemoryResource` | [`MemoryResource`] (unsafe trait) |
//! | `DeviceMemoryResource` | [`DeviceMemoryResource`] |
//! | `LegacyPinnedMemoryResource` | [`PinnedMemoryResource`], [`PinnedBuffer`] |
//! | managed memory | [`ManagedMemoryResource`] |
//! | `Buffer` | [`Buffer`], [`BufferView`], [`BufferViewMut`] |
//! | `system` | [`system`] |
//!
//! Every safe type hands out its raw handle (`as_raw`) so the layers can be mixed.

pub mod comm;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod memory;
pub mod stream;
pub mod system;

pub use context::Context;
pub use device::{Device, DeviceProperties, Uuid};
pub use error::{CoreError, ErrorCode, Result};
pub use event::{Event, EventOptions};
pub use memory::PinnedBuffer;
pub use memory::{Buffer, BufferView, BufferViewMut, DeviceCopy, DeviceSlice};
pub use memory::{
    DeviceMemoryResource, ManagedMemoryResource, MemoryResource, PinnedMemoryResource,
};
pub use stream::{Stream, StreamOptions};
