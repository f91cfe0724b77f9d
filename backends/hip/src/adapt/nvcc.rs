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
use core::cell::{Cell, RefCell};
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// `__fatBinC_Wrapper_t::magic` (`FATBINC_MAGIC` of NVIDIA's `fatbinary_section.h`).
pub(crate) const WRAPPER_MAGIC: u32 = 0x466243B1;
/// The fat binary's own header magic.
pub(crate) const FATBIN_MAGIC: u32 = 0xBA55ED50;
/// Most entries read from one fat binary for the log (a real one has a few dozen at most).
const MAX_ENTRIES: usize = 256;
/// Largest fat binary size believed (a size above it is called damaged).
const MAX_FATBIN: u64 = 1 << 32;
/// Deepest per-thread configuration stack (nested `<<<>>>` in launch arguments are a handful).
const MAX_CONFIGS: usize = 1024;

/// What one entry of a fat binary holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FatbinEntry {
    /// 1: PTX, 2: an ELF cubin (others are reported as they are).
    pub kind: u16,
    /// The `sm_XX`/`compute_XX` number (75, 90, ...).
    pub arch: u32,
    /// Payload bytes as stored (compressed or not).
    pub size: u64,
}

/// Why a wrapper or fat binary was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FatbinDamage {
    /// NULL wrapper or NULL data pointer.
    Null,
    /// The wrapper's magic is not `0x466243B1`.
    WrapperMagic(u32),
    /// The wrapper's version is neither 1 nor 2.
    WrapperVersion(u32),
    /// The fat binary's magic is not `0xBA55ED50`.
    FatbinMagic(u32),
    /// A header or size field that cannot be right (the byte offset where reading stopped).
    Layout(u64),
}

/// Reads the fat binary a `__fatBinC_Wrapper_t` points to: its entries' kinds and archs.
///
/// Only headers are read, never a payload. Every size is checked against the fat binary's own
/// declared size and the bounds above before it moves the cursor, so damaged sizes stop the
/// walk instead of sending it elsewhere.
///
/// # Safety
/// `wrapper` is NULL or points to a readable `__fatBinC_Wrapper_t` whose data pointer is NULL
/// or points to a fat binary of the size its header declares (nvcc's contract for
/// `__cudaRegisterFatBinary`).
pub(crate) unsafe fn read_wrapper(
    wrapper: *const c_void,
) -> Result<(u32, Vec<FatbinEntry>, bool), FatbinDamage> {
    if wrapper.is_null() {
        return Err(FatbinDamage::Null);
    }
    // SAFETY: the wrapper is at least { int magic; int version; const u64 *data; void *f; }.
    let (magic, version, data) = unsafe {
        let w = wrapper.cast::<u8>();
        (
            w.cast::<u32>().read_unaligned(),
            w.add(4).cast::<u32>().read_unaligned(),
            w.add(8).cast::<*const u8>().read_unaligned(),
        )
    };
    if magic != WRAPPER_MAGIC {
        return Err(FatbinDamage::WrapperMagic(magic));
    }
    if version != 1 && version != 2 {
        return Err(FatbinDamage::WrapperVersion(version));
    }
    if data.is_null() {
        return Err(FatbinDamage::Null);
    }
    // SAFETY: caller's contract: `data` points to a fat binary (16-byte header first).
    let (entries, truncated) = unsafe { read_fatbin(data) }?;
    Ok((version, entries, truncated))
}

/// Reads a fat binary's entry headers (see [`read_wrapper`]); `true` when more than
/// [`MAX_ENTRIES`] were there.
///
/// # Safety
/// `data` points to a readable fat binary of the size its header declares.
pub(crate) unsafe fn read_fatbin(
    data: *const u8,
) -> Result<(Vec<FatbinEntry>, bool), FatbinDamage> {
    // Fat binary header: u32 magic, u16 version, u16 header size, u64 size of what follows.
    // SAFETY: caller's contract (the 16-byte header is there).
    let (magic, header, size) = unsafe {
        (
            data.cast::<u32>().read_unaligned(),
            u64::from(data.add(6).cast::<u16>().read_unaligned()),
            data.add(8).cast::<u64>().read_unaligned(),
        )
    };
    if magic != FATBIN_MAGIC {
        return Err(FatbinDamage::FatbinMagic(magic));
    }
    if !(16..=256).contains(&header) || size > MAX_FATBIN {
        return Err(FatbinDamage::Layout(4));
    }
    let end = header + size;
    let mut at = header;
    let mut out = Vec::new();
    // Entry header (the layout of NVIDIA's own fat binaries: test `reads_nvidias_own_fat_binary`):
    // u16 kind, u16 version, u32 header size, u64 padded payload size,
    // u32 payload size (at 16), u32 arch (at 28); the next entry follows the padded payload.
    while at < end {
        if out.len() == MAX_ENTRIES {
            return Ok((out, true));
        }
        if end - at < 32 {
            return Err(FatbinDamage::Layout(at));
        }
        // SAFETY: `at + 32 <= end`, inside the declared fat binary.
        let (kind, hsize, padded, payload, arch) = unsafe {
            let e = data.add(at as usize);
            (
                e.cast::<u16>().read_unaligned(),
                u64::from(e.add(4).cast::<u32>().read_unaligned()),
                e.add(8).cast::<u64>().read_unaligned(),
                u64::from(e.add(16).cast::<u32>().read_unaligned()),
                e.add(28).cast::<u32>().read_unaligned(),
            )
        };
        let next = at
            .checked_add(hsize)
            .and_then(|v| v.checked_add(padded))
            .filter(|&n| (32..=4096).contains(&hsize) && n <= end && payload <= padded);
        let Some(next) = next else {
            return Err(FatbinDamage::Layout(at));
        };
        out.push(FatbinEntry {
            kind,
            arch,
            size: payload,
        });
        at = next;
    }
    Ok((out, false))
}

/// One line naming what a fat binary holds: `PTX compute_75, cubin sm_90`.
pub(crate) fn describe(entries: &[FatbinEntry], truncated: bool) -> String {
    let mut s: Vec<String> = entries
        .iter()
        .map(|e| match e.kind {
            1 => format!("PTX compute_{}", e.arch),
            2 => format!("cubin sm_{}", e.arch),
            k => format!("entry kind {k} arch {}", e.arch),
        })
        .collect();
    if truncated {
        s.push("...".into());
    }
    if s.is_empty() {
        "no entries".into()
    } else {
        s.join(", ")
    }
}

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
/// As [`read_wrapper`].
unsafe fn register(fatCubin: *const c_void) -> *mut *mut c_void {
    // SAFETY: caller's contract.
    let what = match unsafe { read_wrapper(fatCubin) } {
        Ok((_, entries, truncated)) => describe(&entries, truncated),
        Err(d) => {
            log::error!(
                "anycuda: __cudaRegisterFatBinary: not an nvcc fat binary wrapper ({d:?}); \
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
            magic: WRAPPER_MAGIC,
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

    /// A fat binary as the layout above describes it: header, then (kind, arch, payload).
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
        v.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
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

    /// The layout read above is NVIDIA's: the fat binary inside the pinned `libcudadevrt.a`
    /// (nvidia-cuda-runtime wheel, under `CUDA_PATH`) is walked entry by entry to its declared
    /// end, with the archs NVIDIA built it for.
    #[test]
    fn reads_nvidias_own_fat_binary() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let lib = std::env::var_os("CUDA_PATH")
            .map_or_else(|| root.join(".cache/inputs/cuda/nvidia/cu13"), Into::into)
            .join("lib/libcudadevrt.a");
        let Ok(bytes) = std::fs::read(&lib) else {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "{} missing (CI=true: bash ci/fetch-inputs.sh)",
                lib.display()
            );
            eprintln!("SKIP: {} missing", lib.display());
            return;
        };
        let magic = FATBIN_MAGIC.to_le_bytes();
        let at = bytes
            .windows(4)
            .position(|w| w == magic)
            .expect("a fat binary");
        let declared = u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap());
        assert!(
            at as u64 + 16 + declared <= bytes.len() as u64,
            "whole in the file"
        );
        // Copied into u64s: the reader's alignment is nvcc's (its data is a u64 array).
        let words: Vec<u64> = bytes[at..]
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        // SAFETY: the whole declared fat binary is in `words` (checked above).
        let (e, truncated) = unsafe { read_fatbin(words.as_ptr().cast()) }.unwrap();
        assert!(!truncated && e.len() > 3, "{e:?}");
        assert!(e
            .iter()
            .all(|x| (x.kind == 1 || x.kind == 2) && (50..=200).contains(&x.arch)));
        assert!(
            describe(&e, false).contains("cubin sm_90"),
            "{}",
            describe(&e, false)
        );
    }

    #[test]
    fn reads_entries_and_stops_on_damage() {
        let fb = fatbin(&[(1, 75, b"//ptx\0"), (2, 90, b"\x7fELF....")]);
        // SAFETY: `fb` is a whole fat binary.
        let (e, t) = unsafe { read_fatbin(fb.as_ptr().cast()) }.unwrap();
        assert!(!t);
        assert_eq!(describe(&e, t), "PTX compute_75, cubin sm_90");
        assert_eq!(e[0].size, 6);
        // A padded size running past the declared end stops the walk.
        let mut bad = fb.clone();
        bad[2 + 1] = u64::MAX; // first entry's padded payload size (bytes 24..32)
                               // SAFETY: as above; only headers inside the declared size are read.
        let r = unsafe { read_fatbin(bad.as_ptr().cast()) };
        assert_eq!(r, Err(FatbinDamage::Layout(16)));
        let mut magic = fb;
        magic[0] ^= 1;
        // SAFETY: as above.
        let r = unsafe { read_fatbin(magic.as_ptr().cast()) };
        assert!(matches!(r, Err(FatbinDamage::FatbinMagic(_))));
    }
}
