//! The one shape every optional library shares (NCCL, nvJitLink, cuRAND; cuBLAS and cuBLASLt
//! next): a library loaded at run time whose C API anycuda exposes under its CUDA names.
//!
//! A library is described once ([`Lib`]); from its function declarations this module emits
//! - the catalogue, the function-pointer table and the library's trait with the table's impl
//!   ([`fns_module`], `api/src/generated/X_fns.rs`);
//! - the HIP backend's impl of that trait, one method per function with a body the library
//!   supplies ([`hip_impl`]), and the tables of enums whose values differ between the CUDA and
//!   the HIP library ([`EnumMap`], [`enum_map_items`]);
//! - the facade's C-named free functions, dispatched to the active backend ([`facade_module`]).
//!
//! What differs between libraries is data in [`Lib`] (names, documentation, what a call answers
//! when it cannot be served); what they share is written here once. The rest of a library's
//! face (`Library`, `LibraryError`, the error type, the CUDA backend's loader) comes from its
//! [`crate::face::Face`].

use crate::emit::int_lit;
use crate::emit_cuda;
use crate::model::{Bindings, FnDecl};
use anyhow::{Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::BTreeSet;
use std::path::Path;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// One optional library, as the emitters need it.
pub struct Lib<'a> {
    /// The module under `api/src` and `src` (`nccl`): `crate::nccl::*` holds its types.
    pub module: &'a str,
    /// The library's name in documentation (`NCCL`, `nvJitLink`, `cuRAND`).
    pub name: &'a str,
    /// The pinned header, in documentation (`nccl.h`).
    pub header: &'a str,
    /// The catalogue static (`NCCL_FUNCTIONS`).
    pub catalogue: &'a str,
    /// Doc of the catalogue static (lines).
    pub catalogue_doc: &'a [&'a str],
    /// The function-pointer table type (`NcclTable`).
    pub table: &'a str,
    /// What the table's entry points come from, in its doc (`a loaded NCCL or RCCL`).
    pub table_of: &'a str,
    /// The trait (`Nccl`) and its doc.
    pub trait_name: &'a str,
    /// Doc of the trait (lines).
    pub trait_doc: &'a [&'a str],
    /// The `# Safety` text of every function (lines).
    pub safety: &'a [&'a str],
    /// The `core::ffi` types the generated files import.
    pub ffi: &'a [&'a str],
    /// What a call answers when it cannot be served (no library, no entry point).
    pub fallback: &'a dyn Fn(&FnDecl) -> Result<TokenStream>,
    /// Code run first in the table's impl of a function (anycuda's own codes answered before
    /// the library sees them), if any.
    pub prelude: &'a dyn Fn(&FnDecl) -> TokenStream,
    /// The facade's doc of one free function, from its name.
    pub facade_doc: &'a dyn Fn(&str) -> String,
}

/// A pin `KEY="value"` of `ci/fetch-inputs.sh` (the one place versions are written).
pub fn pin(root: &Path, key: &str) -> Result<String> {
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

/// The argument names of a declaration (`argN` where the header gives none).
pub fn arg_idents(d: &FnDecl) -> Vec<Ident> {
    d.args
        .iter()
        .enumerate()
        .map(|(i, (n, _))| {
            if n == "_" || n.is_empty() {
                ident(&format!("arg{i}"))
            } else if ["f", "l", "t", "r"].contains(&n.as_str()) {
                // The generated bodies bind these names (`Some(f) => f(..)`): a header's
                // argument of that name (cuSPARSE's `f` of cusparseSgpsvInterleavedBatch, ...)
                // is renamed so it cannot be shadowed.
                ident(&format!("{n}_"))
            } else {
                ident(n)
            }
        })
        .collect()
}

/// A declaration's return type without spaces (`*constc_char`), `()` for none.
pub fn ret_str(d: &FnDecl) -> String {
    match &d.ret {
        Some(t) => quote!(#t).to_string().replace(' ', ""),
        None => "()".into(),
    }
}

/// A type without spaces (`*mutncclResult_t`).
pub fn type_str(t: &syn::Type) -> String {
    quote!(#t).to_string().replace(' ', "")
}

fn ret_tokens(d: &FnDecl) -> TokenStream {
    match &d.ret {
        Some(t) => quote!(-> #t),
        None => quote!(),
    }
}

fn doc_attrs(lines: &[&str]) -> Vec<TokenStream> {
    lines
        .iter()
        .map(|l| {
            let l = if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            };
            quote!(#[doc = #l])
        })
        .collect()
}

fn safety_attrs(lib: &Lib<'_>) -> Vec<TokenStream> {
    let mut lines = vec!["", "# Safety"];
    lines.extend(lib.safety);
    doc_attrs(&lines)
}

fn ffi_use(lib: &Lib<'_>) -> syn::Item {
    let tys: Vec<Ident> = lib.ffi.iter().map(|t| ident(t)).collect();
    syn::parse_quote!(use core::ffi::{#(#tys),*};)
}

/// The catalogue, the function-pointer table, the trait and the table's impl of it
/// (`api/src/generated/X_fns.rs`), and the face's error type ([`crate::face::error_items`]).
/// `extra`: items placed after the catalogue.
pub fn fns_module(
    lib: &Lib<'_>,
    face: &crate::face::Face<'_>,
    fns: &[&FnDecl],
    extra: Vec<syn::Item>,
    inputs: &str,
) -> Result<String> {
    let mut infos = Vec::new();
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    let mut trait_items = Vec::new();
    let mut impl_items = Vec::new();
    let safety = safety_attrs(lib);
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
        let ret = ret_tokens(f);
        let tdoc = format!(" `{name}` with {}'s signature and values.", lib.name);
        trait_items.push(quote! {
            #[doc = #tdoc]
            #(#safety)*
            unsafe fn #n(&self, #(#args: #tys),*) #ret;
        });
        let fb = (lib.fallback)(f)?;
        let own = (lib.prelude)(f);
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                #own
                match self.#n {
                    // SAFETY: the pointer was resolved for this symbol's ABI; the caller upholds
                    // the function's contract.
                    Some(f) => unsafe { f(#(#args),*) },
                    None => #fb,
                }
            }
        });
    }
    let count = fns.len();
    let module = ident(lib.module);
    let catalogue = ident(lib.catalogue);
    let table = ident(lib.table);
    let trait_name = ident(lib.trait_name);
    let table_name = lib.table;
    let cat_doc = doc_attrs(lib.catalogue_doc);
    let table_doc = format!(
        " The entry points of {}, one per [`{}`] entry",
        lib.table_of, lib.catalogue
    );
    let load_doc = format!(
        " that entry's symbol as the pinned `{}` declares it.",
        lib.header
    );
    let trait_doc = doc_attrs(lib.trait_doc);
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use crate::#module::*;
        ),
        ffi_use(lib),
        syn::parse_quote! {
            #(#cat_doc)*
            pub static #catalogue: &[crate::FnInfo] = &[#(#infos),*];
        },
    ];
    items.extend(extra);
    items.extend(crate::face::error_items(lib, face));
    items.extend::<Vec<syn::Item>>(vec![
        syn::parse_quote! {
            #[doc = #table_doc]
            /// (`None`: not provided by the loaded library).
            #[derive(Clone, Copy)]
            pub struct #table { #(#fields),* }
        },
        syn::parse_quote! {
            impl #table {
                /// Resolves every entry point, calling `resolve` once per catalogue entry, in
                /// catalogue order; a null pointer leaves the field `None`.
                ///
                /// # Safety
                /// `resolve` must return null or a pointer to a function with exactly the ABI of
                #[doc = #load_doc]
                pub unsafe fn load(mut resolve: impl FnMut(&'static crate::FnInfo) -> *mut c_void) -> Self {
                    let list: &'static [crate::FnInfo] = #catalogue;
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
            impl ::core::fmt::Debug for #table {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#table_name)
                        .field("loaded", &self.loaded_count())
                        .field("of", &#count)
                        .finish()
                }
            }
        },
        syn::parse_quote! {
            #(#trait_doc)*
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub trait #trait_name { #(#trait_items)* }
        },
        syn::parse_quote! {
            impl #trait_name for #table { #(#impl_items)* }
        },
    ]);
    crate::emit::render(
        inputs,
        &format!(
            "The {} function catalogue, the function-pointer table and the `{}` trait.",
            lib.name, lib.trait_name
        ),
        &items,
    )
}

/// The HIP backend's `impl Trait for self_ty`, one method per function, `body` giving each
/// method's statements (the arguments are in scope under [`arg_idents`]' names). `doc`: the
/// impl's doc lines.
pub fn hip_impl(
    lib: &Lib<'_>,
    fns: &[&FnDecl],
    self_ty: &syn::Type,
    doc: &[&str],
    mut body: impl FnMut(&FnDecl, &[Ident]) -> Result<TokenStream>,
) -> Result<syn::Item> {
    let mut impl_items = Vec::new();
    for f in fns {
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = ret_tokens(f);
        let b = body(f, &args)?;
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                #b
            }
        });
    }
    let trait_name = ident(lib.trait_name);
    let doc = doc_attrs(doc);
    Ok(syn::parse_quote! {
        #(#doc)*
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl #trait_name for #self_ty { #(#impl_items)* }
    })
}

/// The header of a generated HIP-side or facade file: `use crate_path::module::*;` and the
/// `core::ffi` imports.
pub fn uses(lib: &Lib<'_>, crate_path: &str) -> Vec<syn::Item> {
    let path: syn::Path =
        syn::parse_str(&format!("{crate_path}::{}", lib.module)).expect("a module path parses");
    vec![syn::parse_quote!(use #path::*;), ffi_use(lib)]
}

/// The facade's C-named free functions, each calling the active backend's library
/// (`crate::X::library()`), and the `impl Trait for crate::X::Library` that dispatches to the
/// backend (`src/generated/X.rs`).
/// The face's items (`Library`, `LibraryError`, ...: [`crate::face`]) come first.
pub fn facade_module(
    lib: &Lib<'_>,
    face: &crate::face::Face<'_>,
    fns: &[&FnDecl],
    inputs: &str,
) -> Result<String> {
    let mut items = uses(lib, "anycuda_api");
    items.extend(crate::face::facade_items(lib, face)?);
    let module = ident(lib.module);
    let safety = safety_attrs(lib);
    let mut impl_items = Vec::new();
    for f in fns {
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = ret_tokens(f);
        let fb = (lib.fallback)(f)?;
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                match *self {
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-cuda")]
                    crate::#module::Library::Cuda(t) => unsafe { t.#n(#(#args),*) },
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-hip")]
                    crate::#module::Library::Hip(l) => unsafe { l.#n(#(#args),*) },
                }
            }
        });
        let doc = (lib.facade_doc)(&f.name);
        items.push(syn::parse_quote! {
            #[doc = #doc]
            #(#safety)*
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn #n(#(#args: #tys),*) #ret {
                match active() {
                    // SAFETY: forwarded under the caller's contract.
                    Some(l) => unsafe { l.#n(#(#args),*) },
                    None => #fb,
                }
            }
        });
    }
    let trait_name = ident(lib.trait_name);
    items.push(syn::parse_quote! {
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl #trait_name for crate::#module::Library { #(#impl_items)* }
    });
    // The free functions' one lookup: `library()` builds a `Result` with an error type of
    // strings (returned through memory, dropped on every call), which cost a trivial call about
    // 10 ns on the H100 machine (bench_blas ab). The answer cannot change once made: the
    // backend is chosen once per process and libraries are never unloaded, so it is kept.
    items.push(syn::parse_quote! {
        /// The active backend's library as the free functions reach it: `library()` once, then
        /// one atomic load per call; `None` when `library()` fails (it says why).
        #[inline]
        pub(crate) fn active() -> Option<crate::#module::Library> {
            static ACTIVE: std::sync::OnceLock<Option<crate::#module::Library>> =
                std::sync::OnceLock::new();
            *ACTIVE.get_or_init(|| crate::#module::library().ok())
        }
    });
    crate::emit::render(inputs, &face.facade_doc(lib), &items)
}

/// How the two sides of one translated enum are named and paired.
pub struct Sides<'a> {
    /// The CUDA-side library in table docs and names (`NCCL`, `CURAND`).
    pub cuda: &'a str,
    /// The HIP-side library (`RCCL`, `HIPRAND`).
    pub hip: &'a str,
    /// A CUDA enumerator's name on the HIP side (`CURAND_X` -> `HIPRAND_X`; NCCL: unchanged).
    pub hip_name: &'a dyn Fn(&str) -> String,
    /// Enumerators that count or bound an enum instead of naming a value: never translated.
    pub sentinels: &'a [&'a str],
}

/// One translated enum: pairs by name, and what exists on one side only.
pub struct EnumMap {
    /// The CUDA-side type (`ncclResult_t`).
    pub ty: String,
    /// (CUDA name, CUDA value, HIP name, HIP value).
    pub pairs: Vec<(String, i64, String, i64)>,
    /// Values only the CUDA side declares.
    pub cuda_only: Vec<(String, i64)>,
    /// Values only the HIP side declares.
    pub hip_only: Vec<(String, i64)>,
}

/// `(name, value)` of an enum's enumerators, sentinels left out.
fn values(b: &Bindings, ty: &str, sentinels: &[&str]) -> Result<Vec<(String, i64)>> {
    let e = b
        .enums
        .values()
        .find(|e| e.user_name() == ty)
        .with_context(|| format!("no enum {ty}"))?;
    Ok(e.variants
        .iter()
        .filter(|v| !sentinels.contains(&v.name.as_str()))
        .map(|v| (v.name.clone(), v.value))
        .collect())
}

/// Pairs the enumerators of `cuda_ty` (in `cuda`) with those of `hip_ty` (in `hip`) by name.
pub fn map_enum(
    sides: &Sides<'_>,
    cuda: &Bindings,
    hip: &Bindings,
    cuda_ty: &str,
    hip_ty: &str,
) -> Result<EnumMap> {
    let n = values(cuda, cuda_ty, sides.sentinels)?;
    let r = values(hip, hip_ty, sides.sentinels)?;
    let mut pairs = Vec::new();
    let mut cuda_only = Vec::new();
    let mut paired_r = BTreeSet::new();
    // Aliases (ncclInt8/ncclChar) share a value: pair each CUDA value once, by its first name
    // that the HIP side also declares.
    let mut seen_nv = BTreeSet::new();
    for (name, v) in &n {
        let hn = (sides.hip_name)(name);
        if let Some((rn, rv)) = r.iter().find(|(rn, _)| *rn == hn) {
            if seen_nv.insert(*v) {
                pairs.push((name.clone(), *v, rn.clone(), *rv));
            }
            paired_r.insert(*rv);
        }
    }
    for (name, v) in &n {
        if !seen_nv.contains(v) && !cuda_only.iter().any(|(_, x)| x == v) {
            cuda_only.push((name.clone(), *v));
        }
    }
    let mut hip_only = Vec::new();
    for (name, v) in &r {
        if !paired_r.contains(v) && !hip_only.iter().any(|(_, x)| x == v) {
            hip_only.push((name.clone(), *v));
        }
    }
    Ok(EnumMap {
        ty: cuda_ty.to_string(),
        pairs,
        cuda_only,
        hip_only,
    })
}

/// The tables of one translated enum: `SHORT_PAIRS`, `SHORT_<CUDA>_ONLY`, `SHORT_<HIP>_ONLY`
/// and `short_to_<hip>` (a CUDA value in the HIP side's numbering, `None` without a
/// counterpart; `passthrough`: extra match arms ahead of that `None`).
pub fn enum_map_items(
    sides: &Sides<'_>,
    m: &EnumMap,
    short: &str,
    passthrough: TokenStream,
) -> Vec<syn::Item> {
    let t = ident(&m.ty);
    let (cu, hu) = (sides.cuda, sides.hip);
    let pairs_n = ident(&format!("{short}_PAIRS"));
    let nonly_n = ident(&format!("{short}_{cu}_ONLY"));
    let ronly_n = ident(&format!("{short}_{hu}_ONLY"));
    let pairs = m.pairs.iter().map(|(a, av, b, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!((#a, #av, #b, #bv))
    });
    let lit = |(a, v): &(String, i64)| {
        let v = int_lit(*v);
        quote!((#a, #v))
    };
    let nonly = m.cuda_only.iter().map(lit);
    let ronly = m.hip_only.iter().map(lit);
    let d1 = format!(
        " `{}`: ({cu} name, {cu} value, {hu} name, {hu} value) of every value both declare.",
        m.ty
    );
    let d2 = format!(" `{}` values only {cu} declares.", m.ty);
    let d3 = format!(" `{}` values only {hu} declares.", m.ty);
    let to_arms = m.pairs.iter().map(|(_, av, _, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!(#av => Some(#bv as c_int))
    });
    let to_fn = ident(&format!(
        "{}_to_{}",
        short.to_ascii_lowercase(),
        hu.to_ascii_lowercase()
    ));
    let to_doc = format!(
        " A `{}` in {hu}'s numbering, or `None` when {hu} has no counterpart.",
        m.ty
    );
    vec![
        syn::parse_quote! { #[doc = #d1] pub static #pairs_n: &[(&str, i64, &str, i64)] = &[#(#pairs),*]; },
        syn::parse_quote! { #[doc = #d2] pub static #nonly_n: &[(&str, i64)] = &[#(#nonly),*]; },
        syn::parse_quote! { #[doc = #d3] pub static #ronly_n: &[(&str, i64)] = &[#(#ronly),*]; },
        syn::parse_quote! {
            #[doc = #to_doc]
            #[inline]
            pub fn #to_fn(v: #t) -> Option<c_int> {
                match v.0 as i64 { #(#to_arms,)* #passthrough _ => None }
            }
        },
    ]
}

/// `fn_name(r: T) -> T`: a HIP-side status in the CUDA numbering: paired codes by name,
/// HIP-only codes as their hallucinated constants (`named_base + raw`), codes unknown at
/// generation time as `UNKNOWN_BASE + raw`; anycuda's own codes (reserved ranges) pass
/// unchanged. `internal`: the CUDA constant for a code outside every range.
pub fn status_from_hip(
    sides: &Sides<'_>,
    m: &EnumMap,
    named_base: i64,
    fn_name: &str,
    internal: &str,
) -> syn::Item {
    let t = ident(&m.ty);
    let f = ident(fn_name);
    let internal = ident(internal);
    let from_arms = m.pairs.iter().map(|(_, av, _, bv)| {
        let (av, bv) = (int_lit(*av), int_lit(*bv));
        quote!(#bv => #t(#av as _))
    });
    let hall_arms = m.hip_only.iter().map(|(_, rv)| {
        let (rv, hv) = (int_lit(*rv), int_lit(named_base + rv));
        quote!(#rv => #t(#hv as _))
    });
    let (cu, hu) = (sides.cuda, sides.hip);
    let doc = [
        format!(" An {hu} result in {cu}'s numbering: paired codes by name, {hu}-only codes as"),
        " their hallucinated constants, codes unknown at generation time as".to_string(),
        " `UNKNOWN_BASE + raw`; anycuda's own codes (reserved ranges) pass unchanged.".to_string(),
    ];
    syn::parse_quote! {
        #(#[doc = #doc])*
        #[inline]
        pub fn #f(r: #t) -> #t {
            let raw = r.0 as i64;
            if anycuda_api::hallucinated::is_reserved(raw) {
                return r;
            }
            match raw {
                #(#from_arms,)*
                #(#hall_arms,)*
                other => match anycuda_api::hallucinated::for_unknown(other) {
                    Some(v) => #t(v as _),
                    None => #t::#internal,
                },
            }
        }
    }
}

/// What one library's C exports need beyond its [`Lib`]: the C ABI's face of it.
pub struct CExports<'a> {
    /// The soname NVIDIA's library has (`libcublas.so.13`), in documentation.
    pub soname: &'a str,
    /// The export list's static in the generated file (`CUBLAS_EXPORTS`), which `anycuda
    /// libdir` reads to give the name library its symbols.
    pub list: &'a str,
    /// The status type whose invented codes `crate::codes::member` turns into members
    /// (`cublasStatus_t`); functions returning anything else return what the facade returns.
    pub status: &'a str,
    /// Declared functions the C ABI does not export, each with why: NVIDIA's library does not
    /// export it, or NVIDIA's oldest library of the soname lacks it (a program probing for it
    /// sees what NVIDIA's shows).
    pub leave_out: &'a [(&'a str, &'a str)],
    /// Other names the library exports for a function: (the name, the function). nvJitLink's
    /// versioned names (`__nvJitLinkCreate_13_0`: its header's inline wrappers call the name of
    /// the header's own version), NVML's older names of renamed functions. Each is the
    /// function's export under another name.
    pub aliases: &'a [(String, String)],
}

/// The C ABI's exports of one library (`capi/src/generated/X.rs`): one `#[no_mangle] extern
/// "C"` function per declared name, calling the facade's function of the same name, and the
/// list of those names.
///
/// Behind the re-entry guard (docs/c-abi.md): a call made from inside an anycuda C-ABI call (a
/// vendor library calling back by name, as NVIDIA's cuBLAS calls cuBLASLt) goes to the CUDA
/// backend's library of that name, never to the active backend. Statuses pass through
/// `crate::codes::member`, so a C caller sees only members of NVIDIA's enum.
///
/// # Errors
/// A function whose return type has no answer for "no vendor library" (a type this shape does
/// not know), a left-out name the header does not declare, or an alias of no declared function.
pub fn capi_module(
    lib: &Lib<'_>,
    c: &CExports<'_>,
    fns: &[&FnDecl],
    inputs: &str,
) -> Result<String> {
    for (name, _) in c.leave_out {
        if !fns.iter().any(|f| f.name == *name) {
            anyhow::bail!(
                "{} leaves out {name}, which the header does not declare",
                lib.name
            );
        }
    }
    // An alias names a declared function and is no declared name itself (it would be exported
    // twice).
    for (alias, to) in c.aliases {
        if !fns.iter().any(|f| f.name == *to) || fns.iter().any(|f| f.name == *alias) {
            anyhow::bail!(
                "{}: alias {alias} of {to}: no such function, or a declared name of its own",
                lib.name
            );
        }
    }
    let module = ident(lib.module);
    let trait_name = ident(lib.trait_name);
    let table = ident(lib.table);
    let status = ident(c.status);
    let mut items: Vec<syn::Item> = vec![syn::parse_quote!(use anycuda::#module::*;), ffi_use(lib)];
    // The direct path: on the CUDA backend every export is NVIDIA's function of that name, one
    // load and an indirect call, guard or not (a vendor call-back would get the same library).
    let direct_doc = format!(
        " NVIDIA's {} when the CUDA backend serves the process (decided on the first call, then one load).",
        lib.name
    );
    items.push(syn::parse_quote! {
        static DIRECT: crate::direct::Direct<#table> = crate::direct::Direct::new();
    });
    items.push(syn::parse_quote! {
        #[doc = #direct_doc]
        #[inline(always)]
        fn direct() -> Option<&'static #table> {
            DIRECT.get(|| {
                // Decided from a call of the program's own (inside the guard, as the facade's
                // loads always are), never from a vendor library's call-back.
                let _inside = crate::guard::Inside::enter()?;
                match library() {
                    Ok(Library::Cuda(t)) => Some(Some(t)),
                    Ok(_) | Err(LibraryError::Load(_)) => Some(None),
                    Err(_) => None,
                }
            })
        }
    });
    let mut names = Vec::new();
    for f in fns {
        if c.leave_out.iter().any(|(n, _)| *n == f.name) {
            continue;
        }
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret = ret_tokens(f);
        let r = ret_str(f);
        // What a vendor call-back answers when the CUDA backend has no such library.
        let none = match r.as_str() {
            s if s == c.status => quote!(<#status as crate::codes::Member>::STAND_IN),
            "usize" | "c_uint" | "c_int" | "u32" | "i32" | "u64" | "i64" => quote!(0),
            "*constc_char" => quote!(c"anycuda: no NVIDIA library to call back into".as_ptr()),
            "()" => quote!(()),
            // An enum returned by value (cuSPARSE's matrix-descriptor getters): its zero value.
            other if other.ends_with("_t") && !other.starts_with('*') => {
                let t = ident(other);
                quote!(#t(0))
            }
            other => anyhow::bail!("{} returns {other}: no C-ABI answer for it", f.name),
        };
        let wrap = |e: TokenStream| -> TokenStream {
            if r == c.status {
                quote!(crate::codes::member(#e))
            } else {
                e
            }
        };
        let vendor = wrap(quote!(unsafe { <Library as #trait_name>::#n(&l, #(#args),*) }));
        let active = wrap(quote!(unsafe { anycuda::#module::#n(#(#args),*) }));
        let doc = format!("`{}` of the C ABI ({}'s name).", f.name, c.soname);
        items.push(syn::parse_quote! {
            #[doc = #doc]
            #[no_mangle]
            #[allow(clippy::too_many_arguments)]
            pub unsafe extern "C" fn #n(#(#args: #tys),*) #ret {
                // NVIDIA's function itself (a tail call); one NVIDIA's library lacks takes the
                // guarded path below, which answers for it.
                if let Some(__f) = direct().and_then(|__t| __t.#n) {
                    return unsafe { __f(#(#args),*) };
                }
                // Out of line, so the direct path above needs no stack frame.
                #[cold]
                #[inline(never)]
                unsafe fn guarded(#(#args: #tys),*) #ret {
                    let Some(_inside) = crate::guard::Inside::enter() else {
                        return match crate::guard::vendor().and_then(|v| library_of(v).ok()) {
                            Some(l) => #vendor,
                            None => #none,
                        };
                    };
                    #active
                }
                unsafe { guarded(#(#args),*) }
            }
        });
        names.push(f.name.clone());
        for (alias_name, _) in c.aliases.iter().filter(|(_, to)| *to == f.name) {
            let alias = ident(alias_name);
            let doc = format!(
                "`{alias_name}`: `{}` under the other name {} exports.",
                f.name, c.soname
            );
            items.push(syn::parse_quote! {
                #[doc = #doc]
                #[no_mangle]
                #[allow(clippy::too_many_arguments)]
                pub unsafe extern "C" fn #alias(#(#args: #tys),*) #ret {
                    // SAFETY: the same function under another name; the caller's contract.
                    unsafe { #n(#(#args),*) }
                }
            });
            names.push(alias_name.clone());
        }
    }
    let list = ident(c.list);
    let list_doc = format!(
        "Every function this file exports, in header order: what `anycuda libdir`'s `{}` defines.",
        c.soname
    );
    items.push(syn::parse_quote! {
        #[doc = #list_doc]
        pub static #list: &[&str] = &[#(#names),*];
    });
    let doc = format!(
        "The C ABI's {} exports ({}'s names), each the facade's function behind the re-entry guard\n\
         (codegen/src/optional_lib.rs, `capi_module`).",
        lib.name, c.soname
    );
    crate::emit::render(inputs, &doc, &items)
}
