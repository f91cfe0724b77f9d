//! nvcc's hidden Runtime entry points on HIP: programs built with nvcc start, and their
//! `<<<>>>` launches fail with a clear error instead of a crash.
//!
//! nvcc embeds each translation unit's kernels as a fat binary (PTX and NVIDIA cubins) and
//! registers it from a static initialiser: `__cudaRegisterFatBinary` on the wrapper, then
//! `__cudaRegisterFunction` for each kernel (host launch stub → device name) and
//! `__cudaRegisterVar` for each `__device__` variable. A launch `k<<<g, b, s, st>>>(..)` calls
//! `__cudaPushCallConfiguration`, then the stub, which pops the configuration
//! (`__cudaPopCallConfiguration`) and launches through `__cudaGetKernel`/`__cudaLaunchKernel`
//! (CUDA 13) or `cudaLaunchKernel` (`__NV_LEGACY_LAUNCH`), ignoring the result: the program sees
//! it through `cudaGetLastError`.
//!
//! A fat binary holds no AMD code, and anycuda has no source to compile, so on HIP:
//! - the registrations are kept in a registry (thread-safe; freed on unregister) and the fat
//!   binary's contents are logged once (the architectures of its PTX and cubins);
//! - the call configuration is kept per thread, as nvcc's code expects (pop returns what push
//!   stored, last in first out);
//! - every call that names a registered kernel stub or variable (launches, attribute and
//!   occupancy queries, symbol copies; the list is `codegen/hip-nvcc-guard.txt`) answers
//!   `cudaErrorNoKernelImageForDevice`, logged with the kernel's name and the way out, and kept
//!   as the thread's last error (`cudaGetLastError`/`cudaPeekAtLastError` report it, since the
//!   launch stub drops the launch's own result).
//!
//! Why `cudaErrorNoKernelImageForDevice` even with no device: CUDA answers `cudaErrorNoDevice`
//! on a machine without a GPU because it must create a context to load the module before it
//! can learn anything about the kernel; anycuda already knows, without a device, that no device
//! of this backend can ever run it, and "no device" would send the user looking for a GPU that
//! would not help. On HIP's NVIDIA platform the same holds: the kernels were registered with
//! anycuda, not with NVIDIA's runtime that HIP calls, so they cannot go through HIP either; the
//! CUDA backend (`ANYCUDA_BACKEND=cuda`) runs them.
//!
//! Pointers not in the registry take the path they took before (HIP's answer).

use crate::HipBackend;
use anycuda_api::runtime::{cudaError_t, cudaKernel_t, cudaStream_t, dim3, uint3};
use anycuda_rtc::fatbin::{self, FatBinary};
use core::cell::{Cell, RefCell};
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Deepest per-thread configuration stack (nested `<<<>>>` in launch arguments are a handful).
const MAX_CONFIGS: usize = 1024;

// ------------------------------------------------------------------ the registry

/// One registered fat binary.
struct Module {
    /// What it holds, for the refusal messages.
    what: String,
    /// Its kernels' host stubs and variables' host addresses (keys of the maps below).
    names: Vec<usize>,
}

/// A registered kernel stub or variable.
struct Named {
    /// The device-side name (mangled as nvcc wrote it).
    name: String,
    /// The module's handle.
    module: usize,
    /// `true` for a kernel, `false` for a variable.
    kernel: bool,
    /// Whether its refusal was logged at error level already.
    logged: bool,
}

/// Every registered module, kernel and variable.
struct Registry {
    modules: BTreeMap<usize, Module>,
    names: BTreeMap<usize, Named>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    modules: BTreeMap::new(),
    names: BTreeMap::new(),
});
/// How many kernels and variables are registered: the launch path looks at nothing else while
/// it is 0 (one relaxed load).
static LIVE: AtomicUsize = AtomicUsize::new(0);

fn registry() -> MutexGuard<'static, Registry> {
    // A panic while holding the lock cannot leave the maps inconsistent in a way that matters
    // here (each update is one insert or remove), so a poisoned lock is used as it is.
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// This thread's `<<<>>>` configurations, pushed and not yet popped.
    static CONFIGS: RefCell<Vec<(dim3, dim3, usize, cudaStream_t)>> = const { RefCell::new(Vec::new()) };
    /// The error a refusal left for `cudaGetLastError`/`cudaPeekAtLastError`.
    static LAST: Cell<Option<cudaError_t>> = const { Cell::new(None) };
}

/// The refusal of a registered kernel stub or variable `p`, if it is one: logs, sets the
/// thread's last error, returns `cudaErrorNoKernelImageForDevice`. `None` for any other pointer.
fn refuse(p: *const c_void, call: &str) -> Option<cudaError_t> {
    if LIVE.load(Ordering::Relaxed) == 0 || p.is_null() {
        return None;
    }
    let mut reg = registry();
    let Registry { modules, names } = &mut *reg;
    let n = names.get_mut(&(p as usize))?;
    let what = modules.get(&n.module).map_or("?", |m| m.what.as_str());
    let thing = if n.kernel {
        "kernel"
    } else {
        "device variable"
    };
    let msg = format!(
        "anycuda: {call} on {thing} `{}`: cudaErrorNoKernelImageForDevice. It was built by nvcc \
         for NVIDIA only (its fat binary holds {what}), so the HIP backend has no code for it; \
         compile it from source with anycuda/hipRTC (anycuda::core Program, nvrtcCompileProgram), \
         or run this program with ANYCUDA_BACKEND=cuda on an NVIDIA GPU",
        n.name
    );
    if n.logged {
        log::debug!("{msg}");
    } else {
        n.logged = true;
        log::error!("{msg}");
    }
    let e = cudaError_t::cudaErrorNoKernelImageForDevice;
    LAST.with(|l| l.set(Some(e)));
    Some(e)
}

/// `codegen/hip-nvcc-guard.txt` `kernel`: the refusal if `func` is a registered launch stub.
/// Only the pointer's value is used, never what it points to.
#[inline]
pub(crate) fn refuse_kernel(func: *const c_void, call: &str) -> Option<cudaError_t> {
    refuse(func, call)
}

/// `codegen/hip-nvcc-guard.txt` `var`: the refusal if `symbol` is a registered variable.
#[inline]
pub(crate) fn refuse_var(symbol: *const c_void, call: &str) -> Option<cudaError_t> {
    refuse(symbol, call)
}

/// A C string as Rust text, bounded; `?` for NULL.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
unsafe fn text(s: *const c_char) -> String {
    if s.is_null() {
        return "?".into();
    }
    // SAFETY: caller's contract.
    let t = unsafe { CStr::from_ptr(s) }.to_string_lossy();
    t.chars().take(512).collect()
}

// ------------------------------------------------------------------ entry points

/// `__cudaRegisterFatBinary`: reads the wrapper (bounded), logs what it holds once, and returns
/// a fresh non-null handle owned by the registry; a NULL or damaged wrapper: NULL, logged.
pub(crate) unsafe fn __cudaRegisterFatBinary(
    _b: &HipBackend,
    fatCubin: *mut c_void,
) -> *mut *mut c_void {
    // SAFETY: nvcc's contract: NULL or its `__fatBinC_Wrapper_t`.
    unsafe { register(fatCubin) }
}

/// Records `name` (a kernel stub or a variable) under module `h`; an unknown handle is logged
/// and ignored (a NULL handle comes from a wrapper that was refused).
fn record(h: *mut *mut c_void, key: usize, name: String, kernel: bool, call: &str) {
    let module = h as usize;
    let mut reg = registry();
    let Registry { modules, names } = &mut *reg;
    if !modules.contains_key(&module) {
        log::warn!("anycuda: {call}(`{name}`): unknown fat binary handle {h:p}, ignored");
        return;
    }
    if key == 0 {
        log::warn!("anycuda: {call}(`{name}`): NULL host address, ignored");
        return;
    }
    let entry = Named {
        name,
        module,
        kernel,
        logged: false,
    };
    match names.insert(key, entry) {
        // Registered again (the same address from another module): the latest module owns it.
        Some(old) => {
            if let Some(om) = modules.get_mut(&old.module) {
                om.names.retain(|&k| k != key);
            }
        }
        None => {
            LIVE.fetch_add(1, Ordering::Relaxed);
        }
    }
    if let Some(m) = modules.get_mut(&module) {
        m.names.push(key);
    }
}

/// Registers a wrapper: the handle, or NULL (logged) for a NULL or damaged one.
///
/// # Safety
/// As [`fatbin::wrapped_fatbin`].
unsafe fn register(fatCubin: *const c_void) -> *mut *mut c_void {
    // SAFETY: caller's contract (the wrapper and its fat binary live for the program).
    let what =
        match unsafe { fatbin::wrapped_fatbin(fatCubin) }.and_then(|(_, b)| FatBinary::parse(b)) {
            Ok(fb) => fb.describe(),
            Err(d) => {
                log::error!(
                    "anycuda: __cudaRegisterFatBinary: not an nvcc fat binary wrapper ({d}); \
                 nothing registered, the module's kernels cannot be launched"
                );
                return core::ptr::null_mut();
            }
        };
    log::warn!(
        "anycuda: an nvcc-built module registered its fat binary ({what}): it holds no AMD code, \
         so its kernels cannot run on the HIP backend; its launches will answer \
         cudaErrorNoKernelImageForDevice"
    );
    // A real allocation: unique, non-null, and readable as the `void*` it claims to point to.
    let handle = Box::into_raw(Box::new(core::ptr::null_mut::<c_void>()));
    registry().modules.insert(
        handle as usize,
        Module {
            what,
            names: Vec::new(),
        },
    );
    handle
}

/// Forgets module `h`, its kernels and variables, and frees the handle; an unknown (or already
/// unregistered) handle is ignored.
fn unregister(h: *mut *mut c_void) {
    let mut reg = registry();
    let Some(m) = reg.modules.remove(&(h as usize)) else {
        return;
    };
    for k in m.names {
        if reg.names.remove(&k).is_some() {
            LIVE.fetch_sub(1, Ordering::Relaxed);
        }
    }
    drop(reg);
    // SAFETY: the handle was in the registry, so it came from `Box::into_raw` in `register`
    // and is freed exactly once (it has just been removed, under the lock).
    drop(unsafe { Box::from_raw(h) });
}

/// `__cudaRegisterFatBinaryEnd`: nothing to finish on HIP; an unknown handle is logged.
pub(crate) unsafe fn __cudaRegisterFatBinaryEnd(_b: &HipBackend, fatCubinHandle: *mut *mut c_void) {
    if !registry().modules.contains_key(&(fatCubinHandle as usize)) {
        log::warn!(
            "anycuda: __cudaRegisterFatBinaryEnd: unknown fat binary handle {fatCubinHandle:p}"
        );
    }
}

/// `__cudaUnregisterFatBinary`: forgets the module, its kernels and variables, and frees the
/// handle; an unknown (or already unregistered) handle is ignored.
pub(crate) unsafe fn __cudaUnregisterFatBinary(_b: &HipBackend, fatCubinHandle: *mut *mut c_void) {
    unregister(fatCubinHandle);
}

/// `__cudaRegisterFunction`: records host stub → device name.
pub(crate) unsafe fn __cudaRegisterFunction(
    _b: &HipBackend,
    fatCubinHandle: *mut *mut c_void,
    hostFun: *const c_char,
    deviceFun: *mut c_char,
    deviceName: *const c_char,
    thread_limit: c_int,
    tid: *mut uint3,
    bid: *mut uint3,
    bDim: *mut dim3,
    gDim: *mut dim3,
    wSize: *mut c_int,
) {
    let _ = (deviceFun, thread_limit, tid, bid, bDim, gDim, wSize);
    // SAFETY: nvcc passes the kernel's name, NUL-terminated.
    let name = unsafe { text(deviceName) };
    record(
        fatCubinHandle,
        hostFun as usize,
        name,
        true,
        "__cudaRegisterFunction",
    );
}

/// `__cudaRegisterVar`: records host shadow → device name.
pub(crate) unsafe fn __cudaRegisterVar(
    _b: &HipBackend,
    fatCubinHandle: *mut *mut c_void,
    hostVar: *mut c_char,
    deviceAddress: *mut c_char,
    deviceName: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    let _ = (deviceAddress, ext, size, constant, global);
    // SAFETY: nvcc passes the variable's name, NUL-terminated.
    let name = unsafe { text(deviceName) };
    record(
        fatCubinHandle,
        hostVar as usize,
        name,
        false,
        "__cudaRegisterVar",
    );
}

/// `__cudaRegisterManagedVar`: records the host pointer's address → device name.
pub(crate) unsafe fn __cudaRegisterManagedVar(
    _b: &HipBackend,
    fatCubinHandle: *mut *mut c_void,
    hostVarPtrAddress: *mut *mut c_void,
    deviceAddress: *mut c_char,
    deviceName: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    let _ = (deviceAddress, ext, size, constant, global);
    // SAFETY: nvcc passes the variable's name, NUL-terminated.
    let name = unsafe { text(deviceName) };
    record(
        fatCubinHandle,
        hostVarPtrAddress as usize,
        name,
        false,
        "__cudaRegisterManagedVar",
    );
}

/// `__cudaInitModule`: 0 ("not initialised"): the module's managed variables have no AMD
/// storage to initialise. Logged.
pub(crate) unsafe fn __cudaInitModule(_b: &HipBackend, fatCubinHandle: *mut *mut c_void) -> c_char {
    log::error!(
        "anycuda: __cudaInitModule({fatCubinHandle:p}): an nvcc-built module has no AMD code; \
         its managed variables cannot be initialised on the HIP backend"
    );
    0
}

/// `__cudaPushCallConfiguration`: stores the configuration on this thread's stack; 0, or 1
/// (nvcc's code then skips the launch) past [`MAX_CONFIGS`] unpopped pushes.
pub(crate) unsafe fn __cudaPushCallConfiguration(
    _b: &HipBackend,
    gridDim: dim3,
    blockDim: dim3,
    sharedMem: usize,
    stream: cudaStream_t,
) -> c_uint {
    CONFIGS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= MAX_CONFIGS {
            return 1;
        }
        c.push((gridDim, blockDim, sharedMem, stream));
        0
    })
}

/// `__cudaPopCallConfiguration`: takes back this thread's last pushed configuration;
/// `cudaErrorMissingConfiguration` when none, `cudaErrorInvalidValue` for a NULL out-pointer
/// (nothing popped then).
pub(crate) unsafe fn __cudaPopCallConfiguration(
    _b: &HipBackend,
    gridDim: *mut dim3,
    blockDim: *mut dim3,
    sharedMem: *mut usize,
    stream: *mut c_void,
) -> cudaError_t {
    if gridDim.is_null() || blockDim.is_null() || sharedMem.is_null() || stream.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let Some((g, b, s, st)) = CONFIGS.with(|c| c.borrow_mut().pop()) else {
        return cudaError_t::cudaErrorMissingConfiguration;
    };
    // SAFETY: non-NULL out-pointers of the documented types (nvcc's stack variables; `stream`
    // points to a `cudaStream_t`).
    unsafe {
        gridDim.write(g);
        blockDim.write(b);
        sharedMem.write(s);
        stream.cast::<cudaStream_t>().write(st);
    }
    cudaError_t::cudaSuccess
}

/// `__cudaGetKernel`: for a registered stub, the stub itself as the handle (so the launch that
/// follows can name the kernel) and the refusal; otherwise `cudaGetKernel`'s answer.
pub(crate) unsafe fn __cudaGetKernel(
    b: &HipBackend,
    kernel: *mut cudaKernel_t,
    func: *const c_void,
) -> cudaError_t {
    if kernel.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if let Some(e) = refuse_kernel(func, "__cudaGetKernel") {
        // SAFETY: non-NULL out-pointer.
        unsafe { kernel.write(func as cudaKernel_t) };
        return e;
    }
    // SAFETY: forwarded contract.
    unsafe { anycuda_api::traits::Runtime::cudaGetKernel(b, kernel, func) }
}

/// `__cudaLaunchKernel`: a handle from [`__cudaGetKernel`] naming a registered stub is refused;
/// any other handle goes to `cudaLaunchKernel` (CUDA accepts a `cudaKernel_t` there too).
pub(crate) unsafe fn __cudaLaunchKernel(
    b: &HipBackend,
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    if let Some(e) = refuse_kernel(kernel as *const c_void, "__cudaLaunchKernel") {
        return e;
    }
    // SAFETY: forwarded contract.
    unsafe {
        anycuda_api::traits::Runtime::cudaLaunchKernel(
            b,
            kernel as *const c_void,
            gridDim,
            blockDim,
            args,
            sharedMem,
            stream,
        )
    }
}

/// `__cudaLaunchKernel_ptsz`: as [`__cudaLaunchKernel`], the default stream being the
/// per-thread one (`cudaStreamPerThread`).
pub(crate) unsafe fn __cudaLaunchKernel_ptsz(
    b: &HipBackend,
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    if let Some(e) = refuse_kernel(kernel as *const c_void, "__cudaLaunchKernel_ptsz") {
        return e;
    }
    let stream = if stream.is_null() {
        anycuda_api::runtime::cudaStreamPerThread
    } else {
        stream
    };
    // SAFETY: forwarded contract.
    unsafe {
        anycuda_api::traits::Runtime::cudaLaunchKernel(
            b,
            kernel as *const c_void,
            gridDim,
            blockDim,
            args,
            sharedMem,
            stream,
        )
    }
}

/// `cudaGetLastError` → `hipGetLastError`, after this thread's refusal of an nvcc-built kernel
/// (which HIP never saw): that one is reported first, and both are reset.
pub(crate) unsafe fn cudaGetLastError(b: &HipBackend) -> cudaError_t {
    let ours = LAST.with(Cell::take);
    // HIP's error is read (and reset) even when ours is reported; a missing HIP answers as
    // every adaptation does, after ours.
    let hip = match b.native_hip().map(|t| t.hipGetLastError) {
        // SAFETY: no arguments.
        Some(Some(f)) => b.rt(unsafe { f() }),
        Some(None) => super::support::unavailable(true),
        None => super::support::unavailable(false),
    };
    ours.unwrap_or(hip)
}

/// `cudaPeekAtLastError` → `hipPeekAtLastError`, after this thread's refusal of an nvcc-built
/// kernel (kept).
pub(crate) unsafe fn cudaPeekAtLastError(b: &HipBackend) -> cudaError_t {
    if let Some(e) = LAST.with(Cell::get) {
        return e;
    }
    let f = super::support::hip_fn!(b, hipPeekAtLastError);
    // SAFETY: no arguments.
    b.rt(unsafe { f() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `__fatBinC_Wrapper_t` as nvcc lays it out.
    #[repr(C)]
    struct Wrapper {
        magic: u32,
        version: u32,
        data: *const u64,
        filename_or_fatbins: *const c_void,
    }

    #[test]
    fn registry_records_and_frees() {
        let fb = fatbin(&[(1, 80, b"//ptx\0")]);
        let w = Wrapper {
            magic: fatbin::WRAPPER_MAGIC,
            version: 1,
            data: fb.as_ptr(),
            filename_or_fatbins: core::ptr::null(),
        };
        let live = LIVE.load(Ordering::Relaxed);
        // SAFETY: a whole wrapper around a whole fat binary.
        let h = unsafe { register((&w as *const Wrapper).cast()) };
        assert!(!h.is_null());
        let stub = 0x1000usize;
        record(h, stub, "k".into(), true, "test");
        record(h, stub + 8, "v".into(), false, "test");
        assert_eq!(LIVE.load(Ordering::Relaxed), live + 2);
        assert_eq!(
            refuse_kernel(stub as *const c_void, "test"),
            Some(cudaError_t::cudaErrorNoKernelImageForDevice)
        );
        assert_eq!(
            LAST.with(Cell::take),
            Some(cudaError_t::cudaErrorNoKernelImageForDevice)
        );
        unregister(h);
        assert_eq!(LIVE.load(Ordering::Relaxed), live);
        assert!(!registry().modules.contains_key(&(h as usize)));
        assert_eq!(refuse_kernel(stub as *const c_void, "test"), None);
        // A stale handle is ignored, not read.
        record(h, stub, "k".into(), true, "test");
        unregister(h);
        assert_eq!(LIVE.load(Ordering::Relaxed), live);
        // Damaged wrappers: NULL, nothing registered.
        let bad = Wrapper { magic: 0x1234, ..w };
        // SAFETY: a readable wrapper.
        assert!(unsafe { register((&bad as *const Wrapper).cast()) }.is_null());
        // SAFETY: NULL is refused before any read.
        assert!(unsafe { register(core::ptr::null()) }.is_null());
    }

    /// A fat binary of one plain entry per (kind, arch, payload), as nvcc lays them out
    /// (`anycuda_rtc::fatbin` has the layout), in u64s as nvcc's data is.
    fn fatbin(entries: &[(u16, u32, &[u8])]) -> Vec<u64> {
        let mut body = Vec::new();
        for (kind, arch, payload) in entries {
            let padded = payload.len().div_ceil(8) * 8;
            let mut h = [0u8; 64];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x101u16.to_le_bytes());
            h[4..8].copy_from_slice(&64u32.to_le_bytes());
            h[8..16].copy_from_slice(&(padded as u64).to_le_bytes());
            h[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
            h[28..32].copy_from_slice(&arch.to_le_bytes());
            body.extend_from_slice(&h);
            body.extend_from_slice(payload);
            body.resize(body.len() + padded - payload.len(), 0);
        }
        let mut v = Vec::new();
        v.extend_from_slice(&fatbin::FATBIN_MAGIC.to_le_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&16u16.to_le_bytes());
        v.extend_from_slice(&(body.len() as u64).to_le_bytes());
        v.extend_from_slice(&body);
        v.chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect()
    }
}
