//! The re-entry mark of anycuda's C ABI (`anycuda-capi`'s guard; docs/c-abi.md): 1 while the
//! thread is inside a C-ABI call, so a call a vendor library makes back into the C ABI is told
//! from a program's own. It lives here, below the backends, because anycuda itself sometimes
//! finishes a call on a thread of its own (a compile runs on a large-stack thread,
//! `anycuda_rtc::rtc_input::on_compile_stack`, whose tests check this): such a thread carries
//! its caller's mark, or the vendor library's calls from it would be taken for the program's
//! and sent back to the active backend (HIP's NVIDIA platform compiling through anycuda's
//! NVRTC exports: measured on the GPU machine as `NVRTC_ERROR_INVALID_PROGRAM`).

use std::cell::Cell;

thread_local! {
    /// 1 while this thread is inside an anycuda C-ABI call (or works for one).
    pub static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// This thread's mark.
pub fn current() -> u32 {
    DEPTH.with(Cell::get)
}

/// Sets this thread's mark: a thread anycuda starts on behalf of a call takes its caller's.
pub fn set(mark: u32) {
    DEPTH.with(|d| d.set(mark));
}
