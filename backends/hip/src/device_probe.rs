//! Whether the HIP runtime a math library (hipRAND, hipBLAS) is linked to sees a device: asked
//! through that library's own handle, so the runtime asked is the one the library itself uses
//! (a private ROCm prefix's, not the system's). The libraries' no-device rules
//! (backends/hip/src/curand.rs, backends/hip/src/cublas.rs) are answered from it.

use crate::Platform;
use anycuda_api::loader::{Opened, Search};
use core::ffi::c_int;

/// `hipGetDeviceCount` as a math library sees it, on AMD only.
#[derive(Debug)]
pub(crate) struct DeviceProbe {
    /// `hipGetDeviceCount` resolved through the library's handle (which searches its
    /// dependencies); `None` elsewhere.
    device_count: Option<unsafe extern "C" fn(*mut c_int) -> c_int>,
    /// The handle `device_count` was resolved through, kept open as long as it is used.
    _probe: Option<Opened>,
}

impl DeviceProbe {
    /// Probes the library `search` finds on AMD; asks nothing on HIP's NVIDIA platform, where
    /// the library answers for itself.
    pub(crate) fn open(search: &Search, platform: Platform) -> Self {
        let (mut device_count, mut probe) = (None, None);
        if platform == Platform::Amd {
            // The same file again (the loader hands back the mapped one): only to look up a
            // symbol in the library's dependency scope.
            if let Ok(o) = search.open() {
                let p = o.sym(c"hipGetDeviceCount");
                if !p.is_null() {
                    // SAFETY: hipGetDeviceCount(int*) -> hipError_t (a C int) in every HIP.
                    device_count = Some(unsafe {
                        core::mem::transmute::<
                            *mut core::ffi::c_void,
                            unsafe extern "C" fn(*mut c_int) -> c_int,
                        >(p)
                    });
                    probe = Some(o);
                }
            }
        }
        Self {
            device_count,
            _probe: probe,
        }
    }

    /// No probe (a library that answers for itself).
    pub(crate) fn none() -> Self {
        Self {
            device_count: None,
            _probe: None,
        }
    }

    /// Whether the runtime sees a device. True where nothing was asked (HIP's NVIDIA platform,
    /// or a library whose HIP runtime could not be looked up): the library answers there.
    pub(crate) fn has_device(&self) -> bool {
        let Some(f) = self.device_count else {
            return true;
        };
        let mut n: c_int = 0;
        // SAFETY: a valid out-pointer; the function stays mapped while `_probe` is open.
        let r = unsafe { f(&mut n) };
        r == 0 && n > 0
    }
}
