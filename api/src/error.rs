//! Errors users handle: the three CUDA result types as `Result`s, and load failures.
//!
//! `CUresult::result()` (and its runtime/NVRTC twins) is the one choke point turning a CUDA code
//! into a `Result` (cudarc's layering), so safe layers never compare raw codes by hand.

use crate::driver::CUresult;
use crate::enums::CudaEnum;
use crate::hallucinated::{classify, Invented};
use crate::nvrtc::nvrtcResult;
use crate::runtime::cudaError_t;
use core::fmt;

/// Writes `NAME (value): description`, naming invented and unknown values honestly.
fn describe<E: CudaEnum>(code: E, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let v = code.to_i64();
    match (code.info(), classify(v)) {
        (Some(c), _) if c.description.is_empty() => write!(f, "{} ({v})", c.name),
        (Some(c), _) => write!(f, "{} ({v}): {}", c.name, c.description),
        (None, Some(Invented::Unknown(raw))) => write!(
            f,
            "{}({v}): HIP code {raw}, unknown when anycuda's tables were generated",
            E::TYPE_NAME
        ),
        (None, _) => write!(f, "{}({v}): unknown code", E::TYPE_NAME),
    }
}

macro_rules! result_error {
    ($(#[$doc:meta])* $err:ident, $code:ty, $success:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $err(pub $code);

        impl $err {
            /// The code carried by this error.
            pub fn code(self) -> $code {
                self.0
            }
            /// For a code invented for HIP (hallucinated or unknown), the raw HIP value.
            pub fn hip_code(self) -> Option<i64> {
                match classify(self.0.to_i64())? {
                    Invented::Named(v) | Invented::Unknown(v) => Some(v),
                }
            }
        }
        impl fmt::Display for $err {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                describe(self.0, f)
            }
        }
        impl fmt::Debug for $err {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($err), self.0)
            }
        }
        impl std::error::Error for $err {}

        impl $code {
            /// `Ok(())` for success, else the error.
            ///
            /// # Errors
            /// Every code but success.
            #[inline]
            pub fn result(self) -> Result<(), $err> {
                if self == <$code>::$success {
                    Ok(())
                } else {
                    Err($err(self))
                }
            }
        }
        impl From<$err> for $code {
            fn from(e: $err) -> Self {
                e.0
            }
        }
    };
}

result_error!(
    /// A failed Driver API call (`CUresult` other than `CUDA_SUCCESS`).
    DriverError,
    CUresult,
    CUDA_SUCCESS
);
result_error!(
    /// A failed Runtime API call (`cudaError_t` other than `cudaSuccess`).
    RuntimeError,
    cudaError_t,
    cudaSuccess
);
result_error!(
    /// A failed NVRTC call (`nvrtcResult` other than `NVRTC_SUCCESS`).
    NvrtcError,
    nvrtcResult,
    NVRTC_SUCCESS
);

/// Why a backend library could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// No candidate file could be opened.
    #[error("{library} not found; tried: {}", tried.join("; "))]
    NotFound {
        /// What was being loaded, e.g. `CUDA driver (libcuda)`.
        library: &'static str,
        /// Every candidate with the loader's reason, in search order.
        tried: Vec<String>,
    },
    /// The library opened but lacks an entry point anycuda cannot work without.
    #[error("{library} at {path} lacks the required symbol {symbol}")]
    MissingSymbol {
        /// What was being loaded.
        library: &'static str,
        /// The file that was opened.
        path: String,
        /// The missing symbol.
        symbol: String,
    },
    /// The library is older than anycuda supports.
    #[error("{library} at {path} is version {found}; anycuda needs {needed} or newer")]
    TooOld {
        /// What was being loaded.
        library: &'static str,
        /// The file that was opened.
        path: String,
        /// The version it reported.
        found: String,
        /// The oldest supported version.
        needed: String,
    },
    /// The library loaded but its version query failed.
    #[error("{library} at {path}: version query failed: {detail}")]
    VersionQuery {
        /// What was being loaded.
        library: &'static str,
        /// The file that was opened.
        path: String,
        /// The failing call and its result.
        detail: String,
    },
    /// The backend was not compiled into this build.
    #[error("the {0} backend is not compiled in (enable the cargo feature backend-{0})")]
    NotCompiledIn(&'static str),
}
