//! Argument classes a vendor library crashes on, refused with CUDA's code before any library
//! sees them. The C ABI's differential fuzzer (ci/fuzz-capi) found NVIDIA's driver 580 crashing on
//! each of these with inputs that are plainly invalid by class (a zero length, a NULL out-pointer,
//! an enum value outside the enum, an option count with no option arrays), where the rest of the
//! driver answers `CUDA_ERROR_INVALID_VALUE`; anycuda never crashes where it can answer, so both
//! backends ask these first. Each returns `Some(code)` to refuse, `None` to go on.

use crate::driver::{CUfunction_attribute, CUresult};
use core::ffi::{c_char, c_int, c_uint};

const INVALID: Option<CUresult> = Some(CUresult::CUDA_ERROR_INVALID_VALUE);

/// `cuDeviceGetName`: a NULL buffer or a length below 1 (NVIDIA's driver crashed on length 0).
pub fn device_get_name(name: *mut c_char, len: c_int) -> Option<CUresult> {
    if name.is_null() || len < 1 {
        INVALID
    } else {
        None
    }
}

/// `cuDeviceGetName` through `call` (the vendor's function, given a buffer and its length): a
/// refused buffer ([`device_get_name`]) is never passed. A NULL buffer is
/// `CUDA_ERROR_INVALID_VALUE` at once; for a length below 1 the device is still asked first, with
/// a two-byte buffer of anycuda's, so a bad ordinal (or no initialised driver, or no device) gets
/// the vendor's own code (`CUDA_ERROR_INVALID_DEVICE` from NVIDIA's driver), and anything else
/// `CUDA_ERROR_INVALID_VALUE`: NVIDIA's order, as the C ABI's differential fuzzer saw it.
pub fn device_get_name_with(
    name: *mut c_char,
    len: c_int,
    call: impl FnOnce(*mut c_char, c_int) -> CUresult,
) -> CUresult {
    if device_get_name(name, len).is_none() {
        return call(name, len);
    }
    // NVIDIA's driver refuses a NULL buffer before it looks at the device (the fuzzer again).
    if name.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let mut scratch: [c_char; 2] = [0; 2];
    match call(scratch.as_mut_ptr(), scratch.len() as c_int) {
        e @ (CUresult::CUDA_ERROR_INVALID_DEVICE
        | CUresult::CUDA_ERROR_NOT_INITIALIZED
        | CUresult::CUDA_ERROR_DEINITIALIZED
        | CUresult::CUDA_ERROR_NO_DEVICE) => e,
        _ => CUresult::CUDA_ERROR_INVALID_VALUE,
    }
}

/// `cuFuncSetAttribute`: an attribute outside `CUfunction_attribute` (NVIDIA's driver crashed on
/// `INT_MIN`, `-1` and `INT_MAX`).
pub fn func_attribute(attr: CUfunction_attribute) -> Option<CUresult> {
    if (0..CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX.0).contains(&attr.0) {
        None
    } else {
        INVALID
    }
}

/// A pointer the function must read or write (`cuMemPoolSetAttribute`'s value,
/// `cuModuleGetLoadingMode`'s mode: NVIDIA's driver crashed on NULL).
pub fn non_null<T>(p: *const T) -> Option<CUresult> {
    if p.is_null() {
        INVALID
    } else {
        None
    }
}

/// An option list: a positive count with a NULL key or value array (`cuLibraryLoadData`'s JIT
/// and library options: NVIDIA's driver crashed on a count of 1 with NULL arrays).
pub fn options<K, V>(count: c_uint, keys: *const K, values: *const V) -> Option<CUresult> {
    if count > 0 && (keys.is_null() || values.is_null()) {
        INVALID
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_is_refused_and_valid_input_passes() {
        let mut buf = [0 as c_char; 8];
        assert_eq!(device_get_name(buf.as_mut_ptr(), 0), INVALID);
        assert_eq!(device_get_name(core::ptr::null_mut(), 8), INVALID);
        assert_eq!(device_get_name(buf.as_mut_ptr(), 8), None);
        // INT_MIN, -1 and INT_MAX as the C caller's unsigned enum value, and the MAX marker.
        let max = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX.0;
        for bad in [i32::MIN as u32, u32::MAX, max, i32::MAX as u32] {
            assert_eq!(func_attribute(CUfunction_attribute(bad)), INVALID, "{bad}");
        }
        assert_eq!(
            func_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
            None
        );
        assert_eq!(non_null(core::ptr::null::<u8>()), INVALID);
        assert_eq!(non_null(&0u8), None);
        let (k, v) = (0u32, 0u64);
        assert_eq!(options(1, core::ptr::null::<u32>(), &v), INVALID);
        assert_eq!(options(1, &k, core::ptr::null::<u64>()), INVALID);
        assert_eq!(
            options(0, core::ptr::null::<u32>(), core::ptr::null::<u64>()),
            None
        );
        assert_eq!(options(1, &k, &v), None);
    }

    #[test]
    fn a_refused_name_buffer_is_never_passed_and_the_device_is_judged_first() {
        let mut buf: [c_char; 8] = [0; 8];
        let caller = buf.as_mut_ptr();
        // A good buffer goes through as it is.
        let r = device_get_name_with(caller, 8, |p, n| {
            assert_eq!((p, n), (caller, 8));
            CUresult::CUDA_SUCCESS
        });
        assert_eq!(r, CUresult::CUDA_SUCCESS);
        // A NULL buffer: invalid at once, the device not asked.
        let r = device_get_name_with(core::ptr::null_mut(), 8, |_, _| {
            panic!("a NULL buffer is refused before the device is asked")
        });
        assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE);
        for (p, n) in [(caller, 0), (caller, -1)] {
            // The device is good: the buffer is the error.
            let r = device_get_name_with(p, n, |q, m| {
                assert!(
                    q != caller && !q.is_null() && m >= 1,
                    "anycuda's own buffer"
                );
                CUresult::CUDA_SUCCESS
            });
            assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE);
            // The device is bad: its code wins; any other answer leaves the buffer's.
            let r = device_get_name_with(p, n, |_, _| CUresult::CUDA_ERROR_INVALID_DEVICE);
            assert_eq!(r, CUresult::CUDA_ERROR_INVALID_DEVICE);
            let r = device_get_name_with(p, n, |_, _| CUresult::CUDA_ERROR_NOT_SUPPORTED);
            assert_eq!(r, CUresult::CUDA_ERROR_INVALID_VALUE);
        }
    }
}
