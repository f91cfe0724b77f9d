//! nvcc's hidden Runtime entry points on HIP: programs built with nvcc run their `<<<>>>`
//! launches from the PTX in their fat binaries, translated for the device.
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
//! On HIP:
//! - the registrations are kept in a registry (thread-safe; forgotten on unregister), with the
//!   wrapper's address (nvcc's data lives for the program), and the fat binary's contents are
//!   logged once ([`anycuda_rtc::fatbin`] reads it: entries, LZ4/zstd payloads);
//! - on the first use of a registered kernel stub or variable on a device (a launch, an
//!   attribute or occupancy query, a symbol copy or address: the calls marked `hook` in
//!   `codegen/hip-nvcc-guard.txt`, served by [`hooks`]), the fat binary's best PTX (the highest
//!   `compute_XX`, [`anycuda_rtc::fatbin::best_ptx`]) is translated and compiled for the current
//!   device by [`crate::ptx_code::ptx_module_code`] (through the program cache), loaded
//!   (`cuModuleLoadData`, so AMD-faithful mode's rules apply), and every registered kernel and
//!   variable of the module is resolved (`cuModuleGetFunction`, `cuModuleGetGlobal`). The
//!   result, module or refusal, is kept per (module, device): one compile per device, one log;
//! - the call then goes to the module's function or variable with the rules the backend has for
//!   module functions (`cuLaunchKernel`'s translation of launches, `cuFuncGetAttribute`, the
//!   occupancy calls; a symbol copy is a bounds-checked `cudaMemcpy` to the variable's address);
//! - a fat binary with machine code only (no PTX) answers `cudaErrorNoKernelImageForDevice`
//!   with the advice to rebuild with `-gencode arch=compute_XX,code=compute_XX` (XX from its
//!   cubins); PTX the translator refuses, or code that does not load, answers the same, logged
//!   once with the reason `ptx_module_code` recorded (the instruction and its line); without a
//!   device the answer is `cudaErrorNoDevice`, as CUDA's when it cannot create a context;
//! - a failed launch is kept as the thread's last error (`cudaGetLastError` and
//!   `cudaPeekAtLastError` report it first, since the launch stub drops the launch's result);
//! - the call configuration is kept per thread, as nvcc's code expects (pop returns what push
//!   stored, last in first out).
//!
//! Not served yet, refused by name with `cudaErrorNoKernelImageForDevice`: symbol memcpy graph
//! nodes on nvcc-built variables and `__managed__` variables (`__cudaInitModule` answers "not
//! initialised"). Loaded modules are not unloaded when nvcc unregisters the fat binary (at
//! process exit, when the runtime may be gone already): the handles are only forgotten.
//!
//! Pointers not in the registry take the path they took before (HIP's answer).

use crate::HipBackend;
use anycuda_api::driver::{CUdeviceptr, CUfunction, CUmodule, CUresult};
use anycuda_api::runtime::{cudaError_t, cudaKernel_t, cudaStream_t, dim3, uint3};
use anycuda_rtc::fatbin::{self, FatBinary};
use core::cell::{Cell, RefCell};
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Deepest per-thread configuration stack (nested `<<<>>>` in launch arguments are a handful).
const MAX_CONFIGS: usize = 1024;

// ------------------------------------------------------------------ the registry

/// One registered fat binary.
struct Module {
    /// What it holds, for the messages.
    what: String,
    /// The `__fatBinC_Wrapper_t` nvcc registered (its data lives for the program).
    wrapper: usize,
    /// Its kernels' host stubs and variables' host addresses (keys of the maps below).
    names: Vec<usize>,
    /// Per device: the loaded module, or why it was refused.
    loads: BTreeMap<c_int, Result<Loaded, Refusal>>,
}

/// A module loaded on one device: its handle and what each registered name resolved to.
struct Loaded {
    /// The `CUmodule` (kept, never unloaded: see the module docs).
    _module: usize,
    /// Host stub or shadow → function handle, or (address, size) of a variable.
    symbols: BTreeMap<usize, Symbol>,
}

/// What a registered name resolved to on one device.
#[derive(Clone, Copy)]
enum Symbol {
    /// A kernel's function handle.
    Function(usize),
    /// A variable's device address and size.
    Variable(usize, usize),
    /// Not in the loaded module (the code the CUDA call answers).
    Missing(cudaError_t),
}

/// Why a module was not loaded on a device.
#[derive(Clone)]
struct Refusal {
    /// The CUDA Runtime error every call on it answers.
    code: cudaError_t,
    /// The reason, logged once.
    why: String,
}

/// What a registered pointer is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Kernel,
    Variable,
    Managed,
}

/// A registered kernel stub or variable.
struct Named {
    /// The device-side name (mangled as nvcc wrote it).
    name: String,
    /// The module's handle.
    module: usize,
    /// A kernel, a variable or a managed variable.
    kind: Kind,
    /// Whether a refusal of it was logged at error level already.
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
/// Held while a module is compiled and loaded (outside the registry's lock, which lookups
/// take): one compile per module and device, even with several threads launching at once.
static LOADING: Mutex<()> = Mutex::new(());
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
    /// The error a failed launch of a registered kernel left for
    /// `cudaGetLastError`/`cudaPeekAtLastError`.
    static LAST: Cell<Option<cudaError_t>> = const { Cell::new(None) };
}

/// Keeps `e` as this thread's last error when it is one; returns it.
fn keep_last(e: cudaError_t) -> cudaError_t {
    if e != cudaError_t::cudaSuccess {
        LAST.with(|l| l.set(Some(e)));
    }
    e
}

/// `"kernel"` / `"device variable"`.
fn thing(kind: Kind) -> &'static str {
    match kind {
        Kind::Kernel => "kernel",
        Kind::Variable => "device variable",
        Kind::Managed => "managed variable",
    }
}

/// What a registered pointer `p` stands for on the current device: `None` when `p` is not
/// registered (the caller goes on as before); else the function handle or the variable's
/// (address, size), or the error the call answers, logged (at error level once per name).
fn resolve(b: &HipBackend, p: *const c_void, call: &str) -> Option<Result<Symbol, cudaError_t>> {
    if LIVE.load(Ordering::Relaxed) == 0 || p.is_null() {
        return None;
    }
    let key = p as usize;
    let (module, kind) = {
        let reg = registry();
        let n = reg.names.get(&key)?;
        (n.module, n.kind)
    };
    let r = if kind == Kind::Managed {
        Err(Refusal {
            code: cudaError_t::cudaErrorNoKernelImageForDevice,
            why: "managed (__managed__) variables of nvcc-built modules are not served on the \
                  HIP backend"
                .into(),
        })
    } else {
        // The hot path (every launch once loaded): one device query and one lookup under the
        // registry lock, nothing allocated, the fat binary not read again.
        let mut device: c_int = 0;
        // SAFETY: a local out-pointer.
        let on = unsafe { anycuda_api::traits::Runtime::cudaGetDevice(b, &mut device) };
        let cached = (on == cudaError_t::cudaSuccess)
            .then(|| {
                let reg = registry();
                match reg.modules.get(&module)?.loads.get(&device)? {
                    Ok(l) => Some(l.symbols.get(&key).copied().ok_or_else(not_resolved)),
                    Err(r) => Some(Err(r.clone())),
                }
            })
            .flatten();
        cached.unwrap_or_else(|| {
            load(b, module).and_then(|l| l.symbols.get(&key).copied().ok_or_else(not_resolved))
        })
    };
    match r {
        Ok(Symbol::Missing(code)) => Some(Err(code)),
        Ok(s) => Some(Ok(s)),
        Err(refusal) => {
            let mut reg = registry();
            let Registry { modules, names } = &mut *reg;
            let what = modules.get(&module).map_or("?", |m| m.what.as_str());
            let n = names.get_mut(&key)?;
            let msg = format!(
                "anycuda: {call} on {} `{}`: {}. {} (the nvcc-built module's fat binary holds \
                 {what})",
                thing(n.kind),
                n.name,
                refusal.code,
                refusal.why
            );
            if n.logged {
                log::debug!("{msg}");
            } else {
                n.logged = true;
                log::error!("{msg}");
            }
            Some(Err(refusal.code))
        }
    }
}

/// A registered name its loaded module does not have.
fn not_resolved() -> Refusal {
    Refusal {
        code: cudaError_t::cudaErrorInvalidDeviceFunction,
        why: "not resolved in its module".into(),
    }
}

/// The module `module` loaded on the current device (loaded now if it is its first use there):
/// the slow path of [`resolve`], taken until the module is loaded on the device (or refused).
fn load(b: &HipBackend, module: usize) -> Result<Loaded, Refusal> {
    let _serial = LOADING.lock().unwrap_or_else(PoisonError::into_inner);
    let (wrapper, names): (usize, Vec<(usize, String, Kind)>) = {
        let reg = registry();
        let Some(m) = reg.modules.get(&module) else {
            return Err(Refusal {
                code: cudaError_t::cudaErrorInvalidDeviceFunction,
                why: "its module was unregistered".into(),
            });
        };
        let names = m
            .names
            .iter()
            .filter_map(|k| reg.names.get(k).map(|n| (*k, n.name.clone(), n.kind)))
            .collect();
        (m.wrapper, names)
    };
    // The PTX first: a fat binary without any is refused even without a device.
    // SAFETY: the wrapper was read at registration; nvcc's data lives for the program.
    let ptx = match unsafe { module_ptx(wrapper as *const c_void) } {
        Ok(p) => p,
        Err(why) => {
            return Err(Refusal {
                code: cudaError_t::cudaErrorNoKernelImageForDevice,
                why,
            })
        }
    };
    let mut device: c_int = 0;
    // SAFETY: a local out-pointer.
    let e = unsafe { anycuda_api::traits::Runtime::cudaGetDevice(b, &mut device) };
    if e != cudaError_t::cudaSuccess {
        // ROCm's several "no GPU" codes are CUDA's one when there is no device at all.
        let code = match super::support::no_device_or(b, CUresult::CUDA_ERROR_INVALID_DEVICE) {
            CUresult::CUDA_ERROR_NO_DEVICE => cudaError_t::cudaErrorNoDevice,
            _ => e,
        };
        return Err(Refusal {
            code,
            why: "no current device to compile its PTX for".into(),
        });
    }
    if let Some(done) = registry()
        .modules
        .get(&module)
        .and_then(|m| m.loads.get(&device))
    {
        return done.as_ref().map(Loaded::share).map_err(Clone::clone);
    }
    let result = compile_and_load(b, &ptx, &names);
    match &result {
        Ok(_) => log::info!(
            "anycuda: an nvcc-built module's PTX (compute_{}) runs on device {device}, translated \
             for it",
            ptx.0
        ),
        Err(r) => log::error!(
            "anycuda: an nvcc-built module's PTX (compute_{}) does not run on device {device}: {}",
            ptx.0,
            r.why
        ),
    }
    if let Some(m) = registry().modules.get_mut(&module) {
        m.loads.insert(
            device,
            result.as_ref().map(Loaded::share).map_err(Clone::clone),
        );
    }
    result
}

impl Loaded {
    fn share(&self) -> Loaded {
        Loaded {
            _module: self._module,
            symbols: self.symbols.clone(),
        }
    }
}

/// The best PTX of the fat binary a wrapper points to, or the refusal's reason (with the
/// `-gencode` advice when it holds machine code only).
///
/// # Safety
/// `wrapper` is what `__cudaRegisterFatBinary` was given (read successfully then).
unsafe fn module_ptx(wrapper: *const c_void) -> Result<(u32, String), String> {
    // SAFETY: caller's contract.
    let fb = unsafe { fatbin::wrapped_fatbin(wrapper) }
        .and_then(|(_, bytes)| FatBinary::parse(bytes))
        .map_err(|e| format!("its fat binary is damaged ({e})"))?;
    fatbin::best_ptx(&fb).ok_or_else(|| super::image::no_ptx_advice(&fb))
}

/// Translates and compiles `ptx` for the current device, loads it, and resolves `names`.
fn compile_and_load(
    b: &HipBackend,
    ptx: &(u32, String),
    names: &[(usize, String, Kind)],
) -> Result<Loaded, Refusal> {
    use anycuda_api::traits::{Driver, Runtime};
    let what = format!("nvcc-built module (PTX compute_{})", ptx.0);
    let code = crate::ptx_code::ptx_module_code(b, &[ptx.1.as_str()], &what).map_err(|e| {
        let why = crate::not_supported_reason(e).map_or_else(
            || format!("its PTX did not become AMD code ({e})"),
            |r| format!("its PTX did not become AMD code: {r}"),
        );
        let code = if e == CUresult::CUDA_ERROR_NO_DEVICE {
            cudaError_t::cudaErrorNoDevice
        } else {
            cudaError_t::cudaErrorNoKernelImageForDevice
        };
        Refusal { code, why }
    })?;
    // The device's primary context current, as the Runtime API makes it on first use.
    // SAFETY: cudaFree(NULL) frees nothing.
    let _ = unsafe { Runtime::cudaFree(b, core::ptr::null_mut()) };
    let mut m: CUmodule = core::ptr::null_mut();
    // SAFETY: `code` is a whole code object (or NUL-terminated hipRTC output), alive for the call.
    let r = unsafe { Driver::cuModuleLoadData(b, &mut m, code.as_ptr().cast()) };
    if r != CUresult::CUDA_SUCCESS {
        return Err(Refusal {
            code: cudaError_t::cudaErrorNoKernelImageForDevice,
            why: format!("the code compiled from its PTX did not load ({r})"),
        });
    }
    let mut symbols = BTreeMap::new();
    for (key, name, kind) in names {
        let Ok(c) = CString::new(name.as_str()) else {
            continue;
        };
        let s = match kind {
            Kind::Kernel => {
                let mut f: CUfunction = core::ptr::null_mut();
                // SAFETY: a module just loaded, a NUL-terminated name, a local out-pointer.
                match unsafe { Driver::cuModuleGetFunction(b, &mut f, m, c.as_ptr()) } {
                    CUresult::CUDA_SUCCESS => Symbol::Function(f as usize),
                    _ => Symbol::Missing(cudaError_t::cudaErrorInvalidDeviceFunction),
                }
            }
            Kind::Variable => {
                let (mut d, mut size): (CUdeviceptr, usize) = (0, 0);
                // SAFETY: as above.
                match unsafe { Driver::cuModuleGetGlobal(b, &mut d, &mut size, m, c.as_ptr()) } {
                    CUresult::CUDA_SUCCESS => Symbol::Variable(d as usize, size),
                    _ => Symbol::Missing(cudaError_t::cudaErrorInvalidSymbol),
                }
            }
            Kind::Managed => continue,
        };
        symbols.insert(*key, s);
    }
    Ok(Loaded {
        _module: m as usize,
        symbols,
    })
}

/// The refusal of a registered kernel stub or variable `p` for calls not served on them
/// (`codegen/hip-nvcc-guard.txt` `kernel`/`var`): logs, returns
/// `cudaErrorNoKernelImageForDevice`. `None` for any other pointer.
fn refuse(p: *const c_void, call: &str) -> Option<cudaError_t> {
    if LIVE.load(Ordering::Relaxed) == 0 || p.is_null() {
        return None;
    }
    let mut reg = registry();
    let n = reg.names.get_mut(&(p as usize))?;
    let msg = format!(
        "anycuda: {call} on {} `{}`: cudaErrorNoKernelImageForDevice: not served on kernels and \
         variables of nvcc-built modules on the HIP backend (run with ANYCUDA_BACKEND=cuda on an \
         NVIDIA GPU)",
        thing(n.kind),
        n.name
    );
    if n.logged {
        log::debug!("{msg}");
    } else {
        n.logged = true;
        log::error!("{msg}");
    }
    Some(cudaError_t::cudaErrorNoKernelImageForDevice)
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
fn record(h: *mut *mut c_void, key: usize, name: String, kind: Kind, call: &str) {
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
        kind,
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
    log::info!(
        "anycuda: an nvcc-built module registered its fat binary ({what}); its PTX is translated \
         for the device on first use"
    );
    // A real allocation: unique, non-null, and readable as the `void*` it claims to point to.
    let handle = Box::into_raw(Box::new(core::ptr::null_mut::<c_void>()));
    registry().modules.insert(
        handle as usize,
        Module {
            what,
            wrapper: fatCubin as usize,
            names: Vec::new(),
            loads: BTreeMap::new(),
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
        Kind::Kernel,
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
        Kind::Variable,
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
        Kind::Managed,
        "__cudaRegisterManagedVar",
    );
}

/// `__cudaInitModule`: 0 ("not initialised"): managed variables of nvcc-built modules are not
/// served on HIP. Logged.
pub(crate) unsafe fn __cudaInitModule(_b: &HipBackend, fatCubinHandle: *mut *mut c_void) -> c_char {
    log::error!(
        "anycuda: __cudaInitModule({fatCubinHandle:p}): managed variables of nvcc-built modules \
         are not served on the HIP backend"
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
/// follows names the kernel), after its module is loaded for the current device (the load's
/// refusal, if any, is the answer and the thread's last error); otherwise `cudaGetKernel`'s.
pub(crate) unsafe fn __cudaGetKernel(
    b: &HipBackend,
    kernel: *mut cudaKernel_t,
    func: *const c_void,
) -> cudaError_t {
    if kernel.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if let Some(r) = resolve(b, func, "__cudaGetKernel") {
        // SAFETY: non-NULL out-pointer.
        unsafe { kernel.write(func as cudaKernel_t) };
        return match r {
            Ok(_) => cudaError_t::cudaSuccess,
            Err(e) => keep_last(e),
        };
    }
    // SAFETY: forwarded contract.
    unsafe { anycuda_api::traits::Runtime::cudaGetKernel(b, kernel, func) }
}

/// `__cudaLaunchKernel`: a handle from [`__cudaGetKernel`] naming a registered stub launches
/// its module function ([`hooks::launch`]); any other handle goes to `cudaLaunchKernel` (CUDA
/// accepts a `cudaKernel_t` there too).
pub(crate) unsafe fn __cudaLaunchKernel(
    b: &HipBackend,
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe {
        launch_any(
            b,
            kernel,
            gridDim,
            blockDim,
            args,
            sharedMem,
            stream,
            "__cudaLaunchKernel",
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
    let stream = if stream.is_null() {
        anycuda_api::runtime::cudaStreamPerThread
    } else {
        stream
    };
    // SAFETY: forwarded contract.
    unsafe {
        launch_any(
            b,
            kernel,
            gridDim,
            blockDim,
            args,
            sharedMem,
            stream,
            "__cudaLaunchKernel_ptsz",
        )
    }
}

/// A launch of a `__cudaGetKernel` handle: a registered stub's module function, or
/// `cudaLaunchKernel`.
///
/// # Safety
/// CUDA's contract for the arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn launch_any(
    b: &HipBackend,
    kernel: cudaKernel_t,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
    call: &str,
) -> cudaError_t {
    let func = kernel as *const c_void;
    // SAFETY: forwarded contract.
    let served = unsafe {
        hooks::launch(
            b, func, gridDim, blockDim, args, sharedMem, stream, false, call,
        )
    };
    if let Some(e) = served {
        return e;
    }
    // SAFETY: forwarded contract.
    unsafe {
        anycuda_api::traits::Runtime::cudaLaunchKernel(
            b, func, gridDim, blockDim, args, sharedMem, stream,
        )
    }
}

/// `cudaGetLastError` → `hipGetLastError`, after this thread's failed launch of an nvcc-built
/// kernel (which HIP may never have seen): that one is reported first, and both are reset.
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

/// `cudaPeekAtLastError` → `hipPeekAtLastError`, after this thread's failed launch of an
/// nvcc-built kernel (kept).
pub(crate) unsafe fn cudaPeekAtLastError(b: &HipBackend) -> cudaError_t {
    if let Some(e) = LAST.with(Cell::get) {
        return e;
    }
    let f = super::support::hip_fn!(b, hipPeekAtLastError);
    // SAFETY: no arguments.
    b.rt(unsafe { f() })
}

// ------------------------------------------------------------------ the served calls

/// The calls `codegen/hip-nvcc-guard.txt` marks `hook`, each with its CUDA signature: `None`
/// when the pointer is not a registered kernel stub or variable (the backend's own path goes
/// on), else the call's answer on the module loaded for the current device (see the module
/// docs), with the rules the backend has for module functions.
pub(crate) mod hooks {
    use super::{keep_last, resolve, Symbol};
    use crate::HipBackend;
    use anycuda_api::driver::{CUfunc_cache, CUfunction, CUresult, CUsharedconfig};
    use anycuda_api::runtime::{
        cudaError_t, cudaFuncAttribute, cudaFuncAttributes, cudaFuncCache, cudaFunction_t,
        cudaLaunchConfig_t, cudaMemcpyKind, cudaSharedMemConfig, cudaStream_t, dim3,
    };
    use anycuda_api::traits::{Driver, Runtime};
    use core::ffi::{c_int, c_uint, c_void};

    /// The function handle a registered stub stands for: `None` (not registered), or the
    /// answer: the handle or the error.
    fn function(
        b: &HipBackend,
        func: *const c_void,
        call: &str,
    ) -> Option<Result<CUfunction, cudaError_t>> {
        Some(match resolve(b, func, call)? {
            Ok(Symbol::Function(f)) => Ok(f as CUfunction),
            Ok(_) => Err(cudaError_t::cudaErrorInvalidDeviceFunction),
            Err(e) => Err(e),
        })
    }

    /// A registered variable's device address and size.
    fn variable(
        b: &HipBackend,
        symbol: *const c_void,
        call: &str,
    ) -> Option<Result<(usize, usize), cudaError_t>> {
        Some(match resolve(b, symbol, call)? {
            Ok(Symbol::Variable(d, n)) => Ok((d, n)),
            Ok(_) => Err(cudaError_t::cudaErrorInvalidSymbol),
            Err(e) => Err(e),
        })
    }

    /// A driver answer in Runtime words.
    fn rt(r: CUresult) -> cudaError_t {
        crate::conv::driver_to_runtime(r)
    }

    /// A launch of a registered kernel (`cooperative` or not): the module function launched
    /// as `cudaLaunchKernel` launches a library kernel; any error kept as the thread's last.
    ///
    /// # Safety
    /// CUDA's contract for the arguments.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch(
        b: &HipBackend,
        func: *const c_void,
        grid: dim3,
        block: dim3,
        args: *mut *mut c_void,
        shared: usize,
        stream: cudaStream_t,
        cooperative: bool,
        call: &str,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, call)? {
            Ok(f) => f,
            Err(e) => return Some(keep_last(e)),
        };
        // SAFETY: forwarded contract; `f` is a function of this backend.
        let e = unsafe {
            crate::adapt::launch::launch_resolved(
                b,
                f,
                grid,
                block,
                args,
                shared,
                stream,
                cooperative,
            )
        };
        Some(keep_last(e))
    }

    /// `cudaLaunchKernel` on a registered stub.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaLaunchKernel(
        b: &HipBackend,
        func: *const c_void,
        gridDim: dim3,
        blockDim: dim3,
        args: *mut *mut c_void,
        sharedMem: usize,
        stream: cudaStream_t,
    ) -> Option<cudaError_t> {
        // SAFETY: forwarded contract.
        unsafe {
            launch(
                b,
                func,
                gridDim,
                blockDim,
                args,
                sharedMem,
                stream,
                false,
                "cudaLaunchKernel",
            )
        }
    }

    /// `cudaLaunchCooperativeKernel` on a registered stub.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaLaunchCooperativeKernel(
        b: &HipBackend,
        func: *const c_void,
        gridDim: dim3,
        blockDim: dim3,
        args: *mut *mut c_void,
        sharedMem: usize,
        stream: cudaStream_t,
    ) -> Option<cudaError_t> {
        // SAFETY: forwarded contract.
        unsafe {
            launch(
                b,
                func,
                gridDim,
                blockDim,
                args,
                sharedMem,
                stream,
                true,
                "cudaLaunchCooperativeKernel",
            )
        }
    }

    /// `cudaLaunchKernelExC` on a registered stub: the configuration and its attributes read
    /// as for every `cudaLaunchKernelExC` (`conv::launch::read_launch_attrs`).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaLaunchKernelExC(
        b: &HipBackend,
        config: *const cudaLaunchConfig_t,
        func: *const c_void,
        args: *mut *mut c_void,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaLaunchKernelExC")? {
            Ok(f) => f,
            Err(e) => return Some(keep_last(e)),
        };
        if config.is_null() {
            return Some(keep_last(cudaError_t::cudaErrorInvalidValue));
        }
        // SAFETY: non-NULL config from the caller.
        let c = unsafe { &*config };
        // SAFETY: CUDA's contract for the attribute list.
        let req = match unsafe { crate::conv::launch::read_launch_attrs(c.attrs, c.numAttrs) } {
            Ok(r) => r,
            Err(e) => return Some(keep_last(e)),
        };
        // SAFETY: forwarded contract; `f` is a function of this backend.
        let e = unsafe {
            crate::adapt::launch::launch_resolved(
                b,
                f,
                c.gridDim,
                c.blockDim,
                args,
                c.dynamicSmemBytes,
                c.stream,
                req.cooperative,
            )
        };
        Some(keep_last(e))
    }

    /// `cudaFuncGetAttributes` on a registered stub: each field from `cuFuncGetAttribute` on
    /// the module function (an attribute HIP cannot report stays 0; HIP has no clusters).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaFuncGetAttributes(
        b: &HipBackend,
        attr: *mut cudaFuncAttributes,
        func: *const c_void,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaFuncGetAttributes")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        if attr.is_null() {
            return Some(cudaError_t::cudaErrorInvalidValue);
        }
        // SAFETY: a function of this backend; the caller's non-NULL out-pointer.
        Some(unsafe { crate::adapt::module::kernel_attributes(b, attr, f) })
    }

    /// `cudaFuncSetAttribute` on a registered stub: `cuFuncSetAttribute` on the module function
    /// (the attributes CUDA lets a program set).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaFuncSetAttribute(
        b: &HipBackend,
        func: *const c_void,
        attr: cudaFuncAttribute,
        value: c_int,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaFuncSetAttribute")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        let Some(a) = crate::adapt::library::settable_attribute(attr) else {
            return Some(cudaError_t::cudaErrorInvalidValue);
        };
        // SAFETY: a function of this backend.
        Some(rt(unsafe { Driver::cuFuncSetAttribute(b, f, a, value) }))
    }

    /// `cudaFuncSetCacheConfig` on a registered stub: `cuFuncSetCacheConfig` (same values).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaFuncSetCacheConfig(
        b: &HipBackend,
        func: *const c_void,
        cacheConfig: cudaFuncCache,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaFuncSetCacheConfig")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        let c = CUfunc_cache(cacheConfig.0 as _);
        // SAFETY: a function of this backend.
        Some(rt(unsafe { Driver::cuFuncSetCacheConfig(b, f, c) }))
    }

    /// `cudaFuncSetSharedMemConfig` on a registered stub: `cuFuncSetSharedMemConfig` (same
    /// values).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaFuncSetSharedMemConfig(
        b: &HipBackend,
        func: *const c_void,
        config: cudaSharedMemConfig,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaFuncSetSharedMemConfig")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        let c = CUsharedconfig(config.0 as _);
        // SAFETY: a function of this backend.
        Some(rt(unsafe { Driver::cuFuncSetSharedMemConfig(b, f, c) }))
    }

    /// `cudaGetFuncBySymbol` on a registered stub: the module function.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaGetFuncBySymbol(
        b: &HipBackend,
        functionPtr: *mut cudaFunction_t,
        symbolPtr: *const c_void,
    ) -> Option<cudaError_t> {
        let f = match function(b, symbolPtr, "cudaGetFuncBySymbol")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        if functionPtr.is_null() {
            return Some(cudaError_t::cudaErrorInvalidValue);
        }
        // SAFETY: the caller's non-NULL out-pointer.
        unsafe { functionPtr.write(f.cast()) };
        Some(cudaError_t::cudaSuccess)
    }

    /// `cudaOccupancyAvailableDynamicSMemPerBlock` on a registered stub.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaOccupancyAvailableDynamicSMemPerBlock(
        b: &HipBackend,
        dynamicSmemSize: *mut usize,
        func: *const c_void,
        numBlocks: c_int,
        blockSize: c_int,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaOccupancyAvailableDynamicSMemPerBlock")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        // SAFETY: forwarded contract; a function of this backend.
        Some(rt(unsafe {
            Driver::cuOccupancyAvailableDynamicSMemPerBlock(
                b,
                dynamicSmemSize,
                f,
                numBlocks,
                blockSize,
            )
        }))
    }

    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` on a registered stub.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        b: &HipBackend,
        numBlocks: *mut c_int,
        func: *const c_void,
        blockSize: c_int,
        dynamicSMemSize: usize,
    ) -> Option<cudaError_t> {
        // SAFETY: forwarded contract.
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

    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` on a registered stub (the
    /// flags have the same values).
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        b: &HipBackend,
        numBlocks: *mut c_int,
        func: *const c_void,
        blockSize: c_int,
        dynamicSMemSize: usize,
        flags: c_uint,
    ) -> Option<cudaError_t> {
        let f = match function(b, func, "cudaOccupancyMaxActiveBlocksPerMultiprocessor")? {
            Ok(f) => f,
            Err(e) => return Some(e),
        };
        // SAFETY: forwarded contract; a function of this backend.
        Some(rt(unsafe {
            Driver::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                b,
                numBlocks,
                f,
                blockSize,
                dynamicSMemSize,
                flags,
            )
        }))
    }

    /// `cudaGetSymbolAddress` on a registered variable: its address in the loaded module.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaGetSymbolAddress(
        b: &HipBackend,
        devPtr: *mut *mut c_void,
        symbol: *const c_void,
    ) -> Option<cudaError_t> {
        let (d, _) = match variable(b, symbol, "cudaGetSymbolAddress")? {
            Ok(v) => v,
            Err(e) => return Some(e),
        };
        if devPtr.is_null() {
            return Some(cudaError_t::cudaErrorInvalidValue);
        }
        // SAFETY: the caller's non-NULL out-pointer.
        unsafe { devPtr.write(d as *mut c_void) };
        Some(cudaError_t::cudaSuccess)
    }

    /// `cudaGetSymbolSize` on a registered variable: its size in the loaded module.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaGetSymbolSize(
        b: &HipBackend,
        size: *mut usize,
        symbol: *const c_void,
    ) -> Option<cudaError_t> {
        let (_, n) = match variable(b, symbol, "cudaGetSymbolSize")? {
            Ok(v) => v,
            Err(e) => return Some(e),
        };
        if size.is_null() {
            return Some(cudaError_t::cudaErrorInvalidValue);
        }
        // SAFETY: the caller's non-NULL out-pointer.
        unsafe { size.write(n) };
        Some(cudaError_t::cudaSuccess)
    }

    /// The device address `offset` bytes into a registered variable, for a copy of `count`
    /// bytes in direction `kind`: `cudaErrorInvalidValue` past the variable's end, and
    /// `cudaErrorInvalidMemcpyDirection` for a direction the symbol copy does not take (the
    /// variable is on the device: `to` takes host or device sources, `from` host or device
    /// destinations; `cudaMemcpyDefault` both).
    fn symbol_at(
        b: &HipBackend,
        symbol: *const c_void,
        count: usize,
        offset: usize,
        kind: cudaMemcpyKind,
        to: bool,
        call: &str,
    ) -> Option<Result<*mut c_void, cudaError_t>> {
        let (d, n) = match variable(b, symbol, call)? {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        use cudaMemcpyKind as K;
        let ok = kind == K::cudaMemcpyDefault
            || kind == K::cudaMemcpyDeviceToDevice
            || kind
                == if to {
                    K::cudaMemcpyHostToDevice
                } else {
                    K::cudaMemcpyDeviceToHost
                };
        if !ok {
            return Some(Err(cudaError_t::cudaErrorInvalidMemcpyDirection));
        }
        if offset.checked_add(count).is_none_or(|end| end > n) {
            return Some(Err(cudaError_t::cudaErrorInvalidValue));
        }
        Some(Ok((d + offset) as *mut c_void))
    }

    /// `cudaMemcpyToSymbol` on a registered variable: `cudaMemcpy` to its address.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaMemcpyToSymbol(
        b: &HipBackend,
        symbol: *const c_void,
        src: *const c_void,
        count: usize,
        offset: usize,
        kind: cudaMemcpyKind,
    ) -> Option<cudaError_t> {
        let dst = match symbol_at(b, symbol, count, offset, kind, true, "cudaMemcpyToSymbol")? {
            Ok(d) => d,
            Err(e) => return Some(e),
        };
        // SAFETY: the caller's source of `count` bytes; the destination is inside the variable.
        Some(unsafe { Runtime::cudaMemcpy(b, dst, src, count, kind) })
    }

    /// `cudaMemcpyToSymbolAsync` on a registered variable: `cudaMemcpyAsync` to its address.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaMemcpyToSymbolAsync(
        b: &HipBackend,
        symbol: *const c_void,
        src: *const c_void,
        count: usize,
        offset: usize,
        kind: cudaMemcpyKind,
        stream: cudaStream_t,
    ) -> Option<cudaError_t> {
        let at = symbol_at(
            b,
            symbol,
            count,
            offset,
            kind,
            true,
            "cudaMemcpyToSymbolAsync",
        )?;
        let dst = match at {
            Ok(d) => d,
            Err(e) => return Some(e),
        };
        // SAFETY: as `cudaMemcpyToSymbol`; the stream is the caller's.
        Some(unsafe { Runtime::cudaMemcpyAsync(b, dst, src, count, kind, stream) })
    }

    /// `cudaMemcpyFromSymbol` on a registered variable: `cudaMemcpy` from its address.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaMemcpyFromSymbol(
        b: &HipBackend,
        dst: *mut c_void,
        symbol: *const c_void,
        count: usize,
        offset: usize,
        kind: cudaMemcpyKind,
    ) -> Option<cudaError_t> {
        let at = symbol_at(
            b,
            symbol,
            count,
            offset,
            kind,
            false,
            "cudaMemcpyFromSymbol",
        )?;
        let src = match at {
            Ok(s) => s,
            Err(e) => return Some(e),
        };
        // SAFETY: the caller's destination of `count` bytes; the source is inside the variable.
        Some(unsafe { Runtime::cudaMemcpy(b, dst, src, count, kind) })
    }

    /// `cudaMemcpyFromSymbolAsync` on a registered variable: `cudaMemcpyAsync` from its
    /// address.
    ///
    /// # Safety
    /// CUDA's contract.
    pub(crate) unsafe fn cudaMemcpyFromSymbolAsync(
        b: &HipBackend,
        dst: *mut c_void,
        symbol: *const c_void,
        count: usize,
        offset: usize,
        kind: cudaMemcpyKind,
        stream: cudaStream_t,
    ) -> Option<cudaError_t> {
        let at = symbol_at(
            b,
            symbol,
            count,
            offset,
            kind,
            false,
            "cudaMemcpyFromSymbolAsync",
        )?;
        let src = match at {
            Ok(s) => s,
            Err(e) => return Some(e),
        };
        // SAFETY: as `cudaMemcpyFromSymbol`; the stream is the caller's.
        Some(unsafe { Runtime::cudaMemcpyAsync(b, dst, src, count, kind, stream) })
    }
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
        record(h, stub, "k".into(), Kind::Kernel, "test");
        record(h, stub + 8, "v".into(), Kind::Variable, "test");
        assert_eq!(LIVE.load(Ordering::Relaxed), live + 2);
        assert_eq!(
            refuse_kernel(stub as *const c_void, "test"),
            Some(cudaError_t::cudaErrorNoKernelImageForDevice)
        );
        unregister(h);
        assert_eq!(LIVE.load(Ordering::Relaxed), live);
        assert!(!registry().modules.contains_key(&(h as usize)));
        assert_eq!(refuse_kernel(stub as *const c_void, "test"), None);
        // A stale handle is ignored, not read.
        record(h, stub, "k".into(), Kind::Kernel, "test");
        unregister(h);
        assert_eq!(LIVE.load(Ordering::Relaxed), live);
        // Damaged wrappers: NULL, nothing registered.
        let bad = Wrapper { magic: 0x1234, ..w };
        // SAFETY: a readable wrapper.
        assert!(unsafe { register((&bad as *const Wrapper).cast()) }.is_null());
        // SAFETY: NULL is refused before any read.
        assert!(unsafe { register(core::ptr::null()) }.is_null());
    }

    /// The backend as the HIP tests load it (ROCm 5.2.3 on CI: no device).
    fn backend() -> HipBackend {
        HipBackend::load()
    }

    /// A machine-code-only fat binary: no PTX to translate, so every served call answers
    /// `cudaErrorNoKernelImageForDevice` (without a device too), with the `-gencode` advice,
    /// and a launch leaves it as the thread's last error; unregistered pointers are not ours.
    #[test]
    fn machine_code_only_modules_answer_no_kernel_image_with_advice() {
        let fb = fatbin(&[(2, 75, b"\x7fELF...."), (2, 90, b"\x7fELF....")]);
        let w = Wrapper {
            magic: fatbin::WRAPPER_MAGIC,
            version: 1,
            data: fb.as_ptr(),
            filename_or_fatbins: core::ptr::null(),
        };
        // SAFETY: a whole wrapper around a whole fat binary.
        let why = unsafe { module_ptx((&w as *const Wrapper).cast()) }.unwrap_err();
        assert!(
            why.contains("`-gencode arch=compute_90,code=compute_90`"),
            "{why}"
        );
        let b = backend();
        // SAFETY: as above; `w` and `fb` outlive the registration.
        let h = unsafe { register((&w as *const Wrapper).cast()) };
        let stub = 0x7000usize;
        record(h, stub, "k".into(), Kind::Kernel, "test");
        record(h, stub + 8, "v".into(), Kind::Variable, "test");
        let d = dim3 { x: 1, y: 1, z: 1 };
        // SAFETY: no arguments are read: the launch is refused before.
        let e = unsafe {
            hooks::cudaLaunchKernel(
                &b,
                stub as _,
                d,
                d,
                core::ptr::null_mut(),
                0,
                core::ptr::null_mut(),
            )
        };
        assert_eq!(e, Some(cudaError_t::cudaErrorNoKernelImageForDevice));
        assert_eq!(LAST.with(Cell::take), e);
        let mut p = core::ptr::null_mut();
        // SAFETY: a local out-pointer.
        let e = unsafe { hooks::cudaGetSymbolAddress(&b, &mut p, (stub + 8) as _) };
        assert_eq!(e, Some(cudaError_t::cudaErrorNoKernelImageForDevice));
        // Not registered: not ours.
        // SAFETY: as above.
        let e = unsafe { hooks::cudaGetSymbolAddress(&b, &mut p, (stub + 16) as _) };
        assert_eq!(e, None);
        unregister(h);
    }

    /// A fat binary with PTX on a machine without a device (CI): `cudaErrorNoDevice`, as
    /// CUDA's runtime answers there; with a device the PTX is compiled (the GPU tests).
    #[test]
    fn ptx_modules_without_a_device_answer_no_device() {
        let fb = fatbin(&[
            (1, 75, b".version 8.0\n.target sm_75\n.address_size 64\n\0"),
            (2, 90, b"\x7fELF...."),
        ]);
        let w = Wrapper {
            magic: fatbin::WRAPPER_MAGIC,
            version: 1,
            data: fb.as_ptr(),
            filename_or_fatbins: core::ptr::null(),
        };
        // SAFETY: a whole wrapper around a whole fat binary.
        let (arch, text) = unsafe { module_ptx((&w as *const Wrapper).cast()) }.unwrap();
        assert_eq!(arch, 75);
        assert!(text.ends_with(".address_size 64\n"));
        let b = backend();
        let mut n = 0;
        // SAFETY: a local out-pointer.
        let has_device = unsafe { anycuda_api::traits::Runtime::cudaGetDeviceCount(&b, &mut n) }
            == cudaError_t::cudaSuccess
            && n > 0;
        if has_device {
            return;
        }
        // SAFETY: as above.
        let h = unsafe { register((&w as *const Wrapper).cast()) };
        let stub = 0x9000usize;
        record(h, stub, "k".into(), Kind::Kernel, "test");
        let mut k: cudaKernel_t = core::ptr::null_mut();
        // SAFETY: a local out-pointer.
        let e = unsafe { __cudaGetKernel(&b, &mut k, stub as _) };
        assert_eq!(k as usize, stub);
        assert_eq!(e, cudaError_t::cudaErrorNoDevice);
        // SAFETY: no-argument query of this thread's error.
        let last = unsafe { cudaGetLastError(&b) };
        assert_eq!(last, cudaError_t::cudaErrorNoDevice);
        unregister(h);
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
