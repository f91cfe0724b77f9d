//! The dispatch macros: one `match` over the compiled-in backends (wgpu's and cpal's pattern).

/// Evaluates `$e` with `$b` bound to the concrete backend inside `$backend`.
///
/// Also used by the generated `src/generated/{driver,runtime,nvrtc}.rs` (textual scope: `mod
/// generated` is declared after `mod dispatch` in `lib.rs`).
macro_rules! dispatch_api {
    ($backend:expr, $b:ident => $e:expr) => {
        match $backend {
            #[cfg(feature = "backend-cuda")]
            $crate::Backend::Cuda($b) => $e,
            #[cfg(feature = "backend-hip")]
            $crate::Backend::Hip($b) => $e,
        }
    };
}
