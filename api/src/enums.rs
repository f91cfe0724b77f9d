//! The newtype-enum machinery shared by every generated CUDA enum.
//!
//! Every C enum that crosses the FFI boundary is a `#[repr(transparent)]` newtype over its C
//! integer with associated constants (ash's pattern), never a Rust `enum`: a value the tables do
//! not know (a newer driver, a hallucinated HIP code) must stay representable without UB.

use core::fmt;

/// Where a constant comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Declared in the pinned CUDA headers.
    Cuda,
    /// Invented by anycuda for a HIP constant with no CUDA counterpart; holds the HIP name.
    Hallucinated {
        /// The HIP enumerator this constant stands for, e.g. `hipErrorRuntimeMemory`.
        hip_name: &'static str,
    },
    /// Defined by anycuda where CUDA lacks a code it needs (e.g. `NVRTC_ERROR_NOT_SUPPORTED`:
    /// NVRTC has no "not supported" result, yet a missing optional entry point must return one).
    Anycuda,
}

/// One named constant of a CUDA enum, as recorded by codegen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstInfo {
    /// The CUDA name, e.g. `CUDA_ERROR_INVALID_VALUE`.
    pub name: &'static str,
    /// The numeric value, widened to `i64`.
    pub value: i64,
    /// A one-paragraph description (the header's doc comment, or codegen's for hallucinated ones).
    pub description: &'static str,
    /// Whether CUDA declares it or anycuda invented it.
    pub origin: Origin,
}

/// Implemented by every generated enum newtype.
pub trait CudaEnum: Copy + Eq + core::hash::Hash + fmt::Debug + Send + Sync + 'static {
    /// The CUDA type name, e.g. `CUresult`.
    const TYPE_NAME: &'static str;
    /// Every named constant, in header order (aliases included), hallucinated ones last.
    const CONSTANTS: &'static [ConstInfo];
    /// The raw value, widened.
    fn to_i64(self) -> i64;
    /// Builds a value from a raw integer; out-of-range bits are truncated as a C cast would.
    fn from_i64(v: i64) -> Self;

    /// The first constant with this value (the canonical name; later aliases are skipped).
    fn info(self) -> Option<&'static ConstInfo> {
        let v = self.to_i64();
        Self::CONSTANTS.iter().find(|c| c.value == v)
    }
    /// The constant's CUDA name, if the value is known.
    fn name(self) -> Option<&'static str> {
        self.info().map(|c| c.name)
    }
    /// The constant's description, if the value is known.
    fn description(self) -> Option<&'static str> {
        self.info().map(|c| c.description)
    }
    /// Looks a constant up by its CUDA name.
    fn from_name(name: &str) -> Option<Self> {
        Self::CONSTANTS
            .iter()
            .find(|c| c.name == name)
            .map(|c| Self::from_i64(c.value))
    }
}

/// Formats an enum value as its name, or `Type(raw)` when the value is unknown.
///
/// # Errors
/// Only the formatter's own errors.
pub fn fmt_enum<E: CudaEnum>(v: E, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match v.name() {
        Some(n) => f.write_str(n),
        None => write!(f, "{}({})", E::TYPE_NAME, v.to_i64()),
    }
}

/// Implements [`CudaEnum`], `Debug` and `Display` for a generated newtype.
///
/// Used by generated code: `cuda_enum!(CUresult, u32, "CUresult", CONSTANTS_TABLE);`
#[macro_export]
macro_rules! cuda_enum {
    ($ty:ident, $repr:ty, $cname:literal, $table:expr) => {
        impl $crate::enums::CudaEnum for $ty {
            const TYPE_NAME: &'static str = $cname;
            const CONSTANTS: &'static [$crate::enums::ConstInfo] = $table;
            #[inline]
            fn to_i64(self) -> i64 {
                self.0 as i64
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                Self(v as $repr)
            }
        }
        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::enums::fmt_enum(*self, f)
            }
        }
        impl ::core::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                $crate::enums::fmt_enum(*self, f)
            }
        }
    };
}
