//! Compile-time checks that cudarc's names and trait bounds exist where cudarc has them.

// Spelled as users spell it.
extern crate anycuda_cudarc as cudarc;

use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaModule, CudaSlice, CudaStream, CudaView,
    CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, DriverError, HostSlice,
    LaunchArgs, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice, ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx, compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use std::sync::Arc;

fn repr<T: DeviceRepr + ValidAsZeroBits>() {}
fn send_sync<T: Send + Sync>() {}

#[test]
fn names_and_bounds() {
    repr::<f32>();
    repr::<[u64; 4]>();
    send_sync::<CudaContext>();
    send_sync::<CudaStream>();
    send_sync::<CudaEvent>();
    send_sync::<CudaSlice<f32>>();
    send_sync::<CudaModule>();
    send_sync::<CudaFunction>();
    send_sync::<CudaGraph>();
    send_sync::<UnifiedSlice<f32>>();
    send_sync::<PinnedHostSlice<f32>>();
    let _: fn(usize) -> Result<Arc<CudaContext>, DriverError> = CudaContext::new;
    let _: fn(&'static str) -> Result<Ptx, CompileError> = compile_ptx::<&'static str>;
    let _: fn(&'static str, CompileOptions) -> Result<Ptx, CompileError> =
        compile_ptx_with_opts::<&'static str>;
    let cfg = LaunchConfig::for_num_elems(2049);
    assert_eq!(
        (cfg.grid_dim, cfg.block_dim, cfg.shared_mem_bytes),
        ((3, 1, 1), (1024, 1, 1), 0)
    );
    fn views<'a>(_: CudaView<'a, f32>, _: CudaViewMut<'a, f32>) {}
    fn traits<T, S: DevicePtr<T> + DeviceSlice<T>, M: DevicePtrMut<T>, H: HostSlice<T> + ?Sized>() {
    }
    traits::<f32, CudaSlice<f32>, CudaSlice<f32>, [f32]>();
    fn push<'a>(b: &mut LaunchArgs<'a>, x: &'a CudaSlice<f32>, n: &'a i32)
    where
        LaunchArgs<'a>: PushKernelArg<&'a CudaSlice<f32>> + PushKernelArg<&'a i32>,
    {
        b.arg(x).arg(n);
    }
    let _ = push;
    let _ = views;
}

#[cfg(feature = "f16")]
#[test]
fn half_types_are_device_repr() {
    repr::<half::f16>();
    repr::<half::bf16>();
    assert_eq!(<half::f16 as cudarc::types::CudaTypeName>::NAME, "__half");
}

#[cfg(feature = "f8")]
#[test]
fn float8_types_are_device_repr() {
    repr::<float8::F8E4M3>();
    repr::<float8::F8E5M2>();
}

/// `?` into `DriverError` from a closure's `Ok(())` must infer, as it does with cudarc (its
/// examples write `thread::spawn(move || { ...?; Ok(()) })`): `DriverError` may have no `From`
/// impl but the identity one. This test fails to compile if one is added.
#[test]
fn question_mark_into_driver_error_infers() {
    fn run() -> Result<u32, DriverError> {
        let f = || {
            let n: u32 = 7;
            Ok(n)
        };
        let n = f()?;
        Ok(n + 1)
    }
    assert_eq!(run(), Ok(8));
}

/// cudarc's cublas names, bounds and signatures: `CudaBlas::new`, the operation traits for f32
/// and f64, `Send + Sync`, and the raw call shape downstream crates write against `result`.
#[test]
fn cublas_names_and_bounds() {
    use cudarc::cublas::result::CublasError;
    use cudarc::cublas::{
        sys, Asum, AsumConfig, CudaBlas, Gemm, GemmConfig, Gemv, GemvConfig, StridedBatchedConfig,
    };
    fn ops<T, B: Gemm<T> + Gemv<T> + Asum<T>>() {}
    send_sync::<CudaBlas>();
    ops::<f32, CudaBlas>();
    ops::<f64, CudaBlas>();
    let _: fn(Arc<CudaStream>) -> Result<CudaBlas, CublasError> = CudaBlas::new;
    let _: fn(&CudaBlas) -> &sys::cublasHandle_t = CudaBlas::handle;
    let _: fn(&CudaBlas) -> Result<sys::cublasPointerMode_t, CublasError> =
        CudaBlas::get_pointer_mode;
    let n = sys::cublasOperation_t::CUBLAS_OP_N;
    let g = GemmConfig {
        transa: n,
        transb: n,
        m: 1,
        n: 2,
        k: 3,
        alpha: 1f32,
        lda: 1,
        ldb: 3,
        beta: 0f32,
        ldc: 1,
    };
    let s = StridedBatchedConfig {
        gemm: g,
        batch_size: 4,
        stride_a: 3,
        stride_b: 6,
        stride_c: 2,
    };
    let _ = (
        s,
        GemvConfig {
            trans: n,
            m: 1,
            n: 1,
            alpha: 1f64,
            lda: 1,
            incx: 1,
            beta: 0f64,
            incy: 1,
        },
    );
    let _ = AsumConfig { n: 1, incx: 1 };

    // The shape of a strided-batched GEMM through `result` on a slice's stream, as candle
    // writes it: `*handle()`, device pointers cast with `as`, f32 scalars through `*const _`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn through_result(
        blas: &CudaBlas,
        cfg: StridedBatchedConfig<f32>,
        a: &CudaView<f32>,
        b: &CudaView<f32>,
        c: &mut CudaSlice<f32>,
    ) -> Result<(), CublasError> {
        let stream = c.stream().clone();
        let (a, _ga) = a.device_ptr(&stream);
        let (b, _gb) = b.device_ptr(&stream);
        let (c, _gc) = c.device_ptr_mut(&stream);
        // SAFETY: not called; the extents would be the caller's contract.
        unsafe {
            cudarc::cublas::result::gemm_strided_batched_ex(
                *blas.handle(),
                cfg.gemm.transa,
                cfg.gemm.transb,
                cfg.gemm.m,
                cfg.gemm.n,
                cfg.gemm.k,
                (&cfg.gemm.alpha) as *const f32 as *const _,
                a as *const _,
                sys::cudaDataType_t::CUDA_R_32F,
                cfg.gemm.lda,
                cfg.stride_a,
                b as *const _,
                sys::cudaDataType_t::CUDA_R_32F,
                cfg.gemm.ldb,
                cfg.stride_b,
                (&cfg.gemm.beta) as *const f32 as *const _,
                c as *mut _,
                sys::cudaDataType_t::CUDA_R_32F,
                cfg.gemm.ldc,
                cfg.stride_c,
                cfg.batch_size,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
            )
        }
    }
    let _ = through_result;
}

#[cfg(feature = "f16")]
#[test]
fn cublas_half_types() {
    use cudarc::cublas::{CudaBlas, Gemm, GroupedGemm, GroupedGemmDtype};
    fn half<T: GroupedGemmDtype<ComputeType = f32>, B: Gemm<T> + GroupedGemm<T>>() {}
    half::<half::f16, CudaBlas>();
    half::<half::bf16, CudaBlas>();
    assert_eq!(
        <half::bf16 as GroupedGemmDtype>::data_type(),
        cudarc::cublas::sys::cudaDataType_t::CUDA_R_16BF
    );
}

/// cudarc's cublaslt names, bounds and signatures: `CudaBlasLT::new`, `Workspace::new`,
/// `Matmul` for f32 (and f16/bf16 with `f16`) with cudarc's data and compute types,
/// `Send + Sync`, and the config and activation every matmul takes.
#[test]
fn cublaslt_names_and_bounds() {
    use cudarc::cublaslt::result::CublasError;
    use cudarc::cublaslt::{
        sys, Activation, CudaBlasLT, Matmul, MatmulConfig, MatmulShared, Workspace,
    };
    use cudarc::driver::DriverError;
    fn matmul<T, B: Matmul<T> + MatmulShared>() {}
    send_sync::<CudaBlasLT>();
    matmul::<f32, CudaBlasLT>();
    let _: fn(Arc<CudaStream>) -> Result<CudaBlasLT, CublasError> = CudaBlasLT::new;
    let _: fn(Arc<CudaStream>) -> Result<Workspace, DriverError> = Workspace::new;
    let _: fn(&CudaBlasLT) -> &sys::cublasLtHandle_t = <CudaBlasLT as MatmulShared>::handle;
    let _: fn(&CudaBlasLT) -> &Workspace = <CudaBlasLT as MatmulShared>::workspace;
    let _: fn(&CudaBlasLT) -> &Arc<CudaStream> = <CudaBlasLT as MatmulShared>::stream;
    assert_eq!(
        <CudaBlasLT as Matmul<f32>>::matrix_type(),
        sys::cudaDataType_t::CUDA_R_32F
    );
    assert_eq!(
        <CudaBlasLT as Matmul<f32>>::compute_type(),
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
    );
    #[cfg(feature = "f16")]
    {
        matmul::<half::f16, CudaBlasLT>();
        matmul::<half::bf16, CudaBlasLT>();
        assert_eq!(
            <CudaBlasLT as Matmul<half::bf16>>::matrix_type(),
            sys::cudaDataType_t::CUDA_R_16BF
        );
        assert_eq!(
            <CudaBlasLT as Matmul<half::f16>>::compute_type(),
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
        );
    }
    let cfg = MatmulConfig {
        transa: false,
        transb: true,
        transc: false,
        m: 2,
        n: 3,
        k: 4,
        alpha: 1.0,
        lda: 2,
        ldb: 3,
        beta: 0.0,
        ldc: 2,
        stride_a: Some(8),
        stride_b: Some(12),
        stride_c: Some(6),
        stride_bias: None,
        batch_size: Some(5),
    };
    let _ = (cfg, [Activation::Relu, Activation::Gelu]);
}
