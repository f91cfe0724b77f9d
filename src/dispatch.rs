//! The dispatch macros: one `match` over the compiled-in backends (wgpu's and cpal's pattern).

/// Evaluates `$e` with `$b` bound to the concrete backend inside `$backend`.
///
/// Also used by the generated `src/generated/{driver,runtime}.rs` (textual scope: `mod
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

/// NVRTC's surface (the Driver and Runtime surfaces are generated as plain code, see
/// `codegen/src/emit_traits.rs`: 760 items would exceed this recursive macro's limits).
///
/// For each listed CUDA function: implements the trait method on [`crate::Backend`] by
/// dispatch, and defines the C-named free function that calls the active backend. With no
/// usable backend the free function returns `none`, or the item's own `else` expression (used
/// where anycuda answers without any library, like error names).
///
/// Items are `[unsafe] fn name(args) -> Ret;` optionally followed by `else expr;`.
macro_rules! surface {
    ($trait:ident, none = $none:expr; $($item:tt)*) => {
        surface!(@norm $trait, $none, []; $($item)*);
    };

    // Normalise: give every item an `else` (its own, or `none`) so later arms see one shape.
    (@norm $trait:ident, $none:expr, [$($done:tt)*];) => {
        surface!(@emit $trait; $($done)*);
    };
    (@norm $trait:ident, $none:expr, [$($done:tt)*]; $kw:ident fn $name:ident $args:tt -> $ret:ty; else $fb:expr; $($rest:tt)*) => {
        surface!(@norm $trait, $none, [$($done)* ($kw) $name $args $ret, ($fb);]; $($rest)*);
    };
    (@norm $trait:ident, $none:expr, [$($done:tt)*]; $kw:ident fn $name:ident $args:tt -> $ret:ty; $($rest:tt)*) => {
        surface!(@norm $trait, $none, [$($done)* ($kw) $name $args $ret, ($none);]; $($rest)*);
    };
    (@norm $trait:ident, $none:expr, [$($done:tt)*]; fn $name:ident $args:tt -> $ret:ty; else $fb:expr; $($rest:tt)*) => {
        surface!(@norm $trait, $none, [$($done)* (safe) $name $args $ret, ($fb);]; $($rest)*);
    };
    (@norm $trait:ident, $none:expr, [$($done:tt)*]; fn $name:ident $args:tt -> $ret:ty; $($rest:tt)*) => {
        surface!(@norm $trait, $none, [$($done)* (safe) $name $args $ret, ($none);]; $($rest)*);
    };

    (@emit $trait:ident; $(($kw:ident) $name:ident ($($arg:ident: $ty:ty),* $(,)?) $ret:ty, ($fb:expr);)*) => {
        impl anycuda_api::traits::$trait for $crate::Backend {
            $(surface!(@method $kw $name ($($arg: $ty),*) $ret);)*
        }
        $(surface!(@free $kw $trait $name ($($arg: $ty),*) $ret, $fb);)*
    };

    (@method unsafe $name:ident ($($arg:ident: $ty:ty),*) $ret:ty) => {
        #[inline]
        unsafe fn $name(&self, $($arg: $ty),*) -> $ret {
            // SAFETY: forwarded under the caller's contract.
            dispatch_api!(*self, b => unsafe { b.$name($($arg),*) })
        }
    };
    (@method safe $name:ident ($($arg:ident: $ty:ty),*) $ret:ty) => {
        surface!(@method unsafe $name ($($arg: $ty),*) $ret);
    };

    (@free unsafe $trait:ident $name:ident ($($arg:ident: $ty:ty),*) $ret:ty, $fb:expr) => {
        #[doc = concat!("`", stringify!($name), "` on the active backend, with CUDA's signature and values.")]
        ///
        /// # Safety
        /// The contract of the CUDA function of the same name: every pointer valid for what the
        /// CUDA documentation says the function reads or writes.
        #[inline]
        pub unsafe fn $name($($arg: $ty),*) -> $ret {
            match $crate::select::active() {
                // SAFETY: forwarded under the caller's contract.
                Some(b) => unsafe { <$crate::Backend as anycuda_api::traits::$trait>::$name(&b, $($arg),*) },
                #[allow(unused_unsafe)]
                None => unsafe { $fb },
            }
        }
    };
    (@free safe $trait:ident $name:ident ($($arg:ident: $ty:ty),*) $ret:ty, $fb:expr) => {
        #[doc = concat!("`", stringify!($name), "` on the active backend, with CUDA's signature and values.")]
        #[inline]
        pub fn $name($($arg: $ty),*) -> $ret {
            match $crate::select::active() {
                // SAFETY: the functions listed as safe take no pointers (error strings).
                Some(b) => unsafe { <$crate::Backend as anycuda_api::traits::$trait>::$name(&b, $($arg),*) },
                None => $fb,
            }
        }
    };
}
