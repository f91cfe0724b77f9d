//! Matrix products on the safe layer (`anycuda::core::Blas`): an SGEMM, a DGEMM with
//! transposes and padded leading dimensions, and a strided batch, each checked on the host.
//! cuBLAS on the CUDA backend, hipBLAS on the HIP backend (`ANYCUDA_BACKEND=cuda|hip`); prints
//! "SKIP: no GPU" and exits 0 without a device (a failure under `ANYCUDA_REQUIRE_GPU=1`).
//!
//! Matrices are column-major, as in cuBLAS: element (i, j) of a matrix with leading dimension
//! `ld` is element `i + j * ld` of its buffer.
//!
//! `cargo run --release --example core_blas`

use anycuda::core::{Blas, Gemm, StridedBatch, Transpose};

mod core_common;
use core_common::{device_or_skip, main_with, Res};

fn main() {
    main_with("core_blas", run);
}

/// `C = alpha * op(A) op(B) + beta * C` on the host, in f64, for checking.
fn reference(g: &Gemm<f64>, a: &[f64], b: &[f64], c: &mut [f64]) {
    let [lda, ldb, ldc] = g.leading_dimensions();
    let at = |x: &[f64], ld: usize, t: Transpose, i: usize, j: usize| {
        if t.is_transposed() {
            x[j + i * ld]
        } else {
            x[i + j * ld]
        }
    };
    for j in 0..g.n {
        for i in 0..g.m {
            let dot: f64 = (0..g.k)
                .map(|l| at(a, lda, g.transa, i, l) * at(b, ldb, g.transb, l, j))
                .sum();
            c[i + j * ldc] = g.alpha * dot + g.beta * c[i + j * ldc];
        }
    }
}

fn run() -> Res<()> {
    let Some(dev) = device_or_skip()? else {
        return Ok(());
    };
    println!("device 0: {}", dev.name()?);
    let stream = dev.create_stream(Default::default())?;
    let blas = Blas::new(&stream)?;

    // 1. SGEMM, 256 x 128 x 64, tight leading dimensions: C = A B.
    let (m, n, k) = (256, 128, 64);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let da = stream.clone_from_host(&a)?;
    let db = stream.clone_from_host(&b)?;
    let mut dc = stream.alloc_zeros::<f32>(m * n)?;
    blas.gemm(&Gemm::new(m, n, k), &da, &db, &mut dc)?;
    let got = dc.to_vec()?;
    let g = Gemm::<f64>::new(m, n, k);
    let (a64, b64): (Vec<f64>, Vec<f64>) = (
        a.iter().map(|&x| f64::from(x)).collect(),
        b.iter().map(|&x| f64::from(x)).collect(),
    );
    let mut want = vec![0.0; m * n];
    reference(&g, &a64, &b64, &mut want);
    // Small integers and halves: every product and sum is exact in f32.
    let wrong = got
        .iter()
        .zip(&want)
        .filter(|(&x, &w)| f64::from(x) != w)
        .count();
    if wrong != 0 {
        return Err(format!("sgemm: {wrong} of {} elements wrong", m * n).into());
    }
    println!("sgemm {m}x{n}x{k}: exact");

    // 2. DGEMM, C = 2 Aᵀ Bᵀ - C, with every leading dimension padded (A stored k x m with
    //    lda = k + 3, B stored n x k with ldb = n + 1, C with ldc = m + 2).
    let g = Gemm::<f64>::new(m, n, k)
        .transa(Transpose::Transpose)
        .transb(Transpose::Transpose)
        .lda(k + 3)
        .ldb(n + 1)
        .ldc(m + 2)
        .alpha(2.0)
        .beta(-1.0);
    let [la, lb, lc] = g.min_lens().ok_or("sizes overflow")?;
    let a: Vec<f64> = (0..la).map(|i| ((i * 37) % 101) as f64 / 101.0).collect();
    let b: Vec<f64> = (0..lb)
        .map(|i| ((i * 53) % 97) as f64 / 97.0 - 0.5)
        .collect();
    let c: Vec<f64> = (0..lc).map(|i| (i % 11) as f64).collect();
    let (da, db) = (stream.clone_from_host(&a)?, stream.clone_from_host(&b)?);
    let mut dc = stream.clone_from_host(&c)?;
    blas.gemm(&g, &da, &db, &mut dc)?;
    let got = dc.to_vec()?;
    let mut want = c.clone();
    reference(&g, &a, &b, &mut want);
    let err = got
        .iter()
        .zip(&want)
        .map(|(x, w)| (x - w).abs())
        .fold(0.0, f64::max);
    if err > 1e-10 {
        return Err(format!("dgemm: largest error {err:e}").into());
    }
    println!("dgemm {m}x{n}x{k}, both transposed, padded lds: largest error {err:e}");

    // 3. A strided batch: 64 products of 16 x 16 matrices, one shared B (stride 0).
    let (s, count) = (16, 64);
    let g = Gemm::<f32>::new(s, s, s);
    let batch = StridedBatch::new(count).stride_b(0);
    let [la, lb, lc] = batch.min_lens(&g).ok_or("sizes overflow")?;
    let a: Vec<f32> = (0..la).map(|i| (i % 3) as f32).collect();
    let b: Vec<f32> = (0..lb)
        .map(|i| if i % (s + 1) == 0 { 1.0 } else { 0.0 })
        .collect();
    let (da, db) = (stream.clone_from_host(&a)?, stream.clone_from_host(&b)?);
    let mut dc = stream.alloc_zeros::<f32>(lc)?;
    blas.gemm_strided_batched(&g, &batch, &da, &db, &mut dc)?;
    // B is the identity: every C is its A.
    if dc.to_vec()? != a {
        return Err("strided batch: A * I != A".into());
    }
    println!("strided batch of {count} {s}x{s} products with a shared B: exact");

    // A misuse is an error, never a write past a buffer.
    let e = blas
        .gemm(&Gemm::new(m, n, k), &da, &db, &mut dc)
        .expect_err("a too-short buffer is refused");
    println!("refused as expected: {}", e.to_string().replace('\n', ": "));
    Ok(())
}
