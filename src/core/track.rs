//! What keeps memory and host functions alive while the GPU may still use them: the use
//! tracker (events recorded on foreign streams), the stream-capture keep-alive registry, and
//! the host-function registries. Crate-private plumbing of [`super::memory`],
//! [`super::stream`], [`super::graph`] and [`super::launch`].
//!
//! The rules, in one place:
//! - memory is freed when the last `Arc` of its allocation drops, on its allocation stream,
//!   after that stream has waited for an event recorded after every use on another stream;
//! - while a stream is capturing, what a safe operation references is kept in a registry
//!   keyed by the capture id, and [`super::Stream::end_capture`] moves it into the graph;
//! - the driver never receives a Rust pointer for a host function: it receives an id, and the
//!   trampoline looks the closure up (a one-shot closure is removed when run, so a replay finds
//!   nothing; a repeatable one lives as long as the graph that owns it).

use super::error::{check, CoreError, Result};
use super::event::{Event, EventOptions};
use super::stream::Stream;
use crate::driver::{self, CUresult, CUstreamCaptureStatus};
use std::any::Any;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread::ThreadId;

/// Something a graph (or a capture in progress) keeps alive: an allocation, pinned memory, a
/// kernel, a host function.
pub(crate) type KeepAlive = Arc<dyn Any + Send + Sync>;

/// Locks `m`, using a poisoned lock as it is (every state guarded here is valid after any
/// panic: entries are only inserted or removed whole).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The capture `stream` belongs to, if any (`cuStreamGetCaptureInfo`): `Some(id)` while it is
/// capturing (or its capture was invalidated and not yet ended).
///
/// Where the driver lacks `cuStreamGetCaptureInfo` (CUDA before 12.3), falls back to
/// `cuStreamIsCapturing`: not capturing is `None`; capturing is a not-supported error, since
/// without the id nothing can be kept alive for the graph.
///
/// # Errors
/// The driver's error (for example `CUDA_ERROR_STREAM_CAPTURE_IMPLICIT` for the legacy stream
/// while another stream captures in global mode).
pub(crate) fn capture_id(stream: &Stream) -> Result<Option<u64>> {
    let mut st = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let mut id: driver::cuuint64_t = 0;
    // SAFETY: valid out-pointers for status and id; the optional outputs are NULL; the
    // stream is alive (callers bind its context).
    let r = unsafe {
        driver::cuStreamGetCaptureInfo(
            stream.as_raw(),
            &mut st,
            &mut id,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    if r == CUresult::CUDA_ERROR_NOT_SUPPORTED || r == CUresult::CUDA_ERROR_NOT_FOUND {
        let mut st = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: valid out-pointer; live stream.
        check("cuStreamIsCapturing", unsafe {
            driver::cuStreamIsCapturing(stream.as_raw(), &mut st)
        })?;
        if st == CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
            return Ok(None);
        }
        return Err(CoreError::driver("cuStreamGetCaptureInfo", r).with_detail(
            "the stream is capturing, and without cuStreamGetCaptureInfo (CUDA 12.3+) the safe \
             layer cannot keep the captured work's memory alive",
        ));
    }
    check("cuStreamGetCaptureInfo", r)?;
    Ok((st != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE).then_some(id))
}

/// The capture gate: safe operations that ask whether a stream captures and then queue work
/// hold it shared from the question to the end of the enqueue, and the safe calls that start,
/// end or join a capture ([`Stream::begin_capture`], [`Stream::end_capture`],
/// [`Stream::wait_event`], [`Stream::wait`]) hold it exclusively. So the answer stays true while
/// the work is queued: no thread's capture can begin, end or take in the stream in between.
/// (Raw-layer capture calls bypass it; mixing them in is the raw layer's `unsafe` business.)
static GATE: RwLock<()> = RwLock::new(());

/// A stream's capture state, valid while this value lives (it holds the gate shared). Never
/// held across another gate acquisition on the same thread.
pub(crate) struct CaptureState {
    /// The capture id, or `None` when the stream is not capturing.
    pub(crate) id: Option<u64>,
    _gate: RwLockReadGuard<'static, ()>,
}

/// [`capture_id`] of `stream`, with the gate held shared until the result drops.
///
/// # Errors
/// As [`capture_id`].
pub(crate) fn capture_state(stream: &Stream) -> Result<CaptureState> {
    let gate = GATE.read().unwrap_or_else(|p| p.into_inner());
    let id = capture_id(stream)?;
    Ok(CaptureState { id, _gate: gate })
}

/// The gate, exclusively: for calls that start, end or join a capture.
pub(crate) fn capture_gate() -> RwLockWriteGuard<'static, ()> {
    GATE.write().unwrap_or_else(|p| p.into_inner())
}

/// Keep-alives of the captures in progress, by capture id.
#[derive(Default)]
struct Captures {
    by_id: HashMap<u64, Captured>,
}

#[derive(Default)]
struct Captured {
    items: Vec<KeepAlive>,
    seen: HashSet<usize>,
}

fn captures() -> &'static Mutex<Captures> {
    static C: OnceLock<Mutex<Captures>> = OnceLock::new();
    C.get_or_init(Mutex::default)
}

/// The address that identifies a keep-alive (for de-duplication).
fn addr(k: &KeepAlive) -> usize {
    Arc::as_ptr(k).cast::<()>() as usize
}

/// Keeps `item` alive until the capture `id` ends (then the graph owns it).
pub(crate) fn keep_for_capture(id: u64, item: KeepAlive) {
    let mut c = lock(captures());
    let e = c.by_id.entry(id).or_default();
    if e.seen.insert(addr(&item)) {
        e.items.push(item);
    }
}

/// What the capture `id` kept alive, removed from the registry.
pub(crate) fn take_capture(id: u64) -> Vec<KeepAlive> {
    // Take the entry under the lock, drop the items after it (dropping an allocation may free
    // memory, which may consult the registry again).
    let e = lock(captures()).by_id.remove(&id);
    e.map(|e| e.items).unwrap_or_default()
}

/// A set of keep-alives without duplicates (a graph's).
#[derive(Default)]
pub(crate) struct KeepSet {
    items: Vec<KeepAlive>,
    seen: HashSet<usize>,
}

impl KeepSet {
    /// Adds `item` unless it is already there.
    pub(crate) fn add(&mut self, item: KeepAlive) {
        if self.seen.insert(addr(&item)) {
            self.items.push(item);
        }
    }
    /// Adds every item of `items`.
    pub(crate) fn extend(&mut self, items: Vec<KeepAlive>) {
        for i in items {
            self.add(i);
        }
    }
    /// The items.
    pub(crate) fn items(&self) -> &[KeepAlive] {
        &self.items
    }
}

/// Events recorded after the uses of something on streams (one event per stream, re-recorded
/// on each use), so that a later operation can wait for all of them.
#[derive(Default)]
pub(crate) struct Uses {
    /// The stream, the thread that used it when it is the per-thread stream (whose handle
    /// names that thread's stream; `None` otherwise), and the event recorded after the use.
    list: Mutex<Vec<(Stream, Option<ThreadId>, Event)>>,
}

/// The thread whose stream `stream`'s handle names when used from this thread: the current
/// thread for the per-thread stream, `None` for every other stream.
#[inline]
fn stream_thread(stream: &Stream) -> Option<ThreadId> {
    stream.is_per_thread().then(|| std::thread::current().id())
}

impl Uses {
    /// Records, after the work queued so far on `stream`, the event this tracker keeps for
    /// `stream` (created on first use, in `stream`'s context). The caller has queued the use.
    ///
    /// If recording fails, waits for `stream` instead (so no use is left untracked) and
    /// returns the error.
    ///
    /// # Errors
    /// `cuEventCreate`'s or `cuEventRecord`'s error.
    pub(crate) fn record(&self, stream: &Stream) -> Result<()> {
        let mut list = lock(&self.list);
        let thread = stream_thread(stream);
        let r = match list.iter().position(|(s, t, _)| {
            s.as_raw() == stream.as_raw() && s.context() == stream.context() && *t == thread
        }) {
            Some(i) => list[i].2.record(stream),
            None => Event::new(stream.context(), EventOptions::default()).and_then(|ev| {
                ev.record(stream)?;
                list.push((stream.clone(), thread, ev));
                Ok(())
            }),
        };
        if r.is_err() {
            // Untracked work must not be: wait for it on the host.
            if let Err(e) = stream.synchronize() {
                log::error!("anycuda::core: waiting for a stream after a failed record: {e}");
            }
        }
        r
    }

    /// Whether any use was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        lock(&self.list).is_empty()
    }

    /// Makes `stream` wait (`cuStreamWaitEvent`) for every recorded use. `stream`'s context
    /// must be current.
    ///
    /// # Errors
    /// The driver's error.
    pub(crate) fn order_before(&self, stream: &Stream) -> Result<()> {
        for (s, _, ev) in lock(&self.list).iter() {
            if !s.same(stream) {
                stream.wait_raw_event(ev.as_raw())?;
            }
        }
        Ok(())
    }

    /// Waits on the host for every recorded use.
    ///
    /// # Errors
    /// The error of a failed use (`cuEventSynchronize`).
    pub(crate) fn synchronize(&self) -> Result<()> {
        let mut first = Ok(());
        for (_, _, ev) in lock(&self.list).iter() {
            let r = ev.synchronize();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

// ---------------------------------------------------------------------------------------------
// Host functions.

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id (never 0, never reused within the process).
fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

type Once = Box<dyn FnOnce() + Send>;
type Repeat = Arc<dyn Fn() + Send + Sync>;

static ONCE: Mutex<BTreeMap<u64, Once>> = Mutex::new(BTreeMap::new());
static REPEAT: Mutex<BTreeMap<u64, Repeat>> = Mutex::new(BTreeMap::new());

/// Registers a one-shot host function; the id is what the driver gets as user data.
pub(crate) fn register_once(f: Once) -> u64 {
    let id = fresh_id();
    lock(&ONCE).insert(id, f);
    id
}

/// Removes a one-shot host function the driver refused (so it never runs it).
pub(crate) fn unregister_once(id: u64) -> Option<Once> {
    lock(&ONCE).remove(&id)
}

/// The owner of a repeatable host function: while it lives, the trampoline finds the
/// function under `id`; dropping it removes the function (and, once no call is running, drops
/// the closure).
pub(crate) struct RepeatEntry {
    id: u64,
}

impl RepeatEntry {
    /// The id the driver gets as user data.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for RepeatEntry {
    fn drop(&mut self) {
        // Take it out under the lock, drop the closure after it (its Drop may do anything).
        let f = lock(&REPEAT).remove(&self.id);
        drop(f);
    }
}

/// Registers a repeatable host function; it stays callable while the entry lives.
pub(crate) fn register_repeat(f: Repeat) -> Arc<RepeatEntry> {
    let id = fresh_id();
    lock(&REPEAT).insert(id, f);
    Arc::new(RepeatEntry { id })
}

/// Runs `f`, catching a panic (never unwound into the driver).
fn run_caught(f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        log::error!("anycuda::core: a stream host function panicked (caught)");
    }
}

/// The `CUhostFn` of one-shot host functions: `data` is an id, not a pointer. Removes the
/// closure and runs it; a second call with the same id (a graph replaying a node captured by a
/// race) finds nothing and does nothing.
pub(crate) unsafe extern "C" fn once_trampoline(data: *mut c_void) {
    run_once(data as usize as u64);
}

/// [`once_trampoline`]'s body, callable in tests.
pub(crate) fn run_once(id: u64) -> bool {
    let f = lock(&ONCE).remove(&id);
    match f {
        Some(f) => {
            run_caught(f);
            true
        }
        None => false,
    }
}

/// The `CUhostFn` of repeatable host functions: `data` is an id; runs the closure registered
/// under it, if its owner still lives.
pub(crate) unsafe extern "C" fn repeat_trampoline(data: *mut c_void) {
    run_repeat(data as usize as u64);
}

/// [`repeat_trampoline`]'s body, callable in tests.
pub(crate) fn run_repeat(id: u64) -> bool {
    let f = lock(&REPEAT).get(&id).cloned();
    match f {
        Some(f) => {
            run_caught(|| f());
            true
        }
        None => false,
    }
}

/// The id as the driver's user-data pointer (an integer, never dereferenced).
pub(crate) fn id_ptr(id: u64) -> *mut c_void {
    id as usize as *mut c_void
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn once_runs_once_then_finds_nothing() {
        let n = Arc::new(AtomicUsize::new(0));
        let c = n.clone();
        let id = register_once(Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        assert!(run_once(id));
        // A replay (a graph launched again) finds nothing: no use after free, no second run.
        assert!(!run_once(id));
        assert!(!run_once(id));
        assert_eq!(n.load(Ordering::SeqCst), 1);
        // The closure (and its captured Arc) was freed after the run.
        assert_eq!(Arc::strong_count(&n), 1);
    }

    #[test]
    fn refused_once_is_dropped_unrun() {
        let n = Arc::new(AtomicUsize::new(0));
        let c = n.clone();
        let id = register_once(Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        drop(unregister_once(id));
        assert!(!run_once(id));
        assert_eq!(n.load(Ordering::SeqCst), 0);
        assert_eq!(Arc::strong_count(&n), 1);
    }

    #[test]
    fn repeat_runs_while_owned_then_is_freed_once() {
        let n = Arc::new(AtomicUsize::new(0));
        let c = n.clone();
        let entry = register_repeat(Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        let id = entry.id();
        for _ in 0..5 {
            assert!(run_repeat(id));
        }
        assert_eq!(n.load(Ordering::SeqCst), 5);
        let kept: KeepAlive = entry;
        let copy = kept.clone();
        drop(kept);
        assert!(run_repeat(id), "still owned by a clone");
        drop(copy);
        assert!(!run_repeat(id));
        assert_eq!(n.load(Ordering::SeqCst), 6);
        assert_eq!(Arc::strong_count(&n), 1, "closure dropped once");
    }

    #[test]
    fn panics_are_caught() {
        let id = register_once(Box::new(|| panic!("caught")));
        assert!(run_once(id));
        let e = register_repeat(Arc::new(|| panic!("caught")));
        assert!(run_repeat(e.id()));
    }

    #[test]
    fn ids_are_fresh_and_nonzero() {
        let a = fresh_id();
        let b = fresh_id();
        assert!(a != 0 && b != 0 && a != b);
    }

    #[test]
    fn capture_registry_dedups_and_moves_out() {
        let a: KeepAlive = Arc::new(1u32);
        let b: KeepAlive = Arc::new(2u32);
        let id = u64::MAX - fresh_id();
        keep_for_capture(id, a.clone());
        keep_for_capture(id, a.clone());
        keep_for_capture(id, b.clone());
        assert_eq!(Arc::strong_count(&a), 2);
        let items = take_capture(id);
        assert_eq!(items.len(), 2);
        assert!(take_capture(id).is_empty());
        let mut set = KeepSet::default();
        set.extend(items);
        set.add(a.clone());
        assert_eq!(set.items().len(), 2);
        drop(set);
        assert_eq!((Arc::strong_count(&a), Arc::strong_count(&b)), (1, 1));
    }
}
