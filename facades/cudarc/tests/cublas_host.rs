//! cudarc's `cublas::{sys, result}` layers on the CUDA backend without a GPU, against the real
//! libcublas of the pinned wheel (CUDA_PATH): the library loads and answers its host-side
//! queries, every `result` wrapper turns cuBLAS's status into `CublasError` (a null handle is
//! `CUBLAS_STATUS_NOT_INITIALIZED`, never a crash), and a handle cannot be made without a GPU.
//! GEMMs need a GPU: cudarc's own cublas tests cover them (`ci/cudarc-unit-tests.sh`).
//! Under `CI=true` a missing cuBLAS fails instead of skipping.

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

use anycuda::{BackendChoice, BackendKind};
use core::ptr::{null, null_mut};
use cudarc::cublas::result::{self, CublasError};
use cudarc::cublas::sys;

/// Selects the CUDA backend and points cuBLAS at the pinned wheel's library when none is named;
/// `false` (skip) when cuBLAS is missing off CI.
fn setup() -> bool {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wheel = root.join(".cache/inputs/cuda/nvidia/cu13/lib/libcublas.so.13");
    anycuda_test::env::default_library("ANYCUDA_CUBLAS_LIBRARY", &wheel);
    match anycuda::select(BackendChoice::Only(BackendKind::Cuda)) {
        Ok(()) | Err(anycuda::SelectError::FirstUseFailed(_)) => {}
        Err(e) => panic!("select: {e}"),
    }
    match anycuda::cublas::library() {
        Ok(_) => true,
        Err(e) => {
            let on_ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(!on_ci, "cuBLAS missing under CI=true: {e}");
            eprintln!("SKIP: cuBLAS not available: {e}");
            false
        }
    }
}

const NOT_INIT: CublasError = CublasError(sys::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);

#[test]
fn the_library_loads_and_answers_host_queries() {
    if !setup() {
        return;
    }
    // SAFETY: takes no pointer.
    assert!(unsafe { sys::is_culib_present() });
    let info = anycuda::cublas::library().unwrap().info();
    assert_eq!(info.name, "cuBLAS");

    // The library's properties agree with the version the loader read.
    let v = info.version;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: valid out-pointers.
    unsafe {
        sys::cublasGetProperty(sys::libraryPropertyType_t::MAJOR_VERSION, &mut major)
            .result()
            .unwrap();
        sys::cublasGetProperty(sys::libraryPropertyType_t::MINOR_VERSION, &mut minor)
            .result()
            .unwrap();
    }
    assert_eq!((major, minor), (v / 10_000, v / 100 % 100), "{v}");
    assert_eq!(major, 13, "the pinned wheel is cuBLAS 13");

    // cuBLAS's own name for a status, from the library.
    // SAFETY: a status value; the library returns a static C string.
    let name = unsafe {
        std::ffi::CStr::from_ptr(sys::cublasGetStatusName(
            sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
        ))
    };
    assert_eq!(name.to_str().unwrap(), "CUBLAS_STATUS_INVALID_VALUE");
}

#[test]
fn a_handle_without_a_gpu_is_an_error_not_a_crash() {
    if !setup() {
        return;
    }
    if matches!(cudarc::driver::CudaContext::device_count(), Ok(n) if n > 0) {
        eprintln!("SKIP: a device is present; this checks the no-device path");
        return;
    }
    let e = result::create_handle().expect_err("no GPU: no cuBLAS handle");
    assert_ne!(e.0, sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS);
    assert!(e.to_string().contains("CUBLAS_STATUS_"), "{e}");
}

/// Every wrapper passes cuBLAS's answer back as `Err`: a null handle is refused
/// (`CUBLAS_STATUS_NOT_INITIALIZED`) before any memory is touched.
#[test]
fn every_wrapper_returns_the_status_of_a_null_handle() {
    if !setup() {
        return;
    }
    let h: sys::cublasHandle_t = null_mut();
    let n = sys::cublasOperation_t::CUBLAS_OP_N;
    let (one_f, one_d) = (1f32, 1f64);
    let (mut out_f, mut out_d) = (0f32, 0f64);
    let (pf, pd) = (null::<f32>(), null::<f64>());
    let (mf, md) = (null_mut::<f32>(), null_mut::<f64>());
    let r16 = sys::cudaDataType_t::CUDA_R_16F;
    let c32 = sys::cublasComputeType_t::CUBLAS_COMPUTE_32F;
    let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP;
    let scal = (&one_f as *const f32).cast();
    // SAFETY: a null handle is answered before cuBLAS reads any other argument (anycuda's raw
    // layer refuses it); the scalars and results are live locals.
    let answers = unsafe {
        [
            ("destroy_handle", result::destroy_handle(h)),
            ("set_stream", result::set_stream(h, null_mut())),
            (
                "sgemv",
                result::sgemv(h, n, 2, 2, &one_f, pf, 2, pf, 1, &one_f, mf, 1),
            ),
            (
                "dgemv",
                result::dgemv(h, n, 2, 2, &one_d, pd, 2, pd, 1, &one_d, md, 1),
            ),
            (
                "sgemm",
                result::sgemm(h, n, n, 2, 2, 2, &one_f, pf, 2, pf, 2, &one_f, mf, 2),
            ),
            (
                "dgemm",
                result::dgemm(h, n, n, 2, 2, 2, &one_d, pd, 2, pd, 2, &one_d, md, 2),
            ),
            (
                "sgemm_strided_batched",
                result::sgemm_strided_batched(
                    h, n, n, 2, 2, 2, &one_f, pf, 2, 4, pf, 2, 4, &one_f, mf, 2, 4, 3,
                ),
            ),
            (
                "dgemm_strided_batched",
                result::dgemm_strided_batched(
                    h, n, n, 2, 2, 2, &one_d, pd, 2, 4, pd, 2, 4, &one_d, md, 2, 4, 3,
                ),
            ),
            (
                "gemm_ex",
                result::gemm_ex(
                    h,
                    n,
                    n,
                    2,
                    2,
                    2,
                    scal,
                    null(),
                    r16,
                    2,
                    null(),
                    r16,
                    2,
                    scal,
                    null_mut(),
                    r16,
                    2,
                    c32,
                    algo,
                ),
            ),
            (
                "gemm_strided_batched_ex",
                result::gemm_strided_batched_ex(
                    h,
                    n,
                    n,
                    2,
                    2,
                    2,
                    scal,
                    null(),
                    r16,
                    2,
                    4,
                    null(),
                    r16,
                    2,
                    4,
                    scal,
                    null_mut(),
                    r16,
                    2,
                    4,
                    3,
                    c32,
                    algo,
                ),
            ),
            ("sasum", result::sasum(h, 2, pf, 1, &mut out_f)),
            ("dasum", result::dasum(h, 2, pd, 1, &mut out_d)),
        ]
    };
    for (name, r) in answers {
        assert_eq!(r, Err(NOT_INIT), "{name}");
    }
    assert_eq!((out_f, out_d), (0.0, 0.0), "nothing was written");
    let e = NOT_INIT.to_string();
    assert!(e.contains("CUBLAS_STATUS_NOT_INITIALIZED"), "{e}");
}

/// The half-precision wrappers reach `cublasHgemm`/`cublasHgemmStridedBatched`, which cuBLAS
/// declares for C++ only (cudarc opens libcublas by hand for them).
#[cfg(feature = "f16")]
#[test]
fn half_wrappers_reach_the_cpp_only_entry_points() {
    if !setup() {
        return;
    }
    let h: sys::cublasHandle_t = null_mut();
    let n = sys::cublasOperation_t::CUBLAS_OP_N;
    let one = half::f16::ONE;
    let (p, m) = (null::<half::f16>(), null_mut::<half::f16>());
    // SAFETY: a null handle is answered before any other argument is read.
    let (g, b) = unsafe {
        (
            result::hgemm(h, n, n, 2, 2, 2, &one, p, 2, p, 2, &one, m, 2),
            result::hgemm_strided_batched(
                h, n, n, 2, 2, 2, &one, p, 2, 4, p, 2, 4, &one, m, 2, 4, 3,
            ),
        )
    };
    assert_eq!(g, Err(NOT_INIT));
    assert_eq!(b, Err(NOT_INIT));
    // The entry points exist in the loaded library (else the answer would be NOT_SUPPORTED).
    let (loaded, total) = anycuda::cublas::library().unwrap().info().entry_points;
    assert_eq!(loaded, total);
}

#[cfg(feature = "f16")]
#[test]
fn grouped_gemm_config_counts_and_checks() {
    use cudarc::cublas::GroupedGemmConfig;
    let op = sys::cublasOperation_t::CUBLAS_OP_N;
    let mut cfg = GroupedGemmConfig::<half::bf16> {
        transbs: vec![op; 2],
        transas: vec![op; 2],
        ms: vec![2, 3],
        ns: vec![2, 3],
        ks: vec![2, 3],
        alphas: vec![1.0; 2],
        betas: vec![0.0; 2],
        ldas: vec![2, 3],
        ldbs: vec![2, 3],
        ldcs: vec![2, 3],
        problem_sizes: vec![2, 1],
    };
    assert_eq!((cfg.group_count(), cfg.problem_count()), (2, 3));
    assert!(cfg.is_consistent());
    cfg.validate();
    cfg.ldcs.pop();
    assert!(!cfg.is_consistent());
    let r = std::panic::catch_unwind(|| cfg.validate());
    assert!(r.is_err(), "validate asserts, as cudarc's does");
}
