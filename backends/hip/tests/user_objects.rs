//! CUDA's user objects (`cuUserObject*`, `cuGraphRetainUserObject`, `cuGraphReleaseUserObject`
//! and the Runtime twins) on the HIP backend, which keeps them itself on every HIP version
//! (`src/adapt/user_object.rs`; HIP has them only from 6.2). Without a device everything but
//! the graph calls is checked exactly: reference counting, the destructor running exactly once
//! when the count reaches zero (in the releasing thread, before the call returns), argument
//! and handle validation. The graph calls answer CUDA's no-device code here (AMD without a
//! GPU); the `#[gpu_test]` runs graph retain, MOVE, clone, instantiation and destruction on
//! a GPU (ci/gpu-test.sh, HIP backend), and never passes without one.

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::runtime::cudaError_t;
use anycuda_api::traits::{Driver, Runtime};
use anycuda_hip::HipBackend;
use anycuda_test::gpu_test;
use core::ffi::c_void;
use core::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::{amd_without_device, hip_with_device};

const OK: CUresult = CUresult::CUDA_SUCCESS;
const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
const NO_DEVICE: CUresult = CUresult::CUDA_ERROR_NO_DEVICE;
const SYNC: u32 = CUuserObject_flags::CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.0;
const MOVE: u32 = CUuserObjectRetain_flags::CU_GRAPH_USER_OBJECT_MOVE.0;

/// The destructor every test uses: counts its runs in the `AtomicUsize` it is given.
unsafe extern "C" fn count_run(p: *mut c_void) {
    // SAFETY: every test passes a `'static AtomicUsize`.
    unsafe { &*p.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

fn arg(c: &'static AtomicUsize) -> *mut c_void {
    core::ptr::from_ref(c).cast_mut().cast()
}

/// A user object with `refs` references whose destructor counts into `runs`.
fn make(b: &HipBackend, runs: &'static AtomicUsize, refs: u32) -> CUuserObject {
    let mut o = null_mut();
    // SAFETY: valid out-pointer; the destructor and its argument live forever.
    let r = unsafe { b.cuUserObjectCreate(&mut o, arg(runs), Some(count_run), refs, SYNC) };
    assert_eq!(r, OK);
    assert!(!o.is_null());
    o
}

#[test]
fn destructor_runs_exactly_once_when_the_count_reaches_zero() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = HipBackend::load();
    let o = make(&b, &RUNS, 2);
    // SAFETY: the handle is never dereferenced.
    unsafe {
        assert_eq!(b.cuUserObjectRetain(o, 3), OK); // 5
        assert_eq!(b.cuUserObjectRelease(o, 4), OK); // 1
        assert_eq!(RUNS.load(Ordering::SeqCst), 0, "references are left");
        assert_eq!(b.cuUserObjectRelease(o, 2), INVALID_VALUE, "more than held");
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            0,
            "a refused release changes nothing"
        );
        assert_eq!(b.cuUserObjectRelease(o, 1), OK); // 0
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            1,
            "ran at zero, before the call returned"
        );
        // Stale now: every call is refused and the destructor never runs again.
        assert_eq!(b.cuUserObjectRelease(o, 1), INVALID_VALUE);
        assert_eq!(b.cuUserObjectRetain(o, 1), INVALID_VALUE);
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

#[test]
fn objects_are_independent_and_handles_distinct() {
    static A: AtomicUsize = AtomicUsize::new(0);
    static B: AtomicUsize = AtomicUsize::new(0);
    let b = HipBackend::load();
    let (x, y) = (make(&b, &A, 1), make(&b, &B, 1));
    assert_ne!(x, y);
    // SAFETY: handles never dereferenced.
    unsafe {
        assert_eq!(b.cuUserObjectRelease(y, 1), OK);
        assert_eq!((A.load(Ordering::SeqCst), B.load(Ordering::SeqCst)), (0, 1));
        assert_eq!(b.cuUserObjectRelease(x, 1), OK);
    }
    assert_eq!((A.load(Ordering::SeqCst), B.load(Ordering::SeqCst)), (1, 1));
}

#[test]
fn bad_arguments_are_invalid_values() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = HipBackend::load();
    let mut o = null_mut();
    // SAFETY: valid or NULL out-pointers; nothing is dereferenced on refusal.
    unsafe {
        let f = Some(count_run as unsafe extern "C" fn(*mut c_void));
        assert_eq!(
            b.cuUserObjectCreate(null_mut(), arg(&RUNS), f, 1, SYNC),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuUserObjectCreate(&mut o, arg(&RUNS), None, 1, SYNC),
            INVALID_VALUE
        );
        assert_eq!(
            b.cuUserObjectCreate(&mut o, arg(&RUNS), f, 0, SYNC),
            INVALID_VALUE
        );
        for flags in [0, 2, 3, u32::MAX] {
            assert_eq!(
                b.cuUserObjectCreate(&mut o, arg(&RUNS), f, 1, flags),
                INVALID_VALUE
            );
        }
        assert!(o.is_null(), "nothing written on refusal");
        let o = make(&b, &RUNS, 1);
        assert_eq!(b.cuUserObjectRetain(o, 0), INVALID_VALUE);
        assert_eq!(b.cuUserObjectRelease(o, 0), INVALID_VALUE);
        assert_eq!(RUNS.load(Ordering::SeqCst), 0);
        assert_eq!(b.cuUserObjectRelease(o, 1), OK);
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

#[test]
fn bogus_handles_are_invalid_values() {
    let b = HipBackend::load();
    let mut word = 0u64;
    let bogus: [CUuserObject; 4] = [
        null_mut(),
        0x1234 as CUuserObject,
        core::ptr::from_mut(&mut word).cast(), // a real address: never read
        ((0xACD1usize << 48) | 0xFFFF_FFFF) as CUuserObject, // anycuda's tag, no object
    ];
    for o in bogus {
        // SAFETY: the handle is never dereferenced.
        unsafe {
            assert_eq!(b.cuUserObjectRetain(o, 1), INVALID_VALUE, "{o:?}");
            assert_eq!(b.cuUserObjectRelease(o, 1), INVALID_VALUE, "{o:?}");
            assert_eq!(
                b.cudaUserObjectRetain(o, 1),
                cudaError_t::cudaErrorInvalidValue
            );
            assert_eq!(
                b.cudaUserObjectRelease(o, 1),
                cudaError_t::cudaErrorInvalidValue
            );
        }
    }
    assert_eq!(word, 0);
}

#[test]
fn runtime_twins_share_the_objects() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = HipBackend::load();
    let mut o = null_mut();
    // SAFETY: valid out-pointer; the handle is never dereferenced.
    unsafe {
        let f = Some(count_run as unsafe extern "C" fn(*mut c_void));
        let sync = anycuda_api::runtime::cudaUserObjectFlags::cudaUserObjectNoDestructorSync.0;
        assert_eq!(
            b.cudaUserObjectCreate(&mut o, arg(&RUNS), f, 0, sync),
            cudaError_t::cudaErrorInvalidValue
        );
        assert_eq!(
            b.cudaUserObjectCreate(&mut o, arg(&RUNS), None, 1, sync),
            cudaError_t::cudaErrorInvalidValue
        );
        assert_eq!(
            b.cudaUserObjectCreate(&mut o, arg(&RUNS), f, 1, sync),
            cudaError_t::cudaSuccess
        );
        assert_eq!(b.cudaUserObjectRetain(o, 1), cudaError_t::cudaSuccess);
        assert_eq!(b.cuUserObjectRelease(o, 1), OK, "one object for both APIs");
        assert_eq!(RUNS.load(Ordering::SeqCst), 0);
        assert_eq!(b.cudaUserObjectRelease(o, 1), cudaError_t::cudaSuccess);
        assert_eq!(RUNS.load(Ordering::SeqCst), 1);
        assert_eq!(
            b.cudaUserObjectRelease(o, 1),
            cudaError_t::cudaErrorInvalidValue
        );
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

#[test]
fn a_destructor_may_run_on_another_thread_than_the_creator() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = HipBackend::load();
    let o = make(&b, &RUNS, 8) as usize;
    std::thread::scope(|s| {
        for _ in 0..8 {
            let b = &b;
            // SAFETY: the handle is never dereferenced.
            s.spawn(move || assert_eq!(unsafe { b.cuUserObjectRelease(o as CUuserObject, 1) }, OK));
        }
    });
    assert_eq!(
        RUNS.load(Ordering::SeqCst),
        1,
        "exactly once across threads"
    );
}

#[test]
fn graph_calls_validate_then_answer_no_device() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let Some(b) = amd_without_device() else {
        return;
    };
    let o = make(&b, &RUNS, 1);
    let graph = 0x5000 as CUgraph; // no graph can exist without a device: never used
                                   // SAFETY: handles never dereferenced (refused before any HIP call).
    unsafe {
        assert_eq!(
            b.cuGraphRetainUserObject(null_mut(), o, 1, 0),
            INVALID_VALUE
        );
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 0, 0), INVALID_VALUE);
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 1, 2), INVALID_VALUE);
        assert_eq!(b.cuGraphReleaseUserObject(null_mut(), o, 1), INVALID_VALUE);
        assert_eq!(b.cuGraphReleaseUserObject(graph, o, 0), INVALID_VALUE);
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 1, 0), NO_DEVICE);
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 1, MOVE), NO_DEVICE);
        assert_eq!(b.cuGraphReleaseUserObject(graph, o, 1), NO_DEVICE);
        assert_eq!(
            b.cudaGraphRetainUserObject(graph, o, 1, 0),
            cudaError_t::cudaErrorNoDevice
        );
        assert_eq!(
            b.cudaGraphReleaseUserObject(graph, o, 1),
            cudaError_t::cudaErrorNoDevice
        );
        // Refusals took no reference and moved none: the caller's one is still the only one.
        assert_eq!(b.cuUserObjectRelease(o, 1), OK);
    }
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
}

#[gpu_test(backend = "hip")]
fn graphs_and_executables_hold_references_on_a_device() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    static CLONE_RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = hip_with_device();
    let runs = || RUNS.load(Ordering::SeqCst);
    // SAFETY: valid out-pointers; the handles come from the calls themselves.
    unsafe {
        let mut ctx = null_mut();
        assert_eq!(b.cuDevicePrimaryCtxRetain(&mut ctx, 0), OK);
        assert_eq!(b.cuCtxSetCurrent(ctx), OK);
        let mut graph = null_mut();
        assert_eq!(b.cuGraphCreate(&mut graph, 0), OK);
        let mut node = null_mut();
        assert_eq!(
            b.cuGraphAddEmptyNode(&mut node, graph, core::ptr::null(), 0),
            OK
        );

        let o = make(&b, &RUNS, 1);
        // MOVE: the caller's one reference becomes the graph's.
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 1, MOVE), OK);
        assert_eq!(
            b.cuGraphRetainUserObject(graph, o, 2, MOVE),
            INVALID_VALUE,
            "only 1 exists"
        );
        // A new reference for the graph, and one for the caller again.
        assert_eq!(b.cuGraphRetainUserObject(graph, o, 1, 0), OK); // graph 2
        assert_eq!(b.cuUserObjectRetain(o, 1), OK); // caller 1
        assert_eq!(
            b.cuGraphReleaseUserObject(graph, o, 3),
            INVALID_VALUE,
            "graph holds 2"
        );
        assert_eq!(b.cuGraphReleaseUserObject(graph, o, 1), OK); // graph 1
        assert_eq!(runs(), 0);

        // A clone holds its own references: destroying it leaves the object alive.
        let c = make(&b, &CLONE_RUNS, 1);
        assert_eq!(b.cuGraphRetainUserObject(graph, c, 1, MOVE), OK);
        let mut clone = null_mut();
        assert_eq!(b.cuGraphClone(&mut clone, graph), OK);
        assert_eq!(b.cuGraphDestroy(clone), OK);
        assert_eq!(
            CLONE_RUNS.load(Ordering::SeqCst),
            0,
            "the original still holds it"
        );

        // The executable holds its own copy until cuGraphExecDestroy.
        let mut exec = null_mut();
        assert_eq!(b.cuGraphInstantiate(&mut exec, graph, 0), OK);
        assert_eq!(b.cuUserObjectRelease(o, 1), OK); // the caller's
        assert_eq!(b.cuGraphDestroy(graph), OK);
        assert_eq!(runs(), 0, "the executable holds a reference");
        assert_eq!(CLONE_RUNS.load(Ordering::SeqCst), 0);
        let mut stream = null_mut();
        assert_eq!(b.cuStreamCreate(&mut stream, 0), OK);
        assert_eq!(b.cuGraphLaunch(exec, stream), OK);
        assert_eq!(b.cuGraphExecDestroy(exec), OK);
        assert_eq!(runs(), 1, "released with the executable, exactly once");
        assert_eq!(CLONE_RUNS.load(Ordering::SeqCst), 1);
        assert_eq!(b.cuUserObjectRetain(o, 1), INVALID_VALUE, "stale");
        assert_eq!(b.cuStreamSynchronize(stream), OK);
        assert_eq!(b.cuStreamDestroy(stream), OK);

        // The Runtime path: instantiate, then graph and executable destroyed in either order.
        static RT_RUNS: AtomicUsize = AtomicUsize::new(0);
        let mut g = null_mut();
        assert_eq!(b.cudaGraphCreate(&mut g, 0), cudaError_t::cudaSuccess);
        let mut n = null_mut();
        assert_eq!(
            b.cudaGraphAddEmptyNode(&mut n, g, core::ptr::null(), 0),
            cudaError_t::cudaSuccess
        );
        let r = make(&b, &RT_RUNS, 1);
        assert_eq!(
            b.cudaGraphRetainUserObject(g, r, 1, MOVE),
            cudaError_t::cudaSuccess
        );
        let mut e = null_mut();
        assert_eq!(
            b.cudaGraphInstantiate(&mut e, g, 0),
            cudaError_t::cudaSuccess
        );
        assert_eq!(b.cudaGraphExecDestroy(e), cudaError_t::cudaSuccess);
        assert_eq!(
            RT_RUNS.load(Ordering::SeqCst),
            0,
            "the graph still holds it"
        );
        assert_eq!(b.cudaGraphDestroy(g), cudaError_t::cudaSuccess);
        assert_eq!(RT_RUNS.load(Ordering::SeqCst), 1);
        assert_eq!(b.cuDevicePrimaryCtxRelease(0), OK);
    }
}

#[gpu_test(backend = "hip")]
fn embedded_child_graphs_hold_references_at_every_depth() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let b = hip_with_device();
    let runs = || RUNS.load(Ordering::SeqCst);
    // SAFETY: valid out-pointers; the handles come from the calls themselves.
    unsafe {
        let mut ctx = null_mut();
        assert_eq!(b.cuDevicePrimaryCtxRetain(&mut ctx, 0), OK);
        assert_eq!(b.cuCtxSetCurrent(ctx), OK);
        let graph = || {
            let mut g = null_mut();
            assert_eq!(b.cuGraphCreate(&mut g, 0), OK);
            g
        };
        // inner holds the object; middle embeds inner; outer embeds middle (as cuda.core's
        // GraphDefinition.embed does): each embedding is a clone that takes its own copy.
        let (inner, middle, outer) = (graph(), graph(), graph());
        let mut node = null_mut();
        assert_eq!(
            b.cuGraphAddEmptyNode(&mut node, inner, core::ptr::null(), 0),
            OK
        );
        let o = make(&b, &RUNS, 1);
        assert_eq!(b.cuGraphRetainUserObject(inner, o, 1, MOVE), OK);
        let mut in_middle = null_mut();
        assert_eq!(
            b.cuGraphAddChildGraphNode(&mut in_middle, middle, core::ptr::null(), 0, inner),
            OK
        );
        let mut in_outer = null_mut();
        assert_eq!(
            b.cuGraphAddChildGraphNode(&mut in_outer, outer, core::ptr::null(), 0, middle),
            OK
        );
        assert_eq!(b.cuGraphDestroy(inner), OK);
        assert_eq!(b.cuGraphDestroy(middle), OK);
        assert_eq!(
            runs(),
            0,
            "outer's embedded middle, and the inner in it, hold it"
        );

        // The nested clone can release what it holds (cuda.core does, destroying its node).
        let mut embedded_middle = null_mut();
        assert_eq!(
            b.cuGraphChildGraphNodeGetGraph(in_outer, &mut embedded_middle),
            OK
        );
        let (mut nodes, mut n) = ([null_mut(); 4], 4usize);
        assert_eq!(
            b.cuGraphGetNodes(embedded_middle, nodes.as_mut_ptr(), &mut n),
            OK
        );
        assert_eq!(n, 1);
        let mut embedded_inner = null_mut();
        assert_eq!(
            b.cuGraphChildGraphNodeGetGraph(nodes[0], &mut embedded_inner),
            OK
        );
        assert_eq!(b.cuGraphRetainUserObject(embedded_inner, o, 1, 0), OK); // 2 there
        assert_eq!(b.cuGraphReleaseUserObject(embedded_inner, o, 1), OK); // 1 there
        assert_eq!(runs(), 0);

        // An executable of outer holds the references of the graphs embedded in it.
        let mut exec = null_mut();
        assert_eq!(b.cuGraphInstantiate(&mut exec, outer, 0), OK);
        // Destroying the child graph node releases its embedded graphs' references.
        assert_eq!(b.cuGraphDestroyNode(in_outer), OK);
        assert_eq!(runs(), 0, "the executable still holds it");
        assert_eq!(b.cuGraphExecDestroy(exec), OK);
        assert_eq!(runs(), 1, "released with the last holder, exactly once");
        assert_eq!(b.cuGraphDestroy(outer), OK);
        assert_eq!(runs(), 1);
        assert_eq!(b.cuDevicePrimaryCtxRelease(0), OK);
    }
}
