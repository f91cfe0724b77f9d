//! Collective communication: a [`Communicator`] over NCCL (CUDA, HIP's NVIDIA platform) or RCCL
//! (AMD), on [`Buffer`]s and [`Stream`]s. anycuda implements no collective: every operation is
//! the library's own, called through [`crate::nccl`].
//!
//! Two ways to start:
//! - all GPUs of one process: [`Communicator::init_all`];
//! - one process (or thread) per GPU: rank 0 makes a [`UniqueId`], every rank gets it by any
//!   channel (a file, an environment variable as [`UniqueId::to_hex`], or [`tcp_rendezvous`]),
//!   then calls [`Communicator::init_rank`].
//!
//! Hangs become errors: [`Communicator::init_rank`] initialises without blocking and gives up
//! after [`InitOptions::timeout`]; [`Communicator::synchronize`] waits for a stream while
//! polling the communicator's asynchronous error, and aborts it (`ncclCommAbort`) on an error or
//! a timeout, so a dead peer yields an error instead of a hang.

use super::context::Context;
use super::device::Device;
use super::error::{CoreError, Result};
use super::memory::{Buffer, BufferViewMut, DeviceCopy, DeviceSlice};
use super::stream::Stream;
use crate::nccl::{self as raw, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};
use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An element type NCCL reduces: its `ncclDataType_t`.
pub trait NcclType: DeviceCopy {
    /// The NCCL data type of `Self`.
    const DATATYPE: ncclDataType_t;
}

macro_rules! nccl_type {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl NcclType for $t {
            const DATATYPE: ncclDataType_t = ncclDataType_t::$d;
        }
    )*};
}
nccl_type!(i8 => ncclInt8, u8 => ncclUint8, i32 => ncclInt32, u32 => ncclUint32,
    i64 => ncclInt64, u64 => ncclUint64, f32 => ncclFloat32, f64 => ncclFloat64);

/// An IEEE half-precision value (`ncclFloat16`), as its bits: Rust has no `f16` on stable.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F16(pub u16);

/// A bfloat16 value (`ncclBfloat16`), as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bf16(pub u16);

// SAFETY: plain 16-bit patterns; every pattern is a valid value (NaNs included).
unsafe impl DeviceCopy for F16 {}
// SAFETY: as for F16.
unsafe impl DeviceCopy for Bf16 {}
nccl_type!(F16 => ncclFloat16, Bf16 => ncclBfloat16);

impl F16 {
    /// Rounds to nearest even (overflow to infinity, NaN kept).
    pub fn from_f32(f: f32) -> Self {
        let x = f.to_bits();
        let sign = ((x >> 16) & 0x8000) as u16;
        let exp = ((x >> 23) & 0xff) as i32;
        let mant = x & 0x7f_ffff;
        if exp == 0xff {
            return Self(sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 });
        }
        let e = exp - 127 + 15;
        if e >= 0x1f {
            return Self(sign | 0x7c00);
        }
        let round = |r: u32, rem: u32, half: u32| {
            if rem > half || (rem == half && r & 1 == 1) {
                r + 1
            } else {
                r
            }
        };
        if e <= 0 {
            if e < -10 {
                return Self(sign);
            }
            let m = mant | 0x80_0000;
            let shift = (14 - e) as u32;
            let r = round(m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
            return Self(sign | r as u16);
        }
        // A carry out of the mantissa correctly bumps the exponent (up to infinity).
        let r = round(((e as u32) << 10) | (mant >> 13), mant & 0x1fff, 0x1000);
        Self(sign | r as u16)
    }
    /// The exact `f32` value.
    pub fn to_f32(self) -> f32 {
        let h = self.0;
        let sign = ((h & 0x8000) as u32) << 16;
        let exp = ((h >> 10) & 0x1f) as u32;
        let mant = (h & 0x3ff) as u32;
        let bits = match (exp, mant) {
            (0, 0) => sign,
            (0, _) => {
                // Subnormal: normalise.
                let (mut e, mut m) = (127 - 15 + 1, mant);
                while m & 0x400 == 0 {
                    m <<= 1;
                    e -= 1;
                }
                sign | (e << 23) | ((m & 0x3ff) << 13)
            }
            (0x1f, _) => sign | 0x7f80_0000 | (mant << 13),
            _ => sign | ((exp + 127 - 15) << 23) | (mant << 13),
        };
        f32::from_bits(bits)
    }
}

impl Bf16 {
    /// Rounds to nearest even (NaN kept).
    pub fn from_f32(f: f32) -> Self {
        let x = f.to_bits();
        if f.is_nan() {
            return Self(((x >> 16) | 0x40) as u16);
        }
        let r = x + 0x7fff + ((x >> 16) & 1);
        Self((r >> 16) as u16)
    }
    /// The exact `f32` value.
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
}

/// A reduction operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum.
    Sum,
    /// Product.
    Prod,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Average (sum divided by the number of ranks; NCCL 2.10+).
    Avg,
}

impl ReduceOp {
    /// Every operation, for tests and benchmarks.
    pub const ALL: [ReduceOp; 5] = [Self::Sum, Self::Prod, Self::Max, Self::Min, Self::Avg];
    /// The NCCL value.
    pub fn as_raw(self) -> ncclRedOp_t {
        match self {
            Self::Sum => ncclRedOp_t::ncclSum,
            Self::Prod => ncclRedOp_t::ncclProd,
            Self::Max => ncclRedOp_t::ncclMax,
            Self::Min => ncclRedOp_t::ncclMin,
            Self::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

/// The 128-byte id all ranks of one communicator share. Plain bytes: serialise it with
/// [`UniqueId::to_bytes`] / [`UniqueId::to_hex`] and send it by any channel.
#[derive(Clone, Copy)]
pub struct UniqueId(pub raw::ncclUniqueId);

impl UniqueId {
    /// A new id (`ncclGetUniqueId`; rank 0 calls it once, then shares it).
    ///
    /// # Errors
    /// The NCCL error (`ncclNotSupported` when no collective library loads).
    pub fn new() -> Result<Self> {
        let mut id = raw::ncclUniqueId { internal: [0; 128] };
        // SAFETY: valid out-pointer.
        check("ncclGetUniqueId", unsafe { raw::ncclGetUniqueId(&mut id) })?;
        Ok(Self(id))
    }
    /// The 128 bytes.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.0.to_bytes()
    }
    /// An id from 128 bytes.
    pub fn from_bytes(b: &[u8; 128]) -> Self {
        Self(raw::ncclUniqueId::from_bytes(b))
    }
    /// 256 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.to_hex()
    }
    /// Parses [`UniqueId::to_hex`].
    ///
    /// # Errors
    /// A usage error unless `s` is exactly 256 ASCII hex digits: no sign, prefix or
    /// whitespace (trim a line ending read from a file first).
    pub fn from_hex(s: &str) -> Result<Self> {
        raw::ncclUniqueId::from_hex(s).map(Self).ok_or_else(|| {
            CoreError::usage(
                "UniqueId::from_hex",
                "expected exactly 256 hex digits (128 bytes), nothing else",
            )
        })
    }
}

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({}…)", &self.to_hex()[..16])
    }
}

/// `Ok` for `ncclSuccess`, else a [`CoreError`] with the NCCL code and the call.
///
/// # Errors
/// Every code but `ncclSuccess`.
#[inline]
pub fn check(call: &'static str, r: ncclResult_t) -> Result<()> {
    if r == ncclResult_t::ncclSuccess {
        Ok(())
    } else {
        Err(CoreError::nccl(call, r))
    }
}

/// How [`Communicator::init_rank`] starts.
#[derive(Clone, Copy, Debug)]
pub struct InitOptions {
    /// How long to wait for the other ranks (and how long [`Communicator::synchronize`] waits
    /// by default) before aborting with `ncclTimeout`. `None`: wait forever.
    pub timeout: Option<Duration>,
}

impl Default for InitOptions {
    fn default() -> Self {
        Self {
            timeout: Some(Duration::from_secs(60)),
        }
    }
}

/// One rank of an NCCL (or RCCL) communicator, bound to one device.
///
/// `Send` but not `Sync`: NCCL forbids using one communicator from several threads at once;
/// move it to the thread that drives its GPU. Dropping it finalises and destroys it (aborting
/// instead when that fails or times out).
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<anycuda::core::comm::Communicator>(); // not Sync
/// ```
/// ```
/// fn movable<T: Send>() {}
/// movable::<anycuda::core::comm::Communicator>();
/// ```
pub struct Communicator {
    raw: ncclComm_t,
    device: Device,
    /// The device's primary context, retained while NCCL uses it (NCCL's runtime picks the
    /// device from the current context at init).
    ctx: Context,
    rank: usize,
    size: usize,
    timeout: Option<Duration>,
    /// Created non-blocking: calls may answer `ncclInProgress` and are then polled.
    nonblocking: bool,
    aborted: bool,
    /// What a [`group`] that used this communicator waits on after `ncclGroupEnd`.
    link: Arc<Link>,
}

/// A communicator as seen by a [`group`] that used it: the handle while it is alive (it is
/// destroyed or aborted under the lock, so the group never polls a freed handle), and whether
/// the group aborted it (a timeout or an asynchronous error while enqueueing).
struct Link {
    /// The handle as an address; 0 once destroyed or aborted.
    raw: Mutex<usize>,
    /// Aborted by a group (the owner's `aborted` flag cannot be reached from there).
    aborted: AtomicBool,
}

impl Link {
    fn new(raw: ncclComm_t) -> Arc<Link> {
        Arc::new(Link {
            raw: Mutex::new(raw as usize),
            aborted: AtomicBool::new(false),
        })
    }

    fn handle(&self) -> std::sync::MutexGuard<'_, usize> {
        self.raw.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `end` (abort or destroy) on the handle, once, unless it is already gone.
    fn end(&self, end: unsafe fn(ncclComm_t) -> ncclResult_t) {
        let mut h = self.handle();
        if *h != 0 {
            // SAFETY: a live handle (it is set to 0 under this lock when it ends), ended once.
            unsafe { end(*h as ncclComm_t) };
            *h = 0;
        }
    }

    /// Polls `ncclCommGetAsyncError` until the communicator has left `ncclInProgress` (its
    /// part of a group is enqueued); aborts it on an asynchronous error or after `timeout`.
    fn wait_enqueued(&self, timeout: Option<Duration>) -> Result<()> {
        const CALL: &str = "ncclGroupEnd";
        let start = Instant::now();
        let mut pause = Duration::from_micros(5);
        loop {
            {
                let mut h = self.handle();
                if *h == 0 {
                    // Destroyed or aborted meanwhile: nothing left to enqueue.
                    return Ok(());
                }
                let mut st = ncclResult_t::ncclSuccess;
                // SAFETY: a live handle (held under the lock) and a valid out-pointer;
                // NCCL allows this query from any thread.
                let r = unsafe { raw::ncclCommGetAsyncError(*h as ncclComm_t, &mut st) };
                let failure = match (r, st) {
                    (ncclResult_t::ncclSuccess, ncclResult_t::ncclSuccess) => return Ok(()),
                    (ncclResult_t::ncclSuccess, ncclResult_t::ncclInProgress) => match timeout {
                        Some(t) if start.elapsed() > t => Some(timed_out(CALL, t)),
                        _ => None,
                    },
                    (ncclResult_t::ncclSuccess, other) => {
                        Some(CoreError::nccl(CALL, other).with_detail(
                            "a communicator of the group reported an asynchronous error while \
                             enqueueing and was aborted",
                        ))
                    }
                    (other, _) => Some(CoreError::nccl("ncclCommGetAsyncError", other)),
                };
                if let Some(e) = failure {
                    // SAFETY: a live handle, aborted once (set to 0 under the lock).
                    unsafe { raw::ncclCommAbort(*h as ncclComm_t) };
                    *h = 0;
                    self.aborted.store(true, Ordering::Release);
                    return Err(e);
                }
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(2));
        }
    }
}

thread_local! {
    /// How deep this thread is inside [`group`] calls.
    static GROUP_DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The communicators operations used inside this thread's outermost [`group`], with
    /// their timeouts.
    static GROUP_USED: RefCell<Vec<(Arc<Link>, Option<Duration>)>> = const { RefCell::new(Vec::new()) };
}

// SAFETY: an NCCL communicator may be used from any thread, one thread at a time (`!Sync`).
unsafe impl Send for Communicator {}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

fn usage(call: &'static str, why: String) -> CoreError {
    CoreError::usage(call, why)
}

fn timed_out(call: &'static str, t: Duration) -> CoreError {
    CoreError::nccl(call, ncclResult_t::ncclTimeout).with_detail(format!(
        "no progress within {t:?} (a peer that died or never joined); the communicator was aborted"
    ))
}

impl Communicator {
    /// One communicator per device, all in this process (`ncclCommInitAll`), ranks in the
    /// order given. Drive them together inside [`group`].
    ///
    /// # Errors
    /// A usage error for no device or a repeated one; the NCCL error.
    pub fn init_all(devices: &[Device]) -> Result<Vec<Communicator>> {
        if devices.is_empty() {
            return Err(usage("ncclCommInitAll", "no devices given".into()));
        }
        let mut ctxs = Vec::with_capacity(devices.len());
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(usage(
                    "ncclCommInitAll",
                    format!("device {} appears twice", d.ordinal()),
                ));
            }
            ctxs.push(d.set_current()?);
        }
        let list: Vec<i32> = devices.iter().map(|d| d.ordinal() as i32).collect();
        let mut comms: Vec<ncclComm_t> = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `comms` has room for one handle per device of `list`.
        check("ncclCommInitAll", unsafe {
            raw::ncclCommInitAll(comms.as_mut_ptr(), list.len() as i32, list.as_ptr())
        })?;
        Ok(comms
            .into_iter()
            .zip(devices.iter().zip(ctxs))
            .enumerate()
            .map(|(rank, (raw, (d, ctx)))| Communicator {
                raw,
                device: *d,
                ctx,
                rank,
                size: devices.len(),
                timeout: None,
                nonblocking: false,
                aborted: false,
                link: Link::new(raw),
            })
            .collect())
    }

    /// Rank `rank` of `nranks`, on `device`, joining the communicator `id` names
    /// (`ncclCommInitRankConfig`, non-blocking, polled until every rank has joined or
    /// `opts.timeout` passes). With a library that lacks configs (RCCL 2.13), falls back to
    /// the blocking `ncclCommInitRank`, which cannot time out.
    ///
    /// # Errors
    /// A usage error for `rank >= nranks` or `nranks == 0`; the NCCL error; `ncclTimeout`
    /// after aborting when the other ranks do not join in time.
    pub fn init_rank(
        device: &Device,
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        opts: InitOptions,
    ) -> Result<Communicator> {
        if nranks == 0 || rank >= nranks || nranks > i32::MAX as usize {
            return Err(usage(
                "ncclCommInitRank",
                format!("rank {rank} is out of range for {nranks} ranks"),
            ));
        }
        let ctx = device.set_current()?;
        let mut comm: ncclComm_t = std::ptr::null_mut();
        let mut config = raw::ncclConfig_t::initializer_v2_14();
        config.blocking = 0;
        // SAFETY: valid out-pointer and config; the id is plain bytes.
        let r = unsafe {
            raw::ncclCommInitRankConfig(&mut comm, nranks as i32, id.0, rank as i32, &mut config)
        };
        let mut me = Communicator {
            raw: comm,
            device: *device,
            ctx,
            rank,
            size: nranks,
            timeout: opts.timeout,
            nonblocking: true,
            aborted: false,
            link: Link::new(comm),
        };
        match r {
            ncclResult_t::ncclSuccess => Ok(me),
            ncclResult_t::ncclInProgress => {
                me.wait_ready("ncclCommInitRankConfig")?;
                Ok(me)
            }
            ncclResult_t::ncclNotSupported => {
                me.raw = std::ptr::null_mut();
                me.nonblocking = false;
                me.aborted = true; // nothing to destroy
                me.link = Link::new(std::ptr::null_mut());
                let mut comm: ncclComm_t = std::ptr::null_mut();
                // SAFETY: valid out-pointer.
                check("ncclCommInitRank", unsafe {
                    raw::ncclCommInitRank(&mut comm, nranks as i32, id.0, rank as i32)
                })?;
                me.raw = comm;
                me.link = Link::new(comm);
                me.aborted = false;
                Ok(me)
            }
            other => {
                if !comm.is_null() {
                    // SAFETY: a handle the library returned; aborting frees it.
                    unsafe { raw::ncclCommAbort(comm) };
                }
                me.aborted = true;
                Err(CoreError::nccl("ncclCommInitRankConfig", other))
            }
        }
    }

    /// Polls `ncclCommGetAsyncError` until the communicator is ready; aborts on an error or
    /// when the timeout passes.
    fn wait_ready(&mut self, call: &'static str) -> Result<()> {
        let start = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            let mut st = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let r = unsafe { raw::ncclCommGetAsyncError(self.raw, &mut st) };
            if let Err(e) = check("ncclCommGetAsyncError", r) {
                self.abort_now();
                return Err(e);
            }
            match st {
                ncclResult_t::ncclSuccess => return Ok(()),
                ncclResult_t::ncclInProgress => {}
                other => {
                    self.abort_now();
                    return Err(CoreError::nccl(call, other));
                }
            }
            if let Some(t) = self.timeout {
                if start.elapsed() > t {
                    self.abort_now();
                    return Err(timed_out(call, t));
                }
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// A call's result: `ncclInProgress` on a non-blocking communicator is waited for.
    #[inline]
    fn done(&mut self, call: &'static str, r: ncclResult_t) -> Result<()> {
        if r == ncclResult_t::ncclSuccess {
            return Ok(());
        }
        if r == ncclResult_t::ncclInProgress && self.nonblocking {
            return self.wait_ready(call);
        }
        Err(CoreError::nccl(call, r))
    }

    fn abort_now(&mut self) {
        if !self.aborted && !self.raw.is_null() {
            // Abort frees the handle and stops its kernels; through the link, so a group
            // polling it never sees it freed.
            self.link.end(raw::ncclCommAbort);
        }
        self.aborted = true;
    }

    fn live(&self, call: &'static str) -> Result<()> {
        if self.is_aborted() {
            Err(usage(call, "the communicator was aborted".into()))
        } else {
            Ok(())
        }
    }

    /// Aborts the communicator (`ncclCommAbort`): its pending operations stop and it becomes
    /// unusable; every later call is a usage error.
    pub fn abort(&mut self) {
        self.abort_now();
    }

    /// Whether the communicator was aborted (by [`Communicator::abort`] or after an error).
    pub fn is_aborted(&self) -> bool {
        self.aborted || self.link.aborted.load(Ordering::Acquire)
    }

    /// The raw handle, for mixing with [`crate::nccl`] calls.
    pub fn as_raw(&self) -> ncclComm_t {
        self.raw
    }
    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }
    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }
    /// The device this rank runs on.
    pub fn device(&self) -> Device {
        self.device
    }
    /// The device's primary context, which this communicator keeps alive.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
    /// The timeout [`Communicator::synchronize`] uses.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
    /// Sets the timeout [`Communicator::synchronize`] uses (`None`: wait forever).
    pub fn set_timeout(&mut self, t: Option<Duration>) {
        self.timeout = t;
    }

    /// The asynchronous error state (`ncclCommGetAsyncError`): `Ok` while healthy.
    ///
    /// # Errors
    /// The communicator's error (a peer that failed, a network error).
    pub fn async_error(&self) -> Result<()> {
        self.live("ncclCommGetAsyncError")?;
        let mut st = ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator and a valid out-pointer.
        check("ncclCommGetAsyncError", unsafe {
            raw::ncclCommGetAsyncError(self.raw, &mut st)
        })?;
        match st {
            ncclResult_t::ncclSuccess | ncclResult_t::ncclInProgress => Ok(()),
            other => Err(CoreError::nccl("ncclCommGetAsyncError", other)),
        }
    }

    /// Waits for `stream` while watching the communicator: returns when the stream's work is
    /// done; aborts the communicator and returns the error when NCCL reports one (a dead peer)
    /// or when the timeout passes.
    ///
    /// # Errors
    /// The NCCL asynchronous error, `ncclTimeout`, or the stream's driver error.
    pub fn synchronize(&mut self, stream: &Stream) -> Result<()> {
        const CALL: &str = "Communicator::synchronize";
        self.live(CALL)?;
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            let mut st = ncclResult_t::ncclSuccess;
            // SAFETY: a live communicator and a valid out-pointer.
            let r = unsafe { raw::ncclCommGetAsyncError(self.raw, &mut st) };
            if let Err(e) = check("ncclCommGetAsyncError", r) {
                self.abort_now();
                return Err(e);
            }
            match st {
                // Launched: the stream tells when the work is done.
                ncclResult_t::ncclSuccess => {
                    if stream.is_done()? {
                        return Ok(());
                    }
                }
                // Still launching (a non-blocking group): keep waiting.
                ncclResult_t::ncclInProgress => {}
                other => {
                    self.abort_now();
                    return Err(CoreError::nccl(CALL, other).with_detail(
                        "the communicator reported an asynchronous error (a peer failed?) and was aborted",
                    ));
                }
            }
            if let Some(t) = self.timeout {
                if start.elapsed() > t {
                    self.abort_now();
                    return Err(timed_out(CALL, t));
                }
            }
            // Spin briefly (small messages finish in microseconds), then back off.
            polls += 1;
            if polls < 2000 {
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    fn on_my_device(&self, call: &'static str, what: &str, d: Device) -> Result<()> {
        if d == self.device {
            Ok(())
        } else {
            Err(usage(
                call,
                format!(
                    "{what} is on device {}, the communicator's rank {} on device {}",
                    d.ordinal(),
                    self.rank,
                    self.device.ordinal()
                ),
            ))
        }
    }

    fn check_root(&self, call: &'static str, what: &str, r: usize) -> Result<i32> {
        if r < self.size {
            Ok(r as i32)
        } else {
            Err(usage(
                call,
                format!("{what} {r} is out of range for {} ranks", self.size),
            ))
        }
    }

    fn same_len(call: &'static str, send: usize, recv: usize, want_recv: usize) -> Result<()> {
        if recv == want_recv {
            Ok(())
        } else {
            Err(usage(
                call,
                format!("receive buffer has {recv} elements, {want_recv} needed for {send} sent"),
            ))
        }
    }

    /// All-reduce: every rank's `recv` gets the reduction of every rank's `send`.
    ///
    /// # Errors
    /// A usage error for buffers of different lengths or of another device; the NCCL error.
    pub fn all_reduce<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        recv: &mut impl DeviceSliceMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllReduce";
        let (s, r) = (send.as_view(), recv.raw_mut());
        self.prepare(
            CALL,
            &[
                ("the send buffer", s.context().device()),
                ("the receive buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        Self::same_len(CALL, s.len(), r.2, s.len())?;
        // SAFETY: both ranges lie in live device allocations of this device, of the lengths
        // given; the stream belongs to the device; `recv` is borrowed mutably.
        let res = unsafe {
            raw::ncclAllReduce(
                s.as_raw() as *const c_void,
                r.0 as *mut c_void,
                s.len(),
                T::DATATYPE,
                op.as_raw(),
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// In-place all-reduce on `buf`.
    ///
    /// # Errors
    /// A usage error for a buffer of another device; the NCCL error.
    pub fn all_reduce_in_place<T: NcclType>(
        &mut self,
        buf: &mut impl DeviceSliceMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllReduce";
        let r = buf.raw_mut();
        self.prepare(
            CALL,
            &[
                ("the buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        // SAFETY: as all_reduce; NCCL allows send == recv.
        let res = unsafe {
            raw::ncclAllReduce(
                r.0 as *const c_void,
                r.0 as *mut c_void,
                r.2,
                T::DATATYPE,
                op.as_raw(),
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// Broadcast: every rank's `recv` gets `root`'s `send` (`send` is read on `root` only).
    ///
    /// # Errors
    /// A usage error for lengths that differ, another device, or `root` out of range.
    pub fn broadcast<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        recv: &mut impl DeviceSliceMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclBroadcast";
        let (s, r) = (send.as_view(), recv.raw_mut());
        self.prepare(
            CALL,
            &[
                ("the send buffer", s.context().device()),
                ("the receive buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        let root = self.check_root(CALL, "root", root)?;
        Self::same_len(CALL, s.len(), r.2, s.len())?;
        // SAFETY: as all_reduce.
        let res = unsafe {
            raw::ncclBroadcast(
                s.as_raw() as *const c_void,
                r.0 as *mut c_void,
                s.len(),
                T::DATATYPE,
                root,
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// Reduce: `root`'s `recv` gets the reduction of every rank's `send` (`recv` is written
    /// on `root` only).
    ///
    /// # Errors
    /// A usage error for lengths that differ, another device, or `root` out of range.
    pub fn reduce<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        recv: &mut impl DeviceSliceMut<T>,
        op: ReduceOp,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclReduce";
        let (s, r) = (send.as_view(), recv.raw_mut());
        self.prepare(
            CALL,
            &[
                ("the send buffer", s.context().device()),
                ("the receive buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        let root = self.check_root(CALL, "root", root)?;
        Self::same_len(CALL, s.len(), r.2, s.len())?;
        // SAFETY: as all_reduce.
        let res = unsafe {
            raw::ncclReduce(
                s.as_raw() as *const c_void,
                r.0 as *mut c_void,
                s.len(),
                T::DATATYPE,
                op.as_raw(),
                root,
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// All-gather: `recv` (size × `send.len()` elements) gets every rank's `send`, in rank
    /// order.
    ///
    /// # Errors
    /// A usage error for a `recv` of the wrong length or another device; the NCCL error.
    pub fn all_gather<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        recv: &mut impl DeviceSliceMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclAllGather";
        let (s, r) = (send.as_view(), recv.raw_mut());
        self.prepare(
            CALL,
            &[
                ("the send buffer", s.context().device()),
                ("the receive buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        let want = s.len().saturating_mul(self.size);
        Self::same_len(CALL, s.len(), r.2, want)?;
        // SAFETY: as all_reduce; recv holds size × send.len() elements.
        let res = unsafe {
            raw::ncclAllGather(
                s.as_raw() as *const c_void,
                r.0 as *mut c_void,
                s.len(),
                T::DATATYPE,
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// Reduce-scatter: rank i's `recv` gets block i of the reduction of every rank's `send`
    /// (`send` holds size × `recv.len()` elements).
    ///
    /// # Errors
    /// A usage error for a `send` of the wrong length or another device; the NCCL error.
    pub fn reduce_scatter<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        recv: &mut impl DeviceSliceMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclReduceScatter";
        let (s, r) = (send.as_view(), recv.raw_mut());
        self.prepare(
            CALL,
            &[
                ("the send buffer", s.context().device()),
                ("the receive buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        if r.2.checked_mul(self.size) != Some(s.len()) {
            return Err(usage(
                CALL,
                format!(
                    "send buffer has {} elements, {} ranks × {} received needed",
                    s.len(),
                    self.size,
                    r.2
                ),
            ));
        }
        // SAFETY: as all_reduce; send holds size × recv.len() elements.
        let res = unsafe {
            raw::ncclReduceScatter(
                s.as_raw() as *const c_void,
                r.0 as *mut c_void,
                r.2,
                T::DATATYPE,
                op.as_raw(),
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// Sends `send` to rank `peer` (pair with the peer's [`Communicator::recv`]; put both
    /// directions of an exchange inside one [`group`]).
    ///
    /// # Errors
    /// A usage error for `peer` out of range or another device; the NCCL error.
    pub fn send<T: NcclType>(
        &mut self,
        send: &impl DeviceSlice<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclSend";
        let s = send.as_view();
        self.prepare(
            CALL,
            &[
                ("the buffer", s.context().device()),
                ("the stream", stream.context().device()),
            ],
        )?;
        let peer = self.check_root(CALL, "peer", peer)?;
        // SAFETY: a live device range of this device.
        let res = unsafe {
            raw::ncclSend(
                s.as_raw() as *const c_void,
                s.len(),
                T::DATATYPE,
                peer,
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    /// Receives into `recv` from rank `peer`.
    ///
    /// # Errors
    /// A usage error for `peer` out of range or another device; the NCCL error.
    pub fn recv<T: NcclType>(
        &mut self,
        recv: &mut impl DeviceSliceMut<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        const CALL: &str = "ncclRecv";
        let r = recv.raw_mut();
        self.prepare(
            CALL,
            &[
                ("the buffer", r.1),
                ("the stream", stream.context().device()),
            ],
        )?;
        let peer = self.check_root(CALL, "peer", peer)?;
        // SAFETY: a live device range of this device, borrowed mutably.
        let res = unsafe {
            raw::ncclRecv(
                r.0 as *mut c_void,
                r.2,
                T::DATATYPE,
                peer,
                self.raw,
                stream.as_raw(),
            )
        };
        self.done(CALL, res)
    }

    #[inline]
    fn prepare(&self, call: &'static str, devices: &[(&str, Device)]) -> Result<()> {
        self.live(call)?;
        for (what, d) in devices {
            self.on_my_device(call, what, *d)?;
        }
        // Inside a group: the group waits for this communicator after `ncclGroupEnd`.
        if self.nonblocking && GROUP_DEPTH.with(Cell::get) > 0 {
            GROUP_USED.with(|u| {
                let mut u = u.borrow_mut();
                if !u.iter().any(|(l, _)| Arc::ptr_eq(l, &self.link)) {
                    u.push((self.link.clone(), self.timeout));
                }
            });
        }
        Ok(())
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if self.is_aborted() || self.raw.is_null() {
            return;
        }
        if self.nonblocking {
            // Finalise (flushes pending work, may need the peers), polled with the timeout;
            // abort instead when that fails.
            // SAFETY: a live communicator.
            let r = unsafe { raw::ncclCommFinalize(self.raw) };
            let ok = match r {
                ncclResult_t::ncclSuccess => true,
                ncclResult_t::ncclInProgress => self.wait_ready("ncclCommFinalize").is_ok(),
                _ => false,
            };
            if !ok {
                self.abort_now();
                return;
            }
        }
        // Destroyed once, through the link (a group may still hold it).
        self.link.end(raw::ncclCommDestroy);
    }
}

/// A mutable device range NCCL may write: [`Buffer`] or [`BufferViewMut`].
pub trait DeviceSliceMut<T: DeviceCopy> {
    /// (device address, device, length in elements), borrowed mutably.
    fn raw_mut(&mut self) -> (crate::driver::CUdeviceptr, Device, usize);
}
impl<T: DeviceCopy> DeviceSliceMut<T> for Buffer<T> {
    #[inline]
    fn raw_mut(&mut self) -> (crate::driver::CUdeviceptr, Device, usize) {
        (self.as_raw(), self.context().device(), self.len())
    }
}
impl<T: DeviceCopy> DeviceSliceMut<T> for BufferViewMut<'_, T> {
    #[inline]
    fn raw_mut(&mut self) -> (crate::driver::CUdeviceptr, Device, usize) {
        (self.as_raw(), self.context().device(), self.len())
    }
}

/// Runs `f` between `ncclGroupStart` and `ncclGroupEnd` (always ended, even when `f` fails or
/// panics). Needed when one thread drives several communicators ([`Communicator::init_all`])
/// or pairs sends with receives.
///
/// The buffers `f` hands to NCCL are borrowed only while `f` runs, so `group` returns only
/// once NCCL has enqueued every operation of the group on its stream: on non-blocking
/// communicators ([`Communicator::init_rank`]) `ncclGroupEnd` may answer `ncclInProgress` and
/// enqueue later, so each communicator used in the group is polled
/// (`ncclCommGetAsyncError`) until it has left `ncclInProgress`, within its timeout (aborted on
/// a timeout or an asynchronous error, as [`Communicator::synchronize`] does). After that the
/// stream orders the operations before anything enqueued later (a buffer's free included).
/// Nested groups wait at the outermost one, as NCCL launches there.
///
/// # Errors
/// `f`'s error, else the NCCL error of `ncclGroupEnd`, else the first communicator's
/// asynchronous error or `ncclTimeout` while enqueueing (every communicator is still waited
/// for).
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    /// Ends the group: explicitly after `f` returns, or when dropped while `f` unwinds (the
    /// caller's buffers are dropped after this frame, so the wait still comes first).
    struct End {
        outer: bool,
        done: bool,
    }
    impl End {
        fn finish(&mut self) -> Result<()> {
            self.done = true;
            GROUP_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
            // SAFETY: no arguments; pairs the `ncclGroupStart` that made this guard.
            let r = unsafe { raw::ncclGroupEnd() };
            let mut out = match r {
                ncclResult_t::ncclSuccess | ncclResult_t::ncclInProgress => Ok(()),
                other => Err(CoreError::nccl("ncclGroupEnd", other)),
            };
            if self.outer {
                let used = GROUP_USED.with(|u| std::mem::take(&mut *u.borrow_mut()));
                for (link, timeout) in used {
                    let w = link.wait_enqueued(timeout);
                    if out.is_ok() {
                        out = w;
                    }
                }
            }
            out
        }
    }
    impl Drop for End {
        fn drop(&mut self) {
            if !self.done {
                if let Err(e) = self.finish() {
                    log::warn!("{e}");
                }
            }
        }
    }
    // SAFETY: no arguments.
    check("ncclGroupStart", unsafe { raw::ncclGroupStart() })?;
    let outer = GROUP_DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get() == 1
    });
    let mut end = End { outer, done: false };
    let out = f();
    let ended = end.finish();
    let out = out?;
    ended?;
    Ok(out)
}

/// Shares a [`UniqueId`] over TCP, for examples and simple launchers: rank 0 makes the id,
/// listens on `addr` and sends it to the `nranks - 1` others, which connect (retrying until
/// `timeout`) and read it. Use a loopback or private-network address: the id is sent in the
/// clear.
///
/// # Errors
/// A usage error carrying the I/O error (bind, connect, short read, timeout); the NCCL error
/// of `ncclGetUniqueId` on rank 0.
pub fn tcp_rendezvous(
    addr: &str,
    rank: usize,
    nranks: usize,
    timeout: Duration,
) -> Result<UniqueId> {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream, ToSocketAddrs};
    const CALL: &str = "tcp_rendezvous";
    let io = |what: &str, e: std::io::Error| usage(CALL, format!("{what} {addr}: {e}"));
    if rank >= nranks {
        return Err(usage(
            CALL,
            format!("rank {rank} is out of range for {nranks} ranks"),
        ));
    }
    let deadline = Instant::now() + timeout;
    if rank == 0 {
        let id = UniqueId::new()?;
        let l = TcpListener::bind(addr).map_err(|e| io("bind", e))?;
        l.set_nonblocking(true).map_err(|e| io("listen on", e))?;
        let mut served = 0;
        while served + 1 < nranks {
            match l.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).map_err(|e| io("accept on", e))?;
                    s.write_all(&id.to_bytes()).map_err(|e| io("send to", e))?;
                    served += 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err(usage(
                            CALL,
                            format!(
                                "only {served} of {} ranks connected to {addr} within {timeout:?}",
                                nranks - 1
                            ),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(io("accept on", e)),
            }
        }
        Ok(id)
    } else {
        let sa = addr
            .to_socket_addrs()
            .map_err(|e| io("resolve", e))?
            .next()
            .ok_or_else(|| usage(CALL, format!("{addr} resolves to no address")))?;
        loop {
            match TcpStream::connect_timeout(&sa, Duration::from_millis(500)) {
                Ok(mut s) => {
                    s.set_read_timeout(Some(
                        deadline
                            .saturating_duration_since(Instant::now())
                            .max(Duration::from_millis(1)),
                    ))
                    .map_err(|e| io("connect to", e))?;
                    let mut b = [0u8; 128];
                    s.read_exact(&mut b).map_err(|e| io("receive from", e))?;
                    return Ok(UniqueId::from_bytes(&b));
                }
                Err(e) => {
                    if Instant::now() > deadline {
                        return Err(io("connect to", e));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }
}
