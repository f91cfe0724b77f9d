//! CUDA graphs from stream capture: [`CudaStream::begin_capture`] ...
//! [`CudaStream::end_capture`] gives an instantiated [`CudaGraph`] to replay.

use std::sync::Arc;

use crate::driver::{result, sys};

use super::{CudaStream, DriverError};

/// A captured, instantiated graph, launched on the stream that captured it.
#[derive(Debug)]
pub struct CudaGraph {
    pub(crate) cu_graph: sys::CUgraph,
    pub(crate) cu_graph_exec: sys::CUgraphExec,
    pub(crate) stream: Arc<CudaStream>,
}

// SAFETY: the graph handles are usable from any thread; every use binds the stream's context first,
// and `stream` is an `Arc<CudaStream>` (Send + Sync).
unsafe impl Send for CudaGraph {}
// SAFETY: `&CudaGraph` allows only launch and upload on its own stream, which the driver
// serialises.
unsafe impl Sync for CudaGraph {}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let ctx = &self.stream.ctx;
        ctx.record_err(ctx.bind_to_thread());
        let exec = std::mem::replace(&mut self.cu_graph_exec, std::ptr::null_mut());
        if !exec.is_null() {
            // SAFETY: `exec` was instantiated by `end_capture` and is owned by this graph alone; it
            // was just taken out of `self`, so it is destroyed exactly once.
            ctx.record_err(unsafe { result::graph::exec_destroy(exec) });
        }
        let graph = std::mem::replace(&mut self.cu_graph, std::ptr::null_mut());
        if !graph.is_null() {
            // SAFETY: `graph` came from `end_capture` and is owned by this graph alone; it was just
            // taken out of `self`, so it is destroyed exactly once, after its executable.
            ctx.record_err(unsafe { result::graph::destroy(graph) });
        }
    }
}

impl CudaStream {
    /// Starts capturing this stream's work into a graph.
    ///
    /// # Errors
    /// The driver's error.
    pub fn begin_capture(&self, mode: sys::CUstreamCaptureMode) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_stream` is live while `self` is; the context was bound just above.
        unsafe { result::stream::begin_capture(self.cu_stream, mode) }
    }

    /// Ends the capture and instantiates the graph with `flags`; `None` when nothing was
    /// captured into a graph.
    ///
    /// # Errors
    /// The driver's error (e.g. `CUDA_ERROR_INVALID_VALUE` for invalid flags).
    pub fn end_capture(
        self: &Arc<Self>,
        flags: sys::CUgraphInstantiate_flags,
    ) -> Result<Option<CudaGraph>, DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_stream` is live while `self` is and is the stream whose capture began in
        // `begin_capture`; the context was bound just above.
        let cu_graph = unsafe { result::stream::end_capture(self.cu_stream) }?;
        if cu_graph.is_null() {
            return Ok(None);
        }
        // SAFETY: `cu_graph` was just returned by `end_capture` and is not null (checked above).
        match unsafe { result::graph::instantiate(cu_graph, flags) } {
            Ok(cu_graph_exec) => Ok(Some(CudaGraph {
                cu_graph,
                cu_graph_exec,
                stream: self.clone(),
            })),
            Err(e) => {
                // SAFETY: `cu_graph` was returned by `end_capture` and is owned by nobody else,
                // since instantiation failed.
                self.ctx
                    .record_err(unsafe { result::graph::destroy(cu_graph) });
                Err(e)
            }
        }
    }

    /// Whether the stream is capturing.
    ///
    /// # Errors
    /// The driver's error.
    pub fn capture_status(&self) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_stream` is live while `self` is; the status is written to `out`'s own
        // slot.
        unsafe { result::stream::is_capturing(self.cu_stream) }
    }
}

impl CudaGraph {
    /// Launches the graph on its stream.
    ///
    /// # Errors
    /// The driver's error.
    pub fn launch(&self) -> Result<(), DriverError> {
        self.stream.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_graph_exec` is owned by `self` and `self.stream` is held by the `Arc`;
        // the context was bound just above.
        unsafe { result::graph::launch(self.cu_graph_exec, self.stream.cu_stream) }
    }

    /// Uploads the graph to the device ahead of its first launch.
    ///
    /// # Errors
    /// The driver's error.
    pub fn upload(&self) -> Result<(), DriverError> {
        self.stream.ctx.bind_to_thread()?;
        // SAFETY: `self.cu_graph_exec` is owned by `self` and `self.stream` is held by the `Arc`;
        // the context was bound just above.
        unsafe { result::graph::upload(self.cu_graph_exec, self.stream.cu_stream) }
    }

    /// The raw graph.
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.cu_graph
    }

    /// The raw executable graph.
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.cu_graph_exec
    }
}
