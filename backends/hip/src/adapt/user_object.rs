//! CUDA's user objects (`cuUserObject*`, `cuGraphRetainUserObject`, `cuGraphReleaseUserObject`
//! and the Runtime twins) kept by anycuda.
//!
//! HIP has user objects only from 6.2 (`hipUserObjectCreate` …); ROCm 5.x and HIP's NVIDIA
//! platform (built from HIP 5.2.3) have none, and NVIDIA's `cuda.core` graph example needs
//! them. So they are emulated here on every HIP version, one behaviour everywhere (HIP 6.2's
//! own functions are not used):
//!
//! - A user object is a host-side reference count with a destructor; handles are anycuda's
//!   own: a tag in the top 16 bits (never a user-space address on x86-64) and a counter, never
//!   dereferenced. A bogus, stale (count reached zero) or foreign handle is
//!   `CUDA_ERROR_INVALID_VALUE`, as are a zero count, a NULL destructor, flags other than
//!   `CU_USER_OBJECT_NO_DESTRUCTOR_SYNC` (which CUDA requires), and releasing more references
//!   than are held (CUDA leaves that undefined; here it changes nothing).
//! - The destructor runs exactly once, when the count reaches zero, **on the thread whose call
//!   dropped the last reference, before that call returns**, after every lock of this room is
//!   released. CUDA runs it asynchronously on a driver thread and forbids CUDA calls inside it;
//!   running it in the caller is allowed by that contract (the destructor cannot call back
//!   into anycuda), keeps no thread alive at process exit (a pending destructor is never lost)
//!   and makes the order observable (tests).
//! - A graph's references (`cuGraphRetainUserObject`) are released by `cuGraphDestroy`; a
//!   clone (`cuGraphClone`) takes its own copy of them; an executable graph takes its own copy
//!   at instantiation and keeps it until `cuGraphExecDestroy`; `cuGraphExecUpdate` replaces the
//!   executable's copy with the new source graph's, as CUDA documents. CUDA defers a release
//!   by `cuGraphExecDestroy` until the executable's pending launches finish: here, when the
//!   executable held references, the current device is synchronised before they are released
//!   (blocking where CUDA is asynchronous, never freeing early). The hooks live in
//!   `adapt/graph.rs`.
//! - A graph embedded as a child graph node is a clone: the embedded graph takes its own copy
//!   of the child's references, and so does every graph embedded in it, level by level (as for
//!   `cuGraphClone`). Destroying a graph, or a child graph node, releases the references of the
//!   graphs embedded in it too; an executable takes a copy of the references of its graph and
//!   of every graph embedded in it. The graph walks live in `adapt/graph.rs`.

use super::support::no_device_or;
use super::support::{table, INVALID_VALUE, SUCCESS};
use crate::conv::driver_to_runtime;
use crate::HipBackend;
use anycuda_api::driver::{
    CUgraph, CUhostFn, CUresult, CUuserObject, CUuserObjectRetain_flags, CUuserObject_flags,
};
use anycuda_api::runtime::{cudaError_t, cudaGraph_t, cudaHostFn_t, cudaUserObject_t};
use core::ffi::{c_uint, c_void};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

const _: () = assert!(usize::BITS == 64, "the handle tag assumes 64-bit pointers");

/// Top 16 bits of a `CUuserObject` anycuda hands out (non-canonical on x86-64: never an
/// address).
const OBJECT_TAG: usize = 0xACD1 << 48;
const TAG_MASK: usize = 0xFFFF << 48;

/// A destructor and its argument, run once the lock is released.
type Destructor = (unsafe extern "C" fn(*mut c_void), usize);

struct Object {
    destroy: unsafe extern "C" fn(*mut c_void),
    /// The `ptr` given at creation, handed to `destroy` (kept as an address: never read).
    ptr: usize,
    /// Every reference: the caller's and those of graphs and executable graphs.
    refs: u64,
}

/// References a graph or an executable graph holds: object handle → count.
type Holdings = HashMap<usize, u64>;

#[derive(Default)]
struct Registry {
    next: usize,
    objects: HashMap<usize, Object>,
    /// Graphs (by handle) holding references.
    graphs: HashMap<usize, Holdings>,
    /// Executable graphs (by handle) holding references.
    execs: HashMap<usize, Holdings>,
}

impl Registry {
    fn object(&mut self, h: usize) -> Result<&mut Object, CUresult> {
        if h & TAG_MASK != OBJECT_TAG {
            return Err(INVALID_VALUE);
        }
        self.objects.get_mut(&h).ok_or(INVALID_VALUE)
    }

    fn retain(&mut self, h: usize, n: u64) -> Result<(), CUresult> {
        let o = self.object(h)?;
        o.refs = o.refs.checked_add(n).ok_or(INVALID_VALUE)?;
        Ok(())
    }

    /// Drops `n` references of `h`; the destructor is queued in `dead` at zero.
    fn release(&mut self, h: usize, n: u64, dead: &mut Vec<Destructor>) -> Result<(), CUresult> {
        let o = self.object(h)?;
        if n > o.refs {
            return Err(INVALID_VALUE);
        }
        o.refs -= n;
        if o.refs == 0 {
            let o = self.objects.remove(&h).ok_or(INVALID_VALUE)?;
            dead.push((o.destroy, o.ptr));
        }
        Ok(())
    }

    /// Drops every reference `held` stands for.
    fn release_all(&mut self, held: Holdings, dead: &mut Vec<Destructor>) {
        for (h, n) in held {
            // A holding always names a live object with at least `n` references (every path
            // that adds one retains first), so this cannot fail.
            let _ = self.release(h, n, dead);
        }
    }

    /// A copy of `held` with every reference retained again (for a clone or an executable).
    fn copy(&mut self, held: &Holdings) -> Holdings {
        let mut out = Holdings::with_capacity(held.len());
        for (&h, &n) in held {
            if self.retain(h, n).is_ok() {
                out.insert(h, n);
            }
        }
        out
    }
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` on the registry (made on first use), then the destructors it queued, outside the
/// lock (a destructor may block, or take a lock its caller holds elsewhere).
fn with_registry<T>(f: impl FnOnce(&mut Registry, &mut Vec<Destructor>) -> T) -> T {
    let mut dead = Vec::new();
    let r = {
        let mut g = registry();
        f(g.get_or_insert_with(Registry::default), &mut dead)
    };
    for (destroy, ptr) in dead {
        // SAFETY: the caller's destructor with the caller's argument, run once (the object was
        // removed from the registry when its count reached zero), as CUDA promises.
        unsafe { destroy(ptr as *mut c_void) };
    }
    r
}

/// The CUDA count as a non-zero `u64` (zero is invalid everywhere in this API).
fn nonzero(n: c_uint) -> Result<u64, CUresult> {
    if n == 0 {
        Err(INVALID_VALUE)
    } else {
        Ok(u64::from(n))
    }
}

/// Graphs live on a device: without HIP, not initialised; without a device, CUDA's no-device
/// answer (no graph can exist).
fn graph_device(b: &HipBackend) -> Result<(), CUresult> {
    table::<CUresult>(b)?;
    match no_device_or(b, SUCCESS) {
        SUCCESS => Ok(()),
        e => Err(e),
    }
}

// ------------------------------------------------------------------ Driver API

/// `cuUserObjectCreate`: a reference count with a destructor, kept by anycuda (HIP < 6.2 has
/// no user objects).
///
/// # Safety
/// CUDA's contract: `object_out` NULL or writable; `destroy` callable with `ptr`.
pub(crate) unsafe fn cuUserObjectCreate(
    _b: &HipBackend,
    object_out: *mut CUuserObject,
    ptr: *mut c_void,
    destroy: CUhostFn,
    initialRefcount: c_uint,
    flags: c_uint,
) -> CUresult {
    let Some(destroy) = destroy else {
        return INVALID_VALUE;
    };
    if object_out.is_null()
        || initialRefcount == 0
        || flags != CUuserObject_flags::CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.0
    {
        return INVALID_VALUE;
    }
    let h = with_registry(|r, _| {
        r.next += 1;
        let h = OBJECT_TAG | r.next;
        r.objects.insert(
            h,
            Object {
                destroy,
                ptr: ptr as usize,
                refs: u64::from(initialRefcount),
            },
        );
        h
    });
    // SAFETY: non-NULL, writable by the caller's contract.
    unsafe { object_out.write(h as CUuserObject) };
    SUCCESS
}

/// `cuUserObjectRetain`: `count` more references (anycuda's user objects).
///
/// # Safety
/// None beyond CUDA's: the handle is never dereferenced.
pub(crate) unsafe fn cuUserObjectRetain(
    _b: &HipBackend,
    object: CUuserObject,
    count: c_uint,
) -> CUresult {
    let n = match nonzero(count) {
        Ok(n) => n,
        Err(e) => return e,
    };
    with_registry(|r, _| r.retain(object as usize, n))
        .err()
        .unwrap_or(SUCCESS)
}

/// `cuUserObjectRelease`: drops `count` references; the destructor runs (in this thread,
/// before returning) when none is left.
///
/// # Safety
/// None beyond CUDA's: the handle is never dereferenced.
pub(crate) unsafe fn cuUserObjectRelease(
    _b: &HipBackend,
    object: CUuserObject,
    count: c_uint,
) -> CUresult {
    let n = match nonzero(count) {
        Ok(n) => n,
        Err(e) => return e,
    };
    with_registry(|r, dead| r.release(object as usize, n, dead))
        .err()
        .unwrap_or(SUCCESS)
}

/// `cuGraphRetainUserObject`: the graph takes `count` references (new ones, or the caller's
/// with `CU_GRAPH_USER_OBJECT_MOVE`); released by `cuGraphDestroy`.
///
/// # Safety
/// CUDA's contract: `graph` is the caller's live graph (only used as a key here).
pub(crate) unsafe fn cuGraphRetainUserObject(
    b: &HipBackend,
    graph: CUgraph,
    object: CUuserObject,
    count: c_uint,
    flags: c_uint,
) -> CUresult {
    let n = match nonzero(count) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let moved = CUuserObjectRetain_flags::CU_GRAPH_USER_OBJECT_MOVE.0;
    if graph.is_null() || (flags != 0 && flags != moved) {
        return INVALID_VALUE;
    }
    if let Err(e) = graph_device(b) {
        return e;
    }
    with_registry(|r, _| {
        let o = r.object(object as usize)?;
        if flags == moved {
            // The caller's references become the graph's: the total stays. The caller must
            // own `n` of them; all anycuda can check is that there are that many.
            if o.refs < n {
                return Err(INVALID_VALUE);
            }
        } else {
            o.refs = o.refs.checked_add(n).ok_or(INVALID_VALUE)?;
        }
        let held = r.graphs.entry(graph as usize).or_default();
        let slot = held.entry(object as usize).or_insert(0);
        *slot = slot.saturating_add(n);
        Ok(())
    })
    .err()
    .unwrap_or(SUCCESS)
}

/// `cuGraphReleaseUserObject`: drops `count` of the graph's references (more than it holds:
/// invalid value).
///
/// # Safety
/// CUDA's contract: `graph` is the caller's live graph (only used as a key here).
pub(crate) unsafe fn cuGraphReleaseUserObject(
    b: &HipBackend,
    graph: CUgraph,
    object: CUuserObject,
    count: c_uint,
) -> CUresult {
    let n = match nonzero(count) {
        Ok(n) => n,
        Err(e) => return e,
    };
    if graph.is_null() {
        return INVALID_VALUE;
    }
    if let Err(e) = graph_device(b) {
        return e;
    }
    with_registry(|r, dead| {
        let h = object as usize;
        r.object(h)?;
        let held = r.graphs.get_mut(&(graph as usize)).ok_or(INVALID_VALUE)?;
        let slot = held.get_mut(&h).ok_or(INVALID_VALUE)?;
        if *slot < n {
            return Err(INVALID_VALUE);
        }
        *slot -= n;
        if *slot == 0 {
            held.remove(&h);
            if held.is_empty() {
                r.graphs.remove(&(graph as usize));
            }
        }
        r.release(h, n, dead)
    })
    .err()
    .unwrap_or(SUCCESS)
}

// ------------------------------------------------------------------ Runtime API

/// `cudaUserObjectCreate` (see [`cuUserObjectCreate`]).
///
/// # Safety
/// As [`cuUserObjectCreate`].
pub(crate) unsafe fn cudaUserObjectCreate(
    b: &HipBackend,
    object_out: *mut cudaUserObject_t,
    ptr: *mut c_void,
    destroy: cudaHostFn_t,
    initialRefcount: c_uint,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle and function types.
    driver_to_runtime(unsafe {
        cuUserObjectCreate(b, object_out, ptr, destroy, initialRefcount, flags)
    })
}

/// `cudaUserObjectRetain` (see [`cuUserObjectRetain`]).
///
/// # Safety
/// As [`cuUserObjectRetain`].
pub(crate) unsafe fn cudaUserObjectRetain(
    b: &HipBackend,
    object: cudaUserObject_t,
    count: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuUserObjectRetain(b, object, count) })
}

/// `cudaUserObjectRelease` (see [`cuUserObjectRelease`]).
///
/// # Safety
/// As [`cuUserObjectRelease`].
pub(crate) unsafe fn cudaUserObjectRelease(
    b: &HipBackend,
    object: cudaUserObject_t,
    count: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuUserObjectRelease(b, object, count) })
}

/// `cudaGraphRetainUserObject` (see [`cuGraphRetainUserObject`]; `cudaGraphUserObjectMove` is
/// `CU_GRAPH_USER_OBJECT_MOVE`).
///
/// # Safety
/// As [`cuGraphRetainUserObject`].
pub(crate) unsafe fn cudaGraphRetainUserObject(
    b: &HipBackend,
    graph: cudaGraph_t,
    object: cudaUserObject_t,
    count: c_uint,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuGraphRetainUserObject(b, graph, object, count, flags) })
}

/// `cudaGraphReleaseUserObject` (see [`cuGraphReleaseUserObject`]).
///
/// # Safety
/// As [`cuGraphReleaseUserObject`].
pub(crate) unsafe fn cudaGraphReleaseUserObject(
    b: &HipBackend,
    graph: cudaGraph_t,
    object: cudaUserObject_t,
    count: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuGraphReleaseUserObject(b, graph, object, count) })
}

// ------------------------------------------------------------------ graph lifecycle hooks

/// Whether no user object was ever made (the hooks' fast path: no bookkeeping to do).
fn unused() -> bool {
    registry().as_ref().is_none_or(|r| r.objects.is_empty())
}

/// Whether a user object is alive, so the graph hooks must walk embedded graphs (which costs
/// HIP calls) to keep their references right.
pub(crate) fn in_use() -> bool {
    !unused()
}

/// `graph` was destroyed: its references are released.
pub(crate) fn graph_destroyed(graph: usize) {
    if unused() {
        return;
    }
    with_registry(|r, dead| {
        if let Some(held) = r.graphs.remove(&graph) {
            r.release_all(held, dead);
        }
    });
}

/// `clone` was cloned from `original`: it takes its own copy of the original's references.
pub(crate) fn graph_cloned(original: usize, clone: usize) {
    if unused() {
        return;
    }
    with_registry(|r, dead| {
        let held = r.graphs.get(&original).cloned().unwrap_or_default();
        let copy = r.copy(&held);
        if let Some(old) = r.graphs.remove(&clone) {
            r.release_all(old, dead); // a handle HIP reused: the old graph is gone
        }
        if !copy.is_empty() {
            r.graphs.insert(clone, copy);
        }
    });
}

/// `exec` was instantiated from a graph (or updated from it), given with the graphs embedded
/// in it (`graphs`): it holds its own copy of all their references, replacing any it held.
pub(crate) fn exec_from_graphs(graphs: &[usize], exec: usize) {
    if unused() {
        return;
    }
    with_registry(|r, dead| {
        let mut held = Holdings::new();
        for g in graphs {
            for (&h, &n) in r.graphs.get(g).into_iter().flatten() {
                *held.entry(h).or_insert(0) += n;
            }
        }
        let copy = r.copy(&held);
        if let Some(old) = r.execs.remove(&exec) {
            r.release_all(old, dead);
        }
        if !copy.is_empty() {
            r.execs.insert(exec, copy);
        }
    });
}

/// `exec` was destroyed: its references are released once the current device has finished
/// the work queued so far (CUDA holds them until the executable's launches complete).
pub(crate) fn exec_destroyed(b: &HipBackend, exec: usize) {
    if unused() {
        return;
    }
    let held = registry().as_mut().and_then(|r| r.execs.remove(&exec));
    let Some(held) = held else {
        return;
    };
    if let Some(sync) = b.native_hip().and_then(|t| t.hipDeviceSynchronize) {
        // SAFETY: plain call. Its error (a failed launch) is the caller's to see elsewhere;
        // the references are released either way.
        let _ = unsafe { sync() };
    }
    with_registry(|r, dead| r.release_all(held, dead));
}
