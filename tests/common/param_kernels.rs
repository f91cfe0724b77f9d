//! Kernels with parameters of many kinds and their layout as NVRTC's cubin records it
//! (`EIATTR_KPARAM_INFO`, which the CUDA driver reports): shared by tests/param_layouts.rs
//! (parsers, no GPU) and tests/core_gpu_launch.rs (what `Kernel::arguments_info` says).

#![allow(dead_code)]

use anycuda::params::Param;

/// Kernels with parameters of many kinds: 1/2/8-byte scalars, pointers, structs with 8- and
/// 16-byte alignment, arrays inside structs, a 100-byte struct with alignment 1, vector types,
/// a template instance.
pub const SOURCE: &str = r#"
struct S3 { char c; double d; };
struct __align__(16) A16 { float x[3]; };
struct Arr { int a[5]; };
struct Big { char b[100]; };
struct Pair { short s; char c; };
extern "C" __global__ void many(char a, short b, double c, int* p, S3 s, A16 q, Arr r,
    unsigned char u, float4 f4, long long ll, bool z, Big big, char tail) {
  if (p) *p = a + b + (int)c + s.c + (int)q.x[0] + r.a[4] + u + (int)f4.w + (int)ll + z
      + big.b[99] + tail;
}
extern "C" __global__ void none() {}
extern "C" __global__ void small(signed char a, Pair p, short b, int *out) {
  *out = a + p.s + p.c + b;
}
// Uses the implicit arguments (block and grid sizes), which AMD code objects list as hidden
// arguments after the explicit ones.
extern "C" __global__ void implicit(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (float)(gridDim.x * blockDim.x);
}
template <typename T> __global__ void scale(T *x, T v, unsigned n) { if (n) x[0] = v; }
template __global__ void scale<double>(double *, double, unsigned);
"#;

/// The template instance's symbol.
pub const SCALE: &str = "_Z5scaleIdEvPT_S0_j";

pub fn p(offset: usize, size: usize) -> Param {
    Param { offset, size }
}

/// What NVRTC 13's cubin says (`EIATTR_KPARAM_INFO`), by kernel.
pub fn expected() -> Vec<(&'static str, Vec<Param>)> {
    vec![
        (
            "many",
            vec![
                p(0, 1),
                p(2, 2),
                p(8, 8),
                p(16, 8),
                p(24, 16),
                p(48, 16),
                p(64, 20),
                p(84, 1),
                p(96, 16),
                p(112, 8),
                p(120, 1),
                p(121, 100),
                p(221, 1),
            ],
        ),
        ("none", vec![]),
        ("small", vec![p(0, 1), p(2, 4), p(6, 2), p(8, 8)]),
        ("implicit", vec![p(0, 8), p(8, 4)]),
        (SCALE, vec![p(0, 8), p(8, 8), p(16, 4)]),
    ]
}
