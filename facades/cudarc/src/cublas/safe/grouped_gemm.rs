//! [`GroupedGemm`]: many GEMMs of different shapes in one call (`cublasGemmGroupedBatchedEx`,
//! cuBLAS 12.5 and later), with [`GroupedGemmConfig`]; f16 and bf16 under the `f16` feature, as
//! in cudarc.
//!
//! cuBLAS reads the per-problem matrix pointers from device memory: the facade copies them to a
//! device buffer on the handle's stream (cudarc's documented "htod copy"; its code passes host
//! arrays), freed in stream order after the call. The per-group arrays (operations, sizes,
//! leading dimensions, scalars, group sizes) are read from the host.

use super::sys;
use crate::cublas::{result::CublasError, CudaBlas};
use crate::driver::{DevicePtr, DevicePtrMut, DeviceRepr, DriverError};
use core::ffi::{c_int, c_void};

/// An element type [`GroupedGemm`] multiplies, with its cuBLAS data type and the compute type
/// (and so the scalar type) it accumulates in.
pub trait GroupedGemmDtype: DeviceRepr {
    /// The type of `alpha` and `beta` for [`GroupedGemmDtype::compute_type`].
    type ComputeType: DeviceRepr + Copy;

    /// The cuBLAS data type of A, B and C.
    fn data_type() -> sys::cudaDataType_t;
    /// The cuBLAS compute type.
    fn compute_type() -> sys::cublasComputeType_t;
}

#[cfg(feature = "f16")]
impl GroupedGemmDtype for half::f16 {
    type ComputeType = f32;

    fn data_type() -> sys::cudaDataType_t {
        sys::cudaDataType_t::CUDA_R_16F
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(feature = "f16")]
impl GroupedGemmDtype for half::bf16 {
    type ComputeType = f32;

    fn data_type() -> sys::cudaDataType_t {
        sys::cudaDataType_t::CUDA_R_16BF
    }

    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

/// Groups of GEMMs: within group `g`, `problem_sizes[g]` problems share `transas[g]`, `ms[g]`,
/// ..., `ldcs[g]`. Every `Vec` but `problem_sizes` has one entry per group.
#[derive(Debug, Clone)]
pub struct GroupedGemmConfig<T: GroupedGemmDtype> {
    /// `op(B)` for each group.
    pub transbs: Vec<sys::cublasOperation_t>,
    /// `op(A)` for each group.
    pub transas: Vec<sys::cublasOperation_t>,
    /// Rows of `op(A)` and `C` for each group.
    pub ms: Vec<usize>,
    /// Columns of `op(B)` and `C` for each group.
    pub ns: Vec<usize>,
    /// Columns of `op(A)`, rows of `op(B)` for each group.
    pub ks: Vec<usize>,
    /// `alpha` for each group, of the compute type's scalar type.
    pub alphas: Vec<T::ComputeType>,
    /// `beta` for each group, of the compute type's scalar type.
    pub betas: Vec<T::ComputeType>,
    /// Leading dimension of A for each group.
    pub ldas: Vec<usize>,
    /// Leading dimension of B for each group.
    pub ldbs: Vec<usize>,
    /// Leading dimension of C for each group.
    pub ldcs: Vec<usize>,
    /// Number of problems in each group.
    pub problem_sizes: Vec<usize>,
}

impl<T: GroupedGemmDtype> GroupedGemmConfig<T> {
    /// The number of problems (matrices A, B and C each), over all groups.
    pub fn problem_count(&self) -> usize {
        self.problem_sizes.iter().sum()
    }

    /// The number of groups.
    pub fn group_count(&self) -> usize {
        self.problem_sizes.len()
    }

    /// Whether every per-group `Vec` has one entry per group.
    pub fn is_consistent(&self) -> bool {
        let g = self.group_count();
        [
            self.transbs.len(),
            self.transas.len(),
            self.ms.len(),
            self.ns.len(),
            self.ks.len(),
            self.alphas.len(),
            self.betas.len(),
            self.ldas.len(),
            self.ldbs.len(),
            self.ldcs.len(),
        ]
        .iter()
        .all(|&n| n == g)
    }

    /// Asserts [`GroupedGemmConfig::is_consistent`], as cudarc's `validate` does.
    /// [`GroupedGemm::grouped_gemm`] does not call it: it answers an inconsistent config with
    /// `CUBLAS_STATUS_INVALID_VALUE` instead.
    ///
    /// # Panics
    /// When a per-group `Vec` does not have one entry per group.
    #[inline]
    pub fn validate(&self) {
        assert!(
            self.is_consistent(),
            "GroupedGemmConfig: every per-group Vec needs {} entries",
            self.group_count()
        );
    }
}

/// Grouped GEMM of elements of type `T`, queued on the handle's stream.
pub trait GroupedGemm<T: GroupedGemmDtype> {
    /// Runs every problem of `config`: problem `i` (counted through the groups in order)
    /// multiplies `a_slices[i]` by `b_slices[i]` into `c_slices[i]`.
    ///
    /// # Safety
    /// Each problem's sizes and leading dimensions stay inside its slices.
    ///
    /// # Errors
    /// `CUBLAS_STATUS_INVALID_VALUE` for an inconsistent config, slice counts other than
    /// [`GroupedGemmConfig::problem_count`], or a size beyond `i32` (cudarc panics or
    /// truncates); `CUBLAS_STATUS_ALLOC_FAILED` when the pointer arrays cannot be copied to the
    /// device; cuBLAS's error (`CUBLAS_STATUS_NOT_SUPPORTED` from a library older than 12.5).
    unsafe fn grouped_gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        config: GroupedGemmConfig<T>,
        a_slices: &[&A],
        b_slices: &[&B],
        c_slices: &mut [&mut C],
    ) -> Result<(), CublasError>;
}

fn invalid() -> CublasError {
    CublasError(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE)
}

/// `v` as C ints, or `CUBLAS_STATUS_INVALID_VALUE` for a value beyond `i32`.
fn ints(v: &[usize]) -> Result<Vec<c_int>, CublasError> {
    v.iter()
        .map(|&x| c_int::try_from(x).map_err(|_| invalid()))
        .collect()
}

/// The pointer arrays could not reach the device: cuBLAS has no status for a driver error, so
/// `CUBLAS_STATUS_ALLOC_FAILED` (what cuBLAS answers when its own device memory fails), with
/// the driver's error logged.
#[cold]
fn copy_failed(e: DriverError) -> CublasError {
    log::warn!("anycuda-cudarc cublas: grouped_gemm's pointer arrays: {e:?}");
    CublasError(sys::cublasStatus_t::CUBLAS_STATUS_ALLOC_FAILED)
}

impl<T: GroupedGemmDtype> GroupedGemm<T> for CudaBlas {
    unsafe fn grouped_gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        config: GroupedGemmConfig<T>,
        a_slices: &[&A],
        b_slices: &[&B],
        c_slices: &mut [&mut C],
    ) -> Result<(), CublasError> {
        let problems = config.problem_count();
        if !config.is_consistent()
            || a_slices.len() != problems
            || b_slices.len() != problems
            || c_slices.len() != problems
        {
            return Err(invalid());
        }
        let ms = ints(&config.ms)?;
        let ns = ints(&config.ns)?;
        let ks = ints(&config.ks)?;
        let ldas = ints(&config.ldas)?;
        let ldbs = ints(&config.ldbs)?;
        let ldcs = ints(&config.ldcs)?;
        let group_sizes = ints(&config.problem_sizes)?;
        let group_count = c_int::try_from(config.group_count()).map_err(|_| invalid())?;
        if problems == 0 {
            // Nothing to multiply (and no pointer array to copy).
            return Ok(());
        }

        self.bind();
        let stream = &self.stream;
        // Every problem's A, then every B, then every C: one copy, three arrays.
        let mut ptrs = Vec::with_capacity(3 * problems);
        let mut guards = Vec::with_capacity(3 * problems);
        for s in a_slices {
            let (p, g) = s.device_ptr(stream);
            ptrs.push(p);
            guards.push(g);
        }
        for s in b_slices {
            let (p, g) = s.device_ptr(stream);
            ptrs.push(p);
            guards.push(g);
        }
        for s in c_slices.iter_mut() {
            let (p, g) = s.device_ptr_mut(stream);
            ptrs.push(p);
            guards.push(g);
        }
        let on_device = stream.clone_htod(&ptrs).map_err(copy_failed)?;
        let (base, _record_ptrs) = on_device.device_ptr(stream);
        let array = |i: usize| (base as usize + i * problems * size_of::<u64>()) as *const c_void;
        let data = T::data_type();
        // SAFETY: a live handle on the stream's (bound) context. The three pointer arrays are
        // `problems` device pointers each, in `on_device`, whose free is ordered after this
        // call on the same stream; the slices they point to are kept in order by `guards`. The
        // per-group host arrays have `group_count` entries each (checked above) and live on
        // this frame for the call; the scalars are `T::ComputeType`, what the compute type reads.
        // The extents of each problem are the caller's contract.
        let r = unsafe {
            sys::cublasGemmGroupedBatchedEx(
                self.handle,
                config.transas.as_ptr(),
                config.transbs.as_ptr(),
                ms.as_ptr(),
                ns.as_ptr(),
                ks.as_ptr(),
                config.alphas.as_ptr().cast(),
                array(0).cast(),
                data,
                ldas.as_ptr(),
                array(1).cast(),
                data,
                ldbs.as_ptr(),
                config.betas.as_ptr().cast(),
                array(2).cast_mut().cast(),
                data,
                ldcs.as_ptr(),
                group_count,
                group_sizes.as_ptr(),
                T::compute_type(),
            )
        };
        drop(guards);
        r.result()
    }
}
