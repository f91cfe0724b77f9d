//! cuBLAS on the HIP backend: hipBLAS, translated through tables generated from both headers
//! (statuses, operations, fill modes, diagonal types, sides, pointer and atomics modes, data
//! and compute types, GEMM algorithms) plus the rules below. On HIP's NVIDIA platform that is
//! hipBLAS's NVIDIA build (which forwards to cuBLAS; `ci/hip-nvidia/build-math.sh` builds it),
//! found the same way (`ANYCUDA_HIPBLAS_LIBRARY`, `libhipblas.so.0`, ...), so the HIP backend's
//! cuBLAS layer runs through HIP's own BLAS on both platforms.
//!
//! Rules kept by hand:
//! - a cuBLAS function whose hipBLAS twin the pinned hipBLAS 5.5.1 header does not declare, or
//!   declares with another ABI (`cublasStrmm_v2` is out-of-place, hipBLAS 5.5.1's in-place),
//!   answers `CUBLAS_STATUS_NOT_SUPPORTED`, and [`anycuda_api::cublas::not_supported_reason`]
//!   names the function;
//! - a value cuBLAS declares that hipBLAS has no counterpart of (`CUBLAS_COMPUTE_*_EMULATED_*`,
//!   a data type hipBLAS 0.x lacks) answers `CUBLAS_STATUS_NOT_SUPPORTED` with a reason; a value
//!   cuBLAS does not declare answers `CUBLAS_STATUS_INVALID_VALUE`, as cuBLAS does;
//! - the data and compute types of the mixed-precision functions follow the library's ABI
//!   ([`Abi`], read from its exports at load): `hipblasDatatype_t` on hipBLAS 0.x (compute
//!   types as their accumulation type: `CUBLAS_COMPUTE_32F_FAST_TF32` -> `HIPBLAS_R_32F`; the
//!   fast modes permit lower precision, full precision satisfies them), `hipDataType` (CUDA's
//!   values) and `hipblasComputeType_t` on 1.x and later;
//! - every cuBLAS GEMM algorithm (`CUBLAS_GEMM_DEFAULT`, `_DEFAULT_TENSOR_OP`, `ALGOn`) is
//!   `HIPBLAS_GEMM_DEFAULT`: hipBLAS has no other (its NVIDIA build accepts only that one);
//! - `cublasSetMathMode`/`cublasGetMathMode`: hipBLAS 5.5.1 has no math modes. A math mode
//!   permits reduced precision, never requires it, so hipBLAS's full precision satisfies every
//!   mode: the mode is kept per handle here (set answers `CUBLAS_STATUS_INVALID_VALUE` for a
//!   mode cuBLAS does not declare, as cuBLAS does) and get answers what was set
//!   (`CUBLAS_DEFAULT_MATH` before any set), without asking hipBLAS;
//! - `cublasGetVersion_v2` and `cublasGetProperty` answer `CUBLAS_STATUS_NOT_SUPPORTED` with a
//!   reason: hipBLAS has no run-time version query, and anycuda does not invent a version;
//! - `cublasGetStatusName`/`cublasGetStatusString` answer cuBLAS's name of the status (hipBLAS
//!   only names its own statuses); `cublasGetCudartVersion` answers 0;
//! - on AMD, with no HIP device, `cublasCreate_v2` answers `CUBLAS_STATUS_NOT_INITIALIZED`,
//!   cuBLAS's answer without a GPU, before hipBLAS sees it. Measured without a GPU (tests/
//!   cublas_raw.rs): hipBLAS 5.5.1 answers `HIPBLAS_STATUS_NOT_INITIALIZED` when it is the
//!   first to touch the HIP runtime and `HIPBLAS_STATUS_INTERNAL_ERROR` once the runtime was
//!   asked for devices; hipBLAS 6.4.4 answers `HIPBLAS_STATUS_INTERNAL_ERROR`. Neither aborts
//!   the process (rocBLAS's "Could not initialize Tensile host: No devices found" path is not
//!   reached), but the answer depends on the release and on history, so it is given here, the
//!   same every time.

use crate::device_probe::DeviceProbe;
use crate::Platform;
use anycuda_api::cublas::{
    self, cublasComputeType_t, cublasHandle_t, cublasMath_t, cublasStatus_t, cudaDataType, Abi,
    CublasTable, Flavor,
};
use anycuda_api::error::LoadError;
use anycuda_api::loader::Loaded;
use anycuda_api::CudaEnum;
use core::ffi::c_int;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

#[path = "generated/cublas.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod tables;

pub use tables::*;

pub(crate) use anycuda_api::cublas::{no_counterpart, refuse};

/// `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`: a flag OR-ed onto a mode.
const DISALLOW_REDUCED: u32 = 16;

/// A loaded hipBLAS (values translated) or cuBLAS (values unchanged; what
/// [`BlasLibrary::open`] gives for [`Flavor::Cublas`]). `Send + Sync`: the table holds plain
/// function pointers and the library stays loaded while it lives.
#[derive(Debug)]
pub struct BlasLibrary {
    loaded: Loaded<CublasTable>,
    flavor: Flavor,
    abi: Abi,
    /// Whether hipBLAS's HIP runtime sees a device (AMD only).
    probe: DeviceProbe,
    /// The math mode of each handle that was given one (by address).
    math: Mutex<HashMap<usize, u32>>,
}

impl BlasLibrary {
    /// Opens the library `search` finds, of the given flavor, for a platform (on AMD the
    /// no-device rule applies).
    ///
    /// # Errors
    /// As [`anycuda_api::cublas::load`].
    pub fn open(
        search: &anycuda_api::loader::Search,
        flavor: Flavor,
        platform: Platform,
    ) -> Result<Self, LoadError> {
        let (loaded, abi) = cublas::load(search, flavor)?;
        let probe = if flavor == Flavor::Hipblas {
            DeviceProbe::open(search, platform)
        } else {
            DeviceProbe::none()
        };
        Ok(Self {
            loaded,
            flavor,
            abi,
            probe,
            math: Mutex::new(HashMap::new()),
        })
    }
    /// Whether the HIP runtime hipBLAS uses sees a device. True where anycuda does not ask
    /// (HIP's NVIDIA platform, cuBLAS, or a hipBLAS whose HIP runtime could not be looked up):
    /// the library answers for itself there.
    pub fn has_device(&self) -> bool {
        self.probe.has_device()
    }
    /// The raw entry points (the library's own values).
    #[inline]
    pub fn table(&self) -> &CublasTable {
        &self.loaded.table
    }
    /// Whether values are translated (hipBLAS).
    #[inline]
    pub fn translates(&self) -> bool {
        self.flavor == Flavor::Hipblas
    }
    /// How the library takes data and compute types (read from its exports).
    pub fn abi(&self) -> Abi {
        self.abi
    }
    /// The file the loader mapped.
    pub fn path(&self) -> &str {
        &self.loaded.path
    }
    /// The version code the library reported: cuBLAS's, or 0 for hipBLAS (no version query).
    pub fn version(&self) -> i32 {
        self.loaded.version
    }
    /// Which library this is.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }
    /// `"hipBLAS"` or `"cuBLAS"`.
    pub fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::Hipblas => "hipBLAS",
            Flavor::Cublas => "cuBLAS",
        }
    }

    /// A `cudaDataType` as the loaded hipBLAS takes it: CUDA's value on the new ABI
    /// (`hipDataType`), `hipblasDatatype_t` on 0.x.
    #[inline]
    fn datatype(&self, v: cudaDataType) -> Option<c_int> {
        if self.abi.new_types() {
            Some(v.0 as c_int)
        } else {
            datatype_to_hipblas(v)
        }
    }

    /// A `cublasComputeType_t` as the loaded hipBLAS takes it: `hipblasComputeType_t` on the
    /// new ABI, the accumulation `hipblasDatatype_t` on 0.x.
    #[inline]
    fn computetype(&self, v: cublasComputeType_t) -> Option<c_int> {
        if self.abi.new_types() {
            computetype_to_hipblas(v)
        } else {
            computetype_to_hipblas_datatype(v)
        }
    }

    fn modes(&self) -> std::sync::MutexGuard<'_, HashMap<usize, u32>> {
        // A poisoned map is still a valid map (plain integers): keep serving.
        self.math.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `cublasSetMathMode` (the handle is non-null: checked by the caller).
    fn set_math_mode(&self, handle: cublasHandle_t, mode: cublasMath_t) -> cublasStatus_t {
        let base = mode.0 & !DISALLOW_REDUCED;
        if cublasMath_t(base).info().is_none() {
            return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
        }
        self.modes().insert(handle as usize, mode.0);
        cublasStatus_t::CUBLAS_STATUS_SUCCESS
    }

    /// `cublasGetMathMode` (the handle is non-null: checked by the caller).
    ///
    /// # Safety
    /// `mode` null or valid for a write.
    unsafe fn get_math_mode(
        &self,
        handle: cublasHandle_t,
        mode: *mut cublasMath_t,
    ) -> cublasStatus_t {
        if mode.is_null() {
            return cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE;
        }
        let m = self.modes().get(&(handle as usize)).copied().unwrap_or(0);
        // SAFETY: non-null, valid for a write by the caller's contract.
        unsafe { *mode = cublasMath_t(m) };
        cublasStatus_t::CUBLAS_STATUS_SUCCESS
    }

    /// Drops a destroyed handle's math mode (its address may be reused by a new handle).
    fn forget_handle(&self, handle: cublasHandle_t) {
        self.modes().remove(&(handle as usize));
    }
}

/// The BLAS library for a HIP platform: hipBLAS (`ANYCUDA_HIPBLAS_LIBRARY`, `libhipblas.so.*`,
/// `ROCM_PATH`, `/opt/rocm`): AMD's on AMD, its NVIDIA build on HIP's NVIDIA platform. Loaded
/// once per platform.
///
/// # Errors
/// The [`LoadError`] naming every path tried, or a missing `hipblasCreate`.
pub fn library(platform: Platform) -> Result<&'static BlasLibrary, &'static LoadError> {
    static AMD: OnceLock<Result<BlasLibrary, LoadError>> = OnceLock::new();
    static NVIDIA: OnceLock<Result<BlasLibrary, LoadError>> = OnceLock::new();
    let cell = match platform {
        Platform::Amd => &AMD,
        Platform::Nvidia => &NVIDIA,
    };
    cell.get_or_init(|| {
        let l = BlasLibrary::open(&cublas::HIPBLAS_SEARCH, Flavor::Hipblas, platform);
        match &l {
            Ok(l) => log::debug!("hip {}: {} ({})", l.name(), l.path(), l.abi().describe()),
            Err(e) => log::warn!("hip BLAS library: unavailable: {e}"),
        }
        l
    })
    .as_ref()
}
