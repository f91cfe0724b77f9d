//! Rust types with a CUDA C spelling, as in cudarc (for generating kernel source).

/// The CUDA C name of a Rust type (`f32` -> `"float"`).
pub trait CudaTypeName {
    /// The name used in CUDA C source.
    const NAME: &'static str;
}

macro_rules! cuda_type {
    ($($t:ty => $n:expr),* $(,)?) => {
        $(impl CudaTypeName for $t {
            const NAME: &'static str = $n;
        })*
    };
}

cuda_type!(
    bool => "bool", i8 => "char", i16 => "short", i32 => "int", i64 => "long",
    isize => "intptr_t", u8 => "unsigned char", u16 => "unsigned short",
    u32 => "unsigned int", u64 => "unsigned long", usize => "size_t",
    f32 => "float", f64 => "double",
);
#[cfg(feature = "f16")]
cuda_type!(half::f16 => "__half", half::bf16 => "__nv_bfloat16");
#[cfg(feature = "f8")]
cuda_type!(float8::F8E4M3 => "__nv_fp8_e4m3", float8::F8E5M2 => "__nv_fp8_e5m2");
#[cfg(feature = "f4")]
cuda_type!(
    float4::F4E2M1 => "__nv_fp4_e2m1",
    float4::F4E2M1x2 => "__nv_fp4x2_e2m1",
    float4::E8M0 => "__nv_fp8_e8m0",
);
