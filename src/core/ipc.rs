//! Interprocess communication (CUDA's `cuIpc*`): share device memory and events with another
//! process on the same machine.
//!
//! The exporting process turns a [`Buffer`](super::Buffer) (or a view of one) into an
//! [`IpcMemHandle`] and an interprocess [`Event`]
//! ([`EventOptions::ipc_enabled`](super::EventOptions::ipc_enabled)) into an [`IpcEventHandle`];
//! both are plain bytes ([`IpcMemHandle::to_bytes`], [`IpcEventHandle::to_bytes`]) to send by any
//! means (a pipe, a socket, a file). The other process opens them with [`IpcMemory::open`] and
//! [`Event::from_ipc_handle`].
//!
//! What CUDA (and so anycuda) does not allow, answered with the driver's error:
//! - opening a handle in the process that made it (CUDA answers `CUDA_ERROR_INVALID_CONTEXT`
//!   or similar): IPC is between processes;
//! - memory from stream-ordered pools (`cuMemAllocAsync`, which
//!   [`Buffer::new`](super::Buffer::new) uses where the device has pools): `cuIpcGetMemHandle`
//!   refuses it. Allocate what you share from
//!   [`DeviceMemoryResource::without_pools`](super::DeviceMemoryResource::without_pools)
//!   (`cuMemAlloc`), as the example below does;
//! - pinned or managed host memory, and events created without `CU_EVENT_INTERPROCESS`;
//! - a backend or device without IPC (some HIP releases, some platforms): the backend's
//!   not-supported error, or whatever code the driver gives.
//!
//! Lifetimes cross the process boundary, where Rust cannot follow them: CUDA (and HIP) leave it
//! undefined what happens when the exporting process frees the memory before every importer has
//! closed it, or destroys the event while an importer still uses it. So the two opening calls,
//! [`IpcMemory::open`] and [`Event::from_ipc_handle`], are `unsafe`, with that contract (as
//! mapping a file another process may change is `unsafe` in Rust); the exporting side keeps its
//! buffer and [`Event`] alive until the importers are done (tell it, e.g. over the channel
//! the handles went through). Ordering work between the processes is the events' job, as in
//! CUDA.
//!
//! ```no_run
//! use anycuda::core::{Buffer, Device, DeviceMemoryResource, EventOptions, IpcMemHandle};
//! use std::sync::Arc;
//! // Exporting process.
//! let ctx = Device::new(0)?.context()?;
//! let stream = ctx.default_stream();
//! let mr = Arc::new(DeviceMemoryResource::without_pools(&ctx));
//! let mut buf = Buffer::<f32>::new_in(mr, &stream, 1024)?;
//! buf.fill(1.0, &stream)?;
//! let ready = stream.record(EventOptions::ipc())?;
//! let mem_bytes = IpcMemHandle::new(&buf)?.to_bytes();
//! let event_bytes = ready.ipc_handle()?.to_bytes();
//! // ... send `mem_bytes` and `event_bytes` to the other process; keep `buf` and `ready`
//! // until it says it has dropped what it opened ...
//! # Ok::<(), anycuda::core::CoreError>(())
//! ```
//! ```no_run
//! use anycuda::core::{Device, Event, IpcEventHandle, IpcMemHandle, IpcMemory};
//! # let (mem_bytes, event_bytes) = (vec![0u8; IpcMemHandle::SIZE], [0u8; IpcEventHandle::SIZE]);
//! // Importing process, with the bytes received.
//! let ctx = Device::new(0)?.context()?;
//! let ev_h = IpcEventHandle::from_bytes(&event_bytes)?;
//! let mem_h = IpcMemHandle::from_bytes(&mem_bytes)?;
//! // SAFETY: the exporter keeps the event and the buffer alive until we tell it we are done,
//! // after `ready` and `mem` are dropped.
//! let ready = unsafe { Event::from_ipc_handle(&ctx, &ev_h)? };
//! // SAFETY: as above.
//! let mem: IpcMemory<f32> = unsafe { IpcMemory::open(&ctx, &mem_h)? };
//! ready.synchronize()?; // the exporter's fill has completed
//! assert!(mem.to_vec()?.iter().all(|&x| x == 1.0));
//! drop((ready, mem));
//! // ... tell the exporter ...
//! # Ok::<(), anycuda::core::CoreError>(())
//! ```

use super::context::Context;
use super::device::Device;
use super::error::{check, CoreError, Result};
use super::event::Event;
use super::launch::KernelArg;
use super::memory::{BufferViewMut, DeviceCopy, DeviceSlice};
use super::stream::Stream;
use crate::driver::{
    self, CUcontext, CUdeviceptr, CUevent, CUipcEventHandle, CUipcMemHandle, CUipcMem_flags,
};
use std::ffi::{c_char, c_uint, c_void};
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;

/// The size of CUDA's opaque IPC handles (`CU_IPC_HANDLE_SIZE`).
const RAW: usize = 64;

const _: () = assert!(RAW == driver::CU_IPC_HANDLE_SIZE as usize);
const _: () = assert!(size_of::<CUipcEventHandle>() == RAW);
const _: () = assert!(size_of::<CUipcMemHandle>() == RAW);

fn raw_bytes(r: &[c_char; RAW]) -> [u8; RAW] {
    r.map(|c| c as u8)
}

fn raw_chars(b: &[u8; RAW]) -> [c_char; RAW] {
    b.map(|c| c as c_char)
}

fn hex_prefix(f: &mut fmt::Formatter<'_>, b: &[u8]) -> fmt::Result {
    for x in &b[..8] {
        write!(f, "{x:02x}")?;
    }
    f.write_str("…")
}

/// An interprocess event's handle (`CUipcEventHandle`, cuda.core's `IPCEventDescriptor`):
/// 64 opaque bytes to send to another process, which opens it with
/// [`Event::from_ipc_handle`].
///
/// Plain data: `Copy`, `Send + Sync`.
///
/// ```
/// use anycuda::core::IpcEventHandle;
/// let h = IpcEventHandle::from_bytes(&[7u8; IpcEventHandle::SIZE])?;
/// assert_eq!(h.to_bytes(), [7u8; 64]);
/// assert!(IpcEventHandle::from_bytes(&[0u8; 3]).is_err());
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcEventHandle([u8; RAW]);

impl fmt::Debug for IpcEventHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IpcEventHandle(")?;
        hex_prefix(f, &self.0)?;
        f.write_str(")")
    }
}

impl IpcEventHandle {
    /// The length of [`IpcEventHandle::to_bytes`]: 64 (`CU_IPC_HANDLE_SIZE`).
    pub const SIZE: usize = RAW;

    /// The handle's bytes, to send to another process.
    #[inline]
    pub fn to_bytes(&self) -> [u8; RAW] {
        self.0
    }

    /// A handle from bytes received from another process.
    ///
    /// # Errors
    /// A usage error unless `bytes` is exactly [`IpcEventHandle::SIZE`] long.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let b: [u8; RAW] = bytes.try_into().map_err(|_| {
            CoreError::usage(
                "IpcEventHandle::from_bytes",
                format!("{} bytes, expected {RAW}", bytes.len()),
            )
        })?;
        Ok(Self(b))
    }

    /// The raw `CUipcEventHandle`.
    #[inline]
    pub fn as_raw(&self) -> CUipcEventHandle {
        CUipcEventHandle {
            reserved: raw_chars(&self.0),
        }
    }

    /// Wraps a raw `CUipcEventHandle` (from the raw layer, or another CUDA program).
    #[inline]
    pub fn from_raw(raw: CUipcEventHandle) -> Self {
        Self(raw_bytes(&raw.reserved))
    }
}

/// Event IPC (defined here, with the handle types).
impl Event {
    /// This event's interprocess handle (`cuIpcGetEventHandle`; cuda.core's
    /// `Event.get_ipc_descriptor()`). The event must have been created with
    /// [`EventOptions::ipc_enabled`](super::EventOptions::ipc_enabled).
    ///
    /// # Errors
    /// A usage error for an event without `ipc_enabled`; the driver's error (the backend's
    /// not-supported error where it has no event IPC).
    pub fn ipc_handle(&self) -> Result<IpcEventHandle> {
        if !self.is_ipc_enabled() {
            return Err(CoreError::usage(
                "Event::ipc_handle",
                "the event was not created with EventOptions::ipc_enabled",
            ));
        }
        self.context().bind()?;
        let mut h = CUipcEventHandle { reserved: [0; RAW] };
        // SAFETY: valid out-pointer; the event is alive and of the current context.
        check("cuIpcGetEventHandle", unsafe {
            driver::cuIpcGetEventHandle(&mut h, self.as_raw())
        })?;
        Ok(IpcEventHandle::from_raw(h))
    }

    /// Opens an interprocess event another process exported (`cuIpcOpenEventHandle`;
    /// cuda.core's `Event.from_ipc_descriptor`). The returned `Event` is this process's
    /// reference to it, destroyed on drop; it has timing off and
    /// [`Event::is_ipc_enabled`] true. Wait on it ([`Event::synchronize`],
    /// [`Stream::wait_event`]) to order work after the other process's record.
    ///
    /// # Safety
    /// The exporting process must not destroy its event while the returned `Event` (or work
    /// queued on it) is in use here: CUDA and HIP leave operations on an imported event after
    /// the exporter destroyed it undefined.
    ///
    /// # Errors
    /// The driver's error: an error for a handle made in this same process (CUDA and HIP
    /// refuse that, `CUDA_ERROR_INVALID_CONTEXT`), an invalid handle, or no IPC on the backend
    /// or device.
    pub unsafe fn from_ipc_handle(ctx: &Context, handle: &IpcEventHandle) -> Result<Event> {
        ctx.bind()?;
        let mut raw: CUevent = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the handle is passed by value; the context is current.
        check("cuIpcOpenEventHandle", unsafe {
            driver::cuIpcOpenEventHandle(&mut raw, handle.as_raw())
        })?;
        // cuEventDestroy releases an opened event, as it does a created one.
        Ok(Event::from_owned_raw(ctx, raw, false, true))
    }
}

/// A buffer's interprocess handle (`CUipcMemHandle`, with where the buffer lies in its
/// allocation and its size; cuda.core's `IPCBufferDescriptor`): [`IpcMemHandle::SIZE`] bytes
/// to send to another process, which opens it with [`IpcMemory::open`].
///
/// The wire format of [`IpcMemHandle::to_bytes`]: CUDA's 64-byte handle, then the offset of
/// the buffer in the allocation and its size in bytes, each as a little-endian `u64`.
/// Plain data: `Copy`, `Send + Sync`.
///
/// ```
/// use anycuda::core::IpcMemHandle;
/// let mut bytes = [0u8; IpcMemHandle::SIZE];
/// bytes[64] = 16; // offset 16
/// bytes[72] = 64; // 64 bytes
/// let h = IpcMemHandle::from_bytes(&bytes)?;
/// assert_eq!((h.offset(), h.size_in_bytes()), (16, 64));
/// assert_eq!(h.to_bytes(), bytes);
/// assert!(IpcMemHandle::from_bytes(&bytes[..64]).is_err());
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcMemHandle {
    raw: [u8; RAW],
    offset: usize,
    size: usize,
}

impl fmt::Debug for IpcMemHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IpcMemHandle(")?;
        hex_prefix(f, &self.raw)?;
        write!(f, ", offset {}, {} bytes)", self.offset, self.size)
    }
}

impl IpcMemHandle {
    /// The length of [`IpcMemHandle::to_bytes`]: 80 (CUDA's 64-byte handle, offset, size).
    pub const SIZE: usize = RAW + 16;

    /// The interprocess handle of the memory of `buf`, a [`Buffer`](super::Buffer) or a view of
    /// one (`cuMemGetAddressRange` for the allocation it lies in, then `cuIpcGetMemHandle` of
    /// that allocation, with the range's offset in it; cuda.core's
    /// `Buffer.get_ipc_descriptor()`).
    ///
    /// The memory must come from `cuMemAlloc`
    /// ([`DeviceMemoryResource::without_pools`](super::DeviceMemoryResource::without_pools)):
    /// CUDA refuses memory from stream-ordered pools (what
    /// [`Buffer::new`](super::Buffer::new) uses where the device has them), and host (pinned,
    /// managed) memory.
    ///
    /// Keep the buffer alive until every process that opened the handle has dropped its
    /// [`IpcMemory`]: CUDA leaves freeing exported memory before the importers close it
    /// undefined (the importers' [`IpcMemory::open`] is `unsafe` for that reason).
    ///
    /// # Errors
    /// A usage error for an empty range; the driver's error for memory it cannot share
    /// (pools, host memory) and where the backend or device has no IPC.
    pub fn new<T: DeviceCopy, S: DeviceSlice<T> + ?Sized>(buf: &S) -> Result<Self> {
        let buf = buf.as_view();
        let size = buf.len() * size_of::<T>();
        if size == 0 {
            return Err(CoreError::usage(
                "IpcMemHandle::new",
                "an empty range has no memory to share",
            ));
        }
        buf.context().bind()?;
        let (base, range) = address_range(buf.as_raw())?;
        let offset = buf.as_raw().checked_sub(base).map(|o| o as usize);
        let Some(offset) = offset.filter(|o| o.checked_add(size).is_some_and(|e| e <= range))
        else {
            return Err(CoreError::usage(
                "IpcMemHandle::new",
                "the buffer does not lie inside one allocation",
            ));
        };
        let mut h = CUipcMemHandle { reserved: [0; RAW] };
        // SAFETY: valid out-pointer; `base` is the start of a live allocation of the current
        // context (buf holds it).
        check("cuIpcGetMemHandle", unsafe {
            driver::cuIpcGetMemHandle(&mut h, base)
        })?;
        Ok(Self {
            raw: raw_bytes(&h.reserved),
            offset,
            size,
        })
    }

    /// A handle from its parts: a raw `CUipcMemHandle` of an allocation (from the raw layer or
    /// another CUDA program), and the byte range in it that is shared. [`IpcMemory::open`]
    /// checks the range against the allocation it maps.
    #[inline]
    pub fn from_raw_parts(raw: CUipcMemHandle, offset: usize, size_in_bytes: usize) -> Self {
        Self {
            raw: raw_bytes(&raw.reserved),
            offset,
            size: size_in_bytes,
        }
    }

    /// The raw `CUipcMemHandle` (of the whole allocation).
    #[inline]
    pub fn as_raw(&self) -> CUipcMemHandle {
        CUipcMemHandle {
            reserved: raw_chars(&self.raw),
        }
    }

    /// Where the shared buffer starts in its allocation, in bytes.
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The shared buffer's size in bytes.
    #[inline]
    pub fn size_in_bytes(&self) -> usize {
        self.size
    }

    /// The handle's bytes, to send to another process (the format is in the type's docs).
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[..RAW].copy_from_slice(&self.raw);
        b[RAW..RAW + 8].copy_from_slice(&(self.offset as u64).to_le_bytes());
        b[RAW + 8..].copy_from_slice(&(self.size as u64).to_le_bytes());
        b
    }

    /// A handle from bytes received from another process.
    ///
    /// # Errors
    /// A usage error unless `bytes` is exactly [`IpcMemHandle::SIZE`] long, or when the offset
    /// or size does not fit a `usize`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        const OP: &str = "IpcMemHandle::from_bytes";
        if bytes.len() != Self::SIZE {
            return Err(CoreError::usage(
                OP,
                format!("{} bytes, expected {}", bytes.len(), Self::SIZE),
            ));
        }
        let word = |at: usize| -> Result<usize> {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            usize::try_from(u64::from_le_bytes(w))
                .map_err(|_| CoreError::usage(OP, "the offset or size does not fit a usize"))
        };
        let mut raw = [0u8; RAW];
        raw.copy_from_slice(&bytes[..RAW]);
        Ok(Self {
            raw,
            offset: word(RAW)?,
            size: word(RAW + 8)?,
        })
    }
}

/// `(base, size)` of the allocation holding `p` (`cuMemGetAddressRange`); the right context
/// must be current.
fn address_range(p: CUdeviceptr) -> Result<(CUdeviceptr, usize)> {
    let (mut base, mut size): (CUdeviceptr, usize) = (0, 0);
    // SAFETY: valid out-pointers; the driver checks `p`.
    check("cuMemGetAddressRange", unsafe {
        driver::cuMemGetAddressRange(&mut base, &mut size, p)
    })?;
    Ok((base, size))
}

/// Device memory another process shared, mapped into this one (`cuIpcOpenMemHandle`), typed
/// as `len` values of `T`; unmapped (`cuIpcCloseMemHandle`) on drop. Holds its [`Context`].
///
/// The mapping is checked when opened: the shared range must lie inside the allocation the
/// driver mapped (`cuMemGetAddressRange`), so the copies here, bounded by `len`, stay inside
/// memory the other process shared. The contents are whatever that process wrote (any bit
/// pattern is a valid `T`); order reads after its writes with an interprocess event.
///
/// Pass `&mem` or `&mut mem` to [`launch`](super::launch()) as a kernel's pointer argument, as a
/// [`Buffer`](super::Buffer); copy to and from buffers of the same context with
/// [`IpcMemory::copy_from_device`] and [`IpcMemory::copy_to_device`].
///
/// `Send + Sync` (for `T: DeviceCopy`): a device address reached only through driver calls;
/// writing needs `&mut`.
///
/// ```no_run
/// use anycuda::core::{Device, IpcMemHandle, IpcMemory};
/// # let bytes = [0u8; IpcMemHandle::SIZE];
/// let ctx = Device::new(0)?.context()?;
/// let handle = IpcMemHandle::from_bytes(&bytes)?;
/// // SAFETY: the exporting process keeps the buffer until we report that `mem` is dropped.
/// let mut mem = unsafe { IpcMemory::<u32>::open(&ctx, &handle)? };
/// let mut v = mem.to_vec()?;
/// v.iter_mut().for_each(|x| *x += 1);
/// mem.copy_from_host(&v)?; // the exporting process sees it
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct IpcMemory<T: DeviceCopy> {
    /// What `cuIpcOpenMemHandle` returned: the allocation's base, closed on drop.
    base: CUdeviceptr,
    /// The shared buffer's element 0 (`base` + the handle's offset).
    ptr: CUdeviceptr,
    len: usize,
    ctx: Context,
    _t: PhantomData<T>,
}

// SAFETY: a device address and a context; the memory is reached only through thread-safe
// driver calls, and every write needs `&mut self`.
unsafe impl<T: DeviceCopy> Send for IpcMemory<T> {}
// SAFETY: as above; `&self` methods only read the memory.
unsafe impl<T: DeviceCopy> Sync for IpcMemory<T> {}

impl<T: DeviceCopy> fmt::Debug for IpcMemory<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IpcMemory")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("len", &self.len)
            .field("device", &self.ctx.device().ordinal())
            .finish()
    }
}

impl<T: DeviceCopy> Drop for IpcMemory<T> {
    fn drop(&mut self) {
        // Work still using the mapping (a kernel given `as_raw`) must finish before the unmap:
        // wait for the context, then close. An error is logged, never panicked on.
        let r = self.ctx.bind().and_then(|()| {
            if let Err(e) = self.ctx.synchronize() {
                log::error!("anycuda::core: waiting before closing IPC memory: {e}");
            }
            // SAFETY: `base` came from cuIpcOpenMemHandle in this context and is closed once,
            // here.
            check("cuIpcCloseMemHandle", unsafe {
                driver::cuIpcCloseMemHandle(self.base)
            })
        });
        if let Err(e) = r {
            log::error!("anycuda::core: closing IPC memory: {e}");
        }
    }
}

impl<T: DeviceCopy> IpcMemory<T> {
    /// Maps the memory `handle` names into `ctx` (`cuIpcOpenMemHandle` with
    /// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, so `ctx` may be of another device than the
    /// exporter's), as `handle.size_in_bytes() / size_of::<T>()` values of `T` (cuda.core's
    /// `Buffer.from_ipc_descriptor`).
    ///
    /// The handle is untrusted input: its range is checked against the allocation the driver
    /// mapped before any copy can use it. Opening the same handle twice in one context: recent
    /// CUDA drivers return the same address and count references (each `IpcMemory` closes its
    /// own), older ones refuse with an error.
    ///
    /// # Safety
    /// The exporting process must keep the memory allocated (not free its buffer) until the
    /// returned `IpcMemory` is dropped here, and until work queued here that uses the memory
    /// has completed: CUDA and HIP leave freeing exported memory before the importer closes it
    /// undefined.
    ///
    /// # Errors
    /// A usage error for a zero-sized `T`, an empty handle, a size that is not a whole number
    /// of `T`, or a range the mapped allocation does not hold (then the mapping is closed);
    /// the driver's error: for a handle made in this same process (CUDA refuses that), an
    /// invalid or stale handle, or where the backend or device has no IPC.
    pub unsafe fn open(ctx: &Context, handle: &IpcMemHandle) -> Result<Self> {
        const OP: &str = "IpcMemory::open";
        let elem = size_of::<T>();
        if elem == 0 {
            return Err(CoreError::usage(
                OP,
                "a zero-sized type has no memory to map",
            ));
        }
        if handle.size == 0 || handle.size % elem != 0 {
            return Err(CoreError::usage(
                OP,
                format!(
                    "the handle shares {} bytes, not a whole, non-zero number of {}-byte values",
                    handle.size, elem
                ),
            ));
        }
        ctx.bind()?;
        let mut base: CUdeviceptr = 0;
        // SAFETY: valid out-pointer; the handle is passed by value; the context is current.
        check("cuIpcOpenMemHandle", unsafe {
            driver::cuIpcOpenMemHandle(
                &mut base,
                handle.as_raw(),
                CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.0 as c_uint,
            )
        })?;
        // Owned from here: an early return closes the mapping.
        let mut mem = IpcMemory {
            base,
            ptr: base,
            len: 0,
            ctx: ctx.clone(),
            _t: PhantomData,
        };
        let (start, range) = address_range(base)?;
        let fits = base
            .checked_sub(start)
            .and_then(|lead| (lead as usize).checked_add(handle.offset))
            .and_then(|o| o.checked_add(handle.size))
            .is_some_and(|e| e <= range);
        if !fits {
            return Err(CoreError::usage(
                OP,
                format!(
                    "the range (offset {}, {} bytes) is outside the {range}-byte mapped allocation",
                    handle.offset, handle.size
                ),
            ));
        }
        mem.ptr = base + handle.offset as CUdeviceptr;
        mem.len = handle.size / elem;
        Ok(mem)
    }

    /// The device address of element 0 in this process.
    #[inline]
    pub fn as_raw(&self) -> CUdeviceptr {
        self.ptr
    }
    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements (never, for a successfully opened mapping).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The size in bytes.
    #[inline]
    pub fn size_in_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }
    /// The context the memory is mapped into.
    #[inline]
    pub fn context(&self) -> &Context {
        &self.ctx
    }
    /// The device of that context.
    #[inline]
    pub fn device(&self) -> Device {
        self.ctx.device()
    }

    /// Copies the memory into `dst` and waits, on the context's default stream (so after
    /// earlier work on it and on this process's blocking streams).
    ///
    /// # Errors
    /// A usage error when the lengths differ; the driver's error.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.copy_to_host_on(dst, &self.ctx.default_stream())
    }

    /// Copies the memory into `dst` on `stream` (`cuMemcpyDtoHAsync`) and waits for the
    /// stream: ordered after earlier work on it, e.g. a [`Stream::wait_event`] on the other
    /// process's event.
    ///
    /// # Errors
    /// A usage error when the lengths differ or `stream` is of another context; the driver's
    /// error.
    pub fn copy_to_host_on(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
        self.check("IpcMemory::copy_to_host", dst.len(), stream)?;
        // SAFETY: `dst` is exclusively borrowed for `len` values until the synchronize below
        // returns; the source range lies inside the mapping (checked at open).
        check("cuMemcpyDtoHAsync", unsafe {
            driver::cuMemcpyDtoHAsync(
                dst.as_mut_ptr().cast::<c_void>(),
                self.ptr,
                self.size_in_bytes(),
                stream.as_raw(),
            )
        })?;
        stream.synchronize()
    }

    /// The memory's contents in a new `Vec` (a synchronous copy on the default stream).
    ///
    /// # Errors
    /// The driver's error.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v: Vec<T> = Vec::with_capacity(self.len);
        let s = self.ctx.default_stream();
        self.check("IpcMemory::to_vec", self.len, &s)?;
        // SAFETY: the capacity holds `len` values, written by the copy before set_len (after
        // the synchronize); any bit pattern is a valid T (DeviceCopy).
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                driver::cuMemcpyDtoHAsync(
                    v.as_mut_ptr().cast::<c_void>(),
                    self.ptr,
                    self.size_in_bytes(),
                    s.as_raw(),
                ),
            )?;
            s.synchronize()?;
            v.set_len(self.len);
        }
        Ok(v)
    }

    /// Copies `src` into the memory and waits, on the context's default stream.
    ///
    /// # Errors
    /// A usage error when the lengths differ; the driver's error.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        let s = self.ctx.default_stream();
        self.copy_from_host_on(src, &s)
    }

    /// Copies `src` into the memory on `stream` (`cuMemcpyHtoDAsync`) and waits for the
    /// stream, so the data is in device memory (visible to the other process) on return.
    ///
    /// # Errors
    /// A usage error when the lengths differ or `stream` is of another context; the driver's
    /// error.
    pub fn copy_from_host_on(&mut self, src: &[T], stream: &Stream) -> Result<()> {
        self.check("IpcMemory::copy_from_host", src.len(), stream)?;
        // SAFETY: `src` is borrowed for `len` values until the synchronize below returns; the
        // destination range lies inside the mapping (checked at open).
        check("cuMemcpyHtoDAsync", unsafe {
            driver::cuMemcpyHtoDAsync(
                self.ptr,
                src.as_ptr().cast::<c_void>(),
                self.size_in_bytes(),
                stream.as_raw(),
            )
        })?;
        stream.synchronize()
    }

    /// Queues a device-to-device copy from `src` (a [`Buffer`](super::Buffer) or a view, of
    /// this context) into the memory on `stream` (`cuMemcpyDtoDAsync`). Asynchronous: the
    /// other process sees the data once the copy completes (record an interprocess event after
    /// it).
    ///
    /// # Errors
    /// A usage error when the lengths differ or `src`, `stream` and the memory are not all of
    /// one context; the driver's error.
    pub fn copy_from_device<S: DeviceSlice<T> + ?Sized>(
        &mut self,
        src: &S,
        stream: &Stream,
    ) -> Result<()> {
        let src = src.as_view();
        self.same_context("IpcMemory::copy_from_device", src.context())?;
        self.check("IpcMemory::copy_from_device", src.len(), stream)?;
        // SAFETY: both ranges are in bounds of live allocations of the current context (the
        // mapping's range was checked at open); a drop of `self` waits for the context first.
        check("cuMemcpyDtoDAsync", unsafe {
            driver::cuMemcpyDtoDAsync(
                self.ptr,
                src.as_raw(),
                self.size_in_bytes(),
                stream.as_raw(),
            )
        })
    }

    /// Queues a device-to-device copy of the memory into `dst` (a view of a
    /// [`Buffer`](super::Buffer) of this context, e.g. `buf.as_view_mut()`) on `stream`
    /// (`cuMemcpyDtoDAsync`).
    ///
    /// # Errors
    /// A usage error when the lengths differ or `dst`, `stream` and the memory are not all of
    /// one context; the driver's error.
    pub fn copy_to_device(&self, dst: &mut BufferViewMut<'_, T>, stream: &Stream) -> Result<()> {
        self.same_context("IpcMemory::copy_to_device", dst.context())?;
        self.check("IpcMemory::copy_to_device", dst.len(), stream)?;
        // SAFETY: as in `copy_from_device`; `dst` is exclusively borrowed.
        check("cuMemcpyDtoDAsync", unsafe {
            driver::cuMemcpyDtoDAsync(
                dst.as_raw(),
                self.ptr,
                self.size_in_bytes(),
                stream.as_raw(),
            )
        })
    }

    fn same_context(&self, op: &'static str, other: &Context) -> Result<()> {
        if *other == self.ctx {
            Ok(())
        } else {
            Err(CoreError::usage(
                op,
                "the buffer belongs to another context than the IPC memory",
            ))
        }
    }

    /// The length and context checks of the copies; binds the context.
    fn check(&self, op: &'static str, host_len: usize, stream: &Stream) -> Result<()> {
        if host_len != self.len {
            return Err(CoreError::usage(
                op,
                format!("host length {host_len}, IPC memory length {}", self.len),
            ));
        }
        if *stream.context() != self.ctx {
            return Err(CoreError::usage(
                op,
                "the stream belongs to another context than the IPC memory",
            ));
        }
        self.ctx.bind()
    }
}

// SAFETY: a device address (`CUdeviceptr`, 64-bit like the kernel's pointer) of memory mapped
// into the context `memory_context` reports. Kernels given it must stay inside `len` values
// (launching is where that contract is taken).
unsafe impl<T: DeviceCopy> KernelArg for &IpcMemory<T> {
    type Value = CUdeviceptr;
    #[inline(always)]
    fn kernel_value(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline(always)]
    fn memory_context(&self) -> Option<CUcontext> {
        Some(self.ctx.as_raw())
    }
}

// SAFETY: as above.
unsafe impl<T: DeviceCopy> KernelArg for &mut IpcMemory<T> {
    type Value = CUdeviceptr;
    #[inline(always)]
    fn kernel_value(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline(always)]
    fn memory_context(&self) -> Option<CUcontext> {
        Some(self.ctx.as_raw())
    }
}
