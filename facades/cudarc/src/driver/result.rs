//! One `Result` per driver call, under cudarc's `result` names: the choke point between
//! [`sys`] codes and the safe layer. Each function calls anycuda's dispatched Driver API.
//!
//! Every `unsafe fn` has the contract of the CUDA function it wraps: handles and pointers valid
//! for what the CUDA documentation says the function reads or writes.

use super::sys;
use core::ffi::{c_char, c_int, c_uchar, c_uint, c_void, CStr};
use std::cell::RefCell;
use std::ffi::CString;
use std::mem::MaybeUninit;

/// A failed driver call: `DriverError(sys::CUresult)`, as in cudarc. It is anycuda's own
/// error type, so `sys::cuXxx(..).result()?` works in functions returning it, exactly as with
/// cudarc. Codes are CUDA's on every backend (HIP codes with no CUDA counterpart arrive as
/// anycuda's invented constants).
///
/// Not re-created: cudarc's `error_name()`/`error_string()` methods (its `Display` shows both).
pub use anycuda::DriverError;

thread_local! {
    /// The reason for the last not-supported error this crate produced on this thread.
    static DETAIL: RefCell<Option<(sys::CUresult, &'static str)>> = const { RefCell::new(None) };
}

/// Returns `DriverError(code)` for an operation this crate refuses on the active backend,
/// recording `why` (see [`not_supported_reason`]) and printing it once per process, because
/// the code alone cannot say what to do instead.
pub(crate) fn refuse(code: sys::CUresult, why: &'static str) -> DriverError {
    static ONCE: std::sync::Once = std::sync::Once::new();
    log::error!("anycuda-cudarc: {why}");
    ONCE.call_once(|| eprintln!("anycuda-cudarc: {why}"));
    DETAIL.with(|d| *d.borrow_mut() = Some((code, why)));
    DriverError(code)
}

/// Why this crate, or the active backend, refused the calling thread's last operation that
/// returned `err`'s code (the way out, e.g. "compile the .cu source with compile_ptx"), if one
/// did. The backend's refusals (PTX or a cubin on an AMD GPU) are the backend's rules; this
/// crate only reads them.
pub fn not_supported_reason(err: &DriverError) -> Option<&'static str> {
    let own = DETAIL.with(|d| match *d.borrow() {
        Some((code, why)) if code == err.0 => Some(why),
        _ => None,
    });
    own.or_else(|| anycuda::not_supported_reason(err.0))
}

/// `Ok(())` for `CUDA_SUCCESS`, else the code as a [`DriverError`].
#[inline(always)]
pub(crate) fn ok(code: sys::CUresult) -> Result<(), DriverError> {
    if code == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(DriverError(code))
    }
}

/// Calls `f` with a pointer to an uninitialised `T`, returning it when the call succeeded.
///
/// # Safety
/// When `f` returns `CUDA_SUCCESS` it has written a valid `T` through the pointer (what every
/// CUDA out-parameter promises for the type it is declared with).
#[inline(always)]
unsafe fn out<T>(f: impl FnOnce(*mut T) -> sys::CUresult) -> Result<T, DriverError> {
    let mut v = MaybeUninit::<T>::uninit();
    ok(f(v.as_mut_ptr()))?;
    // SAFETY: `ok` returned early unless `f` reported CUDA_SUCCESS, and by this fn's contract `f`
    // has then written a valid `T` into `v`.
    Ok(unsafe { v.assume_init() })
}

/// Initialises the driver (`cuInit(0)`).
///
/// # Errors
/// The driver's error, e.g. `CUDA_ERROR_NO_DEVICE`, or `CUDA_ERROR_NOT_INITIALIZED` when no
/// backend could be loaded.
pub fn init() -> Result<(), DriverError> {
    // SAFETY: `cuInit(0)` takes no pointers and the flag 0 is the only one CUDA defines; the
    // dispatcher answers NOT_INITIALIZED when no backend loads.
    ok(unsafe { sys::cuInit(0) })
}

/// Devices (`cuDevice*`).
pub mod device {
    use super::*;

    /// The device handle of an ordinal (`cuDeviceGet`).
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_DEVICE` for an ordinal out of range, or the driver's error.
    pub fn get(ordinal: c_int) -> Result<sys::CUdevice, DriverError> {
        // SAFETY: `out` gives `cuDeviceGet` its own `CUdevice` slot, read only on success; the
        // ordinal is a plain integer the driver range-checks.
        unsafe { out(|p| sys::cuDeviceGet(p, ordinal)) }
    }

    /// The number of devices (`cuDeviceGetCount`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_count() -> Result<c_int, DriverError> {
        // SAFETY: `out` gives `cuDeviceGetCount` its own `c_int` slot, read only on success;
        // nothing else is passed.
        unsafe { out(|p| sys::cuDeviceGetCount(p)) }
    }

    /// Total device memory in bytes (`cuDeviceTotalMem`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn total_mem(dev: sys::CUdevice) -> Result<usize, DriverError> {
        // SAFETY: `out` gives `cuDeviceTotalMem_v2` its own slot of the type it writes, read only
        // on success; `dev` is a live device (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuDeviceTotalMem_v2(p, dev)) }
    }

    /// A device attribute (`cuDeviceGetAttribute`).
    ///
    /// # Errors
    /// The driver's error; on HIP, `CUDA_ERROR_NOT_SUPPORTED` for an attribute HIP cannot answer.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_attribute(
        dev: sys::CUdevice,
        attrib: sys::CUdevice_attribute,
    ) -> Result<i32, DriverError> {
        // SAFETY: `out` gives `cuDeviceGetAttribute` its own slot of the type it writes, read only
        // on success; `dev` is a live device (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuDeviceGetAttribute(p, attrib, dev)) }
    }

    /// The device's name (`cuDeviceGetName`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_name(dev: sys::CUdevice) -> Result<String, DriverError> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` is a local array of `buf.len()` chars, the length passed, so the driver
        // writes inside it; `dev` is a plain ordinal the driver checks.
        ok(unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, dev) })?;
        // The driver NUL-terminates within the length given; make sure regardless.
        buf[255] = 0;
        // SAFETY: `buf[255]` was just set to NUL, so `buf` holds a NUL-terminated string inside its
        // 256 bytes, alive for the borrow.
        let name = unsafe { CStr::from_ptr(buf.as_ptr()) };
        Ok(name.to_string_lossy().into_owned())
    }

    /// The device's UUID (`cuDeviceGetUuid`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_uuid(dev: sys::CUdevice) -> Result<sys::CUuuid, DriverError> {
        // SAFETY: `out` gives `cuDeviceGetUuid` its own `CUuuid` slot, read only on success; `dev`
        // is a plain ordinal the driver checks.
        unsafe { out(|p| sys::cuDeviceGetUuid(p, dev)) }
    }

    /// The device's default memory pool (`cuDeviceGetDefaultMemPool`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_default_mem_pool(
        dev: sys::CUdevice,
    ) -> Result<sys::CUmemoryPool, DriverError> {
        // SAFETY: `out` gives `cuDeviceGetDefaultMemPool` its own slot of the type it writes, read
        // only on success; `dev` is a live device (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuDeviceGetDefaultMemPool(p, dev)) }
    }

    /// The device's current memory pool (`cuDeviceGetMemPool`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_mem_pool(dev: sys::CUdevice) -> Result<sys::CUmemoryPool, DriverError> {
        // SAFETY: `out` gives `cuDeviceGetMemPool` its own slot of the type it writes, read only on
        // success; `dev` is a live device (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuDeviceGetMemPool(p, dev)) }
    }

    /// Sets the device's current memory pool (`cuDeviceSetMemPool`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn set_mem_pool(
        dev: sys::CUdevice,
        pool: sys::CUmemoryPool,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuDeviceSetMemPool`'s: `dev`,
        // `pool` are live handles.
        ok(unsafe { sys::cuDeviceSetMemPool(dev, pool) })
    }
}

/// Kernel functions (`cuFunc*`).
pub mod function {
    use super::*;

    /// A function attribute (`cuFuncGetAttribute`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_function_attribute(
        f: sys::CUfunction,
        attribute: sys::CUfunction_attribute,
    ) -> Result<i32, DriverError> {
        // SAFETY: `out` gives `cuFuncGetAttribute` its own slot of the type it writes, read only on
        // success; `f` is a live function (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuFuncGetAttribute(p, attribute, f)) }
    }

    /// Sets a function attribute (`cuFuncSetAttribute`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn set_function_attribute(
        f: sys::CUfunction,
        attribute: sys::CUfunction_attribute,
        value: i32,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuFuncSetAttribute`'s: `f` is a
        // live function.
        ok(unsafe { sys::cuFuncSetAttribute(f, attribute, value) })
    }

    /// Sets a function's cache preference (`cuFuncSetCacheConfig`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn set_function_cache_config(
        f: sys::CUfunction,
        attribute: sys::CUfunc_cache,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuFuncSetCacheConfig`'s: `f` is
        // a live function.
        ok(unsafe { sys::cuFuncSetCacheConfig(f, attribute) })
    }
}

/// Occupancy queries (`cuOccupancy*`).
pub mod occupancy {
    use super::*;

    /// `cuOccupancyAvailableDynamicSMemPerBlock`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn available_dynamic_shared_mem_per_block(
        f: sys::CUfunction,
        num_blocks: c_int,
        block_size: c_int,
    ) -> Result<usize, DriverError> {
        // SAFETY: `out` gives `cuOccupancyAvailableDynamicSMemPerBlock` its own slot of the type it
        // writes, read only on success; `f` is a live function (the caller's contract, this fn's `#
        // Safety`).
        unsafe {
            out(|p| sys::cuOccupancyAvailableDynamicSMemPerBlock(p, f, num_blocks, block_size))
        }
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn max_active_block_per_multiprocessor(
        f: sys::CUfunction,
        block_size: c_int,
        dynamic_smem_size: usize,
    ) -> Result<i32, DriverError> {
        // SAFETY: `out` gives `cuOccupancyMaxActiveBlocksPerMultiprocessor` its own slot of the
        // type it writes, read only on success; `f` is a live function (the caller's contract, this
        // fn's `# Safety`).
        unsafe {
            out(|p| {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    p,
                    f,
                    block_size,
                    dynamic_smem_size,
                )
            })
        }
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn max_active_block_per_multiprocessor_with_flags(
        f: sys::CUfunction,
        block_size: c_int,
        dynamic_smem_size: usize,
        flags: c_uint,
    ) -> Result<i32, DriverError> {
        // SAFETY: `out` gives `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` its own slot
        // of the type it writes, read only on success; `f` is a live function (the caller's
        // contract, this fn's `# Safety`).
        unsafe {
            out(|p| {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                    p,
                    f,
                    block_size,
                    dynamic_smem_size,
                    flags,
                )
            })
        }
    }

    /// `cuOccupancyMaxPotentialBlockSize`: `(min_grid_size, block_size)`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn max_potential_block_size(
        f: sys::CUfunction,
        block_size_to_dynamic_smem_size: sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
    ) -> Result<(i32, i32), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is the one
        // `max_potential_block_size_with_flags` asks: `f` is a live function and the callback, if
        // any, is sound to call.
        unsafe {
            max_potential_block_size_with_flags(
                f,
                block_size_to_dynamic_smem_size,
                dynamic_smem_size,
                block_size_limit,
                0,
            )
        }
    }

    /// `cuOccupancyMaxPotentialBlockSizeWithFlags`: `(min_grid_size, block_size)`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn max_potential_block_size_with_flags(
        f: sys::CUfunction,
        block_size_to_dynamic_smem_size: sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
        flags: c_uint,
    ) -> Result<(i32, i32), DriverError> {
        let (mut grid, mut block) = (0, 0);
        // SAFETY: `grid` and `block` are locals the driver writes one `c_int` each into; `f` and
        // the callback are the caller's to keep valid (this fn's `# Safety`).
        ok(unsafe {
            sys::cuOccupancyMaxPotentialBlockSizeWithFlags(
                &mut grid,
                &mut block,
                f,
                block_size_to_dynamic_smem_size,
                dynamic_smem_size,
                block_size_limit,
                flags,
            )
        })?;
        Ok((grid, block))
    }
}

/// Primary contexts (`cuDevicePrimaryCtx*`).
pub mod primary_ctx {
    use super::*;

    /// `cuDevicePrimaryCtxRetain`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn retain(dev: sys::CUdevice) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: `out` gives `cuDevicePrimaryCtxRetain` its own slot of the type it writes, read
        // only on success; `dev` is a live device (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuDevicePrimaryCtxRetain(p, dev)) }
    }

    /// `cuDevicePrimaryCtxRelease`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn release(dev: sys::CUdevice) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuDevicePrimaryCtxRelease_v2`'s:
        // `dev` is a live device.
        ok(unsafe { sys::cuDevicePrimaryCtxRelease_v2(dev) })
    }
}

/// Contexts (`cuCtx*`), acting on the calling thread's current context.
pub mod ctx {
    use super::*;

    /// Creates a context (cudarc's name for `cuCtxCreate_v3`; served by `cuCtxCreate` with no
    /// creation parameters, which is what the CUDA 13 driver offers).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn create_v3(
        flags: c_uint,
        dev: sys::CUdevice,
    ) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: a null `ctx_create_params` is what `cuCtxCreate` documents for the plain create;
        // `dev` is the caller's device (this fn's `# Safety`).
        unsafe { create_v4(std::ptr::null_mut(), flags, dev) }
    }

    /// `cuCtxCreate_v4`.
    ///
    /// # Errors
    /// The driver's error; on HIP, non-null `ctx_create_params` is not supported.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn create_v4(
        ctx_create_params: *mut sys::CUctxCreateParams,
        flags: c_uint,
        dev: sys::CUdevice,
    ) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: `out` gives `cuCtxCreate` its own slot of the type it writes, read only on
        // success; `dev` is a live device; `ctx_create_params` is valid for what `cuCtxCreate` does
        // with it (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuCtxCreate(p, ctx_create_params, flags, dev)) }
    }

    /// `cuCtxSetCurrent`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn set_current(ctx: sys::CUcontext) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuCtxSetCurrent`'s: `ctx` is a
        // live context.
        ok(unsafe { sys::cuCtxSetCurrent(ctx) })
    }

    /// `cuCtxGetCurrent`: `None` when no context is current.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_current() -> Result<Option<sys::CUcontext>, DriverError> {
        // SAFETY: `out` gives `cuCtxGetCurrent` its own `CUcontext` slot, read only on success; no
        // other argument.
        let ctx = unsafe { out(|p| sys::cuCtxGetCurrent(p)) }?;
        Ok((!ctx.is_null()).then_some(ctx))
    }

    /// `cuCtxSetFlags`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_flags(flags: sys::CUctx_flags) -> Result<(), DriverError> {
        // SAFETY: `cuCtxSetFlags` takes a flag word by value and applies it to the calling thread's
        // current context, which the driver checks exists.
        ok(unsafe { sys::cuCtxSetFlags(flags.0) })
    }

    /// `cuCtxSynchronize`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn synchronize() -> Result<(), DriverError> {
        // SAFETY: `cuCtxSynchronize` takes no arguments; it waits on the calling thread's current
        // context, which the driver checks exists.
        ok(unsafe { sys::cuCtxSynchronize() })
    }

    /// `cuCtxGetLimit`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_limit(limit: sys::CUlimit) -> Result<usize, DriverError> {
        // SAFETY: `out` gives `cuCtxGetLimit` its own `usize` slot, read only on success; `limit`
        // is a value the driver checks.
        unsafe { out(|p| sys::cuCtxGetLimit(p, limit)) }
    }

    /// `cuCtxSetLimit`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_limit(limit: sys::CUlimit, value: usize) -> Result<(), DriverError> {
        // SAFETY: `cuCtxSetLimit` takes two values, no pointers; the driver rejects an unknown
        // limit.
        ok(unsafe { sys::cuCtxSetLimit(limit, value) })
    }

    /// `cuCtxGetCacheConfig`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_cache_config() -> Result<sys::CUfunc_cache, DriverError> {
        // SAFETY: `out` gives `cuCtxGetCacheConfig` its own slot, read only on success; no other
        // argument.
        unsafe { out(|p| sys::cuCtxGetCacheConfig(p)) }
    }

    /// `cuCtxSetCacheConfig`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn set_cache_config(config: sys::CUfunc_cache) -> Result<(), DriverError> {
        // SAFETY: `cuCtxSetCacheConfig` takes one value, no pointers; the driver rejects an unknown
        // config.
        ok(unsafe { sys::cuCtxSetCacheConfig(config) })
    }
}

/// Streams (`cuStream*`).
pub mod stream {
    use super::*;

    /// How a new stream synchronises with the legacy default stream.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum StreamKind {
        /// `CU_STREAM_DEFAULT`: synchronises with the legacy default stream.
        Default,
        /// `CU_STREAM_NON_BLOCKING`: runs concurrently with the legacy default stream.
        NonBlocking,
    }

    impl StreamKind {
        fn flags(self) -> c_uint {
            match self {
                StreamKind::Default => sys::CUstream_flags::CU_STREAM_DEFAULT.0,
                StreamKind::NonBlocking => sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0,
            }
        }
    }

    /// The legacy default stream (a null handle).
    pub fn null() -> sys::CUstream {
        std::ptr::null_mut()
    }

    /// `cuStreamCreate`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn create(kind: StreamKind) -> Result<sys::CUstream, DriverError> {
        // SAFETY: `out` gives `cuStreamCreate` its own `CUstream` slot, read only on success; the
        // flags are one of the two `StreamKind` values CUDA defines.
        unsafe { out(|p| sys::cuStreamCreate(p, kind.flags())) }
    }

    /// `cuStreamCreateWithPriority`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn create_with_priority(
        kind: StreamKind,
        priority: i32,
    ) -> Result<sys::CUstream, DriverError> {
        // SAFETY: `out` gives `cuStreamCreateWithPriority` its own `CUstream` slot, read only on
        // success; flags and priority are values the driver checks (priorities are clamped).
        unsafe { out(|p| sys::cuStreamCreateWithPriority(p, kind.flags(), priority)) }
    }

    /// `cuCtxGetStreamPriorityRange`: `(least, greatest)`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn get_priority_range() -> Result<(i32, i32), DriverError> {
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: `least` and `greatest` are locals, each writable for the one `c_int` the driver
        // stores.
        ok(unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) })?;
        Ok((least, greatest))
    }

    /// `cuStreamSynchronize`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn synchronize(stream: sys::CUstream) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuStreamSynchronize`'s: `stream`
        // is a live stream.
        ok(unsafe { sys::cuStreamSynchronize(stream) })
    }

    /// `cuStreamDestroy`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn destroy(stream: sys::CUstream) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuStreamDestroy_v2`'s: `stream`
        // is a live stream.
        ok(unsafe { sys::cuStreamDestroy_v2(stream) })
    }

    /// `cuStreamWaitEvent`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn wait_event(
        stream: sys::CUstream,
        event: sys::CUevent,
        flags: sys::CUevent_wait_flags,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuStreamWaitEvent`'s: `stream`,
        // `event` are live handles.
        ok(unsafe { sys::cuStreamWaitEvent(stream, event, flags.0) })
    }

    /// `cuStreamAttachMemAsync`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn attach_mem_async(
        stream: sys::CUstream,
        dptr: sys::CUdeviceptr,
        num_bytes: usize,
        flags: sys::CUmemAttach_flags,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuStreamAttachMemAsync`'s:
        // `stream` is a live stream; `dptr` is valid for what `cuStreamAttachMemAsync` does with
        // it.
        ok(unsafe { sys::cuStreamAttachMemAsync(stream, dptr, num_bytes, flags.0) })
    }

    /// `cuLaunchHostFunc`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn launch_host_function(
        stream: sys::CUstream,
        func: unsafe extern "C" fn(*mut c_void),
        arg: *mut c_void,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`): `stream` is live, and `func` may be
        // called with `arg` on the driver's thread, `arg` staying valid until it runs.
        ok(unsafe { sys::cuLaunchHostFunc(stream, Some(func), arg) })
    }

    /// `cuStreamBeginCapture`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn begin_capture(
        stream: sys::CUstream,
        mode: sys::CUstreamCaptureMode,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuStreamBeginCapture_v2`'s:
        // `stream` is a live stream.
        ok(unsafe { sys::cuStreamBeginCapture_v2(stream, mode) })
    }

    /// `cuStreamEndCapture`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn end_capture(stream: sys::CUstream) -> Result<sys::CUgraph, DriverError> {
        // SAFETY: `out` gives `cuStreamEndCapture` its own slot of the type it writes, read only on
        // success; `stream` is a live stream (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuStreamEndCapture(stream, p)) }
    }

    /// `cuStreamIsCapturing`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn is_capturing(
        stream: sys::CUstream,
    ) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        // SAFETY: `out` gives `cuStreamIsCapturing` its own slot of the type it writes, read only
        // on success; `stream` is a live stream (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuStreamIsCapturing(stream, p)) }
    }
}

/// `cuMemAllocAsync`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn malloc_async(
    stream: sys::CUstream,
    num_bytes: usize,
) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: `out` gives `cuMemAllocAsync` its own slot of the type it writes, read only on
    // success; `stream` is a live stream (the caller's contract, this fn's `# Safety`).
    unsafe { out(|p| sys::cuMemAllocAsync(p, num_bytes, stream)) }
}

/// `cuMemAlloc`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn malloc_sync(num_bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: `out` gives `cuMemAlloc_v2` its own `CUdeviceptr` slot, read only on success; the
    // size is a value; the current context is the caller's to have set (this fn's `# Safety`).
    unsafe { out(|p| sys::cuMemAlloc_v2(p, num_bytes)) }
}

/// `cuMemAllocManaged`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn malloc_managed(
    num_bytes: usize,
    flags: sys::CUmemAttach_flags,
) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: `out` gives `cuMemAllocManaged` its own slot of the type it writes, read only on
    // success; its handles are live (the caller's contract, this fn's `# Safety`).
    unsafe { out(|p| sys::cuMemAllocManaged(p, num_bytes, flags.0)) }
}

/// `cuMemHostAlloc`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn malloc_host(num_bytes: usize, flags: c_uint) -> Result<*mut c_void, DriverError> {
    // SAFETY: `out` gives `cuMemHostAlloc` its own slot of the type it writes, read only on
    // success; its handles are live (the caller's contract, this fn's `# Safety`).
    unsafe { out(|p| sys::cuMemHostAlloc(p, num_bytes, flags)) }
}

/// `cuMemFreeHost`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn free_host(host_ptr: *mut c_void) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemFreeHost`'s: `host_ptr` is
    // valid for what `cuMemFreeHost` does with it.
    ok(unsafe { sys::cuMemFreeHost(host_ptr) })
}

/// `cuMemAdvise`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn mem_advise(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    advice: sys::CUmem_advise,
    location: sys::CUmemLocation,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemAdvise`'s: `dptr` is valid for
    // what `cuMemAdvise` does with it.
    ok(unsafe { sys::cuMemAdvise(dptr, num_bytes, advice, location) })
}

/// `cuMemPrefetchAsync`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn mem_prefetch_async(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    location: sys::CUmemLocation,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemPrefetchAsync`'s: `stream` is a
    // live stream; `dptr` is valid for what `cuMemPrefetchAsync` does with it.
    ok(unsafe { sys::cuMemPrefetchAsync(dptr, num_bytes, location, 0, stream) })
}

/// `cuMemFreeAsync`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn free_async(dptr: sys::CUdeviceptr, stream: sys::CUstream) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemFreeAsync`'s: `stream` is a
    // live stream; `dptr` is valid for what `cuMemFreeAsync` does with it.
    ok(unsafe { sys::cuMemFreeAsync(dptr, stream) })
}

/// `cuMemFree`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn free_sync(dptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemFree_v2`'s: `dptr` is valid for
    // what `cuMemFree_v2` does with it.
    ok(unsafe { sys::cuMemFree_v2(dptr) })
}

/// `cuMemFree` (cudarc's older name).
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memory_free(device_ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `free_sync`'s: `device_ptr` came from
    // the driver's allocator and is no longer used.
    unsafe { free_sync(device_ptr) }
}

/// `cuMemsetD8Async`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memset_d8_async(
    dptr: sys::CUdeviceptr,
    uc: c_uchar,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemsetD8Async`'s: `stream` is a
    // live stream; `dptr` is valid for what `cuMemsetD8Async` does with it.
    ok(unsafe { sys::cuMemsetD8Async(dptr, uc, num_bytes, stream) })
}

/// `cuMemsetD8`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memset_d8_sync(
    dptr: sys::CUdeviceptr,
    uc: c_uchar,
    num_bytes: usize,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemsetD8_v2`'s: `dptr` is valid
    // for what `cuMemsetD8_v2` does with it.
    ok(unsafe { sys::cuMemsetD8_v2(dptr, uc, num_bytes) })
}

/// `cuMemcpyHtoDAsync` of all of `src`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_htod_async<T>(
    dst: sys::CUdeviceptr,
    src: &[T],
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: `src` is a live slice, readable for `size_of_val(src)` bytes, the count passed; the
    // caller keeps it alive until `stream` reaches the copy, and `dst` holds that many bytes (this
    // fn's `# Safety`).
    ok(unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr().cast(), size_of_val(src), stream) })
}

/// `cuMemcpyHtoD` of all of `src`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_htod_sync<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), DriverError> {
    // SAFETY: `src` is a live slice, readable for `size_of_val(src)` bytes, the count passed, and
    // the copy is synchronous; `dst` holds that many bytes (this fn's `# Safety`).
    ok(unsafe { sys::cuMemcpyHtoD_v2(dst, src.as_ptr().cast(), size_of_val(src)) })
}

/// `cuMemcpyDtoHAsync` filling all of `dst`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_dtoh_async<T>(
    dst: &mut [T],
    src: sys::CUdeviceptr,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    let n = size_of_val(dst);
    // SAFETY: `dst` is a live mutable slice, writable for `n = size_of_val(dst)` bytes, the count
    // passed; the caller keeps it alive and unread until `stream` reaches the copy, and `src` holds
    // `n` bytes (this fn's `# Safety`).
    ok(unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), src, n, stream) })
}

/// `cuMemcpyDtoH` filling all of `dst`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_dtoh_sync<T>(dst: &mut [T], src: sys::CUdeviceptr) -> Result<(), DriverError> {
    let n = size_of_val(dst);
    // SAFETY: `dst` is a live mutable slice, writable for `n = size_of_val(dst)` bytes, the count
    // passed, and the copy is synchronous; `src` holds `n` bytes (this fn's `# Safety`).
    ok(unsafe { sys::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast(), src, n) })
}

/// `cuMemcpyDtoDAsync`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_dtod_async(
    dst: sys::CUdeviceptr,
    src: sys::CUdeviceptr,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemcpyDtoDAsync_v2`'s: `stream` is
    // a live stream; `dst`, `src` are valid for the bytes `cuMemcpyDtoDAsync_v2` touches.
    ok(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, num_bytes, stream) })
}

/// `cuMemcpyDtoD`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_dtod_sync(
    dst: sys::CUdeviceptr,
    src: sys::CUdeviceptr,
    num_bytes: usize,
) -> Result<(), DriverError> {
    // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemcpyDtoD_v2`'s: `dst`, `src` are
    // valid for the bytes `cuMemcpyDtoD_v2` touches.
    ok(unsafe { sys::cuMemcpyDtoD_v2(dst, src, num_bytes) })
}

/// `cuMemcpyPeerAsync`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn memcpy_peer_async(
    dst_ctx: sys::CUcontext,
    dst: sys::CUdeviceptr,
    src_ctx: sys::CUcontext,
    src: sys::CUdeviceptr,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: the caller promises live contexts and `num_bytes` of device memory at `src` and `dst`
    // in them, and a live `stream` (this fn's `# Safety`).
    ok(unsafe { sys::cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, num_bytes, stream) })
}

/// `cuMemGetInfo`: `(free, total)` bytes of the current context's device.
///
/// # Errors
/// The driver's error.
pub fn mem_get_info() -> Result<(usize, usize), DriverError> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: `free` and `total` are locals, each writable for the one `usize` the driver stores.
    ok(unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) })?;
    Ok((free, total))
}

/// Modules (`cuModule*`).
pub mod module {
    use super::*;

    /// `cuModuleLoad` of a file.
    ///
    /// # Errors
    /// The driver's error; on an AMD GPU, `CUDA_ERROR_NOT_SUPPORTED` for a PTX or cubin file,
    /// with the way out in [`not_supported_reason`] (the HIP backend's rule).
    pub fn load(fname: CString) -> Result<sys::CUmodule, DriverError> {
        // SAFETY: `out` gives `cuModuleLoad` its own `CUmodule` slot, read only on success; `fname`
        // is an owned NUL-terminated path alive for the call.
        unsafe { out(|p| sys::cuModuleLoad(p, fname.as_ptr())) }
    }

    /// `cuModuleLoadData`.
    ///
    /// # Errors
    /// The driver's error; on an AMD GPU, `CUDA_ERROR_NOT_SUPPORTED` for PTX text or an NVIDIA
    /// cubin, with the way out in [`not_supported_reason`] (the HIP backend's rule).
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn load_data(image: *const c_void) -> Result<sys::CUmodule, DriverError> {
        // SAFETY: `out` gives `cuModuleLoadData` its own `CUmodule` slot, read only on success;
        // `image` points to a complete image the driver may read (this fn's `# Safety`).
        unsafe { out(|p| sys::cuModuleLoadData(p, image)) }
    }

    /// `cuModuleGetFunction`.
    ///
    /// # Errors
    /// The driver's error (`CUDA_ERROR_NOT_FOUND` for an unknown name).
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_function(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<sys::CUfunction, DriverError> {
        // SAFETY: `out` gives `cuModuleGetFunction` its own slot, read only on success; `name` is
        // an owned C string alive for the call; `module` is live by this fn's `# Safety`.
        unsafe { out(|p| sys::cuModuleGetFunction(p, module, name.as_ptr())) }
    }

    /// `cuModuleGetGlobal`: `(pointer, size in bytes)`.
    ///
    /// # Errors
    /// The driver's error (`CUDA_ERROR_NOT_FOUND` for an unknown name).
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_global(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<(sys::CUdeviceptr, usize), DriverError> {
        let (mut ptr, mut bytes) = (0, 0);
        // SAFETY: `ptr` and `bytes` are locals the driver writes one value each into; `name` is an
        // owned C string alive for the call; `module` is live by this fn's `# Safety`.
        ok(unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, module, name.as_ptr()) })?;
        Ok((ptr, bytes))
    }

    /// `cuModuleUnload`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn unload(module: sys::CUmodule) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuModuleUnload`'s: `module` is a
        // live module.
        ok(unsafe { sys::cuModuleUnload(module) })
    }
}

/// Events (`cuEvent*`).
pub mod event {
    use super::*;

    /// `cuEventCreate`.
    ///
    /// # Errors
    /// The driver's error.
    pub fn create(flags: sys::CUevent_flags) -> Result<sys::CUevent, DriverError> {
        // SAFETY: `out` gives `cuEventCreate` its own `CUevent` slot, read only on success; the
        // flags are a value the driver checks.
        unsafe { out(|p| sys::cuEventCreate(p, flags.0)) }
    }

    /// `cuEventRecord`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn record(event: sys::CUevent, stream: sys::CUstream) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuEventRecord`'s: `event`,
        // `stream` are live handles.
        ok(unsafe { sys::cuEventRecord(event, stream) })
    }

    /// `cuEventElapsedTime` in milliseconds.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn elapsed(start: sys::CUevent, end: sys::CUevent) -> Result<f32, DriverError> {
        // SAFETY: `out` gives `cuEventElapsedTime` its own slot of the type it writes, read only on
        // success; `start`, `end` are live handles (the caller's contract, this fn's `# Safety`).
        unsafe { out(|p| sys::cuEventElapsedTime(p, start, end)) }
    }

    /// `cuEventQuery`: `Err(CUDA_ERROR_NOT_READY)` while pending.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn query(event: sys::CUevent) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuEventQuery`'s: `event` is a
        // live event.
        ok(unsafe { sys::cuEventQuery(event) })
    }

    /// `cuEventSynchronize`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn synchronize(event: sys::CUevent) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuEventSynchronize`'s: `event`
        // is a live event.
        ok(unsafe { sys::cuEventSynchronize(event) })
    }

    /// `cuEventDestroy`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn destroy(event: sys::CUevent) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuEventDestroy_v2`'s: `event` is
        // a live event.
        ok(unsafe { sys::cuEventDestroy_v2(event) })
    }
}

/// `cuLaunchKernel` with `kernel_params` (one pointer per kernel argument).
///
/// # Errors
/// The driver's error.
#[inline(always)]
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn launch_kernel(
    f: sys::CUfunction,
    grid_dim: (c_uint, c_uint, c_uint),
    block_dim: (c_uint, c_uint, c_uint),
    shared_mem_bytes: c_uint,
    stream: sys::CUstream,
    kernel_params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: `kernel_params` holds one pointer per kernel parameter, each to a live value of that
    // parameter's type, and `f`, `stream` are live: the caller's contract (this fn's `# Safety`),
    // as is what the kernel does.
    ok(unsafe {
        sys::cuLaunchKernel(
            f,
            grid_dim.0,
            grid_dim.1,
            grid_dim.2,
            block_dim.0,
            block_dim.1,
            block_dim.2,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    })
}

/// `cuLaunchCooperativeKernel`.
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
pub unsafe fn launch_cooperative_kernel(
    f: sys::CUfunction,
    grid_dim: (c_uint, c_uint, c_uint),
    block_dim: (c_uint, c_uint, c_uint),
    shared_mem_bytes: c_uint,
    stream: sys::CUstream,
    kernel_params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: as for `launch_kernel`: `kernel_params` points to one live value per parameter and
    // `f`, `stream` are live (this fn's `# Safety`); the grid must also fit co-resident, which the
    // driver checks.
    ok(unsafe {
        sys::cuLaunchCooperativeKernel(
            f,
            grid_dim.0,
            grid_dim.1,
            grid_dim.2,
            block_dim.0,
            block_dim.1,
            block_dim.2,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
        )
    })
}

/// External memory (`cuImportExternalMemory`, ...).
pub mod external_memory {
    use super::*;

    /// Imports an opaque file descriptor (`CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`).
    ///
    /// # Errors
    /// The driver's error.
    #[cfg(unix)]
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn import_external_memory_opaque_fd(
        fd: std::os::fd::RawFd,
        size: u64,
    ) -> Result<sys::CUexternalMemory, DriverError> {
        // SAFETY: `CUDA_EXTERNAL_MEMORY_HANDLE_DESC` is a plain C struct (integers, a union of an
        // fd and pointers) for which all-zero bytes are a valid value.
        let mut desc: sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC = unsafe { std::mem::zeroed() };
        desc.type_ = sys::CUexternalMemoryHandleType::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
        desc.handle.fd = fd;
        desc.size = size;
        // SAFETY: `out` gives `cuImportExternalMemory` its own slot, read only on success; `desc`
        // is a local, fully initialised descriptor; the fd is the caller's (this fn's `# Safety`).
        unsafe { out(|p| sys::cuImportExternalMemory(p, &desc)) }
    }

    /// `cuDestroyExternalMemory`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn destroy_external_memory(
        external_memory: sys::CUexternalMemory,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuDestroyExternalMemory`'s:
        // `external_memory` is a live external memory.
        ok(unsafe { sys::cuDestroyExternalMemory(external_memory) })
    }

    /// `cuExternalMemoryGetMappedBuffer`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_mapped_buffer(
        external_memory: sys::CUexternalMemory,
        offset: u64,
        size: u64,
    ) -> Result<sys::CUdeviceptr, DriverError> {
        // SAFETY: `CUDA_EXTERNAL_MEMORY_BUFFER_DESC` is a plain C struct of integers for which
        // all-zero bytes are a valid value.
        let mut desc: sys::CUDA_EXTERNAL_MEMORY_BUFFER_DESC = unsafe { std::mem::zeroed() };
        desc.offset = offset;
        desc.size = size;
        // SAFETY: `out` gives `cuExternalMemoryGetMappedBuffer` its own slot, read only on success;
        // `desc` is a local, initialised descriptor; `external_memory` is live by this fn's `#
        // Safety`.
        unsafe { out(|p| sys::cuExternalMemoryGetMappedBuffer(p, external_memory, &desc)) }
    }
}

/// Graphs (`cuGraph*`).
pub mod graph {
    use super::*;

    /// `cuGraphInstantiateWithFlags`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn instantiate(
        graph: sys::CUgraph,
        flags: sys::CUgraphInstantiate_flags,
    ) -> Result<sys::CUgraphExec, DriverError> {
        // SAFETY: `out` gives `cuGraphInstantiateWithFlags` its own slot of the type it writes,
        // read only on success; `graph` is a live graph (the caller's contract, this fn's `#
        // Safety`).
        unsafe { out(|p| sys::cuGraphInstantiateWithFlags(p, graph, flags.0 as _)) }
    }

    /// `cuGraphExecDestroy`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn exec_destroy(graph_exec: sys::CUgraphExec) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuGraphExecDestroy`'s:
        // `graph_exec` is a live executable graph.
        ok(unsafe { sys::cuGraphExecDestroy(graph_exec) })
    }

    /// `cuGraphDestroy`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn destroy(graph: sys::CUgraph) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuGraphDestroy`'s: `graph` is a
        // live graph.
        ok(unsafe { sys::cuGraphDestroy(graph) })
    }

    /// `cuGraphLaunch`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn launch(
        graph_exec: sys::CUgraphExec,
        stream: sys::CUstream,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuGraphLaunch`'s: `graph_exec`,
        // `stream` are live handles.
        ok(unsafe { sys::cuGraphLaunch(graph_exec, stream) })
    }

    /// `cuGraphUpload`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn upload(
        graph_exec: sys::CUgraphExec,
        stream: sys::CUstream,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuGraphUpload`'s: `graph_exec`,
        // `stream` are live handles.
        ok(unsafe { sys::cuGraphUpload(graph_exec, stream) })
    }
}

/// Memory pools (`cuMemPool*`).
pub mod mem_pool {
    use super::*;

    /// `cuMemPoolCreate`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn create(
        pool_props: *const sys::CUmemPoolProps,
    ) -> Result<sys::CUmemoryPool, DriverError> {
        // SAFETY: `out` gives `cuMemPoolCreate` its own `CUmemoryPool` slot, read only on success;
        // `pool_props` points to valid pool properties (this fn's `# Safety`).
        unsafe { out(|p| sys::cuMemPoolCreate(p, pool_props)) }
    }

    /// `cuMemPoolDestroy`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn destroy(pool: sys::CUmemoryPool) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemPoolDestroy`'s: `pool` is a
        // live pool.
        ok(unsafe { sys::cuMemPoolDestroy(pool) })
    }

    /// `cuMemPoolTrimTo`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn trim_to(
        pool: sys::CUmemoryPool,
        min_bytes_to_keep: usize,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract (this fn's `# Safety`) is `cuMemPoolTrimTo`'s: `pool` is a
        // live pool.
        ok(unsafe { sys::cuMemPoolTrimTo(pool, min_bytes_to_keep) })
    }

    /// `cuMemPoolGetAttribute`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn get_attribute(
        pool: sys::CUmemoryPool,
        attr: sys::CUmemPool_attribute,
        value: *mut c_void,
    ) -> Result<(), DriverError> {
        // SAFETY: `value` points to storage of the type `attr` reads or writes and `pool` is live:
        // the caller's contract (this fn's `# Safety`).
        ok(unsafe { sys::cuMemPoolGetAttribute(pool, attr, value) })
    }

    /// `cuMemPoolSetAttribute`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn set_attribute(
        pool: sys::CUmemoryPool,
        attr: sys::CUmemPool_attribute,
        value: *mut c_void,
    ) -> Result<(), DriverError> {
        // SAFETY: `value` points to a value of the type `attr` expects and `pool` is live: the
        // caller's contract (this fn's `# Safety`).
        ok(unsafe { sys::cuMemPoolSetAttribute(pool, attr, value) })
    }

    /// `cuMemAllocFromPoolAsync`.
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    pub unsafe fn alloc_async(
        pool: sys::CUmemoryPool,
        num_bytes: usize,
        stream: sys::CUstream,
    ) -> Result<sys::CUdeviceptr, DriverError> {
        // SAFETY: `out` gives `cuMemAllocFromPoolAsync` its own slot of the type it writes, read
        // only on success; `pool`, `stream` are live handles (the caller's contract, this fn's `#
        // Safety`).
        unsafe { out(|p| sys::cuMemAllocFromPoolAsync(p, num_bytes, pool, stream)) }
    }
}
