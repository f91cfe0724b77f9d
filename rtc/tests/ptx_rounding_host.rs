//! The PTX support header's exact-rounding helpers (f32 `.rz`/`.rm`/`.rp` arithmetic, f64
//! `add`/`mul`/`div`/`sqrt`/`rcp` in every mode, subnormal results included, conversions) against the host FPU under `fesetround`: the header is
//! compiled for the host by the system C++ compiler (its NVRTC branch, the `__*_rn` intrinsics
//! shimmed by plain round-to-nearest operations) with `ptx_rounding_host.cpp`, over 300 000
//! random and edge inputs (NaN, +-0, denormals, FLT_MAX, infinities). The half-precision
//! helpers (f16 and bf16 `add`/`sub`/`mul`/`fma`, conversions from f32, f64 and 64-bit
//! integers in every mode) likewise, against x87 `nearbyintl` on each format's grid, every half
//! decoded and encoded back, and a table of what an H200 answered for NaN, infinity, subnormal,
//! `.sat` and `.ftz` cases. Needs `c++`; missing, it fails under `CI=true` and is skipped
//! elsewhere.

use std::process::Command;

const SHIM: &str = r#"
#define __device__
#define __forceinline__ inline
#include <math.h>
#include <cmath>
#include <cstddef>
static float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
static float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
static float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
static float __fdiv_rn(float a, float b) { volatile float r = a / b; return r; }
static double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
static double __dsub_rn(double a, double b) { volatile double r = a - b; return r; }
static double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
static double __ddiv_rn(double a, double b) { volatile double r = a / b; return r; }
static float __fsqrt_rn(float a) { return std::sqrt(a); }
static double __dsqrt_rn(double a) { return std::sqrt(a); }
static float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
struct ptx_dim3 { unsigned x, y, z; };
static ptx_dim3 threadIdx, blockDim;
static long long clock64() { return 0; }
static size_t __cvta_generic_to_shared(void* p) { return (size_t)p; }
static void* __cvta_shared_to_generic(size_t p) { return (void*)p; }
// The warp intrinsics the header's NVRTC branch calls (not exercised here: one host thread).
static unsigned __activemask() { return 0xffffffffu; }
static unsigned __shfl_sync(unsigned, unsigned v, int) { return v; }
static void __syncwarp(unsigned) {}
static unsigned __ballot_sync(unsigned m, int p) { return p ? m : 0u; }
static int __all_sync(unsigned, int p) { return p; }
static int __any_sync(unsigned, int p) { return p; }
static int __uni_sync(unsigned, int) { return 1; }
static unsigned long long atomicCAS(unsigned long long* p, unsigned long long o, unsigned long long n) { unsigned long long v = *p; if (v == o) *p = n; return v; }
// The block-level helpers (bar.red) and their one host thread.
#define __shared__ static
static void __syncthreads() {}
static unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }
"#;

#[test]
fn rounding_helpers_match_the_host_fpu() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if Command::new("c++").arg("--version").output().is_err() {
        assert!(!ci, "c++ is missing (CI=true: install g++)");
        eprintln!("SKIP: no c++ compiler");
        return;
    }
    let dir = std::env::temp_dir().join(format!("anycuda-ptx-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("t.cpp");
    let harness = include_str!("ptx_rounding_host.cpp");
    std::fs::write(
        &src,
        format!("{SHIM}\n{}\n{harness}", anycuda_rtc::ptx::SUPPORT_HEADER),
    )
    .unwrap();
    let exe = dir.join("t");
    let out = Command::new("c++")
        .args([
            "-std=c++17",
            "-O1",
            "-ffp-contract=off",
            "-frounding-math",
            "-w",
            "-o",
        ])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "c++ failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}");
    assert!(text.contains("0 mismatches"), "{text}");
}
