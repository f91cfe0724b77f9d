//! The Runtime API's stream-ordered memory calls, as in AMD's HIP Python interop guide, written
//! against CUDA's C API and run unchanged on either backend (`ANYCUDA_BACKEND=cuda|hip`):
//! cudaMalloc, cudaStreamCreate, cudaMemcpyAsync to the device, cudaMemsetAsync to 0,
//! cudaMemcpyAsync back, cudaStreamSynchronize, cudaStreamDestroy, cudaFree. Every element must
//! come back 0; exits 1 otherwise. Prints "skipped: no GPU" and exits 0 only when no device
//! exists (unless `ANYCUDA_REQUIRE_GPU=1`).
//!
//! `cargo run --release --example runtime_memset`

use anycuda::runtime::*;
use std::ffi::c_void;
use std::ptr::null_mut;

mod common;
use common::{device_or_skip, Res};

fn main() {
    if let Err(e) = run() {
        eprintln!("runtime_memset: FAILED: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    if device_or_skip()?.is_none() {
        return Ok(());
    }
    const N: usize = 1 << 20;
    let bytes = N * std::mem::size_of::<u32>();
    let mut host: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(2654435761) | 1)
        .collect();
    // SAFETY: `dptr` is an allocation of `bytes` bytes, `host` is a Vec of `bytes` bytes, alive
    // until after the stream is synchronized, and the stream and allocation are freed once.
    unsafe {
        cudaSetDevice(0).result()?;
        let mut dptr: *mut c_void = null_mut();
        cudaMalloc(&mut dptr, bytes).result()?;
        let mut stream: cudaStream_t = null_mut();
        cudaStreamCreate(&mut stream).result()?;
        cudaMemcpyAsync(
            dptr,
            host.as_ptr().cast(),
            bytes,
            cudaMemcpyKind::cudaMemcpyHostToDevice,
            stream,
        )
        .result()?;
        cudaMemsetAsync(dptr, 0, bytes, stream).result()?;
        cudaMemcpyAsync(
            host.as_mut_ptr().cast(),
            dptr,
            bytes,
            cudaMemcpyKind::cudaMemcpyDeviceToHost,
            stream,
        )
        .result()?;
        cudaStreamSynchronize(stream).result()?;
        cudaStreamDestroy(stream).result()?;
        cudaFree(dptr).result()?;
    }
    let nonzero = host.iter().filter(|&&v| v != 0).count();
    if nonzero > 0 {
        return Err(format!("{nonzero} of {N} elements are not 0 after cudaMemsetAsync").into());
    }
    println!("runtime_memset: all {N} elements are 0: OK");
    Ok(())
}
