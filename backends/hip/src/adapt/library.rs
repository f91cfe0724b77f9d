//! CUDA's library API (`cuLibrary*`, `cuKernel*`, `cudaLibrary*`) built from HIP's module API.
//!
//! HIP has `hipLibrary*` only from 7.1; the releases anycuda serves (5.2 to 7.x, and HIP's
//! NVIDIA platform built from 5.2.3) mostly have none. So on every HIP version the library API
//! is emulated here, one behaviour everywhere (HIP 7.1's own `hipLibrary*` is not used):
//!
//! - A library is context-independent, as in CUDA: `cuLibraryLoadData` checks and copies the
//!   image (and reads its kernels' names and parameter layouts where the format allows) but
//!   loads nothing. The image is loaded with `cuModuleLoadDataEx` (this backend's, so AMD code
//!   objects, offload bundles, PTX with an anycuda source bundle and the refusal of NVIDIA-only
//!   images all behave as for modules: `adapt/module.rs`, `adapt/image.rs`) into a module per
//!   context on first use there: `cuKernelGetFunction`, a launch of the kernel handle,
//!   `cuLibraryGetModule`, `cuLibraryGetGlobal`. This is CUDA's lazy loading
//!   (`CUDA_MODULE_LOADING=LAZY`, CUDA's default since 12.2) made the only mode.
//! - "A context" is what HIP loads a module into: on AMD the current device (HIP's contexts
//!   are its devices), on HIP's NVIDIA platform the current CUDA context.
//! - Handles (`CUlibrary`, `CUkernel`) are anycuda's own: a tag in the top 16 bits (never a
//!   user-space address on x86-64) and a counter, so a bogus, stale or foreign handle is
//!   `CUDA_ERROR_INVALID_HANDLE` without touching memory, and a kernel handle cast to a
//!   `CUfunction` or a host function pointer (which CUDA allows) is recognised by one compare
//!   on the launch path ([`function_of`]). Handles stay valid until `cuLibraryUnload`, which
//!   unloads every per-context module.
//! - Kernel names: taken from the image where [`anycuda_rtc::params`] reads it (PTX, cubins,
//!   AMD code objects, offload bundles), so `cuLibraryGetKernel` answers
//!   `CUDA_ERROR_NOT_FOUND` for an unknown name and `cuLibraryGetKernelCount` /
//!   `cuLibraryEnumerateKernels` work without a device; for other formats the name is checked
//!   by loading into the current context, and the count is not supported.
//! - JIT options are CUDA's hints: checked (an unknown option is invalid), scalar ones kept for
//!   every per-context load; the output options (logs, wall time) report "nothing produced",
//!   because no compile happens during the call; pointer-array options (global symbols,
//!   referenced names) cannot be kept past the call and are refused (logged).
//! - Library options: `CU_LIBRARY_BINARY_IS_PRESERVED` is honoured (the caller's image is used
//!   in place when its size cannot be measured); `CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE`
//!   (nvcc's runtime registration) is not supported (logged).
//! - `cuLibraryGetManaged`: HIP's module API has no lookup for `__managed__` variables: not
//!   supported (logged) after the handle and name checks.

use super::support::{
    no_device_or, nvidia, table, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS,
};
use crate::conv::driver_to_runtime;
use crate::HipBackend;
use anycuda_api::driver::{
    CUdevice, CUdeviceptr, CUfunc_cache, CUfunction, CUfunction_attribute, CUjit_option, CUkernel,
    CUlibrary, CUlibraryOption, CUmodule, CUresult,
};
use anycuda_api::runtime::{
    cudaError_t, cudaFuncAttribute, cudaJitOption, cudaKernel_t, cudaLibraryOption, cudaLibrary_t,
};
use anycuda_api::traits::Driver;
use anycuda_rtc::params::{kernel_params, KernelParams};
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex, MutexGuard};

const _: () = assert!(usize::BITS == 64, "the handle tags assume 64-bit pointers");

/// Top 16 bits of a `CUlibrary` anycuda hands out: non-canonical on x86-64 (bits 63..47 not all
/// equal), so never an address, and bit 63 clear, so the handle is positive as an `intptr_t`
/// (cuda.core reads handles so and refused negative ones).
const LIBRARY_TAG: usize = 0x2CB1 << 48;
/// Top 16 bits of a `CUkernel` anycuda hands out (as [`LIBRARY_TAG`]).
const KERNEL_TAG: usize = 0x2CC1 << 48;
const TAG_MASK: usize = 0xFFFF << 48;

const INVALID_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;
const NOT_FOUND: CUresult = CUresult::CUDA_ERROR_NOT_FOUND;

/// Whether `p` is a kernel handle of this emulation (one compare; no lock).
#[inline]
pub(crate) fn is_kernel(p: *const c_void) -> bool {
    (p as usize) & TAG_MASK == KERNEL_TAG
}

/// Where HIP puts a module: on AMD the device (contexts are devices), on HIP's NVIDIA platform
/// the CUDA context (and its device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    ctx: usize,
    device: c_int,
}

/// The bytes every per-context load uses.
#[derive(Clone)]
enum Image {
    /// A copy (PTX text ends with its NUL).
    Owned(Arc<[u8]>),
    /// The caller's image, used in place (`CU_LIBRARY_BINARY_IS_PRESERVED`).
    Preserved(usize),
}

impl Image {
    fn as_ptr(&self) -> *const c_void {
        match self {
            Image::Owned(b) => b.as_ptr().cast(),
            Image::Preserved(p) => *p as *const c_void,
        }
    }
}

struct Library {
    image: Image,
    /// Scalar JIT options, passed to every per-context load.
    jit: Arc<[(CUjit_option, usize)]>,
    /// The image's kernels (names and parameter layouts), where the format could be read.
    kernels_in_image: Option<Arc<[KernelParams]>>,
    /// Whether that list is the image's own kernel table (PTX `.entry`s, AMD metadata), so a
    /// name missing from it is no kernel. A cubin's list comes from its `.nv.info.<name>`
    /// sections, which anycuda does not take as proof of absence: a name missing there is
    /// asked of the loader.
    names_exact: bool,
    /// One module per context it was loaded into.
    modules: Vec<(Key, usize)>,
    /// Kernel handles handed out: name → id.
    kernels: HashMap<CString, usize>,
}

struct Kernel {
    library: usize,
    name: CString,
    /// The function in each context it was resolved in.
    functions: Vec<(Key, usize)>,
}

#[derive(Default)]
struct Registry {
    next: usize,
    libraries: HashMap<usize, Library>,
    kernels: HashMap<usize, Kernel>,
}

impl Registry {
    fn fresh(&mut self) -> usize {
        self.next += 1;
        self.next
    }
    fn library(&mut self, h: usize) -> Result<&mut Library, CUresult> {
        self.libraries.get_mut(&h).ok_or(INVALID_HANDLE)
    }
    /// The handle of kernel `name` of library `lib`, made on first request.
    fn kernel_handle(&mut self, lib: usize, name: &CStr) -> Result<usize, CUresult> {
        if let Some(&k) = self.library(lib)?.kernels.get(name) {
            return Ok(k);
        }
        let k = KERNEL_TAG | self.fresh();
        self.library(lib)?.kernels.insert(name.to_owned(), k);
        self.kernels.insert(
            k,
            Kernel {
                library: lib,
                name: name.to_owned(),
                functions: Vec::new(),
            },
        );
        Ok(k)
    }
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn registry() -> MutexGuard<'static, Option<Registry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `f` on the registry (made on first use).
fn with_registry<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    let mut g = registry();
    f(g.get_or_insert_with(Registry::default))
}

/// The context HIP would load a module into now. `runtime`: a Runtime API call, which (as
/// CUDA's runtime) makes the current device's primary context current when none is (HIP's
/// NVIDIA platform; on AMD HIP always has a current device).
fn current_key(b: &HipBackend, runtime: bool) -> Result<Key, CUresult> {
    let t = table::<CUresult>(b)?;
    let get_dev = t.hipGetDevice.ok_or(NOT_SUPPORTED)?;
    let mut device: c_int = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { get_dev(&mut device) };
    if e != HIP_SUCCESS {
        return Err(no_device_or(b, b.cu(e)));
    }
    if !nvidia(b) {
        return Ok(Key { ctx: 0, device });
    }
    let get_ctx = t.hipCtxGetCurrent.ok_or(NOT_SUPPORTED)?;
    let mut ctx: crate::hip_types::hipCtx_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer.
    let e = unsafe { get_ctx(&mut ctx) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    if ctx.is_null() && runtime {
        let set = t.hipSetDevice.ok_or(NOT_SUPPORTED)?;
        // SAFETY: plain call; makes the device's primary context current, as CUDA's runtime.
        let e = unsafe { set(device) };
        if e != HIP_SUCCESS {
            return Err(b.cu(e));
        }
        // SAFETY: valid out-pointer.
        let e = unsafe { get_ctx(&mut ctx) };
        if e != HIP_SUCCESS {
            return Err(b.cu(e));
        }
    }
    if ctx.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
    }
    Ok(Key {
        ctx: ctx as usize,
        device,
    })
}

/// Loads `image` into the current context with the library's JIT options, through this
/// backend's `cuModuleLoadDataEx` (bundles, refusals, parameter layouts).
fn load_module(
    b: &HipBackend,
    image: &Image,
    jit: &[(CUjit_option, usize)],
) -> Result<CUmodule, CUresult> {
    let mut opts: Vec<CUjit_option> = jit.iter().map(|&(o, _)| o).collect();
    let mut vals: Vec<*mut c_void> = jit.iter().map(|&(_, v)| v as *mut c_void).collect();
    let mut m: CUmodule = core::ptr::null_mut();
    // SAFETY: `image` is the library's complete image (a copy it owns, kept alive by the
    // caller's clone, or the caller's preserved one); the option arrays live for the call and
    // hold only scalar options.
    let r = unsafe {
        b.cuModuleLoadDataEx(
            &mut m,
            image.as_ptr(),
            opts.len() as c_uint,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
        )
    };
    if r == SUCCESS {
        Ok(m)
    } else {
        Err(r)
    }
}

/// Unloads per-context modules of an unloaded library (or one loaded twice by a race). On HIP's
/// NVIDIA platform each module's context is made current for its unload.
fn unload_modules(b: &HipBackend, modules: &[(Key, usize)]) {
    let t = b.native_hip();
    for &(key, m) in modules {
        let pushed = nvidia(b)
            && key.ctx != 0
            && match t.and_then(|t| t.hipCtxPushCurrent) {
                // SAFETY: a context the module was loaded into (CUDA's handle, passed through).
                Some(push) => (unsafe { push(key.ctx as _) }) == HIP_SUCCESS,
                None => false,
            };
        // SAFETY: a module this emulation loaded and nothing else unloads.
        let r = unsafe { b.cuModuleUnload(m as CUmodule) };
        if r != SUCCESS {
            log::debug!("anycuda (HIP): unloading a library's module {m:#x}: {r:?}");
        }
        if pushed {
            if let Some(pop) = t.and_then(|t| t.hipCtxPopCurrent) {
                let mut c: crate::hip_types::hipCtx_t = core::ptr::null_mut();
                // SAFETY: pops what was pushed above.
                unsafe { pop(&mut c) };
            }
        }
    }
}

/// The module of library `lib` in the current context, loaded there on first use.
fn module_of(b: &HipBackend, lib: usize, runtime: bool) -> Result<CUmodule, CUresult> {
    let key = current_key(b, runtime)?;
    let found = with_registry(|r| -> Result<_, CUresult> {
        let l = r.library(lib)?;
        Ok(match l.modules.iter().find(|(k, _)| *k == key) {
            Some(&(_, m)) => Err(m as CUmodule),
            None => Ok((l.image.clone(), l.jit.clone())),
        })
    })?;
    let (image, jit) = match found {
        Ok(pair) => pair,
        Err(m) => return Ok(m),
    };
    let m = load_module(b, &image, &jit)?;
    let placed = with_registry(|r| match r.libraries.get_mut(&lib) {
        None => Err(None),
        Some(l) => match l.modules.iter().find(|(k, _)| *k == key) {
            Some(&(_, other)) => Err(Some(other)),
            None => {
                l.modules.push((key, m as usize));
                Ok(())
            }
        },
    });
    match placed {
        Ok(()) => Ok(m),
        Err(other) => {
            // Unloaded meanwhile, or another thread loaded it first: ours goes.
            unload_modules(b, &[(key, m as usize)]);
            other.map(|o| o as CUmodule).ok_or(INVALID_HANDLE)
        }
    }
}

/// The function of kernel handle `k` in the current context (its library loaded there first if
/// needed), remembered for the next call.
fn function_in_context(b: &HipBackend, k: usize, runtime: bool) -> Result<CUfunction, CUresult> {
    // The handle first (as CUDA validates it), then the context.
    if !with_registry(|r| r.kernels.contains_key(&k)) {
        return Err(INVALID_HANDLE);
    }
    let key = current_key(b, runtime)?;
    let found = with_registry(|r| -> Result<_, CUresult> {
        let kernel = r.kernels.get(&k).ok_or(INVALID_HANDLE)?;
        Ok(match kernel.functions.iter().find(|(c, _)| *c == key) {
            Some(&(_, f)) => Err(f as CUfunction),
            None => Ok((kernel.library, kernel.name.clone())),
        })
    })?;
    let (lib, name) = match found {
        Ok(v) => v,
        Err(f) => return Ok(f),
    };
    let m = module_of(b, lib, runtime)?;
    let mut f: CUfunction = core::ptr::null_mut();
    // SAFETY: valid out-pointer, a module this emulation loaded, a NUL-terminated name.
    let r = unsafe { b.cuModuleGetFunction(&mut f, m, name.as_ptr()) };
    if r != SUCCESS {
        return Err(r);
    }
    with_registry(|r| {
        let kernel = r.kernels.get_mut(&k).ok_or(INVALID_HANDLE)?;
        if !kernel.functions.iter().any(|(c, _)| *c == key) {
            kernel.functions.push((key, f as usize));
        }
        Ok(f)
    })
}

/// A `CUfunction` argument as HIP needs it: a kernel handle of this emulation (CUDA lets a
/// `CUkernel` be passed where a `CUfunction` is expected) becomes the current context's
/// function; anything else is returned as it is. One compare unless it is a kernel handle.
#[inline]
pub(crate) fn function_of(b: &HipBackend, f: CUfunction) -> Result<CUfunction, CUresult> {
    if is_kernel(f.cast_const().cast()) {
        function_in_context(b, f as usize, false)
    } else {
        Ok(f)
    }
}

/// The kernel handle whose function (in some context) is `f`, if `f` was handed out for one:
/// what a kernel node's parameters report as `kern` (CUDA keeps the handle a node was made
/// with; HIP's node keeps only the function). `None` for a function from `cuModuleGetFunction`.
pub(crate) fn kernel_of_function(f: CUfunction) -> Option<CUkernel> {
    if f.is_null() {
        return None;
    }
    let f = f as usize;
    with_registry(|r| {
        r.kernels
            .iter()
            .find(|(_, k)| k.functions.iter().any(|&(_, g)| g == f))
            .map(|(&h, _)| h as CUkernel)
    })
}

/// As [`function_of`] for the Runtime API (a `cudaKernel_t` passed where a host function
/// pointer is expected): `None` when `func` is no kernel handle (the caller goes on as before),
/// else the function or the Runtime API's error.
#[inline]
pub(crate) fn runtime_function_of(
    b: &HipBackend,
    func: *const c_void,
) -> Option<Result<CUfunction, cudaError_t>> {
    if is_kernel(func) {
        Some(function_in_context(b, func as usize, true).map_err(driver_to_runtime))
    } else {
        None
    }
}

/// Logs why a request is refused (the code alone cannot say) and returns `code`.
fn refused(code: CUresult, why: &str) -> CUresult {
    log::error!("anycuda (HIP): {why}");
    code
}

// ------------------------------------------------------------------ loading

/// JIT options as a library keeps them: checked as `cuModuleLoadDataEx` checks them, outputs
/// answered "nothing produced" (no compile happens during the call), pointer arrays refused
/// (they cannot be kept past the call), the rest kept for every per-context load.
///
/// # Safety
/// `options`/`values` are NULL or hold `n` entries, `values` writable (CUDA's contract).
unsafe fn library_jit(
    b: &HipBackend,
    n: c_uint,
    options: *const CUjit_option,
    values: *mut *mut c_void,
) -> Result<Vec<(CUjit_option, usize)>, CUresult> {
    // SAFETY: forwarded contract (reads only); an unknown option number is invalid.
    unsafe { crate::conv::module::jit_options(b, false, n, options, values) }?;
    let mut keep = Vec::new();
    for i in 0..n as usize {
        // SAFETY: the caller's arrays of `n` entries (non-NULL: checked above when n > 0).
        let (o, v) = unsafe { (*options.add(i), *values.add(i)) };
        match o {
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
            | CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => {
                let buffer = if o == CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES {
                    CUjit_option::CU_JIT_INFO_LOG_BUFFER
                } else {
                    CUjit_option::CU_JIT_ERROR_LOG_BUFFER
                };
                for k in 0..n as usize {
                    // SAFETY: as above; a log buffer of non-zero declared size has a first byte.
                    unsafe {
                        let p = (*values.add(k)).cast::<c_char>();
                        if *options.add(k) == buffer && !p.is_null() && !v.is_null() {
                            *p = 0;
                        }
                    }
                }
                // SAFETY: as above (the size is in/out: zero bytes written).
                unsafe { *values.add(i) = core::ptr::null_mut() };
            }
            // SAFETY: as above; CUDA passes the float in the slot itself (0.0 is all zeros).
            CUjit_option::CU_JIT_WALL_TIME => unsafe { *values.add(i) = core::ptr::null_mut() },
            CUjit_option::CU_JIT_INFO_LOG_BUFFER | CUjit_option::CU_JIT_ERROR_LOG_BUFFER => {}
            CUjit_option::CU_JIT_GLOBAL_SYMBOL_NAMES
            | CUjit_option::CU_JIT_GLOBAL_SYMBOL_ADDRESSES
            | CUjit_option::CU_JIT_GLOBAL_SYMBOL_COUNT
            | CUjit_option::CU_JIT_REFERENCED_KERNEL_NAMES
            | CUjit_option::CU_JIT_REFERENCED_KERNEL_COUNT
            | CUjit_option::CU_JIT_REFERENCED_VARIABLE_NAMES
            | CUjit_option::CU_JIT_REFERENCED_VARIABLE_COUNT => {
                return Err(refused(
                    NOT_SUPPORTED,
                    &format!(
                        "library JIT option {o:?}: the HIP backend loads a library into each \
                         context when it is first used there, after the call, so it cannot keep \
                         the caller's symbol arrays; load the image with cuModuleLoadDataEx"
                    ),
                ))
            }
            _ => keep.push((o, v as usize)),
        }
    }
    Ok(keep)
}

/// Library options: `Ok(true)` when the caller preserves the image
/// (`CU_LIBRARY_BINARY_IS_PRESERVED` with a non-zero value).
///
/// # Safety
/// `options`/`values` are NULL or hold `n` entries.
unsafe fn library_options(
    n: c_uint,
    options: *const CUlibraryOption,
    values: *const *mut c_void,
) -> Result<bool, CUresult> {
    if n == 0 {
        return Ok(false);
    }
    if options.is_null() || values.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut preserved = false;
    for i in 0..n as usize {
        // SAFETY: the caller's arrays of `n` entries.
        let (o, v) = unsafe { (*options.add(i), *values.add(i)) };
        match o {
            CUlibraryOption::CU_LIBRARY_BINARY_IS_PRESERVED => preserved = !v.is_null(),
            CUlibraryOption::CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE => {
                return Err(refused(
                    NOT_SUPPORTED,
                    "library option CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE (nvcc's \
                     runtime registration of host functions and variables) is not supported on \
                     the HIP backend",
                ))
            }
            _ => return Err(INVALID_VALUE),
        }
    }
    Ok(preserved)
}

/// Checks, copies and registers an image: the body of both load calls.
///
/// # Safety
/// `code` is a complete image (CUDA's contract); `preserved` only if it outlives the library;
/// the option arrays as [`library_jit`].
unsafe fn load(
    b: &HipBackend,
    library: *mut CUlibrary,
    code: *const c_void,
    preserved: bool,
    n_jit: c_uint,
    jit_options: *const CUjit_option,
    jit_values: *mut *mut c_void,
) -> CUresult {
    // The arguments first (as CUDA checks them), then the image.
    // SAFETY: the caller's option arrays (CUDA's contract).
    let jit = tri!(unsafe { library_jit(b, n_jit, jit_options, jit_values) });
    // SAFETY: the caller's image. On AMD, NVIDIA-only formats are refused with the way out.
    tri!(unsafe { super::image::check_library_image(b, code) });
    // SAFETY: as above; only what the image's own headers describe is read.
    let len = unsafe { anycuda_rtc::params::image_len(code) };
    // Text is measured up to its NUL, which the copy keeps.
    // SAFETY: as above.
    let len = len.map(|n| n + usize::from(unsafe { super::image::is_text_image(code) }));
    // SAFETY: `n` bytes of the caller's image, measured from its own headers.
    let bytes = len.map(|n| unsafe { core::slice::from_raw_parts(code.cast::<u8>(), n) });
    // A fat binary, or nvcc's wrapper of one (NVIDIA's statically linked runtime passes the
    // wrapper): the fat binary itself, measured from its header, is what is kept.
    // SAFETY: as above (checked by `check_library_image` where images are held to AMD's).
    let bytes = bytes.or_else(|| unsafe { super::image::fatbin_of(code) });
    let image =
        match (bytes, preserved) {
            (Some(bytes), false) => Image::Owned(bytes.into()),
            (_, true) => Image::Preserved(code as usize),
            (None, false) => return refused(
                NOT_SUPPORTED,
                "cuLibraryLoadData: the HIP backend loads a library into each context when it is \
                 first used there, so it keeps a copy of the image, but this image's size cannot \
                 be read from its headers (a compressed offload bundle or an unknown format); \
                 pass CU_LIBRARY_BINARY_IS_PRESERVED = 1 and keep the image alive until \
                 cuLibraryUnload, or use cuModuleLoadData",
            ),
        };
    let names_exact = bytes.is_some_and(|i| {
        super::image::image_kind(&i[..i.len().min(20)]) != super::image::ImageKind::NvidiaCubin
    });
    let kernels_in_image = bytes.and_then(|i| match kernel_params(i) {
        Ok(ks) => Some(Arc::<[KernelParams]>::from(ks)),
        Err(e) => {
            log::debug!("anycuda (HIP): library kernels read when first used: {e}");
            None
        }
    });
    let h = with_registry(|r| {
        let h = LIBRARY_TAG | r.fresh();
        r.libraries.insert(
            h,
            Library {
                image,
                jit: jit.into(),
                kernels_in_image,
                names_exact,
                modules: Vec::new(),
                kernels: HashMap::new(),
            },
        );
        h
    });
    // SAFETY: checked non-NULL by the callers.
    unsafe { *library = h as CUlibrary };
    SUCCESS
}

/// `cuLibraryLoadData`: the image checked (NVIDIA-only formats refused on AMD with the way out,
/// `adapt/image.rs`), copied (or used in place when preserved), its kernels read; it is loaded
/// into each context on first use there. No device is needed.
pub(crate) unsafe fn cuLibraryLoadData(
    b: &HipBackend,
    library: *mut CUlibrary,
    code: *const c_void,
    jitOptions: *mut CUjit_option,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut CUlibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if library.is_null() || code.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's option arrays (CUDA's contract).
    let preserved =
        tri!(unsafe { library_options(numLibraryOptions, libraryOptions, libraryOptionValues) });
    // SAFETY: forwarded contract.
    unsafe {
        load(
            b,
            library,
            code,
            preserved,
            numJitOptions,
            jitOptions,
            jitOptionsValues,
        )
    }
}

/// `cuLibraryLoadFromFile`: the file read, then as [`cuLibraryLoadData`] on a copy; a missing
/// file is `CUDA_ERROR_FILE_NOT_FOUND`, an empty one `CUDA_ERROR_INVALID_IMAGE`.
pub(crate) unsafe fn cuLibraryLoadFromFile(
    b: &HipBackend,
    library: *mut CUlibrary,
    fileName: *const c_char,
    jitOptions: *mut CUjit_option,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut CUlibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if library.is_null() || fileName.is_null() {
        return INVALID_VALUE;
    }
    // The library keeps its own copy of a file, so preservation is moot; the options are
    // still checked.
    // SAFETY: the caller's option arrays (CUDA's contract).
    tri!(unsafe { library_options(numLibraryOptions, libraryOptions, libraryOptionValues) });
    // SAFETY: the caller's NUL-terminated path.
    let name = unsafe { CStr::from_ptr(fileName) };
    let path = {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes()))
    };
    let mut bytes = match std::fs::read(&path) {
        Ok(b) if !b.is_empty() => b,
        Ok(_) => return CUresult::CUDA_ERROR_INVALID_IMAGE,
        Err(e) => {
            return refused(
                CUresult::CUDA_ERROR_FILE_NOT_FOUND,
                &format!("cuLibraryLoadFromFile: {}: {e}", path.display()),
            )
        }
    };
    // In-memory text (PTX) must end with a NUL; for binaries the extra byte is never read.
    bytes.push(0);
    // SAFETY: our buffer, a complete image, copied by `load` (not preserved).
    unsafe {
        load(
            b,
            library,
            bytes.as_ptr().cast(),
            false,
            numJitOptions,
            jitOptions,
            jitOptionsValues,
        )
    }
}

/// `cuLibraryUnload`: forgets the library and its kernels (their handles become invalid) and
/// unloads the module of every context it was loaded into.
pub(crate) unsafe fn cuLibraryUnload(b: &HipBackend, library: CUlibrary) -> CUresult {
    tri!(table::<CUresult>(b));
    let removed = with_registry(|r| {
        let l = r.libraries.remove(&(library as usize))?;
        for k in l.kernels.values() {
            r.kernels.remove(k);
        }
        Some(l.modules)
    });
    match removed {
        Some(modules) => {
            unload_modules(b, &modules);
            SUCCESS
        }
        None => INVALID_HANDLE,
    }
}

// ------------------------------------------------------------------ queries

/// The library's kernels as read from its image, if they could be.
fn kernels_in_image(lib: usize) -> Result<Option<Arc<[KernelParams]>>, CUresult> {
    with_registry(|r| Ok(r.library(lib)?.kernels_in_image.clone()))
}

/// `cuLibraryGetKernel`: the handle of kernel `name` (the same handle every time). The name is
/// checked against the image's kernels (`CUDA_ERROR_NOT_FOUND` if absent) without a device;
/// for an image whose kernels cannot be read, by loading it into the current context.
pub(crate) unsafe fn cuLibraryGetKernel(
    b: &HipBackend,
    pKernel: *mut CUkernel,
    library: CUlibrary,
    name: *const c_char,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if pKernel.is_null() || name.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name) };
    let lib = library as usize;
    let (listed, exact) = tri!(with_registry(|r| {
        let l = r.library(lib)?;
        let listed = l
            .kernels_in_image
            .as_ref()
            .map(|ks| ks.iter().any(|k| k.name.as_bytes() == name.to_bytes()));
        Ok(listed.map(|found| (found, l.names_exact)))
    }))
    .unwrap_or((false, false));
    match (listed, exact) {
        (true, _) => {}
        (false, true) => {
            log::debug!("anycuda (HIP): cuLibraryGetKernel: no kernel {name:?}");
            return NOT_FOUND;
        }
        (false, false) => {
            let m = tri!(module_of(b, lib, false));
            let mut f: CUfunction = core::ptr::null_mut();
            // SAFETY: valid out-pointer; a module this emulation loaded; the caller's name.
            tri!(super::support::code_ok(unsafe {
                b.cuModuleGetFunction(&mut f, m, name.as_ptr())
            }));
        }
    }
    let k = tri!(with_registry(|r| r.kernel_handle(lib, name)));
    // SAFETY: checked non-NULL.
    unsafe { *pKernel = k as CUkernel };
    SUCCESS
}

/// `cuLibraryGetModule`: the library's module in the current context (loaded there first if
/// needed).
pub(crate) unsafe fn cuLibraryGetModule(
    b: &HipBackend,
    pMod: *mut CUmodule,
    library: CUlibrary,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if pMod.is_null() {
        return INVALID_VALUE;
    }
    tri!(kernels_in_image(library as usize));
    let m = tri!(module_of(b, library as usize, false));
    // SAFETY: checked non-NULL.
    unsafe { *pMod = m };
    SUCCESS
}

/// `cuLibraryGetKernelCount`: the number of kernels in the image; not supported (logged) for an
/// image whose kernels anycuda cannot read.
pub(crate) unsafe fn cuLibraryGetKernelCount(
    b: &HipBackend,
    count: *mut c_uint,
    lib: CUlibrary,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if count.is_null() {
        return INVALID_VALUE;
    }
    let Some(ks) = tri!(kernels_in_image(lib as usize)) else {
        return refused(
            NOT_SUPPORTED,
            "cuLibraryGetKernelCount: the kernels of this image cannot be read on the HIP backend",
        );
    };
    // SAFETY: checked non-NULL.
    unsafe { *count = ks.len().try_into().unwrap_or(c_uint::MAX) };
    SUCCESS
}

/// `cuLibraryEnumerateKernels`: handles of the image's first `numKernels` kernels, in the
/// image's order; not supported (logged) for an image whose kernels anycuda cannot read.
pub(crate) unsafe fn cuLibraryEnumerateKernels(
    b: &HipBackend,
    kernels: *mut CUkernel,
    numKernels: c_uint,
    lib: CUlibrary,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if kernels.is_null() || numKernels == 0 {
        return INVALID_VALUE;
    }
    let lib = lib as usize;
    let Some(ks) = tri!(kernels_in_image(lib)) else {
        return refused(
            NOT_SUPPORTED,
            "cuLibraryEnumerateKernels: the kernels of this image cannot be read on the HIP backend",
        );
    };
    for (i, k) in ks.iter().take(numKernels as usize).enumerate() {
        let Ok(name) = CString::new(k.name.as_bytes()) else {
            return INVALID_VALUE;
        };
        let h = tri!(with_registry(|r| r.kernel_handle(lib, &name)));
        // SAFETY: the caller's array of `numKernels` entries.
        unsafe { *kernels.add(i) = h as CUkernel };
    }
    SUCCESS
}

/// `cuLibraryGetGlobal`: `cuModuleGetGlobal` on the library's module in the current context;
/// either out-pointer may be NULL, as on CUDA.
pub(crate) unsafe fn cuLibraryGetGlobal(
    b: &HipBackend,
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: CUlibrary,
    name: *const c_char,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if name.is_null() {
        return INVALID_VALUE;
    }
    tri!(kernels_in_image(library as usize));
    let m = tri!(module_of(b, library as usize, false));
    let (mut p, mut n): (CUdeviceptr, usize) = (0, 0);
    // SAFETY: out-pointers to locals; a module this emulation loaded; the caller's name.
    tri!(super::support::code_ok(unsafe {
        b.cuModuleGetGlobal(&mut p, &mut n, m, name)
    }));
    // SAFETY: the caller's out-pointers, each written only when non-NULL.
    unsafe {
        if !dptr.is_null() {
            *dptr = p;
        }
        if !bytes.is_null() {
            *bytes = n;
        }
    }
    SUCCESS
}

/// `cuLibraryGetManaged`: HIP's module API has no lookup for `__managed__` variables: not
/// supported (logged), after CUDA's checks of the handle and the name.
pub(crate) unsafe fn cuLibraryGetManaged(
    b: &HipBackend,
    _dptr: *mut CUdeviceptr,
    _bytes: *mut usize,
    library: CUlibrary,
    name: *const c_char,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if name.is_null() {
        return INVALID_VALUE;
    }
    tri!(kernels_in_image(library as usize));
    refused(
        NOT_SUPPORTED,
        "cuLibraryGetManaged: HIP's module API cannot look up __managed__ variables",
    )
}

// ------------------------------------------------------------------ kernels

/// The library and name of kernel handle `k`.
fn kernel_entry(k: CUkernel) -> Result<(usize, CString), CUresult> {
    with_registry(|r| {
        let e = r.kernels.get(&(k as usize)).ok_or(INVALID_HANDLE)?;
        Ok((e.library, e.name.clone()))
    })
}

/// `cuKernelGetFunction`: the kernel's function in the current context (its library loaded
/// there first if needed).
pub(crate) unsafe fn cuKernelGetFunction(
    b: &HipBackend,
    pFunc: *mut CUfunction,
    kernel: CUkernel,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if pFunc.is_null() {
        return INVALID_VALUE;
    }
    if !is_kernel(kernel.cast_const().cast()) {
        return INVALID_HANDLE;
    }
    let f = tri!(function_in_context(b, kernel as usize, false));
    // SAFETY: checked non-NULL.
    unsafe { *pFunc = f };
    SUCCESS
}

/// `cuKernelGetName`: the kernel's name, valid until its library is unloaded.
pub(crate) unsafe fn cuKernelGetName(
    b: &HipBackend,
    name: *mut *const c_char,
    hfunc: CUkernel,
) -> CUresult {
    tri!(table::<CUresult>(b));
    // A NULL kernel is an invalid value on CUDA (cuda.bindings checks it), not a bad handle.
    if name.is_null() || hfunc.is_null() {
        return INVALID_VALUE;
    }
    // The registry owns the name's bytes until the library is unloaded (a CString's buffer
    // does not move with it).
    let p = tri!(with_registry(|r| {
        r.kernels
            .get(&(hfunc as usize))
            .map(|k| k.name.as_ptr())
            .ok_or(INVALID_HANDLE)
    }));
    // SAFETY: checked non-NULL.
    unsafe { *name = p };
    SUCCESS
}

/// `cuKernelGetLibrary`: the library the kernel came from.
pub(crate) unsafe fn cuKernelGetLibrary(
    b: &HipBackend,
    pLib: *mut CUlibrary,
    kernel: CUkernel,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if pLib.is_null() {
        return INVALID_VALUE;
    }
    let (lib, _) = tri!(kernel_entry(kernel));
    // SAFETY: checked non-NULL.
    unsafe { *pLib = lib as CUlibrary };
    SUCCESS
}

/// The kernel's parameters as read from its library's image, if they could be.
fn image_params(k: CUkernel) -> Result<Option<Vec<anycuda_rtc::params::Param>>, CUresult> {
    let (lib, name) = kernel_entry(k)?;
    Ok(kernels_in_image(lib)?.and_then(|ks| {
        ks.iter()
            .find(|p| p.name.as_bytes() == name.to_bytes())
            .map(|p| p.params.clone())
    }))
}

/// CUDA answers the kernel queries that resolve per context with `CUDA_ERROR_INVALID_CONTEXT`
/// when no context is current (cuda.core's `test_num_args_error_handling` checks it), even
/// where anycuda could answer from the image alone.
fn require_context(b: &HipBackend) -> Result<(), CUresult> {
    let mut ctx: anycuda_api::driver::CUcontext = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    super::support::code_ok(unsafe { super::context::cuCtxGetCurrent(b, &mut ctx) })?;
    if ctx.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
    }
    Ok(())
}

/// `cuKernelGetParamInfo`: the kernel and a current context checked as CUDA does
/// ([`require_context`]), then from the layout read out of the library's image; else as
/// `cuFuncGetParamInfo` on the current context's function.
pub(crate) unsafe fn cuKernelGetParamInfo(
    b: &HipBackend,
    kernel: CUkernel,
    paramIndex: usize,
    paramOffset: *mut usize,
    paramSize: *mut usize,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if paramOffset.is_null() {
        return INVALID_VALUE;
    }
    let params = tri!(image_params(kernel));
    tri!(require_context(b));
    match params {
        Some(ps) => {
            let Some(p) = ps.get(paramIndex) else {
                return INVALID_VALUE;
            };
            // SAFETY: the caller's out-pointers (`paramSize` may be NULL).
            unsafe {
                *paramOffset = p.offset;
                if !paramSize.is_null() {
                    *paramSize = p.size;
                }
            }
            SUCCESS
        }
        None => {
            let f = tri!(function_in_context(b, kernel as usize, false));
            // SAFETY: forwarded contract.
            unsafe { b.cuFuncGetParamInfo(f, paramIndex, paramOffset, paramSize) }
        }
    }
}

/// `cuKernelGetParamCount`: as [`cuKernelGetParamInfo`], the number of parameters.
pub(crate) unsafe fn cuKernelGetParamCount(
    b: &HipBackend,
    kernel: CUkernel,
    paramCount: *mut usize,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if paramCount.is_null() {
        return INVALID_VALUE;
    }
    let params = tri!(image_params(kernel));
    tri!(require_context(b));
    match params {
        Some(ps) => {
            // SAFETY: checked non-NULL.
            unsafe { *paramCount = ps.len() };
            SUCCESS
        }
        None => {
            let f = tri!(function_in_context(b, kernel as usize, false));
            // SAFETY: forwarded contract.
            unsafe { b.cuFuncGetParamCount(f, paramCount) }
        }
    }
}

/// Runs `op` with the kernel's function on device `dev`: the current context's when it is on
/// `dev`; on AMD, with `dev` made HIP's current device for the call; on HIP's NVIDIA platform
/// another device's context is not reachable from here: not supported (logged).
fn on_device(
    b: &HipBackend,
    kernel: CUkernel,
    dev: CUdevice,
    op: impl FnOnce(CUfunction) -> CUresult,
) -> CUresult {
    if !is_kernel(kernel.cast_const().cast()) {
        return INVALID_HANDLE;
    }
    tri!(kernel_entry(kernel));
    let t = tri!(table::<CUresult>(b));
    let (Some(get), Some(set), Some(count)) = (t.hipGetDevice, t.hipSetDevice, t.hipGetDeviceCount)
    else {
        return NOT_SUPPORTED;
    };
    let (mut cur, mut n) = (0, 0);
    // SAFETY: valid out-pointers.
    let e = unsafe { count(&mut n) };
    if e != HIP_SUCCESS || n == 0 {
        return no_device_or(b, b.cu(e));
    }
    if !(0..n).contains(&dev) {
        return CUresult::CUDA_ERROR_INVALID_DEVICE;
    }
    // SAFETY: valid out-pointer.
    let e = unsafe { get(&mut cur) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    if cur == dev {
        let f = tri!(function_in_context(b, kernel as usize, false));
        return op(f);
    }
    if nvidia(b) {
        return refused(
            NOT_SUPPORTED,
            "cuKernelGetAttribute/cuKernelSetAttribute/cuKernelSetCacheConfig for a device other \
             than the current context's: not supported on HIP's NVIDIA platform",
        );
    }
    // SAFETY: a valid ordinal (checked above).
    let e = unsafe { set(dev) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    let r = function_in_context(b, kernel as usize, false).map_or_else(|e| e, op);
    // SAFETY: the device that was current.
    unsafe { set(cur) };
    r
}

/// `cuKernelGetAttribute`: `cuFuncGetAttribute` on the kernel's function on device `dev`.
pub(crate) unsafe fn cuKernelGetAttribute(
    b: &HipBackend,
    pi: *mut c_int,
    attrib: CUfunction_attribute,
    kernel: CUkernel,
    dev: CUdevice,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if pi.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's out-pointer; a function of this backend.
    on_device(b, kernel, dev, |f| unsafe {
        b.cuFuncGetAttribute(pi, attrib, f)
    })
}

/// `cuKernelSetAttribute`: `cuFuncSetAttribute` on the kernel's function on device `dev`.
pub(crate) unsafe fn cuKernelSetAttribute(
    b: &HipBackend,
    attrib: CUfunction_attribute,
    val: c_int,
    kernel: CUkernel,
    dev: CUdevice,
) -> CUresult {
    tri!(table::<CUresult>(b));
    // SAFETY: a function of this backend.
    on_device(b, kernel, dev, |f| unsafe {
        b.cuFuncSetAttribute(f, attrib, val)
    })
}

/// `cuKernelSetCacheConfig`: `cuFuncSetCacheConfig` on the kernel's function on device `dev`.
pub(crate) unsafe fn cuKernelSetCacheConfig(
    b: &HipBackend,
    kernel: CUkernel,
    config: CUfunc_cache,
    dev: CUdevice,
) -> CUresult {
    tri!(table::<CUresult>(b));
    if config.0 > CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL.0 {
        return INVALID_VALUE;
    }
    // SAFETY: a function of this backend.
    on_device(b, kernel, dev, |f| unsafe {
        b.cuFuncSetCacheConfig(f, config)
    })
}

// ------------------------------------------------------------------ Runtime

/// `cudaLibraryLoadData`: [`cuLibraryLoadData`] (the runtime's JIT and library option numbers
/// are the driver's).
pub(crate) unsafe fn cudaLibraryLoadData(
    b: &HipBackend,
    library: *mut cudaLibrary_t,
    code: *const c_void,
    jitOptions: *mut cudaJitOption,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut cudaLibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded contract; both option types are `repr(transparent)` over `c_uint` with
    // the same numbers.
    driver_to_runtime(unsafe {
        cuLibraryLoadData(
            b,
            library,
            code,
            jitOptions.cast(),
            jitOptionsValues,
            numJitOptions,
            libraryOptions.cast(),
            libraryOptionValues,
            numLibraryOptions,
        )
    })
}

/// `cudaLibraryLoadFromFile`: [`cuLibraryLoadFromFile`].
pub(crate) unsafe fn cudaLibraryLoadFromFile(
    b: &HipBackend,
    library: *mut cudaLibrary_t,
    fileName: *const c_char,
    jitOptions: *mut cudaJitOption,
    jitOptionsValues: *mut *mut c_void,
    numJitOptions: c_uint,
    libraryOptions: *mut cudaLibraryOption,
    libraryOptionValues: *mut *mut c_void,
    numLibraryOptions: c_uint,
) -> cudaError_t {
    // SAFETY: as `cudaLibraryLoadData`.
    driver_to_runtime(unsafe {
        cuLibraryLoadFromFile(
            b,
            library,
            fileName,
            jitOptions.cast(),
            jitOptionsValues,
            numJitOptions,
            libraryOptions.cast(),
            libraryOptionValues,
            numLibraryOptions,
        )
    })
}

/// `cudaLibraryUnload`: [`cuLibraryUnload`].
pub(crate) unsafe fn cudaLibraryUnload(b: &HipBackend, library: cudaLibrary_t) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuLibraryUnload(b, library) })
}

/// `cudaLibraryGetKernel`: [`cuLibraryGetKernel`].
pub(crate) unsafe fn cudaLibraryGetKernel(
    b: &HipBackend,
    pKernel: *mut cudaKernel_t,
    library: cudaLibrary_t,
    name: *const c_char,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuLibraryGetKernel(b, pKernel, library, name) })
}

/// `cudaLibraryGetGlobal`: [`cuLibraryGetGlobal`] in the current device's context.
pub(crate) unsafe fn cudaLibraryGetGlobal(
    b: &HipBackend,
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    library: cudaLibrary_t,
    name: *const c_char,
) -> cudaError_t {
    // The runtime makes the current device's primary context current first.
    if let Err(e) = current_key(b, true) {
        return driver_to_runtime(e);
    }
    // SAFETY: forwarded contract; a device pointer is pointer-sized.
    driver_to_runtime(unsafe { cuLibraryGetGlobal(b, dptr.cast(), bytes, library, name) })
}

/// `cudaLibraryGetManaged`: [`cuLibraryGetManaged`].
pub(crate) unsafe fn cudaLibraryGetManaged(
    b: &HipBackend,
    dptr: *mut *mut c_void,
    bytes: *mut usize,
    library: cudaLibrary_t,
    name: *const c_char,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuLibraryGetManaged(b, dptr.cast(), bytes, library, name) })
}

/// `cudaLibraryGetKernelCount`: [`cuLibraryGetKernelCount`].
pub(crate) unsafe fn cudaLibraryGetKernelCount(
    b: &HipBackend,
    count: *mut c_uint,
    lib: cudaLibrary_t,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuLibraryGetKernelCount(b, count, lib) })
}

/// `cudaLibraryEnumerateKernels`: [`cuLibraryEnumerateKernels`].
pub(crate) unsafe fn cudaLibraryEnumerateKernels(
    b: &HipBackend,
    kernels: *mut cudaKernel_t,
    numKernels: c_uint,
    lib: cudaLibrary_t,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuLibraryEnumerateKernels(b, kernels, numKernels, lib) })
}

/// The Driver attribute of a settable Runtime function attribute (`cudaFuncSetAttribute`'s
/// set: the numbers agree up to the cluster policy; shared-memory mode is 16 here, 17 there).
pub(crate) fn settable_attribute(attr: cudaFuncAttribute) -> Option<CUfunction_attribute> {
    match attr.0 {
        8..=15 => Some(CUfunction_attribute(attr.0)),
        16 => Some(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE),
        _ => None,
    }
}

/// `cudaKernelSetAttributeForDevice`: [`cuKernelSetAttribute`] with the attribute's Driver
/// number.
pub(crate) unsafe fn cudaKernelSetAttributeForDevice(
    b: &HipBackend,
    kernel: cudaKernel_t,
    attr: cudaFuncAttribute,
    value: c_int,
    device: c_int,
) -> cudaError_t {
    let Some(a) = settable_attribute(attr) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: forwarded contract.
    driver_to_runtime(unsafe { cuKernelSetAttribute(b, a, value, kernel, device) })
}
