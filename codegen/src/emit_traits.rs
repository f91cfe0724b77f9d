//! Emission of the whole Driver, Runtime and NVRTC API surface from the function catalogue:
//! - `api/src/generated/traits.rs`: the `Driver`, `Runtime` and `Rtc` traits (one default
//!   method per CUDA function, through `api_trait!`);
//! - `backends/cuda/src/generated/forward.rs`: the CUDA backend's impls (through `served!`),
//!   each method one `call!` into the function table, except the hand-written overrides listed
//!   in `codegen/cuda-overrides.txt`; the NVRTC functions of `codegen/cuda-nvrtc-checked.txt`
//!   first look up the program handle and refuse NULL pointers;
//! - `src/generated/{driver,runtime,nvrtc}.rs`: the facade's `impl Driver/Runtime/Rtc for
//!   Backend` (enum dispatch) and the C-named free functions, plus the versioned-symbol aliases.
//!
//! The HIP backend's `Rtc` impl is written by hand (`backends/hip/src/rtc.rs`): every NVRTC
//! function there is an adaptation to hipRTC.
//!
//! Defaults that are not the API's not-supported error come from `codegen/trait-defaults.txt`.
//!
//! Trait and impl blocks are formatted by prettyplease as plain items and then wrapped in their
//! macro invocation textually (prettyplease prints a macro's tokens flat, unreadably).

use crate::emit::{banner, ffi_use};
use crate::emit_cuda::{brief, CudaFn};
use anyhow::{bail, Context, Result};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One line of `codegen/trait-defaults.txt`.
#[derive(Debug, Clone)]
struct Default {
    /// The facade's free function is a safe `fn`.
    safe: bool,
    /// The default expression, with `crate::` meaning anycuda-api.
    expr: String,
}

/// The hand-kept data: trait defaults and CUDA overrides.
#[derive(Debug, Default)]
struct Data {
    defaults: BTreeMap<String, Default>,
    overrides: BTreeSet<String>,
    /// NVRTC functions whose CUDA method the generator writes with anycuda's program lookup
    /// and NULL checks (`codegen/cuda-nvrtc-checked.txt`).
    checked: BTreeSet<String>,
}

pub(crate) fn data_lines(path: &Path) -> Result<Vec<(usize, Vec<String>)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| {
            (
                i + 1,
                l.split(" | ").map(|s| s.trim().to_string()).collect(),
            )
        })
        .collect())
}

fn load_data(root: &Path) -> Result<Data> {
    let mut d = Data::default();
    let p = root.join("codegen/trait-defaults.txt");
    for (n, cols) in data_lines(&p)? {
        let [name, safety, expr, reason] = cols.as_slice() else {
            bail!(
                "{}:{n}: expected `<function> | safe|unsafe | <expression> | reason`",
                p.display()
            );
        };
        if reason.is_empty() {
            bail!("{}:{n}: {name} has no reason", p.display());
        }
        let safe = match safety.as_str() {
            "safe" => true,
            "unsafe" => false,
            o => bail!("{}:{n}: `{o}` is neither safe nor unsafe", p.display()),
        };
        syn::parse_str::<syn::Expr>(expr)
            .with_context(|| format!("{}:{n}: default of {name} is no expression", p.display()))?;
        let prev = d.defaults.insert(
            name.clone(),
            Default {
                safe,
                expr: expr.clone(),
            },
        );
        if prev.is_some() {
            bail!("{}:{n}: {name} listed twice", p.display());
        }
    }
    let p = root.join("codegen/cuda-overrides.txt");
    for (n, cols) in data_lines(&p)? {
        let [name, reason] = cols.as_slice() else {
            bail!("{}:{n}: expected `<function> | reason`", p.display());
        };
        if reason.is_empty() {
            bail!("{}:{n}: {name} has no reason", p.display());
        }
        if !d.overrides.insert(name.clone()) {
            bail!("{}:{n}: {name} listed twice", p.display());
        }
    }
    let p = root.join("codegen/cuda-nvrtc-checked.txt");
    for (n, cols) in data_lines(&p)? {
        let [name, reason] = cols.as_slice() else {
            bail!("{}:{n}: expected `<function> | reason`", p.display());
        };
        if reason.is_empty() {
            bail!("{}:{n}: {name} has no reason", p.display());
        }
        if !name.starts_with("nvrtc") {
            bail!("{}:{n}: {name} is not an NVRTC function", p.display());
        }
        if d.overrides.contains(name) {
            bail!(
                "{}:{n}: {name} is also a hand-written override",
                p.display()
            );
        }
        if !d.checked.insert(name.clone()) {
            bail!("{}:{n}: {name} listed twice", p.display());
        }
    }
    Ok(d)
}

/// What differs between the two APIs.
struct ApiDesc<'a> {
    /// `Driver` / `Runtime`.
    trait_name: &'static str,
    /// `DRIVER_METHODS` / `RUNTIME_METHODS`.
    methods: &'static str,
    /// `DRIVER_SERVED` / `RUNTIME_SERVED`.
    served: &'static str,
    /// `driver` / `runtime` / `nvrtc`: the anycuda-api types module, and the facade's.
    module: &'static str,
    /// The `CudaBackend` field holding the library (`driver`, `runtime`, `nvrtc`).
    field: &'static str,
    /// The CUDA backend's hand-written module: overrides, `NO_LIB`, `NO_FN` (`driver`,
    /// `runtime`, `rtc`).
    backend_module: &'static str,
    /// The API's error type.
    err: &'static str,
    /// Trait default for an error-code function.
    not_supported: &'static str,
    /// Facade value with no usable backend.
    no_backend: &'static str,
    /// Trait doc.
    doc: &'static str,
    fns: &'a [CudaFn],
}

pub(crate) fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// The CUDA backend's body for an NVRTC function of `codegen/cuda-nvrtc-checked.txt`: the
/// program handle looked up (`rtc_program::with_program`, NVRTC's own handle passed on), every pointer but
/// `void *` checked for NULL, then the call into libnvrtc.
fn checked_nvrtc_body(f: &CudaFn, ps: &[(Ident, syn::Type)]) -> Result<TokenStream> {
    let is_prog = |t: &syn::Type| type_str(t) == "nvrtcProgram";
    let progs: Vec<&Ident> = ps
        .iter()
        .filter(|(_, t)| is_prog(t))
        .map(|(n, _)| n)
        .collect();
    let ptrs: Vec<&Ident> = ps
        .iter()
        .filter(|(_, t)| matches!(t, syn::Type::Ptr(p) if type_str(&p.elem) != "c_void"))
        .map(|(n, _)| n)
        .collect();
    let args: Vec<TokenStream> = ps
        .iter()
        .map(|(n, t)| {
            if is_prog(t) {
                quote!(__p.raw())
            } else {
                quote!(#n)
            }
        })
        .collect();
    let nn = if ptrs.is_empty() {
        quote!()
    } else {
        quote!(anycuda_rtc::nvrtc_non_null!(#(#ptrs),*);)
    };
    let name = ident(&f.name);
    let call = quote!(unsafe {
        crate::loader::call!(self.nvrtc, crate::rtc::NO_LIB, crate::rtc::NO_FN, #name(#(#args),*))
    });
    Ok(match progs.as_slice() {
        [] => quote!(#nn #call),
        [p] => quote!(anycuda_rtc::rtc_program::with_program(self, #p, |__p| { #nn #call })),
        _ => bail!("{} takes two programs: write it by hand", f.name),
    })
}

/// A function's parameters as Rust identifiers and types.
pub(crate) fn params(f: &CudaFn) -> Result<Vec<(Ident, syn::Type)>> {
    if f.decl.variadic {
        bail!(
            "{} is variadic, which a trait method cannot express",
            f.name
        );
    }
    Ok(f.decl
        .args
        .iter()
        .enumerate()
        .map(|(i, (n, t))| {
            let n = if n.is_empty() || n == "_" {
                format!("arg{i}")
            } else {
                n.clone()
            };
            (ident(&n), t.clone())
        })
        .collect())
}

pub(crate) fn ret_type(f: &CudaFn) -> syn::Type {
    match &f.decl.ret {
        Some(t) => t.clone(),
        None => syn::parse_quote!(()),
    }
}

fn type_str(t: &syn::Type) -> String {
    quote!(#t).to_string()
}

/// The words (identifiers) of an expression's source.
fn words(s: &str) -> BTreeSet<&str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// `let _ = (a, b);` for the parameters `expr` does not use.
fn unused_params(ps: &[(Ident, syn::Type)], expr: &str) -> Option<syn::Stmt> {
    let w = words(expr);
    let unused: Vec<&Ident> = ps
        .iter()
        .map(|(n, _)| n)
        .filter(|n| !w.contains(n.to_string().as_str()))
        .collect();
    match unused.as_slice() {
        [] => None,
        [one] => Some(syn::parse_quote!(let _ = #one;)),
        many => Some(syn::parse_quote!(let _ = (#(#many),*);)),
    }
}

impl ApiDesc<'_> {
    /// The trait default expression (anycuda-api paths) of `f`.
    fn default_expr(&self, f: &CudaFn, data: &Data) -> Result<String> {
        if let Some(d) = data.defaults.get(&f.name) {
            return Ok(d.expr.clone());
        }
        let r = ret_type(f);
        if type_str(&r) == self.err {
            Ok(self.not_supported.to_string())
        } else {
            bail!(
                "{} returns `{}`, not `{}`: give it a default in codegen/trait-defaults.txt",
                f.name,
                type_str(&r),
                self.err
            )
        }
    }

    /// The value of `f` in the facade with no usable backend (anycuda-api paths).
    fn no_backend_expr(&self, f: &CudaFn, data: &Data) -> Result<String> {
        match data.defaults.get(&f.name) {
            Some(d) => Ok(d.expr.clone()),
            None => {
                self.default_expr(f, data)?; // checks the return type
                Ok(self.no_backend.to_string())
            }
        }
    }

    fn method_doc(f: &CudaFn) -> String {
        let mut d = if f.symbol == f.name {
            format!(" `{}`", f.name)
        } else {
            format!(" `{}` (symbol `{}`)", f.name, f.symbol)
        };
        let b = brief(&f.decl.doc);
        if b.is_empty() {
            d.push('.');
        } else {
            d.push_str(": ");
            d.push_str(&b);
        }
        d
    }

    /// `pub trait X { ... }` (to be wrapped in `api_trait!`).
    fn trait_item(&self, data: &Data) -> Result<syn::Item> {
        let mut methods: Vec<TokenStream> = Vec::new();
        for f in self.fns {
            let ps = params(f)?;
            let (pn, pt): (Vec<_>, Vec<_>) = ps.iter().cloned().unzip();
            let ret = ret_type(f);
            let expr = self.default_expr(f, data)?;
            let e: syn::Expr = syn::parse_str(&expr)?;
            // A data-file default listed `unsafe` calls an `unsafe fn` (error_name writes
            // through `pStr`): its own block, so `unsafe_op_in_unsafe_fn` holds in the trait.
            let e: syn::Expr = if data.defaults.get(&f.name).is_some_and(|d| !d.safe) {
                syn::parse_quote!(unsafe { #e })
            } else {
                e
            };
            let unused = unused_params(&ps, &expr);
            let doc = Self::method_doc(f);
            let name = ident(&f.name);
            methods.push(quote! {
                #[doc = #doc]
                unsafe fn #name(&self, #(#pn: #pt),*) -> #ret {
                    #unused
                    #e
                }
            });
        }
        let tn = ident(self.trait_name);
        let doc = self.doc;
        Ok(syn::parse_quote! {
            #[doc = #doc]
            pub trait #tn { #(#methods)* }
        })
    }

    /// `impl X for crate::CudaBackend { ... }` (to be wrapped in `served!`).
    fn forward_item(&self, data: &Data) -> Result<syn::Item> {
        let m = ident(self.backend_module);
        let field = ident(self.field);
        let mut methods: Vec<TokenStream> = Vec::new();
        for f in self.fns {
            let ps = params(f)?;
            let (pn, pt): (Vec<_>, Vec<_>) = ps.iter().cloned().unzip();
            let ret = ret_type(f);
            let name = ident(&f.name);
            let body = if data.overrides.contains(&f.name) {
                quote!(unsafe { crate::#m::#name(self, #(#pn),*) })
            } else if data.checked.contains(&f.name) {
                checked_nvrtc_body(f, &ps)?
            } else if let Some(d) = data.defaults.get(&f.name) {
                let e: syn::Expr = syn::parse_str(&api_paths(&d.expr))?;
                quote!(unsafe { crate::loader::call!(self.#field, #e, #e, #name(#(#pn),*)) })
            } else {
                self.default_expr(f, data)?;
                quote!(unsafe {
                    crate::loader::call!(self.#field, crate::#m::NO_LIB, crate::#m::NO_FN, #name(#(#pn),*))
                })
            };
            methods.push(quote! {
                #[inline]
                unsafe fn #name(&self, #(#pn: #pt),*) -> #ret { #body }
            });
        }
        let tn = ident(self.trait_name);
        Ok(syn::parse_quote! {
            impl #tn for crate::CudaBackend { #(#methods)* }
        })
    }

    /// The facade's items: the dispatch impl, the free functions, the aliases.
    fn facade_items(&self, data: &Data) -> Result<Vec<syn::Item>> {
        let tn = ident(self.trait_name);
        let mut methods: Vec<TokenStream> = Vec::new();
        let mut items: Vec<syn::Item> = Vec::new();
        let names: BTreeSet<&str> = self.fns.iter().map(|f| f.name.as_str()).collect();
        let mut aliases = Vec::new();
        for f in self.fns {
            let ps = params(f)?;
            let (pn, pt): (Vec<_>, Vec<_>) = ps.iter().cloned().unzip();
            let ret = ret_type(f);
            let name = ident(&f.name);
            methods.push(quote! {
                #[inline]
                unsafe fn #name(&self, #(#pn: #pt),*) -> #ret {
                    dispatch_api!(*self, __b => unsafe { __b.#name(#(#pn),*) })
                }
            });
            let none_src = api_paths(&self.no_backend_expr(f, data)?);
            let none: syn::Expr = syn::parse_str(&none_src)?;
            // Data-file defaults may call `unsafe fn`s (error_name writes through `pStr`).
            let none_unsafe: syn::Expr = if data.defaults.contains_key(&f.name) {
                syn::parse_quote!(unsafe { #none })
            } else {
                none.clone()
            };
            let b = brief(&f.decl.doc);
            let doc = if b.is_empty() {
                format!(
                    " `{}` on the active backend, with CUDA's signature and values.",
                    f.name
                )
            } else {
                format!(" `{}` on the active backend: {b}", f.name)
            };
            let none_doc = format!(
                " With no usable backend: `{}`.",
                none_src.replace("anycuda_api::", "")
            );
            let call = quote!(<crate::Backend as anycuda_api::traits::#tn>::#name(&__b, #(#pn),*));
            let safe = data.defaults.get(&f.name).is_some_and(|d| d.safe);
            if safe {
                items.push(syn::parse_quote! {
                    #[doc = #doc]
                    ///
                    #[doc = #none_doc]
                    #[inline]
                    pub fn #name(#(#pn: #pt),*) -> #ret {
                        match crate::select::active() {
                            // SAFETY: listed `safe` in codegen/trait-defaults.txt: it takes
                            // only values.
                            Some(__b) => unsafe { #call },
                            None => #none,
                        }
                    }
                });
            } else {
                items.push(syn::parse_quote! {
                    #[doc = #doc]
                    ///
                    #[doc = #none_doc]
                    ///
                    /// # Safety
                    /// The contract of the CUDA function of the same name: every pointer and
                    /// handle valid for what the CUDA documentation says the function reads
                    /// or writes.
                    #[inline]
                    pub unsafe fn #name(#(#pn: #pt),*) -> #ret {
                        match crate::select::active() {
                            // SAFETY: forwarded under the caller's contract.
                            Some(__b) => unsafe { #call },
                            None => #none_unsafe,
                        }
                    }
                });
            }
            if f.symbol != f.name && !names.contains(f.symbol.as_str()) {
                aliases.push((f.name.clone(), f.symbol.clone()));
            }
        }
        let mut out: Vec<syn::Item> = vec![syn::parse_quote! {
            impl anycuda_api::traits::#tn for crate::Backend { #(#methods)* }
        }];
        out.extend(items);
        for (name, symbol) in aliases {
            let doc = format!(" `{symbol}`: the versioned symbol name of [`{name}`].");
            let (n, s) = (ident(&name), ident(&symbol));
            out.push(syn::parse_quote! {
                #[doc = #doc]
                pub use self::#n as #s;
            });
        }
        Ok(out)
    }
}

/// `crate::x` in a data-file expression (anycuda-api's paths) as seen from another crate.
fn api_paths(expr: &str) -> String {
    expr.replace("crate::", "anycuda_api::")
}

/// prettyplease output of items.
pub(crate) fn pretty(items: Vec<syn::Item>) -> String {
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    };
    tidy(&prettyplease::unparse(&file))
}

/// prettyplease prints macro arguments token by token; tidy the few shapes we emit.
fn tidy(s: &str) -> String {
    s.replace("* self, __b =>", "*self, __b =>")
        .replace("crate ::", "crate::")
}

fn indent(s: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    s.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Wraps a prettyplease-rendered item into `macro! { <prefix> <item> }`, replacing its header
/// line `from` by `to`.
fn wrap(rendered: &str, mac: &str, prefix: Option<&str>, from: &str, to: &str) -> Result<String> {
    let n = rendered.lines().filter(|l| *l == from).count();
    if n != 1 {
        bail!("rendered item has {n} lines `{from}`");
    }
    let body: String = rendered
        .lines()
        .map(|l| if l == from { to } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = format!("{mac} {{\n");
    if let Some(p) = prefix {
        out.push_str(&indent(p, 4));
    }
    out.push_str(&indent(&body, 4));
    out.push_str("}\n");
    Ok(out)
}

/// `use core::ffi::{..};` (only what `text` names) as a line.
pub(crate) fn ffi_line(text: &str) -> String {
    match ffi_use(text) {
        Some(u) => pretty(vec![u]),
        None => String::new(),
    }
}

const ALLOWS: &str = "#![allow(missing_docs, non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, unused_imports, unused_unsafe, clippy::all, clippy::pedantic, clippy::undocumented_unsafe_blocks, rustdoc::all)]\n";

pub(crate) fn header(inputs: &str, doc: &str) -> String {
    let mut s = banner(inputs);
    s.push('\n');
    for l in doc.lines() {
        if l.is_empty() {
            s.push_str("//!\n");
        } else {
            s.push_str(&format!("//! {l}\n"));
        }
    }
    s.push_str(ALLOWS);
    s
}

/// `mod name { uses; body }`, the body already rendered.
fn module(name: &str, uses: &str, body: &str) -> String {
    let inner = format!("{uses}{body}");
    format!("mod {name} {{\n{}}}\n", indent(inner.trim_end(), 4))
}

/// Every output of this module: (path relative to the root, content).
pub fn generate(
    root: &Path,
    driver: &[CudaFn],
    runtime: &[CudaFn],
    nvrtc: &[CudaFn],
    inputs: &str,
) -> Result<Vec<(PathBuf, String)>> {
    let data = load_data(root)?;
    for n in data
        .defaults
        .keys()
        .chain(data.overrides.iter())
        .chain(data.checked.iter())
    {
        if !driver
            .iter()
            .chain(runtime)
            .chain(nvrtc)
            .any(|f| &f.name == n)
        {
            bail!("codegen data names {n}, which is no Driver, Runtime or NVRTC function");
        }
    }
    let apis = [
        ApiDesc {
            trait_name: "Driver",
            methods: "DRIVER_METHODS",
            served: "DRIVER_SERVED",
            module: "driver",
            field: "driver",
            backend_module: "driver",
            err: "CUresult",
            not_supported: "CUresult::CUDA_ERROR_NOT_SUPPORTED",
            no_backend: "CUresult::CUDA_ERROR_NOT_INITIALIZED",
            doc: " The CUDA Driver API (`cu*`), with CUDA signatures and values: one method per function of [`crate::functions::DRIVER_FUNCTIONS`].",
            fns: driver,
        },
        ApiDesc {
            trait_name: "Runtime",
            methods: "RUNTIME_METHODS",
            served: "RUNTIME_SERVED",
            module: "runtime",
            field: "runtime",
            backend_module: "runtime",
            err: "cudaError_t",
            not_supported: "cudaError_t::cudaErrorNotSupported",
            no_backend: "cudaError_t::cudaErrorInitializationError",
            doc: " The CUDA Runtime API (`cuda*`), with CUDA signatures and values: one method per function of [`crate::functions::RUNTIME_FUNCTIONS`].",
            fns: runtime,
        },
        ApiDesc {
            trait_name: "Rtc",
            methods: "RTC_METHODS",
            served: "RTC_SERVED",
            module: "nvrtc",
            field: "nvrtc",
            backend_module: "rtc",
            err: "nvrtcResult",
            not_supported: "nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED",
            no_backend: "nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED",
            doc: " NVRTC (`nvrtc*`), with CUDA signatures and values: one method per function of [`crate::functions::NVRTC_FUNCTIONS`].",
            fns: nvrtc,
        },
    ];

    // ---- api/src/generated/traits.rs ----
    let mut traits = header(
        inputs,
        "The `Driver`, `Runtime` and `Rtc` traits: every function of the pinned headers, CUDA signatures.\nA method's default body is the API's not-supported error, or the default listed in\n`codegen/trait-defaults.txt`.",
    );
    let mut reexports = Vec::new();
    for a in &apis {
        let rendered = pretty(vec![a.trait_item(&data)?]);
        let tn = a.trait_name;
        let body = wrap(
            &rendered,
            "crate::traits::api_trait!",
            None,
            &format!("pub trait {tn} {{"),
            &format!("pub trait {tn}, {} {{", a.methods),
        )?;
        let uses = format!("{}use crate::{}::*;\n", ffi_line(&rendered), a.module);
        traits.push_str(&module(&format!("{}_trait", a.module), &uses, &body));
        reexports.push(format!(
            "pub use {}_trait::{{{}, {}}};\n",
            a.module, tn, a.methods
        ));
    }
    traits.push_str(&reexports.concat());

    // ---- backends/cuda/src/generated/forward.rs ----
    let mut forward = header(
        inputs,
        "The CUDA backend's `Driver`, `Runtime` and `Rtc` impls: every method calls the entry point of the\nsame name in the function table, except the hand-written overrides listed in\n`codegen/cuda-overrides.txt`; the NVRTC functions of `codegen/cuda-nvrtc-checked.txt` look up\nthe program handle and refuse NULL pointers first.",
    );
    let mut reexports = Vec::new();
    for a in &apis {
        let rendered = pretty(vec![a.forward_item(&data)?]);
        let tn = a.trait_name;
        let from = format!("impl {tn} for crate::CudaBackend {{");
        let body = wrap(
            &rendered,
            "anycuda_api::served!",
            Some(&format!("{};", a.served)),
            &from,
            &from,
        )?;
        let uses = format!(
            "{}use anycuda_api::{}::*;\nuse anycuda_api::traits::{tn};\n",
            ffi_line(&rendered),
            a.module
        );
        forward.push_str(&module(&format!("{}_forward", a.module), &uses, &body));
        reexports.push(format!("pub use {}_forward::{};\n", a.module, a.served));
    }
    forward.push_str(&reexports.concat());

    let mut out = vec![
        (PathBuf::from("api/src/generated/traits.rs"), traits),
        (
            PathBuf::from("backends/cuda/src/generated/forward.rs"),
            forward,
        ),
    ];

    // ---- src/generated/{driver,runtime}.rs ----
    for a in &apis {
        let body = pretty(a.facade_items(&data)?);
        let mut text = header(
            inputs,
            &format!(
                "The facade's `{}` API: `impl {} for Backend` (enum dispatch), the C-named free\nfunctions on the active backend, and the versioned-symbol aliases.",
                a.module, a.trait_name
            ),
        );
        text.push_str(&ffi_line(&body));
        text.push_str(&format!("use anycuda_api::{}::*;\n", a.module));
        text.push_str(&body);
        out.push((
            PathBuf::from(format!("src/generated/{}.rs", a.module)),
            text,
        ));
    }
    out.push((
        PathBuf::from("src/generated/mod.rs"),
        format!(
            "{}\n//! Generated API surface of the facade.\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod driver;\n#[rustfmt::skip]\npub mod nvrtc;\n#[rustfmt::skip]\npub mod runtime;\n",
            banner(inputs)
        ),
    ));
    Ok(out)
}
