//! The built-in headers, compiled for real on NVRTC and on the loaded hipRTC: each one alone,
//! one kernel that uses the API real kernel libraries need from them, and NVRTC stepping aside
//! for a CUDA toolkit's own headers when they are on the include path.

mod common;

use anycuda::core::{Program, ProgramOptions};
use anycuda::{Backend, BackendKind};
use anycuda_rtc::rtc_headers::{builtin_headers, RtcTarget};
use common::compiler;

fn compile(b: Backend, src: &str, opts: &[&str]) -> Result<(), String> {
    let mut p = Program::with_backend(b, src, ProgramOptions::new().name("h.cu"))
        .map_err(|e| e.to_string())?;
    p.compile_with_args(opts).map_err(|e| e.to_string())
}

/// Every built-in header compiles on its own (and twice: include guards).
fn each_header_alone(kind: BackendKind, target: RtcTarget, arch: &str) {
    let Some(b) = compiler(kind) else { return };
    let arch = format!("--gpu-architecture={arch}");
    for (name, _) in builtin_headers(target) {
        let src = format!(
            "#include <{name}>\n#include <{name}>\nextern \"C\" __global__ void k() {{}}\n"
        );
        compile(b, &src, &[&arch]).unwrap_or_else(|e| panic!("{kind} <{name}>: {e}"));
    }
}

/// The API the issue lists, in one kernel.
const USES: &str = r#"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <cstdint>
#include <cstddef>
#include <stddef.h>
#include <limits>
#include <type_traits>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cassert>
#include <cuda/std/limits>
template <typename T> __device__ typename std::enable_if<std::is_floating_point<T>::value, T>::type twice(T v) { return v + v; }
extern "C" __global__ void k(float* f, __half* h, __nv_bfloat16* b, unsigned char* q, int64_t* i)
{
    const int t = threadIdx.x;
    static_assert(std::is_same<std::remove_cv<const int>::type, int>::value, "type_traits");
    static_assert(std::numeric_limits<int>::max() == INT_MAX, "limits");
    static_assert(::cuda::std::numeric_limits<uint32_t>::lowest() == 0u &&
                  ::cuda::std::numeric_limits<int64_t>::max() == INT64_MAX, "cuda/std/limits");
    static_assert(sizeof(std::size_t) == sizeof(void*) && sizeof(ptrdiff_t) == 8, "stddef");
    assert(t >= 0);
    float v = f[t];
    v = std::fmax(v, FLT_MIN) + std::sqrt(std::fabs(v)) + (float)std::numeric_limits<float>::epsilon();
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_down_sync(0xffffffffu, v, 2, 16);
    __syncwarp();
    __half hv = __float2half_rz(v);
    hv = __hmax_nan(hv, __float2half_rd(v));
    hv = __hadd(hv, __shfl_xor_sync(0xffffffffu, hv, 1));
    atomicAdd(&h[0], hv);
    __nv_bfloat16 bv = __float2bfloat16_rz(v);
    bv = __hmin_nan(bv, __float2bfloat16_ru(v));
    atomicAdd(&b[0], bv);
    q[t] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    __nv_fp8_e5m2 e(v);
    i[t] = (int64_t)__half2ushort_rz(hv) + __half2int_rn(hv) + __bfloat162int_rz(bv) + (int64_t)twice((float)e);
}
"#;

fn uses_compile(kind: BackendKind, arch: &str) {
    let Some(b) = compiler(kind) else { return };
    compile(b, USES, &[&format!("--gpu-architecture={arch}")])
        .unwrap_or_else(|e| panic!("{kind} {arch}: {e}"));
}

#[test]
fn each_header_alone_nvrtc() {
    each_header_alone(BackendKind::Cuda, RtcTarget::Nvrtc, "sm_90");
}
#[test]
fn the_api_real_kernels_use_nvrtc() {
    uses_compile(BackendKind::Cuda, "sm_90");
}

/// With the toolkit's include folder on the path, NVRTC gets the toolkit's own fp16/bf16/fp8
/// headers (they have `__nv_fp8x4_e4m3`, ours do not) and still our `<stdint.h>`.
#[test]
fn builtins_step_aside_for_a_toolkit_on_nvrtc() {
    let Some(b) = compiler(BackendKind::Cuda) else {
        return;
    };
    let Some(root) = std::env::var_os("CUDA_PATH") else {
        assert!(!common::on_ci(), "CI sets CUDA_PATH");
        return;
    };
    let inc = format!(
        "-I{}",
        std::path::Path::new(&root).join("include").display()
    );
    let src = "#include <cuda_fp8.h>\n#include <stdint.h>\n\
               extern \"C\" __global__ void k(float4* x, __nv_fp8x4_e4m3* y, uint8_t* z) {\n\
               y[0] = __nv_fp8x4_e4m3(x[0]); z[0] = __half2ushort_rz(__float2half_rz(x[0].x)); }\n";
    assert!(
        compile(b, src, &["--gpu-architecture=sm_90"]).is_err(),
        "ours lack fp8x4"
    );
    compile(b, src, &["--gpu-architecture=sm_90", &inc]).unwrap();
    compile(b, USES, &["--gpu-architecture=sm_90", &inc]).unwrap();
}

#[cfg(feature = "backend-hip")]
#[test]
fn each_header_alone_hiprtc() {
    each_header_alone(BackendKind::Hip, RtcTarget::Hiprtc, "gfx90a");
}
#[cfg(feature = "backend-hip")]
#[test]
fn the_api_real_kernels_use_hiprtc() {
    // A 64-lane and a 32-lane target (5.2.3 knows no RDNA3; gfx1030 is RDNA2).
    uses_compile(BackendKind::Hip, "gfx90a");
    uses_compile(BackendKind::Hip, "gfx1030");
}
#[cfg(feature = "backend-hip")]
#[test]
fn activemask_and_ballot_are_wave32_only_on_hiprtc() {
    let Some(b) = compiler(BackendKind::Hip) else {
        return;
    };
    let src = "extern \"C\" __global__ void k(unsigned* m) { m[threadIdx.x] = __activemask() ^ __ballot_sync(0xffffffffu, 1); }\n";
    compile(b, src, &["--gpu-architecture=gfx1030"]).unwrap();
    let e = compile(b, src, &["--gpu-architecture=gfx90a"]).unwrap_err();
    assert!(e.contains("64-lane"), "{e}");
}
