//! `libcudart.so.12`: CUDA 12's runtime ABI served by anycuda's CUDA-13-named implementation.
//!
//! Every function of CUDA 12's `cuda_runtime_api.h` (under the symbol its header maps it to,
//! plus the per-thread `_ptds`/`_ptsz` variants and nvcc's hidden entry points) is compared
//! with CUDA 13's, following every named type to its definition in both headers:
//! - **forward**: same C signature, every type the same layout: served by the 13 export. An enum
//!   is the same when every CUDA 12 enumerator keeps its value in 13 (`...Max`/`...Count`
//!   sentinels aside, and the renamed or reserved ones of `ENUM_CHANGES`); a struct is the
//!   same when it has the same size and 13 only carved fields out of 12's trailing `reserved`
//!   bytes or wrapped a field in a union of the same size;
//! - **prefix**: same signature, but a struct behind a pointer grew at its end in 13 (fields
//!   added, the 12 fields first): a generated adapter passes a zeroed 13 struct, holding the
//!   caller's 12 bytes for an input (`const T *`), and copies 12's bytes back for an output (`T *`);
//! - **hand**: an adapter written in `capi/src/cudart12.rs` (names found there);
//! - **not supported**: anything else; answers `cudaErrorNotSupported`, listed with the reason.
//!
//! Outputs: `capi/src/generated/cudart12.rs` (the 12 types the hand adapters need, generated
//! adapters, the function table `anycuda_cudart12_table`, the lists) and
//! `cudart12/src/generated/exports.rs` (the `libcudart.so.12` library: one export per name,
//! each a call through that table).

use crate::emit::banner;
use crate::emit_cuda::CudaFn;
use crate::emit_traits::{header, ident, params, pretty, ret_type};
use crate::model::{clean_item_docs, Bindings, Item};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// CUDA 12 enumerators whose name is gone in CUDA 13, accepted with the reason: the value is
/// passed on unchanged.
const ENUM_CHANGES: &[(&str, &str, &str)] = &[
    (
        "cudaDeviceAttr",
        "cudaDevAttrMaxTimelineSemaphoreInteropSupported",
        "renamed cudaDevAttrTimelineSemaphoreInteropSupported in CUDA 13, same value and meaning",
    ),
    (
        "cudaDeviceAttr",
        "cudaDevAttrCooperativeMultiDeviceLaunch",
        "reserved in CUDA 13 (multi-device cooperative launch was removed): the query answers what CUDA 13 answers for it",
    ),
    (
        "cudaCGScope",
        "cudaCGScopeMultiGrid",
        "reserved in CUDA 13 (multi-grid groups were removed); no runtime function takes it",
    ),
];

/// How a CUDA 12 type compares with CUDA 13's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compat {
    /// Same layout and meaning.
    Same,
    /// A struct or union whose CUDA 12 bytes are a prefix of CUDA 13's (13 is larger).
    Prefix,
    /// Anything else.
    Different,
}

/// A struct or union: its fields (name, type text) and whether it is a union.
#[derive(Clone, Debug)]
struct Aggregate {
    union: bool,
    fields: Vec<(String, String)>,
}

fn strip(attrs: &mut Vec<syn::Attribute>) {
    attrs.retain(|a| !a.path().is_ident("doc") && !a.path().is_ident("derive"));
}

/// Type definitions as canonical text (docs and derives removed), the aggregates' fields, and
/// enums by name.
struct Defs {
    text: BTreeMap<String, String>,
    aggregates: BTreeMap<String, Aggregate>,
    enums: BTreeMap<String, BTreeMap<String, i64>>,
    sizes: BTreeMap<String, u64>,
}

fn defs(b: &Bindings) -> Defs {
    let mut d = Defs {
        text: BTreeMap::new(),
        aggregates: BTreeMap::new(),
        enums: BTreeMap::new(),
        sizes: b.sizes.iter().map(|(k, v)| (k.clone(), *v)).collect(),
    };
    let fields_of = |f: &syn::Fields| -> Vec<(String, String)> {
        f.iter()
            .map(|f| {
                (
                    f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                    f.ty.to_token_stream().to_string(),
                )
            })
            .collect()
    };
    for it in &b.items {
        let Item::Plain(p) = it else { continue };
        let mut p = p.clone();
        let name = match &mut p {
            syn::Item::Struct(s) => {
                strip(&mut s.attrs);
                for f in s.fields.iter_mut() {
                    strip(&mut f.attrs);
                }
                d.aggregates.insert(
                    s.ident.to_string(),
                    Aggregate {
                        union: false,
                        fields: fields_of(&s.fields),
                    },
                );
                s.ident.to_string()
            }
            syn::Item::Union(u) => {
                strip(&mut u.attrs);
                for f in u.fields.named.iter_mut() {
                    strip(&mut f.attrs);
                }
                d.aggregates.insert(
                    u.ident.to_string(),
                    Aggregate {
                        union: true,
                        fields: fields_of(&syn::Fields::Named(u.fields.clone())),
                    },
                );
                u.ident.to_string()
            }
            syn::Item::Type(t) => {
                strip(&mut t.attrs);
                t.ident.to_string()
            }
            _ => continue,
        };
        d.text.insert(name, p.to_token_stream().to_string());
    }
    for e in b.enums.values() {
        let v: BTreeMap<String, i64> = e
            .variants
            .iter()
            .map(|v| (v.name.clone(), v.value))
            .collect();
        for n in std::iter::once(&e.tag).chain(e.aliases.iter()) {
            d.enums.insert(n.clone(), v.clone());
        }
    }
    d
}

/// The identifiers a token text names.
fn idents(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_string)
        .collect()
}

/// CUDA 12's definitions against CUDA 13's.
struct Types {
    d12: Defs,
    d13: Defs,
    memo: RefCell<BTreeMap<String, Compat>>,
}

impl Types {
    fn new(b12: &Bindings, b13: &Bindings) -> Self {
        Types {
            d12: defs(b12),
            d13: defs(b13),
            memo: RefCell::new(BTreeMap::new()),
        }
    }

    /// The worst compatibility of the named types in `text`.
    fn of_text(&self, text: &str) -> Compat {
        let mut worst = Compat::Same;
        for n in idents(text) {
            match self.of(&n) {
                Compat::Same => {}
                Compat::Prefix => worst = Compat::Prefix,
                Compat::Different => return Compat::Different,
            }
        }
        worst
    }

    /// A field type must be the same for the enclosing type to keep its layout.
    fn same_text(&self, text: &str) -> bool {
        self.of_text(text) == Compat::Same
    }

    fn of(&self, n: &str) -> Compat {
        if let Some(c) = self.memo.borrow().get(n) {
            return *c;
        }
        // Cycles (a struct pointing to itself) are assumed the same while being checked.
        self.memo.borrow_mut().insert(n.to_string(), Compat::Same);
        let c = self.compute(n);
        self.memo.borrow_mut().insert(n.to_string(), c);
        c
    }

    fn compute(&self, n: &str) -> Compat {
        if let (Some(a), Some(b)) = (self.d12.enums.get(n), self.d13.enums.get(n)) {
            let ok = a.iter().all(|(k, v)| {
                b.get(k) == Some(v)
                    || k.ends_with("Max")
                    || k.ends_with("Count")
                    || ENUM_CHANGES
                        .iter()
                        .any(|(e, x, _)| *x == k && self.alias_of(e, n))
            });
            return if ok { Compat::Same } else { Compat::Different };
        }
        let (Some(t12), Some(t13)) = (self.d12.text.get(n), self.d13.text.get(n)) else {
            // Not a type of these headers (a primitive, `c_int`, ...), or gone in 13.
            return if self.d12.text.contains_key(n) {
                Compat::Different
            } else {
                Compat::Same
            };
        };
        if t12 == t13 {
            let inner: Vec<String> = idents(t12).into_iter().filter(|i| i != n).collect();
            return if inner.iter().all(|i| self.of(i) == Compat::Same) {
                Compat::Same
            } else {
                Compat::Different
            };
        }
        let (Some(a12), Some(a13)) = (self.d12.aggregates.get(n), self.d13.aggregates.get(n))
        else {
            return Compat::Different;
        };
        if a12.union != a13.union {
            return Compat::Different;
        }
        let mut f12 = a12.fields.clone();
        while f12.last().is_some_and(|(f, _)| f.starts_with("reserved")) {
            f12.pop();
        }
        let matches = |(name, ty): &(String, String), (n13, t13): &(String, String)| {
            if name == n13 && ty == t13 && self.same_text(ty) {
                return true;
            }
            // CUDA 13 wraps a field in an anonymous union (`cudaMemLocation::id`).
            n13.starts_with("__bindgen_anon")
                && self.d13.aggregates.get(t13).is_some_and(|u| {
                    u.union
                        && u.fields
                            .first()
                            .is_some_and(|(m, mt)| m == name && mt == ty)
                })
                && self.d13.sizes.get(t13).copied() == type_size(ty)
        };
        let ok = if a12.union {
            f12.iter().all(|f| a13.fields.iter().any(|g| matches(f, g)))
        } else {
            // The last CUDA 12 field may itself have grown at its end (`cudaResourceDesc::res`,
            // a union that gained a larger member): the 12 bytes stay a prefix.
            let last_grew = |k: usize,
                             (name, ty): &(String, String),
                             (n13, t13): &(String, String)| {
                k + 1 == f12.len() && name == n13 && ty == t13 && self.of_text(ty) == Compat::Prefix
            };
            f12.len() <= a13.fields.len()
                && f12
                    .iter()
                    .zip(&a13.fields)
                    .enumerate()
                    .all(|(k, (f, g))| matches(f, g) || last_grew(k, f, g))
        };
        if !ok {
            return Compat::Different;
        }
        match (self.d12.sizes.get(n), self.d13.sizes.get(n)) {
            (Some(s12), Some(s13)) if s12 == s13 => Compat::Same,
            (Some(s12), Some(s13)) if s12 < s13 => Compat::Prefix,
            _ => Compat::Different,
        }
    }

    fn alias_of(&self, e: &str, n: &str) -> bool {
        e == n
            || self
                .d12
                .text
                .get(n)
                .is_some_and(|t| idents(t).iter().any(|i| i == e))
    }
}

/// Sizes of the primitive types an anonymous-union wrapper may hold.
fn type_size(ty: &str) -> Option<u64> {
    match ty {
        "c_int" | "c_uint" => Some(4),
        _ => None,
    }
}

/// How one CUDA 12 export is served.
#[derive(Clone, Debug)]
enum Plan {
    /// The 13 export of that name.
    Forward(String),
    /// A generated adapter copying prefix structs into the 13 export of that name.
    Prefix(String),
    /// `crate::cudart12::<name>` (hand-written).
    Hand(String),
    /// `cudaErrorNotSupported`, with the reason.
    NotSupported(String),
}

/// One export of `libcudart.so.12`.
#[derive(Clone, Debug)]
struct Export12 {
    symbol: String,
    /// The 12 declaration.
    f: CudaFn,
    plan: Plan,
}

fn sig_text(f: &CudaFn) -> Vec<String> {
    let mut v: Vec<String> = f
        .decl
        .args
        .iter()
        .map(|(_, t)| t.to_token_stream().to_string())
        .collect();
    v.push(
        f.decl
            .ret
            .as_ref()
            .map_or("()".to_string(), |t| t.to_token_stream().to_string()),
    );
    v
}

/// The pointee of a `*const T` / `*mut T` text, and whether it is `mut`.
fn pointee(ty: &str) -> Option<(bool, &str)> {
    if let Some(t) = ty.strip_prefix("* const ") {
        return (!t.contains('*')).then_some((false, t));
    }
    if let Some(t) = ty.strip_prefix("* mut ") {
        return (!t.contains('*')).then_some((true, t));
    }
    None
}

fn strip_version(s: &str) -> Option<&str> {
    let (b, v) = s.rsplit_once("_v")?;
    v.parse::<u32>().ok().map(|_| b)
}

/// FNV-1a of the export list: both libraries embed it, so a `libcudart.so.12` never runs
/// against a C-ABI library built from other headers.
fn list_hash(names: &[String]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in names.join("\n").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The inputs of [`generate`].
pub struct Inputs<'a> {
    /// CUDA 12's runtime bindings and catalogue, and its `cuda_runtime_api.h` text.
    pub b12: &'a Bindings,
    /// The CUDA 12 catalogue.
    pub fns12: &'a [CudaFn],
    /// CUDA 12's `cuda_runtime_api.h`.
    pub header12: &'a str,
    /// CUDA 13's runtime bindings.
    pub b13: &'a Bindings,
    /// The CUDA 13 catalogue.
    pub fns13: &'a [CudaFn],
    /// The C ABI's runtime exports (13).
    pub exports13: &'a [String],
    /// `CUDA_VERSION` of CUDA 12's `cuda.h` (the version CUDA 12's `cudaGetDriverEntryPoint`
    /// asks for).
    pub cuda12_version: u32,
    /// The input description for the banner.
    pub inputs: &'a str,
}

/// Generates `capi/src/generated/cudart12.rs` and `cudart12/src/generated/exports.rs`.
pub fn generate(root: &Path, i: &Inputs<'_>) -> Result<Vec<(PathBuf, String)>> {
    let t = Types::new(i.b12, i.b13);
    let hand_src = std::fs::read_to_string(root.join("capi/src/cudart12.rs"))
        .context("reading capi/src/cudart12.rs")?;
    let hand_re = regex::Regex::new(r#"(?m)^pub\(crate\) unsafe extern "C" fn (\w+)\("#)?;
    let hand: BTreeSet<String> = hand_re
        .captures_iter(&hand_src)
        .map(|c| c[1].to_string())
        .collect();
    let exports13: BTreeSet<&str> = i.exports13.iter().map(String::as_str).collect();
    // The C ABI's hand-written exports (capi/src/procaddr.rs) are not in `exports`.
    let procaddr: BTreeSet<String> =
        crate::emit_traits::data_lines(&root.join("codegen/capi-hand.txt"))?
            .into_iter()
            .filter_map(|(_, l)| l.first().cloned())
            .collect();
    let by_sym13: BTreeMap<&str, &CudaFn> =
        i.fns13.iter().map(|f| (f.symbol.as_str(), f)).collect();
    let by_name13: BTreeMap<&str, &CudaFn> = i.fns13.iter().map(|f| (f.name.as_str(), f)).collect();

    // ---- one plan per CUDA 12 symbol ----
    let mut plans: BTreeMap<String, Export12> = BTreeMap::new();
    let mut decls12: Vec<CudaFn> = Vec::new();
    let mut seen = BTreeSet::new();
    for f in i.fns12 {
        if seen.insert(f.symbol.clone()) {
            decls12.push(f.clone());
        }
    }
    // nvcc's hidden entry points: not in the 12 header, referenced by every nvcc-built program;
    // their ABI is unchanged since CUDA 9, so the 13 catalogue's declarations serve both.
    for f in i.fns13 {
        if f.name.starts_with("__cuda") && seen.insert(f.symbol.clone()) {
            decls12.push(f.clone());
        }
    }
    for f in &decls12 {
        let sym = f.symbol.clone();
        let target = by_sym13
            .get(sym.as_str())
            .or_else(|| by_name13.get(f.name.as_str()))
            .or_else(|| strip_version(&sym).and_then(|b| by_name13.get(b)))
            .copied();
        let plan = if hand.contains(&sym) {
            Plan::Hand(sym.clone())
        } else {
            match target {
                None => Plan::NotSupported("absent from CUDA 13's runtime".into()),
                Some(g) => {
                    let (s12, s13) = (sig_text(f), sig_text(g));
                    if s12 != s13 {
                        Plan::NotSupported(format!(
                            "CUDA 13's `{}` takes other parameters ({}) than CUDA 12's ({})",
                            g.symbol,
                            s13[..s13.len() - 1].join(", "),
                            s12[..s12.len() - 1].join(", ")
                        ))
                    } else {
                        let mut worst = Compat::Same;
                        let mut bad = Vec::new();
                        for ty in &s12 {
                            let c = match pointee(ty) {
                                Some((_, p)) if t.of(p) == Compat::Prefix => Compat::Prefix,
                                _ => t.of_text(ty),
                            };
                            match c {
                                Compat::Same => {}
                                Compat::Prefix => worst = Compat::Prefix,
                                Compat::Different => {
                                    worst = Compat::Different;
                                    bad.extend(
                                        idents(ty).into_iter().filter(|n| t.of(n) != Compat::Same),
                                    );
                                }
                            }
                        }
                        if !exports13.contains(g.symbol.as_str()) {
                            bail!(
                                "{} forwards to {}, which the C ABI does not export",
                                sym,
                                g.symbol
                            );
                        }
                        match worst {
                            Compat::Same => Plan::Forward(g.symbol.clone()),
                            Compat::Prefix => Plan::Prefix(g.symbol.clone()),
                            Compat::Different => {
                                bad.sort();
                                bad.dedup();
                                Plan::NotSupported(format!(
                                    "the layout of {} changed between CUDA 12 and 13 in a way no copy converts",
                                    bad.iter()
                                        .map(|b| format!("`{b}`"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ))
                            }
                        }
                    }
                }
            }
        };
        plans.insert(
            sym.clone(),
            Export12 {
                symbol: sym,
                f: f.clone(),
                plan,
            },
        );
    }
    for h in &hand {
        if !plans.contains_key(h) {
            bail!("capi/src/cudart12.rs adapts {h}, which CUDA 12's runtime does not declare");
        }
    }
    // Per-thread variants (`#define f __CUDART_API_PT{DS,SZ}(g)`), served as `g` is (by the 13
    // export's own per-thread variant where it forwards).
    for (target, suf) in crate::emit_capi::per_thread(i.header12)? {
        let Some(base) = plans.get(&target).cloned() else {
            bail!("CUDA 12 per-thread define names {target}, which is no declared function");
        };
        let sym = format!("{target}{suf}");
        let plan = match &base.plan {
            Plan::Forward(s) if exports13.contains(format!("{s}{suf}").as_str()) => {
                Plan::Forward(format!("{s}{suf}"))
            }
            p => p.clone(),
        };
        plans.insert(
            sym.clone(),
            Export12 {
                symbol: sym,
                f: base.f.clone(),
                plan,
            },
        );
    }
    let exports: Vec<Export12> = plans.into_values().collect();
    let names: Vec<String> = exports.iter().map(|e| e.symbol.clone()).collect();
    let hash = list_hash(&names);
    let n = exports.len();

    // ---- capi/src/generated/cudart12_types.rs (self-contained: the layout test includes it) ----
    let mut titems: Vec<syn::Item> = Vec::new();
    // CUDA 12's `cudaDeviceProp`, which the hand adapters fill.
    let mut prop = i
        .b12
        .items
        .iter()
        .find_map(|it| match it {
            Item::Plain(syn::Item::Struct(s)) if s.ident == "cudaDeviceProp" => {
                Some(syn::Item::Struct(s.clone()))
            }
            _ => None,
        })
        .context("no cudaDeviceProp in CUDA 12's headers")?;
    clean_item_docs(&mut prop);
    let prop_size = *i
        .b12
        .sizes
        .get("cudaDeviceProp")
        .context("no size of CUDA 12's cudaDeviceProp")?;
    let prop_fields: Vec<String> = match &prop {
        syn::Item::Struct(s) => s
            .fields
            .iter()
            .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
            .collect(),
        _ => unreachable!(),
    };
    let prop_size = prop_size as usize;
    // The fields both `cudaDeviceProp`s have (same name and type) convert by copy; CUDA 12's
    // others are the hand adapter's (capi/src/cudart12.rs).
    let (a12, a13) = (
        t.d12
            .aggregates
            .get("cudaDeviceProp")
            .context("CUDA 12 cudaDeviceProp")?,
        t.d13
            .aggregates
            .get("cudaDeviceProp")
            .context("CUDA 13 cudaDeviceProp")?,
    );
    let mut common = Vec::new();
    let mut only12 = Vec::new();
    for (f, ty) in &a12.fields {
        if f.starts_with("reserved") {
            continue; // zero, as the header asks of reserved fields
        }
        match a13.fields.iter().find(|(g, _)| g == f) {
            Some((_, ty13)) if ty13 == ty && t.same_text(ty) => common.push(ident(f)),
            Some(_) => bail!("cudaDeviceProp::{f} changed its type between CUDA 12 and 13"),
            None => only12.push(f.clone()),
        }
    }
    titems.push(syn::parse_quote! {
        /// Copies the fields CUDA 12's and 13's `cudaDeviceProp` share from 13's into 12's.
        pub fn device_prop_from_13(p13: &anycuda_api::runtime::cudaDeviceProp, p12: &mut cudaDeviceProp) {
            #(p12.#common = p13.#common;)*
        }
    });
    titems.push(syn::parse_quote! {
        /// Copies the fields CUDA 12's and 13's `cudaDeviceProp` share from 12's into 13's.
        pub fn device_prop_to_13(p12: &cudaDeviceProp, p13: &mut anycuda_api::runtime::cudaDeviceProp) {
            #(p13.#common = p12.#common;)*
        }
    });
    titems.push(str_list(
        "DEVICE_PROP_12_ONLY",
        "CUDA 12's `cudaDeviceProp` fields that CUDA 13 removed (filled by the hand adapter).",
        &only12,
    ));
    titems.push(prop);
    titems.push(syn::parse_quote! {
        const _: () = assert!(core::mem::size_of::<cudaDeviceProp>() == #prop_size);
    });
    let field_entries = prop_fields.iter().map(|f| {
        let fi = ident(f);
        quote!((#f, core::mem::offset_of!(cudaDeviceProp, #fi), cudaDeviceProp::size_of_field(|p| &p.#fi)))
    });
    titems.push(syn::parse_quote! {
        impl cudaDeviceProp {
            /// The size of the field `f` selects.
            const fn size_of_field<T>(_f: fn(&cudaDeviceProp) -> &T) -> usize {
                core::mem::size_of::<T>()
            }
        }
    });
    titems.push(syn::parse_quote! {
        /// CUDA 12's `cudaDeviceProp` fields: (name, offset, size), in header order (checked
        /// against the CUDA 12 header by a C program: capi/tests/cudart12.rs).
        pub static DEVICE_PROP_FIELDS: &[(&str, usize, usize)] = &[#(#field_entries),*];
    });
    let mut types_text = header(
        i.inputs,
        "CUDA 12's `cudaDeviceProp` (its layout differs from CUDA 13's), its conversions, and its\nfields' offsets; self-contained, so capi/tests/cudart12.rs checks it against the CUDA 12 header.",
    );
    types_text.push_str("use anycuda_api::runtime::*;\nuse core::ffi::*;\n");
    types_text.push_str(&pretty(titems));
    let mut items: Vec<syn::Item> = Vec::new();
    // Generated adapters.
    let mut adapters = Vec::new();
    let mut entries: Vec<TokenStream> = Vec::new();
    let mut forwarded = Vec::new();
    let mut prefixed = Vec::new();
    let mut hand_list = Vec::new();
    let mut unsupported = Vec::new();
    for e in &exports {
        let ps = params(&e.f)?;
        let ret = ret_type(&e.f);
        let decl: Vec<TokenStream> = ps
            .iter()
            .map(|(n, ty)| {
                let ty = abi_type(&t, ty);
                quote!(#n: #ty)
            })
            .collect();
        let fname = ident(&format!("prefix_{}", e.symbol));
        match &e.plan {
            Plan::Forward(s) => {
                let module = if procaddr.contains(s) {
                    "crate::procaddr"
                } else {
                    "super::exports"
                };
                let p: syn::Path = syn::parse_str(&format!("{module}::{s}"))?;
                entries.push(quote!(#p as *const c_void));
                forwarded.push(format!("{} {s}", e.symbol));
            }
            Plan::Hand(s) => {
                let p: syn::Path = syn::parse_str(&format!("crate::cudart12::{s}"))?;
                // The hand adapter must have CUDA 12's C signature (checked by the compiler).
                let tys: Vec<syn::Type> = ps.iter().map(|(_, ty)| abi_type(&t, ty)).collect();
                adapters.push(syn::parse_quote! {
                    const _: unsafe extern "C" fn(#(#tys),*) -> #ret = #p;
                });
                entries.push(quote!(#p as *const c_void));
                hand_list.push(e.symbol.clone());
            }
            Plan::NotSupported(why) => {
                let fname = ident(&format!("unsupported_{}", e.symbol));
                let ret_s = quote!(#ret).to_string();
                if ret_s != "cudaError_t" {
                    bail!("{} returns {ret_s}: cannot answer not-supported", e.symbol);
                }
                let msg = format!("{}: not supported for CUDA 12 programs: {why}", e.symbol);
                let doc = format!(" `{}` of CUDA 12: not supported ({why}).", e.symbol);
                let unused = ps.iter().map(|(n, _)| n);
                adapters.push(syn::parse_quote! {
                    #[doc = #doc]
                    unsafe extern "C" fn #fname(#(#decl),*) -> #ret {
                        let _ = (#(#unused),*);
                        log::warn!(#msg);
                        cudaError_t::cudaErrorNotSupported
                    }
                });
                entries.push(quote!(#fname as *const c_void));
                unsupported.push(format!("{}: {why}", e.symbol));
            }
            Plan::Prefix(s) => {
                let target: syn::Path = syn::parse_str(&format!("super::exports::{s}"))?;
                let mut pre = Vec::new();
                let mut post = Vec::new();
                let mut args = Vec::new();
                let mut what = Vec::new();
                for (k, (n, ty)) in ps.iter().enumerate() {
                    let text = ty.to_token_stream().to_string();
                    match pointee(&text) {
                        Some((is_mut, p)) if t.of(p) == Compat::Prefix => {
                            let s12 = *t.d12.sizes.get(p).context("prefix size")? as usize;
                            let pty = ident(p);
                            let b = ident(&format!("__b{k}"));
                            let bp = ident(&format!("__p{k}"));
                            // Zero is valid for these C structs (integers, floats, pointers,
                            // `Option`s of function pointers). An input (`const T *`) is the
                            // caller's CUDA 12 bytes, a prefix of CUDA 13's struct; an output
                            // (`T *`: every one of these is a pure output) starts zeroed, so no
                            // byte the caller left uninitialised is read.
                            let copy_in = if is_mut {
                                quote!()
                            } else {
                                quote! {
                                    if !#n.is_null() {
                                        unsafe { core::ptr::copy_nonoverlapping(#n as *const u8, (&raw mut #b).cast::<u8>(), #s12) };
                                    }
                                }
                            };
                            pre.push(quote! {
                                let mut #b: #pty = unsafe { core::mem::zeroed() };
                                #copy_in
                                let #bp = if #n.is_null() { core::ptr::null_mut() } else { &raw mut #b };
                            });
                            if is_mut {
                                // Copied back on success only: on an error the caller's
                                // struct stays as it was.
                                post.push(quote! {
                                    if __r == cudaError_t::cudaSuccess && !#n.is_null() {
                                        unsafe { core::ptr::copy_nonoverlapping((&raw const #b).cast::<u8>(), #n as *mut u8, #s12) };
                                    }
                                });
                            }
                            args.push(quote!(#bp));
                            what.push(format!(
                                "`{p}` ({s12} bytes in CUDA 12, {} in 13)",
                                t.d13.sizes.get(p).copied().unwrap_or(0)
                            ));
                        }
                        _ => args.push(quote!(#n)),
                    }
                }
                let doc = format!(
                    " `{}` of CUDA 12: {} as a zeroed CUDA 13 struct (inputs copied in, outputs copied back), then `{s}`.",
                    e.symbol,
                    what.join(", ")
                );
                adapters.push(syn::parse_quote! {
                    #[doc = #doc]
                    unsafe extern "C" fn #fname(#(#decl),*) -> #ret {
                        #(#pre)*
                        // SAFETY: the caller's arguments, with CUDA 13's structs in place of 12's.
                        let __r = unsafe { #target(#(#args),*) };
                        #(#post)*
                        __r
                    }
                });
                entries.push(quote!(#fname as *const c_void));
                prefixed.push(format!("{}: {}", e.symbol, what.join(", ")));
            }
        }
    }
    items.extend(adapters);
    let v12 = i.cuda12_version;
    items.push(syn::parse_quote! {
        /// `CUDA_VERSION` of the pinned CUDA 12 headers: the version CUDA 12's
        /// `cudaGetDriverEntryPoint` resolves driver functions at.
        pub const CUDA12_VERSION: u32 = #v12;
    });
    items.push(syn::parse_quote! {
        /// The function table `libcudart.so.12` calls through: entry `i` serves
        /// `CUDART12_EXPORTS[i]`.
        #[repr(C)]
        pub struct Table {
            /// FNV-1a of the export list, which `libcudart.so.12` compares with its own.
            pub hash: u64,
            /// The number of entries.
            pub len: usize,
            /// The entries.
            pub f: [*const c_void; #n],
        }
    });
    items.push(syn::parse_quote! {
        // SAFETY: the table is immutable; its entries are function addresses.
        unsafe impl Sync for Table {}
    });
    items.push(syn::parse_quote! {
        /// The table `libcudart.so.12` (crate `anycuda-cudart12`) reads at load.
        #[no_mangle]
        pub static anycuda_cudart12_table: Table = Table { hash: #hash, len: #n, f: [#(#entries),*] };
    });
    let enum_changes: Vec<String> = ENUM_CHANGES
        .iter()
        .map(|(e, v, why)| format!("{e}::{v}: {why}"))
        .collect();
    let lists: Vec<syn::Item> = vec![
        str_list("CUDART12_ENUM_CHANGES", "CUDA 12 enumerators whose name is gone in CUDA 13, passed on unchanged, each with its reason.", &enum_changes),
        str_list("CUDART12_EXPORTS", "Every name `libcudart.so.12` exports, sorted (the table's order).", &names),
        str_list("CUDART12_FORWARDED", "Exports served by the CUDA 13 export of the same C signature (`name export`).", &forwarded),
        str_list("CUDART12_PREFIX", "Exports served by a generated adapter that copies CUDA 12 structs into CUDA 13's (`name: what`).", &prefixed),
        str_list("CUDART12_HAND", "Exports served by a hand-written adapter (capi/src/cudart12.rs).", &hand_list),
        str_list("CUDART12_NOT_SUPPORTED", "Exports that answer `cudaErrorNotSupported`, each with its reason.", &unsupported),
    ];
    items.extend(lists);
    let mut capi = header(
        i.inputs,
        "CUDA 12's runtime ABI (`libcudart.so.12`) on anycuda's CUDA 13 one (codegen/src/cudart12.rs):\nCUDA 12's `cudaDeviceProp`, the generated adapters, the function table and the lists.",
    );
    capi.push_str(
        "use anycuda::runtime::*;\nuse core::ffi::*;\npub use super::cudart12_types::*;\n",
    );
    capi.push_str(&pretty(items));

    // ---- cudart12/src/generated/exports.rs ----
    let mut lib_items: Vec<syn::Item> = Vec::new();
    lib_items.push(syn::parse_quote! {
        /// FNV-1a of the export list (the C-ABI library's table must carry the same).
        pub const HASH: u64 = #hash;
    });
    lib_items.push(syn::parse_quote! {
        /// The number of exports.
        pub const LEN: usize = #n;
    });
    for (k, e) in exports.iter().enumerate() {
        let ps = params(&e.f)?;
        let ret = ret_type(&e.f);
        let decl: Vec<TokenStream> = ps
            .iter()
            .map(|(n, ty)| {
                let ty = abi_type(&t, ty);
                quote!(#n: #ty)
            })
            .collect();
        let tys: Vec<syn::Type> = ps.iter().map(|(_, ty)| abi_type(&t, ty)).collect();
        let args = ps.iter().map(|(n, _)| n);
        let sym = ident(&e.symbol);
        let doc = format!(
            " `{}` of CUDA 12's runtime (anycuda's table entry {k}).",
            e.symbol
        );
        let missing = match quote!(#ret).to_string().as_str() {
            "cudaError_t" => quote!(cudaError_t::cudaErrorInitializationError),
            "* const c_char" => quote!(crate::NO_CAPI.as_ptr()),
            "()" => quote!(()),
            "* mut * mut c_void" => quote!(core::ptr::null_mut()),
            "c_char" => quote!(0),
            "c_uint" => quote!(0),
            "cudaChannelFormatDesc" => quote!(cudaChannelFormatDesc {
                x: 0,
                y: 0,
                z: 0,
                w: 0,
                f: cudaChannelFormatKind::cudaChannelFormatKindNone
            }),
            other => bail!(
                "{}: no answer for a missing C-ABI library returning {other}",
                e.symbol
            ),
        };
        lib_items.push(syn::parse_quote! {
            #[doc = #doc]
            #[no_mangle]
            pub unsafe extern "C" fn #sym(#(#decl),*) -> #ret {
                let Some(__f) = crate::entry(#k) else { return #missing };
                // SAFETY: entry #k of the C-ABI library's table is this function's
                // implementation, with this C signature (both generated from one list).
                let __f: unsafe extern "C" fn(#(#tys),*) -> #ret = unsafe { core::mem::transmute(__f) };
                // SAFETY: the caller's contract is the C function's.
                unsafe { __f(#(#args),*) }
            }
        });
    }
    let mut lib = header(
        i.inputs,
        "`libcudart.so.12`'s exports (codegen/src/cudart12.rs): every name a CUDA 12 program\nreferences, each a call through the C-ABI library's `anycuda_cudart12_table`.",
    );
    lib.push_str("use anycuda_api::runtime::*;\nuse core::ffi::*;\n");
    lib.push_str(&pretty(lib_items));
    let mod_text = format!(
        "{}\n//! Generated exports of `libcudart.so.12` (codegen/src/cudart12.rs).\n//! (`rustfmt::skip`: the file is already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod exports;\n",
        banner(i.inputs)
    );
    Ok(vec![
        (PathBuf::from("cudart12/src/generated/mod.rs"), mod_text),
        (PathBuf::from("capi/src/generated/cudart12.rs"), capi),
        (
            PathBuf::from("capi/src/generated/cudart12_types.rs"),
            types_text,
        ),
        (PathBuf::from("cudart12/src/generated/exports.rs"), lib),
    ])
}

/// A parameter's type at the ABI: a pointer to a CUDA 12 type whose layout is not CUDA 13's
/// becomes a `void` pointer (the adapters read it by its CUDA 12 layout); anything else is the
/// CUDA 13 type of the same layout.
fn abi_type(t: &Types, ty: &syn::Type) -> syn::Type {
    let text = ty.to_token_stream().to_string();
    if let Some((is_mut, p)) = pointee(&text) {
        if t.of(p) != Compat::Same {
            return if is_mut {
                syn::parse_quote!(*mut c_void)
            } else {
                syn::parse_quote!(*const c_void)
            };
        }
    }
    ty.clone()
}

fn str_list(name: &str, doc: &str, v: &[String]) -> syn::Item {
    let n = ident(name);
    let d = format!(" {doc}");
    syn::parse_quote! {
        #[doc = #d]
        pub static #n: &[&str] = &[#(#v),*];
    }
}
