//! Devices: enumeration, typed properties, and the way to a device's primary [`Context`].

use super::context::Context;
use super::error::{check, CoreError, Result};
use super::event::{Event, EventOptions};
use super::memory::DeviceMemoryResource;
use super::stream::{Stream, StreamOptions};
use crate::driver::{self, CUdevice, CUdevice_attribute, CUresult, CUuuid};
use std::ffi::{c_char, c_int, c_uint};
use std::fmt;
use std::sync::OnceLock;

/// `cuInit(0)` once per process; later calls return the first answer.
///
/// # Errors
/// `cuInit`'s error (`CUDA_ERROR_NO_DEVICE`, or `CUDA_ERROR_NOT_INITIALIZED` when the backend's
/// driver library is missing, with the reason in the detail).
pub(crate) fn init() -> Result<()> {
    static INIT: OnceLock<CUresult> = OnceLock::new();
    // SAFETY: cuInit takes no pointers.
    let code = *INIT.get_or_init(|| unsafe { driver::cuInit(0) });
    if code == CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    Err(with_backend_detail(CoreError::driver("cuInit", code)))
}

/// Adds why the backend cannot run (no backend, or its driver library is missing) to an error.
#[cold]
pub(crate) fn with_backend_detail(e: CoreError) -> CoreError {
    match crate::backend() {
        Err(sel) => e.with_detail(format!("no usable backend: {sel}")),
        Ok(s) => {
            let missing: Vec<String> = s
                .backend
                .libraries()
                .into_iter()
                .filter(|l| l.role.is_driver())
                .filter_map(|l| l.status.err().map(|why| format!("{}: {why}", l.role)))
                .collect();
            if missing.is_empty() {
                e.with_detail(format!("on the {} backend", s.kind()))
            } else {
                e.with_detail(format!(
                    "on the {} backend, which has no driver library ({})",
                    s.kind(),
                    missing.join("; ")
                ))
            }
        }
    }
}

/// A GPU, by ordinal. Cheap to copy; it owns nothing (its primary context is a [`Context`]).
///
/// `Send + Sync`: a device ordinal and handle are plain integers, valid on every thread.
///
/// ```no_run
/// use anycuda::core::Device;
/// let dev = Device::new(0)?;
/// println!("{} ({}), {} bytes", dev.name()?, dev.arch()?, dev.total_memory()?);
/// let ctx = dev.set_current()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    ordinal: usize,
    raw: CUdevice,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({})", self.ordinal)
    }
}

impl Device {
    /// How many devices the active backend sees (`cuInit` once, then `cuDeviceGetCount`).
    ///
    /// # Errors
    /// As CUDA answers: `CUDA_ERROR_NO_DEVICE` from `cuInit` when the driver sees no GPU,
    /// `CUDA_ERROR_NOT_INITIALIZED` when the backend has no driver library (the detail says
    /// which library and why).
    pub fn count() -> Result<usize> {
        init()?;
        let mut n: c_int = 0;
        // SAFETY: valid out-pointer.
        check("cuDeviceGetCount", unsafe {
            driver::cuDeviceGetCount(&mut n)
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Every device, in ordinal order.
    ///
    /// # Errors
    /// As [`Device::count`].
    pub fn all() -> Result<Vec<Device>> {
        (0..Self::count()?).map(Self::new).collect()
    }

    /// The device of this ordinal (`cuInit` once, `cuDeviceGet`).
    ///
    /// # Errors
    /// As [`Device::count`]; `CUDA_ERROR_INVALID_DEVICE` for an ordinal out of range.
    pub fn new(ordinal: usize) -> Result<Device> {
        // An ordinal out of range is answered here, with the driver's own code, rather than by
        // a `cuDeviceGet` that is expected to fail: tools such as compute-sanitizer report
        // every failing API call as an error of the program.
        let count = Self::count()?; // `cuInit` first, so an uninitialised driver says so
        let o = match c_int::try_from(ordinal) {
            Ok(o) if ordinal < count => o,
            _ => {
                return Err(CoreError::driver(
                    "cuDeviceGet",
                    CUresult::CUDA_ERROR_INVALID_DEVICE,
                ))
            }
        };
        let mut raw: CUdevice = 0;
        // SAFETY: valid out-pointer.
        check("cuDeviceGet", unsafe { driver::cuDeviceGet(&mut raw, o) })?;
        Ok(Device { ordinal, raw })
    }

    /// Wraps a raw device handle and its ordinal, as `cuDeviceGet(ordinal)` returned them.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_DEVICE` when `raw` is not the handle of `ordinal`.
    pub fn from_raw(ordinal: usize, raw: CUdevice) -> Result<Device> {
        let d = Self::new(ordinal)?;
        if d.raw != raw {
            return Err(CoreError::driver(
                "cuDeviceGet",
                CUresult::CUDA_ERROR_INVALID_DEVICE,
            ));
        }
        Ok(d)
    }

    /// The raw `CUdevice`.
    #[inline]
    pub fn as_raw(&self) -> CUdevice {
        self.raw
    }

    /// The ordinal this device was opened with.
    #[inline]
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device's primary context, retained. While any clone of it is alive every call returns
    /// the same one (one `Arc`); the primary context is released when the last clone drops.
    ///
    /// # Errors
    /// `cuDevicePrimaryCtxRetain`'s error.
    pub fn context(&self) -> Result<Context> {
        Context::primary(*self)
    }

    /// The primary context, made current on the calling thread (CUDA's `cudaSetDevice`).
    /// Keep the returned [`Context`] alive while you work on the device.
    ///
    /// # Errors
    /// As [`Device::context`], and `cuCtxSetCurrent`'s error.
    pub fn set_current(&self) -> Result<Context> {
        let ctx = self.context()?;
        ctx.bind()?;
        Ok(ctx)
    }

    /// A new stream in the primary context (cuda.core's `Device.create_stream`); the stream
    /// keeps the context retained.
    ///
    /// # Errors
    /// As [`Device::context`] and [`Context::create_stream`].
    pub fn create_stream(&self, opts: StreamOptions) -> Result<Stream> {
        self.context()?.create_stream(opts)
    }

    /// A new event in the primary context (cuda.core's `Device.create_event`).
    ///
    /// # Errors
    /// As [`Device::context`] and [`Context::create_event`].
    pub fn create_event(&self, opts: EventOptions) -> Result<Event> {
        self.context()?.create_event(opts)
    }

    /// The primary context's default stream (cuda.core's `Device.default_stream`).
    ///
    /// # Errors
    /// As [`Device::context`].
    pub fn default_stream(&self) -> Result<Stream> {
        Ok(self.context()?.default_stream())
    }

    /// The device memory resource of the primary context (cuda.core's
    /// `Device.memory_resource`): pools where the device has them.
    ///
    /// # Errors
    /// As [`Device::context`].
    pub fn memory_resource(&self) -> Result<DeviceMemoryResource> {
        Ok(DeviceMemoryResource::new(&self.context()?))
    }

    /// Waits for all work on this device's primary context. Nothing to wait for (and no context
    /// is created) when the primary context is not active.
    ///
    /// # Errors
    /// The error of an earlier asynchronous failure, or of the synchronize itself.
    pub fn synchronize(&self) -> Result<()> {
        let (mut flags, mut active): (c_uint, c_int) = (0, 0);
        // SAFETY: valid out-pointers.
        check("cuDevicePrimaryCtxGetState", unsafe {
            driver::cuDevicePrimaryCtxGetState(self.raw, &mut flags, &mut active)
        })?;
        if active == 0 {
            return Ok(());
        }
        self.context()?.synchronize()
    }

    /// One device attribute (`cuDeviceGetAttribute`), in CUDA's numbering on every backend.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` for an unknown attribute; the backend's not-supported error
    /// for one it cannot answer.
    #[inline]
    pub fn attribute(&self, a: CUdevice_attribute) -> Result<i32> {
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer.
        check("cuDeviceGetAttribute", unsafe {
            driver::cuDeviceGetAttribute(&mut v, a, self.raw)
        })?;
        Ok(v)
    }

    /// The compute capability `(major, minor)`. On AMD GPUs HIP reports its own numbering
    /// (e.g. `(9, 0)` for gfx90a); use [`Device::arch`] for the compiler target.
    ///
    /// # Errors
    /// As [`Device::attribute`].
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        let major =
            self.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor =
            self.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        Ok((major.max(0) as u32, minor.max(0) as u32))
    }

    /// The compiler target as the backend names it: `sm_90` on NVIDIA, e.g.
    /// `gfx90a:sramecc+:xnack-` on AMD.
    ///
    /// # Errors
    /// No usable backend (`CUDA_ERROR_NOT_INITIALIZED`), or the failing property query.
    pub fn arch(&self) -> Result<String> {
        let sel = crate::backend().map_err(|e| {
            CoreError::driver("device_arch", CUresult::CUDA_ERROR_NOT_INITIALIZED)
                .with_detail(e.to_string())
        })?;
        sel.backend
            .device_arch(self.raw)
            .map_err(|e| CoreError::driver("device_arch", e.0))
    }

    /// The device's name (`cuDeviceGetName`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn name(&self) -> Result<String> {
        let mut buf: [c_char; 256] = [0; 256];
        // SAFETY: the buffer is valid for its length (the driver NUL-terminates within it).
        check("cuDeviceGetName", unsafe {
            driver::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, self.raw)
        })?;
        Ok(c_chars(&buf))
    }

    /// The device's 16-byte UUID (`cuDeviceGetUuid`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn uuid(&self) -> Result<Uuid> {
        let mut u = CUuuid { bytes: [0; 16] };
        // SAFETY: valid out-pointer.
        check("cuDeviceGetUuid", unsafe {
            driver::cuDeviceGetUuid(&mut u, self.raw)
        })?;
        Ok(Uuid(u.bytes.map(|b| b as u8)))
    }

    /// The PCI bus id, `domain:bus:device.function` (`cuDeviceGetPCIBusId`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn pci_bus_id(&self) -> Result<String> {
        let mut buf: [c_char; 64] = [0; 64];
        // SAFETY: the buffer is valid for its length.
        check("cuDeviceGetPCIBusId", unsafe {
            driver::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as c_int, self.raw)
        })?;
        Ok(c_chars(&buf))
    }

    /// Total device memory in bytes (`cuDeviceTotalMem`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn total_memory(&self) -> Result<usize> {
        let mut b: usize = 0;
        // SAFETY: valid out-pointer.
        check("cuDeviceTotalMem", unsafe {
            driver::cuDeviceTotalMem(&mut b, self.raw)
        })?;
        Ok(b)
    }

    /// Whether the device serves stream-ordered allocation pools (`cuMemAllocAsync`). An honest
    /// `false` where the backend cannot say.
    pub fn memory_pools_supported(&self) -> bool {
        self.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
            .is_ok_and(|v| v != 0)
    }

    /// Whether this device can access `peer`'s memory directly (`cuDeviceCanAccessPeer`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer.
        check("cuDeviceCanAccessPeer", unsafe {
            driver::cuDeviceCanAccessPeer(&mut v, self.raw, peer.raw)
        })?;
        Ok(v != 0)
    }

    /// The properties most programs look at, in one call.
    ///
    /// # Errors
    /// The first failing query (name, memory, compute capability or an attribute).
    pub fn properties(&self) -> Result<DeviceProperties> {
        use CUdevice_attribute as A;
        let a = |x| self.attribute(x);
        Ok(DeviceProperties {
            name: self.name()?,
            total_memory: self.total_memory()?,
            compute_capability: self.compute_capability()?,
            multiprocessor_count: a(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_block: a(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                a(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                a(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            warp_size: a(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            max_shared_memory_per_block: a(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_registers_per_block: a(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            clock_rate_khz: a(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).ok(),
            memory_bus_width: a(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).ok(),
            l2_cache_size: a(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE).ok(),
            unified_addressing: a(A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING).is_ok_and(|v| v != 0),
            managed_memory: a(A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY).is_ok_and(|v| v != 0),
            concurrent_kernels: a(A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS).is_ok_and(|v| v != 0),
            memory_pools_supported: self.memory_pools_supported(),
        })
    }
}

/// A device UUID (16 bytes), printed in NVIDIA's `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
/// layout without the prefix. Plain data: `Send + Sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Uuid(pub [u8; 16]);

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The common device properties ([`Device::properties`]). Attributes a backend may not answer
/// are `Option`s or honest `false`s. Plain data: `Send + Sync`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProperties {
    /// The device's name.
    pub name: String,
    /// Total memory in bytes.
    pub total_memory: usize,
    /// `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors (NVIDIA) or compute units (AMD).
    pub multiprocessor_count: i32,
    /// Most threads in one block.
    pub max_threads_per_block: i32,
    /// Largest block, per dimension.
    pub max_block_dim: [i32; 3],
    /// Largest grid, per dimension.
    pub max_grid_dim: [i32; 3],
    /// Threads per warp (32 on NVIDIA; 64 or 32 on AMD).
    pub warp_size: i32,
    /// Static shared memory per block, in bytes.
    pub max_shared_memory_per_block: i32,
    /// 32-bit registers per block.
    pub max_registers_per_block: i32,
    /// Peak clock in kHz, where reported.
    pub clock_rate_khz: Option<i32>,
    /// Memory bus width in bits, where reported.
    pub memory_bus_width: Option<i32>,
    /// L2 cache in bytes, where reported.
    pub l2_cache_size: Option<i32>,
    /// Host and device share one address space.
    pub unified_addressing: bool,
    /// Managed (unified) memory is supported.
    pub managed_memory: bool,
    /// Kernels may run concurrently.
    pub concurrent_kernels: bool,
    /// Stream-ordered allocation pools are supported.
    pub memory_pools_supported: bool,
}

/// A NUL-terminated C string in a fixed buffer, as text.
fn c_chars(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
