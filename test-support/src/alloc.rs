//! The counting allocator: the system allocator, counting every allocation per thread and in
//! the whole process, so tests and benchmarks can show a hot path allocates nothing.
//!
//! `#[global_allocator]` must sit in the binary itself; [`count_allocations!`](crate::count_allocations)
//! puts it there:
//!
//! ```
//! anycuda_test::count_allocations!();
//!
//! let n = anycuda_test::alloc::allocations_in(|| {
//!     let v: Vec<u8> = Vec::with_capacity(16);
//!     drop(v);
//! });
//! assert_eq!(n, 1);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

thread_local! {
    static THREAD: Cell<u64> = const { Cell::new(0) };
}
static TOTAL: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting `alloc`, `alloc_zeroed` and `realloc` calls (frees are not
/// counted). Install it with [`count_allocations!`](crate::count_allocations).
pub struct CountingAlloc;

fn count() {
    TOTAL.fetch_add(1, Relaxed);
    // try_with: no panic while the thread's locals are torn down; the const-initialised
    // Cell itself never allocates.
    let _ = THREAD.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are an atomic
// and a const-initialised thread-local Cell, neither of which allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's layout contract, forwarded.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's layout contract, forwarded.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract (p from this allocator with layout l), forwarded.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(p, l) }
    }
}

/// Allocations made so far by the calling thread (0 unless [`CountingAlloc`] is installed).
pub fn thread_allocations() -> u64 {
    THREAD.with(Cell::get)
}

/// Allocations made so far by every thread of the process.
pub fn total_allocations() -> u64 {
    TOTAL.load(Relaxed)
}

/// How many allocations the calling thread makes while running `f`.
pub fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = thread_allocations();
    f();
    thread_allocations() - before
}

/// Installs [`CountingAlloc`] as the binary's `#[global_allocator]` (once per test file,
/// example or benchmark, at module level).
#[macro_export]
macro_rules! count_allocations {
    () => {
        #[global_allocator]
        static ANYCUDA_TEST_COUNTING_ALLOC: $crate::alloc::CountingAlloc =
            $crate::alloc::CountingAlloc;
    };
}
