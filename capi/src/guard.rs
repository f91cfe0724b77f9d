//! The re-entry guard. A vendor library that anycuda calls may call back into the C ABI by
//! name: NVIDIA's libcudart `dlopen`s "libcuda.so.1" (which is anycuda when anycuda's folder is
//! first on the library path), and HIP's NVIDIA platform (a libamdhip64 over CUDA that links
//! libcudart and libcuda by soname) resolves `cudaMalloc` to anycuda's export. Dispatching such
//! a call to the active backend would recurse (HIP → anycuda → HIP → ...). Rule: a call that
//! enters the C ABI while this thread is already inside an anycuda C-ABI call comes from a
//! vendor library; it goes straight to NVIDIA's library (the CUDA backend's loaded table),
//! never back into the active backend, and answers "not initialised" when NVIDIA's library is
//! not there.
//!
//! Cost: one lookup of a const-initialised thread-local `Cell` (no lazy registration, no
//! destructor), one read and two writes per call; measured in docs/c-abi.md.

use anycuda_api::reentry::DEPTH;
use std::cell::Cell;

/// This thread is inside an anycuda C-ABI call for as long as the value lives.
///
/// It keeps the address of this thread's depth cell, so leaving costs no second thread-local
/// lookup (in a shared object each lookup is a `__tls_get_addr` call). The raw pointer also
/// makes the value `!Send`: it is dropped on the thread that made it.
pub struct Inside {
    /// This thread's `DEPTH`.
    cell: *const Cell<u32>,
    /// The depth to restore on drop.
    prev: u32,
}

impl Inside {
    /// Enters the C ABI: `Some` for a call from the program, `None` when this thread is
    /// already inside an anycuda C-ABI call (a call from a vendor library).
    #[inline(always)]
    pub fn enter() -> Option<Inside> {
        DEPTH.with(|d| {
            if d.get() != 0 {
                None
            } else {
                d.set(1);
                Some(Inside {
                    cell: std::ptr::from_ref(d),
                    prev: 0,
                })
            }
        })
    }

    /// Marks this thread as inside a C-ABI call whatever it was before (for
    /// `anycuda_capi_call_as_vendor`).
    pub fn force() -> Inside {
        DEPTH.with(|d| {
            let prev = d.get();
            d.set(1);
            Inside {
                cell: std::ptr::from_ref(d),
                prev,
            }
        })
    }
}

impl Drop for Inside {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: `cell` is this thread's `DEPTH` (`Inside` is `!Send`, so it is dropped on the
        // thread that made it), and a thread's locals outlive every value on its stack.
        unsafe { (*self.cell).set(self.prev) };
    }
}

/// The backend a vendor library's call goes to: the CUDA backend (NVIDIA's libraries, found by
/// path, never anycuda itself), loaded if needed but never while this thread is loading it (a
/// vendor initialiser calling back in must not deadlock); `None` when it is not compiled in or
/// being loaded by this very thread.
#[cold]
#[inline(never)]
pub fn vendor() -> Option<anycuda::Backend> {
    anycuda::Backend::load_reentrant(anycuda::BackendKind::Cuda)
}

/// A backend with no library: the API traits' default bodies (anycuda's tables for error
/// strings and the other functions that need no library). What a vendor call of those
/// functions gets when NVIDIA's library is not loaded.
pub struct Unloaded;

impl anycuda::Driver for Unloaded {}
impl anycuda::Runtime for Unloaded {}
impl anycuda::Rtc for Unloaded {}
