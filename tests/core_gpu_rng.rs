//! GPU suite for `anycuda::core::Rng` (cuRAND on the CUDA backend, hipRAND on the HIP
//! backend). Every test is a `#[gpu_test]` (anycuda-test): ignored without a GPU, and never a pass
//! where its need is not met (`not run`, exit status 77; a failure under
//! `ANYCUDA_REQUIRE_GPU=1` with no GPU at all).
//!
//! The numbers are checked statistically: with n = 2^20 samples, the sample mean of a
//! distribution of standard deviation s lies within 6 s / sqrt(n) of the true mean except with
//! probability below 1e-8, and the tolerances below are wider than that.
//!
//! On the GPU machine, per backend:
//!   ANYCUDA_BACKEND=cuda .device/tests/core_gpu_rng --include-ignored
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so \
//!       ANYCUDA_HIPRAND_LIBRARY=... .device/tests/core_gpu_rng --include-ignored

use anycuda::core::*;
use anycuda::curand::{curandRngType_t, curandStatus_t};
use anycuda_test::gpu_test;

const N: usize = 1 << 20;

fn stream() -> Stream {
    Device::new(0)
        .expect("this test needs a GPU")
        .create_stream(StreamOptions::default())
        .expect("stream")
}

/// Mean and (population) variance.
fn moments(v: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = v.clone().count() as f64;
    let mean = v.clone().sum::<f64>() / n;
    let var = v.map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var)
}

fn near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: {got} is not within {tol} of {want}"
    );
}

#[gpu_test]
fn uniform_f32_and_f64_are_in_range_with_the_right_moments() {
    let s = stream();
    let rng = Rng::new(&s, 1234).unwrap();
    let mut a = s.alloc_zeros::<f32>(N).unwrap();
    rng.fill_uniform(&mut a).unwrap();
    let a = a.to_vec().unwrap();
    assert!(a.iter().all(|&x| x > 0.0 && x <= 1.0), "f32 outside (0, 1]");
    let (m, v) = moments(a.iter().map(|&x| f64::from(x)));
    near("uniform f32 mean", m, 0.5, 0.002);
    near("uniform f32 variance", v, 1.0 / 12.0, 0.001);

    let mut b = s.alloc_zeros::<f64>(N).unwrap();
    rng.fill_uniform(&mut b).unwrap();
    let b = b.to_vec().unwrap();
    assert!(b.iter().all(|&x| x > 0.0 && x <= 1.0), "f64 outside (0, 1]");
    let (m, v) = moments(b.iter().copied());
    near("uniform f64 mean", m, 0.5, 0.002);
    near("uniform f64 variance", v, 1.0 / 12.0, 0.001);
    println!("uniform: mean {m:.5}, variance {v:.5}");
}

#[gpu_test]
fn normal_f32_and_f64_have_the_requested_mean_and_std() {
    let s = stream();
    let rng = Rng::new(&s, 7).unwrap();
    let mut a = s.alloc_zeros::<f32>(N).unwrap();
    rng.fill_normal(&mut a, 3.0f32, 2.0).unwrap();
    let a = a.to_vec().unwrap();
    assert!(a.iter().all(|x| x.is_finite()));
    let (m, v) = moments(a.iter().map(|&x| f64::from(x)));
    near("normal f32 mean", m, 3.0, 0.02);
    near("normal f32 variance", v, 4.0, 0.05);

    let mut b = s.alloc_zeros::<f64>(N).unwrap();
    rng.fill_normal(&mut b, -1.0f64, 0.5).unwrap();
    let b = b.to_vec().unwrap();
    let (m, v) = moments(b.iter().copied());
    near("normal f64 mean", m, -1.0, 0.005);
    near("normal f64 variance", v, 0.25, 0.005);
    // Roughly 68% within one standard deviation.
    let within = b.iter().filter(|&&x| (x + 1.0).abs() < 0.5).count() as f64 / N as f64;
    near("normal f64 share within 1 std", within, 0.6827, 0.005);
    println!("normal f64: mean {m:.5}, variance {v:.5}, within 1 std {within:.4}");
}

#[gpu_test]
fn log_normal_values_are_positive_and_their_logs_normal() {
    let s = stream();
    let rng = Rng::new(&s, 99).unwrap();
    let mut a = s.alloc_zeros::<f32>(N).unwrap();
    rng.fill_log_normal(&mut a, 0.5f32, 0.25).unwrap();
    let a = a.to_vec().unwrap();
    assert!(a.iter().all(|&x| x > 0.0), "log-normal values are positive");
    let (m, v) = moments(a.iter().map(|&x| f64::from(x).ln()));
    near("ln(log-normal f32) mean", m, 0.5, 0.005);
    near("ln(log-normal f32) variance", v, 0.0625, 0.002);

    let mut b = s.alloc_zeros::<f64>(N).unwrap();
    rng.fill_log_normal(&mut b, 0.0f64, 1.0).unwrap();
    let b = b.to_vec().unwrap();
    assert!(b.iter().all(|&x| x > 0.0));
    let (m, v) = moments(b.iter().map(|x| x.ln()));
    near("ln(log-normal f64) mean", m, 0.0, 0.01);
    near("ln(log-normal f64) variance", v, 1.0, 0.02);
}

#[gpu_test]
fn u32_values_cover_the_range() {
    let s = stream();
    let rng = Rng::new(&s, 5).unwrap();
    let mut a = s.alloc_zeros::<u32>(N).unwrap();
    rng.fill_u32(&mut a).unwrap();
    let a = a.to_vec().unwrap();
    let (m, _) = moments(a.iter().map(|&x| f64::from(x)));
    near("u32 mean / 2^32", m / 4294967296.0, 0.5, 0.002);
    // Every bit is set about half the time.
    for bit in 0..32 {
        let ones = a.iter().filter(|&&x| x >> bit & 1 == 1).count() as f64 / N as f64;
        near(&format!("bit {bit} set share"), ones, 0.5, 0.005);
    }
}

#[gpu_test]
fn a_fixed_seed_reproduces_and_offsets_shift_the_sequence() {
    let s = stream();
    let fill = |seed: u64, offset: u64| {
        let rng =
            Rng::with_type(&s, curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT, seed, offset).unwrap();
        let mut b = s.alloc_zeros::<f32>(1024).unwrap();
        rng.fill_uniform(&mut b).unwrap();
        b.to_vec().unwrap()
    };
    let a = fill(42, 0);
    assert_eq!(a, fill(42, 0), "same seed and offset, same numbers");
    assert_ne!(a, fill(43, 0), "another seed, other numbers");
    assert_ne!(a, fill(42, 1), "another offset, other numbers");

    // Re-seeding an existing generator restarts the sequence.
    let mut rng = Rng::new(&s, 42).unwrap();
    let mut b = s.alloc_zeros::<f32>(1024).unwrap();
    rng.fill_uniform(&mut b).unwrap();
    let first = b.to_vec().unwrap();
    rng.fill_uniform(&mut b).unwrap();
    assert_ne!(first, b.to_vec().unwrap(), "the sequence moves on");
    rng.set_seed(42).unwrap();
    rng.set_offset(0).unwrap();
    rng.fill_uniform(&mut b).unwrap();
    assert_eq!(
        first,
        b.to_vec().unwrap(),
        "re-seeded: the sequence restarts"
    );
    assert_eq!(first, a, "Rng::new is pseudo default at offset 0");

    // Philox, another pseudo type, is reproducible too and differs from XORWOW.
    let philox = |seed| {
        let rng = Rng::with_type(
            &s,
            curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
            seed,
            0,
        )
        .unwrap();
        assert_eq!(rng.kind(), curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10);
        let mut b = s.alloc_zeros::<f32>(1024).unwrap();
        rng.fill_uniform(&mut b).unwrap();
        b.to_vec().unwrap()
    };
    let p = philox(42);
    assert_eq!(p, philox(42));
    assert_ne!(p, a);
}

#[gpu_test]
fn odd_counts_and_misaligned_views_are_refused_and_nothing_is_written() {
    let s = stream();
    let rng = Rng::new(&s, 1).unwrap();
    let sentinel = vec![-7.0f32; 9];
    let mut b = s.clone_from_host(&sentinel).unwrap();
    let e = rng.fill_normal(&mut b, 0.0f32, 1.0).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    assert!(e.detail().unwrap().contains("even count"), "{e}");
    let e = rng.fill_log_normal(&mut b, 0.0f32, 1.0).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    // A view at an odd element is not aligned for a pair.
    let mut v = b.view_mut(1..3).unwrap();
    let e = rng.fill_normal(&mut v, 0.0f32, 1.0).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage, "{e}");
    assert_eq!(
        b.to_vec().unwrap(),
        sentinel,
        "a refused fill writes nothing"
    );

    // An even view inside the buffer is filled, and only it.
    let mut v = b.view_mut(2..8).unwrap();
    rng.fill_normal(&mut v, 0.0f32, 1.0).unwrap();
    rng.fill_uniform(&mut b.view_mut(8..9).unwrap()).unwrap();
    let got = b.to_vec().unwrap();
    assert_eq!(&got[..2], &sentinel[..2], "before the view: untouched");
    assert!(got[2..8].iter().all(|&x| x != -7.0), "{got:?}");
    assert!(got[8] > 0.0 && got[8] <= 1.0, "{got:?}");

    // An empty fill is a no-op.
    let mut empty = s.alloc::<f64>(0).unwrap();
    rng.fill_normal(&mut empty, 0.0f64, 1.0).unwrap();
    rng.fill_uniform(&mut empty).unwrap();
}

#[gpu_test]
fn a_fill_on_another_stream_is_a_tracked_use() {
    // The buffer lives on `a`; the generator fills it on `b`; the buffer is dropped at once.
    // Its free is ordered after the fill, so the fill never writes freed memory and the
    // context stays healthy.
    let a = stream();
    let b = a.context().create_stream(StreamOptions::default()).unwrap();
    let rng = Rng::new(&b, 3).unwrap();
    for _ in 0..20 {
        let mut buf = a.alloc::<f32>(N).unwrap();
        b.wait(&a).unwrap(); // the allocation is ordered on `a`
        rng.fill_normal(&mut buf, 0.0f32, 1.0).unwrap();
        drop(buf);
    }
    b.synchronize().unwrap();
    a.synchronize().unwrap();
    // And the numbers are there when read back after ordering.
    let mut buf = a.alloc_zeros::<f32>(1024).unwrap();
    b.wait(&a).unwrap();
    rng.fill_uniform(&mut buf).unwrap();
    a.wait(&b).unwrap();
    let v = buf.to_vec().unwrap();
    assert!(v.iter().all(|&x| x > 0.0 && x <= 1.0));

    // Moving the generator to another stream of the same context works; another context's
    // streams are refused (only checkable with two devices, so here: the same context).
    let mut rng = rng;
    rng.set_stream(&a).unwrap();
    assert_eq!(rng.stream().as_raw(), a.as_raw());
    rng.fill_uniform(&mut buf).unwrap();
    assert!(buf.to_vec().unwrap().iter().all(|&x| x > 0.0 && x <= 1.0));
}

#[gpu_test]
fn bad_types_and_quasi_misuse_give_curand_errors() {
    let s = stream();
    let e = Rng::with_type(&s, curandRngType_t(12345), 0, 0).unwrap_err();
    assert_eq!(
        e.curand_code(),
        Some(curandStatus_t::CURAND_STATUS_TYPE_ERROR),
        "{e}"
    );
    // A quasi-random generator takes no seed; seeding it is cuRAND's type error.
    let mut sobol_absent = None;
    match Rng::with_type(&s, curandRngType_t::CURAND_RNG_QUASI_SOBOL32, 9, 0) {
        Ok(mut q) => {
            let e = q.set_seed(1).unwrap_err();
            assert_eq!(
                e.curand_code(),
                Some(curandStatus_t::CURAND_STATUS_TYPE_ERROR),
                "{e}"
            );
            let mut b = s.alloc_zeros::<f32>(1000).unwrap();
            q.fill_uniform(&mut b).unwrap();
            assert!(b.to_vec().unwrap().iter().all(|&x| x > 0.0 && x <= 1.0));
        }
        // The rest still runs; the test then ends as n/a (exit status 78), not as a pass.
        Err(e) if e.is_not_supported() => sobol_absent = Some(e),
        Err(e) => panic!("Sobol32: {e}"),
    }
    // as_raw hands the generator to the raw layer.
    let rng = Rng::new(&s, 0).unwrap();
    let b = s.alloc_zeros::<f32>(16).unwrap();
    // SAFETY: a live generator on its stream's context; 16 floats in bounds.
    let r = unsafe {
        s.context().bind().unwrap();
        anycuda::curand::curandGenerateUniform(rng.as_raw(), b.as_raw() as usize as *mut f32, 16)
    };
    r.result().unwrap();
    assert!(b.to_vec().unwrap().iter().all(|&x| x > 0.0 && x <= 1.0));
    if let Some(e) = sobol_absent {
        anycuda_test::not_applicable(&format!("Sobol32 on this backend: {e}"));
    }
}
