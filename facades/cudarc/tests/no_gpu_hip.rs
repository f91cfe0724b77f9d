//! The no-GPU checks on the Hip backend (one backend per process).

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

#[path = "shared/no_gpu.rs"]
mod no_gpu;
use anycuda::BackendKind::Hip;

#[test]
fn compile_ptx_works() {
    no_gpu::compile_ptx_works(Hip);
}

#[test]
fn compile_ptx_uses_the_program_cache() {
    no_gpu::compile_ptx_uses_the_program_cache(Hip);
}

#[test]
fn compile_error_has_log() {
    no_gpu::compile_error_has_log(Hip);
}

#[test]
fn context_without_device_is_an_error() {
    no_gpu::context_without_device_is_an_error(Hip);
}

#[test]
fn nvcc_ptx_on_this_backend() {
    no_gpu::nvcc_ptx_on_this_backend(Hip);
}
