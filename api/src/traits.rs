//! The backend-neutral traits. Every method has the CUDA C name and signature; a backend that
//! cannot serve one keeps the default body, which returns the API's not-supported error.
//!
//! `Driver`, `Runtime` and `Rtc` are generated (every function of the pinned headers, see
//! `codegen/src/emit_traits.rs`).
//!
//! Methods are `unsafe` because they take raw pointers exactly as the C API does: each has the
//! contract of the CUDA function of the same name (valid pointers of the documented sizes). The
//! few that take no pointer (error strings) are `unsafe` only so that every method has one shape,
//! which lets `api_trait!` and [`served!`](crate::served!) list methods and served functions
//! from the code.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

use crate::backend::{BackendKind, LibraryReport};
use crate::driver::CUdevice;
use crate::error::DriverError;

/// The CUDA Driver API (`cu*`), Runtime API (`cuda*`) and NVRTC (`nvrtc*`) traits, generated from the pinned
/// headers (`api/src/generated/traits.rs`): one method per function, CUDA signatures. Defaults
/// are the API's not-supported error, except those in `codegen/trait-defaults.txt`.
pub use crate::generated::traits::{
    Driver, Rtc, Runtime, DRIVER_METHODS, RTC_METHODS, RUNTIME_METHODS,
};

/// Defines a CUDA API trait whose methods all have the shape `unsafe fn name(..) -> R { default }`,
/// plus a const listing the method names (what anycuda exposes of that API).
macro_rules! api_trait {
    ($(#[$tm:meta])* pub trait $name:ident, $methods:ident {
        $($(#[$m:meta])* unsafe fn $f:ident ($($p:tt)*) -> $ret:ty $body:block)*
    }) => {
        $(#[$tm])*
        pub trait $name {
            $($(#[$m])* unsafe fn $f($($p)*) -> $ret $body)*
        }
        #[doc = concat!("Every method of [`", stringify!($name), "`]: the functions of that API anycuda exposes.")]
        pub const $methods: &[&str] = &[$(stringify!($f)),*];
    };
}
// Path-based use by the generated traits (`crate::traits::api_trait!`).
pub(crate) use api_trait;

/// Implements a CUDA API trait for a backend and lists what the impl overrides, so coverage
/// reports are derived from the code rather than kept by hand.
///
/// `served!(DRIVER_SERVED; impl Driver for MyBackend { unsafe fn cuInit(&self, ..) -> CUresult {..} })`
/// (the trait may also be named by path: `impl anycuda_api::traits::Driver for ..`).
#[macro_export]
macro_rules! served {
    ($list:ident; impl $($trait:ident)::+ for $ty:ty {
        $($(#[$m:meta])* unsafe fn $f:ident ($($p:tt)*) -> $ret:ty $body:block)*
    }) => {
        impl $($trait)::+ for $ty {
            $($(#[$m])* unsafe fn $f($($p)*) -> $ret $body)*
        }
        #[doc = concat!("The [`", stringify!($($trait)::+), "`] functions this backend serves.")]
        pub const $list: &[&str] = &[$(stringify!($f)),*];
    };
}

/// What a backend is, beyond the three CUDA APIs: its identity and its libraries.
pub trait Api: Driver + Runtime + Rtc + Send + Sync + 'static {
    /// Which backend this is.
    const KIND: BackendKind;
    /// Each library this backend uses, with its path and version or why it failed to load.
    fn libraries(&self) -> Vec<LibraryReport>;
    /// The device's compiler target: `sm_90` on CUDA, the gfx arch (`gfx90a:sramecc+:xnack-`)
    /// on AMD.
    ///
    /// # Errors
    /// The driver error of the underlying query (invalid device, no device, ...).
    fn device_arch(&self, dev: CUdevice) -> Result<String, DriverError>;
}
