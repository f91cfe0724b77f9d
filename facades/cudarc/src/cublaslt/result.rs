//! One `Result` per cuBLASLt call, with cudarc 0.19.10's names and signatures: the handle's life
//! ([`create_handle`], [`destroy_handle`]), matrix layouts, matmul descriptors, preferences, the
//! heuristic ([`get_matmul_algo_heuristic`]) and [`matmul`].
//!
//! Hand-written, as the `cublas` and `curand` modules' are: these are plain pass-throughs, and
//! the generator in `codegen/src/emit_cudarc.rs` is built on the driver's catalogue.
//!
//! [`CublasError`] is anycuda's, the one `cublas::result` has too: cuBLASLt returns cuBLAS's
//! `cublasStatus_t` (cudarc defines a second, identical type here).
//!
//! # Safety (every `unsafe` function)
//! Handles and descriptors are live (created, not destroyed); `buf` points to `buf_size`
//! readable bytes; `a`, `b`, `c`, `d` and `workspace` are device pointers to memory that holds
//! what the layouts and `workspace_size` describe; `alpha` and `beta` point to host memory of the
//! descriptor's scale type. Nothing else writes the memory while the queued work runs.

use super::sys;
use core::ffi::c_void;

pub use anycuda::cublaslt::CublasError;

/// A cuBLASLt handle (`cublasLtCreate`).
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_NOT_INITIALIZED` without a GPU).
pub fn create_handle() -> Result<sys::cublasLtHandle_t, CublasError> {
    let mut handle: sys::cublasLtHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; nothing else is passed.
    unsafe { sys::cublasLtCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// Destroys a handle made by [`create_handle`] (`cublasLtDestroy`).
///
/// # Safety
/// `handle` is live, and not used after this call.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for a null handle).
pub unsafe fn destroy_handle(handle: sys::cublasLtHandle_t) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtDestroy(handle) }.result()
}

/// A layout of a `rows x cols` matrix of `matrix_type` with leading dimension `ld`
/// (`cublasLtMatrixLayoutCreate`). Needs no GPU.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for a leading dimension too small).
pub fn create_matrix_layout(
    matrix_type: sys::cudaDataType,
    rows: u64,
    cols: u64,
    ld: i64,
) -> Result<sys::cublasLtMatrixLayout_t, CublasError> {
    let mut layout: sys::cublasLtMatrixLayout_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; the rest are values cuBLASLt checks.
    unsafe { sys::cublasLtMatrixLayoutCreate(&mut layout, matrix_type, rows, cols, ld) }
        .result()?;
    Ok(layout)
}

/// Sets one attribute of a matrix layout (`cublasLtMatrixLayoutSetAttribute`).
///
/// # Safety
/// `matrix_layout` is live; `buf` points to `buf_size` readable bytes.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for a size that does not fit the attribute).
pub unsafe fn set_matrix_layout_attribute(
    matrix_layout: sys::cublasLtMatrixLayout_t,
    attr: sys::cublasLtMatrixLayoutAttribute_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatrixLayoutSetAttribute(matrix_layout, attr, buf, buf_size) }.result()
}

/// Destroys a layout made by [`create_matrix_layout`] (`cublasLtMatrixLayoutDestroy`).
///
/// # Safety
/// `matrix_layout` is live (or null), and not used after this call.
///
/// # Errors
/// cuBLASLt's error.
pub unsafe fn destroy_matrix_layout(
    matrix_layout: sys::cublasLtMatrixLayout_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatrixLayoutDestroy(matrix_layout) }.result()
}

/// A matmul descriptor computing in `compute_type` with scalars of `scale_type`
/// (`cublasLtMatmulDescCreate`). Needs no GPU.
///
/// # Errors
/// cuBLASLt's error.
pub fn create_matmul_desc(
    compute_type: sys::cublasComputeType_t,
    scale_type: sys::cudaDataType,
) -> Result<sys::cublasLtMatmulDesc_t, CublasError> {
    let mut desc: sys::cublasLtMatmulDesc_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; the types are values cuBLASLt checks.
    unsafe { sys::cublasLtMatmulDescCreate(&mut desc, compute_type, scale_type) }.result()?;
    Ok(desc)
}

/// Sets one attribute of a matmul descriptor (`cublasLtMatmulDescSetAttribute`).
///
/// # Safety
/// `matmul_desc` is live; `buf` points to `buf_size` readable bytes.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for a size that does not fit the attribute).
pub unsafe fn set_matmul_desc_attribute(
    matmul_desc: sys::cublasLtMatmulDesc_t,
    attr: sys::cublasLtMatmulDescAttributes_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatmulDescSetAttribute(matmul_desc, attr, buf, buf_size) }.result()
}

/// Destroys a descriptor made by [`create_matmul_desc`] (`cublasLtMatmulDescDestroy`).
///
/// # Safety
/// `matmul_desc` is live (or null), and not used after this call.
///
/// # Errors
/// cuBLASLt's error.
pub unsafe fn destroy_matmul_desc(
    matmul_desc: sys::cublasLtMatmulDesc_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatmulDescDestroy(matmul_desc) }.result()
}

/// Heuristic search preferences (`cublasLtMatmulPreferenceCreate`). Needs no GPU.
///
/// # Errors
/// cuBLASLt's error.
pub fn create_matmul_pref() -> Result<sys::cublasLtMatmulPreference_t, CublasError> {
    let mut pref: sys::cublasLtMatmulPreference_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    unsafe { sys::cublasLtMatmulPreferenceCreate(&mut pref) }.result()?;
    Ok(pref)
}

/// Sets one search preference (`cublasLtMatmulPreferenceSetAttribute`).
///
/// # Safety
/// `matmul_pref` is live; `buf` points to `buf_size` readable bytes.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_INVALID_VALUE` for a size that does not fit the attribute).
pub unsafe fn set_matmul_pref_attribute(
    matmul_pref: sys::cublasLtMatmulPreference_t,
    attr: sys::cublasLtMatmulPreferenceAttributes_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatmulPreferenceSetAttribute(matmul_pref, attr, buf, buf_size) }.result()
}

/// Destroys preferences made by [`create_matmul_pref`] (`cublasLtMatmulPreferenceDestroy`).
///
/// # Safety
/// `matmul_pref` is live (or null), and not used after this call.
///
/// # Errors
/// cuBLASLt's error.
pub unsafe fn destroy_matmul_pref(
    matmul_pref: sys::cublasLtMatmulPreference_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cublasLtMatmulPreferenceDestroy(matmul_pref) }.result()
}

/// The fastest algorithm cuBLASLt's heuristic finds for `D = alpha * op(A) * op(B) + beta * C`
/// with these layouts (`cublasLtMatmulAlgoGetHeuristic`, asking for one result).
///
/// # Safety
/// Every handle, descriptor, layout and the preferences are live.
///
/// # Errors
/// cuBLASLt's error; `CUBLAS_STATUS_NOT_SUPPORTED` when no algorithm fits (as in cudarc), or
/// the result's own failed state.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_matmul_algo_heuristic(
    handle: sys::cublasLtHandle_t,
    matmul_desc: sys::cublasLtMatmulDesc_t,
    a_layout: sys::cublasLtMatrixLayout_t,
    b_layout: sys::cublasLtMatrixLayout_t,
    c_layout: sys::cublasLtMatrixLayout_t,
    d_layout: sys::cublasLtMatrixLayout_t,
    matmul_pref: sys::cublasLtMatmulPreference_t,
) -> Result<sys::cublasLtMatmulHeuristicResult_t, CublasError> {
    // Zeroed rather than uninitialised: the result is read only when cuBLASLt reports one, but
    // a zeroed struct costs nothing and is a valid value of every field.
    let mut heuristic = core::mem::MaybeUninit::<sys::cublasLtMatmulHeuristicResult_t>::zeroed();
    let mut count = 0;
    // SAFETY: the caller's contract for the handles; room for one result and a valid count.
    unsafe {
        sys::cublasLtMatmulAlgoGetHeuristic(
            handle,
            matmul_desc,
            a_layout,
            b_layout,
            c_layout,
            d_layout,
            matmul_pref,
            1,
            heuristic.as_mut_ptr(),
            &mut count,
        )
    }
    .result()?;
    if count == 0 {
        return Err(CublasError(
            sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        ));
    }
    // SAFETY: all-zero bytes are a valid result (plain integers, floats and arrays of them), and
    // cuBLASLt filled it in (count is 1).
    let heuristic = unsafe { heuristic.assume_init() };
    heuristic.state.result()?;
    Ok(heuristic)
}

/// `D = alpha * op(A) * op(B) + beta * C`, queued on `stream` (`cublasLtMatmul`). The argument
/// order is cudarc's (`alpha`, `beta` first), not the C function's.
///
/// # Safety
/// See the [module](self); `algo` is null or points to an algorithm for these descriptors.
///
/// # Errors
/// cuBLASLt's error (`CUBLAS_STATUS_NOT_INITIALIZED` for a null handle).
#[allow(clippy::too_many_arguments)]
pub unsafe fn matmul(
    handle: sys::cublasLtHandle_t,
    matmul_desc: sys::cublasLtMatmulDesc_t,
    alpha: *const c_void,
    beta: *const c_void,
    a: *const c_void,
    a_layout: sys::cublasLtMatrixLayout_t,
    b: *const c_void,
    b_layout: sys::cublasLtMatrixLayout_t,
    c: *const c_void,
    c_layout: sys::cublasLtMatrixLayout_t,
    d: *mut c_void,
    d_layout: sys::cublasLtMatrixLayout_t,
    algo: *const sys::cublasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspace_size: usize,
    stream: sys::cudaStream_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    unsafe {
        sys::cublasLtMatmul(
            handle,
            matmul_desc,
            alpha,
            a,
            a_layout,
            b,
            b_layout,
            beta,
            c,
            c_layout,
            d,
            d_layout,
            algo,
            workspace,
            workspace_size,
            stream,
        )
    }
    .result()
}
