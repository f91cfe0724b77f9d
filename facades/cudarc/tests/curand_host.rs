//! cudarc's `curand::result` layer on the CUDA backend without a GPU: cuRAND's host generator
//! (`curandCreateGeneratorHost`) makes real numbers into host memory, so the generic fills and
//! the per-distribution calls are checked against the real library, statistically and for
//! reproducibility. Under `CI=true` a missing cuRAND fails instead of skipping.

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

use anycuda::{BackendChoice, BackendKind};
use cudarc::curand::result::{self, generate, LogNormalFill, NormalFill, UniformFill};
use cudarc::curand::sys;

/// Selects the CUDA backend and points cuRAND at the pinned wheel's library when none is named;
/// `false` (skip) when cuRAND is missing off CI.
fn setup() -> bool {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let wheel = root.join(".cache/inputs/cuda/nvidia/cu13/lib/libcurand.so.10");
    anycuda_test::env::default_library("ANYCUDA_CURAND_LIBRARY", &wheel);
    match anycuda::select(BackendChoice::Only(BackendKind::Cuda)) {
        Ok(()) | Err(anycuda::SelectError::FirstUseFailed(_)) => {}
        Err(e) => panic!("select: {e}"),
    }
    match anycuda::curand::library() {
        Ok(_) => true,
        Err(e) => {
            let on_ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(!on_ci, "cuRAND missing under CI=true: {e}");
            eprintln!("SKIP: cuRAND not available: {e}");
            false
        }
    }
}

/// A host generator of the default pseudo type, seeded.
fn host_generator(seed: u64) -> sys::curandGenerator_t {
    let mut g: sys::curandGenerator_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    unsafe {
        sys::curandCreateGeneratorHost(&mut g, sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT)
    }
    .result()
    .expect("cuRAND's host generator needs no GPU");
    // SAFETY: the generator just created.
    unsafe { result::set_seed(g, seed) }.unwrap();
    g
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
}

const N: usize = 100_000;

#[test]
fn generic_fills_make_real_numbers_on_a_host_generator() {
    if !setup() {
        return;
    }
    let g = host_generator(2024);
    let mut u = vec![0f32; N];
    // SAFETY: a live host generator; `u` holds N floats.
    unsafe { UniformFill::fill(g, u.as_mut_ptr(), N) }.unwrap();
    assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0));
    let (m, v) = mean_var(&u.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
    assert!(
        (m - 0.5).abs() < 0.005 && (v - 1.0 / 12.0).abs() < 0.002,
        "{m} {v}"
    );

    let mut n = vec![0f64; N];
    // SAFETY: as above; N (even) doubles.
    unsafe { NormalFill::fill(g, n.as_mut_ptr(), N, 1.5, 0.5) }.unwrap();
    let (m, v) = mean_var(&n);
    assert!((m - 1.5).abs() < 0.01 && (v - 0.25).abs() < 0.01, "{m} {v}");

    let mut l = vec![0f32; N];
    // SAFETY: as above; N (even) floats.
    unsafe { LogNormalFill::fill(g, l.as_mut_ptr(), N, 0.0, 0.5) }.unwrap();
    assert!(l.iter().all(|&x| x > 0.0));
    let (m, v) = mean_var(&l.iter().map(|&x| f64::from(x).ln()).collect::<Vec<_>>());
    assert!(m.abs() < 0.01 && (v - 0.25).abs() < 0.01, "{m} {v}");

    let mut bits = vec![0u32; N];
    // SAFETY: as above.
    unsafe { UniformFill::fill(g, bits.as_mut_ptr(), N) }.unwrap();
    let high = bits.iter().filter(|&&x| x >= 1 << 31).count() as f64 / N as f64;
    assert!((high - 0.5).abs() < 0.01, "{high}");

    // u64 needs a 64-bit quasi-random generator: a pseudo one answers TYPE_ERROR, no crash.
    let mut w = vec![0u64; 4];
    // SAFETY: as above; 4 u64.
    let e = unsafe { UniformFill::fill(g, w.as_mut_ptr(), 4) }.unwrap_err();
    assert_eq!(e.0, sys::curandStatus_t::CURAND_STATUS_TYPE_ERROR, "{e}");

    // An odd count of normals is cuRAND's LENGTH_NOT_MULTIPLE.
    // SAFETY: as above; 3 of N doubles.
    let e = unsafe { generate::normal_f64(g, n.as_mut_ptr(), 3, 0.0, 1.0) }.unwrap_err();
    assert_eq!(
        e,
        result::CurandError(sys::curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE)
    );
    assert!(
        e.to_string().contains("CURAND_STATUS_LENGTH_NOT_MULTIPLE"),
        "{e}"
    );

    // Poisson counts of mean 4.
    let mut p = vec![0u32; N];
    // SAFETY: as above.
    unsafe { generate::poisson_u32(g, p.as_mut_ptr(), N, 4.0) }.unwrap();
    let (m, v) = mean_var(&p.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
    assert!((m - 4.0).abs() < 0.05 && (v - 4.0).abs() < 0.15, "{m} {v}");

    // SAFETY: destroyed once.
    unsafe { result::destroy_generator(g) }.unwrap();
}

#[test]
fn a_fixed_seed_and_offset_reproduce_the_sequence() {
    if !setup() {
        return;
    }
    let run = |seed: u64, offset: u64| {
        let g = host_generator(seed);
        // SAFETY: a live generator.
        unsafe { result::set_offset(g, offset) }.unwrap();
        let mut v = vec![0f64; 1000];
        // SAFETY: a live host generator; 1000 doubles.
        unsafe { generate::uniform_f64(g, v.as_mut_ptr(), v.len()) }.unwrap();
        // SAFETY: destroyed once.
        unsafe { result::destroy_generator(g) }.unwrap();
        v
    };
    let a = run(7, 0);
    assert_eq!(a, run(7, 0));
    assert_ne!(a, run(8, 0));
    let shifted = run(7, 10);
    assert_eq!(
        &a[10..20],
        &shifted[..10],
        "offset 10 starts 10 values later"
    );
}

#[test]
fn a_device_generator_without_a_gpu_is_an_error_not_a_crash() {
    if !setup() {
        return;
    }
    if matches!(cudarc::driver::CudaContext::device_count(), Ok(n) if n > 0) {
        eprintln!("SKIP: a device is present; this checks the no-device path");
        return;
    }
    let e = result::create_generator().expect_err("no GPU: no device generator");
    assert_ne!(e.0, sys::curandStatus_t::CURAND_STATUS_SUCCESS);
    let e = result::create_generator_kind(sys::curandRngType_t(12345)).unwrap_err();
    assert_ne!(e.0, sys::curandStatus_t::CURAND_STATUS_SUCCESS);
}
