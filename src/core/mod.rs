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
//! | `Buffer` (`from_handle`) | [`Buffer`] ([`Buffer::from_handle`]), [`BufferView`], [`BufferViewMut`], [`Allocation`] |
//! | `system` | [`system`] |
//! | `Program`, `ProgramOptions` | [`Program`], [`ProgramOptions`] |
//! | `ProgramCacheResource`, `InMemoryProgramCache`, `FileStreamProgramCache` | [`ProgramCache`], [`InMemoryProgramCache`], [`FileProgramCache`] ([`cache`]) |
//! | `ObjectCode` (`from_cubin`, `from_ptx`, ...) | [`ObjectCode`] ([`CodeType`]), [`Module`] |
//! | `Kernel` (`attributes`, `occupancy`, `arguments_info`) | [`Kernel`] ([`KernelAttributes`], [`KernelOccupancy`], [`ParamInfo`]) |
//! | `LaunchConfig`, `launch` | [`LaunchConfig`], `unsafe` [`launch()`] / [`launch_unchecked()`] ([`KernelArgs`]) |
//! | `Graph`, `GraphBuilder`, stream capture | [`Graph`], [`GraphExec`], [`GraphBuilder`], [`Stream::begin_capture`] |
//! | `Linker`, `LinkerOptions` (`get_info_log`/`get_error_log` after `link`) | [`Linker`], [`LinkerOptions`], [`LinkLogs`] |
//! | `EventOptions(ipc_enabled)`, `Event.get_ipc_descriptor`/`from_ipc_descriptor` | [`EventOptions::ipc_enabled`], [`Event::ipc_handle`]/[`Event::from_ipc_handle`] ([`IpcEventHandle`]) |
//! | `Buffer.get_ipc_descriptor`/`from_ipc_descriptor` | [`IpcMemHandle::new`], [`IpcMemory::open`] |
//! | per-thread default stream | [`Context::per_thread_stream`] |
//! | (cuRAND generator) | [`Rng`] |
//! | (cuBLAS handle: GEMM, strided-batched GEMM) | [`Blas`] ([`Gemm`], [`StridedBatch`], [`GemmType`]) |
//!
//! Every safe type hands out its raw handle (`as_raw`) so the layers can be mixed.
//!
//! Soundness: safe code cannot cause undefined behaviour. Buffers share their memory with the
//! graphs that reference them and are freed after every use (see [`memory`]); host functions
//! reach the driver as ids, never as pointers; kernel code is arbitrary, so launching a kernel
//! or adding a kernel node is `unsafe`, with a `# Safety` contract.

pub mod blas;
/// The persistent program cache. It lives in the compiler front end (`anycuda-rtc`), below the
/// backends, because the backends' compiles of source bundles store their code in it too.
pub use anycuda_rtc::cache;
pub mod comm;
#[cfg(doctest)]
mod compile_fail;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod memory;
pub mod stream;
pub mod system;
mod track;

pub use blas::{Blas, BlasScalar, Gemm, GemmType, StridedBatch, Transpose};
pub use context::Context;
pub use device::{Device, DeviceProperties, Uuid};
pub use error::{CoreError, ErrorCode, Result};
pub use event::{Event, EventOptions};
pub use memory::PinnedBuffer;
pub use memory::{
    Allocation, Buffer, BufferView, BufferViewMut, DeviceCopy, DeviceSlice, DeviceSliceMut,
};
pub use memory::{
    DeviceMemoryResource, ManagedMemoryResource, MemoryResource, PinnedMemoryResource,
};
pub use stream::{Stream, StreamOptions};
pub mod graph;
pub mod ipc;
pub mod launch;
pub mod linker;
pub mod module;
pub mod program;
pub mod rng;
pub use cache::{FileProgramCache, InMemoryProgramCache, ProgramCache};
pub use graph::{CaptureMode, Graph, GraphBuilder, GraphExec, GraphNode};
pub use ipc::{IpcEventHandle, IpcMemHandle, IpcMemory};
pub use launch::{launch, launch_unchecked, Dim3, KernelArg, KernelArgs, LaunchConfig};
pub use linker::{LinkLogs, Linker, LinkerOptions};
pub use module::{Kernel, KernelAttributes, KernelOccupancy, Module, ObjectCode, ParamInfo};
pub use program::{CodeType, Program, ProgramOptions};
pub use rng::{NormalValue, Rng, RngOutput, UniformValue};
