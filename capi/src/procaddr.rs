//! The entry-point queries: `cuGetProcAddress` (v1 and v2), `cudaGetDriverEntryPoint` and
//! `cudaGetDriverEntryPointByVersion`. They answer with anycuda's own exports from the
//! generated (name, version) table (`PROC_TABLE` of `capi/src/generated/lists.rs`, from
//! cudaTypedefs.h), as NVIDIA's driver answers with its own: cuda-python and NVIDIA's libcudart
//! resolve every driver function this way, so forwarding the query to NVIDIA's driver would
//! bypass anycuda (and on AMD there is no NVIDIA driver to ask).

use anycuda::driver::{CUdriverProcAddressQueryResult, CUresult, CUDA_VERSION};
use anycuda::runtime::{cudaDriverEntryPointQueryResult, cudaError_t};
use core::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CStr};

/// Which stream semantics a table row serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The plain (legacy default stream) entry point.
    Legacy,
    /// The `_ptds` (per-thread default stream) entry point.
    Ptds,
    /// The `_ptsz` (per-thread default stream, stream-ordered) entry point.
    Ptsz,
}

/// One `PFN_<name>_v<version>[_ptds|_ptsz]` typedef of cudaTypedefs.h.
#[derive(Debug)]
pub struct Row {
    /// The base name (`cuMemAlloc`), what callers ask for.
    pub name: &'static str,
    /// The CUDA version the ABI began (`3020`).
    pub version: u32,
    /// Its stream semantics.
    pub variant: Variant,
    /// The export serving it (`cuMemAlloc_v2`), `""` for an older ABI anycuda does not export.
    pub symbol: &'static str,
    /// That export's address, null with `symbol`.
    pub f: *const c_void,
}

// SAFETY: `f` is the address of a function (immutable code), never written through.
unsafe impl Sync for Row {}

/// The answer to a query.
#[derive(Debug)]
pub enum Found {
    /// The export for that name, version and stream mode.
    Entry(&'static Row),
    /// No such name, or only an older ABI anycuda does not export.
    NotFound,
    /// The name exists, but every version of it is newer than the one asked for.
    VersionNotSufficient,
}

/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` (= `cudaEnablePerThreadDefaultStream`).
const PER_THREAD: u64 = 1 << 1;
/// Every flag bit the query knows.
const KNOWN_FLAGS: u64 = (1 << 0) | PER_THREAD;

/// Looks `name` up for `version` (CUDA's `1000 * major + 10 * minor`) and `flags`: the newest
/// ABI whose version is at most `version`; with the per-thread flag the newest per-thread
/// (`_ptds`/`_ptsz`) one, else the legacy one, as NVIDIA's driver does.
pub fn lookup(name: &[u8], version: i64, flags: u64) -> Found {
    let t = crate::generated::lists::PROC_TABLE;
    let lo = t.partition_point(|r| r.name.as_bytes() < name);
    let hi = t.partition_point(|r| r.name.as_bytes() <= name);
    let rows = &t[lo..hi];
    if rows.is_empty() {
        return Found::NotFound;
    }
    let newest = |pt: bool| {
        rows.iter()
            .filter(|r| (r.variant != Variant::Legacy) == pt && i64::from(r.version) <= version)
            .max_by_key(|r| r.version)
    };
    let pick = if flags & PER_THREAD != 0 {
        newest(true).or_else(|| newest(false))
    } else {
        newest(false)
    };
    match pick {
        Some(r) if !r.f.is_null() => Found::Entry(r),
        Some(r) => {
            log::debug!(
                "anycuda C ABI: {} for CUDA {version} is the ABI of CUDA {}, which anycuda does not export",
                r.name,
                r.version
            );
            Found::NotFound
        }
        None => Found::VersionNotSufficient,
    }
}

/// The common body of the driver queries. `status` may be null.
///
/// # Safety
/// `symbol` NULL or a C string; `pfn` NULL or writable; `status` NULL or writable.
unsafe fn driver_query(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i64,
    flags: u64,
    status: *mut CUdriverProcAddressQueryResult,
) -> CUresult {
    if symbol.is_null() || pfn.is_null() || flags & !KNOWN_FLAGS != 0 {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: `symbol` and `pfn` checked non-null; the rest is the caller's contract.
    if unsafe { nvidia_refuses(symbol, version, flags) } {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-null C string (caller's contract).
    let name = unsafe { CStr::from_ptr(symbol) }.to_bytes();
    let found = lookup(name, version, flags);
    if matches!(found, Found::NotFound) {
        // SAFETY: `symbol` and `pfn` checked non-null; the rest is the caller's contract.
        if let Some(r) = unsafe { nvidia_query(symbol, pfn, version, flags, status) } {
            return r;
        }
    }
    let (f, st) = match found {
        Found::Entry(r) => (
            r.f.cast_mut(),
            CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS,
        ),
        Found::NotFound => (
            core::ptr::null_mut(),
            CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
        ),
        Found::VersionNotSufficient => (
            core::ptr::null_mut(),
            CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
        ),
    };
    // SAFETY: checked non-null; writable by the caller's contract.
    unsafe { *pfn = f };
    if !status.is_null() {
        // SAFETY: non-null, writable by the caller's contract.
        unsafe { *status = st };
    }
    // cuda.h: "The API will return CUDA_SUCCESS and set the returned pfn to NULL if the
    // requested driver function is not supported ..., no ABI compatible driver function exists
    // for the specified cudaVersion or if the driver symbol is invalid."
    CUresult::CUDA_SUCCESS
}

/// On the CUDA backend, whether NVIDIA's driver refuses the query's arguments themselves
/// (`CUDA_ERROR_INVALID_VALUE`: it does for a `cudaVersion` past any it knows, which the C ABI's
/// differential fuzzer saw anycuda answer), so that anycuda, which answers from its own table,
/// refuses them too and stays invisible there. Asked with anycuda's own out-pointers; `false` on
/// any other backend and for every other answer of NVIDIA's.
///
/// # Safety
/// `symbol` is a non-null C string.
unsafe fn nvidia_refuses(symbol: *const c_char, version: i64, flags: u64) -> bool {
    let Ok(b) = anycuda::backend().map(|s| s.backend) else {
        return false;
    };
    if b.kind() != anycuda::BackendKind::Cuda {
        return false;
    }
    let Ok(version) = c_int::try_from(version) else {
        return false;
    };
    let mut f: *mut c_void = core::ptr::null_mut();
    let mut st = CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS;
    // SAFETY: a C string (caller's contract) and out-pointers of ours.
    let r = unsafe {
        <anycuda::Backend as anycuda::Driver>::cuGetProcAddress(
            &b, symbol, &mut f, version, flags, &mut st,
        )
    };
    r == CUresult::CUDA_ERROR_INVALID_VALUE
}

/// On the CUDA backend, NVIDIA's driver's own answer for an entry point anycuda does not export:
/// an older ABI of a name (`cuCtxCreate` at CUDA 3.2 is `cuCtxCreate_v2`), or a name outside the
/// pinned `cuda.h` (OpenGL, EGL and VDPAU interop, the profiler, or a function newer than the
/// headers). NVIDIA's runtime, statically linked into nvcc's default builds and into
/// cuda.bindings, asks for all of them when it starts and reports
/// `cudaErrorInitializationError` when one is missing, though it never calls most: without this,
/// such a program could not start on anycuda's CUDA backend, where anycuda must be invisible.
/// Those functions reach NVIDIA's driver directly, which is what anycuda's own export would do on
/// that backend. `None` on any other backend, or when NVIDIA's driver does not answer (the
/// caller answers from anycuda's table).
///
/// # Safety
/// As [`driver_query`]'s, with `symbol` and `pfn` non-null.
unsafe fn nvidia_query(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i64,
    flags: u64,
    status: *mut CUdriverProcAddressQueryResult,
) -> Option<CUresult> {
    let b = anycuda::backend().ok()?.backend;
    if b.kind() != anycuda::BackendKind::Cuda {
        return None;
    }
    let version = c_int::try_from(version).ok()?;
    // SAFETY: the caller's contract, passed on to NVIDIA's `cuGetProcAddress`.
    let r = unsafe {
        <anycuda::Backend as anycuda::Driver>::cuGetProcAddress(
            &b, symbol, pfn, version, flags, status,
        )
    };
    // No NVIDIA driver to ask (the backend was named but its library is missing): anycuda's own
    // answer stands.
    (r == CUresult::CUDA_SUCCESS).then_some(r)
}

/// `cuGetProcAddress_v2` of the C ABI: anycuda's own export for `symbol` at `cudaVersion`.
/// A call from a vendor library (re-entry, see [`crate::guard`]) goes to NVIDIA's driver.
///
/// # Safety
/// CUDA's contract: `symbol` a C string, `pfn` writable, `symbolStatus` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: c_ulonglong,
    symbolStatus: *mut CUdriverProcAddressQueryResult,
) -> CUresult {
    let Some(_inside) = crate::guard::Inside::enter() else {
        return match crate::guard::vendor() {
            // SAFETY: the caller's contract, passed on.
            Some(v) => unsafe {
                <anycuda::Backend as anycuda::Driver>::cuGetProcAddress(
                    &v,
                    symbol,
                    pfn,
                    cudaVersion,
                    flags,
                    symbolStatus,
                )
            },
            None => CUresult::CUDA_ERROR_NOT_INITIALIZED,
        };
    };
    // SAFETY: the caller's contract, passed on.
    unsafe { driver_query(symbol, pfn, i64::from(cudaVersion), flags, symbolStatus) }
}

/// `cuGetProcAddress` of the C ABI: the v1 ABI (no `symbolStatus`) NVIDIA's libcuda still
/// exports under the plain name.
///
/// # Safety
/// CUDA's contract: `symbol` a C string, `pfn` writable.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: c_ulonglong,
) -> CUresult {
    // SAFETY: the caller's contract; a NULL status is allowed.
    unsafe { cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, core::ptr::null_mut()) }
}

/// The Runtime's status for the driver's.
fn runtime_status(s: CUdriverProcAddressQueryResult) -> cudaDriverEntryPointQueryResult {
    match s {
        CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS => {
            cudaDriverEntryPointQueryResult::cudaDriverEntryPointSuccess
        }
        CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT => {
            cudaDriverEntryPointQueryResult::cudaDriverEntryPointVersionNotSufficent
        }
        _ => cudaDriverEntryPointQueryResult::cudaDriverEntryPointSymbolNotFound,
    }
}

/// `cudaGetDriverEntryPointByVersion` of the C ABI: the same table as `cuGetProcAddress`.
///
/// # Safety
/// CUDA's contract: `symbol` a C string, `funcPtr` writable, `driverStatus` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPointByVersion(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    cudaVersion: c_uint,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    let Some(_inside) = crate::guard::Inside::enter() else {
        return match crate::guard::vendor() {
            // SAFETY: the caller's contract, passed on.
            Some(v) => unsafe {
                <anycuda::Backend as anycuda::Runtime>::cudaGetDriverEntryPointByVersion(
                    &v,
                    symbol,
                    funcPtr,
                    cudaVersion,
                    flags,
                    driverStatus,
                )
            },
            None => cudaError_t::cudaErrorInitializationError,
        };
    };
    let mut st = CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    // SAFETY: the caller's contract, passed on; `st` is a local.
    let r = unsafe { driver_query(symbol, funcPtr, i64::from(cudaVersion), flags, &mut st) };
    if r != CUresult::CUDA_SUCCESS {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if !driverStatus.is_null() {
        // SAFETY: non-null, writable by the caller's contract.
        unsafe { *driverStatus = runtime_status(st) };
    }
    cudaError_t::cudaSuccess
}

/// `cudaGetDriverEntryPoint` of the C ABI: `cudaGetDriverEntryPointByVersion` at the version of
/// the headers anycuda was generated from (NVIDIA's libcudart uses its own `CUDART_VERSION`).
///
/// # Safety
/// CUDA's contract: `symbol` a C string, `funcPtr` writable, `driverStatus` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPoint(
    symbol: *const c_char,
    funcPtr: *mut *mut c_void,
    flags: c_ulonglong,
    driverStatus: *mut cudaDriverEntryPointQueryResult,
) -> cudaError_t {
    // SAFETY: the caller's contract, passed on.
    unsafe { cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDA_VERSION, flags, driverStatus) }
}
