//! anycuda-capi's generated C ABI: one guarded `#[no_mangle] extern "C"` export per exported
//! name of the pinned `cuda.h`, `cuda_runtime_api.h` and `nvrtc.h`, the export lists, the
//! legacy names left out, and the `cuGetProcAddress` (name, version) table from
//! `cudaTypedefs.h`.
//!
//! Name rules (NVIDIA's libraries export every one of these):
//! - a function the header declares under its own name: that name;
//! - `#define f f_vN` (the header maps the name to a versioned symbol): `f_vN` only. The plain
//!   `f` NVIDIA still exports is the *older* ABI (e.g. `cuMemAlloc` with 32-bit sizes); giving it
//!   the new signature would corrupt old binaries, so it is left out and listed;
//! - `#define f __CUDA_API_PTDS(g)` / `PTSZ` (and `__CUDART_API_*`): also `g_ptds` / `g_ptsz`,
//!   the per-thread-default-stream variants, served by `g`'s implementation (anycuda has no
//!   per-thread default stream of its own; see docs/c-abi.md).

use crate::emit::banner;
use crate::emit_cuda::CudaFn;
use crate::emit_traits::{data_lines, ffi_line, header, ident, params, pretty, ret_type};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::quote;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One API's export description.
struct Api<'a> {
    module: &'static str,
    trait_name: &'static str,
    no_backend: &'static str,
    err_type: &'static str,
    fns: &'a [CudaFn],
    /// The header whose `__CUDA*_API_PT{DS,SZ}` defines give the per-thread variants.
    header: Option<&'a str>,
}

/// One exported symbol.
#[derive(Clone, Debug)]
pub struct Export {
    /// The exported symbol.
    pub symbol: String,
    /// The catalogue function it implements.
    pub function: String,
    /// `""`, `"_ptds"` or `"_ptsz"`.
    pub variant: &'static str,
}

/// `#define name __CUDA[RT]_API_PT{DS,SZ}(target)`: (target, suffix).
pub(crate) fn per_thread(header: &str) -> Result<Vec<(String, &'static str)>> {
    let re =
        Regex::new(r"(?m)^\s*#\s*define\s+\w+\s+__CUDA(?:RT)?_API_PT(DS|SZ)\(\s*(\w+)\s*\)\s*$")?;
    let mut v: Vec<(String, &'static str)> = re
        .captures_iter(header)
        .map(|c| {
            let suf = if &c[1] == "DS" { "_ptds" } else { "_ptsz" };
            (c[2].to_string(), suf)
        })
        .collect();
    v.sort();
    v.dedup();
    Ok(v)
}

/// The C ABI's Runtime API export names (for `libcudart.so.12`'s forwarding).
pub(crate) fn runtime_exports(runtime: &[CudaFn], runtime_h: &str) -> Result<Vec<String>> {
    let a = Api {
        module: "runtime",
        trait_name: "Runtime",
        no_backend: "",
        err_type: "cudaError_t",
        fns: runtime,
        header: Some(runtime_h),
    };
    let (e, _) = exports_of(&a, &BTreeSet::new())?;
    Ok(e.into_iter().map(|e| e.symbol).collect())
}

/// Legacy names left out: (name, why).
type LeftOut = Vec<(String, String)>;

/// The exports of one API (sorted by symbol) and the legacy names left out.
fn exports_of(a: &Api<'_>, hand: &BTreeSet<String>) -> Result<(Vec<Export>, LeftOut)> {
    let mut by_symbol: BTreeMap<String, Export> = BTreeMap::new();
    let mut left_out = Vec::new();
    let symbols: BTreeSet<&str> = a.fns.iter().map(|f| f.symbol.as_str()).collect();
    for f in a.fns {
        if f.name != f.symbol && !symbols.contains(f.name.as_str()) {
            left_out.push((
                f.name.clone(),
                format!(
                    "the header maps `{}` to `{}`; NVIDIA's plain `{}` is an older ABI, not this signature",
                    f.name, f.symbol, f.name
                ),
            ));
        }
        by_symbol.entry(f.symbol.clone()).or_insert(Export {
            symbol: f.symbol.clone(),
            function: f.name.clone(),
            variant: "",
        });
    }
    if let Some(h) = a.header {
        for (target, suf) in per_thread(h)? {
            let Some(base) = by_symbol.get(&target).cloned() else {
                bail!(
                    "{}: per-thread define names {target}, which is no declared function",
                    a.module
                );
            };
            let sym = format!("{target}{suf}");
            by_symbol.insert(
                sym.clone(),
                Export {
                    symbol: sym,
                    function: base.function,
                    variant: suf,
                },
            );
        }
    }
    // A hand-written export under a name the header maps away (the v1 `cuGetProcAddress`)
    // is exported after all, by hand, with its own older ABI.
    for h in hand {
        if let Some(i) = left_out.iter().position(|(n, _)| n == h) {
            let (n, _) = left_out.remove(i);
            by_symbol.insert(
                n.clone(),
                Export {
                    symbol: n.clone(),
                    function: n,
                    variant: "",
                },
            );
        }
    }
    left_out.sort();
    Ok((by_symbol.into_values().collect(), left_out))
}

/// One `PFN_<base>_v<N>[_ptds|_ptsz]` typedef.
#[derive(Clone, Debug)]
struct Pfn {
    base: String,
    version: u32,
    variant: &'static str,
    /// Parameter types, names removed, whitespace normalised.
    sig: Vec<String>,
    /// Declared in the `__CUDA_API_VERSION_INTERNAL` block (the oldest ABIs, e.g. 32-bit sizes).
    internal: bool,
}

fn pfns(text: &str) -> Result<Vec<Pfn>> {
    let re = Regex::new(
        r"typedef\s+[\w\s\*]+\(\s*CUDAAPI\s*\*\s*PFN_(\w+?)_v(\d+)(_pt(?:ds|sz))?\s*\)\s*\((.*)\)\s*;",
    )?;
    let name_re = Regex::new(r"^(.*?)\b\w+\s*(\[\s*\d*\s*\])?$")?;
    let mut internal = false;
    let mut out = Vec::new();
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
        let variant = match c.get(3).map(|m| m.as_str()) {
            Some("_ptds") => "_ptds",
            Some("_ptsz") => "_ptsz",
            _ => "",
        };
        let params = c[4].trim();
        let sig = if params.is_empty() || params == "void" {
            Vec::new()
        } else {
            params
                .split(',')
                .map(|p| {
                    let p = p.split_whitespace().collect::<Vec<_>>().join(" ");
                    let ty = name_re
                        .captures(&p)
                        .map(|m| format!("{}{}", &m[1], m.get(2).map_or("", |x| x.as_str())))
                        .unwrap_or(p.clone());
                    ty.replace(' ', "")
                })
                .collect()
        };
        out.push(Pfn {
            base: c[1].to_string(),
            version: c[2].parse().context("PFN version")?,
            variant,
            sig,
            internal,
        });
    }
    Ok(out)
}

/// One row of the `cuGetProcAddress` table.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct ProcRow {
    name: String,
    version: u32,
    variant: &'static str,
    /// The export serving it, or `None` for an older ABI anycuda does not export.
    symbol: Option<String>,
}

/// The `cuGetProcAddress` rows. NVIDIA numbers a function's ABIs in order: the oldest
/// (`PFN_f_v<first>`, internal ones included) is the plain `f`, the next `f_v2`, then `f_v3`
/// (`cuCtxCreate`: v2000 → `cuCtxCreate`, v3020 → `_v2`, v11040 → `_v3`, v12050 → `_v4`). Two
/// consecutive ABIs may even share a parameter list (`cuGraphAddNode_v2`/`_v3`: the struct
/// behind a pointer changed), so the order decides, not the signature. A per-thread typedef
/// (`_ptds`/`_ptsz`) is the per-thread export of the newest legacy ABI not newer than it with
/// the same parameters. Each row is served only by an export with that name and parameter count;
/// else it is a row with no export (an ABI anycuda leaves out, e.g. the plain `cuMemAlloc`).
fn proc_rows_with(
    pf: &[Pfn],
    driver: &[CudaFn],
    exports: &[Export],
    hand_rows: &[(String, String, u32)],
    pass: &BTreeSet<&str>,
) -> Vec<ProcRow> {
    let exported: BTreeSet<&str> = exports.iter().map(|e| e.symbol.as_str()).collect();
    let arity: BTreeMap<&str, usize> = driver
        .iter()
        .flat_map(|f| {
            [
                (f.symbol.as_str(), f.decl.args.len()),
                (f.name.as_str(), f.decl.args.len()),
            ]
        })
        .collect();
    let mut rows = BTreeSet::new();
    for (p, nvidia) in nvidia_symbols(pf) {
        let sym = nvidia.and_then(|(plain, s)| {
            // A pass-through export is NVIDIA's own ABI of that name, whatever its arity.
            let fits = arity.get(plain.as_str()) == Some(&p.sig.len()) || pass.contains(s.as_str());
            (fits && exported.contains(s.as_str())).then_some(s)
        });
        if p.internal && sym.is_none() && !p.variant.is_empty() {
            continue;
        }
        rows.insert(ProcRow {
            name: p.base.clone(),
            version: p.version,
            variant: p.variant,
            symbol: sym,
        });
    }
    for (sym, base, v) in hand_rows {
        rows.retain(|r| !(r.name == *base && r.version == *v && r.variant.is_empty()));
        rows.insert(ProcRow {
            name: base.clone(),
            version: *v,
            variant: "",
            symbol: Some(sym.clone()),
        });
    }
    rows.into_iter().collect()
}

/// Each `PFN_` typedef with NVIDIA's name for its ABI, `(plain, symbol)` (`cuCtxCreate_v2`,
/// `cuCtxCreate_v2`; `cuMemcpyHtoD_v2`, `cuMemcpyHtoD_v2_ptds`), or `None` for a per-thread
/// typedef with no legacy twin. NVIDIA numbers a function's ABIs in version order: the oldest
/// (internal ones included) is the plain name, the next `_v2`, then `_v3`; a per-thread typedef
/// is the per-thread export of its legacy twin ([`per_thread_ordinal`]). The one place this rule
/// is written: the `cuGetProcAddress` table and the pass-through exports both take it.
fn nvidia_symbols(pf: &[Pfn]) -> Vec<(&Pfn, Option<(String, String)>)> {
    let mut by_base: BTreeMap<&str, Vec<&Pfn>> = BTreeMap::new();
    for p in pf {
        by_base.entry(p.base.as_str()).or_default().push(p);
    }
    let mut out = Vec::new();
    for (base, list) in by_base {
        let mut legacy: Vec<&Pfn> = list
            .iter()
            .copied()
            .filter(|p| p.variant.is_empty())
            .collect();
        legacy.sort_by_key(|p| p.version);
        legacy.dedup_by_key(|p| p.version);
        for p in list {
            let ordinal = if p.variant.is_empty() {
                legacy.iter().position(|l| l.version == p.version)
            } else {
                per_thread_ordinal(&legacy, p)
            };
            let names = ordinal.map(|i| {
                let plain = if i == 0 {
                    base.to_string()
                } else {
                    format!("{base}_v{}", i + 1)
                };
                let sym = format!("{plain}{}", p.variant);
                (plain, sym)
            });
            out.push((p, names));
        }
    }
    out
}

/// The legacy ABI (its index in `legacy`, sorted by version) a per-thread typedef `p` is the
/// per-thread export of: the newest not newer than it with the same parameters, else with the
/// same count of them (`PFN_cuStreamBatchMemOp_v8000_ptsz` spells a parameter type differently
/// from its legacy twin).
fn per_thread_ordinal(legacy: &[&Pfn], p: &Pfn) -> Option<usize> {
    legacy
        .iter()
        .rposition(|l| l.version <= p.version && l.sig == p.sig)
        .or_else(|| {
            legacy
                .iter()
                .rposition(|l| l.version <= p.version && l.sig.len() == p.sig.len())
        })
}

/// Name parts of the Windows-only entry points (`cuWGLGetDevice`, `cudaWGLGetDevice`): NVIDIA's
/// Linux libraries do not export them.
const WINDOWS_ONLY: &[&str] = &["WGL"];

/// Runtime names NVIDIA's `libcudart.so.13` exports that no pinned header declares: the
/// profiler (`cuda_profiler_api.h` ships with the toolkit, not with the runtime wheel) and the
/// subgrid functions 13.5 exports without a public declaration. A pass-through export needs no
/// signature.
const RUNTIME_PASS_EXTRA: &[(&str, &str)] = &[
    ("cudaProfilerStart", "cuda_profiler_api.h"),
    ("cudaProfilerStop", "cuda_profiler_api.h"),
    (
        "cudaSubgridCreate",
        "exported by libcudart.so.13 13.5, no public declaration",
    ),
    (
        "cudaSubgridWorkerGridCreate",
        "exported by libcudart.so.13 13.5, no public declaration",
    ),
    (
        "cudaSubgridWorksetCreate",
        "exported by libcudart.so.13 13.5, no public declaration",
    ),
];

/// Driver names NVIDIA's `libcuda.so.1` exports (driver 580.159.04) that no pinned header or
/// typedef declares; passed on like the rest (a pass-through export needs no signature).
const DRIVER_PASS_EXTRA: &[&str] = &["cuEGLApiInit", "cuMemGetAttribute", "cuMemGetAttribute_v2"];

/// The driver names NVIDIA's `libcuda.so.1` exports that anycuda serves only by passing them on:
/// every ABI of every `PFN_` typedef (cudaTypedefs.h and the OpenGL, EGL, VDPAU and profiler
/// typedef headers) under NVIDIA's name for it (the oldest ABI the plain name, then `_v2`, `_v3`;
/// a per-thread typedef the per-thread export of the newest legacy ABI not newer than it with
/// the same parameters, or the same count of them) that has no generated or hand-written export.
fn passthrough_driver(pf: &[Pfn], exports: &[Export], hand: &BTreeSet<String>) -> Vec<String> {
    let exported: BTreeSet<&str> = exports.iter().map(|e| e.symbol.as_str()).collect();
    let mut out: BTreeSet<String> = nvidia_symbols(pf)
        .into_iter()
        .filter_map(|(_, n)| n.map(|(_, sym)| sym))
        .filter(|sym| !exported.contains(sym.as_str()) && !hand.contains(sym))
        .collect();
    out.extend(DRIVER_PASS_EXTRA.iter().map(|n| n.to_string()));
    out.into_iter().collect()
}

/// `capi/src/generated/passthrough.rs`: the pass-through entries (name, library) and, on
/// x86-64, one trampoline export each (`jmp` through its slot; a slot starts at its resolver
/// stub, which saves the argument registers, asks `anycuda_passthrough_resolve` and jumps to
/// the answer, so the first call of an entry resolves it and every later one is one indirect
/// jump). The signature never matters: arguments pass through untouched.
fn passthrough_module(inputs: &str, pass: &[(String, &'static str)]) -> Result<String> {
    let n = pass.len();
    let entries: Vec<TokenStream> = pass
        .iter()
        .map(|(name, lib)| {
            let lit: TokenStream = syn::parse_str(&format!("c\"{name}\""))?;
            let l = ident(lib);
            Ok(quote!(crate::passthrough::Entry { name: #lit, library: crate::passthrough::Library::#l }))
        })
        .collect::<Result<_>>()?;
    let addrs: Vec<TokenStream> = pass
        .iter()
        .map(|(name, _)| {
            let i = ident(name);
            quote! {
                #[cfg(target_arch = "x86_64")]
                pub const #i: *const core::ffi::c_void = super::#i as *const core::ffi::c_void;
                #[cfg(not(target_arch = "x86_64"))]
                pub const #i: *const core::ffi::c_void = core::ptr::null();
            }
        })
        .collect();
    // The exports: naked functions (rustc exports `#[no_mangle]` Rust functions from a cdylib,
    // never symbols defined in `global_asm!`), each one indirect jump through its slot.
    let trampolines: Vec<syn::Item> = pass
        .iter()
        .enumerate()
        .map(|(k, (name, lib))| {
            let i = ident(name);
            let jump = format!("jmp qword ptr [rip + anycuda_passthrough_slots + {}]", 8 * k);
            let doc = format!(" `{name}` of the C ABI: NVIDIA's {lib} function of that name passed on (capi/src/passthrough.rs).");
            syn::parse_quote! {
                #[doc = #doc]
                #[cfg(target_arch = "x86_64")]
                #[unsafe(naked)]
                #[no_mangle]
                pub unsafe extern "C" fn #i() {
                    core::arch::naked_asm!(#jump)
                }
            }
        })
        .collect();
    let mut asm = String::new();
    asm.push_str("    .pushsection .data.anycuda_passthrough,\"aw\",@progbits\n    .balign 8\n    .globl anycuda_passthrough_slots\n    .hidden anycuda_passthrough_slots\nanycuda_passthrough_slots:\n");
    for i in 0..n {
        asm.push_str(&format!("    .quad anycuda_passthrough_stub_{i}\n"));
    }
    asm.push_str("    .popsection\n    .pushsection .text.anycuda_passthrough,\"ax\",@progbits\n");
    for i in 0..n {
        asm.push_str(&format!(
            "anycuda_passthrough_stub_{i}:\n    mov r11d, {i}\n    jmp anycuda_passthrough_common\n"
        ));
    }
    asm.push_str(PASSTHROUGH_COMMON);
    asm.push_str("    .popsection\n");
    let asm_lit = proc_macro2::Literal::string(&asm);
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote! {
            /// The pass-through entries, in slot order.
            pub static ENTRIES: [crate::passthrough::Entry; #n] = [#(#entries),*];
        },
        syn::parse_quote! {
            /// The address of each pass-through export (null where there are no trampolines).
            #[allow(non_upper_case_globals)]
            pub mod addr {
                #(#addrs)*
            }
        },
        syn::parse_quote! {
            #[cfg(target_arch = "x86_64")]
            unsafe extern "C" {
                /// One slot per entry: its resolver stub until the first call, then the answer.
                pub static anycuda_passthrough_slots: [core::sync::atomic::AtomicPtr<core::ffi::c_void>; #n];
            }
        },
        syn::parse_quote! {
            #[cfg(target_arch = "x86_64")]
            core::arch::global_asm!(#asm_lit);
        },
    ];
    items.extend(trampolines);
    let body = pretty(items);
    let mut text = header(
        inputs,
        "The C ABI's pass-through exports (codegen/src/emit_capi.rs, rules in capi/src/passthrough.rs):\nthe names NVIDIA's libraries export that anycuda serves by passing them on, one trampoline each.",
    );
    text.push_str(&body);
    Ok(text)
}

/// The resolver stub every pass-through slot starts at (x86-64 System V): the entry's index is
/// in `r11`; the six integer and eight vector argument registers and `rax` are saved, the
/// resolver asked, everything restored, and the stub jumps to the answer with the stack as the
/// caller left it, so arguments on the stack pass through too.
const PASSTHROUGH_COMMON: &str = "anycuda_passthrough_common:
    push rbp
    mov rbp, rsp
    push rdi
    push rsi
    push rdx
    push rcx
    push r8
    push r9
    push rax
    sub rsp, 136
    movdqu [rsp], xmm0
    movdqu [rsp + 16], xmm1
    movdqu [rsp + 32], xmm2
    movdqu [rsp + 48], xmm3
    movdqu [rsp + 64], xmm4
    movdqu [rsp + 80], xmm5
    movdqu [rsp + 96], xmm6
    movdqu [rsp + 112], xmm7
    mov edi, r11d
    call anycuda_passthrough_resolve
    mov r11, rax
    movdqu xmm0, [rsp]
    movdqu xmm1, [rsp + 16]
    movdqu xmm2, [rsp + 32]
    movdqu xmm3, [rsp + 48]
    movdqu xmm4, [rsp + 64]
    movdqu xmm5, [rsp + 80]
    movdqu xmm6, [rsp + 96]
    movdqu xmm7, [rsp + 112]
    add rsp, 136
    pop rax
    pop r9
    pop r8
    pop rcx
    pop rdx
    pop rsi
    pop rdi
    pop rbp
    jmp r11
";

/// The `(name, arg)` expression list of a call.
fn call_args(ps: &[(syn::Ident, syn::Type)]) -> Vec<&syn::Ident> {
    ps.iter().map(|(n, _)| n).collect()
}

/// Driver API functions whose exports keep the re-entry guard on every backend: NVIDIA's
/// libcudart asks them for NVIDIA's private entry points and export tables, which only NVIDIA's
/// driver has (the hand-written `cuGetProcAddress` exports keep it too).
const GUARDED_DRIVER_CALLS: &[&str] = &["cuGetExportTable", "cuGetProcAddress"];

fn export_item(
    a: &Api<'_>,
    e: &Export,
    f: &CudaFn,
    defaults: &BTreeSet<String>,
) -> Result<syn::Item> {
    let ps = params(f)?;
    let ret = ret_type(f);
    let sym = ident(&e.symbol);
    let name = ident(&f.name);
    let module = ident(a.module);
    let tr = ident(a.trait_name);
    let decl: Vec<TokenStream> = ps.iter().map(|(n, t)| quote!(#n: #t)).collect();
    let args = call_args(&ps);
    let unloaded: TokenStream = if defaults.contains(&f.name) {
        quote!(unsafe { <crate::guard::Unloaded as anycuda::#tr>::#name(&crate::guard::Unloaded, #(#args),*) })
    } else {
        let ret_s = quote!(#ret).to_string();
        if ret_s != a.err_type {
            bail!(
                "{} returns {ret_s}, not {}: list it in codegen/trait-defaults.txt",
                f.name,
                a.err_type
            );
        }
        syn::parse_str(a.no_backend)?
    };
    let doc = match e.variant {
        "" if e.symbol == f.name => format!(" `{}` of the C ABI.", f.name),
        "" => format!(" `{}` of the C ABI (the header's `{}`).", e.symbol, f.name),
        v => format!(
            " `{}` of the C ABI: the per-thread-default-stream variant (`{v}`) of `{}`, served by its implementation.",
            e.symbol, f.name
        ),
    };
    // Driver API calls skip the guard once the CUDA backend dispatches: a vendor library's call
    // back into them reaches NVIDIA's driver through that backend either way. Not the queries
    // whose answer differs when NVIDIA's own libraries ask (their private export tables).
    let direct: TokenStream =
        if a.module == "driver" && !GUARDED_DRIVER_CALLS.contains(&f.name.as_str()) {
            quote! {
                if let Some(__b) = anycuda::cuda_dispatch() {
                    return unsafe { <anycuda::Backend as anycuda::#tr>::#name(&__b, #(#args),*) };
                }
            }
        } else {
            quote!()
        };
    let guarded = quote! {
        let Some(_inside) = crate::guard::Inside::enter() else {
            return match crate::guard::vendor() {
                Some(__v) => unsafe { <anycuda::Backend as anycuda::#tr>::#name(&__v, #(#args),*) },
                None => #unloaded,
            };
        };
        unsafe { anycuda::#module::#name(#(#args),*) }
    };
    // A status the export returns is a member of the API's C enum: a code in anycuda's reserved
    // ranges (a hallucinated HIP code, anycuda's own `NVRTC_ERROR_NOT_SUPPORTED`) means nothing
    // to a C or Python caller (cuda.bindings turns every status into its IntEnum, and raised
    // `ValueError: 805306368 is not a valid nvrtcResult`), so `crate::codes::member` answers the
    // enum's stand-in instead. The CUDA backend's Driver path (`direct`) returns NVIDIA's codes
    // and never an invented one, so it stays one load and a tail jump. `member_of` also names a
    // failing call in the log (debug level; one compare when the call succeeds).
    let ret_s = quote!(#ret).to_string();
    let call = if ret_s == a.err_type {
        let sym_s = e.symbol.as_str();
        quote!(crate::codes::member_of(#sym_s, guarded(#(#args),*)))
    } else {
        quote!(guarded(#(#args),*))
    };
    if direct.is_empty() {
        return Ok(syn::parse_quote! {
            #[doc = #doc]
            #[no_mangle]
            pub unsafe extern "C" fn #sym(#(#decl),*) -> #ret {
                #[inline(always)]
                unsafe fn guarded(#(#decl),*) -> #ret {
                    #guarded
                }
                unsafe { #call }
            }
        });
    }
    // The guarded path out of line: the export is then the one load, the backend's table and a
    // tail jump into NVIDIA's function, with no registers saved for a path it does not take.
    Ok(syn::parse_quote! {
        #[doc = #doc]
        #[no_mangle]
        pub unsafe extern "C" fn #sym(#(#decl),*) -> #ret {
            #direct
            #[cold]
            #[inline(never)]
            unsafe fn guarded(#(#decl),*) -> #ret {
                #guarded
            }
            unsafe { #call }
        }
    })
}

/// An extra export of `codegen/capi-extra-exports.txt`.
fn extra_item(line: &[String], n: usize) -> Result<(syn::Item, String, String)> {
    let [name, module, sig, vendor, _why] = line else {
        bail!("codegen/capi-extra-exports.txt:{n}: expected 5 fields");
    };
    let f: syn::ItemFn = syn::parse_str(&format!("unsafe extern \"C\" fn {name}{sig} {{}}"))
        .with_context(|| format!("codegen/capi-extra-exports.txt:{n}: signature"))?;
    let vendor: syn::Expr = syn::parse_str(vendor)
        .with_context(|| format!("codegen/capi-extra-exports.txt:{n}: vendor expression"))?;
    let m = ident(module);
    let fname = ident(name);
    let inputs = &f.sig.inputs;
    let output = &f.sig.output;
    let args: Vec<TokenStream> = inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(pt) => {
                let p = &pt.pat;
                quote!(#p)
            }
            syn::FnArg::Receiver(_) => quote!(self),
        })
        .collect();
    let doc = format!(" `{name}` of the C ABI (codegen/capi-extra-exports.txt).");
    let item = syn::parse_quote! {
        #[doc = #doc]
        #[no_mangle]
        pub unsafe extern "C" fn #fname(#inputs) #output {
            let Some(_inside) = crate::guard::Inside::enter() else {
                return #vendor;
            };
            unsafe { anycuda::#m::#fname(#(#args),*) }
        }
    };
    Ok((item, name.clone(), module.clone()))
}

fn str_list(name: &str, doc: &str, v: &[String]) -> syn::Item {
    let n = ident(name);
    let d = format!(" {doc}");
    syn::parse_quote! {
        #[doc = #d]
        pub static #n: &[&str] = &[#(#v),*];
    }
}

/// The header texts the emitter reads besides the catalogues.
pub struct Headers<'a> {
    /// `cuda.h` (its `__CUDA_API_PTDS`/`PTSZ` defines).
    pub cuda_h: &'a str,
    /// `cuda_runtime_api.h` (its `__CUDART_API_PTDS`/`PTSZ` defines).
    pub runtime_h: &'a str,
    /// `cudaTypedefs.h` (the `PFN_` typedefs: the `cuGetProcAddress` table).
    pub typedefs_h: &'a str,
    /// The OpenGL, EGL, VDPAU and profiler `PFN_` typedef headers of the driver.
    pub interop_typedefs: &'a [String],
    /// The runtime's OpenGL, EGL and VDPAU interop headers.
    pub runtime_interop: &'a [String],
}

/// Every output of this emitter: `capi/src/generated/{mod,exports,lists}.rs`.
pub fn generate(
    root: &Path,
    driver: &[CudaFn],
    runtime: &[CudaFn],
    nvrtc: &[CudaFn],
    headers: &Headers<'_>,
    inputs: &str,
) -> Result<Vec<(PathBuf, String)>> {
    let Headers {
        cuda_h,
        runtime_h,
        typedefs_h,
        interop_typedefs,
        runtime_interop,
    } = *headers;
    let defaults: BTreeSet<String> = data_lines(&root.join("codegen/trait-defaults.txt"))?
        .into_iter()
        .filter_map(|(_, l)| l.first().cloned())
        .collect();
    let mut hand = BTreeSet::new();
    let mut hand_rows = Vec::new();
    let mut hand_why = Vec::new();
    for (n, l) in data_lines(&root.join("codegen/capi-hand.txt"))? {
        let [sym, base, ver, why] = l.as_slice() else {
            bail!("codegen/capi-hand.txt:{n}: expected 4 fields");
        };
        hand.insert(sym.clone());
        hand_why.push(format!("{sym}: {why}"));
        if base != "-" {
            let v: u32 = ver
                .parse()
                .with_context(|| format!("codegen/capi-hand.txt:{n}: version"))?;
            hand_rows.push((sym.clone(), base.clone(), v));
        }
    }
    let apis = [
        Api {
            module: "driver",
            trait_name: "Driver",
            no_backend: "CUresult::CUDA_ERROR_NOT_INITIALIZED",
            err_type: "CUresult",
            fns: driver,
            header: Some(cuda_h),
        },
        Api {
            module: "runtime",
            trait_name: "Runtime",
            no_backend: "cudaError_t::cudaErrorInitializationError",
            err_type: "cudaError_t",
            fns: runtime,
            header: Some(runtime_h),
        },
        Api {
            module: "nvrtc",
            trait_name: "Rtc",
            no_backend: "nvrtcResult::NVRTC_ERROR_NOT_SUPPORTED",
            err_type: "nvrtcResult",
            fns: nvrtc,
            header: None,
        },
    ];
    let mut lists: Vec<syn::Item> = Vec::new();
    let mut exports_text = header(
        inputs,
        "The C ABI's exports: every exported name of the pinned `cuda.h`, `cuda_runtime_api.h` and\n`nvrtc.h` (rules in codegen/src/emit_capi.rs), each a `#[no_mangle] extern \"C\"` function with\nthe header's signature. Each body is the re-entry guard (docs/c-abi.md): a call made while this\nthread is already inside an anycuda C-ABI call comes from a vendor library and goes to\nNVIDIA's library (the CUDA backend), never back into the active backend. Driver API exports\nskip the guard once the CUDA backend dispatches (`anycuda::cuda_dispatch`, one load that\nyields the backend the call then goes to): there a call back from NVIDIA's libraries reaches\nNVIDIA's driver either way.",
    );
    let mut driver_exports = Vec::new();
    for a in &apis {
        let (exports, left_out) = exports_of(a, &hand)?;
        let by_name: BTreeMap<&str, &CudaFn> = a.fns.iter().map(|f| (f.name.as_str(), f)).collect();
        let mut items = Vec::new();
        for e in &exports {
            if hand.contains(&e.symbol) {
                continue;
            }
            let f = by_name[e.function.as_str()];
            items.push(export_item(a, e, f, &defaults)?);
        }
        let body = pretty(items);
        let uses = format!("{}use anycuda::{}::*;\n", ffi_line(&body), a.module);
        exports_text.push_str(&format!("mod {} {{\n", a.module));
        for l in format!("{uses}{body}").trim_end().lines() {
            if l.is_empty() {
                exports_text.push('\n');
            } else {
                exports_text.push_str(&format!("    {l}\n"));
            }
        }
        exports_text.push_str("}\n");
        let names: Vec<String> = exports.iter().map(|e| e.symbol.clone()).collect();
        let up = a.module.to_uppercase();
        lists.push(str_list(
            &format!("{up}_EXPORTS"),
            &format!(
                "Every {} name the C ABI exports (generated and hand-written), sorted.",
                a.module
            ),
            &names,
        ));
        let pt: Vec<String> = exports
            .iter()
            .filter(|e| !e.variant.is_empty())
            .map(|e| format!("{} {}", e.symbol, e.function))
            .collect();
        lists.push(str_list(
            &format!("{up}_PER_THREAD"),
            "The per-thread-default-stream exports and the function serving each (`symbol function`).",
            &pt,
        ));
        let lo: Vec<String> = left_out.iter().map(|(n, w)| format!("{n}: {w}")).collect();
        lists.push(str_list(
            &format!("{up}_LEFT_OUT"),
            "Names NVIDIA's library exports that the C ABI leaves out, each with its reason.",
            &lo,
        ));
        if a.module == "driver" {
            driver_exports = exports;
        }
    }
    // Extra exports (the hook for nvcc's hidden runtime entry points).
    let mut extra_items = Vec::new();
    let mut extra_names = Vec::new();
    for (n, l) in data_lines(&root.join("codegen/capi-extra-exports.txt"))? {
        let (item, name, module) = extra_item(&l, n)?;
        extra_items.push(item);
        extra_names.push(format!("{name} {module}"));
    }
    if !extra_items.is_empty() {
        let body = pretty(extra_items);
        exports_text.push_str("mod extra {\n");
        let uses = format!("{}use anycuda::runtime::*;\n", ffi_line(&body));
        for l in format!("{uses}{body}").trim_end().lines() {
            exports_text.push_str(&format!("    {l}\n"));
        }
        exports_text.push_str("}\n");
    }
    lists.push(str_list(
        "EXTRA_EXPORTS",
        "The exports of codegen/capi-extra-exports.txt (`name module`).",
        &extra_names,
    ));
    lists.push(str_list(
        "HAND_WRITTEN",
        "The exports written by hand (capi/src/procaddr.rs), with the reason (codegen/capi-hand.txt).",
        &hand_why,
    ));

    // ---- the pass-through exports (capi/src/passthrough.rs) ----
    let mut all_pfns = pfns(typedefs_h)?;
    for t in interop_typedefs {
        all_pfns.extend(pfns(t)?);
    }
    all_pfns.retain(|p| !WINDOWS_ONLY.iter().any(|w| p.base.contains(w)));
    let driver_pass = passthrough_driver(&all_pfns, &driver_exports, &hand);
    let mut runtime_pass: Vec<String> = Vec::new();
    let proto = Regex::new(r"CUDARTAPI\s+(cuda\w+)\s*\(")?;
    for h in runtime_interop {
        for c in proto.captures_iter(h) {
            runtime_pass.push(c[1].to_string());
        }
    }
    runtime_pass.extend(RUNTIME_PASS_EXTRA.iter().map(|(n, _)| n.to_string()));
    runtime_pass.retain(|n| !WINDOWS_ONLY.iter().any(|w| n.contains(w)));
    runtime_pass.sort();
    runtime_pass.dedup();
    let pass: Vec<(String, &'static str)> = driver_pass
        .iter()
        .map(|n| (n.clone(), "Driver"))
        .chain(runtime_pass.iter().map(|n| (n.clone(), "Runtime")))
        .collect();
    let pass_set: BTreeSet<&str> = pass.iter().map(|(n, _)| n.as_str()).collect();
    lists.push(str_list(
        "DRIVER_PASSTHROUGH",
        "The driver names exported by passing them on to NVIDIA's libcuda (capi/src/passthrough.rs), sorted.",
        &driver_pass,
    ));
    lists.push(str_list(
        "RUNTIME_PASSTHROUGH",
        "The runtime names exported by passing them on to NVIDIA's libcudart (capi/src/passthrough.rs), sorted.",
        &runtime_pass,
    ));

    // ---- the cuGetProcAddress table ----
    let mut served = driver_exports.clone();
    served.extend(driver_pass.iter().map(|n| Export {
        symbol: n.clone(),
        function: n.clone(),
        variant: "",
    }));
    let rows = proc_rows_with(&all_pfns, driver, &served, &hand_rows, &pass_set);
    let entries: Vec<TokenStream> = rows
        .iter()
        .map(|r| {
            let (n, v) = (&r.name, r.version);
            let pt = match r.variant {
                "_ptds" => quote!(crate::procaddr::Variant::Ptds),
                "_ptsz" => quote!(crate::procaddr::Variant::Ptsz),
                _ => quote!(crate::procaddr::Variant::Legacy),
            };
            match &r.symbol {
                Some(s) => {
                    let path: syn::Path = if hand.contains(s) {
                        syn::parse_str(&format!("crate::procaddr::{s}")).expect("path")
                    } else if pass_set.contains(s.as_str()) {
                        syn::parse_str(&format!("super::passthrough::addr::{s}")).expect("path")
                    } else {
                        syn::parse_str(&format!("super::exports::{s}")).expect("path")
                    };
                    quote!(crate::procaddr::Row { name: #n, version: #v, variant: #pt, symbol: #s, f: #path as *const core::ffi::c_void })
                }
                None => quote!(crate::procaddr::Row { name: #n, version: #v, variant: #pt, symbol: "", f: core::ptr::null() }),
            }
        })
        .collect();
    lists.push(syn::parse_quote! {
        /// The `cuGetProcAddress` table from cudaTypedefs.h's `PFN_<name>_v<version>[_ptds|_ptsz]`
        /// typedefs, sorted by (name, version, variant). `symbol` is the export serving that ABI,
        /// `""` (and a null `f`) for an older ABI anycuda does not export.
        pub static PROC_TABLE: &[crate::procaddr::Row] = &[#(#entries),*];
    });
    let mut lists_text = header(
        inputs,
        "The C ABI's export lists, the legacy names left out (with reasons) and the\n`cuGetProcAddress` table.",
    );
    lists_text.push_str(&pretty(lists));

    // Re-export every export at `exports::` so the table can name them.
    let mod_text = format!(
        "{}\n//! Generated C-ABI exports and tables (codegen/src/emit_capi.rs).\n//! (`rustfmt::skip`: the files are already formatted by codegen, byte-stable for `--check`.)\n#[rustfmt::skip]\npub mod cudart12;\n#[rustfmt::skip]\npub mod cublas;\n#[rustfmt::skip]\npub mod cublaslt;\n#[rustfmt::skip]\npub mod cudart12_types;\n#[rustfmt::skip]\npub mod cufft;\n#[rustfmt::skip]\npub mod curand;\n#[rustfmt::skip]\npub mod cusparse;\n#[rustfmt::skip]\npub mod exports;\n#[rustfmt::skip]\npub mod lists;\n#[rustfmt::skip]\npub mod nccl;\n#[rustfmt::skip]\npub mod nvjitlink;\n#[rustfmt::skip]\npub mod nvml;\n#[rustfmt::skip]\npub mod passthrough;\n",
        banner(inputs)
    );
    let mut uses = String::new();
    for a in &apis {
        uses.push_str(&format!("pub use {}::*;\n", a.module));
    }
    if !extra_names.is_empty() {
        uses.push_str("pub use extra::*;\n");
    }
    exports_text.push_str(&uses);
    let pass_text = passthrough_module(inputs, &pass)?;
    Ok(vec![
        (
            PathBuf::from("capi/src/generated/passthrough.rs"),
            pass_text,
        ),
        (PathBuf::from("capi/src/generated/mod.rs"), mod_text),
        (PathBuf::from("capi/src/generated/exports.rs"), exports_text),
        (PathBuf::from("capi/src/generated/lists.rs"), lists_text),
    ])
}
