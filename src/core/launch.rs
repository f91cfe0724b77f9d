//! Kernel launches: [`LaunchConfig`], typed arguments ([`KernelArg`], [`KernelArgs`]) packed
//! on the stack, and [`launch`] / [`launch_unchecked`].
//!
//! A launch allocates nothing: the argument values live in a tuple on the caller's stack and
//! the pointer array the driver reads is a stack array into it.

use super::error::{check, CoreError, Result};
use super::memory::{Allocation, Buffer, BufferView, BufferViewMut, DeviceCopy};
use super::module::{Kernel, ParamInfo};
use super::stream::Stream;
use super::track;
use crate::driver::*;
use core::ffi::c_void;
use core::mem::size_of;
use std::sync::Arc;

/// Grid, block or cluster dimensions. `From` a `u32` (1D), a pair (2D) or a triple (3D).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// X extent.
    pub x: u32,
    /// Y extent.
    pub y: u32,
    /// Z extent.
    pub z: u32,
}

impl Dim3 {
    /// A 3D extent.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }
    /// `x * y * z`, or `None` on overflow.
    pub fn volume(self) -> Option<u64> {
        u64::from(self.x)
            .checked_mul(u64::from(self.y))?
            .checked_mul(u64::from(self.z))
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Self::new(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Self::new(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Self::new(x, y, z)
    }
}

/// How to launch: grid and block dimensions, dynamic shared memory, and optionally a thread
/// block cluster (NVIDIA sm_90+) and cooperative launch (cuda.core's `LaunchConfig`).
///
/// Plain configurations launch with `cuLaunchKernel`; cooperative ones with
/// `cuLaunchCooperativeKernel`; with a cluster, `cuLaunchKernelEx`. A backend without the
/// call answers not-supported.
///
/// **With a cluster, `grid` counts clusters**, as in cuda.core: `grid (4, 4, 1)` with
/// `cluster (2, 2, 1)` launches 16 clusters of 4 blocks, 64 blocks in all
/// ([`LaunchConfig::blocks`]). Without one, `grid` counts blocks. (CUDA's own
/// `cuLaunchKernelEx` takes the grid in blocks; the safe layer multiplies.)
///
/// ```
/// use anycuda::core::LaunchConfig;
/// let n = 1_000_000u32;
/// let cfg = LaunchConfig::for_num_elems(n, 256).shared_mem(1024);
/// assert_eq!(cfg.grid.x, n.div_ceil(256));
/// let cfg3 = LaunchConfig::new((8, 8, 8), (4, 4, 4));
/// assert_eq!(cfg3.block.volume(), Some(64));
/// // cuda.core's cluster walk-through: a 4x4 grid of 2x2 clusters is 64 blocks.
/// let cl = LaunchConfig::new((4, 4, 1), 32u32).cluster((2, 2, 1));
/// assert_eq!(cl.blocks(), Some(anycuda::core::Dim3::new(8, 8, 1)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// The grid: blocks, or clusters when [`LaunchConfig::cluster`] is set (cuda.core's
    /// meaning; see [`LaunchConfig::blocks`]).
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// Dynamic shared memory per block, bytes.
    pub shared_mem_bytes: u32,
    /// Blocks per cluster (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`); then `grid` counts
    /// clusters.
    pub cluster: Option<Dim3>,
    /// All blocks resident at once, so they may synchronise grid-wide.
    pub cooperative: bool,
}

impl LaunchConfig {
    /// `grid` blocks of `block` threads, no shared memory, no cluster.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        Self {
            grid: grid.into(),
            block: block.into(),
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
        }
    }
    /// A 1D launch covering `n` elements with `block` threads per block.
    pub fn for_num_elems(n: u32, block: u32) -> Self {
        Self::new(n.div_ceil(block.max(1)).max(1), block)
    }
    /// Sets the dynamic shared memory per block.
    #[must_use]
    pub fn shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }
    /// Sets the cluster dimensions (blocks per cluster); `grid` then counts clusters.
    #[must_use]
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Self {
        self.cluster = Some(dims.into());
        self
    }
    /// Makes the launch cooperative.
    #[must_use]
    pub fn cooperative(mut self, on: bool) -> Self {
        self.cooperative = on;
        self
    }
    /// The grid in blocks, as the driver takes it: `grid`, or `grid × cluster` per axis when a
    /// cluster is set; `None` when that overflows `u32`.
    #[inline]
    pub fn blocks(&self) -> Option<Dim3> {
        match self.cluster {
            None => Some(self.grid),
            Some(c) => Some(Dim3::new(
                self.grid.x.checked_mul(c.x)?,
                self.grid.y.checked_mul(c.y)?,
                self.grid.z.checked_mul(c.z)?,
            )),
        }
    }
}

/// One kernel argument: what value the kernel receives for it.
///
/// Implemented for every `T: DeviceCopy` (passed by value), and for device memory (`&Buffer<T>`,
/// `&mut Buffer<T>`, views), which passes the device address. Implement [`DeviceCopy`] for
/// your own `#[repr(C)]` structs to pass them by value.
///
/// # Safety
/// `Value` must be plain data laid out exactly as the kernel parameter it stands for, with no
/// padding bytes, and `context` must name the context of any device memory the value points
/// into.
pub unsafe trait KernelArg {
    /// The value copied into the parameter buffer.
    type Value: Copy;
    /// The value.
    fn kernel_value(&self) -> Self::Value;
    /// The context of the memory the value addresses, if it is device memory.
    fn memory_context(&self) -> Option<CUcontext> {
        None
    }
    /// The allocation the value addresses, if it is a buffer's device memory: a checked
    /// [`launch`] records its use on a foreign stream so the free waits for the kernel, and a
    /// [`GraphBuilder::kernel`](super::GraphBuilder::kernel) node keeps it alive.
    fn allocation(&self) -> Option<&Arc<Allocation>> {
        None
    }
}

// SAFETY: `DeviceCopy` types are plain data by that trait's contract.
unsafe impl<T: DeviceCopy> KernelArg for T {
    type Value = T;
    #[inline(always)]
    fn kernel_value(&self) -> T {
        *self
    }
}

macro_rules! device_memory_arg {
    ($($ty:ty),*) => {$(
        // SAFETY: a device address (`CUdeviceptr`, 64-bit like the kernel's pointer) of
        // memory in the context `memory_context` reports.
        unsafe impl<T: DeviceCopy> KernelArg for $ty {
            type Value = CUdeviceptr;
            #[inline(always)]
            fn kernel_value(&self) -> CUdeviceptr {
                self.as_raw()
            }
            #[inline(always)]
            fn memory_context(&self) -> Option<CUcontext> {
                Some(self.context().as_raw())
            }
            #[inline(always)]
            fn allocation(&self) -> Option<&Arc<Allocation>> {
                Some(self.arc())
            }
        }
    )*};
}
device_memory_arg!(
    &Buffer<T>,
    &mut Buffer<T>,
    BufferView<'_, T>,
    &BufferView<'_, T>,
    BufferViewMut<'_, T>,
    &mut BufferViewMut<'_, T>
);

/// A kernel's whole argument list: a tuple of up to 16 [`KernelArg`]s (`()` for none, `(x,)`
/// for one).
///
/// # Safety
/// `pointers` must return, for each argument in order, a pointer to that argument's value
/// inside `values`; `COUNT` must be the number of arguments; `for_each_allocation` must visit
/// the [`KernelArg::allocation`] of every argument that has one (the checked launch orders
/// frees after the kernel through it, and graph nodes keep the memory alive through it).
pub unsafe trait KernelArgs {
    /// How many arguments.
    const COUNT: usize;
    /// The argument values, as the stack tuple the pointers point into.
    type Values;
    /// The array of pointers the driver reads (`[*mut c_void; COUNT]`).
    type Pointers: AsMut<[*mut c_void]>;
    /// The values.
    fn values(&self) -> Self::Values;
    /// Pointers into `values`, one per argument.
    fn pointers(values: &mut Self::Values) -> Self::Pointers;
    /// Checks the argument sizes against `params` (when given) and that every device-memory
    /// argument lives in `ctx`.
    ///
    /// # Errors
    /// A usage error naming the first mismatch.
    fn check(&self, params: Option<&[ParamInfo]>, ctx: CUcontext) -> Result<()>;
    /// Calls `f` with the allocation of every device-memory argument.
    ///
    /// # Errors
    /// The first error `f` returns.
    fn for_each_allocation(&self, f: &mut dyn FnMut(&Arc<Allocation>) -> Result<()>) -> Result<()>;
}

#[cold]
fn count_mismatch(expected: usize, got: usize) -> CoreError {
    CoreError::usage(
        "launch",
        format!("the kernel takes {expected} arguments, {got} given"),
    )
}

#[cold]
fn size_mismatch(i: usize, expected: usize, got: usize) -> CoreError {
    CoreError::usage(
        "launch",
        format!("argument {i} is {got} bytes, the kernel's parameter {i} is {expected} bytes"),
    )
}

#[cold]
fn context_mismatch(i: usize) -> CoreError {
    CoreError::usage(
        "launch",
        format!("argument {i} is memory of another context than the launch stream's"),
    )
}

#[inline(always)]
fn check_one<A: KernelArg>(
    i: usize,
    a: &A,
    params: Option<&[ParamInfo]>,
    ctx: CUcontext,
) -> Result<()> {
    if let Some(p) = params {
        if p[i].size != size_of::<A::Value>() {
            return Err(size_mismatch(i, p[i].size, size_of::<A::Value>()));
        }
    }
    match a.memory_context() {
        Some(c) if c != ctx => Err(context_mismatch(i)),
        _ => Ok(()),
    }
}

macro_rules! kernel_args {
    ($n:expr; $($T:ident $i:tt),*) => {
        // SAFETY: one pointer per tuple field, in order, into `values`.
        unsafe impl<$($T: KernelArg),*> KernelArgs for ($($T,)*) {
            const COUNT: usize = $n;
            type Values = ($($T::Value,)*);
            type Pointers = [*mut c_void; $n];
            #[inline(always)]
            #[allow(clippy::unused_unit)]
            fn values(&self) -> Self::Values {
                ($(self.$i.kernel_value(),)*)
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn pointers(values: &mut Self::Values) -> Self::Pointers {
                [$(core::ptr::addr_of_mut!(values.$i).cast::<c_void>(),)*]
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn check(&self, params: Option<&[ParamInfo]>, ctx: CUcontext) -> Result<()> {
                if let Some(p) = params {
                    if p.len() != $n {
                        return Err(count_mismatch(p.len(), $n));
                    }
                }
                $(check_one($i, &self.$i, params, ctx)?;)*
                Ok(())
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn for_each_allocation(
                &self,
                f: &mut dyn FnMut(&Arc<Allocation>) -> Result<()>,
            ) -> Result<()> {
                $(if let Some(a) = self.$i.allocation() { f(a)?; })*
                Ok(())
            }
        }
    };
}

kernel_args!(0;);
kernel_args!(1; A0 0);
kernel_args!(2; A0 0, A1 1);
kernel_args!(3; A0 0, A1 1, A2 2);
kernel_args!(4; A0 0, A1 1, A2 2, A3 3);
kernel_args!(5; A0 0, A1 1, A2 2, A3 3, A4 4);
kernel_args!(6; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
kernel_args!(7; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
kernel_args!(8; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);
kernel_args!(9; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8);
kernel_args!(10; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9);
kernel_args!(11; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10);
kernel_args!(12; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11);
kernel_args!(13; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12);
kernel_args!(14; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13);
kernel_args!(15; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13, A14 14);
kernel_args!(16; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13, A14 14, A15 15);

#[cold]
fn config_error(why: String) -> CoreError {
    CoreError::usage("launch", why)
}

#[cold]
fn blocks_overflow(config: &LaunchConfig) -> CoreError {
    config_error(format!(
        "grid {:?} clusters of {:?} blocks is more than u32::MAX blocks along an axis",
        config.grid, config.cluster
    ))
}

/// Checks `config` against the kernel's and the device's limits (queried once, when the
/// kernel was created) and the kernel's context against `ctx` (the stream's).
pub(crate) fn check_config(ctx: CUcontext, config: &LaunchConfig, kernel: &Kernel) -> Result<()> {
    let lim = &kernel.0.limits;
    let (g, b) = (config.grid, config.block);
    if g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 {
        return Err(config_error(format!(
            "empty launch: grid {g:?}, block {b:?} (every dimension must be at least 1)"
        )));
    }
    if let Some(c) = config.cluster {
        if c.x == 0 || c.y == 0 || c.z == 0 {
            return Err(config_error(format!(
                "empty cluster {c:?} (every dimension must be at least 1)"
            )));
        }
    }
    // With a cluster, `grid` counts clusters: the limits apply to the blocks.
    let Some(g) = config.blocks() else {
        return Err(blocks_overflow(config));
    };
    let threads = b.volume().unwrap_or(u64::MAX);
    if threads > u64::from(lim.max_threads) {
        return Err(config_error(format!(
            "block of {threads} threads; kernel {:?} allows at most {}",
            kernel.name(),
            lim.max_threads
        )));
    }
    for (axis, (d, max)) in ["x", "y", "z"].into_iter().zip([
        (b.x, lim.block[0]),
        (b.y, lim.block[1]),
        (b.z, lim.block[2]),
    ]) {
        if d > max {
            return Err(config_error(format!(
                "block.{axis} = {d}; the device allows at most {max}"
            )));
        }
    }
    for (axis, (d, max)) in ["x", "y", "z"].into_iter().zip([
        (g.x, lim.grid[0]),
        (g.y, lim.grid[1]),
        (g.z, lim.grid[2]),
    ]) {
        if d > max {
            return Err(config_error(format!(
                "grid.{axis} = {d}; the device allows at most {max}"
            )));
        }
    }
    if kernel.context().as_raw() != ctx {
        return Err(config_error(
            "the kernel's module is loaded in another context than the stream's".into(),
        ));
    }
    Ok(())
}

/// Launches `kernel` on `stream` with `args`, after checking them: the launch dimensions
/// against the kernel's and device's limits, the kernel's and every buffer's context against
/// the stream's, and — where the driver reports parameter info ([`Kernel::num_arguments`]) —
/// the argument count and each argument's size. Allocates nothing.
///
/// Asynchronous: the kernel runs after the work already queued on `stream`. A buffer passed
/// in on a stream other than its allocation stream gets an event recorded after the launch,
/// which its free waits for (so dropping the buffer right after the launch is fine). The
/// checks are help, not a proof: kernel code is arbitrary, so the launch is `unsafe`.
///
/// Where the backend reports no parameter info (CUDA drivers before 12.4; images whose layout
/// the HIP backend cannot read, such as NVIDIA fat binaries or AMD code object v2) the count
/// and size checks are skipped; everything else is still checked.
///
/// ```no_run
/// use anycuda::core::{launch, Buffer, CodeType, Device, LaunchConfig, Program, ProgramOptions};
/// let dev = Device::new(0)?;
/// let ctx = dev.set_current()?;
/// let src = r#"extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
///     unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }"#;
/// let code = Program::new(src, ProgramOptions::new())?.compile(CodeType::Cubin)?;
/// let k = code.kernel("saxpy")?;
/// let stream = ctx.create_stream(Default::default())?;
/// let n = 1 << 20;
/// let x = Buffer::<f32>::from_slice(&stream, &vec![1.0; n])?;
/// let mut y = Buffer::<f32>::from_slice(&stream, &vec![2.0; n])?;
/// // SAFETY: saxpy reads x[i] and writes y[i] for i < n only, n is both buffers' length, and
/// // no host borrow of them is alive; nothing is captured.
/// unsafe { launch(&stream, &LaunchConfig::for_num_elems(n as u32, 256), &k, (2.0f32, &x, &mut y, n as u32))? };
/// stream.synchronize()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
///
/// # Safety
/// The kernel is arbitrary code, so the caller promises, for this launch:
/// - the kernel reads and writes only memory its arguments grant it (the buffers and views
///   passed, within their lengths; no address smuggled in as an integer), and treats read-only
///   arguments (`&Buffer`, `BufferView`) as read-only;
/// - values passed by value are what the kernel's parameters expect (a `u64` where it takes a
///   pointer is exactly the smuggling the first point forbids);
/// - no host borrow of that memory (`Buffer::as_host_slice`, `PinnedBuffer::as_slice`, a
///   slice of mapped memory) is alive, or is taken, until the kernel has completed;
/// - when `stream` is capturing, the memory, the kernel and its module outlive every launch
///   of the resulting graph (the graph does not know what a captured kernel uses; prefer
///   [`GraphBuilder::kernel`](super::GraphBuilder::kernel), whose graph keeps them alive).
///
/// # Errors
/// A usage error for a mismatched argument, a buffer or kernel of another context, or a
/// launch beyond the limits; the driver's error otherwise.
#[inline]
pub unsafe fn launch<A: KernelArgs>(
    stream: &Stream,
    config: &LaunchConfig,
    kernel: &Kernel,
    args: A,
) -> Result<()> {
    check_config(stream.context().as_raw(), config, kernel)?;
    args.check(kernel.0.params.as_deref(), stream.context().as_raw())?;
    // Same-stream buffers: no lock, no event, no extra driver call (the allocation stream's
    // order covers the free).
    let mut foreign = false;
    let _ = args.for_each_allocation(&mut |a| {
        foreign |= a.is_foreign(stream);
        Ok(())
    });
    if !foreign {
        // SAFETY: every check `launch_unchecked` asks of its caller was made above; the
        // kernel's memory contract is this function's own, forwarded.
        return unsafe { launch_raw(stream, config, kernel, &args) };
    }
    // Others: an event the free waits for (or, while capturing, a keep-alive for the graph),
    // with the capture state held over the launch.
    stream.context().bind()?;
    let st = track::capture_state(stream)?;
    // SAFETY: as above, for the same checks and contract.
    unsafe { launch_raw(stream, config, kernel, &args)? };
    args.for_each_allocation(&mut |a| a.used_on(stream, st.id))
}

/// [`launch`] without its checks: no argument count or size check, no context check, no
/// limit check (the driver still rejects what it rejects).
///
/// Nor does it record the use of buffers on a foreign stream: order their drop after the
/// kernel yourself ([`Stream::wait`] from the allocation stream, or a synchronize).
///
/// # Safety
/// Everything [`launch`] asks, and: the arguments must match the kernel's parameters in
/// number, order and layout, every buffer must belong to the stream's context, and a buffer
/// used on a stream other than its allocation stream must not be dropped before the kernel
/// completes (or before its allocation stream waits for it).
///
/// # Errors
/// The driver's error.
#[inline]
pub unsafe fn launch_unchecked<A: KernelArgs>(
    stream: &Stream,
    config: &LaunchConfig,
    kernel: &Kernel,
    args: A,
) -> Result<()> {
    // SAFETY: the caller's contract, forwarded.
    unsafe { launch_raw(stream, config, kernel, &args) }
}

/// The launch itself, arguments by reference.
///
/// # Safety
/// As [`launch_unchecked`].
#[inline(always)]
unsafe fn launch_raw<A: KernelArgs>(
    stream: &Stream,
    config: &LaunchConfig,
    kernel: &Kernel,
    args: &A,
) -> Result<()> {
    stream.context().bind()?;
    let mut values = args.values();
    let mut ptrs = A::pointers(&mut values);
    let params: *mut *mut c_void = if A::COUNT == 0 {
        core::ptr::null_mut()
    } else {
        ptrs.as_mut().as_mut_ptr()
    };
    let (g, b) = (config.grid, config.block);
    let f = kernel.as_raw();
    let s = stream.as_raw();
    let smem = config.shared_mem_bytes;
    // The driver takes the grid in blocks; with a cluster, `grid` counts clusters.
    let blocks = match config.cluster {
        None => g,
        Some(_) => config.blocks().ok_or_else(|| blocks_overflow(config))?,
    };
    match (config.cluster, config.cooperative) {
        (None, false) => {
            // SAFETY: live function and stream; `params` points to COUNT pointers into
            // `values`, both alive on this stack frame for the call.
            check("cuLaunchKernel", unsafe {
                cuLaunchKernel(
                    f,
                    g.x,
                    g.y,
                    g.z,
                    b.x,
                    b.y,
                    b.z,
                    smem,
                    s,
                    params,
                    core::ptr::null_mut(),
                )
            })
        }
        (None, true) => {
            // SAFETY: as above.
            check("cuLaunchCooperativeKernel", unsafe {
                cuLaunchCooperativeKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, smem, s, params)
            })
        }
        (Some(c), coop) => {
            // SAFETY: an all-zero launch attribute is valid plain data (id 0, zero union).
            let mut attrs: [CUlaunchAttribute; 2] = unsafe { core::mem::zeroed() };
            attrs[0].id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[0].value.clusterDim = CUlaunchAttributeValue_union__bindgen_ty_1 {
                x: c.x,
                y: c.y,
                z: c.z,
            };
            attrs[1].id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attrs[1].value.cooperative = 1;
            let cfg = CUlaunchConfig {
                gridDimX: blocks.x,
                gridDimY: blocks.y,
                gridDimZ: blocks.z,
                blockDimX: b.x,
                blockDimY: b.y,
                blockDimZ: b.z,
                sharedMemBytes: smem,
                hStream: s,
                attrs: attrs.as_mut_ptr(),
                numAttrs: if coop { 2 } else { 1 },
            };
            // SAFETY: as above; `cfg` and `attrs` live for the call.
            check("cuLaunchKernelEx", unsafe {
                cuLaunchKernelEx(&cfg, f, params, core::ptr::null_mut())
            })
        }
    }
}
