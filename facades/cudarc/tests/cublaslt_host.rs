//! cudarc's `cublaslt::{sys, result}` layers on the CUDA backend without a GPU, against the real
//! libcublasLt of the pinned wheel (CUDA_PATH): the library loads and answers its host-side
//! queries, descriptors, layouts and preferences are made, set, read back and destroyed through
//! the `result` wrappers (none of that needs a GPU), a null handle is cuBLASLt's
//! `CUBLAS_STATUS_NOT_INITIALIZED` or `CUBLAS_STATUS_INVALID_VALUE` as an `Err`, never a crash,
//! and a handle cannot be made without a GPU. Matmuls need a GPU: cudarc's own cublaslt tests
//! cover them (`ci/cudarc-unit-tests.sh`). Under `CI=true` a missing cuBLASLt fails instead of
//! skipping.

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

use anycuda::{BackendChoice, BackendKind};
use core::ffi::c_void;
use core::ptr::{null, null_mut};
use cudarc::cublaslt::result::{self, CublasError};
use cudarc::cublaslt::sys;

/// Selects the CUDA backend and points cuBLASLt at the pinned wheel's library when none is
/// named; `false` (skip) when cuBLASLt is missing off CI.
fn setup() -> bool {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wheel = root.join(".cache/inputs/cuda/nvidia/cu13/lib/libcublasLt.so.13");
    anycuda_test::env::default_library("ANYCUDA_CUBLASLT_LIBRARY", &wheel);
    match anycuda::select(BackendChoice::Only(BackendKind::Cuda)) {
        Ok(()) | Err(anycuda::SelectError::FirstUseFailed(_)) => {}
        Err(e) => panic!("select: {e}"),
    }
    match anycuda::cublaslt::library() {
        Ok(_) => true,
        Err(e) => {
            let on_ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(!on_ci, "cuBLASLt missing under CI=true: {e}");
            eprintln!("SKIP: cuBLASLt not available: {e}");
            false
        }
    }
}

fn err(s: sys::cublasStatus_t) -> Result<(), CublasError> {
    Err(CublasError(s))
}

#[test]
fn the_library_loads_and_answers_host_queries() {
    if !setup() {
        return;
    }
    // SAFETY: takes no pointer.
    assert!(unsafe { sys::is_culib_present() });
    let info = anycuda::cublaslt::library().unwrap().info();
    assert_eq!(info.name, "cuBLASLt");
    assert!(info.path.ends_with("libcublasLt.so.13"), "{}", info.path);
    // SAFETY: no arguments.
    let v = unsafe { sys::cublasLtGetVersion() };
    assert_eq!(v as i64, i64::from(info.version));
    assert_eq!(v / 10_000, 13, "the pinned wheel is cuBLASLt 13: {v}");
    // cuBLASLt's own name for a status, from the library.
    // SAFETY: a status value; the library returns a static C string.
    let name = unsafe {
        std::ffi::CStr::from_ptr(sys::cublasLtGetStatusName(
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
    let e = result::create_handle().expect_err("no GPU: no cuBLASLt handle");
    assert_eq!(e.0, sys::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    assert!(
        e.to_string().contains("CUBLAS_STATUS_NOT_INITIALIZED"),
        "{e}"
    );
}

/// Reads back a 4- or 8-byte attribute of a layout.
fn layout_attr<T: Default>(
    l: sys::cublasLtMatrixLayout_t,
    a: sys::cublasLtMatrixLayoutAttribute_t,
) -> T {
    let mut v = T::default();
    let mut written = 0usize;
    // SAFETY: a live layout (the caller's); `v` has `size_of::<T>()` writable bytes.
    unsafe {
        sys::cublasLtMatrixLayoutGetAttribute(
            l,
            a,
            (&mut v as *mut T).cast(),
            size_of::<T>(),
            &mut written,
        )
    }
    .result()
    .unwrap();
    assert_eq!(written, size_of::<T>());
    v
}

/// Layouts, matmul descriptors and preferences need no GPU: the wrappers make, set and destroy
/// them against the real library, and what was set reads back.
#[test]
fn descriptors_round_trip_through_the_wrappers() {
    if !setup() {
        return;
    }
    type L = sys::cublasLtMatrixLayoutAttribute_t;
    let layout = result::create_matrix_layout(sys::cudaDataType::CUDA_R_32F, 3, 5, 4).unwrap();
    assert!(!layout.is_null());
    assert_eq!(
        layout_attr::<u64>(layout, L::CUBLASLT_MATRIX_LAYOUT_ROWS),
        3
    );
    assert_eq!(
        layout_attr::<u64>(layout, L::CUBLASLT_MATRIX_LAYOUT_COLS),
        5
    );
    assert_eq!(layout_attr::<i64>(layout, L::CUBLASLT_MATRIX_LAYOUT_LD), 4);
    let (count, stride) = (7i32, 20i64);
    // SAFETY: a live layout; the values are live locals of the attributes' sizes.
    unsafe {
        result::set_matrix_layout_attribute(
            layout,
            L::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&count as *const i32).cast(),
            4,
        )
        .unwrap();
        result::set_matrix_layout_attribute(
            layout,
            L::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
            (&stride as *const i64).cast(),
            8,
        )
        .unwrap();
    }
    assert_eq!(
        layout_attr::<i32>(layout, L::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT),
        7
    );
    assert_eq!(
        layout_attr::<i64>(layout, L::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET),
        20
    );
    // A size that does not fit the attribute is cuBLASLt's INVALID_VALUE, as an `Err`.
    // SAFETY: a live layout; 2 readable bytes of a live local.
    let r = unsafe {
        result::set_matrix_layout_attribute(
            layout,
            L::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&count as *const i32).cast(),
            2,
        )
    };
    assert_eq!(r, err(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE));
    // SAFETY: live, not used again.
    unsafe { result::destroy_matrix_layout(layout) }.unwrap();

    type D = sys::cublasLtMatmulDescAttributes_t;
    let desc = result::create_matmul_desc(
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
        sys::cudaDataType::CUDA_R_32F,
    )
    .unwrap();
    let relu_bias = sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS;
    // SAFETY: a live descriptor; a live local of the attribute's size.
    unsafe {
        result::set_matmul_desc_attribute(
            desc,
            D::CUBLASLT_MATMUL_DESC_EPILOGUE,
            (&relu_bias as *const sys::cublasLtEpilogue_t).cast(),
            size_of::<sys::cublasLtEpilogue_t>(),
        )
    }
    .unwrap();
    let mut got = sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_DEFAULT;
    let mut written = 0usize;
    // SAFETY: a live descriptor; `got` has the attribute's size.
    unsafe {
        sys::cublasLtMatmulDescGetAttribute(
            desc,
            D::CUBLASLT_MATMUL_DESC_EPILOGUE,
            (&mut got as *mut sys::cublasLtEpilogue_t).cast(),
            size_of::<sys::cublasLtEpilogue_t>(),
            &mut written,
        )
    }
    .result()
    .unwrap();
    assert_eq!((got, written), (relu_bias, 4));
    // SAFETY: live, not used again.
    unsafe { result::destroy_matmul_desc(desc) }.unwrap();

    let pref = result::create_matmul_pref().unwrap();
    let bytes = 4u64 << 20;
    // SAFETY: live preferences; a live local of the attribute's size (uint64_t).
    unsafe {
        result::set_matmul_pref_attribute(
            pref,
            sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&bytes as *const u64).cast(),
            8,
        )
    }
    .unwrap();
    // SAFETY: live, not used again.
    unsafe { result::destroy_matmul_pref(pref) }.unwrap();
}

/// The wrappers that take a handle pass cuBLASLt's answer to a null one back as `Err`, before
/// any memory is touched.
#[test]
fn the_handle_wrappers_return_the_status_of_a_null_handle() {
    if !setup() {
        return;
    }
    let f32t = sys::cudaDataType::CUDA_R_32F;
    let a = result::create_matrix_layout(f32t, 2, 2, 2).unwrap();
    let desc =
        result::create_matmul_desc(sys::cublasComputeType_t::CUBLAS_COMPUTE_32F, f32t).unwrap();
    let pref = result::create_matmul_pref().unwrap();
    let h: sys::cublasLtHandle_t = null_mut();
    let one = 1f32;
    let scal = (&one as *const f32).cast::<c_void>();
    // SAFETY: the descriptors are live; the null handle is answered before any pointer is read.
    let (heuristic, matmul, destroy) = unsafe {
        (
            result::get_matmul_algo_heuristic(h, desc, a, a, a, a, pref),
            result::matmul(
                h,
                desc,
                scal,
                scal,
                null(),
                a,
                null(),
                a,
                null(),
                a,
                null_mut(),
                a,
                null(),
                null_mut(),
                0,
                null_mut(),
            ),
            result::destroy_handle(h),
        )
    };
    let not_init = sys::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED;
    assert_eq!(heuristic.map(|_| ()), err(not_init));
    assert_eq!(matmul, err(not_init));
    assert_eq!(
        destroy,
        err(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE)
    );
    // A null descriptor is refused too.
    let v = 0u32;
    // SAFETY: the null descriptor is what is tested; 4 readable bytes.
    let r = unsafe {
        result::set_matmul_desc_attribute(
            null_mut(),
            sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
            (&v as *const u32).cast(),
            4,
        )
    };
    assert_eq!(r, err(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE));
    // SAFETY: live, not used again.
    unsafe {
        result::destroy_matrix_layout(a).unwrap();
        result::destroy_matmul_desc(desc).unwrap();
        result::destroy_matmul_pref(pref).unwrap();
    }
}
