//! The no-GPU checks on the Cuda backend (one backend per process).

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

#[path = "shared/no_gpu.rs"]
mod no_gpu;
use anycuda::BackendKind::Cuda;

#[test]
fn compile_ptx_works() {
    no_gpu::compile_ptx_works(Cuda);
}

#[test]
fn compile_ptx_uses_the_program_cache() {
    no_gpu::compile_ptx_uses_the_program_cache(Cuda);
}

#[test]
fn compile_error_has_log() {
    no_gpu::compile_error_has_log(Cuda);
}

#[test]
fn context_without_device_is_an_error() {
    no_gpu::context_without_device_is_an_error(Cuda);
}

#[test]
fn nvcc_ptx_on_this_backend() {
    no_gpu::nvcc_ptx_on_this_backend(Cuda);
}
