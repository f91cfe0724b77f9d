//! anycuda-rtc: the run-time compiler front end of anycuda, written once for both backends.
//!
//! What every NVRTC-shaped compile goes through before and after a vendor compiler (NVRTC or
//! hipRTC) sees it: NVRTC 13.5's option table and its validator ([`rtc_options`]), the input
//! checks and the large-stack compile thread ([`rtc_input`]), anycuda's built-in headers
//! ([`rtc_headers`]) and nvcc's include search ([`rtc_include`]), the program lifecycle both
//! backends serve `nvrtc*` with ([`rtc_program`]), the source bundles `anycuda nvcc` puts in
//! PTX ([`rtc_bundle`]), the readers of compiled code images (ELF, AMD's MessagePack notes,
//! kernel parameters: [`params`]), NVIDIA's fat binaries ([`fatbin`]), the persistent program
//! cache ([`cache`]), and the PTX to
//! HIP C++ translator ([`ptx`], not yet wired into module loading).
//!
//! Where it sits: on `anycuda-api` (the vocabulary: types, traits, handle tables), below the
//! backends (`anycuda-cuda`, `anycuda-hip`), which use it to serve NVRTC and to compile source
//! bundles, and below the `anycuda` crate, whose safe layer (`anycuda::core::Program`) uses its
//! checks and cache (`anycuda::core::cache` is [`cache`]). It names no backend and nothing
//! above itself: the bundle compiles take the program cache here ([`rtc_bundle::code_cache`]),
//! so no layer above has to install it.

#![warn(missing_docs)]

// The CUDA-named types the macros below spell out, reachable as `$crate::__api` from every
// crate that expands them, whether or not it names anycuda-api itself.
#[doc(hidden)]
pub use anycuda_api as __api;

pub mod cache;
pub mod fatbin;
pub mod params;
pub mod ptx;
pub mod rtc_bundle;
#[macro_use]
mod rtc_headers_extra;
pub mod rtc_headers;
pub mod rtc_include;
pub mod rtc_input;
pub mod rtc_options;
pub mod rtc_program;
