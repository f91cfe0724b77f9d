//! 2D memsets. `cuMemsetD2D8*` maps onto `hipMemset2D*` (a byte pattern), present in every HIP
//! version; the 16- and 32-bit forms use HIP's own 2D calls where the library has them (HIP 7.1+)
//! and otherwise set the rows one by one with `hipMemsetD16*`/`hipMemsetD32*`, which is what a 2D
//! memset of a pitched allocation is.

use super::support::{hip_fn, table};
use crate::conv::{devptr_to_hip, stream_to_hip};
use crate::HipBackend;
use anycuda_api::driver::{CUdeviceptr, CUresult, CUstream};
use core::ffi::{c_uchar, c_uint, c_ushort};

/// CUDA's checks: the pitch holds a row of `width` elements of `elem` bytes, and the last row's
/// end is addressable. Returns each row's start, or the error.
fn rows(
    dst: CUdeviceptr,
    pitch: usize,
    width: usize,
    height: usize,
    elem: usize,
) -> Result<impl Iterator<Item = CUdeviceptr>, CUresult> {
    let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
    let row_bytes = width.checked_mul(elem).ok_or(invalid)?;
    if height > 1 && pitch < row_bytes {
        return Err(invalid);
    }
    let span = (pitch as u64)
        .checked_mul(height.saturating_sub(1) as u64)
        .ok_or(invalid)?;
    dst.checked_add(span).ok_or(invalid)?;
    Ok((0..height as u64).map(move |r| dst + r * pitch as u64))
}

/// `cuMemsetD2D8` → `hipMemset2D` (the byte pattern as HIP's `int` value).
pub(crate) unsafe fn cuMemsetD2D8(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstPitch: usize,
    uc: c_uchar,
    Width: usize,
    Height: usize,
) -> CUresult {
    let set = hip_fn!(b, hipMemset2D);
    if let Err(e) = rows(dstDevice, dstPitch, Width, Height, 1) {
        return e;
    }
    // SAFETY: device memory described by the caller (CUDA's contract); bounds checked above.
    b.cu(unsafe { set(devptr_to_hip(dstDevice), dstPitch, uc.into(), Width, Height) })
}

/// `cuMemsetD2D8Async` → `hipMemset2DAsync` on the translated stream.
pub(crate) unsafe fn cuMemsetD2D8Async(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstPitch: usize,
    uc: c_uchar,
    Width: usize,
    Height: usize,
    hStream: CUstream,
) -> CUresult {
    let set = hip_fn!(b, hipMemset2DAsync);
    if let Err(e) = rows(dstDevice, dstPitch, Width, Height, 1) {
        return e;
    }
    let s = stream_to_hip(b.platform(), hStream.cast()).cast();
    // SAFETY: as above; the stream handle is the caller's.
    b.cu(unsafe {
        set(
            devptr_to_hip(dstDevice),
            dstPitch,
            uc.into(),
            Width,
            Height,
            s,
        )
    })
}

/// Generates a 16/32-bit 2D memset: HIP's 2D entry point if present, else one 1D memset per row
/// (`$one_ty`: the 1D call's value type; the bit pattern is passed unchanged).
macro_rules! memset_2d_wide {
    ($name:ident, $async_name:ident, $ty:ty, $two_d:ident, $two_d_async:ident, $one_d:ident, $one_d_async:ident, $one_ty:ty) => {
        #[doc = concat!("`", stringify!($name), "` → `", stringify!($two_d), "` (HIP 7.1+), else `", stringify!($one_d), "` per row.")]
        pub(crate) unsafe fn $name(
            b: &HipBackend,
            dstDevice: CUdeviceptr,
            dstPitch: usize,
            value: $ty,
            Width: usize,
            Height: usize,
        ) -> CUresult {
            let rows = match rows(dstDevice, dstPitch, Width, Height, core::mem::size_of::<$ty>()) {
                Ok(r) => r,
                Err(e) => return e,
            };
            if let Some(f) = table::<CUresult>(b).ok().and_then(|t| t.$two_d) {
                // SAFETY: device memory described by the caller; bounds checked above.
                return b.cu(unsafe { f(devptr_to_hip(dstDevice), dstPitch, value, Width, Height) });
            }
            let f = hip_fn!(b, $one_d);
            for row in rows {
                // SAFETY: each row lies within the checked range.
                let r = b.cu(unsafe { f(devptr_to_hip(row), <$one_ty>::from_ne_bytes(value.to_ne_bytes()), Width) });
                if r != CUresult::CUDA_SUCCESS {
                    return r;
                }
            }
            CUresult::CUDA_SUCCESS
        }

        #[doc = concat!("`", stringify!($async_name), "` → `", stringify!($two_d_async), "` (HIP 7.1+), else `", stringify!($one_d_async), "` per row, in stream order.")]
        pub(crate) unsafe fn $async_name(
            b: &HipBackend,
            dstDevice: CUdeviceptr,
            dstPitch: usize,
            value: $ty,
            Width: usize,
            Height: usize,
            hStream: CUstream,
        ) -> CUresult {
            let rows = match rows(dstDevice, dstPitch, Width, Height, core::mem::size_of::<$ty>()) {
                Ok(r) => r,
                Err(e) => return e,
            };
            let s = stream_to_hip(b.platform(), hStream.cast()).cast();
            if let Some(f) = table::<CUresult>(b).ok().and_then(|t| t.$two_d_async) {
                // SAFETY: as above; the stream handle is the caller's.
                return b.cu(unsafe { f(devptr_to_hip(dstDevice), dstPitch, value, Width, Height, s) });
            }
            let f = hip_fn!(b, $one_d_async);
            for row in rows {
                // SAFETY: each row lies within the checked range; stream order keeps them in order.
                let r = b.cu(unsafe { f(devptr_to_hip(row), <$one_ty>::from_ne_bytes(value.to_ne_bytes()), Width, s) });
                if r != CUresult::CUDA_SUCCESS {
                    return r;
                }
            }
            CUresult::CUDA_SUCCESS
        }
    };
}

memset_2d_wide!(
    cuMemsetD2D16,
    cuMemsetD2D16Async,
    c_ushort,
    hipMemsetD2D16,
    hipMemsetD2D16Async,
    hipMemsetD16,
    hipMemsetD16Async,
    c_ushort
);
memset_2d_wide!(
    cuMemsetD2D32,
    cuMemsetD2D32Async,
    c_uint,
    hipMemsetD2D32,
    hipMemsetD2D32Async,
    hipMemsetD32,
    hipMemsetD32Async,
    core::ffi::c_int // HIP takes the 32-bit pattern as an int
);

#[cfg(test)]
mod tests {
    use super::rows;
    use anycuda_api::driver::CUresult;

    #[test]
    fn rows_follow_the_pitch_and_refuse_bad_shapes() {
        let r: Vec<u64> = rows(0x1000, 256, 60, 3, 4).unwrap().collect();
        assert_eq!(r, [0x1000, 0x1100, 0x1200]);
        assert_eq!(
            rows(0x1000, 100, 60, 2, 2).err(),
            Some(CUresult::CUDA_ERROR_INVALID_VALUE)
        );
        assert_eq!(
            rows(u64::MAX - 10, 256, 1, 2, 1).err(),
            Some(CUresult::CUDA_ERROR_INVALID_VALUE)
        );
        assert_eq!(
            rows(0x1000, 16, usize::MAX, 1, 4).err(),
            Some(CUresult::CUDA_ERROR_INVALID_VALUE)
        );
        assert_eq!(
            rows(0x1000, 8, 64, 1, 1).unwrap().count(),
            1,
            "one row needs no pitch"
        );
        assert_eq!(rows(0x1000, 8, 4, 0, 1).unwrap().count(), 0);
    }
}
