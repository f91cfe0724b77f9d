//! anycuda-cuda: the CUDA backend. Every call forwards to NVIDIA's libraries (libcuda, libcudart,
//! libnvrtc) through function tables resolved once at load.
//!
//! Driver entry points are resolved with `cuGetProcAddress` at the ABI version the pinned
//! headers declare, so one binary serves CUDA 12.x and 13.x drivers; a function the installed
//! driver lacks returns `CUDA_ERROR_NOT_SUPPORTED`.
//!
//! The file set mirrors `anycuda-hip` (wgpu-hal's sibling-backend layout), less `conv/`:
//! CUDA's values are the API's own, so nothing is translated.

#![warn(missing_docs)]

#[path = "generated/cublas.rs"]
#[rustfmt::skip]
pub mod cublas;
#[path = "generated/cublaslt.rs"]
#[rustfmt::skip]
pub mod cublaslt;
#[path = "generated/cufft.rs"]
#[rustfmt::skip]
pub mod cufft;
#[path = "generated/curand.rs"]
#[rustfmt::skip]
pub mod curand;
#[path = "generated/cusparse.rs"]
#[rustfmt::skip]
pub mod cusparse;
pub mod driver;
mod loader;
#[path = "generated/nccl.rs"]
#[rustfmt::skip]
pub mod nccl;
#[path = "generated/nvjitlink.rs"]
#[rustfmt::skip]
pub mod nvjitlink;
#[path = "generated/nvml.rs"]
#[rustfmt::skip]
pub mod nvml;
pub mod rtc;
mod rtc_bundle;
pub mod runtime;

#[allow(missing_docs, non_snake_case, non_camel_case_types, clippy::all)]
mod generated;

pub use anycuda_api::loader::Loaded;
pub use generated::table::{DriverTable, NvrtcTable, RuntimeTable};

use anycuda_api::backend::{BackendKind, LibraryReport, LibraryRole};
use anycuda_api::driver::{CUdevice, CUdevice_attribute};
use anycuda_api::error::{DriverError, LoadError};
use anycuda_api::functions;
use anycuda_api::traits::{Api, Driver};

/// The CUDA backend: each of its three libraries loaded, or the reason it is not.
#[derive(Debug)]
pub struct CudaBackend {
    driver: Result<Loaded<DriverTable>, LoadError>,
    runtime: Result<Loaded<RuntimeTable>, LoadError>,
    nvrtc: Result<Loaded<NvrtcTable>, LoadError>,
    /// Live NVRTC programs, so a destroyed or bogus handle gets an error instead of UB.
    programs: rtc::Programs,
}

impl CudaBackend {
    /// Loads libcuda, libcudart and libnvrtc. Never fails as a whole: each library that cannot
    /// be used is recorded with its reason, and calls into it return the API's error.
    pub fn load() -> Self {
        let backend = Self {
            driver: loader::load_driver(),
            runtime: loader::load_runtime(),
            nvrtc: loader::load_nvrtc(),
            programs: rtc::Programs::new(),
        };
        for r in backend.libraries() {
            match &r.status {
                Ok(l) => log::debug!("cuda {}: {} ({})", r.role, l.path, l.version),
                Err(e) => log::debug!("cuda {}: unavailable: {e}", r.role),
            }
        }
        backend
    }

    /// Native escape hatch: the raw driver entry points (CUDA signatures), if libcuda loaded.
    pub fn native_driver(&self) -> Option<&DriverTable> {
        self.driver.as_ref().ok().map(|l| &l.table)
    }
    /// Native escape hatch: the raw runtime entry points, if libcudart loaded.
    pub fn native_runtime(&self) -> Option<&RuntimeTable> {
        self.runtime.as_ref().ok().map(|l| &l.table)
    }
    /// NVIDIA's own definition of `name` in the library of `role` (libcuda, libcudart or
    /// libnvrtc), null when that library did not load or has no such symbol. For the C ABI's
    /// forwarding of the names it serves only by passing them on (older ABIs, interop, the
    /// profiler).
    pub fn vendor_symbol(
        &self,
        role: LibraryRole,
        name: &core::ffi::CStr,
    ) -> *mut core::ffi::c_void {
        match role {
            LibraryRole::Driver => self
                .driver
                .as_ref()
                .map_or(core::ptr::null_mut(), |l| l.sym(name)),
            LibraryRole::Runtime => self
                .runtime
                .as_ref()
                .map_or(core::ptr::null_mut(), |l| l.sym(name)),
            LibraryRole::Nvrtc => self
                .nvrtc
                .as_ref()
                .map_or(core::ptr::null_mut(), |l| l.sym(name)),
            LibraryRole::Hip | LibraryRole::Hiprtc => core::ptr::null_mut(),
        }
    }
    /// Native escape hatch: the raw NVRTC entry points, if libnvrtc loaded.
    pub fn native_nvrtc(&self) -> Option<&NvrtcTable> {
        self.nvrtc.as_ref().ok().map(|l| &l.table)
    }
}

impl Api for CudaBackend {
    const KIND: BackendKind = BackendKind::Cuda;

    fn libraries(&self) -> Vec<LibraryReport> {
        vec![
            LibraryReport::of(
                LibraryRole::Driver,
                &self.driver,
                loader::version_string,
                DriverTable::loaded_count,
                functions::DRIVER_FUNCTIONS.len(),
            ),
            LibraryReport::of(
                LibraryRole::Runtime,
                &self.runtime,
                loader::version_string,
                RuntimeTable::loaded_count,
                functions::RUNTIME_FUNCTIONS.len(),
            ),
            LibraryReport::of(
                LibraryRole::Nvrtc,
                &self.nvrtc,
                loader::version_string,
                NvrtcTable::loaded_count,
                functions::NVRTC_FUNCTIONS.len(),
            ),
        ]
    }

    fn device_arch(&self, dev: CUdevice) -> Result<String, DriverError> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: both out-pointers are valid locals.
        unsafe {
            self.cuDeviceGetAttribute(
                &mut major,
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                dev,
            )
            .result()?;
            self.cuDeviceGetAttribute(
                &mut minor,
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                dev,
            )
            .result()?;
        }
        Ok(format!("sm_{major}{minor}"))
    }
}
