//! Emission of the CUDA side: `api/src/generated/{driver,runtime,nvrtc,functions}.rs` and
//! `backends/cuda/src/generated/table.rs`.

use crate::emit::{ffi_use, int_lit};
use crate::model::{collapse_doc, doc_attrs, doc_lines, Bindings, EnumDef, FnDecl, Item};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span};
use quote::quote;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Where an extra (non-header) constant comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtraOrigin {
    /// Hallucinated from this HIP enumerator.
    Hallucinated(String),
    /// Defined by anycuda itself.
    Anycuda,
}

/// A constant added to a CUDA enum beyond what the header declares.
#[derive(Debug, Clone)]
pub struct ExtraConst {
    /// The constant's name on the CUDA type.
    pub name: String,
    /// Its value.
    pub value: i64,
    /// Its description.
    pub description: String,
    /// Its origin.
    pub origin: ExtraOrigin,
}

/// Extra constants per CUDA enum (keyed by the user-facing type name).
pub type Extras = BTreeMap<String, Vec<ExtraConst>>;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn enum_items(e: &EnumDef, extras: &[ExtraConst]) -> Result<Vec<syn::Item>> {
    let name = e.user_name();
    let n = ident(name);
    let repr = ident(&e.repr);
    let mut doc = doc_attrs(&e.doc);
    if doc.is_empty() {
        let s = format!(" The C enum `{name}`.");
        doc.push(syn::parse_quote!(#[doc = #s]));
    }
    let mut consts = Vec::new();
    let mut infos = Vec::new();
    for v in &e.variants {
        let vn = ident(&v.name);
        let val = int_lit(v.value);
        let d = doc_attrs(&v.doc);
        consts.push(quote! { #(#d)* pub const #vn: #n = #n(#val); });
        let vname = &v.name;
        let desc = collapse_doc(&v.doc);
        infos.push(quote! { crate::ConstInfo { name: #vname, value: #val, description: #desc, origin: crate::Origin::Cuda } });
    }
    for x in extras {
        if e.variants.iter().any(|v| v.name == x.name) {
            bail!(
                "extra constant {name}::{} collides with a header enumerator",
                x.name
            );
        }
        let vn = ident(&x.name);
        let val = int_lit(x.value);
        let d = doc_attrs(&x.description);
        consts.push(quote! { #(#d)* pub const #vn: #n = #n(#val); });
        let xname = &x.name;
        let desc = &x.description;
        let origin = match &x.origin {
            ExtraOrigin::Hallucinated(h) => quote!(crate::Origin::Hallucinated { hip_name: #h }),
            ExtraOrigin::Anycuda => quote!(crate::Origin::Anycuda),
        };
        infos.push(quote! { crate::ConstInfo { name: #xname, value: #val, description: #desc, origin: #origin } });
    }
    let table_doc = format!(" Every named constant of `{name}`, for [`crate::CudaEnum`].");
    let cname = name.to_string();
    let mut out: Vec<syn::Item> = vec![
        syn::parse_quote! {
            #(#doc)*
            #[repr(transparent)]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            pub struct #n(pub #repr);
        },
        syn::parse_quote! {
            impl #n {
                #(#consts)*
                #[doc = #table_doc]
                const __CONSTANTS: &'static [crate::ConstInfo] = &[#(#infos),*];
            }
        },
        syn::parse_quote! { crate::cuda_enum!(#n, #repr, #cname, #n::__CONSTANTS); },
    ];
    for alias in std::iter::once(&e.tag).chain(e.aliases.iter()) {
        if alias != name {
            let a = ident(alias);
            let d = format!(" C name of [`{name}`].");
            out.push(syn::parse_quote! { #[doc = #d] pub type #a = #n; });
        }
    }
    Ok(out)
}

/// `#define NAME ((TYPE)VALUE)` macros bindgen skips (pointer and typed casts), as consts.
fn cast_macros(headers: &[&str], b: &Bindings, known: &BTreeSet<String>) -> Result<Vec<syn::Item>> {
    let re = Regex::new(
        r"(?m)^\s*#\s*define\s+(\w+)\s+\(\(\s*(\w+)\s*(\*?)\s*\)\s*(-?(?:0x[0-9a-fA-F]+|\d+)|\w+)\s*\)",
    )?;
    let mut types: BTreeSet<String> = BTreeSet::new();
    for it in &b.items {
        match it {
            Item::Plain(syn::Item::Type(t)) => {
                types.insert(t.ident.to_string());
            }
            Item::Enum(tag) => {
                types.insert(b.enums[tag].user_name().to_string());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for h in headers {
        for c in re.captures_iter(h) {
            let (name, ty, star, val) = (&c[1], &c[2], &c[3], &c[4]);
            if known.contains(name) || !seen.insert(name.to_string()) {
                continue;
            }
            let value: syn::Expr = syn::parse_str(val)?;
            let n = ident(name);
            let doc = format!(" `#define {name} (({ty}{star}){val})`");
            let item: syn::Item = match (ty, star) {
                ("void", "*") => syn::parse_quote! {
                    #[doc = #doc]
                    pub const #n: *mut c_void = (#value) as usize as *mut c_void;
                },
                ("int", "") => syn::parse_quote! { #[doc = #doc] pub const #n: c_int = #value; },
                (t, "") if types.contains(t) => {
                    let t = ident(t);
                    // Pointer typedefs (handles) take the value through usize.
                    let is_ptr = b.items.iter().any(|it| matches!(it, Item::Plain(syn::Item::Type(ta)) if ta.ident == t && matches!(*ta.ty, syn::Type::Ptr(_))));
                    if is_ptr {
                        syn::parse_quote! { #[doc = #doc] pub const #n: #t = (#value) as usize as #t; }
                    } else {
                        syn::parse_quote! { #[doc = #doc] pub const #n: #t = #value; }
                    }
                }
                _ => continue,
            };
            out.push(item);
        }
    }
    Ok(out)
}

/// Renders one API types module (`driver.rs`, `runtime.rs` or `nvrtc.rs`).
///
/// `shared`: another module's bindings and path. A struct tag it also defines is the same C type
/// (e.g. `struct CUstream_st` behind both `CUstream` and `cudaStream_t`), so it is re-exported
/// from there instead of defined twice: mixed driver/runtime code then needs no casts.
pub fn api_module(
    b: &Bindings,
    headers: &[&str],
    extras: &Extras,
    inputs: &str,
    module_doc: &str,
    shared: Option<(&Bindings, &str)>,
) -> Result<String> {
    let mut items: Vec<syn::Item> = Vec::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    let shared_names: BTreeSet<String> = shared
        .map(|(o, _)| {
            o.items
                .iter()
                .filter_map(|it| match it {
                    Item::Plain(syn::Item::Struct(s)) => Some(s.ident.to_string()),
                    Item::Plain(syn::Item::Union(u)) => Some(u.ident.to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut reexported: Vec<syn::Ident> = Vec::new();
    for it in &b.items {
        match it {
            Item::Enum(tag) => {
                let e = &b.enums[tag];
                let ex = extras.get(e.user_name()).map(Vec::as_slice).unwrap_or(&[]);
                items.extend(enum_items(e, ex)?);
            }
            Item::Plain(p) => {
                if let syn::Item::Const(c) = p {
                    known.insert(c.ident.to_string());
                }
                let tag = match p {
                    syn::Item::Struct(s) => Some(s.ident.to_string()),
                    syn::Item::Union(u) => Some(u.ident.to_string()),
                    _ => None,
                };
                if let Some(t) = tag.filter(|t| shared_names.contains(t)) {
                    reexported.push(ident(&t));
                    continue;
                }
                items.push(p.clone());
                let name = match p {
                    syn::Item::Struct(s) => Some(s.ident.to_string()),
                    syn::Item::Union(u) => Some(u.ident.to_string()),
                    _ => None,
                };
                if let Some(name) = name {
                    if let Some(sz) = b.sizes.get(&name) {
                        let t = ident(&name);
                        let sz = *sz as usize;
                        items.push(syn::parse_quote! {
                            const _: () = assert!(::core::mem::size_of::<#t>() == #sz);
                        });
                    }
                }
            }
        }
    }
    if let (Some((_, path)), false) = (shared, reexported.is_empty()) {
        let path: syn::Path = syn::parse_str(path)?;
        items.insert(
            0,
            syn::parse_quote! {
                /// Struct tags shared with that module: one C type, one Rust type.
                pub use #path::{#(#reexported),*};
            },
        );
    }
    items.extend(cast_macros(headers, b, &known)?);
    // Every enum's constants, for tests and reports that walk all enums of the module.
    let mut tables = Vec::new();
    for it in &b.items {
        if let Item::Enum(tag) = it {
            let n = ident(b.enums[tag].user_name());
            let s = b.enums[tag].user_name();
            tables.push(quote!((#s, #n::__CONSTANTS)));
        }
    }
    items.push(syn::parse_quote! {
        /// `(type name, constants)` of every enum in this module, in header order.
        #[doc(hidden)]
        pub static ENUM_CONSTANTS: &[(&str, &[crate::ConstInfo])] = &[#(#tables),*];
    });
    let text: String = items.iter().map(|i| quote!(#i).to_string()).collect();
    if let Some(u) = ffi_use(&text) {
        items.insert(0, u);
    }
    crate::emit::render(inputs, module_doc, &items)
}

/// One entry of a CUDA function catalogue.
#[derive(Debug, Clone)]
pub struct CudaFn {
    /// The C name users call.
    pub name: String,
    /// The symbol the header maps it to.
    pub symbol: String,
    /// `cuGetProcAddress` version (driver), else 0.
    pub version: u32,
    /// The declaration of `symbol`.
    pub decl: FnDecl,
}

/// `#define name target` (optionally wrapped in a per-thread macro) lines: target → name.
fn define_map(header: &str, prefix: &str) -> Result<HashMap<String, String>> {
    let re = Regex::new(&format!(
        r"(?m)^\s*#\s*define\s+({prefix}\w+)\s+(?:__CUDA\w*_API_PT(?:DS|SZ)\(\s*)?({prefix}\w+)\s*\)?\s*$"
    ))?;
    let mut m = HashMap::new();
    for c in re.captures_iter(header) {
        if c[1] != c[2] {
            m.insert(c[2].to_string(), c[1].to_string());
        }
    }
    Ok(m)
}

fn version_suffix(s: &str) -> Option<(&str, u32)> {
    let (base, v) = s.rsplit_once("_v")?;
    Some((base, v.parse().ok()?))
}

/// Builds a catalogue: one entry per public C name (sorted by name).
pub fn catalogue(
    b: &Bindings,
    header: &str,
    prefix: &str,
    pfn: Option<&str>,
) -> Result<Vec<CudaFn>> {
    let defs = define_map(header, prefix)?;
    let pfns = match pfn {
        Some(t) => pfn_versions(t)?,
        None => HashMap::new(),
    };
    let mut out: BTreeMap<String, CudaFn> = BTreeMap::new();
    for f in &b.functions {
        let sym = &f.name;
        let mut names = Vec::new();
        match defs.get(sym) {
            Some(n) => {
                names.push(n.clone());
                // A target that is itself an unversioned public function keeps its own name.
                if version_suffix(sym).is_none() {
                    names.push(sym.clone());
                }
            }
            None => names.push(sym.clone()),
        }
        let version = if pfn.is_some() {
            driver_version(sym, f.args.len(), &pfns)
        } else {
            0
        };
        for name in names {
            out.entry(name.clone()).or_insert_with(|| CudaFn {
                name,
                symbol: sym.clone(),
                version,
                decl: f.clone(),
            });
        }
    }
    Ok(out.into_values().collect())
}

/// One legacy-stream `PFN_<base>_v<N>` typedef: its version, its parameter count, and whether it
/// sits in the internal-only block (the oldest ABIs, such as 32-bit sizes).
#[derive(Clone, Copy, Debug)]
struct PfnVersion {
    version: u32,
    nargs: usize,
    internal: bool,
}

/// The legacy-stream `PFN_<base>_v<N>` typedefs (per-thread ones left out): base → every ABI,
/// sorted by version.
fn pfn_versions(text: &str) -> Result<HashMap<String, Vec<PfnVersion>>> {
    let re = Regex::new(
        r"typedef\s+[\w\s\*]+\(\s*CUDAAPI\s*\*\s*PFN_(\w+?)_v(\d+)(_pt(?:ds|sz))?\s*\)\s*\((.*)\)\s*;",
    )?;
    let mut internal = false;
    let mut m: HashMap<String, Vec<PfnVersion>> = HashMap::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("#if defined(__CUDA_API_VERSION_INTERNAL)") {
            internal = true;
            continue;
        }
        if internal && line.starts_with("#endif") {
            internal = false;
            continue;
        }
        let Some(c) = re.captures(t) else { continue };
        if c.get(3).is_some() {
            continue;
        }
        let params = c[4].trim();
        let nargs = if params.is_empty() || params == "void" {
            0
        } else {
            params.split(',').count()
        };
        m.entry(c[1].to_string()).or_default().push(PfnVersion {
            version: c[2].parse().context("PFN version")?,
            nargs,
            internal,
        });
    }
    for v in m.values_mut() {
        v.sort_by_key(|p| p.version);
        v.dedup_by_key(|p| p.version);
    }
    Ok(m)
}

/// The `cuGetProcAddress` version of the ABI a driver symbol implements. NVIDIA numbers a
/// function's ABIs in version order, internal ones included: the oldest is the plain name, the
/// next `_v2`, then `_v3` (`cuGraphAddNode`: 12020 → plain, 12030 → `_v2`, 13040 → `_v3`). The
/// suffix decides, not the parameter list: `_v2` and `_v3` of `cuGraphAddNode` share one (the
/// struct behind a pointer changed). Asking a driver for a version newer than itself fails
/// (NVIDIA's 13.0 driver answers `CUDA_ERROR_INVALID_VALUE` for `cuGraphAddNode` at 13040, seen
/// on an H200), so the version must be the ABI's own, never the newest of a shared parameter
/// list. A symbol whose suffix names no ABI of that arity falls back to the ABIs of its arity
/// (the newest for a versioned symbol, the oldest for a plain one).
fn driver_version(sym: &str, nargs: usize, pfns: &HashMap<String, Vec<PfnVersion>>) -> u32 {
    let (base, ordinal) = match version_suffix(sym) {
        Some((b, n)) => (b, n),
        None => (sym, 1),
    };
    let Some(abis) = pfns.get(base).or_else(|| pfns.get(sym)) else {
        return 0;
    };
    let own = usize::try_from(ordinal)
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| abis.get(i))
        .filter(|p| p.nargs == nargs && !p.internal);
    if let Some(p) = own {
        return p.version;
    }
    let public = abis.iter().filter(|p| !p.internal);
    let mut matching: Vec<u32> = public
        .clone()
        .filter(|p| p.nargs == nargs)
        .map(|p| p.version)
        .collect();
    if matching.is_empty() {
        matching = public.map(|p| p.version).collect();
    }
    if version_suffix(sym).is_some() {
        *matching.last().unwrap_or(&0)
    } else {
        *matching.first().unwrap_or(&0)
    }
}

fn fn_info_items(name: &str, fns: &[CudaFn], what: &str) -> syn::Item {
    let n = ident(name);
    let entries = fns.iter().map(|f| {
        let (a, s, v) = (&f.name, &f.symbol, f.version);
        quote!(crate::FnInfo { name: #a, symbol: #s, version: #v })
    });
    let d = format!(" Every {what} function of the pinned headers, sorted by name.");
    syn::parse_quote! {
        #[doc = #d]
        pub static #n: &[crate::FnInfo] = &[#(#entries),*];
    }
}

/// Renders `api/src/generated/functions.rs`.
pub fn functions_module(
    driver: &[CudaFn],
    runtime: &[CudaFn],
    nvrtc: &[CudaFn],
    cuda_version: u32,
    runtime_wheel: &str,
    nvrtc_wheel: &str,
    inputs: &str,
) -> Result<String> {
    let items: Vec<syn::Item> = vec![
        syn::parse_quote! {
            /// `CUDA_VERSION` of the pinned headers the catalogue was generated from.
            pub const CUDA_HEADERS_VERSION: u32 = #cuda_version;
        },
        syn::parse_quote! {
            /// Version of the PyPI wheel `nvidia-cuda-runtime` the headers came from.
            pub const CUDA_RUNTIME_WHEEL_VERSION: &str = #runtime_wheel;
        },
        syn::parse_quote! {
            /// Version of the PyPI wheel `nvidia-cuda-nvrtc` `nvrtc.h` came from.
            pub const CUDA_NVRTC_WHEEL_VERSION: &str = #nvrtc_wheel;
        },
        fn_info_items("DRIVER_FUNCTIONS", driver, "Driver API (`cuda.h`)"),
        fn_info_items(
            "RUNTIME_FUNCTIONS",
            runtime,
            "Runtime API (`cuda_runtime_api.h`)",
        ),
        fn_info_items("NVRTC_FUNCTIONS", nvrtc, "NVRTC (`nvrtc.h`)"),
    ];
    crate::emit::render(
        inputs,
        "The catalogue of CUDA functions in the pinned headers (names, versioned symbols,\n`cuGetProcAddress` versions).",
        &items,
    )
}

/// The first sentence-ish line of a Doxygen comment (`\brief ...`).
pub fn brief(doc: &str) -> String {
    let lines = doc_lines(doc);
    let mut para = Vec::new();
    for l in lines {
        let l = l
            .trim_start_matches("@brief")
            .trim_start_matches("\\brief")
            .trim()
            .to_string();
        if l.starts_with('@') && para.is_empty() {
            continue;
        }
        if l.is_empty() {
            if para.is_empty() {
                continue;
            }
            break;
        }
        para.push(l);
    }
    para.join(" ")
}

/// The `Option<unsafe extern "C" fn(..) -> ..>` type of a declaration.
pub fn fn_ptr_type(d: &FnDecl) -> syn::Type {
    let args = d.args.iter().map(|(n, t)| {
        let n = if n == "_" || n.is_empty() {
            ident("arg")
        } else {
            ident(n)
        };
        quote!(#n: #t)
    });
    let dots = if d.variadic { quote!(, ...) } else { quote!() };
    let ret = match &d.ret {
        Some(t) => quote!(-> #t),
        None => quote!(),
    };
    syn::parse_quote!(Option<unsafe extern "C" fn(#(#args),* #dots) #ret>)
}

/// One function-pointer table struct plus its `load`, as items of a submodule.
fn table_mod(
    module: &str,
    struct_name: &str,
    api_mod: &str,
    catalogue_static: &str,
    fns: &[CudaFn],
    what: &str,
) -> Result<syn::Item> {
    let sn = ident(struct_name);
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    for (i, f) in fns.iter().enumerate() {
        let fname = ident(&f.name);
        let ty = fn_ptr_type(&f.decl);
        let mut d = if f.symbol == f.name {
            format!(" `{}`", f.name)
        } else {
            format!(" `{}` (symbol `{}`)", f.name, f.symbol)
        };
        if f.version != 0 {
            d.push_str(&format!(", `cuGetProcAddress` version {}", f.version));
        }
        let b = brief(&f.decl.doc);
        if !b.is_empty() {
            d.push_str(": ");
            d.push_str(&b);
        }
        fields.push(quote! { #[doc = #d] pub #fname: #ty });
        inits.push(quote! { #fname: unsafe { ::core::mem::transmute::<*mut c_void, #ty>(resolve(&list[#i])) } });
        names.push(fname);
    }
    let count = fns.len();
    let cat = ident(catalogue_static);
    let am = ident(api_mod);
    let sdoc = format!(" The {what} entry points, one `Option<unsafe extern \"C\" fn>` per function of [`anycuda_api::functions::{catalogue_static}`] (`None`: not provided by the loaded library).");
    let mut body: Vec<syn::Item> = vec![
        syn::parse_quote!(use anycuda_api::#am::*;),
        syn::parse_quote! {
            #[doc = #sdoc]
            #[derive(Clone, Copy)]
            pub struct #sn { #(#fields),* }
        },
        syn::parse_quote! {
            impl #sn {
                /// Resolves every entry point, calling `resolve` once per catalogue entry, in
                /// catalogue order; a null pointer leaves the field `None`.
                ///
                /// # Safety
                /// `resolve` must return null or a pointer to a function with exactly the ABI of
                /// that entry's `symbol` as declared by the pinned headers.
                pub unsafe fn load(mut resolve: impl FnMut(&'static anycuda_api::FnInfo) -> *mut c_void) -> Self {
                    let list: &'static [anycuda_api::FnInfo] = anycuda_api::functions::#cat;
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
            impl ::core::fmt::Debug for #sn {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#struct_name)
                        .field("loaded", &self.loaded_count())
                        .field("of", &#count)
                        .finish()
                }
            }
        },
    ];
    let text: String = body
        .iter()
        .map(|i| quote!(#i).to_string())
        .collect::<String>()
        + " c_void";
    if let Some(u) = ffi_use(&text) {
        body.insert(0, u);
    }
    let m = ident(module);
    Ok(syn::parse_quote! { mod #m { #(#body)* } })
}

/// Renders `backends/cuda/src/generated/table.rs`.
pub fn table_module(
    driver: &[CudaFn],
    runtime: &[CudaFn],
    nvrtc: &[CudaFn],
    inputs: &str,
) -> Result<String> {
    let items: Vec<syn::Item> = vec![
        table_mod(
            "driver_table",
            "DriverTable",
            "driver",
            "DRIVER_FUNCTIONS",
            driver,
            "CUDA Driver API",
        )?,
        table_mod(
            "runtime_table",
            "RuntimeTable",
            "runtime",
            "RUNTIME_FUNCTIONS",
            runtime,
            "CUDA Runtime API",
        )?,
        table_mod(
            "nvrtc_table",
            "NvrtcTable",
            "nvrtc",
            "NVRTC_FUNCTIONS",
            nvrtc,
            "NVRTC",
        )?,
        syn::parse_quote!(
            pub use driver_table::DriverTable;
        ),
        syn::parse_quote!(
            pub use runtime_table::RuntimeTable;
        ),
        syn::parse_quote!(
            pub use nvrtc_table::NvrtcTable;
        ),
    ];
    crate::emit::render(
        inputs,
        "Function-pointer tables for the CUDA libraries, with the pinned headers' signatures.",
        &items,
    )
}
