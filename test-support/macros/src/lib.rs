//! The `#[gpu_test]` attribute of `anycuda-test` (depend on that crate, not on this one).
//!
//! ```text
//! #[gpu_test]                                         a GPU, any backend
//! #[gpu_test(gpus = 2)]                               2 GPUs
//! #[gpu_test(backend = "hip")]                        a GPU, the HIP backend ("cuda": CUDA's)
//! #[gpu_test(platform = "nvidia")]                    the HIP backend on HIP's NVIDIA platform
//! #[gpu_test(gpus = 2, run_by = "ci/nccl-gpu-test.sh")]   the script that runs it, if not
//!                                                     ci/gpu-test.sh (for the ignore reason)
//! fn name() { ... }
//! ```
//!
//! It expands to `#[test]`, `#[ignore = "needs <need>: <script> runs it (by hand: --ignored on
//! such a machine)"]` and the function with one statement first, `anycuda_test::__check(need,
//! "name")`, which ends the process with exit status 77 and a `not run: ...` line when the
//! machine lacks the need.

#![warn(missing_docs)]

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{parse_macro_input, Expr, ExprLit, ItemFn, Lit, MetaNameValue, Token};

#[allow(dead_code)] // the runtime half (Backend::from_env_value, ...) is anycuda-test's
#[path = "../../src/need.rs"]
mod need;

use need::{Backend, Need, Platform, DEFAULT_RUNNER};

/// Marks a test that needs a GPU machine: `#[gpu_test]`, `#[gpu_test(gpus = 2)]`,
/// `#[gpu_test(backend = "hip")]`, `#[gpu_test(platform = "nvidia")]`, and
/// `run_by = "ci/<script>.sh"` for the script named in the ignore reason. See the crate docs.
#[proc_macro_attribute]
pub fn gpu_test(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = match Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse(attr) {
        Ok(a) => a,
        Err(e) => return e.to_compile_error().into(),
    };
    let mut func = parse_macro_input!(item as ItemFn);
    let (need, run_by) = match read_args(&args) {
        Ok(v) => v,
        Err(e) => return e.to_compile_error().into(),
    };
    for a in &func.attrs {
        if a.path().is_ident("test") || a.path().is_ident("ignore") {
            return syn::Error::new_spanned(a, "#[gpu_test] writes #[test] and #[ignore] itself")
                .to_compile_error()
                .into();
        }
    }
    let reason = need.ignore_reason(&run_by);
    let name = func.sig.ident.to_string();
    let need = need_expr(&need);
    let check: syn::Stmt = syn::parse_quote! {
        ::anycuda_test::__check(#need, #name);
    };
    func.block.stmts.insert(0, check);
    quote! {
        #[test]
        #[ignore = #reason]
        #func
    }
    .into()
}

/// The need and the runner script from `key = "value"` pairs.
fn read_args(args: &Punctuated<MetaNameValue, Token![,]>) -> syn::Result<(Need, String)> {
    let mut need = Need::default();
    let mut run_by = DEFAULT_RUNNER.to_string();
    for a in args {
        let key = a.path.get_ident().map(ToString::to_string).ok_or_else(|| {
            syn::Error::new_spanned(&a.path, "expected gpus, backend, platform or run_by")
        })?;
        let value = match &a.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => s.value(),
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }) => i.base10_digits().to_string(),
            other => return Err(syn::Error::new_spanned(other, "expected a literal")),
        };
        if key == "run_by" {
            run_by = value;
            continue;
        }
        need.set(&key, &value)
            .map_err(|e| syn::Error::new_spanned(a, e))?;
    }
    Ok((need, run_by))
}

/// `::anycuda_test::need::Need { .. }` with `need`'s values.
fn need_expr(need: &Need) -> proc_macro2::TokenStream {
    let gpus = need.gpus;
    let backend = match need.backend {
        None => quote!(::core::option::Option::None),
        Some(Backend::Cuda) => quote!(::core::option::Option::Some(
            ::anycuda_test::need::Backend::Cuda
        )),
        Some(Backend::Hip) => quote!(::core::option::Option::Some(
            ::anycuda_test::need::Backend::Hip
        )),
    };
    let platform = match need.platform {
        None => quote!(::core::option::Option::None),
        Some(Platform::Nvidia) => {
            quote!(::core::option::Option::Some(
                ::anycuda_test::need::Platform::Nvidia
            ))
        }
        Some(Platform::Amd) => quote!(::core::option::Option::Some(
            ::anycuda_test::need::Platform::Amd
        )),
    };
    quote! {
        ::anycuda_test::need::Need { gpus: #gpus, backend: #backend, platform: #platform }
    }
}
