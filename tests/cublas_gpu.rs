//! GPU suite for the raw cuBLAS layer (`anycuda::cublas`): cuBLAS on the CUDA backend,
//! hipBLAS on the HIP backend (AMD's, or its NVIDIA build on HIP's NVIDIA platform). Every test
//! is a `#[gpu_test]` (anycuda-test): ignored without a GPU, and never a pass where its need is
//! not met (`not run`, exit status 77); it FAILS without the backend's BLAS library.
//!
//! Each product is checked against a CPU reference computed in f64 from the very values the
//! GPU received (f16/bf16 inputs are rounded first), with the tolerance stated at each check:
//! - f32 SGEMM (IEEE single, k terms): |err| <= 1e-5 * k * max|a| * max|b| + 1e-6;
//! - f64 DGEMM: 1e-12 relative to the same bound;
//! - f16/bf16 inputs with f32 accumulation (`CUBLAS_COMPUTE_32F`): small integers, whose
//!   products and sums are exact in f32, and in the f16/bf16 output (|C| <= 147): the result
//!   must be exact. The `_FAST_TF32` and `_FAST_16BF` modes permit tf32/bf16 products, which
//!   are still exact for these inputs (8-bit integers fit tf32's and bf16's mantissas), so
//!   they must be exact too.
//!
//! On the GPU machine, per backend:
//!   ANYCUDA_BACKEND=cuda .device/tests/cublas_gpu --include-ignored
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so \
//!       ANYCUDA_HIPBLAS_LIBRARY=... .device/tests/cublas_gpu --include-ignored

use anycuda::core::comm::{Bf16, F16};
use anycuda::core::*;
use anycuda::cublas::*;
use anycuda_test::gpu_test;
use core::ffi::c_void;

fn stream() -> Stream {
    Device::new(0)
        .expect("this test needs a GPU")
        .create_stream(StreamOptions::default())
        .expect("stream")
}

/// A cuBLAS handle bound to `s`, destroyed on drop.
struct Handle(cublasHandle_t);

impl Handle {
    fn new(s: &Stream) -> Self {
        let mut h: cublasHandle_t = core::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cublasCreate_v2(&mut h) }
            .result()
            .expect("cublasCreate_v2 (is the backend's BLAS library there?)");
        // SAFETY: a live handle and a live stream of the current context.
        unsafe { cublasSetStream_v2(h, s.as_raw() as cudaStream_t) }
            .result()
            .unwrap();
        Handle(h)
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: created by cublasCreate_v2, destroyed once.
        let r = unsafe { cublasDestroy_v2(self.0) };
        assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_SUCCESS);
    }
}

fn dptr<T: DeviceCopy>(b: &Buffer<T>) -> *const T {
    b.as_raw() as usize as *const T
}

fn dptr_mut<T: DeviceCopy>(b: &mut Buffer<T>) -> *mut T {
    b.as_raw() as usize as *mut T
}

/// A deterministic pseudo-random sequence in [-1, 1) (no dependency, reproducible).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Small integers in [-3, 3]: exact in f16, bf16 and tf32.
fn small_ints(n: usize, seed: u64) -> Vec<f32> {
    values(n, seed)
        .into_iter()
        .map(|v| (v * 3.5).round().clamp(-3.0, 3.0) as f32)
        .collect()
}

/// Element (r, c) of a column-major matrix `m` with leading dimension `ld`, as `op` sees it.
fn at(m: &[f64], ld: usize, trans: bool, r: usize, c: usize) -> f64 {
    if trans {
        m[c + r * ld]
    } else {
        m[r + c * ld]
    }
}

/// C = alpha * op(A) * op(B) + beta * C, column-major, in f64.
#[allow(clippy::too_many_arguments)]
fn gemm_ref(
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    alpha: f64,
    a: &[f64],
    lda: usize,
    b: &[f64],
    ldb: usize,
    beta: f64,
    c: &mut [f64],
    ldc: usize,
) {
    for j in 0..n {
        for i in 0..m {
            let mut s = 0.0;
            for p in 0..k {
                s += at(a, lda, ta, i, p) * at(b, ldb, tb, p, j);
            }
            c[i + j * ldc] = alpha * s + beta * c[i + j * ldc];
        }
    }
}

fn op(t: bool) -> cublasOperation_t {
    if t {
        cublasOperation_t::CUBLAS_OP_T
    } else {
        cublasOperation_t::CUBLAS_OP_N
    }
}

#[gpu_test]
fn sgemm_with_transposes_and_leading_dimensions_matches_the_cpu() {
    let s = stream();
    let h = Handle::new(&s);
    let (m, n, k) = (37usize, 23usize, 45usize);
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        // Stored shapes: op(A) is m x k, so A is m x k (lda >= m) or k x m (lda >= k).
        let (ar, ac) = if ta { (k, m) } else { (m, k) };
        let (br, bc) = if tb { (n, k) } else { (k, n) };
        let (lda, ldb, ldc) = (ar + 3, br + 5, m + 7); // leading dimensions > rows
        let a = values(lda * ac, 1);
        let b = values(ldb * bc, 2);
        let c0 = values(ldc * n, 3);
        let (af, bf, cf): (Vec<f32>, Vec<f32>, Vec<f32>) = (
            a.iter().map(|&x| x as f32).collect(),
            b.iter().map(|&x| x as f32).collect(),
            c0.iter().map(|&x| x as f32).collect(),
        );
        let (da, db) = (
            Buffer::from_slice(&s, &af).unwrap(),
            Buffer::from_slice(&s, &bf).unwrap(),
        );
        let mut dc = Buffer::from_slice(&s, &cf).unwrap();
        let (alpha, beta) = (0.75f32, -0.5f32);
        // SAFETY: device buffers sized for the shapes and leading dimensions above; host
        // scalars (the default pointer mode).
        unsafe {
            cublasSgemm_v2(
                h.0,
                op(ta),
                op(tb),
                m as i32,
                n as i32,
                k as i32,
                &alpha,
                dptr(&da),
                lda as i32,
                dptr(&db),
                ldb as i32,
                &beta,
                dptr_mut(&mut dc),
                ldc as i32,
            )
        }
        .result()
        .unwrap();
        s.synchronize().unwrap();
        let got = dc.to_vec().unwrap();
        let (a64, b64): (Vec<f64>, Vec<f64>) = (
            af.iter().map(|&x| f64::from(x)).collect(),
            bf.iter().map(|&x| f64::from(x)).collect(),
        );
        let mut want: Vec<f64> = cf.iter().map(|&x| f64::from(x)).collect();
        gemm_ref(
            ta, tb, m, n, k, 0.75, &a64, lda, &b64, ldb, -0.5, &mut want, ldc,
        );
        let tol = 1e-5 * k as f64 + 1e-6;
        for j in 0..n {
            for i in 0..ldc {
                let idx = i + j * ldc;
                if i < m {
                    let e = (f64::from(got[idx]) - want[idx]).abs();
                    assert!(
                        e <= tol,
                        "ta={ta} tb={tb} C[{i},{j}]: {} vs {} (tol {tol})",
                        got[idx],
                        want[idx]
                    );
                } else {
                    // Rows past m in each column are padding: untouched.
                    assert_eq!(got[idx], cf[idx], "padding C[{i},{j}] was written");
                }
            }
        }
    }
    // Misuse: lda < m is cuBLAS's INVALID_VALUE on every backend, never a crash.
    let (da, db) = (
        s.alloc_zeros::<f32>(16).unwrap(),
        s.alloc_zeros::<f32>(16).unwrap(),
    );
    let mut dc = s.alloc_zeros::<f32>(16).unwrap();
    // SAFETY: the library rejects the leading dimension before touching memory.
    let r = unsafe {
        cublasSgemm_v2(
            h.0,
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            4,
            4,
            4,
            &1.0,
            dptr(&da),
            3,
            dptr(&db),
            4,
            &0.0,
            dptr_mut(&mut dc),
            4,
        )
    };
    assert_eq!(r, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
}

#[gpu_test]
fn sgemm_with_device_pointer_mode_reads_alpha_and_beta_from_the_device() {
    let s = stream();
    let h = Handle::new(&s);
    // SAFETY: a live handle.
    unsafe { cublasSetPointerMode_v2(h.0, cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE) }
        .result()
        .unwrap();
    let mut mode = cublasPointerMode_t(99);
    // SAFETY: a live handle and a valid out-pointer.
    unsafe { cublasGetPointerMode_v2(h.0, &mut mode) }
        .result()
        .unwrap();
    assert_eq!(mode, cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE);
    let (m, n, k) = (8usize, 8usize, 8usize);
    let a = small_ints(m * k, 11);
    let b = small_ints(k * n, 12);
    let c = small_ints(m * n, 13);
    let (da, db) = (
        Buffer::from_slice(&s, &a).unwrap(),
        Buffer::from_slice(&s, &b).unwrap(),
    );
    let mut dc = Buffer::from_slice(&s, &c).unwrap();
    let (dalpha, dbeta) = (
        Buffer::from_slice(&s, &[2.0f32]).unwrap(),
        Buffer::from_slice(&s, &[-1.0f32]).unwrap(),
    );
    // SAFETY: device buffers of the right sizes; alpha and beta are device pointers, as the
    // pointer mode says.
    unsafe {
        cublasSgemm_v2(
            h.0,
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            m as i32,
            n as i32,
            k as i32,
            dptr(&dalpha),
            dptr(&da),
            m as i32,
            dptr(&db),
            k as i32,
            dptr(&dbeta),
            dptr_mut(&mut dc),
            m as i32,
        )
    }
    .result()
    .unwrap();
    s.synchronize().unwrap();
    let got = dc.to_vec().unwrap();
    let f = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
    let mut want = f(&c);
    gemm_ref(
        false,
        false,
        m,
        n,
        k,
        2.0,
        &f(&a),
        m,
        &f(&b),
        k,
        -1.0,
        &mut want,
        m,
    );
    // Small integers: exact.
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(f64::from(*g), *w, "C[{i}]");
    }
}

/// One strided-batched GEMM of 16-bit inputs and output with f32 scaling, checked exactly.
fn gemm_strided_batched_16<T: DeviceCopy + Copy>(
    dtype: cudaDataType,
    to: fn(f32) -> T,
    from: fn(T) -> f32,
    compute: cublasComputeType_t,
) {
    let s = stream();
    let h = Handle::new(&s);
    let (m, n, k, batch) = (16usize, 12usize, 16usize, 3usize);
    let (lda, ldb, ldc) = (m + 2, k + 1, m + 4);
    let (sa, sb, sc) = (lda * k + 5, ldb * n + 3, ldc * n + 7);
    let a = small_ints(sa * batch, 21);
    let b = small_ints(sb * batch, 22);
    let c = small_ints(sc * batch, 23);
    let conv = |v: &[f32]| v.iter().map(|&x| to(x)).collect::<Vec<T>>();
    let (da, db) = (
        Buffer::from_slice(&s, &conv(&a)).unwrap(),
        Buffer::from_slice(&s, &conv(&b)).unwrap(),
    );
    let mut dc = Buffer::from_slice(&s, &conv(&c)).unwrap();
    let (alpha, beta) = (1.0f32, 1.0f32);
    // SAFETY: device buffers holding `batch` strided matrices of the shapes above; host f32
    // scalars (the scale type of COMPUTE_32F and its fast variants).
    unsafe {
        cublasGemmStridedBatchedEx(
            h.0,
            cublasOperation_t::CUBLAS_OP_N,
            cublasOperation_t::CUBLAS_OP_N,
            m as i32,
            n as i32,
            k as i32,
            (&alpha as *const f32).cast::<c_void>(),
            dptr(&da).cast(),
            dtype,
            lda as i32,
            sa as i64,
            dptr(&db).cast(),
            dtype,
            ldb as i32,
            sb as i64,
            (&beta as *const f32).cast::<c_void>(),
            dptr_mut(&mut dc).cast(),
            dtype,
            ldc as i32,
            sc as i64,
            batch as i32,
            compute,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        )
    }
    .result()
    .unwrap();
    s.synchronize().unwrap();
    let got: Vec<f32> = dc.to_vec().unwrap().into_iter().map(from).collect();
    let f = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
    for p in 0..batch {
        let mut want = f(&c[p * sc..(p + 1) * sc]);
        gemm_ref(
            false,
            false,
            m,
            n,
            k,
            1.0,
            &f(&a[p * sa..(p + 1) * sa]),
            lda,
            &f(&b[p * sb..(p + 1) * sb]),
            ldb,
            1.0,
            &mut want,
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                let idx = p * sc + i + j * ldc;
                // |C| <= 16 * 9 + 3 = 147: an integer exact in f16 (up to 2048) and bf16 (up to
                // 256), so the reference needs no rounding.
                let w = want[i + j * ldc] as f32;
                assert_eq!(got[idx], w, "{compute:?} batch {p} C[{i},{j}]");
            }
        }
    }
}

#[gpu_test]
fn gemm_strided_batched_ex_f16_with_compute_32f_and_fast_tf32() {
    for c in [
        cublasComputeType_t::CUBLAS_COMPUTE_32F,
        cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
    ] {
        gemm_strided_batched_16(cudaDataType::CUDA_R_16F, F16::from_f32, F16::to_f32, c);
    }
}

#[gpu_test]
fn gemm_strided_batched_ex_bf16_with_compute_32f_and_fast_16bf() {
    for c in [
        cublasComputeType_t::CUBLAS_COMPUTE_32F,
        cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_16BF,
    ] {
        gemm_strided_batched_16(cudaDataType::CUDA_R_16BF, Bf16::from_f32, Bf16::to_f32, c);
    }
}

#[gpu_test]
fn dgemm_strided_batched_matches_the_cpu() {
    let s = stream();
    let h = Handle::new(&s);
    let (m, n, k, batch) = (19usize, 17usize, 29usize, 4usize);
    let (lda, ldb, ldc) = (k + 3, n + 2, m + 1); // A and B transposed: k x m and n x k stored
    let (sa, sb, sc) = (lda * m, ldb * k, ldc * n);
    let a = values(sa * batch, 31);
    let b = values(sb * batch, 32);
    let c = values(sc * batch, 33);
    let (da, db) = (
        Buffer::from_slice(&s, &a).unwrap(),
        Buffer::from_slice(&s, &b).unwrap(),
    );
    let mut dc = Buffer::from_slice(&s, &c).unwrap();
    let (alpha, beta) = (1.25f64, 0.5f64);
    // SAFETY: device buffers holding `batch` strided matrices of the shapes above.
    unsafe {
        cublasDgemmStridedBatched(
            h.0,
            cublasOperation_t::CUBLAS_OP_T,
            cublasOperation_t::CUBLAS_OP_T,
            m as i32,
            n as i32,
            k as i32,
            &alpha,
            dptr(&da),
            lda as i32,
            sa as i64,
            dptr(&db),
            ldb as i32,
            sb as i64,
            &beta,
            dptr_mut(&mut dc),
            ldc as i32,
            sc as i64,
            batch as i32,
        )
    }
    .result()
    .unwrap();
    s.synchronize().unwrap();
    let got = dc.to_vec().unwrap();
    let tol = 1e-12 * k as f64;
    for p in 0..batch {
        let mut want = c[p * sc..(p + 1) * sc].to_vec();
        gemm_ref(
            true,
            true,
            m,
            n,
            k,
            alpha,
            &a[p * sa..(p + 1) * sa],
            lda,
            &b[p * sb..(p + 1) * sb],
            ldb,
            beta,
            &mut want,
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                let idx = p * sc + i + j * ldc;
                let e = (got[idx] - want[i + j * ldc]).abs();
                assert!(
                    e <= tol,
                    "batch {p} C[{i},{j}]: {} vs {}",
                    got[idx],
                    want[i + j * ldc]
                );
            }
        }
    }
}
