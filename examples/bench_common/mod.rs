//! What the two benchmark programs share: the round trip by hand, through the raw Driver API.

use anycuda::driver::*;
use std::ffi::c_void;
use std::ptr::null_mut;

/// One round trip of `x.len()` floats, by hand: the driver calls that anycuda::core's
/// `Buffer::from_slice` (twice), `launch` of `saxpy(2, x, y, n)` and `copy_to_host` make, then
/// the frees (stream-ordered allocation where the device has memory pools).
///
/// # Safety
/// `saxpy` is a live `saxpy(float, const float*, float*, unsigned)` of the current context and
/// `stream` a live stream of it.
///
/// # Errors
/// The first failing call's code.
#[allow(dead_code)] // each benchmark uses part of this module
pub unsafe fn raw_round_trip(
    pools: bool,
    stream: CUstream,
    saxpy: CUfunction,
    hx: &[f32],
    hy: &[f32],
    out: &mut [f32],
) -> Result<(), CUresult> {
    let ok = |r: CUresult| r.result().map_err(|e| e.0);
    let bytes = std::mem::size_of_val(hx);
    let (mut x, mut y): (CUdeviceptr, CUdeviceptr) = (0, 0);
    // SAFETY: (whole body) the caller's handles; every pointer is to a live local or slice of
    // `bytes` bytes.
    unsafe {
        if pools {
            ok(cuMemAllocAsync(&mut x, bytes, stream))?;
            ok(cuMemAllocAsync(&mut y, bytes, stream))?;
        } else {
            ok(cuMemAlloc(&mut x, bytes))?;
            ok(cuMemAlloc(&mut y, bytes))?;
        }
        ok(cuMemcpyHtoDAsync(x, hx.as_ptr().cast(), bytes, stream))?;
        ok(cuStreamSynchronize(stream))?;
        ok(cuMemcpyHtoDAsync(y, hy.as_ptr().cast(), bytes, stream))?;
        ok(cuStreamSynchronize(stream))?;
        let mut a = 2.0f32;
        let mut n = hx.len() as u32;
        let mut args: [*mut c_void; 4] = [
            (&mut a as *mut f32).cast(),
            (&mut x as *mut CUdeviceptr).cast(),
            (&mut y as *mut CUdeviceptr).cast(),
            (&mut n as *mut u32).cast(),
        ];
        let grid = n.div_ceil(256);
        ok(cuLaunchKernel(
            saxpy,
            grid,
            1,
            1,
            256,
            1,
            1,
            0,
            stream,
            args.as_mut_ptr(),
            null_mut(),
        ))?;
        ok(cuMemcpyDtoHAsync(out.as_mut_ptr().cast(), y, bytes, stream))?;
        ok(cuStreamSynchronize(stream))?;
        if pools {
            ok(cuMemFreeAsync(x, stream))?;
            ok(cuMemFreeAsync(y, stream))?;
        } else {
            ok(cuMemFree(x))?;
            ok(cuMemFree(y))?;
        }
    }
    Ok(())
}
