//! CUDA↔HIP translation at the boundary: the table types and their lookups, and every
//! translation rule built on them, scalar and struct, each defined once here, beside its
//! inverse, and used by the generated forwarding and the hand-written adaptations alike.
//!
//! This file holds the scalar rules (result codes, enum values, flag words, stream handles,
//! graph edge data, memory locations); one room per area holds the struct rules:
//! `context` (context flags), `memcpy` (copy descriptors), `graph_nodes` (kernel and
//! memset node parameters), `launch` (`extra` markers, `dim3`, launch attributes), `memory`
//! (allocation and pool properties, locations, access descriptors), `module` (JIT options,
//! function attributes), `pointer` (pointer memory types), `props` (device properties),
//! `device_attr` (how every CUDA device attribute is answered),
//! `stream` (wait-value flags) and `texture` (channel descriptors). Translations only: the
//! behaviour (calling HIP, waiting, choosing an entry point) lives in `crate::adapt`.
//!
//! The data lives in `generated/conv.rs` (one [`ConvTables`] per supported HIP version, made by
//! anycuda-codegen from the pinned headers); this directory is hand-written. Values are carried
//! as `i64` so every C enum (signed or unsigned, any width) fits; callers cast at the FFI edge.
//!
//! Direction conventions:
//! - CUDA → HIP ([`EnumMap::to_hip`]) is for arguments. A CUDA value HIP cannot express gives
//!   `None`: the caller returns the not-supported error (or derives the answer another way);
//!   nothing is invented on this path.
//! - HIP → CUDA ([`EnumMap::to_cuda`]) is for values that come back (errors, queried enums). A
//!   HIP value with no CUDA counterpart maps to its hallucinated constant; one unknown when the
//!   tables were generated maps to [`anycuda_api::hallucinated::for_unknown`], so the raw code
//!   is always recoverable through [`anycuda_api::hallucinated::classify`].

pub(crate) mod context;
pub(crate) mod device_attr;
pub(crate) mod graph_nodes;
pub(crate) mod launch;
pub(crate) mod memcpy;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod pointer;
pub(crate) mod props;
pub(crate) mod stream;
pub(crate) mod texture;

#[cfg(test)]
mod tests;

use crate::hip_types::{hipError_t, hipStream_t};
use crate::Platform;
use anycuda_api::driver::{CUgraphEdgeData, CUresult};
use anycuda_api::hallucinated::{self, Invented};
use anycuda_api::runtime::{cudaError_t, cudaGraphEdgeData};
use anycuda_api::CudaEnum;

pub use crate::generated::conv::{ConvTables, HIP_VERSIONS, NVIDIA_PLATFORM, TABLES};

/// `CUDA_ERROR_INVALID_VALUE`.
pub(crate) const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
/// `CUDA_ERROR_NOT_SUPPORTED`.
pub(crate) const NOT_SUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;

/// Whether HIP's NVIDIA platform is loaded (CUDA structs and values pass through).
#[inline]
pub(crate) fn nvidia(b: &crate::HipBackend) -> bool {
    b.platform() == Platform::Nvidia
}

/// The translation of one CUDA enum to one HIP enum, for one set of HIP versions.
#[derive(Debug)]
pub struct EnumMap {
    /// The CUDA type, e.g. `CUresult`.
    pub cuda_type: &'static str,
    /// The HIP type, e.g. `hipError_t`.
    pub hip_type: &'static str,
    /// `(cuda, hip)`, sorted by CUDA value, CUDA values unique (hallucinated ones included).
    pub to_hip: &'static [(i64, i64)],
    /// `(hip, cuda)`, sorted by HIP value, HIP values unique (HIP-only values map to their
    /// hallucinated CUDA value).
    pub to_cuda: &'static [(i64, i64)],
    /// `(cuda name, cuda value, hip name, hip value)` of every paired enumerator, in CUDA header
    /// order (CUDA aliases included).
    pub pairs: &'static [(&'static str, i64, &'static str, i64)],
    /// `(cuda name, cuda value)` of CUDA enumerators HIP cannot express.
    pub cuda_only: &'static [(&'static str, i64)],
    /// `(hip name, hip value, hallucinated CUDA name, hallucinated CUDA value)` of HIP
    /// enumerators with no CUDA counterpart.
    pub hip_only: &'static [(&'static str, i64, &'static str, i64)],
}

fn search(table: &[(i64, i64)], key: i64) -> Option<i64> {
    table
        .binary_search_by_key(&key, |&(k, _)| k)
        .ok()
        .map(|i| table[i].1)
}

impl EnumMap {
    /// The HIP value for a CUDA value, or `None` when HIP cannot express it.
    ///
    /// Hallucinated CUDA values give their HIP value back, and so do values built by
    /// [`hallucinated::for_unknown`] (the raw HIP code they carry).
    pub fn to_hip(&self, cuda: i64) -> Option<i64> {
        search(self.to_hip, cuda).or(match hallucinated::classify(cuda) {
            Some(Invented::Unknown(raw)) => Some(raw),
            _ => None,
        })
    }

    /// The CUDA value for a HIP value known to these tables (paired or HIP-only).
    pub fn lookup_cuda(&self, hip: i64) -> Option<i64> {
        search(self.to_cuda, hip)
    }

    /// The CUDA value for a HIP value coming back from HIP: the table's value, else the
    /// reserved "unknown" value carrying the raw code. `None` only for a raw code outside the
    /// representable range (negative or huge; no HIP version has such a code), where the
    /// caller picks its fallback (e.g. the unknown-error value).
    pub fn to_cuda(&self, hip: i64) -> Option<i64> {
        self.lookup_cuda(hip)
            .or_else(|| hallucinated::for_unknown(hip))
    }

    /// The HIP value of a HIP enumerator name in these tables.
    pub fn hip_value(&self, hip_name: &str) -> Option<i64> {
        self.pairs
            .iter()
            .find(|p| p.2 == hip_name)
            .map(|p| p.3)
            .or_else(|| self.hip_only.iter().find(|h| h.0 == hip_name).map(|h| h.1))
    }

    /// The HIP enumerator name of a HIP value, if these tables know it.
    pub fn hip_name(&self, hip: i64) -> Option<&'static str> {
        self.pairs
            .iter()
            .find(|p| p.3 == hip)
            .map(|p| p.2)
            .or_else(|| self.hip_only.iter().find(|h| h.1 == hip).map(|h| h.0))
    }
}

/// A group of CUDA flags (or `extra` markers) and their HIP counterparts, for one set of HIP
/// versions.
#[derive(Debug)]
pub struct FlagMap {
    /// The group, e.g. `cu_stream_flags` (see `codegen/flag-groups.txt`).
    pub group: &'static str,
    /// `(cuda name, cuda value, hip name, hip value)`; the HIP name is empty where this HIP
    /// version lacks the flag.
    pub entries: &'static [(&'static str, i64, &'static str, i64)],
}

impl FlagMap {
    fn mapped(&self) -> impl Iterator<Item = &(&'static str, i64, &'static str, i64)> {
        self.entries.iter().filter(|e| !e.2.is_empty())
    }

    /// Translates a CUDA flag word to HIP bit by bit.
    ///
    /// # Errors
    /// `Err(bits)` with the CUDA bits HIP cannot express (the caller returns not-supported).
    pub fn bits_to_hip(&self, cuda: u64) -> Result<u64, u64> {
        translate_bits(cuda, self.mapped().map(|e| (e.1 as u64, e.3 as u64)))
    }

    /// Translates a HIP flag word to CUDA bit by bit.
    ///
    /// # Errors
    /// `Err(bits)` with the HIP bits that have no CUDA counterpart.
    pub fn bits_to_cuda(&self, hip: u64) -> Result<u64, u64> {
        translate_bits(hip, self.mapped().map(|e| (e.3 as u64, e.1 as u64)))
    }

    /// Translates one CUDA value exactly (for markers such as `CU_LAUNCH_PARAM_END`).
    pub fn value_to_hip(&self, cuda: i64) -> Option<i64> {
        self.mapped().find(|e| e.1 == cuda).map(|e| e.3)
    }

    /// Translates one HIP value exactly.
    pub fn value_to_cuda(&self, hip: i64) -> Option<i64> {
        self.mapped().find(|e| e.3 == hip).map(|e| e.1)
    }

    /// The HIP value of a CUDA flag by name, if this HIP version has it.
    pub fn hip_of(&self, cuda_name: &str) -> Option<i64> {
        self.mapped().find(|e| e.0 == cuda_name).map(|e| e.3)
    }
}

/// Moves `from`-side bits to the `to` side; multi-bit entries first so a combined value wins
/// over its parts. Zero-valued entries (`*_DEFAULT`) contribute nothing.
fn translate_bits(value: u64, map: impl Iterator<Item = (u64, u64)>) -> Result<u64, u64> {
    let mut entries: Vec<(u64, u64)> = map.filter(|(f, _)| *f != 0).collect();
    entries.sort_by_key(|(f, _)| core::cmp::Reverse(f.count_ones()));
    let mut rest = value;
    let mut out = 0;
    for (from, to) in entries {
        if rest & from == from {
            rest &= !from;
            out |= to;
        }
    }
    if rest == 0 {
        Ok(out)
    } else {
        Err(rest)
    }
}

/// The tables for a HIP runtime reporting `hip_runtime_version` (`hipRuntimeGetVersion`).
///
/// The newest supported version not newer than the given one; older than all → the oldest.
/// A value below 10 000 000 is not a HIP version at all: HIP's NVIDIA platform reports the
/// CUDA runtime version there (e.g. 13000). That platform is Debian's HIP 5.2.3 `nvidia_detail`
/// headers compiled over CUDA, where many HIP names are CUDA's (`#define HIP_LAUNCH_PARAM_END
/// CU_LAUNCH_PARAM_END`, `typedef enum cudaGraphNodeType hipGraphNodeType;`): it gets
/// [`NVIDIA_PLATFORM`], the 5.2.3 tables with those headers' values substituted (`hipError_t`
/// and `hipDeviceAttribute_t` keep HIP's values there, as that library converts them itself).
pub fn tables_for(hip_runtime_version: i32) -> &'static ConvTables {
    if hip_runtime_version < 10_000_000 {
        return NVIDIA_PLATFORM;
    }
    let i = HIP_VERSIONS.partition_point(|&v| v <= hip_runtime_version);
    TABLES[i.saturating_sub(1)]
}

// ---------------------------------------------------------------- the conversion rules
//
// Every CUDA↔HIP translation rule the generated `serve.rs` and the hand-written adaptations use
// is defined here once: result codes, enum values, flag words, stream handles, graph edge data.

/// Why a CUDA argument cannot be given to HIP: the two answers CUDA itself gives to a bad or an
/// unservable request. Each API turns it into its own code (`From`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The argument is outside CUDA's own set (`CUDA_ERROR_INVALID_VALUE`,
    /// `cudaErrorInvalidValue`).
    InvalidValue,
    /// The argument is valid CUDA that this HIP cannot express (`CUDA_ERROR_NOT_SUPPORTED`,
    /// `cudaErrorNotSupported`).
    NotSupported,
    /// The argument names no device (`CUDA_ERROR_INVALID_DEVICE`, `cudaErrorInvalidDevice`).
    InvalidDevice,
}

impl From<Refusal> for CUresult {
    #[inline]
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::InvalidValue => CUresult::CUDA_ERROR_INVALID_VALUE,
            Refusal::NotSupported => CUresult::CUDA_ERROR_NOT_SUPPORTED,
            Refusal::InvalidDevice => CUresult::CUDA_ERROR_INVALID_DEVICE,
        }
    }
}

impl From<Refusal> for cudaError_t {
    #[inline]
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::InvalidValue => cudaError_t::cudaErrorInvalidValue,
            Refusal::NotSupported => cudaError_t::cudaErrorNotSupported,
            Refusal::InvalidDevice => cudaError_t::cudaErrorInvalidDevice,
        }
    }
}

/// A CUDA API's result type (`CUresult`, `cudaError_t`), so one adaptation can serve both APIs.
pub(crate) trait ApiResult: Copy + PartialEq + From<Refusal> {
    /// Success (0 on both sides).
    const SUCCESS: Self;
    /// The answer when libamdhip64 did not load.
    const NO_LIBRARY: Self;
    /// The answer when the loaded HIP lacks the entry point.
    const NOT_SUPPORTED: Self;
    /// The HIP error `e` in this API's vocabulary: the one rule for "HIP result → CUDA result".
    fn from_hip(t: &ConvTables, e: hipError_t) -> Self;
}

impl ApiResult for CUresult {
    const SUCCESS: Self = CUresult::CUDA_SUCCESS;
    const NO_LIBRARY: Self = CUresult::CUDA_ERROR_NOT_INITIALIZED;
    const NOT_SUPPORTED: Self = CUresult::CUDA_ERROR_NOT_SUPPORTED;
    #[inline]
    fn from_hip(t: &ConvTables, e: hipError_t) -> Self {
        if e == 0 {
            return Self::SUCCESS; // the hot path: success is 0 on both sides
        }
        translate(t.CUresult, i64::from(e), CUresult::CUDA_ERROR_UNKNOWN)
    }
}

impl ApiResult for cudaError_t {
    const SUCCESS: Self = cudaError_t::cudaSuccess;
    const NO_LIBRARY: Self = cudaError_t::cudaErrorInitializationError;
    const NOT_SUPPORTED: Self = cudaError_t::cudaErrorNotSupported;
    #[inline]
    fn from_hip(t: &ConvTables, e: hipError_t) -> Self {
        if e == 0 {
            return Self::SUCCESS; // the hot path: success is 0 on both sides
        }
        translate(t.cudaError_t, i64::from(e), cudaError_t::cudaErrorUnknown)
    }
}

/// The Runtime API's code for a Driver code an adaptation built from Driver calls returns
/// (CUDA's runtime reports the driver's errors under these names): the one rule for "Driver
/// result → Runtime result" (HIP's own codes go through [`ApiResult::from_hip`]). anycuda's
/// invented codes have the same value in both types (`anycuda_api::hallucinated`).
pub(crate) fn driver_to_runtime(r: CUresult) -> cudaError_t {
    match r {
        CUresult::CUDA_SUCCESS => cudaError_t::cudaSuccess,
        CUresult::CUDA_ERROR_INVALID_VALUE => cudaError_t::cudaErrorInvalidValue,
        CUresult::CUDA_ERROR_INVALID_HANDLE => cudaError_t::cudaErrorInvalidResourceHandle,
        CUresult::CUDA_ERROR_NOT_FOUND => cudaError_t::cudaErrorSymbolNotFound,
        CUresult::CUDA_ERROR_NOT_SUPPORTED => cudaError_t::cudaErrorNotSupported,
        CUresult::CUDA_ERROR_NOT_INITIALIZED => cudaError_t::cudaErrorInitializationError,
        CUresult::CUDA_ERROR_NO_DEVICE => cudaError_t::cudaErrorNoDevice,
        CUresult::CUDA_ERROR_INVALID_DEVICE => cudaError_t::cudaErrorInvalidDevice,
        CUresult::CUDA_ERROR_INVALID_CONTEXT => cudaError_t::cudaErrorDeviceUninitialized,
        CUresult::CUDA_ERROR_INVALID_IMAGE => cudaError_t::cudaErrorInvalidKernelImage,
        CUresult::CUDA_ERROR_INVALID_PTX => cudaError_t::cudaErrorInvalidPtx,
        CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU => cudaError_t::cudaErrorNoKernelImageForDevice,
        CUresult::CUDA_ERROR_FILE_NOT_FOUND => cudaError_t::cudaErrorFileNotFound,
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => cudaError_t::cudaErrorMemoryAllocation,
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => cudaError_t::cudaErrorLaunchOutOfResources,
        CUresult::CUDA_ERROR_LAUNCH_FAILED => cudaError_t::cudaErrorLaunchFailure,
        CUresult::CUDA_ERROR_INVALID_SOURCE => cudaError_t::cudaErrorInvalidSource,
        CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE => {
            cudaError_t::cudaErrorCooperativeLaunchTooLarge
        }
        other if anycuda_api::hallucinated::classify(i64::from(other.0)).is_some() => {
            cudaError_t(other.0)
        }
        other => {
            log::debug!("anycuda (HIP): driver code {other:?} answered as cudaErrorUnknown");
            cudaError_t::cudaErrorUnknown
        }
    }
}

/// A value coming back from HIP in CUDA's vocabulary; `fallback` only for a raw code outside
/// the representable range (no HIP version has one).
pub(crate) fn translate<E: CudaEnum>(map: &EnumMap, raw: i64, fallback: E) -> E {
    map.to_cuda(raw).map_or(fallback, E::from_i64)
}

/// A CUDA enum argument in HIP's words; `None` when HIP cannot express it (the caller answers
/// not supported or invalid value, as CUDA would). A negative HIP value is given as C passes it.
pub(crate) fn enum_to_hip(map: &EnumMap, cuda: u32) -> Option<u32> {
    let v = map.to_hip(i64::from(cuda))?;
    u32::try_from(v)
        .ok()
        .or_else(|| i32::try_from(v).ok().map(|v| v as u32))
}

/// A CUDA enum argument in HIP's words, as CUDA answers a bad one.
///
/// # Errors
/// [`Refusal::NotSupported`] for a CUDA value this HIP cannot express, [`Refusal::InvalidValue`]
/// for a value that is no constant of the CUDA enum at all.
#[inline]
pub(crate) fn enum_arg<E: CudaEnum>(map: &EnumMap, v: E) -> Result<i64, Refusal> {
    match map.to_hip(v.to_i64()) {
        Some(h) => Ok(h),
        None if v.name().is_some() => Err(Refusal::NotSupported),
        None => Err(Refusal::InvalidValue),
    }
}

/// A bit set of single-bit CUDA enumerators (handle types, instantiate flags) in HIP's bits,
/// each bit through the table; `None` when a bit has no HIP counterpart.
pub(crate) fn enum_bits_to_hip(map: &EnumMap, bits: u64) -> Option<u64> {
    let mut out = 0u64;
    let mut rest = bits;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest &= !bit;
        let h = map.to_hip(i64::try_from(bit).ok()?)?;
        out |= u64::try_from(h).ok()?;
    }
    Some(out)
}

/// A HIP enum value coming back, in CUDA's words: the table's value, an unknown one in the
/// reserved "unknown" encoding with its raw code, and the raw value itself only outside the
/// representable range (which no HIP version reaches).
#[inline]
fn value_out(map: &EnumMap, hip: i64) -> i64 {
    map.to_cuda(hip).unwrap_or(hip)
}

/// [`value_out`] into the CUDA enum type (the generated forwarding's out-parameters).
#[inline]
pub(crate) fn enum_out<E: CudaEnum>(map: &EnumMap, hip: i64) -> E {
    E::from_i64(value_out(map, hip))
}

/// [`value_out`] for a raw `u32` field (hand-written struct translations).
pub(crate) fn enum_to_cuda(map: &EnumMap, hip: u32) -> u32 {
    value_out(map, i64::from(hip)) as u32
}

/// A CUDA flag word in HIP's bits.
///
/// # Errors
/// [`Refusal::NotSupported`] when the unmapped bits are CUDA flags this HIP lacks,
/// [`Refusal::InvalidValue`] when they are no flags of the group.
pub(crate) fn flags_to_hip(map: &FlagMap, cuda: u64) -> Result<u64, Refusal> {
    map.bits_to_hip(cuda).map_err(|rest| {
        let known = map
            .entries
            .iter()
            .filter(|e| e.2.is_empty())
            .fold(0u64, |a, e| a | e.1 as u64);
        if rest & !known == 0 {
            Refusal::NotSupported
        } else {
            Refusal::InvalidValue
        }
    })
}

/// A HIP flag word coming back, in CUDA's bits; HIP bits with no CUDA counterpart are dropped
/// (flags are never hallucinated).
pub(crate) fn flags_to_cuda(map: &FlagMap, hip: u64) -> u64 {
    match map.bits_to_cuda(hip) {
        Ok(b) => b,
        Err(rest) => {
            log::debug!(
                "{}: HIP flag bits {rest:#x} have no CUDA counterpart",
                map.group
            );
            map.bits_to_cuda(hip & !rest).unwrap_or(0)
        }
    }
}

/// A CUDA stream handle (`CUstream`, `cudaStream_t`: one type) in HIP's words: CUDA's legacy
/// default stream (`CU_STREAM_LEGACY`, `cudaStreamLegacy`, 0x1) is HIP's NULL stream on AMD
/// (which synchronises like it); the per-thread handle (0x2) is `hipStreamPerThread` in every
/// HIP version. On HIP's NVIDIA platform the handle is CUDA's own and passes unchanged.
#[inline]
pub(crate) fn stream_to_hip(platform: Platform, s: anycuda_api::driver::CUstream) -> hipStream_t {
    if platform == Platform::Amd && s == anycuda_api::driver::CU_STREAM_LEGACY {
        core::ptr::null_mut()
    } else {
        s.cast()
    }
}

/// A CUDA device pointer (`CUdeviceptr`, a 64-bit integer) in HIP's words (`void*`; HIP
/// device and host pointers share one address space, as CUDA's unified addressing).
#[inline]
pub(crate) fn devptr_to_hip(p: anycuda_api::driver::CUdeviceptr) -> *mut core::ffi::c_void {
    p as usize as *mut core::ffi::c_void
}

/// A HIP device pointer back as CUDA's `CUdeviceptr` (the inverse of [`devptr_to_hip`]).
#[inline]
pub(crate) fn devptr_to_cuda(p: *mut core::ffi::c_void) -> anycuda_api::driver::CUdeviceptr {
    p as usize as anycuda_api::driver::CUdeviceptr
}

/// CUDA's graph edge data (`CUgraphEdgeData`, `cudaGraphEdgeData`: one layout, two types).
/// HIP graphs only have the default edge (full completion, no ports).
pub(crate) trait EdgeData: Copy {
    /// The default edge: every byte zero.
    const DEFAULT: Self;
    /// `(from_port, to_port, type, reserved)`.
    fn parts(&self) -> (u8, u8, u8, [u8; 5]);
}

macro_rules! edge_data {
    ($($t:ty),*) => {$(
        impl EdgeData for $t {
            const DEFAULT: Self = Self { from_port: 0, to_port: 0, type_: 0, reserved: [0; 5] };
            fn parts(&self) -> (u8, u8, u8, [u8; 5]) {
                (self.from_port, self.to_port, self.type_, self.reserved)
            }
        }
    )*};
}
edge_data!(CUgraphEdgeData, cudaGraphEdgeData);

// One layout for both edge types, so one static array of default edges serves both.
const _: () = assert!(
    core::mem::size_of::<CUgraphEdgeData>() == 8 && core::mem::size_of::<cudaGraphEdgeData>() == 8
);

/// The most dependencies for which [`default_edges`] can hand out edge data.
pub(crate) const MAX_DEFAULT_EDGES: usize = 4096;

/// `n` default edges that live forever (for outputs CUDA hands out as a pointer, e.g. a
/// capture's dependencies: no allocation, nothing to free, valid however long the caller keeps
/// it); `None` beyond [`MAX_DEFAULT_EDGES`].
pub(crate) fn default_edges<E: EdgeData>(n: usize) -> Option<*const E> {
    static DEFAULTS: [CUgraphEdgeData; MAX_DEFAULT_EDGES] =
        [CUgraphEdgeData::DEFAULT; MAX_DEFAULT_EDGES];
    // Every `EdgeData` type has `CUgraphEdgeData`'s layout (asserted above) and its default is
    // all zero bytes, so the array reads as `n` default edges of `E`.
    (n <= MAX_DEFAULT_EDGES).then(|| DEFAULTS.as_ptr().cast::<E>())
}

/// Checks CUDA edge data on input: `Ok(())` when `data` is NULL or every edge is the default
/// one (what HIP's edge-less entry points mean).
///
/// # Errors
/// [`Refusal::InvalidValue`] for non-zero reserved bytes (CUDA requires them zero),
/// [`Refusal::NotSupported`] for a programmatic or ported edge.
///
/// # Safety
/// `data` is NULL or points to `n` edges.
pub(crate) unsafe fn check_default_edges<E: EdgeData>(
    data: *const E,
    n: usize,
) -> Result<(), Refusal> {
    if data.is_null() || n == 0 {
        return Ok(());
    }
    // SAFETY: the caller's array of `n` edges.
    let edges = unsafe { core::slice::from_raw_parts(data, n) };
    for e in edges {
        let (from, to, kind, reserved) = e.parts();
        if reserved != [0; 5] {
            return Err(Refusal::InvalidValue);
        }
        if from != 0 || to != 0 || kind != 0 {
            return Err(Refusal::NotSupported);
        }
    }
    Ok(())
}

/// Fills a caller's edge-data array of capacity `cap` with default edges: the entries for the
/// edges returned, and (as CUDA sets the unused node entries to NULL) the rest as zeroes.
///
/// # Safety
/// `out` is NULL or points to `cap` writable edges.
pub(crate) unsafe fn fill_default_edges<E: EdgeData>(out: *mut E, cap: usize) {
    if out.is_null() {
        return;
    }
    for i in 0..cap {
        // SAFETY: within the caller's array of `cap` entries.
        unsafe { out.add(i).write(E::DEFAULT) };
    }
}

/// `hipCpuDeviceId`: the host as a device ordinal (`cudaCpuDeviceId` on NVIDIA).
pub(crate) const HIP_CPU_DEVICE_ID: core::ffi::c_int = -1;

/// A CUDA 13 memory location (`CUmemLocation`, `cudaMemLocation`: one layout, the same type
/// values) as the device ordinal HIP's advice and prefetch take: a device is its ordinal, the
/// host is `hipCpuDeviceId`.
///
/// # Errors
/// [`Refusal::InvalidDevice`] for a negative device, [`Refusal::NotSupported`] for host NUMA
/// nodes (no HIP counterpart), [`Refusal::InvalidValue`] for any other type, as on CUDA.
pub(crate) fn location_to_device(
    type_: u32,
    id: core::ffi::c_int,
) -> Result<core::ffi::c_int, Refusal> {
    use anycuda_api::driver::CUmemLocationType as T;
    match T(type_) {
        T::CU_MEM_LOCATION_TYPE_DEVICE if id < 0 => Err(Refusal::InvalidDevice),
        T::CU_MEM_LOCATION_TYPE_DEVICE => Ok(id),
        T::CU_MEM_LOCATION_TYPE_HOST => Ok(HIP_CPU_DEVICE_ID),
        T::CU_MEM_LOCATION_TYPE_HOST_NUMA | T::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => {
            Err(Refusal::NotSupported)
        }
        _ => Err(Refusal::InvalidValue),
    }
}

/// The inverse of [`location_to_device`], for the ordinal HIP reads back (a range's preferred or
/// last-prefetch location): `(location type, id)` in CUDA 13's words. A device is its ordinal;
/// `hipCpuDeviceId` is the host; anything else (`hipInvalidDeviceId`, -2: none set) is the
/// invalid type. The id of a non-device location is the ordinal HIP answered, which CUDA's
/// legacy attribute answers too (-1 host, -2 none); CUDA ignores the id of those types.
pub(crate) fn device_to_location(ordinal: core::ffi::c_int) -> (u32, core::ffi::c_int) {
    use anycuda_api::driver::CUmemLocationType as T;
    let t = match ordinal {
        o if o >= 0 => T::CU_MEM_LOCATION_TYPE_DEVICE,
        HIP_CPU_DEVICE_ID => T::CU_MEM_LOCATION_TYPE_HOST,
        _ => T::CU_MEM_LOCATION_TYPE_INVALID,
    };
    (t.0, ordinal)
}

/// Which half of a CUDA 13 location a range attribute asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LocationPart {
    /// The location's type (`CUmemLocationType`).
    Type,
    /// The location's id (a device ordinal).
    Id,
}

/// CUDA 13's split range attributes (`*_PREFERRED_LOCATION_TYPE`/`_ID`,
/// `*_LAST_PREFETCH_LOCATION_TYPE`/`_ID`; the Runtime's have the same values), which HIP lacks:
/// the legacy attribute that answers the location as one ordinal, and the half asked for.
/// `None` for every other attribute.
pub(crate) fn split_location_attr(attr: u32) -> Option<(u32, LocationPart)> {
    use anycuda_api::driver::CUmem_range_attribute as A;
    const PREFERRED: u32 = A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION.0;
    const LAST: u32 = A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION.0;
    Some(match A(attr) {
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE => (PREFERRED, LocationPart::Type),
        A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID => (PREFERRED, LocationPart::Id),
        A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE => (LAST, LocationPart::Type),
        A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID => (LAST, LocationPart::Id),
        _ => return None,
    })
}

// The Runtime's range attributes have the Driver's values (one rule serves both).
const _: () = {
    use anycuda_api::driver::CUmem_range_attribute as D;
    use anycuda_api::runtime::cudaMemRangeAttribute as R;
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION.0
            == R::cudaMemRangeAttributePreferredLocation.0
    );
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION.0
            == R::cudaMemRangeAttributeLastPrefetchLocation.0
    );
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE.0
            == R::cudaMemRangeAttributePreferredLocationType.0
    );
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID.0
            == R::cudaMemRangeAttributePreferredLocationId.0
    );
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE.0
            == R::cudaMemRangeAttributeLastPrefetchLocationType.0
    );
    assert!(
        D::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID.0
            == R::cudaMemRangeAttributeLastPrefetchLocationId.0
    );
};

// The Runtime's location types have the Driver's values (one rule serves both).
const _: () = {
    use anycuda_api::driver::CUmemLocationType as D;
    use anycuda_api::runtime::cudaMemLocationType as R;
    assert!(D::CU_MEM_LOCATION_TYPE_DEVICE.0 == R::cudaMemLocationTypeDevice.0);
    assert!(D::CU_MEM_LOCATION_TYPE_HOST.0 == R::cudaMemLocationTypeHost.0);
    assert!(D::CU_MEM_LOCATION_TYPE_HOST_NUMA.0 == R::cudaMemLocationTypeHostNuma.0);
    assert!(D::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT.0 == R::cudaMemLocationTypeHostNumaCurrent.0);
};

#[cfg(test)]
mod scalar_tests {
    use super::*;
    use anycuda_api::driver::CUmemLocationType as T;

    /// The one edge rule on both APIs' types.
    fn edges_both<E: EdgeData + core::fmt::Debug>(mk: fn(u8, u8, u8, u8) -> E) {
        let mut e = [E::DEFAULT; 3];
        // SAFETY: arrays of the given lengths, or NULL.
        unsafe {
            assert_eq!(check_default_edges(core::ptr::null::<E>(), 5), Ok(()));
            assert_eq!(check_default_edges(e.as_ptr(), 3), Ok(()));
            e[2] = mk(0, 0, 1, 0); // programmatic
            assert_eq!(
                check_default_edges(e.as_ptr(), 3),
                Err(Refusal::NotSupported)
            );
            assert_eq!(check_default_edges(e.as_ptr(), 2), Ok(()));
            e[0] = mk(1, 0, 0, 0); // a port
            assert_eq!(
                check_default_edges(e.as_ptr(), 1),
                Err(Refusal::NotSupported)
            );
            e[0] = mk(0, 0, 0, 7); // reserved bytes must be zero
            assert_eq!(
                check_default_edges(e.as_ptr(), 1),
                Err(Refusal::InvalidValue)
            );
            let mut out = [mk(9, 9, 9, 9); 4];
            fill_default_edges(out.as_mut_ptr(), 3);
            assert!(out[..3].iter().all(|x| x.parts() == (0, 0, 0, [0; 5])));
            assert_eq!(out[3].parts(), (9, 9, 9, [9, 0, 0, 0, 0]));
            fill_default_edges(core::ptr::null_mut::<E>(), 3);
        }
    }

    #[test]
    fn edge_data_rule_is_one_for_both_apis() {
        edges_both(|f, t, k, r| CUgraphEdgeData {
            from_port: f,
            to_port: t,
            type_: k,
            reserved: [r, 0, 0, 0, 0],
        });
        edges_both(|f, t, k, r| cudaGraphEdgeData {
            from_port: f,
            to_port: t,
            type_: k,
            reserved: [r, 0, 0, 0, 0],
        });
    }

    /// The split location attributes read back through the legacy ordinal, and the ordinal
    /// becomes a location again (the inverse of `location_to_device` where one exists).
    #[test]
    fn ordinals_become_locations() {
        use anycuda_api::driver::CUmem_range_attribute as A;
        assert_eq!(device_to_location(0), (T::CU_MEM_LOCATION_TYPE_DEVICE.0, 0));
        assert_eq!(device_to_location(3), (T::CU_MEM_LOCATION_TYPE_DEVICE.0, 3));
        assert_eq!(device_to_location(-1), (T::CU_MEM_LOCATION_TYPE_HOST.0, -1));
        assert_eq!(
            device_to_location(-2),
            (T::CU_MEM_LOCATION_TYPE_INVALID.0, -2)
        );
        assert_eq!(
            device_to_location(i32::MIN).0,
            T::CU_MEM_LOCATION_TYPE_INVALID.0
        );
        for o in [0, 5, HIP_CPU_DEVICE_ID] {
            let (t, id) = device_to_location(o);
            assert_eq!(location_to_device(t, id), Ok(o));
        }
        let preferred = A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION.0;
        let last = A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION.0;
        assert_eq!(
            split_location_attr(A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE.0),
            Some((preferred, LocationPart::Type))
        );
        assert_eq!(
            split_location_attr(A::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID.0),
            Some((preferred, LocationPart::Id))
        );
        assert_eq!(
            split_location_attr(A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE.0),
            Some((last, LocationPart::Type))
        );
        assert_eq!(
            split_location_attr(A::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID.0),
            Some((last, LocationPart::Id))
        );
        for a in [
            0,
            preferred,
            last,
            A::CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY.0,
            9,
            u32::MAX,
        ] {
            assert_eq!(split_location_attr(a), None, "{a}");
        }
    }

    #[test]
    fn locations_become_device_ordinals() {
        let dev = T::CU_MEM_LOCATION_TYPE_DEVICE.0;
        assert_eq!(location_to_device(dev, 3), Ok(3));
        assert_eq!(location_to_device(dev, -1), Err(Refusal::InvalidDevice));
        assert_eq!(
            location_to_device(T::CU_MEM_LOCATION_TYPE_HOST.0, 7),
            Ok(HIP_CPU_DEVICE_ID)
        );
        for numa in [
            T::CU_MEM_LOCATION_TYPE_HOST_NUMA,
            T::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
        ] {
            assert_eq!(location_to_device(numa.0, 0), Err(Refusal::NotSupported));
        }
        assert_eq!(
            location_to_device(T::CU_MEM_LOCATION_TYPE_INVALID.0, 0),
            Err(Refusal::InvalidValue)
        );
        assert_eq!(
            CUresult::from(Refusal::InvalidDevice),
            CUresult::CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(
            cudaError_t::from(Refusal::InvalidDevice),
            cudaError_t::cudaErrorInvalidDevice
        );
    }

    #[test]
    fn flags_refusals_are_typed() {
        let t = tables_for(50_221_153);
        let m = t.cu_stream_flags;
        assert_eq!(flags_to_hip(m, 0), Ok(0));
        let non_blocking = m.hip_of("CU_STREAM_NON_BLOCKING").expect("mapped flag") as u64;
        assert_eq!(flags_to_hip(m, 1), Ok(non_blocking));
        // A bit that is no flag of the group.
        assert_eq!(flags_to_hip(m, 1 << 20), Err(Refusal::InvalidValue));
        // A CUDA flag this HIP lacks (if the group has one).
        if let Some(missing) = m.entries.iter().find(|e| e.2.is_empty() && e.1 != 0) {
            assert_eq!(
                flags_to_hip(m, missing.1 as u64),
                Err(Refusal::NotSupported)
            );
        }
        assert_eq!(flags_to_cuda(m, non_blocking), 1);
    }

    #[test]
    fn results_keep_the_fast_path_and_the_tables() {
        let t = tables_for(50_221_153);
        assert_eq!(CUresult::from_hip(t, 0), CUresult::CUDA_SUCCESS);
        assert_eq!(cudaError_t::from_hip(t, 0), cudaError_t::cudaSuccess);
        // hipErrorInvalidValue (1) is CUDA's invalid value on both APIs.
        assert_eq!(CUresult::from_hip(t, 1), CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cudaError_t::from_hip(t, 1),
            cudaError_t::cudaErrorInvalidValue
        );
        // A code no table knows keeps its raw value in the reserved range.
        let unknown = CUresult::from_hip(t, 54_321);
        assert_eq!(
            anycuda_api::hallucinated::classify(unknown.0 as i64),
            Some(Invented::Unknown(54_321))
        );
    }

    #[test]
    fn enum_values_both_ways() {
        let t = tables_for(50_221_153);
        let m = t.CUstreamCaptureMode;
        for &(_, cuda, _, hip) in m.pairs {
            assert_eq!(enum_to_hip(m, cuda as u32), Some(hip as u32));
            assert_eq!(enum_to_cuda(m, hip as u32), cuda as u32);
        }
        assert_eq!(enum_to_hip(m, 12_345), None);
    }

    #[test]
    fn legacy_stream_is_hips_null_stream_on_amd_only() {
        let legacy = anycuda_api::driver::CU_STREAM_LEGACY;
        assert!(stream_to_hip(Platform::Amd, legacy).is_null());
        assert_eq!(stream_to_hip(Platform::Nvidia, legacy), legacy.cast());
        let per_thread = 2usize as anycuda_api::driver::CUstream;
        assert_eq!(stream_to_hip(Platform::Amd, per_thread), per_thread.cast());
    }
}

#[cfg(test)]
mod same_rules {
    use super::*;

    /// The memory and capture enums the Driver and the Runtime both name translate alike in
    /// every HIP version, so one adaptation serves both APIs through the Driver's tables.
    #[test]
    fn driver_and_runtime_memory_enums_translate_alike() {
        for t in TABLES.iter().copied().chain([NVIDIA_PLATFORM]) {
            for (d, r) in [
                (t.CUmemLocationType, t.cudaMemLocationType),
                (t.CUmemAllocationType, t.cudaMemAllocationType),
                (t.CUmemAllocationHandleType, t.cudaMemAllocationHandleType),
                (t.CUmemAccess_flags, t.cudaMemAccessFlags),
                (t.CUmem_advise, t.cudaMemoryAdvise),
                (t.CUstreamCaptureMode, t.cudaStreamCaptureMode),
                (t.CUstreamCaptureStatus, t.cudaStreamCaptureStatus),
                (
                    t.CUstreamUpdateCaptureDependencies_flags,
                    t.cudaStreamUpdateCaptureDependenciesFlags,
                ),
                (t.CUgraphExecUpdateResult, t.cudaGraphExecUpdateResult),
                (t.CUgraphInstantiate_flags, t.cudaGraphInstantiateFlags),
            ] {
                assert_eq!(d.to_hip, r.to_hip, "{} vs {}", d.cuda_type, r.cuda_type);
                assert_eq!(d.to_cuda, r.to_cuda, "{} vs {}", d.cuda_type, r.cuda_type);
            }
        }
    }
}
