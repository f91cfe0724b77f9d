//! cudarc's `nvrtc` module: [`compile_ptx`], [`compile_ptx_with_opts`], [`CompileOptions`],
//! [`CompileError`], [`Ptx`], over anycuda's NVRTC (NVRTC on CUDA, hipRTC on HIP).
//!
//! On HIP the compiled "PTX" is an AMD code object, which `CudaContext::load_module` loads. With
//! no AMD device present, name the target: `options: vec!["--anycuda-hip-arch=gfx90a".into()]`
//! (NVRTC ignores that option).

pub mod result;
pub mod safe;

/// NVRTC's raw API under cudarc's `sys` names: anycuda's [`anycuda::nvrtc`].
pub mod sys {
    pub use anycuda::nvrtc::*;
}

pub use safe::*;
