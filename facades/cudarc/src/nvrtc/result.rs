//! One `Result` per NVRTC call, under cudarc's `result` names.

use super::sys;
use core::ffi::{c_char, c_int, CStr};
use std::ffi::CString;

/// A failed NVRTC call: `NvrtcError(sys::nvrtcResult)`, as in cudarc. It is anycuda's own
/// error type, so `sys::nvrtcXxx(..).result()?` works in functions returning it.
pub use anycuda::NvrtcError;

#[inline]
fn ok(code: sys::nvrtcResult) -> Result<(), NvrtcError> {
    if code == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(NvrtcError(code))
    }
}

/// `nvrtcCreateProgram` with no headers.
///
/// # Errors
/// NVRTC's error, or `NVRTC_ERROR_NOT_SUPPORTED`-style codes when no compiler loaded.
pub fn create_program(src: &CStr, name: Option<&CStr>) -> Result<sys::nvrtcProgram, NvrtcError> {
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    let name = name.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: `prog` is a local the compiler writes one handle into; `src` and `name` (or null) are
    // NUL-terminated strings alive for the call, which the caller keeps alive with the program
    // (`Program` owns them); zero headers with null arrays.
    ok(unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name,
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    })?;
    Ok(prog)
}

/// `nvrtcCompileProgram` with `options`.
///
/// # Errors
/// `NVRTC_ERROR_COMPILATION` (read the log with [`get_program_log`]), `NVRTC_ERROR_INVALID_OPTION`
/// for an option containing NUL, or NVRTC's error.
///
/// # Safety
/// `prog` is a live program.
pub unsafe fn compile_program<O: Clone + Into<Vec<u8>>>(
    prog: sys::nvrtcProgram,
    options: &[O],
) -> Result<(), NvrtcError> {
    let owned = options
        .iter()
        .map(|o| CString::new(o.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| NvrtcError(sys::nvrtcResult::NVRTC_ERROR_INVALID_OPTION))?;
    let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: `prog` is a live program (this fn's `# Safety`), and `ptrs` holds `ptrs.len()`
    // pointers to NUL-terminated strings owned by `owned`, alive for the call.
    ok(unsafe { sys::nvrtcCompileProgram(prog, ptrs.len() as c_int, ptrs.as_ptr()) })
}

/// `nvrtcDestroyProgram`.
///
/// # Errors
/// NVRTC's error.
///
/// # Safety
/// `prog` is a live program, not used afterwards.
pub unsafe fn destroy_program(prog: sys::nvrtcProgram) -> Result<(), NvrtcError> {
    let mut prog = prog;
    // SAFETY: `prog` is a live program not used afterwards (this fn's `# Safety`); `&mut prog` is a
    // local the compiler nulls.
    ok(unsafe { sys::nvrtcDestroyProgram(&mut prog) })
}

/// `nvrtcGetPTX`: the compiled output (PTX text with its NUL on CUDA; the AMD code object on HIP).
///
/// # Errors
/// NVRTC's error.
///
/// # Safety
/// `prog` is a live, compiled program.
pub unsafe fn get_ptx(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    let mut size = 0usize;
    // SAFETY: `prog` is a live, compiled program (this fn's `# Safety`); `size` is a local `usize`.
    ok(unsafe { sys::nvrtcGetPTXSize(prog, &mut size) })?;
    let mut buf: Vec<c_char> = vec![0; size];
    // SAFETY: `buf` holds the `size` bytes the compiler asked for just above, for the same program.
    ok(unsafe { sys::nvrtcGetPTX(prog, buf.as_mut_ptr()) })?;
    Ok(buf)
}

/// `nvrtcGetProgramLog` (NUL-terminated).
///
/// # Errors
/// NVRTC's error.
///
/// # Safety
/// `prog` is a live program.
pub unsafe fn get_program_log(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    let mut size = 0usize;
    // SAFETY: `prog` is a live program (this fn's `# Safety`); `size` is a local `usize`.
    ok(unsafe { sys::nvrtcGetProgramLogSize(prog, &mut size) })?;
    let mut buf: Vec<c_char> = vec![0; size.max(1)];
    // SAFETY: `buf` holds at least the `size` bytes the compiler asked for just above, for the same
    // program.
    ok(unsafe { sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr()) })?;
    Ok(buf)
}
