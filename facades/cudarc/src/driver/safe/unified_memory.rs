//! Unified (managed) memory, as in cudarc: [`CudaContext::alloc_unified`] gives a
//! [`UnifiedSlice`] usable from the host and from kernels. One event orders every use.
//!
//! On HIP, managed memory works where the device supports it
//! (`CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY`); elsewhere allocation fails with
//! `CUDA_ERROR_NOT_PERMITTED`, as in cudarc.

use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

use crate::driver::{result, sys};

use super::core::to_range;
use super::{
    CudaContext, CudaEvent, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice,
    DriverError, HostSlice, LaunchArgs, PushKernelArg, SyncOnDrop, ValidAsZeroBits,
};

/// Managed memory for `len` values of `T`, freed on drop.
#[derive(Debug)]
pub struct UnifiedSlice<T> {
    pub(crate) cu_device_ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) event: CudaEvent,
    pub(crate) attach_mode: sys::CUmemAttach_flags,
    pub(crate) concurrent_managed_access: bool,
    pub(crate) marker: PhantomData<*const T>,
}

// SAFETY: the slice owns managed memory, freed only by its own drop; its handles are usable from
// any thread once the context is bound, which every use does.
unsafe impl<T> Send for UnifiedSlice<T> {}
// SAFETY: `&UnifiedSlice<T>` gives host access only through `as_slice` (after synchronizing its
// event) and device access ordered by that event.
unsafe impl<T> Sync for UnifiedSlice<T> {}

impl<T> Drop for UnifiedSlice<T> {
    fn drop(&mut self) {
        let ctx = &self.stream.ctx;
        ctx.record_err(self.event.synchronize());
        // SAFETY: `self.cu_device_ptr` came from `malloc_managed` in `alloc_unified`, the event
        // synchronized above orders every pending use, and this drop frees it once.
        ctx.record_err(unsafe { result::memory_free(self.cu_device_ptr) });
    }
}

/// A borrowed, read-only range of a [`UnifiedSlice`].
#[derive(Debug, Clone, Copy)]
pub struct UnifiedView<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) event: &'a CudaEvent,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) attach_mode: sys::CUmemAttach_flags,
    pub(crate) concurrent_managed_access: bool,
    marker: PhantomData<&'a [T]>,
}

/// A borrowed, writable range of a [`UnifiedSlice`].
#[derive(Debug)]
pub struct UnifiedViewMut<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) event: &'a CudaEvent,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) attach_mode: sys::CUmemAttach_flags,
    pub(crate) concurrent_managed_access: bool,
    marker: PhantomData<&'a mut [T]>,
}

impl CudaContext {
    /// Managed memory for `len` values, attached globally (`attach_global`) or to the host.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_PERMITTED` when the device has no managed memory, `CUDA_ERROR_INVALID_VALUE`
    /// when the size overflows, or the driver's error.
    ///
    /// # Safety
    /// The memory is uninitialised until written.
    pub unsafe fn alloc_unified<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
        attach_global: bool,
    ) -> Result<UnifiedSlice<T>, DriverError> {
        if self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)? == 0 {
            return Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_PERMITTED));
        }
        let attach_mode = if attach_global {
            sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL
        } else {
            sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST
        };
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(super::core::invalid_value)?;
        let concurrent_managed_access = self
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)?
            != 0;
        let event = self.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
        self.bind_to_thread()?;
        // SAFETY: `bytes` was checked not to overflow and the context is bound; the memory is
        // returned uninitialised, which this fn's `# Safety` leaves to the caller.
        let cu_device_ptr = unsafe { result::malloc_managed(bytes, attach_mode) }?;
        Ok(UnifiedSlice {
            cu_device_ptr,
            len,
            stream: self.default_stream(),
            event,
            attach_mode,
            concurrent_managed_access,
            marker: PhantomData,
        })
    }
}

/// Whether `stream` may touch memory attached with `attach_mode` and owned by `owner`.
fn check_device_access(
    attach_mode: sys::CUmemAttach_flags,
    owner: &Arc<CudaStream>,
    concurrent_managed_access: bool,
    stream: &CudaStream,
) -> Result<(), DriverError> {
    let denied = Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_PERMITTED));
    match attach_mode {
        sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST => {
            let concurrent = if owner.context() == stream.context() {
                concurrent_managed_access
            } else {
                stream.context().attribute(
                    sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
                )? != 0
            };
            if concurrent {
                Ok(())
            } else {
                denied
            }
        }
        sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE if owner.as_ref() != stream => denied,
        _ => Ok(()),
    }
}

impl<T> UnifiedSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// How the memory is attached.
    pub fn attach_mode(&self) -> sys::CUmemAttach_flags {
        self.attach_mode
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// Attaches the memory to `stream` with `flags` (`cuStreamAttachMemAsync`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn attach(
        &mut self,
        stream: &Arc<CudaStream>,
        flags: sys::CUmemAttach_flags,
    ) -> Result<(), DriverError> {
        self.event.synchronize()?;
        self.stream = stream.clone();
        self.attach_mode = flags;
        self.stream.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_device_ptr` is the managed allocation of `self.num_bytes()` bytes this
        // slice owns, pending work was synchronized above, and `self.stream` is live (`Arc`).
        unsafe {
            result::stream::attach_mem_async(
                self.stream.cu_stream,
                self.cu_device_ptr,
                self.num_bytes(),
                flags,
            )
        }
    }

    /// Prefetches the memory to the device (global/single attachment) or the host.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_PERMITTED` for a device prefetch without concurrent managed access, or
    /// the driver's error.
    pub fn prefetch(&self) -> Result<(), DriverError> {
        let (type_, id) = if self.attach_mode == sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST {
            (
                sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT,
                0,
            )
        } else {
            if !self.concurrent_managed_access {
                return Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_PERMITTED));
            }
            (
                sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                self.stream.ctx.ordinal as i32,
            )
        };
        self.stream.ctx.bind_to_thread()?;
        let location = sys::CUmemLocation::new(type_, id);
        // SAFETY: `self.cu_device_ptr` is the managed allocation of `self.num_bytes()` bytes this
        // slice owns, and `self.stream` is live (`Arc`).
        unsafe {
            result::mem_prefetch_async(
                self.cu_device_ptr,
                self.num_bytes(),
                location,
                self.stream.cu_stream,
            )
        }
    }

    /// Makes host access legal: with single-stream attachment, waits for that stream.
    ///
    /// # Errors
    /// The driver's error.
    pub fn check_host_access(&self) -> Result<(), DriverError> {
        if self.attach_mode == sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE {
            self.stream.synchronize()?;
        }
        Ok(())
    }

    /// Whether `stream` may use the memory.
    ///
    /// # Errors
    /// `CUDA_ERROR_NOT_PERMITTED` when it may not.
    pub fn check_device_access(&self, stream: &CudaStream) -> Result<(), DriverError> {
        check_device_access(
            self.attach_mode,
            &self.stream,
            self.concurrent_managed_access,
            stream,
        )
    }

    fn view_at(&self, start: usize, len: usize) -> UnifiedView<'_, T> {
        UnifiedView {
            ptr: self.cu_device_ptr + (start * std::mem::size_of::<T>()) as u64,
            len,
            event: &self.event,
            stream: &self.stream,
            attach_mode: self.attach_mode,
            concurrent_managed_access: self.concurrent_managed_access,
            marker: PhantomData,
        }
    }

    fn view_mut_at(&mut self, start: usize, len: usize) -> UnifiedViewMut<'_, T> {
        UnifiedViewMut {
            ptr: self.cu_device_ptr + (start * std::mem::size_of::<T>()) as u64,
            len,
            event: &self.event,
            stream: &self.stream,
            attach_mode: self.attach_mode,
            concurrent_managed_access: self.concurrent_managed_access,
            marker: PhantomData,
        }
    }

    /// The whole slice as a view.
    pub fn as_view(&self) -> UnifiedView<'_, T> {
        self.view_at(0, self.len)
    }
    /// The whole slice as a writable view.
    pub fn as_view_mut(&mut self) -> UnifiedViewMut<'_, T> {
        self.view_mut_at(0, self.len)
    }

    /// A view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`UnifiedSlice::try_slice`] does not).
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> UnifiedView<'_, T> {
        self.try_slice(bounds)
            .expect("UnifiedSlice::slice: range out of bounds")
    }
    /// A view of `bounds`, or `None` when out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<UnifiedView<'_, T>> {
        to_range(bounds, self.len).map(|(s, e)| self.view_at(s, e - s))
    }
    /// A writable view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`UnifiedSlice::try_slice_mut`] does not).
    pub fn slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> UnifiedViewMut<'_, T> {
        self.try_slice_mut(bounds)
            .expect("UnifiedSlice::slice_mut: range out of bounds")
    }
    /// A writable view of `bounds`, or `None` when out of range.
    pub fn try_slice_mut(
        &mut self,
        bounds: impl RangeBounds<usize>,
    ) -> Option<UnifiedViewMut<'_, T>> {
        to_range(bounds, self.len).map(|(s, e)| self.view_mut_at(s, e - s))
    }
    /// Two views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at(&self, mid: usize) -> (UnifiedView<'_, T>, UnifiedView<'_, T>) {
        self.try_split_at(mid)
            .expect("UnifiedSlice::split_at: mid out of bounds")
    }
    /// Two views, or `None` when `mid > len`.
    pub fn try_split_at(&self, mid: usize) -> Option<(UnifiedView<'_, T>, UnifiedView<'_, T>)> {
        (mid <= self.len).then(|| (self.view_at(0, mid), self.view_at(mid, self.len - mid)))
    }
    /// Two writable views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at_mut(&mut self, mid: usize) -> (UnifiedViewMut<'_, T>, UnifiedViewMut<'_, T>) {
        self.try_split_at_mut(mid)
            .expect("UnifiedSlice::split_at_mut: mid out of bounds")
    }
    /// Two writable views, or `None` when `mid > len`.
    pub fn try_split_at_mut(
        &mut self,
        mid: usize,
    ) -> Option<(UnifiedViewMut<'_, T>, UnifiedViewMut<'_, T>)> {
        if mid > self.len {
            return None;
        }
        let (a, b) = (self.view_mut_at(0, mid).ptr, self.view_mut_at(mid, 0).ptr);
        let mk = |ptr, len| UnifiedViewMut {
            ptr,
            len,
            event: &self.event,
            stream: &self.stream,
            attach_mode: self.attach_mode,
            concurrent_managed_access: self.concurrent_managed_access,
            marker: PhantomData,
        };
        Some((mk(a, mid), mk(b, self.len - mid)))
    }
}

impl<T: ValidAsZeroBits> UnifiedSlice<T> {
    /// The elements on the host, after pending device work on them.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_slice(&self) -> Result<&[T], DriverError> {
        self.check_host_access()?;
        self.event.synchronize()?;
        // SAFETY: managed memory of `self.len` `T`s is host-accessible (checked by
        // `check_host_access`), the event synchronized above orders every device write, and `T:
        // ValidAsZeroBits` is plain data.
        Ok(unsafe { std::slice::from_raw_parts(self.cu_device_ptr as *const T, self.len) })
    }
    /// The elements on the host, mutably, after pending device work on them.
    ///
    /// # Errors
    /// The driver's error.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], DriverError> {
        self.check_host_access()?;
        self.event.synchronize()?;
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow unique.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.cu_device_ptr as *mut T, self.len) })
    }
}

/// Access on `stream`: checked (errors recorded on the context), ordered after the last use,
/// and recorded when the guard drops.
macro_rules! unified_access {
    ($self:ident, $stream:ident, $ptr:expr) => {{
        $stream.ctx.record_err(check_device_access(
            $self.attach_mode,
            &$self.stream,
            $self.concurrent_managed_access,
            $stream,
        ));
        $stream.ctx.record_err($stream.wait(&$self.event));
        ($ptr, SyncOnDrop::Record(Some((&$self.event, $stream))))
    }};
}

macro_rules! unified_traits {
    ($([$($g:tt)*] $ty:ty, $ptr:ident);*) => {$(
        impl<$($g)*> DeviceSlice<T> for $ty {
            fn len(&self) -> usize {
                self.len
            }
            fn stream(&self) -> &Arc<CudaStream> {
                &self.stream
            }
        }
        impl<$($g)*> DevicePtr<T> for $ty {
            fn device_ptr<'s>(&'s self, stream: &'s CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'s>) {
                unified_access!(self, stream, self.$ptr)
            }
        }
        impl<$($g)*> HostSlice<T> for $ty {
            fn len(&self) -> usize {
                self.len
            }
            unsafe fn stream_synced_slice<'s>(&'s self, stream: &'s CudaStream) -> (&'s [T], SyncOnDrop<'s>) {
                // SAFETY: the allocation holds `self.len` `T`s; the caller's contract (the trait's
                // `# Safety`) keeps the host from writing while the device reads, and the guard
                // records the read.
                unified_access!(self, stream, unsafe { std::slice::from_raw_parts(self.$ptr as *const T, self.len) })
            }
            unsafe fn stream_synced_mut_slice<'s>(&'s mut self, stream: &'s CudaStream) -> (&'s mut [T], SyncOnDrop<'s>) {
                // SAFETY: the allocation holds `self.len` `T`s and `&mut self` makes the borrow
                // unique; the caller's contract keeps the host away until the guard records the
                // write.
                unified_access!(self, stream, unsafe { std::slice::from_raw_parts_mut(self.$ptr as *mut T, self.len) })
            }
        }
    )*};
}
unified_traits!([T] UnifiedSlice<T>, cu_device_ptr; ['a, T] UnifiedView<'a, T>, ptr; ['a, T] UnifiedViewMut<'a, T>, ptr);

impl<T> DevicePtrMut<T> for UnifiedSlice<T> {
    fn device_ptr_mut<'s>(
        &'s mut self,
        stream: &'s CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'s>) {
        unified_access!(self, stream, self.cu_device_ptr)
    }
}
impl<T> DevicePtrMut<T> for UnifiedViewMut<'_, T> {
    fn device_ptr_mut<'s>(
        &'s mut self,
        stream: &'s CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'s>) {
        unified_access!(self, stream, self.ptr)
    }
}

impl<'a> LaunchArgs<'a> {
    #[inline(always)]
    fn push_unified(
        &mut self,
        ptr: &'a sys::CUdeviceptr,
        event: &'a CudaEvent,
        check: Result<(), DriverError>,
    ) -> &mut Self {
        self.stream.ctx.record_err(check);
        self.waits.push(event);
        self.records.push(event);
        self.args
            .push(ptr as *const sys::CUdeviceptr as *mut std::ffi::c_void);
        self
    }
}

// SAFETY: the pushed pointer is to `arg.cu_device_ptr`, borrowed for `'b: 'a`, so it outlives the
// builder; device access was checked and is ordered by the slice's event.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b UnifiedSlice<T>) -> &mut Self {
        let check = arg.check_device_access(self.stream);
        self.push_unified(&arg.cu_device_ptr, &arg.event, check)
    }
}
// SAFETY: the pushed pointer is to `arg.cu_device_ptr`, mutably borrowed for `'b: 'a`, so it
// outlives the builder; device access was checked and is ordered by the slice's event.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut UnifiedSlice<T>) -> &mut Self {
        let check = arg.check_device_access(self.stream);
        self.push_unified(&arg.cu_device_ptr, &arg.event, check)
    }
}
// SAFETY: the pushed pointer is to `arg.ptr`, borrowed for `'b: 'a`, so it outlives the builder;
// device access was checked and is ordered by the slice's event.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b UnifiedView<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b UnifiedView<'c, T>) -> &mut Self {
        let check = check_device_access(
            arg.attach_mode,
            arg.stream,
            arg.concurrent_managed_access,
            self.stream,
        );
        self.push_unified(&arg.ptr, arg.event, check)
    }
}
// SAFETY: the pushed pointer is to `arg.ptr`, borrowed for `'b: 'a`, so it outlives the builder;
// device access was checked and is ordered by the slice's event.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b UnifiedViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b UnifiedViewMut<'c, T>) -> &mut Self {
        let check = check_device_access(
            arg.attach_mode,
            arg.stream,
            arg.concurrent_managed_access,
            self.stream,
        );
        self.push_unified(&arg.ptr, arg.event, check)
    }
}
// SAFETY: the pushed pointer is to `arg.ptr`, mutably borrowed for `'b: 'a`, so it outlives the
// builder; device access was checked and is ordered by the slice's event.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut UnifiedViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut UnifiedViewMut<'c, T>) -> &mut Self {
        let check = check_device_access(
            arg.attach_mode,
            arg.stream,
            arg.concurrent_managed_access,
            self.stream,
        );
        self.push_unified(&arg.ptr, arg.event, check)
    }
}

impl<'a, T> UnifiedView<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn sub(&self, start: usize, len: usize) -> Self {
        Self {
            ptr: self.ptr + (start * std::mem::size_of::<T>()) as u64,
            len,
            ..*self
        }
    }
    /// A view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`UnifiedView::try_slice`] does not).
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> Self {
        self.try_slice(bounds)
            .expect("UnifiedView::slice: range out of bounds")
    }
    /// A view of `bounds`, or `None` when out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<Self> {
        to_range(bounds, self.len).map(|(s, e)| self.sub(s, e - s))
    }
    /// Two views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at(&self, mid: usize) -> (Self, Self) {
        self.try_split_at(mid)
            .expect("UnifiedView::split_at: mid out of bounds")
    }
    /// Two views, or `None` when `mid > len`.
    pub fn try_split_at(&self, mid: usize) -> Option<(Self, Self)> {
        (mid <= self.len).then(|| (self.sub(0, mid), self.sub(mid, self.len - mid)))
    }
}

impl<'a, T> UnifiedViewMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn sub<'b>(&'b self, start: usize, len: usize) -> UnifiedViewMut<'b, T> {
        UnifiedViewMut {
            ptr: self.ptr + (start * std::mem::size_of::<T>()) as u64,
            len,
            event: self.event,
            stream: self.stream,
            attach_mode: self.attach_mode,
            concurrent_managed_access: self.concurrent_managed_access,
            marker: PhantomData,
        }
    }
    /// A read-only view of the same range.
    pub fn as_view<'b>(&'b self) -> UnifiedView<'b, T> {
        UnifiedView {
            ptr: self.ptr,
            len: self.len,
            event: self.event,
            stream: self.stream,
            attach_mode: self.attach_mode,
            concurrent_managed_access: self.concurrent_managed_access,
            marker: PhantomData,
        }
    }
    /// A read-only view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`UnifiedViewMut::try_slice`] does not).
    pub fn slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> UnifiedView<'b, T> {
        self.try_slice(bounds)
            .expect("UnifiedViewMut::slice: range out of bounds")
    }
    /// A read-only view of `bounds`, or `None` when out of range.
    pub fn try_slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> Option<UnifiedView<'b, T>> {
        to_range(bounds, self.len).map(|(s, e)| self.as_view().sub(s, e - s))
    }
    /// A writable view of `bounds`.
    ///
    /// # Panics
    /// When out of range ([`UnifiedViewMut::try_slice_mut`] does not).
    pub fn slice_mut<'b>(&'b mut self, bounds: impl RangeBounds<usize>) -> UnifiedViewMut<'b, T> {
        self.try_slice_mut(bounds)
            .expect("UnifiedViewMut::slice_mut: range out of bounds")
    }
    /// A writable view of `bounds`, or `None` when out of range.
    pub fn try_slice_mut<'b>(
        &'b mut self,
        bounds: impl RangeBounds<usize>,
    ) -> Option<UnifiedViewMut<'b, T>> {
        to_range(bounds, self.len).map(|(s, e)| self.sub(s, e - s))
    }
    /// Two writable views, `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > len`.
    pub fn split_at_mut<'b>(
        &'b mut self,
        mid: usize,
    ) -> (UnifiedViewMut<'b, T>, UnifiedViewMut<'b, T>) {
        self.try_split_at_mut(mid)
            .expect("UnifiedViewMut::split_at_mut: mid out of bounds")
    }
    /// Two writable views, or `None` when `mid > len`.
    pub fn try_split_at_mut<'b>(
        &'b mut self,
        mid: usize,
    ) -> Option<(UnifiedViewMut<'b, T>, UnifiedViewMut<'b, T>)> {
        (mid <= self.len).then(|| (self.sub(0, mid), self.sub(mid, self.len - mid)))
    }
}
