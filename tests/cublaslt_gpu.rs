//! GPU test for the raw cuBLASLt layer (`anycuda::cublaslt`): an f32 matmul with a bias epilogue,
//! D = A * B + bias (bias broadcast along D's columns, `CUBLASLT_EPILOGUE_BIAS`), through the
//! heuristic query and `cublasLtMatmul`, checked against a CPU reference. A `#[gpu_test]`
//! (anycuda-test): ignored without a GPU, never a pass where its need is not met.
//!
//! On the HIP backend it needs hipBLASLt, which exists for AMD only: on HIP's NVIDIA platform
//! (the GPU machine's HIP) every cuBLASLt call is refused, so the test checks that refusal and
//! ends n/a (`anycuda_test::not_applicable`, exit status 78).
//!
//! On the GPU machine, per backend:
//!   ANYCUDA_BACKEND=cuda .device/tests/cublaslt_gpu --include-ignored
//!   ANYCUDA_BACKEND=hip ANYCUDA_HIP_LIBRARY=/tmp/hipnv/libamdhip64.so .device/tests/cublaslt_gpu --include-ignored

use anycuda::core::*;
use anycuda::cublaslt::*;
use anycuda_test::gpu_test;

#[gpu_test]
fn f32_matmul_with_bias_epilogue_matches_the_cpu() {
    let s = Device::new(0)
        .expect("this test needs a GPU")
        .create_stream(StreamOptions::default())
        .expect("stream");
    let (m, n, k) = (64usize, 48usize, 32usize);
    // Column-major, small integers: every product and sum is exact in f32.
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 13) as f32 - 6.0).collect();
    let bias: Vec<f32> = (0..m).map(|i| i as f32 * 0.5 - 8.0).collect();
    let mut want = vec![0f32; m * n];
    for j in 0..n {
        for i in 0..m {
            let dot: f32 = (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum();
            want[i + j * m] = dot + bias[i];
        }
    }
    let da = Buffer::from_slice(&s, &a).unwrap();
    let db = Buffer::from_slice(&s, &b).unwrap();
    let dbias = Buffer::from_slice(&s, &bias).unwrap();
    let dd = s.alloc_zeros::<f32>(m * n).unwrap();
    let ws_bytes = 1usize << 22;
    let ws = s.alloc_zeros::<u8>(ws_bytes).unwrap();

    let mut h: cublasLtHandle_t = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let r = unsafe { cublasLtCreate(&mut h) };
    if r == cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED {
        let why = not_supported_reason(r).unwrap_or_default();
        assert!(
            why.contains("NVIDIA platform"),
            "only HIP's NVIDIA platform may refuse cuBLASLt: {why}"
        );
        anycuda_test::not_applicable(why);
    }
    r.result().unwrap();
    let mut desc: cublasLtMatmulDesc_t = core::ptr::null_mut();
    // SAFETY: valid out-pointers and attribute buffers of the documented sizes; every handle is
    // live until destroyed once at the end; device pointers are buffers of the sizes the layouts
    // describe, alive until after the synchronisation.
    unsafe {
        cublasLtMatmulDescCreate(
            &mut desc,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
        .result()
        .unwrap();
        let epi = cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS.0;
        cublasLtMatmulDescSetAttribute(
            desc,
            cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE,
            (&epi as *const u32).cast(),
            4,
        )
        .result()
        .unwrap();
        let bias_ptr = dbias.as_raw() as *const core::ffi::c_void;
        cublasLtMatmulDescSetAttribute(
            desc,
            cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
            (&bias_ptr as *const *const core::ffi::c_void).cast(),
            core::mem::size_of::<*const core::ffi::c_void>(),
        )
        .result()
        .unwrap();
        let layout = |rows: usize, cols: usize| {
            let mut l: cublasLtMatrixLayout_t = core::ptr::null_mut();
            cublasLtMatrixLayoutCreate(
                &mut l,
                cudaDataType::CUDA_R_32F,
                rows as u64,
                cols as u64,
                rows as i64,
            )
            .result()
            .unwrap();
            l
        };
        let (la, lb, ld) = (layout(m, k), layout(k, n), layout(m, n));
        let mut pref: cublasLtMatmulPreference_t = core::ptr::null_mut();
        cublasLtMatmulPreferenceCreate(&mut pref).result().unwrap();
        let wsb = ws_bytes as u64;
        cublasLtMatmulPreferenceSetAttribute(
            pref,
            cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&wsb as *const u64).cast(),
            8,
        )
        .result()
        .unwrap();
        let mut results: [cublasLtMatmulHeuristicResult_t; 4] = core::mem::zeroed();
        let mut found = 0;
        cublasLtMatmulAlgoGetHeuristic(
            h,
            desc,
            la,
            lb,
            ld,
            ld,
            pref,
            4,
            results.as_mut_ptr(),
            &mut found,
        )
        .result()
        .unwrap();
        assert!(found > 0, "no algorithm for a plain f32 matmul");
        assert_eq!(results[0].state, cublasStatus_t::CUBLAS_STATUS_SUCCESS);
        assert!(results[0].workspaceSize <= ws_bytes);
        let (alpha, beta) = (1f32, 0f32);
        cublasLtMatmul(
            h,
            desc,
            (&alpha as *const f32).cast(),
            da.as_raw() as *const _,
            la,
            db.as_raw() as *const _,
            lb,
            (&beta as *const f32).cast(),
            dd.as_raw() as *const _,
            ld,
            dd.as_raw() as *mut _,
            ld,
            &results[0].algo,
            ws.as_raw() as *mut _,
            ws_bytes,
            s.as_raw() as cudaStream_t,
        )
        .result()
        .unwrap();
        s.synchronize().unwrap();
        for l in [la, lb, ld] {
            cublasLtMatrixLayoutDestroy(l).result().unwrap();
        }
        cublasLtMatmulPreferenceDestroy(pref).result().unwrap();
        cublasLtMatmulDescDestroy(desc).result().unwrap();
        cublasLtDestroy(h).result().unwrap();
    }
    let got = dd.to_vec().unwrap();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-3 * w.abs().max(1.0),
            "D[{i}] = {g}, want {w}"
        );
    }
}
