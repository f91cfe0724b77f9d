//! CUDA graphs: capture a stream's work into a [`Graph`] or build one node by node with a
//! [`GraphBuilder`], instantiate it into a [`GraphExec`], then launch or upload that.
//!
//! Where the backend lacks a graph call (HIP lacks some node kinds), its not-supported error
//! comes back as the [`CoreError`].

use super::error::{check, CoreError, Result};
use super::launch::{check_config, KernelArgs, LaunchConfig};
use super::memory::{Buffer, DeviceCopy};
use super::module::Kernel;
use super::stream::Stream;
use super::track::{self, KeepAlive, KeepSet, Uses};
use super::Context;
use crate::driver::*;
use core::ffi::c_void;
use core::mem::size_of;
use std::sync::Arc;

/// How a capture treats unsafe calls (`cudaMalloc` and the like) from other threads
/// (`CUstreamCaptureMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// Unsafe calls are refused on every thread while any global capture runs.
    #[default]
    Global,
    /// Unsafe calls are refused on the capturing thread only.
    ThreadLocal,
    /// No unsafe call is refused.
    Relaxed,
}

impl CaptureMode {
    fn raw(self) -> CUstreamCaptureMode {
        match self {
            Self::Global => CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL,
            Self::ThreadLocal => CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            Self::Relaxed => CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
        }
    }
}

/// Stream capture (defined here, with the graph types it produces).
impl Stream {
    /// Starts capturing the work queued on this stream into a graph instead of running it
    /// (`cuStreamBeginCapture`). End with [`Stream::end_capture`].
    ///
    /// The default (legacy) stream cannot be captured: use a created stream.
    ///
    /// # Errors
    /// A usage error for the default stream; the driver's error (e.g. already capturing).
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<()> {
        if self.is_default() {
            return Err(CoreError::usage(
                "Stream::begin_capture",
                "the default stream cannot be captured: create a stream",
            ));
        }
        let _gate = track::capture_gate();
        self.context().bind()?;
        // SAFETY: live stream.
        check("cuStreamBeginCapture", unsafe {
            cuStreamBeginCapture(self.as_raw(), mode.raw())
        })
    }

    /// Ends the capture and returns the captured graph (`cuStreamEndCapture`).
    ///
    /// What the safe operations of the capture referenced (buffers of copies and fills,
    /// pinned buffers, [`Stream::launch_host_fn`] closures) moves into the graph, which keeps
    /// it alive. Kernels launched during the capture (an `unsafe` [`launch`](super::launch()))
    /// are the launch contract's business: keep their memory, [`Kernel`] and
    /// [`ObjectCode`](super::ObjectCode) alive as long as the graph and its executables are
    /// used.
    ///
    /// # Errors
    /// The driver's error (`CUDA_ERROR_ILLEGAL_STATE` when not capturing,
    /// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` when a captured call failed).
    pub fn end_capture(&self) -> Result<Graph> {
        let gate = track::capture_gate();
        self.context().bind()?;
        // Without an id (the query failed) nothing was kept for this capture: safe operations
        // are refused while capturing when the id cannot be had. End it regardless.
        let id = track::capture_id(self).unwrap_or(None);
        let mut raw: CUgraph = core::ptr::null_mut();
        // SAFETY: live stream, valid out-pointer.
        let r = check("cuStreamEndCapture", unsafe {
            cuStreamEndCapture(self.as_raw(), &mut raw)
        });
        // The capture is over (ended, or failed and discarded): what it kept moves into the
        // graph, or is released with the error (after the gate: releasing may free memory).
        let kept = id.map(track::take_capture).unwrap_or_default();
        drop(gate);
        r?;
        if raw.is_null() {
            return Err(CoreError::usage(
                "Stream::end_capture",
                "the driver returned no graph",
            ));
        }
        let mut keep = KeepSet::default();
        keep.extend(kept);
        Ok(Graph {
            raw,
            ctx: self.context().clone(),
            keep,
        })
    }

    /// Whether this stream is capturing (`cuStreamIsCapturing`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn is_capturing(&self) -> Result<bool> {
        self.context().bind()?;
        let mut st = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: live stream, valid out-pointer.
        check("cuStreamIsCapturing", unsafe {
            cuStreamIsCapturing(self.as_raw(), &mut st)
        })?;
        Ok(st == CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
    }
}

/// A graph of work (`CUgraph`); destroyed on drop. Make one by capture
/// ([`Stream::begin_capture`]) or with a [`GraphBuilder`]; run it through
/// [`Graph::instantiate`].
///
/// `Send` but not `Sync`: CUDA graphs are not internally synchronised, so one thread at a
/// time may use one.
///
/// ```no_run
/// use anycuda::core::{CaptureMode, Device, StreamOptions};
/// let ctx = Device::new(0)?.set_current()?;
/// let stream = ctx.create_stream(StreamOptions::default())?;
/// stream.begin_capture(CaptureMode::Global)?;
/// // ... launches and copies on `stream` are recorded, not run ...
/// let graph = stream.end_capture()?;
/// let exec = graph.instantiate()?;
/// for _ in 0..10 {
///     exec.launch(&stream)?;
/// }
/// stream.synchronize()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct Graph {
    raw: CUgraph,
    ctx: Context,
    /// What the nodes reference (allocations, pinned memory, kernels, host functions), kept
    /// alive with the graph.
    keep: KeepSet,
}

// SAFETY: a CUgraph may be used from any thread, one at a time; `Graph` is not `Sync`, so
// shared use across threads cannot happen.
unsafe impl Send for Graph {}

impl Graph {
    /// The raw `CUgraph` (still owned by this `Graph`).
    pub fn as_raw(&self) -> CUgraph {
        self.raw
    }

    /// The context the graph was made in.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The number of nodes (`cuGraphGetNodes`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn node_count(&self) -> Result<usize> {
        let mut n = 0usize;
        // SAFETY: live graph; a null node array asks for the count only.
        check("cuGraphGetNodes", unsafe {
            cuGraphGetNodes(self.raw, core::ptr::null_mut(), &mut n)
        })?;
        Ok(n)
    }

    /// Makes an executable graph (`cuGraphInstantiate`). It shares what the graph keeps alive.
    ///
    /// # Errors
    /// The driver's error.
    pub fn instantiate(&self) -> Result<GraphExec> {
        self.ctx.bind()?;
        let mut raw: CUgraphExec = core::ptr::null_mut();
        // SAFETY: live graph, valid out-pointer, no flags.
        check("cuGraphInstantiate", unsafe {
            cuGraphInstantiate(&mut raw, self.raw, 0)
        })?;
        Ok(GraphExec {
            raw,
            ctx: self.ctx.clone(),
            _keep: self.keep.items().to_vec(),
            launches: Uses::default(),
        })
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("raw", &self.raw).finish()
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: we own the graph; executables made from it are independent copies.
        if let Err(e) = check("cuGraphDestroy", unsafe { cuGraphDestroy(self.raw) }) {
            log::warn!("{e}");
        }
    }
}

/// An executable graph (`CUgraphExec`); destroyed on drop. Keeps alive what its graph's nodes
/// reference, and on drop first waits for its launches to complete (events recorded after each
/// [`GraphExec::launch`]), so that memory it uses is freed only after them.
///
/// `Send` but not `Sync`: an executable graph must not be launched by two threads at once.
pub struct GraphExec {
    raw: CUgraphExec,
    ctx: Context,
    /// What the nodes reference, released (after the drop waited for the launches) when the
    /// fields drop.
    _keep: Vec<KeepAlive>,
    /// An event per stream it was launched on, recorded after the last launch there.
    launches: Uses,
}

// SAFETY: usable from any thread, one at a time (not `Sync`).
unsafe impl Send for GraphExec {}

impl GraphExec {
    /// The raw `CUgraphExec` (still owned by this `GraphExec`).
    pub fn as_raw(&self) -> CUgraphExec {
        self.raw
    }

    fn same_context(&self, op: &'static str, stream: &Stream) -> Result<()> {
        if stream.context().as_raw() != self.ctx.as_raw() {
            return Err(CoreError::usage(
                op,
                "the stream belongs to another context than the graph",
            ));
        }
        self.ctx.bind()
    }

    /// Runs the graph on `stream` (`cuGraphLaunch`), after the work already queued there,
    /// and records an event after it (which the drop waits for).
    ///
    /// # Errors
    /// A usage error for a stream of another context or a capturing stream; the driver's
    /// error.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.same_context("GraphExec::launch", stream)?;
        let st = track::capture_state(stream)?;
        if st.id.is_some() {
            // A captured launch would reference this executable (and its memory) from another
            // graph that does not own it.
            return Err(CoreError::usage(
                "GraphExec::launch",
                "the stream is capturing: launch the executable graph outside the capture",
            ));
        }
        // SAFETY: live executable graph and stream; what its nodes reference is kept alive by
        // `self._keep` until the launch completes (the drop waits for it).
        check("cuGraphLaunch", unsafe {
            cuGraphLaunch(self.raw, stream.as_raw())
        })?;
        self.launches.record(stream)
    }

    /// Uploads the graph to the device ahead of its first launch (`cuGraphUpload`), so that
    /// launch costs less.
    ///
    /// # Errors
    /// A usage error for a stream of another context; the driver's error.
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        self.same_context("GraphExec::upload", stream)?;
        // SAFETY: live executable graph and stream.
        check("cuGraphUpload", unsafe {
            cuGraphUpload(self.raw, stream.as_raw())
        })
    }
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphExec").field("raw", &self.raw).finish()
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // The memory and host functions the launches use are released with `keep`, after
        // this: wait for the launches first.
        if let Err(e) = self.launches.synchronize() {
            log::warn!("anycuda::core: a graph launch failed: {e}");
        }
        // SAFETY: we own the executable graph.
        if let Err(e) = check("cuGraphExecDestroy", unsafe {
            cuGraphExecDestroy(self.raw)
        }) {
            log::warn!("{e}");
        }
    }
}

/// One node of a graph being built; `Copy`, valid for the builder that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GraphNode {
    raw: CUgraphNode,
    graph: CUgraph,
}

impl GraphNode {
    /// The raw `CUgraphNode` (owned by its graph).
    pub fn as_raw(&self) -> CUgraphNode {
        self.raw
    }
}

/// Builds a [`Graph`] node by node: kernels, device copies, memsets and empty nodes, each
/// after the nodes it depends on.
///
/// `Send` (like the [`Graph`] it builds) but not `Sync`: one thread at a time adds nodes.
///
/// ```no_run
/// use anycuda::core::{Buffer, Device, GraphBuilder, StreamOptions};
/// let ctx = Device::new(0)?.set_current()?;
/// let stream = ctx.create_stream(StreamOptions::default())?;
/// let mut a = Buffer::<u32>::from_slice(&stream, &[0u32; 1024])?;
/// let mut b = Buffer::<u32>::from_slice(&stream, &[0u32; 1024])?;
/// let mut g = GraphBuilder::new(&ctx)?;
/// let set = g.memset(&[], &mut a, 7u32)?;
/// let _copy = g.memcpy(&[set], &mut b, &a)?;
/// g.build().instantiate()?.launch(&stream)?;
/// stream.synchronize()?;
/// # Ok::<(), anycuda::core::CoreError>(())
/// ```
pub struct GraphBuilder {
    graph: Graph,
}

impl GraphBuilder {
    /// An empty graph in `ctx` (`cuGraphCreate`).
    ///
    /// # Errors
    /// The driver's error.
    pub fn new(ctx: &Context) -> Result<GraphBuilder> {
        ctx.bind()?;
        let mut raw: CUgraph = core::ptr::null_mut();
        // SAFETY: valid out-pointer, no flags.
        check("cuGraphCreate", unsafe { cuGraphCreate(&mut raw, 0) })?;
        Ok(GraphBuilder {
            graph: Graph {
                raw,
                ctx: ctx.clone(),
                keep: KeepSet::default(),
            },
        })
    }

    fn deps(&self, op: &'static str, deps: &[GraphNode]) -> Result<()> {
        if deps.iter().any(|d| d.graph != self.graph.raw) {
            return Err(CoreError::usage(
                op,
                "a dependency is a node of another graph",
            ));
        }
        Ok(())
    }

    fn node(&self, raw: CUgraphNode) -> GraphNode {
        GraphNode {
            raw,
            graph: self.graph.raw,
        }
    }

    fn same_ctx(&self, op: &'static str, ctx: &Context) -> Result<()> {
        if ctx.as_raw() != self.graph.ctx.as_raw() {
            return Err(CoreError::usage(
                op,
                "memory or kernel of another context than the graph's",
            ));
        }
        Ok(())
    }

    /// A node that does nothing, to join dependencies (`cuGraphAddEmptyNode`).
    ///
    /// # Errors
    /// A usage error for a dependency of another graph; the driver's error.
    pub fn empty(&mut self, deps: &[GraphNode]) -> Result<GraphNode> {
        self.deps("GraphBuilder::empty", deps)?;
        let dep_raw = RawDeps::new(deps);
        let mut n: CUgraphNode = core::ptr::null_mut();
        // SAFETY: live graph, dependency array of `len` nodes of this graph.
        check("cuGraphAddEmptyNode", unsafe {
            cuGraphAddEmptyNode(&mut n, self.graph.raw, dep_raw.ptr(), deps.len())
        })?;
        Ok(self.node(n))
    }

    /// A kernel node: `kernel` with `args` and `config`, checked as [`launch`](super::launch())
    /// checks them (the values are copied into the node now). Cluster and cooperative
    /// configurations are refused here. The graph keeps the kernel and every buffer argument's
    /// memory alive.
    ///
    /// # Safety
    /// As [`launch`](super::launch()), for every launch of the graph: the kernel touches only
    /// memory its arguments grant it, within bounds, and no host borrow of that memory is
    /// alive while an executable of the graph may run.
    ///
    /// # Errors
    /// A usage error for a mismatch, another context, or a cluster/cooperative config; the
    /// driver's error.
    pub unsafe fn kernel<A: KernelArgs>(
        &mut self,
        deps: &[GraphNode],
        config: &LaunchConfig,
        kernel: &Kernel,
        args: A,
    ) -> Result<GraphNode> {
        const OP: &str = "GraphBuilder::kernel";
        self.deps(OP, deps)?;
        if config.cluster.is_some() || config.cooperative {
            return Err(CoreError::usage(
                OP,
                "cluster and cooperative launches are not supported in graph nodes here",
            ));
        }
        self.same_ctx(OP, kernel.context())?;
        // The same limits and context checks as a launch.
        check_config(self.graph.ctx.as_raw(), config, kernel)?;
        args.check(kernel.arguments_info(), self.graph.ctx.as_raw())?;
        let mut values = args.values();
        let mut ptrs = A::pointers(&mut values);
        let kernel_params: *mut *mut c_void = if A::COUNT == 0 {
            core::ptr::null_mut()
        } else {
            ptrs.as_mut().as_mut_ptr()
        };
        let (g, b) = (config.grid, config.block);
        let p = CUDA_KERNEL_NODE_PARAMS {
            func: kernel.as_raw(),
            gridDimX: g.x,
            gridDimY: g.y,
            gridDimZ: g.z,
            blockDimX: b.x,
            blockDimY: b.y,
            blockDimZ: b.z,
            sharedMemBytes: config.shared_mem_bytes,
            kernelParams: kernel_params,
            extra: core::ptr::null_mut(),
            // `func` names the kernel; the context is the function's own.
            kern: core::ptr::null_mut(),
            ctx: self.graph.ctx.as_raw(),
        };
        let dep_raw = RawDeps::new(deps);
        self.graph.ctx.bind()?;
        let mut n: CUgraphNode = core::ptr::null_mut();
        // SAFETY: live graph; `p` points at argument values alive on this frame, which the
        // driver copies into the node.
        check("cuGraphAddKernelNode", unsafe {
            cuGraphAddKernelNode(&mut n, self.graph.raw, dep_raw.ptr(), deps.len(), &p)
        })?;
        self.graph.keep.add(Arc::new(kernel.clone()));
        let keep = &mut self.graph.keep;
        args.for_each_allocation(&mut |a| {
            keep.add(a.clone());
            Ok(())
        })?;
        Ok(self.node(n))
    }

    /// A device-to-device copy of all of `src` into `dst` (same length)
    /// (`cuGraphAddMemcpyNode`).
    ///
    /// # Errors
    /// A usage error for different lengths or another context; the driver's error.
    pub fn memcpy<T: DeviceCopy>(
        &mut self,
        deps: &[GraphNode],
        dst: &mut Buffer<T>,
        src: &Buffer<T>,
    ) -> Result<GraphNode> {
        const OP: &str = "GraphBuilder::memcpy";
        self.deps(OP, deps)?;
        self.same_ctx(OP, dst.context())?;
        self.same_ctx(OP, src.context())?;
        if dst.len() != src.len() {
            return Err(CoreError::usage(
                OP,
                format!("lengths differ: dst {}, src {}", dst.len(), src.len()),
            ));
        }
        let bytes = src.len() * size_of::<T>();
        // SAFETY: an all-zero CUDA_MEMCPY3D is valid plain data (null pointers, zero sizes).
        let mut p: CUDA_MEMCPY3D = unsafe { core::mem::zeroed() };
        p.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        p.srcDevice = src.as_raw();
        p.srcPitch = bytes;
        p.srcHeight = 1;
        p.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        p.dstDevice = dst.as_raw();
        p.dstPitch = bytes;
        p.dstHeight = 1;
        p.WidthInBytes = bytes;
        p.Height = 1;
        p.Depth = 1;
        let dep_raw = RawDeps::new(deps);
        self.graph.ctx.bind()?;
        let mut n: CUgraphNode = core::ptr::null_mut();
        // SAFETY: live graph, valid descriptor of two device ranges of `bytes`.
        check("cuGraphAddMemcpyNode", unsafe {
            cuGraphAddMemcpyNode(
                &mut n,
                self.graph.raw,
                dep_raw.ptr(),
                deps.len(),
                &p,
                self.graph.ctx.as_raw(),
            )
        })?;
        self.graph.keep.add(dst.allocation().clone());
        self.graph.keep.add(src.allocation().clone());
        Ok(self.node(n))
    }

    /// Sets every element of `dst` to `value` (`cuGraphAddMemsetNode`); `T` must be 1, 2 or 4
    /// bytes, as CUDA's memset nodes require.
    ///
    /// # Errors
    /// A usage error for another element size or context; the driver's error.
    pub fn memset<T: DeviceCopy>(
        &mut self,
        deps: &[GraphNode],
        dst: &mut Buffer<T>,
        value: T,
    ) -> Result<GraphNode> {
        const OP: &str = "GraphBuilder::memset";
        self.deps(OP, deps)?;
        self.same_ctx(OP, dst.context())?;
        let bits: u32 = match size_of::<T>() {
            1 => {
                // SAFETY: `T` is one byte of plain data (`DeviceCopy`).
                u32::from(unsafe { core::mem::transmute_copy::<T, u8>(&value) })
            }
            2 => {
                // SAFETY: `T` is two bytes of plain data (`DeviceCopy`).
                u32::from(unsafe { core::mem::transmute_copy::<T, u16>(&value) })
            }
            4 => {
                // SAFETY: `T` is four bytes of plain data (`DeviceCopy`).
                unsafe { core::mem::transmute_copy::<T, u32>(&value) }
            }
            n => {
                return Err(CoreError::usage(
                    OP,
                    format!("element size {n}: memset nodes take 1, 2 or 4 bytes"),
                ))
            }
        };
        let p = CUDA_MEMSET_NODE_PARAMS {
            dst: dst.as_raw(),
            pitch: 0,
            value: bits,
            elementSize: size_of::<T>() as u32,
            width: dst.len(),
            height: 1,
        };
        let dep_raw = RawDeps::new(deps);
        self.graph.ctx.bind()?;
        let mut n: CUgraphNode = core::ptr::null_mut();
        // SAFETY: live graph, valid descriptor of `dst`'s elements.
        check("cuGraphAddMemsetNode", unsafe {
            cuGraphAddMemsetNode(
                &mut n,
                self.graph.raw,
                dep_raw.ptr(),
                deps.len(),
                &p,
                self.graph.ctx.as_raw(),
            )
        })?;
        self.graph.keep.add(dst.allocation().clone());
        Ok(self.node(n))
    }

    /// A host node: runs `f` on a driver thread each time the graph runs it
    /// (`cuGraphAddHostNode`). The graph (and every executable made from it) owns `f`; it is
    /// dropped once, when the last of them drops. `f` must not call the CUDA API; a panic is
    /// caught and logged.
    ///
    /// # Errors
    /// A usage error for a dependency of another graph; the driver's error.
    pub fn host<F>(&mut self, deps: &[GraphNode], f: F) -> Result<GraphNode>
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.deps("GraphBuilder::host", deps)?;
        let entry = track::register_repeat(Arc::new(f));
        let p = CUDA_HOST_NODE_PARAMS {
            fn_: Some(track::repeat_trampoline),
            userData: track::id_ptr(entry.id()),
        };
        let dep_raw = RawDeps::new(deps);
        self.graph.ctx.bind()?;
        let mut n: CUgraphNode = core::ptr::null_mut();
        // SAFETY: live graph; the trampoline treats its argument as an id and runs the closure
        // only while `entry` (owned by the graph from here on) lives.
        check("cuGraphAddHostNode", unsafe {
            cuGraphAddHostNode(&mut n, self.graph.raw, dep_raw.ptr(), deps.len(), &p)
        })?;
        self.graph.keep.add(entry);
        Ok(self.node(n))
    }

    /// Adds the edge `from` → `to` (`cuGraphAddDependencies`).
    ///
    /// # Errors
    /// A usage error for nodes of another graph; the driver's error.
    pub fn depend(&mut self, from: GraphNode, to: GraphNode) -> Result<()> {
        self.deps("GraphBuilder::depend", &[from, to])?;
        // SAFETY: live graph, one edge between two of its nodes, no edge data.
        check("cuGraphAddDependencies", unsafe {
            cuGraphAddDependencies(self.graph.raw, &from.raw, &to.raw, core::ptr::null(), 1)
        })
    }

    /// The finished graph.
    pub fn build(self) -> Graph {
        self.graph
    }
}

impl std::fmt::Debug for GraphBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphBuilder")
            .field("graph", &self.graph.raw)
            .finish()
    }
}

/// A dependency list as the driver wants it (a plain array of node handles).
struct RawDeps(Vec<CUgraphNode>);

impl RawDeps {
    fn new(deps: &[GraphNode]) -> Self {
        Self(deps.iter().map(|d| d.raw).collect())
    }
    fn ptr(&self) -> *const CUgraphNode {
        if self.0.is_empty() {
            core::ptr::null()
        } else {
            self.0.as_ptr()
        }
    }
}
