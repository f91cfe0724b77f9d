//! anycuda-api: the backend-neutral vocabulary of anycuda.
//!
//! It holds the CUDA-named types generated from the pinned CUDA headers (enums as newtypes with
//! associated constants, handles, structs), the error types, the `Driver`, `Runtime` and `Rtc`
//! traits that each backend implements, and the library search both backends share. The
//! compiler front end (NVRTC option and input checks, built-in headers, source bundles, the
//! code-image readers, the program cache) is the crate one layer up, `anycuda-rtc`.

#![warn(missing_docs)]

pub mod arg_checks;
pub mod backend;
pub mod catalog;
pub mod cublas;
pub mod cublaslt;
pub mod cufft;
pub mod curand;
pub mod cusparse;
pub mod enums;
pub mod error;
pub mod hallucinated;
pub mod handles;
pub mod loader;
pub mod nccl;
pub mod nvcc;
pub mod nvjitlink;
pub mod nvml;
pub mod reentry;
pub mod strings;
pub mod traits;
pub mod unions;

#[allow(missing_docs, clippy::all)]
mod generated;

/// CUDA Driver API types (`cuda.h`), with CUDA names and values.
pub mod driver {
    pub use crate::generated::driver::*;
}
/// CUDA Runtime API types (`driver_types.h`, `cuda_runtime_api.h` and what they include).
pub mod runtime {
    pub use crate::generated::runtime::*;
}
/// NVRTC types (`nvrtc.h`).
pub mod nvrtc {
    pub use crate::generated::nvrtc::*;
}
/// The catalogue of every CUDA function in the pinned headers.
pub mod functions {
    pub use crate::generated::functions::*;
}

pub use backend::{BackendKind, LibraryReport, LoadedLibrary};
pub use catalog::FnInfo;
pub use enums::{ConstInfo, CudaEnum, Origin};
pub use error::{DriverError, LoadError, NvrtcError, RuntimeError};
pub use traits::{Api, Driver, Rtc, Runtime};
