//! anycuda-hip: the HIP backend. CUDA calls are served by AMD's libraries (libamdhip64, hipRTC)
//! with CUDA's signatures and values: every enum crossing the boundary goes through the
//! generated translation tables for the loaded HIP version (`conv`).
//!
//! It also runs on HIP's own NVIDIA platform (a libamdhip64 built from HIP's `nvidia_detail`
//! headers over CUDA): there `hipRuntimeGetVersion` reports a CUDA version, the values are HIP
//! 5.2's, and hipRTC is NVRTC underneath, so options pass through unchanged.
//!
//! The file set mirrors `anycuda-cuda` (wgpu-hal's sibling-backend layout), plus what only a
//! translating backend needs: `conv` (every CUDA↔HIP translation rule, defined once) and
//! `adapt` (hand-written adaptations, one room per area, each serving Driver and Runtime).

#![warn(missing_docs)]

mod adapt;
pub mod conv;
pub mod cublas;
pub mod cublaslt;
pub mod cufft;
pub mod curand;
pub mod cusparse;
mod device_probe;
pub mod driver;
mod loader;
pub mod nccl;
pub mod nvjitlink;
pub mod nvml;
pub mod ptx_code;
pub use loader::version_string;
pub mod rtc;
pub mod rtc_bundle;
mod rtc_isa;
pub mod rtc_options;
pub mod rtc_wave;
pub mod runtime;

// Generated code keeps its own allow list (its unsafe blocks are mechanical FFI forwarding).
#[allow(
    missing_docs,
    non_snake_case,
    non_camel_case_types,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod generated;

pub use adapt::export_tables::install as install_process_backend;
pub use adapt::image::{
    amd_faithful_mode, amd_faithful_verdict, image_kind, is_hiprtc_output, not_supported_reason,
    refusal_on_amd, ImageKind, AMD_FAITHFUL_ENV, EM_AMDGPU, EM_CUDA, HIPRTC_OUTPUT_MARK,
};
pub use adapt::memcpy::{pageable_copy_needs_wait, pageable_rule, PageableWait, PAGEABLE_WAIT_ENV};
pub use anycuda_api::loader::Loaded;
pub use conv::ConvTables;
// `rtc.rs` (hipRTC results) spells the rule `crate::translate`.
pub(crate) use conv::translate;
pub use generated::table::{HipTable, HiprtcTable};
/// HIP's own types (raw integers for enums: their values depend on the HIP version).
pub use generated::types as hip_types;

use anycuda_api::backend::{BackendKind, LibraryReport, LibraryRole};
use anycuda_api::driver::{CUdevice, CUresult};
use anycuda_api::error::{DriverError, LoadError};
use anycuda_api::runtime::cudaError_t;
use anycuda_api::traits::Api;
use conv::ApiResult;
use core::ffi::CStr;

/// Which platform the loaded HIP library runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Platform {
    /// ROCm on AMD GPUs.
    Amd,
    /// HIP's NVIDIA platform: HIP over CUDA (`hipRuntimeGetVersion` reports a CUDA version).
    Nvidia,
}

/// The HIP backend: its libraries, or why each is unusable, and the tables for its version.
#[derive(Debug)]
pub struct HipBackend {
    hip: Result<Loaded<HipTable>, LoadError>,
    rtc: Result<Loaded<HiprtcTable>, LoadError>,
    conv: &'static ConvTables,
    platform: Platform,
    /// Live NVRTC programs, keyed by unforgeable handles, so a bogus or stale handle is an
    /// error, not UB.
    programs: rtc::Programs,
    /// The pageable-copy rule in force ([`pageable_rule`]), decided once at load.
    pageable_wait: PageableWait,
    /// AMD-faithful mode ([`amd_faithful_mode`]), decided once at load.
    amd_faithful: bool,
}

impl HipBackend {
    /// Loads libamdhip64 and hipRTC (inside libamdhip64 on ROCm 5, libhiprtc on ROCm 6+).
    /// Never fails as a whole: an unusable library is recorded with its reason.
    pub fn load() -> Self {
        let hip = loader::load_hip();
        let rtc = loader::load_hiprtc(&hip);
        let version = hip.as_ref().map_or(0, |l| l.version);
        let platform = if version > 0 && version < loader::FIRST_HIP_VERSION_ENCODING {
            Platform::Nvidia
        } else {
            Platform::Amd
        };
        let conv = conv::tables_for(version);
        if let (Platform::Amd, Ok(r)) = (platform, &rtc) {
            rtc_isa::probe(version, &r.path);
        }
        let backend = Self {
            hip,
            rtc,
            conv,
            platform,
            programs: rtc::Programs::new(),
            pageable_wait: pageable_rule(
                platform,
                version,
                std::env::var(PAGEABLE_WAIT_ENV).ok().as_deref(),
            ),
            amd_faithful: {
                let env = std::env::var(AMD_FAITHFUL_ENV).ok();
                let (on, note) = amd_faithful_mode(platform, env.as_deref());
                if let Some(note) = note {
                    log::warn!("anycuda (HIP): {note}");
                }
                on
            },
        };
        for r in backend.libraries() {
            match &r.status {
                Ok(l) => log::debug!("hip {}: {} ({})", r.role, l.path, l.version),
                Err(e) => log::debug!("hip {}: unavailable: {e}", r.role),
            }
        }
        log::debug!("hip: platform {platform:?}, translation tables chosen for version {version}");
        log::debug!("hip: pageable-copy rule: {:?}", backend.pageable_wait);
        if platform == Platform::Nvidia {
            if backend.amd_faithful {
                log::info!(
                    "anycuda (HIP): AMD-faithful mode on HIP's NVIDIA platform: PTX, NVIDIA \
                     cubins and fat binaries, and anything else AMD could not load, are refused \
                     at load as on AMD ({AMD_FAITHFUL_ENV}=0 turns this off)"
                );
            } else {
                log::info!(
                    "anycuda (HIP): {AMD_FAITHFUL_ENV}=0: HIP's NVIDIA platform loads PTX and \
                     cubins, which AMD cannot"
                );
            }
        }
        backend
    }

    /// Native escape hatch: the raw HIP runtime entry points (HIP signatures and values).
    #[inline]
    pub fn native_hip(&self) -> Option<&HipTable> {
        self.hip.as_ref().ok().map(|l| &l.table)
    }
    /// Native escape hatch: the raw hipRTC entry points.
    pub fn native_hiprtc(&self) -> Option<&HiprtcTable> {
        self.rtc.as_ref().ok().map(|l| &l.table)
    }
    /// The translation tables in use (chosen from `hipRuntimeGetVersion`).
    #[inline]
    pub fn conv(&self) -> &'static ConvTables {
        self.conv
    }
    /// The platform the HIP library runs on.
    #[inline]
    pub fn platform(&self) -> Platform {
        self.platform
    }
    /// What the asynchronous 1D copies add for pageable host memory: the rule in force
    /// ([`pageable_rule`]: [`pageable_copy_needs_wait`] unless `ANYCUDA_HIP_PAGEABLE_WAIT` says
    /// otherwise), decided when the backend loaded.
    #[inline]
    pub fn pageable_wait(&self) -> PageableWait {
        self.pageable_wait
    }
    /// Whether module images are held to what AMD can load ([`amd_faithful_mode`]): always on
    /// AMD, where HIP itself loads nothing else; on HIP's NVIDIA platform unless
    /// `ANYCUDA_HIP_AMD_FAITHFUL=0` said otherwise when the backend loaded.
    #[inline]
    pub fn amd_faithful(&self) -> bool {
        self.platform == Platform::Amd || self.amd_faithful
    }
    /// `hipRuntimeGetVersion` as loaded (0 when libamdhip64 did not load).
    #[inline]
    pub fn hip_version(&self) -> i32 {
        self.hip.as_ref().map_or(0, |l| l.version)
    }
    /// Translates a HIP error into the CUDA Driver API's code (`conv`'s rule).
    #[inline]
    pub(crate) fn cu(&self, e: hip_types::hipError_t) -> CUresult {
        CUresult::from_hip(self.conv, e)
    }
    /// Translates a HIP error into the CUDA Runtime API's code (`conv`'s rule).
    #[inline]
    pub(crate) fn rt(&self, e: hip_types::hipError_t) -> cudaError_t {
        cudaError_t::from_hip(self.conv, e)
    }
    /// The HIP version whose ABI the loaded library has, for entry points whose ABI changed
    /// (`HipTable` fields `<name>__hip<major>_<minor>`): `hip_version()`, except on HIP's NVIDIA
    /// platform (which reports a CUDA version), built from the HIP 5.2.3 headers.
    pub(crate) fn hip_abi_version(&self) -> i32 {
        match self.platform {
            Platform::Nvidia => conv::HIP_VERSIONS[0],
            Platform::Amd => self.hip_version(),
        }
    }
}

impl Api for HipBackend {
    const KIND: BackendKind = BackendKind::Hip;

    fn libraries(&self) -> Vec<LibraryReport> {
        vec![
            LibraryReport::of(
                LibraryRole::Hip,
                &self.hip,
                loader::version_string,
                HipTable::loaded_count,
                generated::table::HIP_FUNCTIONS.len(),
            ),
            LibraryReport::of(
                LibraryRole::Hiprtc,
                &self.rtc,
                |v| format!("{}.{}", v / 1000, v % 1000),
                HiprtcTable::loaded_count,
                generated::table::HIPRTC_FUNCTIONS.len(),
            ),
        ]
    }

    fn device_arch(&self, dev: CUdevice) -> Result<String, DriverError> {
        let t = self
            .native_hip()
            .ok_or(DriverError(CUresult::CUDA_ERROR_NOT_INITIALIZED))?;
        let v = self.hip_version();
        // The gcnArchName field sits in a struct whose layout changed in ROCm 6 (R0600).
        // SAFETY: zeroed POD structs, filled by HIP for the layout matching the entry point.
        let name = unsafe {
            if v >= 60_000_000 {
                let f = t
                    .hipGetDevicePropertiesR0600
                    .ok_or(DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED))?;
                let mut p: hip_types::hipDeviceProp_tR0600 = core::mem::zeroed();
                self.cu(f(&mut p, dev)).result()?;
                arch_name(&p.gcnArchName)
            } else {
                let f = t
                    .hipGetDeviceProperties
                    .ok_or(DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED))?;
                let mut p: hip_types::hipDeviceProp_t = core::mem::zeroed();
                self.cu(f(&mut p, dev)).result()?;
                arch_name(&p.gcnArchName)
            }
        };
        if !name.is_empty() {
            return Ok(name);
        }
        // HIP's NVIDIA platform leaves gcnArchName empty: the target is the CUDA one.
        let (mut major, mut minor) = (0, 0);
        let f = t
            .hipDeviceComputeCapability
            .ok_or(DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED))?;
        // SAFETY: valid out-pointers.
        self.cu(unsafe { f(&mut major, &mut minor, dev) })
            .result()?;
        Ok(format!("sm_{major}{minor}"))
    }
}

/// How the HIP backend answers device attribute `attr` (`cuDeviceGetAttribute`,
/// `cudaDeviceGetAttribute`), in words: HIP's attribute first where a HIP release has one, then
/// HIP's device properties, another HIP query, or a constant with its reason (0 for a capability
/// HIP lacks). `None` for a value that is no attribute (answered `CUDA_ERROR_INVALID_VALUE`).
/// docs/hip-conformance.md lists every attribute's rule.
pub fn device_attribute_rule(attr: anycuda_api::driver::CUdevice_attribute) -> Option<String> {
    conv::device_attr::rule(attr).map(|r| r.describe())
}

/// The NUL-terminated name in a fixed `char` array (empty if there is no NUL).
fn arch_name(chars: &[core::ffi::c_char]) -> String {
    // SAFETY: c_char and u8 have the same size and alignment.
    let bytes = unsafe { core::slice::from_raw_parts(chars.as_ptr().cast::<u8>(), chars.len()) };
    CStr::from_bytes_until_nul(bytes)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}
