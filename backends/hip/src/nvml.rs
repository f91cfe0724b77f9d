//! NVML on the HIP backend: the subset schedulers and frameworks use, over AMD's rocm-smi
//! (`librocm_smi64`, found by [`ROCM_SMI_SEARCH`]; `ANYCUDA_ROCM_SMI_LIBRARY` names the file).
//!
//! Served (`NVML_HIP_SERVED`): initialisation (`nvmlInit`, `nvmlInit_v2`, `nvmlInitWithFlags`,
//! `nvmlShutdown`, reference-counted as NVIDIA's), `nvmlErrorString`, the system queries (driver
//! and NVML versions, the CUDA driver version, which is what this backend's `cuDriverGetVersion`
//! answers) and the device queries: count, handles by index, UUID and PCI bus id, index, name,
//! UUID, PCI info (`_v3`), memory (`nvmlMemory_t` and `_v2`), utilisation, temperature, power,
//! minor number (the DRM render node's) and compute capability (what this backend answers for
//! the HIP device at the same PCI address). Every other function answers
//! `NVML_ERROR_NOT_SUPPORTED` ([`anycuda_api::nvml::not_supported_reason`] says why).
//!
//! Rules, as NVIDIA's NVML answers them: every call but `nvmlErrorString` and the
//! initialisations answers `NVML_ERROR_UNINITIALIZED` before `nvmlInit`; a null pointer, an
//! index out of range or a handle that is not one of this module's is
//! `NVML_ERROR_INVALID_ARGUMENT`; a buffer too short for the answer is
//! `NVML_ERROR_INSUFFICIENT_SIZE`. Handles point into a static table (one slot per device
//! index), so they stay valid across `nvmlShutdown`/`nvmlInit` and a forged one is recognised
//! by its address, never dereferenced.
//!
//! Devices are rocm-smi's: every AMD GPU of the machine, `HIP_VISIBLE_DEVICES` and
//! `CUDA_VISIBLE_DEVICES` ignored, as NVIDIA's NVML ignores `CUDA_VISIBLE_DEVICES`.
//!
//! Without a GPU driver (rocm-smi's `rsmi_init` fails: no `/sys/class/drm`, no amdgpu), or with
//! no AMD GPU and no `NVML_INIT_FLAG_NO_GPUS`, `nvmlInit` answers
//! `NVML_ERROR_DRIVER_NOT_LOADED`, NVIDIA's answer where its driver is not running; without
//! rocm-smi itself, `NVML_ERROR_LIBRARY_NOT_FOUND`. On HIP's NVIDIA platform rocm-smi finds no
//! AMD GPU, so NVML there initialises only with `NVML_INIT_FLAG_NO_GPUS`, with no device.
//!
//! UUIDs: `GPU-` and 16 bytes in NVIDIA's 8-4-4-4-12 form: the ASCII tag `amd-rsmi` and rocm-smi's
//! 64-bit unique id (stable for the GPU), or, where the GPU reports none, the tag `amd-pci\0`
//! and its PCI address.

// The served functions keep NVML's names and parameter names (the generated impl calls them).
#![allow(non_snake_case)]

use crate::HipBackend;
use anycuda_api::loader::Opened;
use anycuda_api::nvml::*;
use anycuda_api::Driver;
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

#[path = "generated/nvml.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod impls;

pub use impls::NVML_HIP_SERVED;

/// `rsmi_status_t` values anycuda tells apart.
const RSMI_SUCCESS: u32 = 0;
const RSMI_INVALID_ARGS: u32 = 1;
const RSMI_NOT_SUPPORTED: u32 = 2;
const RSMI_PERMISSION: u32 = 4;
/// `RSMI_SW_COMP_DRIVER`, `RSMI_MEM_TYPE_VRAM`, `RSMI_TEMP_TYPE_EDGE`, `RSMI_TEMP_CURRENT`.
const RSMI_SW_COMP_DRIVER: c_int = 0;
const RSMI_MEM_TYPE_VRAM: c_int = 0;
const RSMI_TEMP_TYPE_EDGE: u32 = 0;
const RSMI_TEMP_CURRENT: c_int = 0;
/// AMD's PCI vendor id.
const AMD_VENDOR: u32 = 0x1002;

/// `rsmi_version_t`.
#[repr(C)]
struct RsmiVersion {
    major: u32,
    minor: u32,
    patch: u32,
    build: *const c_char,
}

type Status = u32;

/// The rocm-smi entry points this module uses, resolved once; `None`: the library lacks it.
struct Smi {
    _lib: Opened,
    path: String,
    init: Option<unsafe extern "C" fn(u64) -> Status>,
    shut_down: Option<unsafe extern "C" fn() -> Status>,
    num_devices: Option<unsafe extern "C" fn(*mut u32) -> Status>,
    version: Option<unsafe extern "C" fn(*mut RsmiVersion) -> Status>,
    version_str: Option<unsafe extern "C" fn(c_int, *mut c_char, u32) -> Status>,
    name: Option<unsafe extern "C" fn(u32, *mut c_char, usize) -> Status>,
    unique_id: Option<unsafe extern "C" fn(u32, *mut u64) -> Status>,
    pci_id: Option<unsafe extern "C" fn(u32, *mut u64) -> Status>,
    dev_id: Option<unsafe extern "C" fn(u32, *mut u16) -> Status>,
    subsys_id: Option<unsafe extern "C" fn(u32, *mut u16) -> Status>,
    subsys_vendor: Option<unsafe extern "C" fn(u32, *mut u16) -> Status>,
    mem_total: Option<unsafe extern "C" fn(u32, c_int, *mut u64) -> Status>,
    mem_used: Option<unsafe extern "C" fn(u32, c_int, *mut u64) -> Status>,
    busy: Option<unsafe extern "C" fn(u32, *mut u32) -> Status>,
    mem_busy: Option<unsafe extern "C" fn(u32, *mut u32) -> Status>,
    temp: Option<unsafe extern "C" fn(u32, u32, c_int, *mut i64) -> Status>,
    power: Option<unsafe extern "C" fn(u32, u32, *mut u64) -> Status>,
    render_minor: Option<unsafe extern "C" fn(u32, *mut u32) -> Status>,
}

// SAFETY: plain function pointers and a library handle that stays open while `Smi` lives.
unsafe impl Send for Smi {}
// SAFETY: as above; rocm-smi's functions may be called from any thread.
unsafe impl Sync for Smi {}

macro_rules! sym {
    ($o:expr, $name:literal) => {{
        let p = $o.sym($name);
        // SAFETY: rocm-smi declares this symbol with the field's signature (rocm_smi.h 5.2.3,
        // unchanged through 7.x); null stays `None`.
        (!p.is_null()).then(|| unsafe { core::mem::transmute::<*mut c_void, _>(p) })
    }};
}

impl Smi {
    fn open() -> Result<Self, anycuda_api::error::LoadError> {
        let o = ROCM_SMI_SEARCH.open()?;
        let path = o.resolved_path(c"rsmi_init");
        Ok(Self {
            path,
            init: sym!(o, c"rsmi_init"),
            shut_down: sym!(o, c"rsmi_shut_down"),
            num_devices: sym!(o, c"rsmi_num_monitor_devices"),
            version: sym!(o, c"rsmi_version_get"),
            version_str: sym!(o, c"rsmi_version_str_get"),
            name: sym!(o, c"rsmi_dev_name_get"),
            unique_id: sym!(o, c"rsmi_dev_unique_id_get"),
            pci_id: sym!(o, c"rsmi_dev_pci_id_get"),
            dev_id: sym!(o, c"rsmi_dev_id_get"),
            subsys_id: sym!(o, c"rsmi_dev_subsystem_id_get"),
            subsys_vendor: sym!(o, c"rsmi_dev_subsystem_vendor_id_get"),
            mem_total: sym!(o, c"rsmi_dev_memory_total_get"),
            mem_used: sym!(o, c"rsmi_dev_memory_usage_get"),
            busy: sym!(o, c"rsmi_dev_busy_percent_get"),
            mem_busy: sym!(o, c"rsmi_dev_memory_busy_percent_get"),
            temp: sym!(o, c"rsmi_dev_temp_metric_get"),
            power: sym!(o, c"rsmi_dev_power_ave_get"),
            render_minor: sym!(o, c"rsmi_dev_drm_render_minor_get"),
            _lib: o,
        })
    }
}

/// rocm-smi, loaded once, or why not (logged).
fn smi() -> Option<&'static Smi> {
    static SMI: OnceLock<Option<Smi>> = OnceLock::new();
    SMI.get_or_init(|| match Smi::open() {
        Ok(s) => {
            log::debug!("anycuda (HIP): NVML over rocm-smi {}", s.path);
            Some(s)
        }
        Err(e) => {
            log::warn!("anycuda (HIP): NVML: rocm-smi unavailable: {e}");
            None
        }
    })
    .as_ref()
}

/// Where rocm-smi was loaded from, if it loads (for reports).
pub fn rocm_smi_path() -> Option<&'static str> {
    smi().map(|s| s.path.as_str())
}

/// NVML's code for a rocm-smi status.
fn code(s: Status) -> nvmlReturn_t {
    match s {
        RSMI_SUCCESS => nvmlReturn_t::NVML_SUCCESS,
        RSMI_INVALID_ARGS => nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT,
        RSMI_NOT_SUPPORTED => nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED,
        RSMI_PERMISSION => nvmlReturn_t::NVML_ERROR_NO_PERMISSION,
        other => {
            log::debug!("anycuda (HIP): NVML: rocm-smi status {other}");
            nvmlReturn_t::NVML_ERROR_UNKNOWN
        }
    }
}

/// Most devices a process sees; slots beyond are never handed out.
const MAX_DEVICES: usize = 64;
/// The handles: `&SLOTS[i]` is device `i`'s, for the life of the process.
static SLOTS: [u64; MAX_DEVICES] = [0; MAX_DEVICES];

/// One device as found at initialisation.
#[derive(Clone, Copy, Debug)]
struct Dev {
    /// rocm-smi's index.
    smi: u32,
    /// rocm-smi's BDFID: domain << 32 | bus << 8 | device << 3 | function.
    bdf: u64,
    /// rocm-smi's unique id, where the GPU reports one.
    unique: Option<u64>,
}

impl Dev {
    fn domain(self) -> u32 {
        (self.bdf >> 32) as u32
    }
    fn bus(self) -> u32 {
        ((self.bdf >> 8) & 0xff) as u32
    }
    fn device(self) -> u32 {
        ((self.bdf >> 3) & 0x1f) as u32
    }
    /// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    fn uuid(self) -> String {
        let (tag, id) = match self.unique {
            Some(u) => (*b"amd-rsmi", u),
            None => (*b"amd-pci\0", self.bdf),
        };
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&tag);
        b[8..].copy_from_slice(&id.to_be_bytes());
        let h: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
        format!(
            "GPU-{}-{}-{}-{}-{}",
            h[0..4].concat(),
            h[4..6].concat(),
            h[6..8].concat(),
            h[8..10].concat(),
            h[10..16].concat()
        )
    }
    /// NVML's bus id (`NVML_DEVICE_PCI_BUS_ID_FMT`, `%08X:%02X:%02X.0`).
    fn bus_id(self) -> String {
        format!(
            "{:08X}:{:02X}:{:02X}.0",
            self.domain(),
            self.bus(),
            self.device()
        )
    }
}

/// NVML's state: initialisation count and the devices found by the first `nvmlInit`.
struct State {
    refs: u32,
    devices: Vec<Dev>,
}

static STATE: Mutex<State> = Mutex::new(State {
    refs: 0,
    devices: Vec::new(),
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The loaded rocm-smi and the devices, or `NVML_ERROR_UNINITIALIZED`.
fn ready() -> Result<(&'static Smi, Vec<Dev>), nvmlReturn_t> {
    let s = state();
    match (s.refs, smi()) {
        (0, _) | (_, None) => Err(nvmlReturn_t::NVML_ERROR_UNINITIALIZED),
        (_, Some(smi)) => Ok((smi, s.devices.clone())),
    }
}

/// The device behind `h`: one of [`SLOTS`] below the device count, else
/// `NVML_ERROR_INVALID_ARGUMENT` (no memory is read through `h`).
fn device(h: nvmlDevice_t) -> Result<(&'static Smi, Dev), nvmlReturn_t> {
    let (smi, devs) = ready()?;
    let base = SLOTS.as_ptr() as usize;
    let at = h as usize;
    let size = core::mem::size_of::<u64>();
    if at < base || (at - base) % size != 0 {
        return Err(nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT);
    }
    devs.get((at - base) / size)
        .map(|d| (smi, *d))
        .ok_or(nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT)
}

fn handle(i: usize) -> nvmlDevice_t {
    core::ptr::from_ref(&SLOTS[i]).cast_mut().cast()
}

/// `?` for NVML codes inside functions answering `nvmlReturn_t`.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(r) => return r,
        }
    };
}

/// Calls a rocm-smi entry point; a missing one is `NVML_ERROR_NOT_SUPPORTED`.
macro_rules! call {
    ($smi:expr, $f:ident ( $($a:expr),* )) => {
        match $smi.$f {
            // SAFETY: resolved for this signature; the arguments are valid for it.
            Some(f) => match unsafe { f($($a),*) } {
                RSMI_SUCCESS => Ok(()),
                s => Err(code(s)),
            },
            None => Err(nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED),
        }
    };
}

/// Writes `text` and its NUL into `buf` of `len` bytes, or `NVML_ERROR_INSUFFICIENT_SIZE`.
///
/// # Safety
/// `buf` is null (refused) or valid for `len` bytes.
unsafe fn put_str(buf: *mut c_char, len: c_uint, text: &str) -> nvmlReturn_t {
    if buf.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    if text.len() + 1 > len as usize {
        return nvmlReturn_t::NVML_ERROR_INSUFFICIENT_SIZE;
    }
    // SAFETY: the caller's buffer holds `len` > text.len() bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, text.len());
        *buf.add(text.len()) = 0;
    }
    nvmlReturn_t::NVML_SUCCESS
}

/// Writes `v` through `p`, or `NVML_ERROR_INVALID_ARGUMENT` when `p` is null.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
unsafe fn put<T>(p: *mut T, v: T) -> nvmlReturn_t {
    if p.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null, valid by the caller's contract.
    unsafe { p.write(v) };
    nvmlReturn_t::NVML_SUCCESS
}

/// What every function outside [`NVML_HIP_SERVED`] answers.
pub(crate) fn not_served() -> nvmlReturn_t {
    if state().refs == 0 {
        return nvmlReturn_t::NVML_ERROR_UNINITIALIZED;
    }
    refuse("the HIP backend's NVML serves only the functions of NVML_HIP_SERVED (over rocm-smi)")
}

pub(crate) unsafe fn nvmlInit(b: &HipBackend) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlInitWithFlags(b, 0) }
}

pub(crate) unsafe fn nvmlInit_v2(b: &HipBackend) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlInitWithFlags(b, 0) }
}

pub(crate) unsafe fn nvmlInitWithFlags(_: &HipBackend, flags: c_uint) -> nvmlReturn_t {
    let mut s = state();
    if s.refs > 0 {
        s.refs += 1;
        return nvmlReturn_t::NVML_SUCCESS;
    }
    let Some(smi) = smi() else {
        return nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND;
    };
    if let Err(r) = call!(smi, init(0)) {
        log::debug!("anycuda (HIP): NVML: rsmi_init failed ({r:?}): no AMD GPU driver");
        return nvmlReturn_t::NVML_ERROR_DRIVER_NOT_LOADED;
    }
    let mut n = 0u32;
    if call!(smi, num_devices(&mut n)).is_err() {
        n = 0;
    }
    let mut devices = Vec::new();
    for i in 0..n.min(MAX_DEVICES as u32) {
        let mut bdf = 0u64;
        let _ = call!(smi, pci_id(i, &mut bdf));
        let mut u = 0u64;
        let unique = call!(smi, unique_id(i, &mut u)).ok().map(|()| u);
        devices.push(Dev {
            smi: i,
            bdf,
            unique,
        });
    }
    if devices.is_empty() && flags & NVML_INIT_FLAG_NO_GPUS == 0 {
        let _ = call!(smi, shut_down());
        log::debug!("anycuda (HIP): NVML: rocm-smi sees no AMD GPU");
        return nvmlReturn_t::NVML_ERROR_DRIVER_NOT_LOADED;
    }
    s.devices = devices;
    s.refs = 1;
    nvmlReturn_t::NVML_SUCCESS
}

pub(crate) unsafe fn nvmlShutdown(_: &HipBackend) -> nvmlReturn_t {
    let mut s = state();
    match s.refs {
        0 => nvmlReturn_t::NVML_ERROR_UNINITIALIZED,
        1 => {
            s.refs = 0;
            s.devices.clear();
            if let Some(smi) = smi() {
                let _ = call!(smi, shut_down());
            }
            nvmlReturn_t::NVML_SUCCESS
        }
        _ => {
            s.refs -= 1;
            nvmlReturn_t::NVML_SUCCESS
        }
    }
}

pub(crate) unsafe fn nvmlErrorString(_: &HipBackend, result: nvmlReturn_t) -> *const c_char {
    error_string(result)
}

pub(crate) unsafe fn nvmlSystemGetDriverVersion(
    _: &HipBackend,
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    let (smi, _) = tri!(ready());
    let mut buf = [0 as c_char; 256];
    tri!(call!(
        smi,
        version_str(RSMI_SW_COMP_DRIVER, buf.as_mut_ptr(), buf.len() as u32)
    ));
    buf[buf.len() - 1] = 0;
    // SAFETY: NUL-terminated above.
    let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put_str(version, length, &text) }
}

pub(crate) unsafe fn nvmlSystemGetNVMLVersion(
    _: &HipBackend,
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    let (smi, _) = tri!(ready());
    let mut v = RsmiVersion {
        major: 0,
        minor: 0,
        patch: 0,
        build: core::ptr::null(),
    };
    tri!(call!(smi, version(&mut v)));
    let text = format!("{NVML_API_VERSION}.{}.{}.{}", v.major, v.minor, v.patch);
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put_str(version, length, &text) }
}

pub(crate) unsafe fn nvmlSystemGetCudaDriverVersion(
    b: &HipBackend,
    cudaDriverVersion: *mut c_int,
) -> nvmlReturn_t {
    tri!(ready());
    if cudaDriverVersion.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let mut v = 0;
    // SAFETY: valid out-pointer.
    match unsafe { b.cuDriverGetVersion(&mut v) }.result() {
        // SAFETY: the caller's pointers, valid for NVML's contract of this function.
        Ok(()) => unsafe { put(cudaDriverVersion, v) },
        Err(e) => {
            log::debug!("anycuda (HIP): NVML: cuDriverGetVersion: {e}");
            nvmlReturn_t::NVML_ERROR_UNKNOWN
        }
    }
}

pub(crate) unsafe fn nvmlSystemGetCudaDriverVersion_v2(
    b: &HipBackend,
    cudaDriverVersion: *mut c_int,
) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlSystemGetCudaDriverVersion(b, cudaDriverVersion) }
}

pub(crate) unsafe fn nvmlDeviceGetCount(_: &HipBackend, deviceCount: *mut c_uint) -> nvmlReturn_t {
    let (_, devs) = tri!(ready());
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(deviceCount, devs.len() as c_uint) }
}

pub(crate) unsafe fn nvmlDeviceGetCount_v2(
    b: &HipBackend,
    deviceCount: *mut c_uint,
) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlDeviceGetCount(b, deviceCount) }
}

pub(crate) unsafe fn nvmlDeviceGetHandleByIndex_v2(
    _: &HipBackend,
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    let (_, devs) = tri!(ready());
    if index as usize >= devs.len() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(device, handle(index as usize)) }
}

pub(crate) unsafe fn nvmlDeviceGetHandleByIndex(
    b: &HipBackend,
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlDeviceGetHandleByIndex_v2(b, index, device) }
}

/// The C string at `p`, or `NVML_ERROR_INVALID_ARGUMENT` when null or not UTF-8.
///
/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char) -> Result<&'a str, nvmlReturn_t> {
    if p.is_null() {
        return Err(nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: the caller's NUL-terminated string.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT)
}

pub(crate) unsafe fn nvmlDeviceGetHandleByUUID(
    _: &HipBackend,
    uuid: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    let (_, devs) = tri!(ready());
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    let want = tri!(unsafe { text(uuid) });
    if device.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    match devs
        .iter()
        .position(|d| d.uuid().eq_ignore_ascii_case(want))
    {
        // SAFETY: the caller's pointers, valid for NVML's contract of this function.
        Some(i) => unsafe { put(device, handle(i)) },
        None => nvmlReturn_t::NVML_ERROR_NOT_FOUND,
    }
}

/// `(domain, bus, device)` of a PCI bus id in the forms NVML takes: `domain:bus:device.function`
/// (a domain of 4 or 8 hex digits) or `bus:device.function`, hex, either case.
pub fn parse_bus_id(s: &str) -> Option<(u32, u32, u32)> {
    let s = s.trim();
    let (head, _function) = s.rsplit_once('.')?;
    let parts: Vec<&str> = head.split(':').collect();
    let hex = |p: &str| -> Option<u32> {
        (!p.is_empty() && p.len() <= 8)
            .then(|| u32::from_str_radix(p, 16).ok())
            .flatten()
    };
    match parts.as_slice() {
        [d, b, v] => Some((hex(d)?, hex(b)?, hex(v)?)),
        [b, v] => Some((0, hex(b)?, hex(v)?)),
        _ => None,
    }
}

pub(crate) unsafe fn nvmlDeviceGetHandleByPciBusId_v2(
    _: &HipBackend,
    pciBusId: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    let (_, devs) = tri!(ready());
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    let want = tri!(unsafe { text(pciBusId) });
    if device.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let Some(want) = parse_bus_id(want) else {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    };
    match devs
        .iter()
        .position(|d| (d.domain(), d.bus(), d.device()) == want)
    {
        // SAFETY: the caller's pointers, valid for NVML's contract of this function.
        Some(i) => unsafe { put(device, handle(i)) },
        None => nvmlReturn_t::NVML_ERROR_NOT_FOUND,
    }
}

pub(crate) unsafe fn nvmlDeviceGetHandleByPciBusId(
    b: &HipBackend,
    pciBusId: *const c_char,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { nvmlDeviceGetHandleByPciBusId_v2(b, pciBusId, device) }
}

pub(crate) unsafe fn nvmlDeviceGetIndex(
    _: &HipBackend,
    device: nvmlDevice_t,
    index: *mut c_uint,
) -> nvmlReturn_t {
    let (_, d) = tri!(self::device(device));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(index, d.smi) }
}

pub(crate) unsafe fn nvmlDeviceGetName(
    _: &HipBackend,
    device: nvmlDevice_t,
    name: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if name.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let mut buf = [0 as c_char; 256];
    tri!(call!(smi, name(d.smi, buf.as_mut_ptr(), buf.len())));
    buf[buf.len() - 1] = 0;
    // SAFETY: NUL-terminated above.
    let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put_str(name, length, &text) }
}

pub(crate) unsafe fn nvmlDeviceGetUUID(
    _: &HipBackend,
    device: nvmlDevice_t,
    uuid: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    let (_, d) = tri!(self::device(device));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put_str(uuid, length, &d.uuid()) }
}

/// `s` into a fixed C array, truncated to leave the NUL.
fn fill(dst: &mut [c_char], s: &str) {
    dst.fill(0);
    let room = dst.len().saturating_sub(1);
    for (o, b) in dst.iter_mut().zip(s.bytes().take(room)) {
        *o = b as c_char;
    }
}

pub(crate) unsafe fn nvmlDeviceGetPciInfo_v3(
    _: &HipBackend,
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if pci.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let (mut id, mut sid, mut svendor) = (0u16, 0u16, 0u16);
    let _ = call!(smi, dev_id(d.smi, &mut id));
    let _ = call!(smi, subsys_id(d.smi, &mut sid));
    let _ = call!(smi, subsys_vendor(d.smi, &mut svendor));
    let mut info = nvmlPciInfo_t {
        busIdLegacy: [0; 16],
        domain: d.domain(),
        bus: d.bus(),
        device: d.device(),
        pciDeviceId: (u32::from(id) << 16) | AMD_VENDOR,
        pciSubSystemId: (u32::from(sid) << 16) | u32::from(svendor),
        busId: [0; 32],
    };
    fill(
        &mut info.busIdLegacy,
        &format!("{:04X}:{:02X}:{:02X}.0", d.domain(), d.bus(), d.device()),
    );
    fill(&mut info.busId, &d.bus_id());
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(pci, info) }
}

/// (total, used) VRAM bytes.
fn memory(smi: &Smi, d: Dev) -> Result<(u64, u64), nvmlReturn_t> {
    let (mut total, mut used) = (0u64, 0u64);
    call!(smi, mem_total(d.smi, RSMI_MEM_TYPE_VRAM, &mut total))?;
    call!(smi, mem_used(d.smi, RSMI_MEM_TYPE_VRAM, &mut used))?;
    Ok((total, used.min(total)))
}

pub(crate) unsafe fn nvmlDeviceGetMemoryInfo(
    _: &HipBackend,
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_t,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if memory.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let (total, used) = tri!(self::memory(smi, d));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe {
        put(
            memory,
            nvmlMemory_t {
                total,
                free: total - used,
                used,
            },
        )
    }
}

/// `nvmlMemory_v2`: `NVML_STRUCT_VERSION(Memory, 2)`, the struct's size and version 2 in the top
/// byte.
pub const NVML_MEMORY_V2: c_uint = core::mem::size_of::<nvmlMemory_v2_t>() as c_uint | (2 << 24);

pub(crate) unsafe fn nvmlDeviceGetMemoryInfo_v2(
    _: &HipBackend,
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_v2_t,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if memory.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null, the caller's struct; the version field is its first.
    if unsafe { (*memory).version } != NVML_MEMORY_V2 {
        return nvmlReturn_t::NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    let (total, used) = tri!(self::memory(smi, d));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe {
        put(
            memory,
            nvmlMemory_v2_t {
                version: NVML_MEMORY_V2,
                total,
                reserved: 0,
                free: total - used,
                used,
            },
        )
    }
}

pub(crate) unsafe fn nvmlDeviceGetUtilizationRates(
    _: &HipBackend,
    device: nvmlDevice_t,
    utilization: *mut nvmlUtilization_t,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if utilization.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let (mut gpu, mut mem) = (0u32, 0u32);
    tri!(call!(smi, busy(d.smi, &mut gpu)));
    tri!(call!(smi, mem_busy(d.smi, &mut mem)));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(utilization, nvmlUtilization_t { gpu, memory: mem }) }
}

pub(crate) unsafe fn nvmlDeviceGetTemperature(
    _: &HipBackend,
    device: nvmlDevice_t,
    sensorType: nvmlTemperatureSensors_t,
    temp: *mut c_uint,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if temp.is_null() || sensorType != nvmlTemperatureSensors_t::NVML_TEMPERATURE_GPU {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let mut milli = 0i64;
    tri!(call!(
        smi,
        temp(d.smi, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &mut milli)
    ));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(temp, (milli.max(0) / 1000) as c_uint) }
}

pub(crate) unsafe fn nvmlDeviceGetPowerUsage(
    _: &HipBackend,
    device: nvmlDevice_t,
    power: *mut c_uint,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if power.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let mut micro = 0u64;
    tri!(call!(smi, power(d.smi, 0, &mut micro)));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(power, (micro / 1000).min(u64::from(u32::MAX)) as c_uint) }
}

pub(crate) unsafe fn nvmlDeviceGetMinorNumber(
    _: &HipBackend,
    device: nvmlDevice_t,
    minorNumber: *mut c_uint,
) -> nvmlReturn_t {
    let (smi, d) = tri!(self::device(device));
    if minorNumber.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    let mut m = 0u32;
    tri!(call!(smi, render_minor(d.smi, &mut m)));
    // SAFETY: the caller's pointers, valid for NVML's contract of this function.
    unsafe { put(minorNumber, m) }
}

pub(crate) unsafe fn nvmlDeviceGetCudaComputeCapability(
    b: &HipBackend,
    device: nvmlDevice_t,
    major: *mut c_int,
    minor: *mut c_int,
) -> nvmlReturn_t {
    use anycuda_api::driver::CUdevice_attribute as A;
    let (_, d) = tri!(self::device(device));
    if major.is_null() || minor.is_null() {
        return nvmlReturn_t::NVML_ERROR_INVALID_ARGUMENT;
    }
    // The HIP device at the same PCI address (HIP numbers only the devices it is shown).
    // SAFETY: plain driver queries with valid out-pointers and buffers.
    unsafe {
        if b.cuInit(0).result().is_err() {
            return refuse("the HIP runtime does not initialise: no compute capability");
        }
        let mut n = 0;
        if b.cuDeviceGetCount(&mut n).result().is_err() {
            n = 0;
        }
        for ord in 0..n {
            let mut buf = [0 as c_char; 64];
            if b.cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as c_int, ord)
                .result()
                .is_err()
            {
                continue;
            }
            buf[63] = 0;
            let s = CStr::from_ptr(buf.as_ptr()).to_string_lossy();
            if parse_bus_id(&s) != Some((d.domain(), d.bus(), d.device())) {
                continue;
            }
            let (mut ma, mut mi) = (0, 0);
            let ok = b
                .cuDeviceGetAttribute(
                    &mut ma,
                    A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    ord,
                )
                .result()
                .and_then(|()| {
                    b.cuDeviceGetAttribute(
                        &mut mi,
                        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                        ord,
                    )
                    .result()
                });
            if ok.is_err() {
                return nvmlReturn_t::NVML_ERROR_UNKNOWN;
            }
            major.write(ma);
            minor.write(mi);
            return nvmlReturn_t::NVML_SUCCESS;
        }
    }
    refuse("the HIP runtime does not show this GPU (HIP_VISIBLE_DEVICES?): no compute capability")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_parse_in_nvml_s_forms() {
        assert_eq!(parse_bus_id("00000000:65:00.0"), Some((0, 0x65, 0)));
        assert_eq!(parse_bus_id("0001:C1:1f.0"), Some((1, 0xc1, 0x1f)));
        assert_eq!(parse_bus_id("65:00.0"), Some((0, 0x65, 0)));
        for bad in [
            "",
            "65",
            "x:y:z.0",
            "0:0:0:0.0",
            ":65:00.0",
            "123456789:00:00.0",
        ] {
            assert_eq!(parse_bus_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn uuid_and_bus_id_have_nvidia_s_shapes() {
        let d = Dev {
            smi: 0,
            bdf: (0x1 << 32) | (0xc1 << 8) | (0x1f << 3),
            unique: Some(0x0123_4567_89ab_cdef),
        };
        assert_eq!(d.bus_id(), "00000001:C1:1F.0");
        let u = d.uuid();
        assert_eq!(u, "GPU-616d642d-7273-6d69-0123-456789abcdef");
        assert_eq!(u.len() + 1, NVML_DEVICE_UUID_ASCII_LEN as usize);
        let no_id = Dev { unique: None, ..d };
        assert_ne!(no_id.uuid(), u);
        assert!(no_id.uuid().starts_with("GPU-616d642d-7063-6900-"));
    }

    #[test]
    fn forged_handles_are_refused_without_a_read() {
        // Uninitialised: the state answers first.
        assert_eq!(
            device(core::ptr::null_mut()).err(),
            Some(nvmlReturn_t::NVML_ERROR_UNINITIALIZED)
        );
        let h = handle(3);
        assert_eq!(h as usize - SLOTS.as_ptr() as usize, 24);
    }
}
