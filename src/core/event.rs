//! Events: points in a stream to wait on, query, and time.

use super::context::Context;
use super::error::{check, CoreError, Result};
use super::stream::Stream;
use crate::driver::{self, CUevent, CUevent_flags, CUresult};
use std::ffi::c_uint;
use std::fmt;
use std::time::Duration;

/// How to create an [`Event`] (cuda.core's `EventOptions`). The default, as in cuda.core, has
/// timing off (cheaper to record and wait on). Plain data: `Send + Sync`.
///
/// ```
/// use anycuda::core::EventOptions;
/// use anycuda::driver::CUevent_flags;
/// let o = EventOptions::timing();
/// assert!(o.enable_timing && !o.blocking_sync && !o.ipc_enabled);
/// // An event to share with another process: timing off, CU_EVENT_INTERPROCESS on.
/// let ipc = EventOptions::ipc();
/// let f = ipc.raw_flags().0;
/// assert_eq!(f, CUevent_flags::CU_EVENT_INTERPROCESS.0 | CUevent_flags::CU_EVENT_DISABLE_TIMING.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EventOptions {
    /// Record timestamps, for [`Event::elapsed_time`] (without it: `CU_EVENT_DISABLE_TIMING`).
    pub enable_timing: bool,
    /// `CU_EVENT_BLOCKING_SYNC`: a waiting host thread sleeps instead of spinning.
    pub blocking_sync: bool,
    /// `CU_EVENT_INTERPROCESS`: the event can be shared with another process
    /// ([`Event::ipc_handle`], cuda.core's `ipc_enabled`). CUDA requires timing off, so
    /// [`Event::new`] refuses it together with [`EventOptions::enable_timing`].
    pub ipc_enabled: bool,
}

impl EventOptions {
    /// Timing on, spinning sync.
    pub fn timing() -> Self {
        Self {
            enable_timing: true,
            ..Self::default()
        }
    }
    /// Interprocess (`CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING`), spinning sync.
    pub fn ipc() -> Self {
        Self {
            ipc_enabled: true,
            ..Self::default()
        }
    }
    /// Sets [`EventOptions::blocking_sync`].
    #[must_use]
    pub fn blocking_sync(mut self, yes: bool) -> Self {
        self.blocking_sync = yes;
        self
    }
    /// Sets [`EventOptions::ipc_enabled`].
    #[must_use]
    pub fn ipc_enabled(mut self, yes: bool) -> Self {
        self.ipc_enabled = yes;
        self
    }
    /// The `cuEventCreate` flags these options stand for (timing off adds
    /// `CU_EVENT_DISABLE_TIMING`; an interprocess event with timing on gives both
    /// `CU_EVENT_INTERPROCESS` and no `CU_EVENT_DISABLE_TIMING`, which the driver refuses).
    pub fn raw_flags(self) -> CUevent_flags {
        let mut f = CUevent_flags::CU_EVENT_DEFAULT.0;
        if !self.enable_timing {
            f |= CUevent_flags::CU_EVENT_DISABLE_TIMING.0;
        }
        if self.blocking_sync {
            f |= CUevent_flags::CU_EVENT_BLOCKING_SYNC.0;
        }
        if self.ipc_enabled {
            f |= CUevent_flags::CU_EVENT_INTERPROCESS.0;
        }
        CUevent_flags(f)
    }
}

/// An event of a [`Context`] (`CUevent`), destroyed on drop. Holds its context.
///
/// `Send + Sync`: recording, querying and waiting on an event are thread-safe driver calls;
/// Rust never dereferences the handle.
///
/// ```no_run
/// use anycuda::core::{Device, EventOptions};
/// let ctx = Device::new(0)?.context()?;
/// let s = ctx.default_stream();
/// let (start, end) = (ctx.create_event(EventOptions::timing())?, ctx.create_event(EventOptions::timing())?);
/// start.record(&s)?;
/// // ... work on `s` ...
/// end.record(&s)?;
/// println!("{:?}", start.elapsed_time(&end)?);
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct Event {
    raw: CUevent,
    ctx: Context,
    timing: bool,
    ipc: bool,
}

// SAFETY: a CUevent is a driver handle usable from any thread; the driver API is thread-safe.
unsafe impl Send for Event {}
// SAFETY: as above; every method takes &self and only calls the driver.
unsafe impl Sync for Event {}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.raw)
            .field("device", &self.ctx.device().ordinal())
            .field("timing", &self.timing)
            .field("ipc", &self.ipc)
            .finish()
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // Destroying a recorded, incomplete event is allowed: the driver releases it once it
        // completes. No bind: the handle names its context.
        // SAFETY: created by cuEventCreate, destroyed once, here.
        let r = unsafe { driver::cuEventDestroy(self.raw) };
        if let Err(e) = check("cuEventDestroy", r) {
            log::error!("anycuda::core: dropping an event: {e}");
        }
    }
}

impl Event {
    /// A new event in `ctx` (`cuEventCreate`).
    ///
    /// # Errors
    /// A usage error for [`EventOptions::ipc_enabled`] with [`EventOptions::enable_timing`]
    /// (CUDA requires interprocess events to have timing off); the driver's error (the
    /// backend's not-supported error where it has no interprocess events).
    pub fn new(ctx: &Context, opts: EventOptions) -> Result<Event> {
        if opts.ipc_enabled && opts.enable_timing {
            return Err(CoreError::usage(
                "Event::new",
                "an interprocess event (ipc_enabled) needs timing off (enable_timing: false)",
            ));
        }
        ctx.bind()?;
        let mut raw: CUevent = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        check("cuEventCreate", unsafe {
            driver::cuEventCreate(&mut raw, opts.raw_flags().0 as c_uint)
        })?;
        Ok(Event {
            raw,
            ctx: ctx.clone(),
            timing: opts.enable_timing,
            ipc: opts.ipc_enabled,
        })
    }

    /// Takes ownership of `raw` (destroyed on drop): an event created, or opened from an IPC
    /// handle, in `ctx`.
    pub(crate) fn from_owned_raw(ctx: &Context, raw: CUevent, timing: bool, ipc: bool) -> Event {
        Event {
            raw,
            ctx: ctx.clone(),
            timing,
            ipc,
        }
    }

    /// The raw `CUevent`.
    #[inline]
    pub fn as_raw(&self) -> CUevent {
        self.raw
    }

    /// The context this event belongs to.
    #[inline]
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Whether the event records timestamps.
    #[inline]
    pub fn is_timing_enabled(&self) -> bool {
        self.timing
    }

    /// Whether the event can be shared with another process: created with
    /// [`EventOptions::ipc_enabled`], or opened from an [`IpcEventHandle`](super::IpcEventHandle)
    /// (cuda.core's `Event.is_ipc_enabled`).
    #[inline]
    pub fn is_ipc_enabled(&self) -> bool {
        self.ipc
    }

    /// Records the event at this point of `stream` (`cuEventRecord`).
    ///
    /// # Errors
    /// A usage error for a stream of another context (CUDA requires the same one), else the
    /// driver's error.
    #[inline]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if *stream.context() != self.ctx {
            return Err(CoreError::usage(
                "Event::record",
                "the stream belongs to another context than the event",
            ));
        }
        self.ctx.bind()?;
        // SAFETY: both handles are alive and of the current context.
        check("cuEventRecord", unsafe {
            driver::cuEventRecord(self.raw, stream.as_raw())
        })
    }

    /// Waits until the work before the last record has completed (`cuEventSynchronize`).
    /// An event never recorded is complete.
    ///
    /// # Errors
    /// The error of a failed asynchronous operation, or of the call.
    #[inline]
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the handle is alive.
        check("cuEventSynchronize", unsafe {
            driver::cuEventSynchronize(self.raw)
        })
    }

    /// Whether the work before the last record has completed (`cuEventQuery`): `Ok(false)`
    /// for `CUDA_ERROR_NOT_READY`.
    ///
    /// # Errors
    /// Any other code.
    #[inline]
    pub fn is_done(&self) -> Result<bool> {
        // SAFETY: the handle is alive.
        let r = unsafe { driver::cuEventQuery(self.raw) };
        if r == CUresult::CUDA_ERROR_NOT_READY {
            return Ok(false);
        }
        check("cuEventQuery", r).map(|()| true)
    }

    /// Milliseconds from this event to `end` (`cuEventElapsedTime`), both recorded and
    /// complete.
    ///
    /// # Errors
    /// A usage error when either event has timing off; `CUDA_ERROR_NOT_READY` when one has not
    /// completed; `CUDA_ERROR_INVALID_HANDLE` when one was never recorded.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        if !self.timing || !end.timing {
            return Err(CoreError::usage(
                "Event::elapsed_time",
                "both events need EventOptions::enable_timing",
            ));
        }
        let mut ms = 0f32;
        // SAFETY: valid out-pointer; both handles alive.
        check("cuEventElapsedTime", unsafe {
            driver::cuEventElapsedTime(&mut ms, self.raw, end.raw)
        })?;
        Ok(ms)
    }

    /// [`Event::elapsed_ms`] as a `Duration` (negative times, which CUDA can report when
    /// `end` was recorded first, become zero).
    ///
    /// # Errors
    /// As [`Event::elapsed_ms`].
    pub fn elapsed_time(&self, end: &Event) -> Result<Duration> {
        let ms = self.elapsed_ms(end)?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1000.0))
    }
}
