//! Memory: the [`DeviceCopy`] marker, [`MemoryResource`]s (device, pinned host, managed), the
//! typed [`Buffer`] with its views, and [`PinnedBuffer`] for safe asynchronous host copies.
//!
//! Soundness, in brief:
//! - a buffer holds its stream, which holds its [`Context`]: it cannot outlive the context;
//! - a buffer's memory is an [`Allocation`] shared with the graphs (and captures in progress)
//!   that reference it, freed only when the last of them drops (no public free): a freed buffer
//!   cannot be named, and a graph never runs on freed memory;
//! - the free is queued on the allocation stream after it waits for an event recorded after
//!   every use of the buffer on another stream by a safe operation (copies, fills, checked
//!   launches), so no queued work can touch the memory once it is reused; an executable graph
//!   waits for its launches before it lets go of its memory;
//! - host memory the GPU may write is only handed out as `&[T]`/`&mut [T]` after waiting for
//!   that work, and never while a graph holds it: [`PinnedBuffer`] tracks an event recorded
//!   after its last asynchronous copy, host-accessible [`Buffer`]s wait for their whole context
//!   (every safe write into a buffer is queued on a stream of the buffer's own context, so that
//!   covers them), and both refuse while a graph, an executable or a capture references them.
//!   Raw host slices in asynchronous copies need the `unsafe` variants;
//! - synchronous copies, and allocations from pools, are refused on a capturing stream;
//! - kernels are outside what the layer can check: [`launch`](super::launch()) and
//!   [`GraphBuilder::kernel`](super::GraphBuilder::kernel) are `unsafe`, with the memory
//!   contract in their `# Safety` sections.

use super::context::Context;
use super::device::Device;
use super::error::{check, CoreError, Result};
use super::event::{Event, EventOptions};
use super::stream::Stream;
use super::track::{self, Uses};
use crate::driver::{self, CUdeviceptr, CUmemAttach_flags, CUresult};
use std::ffi::{c_uint, c_ushort, c_void};
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::ops::{Bound, RangeBounds};
use std::sync::{Arc, Mutex};

/// Plain data that may cross to the device and back: no pointers to host memory, no `Drop`,
/// and every bit pattern the device may write is a valid value.
///
/// Implemented for the integer and float types, `()`, arrays of `DeviceCopy` types, and (with
/// the `half` feature) `half::f16` and `half::bf16`.
/// `bool` and `char` are excluded because not every bit pattern is a valid value (a kernel
/// writing `2` into a `bool` would be undefined behaviour once read in Rust); references and
/// raw pointers because a host address means nothing on the device (and a reference must point
/// to live host memory). Use `u8`/`u32` and convert.
///
/// # Safety
/// Implement it (`unsafe impl DeviceCopy for MyType {}`) only for `#[repr(C)]` (or
/// `#[repr(transparent)]`) types whose fields are all `DeviceCopy`: any bit pattern of the size
/// of the type must be a valid value, and the type must own no resource.
///
/// ```
/// use anycuda::core::DeviceCopy;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Particle { pos: [f32; 3], id: u32 }
/// // SAFETY: repr(C), every field DeviceCopy, every bit pattern valid.
/// unsafe impl DeviceCopy for Particle {}
/// ```
///
/// The excluded types do not compile:
/// ```compile_fail
/// fn device<T: anycuda::core::DeviceCopy>() {}
/// device::<bool>();
/// ```
/// ```compile_fail
/// fn device<T: anycuda::core::DeviceCopy>() {}
/// device::<char>();
/// ```
/// ```compile_fail
/// fn device<T: anycuda::core::DeviceCopy>() {}
/// device::<&'static u32>();
/// ```
/// ```compile_fail
/// fn device<T: anycuda::core::DeviceCopy>() {}
/// device::<*const u32>();
/// ```
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => { $(
        // SAFETY: every bit pattern is a valid value; no pointers, no Drop.
        unsafe impl DeviceCopy for $t {}
    )* };
}
device_copy!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    ()
);
// SAFETY: an array of DeviceCopy values has no padding and every bit pattern valid per element.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}
// SAFETY: `half`'s types are `#[repr(transparent)]` over `u16`: every bit pattern is a valid
// value (NaNs included), no pointers, no Drop.
#[cfg(feature = "half")]
unsafe impl DeviceCopy for half::f16 {}
// SAFETY: as for `half::f16`.
#[cfg(feature = "half")]
unsafe impl DeviceCopy for half::bf16 {}

/// Where [`Buffer`] memory comes from (cuda.core's `MemoryResource`).
///
/// `allocate` and `deallocate` are stream-ordered where the resource supports it; resources
/// that are not free on `stream`'s order and return memory usable at once.
///
/// ```no_run
/// use anycuda::core::{Buffer, Device, ManagedMemoryResource, MemoryResource};
/// use std::sync::Arc;
/// let ctx = Device::new(0)?.context()?;
/// let s = ctx.default_stream();
/// let mr: Arc<dyn MemoryResource> = Arc::new(ManagedMemoryResource::new(&ctx));
/// let mut b = Buffer::<u32>::new_in(mr, &s, 256)?;
/// b.fill(3, &s)?;
/// assert!(b.as_host_slice()?.iter().all(|&x| x == 3)); // waits for the context
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
///
/// # Safety
/// Implementors promise that `allocate` returns memory of at least `bytes` bytes, aligned to
/// 256 bytes, that stays valid until `deallocate`, and that it is accessible exactly as
/// `is_device_accessible` / `is_host_accessible` say, answers that never change for the
/// resource (host-accessible memory is read and written by the safe layer through host pointers
/// of the same address).
pub unsafe trait MemoryResource: Send + Sync {
    /// Allocates `bytes` (> 0) bytes, ordered on `stream` where the resource is stream-ordered.
    ///
    /// # Errors
    /// The driver's allocation error (`CUDA_ERROR_OUT_OF_MEMORY`, ...), or a usage error for a
    /// stream of another context.
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<CUdeviceptr>;

    /// Frees what [`MemoryResource::allocate`] returned, ordered on `stream` where the resource
    /// is stream-ordered.
    ///
    /// # Safety
    /// `ptr` came from `allocate` of this resource with the same `bytes`, is freed once, and no
    /// work that is not ordered before this point on `stream` still uses it.
    ///
    /// # Errors
    /// The driver's error.
    unsafe fn deallocate(&self, ptr: CUdeviceptr, bytes: usize, stream: &Stream) -> Result<()>;

    /// Whether kernels on the device can access the memory.
    fn is_device_accessible(&self) -> bool;

    /// Whether the host can access the memory through the same address.
    fn is_host_accessible(&self) -> bool;

    /// The context the memory belongs to.
    fn context(&self) -> &Context;

    /// The ordinal of the device the memory belongs to.
    fn device_id(&self) -> usize {
        self.context().device().ordinal()
    }
}

#[inline]
fn same_context(op: &'static str, a: &Context, b: &Context) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(CoreError::usage(
            op,
            "the stream or buffer belongs to another context (device)",
        ))
    }
}

/// Device memory (cuda.core's `DeviceMemoryResource`): stream-ordered pools
/// (`cuMemAllocAsync`/`cuMemFreeAsync`) where the device reports
/// `CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED`, else `cuMemAlloc`/`cuMemFree`.
///
/// `Send + Sync`: it holds only its [`Context`] and a flag.
#[derive(Clone, Debug)]
pub struct DeviceMemoryResource {
    ctx: Context,
    pools: bool,
}

impl DeviceMemoryResource {
    /// The device memory of `ctx`, with pools where the device has them.
    pub fn new(ctx: &Context) -> Self {
        Self {
            ctx: ctx.clone(),
            pools: ctx.pools(),
        }
    }
    /// Device memory through `cuMemAlloc`/`cuMemFree` even where pools exist.
    pub fn without_pools(ctx: &Context) -> Self {
        Self {
            ctx: ctx.clone(),
            pools: false,
        }
    }
    /// Whether allocations are stream-ordered (`cuMemAllocAsync`).
    pub fn uses_pools(&self) -> bool {
        self.pools
    }
}

// SAFETY: cuMemAlloc/cuMemAllocAsync return device memory of the size asked, 256-byte aligned
// or better; device-only.
unsafe impl MemoryResource for DeviceMemoryResource {
    #[inline]
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<CUdeviceptr> {
        same_context(
            "DeviceMemoryResource::allocate",
            &self.ctx,
            stream.context(),
        )?;
        self.ctx.bind()?;
        let mut p: CUdeviceptr = 0;
        if self.pools {
            let st = track::capture_state(stream)?;
            if st.id.is_some() {
                // cuMemAllocAsync would add a graph memory node: an address valid only while
                // the graph runs, not memory a buffer could own.
                return Err(CoreError::usage(
                    "DeviceMemoryResource::allocate",
                    "the stream is capturing: allocate before the capture begins",
                ));
            }
            // SAFETY: valid out-pointer; the stream is alive and of the current context.
            check("cuMemAllocAsync", unsafe {
                driver::cuMemAllocAsync(&mut p, bytes, stream.as_raw())
            })?;
        } else {
            // SAFETY: valid out-pointer; the context is current.
            check("cuMemAlloc", unsafe { driver::cuMemAlloc(&mut p, bytes) })?;
        }
        Ok(p)
    }
    #[inline]
    unsafe fn deallocate(&self, ptr: CUdeviceptr, _bytes: usize, stream: &Stream) -> Result<()> {
        self.ctx.bind()?;
        if self.pools {
            // SAFETY: the caller's contract.
            check("cuMemFreeAsync", unsafe {
                driver::cuMemFreeAsync(ptr, stream.as_raw())
            })
        } else {
            // SAFETY: the caller's contract.
            check("cuMemFree", unsafe { driver::cuMemFree(ptr) })
        }
    }
    fn is_device_accessible(&self) -> bool {
        true
    }
    fn is_host_accessible(&self) -> bool {
        false
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
}

/// Page-locked host memory mapped for the device (cuda.core's `PinnedMemoryResource`):
/// `cuMemHostAlloc(PORTABLE | DEVICEMAP)`, freed with `cuMemFreeHost` after waiting for the
/// context. The host and device address are the same (unified addressing, which every 64-bit
/// CUDA and HIP platform has).
///
/// `Send + Sync`: it holds only its [`Context`].
#[derive(Clone, Debug)]
pub struct PinnedMemoryResource {
    ctx: Context,
}

impl PinnedMemoryResource {
    /// Pinned host memory registered with `ctx`.
    pub fn new(ctx: &Context) -> Self {
        Self { ctx: ctx.clone() }
    }
}

/// `cuMemHostAlloc` with the flags the safe layer uses.
fn host_alloc(ctx: &Context, bytes: usize) -> Result<*mut c_void> {
    ctx.bind()?;
    let mut p: *mut c_void = std::ptr::null_mut();
    let flags = (driver::CU_MEMHOSTALLOC_PORTABLE | driver::CU_MEMHOSTALLOC_DEVICEMAP) as c_uint;
    // SAFETY: valid out-pointer; the context is current.
    check("cuMemHostAlloc", unsafe {
        driver::cuMemHostAlloc(&mut p, bytes, flags)
    })?;
    if p.is_null() {
        return Err(CoreError::driver(
            "cuMemHostAlloc",
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        ));
    }
    Ok(p)
}

// SAFETY: cuMemHostAlloc memory is page-aligned, of the size asked, mapped (DEVICEMAP) at the
// same address on the device under unified addressing, and host-accessible.
unsafe impl MemoryResource for PinnedMemoryResource {
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<CUdeviceptr> {
        same_context(
            "PinnedMemoryResource::allocate",
            &self.ctx,
            stream.context(),
        )?;
        let host = host_alloc(&self.ctx, bytes)?;
        let mut dev: CUdeviceptr = 0;
        // SAFETY: `host` is a live cuMemHostAlloc(DEVICEMAP) allocation; valid out-pointer.
        let r = check("cuMemHostGetDevicePointer", unsafe {
            driver::cuMemHostGetDevicePointer(&mut dev, host, 0)
        });
        if r.is_ok() && dev == host as CUdeviceptr {
            return Ok(dev);
        }
        // SAFETY: allocated just above, never handed out.
        let _ = unsafe { driver::cuMemFreeHost(host) };
        r?;
        Err(CoreError::driver(
            "cuMemHostGetDevicePointer",
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
        )
        .with_detail("pinned memory has a different device address (no unified addressing)"))
    }
    unsafe fn deallocate(&self, ptr: CUdeviceptr, _bytes: usize, _stream: &Stream) -> Result<()> {
        // Host memory may still be read or written by work on any stream: wait for all of it.
        self.ctx.synchronize()?;
        // SAFETY: the caller's contract; `ptr` is the host address cuMemHostAlloc returned.
        check("cuMemFreeHost", unsafe {
            driver::cuMemFreeHost(ptr as *mut c_void)
        })
    }
    fn is_device_accessible(&self) -> bool {
        true
    }
    fn is_host_accessible(&self) -> bool {
        true
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
}

/// Managed (unified) memory (`cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL)`), migrating between
/// host and device on demand; freed with `cuMemFree` after waiting for the context.
///
/// `Send + Sync`: it holds only its [`Context`].
#[derive(Clone, Debug)]
pub struct ManagedMemoryResource {
    ctx: Context,
}

impl ManagedMemoryResource {
    /// Managed memory of `ctx`.
    pub fn new(ctx: &Context) -> Self {
        Self { ctx: ctx.clone() }
    }
}

// SAFETY: cuMemAllocManaged memory is at least 256-byte aligned, of the size asked, and
// accessible from host and device at the same address.
unsafe impl MemoryResource for ManagedMemoryResource {
    fn allocate(&self, bytes: usize, stream: &Stream) -> Result<CUdeviceptr> {
        same_context(
            "ManagedMemoryResource::allocate",
            &self.ctx,
            stream.context(),
        )?;
        self.ctx.bind()?;
        let mut p: CUdeviceptr = 0;
        // SAFETY: valid out-pointer; the context is current.
        check("cuMemAllocManaged", unsafe {
            driver::cuMemAllocManaged(
                &mut p,
                bytes,
                CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL.0 as c_uint,
            )
        })?;
        Ok(p)
    }
    unsafe fn deallocate(&self, ptr: CUdeviceptr, _bytes: usize, _stream: &Stream) -> Result<()> {
        self.ctx.synchronize()?;
        // SAFETY: the caller's contract.
        check("cuMemFree", unsafe { driver::cuMemFree(ptr) })
    }
    fn is_device_accessible(&self) -> bool {
        true
    }
    fn is_host_accessible(&self) -> bool {
        true
    }
    fn context(&self) -> &Context {
        &self.ctx
    }
}

/// Which resource frees a buffer: the context's device memory (no `Arc` needed), any other,
/// or none (foreign memory wrapped by [`Buffer::from_handle`], never freed here).
#[derive(Clone)]
enum Owner {
    Device(DeviceMemoryResource),
    Resource(Arc<dyn MemoryResource>),
    Foreign,
}

impl Owner {
    fn get(&self) -> Option<&dyn MemoryResource> {
        match self {
            Owner::Device(d) => Some(d),
            Owner::Resource(r) => Some(&**r),
            Owner::Foreign => None,
        }
    }
}

/// The memory behind a [`Buffer`], shared by the buffer and every [`Graph`](super::Graph),
/// [`GraphExec`](super::GraphExec) or capture in progress that references it; freed when the
/// last of them drops.
///
/// It remembers its allocation stream and, for every other stream that safe operations used it
/// on, an event recorded after that use: the free is queued on the allocation stream after
/// waiting for all of them, so it is ordered after every use (as cudarc does). Opaque: reach
/// it through [`KernelArg::allocation`](super::KernelArg::allocation).
///
/// `Send + Sync`: a device address and driver handles; the use list is behind a mutex.
pub struct Allocation {
    ptr: CUdeviceptr,
    bytes: usize,
    stream: Stream,
    owner: Owner,
    uses: Uses,
}

impl fmt::Debug for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Allocation")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl Allocation {
    /// The device address of the first byte (0 when empty).
    #[inline]
    pub fn as_raw(&self) -> CUdeviceptr {
        self.ptr
    }
    /// The size in bytes.
    #[inline]
    pub fn size_in_bytes(&self) -> usize {
        self.bytes
    }
    /// The stream it was allocated on, and is freed on.
    #[inline]
    pub fn stream(&self) -> &Stream {
        &self.stream
    }
    /// The context the memory belongs to.
    #[inline]
    pub fn context(&self) -> &Context {
        self.stream.context()
    }

    /// Notes that work was just queued on `stream` using this memory, whose capture state is
    /// `capture` ([`track::capture_id`] of `stream`): while capturing, keeps the memory alive
    /// for the graph; otherwise, on a stream other than the allocation stream, records an
    /// event the free waits for. The allocation stream's own order needs nothing.
    ///
    /// # Errors
    /// The event's error (after waiting for `stream` so the use is covered anyway).
    #[inline]
    pub(crate) fn used_on(self: &Arc<Self>, stream: &Stream, capture: Option<u64>) -> Result<()> {
        if self.bytes == 0 {
            return Ok(());
        }
        if let Some(id) = capture {
            track::keep_for_capture(id, self.clone());
            return Ok(());
        }
        if stream.same(&self.stream) {
            return Ok(());
        }
        self.uses.record(stream)
    }

    /// Whether work queued on `stream` must be tracked for the free (a stream other than the
    /// allocation stream).
    #[inline(always)]
    pub(crate) fn is_foreign(&self, stream: &Stream) -> bool {
        self.bytes != 0 && !stream.same(&self.stream)
    }

    /// Frees the memory now (stream-ordered after every recorded use).
    fn free(&mut self) {
        let Some(mr) = self.owner.get() else {
            return;
        };
        if self.bytes == 0 {
            return;
        }
        // Dropped while its own stream captures (the last graph or buffer dropped on a
        // thread during a capture): a free queued now would be captured into the graph. Hand
        // the memory to the capture instead; the graph frees it when it drops.
        let capture = self
            .stream
            .context()
            .bind()
            .and_then(|()| track::capture_state(&self.stream));
        let id = match &capture {
            Ok(st) => st.id,
            Err(_) => None,
        };
        if let Some(id) = id {
            let moved = Allocation {
                ptr: self.ptr,
                bytes: self.bytes,
                stream: self.stream.clone(),
                owner: self.owner.clone(),
                uses: std::mem::take(&mut self.uses),
            };
            self.bytes = 0;
            track::keep_for_capture(id, Arc::new(moved));
            return;
        }
        // The answer stays true (the gate held) over the stream-ordered free of the context's
        // own device memory. Other resources are freed without the gate: they may synchronize
        // (pinned, managed) or run code of their own, which must not wait on it.
        let _gate = match self.owner {
            Owner::Device(_) => capture.ok(),
            _ => {
                drop(capture);
                None
            }
        };
        if !self.uses.is_empty() {
            // A stream-ordered free (pools) is ordered by waits queued on the allocation
            // stream. Any other free (`cuMemFree`, `cuMemFreeHost`, a resource of unknown
            // kind) happens when it is called: wait on the host for the uses first.
            let pools = matches!(&self.owner, Owner::Device(d) if d.uses_pools());
            let ordered = self.uses.order_before(&self.stream);
            if let Err(e) = &ordered {
                log::warn!("anycuda::core: ordering a free after its uses ({e}); waiting");
            }
            if !pools || ordered.is_err() {
                if let Err(e) = self.uses.synchronize() {
                    log::error!("anycuda::core: a use of a freed buffer failed: {e}");
                }
            }
        }
        // SAFETY: allocated by this resource with `bytes`, freed once (here: the last Arc),
        // and ordered after the work on the allocation stream and, through the waits above,
        // after every use on another stream.
        let r = unsafe { mr.deallocate(self.ptr, self.bytes, &self.stream) };
        if let Err(e) = r {
            log::error!(
                "anycuda::core: freeing a buffer of {} bytes: {e}",
                self.bytes
            );
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        self.free();
    }
}

/// `len` elements of `T` in bytes, or a usage error on overflow.
#[inline]
fn bytes_of<T>(op: &'static str, len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .ok_or_else(|| CoreError::usage(op, "the size in bytes overflows usize"))
}

/// A typed allocation of `len` values of `T` from a [`MemoryResource`] (cuda.core's `Buffer`).
///
/// The memory is an [`Allocation`] shared with every graph that references it, freed when the
/// last of them drops, on the stream it was allocated on (stream-ordered where the resource
/// is), after that stream waits for an event recorded after each use of the buffer on another
/// stream by a safe operation (copies, fills, checked launches): no work that uses it can still
/// run when the memory is reused. It holds that stream and so its [`Context`]: it cannot outlive
/// the context.
///
/// `Send + Sync` (for `T: DeviceCopy`): it owns device memory, reached only through driver
/// calls; mutation needs `&mut`.
///
/// ```no_run
/// use anycuda::core::{Buffer, Device};
/// let ctx = Device::new(0)?.context()?;
/// let stream = ctx.default_stream();
/// let mut buf: Buffer<f32> = stream.alloc(1024)?;
/// buf.copy_from_host(&vec![1.0; 1024])?;
/// buf.view_mut(512..)?.fill(2.0f32, &stream)?;
/// let host = buf.to_vec()?;
/// assert_eq!((host[0], host[1023]), (1.0, 2.0));
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct Buffer<T: DeviceCopy> {
    ptr: CUdeviceptr,
    len: usize,
    alloc: Arc<Allocation>,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .field("device", &self.context().device().ordinal())
            .field("host_accessible", &self.is_host_accessible())
            .finish()
    }
}

impl<T: DeviceCopy> Buffer<T> {
    /// `len` elements of device memory from `stream`'s context, stream-ordered where the device
    /// has pools. The contents are whatever the memory held (any bit pattern is a valid `T`).
    ///
    /// # Errors
    /// The allocation error, or a usage error when the size overflows.
    #[inline]
    pub fn new(stream: &Stream, len: usize) -> Result<Self> {
        let mr = DeviceMemoryResource::new(stream.context());
        Self::alloc(Owner::Device(mr), stream, len)
    }

    /// `len` zeroed elements of device memory (allocation and `cuMemsetD8Async` on `stream`).
    ///
    /// # Errors
    /// As [`Buffer::new`], and the memset's error.
    pub fn zeroed(stream: &Stream, len: usize) -> Result<Self> {
        let mut b = Self::new(stream, len)?;
        b.as_view_mut().zero(stream)?;
        Ok(b)
    }

    /// A device copy of `src` (allocation and a synchronous copy on `stream`).
    ///
    /// # Errors
    /// As [`Buffer::new`], and the copy's error.
    pub fn from_slice(stream: &Stream, src: &[T]) -> Result<Self> {
        let mut b = Self::new(stream, src.len())?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// `len` elements from `mr`, allocated on `stream`. Host-accessible memory is zeroed (the
    /// host may read it directly), after waiting for `stream`.
    ///
    /// # Errors
    /// A usage error when `stream` belongs to another context than `mr`; the allocation error.
    pub fn new_in(mr: Arc<dyn MemoryResource>, stream: &Stream, len: usize) -> Result<Self> {
        same_context("Buffer::new_in", mr.context(), stream.context())?;
        let host = mr.is_host_accessible();
        let b = Self::alloc(Owner::Resource(mr), stream, len)?;
        if host && b.size_in_bytes() > 0 {
            // The allocation may be stream-ordered: wait for it, then zero from the host.
            stream.synchronize()?;
            // SAFETY: host-accessible memory of `size_in_bytes` bytes (the resource's
            // contract), not yet used by anything.
            unsafe { std::ptr::write_bytes(b.ptr as usize as *mut u8, 0, b.size_in_bytes()) };
        }
        Ok(b)
    }

    /// Wraps device memory allocated elsewhere (cuda.core's `Buffer.from_handle`): `len`
    /// elements at `ptr` in `stream`'s context. Never freed by anycuda: the memory's owner
    /// frees it. Uses on other streams are tracked as for any buffer, but since nothing is
    /// freed here, ordering the owner's free after them is the owner's business.
    ///
    /// # Safety
    /// `ptr` must be device memory of `stream`'s context (or memory its kernels and copies can
    /// access), valid for `len * size_of::<T>()` bytes, aligned for `T`, holding initialised
    /// values, and stay allocated — and not be used by anything else in a way that races with
    /// this buffer's operations — until the returned buffer, every graph that references it,
    /// and all the work queued through them are gone. Device-only: the host never reads it
    /// through this buffer.
    ///
    /// # Errors
    /// A usage error when the size overflows.
    pub unsafe fn from_handle(ptr: CUdeviceptr, len: usize, stream: &Stream) -> Result<Self> {
        let bytes = bytes_of::<T>("Buffer::from_handle", len)?;
        Ok(Buffer {
            ptr,
            len,
            alloc: Arc::new(Allocation {
                ptr,
                bytes,
                stream: stream.clone(),
                owner: Owner::Foreign,
                uses: Uses::default(),
            }),
            _t: PhantomData,
        })
    }

    /// The shared allocation behind the buffer (what graphs keep alive). A clone keeps the
    /// memory alive after the buffer drops, and host slices are refused while one exists.
    #[inline]
    pub fn allocation(&self) -> &Arc<Allocation> {
        &self.alloc
    }
    #[inline(always)]
    pub(crate) fn arc(&self) -> &Arc<Allocation> {
        &self.alloc
    }

    #[inline]
    fn alloc(owner: Owner, stream: &Stream, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>("Buffer::new", len)?;
        let ptr = match owner.get() {
            Some(mr) if bytes > 0 => mr.allocate(bytes, stream)?,
            _ => 0,
        };
        Ok(Buffer {
            ptr,
            len,
            alloc: Arc::new(Allocation {
                ptr,
                bytes,
                stream: stream.clone(),
                owner,
                uses: Uses::default(),
            }),
            _t: PhantomData,
        })
    }

    /// The device address of element 0 (0 for an empty buffer).
    #[inline]
    pub fn as_raw(&self) -> CUdeviceptr {
        self.ptr
    }
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The size in bytes.
    #[inline]
    pub fn size_in_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }
    /// The context the memory belongs to.
    #[inline]
    pub fn context(&self) -> &Context {
        self.alloc.stream.context()
    }
    /// The device the memory belongs to.
    #[inline]
    pub fn device(&self) -> Device {
        self.alloc.stream.context().device()
    }
    /// The stream the buffer was allocated on (and is freed on); the synchronous copies run
    /// on it.
    #[inline]
    pub fn stream(&self) -> &Stream {
        &self.alloc.stream
    }
    /// Whether the host can access the memory ([`Buffer::as_host_slice`]).
    #[inline]
    pub fn is_host_accessible(&self) -> bool {
        self.alloc
            .owner
            .get()
            .is_some_and(|m| m.is_host_accessible())
    }
    /// Whether kernels can access the memory.
    #[inline]
    pub fn is_device_accessible(&self) -> bool {
        self.alloc
            .owner
            .get()
            .is_none_or(|m| m.is_device_accessible())
    }

    /// The whole buffer as a view.
    #[inline]
    pub fn as_view(&self) -> BufferView<'_, T> {
        BufferView {
            ptr: self.ptr,
            len: self.len,
            alloc: &self.alloc,
            _t: PhantomData,
        }
    }
    /// The whole buffer as a mutable view.
    #[inline]
    pub fn as_view_mut(&mut self) -> BufferViewMut<'_, T> {
        BufferViewMut {
            ptr: self.ptr,
            len: self.len,
            alloc: &self.alloc,
            _t: PhantomData,
        }
    }
    /// Elements `range` as a view.
    ///
    /// # Errors
    /// A usage error (never a panic) for a range out of bounds or reversed.
    #[inline]
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<BufferView<'_, T>> {
        self.as_view().into_view(range)
    }
    /// Elements `range` as a mutable view.
    ///
    /// # Errors
    /// As [`Buffer::view`].
    #[inline]
    pub fn view_mut(&mut self, range: impl RangeBounds<usize>) -> Result<BufferViewMut<'_, T>> {
        self.as_view_mut().into_view_mut(range)
    }

    /// The memory as a host slice, for host-accessible (pinned or managed) buffers, after
    /// waiting for all work in the buffer's context (which may still write it).
    ///
    /// Refused while a [`Graph`](super::Graph), a [`GraphExec`](super::GraphExec) or a stream
    /// capture in progress references the memory: a graph launch could write it behind the
    /// slice.
    ///
    /// # Errors
    /// A usage error for device-only memory, or for memory a graph references; the
    /// synchronize's error.
    pub fn as_host_slice(&mut self) -> Result<&[T]> {
        self.host_ptr("Buffer::as_host_slice")
            // SAFETY: host-accessible memory of `len` initialised values (zeroed at allocation,
            // then only written by copies and kernels of DeviceCopy data), no GPU work pending
            // in its context, and `&mut self` keeps safe code from queueing more meanwhile.
            .map(|p| unsafe { std::slice::from_raw_parts(p, self.len) })
    }

    /// [`Buffer::as_host_slice`], mutable.
    ///
    /// # Errors
    /// As [`Buffer::as_host_slice`].
    pub fn as_host_slice_mut(&mut self) -> Result<&mut [T]> {
        self.host_ptr("Buffer::as_host_slice_mut")
            // SAFETY: as in `as_host_slice`; `&mut self` makes the slice exclusive.
            .map(|p| unsafe { std::slice::from_raw_parts_mut(p, self.len) })
    }

    fn host_ptr(&mut self, op: &'static str) -> Result<*mut T> {
        if !self.is_host_accessible() {
            return Err(CoreError::usage(
                op,
                "device memory is not host-accessible: copy it to the host instead",
            ));
        }
        if Arc::strong_count(&self.alloc) > 1 {
            return Err(CoreError::usage(
                op,
                "a graph, an executable graph or a stream capture in progress references this \
                 memory: drop them (or end the capture) before reading it on the host",
            ));
        }
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(std::ptr::NonNull::dangling().as_ptr());
        }
        self.alloc.stream.context().synchronize()?;
        // Uses on streams of other contexts (a peer copy reading it) are not covered by this
        // context's synchronize: wait for their events too.
        self.alloc.uses.synchronize()?;
        Ok(self.ptr as usize as *mut T)
    }
}

/// A shared view of part of a [`Buffer`] (or of another view). `Copy`.
///
/// `Send + Sync`: a device address, a length, and a borrow of the owner's stream.
#[derive(Clone, Copy)]
pub struct BufferView<'a, T: DeviceCopy> {
    ptr: CUdeviceptr,
    len: usize,
    alloc: &'a Arc<Allocation>,
    _t: PhantomData<&'a T>,
}

/// An exclusive view of part of a [`Buffer`]: the target of copies and fills.
///
/// `Send + Sync`: as [`BufferView`].
pub struct BufferViewMut<'a, T: DeviceCopy> {
    ptr: CUdeviceptr,
    len: usize,
    alloc: &'a Arc<Allocation>,
    _t: PhantomData<&'a mut T>,
}

impl<T: DeviceCopy> fmt::Debug for BufferView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BufferView({:#x}, len {})", self.ptr, self.len)
    }
}
impl<T: DeviceCopy> fmt::Debug for BufferViewMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BufferViewMut({:#x}, len {})", self.ptr, self.len)
    }
}

/// `range` within `0..len` as `(start, end)`, or a usage error.
#[inline]
fn bounds(op: &'static str, len: usize, range: impl RangeBounds<usize>) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok((s, e)),
        _ => Err(CoreError::usage(op, range_text(&range, len))),
    }
}

#[cold]
fn range_text(range: &impl RangeBounds<usize>, len: usize) -> String {
    format!(
        "range ({:?}, {:?}) out of bounds for a buffer of {len} elements",
        range.start_bound(),
        range.end_bound()
    )
}

#[inline]
fn same_len(op: &'static str, a: usize, b: usize) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(CoreError::usage(op, len_text(a, b)))
    }
}

/// The capture `stream` belongs to ([`track::capture_state`], valid while the result lives),
/// with its context made current.
#[inline]
fn capture_of(stream: &Stream) -> Result<track::CaptureState> {
    stream.context().bind()?;
    track::capture_state(stream)
}

/// Refuses a synchronous operation on a capturing stream (it would capture a copy into host
/// memory that is gone when the graph runs, and cannot wait). Hold the result over the
/// enqueue.
#[inline]
fn not_capturing(op: &'static str, stream: &Stream) -> Result<track::CaptureState> {
    let st = capture_of(stream)?;
    if st.id.is_some() {
        return Err(CoreError::usage(
            op,
            "the stream is capturing: a synchronous copy cannot be captured (use a pinned \
             buffer, or end the capture first)",
        ));
    }
    Ok(st)
}

#[cold]
fn len_text(a: usize, b: usize) -> String {
    format!("lengths differ: {a} elements on the device, {b} on the other side")
}

/// Anything that reads as a device range of `T`: [`Buffer`], [`BufferView`], [`BufferViewMut`].
pub trait DeviceSlice<T: DeviceCopy> {
    /// The range as a shared view.
    fn as_view(&self) -> BufferView<'_, T>;
}
impl<T: DeviceCopy> DeviceSlice<T> for Buffer<T> {
    #[inline]
    fn as_view(&self) -> BufferView<'_, T> {
        Buffer::as_view(self)
    }
}
impl<T: DeviceCopy> DeviceSlice<T> for BufferView<'_, T> {
    #[inline]
    fn as_view(&self) -> BufferView<'_, T> {
        *self
    }
}
impl<T: DeviceCopy> DeviceSlice<T> for BufferViewMut<'_, T> {
    #[inline]
    fn as_view(&self) -> BufferView<'_, T> {
        BufferViewMut::as_view(self)
    }
}

/// Anything that can be written as a device range of `T`: [`Buffer`] and [`BufferViewMut`],
/// borrowed mutably (the outputs of [`Blas`](super::Blas)'s operations).
pub trait DeviceSliceMut<T: DeviceCopy>: DeviceSlice<T> {
    /// The range as an exclusive view.
    fn as_view_mut(&mut self) -> BufferViewMut<'_, T>;
}
impl<T: DeviceCopy> DeviceSliceMut<T> for Buffer<T> {
    #[inline]
    fn as_view_mut(&mut self) -> BufferViewMut<'_, T> {
        Buffer::as_view_mut(self)
    }
}
impl<T: DeviceCopy> DeviceSliceMut<T> for BufferViewMut<'_, T> {
    #[inline]
    fn as_view_mut(&mut self) -> BufferViewMut<'_, T> {
        BufferViewMut {
            ptr: self.ptr,
            len: self.len,
            alloc: self.alloc,
            _t: PhantomData,
        }
    }
}

impl<'a, T: DeviceCopy> BufferView<'a, T> {
    #[inline(always)]
    pub(crate) fn arc(&self) -> &'a Arc<Allocation> {
        self.alloc
    }
    /// Notes that the caller just queued work using this view on `stream` (whose context is
    /// current), for layers that queue work themselves (collectives): see
    /// [`Allocation::used_on`].
    ///
    /// # Errors
    /// The capture query's or the event's error.
    #[allow(dead_code)]
    pub(crate) fn note_use(&self, stream: &Stream) -> Result<()> {
        let cap = capture_of(stream)?;
        self.alloc.used_on(stream, cap.id)
    }
    /// The device address of the view's element 0.
    #[inline]
    pub fn as_raw(&self) -> CUdeviceptr {
        self.ptr
    }
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the view has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The context the memory belongs to.
    #[inline]
    pub fn context(&self) -> &'a Context {
        self.alloc.stream.context()
    }
    /// The owner's stream (where the synchronous copies run).
    #[inline]
    pub fn stream(&self) -> &'a Stream {
        &self.alloc.stream
    }
    /// Elements `range` of this view.
    ///
    /// # Errors
    /// A usage error for a range out of bounds or reversed.
    #[inline]
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<BufferView<'a, T>> {
        self.into_view(range)
    }
    #[inline]
    fn into_view(self, range: impl RangeBounds<usize>) -> Result<BufferView<'a, T>> {
        let (s, e) = bounds("Buffer::view", self.len, range)?;
        Ok(BufferView {
            ptr: self.ptr + (s * size_of::<T>()) as CUdeviceptr,
            len: e - s,
            alloc: self.alloc,
            _t: PhantomData,
        })
    }

    /// Copies the view into `dst` and waits (`cuMemcpyDtoHAsync` on the owner's stream, then
    /// `cuStreamSynchronize`): ordered after earlier work on that stream.
    ///
    /// # Errors
    /// A usage error when the lengths differ; the driver's error.
    #[inline]
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        same_len("copy_to_host", self.len, dst.len())?;
        let st = not_capturing("copy_to_host", self.stream())?;
        // SAFETY: `dst` is exclusively borrowed until the synchronize below returns.
        unsafe { self.dtoh(dst.as_mut_ptr(), self.stream(), None)? };
        drop(st);
        self.stream().synchronize()
    }

    /// The view's contents in a new `Vec` (a synchronous copy).
    ///
    /// # Errors
    /// The driver's error.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let st = not_capturing("to_vec", self.stream())?;
        let mut v: Vec<T> = Vec::with_capacity(self.len);
        // SAFETY: the capacity holds `len` values; the copy writes all of them before set_len,
        // and any bit pattern is a valid T (DeviceCopy).
        unsafe {
            self.dtoh(v.as_mut_ptr(), self.stream(), None)?;
            drop(st);
            self.stream().synchronize()?;
            v.set_len(self.len);
        }
        Ok(v)
    }

    /// Queues a copy into `dst` on `stream` (`cuMemcpyDtoHAsync`); `dst`'s host slices wait for
    /// it ([`PinnedBuffer`] tracks the copy with its event).
    ///
    /// # Errors
    /// A usage error when the lengths differ or `stream`, `dst` and the view are of different
    /// contexts; the driver's error.
    #[inline]
    pub fn copy_to_pinned(&self, dst: &mut PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        same_len("copy_to_pinned", self.len, dst.len())?;
        same_context("copy_to_pinned", self.context(), stream.context())?;
        same_context("copy_to_pinned", dst.context(), stream.context())?;
        let ptr = dst.inner.ptr;
        // SAFETY: the pinned memory stays allocated until its event (recorded by `track` after
        // the copy) completes, or as long as the graph of the capture (`track` keeps it alive
        // there), and no host slice of it exists until then (`&mut dst` now, a wait or a
        // refusal later).
        dst.track(stream, |cap| unsafe { self.dtoh(ptr, stream, cap) })
    }

    /// Queues a copy into the raw host slice `dst` on `stream` (`cuMemcpyDtoHAsync`).
    ///
    /// # Safety
    /// `dst` must not be read, written or freed until `stream` has been synchronized (or an
    /// event recorded after this call has completed). Into pageable memory the copy has in
    /// fact completed when this returns, on every backend: CUDA documents it, and the HIP
    /// backend keeps that rule for every supported release on both platforms
    /// (`anycuda::native::hip::pageable_copy_needs_wait`), so this layer never waits for it.
    /// The contract stays the same, so code written to it is also right for pinned memory.
    ///
    /// # Errors
    /// A usage error when the lengths or contexts differ; the driver's error.
    #[inline]
    pub unsafe fn copy_to_host_async(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
        same_len("copy_to_host_async", self.len, dst.len())?;
        same_context("copy_to_host_async", self.context(), stream.context())?;
        let cap = capture_of(stream)?;
        // SAFETY: the caller keeps `dst` untouched until the copy completes.
        unsafe { self.dtoh(dst.as_mut_ptr(), stream, cap.id) }
    }

    /// `cuMemcpyDtoHAsync` of the whole view to `dst` on `stream`, whose capture state is
    /// `cap`; notes the use of the device memory ([`Allocation::used_on`]).
    ///
    /// # Safety
    /// `dst` is valid for `len` writes until the copy completes.
    #[inline]
    unsafe fn dtoh(&self, dst: *mut T, stream: &Stream, cap: Option<u64>) -> Result<()> {
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        stream.context().bind()?;
        // SAFETY: the view is in bounds of a live allocation; `dst` by the caller's contract.
        check("cuMemcpyDtoHAsync", unsafe {
            driver::cuMemcpyDtoHAsync(
                dst.cast::<c_void>(),
                self.ptr,
                self.len * size_of::<T>(),
                stream.as_raw(),
            )
        })?;
        self.alloc.used_on(stream, cap)
    }
}

impl<'a, T: DeviceCopy> BufferViewMut<'a, T> {
    #[inline(always)]
    pub(crate) fn arc(&self) -> &'a Arc<Allocation> {
        self.alloc
    }
    /// As [`BufferView::note_use`], for a written view.
    ///
    /// # Errors
    /// As there.
    #[allow(dead_code)]
    pub(crate) fn note_use(&self, stream: &Stream) -> Result<()> {
        self.as_view().note_use(stream)
    }
    /// The device address of the view's element 0.
    #[inline]
    pub fn as_raw(&self) -> CUdeviceptr {
        self.ptr
    }
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the view has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The context the memory belongs to.
    #[inline]
    pub fn context(&self) -> &'a Context {
        self.alloc.stream.context()
    }
    /// The owner's stream (where the synchronous copies run).
    #[inline]
    pub fn stream(&self) -> &'a Stream {
        &self.alloc.stream
    }
    /// This view, shared.
    #[inline]
    pub fn as_view(&self) -> BufferView<'_, T> {
        BufferView {
            ptr: self.ptr,
            len: self.len,
            alloc: self.alloc,
            _t: PhantomData,
        }
    }
    /// Elements `range` of this view, shared.
    ///
    /// # Errors
    /// A usage error for a range out of bounds or reversed.
    #[inline]
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<BufferView<'_, T>> {
        self.as_view().into_view(range)
    }
    /// Elements `range` of this view, exclusive (reborrows this one).
    ///
    /// # Errors
    /// A usage error for a range out of bounds or reversed.
    #[inline]
    pub fn view_mut(&mut self, range: impl RangeBounds<usize>) -> Result<BufferViewMut<'_, T>> {
        let (s, e) = bounds("Buffer::view_mut", self.len, range)?;
        Ok(BufferViewMut {
            ptr: self.ptr + (s * size_of::<T>()) as CUdeviceptr,
            len: e - s,
            alloc: self.alloc,
            _t: PhantomData,
        })
    }
    #[inline]
    fn into_view_mut(self, range: impl RangeBounds<usize>) -> Result<BufferViewMut<'a, T>> {
        let (s, e) = bounds("Buffer::view_mut", self.len, range)?;
        Ok(BufferViewMut {
            ptr: self.ptr + (s * size_of::<T>()) as CUdeviceptr,
            len: e - s,
            alloc: self.alloc,
            _t: PhantomData,
        })
    }

    /// Copies `src` into the view and waits (`cuMemcpyHtoDAsync` on the owner's stream, then
    /// `cuStreamSynchronize`): ordered after earlier work on that stream.
    ///
    /// # Errors
    /// A usage error when the lengths differ; the driver's error.
    #[inline]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        same_len("copy_from_host", self.len, src.len())?;
        let st = not_capturing("copy_from_host", self.stream())?;
        // SAFETY: `src` is borrowed until the synchronize below returns.
        unsafe { self.htod(src.as_ptr(), self.stream(), None)? };
        drop(st);
        self.stream().synchronize()
    }

    /// Queues a copy from `src` on `stream` (`cuMemcpyHtoDAsync`). `src` records an event after
    /// it, so its host slices wait until the copy has read it.
    ///
    /// # Errors
    /// A usage error when the lengths differ or the contexts do; the driver's error.
    #[inline]
    pub fn copy_from_pinned(&mut self, src: &PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        same_len("copy_from_pinned", self.len, src.len())?;
        same_context("copy_from_pinned", self.context(), stream.context())?;
        same_context("copy_from_pinned", src.context(), stream.context())?;
        let ptr = src.inner.ptr;
        // SAFETY: the pinned memory stays allocated until its event (recorded by `track` after
        // the copy) completes, or as long as the graph of the capture; the host cannot write
        // it before then (`&mut` access waits, or is refused while a graph holds it).
        src.track(stream, |cap| unsafe { self.htod(ptr, stream, cap) })
    }

    /// Queues a copy from the raw host slice `src` on `stream` (`cuMemcpyHtoDAsync`).
    ///
    /// # Safety
    /// `src` must not be written or freed until `stream` has been synchronized (or an event
    /// recorded after this call has completed).
    ///
    /// # Errors
    /// A usage error when the lengths or contexts differ; the driver's error.
    #[inline]
    pub unsafe fn copy_from_host_async(&mut self, src: &[T], stream: &Stream) -> Result<()> {
        same_len("copy_from_host_async", self.len, src.len())?;
        same_context("copy_from_host_async", self.context(), stream.context())?;
        let cap = capture_of(stream)?;
        // SAFETY: the caller keeps `src` alive and unchanged until the copy completes.
        unsafe { self.htod(src.as_ptr(), stream, cap.id) }
    }

    /// `cuMemcpyHtoDAsync` of `src` to the whole view on `stream`, whose capture state is
    /// `cap`; notes the use of the device memory ([`Allocation::used_on`]).
    ///
    /// # Safety
    /// `src` is valid for `len` reads until the copy completes.
    #[inline]
    unsafe fn htod(&mut self, src: *const T, stream: &Stream, cap: Option<u64>) -> Result<()> {
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        stream.context().bind()?;
        // SAFETY: the view is in bounds of a live allocation; `src` by the caller's contract.
        check("cuMemcpyHtoDAsync", unsafe {
            driver::cuMemcpyHtoDAsync(
                self.ptr,
                src.cast::<c_void>(),
                self.len * size_of::<T>(),
                stream.as_raw(),
            )
        })?;
        self.alloc.used_on(stream, cap)
    }

    /// Queues a device-to-device copy from `src` (same context) on `stream`
    /// (`cuMemcpyDtoDAsync`).
    ///
    /// # Errors
    /// A usage error when the lengths differ or `src`, the view and `stream` are not all of one
    /// context (use [`BufferViewMut::copy_from_peer`] across devices); the driver's error.
    #[inline]
    pub fn copy_from<S: DeviceSlice<T> + ?Sized>(
        &mut self,
        src: &S,
        stream: &Stream,
    ) -> Result<()> {
        let src = src.as_view();
        same_len("copy_from", self.len, src.len)?;
        same_context("copy_from", self.context(), src.context())?;
        same_context("copy_from", self.context(), stream.context())?;
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        let cap = capture_of(stream)?;
        // SAFETY: both ranges are in bounds of live allocations of the current context.
        check("cuMemcpyDtoDAsync", unsafe {
            driver::cuMemcpyDtoDAsync(
                self.ptr,
                src.ptr,
                self.len * size_of::<T>(),
                stream.as_raw(),
            )
        })?;
        self.alloc.used_on(stream, cap.id)?;
        src.alloc.used_on(stream, cap.id)
    }

    /// Queues a copy from `src` on another device (or the same) on `stream`, a stream of this
    /// view's context (`cuMemcpyPeerAsync`; staged through the host where the devices have no
    /// peer access). Order `src`'s producers before it with [`Stream::wait`] or
    /// [`Stream::wait_event`].
    ///
    /// The stream must be the destination's so that every safe write into a buffer is ordered
    /// in the buffer's own context (what host-accessible buffers wait for).
    ///
    /// # Errors
    /// A usage error when the lengths differ or `stream` is of another context than the view;
    /// the driver's error.
    pub fn copy_from_peer<S: DeviceSlice<T> + ?Sized>(
        &mut self,
        src: &S,
        stream: &Stream,
    ) -> Result<()> {
        let src = src.as_view();
        same_len("copy_from_peer", self.len, src.len)?;
        same_context("copy_from_peer", self.context(), stream.context())?;
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        let cap = capture_of(stream)?;
        // SAFETY: both ranges are in bounds of live allocations of their (retained) contexts.
        check("cuMemcpyPeerAsync", unsafe {
            driver::cuMemcpyPeerAsync(
                self.ptr,
                self.context().as_raw(),
                src.ptr,
                src.context().as_raw(),
                self.len * size_of::<T>(),
                stream.as_raw(),
            )
        })?;
        self.alloc.used_on(stream, cap.id)?;
        src.alloc.used_on(stream, cap.id)
    }

    /// Queues setting every element to `value` on `stream` (`cuMemsetD8/D16/D32Async` by
    /// element size).
    ///
    /// # Errors
    /// A usage error for elements that are not 1, 2 or 4 bytes (use a kernel, or
    /// [`BufferViewMut::zero`] for zeros), or for a stream of another context; the driver's
    /// error (`CUDA_ERROR_INVALID_VALUE` for a view not aligned to the element size).
    #[inline]
    pub fn fill(&mut self, value: T, stream: &Stream) -> Result<()> {
        same_context("fill", self.context(), stream.context())?;
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        let cap = capture_of(stream)?;
        let s = stream.as_raw();
        let (p, n) = (self.ptr, self.len);
        let r = match size_of::<T>() {
            1 => {
                // SAFETY: T is 1 byte of plain data.
                let v: u8 = unsafe { std::mem::transmute_copy(&value) };
                stream.context().bind()?;
                // SAFETY: `n` bytes in bounds of a live allocation of the current context.
                check("cuMemsetD8Async", unsafe {
                    driver::cuMemsetD8Async(p, v, n, s)
                })
            }
            2 => {
                // SAFETY: T is 2 bytes of plain data.
                let v: c_ushort = unsafe { std::mem::transmute_copy(&value) };
                stream.context().bind()?;
                // SAFETY: `n` 16-bit values in bounds of a live allocation.
                check("cuMemsetD16Async", unsafe {
                    driver::cuMemsetD16Async(p, v, n, s)
                })
            }
            4 => {
                // SAFETY: T is 4 bytes of plain data.
                let v: c_uint = unsafe { std::mem::transmute_copy(&value) };
                stream.context().bind()?;
                // SAFETY: `n` 32-bit values in bounds of a live allocation.
                check("cuMemsetD32Async", unsafe {
                    driver::cuMemsetD32Async(p, v, n, s)
                })
            }
            _ => Err(CoreError::usage(
                "fill",
                "memset fills 1-, 2- or 4-byte elements only",
            )),
        };
        r?;
        self.alloc.used_on(stream, cap.id)
    }

    /// Queues zeroing the view on `stream` (`cuMemsetD8Async`), for any element type.
    ///
    /// # Errors
    /// A usage error for a stream of another context; the driver's error.
    #[inline]
    pub fn zero(&mut self, stream: &Stream) -> Result<()> {
        same_context("zero", self.context(), stream.context())?;
        if self.len == 0 || size_of::<T>() == 0 {
            return Ok(());
        }
        let cap = capture_of(stream)?;
        // SAFETY: the view's bytes are in bounds of a live allocation of the current context.
        check("cuMemsetD8Async", unsafe {
            driver::cuMemsetD8Async(self.ptr, 0, self.len * size_of::<T>(), stream.as_raw())
        })?;
        self.alloc.used_on(stream, cap.id)
    }
}

/// Delegates the read operations of [`BufferView`] to an owner type.
macro_rules! read_ops {
    ($($lt:lifetime)?, $ty:ty) => {
        impl<$($lt,)? T: DeviceCopy> $ty {
            /// See [`BufferView::copy_to_host`].
            ///
            /// # Errors
            /// As there.
            #[inline]
            pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
                self.as_view().copy_to_host(dst)
            }
            /// See [`BufferView::to_vec`].
            ///
            /// # Errors
            /// As there.
            pub fn to_vec(&self) -> Result<Vec<T>> {
                self.as_view().to_vec()
            }
            /// See [`BufferView::copy_to_pinned`].
            ///
            /// # Errors
            /// As there.
            #[inline]
            pub fn copy_to_pinned(&self, dst: &mut PinnedBuffer<T>, stream: &Stream) -> Result<()> {
                self.as_view().copy_to_pinned(dst, stream)
            }
            /// See [`BufferView::copy_to_host_async`].
            ///
            /// # Safety
            /// As there: `dst` untouched until `stream` is synchronized.
            ///
            /// # Errors
            /// As there.
            #[inline]
            pub unsafe fn copy_to_host_async(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
                // SAFETY: forwarded contract.
                unsafe { self.as_view().copy_to_host_async(dst, stream) }
            }
        }
    };
}
read_ops!(, Buffer<T>);
read_ops!('a, BufferViewMut<'a, T>);

impl<T: DeviceCopy> Buffer<T> {
    /// See [`BufferViewMut::copy_from_host`].
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.as_view_mut().copy_from_host(src)
    }
    /// See [`BufferViewMut::copy_from_pinned`].
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub fn copy_from_pinned(&mut self, src: &PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        self.as_view_mut().copy_from_pinned(src, stream)
    }
    /// See [`BufferViewMut::copy_from_host_async`].
    ///
    /// # Safety
    /// As there: `src` unchanged and alive until `stream` is synchronized.
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub unsafe fn copy_from_host_async(&mut self, src: &[T], stream: &Stream) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.as_view_mut().copy_from_host_async(src, stream) }
    }
    /// See [`BufferViewMut::copy_from`].
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub fn copy_from<S: DeviceSlice<T> + ?Sized>(
        &mut self,
        src: &S,
        stream: &Stream,
    ) -> Result<()> {
        self.as_view_mut().copy_from(src, stream)
    }
    /// See [`BufferViewMut::copy_from_peer`].
    ///
    /// # Errors
    /// As there.
    pub fn copy_from_peer<S: DeviceSlice<T> + ?Sized>(
        &mut self,
        src: &S,
        stream: &Stream,
    ) -> Result<()> {
        self.as_view_mut().copy_from_peer(src, stream)
    }
    /// See [`BufferViewMut::fill`].
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub fn fill(&mut self, value: T, stream: &Stream) -> Result<()> {
        self.as_view_mut().fill(value, stream)
    }
    /// See [`BufferViewMut::zero`].
    ///
    /// # Errors
    /// As there.
    #[inline]
    pub fn zero(&mut self, stream: &Stream) -> Result<()> {
        self.as_view_mut().zero(stream)
    }
}

impl Stream {
    /// `len` elements of device memory on this stream ([`Buffer::new`]).
    ///
    /// # Errors
    /// As [`Buffer::new`].
    #[inline]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<Buffer<T>> {
        Buffer::new(self, len)
    }
    /// `len` zeroed elements ([`Buffer::zeroed`]).
    ///
    /// # Errors
    /// As [`Buffer::zeroed`].
    pub fn alloc_zeros<T: DeviceCopy>(&self, len: usize) -> Result<Buffer<T>> {
        Buffer::zeroed(self, len)
    }
    /// A device copy of `src` ([`Buffer::from_slice`]).
    ///
    /// # Errors
    /// As [`Buffer::from_slice`].
    pub fn clone_from_host<T: DeviceCopy>(&self, src: &[T]) -> Result<Buffer<T>> {
        Buffer::from_slice(self, src)
    }
}

/// Page-locked host memory for `len` values of `T`, the safe partner of stream-ordered copies.
///
/// An event is recorded after every asynchronous copy that reads or writes it; host slices
/// ([`PinnedBuffer::as_slice`], [`PinnedBuffer::as_mut_slice`]) wait for that event first, and a
/// new copy on another stream first waits for the previous one, so the event always covers
/// every copy in flight (copies queued from several threads at once are serialized by a
/// mutex). Nothing here is a guard that `mem::forget` could skip: the wait happens before a
/// slice is handed out, and on drop.
///
/// `Send + Sync`: it owns its memory like a `Vec<T>`; the copy tracking is behind a mutex.
///
/// ```no_run
/// use anycuda::core::{Device, PinnedBuffer, StreamOptions};
/// let ctx = Device::new(0)?.context()?;
/// let s = ctx.create_stream(StreamOptions::default())?;
/// let mut host = PinnedBuffer::from_slice(&ctx, &[1u32, 2, 3])?;
/// let mut dev = s.alloc::<u32>(3)?;
/// dev.copy_from_pinned(&host, &s)?;
/// dev.fill(7, &s)?;
/// dev.copy_to_pinned(&mut host, &s)?;
/// assert_eq!(host.as_slice()?, &[7, 7, 7]); // waits for the copy
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct PinnedBuffer<T: DeviceCopy> {
    inner: Arc<PinnedInner<T>>,
}

/// The memory and copy tracking of a [`PinnedBuffer`], shared with graphs that captured a copy
/// of it; freed when the last holder drops.
struct PinnedInner<T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    ctx: Context,
    event: Event,
    /// The stream of the last recorded copy, while one may be in flight (`None`: none is).
    /// Holding the stream keeps its handle from being reused by another stream.
    last: Mutex<Option<Stream>>,
}

// SAFETY: owns its allocation like a Vec<T> (T: DeviceCopy is Send + Sync); host access goes
// through &/&mut borrows of the PinnedBuffer after waiting for the device; the tracking state
// is in a Mutex.
unsafe impl<T: DeviceCopy> Send for PinnedInner<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy> Sync for PinnedInner<T> {}

impl<T: DeviceCopy> fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("ptr", &self.inner.ptr)
            .field("len", &self.inner.len)
            .field("pending", &self.is_pending())
            .finish()
    }
}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// `len` zeroed values of pinned host memory (`cuMemHostAlloc(PORTABLE | DEVICEMAP)`).
    ///
    /// # Errors
    /// The allocation error, or a usage error when the size overflows.
    pub fn new(ctx: &Context, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>("PinnedBuffer::new", len)?;
        let event = Event::new(ctx, EventOptions::default())?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            let p = host_alloc(ctx, bytes)?.cast::<T>();
            // SAFETY: `bytes` writable bytes, just allocated; zero is a valid T (DeviceCopy).
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            p
        };
        Ok(Self {
            inner: Arc::new(PinnedInner {
                ptr,
                len,
                ctx: ctx.clone(),
                event,
                last: Mutex::new(None),
            }),
        })
    }

    /// Pinned memory holding a copy of `src`.
    ///
    /// # Errors
    /// As [`PinnedBuffer::new`].
    pub fn from_slice(ctx: &Context, src: &[T]) -> Result<Self> {
        let mut b = Self::new(ctx, src.len())?;
        b.as_mut_slice()?.copy_from_slice(src);
        Ok(b)
    }

    /// The host address (also the device address, under unified addressing).
    #[inline]
    pub fn as_ptr(&self) -> *const T {
        self.inner.ptr
    }
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.inner.len
    }
    /// Whether it has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }
    /// The context the memory is registered with.
    #[inline]
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }
    /// Whether a copy may still be using the memory (`false` after a wait).
    #[inline]
    pub fn is_pending(&self) -> bool {
        self.inner.tracker().is_some()
    }
    /// Whether a graph (or a capture in progress) holds the memory: host slices are refused
    /// until it drops.
    #[inline]
    pub fn is_held_by_graph(&self) -> bool {
        Arc::strong_count(&self.inner) > 1
    }

    /// Waits for the asynchronous copies that use this memory.
    ///
    /// # Errors
    /// The error of a failed copy (`cuEventSynchronize`).
    #[inline]
    pub fn wait(&self) -> Result<()> {
        self.inner.wait()
    }

    fn host_access(&self, op: &'static str) -> Result<()> {
        if self.is_held_by_graph() {
            return Err(CoreError::usage(
                op,
                "a graph, an executable graph or a stream capture in progress holds this pinned \
                 memory (a captured copy): drop them (or end the capture) first",
            ));
        }
        self.wait()
    }

    /// The contents, after waiting for copies that write them.
    ///
    /// # Errors
    /// A usage error while a graph holds the memory; as [`PinnedBuffer::wait`].
    #[inline]
    pub fn as_slice(&self) -> Result<&[T]> {
        self.host_access("PinnedBuffer::as_slice")?;
        // SAFETY: `len` initialised values (zeroed at allocation, written only by copies of
        // DeviceCopy data); copies that write need `&mut self`, those queued earlier have
        // completed (the wait above), and no graph can write it (refused above while one holds
        // it; a graph only gets it through `&mut self` or `&self` of a copy call).
        Ok(unsafe { std::slice::from_raw_parts(self.inner.ptr, self.inner.len) })
    }

    /// The contents, mutable, after waiting for every copy that reads or writes them.
    ///
    /// # Errors
    /// As [`PinnedBuffer::as_slice`].
    #[inline]
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.host_access("PinnedBuffer::as_mut_slice")?;
        // SAFETY: as in `as_slice`; `&mut self` excludes every other access and new copies.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.inner.ptr, self.inner.len) })
    }

    /// Queues a copy (`enqueue`, given the capture state) on `stream`, ordered after the
    /// copies in flight on other streams, and records the event after it. On the same stream
    /// as the last copy, stream order already covers it: no wait is queued.
    ///
    /// While `stream` is capturing, waits on the host for the copies in flight instead, and
    /// keeps the memory alive for the graph (no event: the copy runs when the graph does, and
    /// host slices are refused while the graph lives).
    ///
    /// If recording fails after a successful enqueue, waits for the stream instead so no copy
    /// is left untracked.
    #[inline]
    fn track(
        &self,
        stream: &Stream,
        enqueue: impl FnOnce(Option<u64>) -> Result<()>,
    ) -> Result<()> {
        let cap = capture_of(stream)?;
        if let Some(id) = cap.id {
            self.wait()?;
            track::keep_for_capture(id, self.inner.clone());
            return enqueue(cap.id);
        }
        let inner = &*self.inner;
        let mut last = inner.tracker();
        let same = last.as_ref().map(|l| l.same(stream));
        if same == Some(false) {
            stream.wait_raw_event(inner.event.as_raw())?;
        }
        enqueue(None)?;
        // SAFETY: both handles alive; same context (checked by the callers).
        let r = unsafe { driver::cuEventRecord(inner.event.as_raw(), stream.as_raw()) };
        if r == CUresult::CUDA_SUCCESS {
            if same != Some(true) {
                *last = Some(stream.clone());
            }
            return Ok(());
        }
        if stream.synchronize().is_ok() {
            // This stream waited for the earlier copies (or ran them): all are done.
            *last = None;
        } else {
            // The stream is broken; keep waiting on the event (which then reports the error)
            // rather than hand out memory a copy might still touch.
            *last = Some(stream.clone());
        }
        check("cuEventRecord", r)
    }
}

impl<T: DeviceCopy> PinnedInner<T> {
    fn tracker(&self) -> std::sync::MutexGuard<'_, Option<Stream>> {
        // A panic while holding the lock leaves the state valid (it is only ever replaced
        // whole), so a poisoned lock is used as it is.
        track::lock(&self.last)
    }

    fn wait(&self) -> Result<()> {
        let mut last = self.tracker();
        if last.is_some() {
            self.event.synchronize()?;
            // Every copy records under this lock, so none is in flight now.
            *last = None;
        }
        Ok(())
    }
}

impl<T: DeviceCopy> Drop for PinnedInner<T> {
    fn drop(&mut self) {
        if let Err(e) = self.wait() {
            // A failed copy is an error of the context (sticky); the copies are no longer
            // running, so freeing is still right.
            log::error!("anycuda::core: waiting for a pinned buffer's copies: {e}");
        }
        if self.len == 0 || size_of::<T>() == 0 {
            return;
        }
        let bound = self.ctx.bind();
        // SAFETY: allocated by cuMemHostAlloc, no copy in flight (waited above; a graph that
        // captured a copy held this memory until it dropped, and an executable graph waits for
        // its launches before dropping), freed once.
        let r = unsafe { driver::cuMemFreeHost(self.ptr.cast::<c_void>()) };
        if let Err(e) = bound.and(check("cuMemFreeHost", r)) {
            log::error!("anycuda::core: freeing a pinned buffer: {e}");
        }
    }
}
