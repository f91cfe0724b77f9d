//! nvcc's hidden Runtime entry points (`__cudaRegisterFatBinary`, `__cudaPushCallConfiguration`,
//! ...): the answers when nothing can serve them.
//!
//! They are part of the generated `Runtime` trait (declared for codegen by
//! `codegen/shim/crt/nvcc_entry_points.h`). Those that return an error code default to
//! `cudaErrorNotSupported` as every other method; the others cannot carry an error, so their
//! defaults (`codegen/trait-defaults.txt`) are the functions below: each logs what the program
//! will miss, once per entry point, and returns the value nvcc's generated code reads as
//! failure (a null handle, a refused configuration), never one it would use.

use core::ffi::{c_char, c_uint, c_void};
use std::sync::atomic::{AtomicU32, Ordering};

/// The entry points that log once (bit per entry point).
static LOGGED: AtomicU32 = AtomicU32::new(0);

/// Logs, once per entry point, that `name` cannot be served by the selected backend (or by none).
fn log_once(bit: u32, name: &str) {
    if LOGGED.fetch_or(1 << bit, Ordering::Relaxed) & (1 << bit) == 0 {
        log::warn!(
            "anycuda: {name} (nvcc's hidden runtime entry point) is not available: no usable \
             backend serves it (the CUDA runtime lacks it, or no backend loaded); the program's \
             nvcc-built kernels cannot be launched"
        );
    }
}

/// `__cudaRegisterFatBinary` with nothing to serve it: logs and returns a null handle, which the
/// later registrations and launches of that module refuse.
pub fn register_fat_binary_unserved() -> *mut *mut c_void {
    log_once(0, "__cudaRegisterFatBinary");
    core::ptr::null_mut()
}

/// The `void` registrations (`__cudaRegisterFunction`, `__cudaRegisterVar`, ...) with nothing to
/// serve them: logs once, records nothing.
pub fn registration_unserved(name: &str) {
    log_once(1, name);
}

/// `__cudaInitModule` with nothing to serve it: 0, "not initialised".
pub fn init_module_unserved() -> c_char {
    log_once(2, "__cudaInitModule");
    0
}

/// `__cudaPushCallConfiguration` with nothing to serve it: 1, which nvcc's launch code reads as
/// "configuration refused" and then skips the kernel's launch stub.
pub fn push_call_configuration_unserved() -> c_uint {
    log_once(3, "__cudaPushCallConfiguration");
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unserved_answers_read_as_failure() {
        assert!(register_fat_binary_unserved().is_null());
        assert_eq!(init_module_unserved(), 0);
        assert_ne!(push_call_configuration_unserved(), 0);
        registration_unserved("__cudaRegisterFunction");
        // Every entry point logs at most once: the bits stay set.
        assert_eq!(LOGGED.load(Ordering::Relaxed) & 0b1111, 0b1111);
    }
}
