//! External memory (a file descriptor exported by another API, e.g. Vulkan), as in cudarc.
//! Unix only here; on HIP, served where HIP imports opaque file descriptors.

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;

use crate::driver::{result, sys};

use super::{CudaContext, CudaEvent, CudaStream, DevicePtr, DeviceSlice, DriverError, SyncOnDrop};

/// Imported external memory; destroyed (and the file closed) on drop.
#[derive(Debug)]
pub struct ExternalMemory {
    external_memory: sys::CUexternalMemory,
    size: u64,
    ctx: Arc<CudaContext>,
    // The driver owns the descriptor after a successful import; keep the File from closing it.
    _file: std::mem::ManuallyDrop<File>,
}

impl Drop for ExternalMemory {
    fn drop(&mut self) {
        self.ctx.record_err(self.ctx.bind_to_thread());
        // SAFETY: `self.external_memory` was imported by `import_external_memory` and is owned by
        // this object alone; every mapped buffer holds this object, so none outlives it, and this
        // drop destroys it once.
        self.ctx.record_err(unsafe {
            result::external_memory::destroy_external_memory(self.external_memory)
        });
    }
}

impl CudaContext {
    /// Imports `size` bytes of external memory from `file` (an opaque file descriptor).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// `file` is a memory object exported for import, of at least `size` bytes.
    #[cfg(unix)]
    pub unsafe fn import_external_memory(
        self: &Arc<Self>,
        file: File,
        size: u64,
    ) -> Result<ExternalMemory, DriverError> {
        use std::os::fd::AsRawFd;
        self.bind_to_thread()?;
        // SAFETY: the caller promises (this fn's `# Safety`) that `file` is an exported memory
        // object of at least `size` bytes; the fd stays open (`ManuallyDrop`) since the driver owns
        // it after import.
        let external_memory = unsafe {
            result::external_memory::import_external_memory_opaque_fd(file.as_raw_fd(), size)
        }?;
        Ok(ExternalMemory {
            external_memory,
            size,
            ctx: self.clone(),
            _file: std::mem::ManuallyDrop::new(file),
        })
    }
}

impl ExternalMemory {
    /// Maps the whole memory as a device buffer.
    ///
    /// # Errors
    /// The driver's error.
    pub fn map_all(self) -> Result<MappedBuffer, DriverError> {
        let size = usize::try_from(self.size).map_err(|_| super::core::invalid_value())?;
        self.map_range(0..size)
    }

    /// Maps `range` (bytes) as a device buffer.
    ///
    /// # Errors
    /// `CUDA_ERROR_INVALID_VALUE` for a range outside the memory (cudarc asserts), or the
    /// driver's error.
    pub fn map_range(self, range: Range<usize>) -> Result<MappedBuffer, DriverError> {
        if range.start > range.end || range.end as u64 > self.size {
            return Err(super::core::invalid_value());
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.external_memory` is live while `self` is, and `range` lies inside its
        // `size` bytes (checked above).
        let device_ptr = unsafe {
            result::external_memory::get_mapped_buffer(
                self.external_memory,
                range.start as u64,
                range.len() as u64,
            )
        }?;
        let event = self.ctx.new_event(None)?;
        let stream = self.ctx.default_stream();
        Ok(MappedBuffer {
            device_ptr,
            len: range.len(),
            external_memory: self,
            event,
            stream,
        })
    }
}

/// A read-only device buffer over external memory.
#[derive(Debug)]
pub struct MappedBuffer {
    device_ptr: sys::CUdeviceptr,
    len: usize,
    external_memory: ExternalMemory,
    event: CudaEvent,
    stream: Arc<CudaStream>,
}

impl Drop for MappedBuffer {
    fn drop(&mut self) {
        let ctx = &self.external_memory.ctx;
        ctx.record_err(ctx.bind_to_thread());
        ctx.record_err(self.stream.wait(&self.event));
        // SAFETY: `self.device_ptr` came from `cuExternalMemoryGetMappedBuffer`, which CUDA frees
        // with `cuMemFree`; the wait above orders pending uses, and the external memory itself is
        // destroyed only after this (a field, dropped later).
        ctx.record_err(unsafe { result::memory_free(self.device_ptr) });
    }
}

impl DeviceSlice<u8> for MappedBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl DevicePtr<u8> for MappedBuffer {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        // Read-only: only the read needs recording.
        (
            self.device_ptr,
            SyncOnDrop::Record(Some((&self.event, stream))),
        )
    }
}
