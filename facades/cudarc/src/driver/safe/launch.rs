//! Kernel launches: [`LaunchConfig`], and the builder [`LaunchArgs`] with [`PushKernelArg`].
//!
//! Arguments and the events to wait on or record live on the stack for up to 16 of each (the
//! design's "no allocation on the launch path"); more spill to the heap.

use crate::driver::{result, sys};
use std::ffi::c_void;
use std::mem::MaybeUninit;

use super::{
    CudaEvent, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr, DriverError,
};

/// Grid, block and dynamic shared memory of a launch, as in cudarc.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    /// (x, y, z) blocks in the grid.
    pub grid_dim: (u32, u32, u32),
    /// (x, y, z) threads in a block.
    pub block_dim: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// 1024 threads per block and enough blocks to cover `n` elements.
    pub fn for_num_elems(n: u32) -> Self {
        const THREADS: u32 = 1024;
        Self {
            grid_dim: (n.div_ceil(THREADS), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

/// A list of `Copy` values, inline up to `N`, on the heap beyond.
pub(crate) struct SmallList<T: Copy, const N: usize> {
    len: usize,
    inline: [MaybeUninit<T>; N],
    heap: Vec<T>,
}

impl<T: Copy, const N: usize> SmallList<T, N> {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            len: 0,
            inline: [const { MaybeUninit::uninit() }; N],
            heap: Vec::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, v: T) {
        if self.len < N {
            self.inline[self.len].write(v);
        } else {
            if self.len == N {
                self.heap.reserve(2 * N);
                // SAFETY: entries `0..N` of `inline` were written by earlier `push` calls:
                // `self.len == N` here and each push below `N` wrote entry `len`.
                self.heap
                    .extend(self.inline.iter().map(|x| unsafe { x.assume_init() }));
            }
            self.heap.push(v);
        }
        self.len += 1;
    }

    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        if self.len <= N {
            // The first `len` inline entries were written by `push`.
            // SAFETY: `self.len <= N`, and `push` wrote the first `len` inline entries;
            // `MaybeUninit<T>` has `T`'s layout, and `&mut self` makes the borrow unique.
            unsafe { std::slice::from_raw_parts_mut(self.inline.as_mut_ptr().cast(), self.len) }
        } else {
            &mut self.heap
        }
    }
}

impl<T: Copy + std::fmt::Debug, const N: usize> std::fmt::Debug for SmallList<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s: &[T] = if self.len <= N {
            // SAFETY: `self.len <= N`, and `push` wrote the first `len` inline entries;
            // `MaybeUninit<T>` has `T`'s layout.
            unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast(), self.len) }
        } else {
            &self.heap
        };
        f.debug_list().entries(s).finish()
    }
}

/// The launch builder: [`CudaStream::launch_builder`], then [`LaunchArgs::arg`] per kernel
/// argument, then [`LaunchArgs::launch`].
///
/// An argument is anything with a [`PushKernelArg`] impl: `&T` for `T: DeviceRepr`, and
/// `&CudaSlice`, `&mut CudaSlice`, `&CudaView`, `&mut CudaViewMut` (and unified memory).
#[derive(Debug)]
pub struct LaunchArgs<'a> {
    pub(crate) stream: &'a CudaStream,
    pub(crate) func: &'a CudaFunction,
    pub(crate) waits: SmallList<&'a CudaEvent, 16>,
    pub(crate) records: SmallList<&'a CudaEvent, 16>,
    pub(crate) args: SmallList<*mut c_void, 16>,
    pub(crate) flags: Option<sys::CUevent_flags>,
}

impl CudaStream {
    /// A launch of `func` on this stream.
    pub fn launch_builder<'a>(&'a self, func: &'a CudaFunction) -> LaunchArgs<'a> {
        LaunchArgs {
            stream: self,
            func,
            waits: SmallList::new(),
            records: SmallList::new(),
            args: SmallList::new(),
            flags: None,
        }
    }
}

/// Pushes one kernel argument onto a launch, as in cudarc.
///
/// # Safety
/// The pushed pointer stays valid (borrowed for the builder's lifetime) and points to a value
/// the kernel can take by value.
pub unsafe trait PushKernelArg<T> {
    /// Appends `arg` to the kernel's arguments.
    fn arg(&mut self, arg: T) -> &mut Self;
}

// SAFETY: the pushed pointer is `arg`, borrowed for `'b: 'a`, so it outlives the builder, and `T:
// DeviceRepr` is a value a kernel can take by value.
unsafe impl<'a, 'b: 'a, T: DeviceRepr> PushKernelArg<&'b T> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b T) -> &mut Self {
        self.args.push(arg as *const T as *mut c_void);
        self
    }
}

impl<'a> LaunchArgs<'a> {
    /// A read of tracked memory: wait for its last write, record the read.
    #[inline(always)]
    fn track_read(&mut self, read: &'a Option<CudaEvent>, write: &'a Option<CudaEvent>) {
        if self.stream.ctx.is_managing_stream_synchronization() {
            if let Some(w) = write {
                self.waits.push(w);
            }
            if let Some(r) = read {
                self.records.push(r);
            }
        }
    }

    /// A write of tracked memory: wait for its last read and write, record the write.
    #[inline(always)]
    fn track_write(&mut self, read: &'a Option<CudaEvent>, write: &'a Option<CudaEvent>) {
        if self.stream.ctx.is_managing_stream_synchronization() {
            if let Some(r) = read {
                self.waits.push(r);
            }
            if let Some(w) = write {
                self.waits.push(w);
                self.records.push(w);
            }
        }
    }
}

// SAFETY: the pushed pointer is to `arg.cu_device_ptr`, borrowed for `'b: 'a`, so it outlives the
// builder; a `CUdeviceptr` is what a kernel's pointer parameter takes, and the read is ordered by
// the slice's events.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaSlice<T>) -> &mut Self {
        self.track_read(&arg.read, &arg.write);
        self.args
            .push(&arg.cu_device_ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: the pushed pointer is to `arg.cu_device_ptr`, mutably borrowed for `'b: 'a`, so it
// outlives the builder and no other use can overlap; the write is ordered by the slice's events.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaSlice<T>) -> &mut Self {
        self.track_write(&arg.read, &arg.write);
        self.args
            .push(&arg.cu_device_ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: the pushed pointer is to `arg.ptr`, borrowed for `'b: 'a`, so it outlives the builder;
// the view's read is ordered by its slice's events.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b CudaView<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaView<'c, T>) -> &mut Self {
        self.track_read(arg.read, arg.write);
        self.args
            .push(&arg.ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: the pushed pointer is to `arg.ptr`, mutably borrowed for `'b: 'a`, so it outlives the
// builder; the write is ordered by its slice's events.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut CudaViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaViewMut<'c, T>) -> &mut Self {
        self.track_write(arg.read, arg.write);
        self.args
            .push(&arg.ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

/// `result::launch_kernel` or `result::launch_cooperative_kernel`.
type RawLaunch = unsafe fn(
    sys::CUfunction,
    (u32, u32, u32),
    (u32, u32, u32),
    u32,
    sys::CUstream,
    &mut [*mut c_void],
) -> Result<(), DriverError>;

impl LaunchArgs<'_> {
    /// Makes [`LaunchArgs::launch`] return events recorded just before and after the kernel.
    pub fn record_kernel_launch(&mut self, flags: sys::CUevent_flags) -> &mut Self {
        self.flags = Some(flags);
        self
    }

    #[inline(always)]
    fn submit(
        &mut self,
        cfg: LaunchConfig,
        go: RawLaunch,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        let stream = self.stream;
        stream.ctx.bind_to_thread()?;
        for &e in self.waits.as_mut_slice().iter() {
            stream.wait(e)?;
        }
        let start = self
            .flags
            .map(|f| stream.record_event(Some(f)))
            .transpose()?;
        // SAFETY: `submit` is reached only from `launch` and `launch_cooperative`, whose callers
        // promise (their `# Safety`) that the arguments match the kernel and its accesses are
        // sound; every pointer in `args` is borrowed for the builder's lifetime (`PushKernelArg`),
        // the function's module is alive, and the stream is live.
        unsafe {
            go(
                self.func.cu_function,
                cfg.grid_dim,
                cfg.block_dim,
                cfg.shared_mem_bytes,
                stream.cu_stream,
                self.args.as_mut_slice(),
            )
        }?;
        let end = self
            .flags
            .map(|f| stream.record_event(Some(f)))
            .transpose()?;
        for &e in self.records.as_mut_slice().iter() {
            e.record(stream)?;
        }
        Ok(start.zip(end))
    }

    /// Launches the kernel on the stream (asynchronously).
    ///
    /// # Errors
    /// The driver's error (e.g. `CUDA_ERROR_INVALID_VALUE` for a block too large).
    ///
    /// # Safety
    /// The arguments match the kernel's parameters in number, order and type, and the kernel
    /// stays within the memory it is given and honours which arguments were passed `&mut`.
    #[inline(always)]
    pub unsafe fn launch(
        &mut self,
        cfg: LaunchConfig,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        self.submit(cfg, result::launch_kernel)
    }

    /// Launches the kernel cooperatively (`cuLaunchCooperativeKernel`).
    ///
    /// # Errors
    /// The driver's error.
    ///
    /// # Safety
    /// As [`LaunchArgs::launch`].
    #[inline(always)]
    pub unsafe fn launch_cooperative(
        &mut self,
        cfg: LaunchConfig,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        self.submit(cfg, result::launch_cooperative_kernel)
    }
}

#[cfg(test)]
mod facade_tests {
    use super::SmallList;

    #[test]
    fn small_list_keeps_order_inline_and_after_spilling() {
        for n in [0usize, 1, 15, 16, 17, 40] {
            let mut l: SmallList<usize, 16> = SmallList::new();
            for i in 0..n {
                l.push(i * 3);
            }
            let want: Vec<usize> = (0..n).map(|i| i * 3).collect();
            assert_eq!(l.as_mut_slice(), &want[..], "n = {n}");
            assert_eq!(format!("{l:?}"), format!("{want:?}"));
        }
    }
}
