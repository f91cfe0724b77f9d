//! nvJitLink, NVIDIA's JIT linker for LTO-IR (PyPI `nvidia-nvjitlink`, fetched by
//! `ci/fetch-inputs.sh` into the CUDA inputs folder).
//!
//! Outputs:
//! - `api/src/generated/nvjitlink.rs`: nvJitLink's types (enums as newtypes, the handle), with
//!   anycuda's own `NVJITLINK_ERROR_NOT_SUPPORTED`;
//! - `api/src/generated/nvjitlink_fns.rs`: the function catalogue, the function-pointer table,
//!   the `NvJitLink` trait and the table's impl of it;
//! - `backends/hip/src/generated/nvjitlink.rs`: the HIP backend's impl, which answers
//!   `NVJITLINK_ERROR_NOT_SUPPORTED` for every function (hipRTC's `hiprtcLink*` is not mapped);
//! - `src/generated/nvjitlink.rs`: the facade's C-named free functions, dispatched to the
//!   active backend.
//!
//! The header's public names are `static inline` wrappers around versioned symbols
//! (`__nvJitLinkCreate_13_5`); with `NVJITLINK_NO_INLINE` it declares them as plain externs,
//! which the library also exports. The catalogue resolves those plain names, which every
//! libnvJitLink.so.13 exports (a 13.0 library lacks the `_13_5` symbols), and leaves the
//! versioned `__nvJitLink*` declarations out.

use crate::bindgen_run::{self, Job};
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::model::{self, FnDecl};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span};
use quote::quote;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn pin(root: &Path, key: &str) -> Result<String> {
    let script = root.join("ci/fetch-inputs.sh");
    let text = std::fs::read_to_string(&script)
        .with_context(|| format!("reading the pins from {}", script.display()))?;
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix(key)?.strip_prefix("=\"")?;
            Some(rest.split('"').next()?.to_string())
        })
        .with_context(|| format!("no `{key}=\"...\"` pin in {}", script.display()))
}

/// Generates the four outputs.
pub fn generate(root: &Path, ranges: &Ranges) -> Result<Vec<(PathBuf, String)>> {
    let version = pin(root, "NVJITLINK_VERSION")?;
    let inputs = root.join(".cache/inputs/cuda");
    let include = inputs.join("nvidia/cu13/include");
    let header = include.join("nvJitLink.h");
    let info = inputs.join(format!("nvidia_nvjitlink-{version}.dist-info"));
    if !header.exists() || !info.exists() {
        bail!(
            "missing or stale codegen input {} (pinned nvidia-nvjitlink {version}); run `bash ci/fetch-inputs.sh`",
            header.display()
        );
    }
    let b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nvJitLink.h"],
                allow_files: &[r".*/nvJitLink\.h"],
                clang_args: vec!["-DNVJITLINK_NO_INLINE".into()],
            },
            &include,
        )?,
        "nvJitLink.h",
    )?;
    let text = std::fs::read_to_string(&header)?;
    let what = format!("nvidia-nvjitlink {version} (nvJitLink.h)");

    let mut extras: Extras = BTreeMap::new();
    extras.entry("nvJitLinkResult".to_string()).or_default().push(ExtraConst {
        name: "NVJITLINK_ERROR_NOT_SUPPORTED".into(),
        value: ranges.anycuda_base,
        description: "anycuda: not supported. nvJitLink declares no \"unavailable\" result, yet anycuda needs one: it returns this when libnvJitLink could not be loaded (the load error is logged), when the loaded one lacks the entry point, and for every call on the HIP backend, which has no nvJitLink.".into(),
        origin: ExtraOrigin::Anycuda,
    });
    let fns: Vec<&FnDecl> = b
        .functions
        .iter()
        .filter(|f| !f.name.starts_with("__"))
        .collect();
    if fns.is_empty() {
        bail!("no nvJitLink functions in {}", header.display());
    }
    for f in &fns {
        let r = ret_str(f);
        if r != "nvJitLinkResult" {
            bail!("{} returns {r}: no fallback for it", f.name);
        }
    }
    Ok(vec![
        (
            PathBuf::from("api/src/generated/nvjitlink.rs"),
            emit_cuda::api_module(
                &b,
                &[&text],
                &extras,
                &what,
                "nvJitLink types from `nvJitLink.h`, with NVIDIA's names and values.",
                None,
            )?,
        ),
        (
            PathBuf::from("api/src/generated/nvjitlink_fns.rs"),
            fns_module(&fns, &what)?,
        ),
        (
            PathBuf::from("backends/hip/src/generated/nvjitlink.rs"),
            hip_module(&fns, &what)?,
        ),
        (
            PathBuf::from("src/generated/nvjitlink.rs"),
            facade_module(&fns, &what)?,
        ),
    ])
}

fn arg_idents(d: &FnDecl) -> Vec<Ident> {
    d.args
        .iter()
        .enumerate()
        .map(|(i, (n, _))| {
            if n == "_" || n.is_empty() {
                ident(&format!("arg{i}"))
            } else {
                ident(n)
            }
        })
        .collect()
}

fn ret_str(d: &FnDecl) -> String {
    match &d.ret {
        Some(t) => quote!(#t).to_string().replace(' ', ""),
        None => "()".into(),
    }
}

fn fns_module(fns: &[&FnDecl], inputs: &str) -> Result<String> {
    let mut infos = Vec::new();
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    let mut trait_items = Vec::new();
    let mut impl_items = Vec::new();
    for (i, f) in fns.iter().enumerate() {
        let name = &f.name;
        let n = ident(name);
        infos.push(quote!(crate::FnInfo { name: #name, symbol: #name, version: 0 }));
        let ty = emit_cuda::fn_ptr_type(f);
        let mut doc = format!(" `{name}`");
        let b = emit_cuda::brief(&f.doc);
        if !b.is_empty() {
            doc.push_str(": ");
            doc.push_str(&b);
        }
        fields.push(quote! { #[doc = #doc] pub #n: #ty });
        inits.push(quote! { #n: unsafe { ::core::mem::transmute::<*mut c_void, #ty>(resolve(&list[#i])) } });
        names.push(n.clone());
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = match &f.ret {
            Some(t) => quote!(-> #t),
            None => quote!(),
        };
        let tdoc = format!(" `{name}` with nvJitLink's signature and values.");
        trait_items.push(quote! {
            #[doc = #tdoc]
            ///
            /// # Safety
            /// The contract of the nvJitLink function of the same name: every pointer and
            /// handle valid for what NVIDIA's documentation says the function reads or writes.
            unsafe fn #n(&self, #(#args: #tys),*) #ret;
        });
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                match self.#n {
                    // SAFETY: the pointer was resolved for this symbol's ABI; the caller upholds
                    // the function's contract.
                    Some(f) => unsafe { f(#(#args),*) },
                    None => nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED,
                }
            }
        });
    }
    let count = fns.len();
    let items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use crate::nvjitlink::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_uint, c_void};
        ),
        syn::parse_quote! {
            /// Every function of the pinned `nvJitLink.h` (the versioned `__nvJitLink*_13_x`
            /// symbols behind them left out).
            pub static NVJITLINK_FUNCTIONS: &[crate::FnInfo] = &[#(#infos),*];
        },
        syn::parse_quote! {
            /// The entry points of a loaded nvJitLink, one per [`NVJITLINK_FUNCTIONS`] entry
            /// (`None`: not provided by the loaded library).
            #[derive(Clone, Copy)]
            pub struct NvJitLinkTable { #(#fields),* }
        },
        syn::parse_quote! {
            impl NvJitLinkTable {
                /// Resolves every entry point, calling `resolve` once per catalogue entry, in
                /// catalogue order; a null pointer leaves the field `None`.
                ///
                /// # Safety
                /// `resolve` must return null or a pointer to a function with exactly the ABI of
                /// that entry's symbol as the pinned `nvJitLink.h` declares it.
                pub unsafe fn load(mut resolve: impl FnMut(&'static crate::FnInfo) -> *mut c_void) -> Self {
                    let list: &'static [crate::FnInfo] = NVJITLINK_FUNCTIONS;
                    debug_assert_eq!(list.len(), #count);
                    Self { #(#inits),* }
                }
                /// How many entry points resolved.
                pub fn loaded_count(&self) -> usize {
                    [#(self.#names.is_some()),*].iter().filter(|b| **b).count()
                }
            }
        },
        syn::parse_quote! {
            impl ::core::fmt::Debug for NvJitLinkTable {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct("NvJitLinkTable")
                        .field("loaded", &self.loaded_count())
                        .field("of", &#count)
                        .finish()
                }
            }
        },
        syn::parse_quote! {
            /// The nvJitLink API, one method per function of the pinned `nvJitLink.h`, with
            /// NVIDIA's signatures and values. Implemented by the raw table (NVIDIA's library)
            /// and by the HIP backend (every call answers `NVJITLINK_ERROR_NOT_SUPPORTED`).
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub trait NvJitLink { #(#trait_items)* }
        },
        syn::parse_quote! {
            impl NvJitLink for NvJitLinkTable { #(#impl_items)* }
        },
    ];
    crate::emit::render(
        inputs,
        "The nvJitLink function catalogue, the function-pointer table and the `NvJitLink` trait.",
        &items,
    )
}

fn hip_module(fns: &[&FnDecl], inputs: &str) -> Result<String> {
    let mut impl_items = Vec::new();
    for f in fns {
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = match &f.ret {
            Some(t) => quote!(-> #t),
            None => quote!(),
        };
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED
            }
        });
    }
    let items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use anycuda_api::nvjitlink::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_uint, c_void};
        ),
        syn::parse_quote! {
            /// nvJitLink on the HIP backend: every function answers
            /// `NVJITLINK_ERROR_NOT_SUPPORTED` (hipRTC's `hiprtcLink*` is not mapped).
            #[allow(unused_variables, clippy::too_many_arguments)]
            impl NvJitLink for crate::nvjitlink::NoLinker { #(#impl_items)* }
        },
    ];
    crate::emit::render(
        inputs,
        "nvJitLink on the HIP backend: not supported, for every function.",
        &items,
    )
}

fn facade_module(fns: &[&FnDecl], inputs: &str) -> Result<String> {
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use anycuda_api::nvjitlink::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_uint, c_void};
        ),
    ];
    let mut impl_items = Vec::new();
    for f in fns {
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = match &f.ret {
            Some(t) => quote!(-> #t),
            None => quote!(),
        };
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                match *self {
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-cuda")]
                    crate::nvjitlink::Library::Cuda(t) => unsafe { t.#n(#(#args),*) },
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-hip")]
                    crate::nvjitlink::Library::Hip(l) => unsafe { l.#n(#(#args),*) },
                }
            }
        });
        let doc = format!(
            "`{}` on the active backend's JIT linker (NVIDIA's nvJitLink on the CUDA backend; not supported on HIP), with nvJitLink's signature and values.",
            f.name
        );
        items.push(syn::parse_quote! {
            #[doc = #doc]
            ///
            /// # Safety
            /// The contract of the nvJitLink function of the same name: every pointer and
            /// handle valid for what NVIDIA's documentation says the function reads or writes.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn #n(#(#args: #tys),*) #ret {
                match crate::nvjitlink::library() {
                    // SAFETY: forwarded under the caller's contract.
                    Ok(l) => unsafe { l.#n(#(#args),*) },
                    #[allow(unused_variables)]
                    Err(_) => nvJitLinkResult::NVJITLINK_ERROR_NOT_SUPPORTED,
                }
            }
        });
    }
    items.push(syn::parse_quote! {
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl NvJitLink for crate::nvjitlink::Library { #(#impl_items)* }
    });
    crate::emit::render(
        inputs,
        "The nvJitLink API's free functions, dispatched to the active backend.",
        &items,
    )
}
