//! Contexts: a device's primary context, retained while any [`Context`] clone lives.
//!
//! CUDA's current context is per thread. Every safe operation that needs a context makes its
//! own current first ([`Context::bind`], one trivial driver call when it already is), so code on
//! the safe layer never has to think about it; code mixing raw calls in can call `bind` itself.

use super::device::Device;
use super::error::{check, Result};
use super::event::{Event, EventOptions};
use super::stream::{Stream, StreamOptions};
use crate::driver::{self, CUcontext, CUresult};
use std::ffi::c_int;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, Weak};

pub(crate) struct ContextInner {
    raw: CUcontext,
    device: Device,
    /// Whether this object holds a retain of the device's primary context (released on drop);
    /// `false` for a context borrowed with [`Context::from_raw_borrowed`].
    retained: bool,
    /// Whether the device serves `cuMemAllocAsync` (asked once per context).
    pools: OnceLock<bool>,
}

// SAFETY: a CUcontext is a driver handle, not memory Rust reads; the driver API is thread-safe
// and a context may be current on any number of threads at once (CUDA Driver API, "Context
// Management"). Nothing in ContextInner is mutated after construction except the OnceLock.
unsafe impl Send for ContextInner {}
// SAFETY: as above.
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        if !self.retained {
            // Borrowed: its owner destroys it.
            return;
        }
        // SAFETY: this object holds exactly one retain of the device's primary context.
        let r = unsafe { driver::cuDevicePrimaryCtxRelease(self.device.as_raw()) };
        if r != CUresult::CUDA_SUCCESS {
            log::error!(
                "anycuda::core: cuDevicePrimaryCtxRelease({}) failed: {}",
                self.device.ordinal(),
                crate::DriverError(r)
            );
        }
    }
}

/// The primary contexts alive now, one per device: every `Device::context` call returns the
/// same `Arc` while one is alive.
static PRIMARY: Mutex<Vec<(Device, Weak<ContextInner>)>> = Mutex::new(Vec::new());

/// A device's primary context (retained with `cuDevicePrimaryCtxRetain`, released when the last
/// clone drops). Cloning is an `Arc` clone.
///
/// Every [`Stream`], [`Event`] and [`Buffer`](super::Buffer) holds a clone, so none can outlive
/// the context its handle belongs to. The driver frees whatever the context still owns when it
/// is released; keep one `Context` for as long as you work on the device.
///
/// `Send + Sync`: the driver API is thread-safe and a context may be current on several threads
/// at once; the safe layer binds it on each thread before use.
///
/// ```no_run
/// use anycuda::core::{Device, StreamOptions};
/// let ctx = Device::new(0)?.context()?;
/// let stream = ctx.create_stream(StreamOptions::default().non_blocking(true))?;
/// stream.synchronize()?;
/// ctx.synchronize()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone)]
pub struct Context(Arc<ContextInner>);

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("device", &self.0.device.ordinal())
            .field("raw", &self.0.raw)
            .finish()
    }
}

impl PartialEq for Context {
    /// Same driver context.
    fn eq(&self, other: &Self) -> bool {
        self.0.raw == other.0.raw
    }
}
impl Eq for Context {}

impl Context {
    /// The device's primary context (see [`Device::context`]).
    pub(crate) fn primary(device: Device) -> Result<Context> {
        let mut reg = PRIMARY.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = reg
            .iter()
            .find(|(d, _)| *d == device)
            .and_then(|(_, w)| w.upgrade())
        {
            return Ok(Context(c));
        }
        let mut raw: CUcontext = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the device handle came from cuDeviceGet.
        check("cuDevicePrimaryCtxRetain", unsafe {
            driver::cuDevicePrimaryCtxRetain(&mut raw, device.as_raw())
        })?;
        let inner = Arc::new(ContextInner {
            raw,
            device,
            retained: true,
            pools: OnceLock::new(),
        });
        reg.retain(|(d, w)| *d != device && w.strong_count() > 0);
        reg.push((device, Arc::downgrade(&inner)));
        Ok(Context(inner))
    }

    /// Wraps a context the caller owns (a non-primary one from `cuCtxCreate`, say) without
    /// taking ownership: dropping the last clone releases and destroys nothing. For layers that
    /// own their contexts themselves (the cudarc facade's `CudaContext::new_non_primary`) and
    /// still load modules, make streams and bind through the safe layer.
    ///
    /// Not entered in the primary-context registry: [`Device::context`] keeps returning the
    /// device's primary context.
    ///
    /// # Safety
    /// `raw` is a live context of `device`, and stays alive (not destroyed, not reset) until
    /// this `Context`, every clone of it and everything made from it (streams, events, buffers,
    /// modules, kernels) are dropped.
    pub unsafe fn from_raw_borrowed(raw: CUcontext, device: Device) -> Context {
        Context(Arc::new(ContextInner {
            raw,
            device,
            retained: false,
            pools: OnceLock::new(),
        }))
    }

    /// The raw `CUcontext`.
    #[inline]
    pub fn as_raw(&self) -> CUcontext {
        self.0.raw
    }

    /// The device this context belongs to.
    #[inline]
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// Makes this context current on the calling thread if it is not already (one
    /// `cuCtxGetCurrent` when it is).
    ///
    /// # Errors
    /// The driver's error.
    #[inline]
    pub fn bind(&self) -> Result<()> {
        let mut cur: CUcontext = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check("cuCtxGetCurrent", unsafe {
            driver::cuCtxGetCurrent(&mut cur)
        })?;
        if cur == self.0.raw {
            return Ok(());
        }
        // SAFETY: the handle is retained by self.
        check("cuCtxSetCurrent", unsafe {
            driver::cuCtxSetCurrent(self.0.raw)
        })
    }

    /// Whether this context is current on the calling thread.
    ///
    /// # Errors
    /// The driver's error.
    pub fn is_current(&self) -> Result<bool> {
        let mut cur: CUcontext = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check("cuCtxGetCurrent", unsafe {
            driver::cuCtxGetCurrent(&mut cur)
        })?;
        Ok(cur == self.0.raw)
    }

    /// Waits for all work in this context (`cuCtxSynchronize`).
    ///
    /// # Errors
    /// The error of an earlier asynchronous failure, or of the synchronize itself.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: no pointers; the context is current.
        check("cuCtxSynchronize", unsafe { driver::cuCtxSynchronize() })
    }

    /// A new stream in this context.
    ///
    /// # Errors
    /// `cuStreamCreate`'s (or `cuStreamCreateWithPriority`'s) error.
    pub fn create_stream(&self, opts: StreamOptions) -> Result<Stream> {
        Stream::new(self, opts)
    }

    /// The context's default (legacy NULL) stream: it synchronizes with every blocking stream
    /// of the context. Free to call: no allocation, no driver call.
    #[inline]
    pub fn default_stream(&self) -> Stream {
        Stream::default_of(self)
    }

    /// The calling thread's per-thread default stream (`CU_STREAM_PER_THREAD`, handle 0x2;
    /// cuda.core's per-thread default stream; HIP's `hipStreamPerThread`, the same value).
    /// Free to call: no allocation, no driver call.
    ///
    /// Each host thread has its own: the handle names the stream of whichever thread makes
    /// the call, so the same `Stream` value used on two threads is two streams. Work queued on
    /// it from one thread runs in order; it does not synchronize with other created streams,
    /// but it does with the legacy default stream ([`Context::default_stream`]), as CUDA
    /// defines. Unlike the legacy stream it can be captured into a graph.
    ///
    /// The safe layer keeps its promises across threads here too: since one value names
    /// several streams, every use of a [`Buffer`](super::Buffer) on it is tracked with an event
    /// (an event record per copy, fill or checked launch), so a buffer dropped on any thread is
    /// freed only after the work every thread queued on it. [`Stream::wait`] and events order
    /// the calling thread's stream.
    ///
    /// ```no_run
    /// use anycuda::core::{Buffer, Device};
    /// let ctx = Device::new(0)?.context()?;
    /// let s = ctx.per_thread_stream();
    /// assert!(s.is_per_thread() && !s.is_default());
    /// let mut b = Buffer::<u32>::new(&s, 256)?;
    /// b.fill(7, &s)?;
    /// assert!(b.to_vec()?.iter().all(|&x| x == 7));
    /// # Ok::<(), anycuda::core::CoreError>(())
    /// ```
    #[inline]
    pub fn per_thread_stream(&self) -> Stream {
        // SAFETY: CU_STREAM_PER_THREAD is a special handle valid in every context for as long
        // as the context lives (the returned Stream holds it); it is never destroyed.
        unsafe { Stream::from_raw(self, driver::CU_STREAM_PER_THREAD) }
    }

    /// A new event in this context.
    ///
    /// # Errors
    /// `cuEventCreate`'s error.
    pub fn create_event(&self, opts: EventOptions) -> Result<Event> {
        Event::new(self, opts)
    }

    /// `(free, total)` device memory in bytes (`cuMemGetInfo`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: valid out-pointers; the context is current.
        check("cuMemGetInfo", unsafe {
            driver::cuMemGetInfo(&mut free, &mut total)
        })?;
        Ok((free, total))
    }

    /// `(least, greatest)` stream priority (`cuCtxGetStreamPriorityRange`). Numerically lower
    /// is higher priority, so `greatest <= least`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn stream_priority_range(&self) -> Result<(i32, i32)> {
        self.bind()?;
        let (mut least, mut greatest): (c_int, c_int) = (0, 0);
        // SAFETY: valid out-pointers; the context is current.
        check("cuCtxGetStreamPriorityRange", unsafe {
            driver::cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
        })?;
        Ok((least, greatest))
    }

    /// Lets kernels and copies in this context access `peer`'s memory directly
    /// (`cuCtxEnablePeerAccess`). Already enabled is fine.
    ///
    /// # Errors
    /// `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED` where the devices cannot, or
    /// `CUDA_ERROR_INVALID_DEVICE` for the context itself, as CUDA answers.
    pub fn enable_peer_access(&self, peer: &Context) -> Result<()> {
        self.bind()?;
        // SAFETY: `peer` is a retained context handle.
        let r = unsafe { driver::cuCtxEnablePeerAccess(peer.as_raw(), 0) };
        if r == CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
            return Ok(());
        }
        check("cuCtxEnablePeerAccess", r)
    }

    /// Whether the device serves stream-ordered pools (asked once per context).
    pub(crate) fn pools(&self) -> bool {
        *self
            .0
            .pools
            .get_or_init(|| self.0.device.memory_pools_supported())
    }

    /// The number of `Context` clones alive (for tests and diagnostics).
    pub fn strong_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }
}
