//! Modules and functions: JIT option arrays, the linker, function settings, occupancy, and
//! kernel parameter layouts (`cuFuncGetParamInfo`/`cuFuncGetParamCount`, read from the image at
//! load time: [`super::module_params`]).
//!
//! JIT options are hints in CUDA (a driver may ignore any of them), so an option HIP lacks is
//! dropped rather than refused; its outputs then read as "nothing produced" (empty logs, zero
//! wall time), never stale input values. An option number outside CUDA's set is invalid.

use super::launch_legacy;
use super::module_params;
use super::support::{
    code_ok, hip_fn, nvidia, table, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS,
};
use crate::conv::enum_to_hip;
use crate::conv::launch::cluster_blocks;
use crate::conv::module::{
    func_attrs_from_hip, jit_options, occupancy_flags, JitOptions, ERROR_LOG_SIZE, INFO_LOG_SIZE,
    WALL_TIME,
};
use crate::hip_types::{hipFuncAttributes, hipFunction_t, hipModule_t};
use crate::HipBackend;
use anycuda_api::driver::{
    CUdevice_attribute, CUfunc_cache, CUfunction, CUfunctionLoadingState, CUfunction_attribute,
    CUjit_option, CUlaunchConfig, CUmodule, CUmoduleLoadingMode, CUoccupancyB2DSize, CUresult,
    CUsharedconfig,
};
use anycuda_api::runtime::{cudaError_t, cudaFuncAttribute, cudaFuncAttributes};
use core::ffi::{c_char, c_int, c_uint, c_void};

/// Writes "nothing produced" into dropped output options: log sizes 0 (and the log buffers, if
/// given, NUL-terminated), wall time 0.0.
///
/// # Safety
/// As [`jit_options`]; the arrays are writable.
unsafe fn finish_dropped(
    j: &JitOptions,
    n: c_uint,
    options: *const CUjit_option,
    values: *mut *mut c_void,
) {
    for &i in &j.dropped_outputs {
        // SAFETY: caller's arrays.
        let o = unsafe { *options.add(i) };
        match o.0 {
            INFO_LOG_SIZE | ERROR_LOG_SIZE => {
                let buf_opt = if o.0 == INFO_LOG_SIZE {
                    CUjit_option::CU_JIT_INFO_LOG_BUFFER
                } else {
                    CUjit_option::CU_JIT_ERROR_LOG_BUFFER
                };
                // SAFETY: caller's arrays of `n` entries.
                unsafe {
                    let cap = *values.add(i) as usize;
                    for k in 0..n as usize {
                        let buf = (*values.add(k)).cast::<c_char>();
                        if *options.add(k) == buf_opt && !buf.is_null() && cap > 0 {
                            *buf = 0;
                        }
                    }
                    *values.add(i) = core::ptr::null_mut();
                }
            }
            WALL_TIME => {
                // SAFETY: CUDA passes the float in the pointer-sized slot itself.
                unsafe { *values.add(i) = core::ptr::null_mut() };
            }
            _ => {}
        }
    }
}

/// `cuModuleLoadDataEx` → `hipModuleLoadDataEx`: JIT option numbers and enum values
/// translated; options HIP lacks are dropped (CUDA's options are hints) and their outputs
/// report nothing.
pub(crate) unsafe fn cuModuleLoadDataEx(
    b: &HipBackend,
    module: *mut CUmodule,
    image: *const c_void,
    numOptions: c_uint,
    options: *mut CUjit_option,
    optionValues: *mut *mut c_void,
) -> CUresult {
    if module.is_null() || image.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    let mut j = tri!(unsafe { jit_options(b, true, numOptions, options, optionValues) });
    // SAFETY: the caller's image. On AMD (and in AMD-faithful mode), PTX is translated and
    // compiled, or its source bundle compiled (adapt/image.rs); that code is the backend's own
    // and loads as it is.
    let bundled = unsafe { super::image::own_code(b, image, "cuModuleLoadDataEx") };
    let checked = match &bundled {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(*e),
        // SAFETY: the caller's image. Where images are held to what AMD loads, the rest is
        // refused with advice (adapt/image.rs).
        None => unsafe { super::image::check_loadable(b, image) },
    };
    if let Err(e) = checked {
        // SAFETY: the caller's arrays (CUDA's contract).
        let log = unsafe { error_log(numOptions, options, optionValues) };
        // SAFETY: forwarded contract (dropped outputs read as empty).
        unsafe { copy_back(&j, numOptions, options, optionValues) };
        if let (Some(log), Some(why)) = (log, super::image::not_supported_reason(e)) {
            // SAFETY: the caller's buffer of the capacity it gave, and its arrays.
            unsafe { log.write(why, optionValues) };
        }
        return e;
    }
    let image: *const c_void = match &bundled {
        Some(Ok(code)) => code.as_ptr().cast(),
        _ => image,
    };
    let f = hip_fn!(b, hipModuleLoadDataEx);
    let mut m: hipModule_t = core::ptr::null_mut();
    // SAFETY: arrays of `keys.len()` entries living for the call.
    let e = unsafe {
        f(
            &mut m,
            image,
            j.keys.len() as c_uint,
            j.keys.as_mut_ptr(),
            j.values.as_mut_ptr(),
        )
    };
    // SAFETY: forwarded contract.
    unsafe { copy_back(&j, numOptions, options, optionValues) };
    if e == HIP_SUCCESS {
        // SAFETY: HIP accepted `image`, a complete image.
        unsafe { remember_image(m.cast(), image) };
        // SAFETY: non-NULL.
        unsafe { *module = m.cast() };
    }
    b.cu(e)
}

/// The caller's JIT error log (`CU_JIT_ERROR_LOG_BUFFER` and its size option; or the info
/// log), read before the options are copied back.
pub(super) struct ErrorLog {
    buf: *mut c_char,
    cap: usize,
    /// The index of `CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES`, whose value becomes the bytes written.
    size_at: usize,
}

/// The caller's error log, if its options name a buffer and a non-zero size.
///
/// # Safety
/// CUDA's contract for the option arrays (`n` entries each, or NULL).
unsafe fn error_log(
    n: c_uint,
    options: *const CUjit_option,
    values: *mut *mut c_void,
) -> Option<ErrorLog> {
    // SAFETY: forwarded contract.
    unsafe {
        jit_log(
            n,
            options,
            values,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        )
    }
}

/// The caller's log named by the option pair `buffer`/`size` (error or info log), if its
/// options name a buffer and a non-zero size.
///
/// # Safety
/// CUDA's contract for the option arrays (`n` entries each, or NULL).
pub(super) unsafe fn jit_log(
    n: c_uint,
    options: *const CUjit_option,
    values: *mut *mut c_void,
    buffer: CUjit_option,
    size: CUjit_option,
) -> Option<ErrorLog> {
    let (buf_opt, size_opt) = (buffer, size);
    if n == 0 || options.is_null() || values.is_null() {
        return None;
    }
    let (mut buf, mut size) = (None, None);
    for k in 0..n as usize {
        // SAFETY: `n` entries (the caller's contract).
        let (o, v) = unsafe { (*options.add(k), *values.add(k)) };
        if o == buf_opt {
            buf = Some(v.cast::<c_char>());
        } else if o == size_opt {
            size = Some((k, v as usize));
        }
    }
    match (buf, size) {
        (Some(buf), Some((size_at, cap))) if !buf.is_null() && cap > 0 => {
            Some(ErrorLog { buf, cap, size_at })
        }
        _ => None,
    }
}

impl ErrorLog {
    /// Writes `msg` (cut to the capacity, NUL-terminated) and its length with the NUL into the
    /// size option, as CUDA's JIT reports a failure there.
    ///
    /// # Safety
    /// The buffer holds `cap` bytes; `values` is the array the log was read from.
    pub(super) unsafe fn write(&self, msg: &str, values: *mut *mut c_void) {
        let n = msg.len().min(self.cap - 1);
        // SAFETY: `n + 1 <= cap` bytes of the caller's buffer.
        unsafe {
            core::ptr::copy_nonoverlapping(msg.as_ptr(), self.buf.cast::<u8>(), n);
            *self.buf.add(n) = 0;
            *values.add(self.size_at) = (n + 1) as *mut c_void;
        }
    }

    /// Marks the log empty: its first byte NUL and 0 bytes in the size option ("nothing
    /// produced", as for a dropped output).
    ///
    /// # Safety
    /// As [`ErrorLog::write`].
    pub(super) unsafe fn clear(&self, values: *mut *mut c_void) {
        // SAFETY: `cap >= 1` bytes of the caller's buffer; the caller's array.
        unsafe {
            *self.buf = 0;
            *values.add(self.size_at) = core::ptr::null_mut();
        }
    }
}

/// Reads the parameter layouts of a module just loaded from `image`.
///
/// # Safety
/// `image` is an image the loader accepted (complete, headers within it).
unsafe fn remember_image(m: CUmodule, image: *const c_void) {
    // SAFETY: the caller's contract; `image_len` reads only what the headers describe.
    let bytes = unsafe { anycuda_rtc::params::image_len(image) }.map(|n| {
        // SAFETY: `n` bytes of the accepted image, measured from its own headers.
        unsafe { core::slice::from_raw_parts(image.cast::<u8>(), n) }
    });
    module_params::module_loaded(m, bytes);
}

/// Loads an in-memory image with `load` (HIP's `hipModuleLoadData` or `hipModuleLoadFatBinary`):
/// CUDA's checks, NVIDIA formats refused with advice on AMD (`adapt/image.rs`), and the image's
/// kernel parameter layouts kept for `cuFuncGetParamInfo`/`cuFuncGetParamCount` (HIP has
/// neither).
///
/// # Safety
/// CUDA's contract: `module` writable, `image` a loadable image.
unsafe fn load_image(
    b: &HipBackend,
    module: *mut CUmodule,
    image: *const c_void,
    load: unsafe extern "C" fn(*mut hipModule_t, *const c_void) -> crate::hip_types::hipError_t,
) -> CUresult {
    if module.is_null() || image.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's image. On AMD (and in AMD-faithful mode), PTX is translated and
    // compiled, or its source bundle compiled (adapt/image.rs); that code is the backend's own
    // and loads as it is.
    let bundled = unsafe { super::image::own_code(b, image, "cuModuleLoadData") };
    let image: *const c_void = match &bundled {
        Some(Ok(code)) => code.as_ptr().cast(),
        Some(Err(e)) => return *e,
        None => {
            // SAFETY: the caller's image. Where images are held to what AMD loads, the rest
            // is refused with advice (adapt/image.rs).
            tri!(unsafe { super::image::check_loadable(b, image) });
            image
        }
    };
    // SAFETY: the image checked above, or the backend's own code.
    unsafe { load_checked(b, module, image, load) }
}

/// Loads an image already checked (or the backend's own code, compiled from a source bundle)
/// with `load`, and keeps its kernel parameter layouts.
///
/// # Safety
/// `module` writable; `image` a loadable image.
unsafe fn load_checked(
    b: &HipBackend,
    module: *mut CUmodule,
    image: *const c_void,
    load: unsafe extern "C" fn(*mut hipModule_t, *const c_void) -> crate::hip_types::hipError_t,
) -> CUresult {
    let mut m: hipModule_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the caller's image.
    let e = unsafe { load(&mut m, image) };
    if e == HIP_SUCCESS {
        // SAFETY: HIP accepted `image`.
        unsafe { remember_image(m.cast(), image) };
        // SAFETY: non-NULL.
        unsafe { *module = m.cast() };
    }
    b.cu(e)
}

/// `cuModuleLoadData` → `hipModuleLoadData` (see [`load_image`]).
pub(crate) unsafe fn cuModuleLoadData(
    b: &HipBackend,
    module: *mut CUmodule,
    image: *const c_void,
) -> CUresult {
    let f = hip_fn!(b, hipModuleLoadData);
    // SAFETY: forwarded contract.
    unsafe { load_image(b, module, image, f) }
}

/// `cuModuleLoadFatBinary` → `hipModuleLoadFatBinary` (see [`load_image`]; offload bundles of
/// AMD code objects; NVIDIA fat binaries are not read).
pub(crate) unsafe fn cuModuleLoadFatBinary(
    b: &HipBackend,
    module: *mut CUmodule,
    fatCubin: *const c_void,
) -> CUresult {
    let Some(t) = b.native_hip() else {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    };
    // HIP's fat-binary loader where it has one, else its module loader, which takes offload
    // bundles too (so the image checks, and their advice, come first either way).
    let Some(f) = t.hipModuleLoadFatBinary.or(t.hipModuleLoadData) else {
        return NOT_SUPPORTED;
    };
    // SAFETY: forwarded contract.
    unsafe { load_image(b, module, fatCubin, f) }
}

/// `cuModuleLoad` → `hipModuleLoad`; the file is read again after HIP loaded it, for the
/// parameter layouts (as `cuModuleLoadData`).
pub(crate) unsafe fn cuModuleLoad(
    b: &HipBackend,
    module: *mut CUmodule,
    fname: *const c_char,
) -> CUresult {
    let f = hip_fn!(b, hipModuleLoad);
    if module.is_null() || fname.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's path. On AMD, PTX is translated and compiled (or its source bundle
    // compiled) and the code object loaded from memory (adapt/image.rs).
    match unsafe { super::image::own_file_code(b, fname) } {
        Some(Ok(code)) => {
            let load = hip_fn!(b, hipModuleLoadData);
            // SAFETY: the backend's own code, compiled from the bundle, alive for the call.
            return unsafe { load_checked(b, module, code.as_ptr().cast(), load) };
        }
        Some(Err(e)) => return e,
        None => {}
    }
    // SAFETY: the caller's path. Where images are held to what AMD loads, the rest is refused
    // with advice (adapt/image.rs).
    tri!(unsafe { super::image::check_file(b, fname) });
    let mut m: hipModule_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the caller's NUL-terminated path.
    let e = unsafe { f(&mut m, fname) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL, NUL-terminated (HIP just opened it).
        let path = unsafe { core::ffi::CStr::from_ptr(fname) };
        let bytes = {
            use std::os::unix::ffi::OsStrExt;
            std::fs::read(std::ffi::OsStr::from_bytes(path.to_bytes())).ok()
        };
        module_params::module_loaded(m.cast(), bytes.as_deref());
        // SAFETY: non-NULL.
        unsafe { *module = m.cast() };
    }
    b.cu(e)
}

/// The layout of `func` for the two queries: NULL → invalid handle; no layout known (an image
/// format anycuda cannot read, or a handle not from `cuModuleGetFunction`) → not supported.
fn param_layout(b: &HipBackend, func: CUfunction) -> Result<module_params::Layout, CUresult> {
    if func.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
    }
    // A `CUkernel` cast to a `CUfunction`: the current context's function.
    let func = super::library::function_of(b, func)?;
    module_params::layout(func).ok_or(NOT_SUPPORTED)
}

/// `cuFuncGetParamInfo` (no HIP counterpart): the offset and size of parameter `paramIndex`,
/// from the layout read out of the module's image when it was loaded. An index past the last
/// parameter is `CUDA_ERROR_INVALID_VALUE`, as on CUDA; `paramSize` may be NULL.
pub(crate) unsafe fn cuFuncGetParamInfo(
    b: &HipBackend,
    func: CUfunction,
    paramIndex: usize,
    paramOffset: *mut usize,
    paramSize: *mut usize,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if paramOffset.is_null() {
        return INVALID_VALUE;
    }
    let l = tri!(param_layout(b, func));
    let Some(p) = l.get(paramIndex) else {
        return INVALID_VALUE;
    };
    // SAFETY: non-NULL out-pointers from the caller.
    unsafe {
        *paramOffset = p.offset;
        if !paramSize.is_null() {
            *paramSize = p.size;
        }
    }
    SUCCESS
}

/// `cuFuncGetParamCount` (no HIP counterpart): the number of parameters, from the layout read
/// out of the module's image when it was loaded.
pub(crate) unsafe fn cuFuncGetParamCount(
    b: &HipBackend,
    func: CUfunction,
    paramCount: *mut usize,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if paramCount.is_null() {
        return INVALID_VALUE;
    }
    let l = tri!(param_layout(b, func));
    // SAFETY: non-NULL out-pointer from the caller.
    unsafe { *paramCount = l.len() };
    SUCCESS
}

/// Copies in/out option values HIP wrote back to the caller's array, and marks dropped
/// outputs as empty.
///
/// # Safety
/// As [`jit_options`]; the arrays are writable.
pub(super) unsafe fn copy_back(
    j: &JitOptions,
    n: c_uint,
    options: *const CUjit_option,
    values: *mut *mut c_void,
) {
    for (k, &i) in j.src.iter().enumerate() {
        // SAFETY: `i` indexes the caller's arrays (it came from them).
        unsafe {
            let o = *options.add(i);
            if matches!(o.0, INFO_LOG_SIZE | ERROR_LOG_SIZE | WALL_TIME)
                || o == CUjit_option::CU_JIT_THREADS_PER_BLOCK
            {
                *values.add(i) = j.values[k];
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { finish_dropped(j, n, options, values) };
}

/// Validates a function handle through HIP (`hipFuncGetAttribute`): Ok, or HIP's error in
/// CUDA's words.
unsafe fn func_attr(
    b: &HipBackend,
    f: CUfunction,
    attr: CUfunction_attribute,
) -> Result<c_int, CUresult> {
    if f.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
    }
    // A `CUkernel` cast to a `CUfunction` (CUDA allows it): the current context's function.
    let f = super::library::function_of(b, f)?;
    let a = enum_to_hip(b.conv().CUfunction_attribute, attr.0).ok_or(NOT_SUPPORTED)?;
    let g = match table::<CUresult>(b)?.hipFuncGetAttribute {
        Some(g) => g,
        None => return Err(NOT_SUPPORTED),
    };
    let mut v = 0;
    // SAFETY: valid out-pointer; HIP validates the handle.
    let e = unsafe { g(&mut v, a as _, f as hipFunction_t) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    Ok(v)
}

/// A function setting AMD hardware makes moot (a fixed L1/LDS split, one LDS bank
/// configuration), once its value is checked: the function is validated and nothing else is
/// done, as CUDA documents such a setting as having no effect. HIP's NVIDIA platform only takes
/// host stubs for these calls: not supported there.
///
/// # Safety
/// CUDA's contract: `hfunc` is a function handle.
unsafe fn setting_without_effect(b: &HipBackend, hfunc: CUfunction) -> CUresult {
    if nvidia(b) {
        return NOT_SUPPORTED;
    }
    // SAFETY: forwarded contract.
    tri!(unsafe {
        func_attr(
            b,
            hfunc,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    });
    SUCCESS
}

/// `cuFuncSetCacheConfig` (AMD): the value and the function are validated; AMD GPUs have a
/// fixed L1/LDS split, where CUDA documents the preference as having no effect, so nothing
/// else is done. HIP's NVIDIA platform only takes host stubs (`hipFuncSetCacheConfig`): not
/// supported there.
pub(crate) unsafe fn cuFuncSetCacheConfig(
    b: &HipBackend,
    hfunc: CUfunction,
    config: CUfunc_cache,
) -> CUresult {
    if config.0 > CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL.0 {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    unsafe { setting_without_effect(b, hfunc) }
}

/// `cuFuncSetSharedMemConfig` (AMD): value and function validated; AMD's LDS has one fixed
/// bank configuration, where CUDA documents the setting as having no effect. Not supported on
/// HIP's NVIDIA platform (host stubs only).
pub(crate) unsafe fn cuFuncSetSharedMemConfig(
    b: &HipBackend,
    hfunc: CUfunction,
    config: CUsharedconfig,
) -> CUresult {
    if config.0 > CUsharedconfig::CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE.0 {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    unsafe { setting_without_effect(b, hfunc) }
}

/// `cuFuncSetAttribute` (AMD): HIP's `hipFuncSetAttribute` takes host stubs, and AMD allows
/// every kernel the device's whole LDS without opting in. So MAX_DYNAMIC_SHARED_SIZE_BYTES is
/// checked as CUDA does (static + dynamic within the device's per-block maximum, else invalid
/// value) and then holds by itself; the carveout is a hint (-1..=100) with a fixed split on
/// AMD; cluster attributes are not supported; read-only attributes are invalid. Not supported
/// on HIP's NVIDIA platform.
pub(crate) unsafe fn cuFuncSetAttribute(
    b: &HipBackend,
    hfunc: CUfunction,
    attrib: CUfunction_attribute,
    value: c_int,
) -> CUresult {
    if nvidia(b) {
        return NOT_SUPPORTED;
    }
    match attrib {
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            if value < 0 {
                return INVALID_VALUE;
            }
            // SAFETY: forwarded contract.
            let stat = tri!(unsafe {
                func_attr(
                    b,
                    hfunc,
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                )
            });
            let get_dev = hip_fn!(b, hipGetDevice);
            let attr = hip_fn!(b, hipDeviceGetAttribute);
            let a = tri!(enum_to_hip(
                b.conv().CUdevice_attribute,
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK.0
            )
            .ok_or(NOT_SUPPORTED));
            let (mut dev, mut max) = (0, 0);
            // SAFETY: valid out-pointers.
            let e = unsafe { get_dev(&mut dev) };
            if e != HIP_SUCCESS {
                return b.cu(e);
            }
            // SAFETY: valid out-pointer, current device.
            let e = unsafe { attr(&mut max, a as _, dev) };
            if e != HIP_SUCCESS {
                return b.cu(e);
            }
            if i64::from(stat) + i64::from(value) > i64::from(max) {
                return INVALID_VALUE;
            }
            SUCCESS
        }
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
            if !(-1..=100).contains(&value) {
                return INVALID_VALUE;
            }
            // SAFETY: forwarded contract.
            tri!(unsafe {
                func_attr(
                    b,
                    hfunc,
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                )
            });
            SUCCESS
        }
        a if (10..=15).contains(&a.0) => NOT_SUPPORTED,
        _ => INVALID_VALUE,
    }
}

/// `cuFuncIsLoaded`: HIP loads a module's code eagerly when the module is loaded, so a valid
/// function (checked through `hipFuncGetAttribute`) is always loaded.
pub(crate) unsafe fn cuFuncIsLoaded(
    b: &HipBackend,
    state: *mut CUfunctionLoadingState,
    function: CUfunction,
) -> CUresult {
    if state.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    tri!(unsafe {
        func_attr(
            b,
            function,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    });
    // SAFETY: non-NULL.
    unsafe { *state = CUfunctionLoadingState::CU_FUNCTION_LOADING_STATE_LOADED };
    SUCCESS
}

/// `cuFuncLoad`: the function is validated through HIP; its code was loaded with its module
/// (HIP loads eagerly), so there is nothing left to load.
pub(crate) unsafe fn cuFuncLoad(b: &HipBackend, function: CUfunction) -> CUresult {
    // SAFETY: forwarded contract.
    tri!(unsafe {
        func_attr(
            b,
            function,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    });
    SUCCESS
}

/// `cuModuleGetLoadingMode`: HIP on AMD has no lazy loading (modules are loaded eagerly); on
/// HIP's NVIDIA platform NVIDIA's driver loads the modules and decides by its documented rule,
/// which is answered here: `CUDA_MODULE_LOADING=EAGER` is eager, anything else lazy (CUDA's
/// default since 12.2). NVIDIA's statically linked runtime asks this while it starts and fails
/// every call when it is refused.
pub(crate) unsafe fn cuModuleGetLoadingMode(
    b: &HipBackend,
    mode: *mut CUmoduleLoadingMode,
) -> CUresult {
    if mode.is_null() {
        return INVALID_VALUE;
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    let eager = !nvidia(b)
        || std::env::var("CUDA_MODULE_LOADING")
            .is_ok_and(|v| v.trim().eq_ignore_ascii_case("EAGER"));
    // SAFETY: non-NULL.
    unsafe {
        *mode = if eager {
            CUmoduleLoadingMode::CU_MODULE_EAGER_LOADING
        } else {
            CUmoduleLoadingMode::CU_MODULE_LAZY_LOADING
        }
    };
    SUCCESS
}

unsafe fn max_block_size(
    b: &HipBackend,
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: CUfunction,
    cb: CUoccupancyB2DSize,
    dyn_smem: usize,
    limit: c_int,
    flags: Option<c_uint>,
) -> CUresult {
    if minGridSize.is_null() || blockSize.is_null() {
        return INVALID_VALUE;
    }
    // A `CUkernel` cast to a `CUfunction`: the current context's function.
    let func = tri!(super::library::function_of(b, func));
    if let Some(cb) = cb {
        // HIP has no per-block-size shared-memory callback: search the block sizes with HIP's
        // per-size occupancy, as CUDA's own header does for the runtime's variant.
        // SAFETY: forwarded contract; `cb` is the caller's callback.
        let (grid, block) =
            tri!(unsafe { max_block_size_with_callback(b, func, cb, limit, flags.unwrap_or(0)) });
        // SAFETY: checked non-NULL above.
        unsafe {
            *minGridSize = grid;
            *blockSize = block;
        }
        return SUCCESS;
    }
    let f = func as hipFunction_t;
    // SAFETY: valid out-pointers; HIP validates the function.
    b.cu(unsafe {
        match flags {
            None => hip_fn!(b, hipModuleOccupancyMaxPotentialBlockSize)(
                minGridSize,
                blockSize,
                f,
                dyn_smem,
                limit,
            ),
            Some(fl) => hip_fn!(b, hipModuleOccupancyMaxPotentialBlockSizeWithFlags)(
                minGridSize,
                blockSize,
                f,
                dyn_smem,
                limit,
                fl,
            ),
        }
    })
}

/// The block size with the most resident threads per multiprocessor when the dynamic shared
/// memory depends on the block size (`cb`): every multiple of the warp size up to the function's
/// and the caller's limit, largest first, ties to the larger block. Returns
/// `(min grid size, block size)`; `(0, 0)` when no block size fits, as CUDA answers.
///
/// # Safety
/// `func` is a function handle of the current context's device; `cb` may be called with any
/// block size in that range.
unsafe fn max_block_size_with_callback(
    b: &HipBackend,
    func: CUfunction,
    cb: unsafe extern "C" fn(c_int) -> usize,
    limit: c_int,
    flags: c_uint,
) -> Result<(c_int, c_int), CUresult> {
    use anycuda_api::traits::Driver;
    const FUNC_MAX_THREADS: CUfunction_attribute =
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    const WARP_SIZE: CUdevice_attribute = CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE;
    const SM_COUNT: CUdevice_attribute =
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
    const THREADS_PER_SM: CUdevice_attribute =
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR;
    if func.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
    }
    if limit < 0 {
        return Err(INVALID_VALUE);
    }
    let mut dev = 0;
    let mut max_threads = 0;
    let mut warp = 0;
    let mut sms = 0;
    let mut per_sm = 0;
    // SAFETY: out-pointers to locals; the backend validates the handles.
    unsafe {
        code_ok(b.cuCtxGetDevice(&mut dev))?;
        code_ok(b.cuFuncGetAttribute(&mut max_threads, FUNC_MAX_THREADS, func))?;
        code_ok(b.cuDeviceGetAttribute(&mut warp, WARP_SIZE, dev))?;
        code_ok(b.cuDeviceGetAttribute(&mut sms, SM_COUNT, dev))?;
        code_ok(b.cuDeviceGetAttribute(&mut per_sm, THREADS_PER_SM, dev))?;
    }
    // Real devices allow at most 1024 threads a block; the bound keeps a bogus answer from
    // turning the search into billions of calls or an overflow.
    let cap = if limit == 0 {
        max_threads
    } else {
        limit.min(max_threads)
    }
    .clamp(0, 1 << 16);
    let warp = warp.clamp(1, 1 << 10);
    let (mut best_block, mut best_blocks, mut best_threads) = (0, 0, 0);
    let mut aligned = (cap + warp - 1) / warp * warp;
    while aligned > 0 {
        let size = aligned.min(cap);
        // SAFETY: the caller's callback, with a block size in its range.
        let smem = unsafe { cb(size) };
        let mut blocks = 0;
        // SAFETY: out-pointer to a local; the backend validates the function.
        code_ok(unsafe {
            b.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut blocks,
                func,
                size,
                smem,
                flags,
            )
        })?;
        let threads = blocks.saturating_mul(size);
        if threads > best_threads {
            (best_block, best_blocks, best_threads) = (size, blocks, threads);
        }
        if best_threads >= per_sm {
            break;
        }
        aligned -= warp;
    }
    Ok((best_blocks.saturating_mul(sms), best_block))
}

/// Whether an occupancy query's arguments are of a class HIP answers: a writable count and a
/// positive block size. NVIDIA answers the invalid-value code for the rest; HIP's NVIDIA platform
/// crashed on a block size of 0 (the C ABI's differential fuzzer, H200), so anycuda answers first.
fn occupancy_args_ok(num_blocks: *mut c_int, block_size: c_int) -> bool {
    !num_blocks.is_null() && block_size > 0
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`: the argument classes checked
/// ([`occupancy_args_ok`]), then as generated (nvcc-built kernels refused, HIP's answer).
pub(crate) unsafe fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    b: &HipBackend,
    numBlocks: *mut c_int,
    func: *const c_void,
    blockSize: c_int,
    dynamicSMemSize: usize,
) -> cudaError_t {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            b,
            numBlocks,
            func,
            blockSize,
            dynamicSMemSize,
            0,
        )
    }
}

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: as
/// [`cudaOccupancyMaxActiveBlocksPerMultiprocessor`], flags passed (same values).
pub(crate) unsafe fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    b: &HipBackend,
    numBlocks: *mut c_int,
    func: *const c_void,
    blockSize: c_int,
    dynamicSMemSize: usize,
    flags: c_uint,
) -> cudaError_t {
    if !occupancy_args_ok(numBlocks, blockSize) {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if let Some(e) =
        super::nvcc::refuse_kernel(func, "cudaOccupancyMaxActiveBlocksPerMultiprocessor")
    {
        return e;
    }
    // A `cudaKernel_t` (CUDA lets one stand for the function): its module function, asked
    // through HIP's module call (HIP's runtime call would read the handle as a host stub).
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        let m = hip_fn!(
            b,
            hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
        );
        // SAFETY: the caller's out-pointer (checked non-NULL); a function of this backend.
        return b.rt(unsafe {
            m(
                numBlocks,
                f as hipFunction_t,
                blockSize,
                dynamicSMemSize,
                flags,
            )
        });
    }
    let f = hip_fn!(b, hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    // SAFETY: `numBlocks` is non-null (checked) and writable (caller contract); HIP validates
    // the function and the flags.
    b.rt(unsafe { f(numBlocks, func, blockSize, dynamicSMemSize, flags) })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor` →
/// `hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`; a `CUkernel` cast to a `CUfunction`
/// is the current context's function (HIP would read the handle as its own).
pub(crate) unsafe fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    b: &HipBackend,
    numBlocks: *mut c_int,
    func: CUfunction,
    blockSize: c_int,
    dynamicSMemSize: usize,
) -> CUresult {
    if !occupancy_args_ok(numBlocks, blockSize) {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let f = hip_fn!(b, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor);
    let func = tri!(super::library::function_of(b, func));
    // SAFETY: the caller's out-pointer; HIP validates the function.
    b.cu(unsafe { f(numBlocks, func as hipFunction_t, blockSize, dynamicSMemSize) })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` →
/// `hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` (same flag values); a
/// `CUkernel` is resolved as in [`cuOccupancyMaxActiveBlocksPerMultiprocessor`].
pub(crate) unsafe fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    b: &HipBackend,
    numBlocks: *mut c_int,
    func: CUfunction,
    blockSize: c_int,
    dynamicSMemSize: usize,
    flags: c_uint,
) -> CUresult {
    if !occupancy_args_ok(numBlocks, blockSize) {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let f = hip_fn!(
        b,
        hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
    );
    let func = tri!(super::library::function_of(b, func));
    // SAFETY: the caller's out-pointer; HIP validates the function and the flags.
    b.cu(unsafe {
        f(
            numBlocks,
            func as hipFunction_t,
            blockSize,
            dynamicSMemSize,
            flags,
        )
    })
}

/// `cuOccupancyMaxPotentialBlockSize` → `hipModuleOccupancyMaxPotentialBlockSize`; with a
/// block-size → shared-memory callback (HIP has none), a search over HIP's per-size occupancy.
pub(crate) unsafe fn cuOccupancyMaxPotentialBlockSize(
    b: &HipBackend,
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: CUfunction,
    blockSizeToDynamicSMemSize: CUoccupancyB2DSize,
    dynamicSMemSize: usize,
    blockSizeLimit: c_int,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe {
        max_block_size(
            b,
            minGridSize,
            blockSize,
            func,
            blockSizeToDynamicSMemSize,
            dynamicSMemSize,
            blockSizeLimit,
            None,
        )
    }
}

/// `cuOccupancyMaxPotentialBlockSizeWithFlags` →
/// `hipModuleOccupancyMaxPotentialBlockSizeWithFlags` (same flag values); a callback as in
/// [`cuOccupancyMaxPotentialBlockSize`].
pub(crate) unsafe fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    b: &HipBackend,
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: CUfunction,
    blockSizeToDynamicSMemSize: CUoccupancyB2DSize,
    dynamicSMemSize: usize,
    blockSizeLimit: c_int,
    flags: c_uint,
) -> CUresult {
    let fl = tri!(occupancy_flags(flags));
    // SAFETY: forwarded contract.
    unsafe {
        max_block_size(
            b,
            minGridSize,
            blockSize,
            func,
            blockSizeToDynamicSMemSize,
            dynamicSMemSize,
            blockSizeLimit,
            Some(fl),
        )
    }
}

/// Checks shared by the two cluster queries: CUDA's NULL checks, the function resolved (a
/// `CUkernel` is the current context's function) and the cluster the configuration asks for.
///
/// # Safety
/// `config` is NULL or a valid launch configuration (its attribute list as CUDA requires).
unsafe fn cluster_query(
    b: &HipBackend,
    out: *mut c_int,
    func: CUfunction,
    config: *const CUlaunchConfig,
) -> Result<(CUfunction, &CUlaunchConfig, u64), CUresult> {
    table::<CUresult>(b)?;
    if out.is_null() || config.is_null() {
        return Err(INVALID_VALUE);
    }
    if func.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
    }
    // SAFETY: non-NULL (checked); the caller's configuration.
    let config = unsafe { &*config };
    // SAFETY: the caller's attribute list.
    let cluster = unsafe { cluster_blocks(config) }?;
    let func = super::library::function_of(b, func)?;
    // The function is validated by HIP, whatever the cluster (a bogus handle is CUDA's
    // invalid-handle answer).
    // SAFETY: the caller's function handle; HIP validates it.
    unsafe {
        func_attr(
            b,
            func,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    }?;
    Ok((func, config, cluster))
}

/// `cuOccupancyMaxActiveClusters` (HIP has clusters only from 7.14, and reports none:
/// `CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH` is 0): a cluster of one block is a block, so the answer
/// is the blocks per multiprocessor times the multiprocessors of the current context's device.
/// A larger cluster cannot be launched here (a launch refuses the attribute as not supported),
/// so none of them can be co-resident: 0, the honest answer of a capability query on a device
/// without the capability (not an error: cuda.core asks with a cluster of 2 on any device of
/// compute capability 9.0, which HIP's NVIDIA platform reports).
pub(crate) unsafe fn cuOccupancyMaxActiveClusters(
    b: &HipBackend,
    numClusters: *mut c_int,
    func: CUfunction,
    config: *const CUlaunchConfig,
) -> CUresult {
    use anycuda_api::traits::Driver;
    // SAFETY: the caller's configuration.
    let (func, config, cluster) = tri!(unsafe { cluster_query(b, numClusters, func, config) });
    let threads = u64::from(config.blockDimX)
        .saturating_mul(u64::from(config.blockDimY))
        .saturating_mul(u64::from(config.blockDimZ));
    let Ok(block) = c_int::try_from(threads) else {
        return INVALID_VALUE;
    };
    if cluster > 1 {
        // SAFETY: checked non-NULL.
        unsafe { *numClusters = 0 };
        return SUCCESS;
    }
    let (mut per_sm, mut dev, mut sms) = (0, 0, 0);
    // SAFETY: out-pointers to locals; the backend validates the handles and the sizes.
    unsafe {
        tri!(code_ok(b.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut per_sm,
            func,
            block,
            config.sharedMemBytes as usize,
        )));
        tri!(code_ok(b.cuCtxGetDevice(&mut dev)));
        tri!(code_ok(b.cuDeviceGetAttribute(
            &mut sms,
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            dev
        )));
        *numClusters = per_sm.saturating_mul(sms);
    }
    SUCCESS
}

/// `cuOccupancyMaxPotentialClusterSize` (HIP has clusters only from 7.14): 1, the only cluster
/// size a device without thread-block clusters launches, once HIP knows the function.
pub(crate) unsafe fn cuOccupancyMaxPotentialClusterSize(
    b: &HipBackend,
    clusterSize: *mut c_int,
    func: CUfunction,
    config: *const CUlaunchConfig,
) -> CUresult {
    // SAFETY: the caller's configuration.
    tri!(unsafe { cluster_query(b, clusterSize, func, config) });
    // SAFETY: checked non-NULL.
    unsafe { *clusterSize = 1 };
    SUCCESS
}

// ------------------------------------------------------------ Runtime

/// `cudaFuncGetAttributes` → `hipFuncGetAttributes`: HIP's struct (other field order, no
/// cluster fields) copied field by field into CUDA 13's. HIP's NVIDIA platform: CUDA's struct.
pub(crate) unsafe fn cudaFuncGetAttributes(
    b: &HipBackend,
    attr: *mut cudaFuncAttributes,
    func: *const c_void,
) -> cudaError_t {
    let f = hip_fn!(b, hipFuncGetAttributes);
    if attr.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: non-NULL out-pointer; a function of this backend.
        return unsafe { kernel_attributes(b, attr, f) };
    }
    if nvidia(b) {
        // SAFETY: `hipFuncAttributes` is `cudaFuncAttributes` on that platform.
        return b.rt(unsafe { f(attr.cast(), func) });
    }
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipFuncAttributes = unsafe { core::mem::zeroed() };
    // SAFETY: `h` is a valid out-struct.
    let e = b.rt(unsafe { f(&mut h, func) });
    if e == cudaError_t::cudaSuccess {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { attr.write(func_attrs_from_hip(&h)) };
    }
    e
}

/// `cudaFuncGetAttributes` for a module function (a `cudaKernel_t` resolved): each field from
/// `cuFuncGetAttribute`; an attribute HIP cannot report stays 0 (the cluster fields always do:
/// HIP has no clusters).
///
/// # Safety
/// `attr` is writable; `f` is a function handle of this backend.
pub(crate) unsafe fn kernel_attributes(
    b: &HipBackend,
    attr: *mut cudaFuncAttributes,
    f: CUfunction,
) -> cudaError_t {
    use CUfunction_attribute as A;
    // SAFETY: plain data; all-zero is valid.
    let mut a: cudaFuncAttributes = unsafe { core::mem::zeroed() };
    let get = |which: A| -> Result<c_int, cudaError_t> {
        // SAFETY: validated handle path (`func_attr` checks it through HIP).
        match unsafe { func_attr(b, f, which) } {
            Ok(v) => Ok(v),
            Err(NOT_SUPPORTED) => Ok(0),
            Err(e) => Err(crate::conv::driver_to_runtime(e)),
        }
    };
    let size = |v: c_int| usize::try_from(v).unwrap_or(0);
    a.sharedSizeBytes = size(tri!(get(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)));
    a.constSizeBytes = size(tri!(get(A::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)));
    a.localSizeBytes = size(tri!(get(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
    a.maxThreadsPerBlock = tri!(get(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    a.numRegs = tri!(get(A::CU_FUNC_ATTRIBUTE_NUM_REGS));
    a.ptxVersion = tri!(get(A::CU_FUNC_ATTRIBUTE_PTX_VERSION));
    a.binaryVersion = tri!(get(A::CU_FUNC_ATTRIBUTE_BINARY_VERSION));
    a.cacheModeCA = tri!(get(A::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA));
    a.maxDynamicSharedSizeBytes = tri!(get(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
    a.preferredShmemCarveout = tri!(get(A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT));
    // SAFETY: the caller's out-pointer.
    unsafe { attr.write(a) };
    cudaError_t::cudaSuccess
}

/// `cuFuncGetAttribute` → `hipFuncGetAttribute` (attribute translated); a `CUkernel` cast to a
/// `CUfunction` is the current context's function.
pub(crate) unsafe fn cuFuncGetAttribute(
    b: &HipBackend,
    pi: *mut c_int,
    attrib: CUfunction_attribute,
    hfunc: CUfunction,
) -> CUresult {
    let f = hip_fn!(b, hipFuncGetAttribute);
    let a = match crate::conv::enum_arg(b.conv().CUfunction_attribute, attrib) {
        Ok(v) => v,
        Err(crate::conv::Refusal::NotSupported) => return NOT_SUPPORTED,
        Err(_) => return INVALID_VALUE,
    };
    let hfunc = tri!(super::library::function_of(b, hfunc));
    // SAFETY: the caller's out-pointer; HIP validates the handle.
    b.cu(unsafe { f(pi, a as _, hfunc as hipFunction_t) })
}

/// `cudaFuncSetAttribute`: a `cudaKernel_t` is `cuFuncSetAttribute` on its function (attribute
/// renumbered); a host function → `hipFuncSetAttribute` with the attribute translated.
pub(crate) unsafe fn cudaFuncSetAttribute(
    b: &HipBackend,
    func: *const c_void,
    attr: cudaFuncAttribute,
    value: c_int,
) -> cudaError_t {
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        let Some(a) = super::library::settable_attribute(attr) else {
            return cudaError_t::cudaErrorInvalidValue;
        };
        // SAFETY: a function of this backend.
        return crate::conv::driver_to_runtime(unsafe { cuFuncSetAttribute(b, f, a, value) });
    }
    let f = hip_fn!(b, hipFuncSetAttribute);
    let a = match crate::conv::enum_arg(b.conv().cudaFuncAttribute, attr) {
        Ok(v) => v,
        Err(crate::conv::Refusal::NotSupported) => return cudaError_t::cudaErrorNotSupported,
        Err(_) => return cudaError_t::cudaErrorInvalidValue,
    };
    // SAFETY: CUDA's contract for `func` (a host function); HIP validates it.
    b.rt(unsafe { f(func, a as _, value) })
}

// ---------------------------------------------------------------- function handles

/// `cuModuleGetFunction` → `hipModuleGetFunction`; the handle is remembered (with its module)
/// so the legacy execution-control calls can tell it from a bogus one.
pub(crate) unsafe fn cuModuleGetFunction(
    b: &HipBackend,
    hfunc: *mut CUfunction,
    hmod: CUmodule,
    name: *const c_char,
) -> CUresult {
    let f = hip_fn!(b, hipModuleGetFunction);
    // SAFETY: forwarded contract; HIP validates the module and the name.
    let e = unsafe { f(hfunc.cast(), hmod.cast(), name) };
    if e == HIP_SUCCESS && !hfunc.is_null() && !name.is_null() {
        // SAFETY: HIP wrote the handle.
        let func = unsafe { *hfunc };
        launch_legacy::remember(func, hmod);
        // SAFETY: the caller's NUL-terminated name (HIP just found it).
        let n = unsafe { core::ffi::CStr::from_ptr(name) };
        module_params::function_found(func, hmod, n.to_bytes());
    }
    b.cu(e)
}

/// `cuFuncGetName` (no HIP counterpart): the name the function was found by, kept when
/// `cuModuleGetFunction` handed it out ([`module_params::name`]), valid until its module is
/// unloaded; a `CUkernel` cast to a `CUfunction` answers its kernel's name. NULL arguments →
/// `CUDA_ERROR_INVALID_VALUE` (as CUDA), a handle anycuda did not hand out → invalid handle.
pub(crate) unsafe fn cuFuncGetName(
    b: &HipBackend,
    name: *mut *const c_char,
    hfunc: CUfunction,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if name.is_null() || hfunc.is_null() {
        return INVALID_VALUE;
    }
    if super::library::is_kernel(hfunc.cast_const().cast()) {
        // SAFETY: forwarded contract (non-NULL out-pointer).
        return unsafe { super::library::cuKernelGetName(b, name, hfunc.cast()) };
    }
    let Some(p) = module_params::name(hfunc) else {
        return CUresult::CUDA_ERROR_INVALID_HANDLE;
    };
    // SAFETY: checked non-NULL.
    unsafe { *name = p };
    SUCCESS
}

/// `cuModuleUnload` → `hipModuleUnload`; the module's remembered functions are forgotten.
pub(crate) unsafe fn cuModuleUnload(b: &HipBackend, hmod: CUmodule) -> CUresult {
    let f = hip_fn!(b, hipModuleUnload);
    // SAFETY: forwarded contract; HIP validates the module.
    let e = unsafe { f(hmod.cast()) };
    if e == HIP_SUCCESS {
        launch_legacy::forget_module(hmod);
        module_params::module_unloaded(hmod);
    }
    b.cu(e)
}

// ---------------------------------------------------------------- Runtime calls on a kernel
//
// CUDA lets a `cudaKernel_t` stand for the function in every Runtime call that takes one; HIP's
// Runtime calls take host stubs only and would read anycuda's kernel handle as one. Each such
// call is adapted (launches: adapt/launch.rs; attributes and occupancy: above): a kernel handle
// becomes its module function and goes the Driver's way.

/// `cudaFuncSetCacheConfig`: a kernel handle as `cuFuncSetCacheConfig` on its function; a host
/// stub as generated (`hipFuncSetCacheConfig`, the preference translated).
pub(crate) unsafe fn cudaFuncSetCacheConfig(
    b: &HipBackend,
    func: *const c_void,
    cacheConfig: anycuda_api::runtime::cudaFuncCache,
) -> cudaError_t {
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: a function of this backend.
        let r = unsafe { cuFuncSetCacheConfig(b, f, CUfunc_cache(cacheConfig.0)) };
        return crate::conv::driver_to_runtime(r);
    }
    let h =
        tri!(crate::conv::enum_arg(b.conv().cudaFuncCache, cacheConfig).map_err(cudaError_t::from));
    let f = hip_fn!(b, hipFuncSetCacheConfig);
    // SAFETY: the caller's host stub; HIP validates it.
    b.rt(unsafe { f(func, h as _) })
}

/// `cudaFuncSetSharedMemConfig`: a kernel handle as `cuFuncSetSharedMemConfig` on its function;
/// a host stub as generated (`hipFuncSetSharedMemConfig`, the configuration translated).
pub(crate) unsafe fn cudaFuncSetSharedMemConfig(
    b: &HipBackend,
    func: *const c_void,
    config: anycuda_api::runtime::cudaSharedMemConfig,
) -> cudaError_t {
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: a function of this backend.
        let r = unsafe { cuFuncSetSharedMemConfig(b, f, CUsharedconfig(config.0)) };
        return crate::conv::driver_to_runtime(r);
    }
    let h = tri!(
        crate::conv::enum_arg(b.conv().cudaSharedMemConfig, config).map_err(cudaError_t::from)
    );
    let f = hip_fn!(b, hipFuncSetSharedMemConfig);
    // SAFETY: the caller's host stub; HIP validates it.
    b.rt(unsafe { f(func, h as _) })
}

/// `cudaOccupancyAvailableDynamicSMemPerBlock` → `hipOccupancyAvailableDynamicSMemPerBlock`
/// (HIP 7.2+) for a host stub; a kernel handle is resolved (a bad one is refused) and then not
/// supported: HIP has no module-function form of the query.
pub(crate) unsafe fn cudaOccupancyAvailableDynamicSMemPerBlock(
    b: &HipBackend,
    dynamicSmemSize: *mut usize,
    func: *const c_void,
    numBlocks: c_int,
    blockSize: c_int,
) -> cudaError_t {
    if dynamicSmemSize.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if let Some(f) = super::library::runtime_function_of(b, func) {
        tri!(f);
        return cudaError_t::cudaErrorNotSupported;
    }
    let f = hip_fn!(b, hipOccupancyAvailableDynamicSMemPerBlock);
    // SAFETY: non-NULL out-pointer; the caller's host stub, which HIP validates.
    b.rt(unsafe { f(dynamicSmemSize, func, numBlocks, blockSize) })
}
