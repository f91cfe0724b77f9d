//! NVML (`nvml*`): NVIDIA's management library, through which frameworks and schedulers find,
//! name and mask GPUs. Optional and loaded at run time.
//!
//! Names, signatures and values are NVML's (every function of the pinned `nvml.h`, under the
//! names libnvidia-ml exports: `nvmlInit_v2`, `nvmlDeviceGetCount_v2`, ..., and the older ABIs'
//! `nvmlInit`, `nvmlDeviceGetCount`, ...). The CUDA backend forwards every call to NVIDIA's
//! `libnvidia-ml.so.1` (`ANYCUDA_NVML_LIBRARY` names another file); the HIP backend serves the
//! subset schedulers use over AMD's rocm-smi (`anycuda_hip::nvml`, `ANYCUDA_ROCM_SMI_LIBRARY`),
//! every other function answering [`nvmlReturn_t::NVML_ERROR_NOT_SUPPORTED`]
//! ([`not_supported_reason`] says why). Without the library a call answers
//! [`nvmlReturn_t::NVML_ERROR_LIBRARY_NOT_FOUND`], and the load error (every path tried) is
//! logged once and returned by [`library`].
//!
//! Devices are NVML's on both backends: every GPU of the machine, as NVIDIA's NVML lists them;
//! `CUDA_VISIBLE_DEVICES` (and on HIP `HIP_VISIBLE_DEVICES`) mask the runtime's and driver's
//! devices, not NVML's.
//!
//! ```no_run
//! use anycuda::nvml::*;
//! unsafe { nvmlInit_v2() }.result()?;
//! let mut n = 0;
//! unsafe { nvmlDeviceGetCount_v2(&mut n) }.result()?;
//! println!("{n} GPUs");
//! unsafe { nvmlShutdown() }.result()?;
//! # Ok::<(), anycuda::nvml::NvmlError>(())
//! ```

pub use anycuda_api::nvml::*;

#[path = "generated/nvml.rs"]
#[rustfmt::skip]
#[allow(missing_docs, clippy::all)]
mod surface;
pub use surface::*;

impl Library {
    /// Whether this is NVIDIA's NVML (the CUDA backend) rather than the HIP backend's subset.
    pub fn is_nvidia(self) -> bool {
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(_) => true,
            #[cfg(feature = "backend-hip")]
            Library::Hip(_) => false,
        }
    }

    /// The file behind this NVML (libnvidia-ml, or rocm-smi on HIP; empty when rocm-smi does not
    /// load) and how many catalogue functions it serves, of how many.
    pub fn info(self) -> (String, usize, usize) {
        let total = NVML_FUNCTIONS.len();
        match self {
            #[cfg(feature = "backend-cuda")]
            Library::Cuda(t) => (
                anycuda_cuda::nvml::library()
                    .map(|l| l.path.clone())
                    .unwrap_or_default(),
                t.loaded_count(),
                total,
            ),
            #[cfg(feature = "backend-hip")]
            Library::Hip(_) => (
                anycuda_hip::nvml::rocm_smi_path()
                    .unwrap_or_default()
                    .to_string(),
                anycuda_hip::nvml::NVML_HIP_SERVED.len(),
                total,
            ),
        }
    }
}
