//! One `Result` per driver call, under cudarc's `result` names: the choke point between
//! [`sys`] codes and the safe layer. Each function calls anycuda's dispatched Driver API.
//!
//! The pure one-call wrappers (one call, one out-parameter or none, cudarc's argument order)
//! are generated from the driver catalogue (`driver/generated/result.rs`, spec in
//! `codegen/src/emit_cudarc.rs`) and re-exported here, module by module. What stays in this
//! file has a rule of its own, said beside each: two out-parameters, a string buffer, a slice's
//! length, a descriptor built from the arguments, an `Option` for a null handle.
//!
//! Every `unsafe fn` has the contract of the CUDA function it wraps: handles and pointers valid
//! for what the CUDA documentation says the function reads or writes.

use super::sys;
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
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

pub use super::generated::result::*;

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
pub(crate) unsafe fn out<T>(f: impl FnOnce(*mut T) -> sys::CUresult) -> Result<T, DriverError> {
    let mut v = MaybeUninit::<T>::uninit();
    ok(f(v.as_mut_ptr()))?;
    // SAFETY: `ok` returned early unless `f` reported CUDA_SUCCESS, and by this fn's contract `f`
    // has then written a valid `T` into `v`.
    Ok(unsafe { v.assume_init() })
}

/// Devices (`cuDevice*`).
pub mod device {
    use super::*;
    pub use crate::driver::generated::result::device::*;

    // Hand-written: a fixed buffer read back as a `String`.
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
}

/// Occupancy queries (`cuOccupancy*`).
pub mod occupancy {
    use super::*;
    pub use crate::driver::generated::result::occupancy::*;

    // Hand-written: cudarc's flag-less form of the next one, which it calls with flags 0.
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

    // Hand-written: two out-parameters, returned as a tuple.
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

/// Contexts (`cuCtx*`), acting on the calling thread's current context.
pub mod ctx {
    use super::*;
    pub use crate::driver::generated::result::ctx::*;

    // Hand-written: cudarc's older name, served by `create_v4` with no creation parameters.
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

    // Hand-written: a null context becomes `None`.
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
}

/// Streams (`cuStream*`).
pub mod stream {
    use super::*;
    pub use crate::driver::generated::result::stream::*;

    /// How a new stream synchronises with the legacy default stream.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum StreamKind {
        /// `CU_STREAM_DEFAULT`: synchronises with the legacy default stream.
        Default,
        /// `CU_STREAM_NON_BLOCKING`: runs concurrently with the legacy default stream.
        NonBlocking,
    }

    impl StreamKind {
        pub(crate) fn flags(self) -> c_uint {
            match self {
                StreamKind::Default => sys::CUstream_flags::CU_STREAM_DEFAULT.0,
                StreamKind::NonBlocking => sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0,
            }
        }
    }

    // Hand-written: no driver call: the legacy stream is the null handle.
    /// The legacy default stream (a null handle).
    pub fn null() -> sys::CUstream {
        std::ptr::null_mut()
    }

    // Hand-written: two out-parameters, returned as a tuple.
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
}

// Hand-written: generic over `T`: the byte count is the slice's.
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

// Hand-written: generic over `T`: the byte count is the slice's.
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

// Hand-written: generic over `T`: the byte count is the slice's.
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

// Hand-written: generic over `T`: the byte count is the slice's.
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

// Hand-written: two out-parameters, returned as a tuple.
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
    pub use crate::driver::generated::result::module::*;

    // Hand-written: two out-parameters, returned as a tuple.
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
}

// Hand-written: the launch path: tuples spread into nine arguments, inlined.
/// `cuLaunchKernel` with `kernel_params` (one pointer per kernel argument).
///
/// # Errors
/// The driver's error.
///
/// # Safety
/// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
#[inline(always)]
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

// Hand-written: tuples spread into the C arguments, as `launch_kernel`.
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
    pub use crate::driver::generated::result::external_memory::*;

    // Hand-written: a descriptor built from the arguments.
    /// Imports an opaque file descriptor (`CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// The CUDA contract of the wrapped call: live handles, and pointers valid for what it reads and writes.
    #[cfg(unix)]
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

    // Hand-written: a descriptor built from the arguments.
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
