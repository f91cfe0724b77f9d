//! anycuda: CUDA host code that runs unchanged on NVIDIA (CUDA) and AMD (HIP/ROCm) GPUs.
//!
//! Write against [`driver`], [`runtime`] and [`nvrtc`] exactly as against CUDA's C API: CUDA
//! names, CUDA signatures, CUDA values. Each call goes to the active backend, chosen once per
//! process by [`select`], else the `ANYCUDA_BACKEND` environment variable (`cuda`, `hip`,
//! `auto`; aliases `nvidia`, `rocm`, `amd`), else `auto`. [`backend()`] reports what was chosen
//! and why; [`Backend::load`] opens a specific backend alongside the active one.
//!
//! ```no_run
//! use anycuda::nvrtc::*;
//! let mut prog: nvrtcProgram = std::ptr::null_mut();
//! let src = c"extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }";
//! unsafe {
//!     nvrtcCreateProgram(&mut prog, src.as_ptr(), c"k.cu".as_ptr(), 0, std::ptr::null(), std::ptr::null())
//!         .result()?;
//!     nvrtcDestroyProgram(&mut prog).result()?;
//! }
//! # Ok::<(), anycuda::NvrtcError>(())
//! ```

#![warn(missing_docs)]
#![allow(non_snake_case)]

#[macro_use]
mod dispatch;
// After `dispatch`: the generated impls use `dispatch_api!`.
pub mod core;
pub mod cublas;
pub mod cublaslt;
pub mod cufft;
pub mod curand;
pub mod cusparse;
mod generated;
pub mod nccl;
pub mod nvjitlink;
pub mod nvml;
mod select;

pub use anycuda_api::backend::{BackendKind, LibraryReport, LibraryRole, LoadedLibrary};
pub use anycuda_api::enums::{ConstInfo, CudaEnum, Origin};
pub use anycuda_api::error::{DriverError, LoadError, NvrtcError, RuntimeError};
pub use anycuda_api::traits::{Api, Driver, Rtc, Runtime};
pub use anycuda_api::{functions, hallucinated};
pub use anycuda_rtc::params;
pub use select::{
    backend, cuda_dispatch, device_count, select, BackendChoice, DeviceCountError, SelectError,
    Selected, ENV_VAR,
};

use std::sync::OnceLock;

/// A loaded backend. `Copy`: backends load once per process and are never unloaded.
///
/// It implements [`Driver`], [`Runtime`] and [`Rtc`] by dispatching to the backend it holds
/// (an enum over the compiled-in backends, not a trait object).
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    /// NVIDIA's libraries.
    #[cfg(feature = "backend-cuda")]
    Cuda(&'static anycuda_cuda::CudaBackend),
    /// AMD's libraries (or HIP's NVIDIA platform).
    #[cfg(feature = "backend-hip")]
    Hip(&'static anycuda_hip::HipBackend),
}

#[cfg(feature = "backend-cuda")]
static CUDA: OnceLock<anycuda_cuda::CudaBackend> = OnceLock::new();
#[cfg(feature = "backend-hip")]
static HIP: OnceLock<anycuda_hip::HipBackend> = OnceLock::new();

thread_local! {
    /// The backends this thread is loading right now (bit = `BackendKind as u8`), so a
    /// re-entrant caller can tell "loading here" (would deadlock) from "loading elsewhere".
    static LOADING: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Marks this thread as loading a backend for as long as it lives.
struct Loading(u8);

impl Loading {
    fn bit(kind: BackendKind) -> u8 {
        match kind {
            BackendKind::Cuda => 1,
            BackendKind::Hip => 2,
        }
    }
    #[allow(dead_code)] // unused when no backend is compiled in
    fn enter(kind: BackendKind) -> Loading {
        let bit = Self::bit(kind);
        LOADING.with(|l| l.set(l.get() | bit));
        Loading(bit)
    }
    fn inside(kind: BackendKind) -> bool {
        LOADING.with(|l| l.get() & Self::bit(kind) != 0)
    }
}

impl Drop for Loading {
    fn drop(&mut self) {
        LOADING.with(|l| l.set(l.get() & !self.0));
    }
}

static DROP_IN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The C ABI's hook: anycuda-capi calls [`mark_drop_in`] when it is loaded as `libcuda`,
/// `libcudart` or `libnvrtc`, so reports (`anycuda info`, logs) can say so. A drop-in
/// `libnvrtc` is NVIDIA's to its programs: NVRTC gets no built-in headers unless
/// `ANYCUDA_BUILTIN_HEADERS` asks for them (`anycuda_rtc::rtc_input::set_nvrtc_builtins_default`
/// says why).
pub fn mark_drop_in() {
    DROP_IN.store(true, std::sync::atomic::Ordering::Relaxed);
    anycuda_rtc::rtc_input::set_nvrtc_builtins_default(false);
}

/// Whether anycuda is running as a drop-in C library (anycuda-capi loaded in this process).
pub fn is_drop_in() -> bool {
    DROP_IN.load(std::sync::atomic::Ordering::Relaxed)
}

/// The backends compiled into this build, in `auto` preference order.
#[allow(clippy::vec_init_then_push)] // each push is behind its own cfg
pub fn compiled_in() -> Vec<BackendKind> {
    let mut v = Vec::new();
    #[cfg(feature = "backend-cuda")]
    v.push(BackendKind::Cuda);
    #[cfg(feature = "backend-hip")]
    v.push(BackendKind::Hip);
    v
}

impl Backend {
    /// Loads a backend (once per process; later calls return the same one). Loading itself
    /// does not fail for missing libraries: see [`Backend::libraries`] for what loaded.
    ///
    /// # Errors
    /// [`LoadError::NotCompiledIn`] when the backend's cargo feature is off.
    pub fn load(kind: BackendKind) -> Result<Backend, LoadError> {
        match kind {
            #[cfg(feature = "backend-cuda")]
            BackendKind::Cuda => Ok(Backend::Cuda(CUDA.get_or_init(|| {
                let _loading = Loading::enter(kind);
                anycuda_cuda::CudaBackend::load()
            }))),
            #[cfg(feature = "backend-hip")]
            BackendKind::Hip => {
                let h = HIP.get_or_init(|| {
                    let _loading = Loading::enter(kind);
                    anycuda_hip::HipBackend::load()
                });
                // The driver's private tables (NVIDIA's static runtime) call this backend.
                anycuda_hip::install_process_backend(h);
                Ok(Backend::Hip(h))
            }
            #[allow(unreachable_patterns)]
            other => Err(LoadError::NotCompiledIn(other.into())),
        }
    }

    /// The backend of `kind`, loading it if needed, but never blocking on this thread's own
    /// load of it: `None` when this thread is inside that backend's [`Backend::load`] (a vendor
    /// library's initialiser calling back in), or when it is not compiled in.
    ///
    /// This is what a caller that may be re-entered from a vendor library uses (the C ABI's
    /// re-entry guard): `OnceLock` initialisation is not re-entrant and would deadlock.
    pub fn load_reentrant(kind: BackendKind) -> Option<Backend> {
        if Loading::inside(kind) {
            return Self::loaded(kind);
        }
        Self::load(kind).ok()
    }

    /// The backend of `kind` if it has been loaded already (never loads, never blocks).
    pub fn loaded(kind: BackendKind) -> Option<Backend> {
        match kind {
            #[cfg(feature = "backend-cuda")]
            BackendKind::Cuda => CUDA.get().map(Backend::Cuda),
            #[cfg(feature = "backend-hip")]
            BackendKind::Hip => HIP.get().map(Backend::Hip),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// Which backend this is.
    pub fn kind(self) -> BackendKind {
        dispatch_api!(self, b => api_kind(b))
    }

    /// Which runtime compiler this backend's NVRTC API runs (NVRTC or hipRTC), for the rules
    /// that depend on it (the built-in headers).
    pub fn rtc_target(self) -> anycuda_rtc::rtc_headers::RtcTarget {
        match self.kind() {
            BackendKind::Cuda => anycuda_rtc::rtc_headers::RtcTarget::Nvrtc,
            BackendKind::Hip => anycuda_rtc::rtc_headers::RtcTarget::Hiprtc,
        }
    }

    /// NVIDIA's own definition of `name` in its library of `role`, on the CUDA backend; null on
    /// HIP, or when that library or symbol is missing. The C ABI forwards the names it serves
    /// only by passing them on (older ABIs, OpenGL/EGL/VDPAU interop, the profiler) through it.
    pub fn vendor_symbol(
        self,
        role: anycuda_api::backend::LibraryRole,
        name: &::core::ffi::CStr,
    ) -> *mut ::core::ffi::c_void {
        match self {
            #[cfg(feature = "backend-cuda")]
            Backend::Cuda(b) => b.vendor_symbol(role, name),
            #[allow(unreachable_patterns)]
            _ => {
                let _ = (role, name);
                ::core::ptr::null_mut()
            }
        }
    }

    /// Each library of this backend: path and version, or why it could not be used.
    pub fn libraries(self) -> Vec<LibraryReport> {
        dispatch_api!(self, b => b.libraries())
    }

    /// Whether this backend's runtime compiler (NVRTC or hipRTC) loaded.
    pub fn compiler_loaded(self) -> bool {
        self.libraries()
            .iter()
            .any(|l| l.role.is_compiler() && l.status.is_ok())
    }

    /// The device's compiler target: `sm_90` on NVIDIA, e.g. `gfx90a:sramecc+:xnack-` on AMD.
    ///
    /// # Errors
    /// The driver error of the underlying query.
    pub fn device_arch(self, dev: driver::CUdevice) -> Result<String, DriverError> {
        dispatch_api!(self, b => b.device_arch(dev))
    }

    /// Native escape hatch: the CUDA backend, with its raw entry points, if this is it.
    #[cfg(feature = "backend-cuda")]
    pub fn as_cuda(self) -> Option<&'static anycuda_cuda::CudaBackend> {
        #[allow(unreachable_patterns)]
        match self {
            Backend::Cuda(b) => Some(b),
            _ => None,
        }
    }

    /// Native escape hatch: the HIP backend, with its raw `hip*`/`hiprtc*` entry points and
    /// translation tables, if this is it.
    #[cfg(feature = "backend-hip")]
    pub fn as_hip(self) -> Option<&'static anycuda_hip::HipBackend> {
        #[allow(unreachable_patterns)]
        match self {
            Backend::Hip(b) => Some(b),
            _ => None,
        }
    }
}

/// One of the three CUDA APIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::Display, strum::EnumIter)]
#[strum(serialize_all = "lowercase")]
pub enum CudaApi {
    /// The Driver API (`cu*`).
    Driver,
    /// The Runtime API (`cuda*`).
    Runtime,
    /// NVRTC (`nvrtc*`).
    Nvrtc,
}

impl CudaApi {
    /// Every function of this API in the pinned CUDA headers.
    pub fn catalogue(self) -> &'static [anycuda_api::FnInfo] {
        match self {
            Self::Driver => functions::DRIVER_FUNCTIONS,
            Self::Runtime => functions::RUNTIME_FUNCTIONS,
            Self::Nvrtc => functions::NVRTC_FUNCTIONS,
        }
    }
    /// The functions of this API that anycuda exposes (the trait's methods).
    pub fn exposed(self) -> &'static [&'static str] {
        use anycuda_api::traits::{DRIVER_METHODS, RTC_METHODS, RUNTIME_METHODS};
        match self {
            Self::Driver => DRIVER_METHODS,
            Self::Runtime => RUNTIME_METHODS,
            Self::Nvrtc => RTC_METHODS,
        }
    }
}

/// The functions of `api` that a backend serves (derived from its impl), or `None` when the
/// backend is not compiled in.
pub fn served_by(kind: BackendKind, api: CudaApi) -> Option<&'static [&'static str]> {
    match kind {
        #[cfg(feature = "backend-cuda")]
        BackendKind::Cuda => Some(match api {
            CudaApi::Driver => anycuda_cuda::driver::DRIVER_SERVED,
            CudaApi::Runtime => anycuda_cuda::runtime::RUNTIME_SERVED,
            CudaApi::Nvrtc => anycuda_cuda::rtc::RTC_SERVED,
        }),
        #[cfg(feature = "backend-hip")]
        BackendKind::Hip => Some(match api {
            CudaApi::Driver => anycuda_hip::driver::DRIVER_SERVED,
            CudaApi::Runtime => anycuda_hip::runtime::RUNTIME_SERVED,
            CudaApi::Nvrtc => anycuda_hip::rtc::RTC_SERVED,
        }),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

fn api_kind<A: Api>(_: &A) -> BackendKind {
    A::KIND
}

/// Why the active backend refused the calling thread's last operation that returned `code`,
/// and what to do instead, when a backend rule refused it (e.g. PTX or an NVIDIA cubin on an
/// AMD GPU: "compile the .cu source at run time with NVRTC"). The refusal is also logged, and
/// printed once per process. `None` when the last refusal had another code, or none happened
/// on this thread.
pub fn not_supported_reason(code: driver::CUresult) -> Option<&'static str> {
    #[cfg(feature = "backend-hip")]
    if let Some(why) = anycuda_hip::not_supported_reason(code) {
        return Some(why);
    }
    let _ = code;
    None
}

/// Native escape hatch: the backend crates themselves, for raw HIP or CUDA entry points.
pub mod native {
    #[cfg(feature = "backend-cuda")]
    pub use anycuda_cuda as cuda;
    #[cfg(feature = "backend-hip")]
    pub use anycuda_hip as hip;
}

/// The CUDA Driver API (`cu*`): CUDA's types and functions, served by the active backend.
///
/// Every function of the pinned `cuda.h` (generated, `src/generated/driver.rs`), plus the
/// versioned symbol names (`cuMemAlloc_v2`, ...) as aliases of the functions they implement.
pub mod driver {
    pub use crate::generated::driver::*;
    pub use anycuda_api::driver::*;
}

/// The CUDA Runtime API (`cuda*`): CUDA's types and functions, served by the active backend.
///
/// Every function of the pinned `cuda_runtime_api.h` (generated, `src/generated/runtime.rs`).
pub mod runtime {
    pub use crate::generated::runtime::*;
    pub use anycuda_api::runtime::*;
}

/// NVRTC (`nvrtc*`): NVRTC's types and functions, served by the active backend's compiler
/// (NVRTC, or hipRTC with CUDA options translated and the AMD code object returned as "PTX").
///
/// The safe wrapper over these calls is [`core::Program`] (with [`core::ProgramOptions`]).
pub mod nvrtc {
    pub use crate::generated::nvrtc::*;
    pub use anycuda_api::nvrtc::*;
    /// NVRTC 13.5's option table and the validator both backends run before their compiler.
    pub use anycuda_rtc::rtc_options as options;
}

/// The README's Rust snippets, compiled as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The Rust snippets of `docs/`, compiled as doctests like the README's. A code block with no
/// language is Rust to rustdoc: give every other block its language (`sh`, `toml`, `text`).
#[doc = include_str!("../docs/README.md")]
#[doc = include_str!("../docs/bad-input.md")]
#[doc = include_str!("../docs/c-abi.md")]
#[doc = include_str!("../docs/c-cpp-python.md")]
#[doc = include_str!("../docs/candle.md")]
#[doc = include_str!("../docs/choosing-a-backend.md")]
#[doc = include_str!("../docs/cli.md")]
#[doc = include_str!("../docs/coming-from-cudarc.md")]
#[doc = include_str!("../docs/contributing.md")]
#[doc = include_str!("../docs/linear-algebra.md")]
#[doc = include_str!("../docs/cublaslt.md")]
#[doc = include_str!("../docs/multi-gpu.md")]
#[doc = include_str!("../docs/nvcc.md")]
#[doc = include_str!("../docs/nvrtc-on-hip.md")]
#[doc = include_str!("../docs/proof-and-status.md")]
#[doc = include_str!("../docs/ptx-on-amd.md")]
#[doc = include_str!("../docs/random-numbers.md")]
#[doc = include_str!("../docs/safe-layer.md")]
#[cfg(doctest)]
pub struct DocsDoctests;
