//! The collective libraries: NCCL (PyPI `nvidia-nccl-cu13`) and RCCL (Debian trixie
//! `librccl-dev`), both fetched by `ci/nccl-fetch.sh`.
//!
//! Outputs:
//! - `api/src/generated/nccl.rs`: NCCL's types (enums as newtypes, structs, handles), with
//!   anycuda's own `ncclNotSupported` and a hallucinated constant for every RCCL result code
//!   NCCL lacks;
//! - `api/src/generated/nccl_fns.rs`: the function catalogue, the function-pointer table, the
//!   `Nccl` trait and the table's impl of it;
//! - `backends/hip/src/generated/nccl.rs`: the NCCL<->RCCL tables (results, data types,
//!   reduction ops) and the translating `Nccl` impl the HIP backend uses on AMD;
//! - `src/generated/nccl.rs`: the facade's C-named free functions, dispatched to the backend.

use crate::bindgen_run::{self, Job};
use crate::emit::int_lit;
use crate::emit_cuda::{self, ExtraConst, ExtraOrigin, Extras};
use crate::extras::Ranges;
use crate::model::{self, Bindings, FnDecl};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// Enumerators that count or bound an enum instead of naming a value: never translated (RCCL's
/// `ncclNumResults` is 7, which is NCCL's `ncclInProgress`).
const SENTINELS: &[&str] = &[
    "ncclNumResults",
    "ncclNumTypes",
    "ncclNumOps",
    "ncclMaxRedOp",
];

/// The enums whose values cross the NCCL<->RCCL boundary.
const TRANSLATED: &[&str] = &["ncclResult_t", "ncclDataType_t", "ncclRedOp_t"];

/// Where the pinned inputs are and which versions they are.
struct Inputs {
    nccl_include: PathBuf,
    rccl_include: PathBuf,
    nccl_version: String,
    rccl_version: String,
}

fn locate(root: &Path) -> Result<Inputs> {
    let script = root.join("ci/fetch-inputs.sh");
    let text = std::fs::read_to_string(&script)
        .with_context(|| format!("reading the pins from {}", script.display()))?;
    let pin = |key: &str| -> Result<String> {
        text.lines()
            .find_map(|l| {
                let rest = l.trim().strip_prefix(key)?.strip_prefix("=\"")?;
                Some(rest.split('"').next()?.to_string())
            })
            .with_context(|| format!("no `{key}=\"...\"` pin in {}", script.display()))
    };
    let inputs = root.join(".cache/inputs");
    let me = Inputs {
        nccl_include: inputs.join("nccl/nvidia/nccl/include"),
        rccl_include: inputs.join("rccl/usr/include"),
        nccl_version: pin("NCCL_VERSION")?,
        rccl_version: pin("RCCL_DEB_VERSION")?,
    };
    for (p, stamp) in [
        (
            me.nccl_include.join("nccl.h"),
            inputs.join(format!("nccl/.nvidia-nccl-cu13-{}.done", me.nccl_version)),
        ),
        (
            me.rccl_include.join("rccl/rccl.h"),
            inputs.join(format!("rccl/.rccl-{}.done", me.rccl_version)),
        ),
    ] {
        if !p.exists() || !stamp.exists() {
            bail!(
                "missing or stale codegen input {} (pinned NCCL {}, RCCL {}); run `bash ci/fetch-inputs.sh`",
                p.display(),
                me.nccl_version,
                me.rccl_version
            );
        }
    }
    Ok(me)
}

/// `(name, value)` of an enum's enumerators, sentinels left out.
fn values(b: &Bindings, ty: &str) -> Result<Vec<(String, i64)>> {
    let e = b
        .enums
        .values()
        .find(|e| e.user_name() == ty)
        .with_context(|| format!("no enum {ty}"))?;
    Ok(e.variants
        .iter()
        .filter(|v| !SENTINELS.contains(&v.name.as_str()))
        .map(|v| (v.name.clone(), v.value))
        .collect())
}

/// One translated enum: pairs by name, and what exists on one side only.
struct EnumMap {
    ty: String,
    /// (NCCL name, NCCL value, RCCL name, RCCL value).
    pairs: Vec<(String, i64, String, i64)>,
    nccl_only: Vec<(String, i64)>,
    rccl_only: Vec<(String, i64)>,
}

fn map_enum(nccl: &Bindings, rccl: &Bindings, ty: &str) -> Result<EnumMap> {
    let n = values(nccl, ty)?;
    let r = values(rccl, ty)?;
    let mut pairs = Vec::new();
    let mut nccl_only = Vec::new();
    let mut paired_r = BTreeSet::new();
    // Aliases (ncclInt8/ncclChar) share a value: pair each NCCL value once, by its first name
    // that RCCL also declares.
    let mut seen_nv = BTreeSet::new();
    for (name, v) in &n {
        if let Some((rn, rv)) = r.iter().find(|(rn, _)| rn == name) {
            if seen_nv.insert(*v) {
                pairs.push((name.clone(), *v, rn.clone(), *rv));
            }
            paired_r.insert(*rv);
        }
    }
    for (name, v) in &n {
        if !seen_nv.contains(v) && !nccl_only.iter().any(|(_, x)| x == v) {
            nccl_only.push((name.clone(), *v));
        }
    }
    let mut rccl_only = Vec::new();
    for (name, v) in &r {
        if !paired_r.contains(v) && !rccl_only.iter().any(|(_, x)| x == v) {
            rccl_only.push((name.clone(), *v));
        }
    }
    Ok(EnumMap {
        ty: ty.to_string(),
        pairs,
        nccl_only,
        rccl_only,
    })
}

/// `ncclSystemError` -> `ncclRcclSystemError`: the hallucinated NCCL name of an RCCL-only code.
fn hallucinated_name(rccl: &str) -> String {
    match rccl.strip_prefix("nccl") {
        Some(rest) => format!("ncclRccl{rest}"),
        None => format!("ncclRccl_{rccl}"),
    }
}

/// Generates the four outputs. `runtime_b`: the CUDA runtime bindings (nccl.h's `cudaStream_t`
/// is the runtime's type, re-exported, not defined twice).
pub fn generate(
    root: &Path,
    ranges: &Ranges,
    runtime_b: &Bindings,
) -> Result<Vec<(PathBuf, String)>> {
    let inp = locate(root)?;
    let shim = root.join("codegen/shim");
    let cuda_inc = root.join(".cache/inputs/cuda/nvidia/cu13/include");
    let nccl_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["nccl.h"],
                allow_files: &[r".*/nccl\.h"],
                clang_args: vec![
                    format!("-I{}", shim.join("nccl").display()),
                    format!("-I{}", shim.display()),
                    format!("-I{}", cuda_inc.display()),
                ],
            },
            &inp.nccl_include,
        )?,
        "nccl.h",
    )?;
    let rccl_b = model::read(
        &bindgen_run::run(
            &Job {
                includes: &["rccl/rccl.h"],
                allow_files: &[r".*/rccl\.h"],
                clang_args: vec![format!("-I{}", shim.join("rccl").display())],
            },
            &inp.rccl_include,
        )?,
        "rccl.h",
    )?;
    let nccl_h = std::fs::read_to_string(inp.nccl_include.join("nccl.h"))?;
    let nccl_in = format!("nvidia-nccl-cu13 {} (nccl.h)", inp.nccl_version);
    let both_in = format!(
        "nvidia-nccl-cu13 {} (nccl.h), Debian librccl-dev {} (rccl.h)",
        inp.nccl_version, inp.rccl_version
    );

    let maps: Vec<EnumMap> = TRANSLATED
        .iter()
        .map(|t| map_enum(&nccl_b, &rccl_b, t))
        .collect::<Result<_>>()?;

    // Extra constants: anycuda's own "not supported", and one per RCCL-only result code.
    let mut extras: Extras = BTreeMap::new();
    let res = extras.entry("ncclResult_t".to_string()).or_default();
    res.push(ExtraConst {
        name: "ncclNotSupported".into(),
        value: ranges.anycuda_base,
        description: "anycuda: not supported. NCCL declares no \"not supported\" result, yet anycuda needs one: it returns this when no collective library could be loaded, when the loaded one (an older NCCL or RCCL) lacks the entry point, or when an argument (a data type, an operation) has no counterpart in it.".into(),
        origin: ExtraOrigin::Anycuda,
    });
    for m in &maps {
        if m.ty != "ncclResult_t" {
            continue;
        }
        for (rn, rv) in &m.rccl_only {
            res.push(ExtraConst {
                name: hallucinated_name(rn),
                value: ranges.named_base + rv,
                description: format!("RCCL's `{rn}` ({rv}), which NCCL does not declare (hallucinated by anycuda: value = 0x4000_0000 + RCCL value)."),
                origin: ExtraOrigin::Hallucinated(rn.clone()),
            });
        }
    }

    let mut out = Vec::new();
    out.push((
        PathBuf::from("api/src/generated/nccl.rs"),
        emit_cuda::api_module(
            &nccl_b,
            &[&nccl_h],
            &extras,
            &nccl_in,
            "NCCL types from `nccl.h`, with NCCL's names and values.",
            Some((runtime_b, "crate::runtime")),
        )?,
    ));
    let rccl_names: BTreeSet<String> = rccl_b.functions.iter().map(|f| f.name.clone()).collect();
    // RCCL's profiling twins (pncclX) are not part of the API users call.
    let fns: Vec<&FnDecl> = nccl_b
        .functions
        .iter()
        .filter(|f| !f.name.starts_with("pnccl"))
        .collect();
    out.push((
        PathBuf::from("api/src/generated/nccl_fns.rs"),
        fns_module(&fns, &rccl_names, &both_in)?,
    ));
    out.push((
        PathBuf::from("backends/hip/src/generated/nccl.rs"),
        hip_module(&fns, &maps, ranges, &both_in)?,
    ));
    out.push((
        PathBuf::from("src/generated/nccl.rs"),
        facade_module(&fns, &nccl_in)?,
    ));
    Ok(out)
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

/// What a call returns when it cannot be served (no library, no entry point).
fn fallback(d: &FnDecl) -> Result<TokenStream> {
    let args = arg_idents(d);
    Ok(match (d.name.as_str(), ret_str(d).as_str()) {
        (_, "ncclResult_t") => quote!(ncclResult_t::ncclNotSupported),
        ("ncclGetErrorString", _) => {
            let a = &args[0];
            quote!(crate::nccl::error_string(#a))
        }
        (_, "*constc_char") => quote!(crate::nccl::NOT_SUPPORTED_TEXT.as_ptr()),
        (_, "()") => quote!(()),
        (n, r) => bail!("no fallback for {n} returning {r}"),
    })
}

fn fns_module(fns: &[&FnDecl], rccl: &BTreeSet<String>, inputs: &str) -> Result<String> {
    let mut infos = Vec::new();
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    let mut trait_items = Vec::new();
    let mut impl_items = Vec::new();
    let mut in_rccl = Vec::new();
    for (i, f) in fns.iter().enumerate() {
        let name = &f.name;
        let n = ident(name);
        infos.push(quote!(crate::FnInfo { name: #name, symbol: #name, version: 0 }));
        if rccl.contains(name) {
            in_rccl.push(name.clone());
        }
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
        let tdoc = format!(" `{name}` with NCCL's signature and values.");
        trait_items.push(quote! {
            #[doc = #tdoc]
            ///
            /// # Safety
            /// The contract of the NCCL function of the same name: every pointer and handle valid
            /// for what NCCL's documentation says the function reads or writes.
            unsafe fn #n(&self, #(#args: #tys),*) #ret;
        });
        let fb = fallback(f)?;
        // anycuda's own and invented codes mean nothing to the library: answered here.
        let own = if f.name == "ncclGetErrorString" {
            let a = &args[0];
            quote! {
                if crate::hallucinated::is_reserved(#a.0 as i64) {
                    return crate::nccl::error_string(#a);
                }
            }
        } else {
            quote!()
        };
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
    let items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use crate::nccl::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void};
        ),
        syn::parse_quote! {
            /// Every function of the pinned `nccl.h` (the profiling `pnccl*` twins left out).
            pub static NCCL_FUNCTIONS: &[crate::FnInfo] = &[#(#infos),*];
        },
        syn::parse_quote! {
            /// The functions of [`NCCL_FUNCTIONS`] that the pinned `rccl.h` also declares.
            pub static RCCL_DECLARED: &[&str] = &[#(#in_rccl),*];
        },
        syn::parse_quote! {
            /// The entry points of a loaded NCCL or RCCL, one per [`NCCL_FUNCTIONS`] entry
            /// (`None`: not provided by the loaded library).
            #[derive(Clone, Copy)]
            pub struct NcclTable { #(#fields),* }
        },
        syn::parse_quote! {
            impl NcclTable {
                /// Resolves every entry point, calling `resolve` once per catalogue entry, in
                /// catalogue order; a null pointer leaves the field `None`.
                ///
                /// # Safety
                /// `resolve` must return null or a pointer to a function with exactly the ABI of
                /// that entry's symbol as the pinned `nccl.h` declares it.
                pub unsafe fn load(mut resolve: impl FnMut(&'static crate::FnInfo) -> *mut c_void) -> Self {
                    let list: &'static [crate::FnInfo] = NCCL_FUNCTIONS;
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
            impl ::core::fmt::Debug for NcclTable {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct("NcclTable")
                        .field("loaded", &self.loaded_count())
                        .field("of", &#count)
                        .finish()
                }
            }
        },
        syn::parse_quote! {
            /// The NCCL API, one method per function of the pinned `nccl.h`, with NCCL's
            /// signatures and values. Implemented by the raw table (values passed unchanged) and
            /// by each backend's collective library (RCCL's values translated on AMD).
            #[allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
            pub trait Nccl { #(#trait_items)* }
        },
        syn::parse_quote! {
            impl Nccl for NcclTable { #(#impl_items)* }
        },
    ];
    crate::emit::render(
        inputs,
        "The NCCL function catalogue, the function-pointer table and the `Nccl` trait.",
        &items,
    )
}

fn hip_module(fns: &[&FnDecl], maps: &[EnumMap], ranges: &Ranges, inputs: &str) -> Result<String> {
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use anycuda_api::nccl::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void};
        ),
    ];
    for m in maps {
        let t = ident(&m.ty);
        let short =
            m.ty.trim_start_matches("nccl")
                .trim_end_matches("_t")
                .to_ascii_uppercase();
        let pairs_n = ident(&format!("{short}_PAIRS"));
        let nonly_n = ident(&format!("{short}_NCCL_ONLY"));
        let ronly_n = ident(&format!("{short}_RCCL_ONLY"));
        let pairs = m.pairs.iter().map(|(a, av, b, bv)| {
            let (av, bv) = (int_lit(*av), int_lit(*bv));
            quote!((#a, #av, #b, #bv))
        });
        let nonly = m.nccl_only.iter().map(|(a, v)| {
            let v = int_lit(*v);
            quote!((#a, #v))
        });
        let ronly = m.rccl_only.iter().map(|(a, v)| {
            let v = int_lit(*v);
            quote!((#a, #v))
        });
        let d1 = format!(
            " `{}`: (NCCL name, NCCL value, RCCL name, RCCL value) of every value both declare.",
            m.ty
        );
        let d2 = format!(" `{}` values only NCCL declares.", m.ty);
        let d3 = format!(" `{}` values only RCCL declares.", m.ty);
        items.push(syn::parse_quote! { #[doc = #d1] pub static #pairs_n: &[(&str, i64, &str, i64)] = &[#(#pairs),*]; });
        items.push(syn::parse_quote! { #[doc = #d2] pub static #nonly_n: &[(&str, i64)] = &[#(#nonly),*]; });
        items.push(syn::parse_quote! { #[doc = #d3] pub static #ronly_n: &[(&str, i64)] = &[#(#ronly),*]; });
        // NCCL -> RCCL (arguments): None where RCCL has no counterpart.
        let to_arms = m.pairs.iter().map(|(_, av, _, bv)| {
            let (av, bv) = (int_lit(*av), int_lit(*bv));
            quote!(#av => Some(#bv as c_int))
        });
        let to_fn = ident(&format!("{}_to_rccl", short.to_ascii_lowercase()));
        let to_doc = format!(
            " A `{}` in RCCL's numbering, or `None` when RCCL has no counterpart.",
            m.ty
        );
        let passthrough = if m.ty == "ncclRedOp_t" {
            // Custom ops from ncclRedOpCreatePreMulSum are handles the library itself handed
            // out: they pass unchanged.
            quote!(v if v >= 5 => Some(v as c_int),)
        } else {
            quote!()
        };
        items.push(syn::parse_quote! {
            #[doc = #to_doc]
            #[inline]
            pub fn #to_fn(v: #t) -> Option<c_int> {
                match v.0 as i64 { #(#to_arms,)* #passthrough _ => None }
            }
        });
        if m.ty == "ncclResult_t" {
            let from_arms = m.pairs.iter().map(|(_, av, _, bv)| {
                let (av, bv) = (int_lit(*av), int_lit(*bv));
                quote!(#bv => #t(#av as _))
            });
            let hall_arms = m.rccl_only.iter().map(|(_, rv)| {
                let (rv, hv) = (int_lit(*rv), int_lit(ranges.named_base + rv));
                quote!(#rv => #t(#hv as _))
            });
            items.push(syn::parse_quote! {
                /// An RCCL result in NCCL's numbering: paired codes by name, RCCL-only codes as
                /// their hallucinated constants, codes unknown at generation time as
                /// `UNKNOWN_BASE + raw`; anycuda's own codes (reserved ranges) pass unchanged.
                #[inline]
                pub fn result_from_rccl(r: ncclResult_t) -> ncclResult_t {
                    let raw = r.0 as i64;
                    if anycuda_api::hallucinated::is_reserved(raw) {
                        return r;
                    }
                    match raw {
                        #(#from_arms,)*
                        #(#hall_arms,)*
                        other => match anycuda_api::hallucinated::for_unknown(other) {
                            Some(v) => #t(v as _),
                            None => #t::ncclInternalError,
                        },
                    }
                }
            });
        }
    }
    // The translating impl.
    let mut impl_items = Vec::new();
    for f in fns {
        let n = ident(&f.name);
        let args = arg_idents(f);
        let tys: Vec<&syn::Type> = f.args.iter().map(|(_, t)| t).collect();
        let ret_s = ret_str(f);
        let ret = match &f.ret {
            Some(t) => quote!(-> #t),
            None => quote!(),
        };
        let mut pre = Vec::new();
        let mut post = Vec::new();
        for (a, t) in args.iter().zip(&tys) {
            let ts = quote!(#t).to_string().replace(' ', "");
            match ts.as_str() {
                "ncclDataType_t" => pre.push(quote! {
                    let Some(#a) = datatype_to_rccl(#a) else { return ncclResult_t::ncclNotSupported };
                    let #a = ncclDataType_t(#a as _);
                }),
                "ncclRedOp_t" => pre.push(quote! {
                    let Some(#a) = redop_to_rccl(#a) else { return ncclResult_t::ncclNotSupported };
                    let #a = ncclRedOp_t(#a as _);
                }),
                "*mutncclResult_t" => post.push(quote! {
                    if r == ncclResult_t::ncclSuccess && !#a.is_null() {
                        // SAFETY: the library just wrote a result there, under the caller's contract.
                        unsafe { *#a = result_from_rccl(*#a) };
                    }
                }),
                "ncclResult_t" if f.name == "ncclGetErrorString" => pre.push(quote! {
                    let Some(#a) = result_to_rccl(#a) else { return crate::nccl::own_error_string(#a) };
                    let #a = ncclResult_t(#a as _);
                }),
                _ => {}
            }
        }
        let body = if ret_s == "ncclResult_t" {
            quote! {
                #(#pre)*
                // SAFETY: forwarded under the caller's contract, values in RCCL's numbering.
                let r = result_from_rccl(unsafe { t.#n(#(#args),*) });
                #(#post)*
                r
            }
        } else {
            quote! {
                #(#pre)*
                // SAFETY: forwarded under the caller's contract.
                unsafe { t.#n(#(#args),*) }
            }
        };
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                let t = self.table();
                if !self.translates() {
                    // SAFETY: NCCL itself (HIP's NVIDIA platform): forwarded unchanged.
                    return unsafe { t.#n(#(#args),*) };
                }
                #body
            }
        });
    }
    items.push(syn::parse_quote! {
        /// RCCL with NCCL's values: data types and operations translated on the way in, results
        /// on the way out. On HIP's NVIDIA platform the library is NCCL and values pass unchanged.
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl Nccl for crate::nccl::CollectiveLibrary { #(#impl_items)* }
    });
    crate::emit::render(
        inputs,
        "NCCL<->RCCL translation: tables generated from both headers, and the translating impl.",
        &items,
    )
}

fn facade_module(fns: &[&FnDecl], inputs: &str) -> Result<String> {
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use anycuda_api::nccl::*;
        ),
        syn::parse_quote!(
            use core::ffi::{c_char, c_int, c_long, c_longlong, c_uint, c_ulong, c_ulonglong, c_void};
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
        let fb = fallback(f)?;
        impl_items.push(quote! {
            #[inline]
            unsafe fn #n(&self, #(#args: #tys),*) #ret {
                match *self {
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-cuda")]
                    crate::nccl::Library::Cuda(t) => unsafe { t.#n(#(#args),*) },
                    // SAFETY: forwarded under the caller's contract.
                    #[cfg(feature = "backend-hip")]
                    crate::nccl::Library::Hip(l) => unsafe { l.#n(#(#args),*) },
                }
            }
        });
        let doc = format!(
            "`{}` on the active backend's collective library (NCCL, or RCCL on AMD), with NCCL's signature and values.",
            f.name
        );
        items.push(syn::parse_quote! {
            #[doc = #doc]
            ///
            /// # Safety
            /// The contract of the NCCL function of the same name: every pointer and handle valid
            /// for what NCCL's documentation says the function reads or writes.
            #[inline]
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn #n(#(#args: #tys),*) #ret {
                match crate::nccl::library() {
                    // SAFETY: forwarded under the caller's contract.
                    Ok(l) => unsafe { l.#n(#(#args),*) },
                    #[allow(unused_variables)]
                    Err(_) => #fb,
                }
            }
        });
    }
    items.push(syn::parse_quote! {
        #[allow(unused_variables, clippy::too_many_arguments)]
        impl Nccl for crate::nccl::Library { #(#impl_items)* }
    });
    crate::emit::render(
        inputs,
        "The NCCL API's free functions, dispatched to the active backend's collective library.",
        &items,
    )
}
