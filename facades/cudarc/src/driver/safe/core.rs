//! Contexts, streams, events, device slices and modules: cudarc's core safe types.
//!
//! Ownership is cudarc's: a [`CudaContext`] lives in an `Arc`, and every stream, event, slice
//! and module holds that `Arc`; slices hold their allocating stream's `Arc`. With more than one
//! stream in a context, each slice carries a read and a write [`CudaEvent`] so uses on
//! different streams are ordered (cudarc's event tracking).
//!
//! What is not cudarc's own comes from `anycuda::core`: a context is a `core::Context` (the
//! primary one retained and released there, a non-primary one borrowed), binding is
//! `core::Context::bind`, modules are loaded as `core::ObjectCode`s and kernels looked up as
//! `core::Kernel`s, and a `CoreError` becomes a [`DriverError`] through core's one
//! `CoreError::into_driver_error`.

use crate::driver::{result, sys};
use anycuda::core::CoreError;
use std::ffi::CString;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Bound, RangeBounds};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;

pub use crate::driver::result::DriverError;

/// The invalid-value error (what this crate returns where cudarc asserts).
pub(crate) fn invalid_value() -> DriverError {
    DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// A CUDA context on one device, shared through `Arc`. Create with [`CudaContext::new`] (the
/// device's primary context), [`CudaContext::new_non_primary`] or
/// [`CudaContext::from_raw_context`].
///
/// Thread safe: every safe call first binds the context to the calling thread.
#[derive(Debug)]
pub struct CudaContext {
    /// The safe layer's context: binds, loads modules; for a primary context it holds the
    /// retain (released when the last `core::Context` clone drops, after every module).
    pub(crate) core: anycuda::core::Context,
    pub(crate) cu_device: sys::CUdevice,
    pub(crate) cu_ctx: sys::CUcontext,
    pub(crate) ordinal: usize,
    pub(crate) has_async_alloc: bool,
    pub(crate) is_primary: bool,
    pub(crate) num_streams: AtomicUsize,
    pub(crate) event_tracking: AtomicBool,
    pub(crate) error_state: AtomicU32,
}

// The raw handles are usable from any thread once bound (bind_to_thread).
// SAFETY: the handles are plain driver handles, usable from any thread: every safe call first binds
// the context to the calling thread (`bind_to_thread`), and the remaining fields are atomics or
// immutable.
unsafe impl Send for CudaContext {}
// SAFETY: `&CudaContext` only reads immutable fields, updates atomics, or makes driver calls after
// binding the context to the calling thread; the driver API is thread safe.
unsafe impl Sync for CudaContext {}

impl Drop for CudaContext {
    fn drop(&mut self) {
        self.record_err(self.bind_to_thread());
        let ctx = std::mem::replace(&mut self.cu_ctx, std::ptr::null_mut());
        if ctx.is_null() {
            return;
        }
        // A primary context's retain is core's: released when the last `core::Context` clone
        // (this object's `core` field, or another `CudaContext`'s) drops.
        if !self.is_primary {
            // SAFETY: `ctx` is the non-primary context this object owns (created by
            // `new_non_primary`/`new_cig` or handed over through `from_raw_context`), just taken
            // out, so it is destroyed exactly once.
            self.record_err(result::ok(unsafe { sys::cuCtxDestroy_v2(ctx) }));
        }
    }
}

impl PartialEq for CudaContext {
    fn eq(&self, other: &Self) -> bool {
        (self.cu_device, self.cu_ctx, self.ordinal)
            == (other.cu_device, other.cu_ctx, other.ordinal)
    }
}
impl Eq for CudaContext {}

impl CudaContext {
    fn wrap(core: anycuda::core::Context, is_primary: bool) -> Result<Arc<Self>, DriverError> {
        let (ordinal, cu_device, cu_ctx) = (
            core.device().ordinal(),
            core.device().as_raw(),
            core.as_raw(),
        );
        // core's rule: the pools attribute, an honest `false` where the backend cannot say (then
        // synchronous allocation, always correct).
        let has_async_alloc = core.device().memory_pools_supported();
        let ctx = Arc::new(CudaContext {
            core,
            cu_device,
            cu_ctx,
            ordinal,
            has_async_alloc,
            is_primary,
            num_streams: AtomicUsize::new(0),
            event_tracking: AtomicBool::new(true),
            error_state: AtomicU32::new(0),
        });
        ctx.bind_to_thread()?;
        Ok(ctx)
    }

    fn device_of(ordinal: usize) -> Result<anycuda::core::Device, DriverError> {
        anycuda::core::Device::new(ordinal).map_err(CoreError::into_driver_error)
    }

    /// Wraps a non-primary context this object will own in a borrowed `core::Context`.
    ///
    /// # Safety
    /// `cu_ctx` is a live context of `device`, destroyed only by the `CudaContext` made from it
    /// (whose `Drop` runs after every module, stream and slice, each holding its `Arc`).
    unsafe fn owned(
        device: anycuda::core::Device,
        cu_ctx: sys::CUcontext,
    ) -> Result<Arc<Self>, DriverError> {
        // SAFETY: this fn's contract: `cu_ctx` lives as long as the `CudaContext`, which
        // outlives every clone of the borrowed `core::Context` (held by it and its modules).
        let core = unsafe { anycuda::core::Context::from_raw_borrowed(cu_ctx, device) };
        Self::wrap(core, false)
    }

    /// Retains the primary context of device `ordinal`.
    ///
    /// # Errors
    /// The driver's error: `CUDA_ERROR_NO_DEVICE`/`CUDA_ERROR_INVALID_DEVICE` with no such
    /// device, `CUDA_ERROR_NOT_INITIALIZED` when no backend could be loaded. Never panics.
    pub fn new(ordinal: usize) -> Result<Arc<Self>, DriverError> {
        // core retains the primary context (once per process while any clone lives) and
        // releases it when the last clone drops.
        let core = Self::device_of(ordinal)?
            .context()
            .map_err(CoreError::into_driver_error)?;
        Self::wrap(core, true)
    }

    /// Creates a new, non-primary context (`cuCtxCreate`), destroyed on drop.
    ///
    /// # Errors
    /// The driver's error.
    pub fn new_non_primary(ordinal: usize, flags: u32) -> Result<Arc<Self>, DriverError> {
        let device = Self::device_of(ordinal)?;
        // SAFETY: a null `CUctxCreateParams` is the plain create; `device` came from `cuDeviceGet`.
        let cu_ctx =
            unsafe { result::ctx::create_v4(std::ptr::null_mut(), flags, device.as_raw()) }?;
        // SAFETY: `cu_ctx` was just created for `device` and is owned by nothing else.
        unsafe { Self::owned(device, cu_ctx) }
    }

    /// Creates a non-primary context with CUDA-in-Graphics parameters.
    ///
    /// # Errors
    /// The driver's error; `CUDA_ERROR_NOT_SUPPORTED` on HIP (no CiG there).
    pub fn new_cig(
        ordinal: usize,
        flags: u32,
        cig_params: &mut sys::CUctxCigParam,
    ) -> Result<Arc<Self>, DriverError> {
        let device = Self::device_of(ordinal)?;
        // SAFETY: `CUctxCreateParams` is a C struct of pointers and integers for which all-zero
        // bytes (null pointers) are a valid value.
        let mut params: sys::CUctxCreateParams = unsafe { std::mem::zeroed() };
        params.cigParams = cig_params;
        // SAFETY: `params` is a local, initialised descriptor whose `cigParams` is the caller's
        // `&mut`, alive for the call; `device` came from `cuDeviceGet`.
        let cu_ctx = unsafe { result::ctx::create_v4(&mut params, flags, device.as_raw()) }?;
        // SAFETY: `cu_ctx` was just created for `device` and is owned by nothing else.
        unsafe { Self::owned(device, cu_ctx) }
    }

    /// Wraps an existing non-primary context, which this object then owns and destroys on drop.
    ///
    /// # Errors
    /// The driver's error; `CUDA_ERROR_INVALID_DEVICE` when `cu_device` is not the device of
    /// `ordinal` (the context then stays the caller's).
    ///
    /// # Safety
    /// `cu_ctx` is a live context of `cu_device` (ordinal `ordinal`), owned by nothing else.
    pub unsafe fn from_raw_context(
        ordinal: usize,
        cu_device: sys::CUdevice,
        cu_ctx: sys::CUcontext,
    ) -> Result<Arc<Self>, DriverError> {
        let device = anycuda::core::Device::from_raw(ordinal, cu_device)
            .map_err(CoreError::into_driver_error)?;
        // SAFETY: the caller's contract: `cu_ctx` is a live context of this device, owned by
        // nothing else, so by the `CudaContext` from here on.
        unsafe { Self::owned(device, cu_ctx) }
    }

    /// Whether this is the device's primary context.
    pub fn is_primary(&self) -> bool {
        self.is_primary
    }

    /// Whether allocations use `cuMemAllocAsync` (the device supports memory pools).
    pub fn has_async_alloc(&self) -> bool {
        self.has_async_alloc
    }

    /// The number of devices.
    ///
    /// # Errors
    /// The driver's error (e.g. `CUDA_ERROR_NO_DEVICE`).
    pub fn device_count() -> Result<i32, DriverError> {
        result::init()?;
        result::device::get_count()
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device's name.
    ///
    /// # Errors
    /// The driver's error, or one recorded earlier (see [`CudaContext::check_err`]).
    pub fn name(&self) -> Result<String, DriverError> {
        self.check_err()?;
        self.core
            .device()
            .name()
            .map_err(CoreError::into_driver_error)
    }

    /// The device's UUID.
    ///
    /// # Errors
    /// The driver's error.
    pub fn uuid(&self) -> Result<sys::CUuuid, DriverError> {
        self.check_err()?;
        result::device::get_uuid(self.cu_device)
    }

    /// `(major, minor)` compute capability. On HIP, what HIP reports for the device.
    ///
    /// # Errors
    /// The driver's error.
    pub fn compute_capability(&self) -> Result<(i32, i32), DriverError> {
        self.check_err()?;
        let major =
            self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor =
            self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok((major, minor))
    }

    /// Total device memory in bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn total_mem(&self) -> Result<usize, DriverError> {
        self.check_err()?;
        self.core
            .device()
            .total_memory()
            .map_err(CoreError::into_driver_error)
    }

    /// `(free, total)` device memory in bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn mem_get_info(&self) -> Result<(usize, usize), DriverError> {
        self.bind_to_thread()?;
        result::mem_get_info()
    }

    /// The raw device handle.
    pub fn cu_device(&self) -> sys::CUdevice {
        self.cu_device
    }

    /// The raw context handle.
    pub fn cu_ctx(&self) -> sys::CUcontext {
        self.cu_ctx
    }

    /// Makes this context current on the calling thread (if it is not already).
    ///
    /// # Errors
    /// An error recorded earlier (see [`CudaContext::check_err`]), or the driver's error.
    #[inline]
    pub fn bind_to_thread(&self) -> Result<(), DriverError> {
        self.check_err()?;
        // One `cuCtxGetCurrent` when already current; the error path (cold) converts.
        self.core.bind().map_err(CoreError::into_driver_error)
    }

    /// A device attribute.
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` for an attribute HIP cannot answer.
    pub fn attribute(&self, attrib: sys::CUdevice_attribute) -> Result<i32, DriverError> {
        self.check_err()?;
        self.core
            .device()
            .attribute(attrib)
            .map_err(CoreError::into_driver_error)
    }

    /// Waits for all work in this context.
    ///
    /// # Errors
    /// The driver's error.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.bind_to_thread()?;
        result::ctx::synchronize()
    }

    /// Makes synchronisation block the thread instead of spinning
    /// (`CU_CTX_SCHED_BLOCKING_SYNC`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_blocking_synchronize(&self) -> Result<(), DriverError> {
        self.set_flags(sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC)
    }

    /// `cuCtxSetFlags`.
    ///
    /// # Errors
    /// The driver's error; `CUDA_ERROR_NOT_SUPPORTED` on HIP.
    pub fn set_flags(&self, flags: sys::CUctx_flags) -> Result<(), DriverError> {
        self.bind_to_thread()?;
        result::ctx::set_flags(flags)
    }

    /// A context limit (stack size, heap size, printf FIFO, ...).
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` for limits HIP lacks.
    pub fn get_limit(&self, limit: sys::CUlimit) -> Result<usize, DriverError> {
        self.bind_to_thread()?;
        result::ctx::get_limit(limit)
    }

    /// Sets a context limit.
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` for limits HIP lacks.
    pub fn set_limit(&self, limit: sys::CUlimit, value: usize) -> Result<(), DriverError> {
        self.bind_to_thread()?;
        result::ctx::set_limit(limit, value)
    }

    /// The context's cache preference.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_cache_config(&self) -> Result<sys::CUfunc_cache, DriverError> {
        self.bind_to_thread()?;
        result::ctx::get_cache_config()
    }

    /// Sets the context's cache preference.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_cache_config(&self, config: sys::CUfunc_cache) -> Result<(), DriverError> {
        self.bind_to_thread()?;
        result::ctx::set_cache_config(config)
    }

    /// Whether a stream other than the default one was created ([`CudaContext::new_stream`]).
    pub fn is_in_multi_stream_mode(&self) -> bool {
        self.num_streams.load(Ordering::Relaxed) > 0
    }

    /// Whether new slices get read/write events (the default).
    pub fn is_event_tracking(&self) -> bool {
        self.event_tracking.load(Ordering::Relaxed)
    }

    /// Whether slices order their uses across streams: multi-stream mode and event tracking.
    #[inline]
    pub fn is_managing_stream_synchronization(&self) -> bool {
        self.is_in_multi_stream_mode() && self.is_event_tracking()
    }

    /// Slices created from now on track their uses with events.
    ///
    /// # Safety
    /// Slices created while tracking was off stay untracked; ordering them is the caller's job.
    pub unsafe fn enable_event_tracking(&self) {
        self.event_tracking.store(true, Ordering::Relaxed);
    }

    /// Slices created from now on do not track their uses.
    ///
    /// # Safety
    /// The caller orders every use of such slices across streams (no free before a use on
    /// another stream finishes, no use before the allocation completes, no concurrent writes).
    pub unsafe fn disable_event_tracking(&self) {
        self.event_tracking.store(false, Ordering::Relaxed);
    }

    /// Returns (and clears) an error recorded by a call that could not return one (a `Drop`).
    ///
    /// # Errors
    /// That recorded error.
    #[inline]
    pub fn check_err(&self) -> Result<(), DriverError> {
        match self.error_state.swap(0, Ordering::Relaxed) {
            0 => Ok(()),
            code => Err(DriverError(sys::CUresult(code))),
        }
    }

    /// Records an error for a later [`CudaContext::check_err`].
    pub fn record_err<T>(&self, result: Result<T, DriverError>) {
        if let Err(err) = result {
            self.error_state.store(err.0 .0, Ordering::Relaxed);
        }
    }
}

/// An event, for ordering streams and timing. Create with [`CudaContext::new_event`].
#[derive(Debug)]
pub struct CudaEvent {
    pub(crate) cu_event: sys::CUevent,
    pub(crate) ctx: Arc<CudaContext>,
}

// SAFETY: an event handle may be used from any thread; each use binds `ctx` first, and `ctx` is an
// `Arc<CudaContext>` (Send + Sync).
unsafe impl Send for CudaEvent {}
// SAFETY: `&CudaEvent` allows only record, query, synchronize and elapsed-time calls on the handle,
// which the driver serialises.
unsafe impl Sync for CudaEvent {}

impl Drop for CudaEvent {
    fn drop(&mut self) {
        self.ctx.record_err(self.ctx.bind_to_thread());
        // SAFETY: `self.cu_event` was created by `new_event` in `self.ctx`, which the `Arc`
        // keeps alive, and this drop destroys it exactly once.
        self.ctx
            .record_err(unsafe { result::event::destroy(self.cu_event) });
    }
}

impl CudaContext {
    /// A new event; `None` means `CU_EVENT_DISABLE_TIMING`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn new_event(
        self: &Arc<Self>,
        flags: Option<sys::CUevent_flags>,
    ) -> Result<CudaEvent, DriverError> {
        let flags = flags.unwrap_or(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING);
        self.bind_to_thread()?;
        let cu_event = result::event::create(flags)?;
        Ok(CudaEvent {
            cu_event,
            ctx: self.clone(),
        })
    }
}

impl CudaEvent {
    /// The raw event.
    pub fn cu_event(&self) -> sys::CUevent {
        self.cu_event
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Records the event on `stream`.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_CONTEXT` for a stream of another context, or the driver's error.
    pub fn record(&self, stream: &CudaStream) -> Result<(), DriverError> {
        if self.ctx != stream.ctx {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_CONTEXT));
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: both the event and `stream.cu_stream` are live (owned by `self` and `stream`) and
        // belong to the same context, checked just above.
        unsafe { result::event::record(self.cu_event, stream.cu_stream) }
    }

    /// Blocks until the event completes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_event` is live while `self` is; the context was bound just above.
        unsafe { result::event::synchronize(self.cu_event) }
    }

    /// Milliseconds from `self` to `end`, after both complete. Both need timing enabled.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_CONTEXT` across contexts, or the driver's error.
    pub fn elapsed_ms(&self, end: &Self) -> Result<f32, DriverError> {
        if self.ctx != end.ctx {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_CONTEXT));
        }
        self.synchronize()?;
        end.synchronize()?;
        // SAFETY: both events are live (owned by `self` and `end`), of the same context (checked
        // above), and both were synchronized.
        unsafe { result::event::elapsed(self.cu_event, end.cu_event) }
    }

    /// Whether the event completed (any error reads as `false`).
    pub fn is_complete(&self) -> bool {
        self.try_is_complete() == Ok(true)
    }

    /// Whether the event completed: `Ok(false)` while pending.
    ///
    /// # Errors
    /// The driver's error other than `CUDA_ERROR_NOT_READY` (e.g. `CUDA_ERROR_CAPTURED_EVENT`).
    pub fn try_is_complete(&self) -> Result<bool, DriverError> {
        // SAFETY: `self.cu_event` is live while `self` is.
        match unsafe { result::event::query(self.cu_event) } {
            Ok(()) => Ok(true),
            Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_READY)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// A stream of work on one context, shared through `Arc`.
#[derive(Debug)]
pub struct CudaStream {
    pub(crate) cu_stream: sys::CUstream,
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) owned: bool,
}

// SAFETY: a stream handle may be used from any thread; every use binds `ctx` first, and `ctx` is an
// `Arc<CudaContext>` (Send + Sync).
unsafe impl Send for CudaStream {}
// SAFETY: `&CudaStream` allows only enqueueing, waiting and synchronizing, which the driver
// serialises per stream.
unsafe impl Sync for CudaStream {}

impl PartialEq for CudaStream {
    fn eq(&self, other: &Self) -> bool {
        self.cu_stream == other.cu_stream && self.ctx == other.ctx
    }
}
impl Eq for CudaStream {}

/// CUDA's per-thread default stream handle (`CU_STREAM_PER_THREAD`).
const PER_THREAD: usize = 0x2;

impl Drop for CudaStream {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        self.ctx.record_err(self.ctx.bind_to_thread());
        let s = std::mem::replace(&mut self.cu_stream, std::ptr::null_mut());
        if !s.is_null() && s as usize != PER_THREAD {
            self.ctx.num_streams.fetch_sub(1, Ordering::Relaxed);
            // SAFETY: `s` is a stream this object created (not the null or per-thread stream,
            // checked above), just taken out of `self`, so it is destroyed exactly once.
            self.ctx.record_err(unsafe { result::stream::destroy(s) });
        }
    }
}

impl CudaContext {
    /// The legacy default stream (null handle), not destroyed on drop.
    pub fn default_stream(self: &Arc<Self>) -> Arc<CudaStream> {
        Arc::new(CudaStream {
            cu_stream: std::ptr::null_mut(),
            ctx: self.clone(),
            owned: false,
        })
    }

    /// The per-thread default stream, not destroyed on drop.
    pub fn per_thread_stream(self: &Arc<Self>) -> Arc<CudaStream> {
        Arc::new(CudaStream {
            cu_stream: PER_THREAD as sys::CUstream,
            ctx: self.clone(),
            owned: false,
        })
    }

    /// Wraps a stream owned elsewhere; it is not destroyed on drop.
    ///
    /// # Safety
    /// `cu_stream` belongs to this context and outlives the returned stream.
    pub unsafe fn wrap_borrowed_stream(
        self: &Arc<Self>,
        cu_stream: sys::CUstream,
    ) -> Arc<CudaStream> {
        Arc::new(CudaStream {
            cu_stream,
            ctx: self.clone(),
            owned: false,
        })
    }

    fn enter_multi_stream(&self) -> Result<(), DriverError> {
        let before = self.num_streams.fetch_add(1, Ordering::Relaxed);
        if before == 0 && self.is_event_tracking() {
            // Slices allocated before had no ordering; finish their work first.
            self.synchronize()?;
        }
        Ok(())
    }

    /// A new non-blocking stream. The first one switches the context to multi-stream mode.
    ///
    /// # Errors
    /// The driver's error.
    pub fn new_stream(self: &Arc<Self>) -> Result<Arc<CudaStream>, DriverError> {
        self.bind_to_thread()?;
        self.enter_multi_stream()?;
        let cu_stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .inspect_err(|_| {
                self.num_streams.fetch_sub(1, Ordering::Relaxed);
            })?;
        Ok(Arc::new(CudaStream {
            cu_stream,
            ctx: self.clone(),
            owned: true,
        }))
    }

    /// A new non-blocking stream with a priority.
    ///
    /// # Errors
    /// The driver's error.
    pub fn new_stream_with_priority(
        self: &Arc<Self>,
        priority: i32,
    ) -> Result<Arc<CudaStream>, DriverError> {
        self.bind_to_thread()?;
        self.enter_multi_stream()?;
        let cu_stream =
            result::stream::create_with_priority(result::stream::StreamKind::NonBlocking, priority)
                .inspect_err(|_| {
                    self.num_streams.fetch_sub(1, Ordering::Relaxed);
                })?;
        Ok(Arc::new(CudaStream {
            cu_stream,
            ctx: self.clone(),
            owned: true,
        }))
    }
}

impl CudaStream {
    /// A new stream that starts after the work queued on `self` so far.
    ///
    /// # Errors
    /// The driver's error.
    pub fn fork(&self) -> Result<Arc<Self>, DriverError> {
        self.ctx.bind_to_thread()?;
        self.ctx.num_streams.fetch_add(1, Ordering::Relaxed);
        let cu_stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .inspect_err(|_| {
                self.ctx.num_streams.fetch_sub(1, Ordering::Relaxed);
            })?;
        let stream = Arc::new(CudaStream {
            cu_stream,
            ctx: self.ctx.clone(),
            owned: true,
        });
        stream.join(self)?;
        Ok(stream)
    }

    /// The raw stream.
    pub fn cu_stream(&self) -> sys::CUstream {
        self.cu_stream
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Blocks until the stream's work completes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_stream` is live while `self` is (destroyed only in `Drop`).
        unsafe { result::stream::synchronize(self.cu_stream) }
    }

    /// Waits for the stream without reading or clearing the context's recorded error: a
    /// guard's wait ([`SyncOnDrop::sync_stream`]) must neither be skipped because of an earlier
    /// error (the host would read memory a copy still writes) nor swallow that error, which
    /// [`CudaContext::check_err`] reports later, as on CUDA.
    pub(crate) fn sync_keeping_recorded_error(&self) -> Result<(), DriverError> {
        self.ctx.core.bind().map_err(CoreError::into_driver_error)?;
        // SAFETY: `self.cu_stream` is live while `self` is, and its context was made current just
        // above.
        unsafe { result::stream::synchronize(self.cu_stream) }
    }

    /// A new event recorded on this stream.
    ///
    /// # Errors
    /// The driver's error.
    pub fn record_event(
        &self,
        flags: Option<sys::CUevent_flags>,
    ) -> Result<CudaEvent, DriverError> {
        let event = self.ctx.new_event(flags)?;
        event.record(self)?;
        Ok(event)
    }

    /// Makes later work on this stream wait for `event`.
    ///
    /// # Errors
    /// The driver's error.
    #[inline]
    pub fn wait(&self, event: &CudaEvent) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_stream` and `event.cu_event` are live while `self` and `event` are; the
        // context was bound just above.
        unsafe {
            result::stream::wait_event(
                self.cu_stream,
                event.cu_event,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
    }

    /// Makes later work on this stream wait for the work queued on `other` so far.
    ///
    /// # Errors
    /// The driver's error.
    pub fn join(&self, other: &CudaStream) -> Result<(), DriverError> {
        self.wait(&other.record_event(None)?)
    }
}

/// Device memory for `len` values of `T`, freed on drop (on its stream), as in cudarc.
#[derive(Debug)]
pub struct CudaSlice<T> {
    pub(crate) cu_device_ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) read: Option<CudaEvent>,
    pub(crate) write: Option<CudaEvent>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) marker: PhantomData<*const T>,
}

// SAFETY: the slice owns device memory, not host values of `T`; its handles are usable from any
// thread once `stream`'s context is bound, which every use does.
unsafe impl<T> Send for CudaSlice<T> {}
// SAFETY: `&CudaSlice<T>` only hands out the device pointer for stream-ordered use (reads and
// writes are ordered by its events), never a host `&T`.
unsafe impl<T> Sync for CudaSlice<T> {}

impl<T> Drop for CudaSlice<T> {
    fn drop(&mut self) {
        let ctx = &self.stream.ctx;
        if ctx.is_managing_stream_synchronization() {
            for e in [&self.read, &self.write].into_iter().flatten() {
                ctx.record_err(self.stream.wait(e));
            }
        }
        ctx.record_err(ctx.bind_to_thread());
        if ctx.has_async_alloc {
            // SAFETY: `cu_device_ptr` was allocated by this slice's stream, every recorded use was
            // waited for above, and this drop frees it once, ordered on the same stream.
            ctx.record_err(unsafe {
                result::free_async(self.cu_device_ptr, self.stream.cu_stream)
            });
        } else {
            ctx.record_err(self.stream.synchronize());
            // SAFETY: `cu_device_ptr` was allocated by this slice, the stream was synchronized just
            // above, and this drop frees it once.
            ctx.record_err(unsafe { result::free_sync(self.cu_device_ptr) });
        }
    }
}

impl<T> CudaSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.stream.ctx.ordinal
    }
    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.stream.ctx
    }
    /// The stream it was allocated on (and is freed on).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl<T: DeviceRepr> CudaSlice<T> {
    /// A copy on the same stream.
    ///
    /// # Errors
    /// The driver's error.
    pub fn try_clone(&self) -> Result<Self, DriverError> {
        self.stream.clone_dtod(self)
    }
}

impl<T: DeviceRepr> Clone for CudaSlice<T> {
    /// A copy on the same stream.
    ///
    /// # Panics
    /// When the copy fails (as cudarc's); use [`CudaSlice::try_clone`] to get the error.
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(s) => s,
            Err(e) => panic!("CudaSlice::clone failed: {e}"),
        }
    }
}

impl<T: Clone + Default + DeviceRepr> TryFrom<CudaSlice<T>> for Vec<T> {
    type Error = DriverError;
    fn try_from(value: CudaSlice<T>) -> Result<Self, Self::Error> {
        value.stream.clone_dtoh(&value)
    }
}

/// A borrowed, read-only range of a [`CudaSlice`].
#[derive(Debug)]
pub struct CudaView<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) read: &'a Option<CudaEvent>,
    pub(crate) write: &'a Option<CudaEvent>,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) marker: PhantomData<&'a [T]>,
}

/// A borrowed, writable range of a [`CudaSlice`].
#[derive(Debug)]
pub struct CudaViewMut<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) read: &'a Option<CudaEvent>,
    pub(crate) write: &'a Option<CudaEvent>,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) marker: PhantomData<&'a mut [T]>,
}

/// `start..end` of `bounds` within `len`, if in range.
pub(crate) fn to_range(bounds: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
}

fn offset<T>(ptr: sys::CUdeviceptr, start: usize) -> sys::CUdeviceptr {
    ptr + (start * std::mem::size_of::<T>()) as u64
}

/// `len` elements of `S` fit in `bytes` bytes.
fn fits<S>(len: usize, bytes: usize) -> bool {
    len.checked_mul(std::mem::size_of::<S>())
        .is_some_and(|n| n <= bytes)
}

macro_rules! view {
    ($ty:ident, $ptr:expr, $len:expr, $src:expr) => {
        $ty {
            ptr: $ptr,
            len: $len,
            read: $src.read_ref(),
            write: $src.write_ref(),
            stream: $src.stream_ref(),
            marker: PhantomData,
        }
    };
}

impl<T> CudaSlice<T> {
    fn read_ref(&self) -> &Option<CudaEvent> {
        &self.read
    }
    fn write_ref(&self) -> &Option<CudaEvent> {
        &self.write
    }
    fn stream_ref(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The whole slice as a view.
    pub fn as_view(&self) -> CudaView<'_, T> {
        view!(CudaView, self.cu_device_ptr, self.len, self)
    }

    /// The whole slice as a writable view.
    pub fn as_view_mut(&mut self) -> CudaViewMut<'_, T> {
        CudaViewMut {
            ptr: self.cu_device_ptr,
            len: self.len,
            read: &self.read,
            write: &self.write,
            stream: &self.stream,
            marker: PhantomData,
        }
    }

    /// A view of `bounds`.
    ///
    /// # Panics
    /// When `bounds` is out of range (as slice indexing; [`CudaSlice::try_slice`] does not).
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> CudaView<'_, T> {
        self.try_slice(bounds)
            .expect("CudaSlice::slice: range out of bounds")
    }

    /// A view of `bounds`, or `None` when out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<CudaView<'_, T>> {
        let (s, e) = to_range(bounds, self.len)?;
        Some(view!(
            CudaView,
            offset::<T>(self.cu_device_ptr, s),
            e - s,
            self
        ))
    }

    /// A writable view of `bounds`.
    ///
    /// # Panics
    /// When `bounds` is out of range ([`CudaSlice::try_slice_mut`] does not).
    pub fn slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> CudaViewMut<'_, T> {
        self.try_slice_mut(bounds)
            .expect("CudaSlice::slice_mut: range out of bounds")
    }

    /// A writable view of `bounds`, or `None` when out of range.
    pub fn try_slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> Option<CudaViewMut<'_, T>> {
        let (s, e) = to_range(bounds, self.len)?;
        Some(CudaViewMut {
            ptr: offset::<T>(self.cu_device_ptr, s),
            len: e - s,
            read: &self.read,
            write: &self.write,
            stream: &self.stream,
            marker: PhantomData,
        })
    }

    /// The memory as `len` values of `S`, or `None` when they do not fit.
    ///
    /// # Safety
    /// Every bit pattern the memory may hold is a valid `S`.
    pub unsafe fn transmute<S>(&self, len: usize) -> Option<CudaView<'_, S>> {
        fits::<S>(len, self.num_bytes()).then(|| view!(CudaView, self.cu_device_ptr, len, self))
    }

    /// The memory as `len` writable values of `S`, or `None` when they do not fit.
    ///
    /// # Safety
    /// As [`CudaSlice::transmute`], and `T` accepts whatever `S` values are written.
    pub unsafe fn transmute_mut<S>(&mut self, len: usize) -> Option<CudaViewMut<'_, S>> {
        fits::<S>(len, self.num_bytes()).then_some(CudaViewMut {
            ptr: self.cu_device_ptr,
            len,
            read: &self.read,
            write: &self.write,
            stream: &self.stream,
            marker: PhantomData,
        })
    }

    /// Two views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len` ([`CudaSlice::try_split_at`] does not).
    pub fn split_at(&self, mid: usize) -> (CudaView<'_, T>, CudaView<'_, T>) {
        self.try_split_at(mid)
            .expect("CudaSlice::split_at: mid out of bounds")
    }

    /// Two views, or `None` when `mid > len`.
    pub fn try_split_at(&self, mid: usize) -> Option<(CudaView<'_, T>, CudaView<'_, T>)> {
        (mid <= self.len).then(|| (self.slice(..mid), self.slice(mid..)))
    }

    /// Two writable views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len` ([`CudaSlice::try_split_at_mut`] does not).
    pub fn split_at_mut(&mut self, mid: usize) -> (CudaViewMut<'_, T>, CudaViewMut<'_, T>) {
        self.try_split_at_mut(mid)
            .expect("CudaSlice::split_at_mut: mid out of bounds")
    }

    /// Two writable views, or `None` when `mid > len`.
    pub fn try_split_at_mut(
        &mut self,
        mid: usize,
    ) -> Option<(CudaViewMut<'_, T>, CudaViewMut<'_, T>)> {
        (mid <= self.len).then(|| {
            let mk = |s: usize, e: usize| CudaViewMut {
                ptr: offset::<T>(self.cu_device_ptr, s),
                len: e - s,
                read: &self.read,
                write: &self.write,
                stream: &self.stream,
                marker: PhantomData,
            };
            (mk(0, mid), mk(mid, self.len))
        })
    }

    /// Gives up ownership: returns the pointer without freeing it (after ordering pending uses).
    pub fn leak(self) -> sys::CUdeviceptr {
        let mut s = std::mem::ManuallyDrop::new(self);
        let ctx = s.stream.ctx.clone();
        if ctx.is_managing_stream_synchronization() {
            for e in [&s.read, &s.write].into_iter().flatten() {
                ctx.record_err(s.stream.wait(e));
            }
        }
        // Release what the slice owns except the memory itself.
        s.read = None;
        s.write = None;
        let ptr = s.cu_device_ptr;
        // SAFETY: `s` is a `ManuallyDrop` that is never dropped, so `s.stream` is dropped here
        // exactly once and not read afterwards.
        unsafe { std::ptr::drop_in_place(&mut s.stream) };
        ptr
    }
}

impl<'a, T> CudaView<'a, T> {
    fn read_ref(&self) -> &'a Option<CudaEvent> {
        self.read
    }
    fn write_ref(&self) -> &'a Option<CudaEvent> {
        self.write
    }
    fn stream_ref(&self) -> &'a Arc<CudaStream> {
        self.stream
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A view of `bounds` within this view.
    ///
    /// # Panics
    /// When out of range ([`CudaView::try_slice`] does not).
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> Self {
        self.try_slice(bounds)
            .expect("CudaView::slice: range out of bounds")
    }

    /// A view of `bounds`, or `None` when out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<Self> {
        let (s, e) = to_range(bounds, self.len)?;
        Some(view!(CudaView, offset::<T>(self.ptr, s), e - s, self))
    }

    /// The memory as `len` values of `S`, or `None` when they do not fit.
    ///
    /// # Safety
    /// Every bit pattern the memory may hold is a valid `S`.
    pub unsafe fn transmute<S>(&self, len: usize) -> Option<CudaView<'a, S>> {
        fits::<S>(len, self.len * std::mem::size_of::<T>())
            .then(|| view!(CudaView, self.ptr, len, self))
    }

    /// Two views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at(&self, mid: usize) -> (Self, Self) {
        self.try_split_at(mid)
            .expect("CudaView::split_at: mid out of bounds")
    }

    /// Two views, or `None` when `mid > len`.
    pub fn try_split_at(&self, mid: usize) -> Option<(Self, Self)> {
        (mid <= self.len).then(|| (self.slice(..mid), self.slice(mid..)))
    }

    /// Consecutive views of `chunk_size` elements (a shorter tail is skipped).
    ///
    /// # Panics
    /// When `chunk_size` is 0.
    pub fn chunks_exact(&self, chunk_size: usize) -> impl Iterator<Item = CudaView<'a, T>> + '_ {
        assert!(chunk_size > 0, "chunk_size must be non-zero");
        (0..self.len / chunk_size).map(move |i| {
            view!(
                CudaView,
                offset::<T>(self.ptr, i * chunk_size),
                chunk_size,
                self
            )
        })
    }

    /// The pointer for use on `stream`, with the view's lifetime (see [`DevicePtr`]).
    pub fn view_ptr(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        read_access(self.stream, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.read, stream))
    }
}

impl<'a, T> CudaViewMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A read-only view of the same range.
    pub fn as_view<'b>(&'b self) -> CudaView<'b, T> {
        CudaView {
            ptr: self.ptr,
            len: self.len,
            read: self.read,
            write: self.write,
            stream: self.stream,
            marker: PhantomData,
        }
    }

    /// Turns this into a read-only view with the same lifetime.
    pub fn into_view(self) -> CudaView<'a, T> {
        CudaView {
            ptr: self.ptr,
            len: self.len,
            read: self.read,
            write: self.write,
            stream: self.stream,
            marker: PhantomData,
        }
    }

    fn sub<'b, U>(&'b self, s: usize, len: usize) -> CudaViewMut<'b, U> {
        CudaViewMut {
            ptr: offset::<T>(self.ptr, s),
            len,
            read: self.read,
            write: self.write,
            stream: self.stream,
            marker: PhantomData,
        }
    }

    /// A read-only view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`CudaViewMut::try_slice`] does not).
    pub fn slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> CudaView<'b, T> {
        self.try_slice(bounds)
            .expect("CudaViewMut::slice: range out of bounds")
    }

    /// A read-only view of `bounds`, or `None` when out of range.
    pub fn try_slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> Option<CudaView<'b, T>> {
        let (s, e) = to_range(bounds, self.len)?;
        Some(self.sub::<T>(s, e - s).into_view())
    }

    /// The memory as `len` values of `S`, or `None` when they do not fit.
    ///
    /// # Safety
    /// Every bit pattern the memory may hold is a valid `S`.
    pub unsafe fn transmute<'b, S>(&'b self, len: usize) -> Option<CudaView<'b, S>> {
        fits::<S>(len, self.len * std::mem::size_of::<T>())
            .then(|| self.sub::<S>(0, len).into_view())
    }

    /// A writable view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`CudaViewMut::try_slice_mut`] does not).
    pub fn slice_mut<'b>(&'b mut self, bounds: impl RangeBounds<usize>) -> CudaViewMut<'b, T> {
        self.try_slice_mut(bounds)
            .expect("CudaViewMut::slice_mut: range out of bounds")
    }

    /// A writable view of `bounds`, or `None` when out of range.
    pub fn try_slice_mut<'b>(
        &'b mut self,
        bounds: impl RangeBounds<usize>,
    ) -> Option<CudaViewMut<'b, T>> {
        let (s, e) = to_range(bounds, self.len)?;
        Some(self.sub::<T>(s, e - s))
    }

    /// Two writable views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at_mut<'b>(&'b mut self, mid: usize) -> (CudaViewMut<'b, T>, CudaViewMut<'b, T>) {
        self.try_split_at_mut(mid)
            .expect("CudaViewMut::split_at_mut: mid out of bounds")
    }

    /// Two writable views, or `None` when `mid > len`.
    pub fn try_split_at_mut<'b>(
        &'b mut self,
        mid: usize,
    ) -> Option<(CudaViewMut<'b, T>, CudaViewMut<'b, T>)> {
        (mid <= self.len).then(|| (self.sub::<T>(0, mid), self.sub::<T>(mid, self.len - mid)))
    }

    /// Consecutive writable views of `chunk_size` elements (a shorter tail is skipped).
    ///
    /// # Panics
    /// When `chunk_size` is 0.
    pub fn chunks_exact_mut(self, chunk_size: usize) -> impl Iterator<Item = CudaViewMut<'a, T>> {
        assert!(chunk_size > 0, "chunk_size must be non-zero");
        let (ptr, read, write, stream) = (self.ptr, self.read, self.write, self.stream);
        (0..self.len / chunk_size).map(move |i| CudaViewMut {
            ptr: offset::<T>(ptr, i * chunk_size),
            len: chunk_size,
            read,
            write,
            stream,
            marker: PhantomData,
        })
    }

    /// The memory as `len` writable values of `S`, or `None` when they do not fit.
    ///
    /// # Safety
    /// As [`CudaViewMut::transmute`], and `T` accepts whatever `S` values are written.
    pub unsafe fn transmute_mut<'b, S>(&'b mut self, len: usize) -> Option<CudaViewMut<'b, S>> {
        fits::<S>(len, self.len * std::mem::size_of::<T>()).then(|| self.sub::<S>(0, len))
    }

    /// The pointer for reading on `stream`, with the view's lifetime (see [`DevicePtr`]).
    pub fn view_ptr(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        read_access(self.stream, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.read, stream))
    }

    /// The pointer for writing on `stream`, with the view's lifetime (see [`DevicePtrMut`]).
    pub fn view_ptr_mut(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        write_access(self.stream, self.read, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.write, stream))
    }
}

/// A type whose all-zero bit pattern is a valid value (for [`CudaStream::alloc_zeros`]).
///
/// # Safety
/// All-zero bytes must be a valid value of the type.
pub unsafe trait ValidAsZeroBits {}

macro_rules! marker_impls {
    // SAFETY: the listed types are primitives with a fixed C layout whose all-zero bytes are valid
    // (`0`, `0.0`, `false`): `ValidAsZeroBits`'s contract. For `DeviceRepr` every bit pattern
    // is valid too, except `bool`, which kernels must write as 0 or 1 (as in cudarc).
    ($tr:ident: $($t:ty),*) => { $(unsafe impl $tr for $t {})* };
}
marker_impls!(ValidAsZeroBits: bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
// SAFETY: an array of `T` is `M` `T`s in a row: all-zero when each is, and each is, by `T:
// ValidAsZeroBits`.
unsafe impl<T: ValidAsZeroBits, const M: usize> ValidAsZeroBits for [T; M] {}
#[cfg(feature = "f16")]
marker_impls!(ValidAsZeroBits: half::f16, half::bf16);
#[cfg(feature = "f8")]
marker_impls!(ValidAsZeroBits: float8::F8E4M3, float8::F8E5M2);
#[cfg(feature = "f4")]
marker_impls!(ValidAsZeroBits: float4::F4E2M1, float4::E8M0, float4::F4E2M1x2);

macro_rules! zero_tuples {
    ($($t:ident),+) => { zero_tuples!(@ [] $($t)+); };
    (@ [$($done:ident)*] $next:ident $($rest:ident)*) => {
        // SAFETY: a tuple of `ValidAsZeroBits` fields: all-zero bytes make every field a valid
        // zero, and padding may hold anything.
        unsafe impl<$($done: ValidAsZeroBits,)* $next: ValidAsZeroBits> ValidAsZeroBits for ($($done,)* $next,) {}
        zero_tuples!(@ [$($done)* $next] $($rest)*);
    };
    (@ [$($done:ident)*]) => {};
}
zero_tuples!(A, B, C, D, E, F, G, H, I, J, K, L);

/// A type that can be copied to the device and passed to a kernel by value.
///
/// # Safety
/// The type has a C layout the kernel agrees on (usually `#[repr(C)]`), and every bit pattern
/// the device may write back is a valid value.
pub unsafe trait DeviceRepr {}
marker_impls!(DeviceRepr: bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
// SAFETY: an array of `T: DeviceRepr` has C layout (`N` `T`s in a row) and every element pattern
// the device writes is valid because it is for `T`.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}
#[cfg(feature = "f16")]
marker_impls!(DeviceRepr: half::f16, half::bf16);
#[cfg(feature = "f8")]
marker_impls!(DeviceRepr: float8::F8E4M3, float8::F8E5M2);
#[cfg(feature = "f4")]
marker_impls!(DeviceRepr: float4::F4E2M1, float4::E8M0, float4::F4E2M1x2);

/// Something with a length on a stream: slices, views, unified memory.
pub trait DeviceSlice<T> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Size in bytes.
    fn num_bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }
    /// Whether it has no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The stream that owns it.
    fn stream(&self) -> &Arc<CudaStream>;
}

impl<T> DeviceSlice<T> for CudaSlice<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}
impl<T> DeviceSlice<T> for CudaView<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }
}
impl<T> DeviceSlice<T> for CudaViewMut<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }
}

/// What happens when a raw pointer handed out by [`DevicePtr`]/[`DevicePtrMut`] goes out of
/// use: record the slice's event on the stream used, or synchronise a stream.
#[derive(Debug)]
#[must_use]
pub enum SyncOnDrop<'a> {
    /// Record this event on this stream.
    Record(Option<(&'a CudaEvent, &'a CudaStream)>),
    /// Synchronise this stream.
    Sync(Option<&'a CudaStream>),
}

impl<'a> SyncOnDrop<'a> {
    /// Records `event` (if any) on `stream` at drop.
    pub fn record_event(event: &'a Option<CudaEvent>, stream: &'a CudaStream) -> Self {
        SyncOnDrop::Record(event.as_ref().map(|e| (e, stream)))
    }
    /// Synchronises `stream` at drop.
    pub fn sync_stream(stream: &'a CudaStream) -> Self {
        SyncOnDrop::Sync(Some(stream))
    }
}

impl Drop for SyncOnDrop<'_> {
    fn drop(&mut self) {
        match self {
            SyncOnDrop::Record(target) => {
                if let Some((event, stream)) = target.take() {
                    if stream.ctx.is_managing_stream_synchronization() {
                        stream.ctx.record_err(event.record(stream));
                    }
                }
            }
            SyncOnDrop::Sync(target) => {
                if let Some(stream) = target.take() {
                    stream.ctx.record_err(stream.sync_keeping_recorded_error());
                }
            }
        }
    }
}

/// Orders a read on `stream` after the last write (tracked slices in multi-stream mode).
#[inline]
fn read_access(owner: &CudaStream, write: &Option<CudaEvent>, stream: &CudaStream) {
    if owner.ctx.is_managing_stream_synchronization() {
        if let Some(w) = write {
            stream.ctx.record_err(stream.wait(w));
        }
    }
}

/// Orders a write on `stream` after the last read and write.
#[inline]
fn write_access(
    owner: &CudaStream,
    read: &Option<CudaEvent>,
    write: &Option<CudaEvent>,
    stream: &CudaStream,
) {
    if owner.ctx.is_managing_stream_synchronization() {
        for e in [read, write].into_iter().flatten() {
            stream.ctx.record_err(stream.wait(e));
        }
    }
}

/// Device memory readable on a stream: the raw pointer, plus a guard that records the read.
pub trait DevicePtr<T>: DeviceSlice<T> {
    /// The pointer for reading on `stream`; keep the guard alive while the pointer is in use.
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

/// Device memory writable on a stream: the raw pointer, plus a guard that records the write.
pub trait DevicePtrMut<T>: DeviceSlice<T> {
    /// The pointer for writing on `stream`; keep the guard alive while the pointer is in use.
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

impl<T> DevicePtr<T> for CudaSlice<T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        read_access(&self.stream, &self.write, stream);
        (
            self.cu_device_ptr,
            SyncOnDrop::record_event(&self.read, stream),
        )
    }
}
impl<T> DevicePtr<T> for CudaView<'_, T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        read_access(self.stream, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.read, stream))
    }
}
impl<T> DevicePtr<T> for CudaViewMut<'_, T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        read_access(self.stream, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.read, stream))
    }
}
impl<T> DevicePtrMut<T> for CudaSlice<T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        write_access(&self.stream, &self.read, &self.write, stream);
        (
            self.cu_device_ptr,
            SyncOnDrop::record_event(&self.write, stream),
        )
    }
}
impl<T> DevicePtrMut<T> for CudaViewMut<'_, T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        write_access(self.stream, self.read, self.write, stream);
        (self.ptr, SyncOnDrop::record_event(self.write, stream))
    }
}

/// Host memory usable as a copy source or destination.
pub trait HostSlice<T> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether it has no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The elements for an asynchronous read on `stream`, and a guard ordering later host use.
    ///
    /// # Safety
    /// The slice is read by the device until the guard's drop has taken effect.
    unsafe fn stream_synced_slice<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (&'a [T], SyncOnDrop<'a>);
    /// The elements for an asynchronous write on `stream`, and a guard ordering later host use.
    ///
    /// # Safety
    /// The slice is written by the device until the guard's drop has taken effect.
    unsafe fn stream_synced_mut_slice<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (&'a mut [T], SyncOnDrop<'a>);
}

/// The guard for a pageable host buffer: nothing to wait for. On every backend a copy from
/// pageable memory has consumed (staged) its source, and a copy into pageable memory has
/// completed, when the call returns; on HIP that is the backend's rule
/// (`anycuda::native::hip::pageable_copy_needs_wait`), so this crate holds no branch for it.
#[inline]
fn pageable_guard(_stream: &CudaStream) -> SyncOnDrop<'_> {
    SyncOnDrop::Sync(None)
}

macro_rules! pageable_host_slice {
    ($([$($g:tt)*] $ty:ty),*) => {$(
        impl<$($g)*> HostSlice<T> for $ty {
            fn len(&self) -> usize {
                <[T]>::len(self)
            }
            unsafe fn stream_synced_slice<'a>(&'a self, stream: &'a CudaStream) -> (&'a [T], SyncOnDrop<'a>) {
                (&self[..], pageable_guard(stream))
            }
            unsafe fn stream_synced_mut_slice<'a>(&'a mut self, stream: &'a CudaStream) -> (&'a mut [T], SyncOnDrop<'a>) {
                (&mut self[..], pageable_guard(stream))
            }
        }
    )*};
}
pageable_host_slice!([T, const N: usize] [T; N], [T] [T], [T] Vec<T>);

/// Page-locked host memory from [`CudaContext::alloc_pinned`], freed on drop.
#[derive(Debug)]
pub struct PinnedHostSlice<T> {
    pub(crate) ptr: *mut T,
    pub(crate) len: usize,
    pub(crate) event: CudaEvent,
}

// SAFETY: the slice owns its page-locked memory as a `Box<[T]>` owns its heap: it is freed only by
// its own drop, and the constructors require `T: DeviceRepr` (plain C data).
unsafe impl<T> Send for PinnedHostSlice<T> {}
// SAFETY: `&PinnedHostSlice<T>` gives `&[T]` only after synchronizing the event that orders device
// writes, and `T: DeviceRepr` is plain C data.
unsafe impl<T> Sync for PinnedHostSlice<T> {}

impl<T> Drop for PinnedHostSlice<T> {
    fn drop(&mut self) {
        let ctx = &self.event.ctx;
        ctx.record_err(self.event.synchronize());
        // SAFETY: `self.ptr` came from `malloc_host` in `alloc_pinned_with_flags`, the event orders
        // every pending copy and was synchronized above, and this drop frees it once.
        ctx.record_err(unsafe { result::free_host(self.ptr.cast()) });
    }
}

impl CudaContext {
    /// Page-locked, write-combined host memory for `len` values (uninitialised).
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when the size overflows (cudarc panics), or the driver's error.
    ///
    /// # Safety
    /// The memory is uninitialised until written.
    pub unsafe fn alloc_pinned<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<PinnedHostSlice<T>, DriverError> {
        // SAFETY: the caller's contract (uninitialised memory) is passed on unchanged.
        unsafe { self.alloc_pinned_with_flags(len, sys::CU_MEMHOSTALLOC_WRITECOMBINED) }
    }

    /// Page-locked host memory with `cuMemHostAlloc` flags (uninitialised).
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when the size overflows (cudarc panics), or the driver's error.
    ///
    /// # Safety
    /// The memory is uninitialised until written.
    pub unsafe fn alloc_pinned_with_flags<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
        flags: u32,
    ) -> Result<PinnedHostSlice<T>, DriverError> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(invalid_value)?;
        self.bind_to_thread()?;
        let event = self.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
        // SAFETY: `bytes` was checked not to overflow; the context is bound; the memory is returned
        // uninitialised, which this fn's `# Safety` leaves to the caller.
        let ptr = unsafe { result::malloc_host(bytes, flags) }?.cast::<T>();
        if ptr.is_null() || !ptr.is_aligned() {
            // SAFETY: `ptr` is what `malloc_host` just returned and nothing else has it; a null
            // pointer makes the driver return an error, not free anything.
            let _ = unsafe { result::free_host(ptr.cast()) };
            return Err(DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        }
        Ok(PinnedHostSlice { ptr, len, event })
    }
}

impl<T> PinnedHostSlice<T> {
    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.event.ctx
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: ValidAsZeroBits> PinnedHostSlice<T> {
    /// The pointer, after pending copies finish.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_ptr(&self) -> Result<*const T, DriverError> {
        self.event.synchronize()?;
        Ok(self.ptr)
    }
    /// The mutable pointer, after pending copies finish.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_mut_ptr(&mut self) -> Result<*mut T, DriverError> {
        self.event.synchronize()?;
        Ok(self.ptr)
    }
    /// The elements, after pending copies finish.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_slice(&self) -> Result<&[T], DriverError> {
        self.event.synchronize()?;
        // SAFETY: `self.ptr` is an aligned, page-locked allocation of `self.len` `T`s
        // (`alloc_pinned_with_flags`), and the event synchronized above orders every device write
        // before the borrow.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }
    /// The elements, mutably, after pending copies finish.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], DriverError> {
        self.event.synchronize()?;
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow unique.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }
}

impl<T> HostSlice<T> for PinnedHostSlice<T> {
    fn len(&self) -> usize {
        self.len
    }
    unsafe fn stream_synced_slice<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (&'a [T], SyncOnDrop<'a>) {
        stream.ctx.record_err(stream.wait(&self.event));
        (
            // SAFETY: `self.ptr` holds `self.len` `T`s; the caller's contract (the trait's `#
            // Safety`) keeps the host from writing while the device reads, and the returned guard
            // records the read.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) },
            SyncOnDrop::Record(Some((&self.event, stream))),
        )
    }
    unsafe fn stream_synced_mut_slice<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (&'a mut [T], SyncOnDrop<'a>) {
        stream.ctx.record_err(stream.wait(&self.event));
        (
            // SAFETY: `self.ptr` holds `self.len` `T`s and `&mut self` makes the borrow unique; the
            // caller's contract keeps the host away until the guard records the write.
            unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) },
            SyncOnDrop::Record(Some((&self.event, stream))),
        )
    }
}

impl CudaStream {
    fn raw_alloc(&self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        self.ctx.bind_to_thread()?;
        if self.ctx.has_async_alloc {
            // SAFETY: `self.cu_stream` is live while `self` is, and the context was bound just
            // above.
            unsafe { result::malloc_async(self.cu_stream, bytes) }
        } else {
            // SAFETY: the context was bound just above; a synchronous allocation takes only a size.
            unsafe { result::malloc_sync(bytes) }
        }
    }

    /// An empty slice (a zero-byte allocation), with no event tracking.
    ///
    /// # Errors
    /// The driver's error.
    pub fn null<T>(self: &Arc<Self>) -> Result<CudaSlice<T>, DriverError> {
        let cu_device_ptr = self.raw_alloc(0)?;
        Ok(CudaSlice {
            cu_device_ptr,
            len: 0,
            read: None,
            write: None,
            stream: self.clone(),
            marker: PhantomData,
        })
    }

    /// Uninitialised device memory for `len` values, allocated on this stream.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when the size overflows, or the driver's error (e.g.
    /// `CUDA_ERROR_OUT_OF_MEMORY`).
    ///
    /// # Safety
    /// The memory is uninitialised until written.
    pub unsafe fn alloc<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<CudaSlice<T>, DriverError> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(invalid_value)?;
        let cu_device_ptr = self.raw_alloc(bytes)?;
        let slice = |read, write| CudaSlice {
            cu_device_ptr,
            len,
            read,
            write,
            stream: self.clone(),
            marker: PhantomData,
        };
        if !self.ctx.is_event_tracking() {
            return Ok(slice(None, None));
        }
        // On failure the slice (with what it has) frees the memory.
        let mut s = slice(None, None);
        s.read = Some(self.ctx.new_event(None)?);
        s.write = Some(self.ctx.new_event(None)?);
        Ok(s)
    }

    /// Zeroed device memory for `len` values.
    ///
    /// # Errors
    /// The driver's error.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: the memory is zeroed by `memset_zeros` before it is returned, and `T:
        // ValidAsZeroBits` makes zero bytes valid `T`s.
        let mut dst = unsafe { self.alloc(len) }?;
        self.memset_zeros(&mut dst)?;
        Ok(dst)
    }

    /// Fills `dst` with zero bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        let n = dst.num_bytes();
        let (ptr, _record) = dst.device_ptr_mut(self);
        // SAFETY: `ptr` holds `n = dst.num_bytes()` bytes of `dst`, whose write is ordered by the
        // `_record` guard; `self.cu_stream` is live.
        unsafe { result::memset_d8_async(ptr, 0, n, self.cu_stream) }
    }

    /// A new device slice holding a copy of `src` (cudarc's deprecated name).
    ///
    /// # Errors
    /// The driver's error.
    #[deprecated = "Use clone_htod"]
    pub fn memcpy_stod<T: DeviceRepr, Src: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        self.clone_htod(src)
    }

    /// A new device slice holding a copy of `src`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn clone_htod<T: DeviceRepr, Src: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: the memory is filled by `memcpy_htod` from `src` (all `src.len()` elements)
        // before it is returned.
        let mut dst = unsafe { self.alloc(src.len()) }?;
        self.memcpy_htod(src, &mut dst)?;
        Ok(dst)
    }

    /// Copies `src` into the start of `dst`.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when `dst` is shorter than `src` (cudarc panics), or the
    /// driver's error.
    pub fn memcpy_htod<T: DeviceRepr, Src: HostSlice<T> + ?Sized, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        if dst.len() < src.len() {
            return Err(invalid_value());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: the guard `_record_src` lives until the copy is enqueued and records it, so the
        // host does not reuse `src` before the device has read it (the trait's contract).
        let (src, _record_src) = unsafe { src.stream_synced_slice(self) };
        let (dst, _record_dst) = dst.device_ptr_mut(self);
        // SAFETY: `src` is readable for its length and `dst` holds at least `src.len()` elements
        // (checked above); the stream is live and the guards order both sides.
        unsafe { result::memcpy_htod_async(dst, src, self.cu_stream) }
    }

    /// A new `Vec` holding a copy of `src` (cudarc's deprecated name).
    ///
    /// # Errors
    /// The driver's error.
    #[deprecated = "Use clone_dtoh"]
    pub fn memcpy_dtov<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<Vec<T>, DriverError> {
        self.clone_dtoh(src)
    }

    /// A new `Vec` holding a copy of `src`; the copy has completed when this returns.
    ///
    /// # Errors
    /// The driver's error.
    pub fn clone_dtoh<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<Vec<T>, DriverError> {
        let n = src.len();
        let mut dst: Vec<T> = Vec::with_capacity(n);
        {
            self.ctx.bind_to_thread()?;
            let (sptr, _record_src) = src.device_ptr(self);
            // Copy into the spare capacity; the length is set only once the bytes are there.
            // SAFETY: `dst` has capacity for `n` elements (`Vec::with_capacity(n)` above); the
            // slice covers only that spare capacity, which the copy writes and nothing reads before
            // `set_len` below (`T: DeviceRepr` is plain data with no drop).
            let spare = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr(), n) };
            // SAFETY: `spare` is writable for `n` `T`s, `sptr` holds `src.len() == n` elements, and
            // the stream is live.
            unsafe { result::memcpy_dtoh_async(spare, sptr, self.cu_stream) }?;
        }
        // A pageable destination: the copy has completed when the call returns, on every
        // backend (CUDA's contract; the HIP backend keeps it, see `pageable_guard`).
        // SAFETY: the copy into a pageable buffer has completed when the call returns (CUDA's
        // contract, which the HIP backend keeps), so the first `n` elements are initialised.
        unsafe { dst.set_len(n) };
        Ok(dst)
    }

    /// Copies `src` into the start of `dst`.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when `dst` is shorter than `src` (cudarc panics), or the
    /// driver's error.
    pub fn memcpy_dtoh<T: DeviceRepr, Src: DevicePtr<T>, Dst: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        if dst.len() < src.len() {
            return Err(invalid_value());
        }
        self.ctx.bind_to_thread()?;
        let (src_ptr, _record_src) = src.device_ptr(self);
        // SAFETY: the guard `_record_dst` records the write on this stream, so the host does not
        // read `dst` before the copy lands (the trait's contract).
        let (dst, _record_dst) = unsafe { dst.stream_synced_mut_slice(self) };
        let n = src.len();
        // SAFETY: `dst[..n]` is writable for `n` `T`s (`dst.len() >= n` checked above), `src_ptr`
        // holds `n` elements, and the stream is live.
        unsafe { result::memcpy_dtoh_async(&mut dst[..n], src_ptr, self.cu_stream) }
    }

    /// Copies `src` into the start of `dst`, across contexts (peer copy) when they differ.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` when `dst` is shorter than `src` (cudarc panics), or the
    /// driver's error.
    pub fn memcpy_dtod<T, Src: DevicePtr<T>, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        if dst.len() < src.len() {
            return Err(invalid_value());
        }
        self.ctx.bind_to_thread()?;
        let n = src.num_bytes();
        let src_ctx = src.stream().context().clone();
        if src_ctx == self.ctx {
            let (s, _record_src) = src.device_ptr(self);
            let (d, _record_dst) = dst.device_ptr_mut(self);
            // SAFETY: `d` and `s` hold at least `n` bytes (lengths checked above), both in this
            // context; the guards order the copy after earlier uses.
            return unsafe { result::memcpy_dtod_async(d, s, n, self.cu_stream) };
        }
        // Events cannot be recorded on another context's stream: take the source pointer on its
        // own stream, and make this stream wait for everything queued there.
        let src_stream = src.stream().clone();
        let (s, _record_src) = src.device_ptr(&src_stream);
        let (d, _record_dst) = dst.device_ptr_mut(self);
        self.wait(&src_stream.record_event(None)?)?;
        // SAFETY: `d` and `s` hold at least `n` bytes in their own contexts, both live (`Arc`s
        // held); the wait above orders the copy after the source's pending work.
        unsafe {
            result::memcpy_peer_async(self.ctx.cu_ctx, d, src_ctx.cu_ctx, s, n, self.cu_stream)
        }
    }

    /// A new slice on this stream holding a copy of `src`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn clone_dtod<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: the memory is filled by `memcpy_dtod` from `src` before it is returned.
        let mut dst = unsafe { self.alloc(src.len()) }?;
        self.memcpy_dtod(src, &mut dst)?;
        Ok(dst)
    }

    /// Takes ownership of raw device memory as a slice on this stream (freed on drop).
    ///
    /// # Panics
    /// When event creation fails while tracking is on (cudarc's signature has no `Result`).
    ///
    /// # Safety
    /// `cu_device_ptr` is an allocation of at least `len` values of `T` in this context, owned
    /// by nothing else.
    pub unsafe fn upgrade_device_ptr<T>(
        self: &Arc<Self>,
        cu_device_ptr: sys::CUdeviceptr,
        len: usize,
    ) -> CudaSlice<T> {
        let mut s = CudaSlice {
            cu_device_ptr,
            len,
            read: None,
            write: None,
            stream: self.clone(),
            marker: PhantomData,
        };
        if self.ctx.is_event_tracking() {
            let mk = || {
                self.ctx
                    .new_event(None)
                    .expect("upgrade_device_ptr: cuEventCreate failed")
            };
            s.read = Some(mk());
            s.write = Some(mk());
        }
        s
    }
}

/// A loaded module; functions keep it alive.
#[derive(Debug)]
pub struct CudaModule {
    /// The safe layer's module, unloaded by this object's `Drop` (after every
    /// [`CudaFunction`], each holding this module's `Arc`, and so its kernel, is gone).
    pub(crate) core: ManuallyDrop<anycuda::core::Module>,
    pub(crate) cu_module: sys::CUmodule,
    pub(crate) ctx: Arc<CudaContext>,
}

// SAFETY: a module handle may be used from any thread; every use binds `ctx` (an
// `Arc<CudaContext>`, Send + Sync) first.
unsafe impl Send for CudaModule {}
// SAFETY: `&CudaModule` allows only function and global look-ups, which the driver serialises.
unsafe impl Sync for CudaModule {}

impl Drop for CudaModule {
    fn drop(&mut self) {
        // SAFETY: `core` is taken out once, here, and `self.core` is not used after `drop`.
        let core = unsafe { ManuallyDrop::take(&mut self.core) };
        // As cudarc: errors of the unload are recorded on the context (`check_err` reports
        // them); core's plain drop could only log them.
        self.ctx.record_err(self.ctx.bind_to_thread());
        self.ctx
            .record_err(core.unload().map_err(CoreError::into_driver_error));
    }
}

impl CudaContext {
    /// Loads compiled code: [`crate::nvrtc::compile_ptx`] output, PTX text, a file or a binary.
    ///
    /// # Errors
    /// The driver's error. On an AMD GPU, PTX text and NVIDIA cubins give
    /// `CUDA_ERROR_NOT_SUPPORTED` (the HIP backend's rule); the advice, to compile the `.cu`
    /// source with `compile_ptx`, whose output loads on both backends, is printed once, logged
    /// and returned by [`result::not_supported_reason`]. A string with an interior NUL or empty
    /// code gives `CUDA_ERROR_INVALID_VALUE` (cudarc panics); a file that cannot be read
    /// `CUDA_ERROR_FILE_NOT_FOUND`.
    pub fn load_module(
        self: &Arc<Self>,
        ptx: crate::nvrtc::Ptx,
    ) -> Result<Arc<CudaModule>, DriverError> {
        use crate::nvrtc::safe::PtxKind;
        use anycuda::core::ObjectCode;
        self.bind_to_thread()?;
        // core tells the kind by the first bytes, as `cuModuleLoadData` does, and loads a
        // NUL-terminated copy.
        let code = match ptx.0 {
            PtxKind::Image(image) => {
                ObjectCode::from_image(image.iter().map(|&c| c as u8).collect::<Vec<u8>>())
            }
            PtxKind::Src(src) => {
                if src.as_bytes().contains(&0) {
                    return Err(invalid_value());
                }
                ObjectCode::from_ptx(src.into_bytes())
            }
            PtxKind::File(path) => {
                let bytes = std::fs::read(&path)
                    .map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_FILE_NOT_FOUND))?;
                ObjectCode::from_image(bytes)
            }
            PtxKind::Binary(data) => ObjectCode::from_image(data),
        }
        .map_err(CoreError::into_driver_error)?;
        let core = code
            .load(&self.core)
            .map_err(CoreError::into_driver_error)?;
        Ok(Arc::new(CudaModule {
            cu_module: core.as_raw(),
            core: ManuallyDrop::new(core),
            ctx: self.clone(),
        }))
    }
}

/// A kernel in a loaded module.
#[derive(Debug, Clone)]
pub struct CudaFunction {
    pub(crate) cu_function: sys::CUfunction,
    /// The safe layer's kernel (it holds the module's `core::Module` too).
    #[allow(unused)]
    pub(crate) kernel: anycuda::core::Kernel,
    #[allow(unused)]
    pub(crate) module: Arc<CudaModule>,
}

// SAFETY: a function handle may be used from any thread; every use binds the module's context
// first, and the module is held by an `Arc`.
unsafe impl Send for CudaFunction {}
// SAFETY: `&CudaFunction` allows only attribute and occupancy queries and launches through the
// driver, which serialises them.
unsafe impl Sync for CudaFunction {}

impl CudaModule {
    /// A kernel by name.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_FOUND` for an unknown name, `CUDA_ERROR_INVALID_VALUE` for a name with
    /// an interior NUL (cudarc panics), or the driver's error.
    pub fn load_function(self: &Arc<Self>, fn_name: &str) -> Result<CudaFunction, DriverError> {
        self.ctx.bind_to_thread()?;
        let kernel = self
            .core
            .kernel(fn_name)
            .map_err(CoreError::into_driver_error)?;
        Ok(CudaFunction {
            cu_function: kernel.as_raw(),
            kernel,
            module: self.clone(),
        })
    }

    /// A `__device__`/`__constant__` global as a writable byte view on `stream`.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_FOUND` for an unknown name, or the driver's error.
    pub fn get_global<'a>(
        self: &'a Arc<Self>,
        name: &str,
        stream: &'a Arc<CudaStream>,
    ) -> Result<CudaViewMut<'a, u8>, DriverError> {
        let name = CString::new(name).map_err(|_| invalid_value())?;
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_module` is live while `self` is; `name` is an owned C string alive for
        // the call.
        let (ptr, len) = unsafe { result::module::get_global(self.cu_module, name) }?;
        Ok(CudaViewMut {
            ptr,
            len,
            read: &None,
            write: &None,
            stream,
            marker: PhantomData,
        })
    }
}

impl CudaFunction {
    /// The raw function handle.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.cu_function
    }

    fn bind(&self) -> Result<(), DriverError> {
        self.module.ctx.bind_to_thread()
    }

    /// Dynamic shared memory available per block for `num_blocks` blocks of `block_size`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn occupancy_available_dynamic_smem_per_block(
        &self,
        num_blocks: u32,
        block_size: u32,
    ) -> Result<usize, DriverError> {
        self.bind()?;
        // SAFETY: `self.cu_function` is live while its module is (held by `self.module`); the
        // context was bound just above.
        unsafe {
            result::occupancy::available_dynamic_shared_mem_per_block(
                self.cu_function,
                num_blocks as i32,
                block_size as i32,
            )
        }
    }

    /// Active blocks per multiprocessor.
    ///
    /// # Errors
    /// The driver's error.
    pub fn occupancy_max_active_blocks_per_multiprocessor(
        &self,
        block_size: u32,
        dynamic_smem_size: usize,
        flags: Option<sys::CUoccupancy_flags>,
    ) -> Result<u32, DriverError> {
        self.bind()?;
        let flags = flags.unwrap_or(sys::CUoccupancy_flags::CU_OCCUPANCY_DEFAULT);
        // SAFETY: `self.cu_function` is live while its module is (held by `self.module`); the
        // context was bound just above.
        let n = unsafe {
            result::occupancy::max_active_block_per_multiprocessor_with_flags(
                self.cu_function,
                block_size as i32,
                dynamic_smem_size,
                flags.0,
            )
        }?;
        Ok(n as u32)
    }

    fn launch_config(
        config: crate::driver::LaunchConfig,
        stream: &CudaStream,
    ) -> sys::CUlaunchConfig {
        // SAFETY: `CUlaunchConfig` is a C struct of integers, a stream handle and an attribute
        // pointer; all-zero bytes are valid (no attributes, null stream).
        let mut c: sys::CUlaunchConfig = unsafe { std::mem::zeroed() };
        (c.gridDimX, c.gridDimY, c.gridDimZ) = config.grid_dim;
        (c.blockDimX, c.blockDimY, c.blockDimZ) = config.block_dim;
        c.sharedMemBytes = config.shared_mem_bytes;
        c.hStream = stream.cu_stream;
        c
    }

    /// Maximum active clusters for `config`.
    ///
    /// # Errors
    /// The driver's error; `CUDA_ERROR_NOT_SUPPORTED` on HIP (no clusters).
    pub fn occupancy_max_active_clusters(
        &self,
        config: crate::driver::LaunchConfig,
        stream: &CudaStream,
    ) -> Result<u32, DriverError> {
        self.bind()?;
        let cfg = Self::launch_config(config, stream);
        let mut n = 0;
        // SAFETY: `n` is a local `c_int`, `cfg` a local, initialised config with no attributes, and
        // `self.cu_function` is live.
        result::ok(unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, self.cu_function, &cfg) })?;
        Ok(n as u32)
    }

    /// `(min_grid_size, block_size)` maximising occupancy.
    ///
    /// # Errors
    /// The driver's error.
    pub fn occupancy_max_potential_block_size(
        &self,
        block_size_to_dynamic_smem_size: extern "C" fn(block_size: std::ffi::c_int) -> usize,
        dynamic_smem_size: usize,
        block_size_limit: u32,
        flags: Option<sys::CUoccupancy_flags>,
    ) -> Result<(u32, u32), DriverError> {
        self.bind()?;
        let flags = flags.unwrap_or(sys::CUoccupancy_flags::CU_OCCUPANCY_DEFAULT);
        // A safe extern "C" fn is callable where an unsafe one is expected.
        let cb: unsafe extern "C" fn(std::ffi::c_int) -> usize = block_size_to_dynamic_smem_size;
        // SAFETY: `self.cu_function` is live; `cb` is a safe `extern "C" fn`, sound to call with
        // any block size.
        let (g, b) = unsafe {
            result::occupancy::max_potential_block_size_with_flags(
                self.cu_function,
                Some(cb),
                dynamic_smem_size,
                block_size_limit as i32,
                flags.0,
            )
        }?;
        Ok((g as u32, b as u32))
    }

    /// The largest cluster size for `config`.
    ///
    /// # Errors
    /// The driver's error; `CUDA_ERROR_NOT_SUPPORTED` on HIP (no clusters).
    pub fn occupancy_max_potential_cluster_size(
        &self,
        config: crate::driver::LaunchConfig,
        stream: &CudaStream,
    ) -> Result<u32, DriverError> {
        self.bind()?;
        let cfg = Self::launch_config(config, stream);
        let mut n = 0;
        // SAFETY: `n` is a local `c_int`, `cfg` a local, initialised config with no attributes, and
        // `self.cu_function` is live.
        result::ok(unsafe {
            sys::cuOccupancyMaxPotentialClusterSize(&mut n, self.cu_function, &cfg)
        })?;
        Ok(n as u32)
    }

    /// A function attribute.
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` for attributes HIP lacks.
    pub fn get_attribute(&self, attribute: sys::CUfunction_attribute) -> Result<i32, DriverError> {
        self.bind()?;
        // SAFETY: `self.cu_function` is live while its module is (held by `self.module`); the
        // context was bound just above.
        unsafe { result::function::get_function_attribute(self.cu_function, attribute) }
    }

    /// Registers per thread.
    ///
    /// # Errors
    /// The driver's error.
    pub fn num_regs(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }
    /// Static shared memory in bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn shared_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
    }
    /// Constant memory in bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn const_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
    }
    /// Local memory per thread in bytes.
    ///
    /// # Errors
    /// The driver's error.
    pub fn local_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    }
    /// Maximum threads per block.
    ///
    /// # Errors
    /// The driver's error.
    pub fn max_threads_per_block(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }
    /// PTX version (major * 10 + minor).
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` where HIP has no such attribute.
    pub fn ptx_version(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION)
    }
    /// Binary version (major * 10 + minor).
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` where HIP has no such attribute.
    pub fn binary_version(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_BINARY_VERSION)
    }

    /// Sets a function attribute.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_attribute(
        &self,
        attribute: sys::CUfunction_attribute,
        value: i32,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: `self.cu_function` is live while its module is; the driver checks the attribute
        // and value.
        unsafe { result::function::set_function_attribute(self.cu_function, attribute, value) }
    }

    /// Sets the function's cache preference.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_function_cache_config(
        &self,
        attribute: sys::CUfunc_cache,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: `self.cu_function` is live while its module is; the driver checks the config.
        unsafe { result::function::set_function_cache_config(self.cu_function, attribute) }
    }
}

#[cfg(test)]
mod facade_tests {
    use super::{fits, to_range};

    #[test]
    fn ranges_are_checked_not_wrapped() {
        assert_eq!(to_range(.., 10), Some((0, 10)));
        assert_eq!(to_range(2..=4, 10), Some((2, 5)));
        assert_eq!(to_range(10.., 10), Some((10, 10)));
        assert_eq!(to_range(11.., 10), None);
        assert_eq!(to_range(..=10, 10), None);
        assert_eq!(to_range(..=usize::MAX, 10), None);
        assert_eq!(
            to_range(
                (
                    std::ops::Bound::Excluded(usize::MAX),
                    std::ops::Bound::Unbounded
                ),
                10
            ),
            None
        );
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = to_range(5..3, 10);
        assert_eq!(backwards, None);
    }

    #[test]
    fn transmute_sizes_do_not_overflow() {
        assert!(fits::<f32>(25, 100));
        assert!(!fits::<f32>(26, 100));
        assert!(!fits::<u64>(usize::MAX, 100));
    }
}
