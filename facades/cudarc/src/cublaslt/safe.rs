//! [`CudaBlasLT`], cudarc's safe cuBLASLt handle with its [`Workspace`], and [`Matmul`]: one
//! matmul with [`MatmulConfig`], an optional bias and [`Activation`] fused in cuBLASLt's
//! epilogue, the algorithm picked by cuBLASLt's heuristic.
//!
//! Every operation passes its slices to cuBLASLt through cudarc's
//! [`DevicePtr`]/[`DevicePtrMut`] on the handle's stream, so with several streams in a context
//! the slices' read and write events order the matmul after earlier writers (and readers, for
//! the output) and later users after it, exactly as in cudarc.
//!
//! Where cudarc panics (a workspace that cannot be allocated, a descriptor that cannot be
//! destroyed) this module returns the error or logs it: bad input never panics.

use super::{result, result::CublasError, sys};
use crate::driver::sys::{CUdevice_attribute, CUdeviceptr};
use crate::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use core::ffi::c_int;
use core::mem;
use std::sync::Arc;

/// A cuBLASLt handle with its workspace, bound to a [`CudaStream`]: every matmul is queued on
/// that stream.
///
/// ```no_run
/// # extern crate anycuda_cudarc as cudarc;
/// use cudarc::cublaslt::{CudaBlasLT, Matmul, MatmulConfig};
/// use cudarc::driver::CudaContext;
/// let ctx = CudaContext::new(0)?;
/// let stream = ctx.default_stream();
/// let blas = CudaBlasLT::new(stream.clone())?;
/// let a = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let b = stream.clone_htod(&[1.0f32, 0.0, 0.0, 1.0])?;
/// let mut c = stream.alloc_zeros::<f32>(4)?;
/// let cfg = MatmulConfig {
///     transa: false, transb: false, transc: false, m: 2, n: 2, k: 2, alpha: 1.0, lda: 2,
///     ldb: 2, beta: 0.0, ldc: 2, stride_a: None, stride_b: None, stride_c: None,
///     stride_bias: None, batch_size: None,
/// };
/// // SAFETY: every matrix fits in its slice (2 x 2, leading dimension 2).
/// unsafe { blas.matmul(cfg, &a, &b, &mut c, None, None) }?;
/// assert_eq!(stream.clone_dtoh(&c)?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Created by [`CudaBlasLT::new`] (`cublasLtCreate` in the stream's context, then the
/// workspace); destroyed on drop. It holds the stream's `Arc`, so the stream and its context
/// outlive the handle. Each matmul makes the stream's context current first (cuBLASLt queues on
/// the stream it is given, but the heuristic and the workspace belong to the handle's
/// context). A failed destroy is logged, where cudarc panics.
#[derive(Debug)]
pub struct CudaBlasLT {
    handle: sys::cublasLtHandle_t,
    workspace: Workspace,
    stream: Arc<CudaStream>,
}

// SAFETY: the handle is a pointer to cuBLASLt's library context, usable from any thread
// (cuBLASLt is thread safe, the same handle included); the workspace and stream are `Send`.
unsafe impl Send for CudaBlasLT {}
// SAFETY: nothing through `&self` changes the handle; the matmul, which enqueues work on the
// shared workspace, is `unsafe`, with the caller answering for concurrent use of the memory.
unsafe impl Sync for CudaBlasLT {}

impl CudaBlasLT {
    /// A handle in `stream`'s context whose matmuls run on `stream`, with a [`Workspace`].
    ///
    /// # Errors
    /// cuBLASLt's error (`CUBLAS_STATUS_NOT_INITIALIZED` when cuBLASLt cannot start, e.g.
    /// without a GPU; `CUBLAS_STATUS_NOT_SUPPORTED` with no matmul library, with the reason in
    /// [`sys::not_supported_reason`]); `CUBLAS_STATUS_ALLOC_FAILED` when the workspace cannot be
    /// allocated (cudarc panics; the driver's error is logged).
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CublasError> {
        let ctx = stream.context();
        ctx.record_err(ctx.bind_to_thread());
        let handle = result::create_handle()?;
        match Workspace::new(stream.clone()) {
            Ok(workspace) => Ok(Self {
                handle,
                workspace,
                stream,
            }),
            Err(e) => {
                log::warn!("anycuda-cudarc cublaslt: allocating the workspace: {e}");
                // SAFETY: the handle is live and not used again.
                if let Err(d) = unsafe { result::destroy_handle(handle) } {
                    log::warn!("anycuda-cudarc cublaslt: destroying a handle after {e}: {d}");
                }
                Err(CublasError(sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED))
            }
        }
    }
}

impl Drop for CudaBlasLT {
    fn drop(&mut self) {
        let handle = mem::replace(&mut self.handle, std::ptr::null_mut());
        if handle.is_null() {
            return;
        }
        let ctx = self.stream.context();
        ctx.record_err(ctx.bind_to_thread());
        // SAFETY: the handle is live and, swapped out of `self`, never used again.
        if let Err(e) = unsafe { result::destroy_handle(handle) } {
            log::warn!("anycuda-cudarc cublaslt: cublasLtDestroy failed: {e}");
        }
    }
}

/// The device buffer cuBLASLt may use during a matmul, sized as NVIDIA recommends: 32 MiB on
/// compute capability 9 and above (Hopper), 4 MiB otherwise (as in cudarc).
#[derive(Debug, Clone)]
pub struct Workspace {
    pub(crate) buffer: CudaSlice<u8>,
    pub(crate) size: usize,
}

impl Workspace {
    /// A workspace on `stream`'s device.
    ///
    /// # Errors
    /// The driver's error (binding the context, the device's compute capability, the
    /// allocation).
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, DriverError> {
        let ctx = stream.context();
        ctx.bind_to_thread()?;
        let major =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let size = if major >= 9 { 32 << 20 } else { 4 << 20 };
        // SAFETY: cuBLASLt only writes its scratch data here; nobody reads it uninitialised.
        let buffer = unsafe { stream.alloc::<u8>(size) }?;
        Ok(Self { buffer, size })
    }
}

/// An activation fused into the matmul's epilogue.
#[derive(Debug, Clone)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// GELU (cuBLASLt's tanh approximation).
    Gelu,
}

/// A matrix layout, destroyed on drop.
struct MatrixLayout {
    handle: sys::cublasLtMatrixLayout_t,
}

impl MatrixLayout {
    fn new(
        matrix_type: sys::cudaDataType,
        rows: u64,
        cols: u64,
        ld: i64,
    ) -> Result<Self, CublasError> {
        let handle = result::create_matrix_layout(matrix_type, rows, cols, ld)?;
        Ok(Self { handle })
    }

    /// `size` matrices `stride` elements apart.
    fn set_batch(&self, size: c_int, stride: i64) -> Result<(), CublasError> {
        // SAFETY: the layout is live while `self` is; each value is a live local of the size
        // cuBLASLt documents for the attribute (int32_t, int64_t).
        unsafe {
            result::set_matrix_layout_attribute(
                self.handle,
                sys::cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                (&size as *const c_int).cast(),
                mem::size_of::<c_int>(),
            )?;
            result::set_matrix_layout_attribute(
                self.handle,
                sys::cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                (&stride as *const i64).cast(),
                mem::size_of::<i64>(),
            )
        }
    }
}

impl Drop for MatrixLayout {
    fn drop(&mut self) {
        // SAFETY: the layout is live and not used after `self`.
        if let Err(e) = unsafe { result::destroy_matrix_layout(self.handle) } {
            log::warn!("anycuda-cudarc cublaslt: cublasLtMatrixLayoutDestroy failed: {e}");
        }
    }
}

/// Which operand a transpose applies to.
enum Matrix {
    A,
    B,
    C,
}

/// A matmul descriptor, destroyed on drop.
struct MatmulDesc {
    handle: sys::cublasLtMatmulDesc_t,
}

impl MatmulDesc {
    fn new(
        compute_type: sys::cublasComputeType_t,
        scale_type: sys::cudaDataType,
    ) -> Result<Self, CublasError> {
        let handle = result::create_matmul_desc(compute_type, scale_type)?;
        Ok(Self { handle })
    }

    fn set_transpose(&self, transpose: bool, matrix: Matrix) -> Result<(), CublasError> {
        let op = if transpose {
            sys::cublasOperation_t::CUBLAS_OP_T
        } else {
            sys::cublasOperation_t::CUBLAS_OP_N
        };
        let attr = match matrix {
            Matrix::A => sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
            Matrix::B => sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSB,
            Matrix::C => sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSC,
        };
        // SAFETY: the descriptor is live while `self` is; `op` is a live local of the
        // attribute's size (int32_t).
        unsafe {
            result::set_matmul_desc_attribute(
                self.handle,
                attr,
                (&op as *const sys::cublasOperation_t).cast(),
                mem::size_of::<sys::cublasOperation_t>(),
            )
        }
    }

    /// The epilogue for `act` and `bias`: bias, activation, both or neither.
    fn set_epilogue(
        &self,
        act: Option<&Activation>,
        bias: Option<&CUdeviceptr>,
        stride_bias: Option<i64>,
    ) -> Result<(), CublasError> {
        use sys::cublasLtEpilogue_t as E;
        let epilogue = match (bias, act) {
            (Some(_), None) => E::CUBLASLT_EPILOGUE_BIAS,
            (Some(_), Some(Activation::Relu)) => E::CUBLASLT_EPILOGUE_RELU_BIAS,
            (Some(_), Some(Activation::Gelu)) => E::CUBLASLT_EPILOGUE_GELU_BIAS,
            (None, Some(Activation::Relu)) => E::CUBLASLT_EPILOGUE_RELU,
            (None, Some(Activation::Gelu)) => E::CUBLASLT_EPILOGUE_GELU,
            (None, None) => E::CUBLASLT_EPILOGUE_DEFAULT,
        };
        type A = sys::cublasLtMatmulDescAttributes_t;
        if let Some(ptr) = bias {
            // SAFETY: the descriptor is live while `self` is; `ptr` is a live reference to a
            // device pointer, the attribute's size.
            unsafe {
                result::set_matmul_desc_attribute(
                    self.handle,
                    A::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                    (ptr as *const CUdeviceptr).cast(),
                    mem::size_of::<CUdeviceptr>(),
                )
            }?;
            if let Some(stride) = stride_bias {
                // SAFETY: the descriptor is live; `stride` is a live local (int64_t).
                unsafe {
                    result::set_matmul_desc_attribute(
                        self.handle,
                        A::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                        (&stride as *const i64).cast(),
                        mem::size_of::<i64>(),
                    )
                }?;
            }
        }
        // SAFETY: the descriptor is live; `epilogue` is a live local of the attribute's size
        // (uint32_t).
        unsafe {
            result::set_matmul_desc_attribute(
                self.handle,
                A::CUBLASLT_MATMUL_DESC_EPILOGUE,
                (&epilogue as *const E).cast(),
                mem::size_of::<E>(),
            )
        }
    }
}

impl Drop for MatmulDesc {
    fn drop(&mut self) {
        // SAFETY: the descriptor is live and not used after `self`.
        if let Err(e) = unsafe { result::destroy_matmul_desc(self.handle) } {
            log::warn!("anycuda-cudarc cublaslt: cublasLtMatmulDescDestroy failed: {e}");
        }
    }
}

/// Heuristic search preferences, destroyed on drop.
struct MatmulPref {
    handle: sys::cublasLtMatmulPreference_t,
}

impl MatmulPref {
    fn new() -> Result<Self, CublasError> {
        let handle = result::create_matmul_pref()?;
        Ok(Self { handle })
    }

    /// Only algorithms that fit in `size` bytes of workspace.
    fn set_workspace_size(&self, size: usize) -> Result<(), CublasError> {
        let size = size as u64;
        // SAFETY: the preferences are live while `self` is; `size` is a live local of the
        // attribute's size (uint64_t).
        unsafe {
            result::set_matmul_pref_attribute(
                self.handle,
                sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                (&size as *const u64).cast(),
                mem::size_of::<u64>(),
            )
        }
    }
}

impl Drop for MatmulPref {
    fn drop(&mut self) {
        // SAFETY: the preferences are live and not used after `self`.
        if let Err(e) = unsafe { result::destroy_matmul_pref(self.handle) } {
            log::warn!("anycuda-cudarc cublaslt: cublasLtMatmulPreferenceDestroy failed: {e}");
        }
    }
}

/// What [`Matmul`] needs of its implementor: the handle, the workspace and the stream.
pub trait MatmulShared {
    /// The raw cuBLASLt handle, for calls through [`result`] or [`sys`].
    fn handle(&self) -> &sys::cublasLtHandle_t;

    /// The workspace cuBLASLt may use.
    fn workspace(&self) -> &Workspace;

    /// The stream every matmul is queued on.
    fn stream(&self) -> &Arc<CudaStream>;
}

/// The shape of one matmul, `C = act(alpha * op(A) * op(B) + beta * C + bias)`, in cuBLASLt's
/// column-major terms: `op(A)` is `m x k`, `op(B)` is `k x n`, `C` is `m x n`.
#[derive(Debug, Copy, Clone)]
pub struct MatmulConfig {
    /// Transpose `A`.
    pub transa: bool,
    /// Transpose `B`.
    pub transb: bool,
    /// Transpose `C` (cuBLASLt's `TRANSC` attribute).
    pub transc: bool,
    /// Rows of `op(A)` and `C`.
    pub m: u64,
    /// Columns of `op(B)` and `C`.
    pub n: u64,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: u64,
    /// Scales the product.
    pub alpha: f32,
    /// Leading dimension of `A`.
    pub lda: i64,
    /// Leading dimension of `B`.
    pub ldb: i64,
    /// Scales `C`'s old value (0: `C` is only written).
    pub beta: f32,
    /// Leading dimension of `C`.
    pub ldc: i64,
    /// Elements from one `A` to the next (with `batch_size`).
    pub stride_a: Option<i64>,
    /// Elements from one `B` to the next (with `batch_size`).
    pub stride_b: Option<i64>,
    /// Elements from one `C` to the next (with `batch_size`).
    pub stride_c: Option<i64>,
    /// Elements from one bias vector to the next.
    pub stride_bias: Option<i64>,
    /// How many matmuls (with the strides).
    pub batch_size: Option<c_int>,
}

/// Matrix-matrix multiplication of elements of type `T`, queued on the handle's stream.
pub trait Matmul<T>: MatmulShared {
    /// cuBLASLt's data type for `T`.
    fn matrix_type() -> sys::cudaDataType;

    /// The compute type used for `T` (f32 with TF32 tensor cores for f32, f32 for f16 and
    /// bf16, as in cudarc).
    fn compute_type() -> sys::cublasComputeType_t;

    /// `c = act(alpha * op(a) * op(b) + beta * c + bias)`, with f32 scalars, the algorithm
    /// chosen by cuBLASLt's heuristic within the workspace.
    ///
    /// # Safety
    /// The sizes, leading dimensions, strides and batch size in `cfg` stay inside `a`, `b`,
    /// `c` and `bias` (cuBLASLt reads and writes what they describe, unchecked); `bias` has
    /// `m` elements per batch.
    ///
    /// # Errors
    /// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for an inconsistent shape;
    /// `CUBLAS_STATUS_NOT_SUPPORTED` when no algorithm fits).
    unsafe fn matmul<I: DevicePtr<T>, O: DevicePtrMut<T>>(
        &self,
        cfg: MatmulConfig,
        a: &I,
        b: &I,
        c: &mut O,
        bias: Option<&I>,
        act: Option<&Activation>,
    ) -> Result<(), CublasError> {
        let stream = self.stream();
        let ctx = stream.context();
        ctx.record_err(ctx.bind_to_thread());
        let workspace = self.workspace();

        let (a_rows, a_cols) = if cfg.transa {
            (cfg.k, cfg.m)
        } else {
            (cfg.m, cfg.k)
        };
        let (b_rows, b_cols) = if cfg.transb {
            (cfg.n, cfg.k)
        } else {
            (cfg.k, cfg.n)
        };
        let a_layout = MatrixLayout::new(Self::matrix_type(), a_rows, a_cols, cfg.lda)?;
        let b_layout = MatrixLayout::new(Self::matrix_type(), b_rows, b_cols, cfg.ldb)?;
        let c_layout = MatrixLayout::new(Self::matrix_type(), cfg.m, cfg.n, cfg.ldc)?;
        for (layout, stride) in [
            (&a_layout, cfg.stride_a),
            (&b_layout, cfg.stride_b),
            (&c_layout, cfg.stride_c),
        ] {
            if let (Some(size), Some(stride)) = (cfg.batch_size, stride) {
                layout.set_batch(size, stride)?;
            }
        }

        // f32 scalars for every T, as cudarc's `alpha: f32`.
        let desc = MatmulDesc::new(Self::compute_type(), sys::cudaDataType_t::CUDA_R_32F)?;
        desc.set_transpose(cfg.transa, Matrix::A)?;
        desc.set_transpose(cfg.transb, Matrix::B)?;
        desc.set_transpose(cfg.transc, Matrix::C)?;
        let (bias, _record_bias) = bias.map(|b| b.device_ptr(stream)).unzip();
        desc.set_epilogue(act, bias.as_ref(), cfg.stride_bias)?;

        let pref = MatmulPref::new()?;
        pref.set_workspace_size(workspace.size)?;
        // SAFETY: every descriptor is live (owned above), the handle while `self` is.
        let heuristic = unsafe {
            result::get_matmul_algo_heuristic(
                *self.handle(),
                desc.handle,
                a_layout.handle,
                b_layout.handle,
                c_layout.handle,
                c_layout.handle,
                pref.handle,
            )
        }?;

        let (a, _record_a) = a.device_ptr(stream);
        let (b, _record_b) = b.device_ptr(stream);
        let (c, _record_c) = c.device_ptr_mut(stream);
        let (w, _record_w) = workspace.buffer.device_ptr(stream);
        // SAFETY: the caller's contract for the slices' extents; the descriptors, handle and
        // algorithm are live; the scalars are f32 locals (the descriptor's scale type); the
        // workspace holds `workspace.size` bytes; the guards keep the pointers' event records
        // until the matmul is queued. C is both input and output, as cuBLASLt allows in place.
        unsafe {
            result::matmul(
                *self.handle(),
                desc.handle,
                (&cfg.alpha as *const f32).cast(),
                (&cfg.beta as *const f32).cast(),
                a as *const _,
                a_layout.handle,
                b as *const _,
                b_layout.handle,
                c as *const _,
                c_layout.handle,
                c as *mut _,
                c_layout.handle,
                &heuristic.algo,
                w as *mut _,
                workspace.size,
                stream.cu_stream(),
            )
        }
    }
}

impl MatmulShared for CudaBlasLT {
    fn handle(&self) -> &sys::cublasLtHandle_t {
        &self.handle
    }

    fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl Matmul<f32> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_32F
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
    }
}

#[cfg(feature = "f16")]
impl Matmul<half::f16> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_16F
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(feature = "f16")]
impl Matmul<half::bf16> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_16BF
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}
