//! cuBLASLt on the HIP backend: hipBLASLt, translated through tables generated from both headers
//! (statuses, compute and data types, the three attribute enums and the enum-valued attribute
//! values) plus the rules below.
//!
//! hipBLASLt has no NVIDIA build (unlike hipBLAS and hipRAND, it has no `nvidia_detail`
//! backend): on HIP's NVIDIA platform every cuBLASLt call answers `CUBLAS_STATUS_NOT_SUPPORTED`,
//! and [`anycuda_api::cublaslt::not_supported_reason`] says so (use the CUDA backend there). The
//! proof depth of this layer is therefore CI (hipBLASLt 7.1.1 loads and resolves without a GPU,
//! the tables are checked against both headers) and paper: no AMD GPU has run it.
//!
//! Rules kept by hand:
//! - functions pair by name (`cublasLtX` <-> `hipblasLtX`) where the signatures agree; a
//!   cuBLASLt function hipBLASLt lacks (`cublasLtMatmulAlgoInit`, the algorithm capability and
//!   configuration queries, the emulation descriptors, the logger, `cublasLtGetProperty`, ...)
//!   answers `CUBLAS_STATUS_NOT_SUPPORTED` with a reason naming it;
//! - attribute ids are translated (`CUBLASLT_MATMUL_DESC_EPILOGUE` is 7, hipBLASLt's 2), and so
//!   are the attribute values that are enums (transpose operations 0/1 vs 111/112, epilogues,
//!   pointer modes, data types, matrix orders, scale modes); an attribute or a value with no
//!   hipBLASLt counterpart answers `CUBLAS_STATUS_NOT_SUPPORTED` with a reason, a value cuBLASLt
//!   does not know answers `CUBLAS_STATUS_INVALID_VALUE`, as cuBLASLt does;
//! - `cublasLtMatmulAlgo_t` is 64 bytes, `hipblasLtMatmulAlgo_t` 24 (16 opaque bytes and the
//!   workspace size the algorithm was found for). A hipBLASLt algorithm travels inside the CUDA
//!   struct: words 0 and 1 hold its 16 bytes, word 2 its workspace size, words 3 to 6 are zero and
//!   word 7 is [`ALGO_TAG`], which marks it as hipBLASLt's. `cublasLtMatmul` unpacks it; an
//!   algorithm without the tag (one from `cublasLtMatmulAlgoInit`, or a cuBLASLt one) is
//!   refused with a reason, a null one lets hipBLASLt choose, as in cuBLASLt;
//! - `cublasLtMatmulHeuristicResult_t` (96 bytes) contains the algorithm: the heuristic query
//!   asks hipBLASLt into an array of its own 56-byte results and repacks each (the algorithm as
//!   above, the workspace size, the state as a cuBLAS status, the waves count, the reserved
//!   words);
//! - the ABI: the structs above are the pinned header's (hipBLASLt 1.1, Debian's 7.1.1 package),
//!   checked against the sizes codegen read from it; only soname `libhipblaslt.so.1` is searched
//!   ([`anycuda_api::cublaslt::HIPBLASLT_SEARCH`]), so a hipBLASLt of another major, whose
//!   structs may differ, is never loaded. hipBLASLt has no run-time version query without a
//!   device (`hipblasLtGetVersion` takes a handle);
//! - on AMD, with no HIP device, `cublasLtCreate` answers `CUBLAS_STATUS_NOT_INITIALIZED`,
//!   cuBLASLt's answer without a GPU, before hipBLASLt sees it: hipBLASLt 7.1.1 ends the whole
//!   process (`exit(1)`, "no ROCm-capable device is detected") when asked for a handle without
//!   one;
//! - null handles, descriptors and out-pointers get cuBLASLt's answers before hipBLASLt sees
//!   them (measured on libcublasLt 13.10; hipBLASLt answers some differently, see codegen), and
//!   so does the size query of an enum-valued attribute (null buffer, size 0: 4 bytes, where
//!   hipBLASLt 7.1.1 answers an invalid value);
//! - `cublasLtGetStatusName`/`String` answer cuBLAS's status names (hipBLASLt has no strings),
//!   `cublasLtGetVersion` hipBLASLt's own version when a device let anycuda ask it, else 0.

use crate::Platform;
use anycuda_api::cublaslt::{self, CublasLt as _, CublasLtTable, Flavor};
use anycuda_api::cublaslt::{
    cublasComputeType_t, cublasLtEpilogue_t, cublasLtHandle_t, cublasLtMatmulAlgo_t,
    cublasLtMatmulDescAttributes_t, cublasLtMatmulDesc_t, cublasLtMatmulHeuristicResult_t,
    cublasLtMatmulMatrixScale_t, cublasLtMatmulPreferenceAttributes_t, cublasLtMatmulPreference_t,
    cublasLtMatrixLayoutAttribute_t, cublasLtMatrixLayout_t,
    cublasLtMatrixTransformDescAttributes_t, cublasLtMatrixTransformDesc_t, cublasLtOrder_t,
    cublasLtPointerMode_t, cublasOperation_t, cublasStatus_t, cudaDataType, cudaStream_t,
};
use anycuda_api::error::LoadError;
use anycuda_api::loader::{Loaded, Opened};
use anycuda_api::CudaEnum as _;
use core::ffi::{c_int, c_void};
use std::sync::OnceLock;

#[path = "generated/cublaslt.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all, non_snake_case, clippy::undocumented_unsafe_blocks)]
mod tables;

pub use tables::*;

pub(crate) use anycuda_api::cublaslt::refuse;

/// Word 7 of a `cublasLtMatmulAlgo_t` that carries a hipBLASLt algorithm (`"anycHBLT"`).
pub const ALGO_TAG: u64 = u64::from_be_bytes(*b"anycHBLT");

/// `hipblasLtMatmulAlgo_t` of the pinned `hipblaslt.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HipAlgo {
    /// The opaque algorithm.
    pub data: [u8; 16],
    /// The workspace size the algorithm was found for.
    pub max_workspace_bytes: usize,
}
const _: () = assert!(core::mem::size_of::<HipAlgo>() == HIPBLASLT_ALGO_SIZE);

/// `hipblasLtMatmulHeuristicResult_t` of the pinned `hipblaslt.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct HipHeuristicResult {
    /// The algorithm.
    pub algo: HipAlgo,
    /// The workspace it needs.
    pub workspace_size: usize,
    /// A `hipblasStatus_t`.
    pub state: c_int,
    /// hipBLASLt's device-utilisation metric.
    pub waves_count: f32,
    /// Reserved.
    pub reserved: [c_int; 4],
}
const _: () =
    assert!(core::mem::size_of::<HipHeuristicResult>() == HIPBLASLT_HEURISTIC_RESULT_SIZE);

/// A hipBLASLt algorithm inside cuBLASLt's struct (layout in the module doc).
pub fn pack_algo(a: &HipAlgo) -> cublasLtMatmulAlgo_t {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&a.data[..8]);
    hi.copy_from_slice(&a.data[8..]);
    let mut data = [0u64; 8];
    data[0] = u64::from_ne_bytes(lo);
    data[1] = u64::from_ne_bytes(hi);
    data[2] = a.max_workspace_bytes as u64;
    data[7] = ALGO_TAG;
    cublasLtMatmulAlgo_t { data }
}

/// The hipBLASLt algorithm [`pack_algo`] put in `a`, or `None` when `a` carries none.
pub fn unpack_algo(a: &cublasLtMatmulAlgo_t) -> Option<HipAlgo> {
    if a.data[7] != ALGO_TAG || a.data[3..7].iter().any(|w| *w != 0) {
        return None;
    }
    let mut data = [0u8; 16];
    data[..8].copy_from_slice(&a.data[0].to_ne_bytes());
    data[8..].copy_from_slice(&a.data[1].to_ne_bytes());
    Some(HipAlgo {
        data,
        max_workspace_bytes: usize::try_from(a.data[2]).ok()?,
    })
}

/// A loaded hipBLASLt (AMD), or none (HIP's NVIDIA platform, for which hipBLASLt has no build).
/// `Send + Sync`: the table holds plain function pointers and the library stays loaded while it
/// lives.
#[derive(Debug)]
pub struct LtLibrary {
    loaded: Option<Loaded<CublasLtTable>>,
    version: i32,
    /// `hipGetDeviceCount` of the HIP runtime hipBLASLt itself is linked to (resolved through
    /// hipBLASLt's handle, which searches its dependencies).
    device_count: Option<unsafe extern "C" fn(*mut c_int) -> c_int>,
    /// The handle `device_count` was resolved through, kept open as long as it is used.
    _probe: Option<Opened>,
}

impl LtLibrary {
    /// Opens the hipBLASLt `search` finds, for AMD.
    ///
    /// # Errors
    /// As [`anycuda_api::cublaslt::load`].
    pub fn open(search: &anycuda_api::loader::Search) -> Result<Self, LoadError> {
        let loaded = cublaslt::load(search, Flavor::HipblasLt)?;
        let mut l = Self {
            loaded: Some(loaded),
            version: 0,
            device_count: None,
            _probe: None,
        };
        // The same file again (the loader hands back the mapped one): only to look up symbols
        // in hipBLASLt's dependency scope and the version query, which takes a handle.
        if let Ok(o) = search.open() {
            let p = o.sym(c"hipGetDeviceCount");
            if !p.is_null() {
                // SAFETY: hipGetDeviceCount(int*) -> hipError_t (a C int) in every HIP.
                l.device_count = Some(unsafe {
                    core::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_int) -> c_int>(
                        p,
                    )
                });
            }
            let gv = o.sym(c"hipblasLtGetVersion");
            if !gv.is_null() && l.has_device() {
                // SAFETY: hipblasStatus_t hipblasLtGetVersion(hipblasLtHandle_t, int*) in the
                // pinned hipblaslt.h.
                let gv = unsafe {
                    core::mem::transmute::<
                        *mut c_void,
                        unsafe extern "C" fn(cublasLtHandle_t, *mut c_int) -> c_int,
                    >(gv)
                };
                let mut v = 0;
                if let Some(t) = l.table() {
                    let mut h: cublasLtHandle_t = core::ptr::null_mut();
                    // SAFETY: a valid out-pointer; a device is present (checked above).
                    if unsafe { t.cublasLtCreate(&mut h) }.0 == 0 {
                        // SAFETY: the handle just created, a valid out-pointer.
                        if unsafe { gv(h, &mut v) } != 0 {
                            v = 0;
                        }
                        // SAFETY: destroyed once, after its last use.
                        unsafe { t.cublasLtDestroy(h) };
                    }
                }
                l.version = v;
            }
            l._probe = Some(o);
        }
        Ok(l)
    }
    /// The stand-in for HIP's NVIDIA platform: no library; every call is refused with a reason.
    pub fn none() -> Self {
        Self {
            loaded: None,
            version: 0,
            device_count: None,
            _probe: None,
        }
    }
    /// Whether the HIP runtime hipBLASLt uses sees a device (false when it cannot be asked).
    pub fn has_device(&self) -> bool {
        let Some(f) = self.device_count else {
            return false;
        };
        let mut n: c_int = 0;
        // SAFETY: a valid out-pointer; the function stays mapped while `_probe` is open.
        let r = unsafe { f(&mut n) };
        r == 0 && n > 0
    }
    /// The raw entry points (hipBLASLt's own values), `None` on HIP's NVIDIA platform.
    #[inline]
    pub fn table(&self) -> Option<&CublasLtTable> {
        self.loaded.as_ref().map(|l| &l.table)
    }
    /// The file the loader mapped (`None` on HIP's NVIDIA platform).
    pub fn path(&self) -> Option<&str> {
        self.loaded.as_ref().map(|l| l.path.as_str())
    }
    /// hipBLASLt's version code (`hipblasLtGetVersion`), 0 when unknown (no device to ask).
    pub fn version(&self) -> i32 {
        self.version
    }
}

/// The matmul library for a HIP platform: hipBLASLt on AMD (`ANYCUDA_HIPBLASLT_LIBRARY`,
/// `libhipblaslt.so.1`, `ROCM_PATH`, `/opt/rocm`), loaded once; on HIP's NVIDIA platform the
/// refusing stand-in ([`LtLibrary::none`]).
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing entry point.
pub fn library(platform: Platform) -> Result<&'static LtLibrary, &'static LoadError> {
    static AMD: OnceLock<Result<LtLibrary, LoadError>> = OnceLock::new();
    static NVIDIA: OnceLock<Result<LtLibrary, LoadError>> = OnceLock::new();
    match platform {
        Platform::Nvidia => NVIDIA.get_or_init(|| Ok(LtLibrary::none())).as_ref(),
        Platform::Amd => AMD
            .get_or_init(|| {
                let l = LtLibrary::open(&cublaslt::HIPBLASLT_SEARCH);
                match &l {
                    Ok(l) => log::debug!(
                        "hip hipBLASLt: {} ({})",
                        l.path().unwrap_or_default(),
                        cublaslt::version_string(Flavor::HipblasLt, l.version())
                    ),
                    Err(e) => log::warn!("hip matmul library: unavailable: {e}"),
                }
                l
            })
            .as_ref(),
    }
}

/// How an enum-valued attribute's value crosses: to hipBLASLt's numbering and back, and whether
/// cuBLASLt knows a value at all (a known value without a counterpart is refused as not
/// supported; an unknown one is invalid, as in cuBLASLt).
#[derive(Clone, Copy)]
struct Conv {
    to: fn(u32) -> Option<i32>,
    from: fn(i64) -> Option<u32>,
    known: fn(u32) -> bool,
    /// Why a known value is refused.
    why: &'static str,
}

macro_rules! conv {
    ($t:ty, $to:ident, $from:ident, $why:expr) => {
        Conv {
            to: |v| $to(<$t>::from_raw(v)),
            from: |v| $from(v).map(|x| x.0 as u32),
            known: |v| <$t>::from_raw(v).info().is_some(),
            why: $why,
        }
    };
}

/// `T(v)` for the `c_uint`-backed enums of the tables.
trait FromRaw {
    fn from_raw(v: u32) -> Self;
}
macro_rules! from_raw {
    ($($t:ty),*) => {$(impl FromRaw for $t { fn from_raw(v: u32) -> Self { Self(v as _) } })*};
}
from_raw!(
    cublasOperation_t,
    cublasLtEpilogue_t,
    cublasLtPointerMode_t,
    cudaDataType,
    cublasLtOrder_t,
    cublasLtMatmulMatrixScale_t,
    cublasComputeType_t
);

const OPERATION: Conv = conv!(
    cublasOperation_t,
    operation_to_hipblaslt,
    operation_from_hipblaslt,
    "cuBLASLt attribute: this transpose operation (CUBLAS_OP_CONJG) has no hipBLASLt counterpart"
);
const EPILOGUE: Conv = conv!(
    cublasLtEpilogue_t,
    epilogue_to_hipblaslt,
    epilogue_from_hipblaslt,
    "cuBLASLt attribute: this epilogue has no hipBLASLt counterpart (EPILOGUE_CUBLASLT_ONLY lists them)"
);
const POINTER_MODE: Conv = conv!(
    cublasLtPointerMode_t,
    pointer_mode_to_hipblaslt,
    pointer_mode_from_hipblaslt,
    "cuBLASLt attribute: this pointer mode has no hipBLASLt counterpart"
);
const DATATYPE: Conv = conv!(
    cudaDataType,
    datatype_to_hipblaslt,
    datatype_from_hipblaslt,
    "cuBLASLt attribute: this data type has no hipBLASLt counterpart"
);
const ORDER: Conv = conv!(
    cublasLtOrder_t,
    order_to_hipblaslt,
    order_from_hipblaslt,
    "cuBLASLt attribute: this matrix order has no hipBLASLt counterpart"
);
const MATRIX_SCALE: Conv = conv!(
    cublasLtMatmulMatrixScale_t,
    matrix_scale_to_hipblaslt,
    matrix_scale_from_hipblaslt,
    "cuBLASLt attribute: this scale mode has no hipBLASLt counterpart"
);

fn matmul_desc_conv(a: cublasLtMatmulDescAttributes_t) -> Option<Conv> {
    type A = cublasLtMatmulDescAttributes_t;
    Some(match a {
        A::CUBLASLT_MATMUL_DESC_TRANSA | A::CUBLASLT_MATMUL_DESC_TRANSB => OPERATION,
        A::CUBLASLT_MATMUL_DESC_EPILOGUE => EPILOGUE,
        A::CUBLASLT_MATMUL_DESC_POINTER_MODE => POINTER_MODE,
        A::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE | A::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE => {
            DATATYPE
        }
        A::CUBLASLT_MATMUL_DESC_A_SCALE_MODE | A::CUBLASLT_MATMUL_DESC_B_SCALE_MODE => MATRIX_SCALE,
        _ => return None,
    })
}

fn layout_conv(a: cublasLtMatrixLayoutAttribute_t) -> Option<Conv> {
    type A = cublasLtMatrixLayoutAttribute_t;
    Some(match a {
        A::CUBLASLT_MATRIX_LAYOUT_TYPE => DATATYPE,
        A::CUBLASLT_MATRIX_LAYOUT_ORDER => ORDER,
        _ => return None,
    })
}

fn transform_conv(a: cublasLtMatrixTransformDescAttributes_t) -> Option<Conv> {
    type A = cublasLtMatrixTransformDescAttributes_t;
    Some(match a {
        A::CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE => DATATYPE,
        A::CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE => POINTER_MODE,
        A::CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA | A::CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB => {
            OPERATION
        }
        _ => return None,
    })
}

/// A set-attribute call: the id translated (`None`: no counterpart, refused with `no_attr`),
/// an enum value translated through `conv`, the rest passed unchanged.
///
/// # Safety
/// `buf` valid for `size` bytes of reading; `set` forwards to hipBLASLt's setter.
unsafe fn set_attr(
    hip_attr: Option<c_int>,
    no_attr: &'static str,
    conv: Option<Conv>,
    buf: *const c_void,
    size: usize,
    set: impl FnOnce(u32, *const c_void, usize) -> cublasStatus_t,
) -> cublasStatus_t {
    let Some(attr) = hip_attr else {
        return refuse(no_attr);
    };
    let attr = attr as u32;
    let Some(c) = conv else {
        return set(attr, buf, size);
    };
    // Every enum-valued attribute is a 32-bit integer in both libraries.
    if buf.is_null() || size != 4 {
        return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
    }
    // SAFETY: 4 readable bytes (checked above; the caller's contract), maybe unaligned.
    let v = unsafe { buf.cast::<u32>().read_unaligned() };
    match (c.to)(v) {
        Some(h) => {
            let h = h as u32;
            set(attr, (&h as *const u32).cast(), 4)
        }
        None if (c.known)(v) => refuse(c.why),
        None => cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
    }
}

/// A get-attribute call: as [`set_attr`], the value translated back.
///
/// # Safety
/// `buf` valid for `size` bytes of writing (or null with `size` 0), `written` null or valid;
/// `get` forwards to hipBLASLt's getter.
unsafe fn get_attr(
    hip_attr: Option<c_int>,
    no_attr: &'static str,
    conv: Option<Conv>,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
    get: impl FnOnce(u32, *mut c_void, usize, *mut usize) -> cublasStatus_t,
) -> cublasStatus_t {
    let Some(attr) = hip_attr else {
        return refuse(no_attr);
    };
    let attr = attr as u32;
    let Some(c) = conv else {
        return get(attr, buf, size, written);
    };
    if buf.is_null() && size == 0 {
        // The size query: cuBLASLt answers the attribute's size, hipBLASLt 7.1.1 answers
        // HIPBLAS_STATUS_INVALID_VALUE; every enum-valued attribute is 4 bytes.
        if written.is_null() {
            return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
        }
        // SAFETY: non-null, the caller's contract.
        unsafe { written.write(4) };
        return cublasStatus_t::CUBLAS_STATUS_SUCCESS;
    }
    if buf.is_null() || size < 4 {
        return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
    }
    let mut h: u32 = 0;
    let r = get(attr, (&mut h as *mut u32).cast(), 4, written);
    if r != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return r;
    }
    let Some(v) = (c.from)(i64::from(h as i32)) else {
        return refuse("cuBLASLt attribute: hipBLASLt holds a value cuBLASLt has no name for");
    };
    // SAFETY: 4 writable bytes (checked above; the caller's contract), maybe unaligned.
    unsafe { buf.cast::<u32>().write_unaligned(v) };
    r
}

macro_rules! attr_pair {
    ($set:ident, $get:ident, $desc:ty, $attr:ty, $to:ident, $conv:expr, $set_why:expr, $get_why:expr) => {
        /// The setter's hand rule (see the module doc).
        ///
        /// # Safety
        /// As the cuBLASLt function of the same name.
        #[allow(non_snake_case)]
        pub(crate) unsafe fn $set(
            _l: &LtLibrary,
            t: &CublasLtTable,
            desc: $desc,
            attr: $attr,
            buf: *const c_void,
            size: usize,
        ) -> cublasStatus_t {
            // SAFETY: forwarded under the caller's contract, values in hipBLASLt's numbering.
            unsafe {
                set_attr($to(attr), $set_why, $conv(attr), buf, size, |a, b, s| {
                    status_from_hipblaslt(t.$set(desc, <$attr>::from_raw_attr(a), b, s))
                })
            }
        }
        /// The getter's hand rule (see the module doc).
        ///
        /// # Safety
        /// As the cuBLASLt function of the same name.
        #[allow(non_snake_case)]
        pub(crate) unsafe fn $get(
            _l: &LtLibrary,
            t: &CublasLtTable,
            desc: $desc,
            attr: $attr,
            buf: *mut c_void,
            size: usize,
            written: *mut usize,
        ) -> cublasStatus_t {
            // SAFETY: forwarded under the caller's contract, values in hipBLASLt's numbering.
            unsafe {
                get_attr(
                    $to(attr),
                    $get_why,
                    $conv(attr),
                    buf,
                    size,
                    written,
                    |a, b, s, w| {
                        status_from_hipblaslt(t.$get(desc, <$attr>::from_raw_attr(a), b, s, w))
                    },
                )
            }
        }
    };
}

/// An attribute id in hipBLASLt's numbering, carried in the CUDA-typed argument.
trait FromRawAttr {
    fn from_raw_attr(v: u32) -> Self;
}
macro_rules! from_raw_attr {
    ($($t:ty),*) => {$(impl FromRawAttr for $t { fn from_raw_attr(v: u32) -> Self { Self(v as _) } })*};
}
from_raw_attr!(
    cublasLtMatmulDescAttributes_t,
    cublasLtMatrixLayoutAttribute_t,
    cublasLtMatmulPreferenceAttributes_t,
    cublasLtMatrixTransformDescAttributes_t
);

attr_pair!(
    cublasLtMatmulDescSetAttribute,
    cublasLtMatmulDescGetAttribute,
    cublasLtMatmulDesc_t,
    cublasLtMatmulDescAttributes_t,
    matmul_desc_to_hipblaslt,
    matmul_desc_conv,
    "cublasLtMatmulDescSetAttribute: this attribute has no hipBLASLt counterpart (MATMUL_DESC_CUBLASLT_ONLY lists them)",
    "cublasLtMatmulDescGetAttribute: this attribute has no hipBLASLt counterpart (MATMUL_DESC_CUBLASLT_ONLY lists them)"
);
attr_pair!(
    cublasLtMatrixLayoutSetAttribute,
    cublasLtMatrixLayoutGetAttribute,
    cublasLtMatrixLayout_t,
    cublasLtMatrixLayoutAttribute_t,
    layout_to_hipblaslt,
    layout_conv,
    "cublasLtMatrixLayoutSetAttribute: this attribute has no hipBLASLt counterpart (LAYOUT_CUBLASLT_ONLY lists them)",
    "cublasLtMatrixLayoutGetAttribute: this attribute has no hipBLASLt counterpart (LAYOUT_CUBLASLT_ONLY lists them)"
);
attr_pair!(
    cublasLtMatmulPreferenceSetAttribute,
    cublasLtMatmulPreferenceGetAttribute,
    cublasLtMatmulPreference_t,
    cublasLtMatmulPreferenceAttributes_t,
    preference_to_hipblaslt,
    |_| None,
    "cublasLtMatmulPreferenceSetAttribute: this attribute has no hipBLASLt counterpart (PREFERENCE_CUBLASLT_ONLY lists them)",
    "cublasLtMatmulPreferenceGetAttribute: this attribute has no hipBLASLt counterpart (PREFERENCE_CUBLASLT_ONLY lists them)"
);
attr_pair!(
    cublasLtMatrixTransformDescSetAttribute,
    cublasLtMatrixTransformDescGetAttribute,
    cublasLtMatrixTransformDesc_t,
    cublasLtMatrixTransformDescAttributes_t,
    transform_desc_to_hipblaslt,
    transform_conv,
    "cublasLtMatrixTransformDescSetAttribute: this attribute has no hipBLASLt counterpart",
    "cublasLtMatrixTransformDescGetAttribute: this attribute has no hipBLASLt counterpart"
);

/// The most results asked of hipBLASLt at once: its heuristics return a few dozen at most, and
/// the staging array must not grow with an arbitrary `requestedAlgoCount`.
pub const MAX_HEURISTIC_RESULTS: usize = 1024;

/// `cublasLtMatmulAlgoGetHeuristic`: hipBLASLt's results repacked (see the module doc).
///
/// # Safety
/// As the cuBLASLt function of the same name.
#[allow(non_snake_case, clippy::too_many_arguments)]
pub(crate) unsafe fn cublasLtMatmulAlgoGetHeuristic(
    _l: &LtLibrary,
    t: &CublasLtTable,
    lightHandle: cublasLtHandle_t,
    operationDesc: cublasLtMatmulDesc_t,
    Adesc: cublasLtMatrixLayout_t,
    Bdesc: cublasLtMatrixLayout_t,
    Cdesc: cublasLtMatrixLayout_t,
    Ddesc: cublasLtMatrixLayout_t,
    preference: cublasLtMatmulPreference_t,
    requestedAlgoCount: c_int,
    heuristicResultsArray: *mut cublasLtMatmulHeuristicResult_t,
    returnAlgoCount: *mut c_int,
) -> cublasStatus_t {
    // cuBLASLt: a count of zero or less, or a null result array or count, is an invalid value.
    if requestedAlgoCount <= 0 || heuristicResultsArray.is_null() || returnAlgoCount.is_null() {
        return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
    }
    let n = (requestedAlgoCount as usize).min(MAX_HEURISTIC_RESULTS);
    let mut staged = vec![HipHeuristicResult::default(); n];
    let mut got: c_int = 0;
    // SAFETY: the staging array holds `n` hipBLASLt results (the layout hipBLASLt writes), passed
    // through the CUDA-typed pointer of the table's signature; the rest under the caller's
    // contract.
    let r = status_from_hipblaslt(unsafe {
        t.cublasLtMatmulAlgoGetHeuristic(
            lightHandle,
            operationDesc,
            Adesc,
            Bdesc,
            Cdesc,
            Ddesc,
            preference,
            n as c_int,
            staged.as_mut_ptr().cast(),
            &mut got,
        )
    });
    if r != cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return r;
    }
    let got = usize::try_from(got).unwrap_or(0).min(n);
    for (i, h) in staged[..got].iter().enumerate() {
        let c = cublasLtMatmulHeuristicResult_t {
            algo: pack_algo(&h.algo),
            workspaceSize: h.workspace_size,
            state: status_from_hipblaslt(cublasStatus_t(h.state as _)),
            wavesCount: h.waves_count,
            reserved: h.reserved,
        };
        // SAFETY: the caller's array holds `requestedAlgoCount` >= `got` results.
        unsafe { heuristicResultsArray.add(i).write(c) };
    }
    // SAFETY: checked non-null above; the caller's contract.
    unsafe { returnAlgoCount.write(got as c_int) };
    r
}

/// `cublasLtMatmul`: the algorithm unpacked (see the module doc).
///
/// # Safety
/// As the cuBLASLt function of the same name.
#[allow(non_snake_case, clippy::too_many_arguments)]
pub(crate) unsafe fn cublasLtMatmul(
    _l: &LtLibrary,
    t: &CublasLtTable,
    lightHandle: cublasLtHandle_t,
    computeDesc: cublasLtMatmulDesc_t,
    alpha: *const c_void,
    A: *const c_void,
    Adesc: cublasLtMatrixLayout_t,
    B: *const c_void,
    Bdesc: cublasLtMatrixLayout_t,
    beta: *const c_void,
    C: *const c_void,
    Cdesc: cublasLtMatrixLayout_t,
    D: *mut c_void,
    Ddesc: cublasLtMatrixLayout_t,
    algo: *const cublasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspaceSizeInBytes: usize,
    stream: cudaStream_t,
) -> cublasStatus_t {
    let hip = if algo.is_null() {
        None
    } else {
        // SAFETY: a non-null algorithm is readable (the caller's contract).
        match unpack_algo(unsafe { &*algo }) {
            Some(a) => Some(a),
            None => {
                return refuse(
                    "cublasLtMatmul: the algorithm was not found by cublasLtMatmulAlgoGetHeuristic on hipBLASLt (cublasLtMatmulAlgoInit has no hipBLASLt counterpart); pass NULL to let hipBLASLt choose",
                )
            }
        }
    };
    let algo_ptr: *const cublasLtMatmulAlgo_t = match &hip {
        Some(a) => (a as *const HipAlgo).cast(),
        None => core::ptr::null(),
    };
    // SAFETY: forwarded under the caller's contract; the algorithm in hipBLASLt's layout lives
    // on this frame for the call.
    status_from_hipblaslt(unsafe {
        t.cublasLtMatmul(
            lightHandle,
            computeDesc,
            alpha,
            A,
            Adesc,
            B,
            Bdesc,
            beta,
            C,
            Cdesc,
            D,
            Ddesc,
            algo_ptr,
            workspace,
            workspaceSizeInBytes,
            stream,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_algorithm_survives_the_round_trip_and_a_foreign_one_is_recognised() {
        let a = HipAlgo {
            data: core::array::from_fn(|i| i as u8 * 7 + 1),
            max_workspace_bytes: 1 << 20,
        };
        let packed = pack_algo(&a);
        assert_eq!(unpack_algo(&packed), Some(a));
        assert_eq!(unpack_algo(&cublasLtMatmulAlgo_t { data: [0; 8] }), None);
        let mut other = packed;
        other.data[4] = 1;
        assert_eq!(unpack_algo(&other), None);
    }
}
