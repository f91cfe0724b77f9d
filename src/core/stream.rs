//! Streams: ordered queues of GPU work, with host callbacks and cross-stream waits.

use super::context::Context;
use super::error::{check, CoreError, Result};
use super::event::{Event, EventOptions};
use super::track;
use crate::driver::{self, CUevent, CUresult, CUstream, CUstream_flags};
use std::ffi::{c_int, c_uint};
use std::fmt;
use std::sync::Arc;

/// How to create a [`Stream`] (cuda.core's `StreamOptions`). Plain data: `Send + Sync`.
///
/// The default is non-blocking, like cuda.core's: a created stream does not synchronize
/// implicitly with the legacy default stream. Ask for `.non_blocking(false)` for that.
///
/// ```
/// use anycuda::core::StreamOptions;
/// assert!(StreamOptions::default().non_blocking);
/// let o = StreamOptions::default().non_blocking(false).priority(-1);
/// assert_eq!((o.non_blocking, o.priority), (false, Some(-1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamOptions {
    /// `CU_STREAM_NON_BLOCKING`: no implicit synchronization with the default stream
    /// (`true` by default).
    pub non_blocking: bool,
    /// Priority (lower is higher; see [`Context::stream_priority_range`]). `None`: the default.
    /// The driver clamps values outside the range.
    pub priority: Option<i32>,
}

impl Default for StreamOptions {
    /// Non-blocking, default priority (cuda.core's default).
    fn default() -> Self {
        Self {
            non_blocking: true,
            priority: None,
        }
    }
}

impl StreamOptions {
    /// Sets [`StreamOptions::non_blocking`].
    #[must_use]
    pub fn non_blocking(mut self, yes: bool) -> Self {
        self.non_blocking = yes;
        self
    }
    /// Sets [`StreamOptions::priority`].
    #[must_use]
    pub fn priority(mut self, p: i32) -> Self {
        self.priority = Some(p);
        self
    }
    fn flags(self) -> c_uint {
        if self.non_blocking {
            CUstream_flags::CU_STREAM_NON_BLOCKING.0 as c_uint
        } else {
            CUstream_flags::CU_STREAM_DEFAULT.0 as c_uint
        }
    }
}

/// An owned stream handle; destroyed when the last [`Stream`] clone drops.
struct OwnedStream {
    raw: CUstream,
    /// Keeps the context alive until the stream is destroyed (fields drop after `drop`).
    _ctx: Context,
}

// SAFETY: a CUstream is a driver handle usable from any thread (the driver API is thread-safe);
// Rust never dereferences it.
unsafe impl Send for OwnedStream {}
// SAFETY: as above.
unsafe impl Sync for OwnedStream {}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // Destroying a stream with work queued is allowed: the driver releases it once the work
        // completes. No need to bind: the handle names its context, and dropping should not
        // change the thread's current context.
        // SAFETY: the handle was created by cuStreamCreate and is destroyed once, here.
        let r = unsafe { driver::cuStreamDestroy(self.raw) };
        if let Err(e) = check("cuStreamDestroy", r) {
            log::error!("anycuda::core: dropping a stream: {e}");
        }
    }
}

/// A stream of a [`Context`]: an owned `CUstream`, or the context's default stream.
///
/// Cloning shares the handle (an `Arc` clone); the stream is destroyed when the last clone of
/// an owned stream drops. A `Stream` holds its `Context`, so it cannot outlive it.
///
/// `Send + Sync`: the driver API is thread-safe, and enqueueing on one stream from several
/// threads is allowed (the order between threads is whatever the calls' order is).
///
/// ```no_run
/// use anycuda::core::{Device, EventOptions, StreamOptions};
/// let ctx = Device::new(0)?.context()?;
/// let s = ctx.create_stream(StreamOptions::default())?;
/// let ev = s.record(EventOptions::default())?;
/// s.launch_host_func(|| println!("the stream reached this point"))?;
/// ctx.default_stream().wait_event(&ev)?;
/// s.synchronize()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone)]
pub struct Stream {
    raw: CUstream,
    ctx: Context,
    /// `None` for the default stream and borrowed raw streams (nothing to destroy).
    owned: Option<Arc<OwnedStream>>,
}

// SAFETY: the handle is a driver object usable from any thread (the driver API is thread-safe),
// never dereferenced by Rust; the rest is Context and Arc<OwnedStream>, both Send + Sync.
unsafe impl Send for Stream {}
// SAFETY: as above; every method takes &self and only calls the driver.
unsafe impl Sync for Stream {}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.raw)
            .field("device", &self.ctx.device().ordinal())
            .field("owned", &self.owned.is_some())
            .finish()
    }
}

impl Stream {
    pub(crate) fn new(ctx: &Context, opts: StreamOptions) -> Result<Stream> {
        ctx.bind()?;
        let mut raw: CUstream = std::ptr::null_mut();
        match opts.priority {
            // SAFETY: valid out-pointer; the context is current.
            Some(p) => check("cuStreamCreateWithPriority", unsafe {
                driver::cuStreamCreateWithPriority(&mut raw, opts.flags(), p as c_int)
            })?,
            // SAFETY: as above.
            None => check("cuStreamCreate", unsafe {
                driver::cuStreamCreate(&mut raw, opts.flags())
            })?,
        }
        Ok(Stream {
            raw,
            ctx: ctx.clone(),
            owned: Some(Arc::new(OwnedStream {
                raw,
                _ctx: ctx.clone(),
            })),
        })
    }

    /// The default stream of `ctx` (the NULL handle: the legacy default stream of whichever
    /// context is current, which the safe layer makes `ctx` before each use).
    pub(crate) fn default_of(ctx: &Context) -> Stream {
        Stream {
            raw: std::ptr::null_mut(),
            ctx: ctx.clone(),
            owned: None,
        }
    }

    /// Wraps a stream made through the raw layer, to use it with the safe layer. The returned
    /// `Stream` (and its clones) never destroy it.
    ///
    /// # Safety
    /// `raw` is NULL (the default stream) or a live stream of `ctx`, and stays alive as long as
    /// the returned `Stream`, its clones, and every buffer allocated on it.
    pub unsafe fn from_raw(ctx: &Context, raw: CUstream) -> Stream {
        Stream {
            raw,
            ctx: ctx.clone(),
            owned: None,
        }
    }

    /// The raw `CUstream` (NULL for the default stream).
    #[inline]
    pub fn as_raw(&self) -> CUstream {
        self.raw
    }

    /// The context this stream belongs to.
    #[inline]
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Whether this is the context's default stream.
    #[inline]
    pub fn is_default(&self) -> bool {
        self.raw.is_null()
    }

    /// Waits until all work queued so far has completed (`cuStreamSynchronize`).
    ///
    /// # Errors
    /// The error of a failed asynchronous operation, or of the call.
    #[inline]
    pub fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the handle is alive (self holds it) and its context current.
        check("cuStreamSynchronize", unsafe {
            driver::cuStreamSynchronize(self.raw)
        })
    }

    /// Whether all work queued so far has completed (`cuStreamQuery`): `Ok(false)` for
    /// `CUDA_ERROR_NOT_READY`.
    ///
    /// # Errors
    /// Any other code.
    #[inline]
    pub fn is_done(&self) -> Result<bool> {
        self.ctx.bind()?;
        // SAFETY: as in `synchronize`.
        let r = unsafe { driver::cuStreamQuery(self.raw) };
        if r == CUresult::CUDA_ERROR_NOT_READY {
            return Ok(false);
        }
        check("cuStreamQuery", r).map(|()| true)
    }

    /// Makes later work on this stream wait for `event`'s last record (`cuStreamWaitEvent`).
    /// The event may belong to another context (another device), as in CUDA.
    ///
    /// # Errors
    /// The driver's error.
    #[inline]
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        // Waiting on an event recorded in a capture makes this stream join that capture: hold
        // the capture gate (see `track`).
        let _gate = track::capture_gate();
        self.ctx.bind()?;
        self.wait_raw_event(event.as_raw())
    }

    #[inline]
    pub(crate) fn wait_raw_event(&self, ev: CUevent) -> Result<()> {
        // SAFETY: both handles are alive; the stream's context is current (callers bind).
        check("cuStreamWaitEvent", unsafe {
            driver::cuStreamWaitEvent(self.raw, ev, 0)
        })
    }

    /// Makes later work on this stream wait for everything queued on `other` so far (an event
    /// recorded on `other`, waited on here). Waiting on itself is a no-op.
    ///
    /// # Errors
    /// The driver's error.
    pub fn wait(&self, other: &Stream) -> Result<()> {
        if self.same(other) {
            return Ok(());
        }
        let ev = other.record(EventOptions::default())?;
        self.wait_event(&ev)
        // `ev` is destroyed here; the driver keeps the recorded state the wait refers to.
    }

    /// Records a new event at this point of the stream.
    ///
    /// # Errors
    /// `cuEventCreate`'s or `cuEventRecord`'s error.
    pub fn record(&self, opts: EventOptions) -> Result<Event> {
        let ev = Event::new(&self.ctx, opts)?;
        ev.record(self)?;
        Ok(ev)
    }

    /// The stream's priority (`cuStreamGetPriority`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn priority(&self) -> Result<i32> {
        self.ctx.bind()?;
        let mut p: c_int = 0;
        // SAFETY: valid out-pointer; the handle is alive.
        check("cuStreamGetPriority", unsafe {
            driver::cuStreamGetPriority(self.raw, &mut p)
        })?;
        Ok(p)
    }

    /// Whether the stream was created non-blocking (`cuStreamGetFlags`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn is_non_blocking(&self) -> Result<bool> {
        self.ctx.bind()?;
        let mut f: c_uint = 0;
        // SAFETY: valid out-pointer; the handle is alive.
        check("cuStreamGetFlags", unsafe {
            driver::cuStreamGetFlags(self.raw, &mut f)
        })?;
        Ok(f & CUstream_flags::CU_STREAM_NON_BLOCKING.0 as c_uint != 0)
    }

    /// Runs `f` on a driver thread once all work queued so far has completed
    /// (`cuLaunchHostFunc`); later work waits for it to return.
    ///
    /// `f` must not call the CUDA API (the driver may answer `CUDA_ERROR_NOT_PERMITTED` or
    /// deadlock): use it to signal host code. A panic in `f` is caught and logged, never
    /// unwound into the driver. If the driver never runs it (the context is torn down first),
    /// `f` is leaked, not run.
    ///
    /// `f` runs at most once, whatever happens: the driver gets an id, not a pointer, and the
    /// closure is removed when it runs, so a node that ends up in a graph (another thread began
    /// a capture meanwhile) runs it on the first launch and does nothing after. Refused while
    /// the stream is capturing: use [`Stream::launch_host_fn`] there.
    ///
    /// # Errors
    /// A usage error while the stream is capturing; `cuLaunchHostFunc`'s error (then `f` is
    /// dropped without running).
    pub fn launch_host_func<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'static,
    {
        self.ctx.bind()?;
        // The gate is not held over the enqueue: should a capture begin meanwhile, the node
        // runs the closure on the first launch and finds nothing after (and the closure's drop,
        // on a refusal, may run any code).
        if track::capture_state(self)?.id.is_some() {
            return Err(CoreError::usage(
                "Stream::launch_host_func",
                "the stream is capturing: a graph may run a node many times, and a FnOnce only \
                 once; use Stream::launch_host_fn (a Fn the graph keeps) instead",
            ));
        }
        self.host_func_once(Box::new(f))
    }

    /// `cuLaunchHostFunc` of a one-shot closure, by id (the caller has checked the capture).
    fn host_func_once(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        let id = track::register_once(f);
        // SAFETY: the trampoline matches CUhostFn and treats its argument as an id (never
        // dereferenced); it runs the closure registered under that id at most once.
        let r = unsafe {
            driver::cuLaunchHostFunc(self.raw, Some(track::once_trampoline), track::id_ptr(id))
        };
        if r != CUresult::CUDA_SUCCESS {
            // The driver refused it, so it never runs: drop the closure here.
            drop(track::unregister_once(id));
        }
        check("cuLaunchHostFunc", r)
    }

    /// Runs `f` on a driver thread once all work queued so far has completed, like
    /// [`Stream::launch_host_func`], but usable while the stream is capturing: then the graph
    /// owns `f` (and every executable made from it), and runs it on every launch; it is dropped
    /// once, when the last of them drops.
    ///
    /// The same rules for `f`: no CUDA calls; a panic is caught and logged.
    ///
    /// # Errors
    /// The capture query's error; `cuLaunchHostFunc`'s error.
    pub fn launch_host_fn<F>(&self, f: F) -> Result<()>
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.ctx.bind()?;
        let st = track::capture_state(self)?;
        let Some(cap) = st.id else {
            drop(st);
            return self.host_func_once(Box::new(f));
        };
        let entry = track::register_repeat(Arc::new(f));
        let id = entry.id();
        // SAFETY: the trampoline matches CUhostFn and treats its argument as an id; it runs
        // the closure registered under it only while the entry lives. The entry lives on this
        // frame until it is handed to the capture below; nothing can run the node before: the
        // graph exists only after `end_capture`, which needs the gate `st` holds shared.
        let r = check("cuLaunchHostFunc", unsafe {
            driver::cuLaunchHostFunc(self.raw, Some(track::repeat_trampoline), track::id_ptr(id))
        });
        if r.is_ok() {
            // Owned by the capture, then by the graph.
            track::keep_for_capture(cap, entry);
        }
        // Refused (the capture may now be invalidated, and its id no longer answerable): the
        // entry drops here, with the closure, instead of waiting in the capture's keep-alives.
        drop(st);
        r
    }

    /// Whether this is the per-thread default stream (`CU_STREAM_PER_THREAD`), whose handle
    /// names the calling thread's own stream ([`Context::per_thread_stream`]).
    #[inline]
    pub fn is_per_thread(&self) -> bool {
        self.raw == driver::CU_STREAM_PER_THREAD
    }

    /// Whether `other` is provably the same stream (same handle, same context), so that stream
    /// order alone orders work on the two.
    ///
    /// Never for the per-thread stream: its handle names the stream of whichever thread uses
    /// it, so two uses of one `Stream` value from two threads land on two streams. Treating it
    /// as always foreign makes every use tracked with an event (see `track::Uses`), which keeps
    /// frees ordered after uses from any thread, at the price of an event record per use.
    #[inline]
    pub(crate) fn same(&self, other: &Stream) -> bool {
        self.raw == other.raw && self.ctx == other.ctx && !self.is_per_thread()
    }
}
